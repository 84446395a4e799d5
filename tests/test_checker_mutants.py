"""Every exercise checker against its right answers and its mutants, one test per exercise.

The same run as the mutation report (`python -m tutorial_lib check-checkers`, `make check-checkers`, which prints
the per-exercise table), as tests: `make test` runs them beside the others (pytest-xdist), so each exercise's
answers are checked without a separate, serial step. The REJECTED rows run in tests/test_exercises.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tutorial_lib.exercises import mutation

CASES = mutation.load_cases(Path(__file__).parent)
EXERCISES = sorted({mutation.exercise_of(row[0]) for row in CASES.right + CASES.mutants})


def cases_of(exercise: str) -> mutation.Cases:
    """The right answers and mutants of one exercise (its checker's name, `check_...`)."""
    return mutation.Cases(right=[r for r in CASES.right if mutation.exercise_of(r[0]) == exercise],
                          mutants=[m for m in CASES.mutants if mutation.exercise_of(m[0]) == exercise])


# A mutant that starves a queue makes its runner threads time out: their exceptions are the mistake showing.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.removeprefix("check_") for e in EXERCISES])
def test_right_answers_pass_and_each_mutant_is_rejected_with_its_hint(exercise):
    cases = cases_of(exercise)
    assert cases.right and len(cases.mutants) >= mutation.MIN_MUTANTS, exercise
    outcomes = mutation.run(cases)
    assert len(outcomes) == len(cases.right) + len(cases.mutants)
    assert mutation.failures(outcomes) == []


def test_an_accepted_mutant_fails_the_test():
    """The test above can fail: a right answer filed as a mutant is accepted, and `failures` names it."""
    exercise = EXERCISES[0]
    checker, answer, _ = next(r for r in CASES.right if mutation.exercise_of(r[0]) == exercise)
    key = mutation.requirements_of(checker)[0].key
    outcomes = mutation.run(mutation.Cases(mutants=[(checker, answer, key, "the reference, filed as a mutant")]))
    assert [o.ok for o in outcomes] == [False]
    assert "mutant ACCEPTED" in mutation.failures(outcomes)[0]
