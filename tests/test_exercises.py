"""The exercise checkers' tables and the mutation report that runs them.

Every exercise's right answers and mutants (one wrong answer per requirement, at least three per exercise) live in
tests/exercise_cases_<notebook>.py; the mutation report (`python -m tutorial_lib check-checkers`) and
tests/test_checker_mutants.py (in `make test`) run them all. Here: the tables cover every requirement of every
checker, every hint a requirement names is one its checker can print, the report itself fails when it must (an
accepted mutant, a rejected right answer, a missing hint, a gap), and the REJECTED rows (unfinished cells,
crashes) are rejected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tutorial_lib import classroom
from tutorial_lib import exercises as ex
from tutorial_lib.classroom import nbgrader_course as nbg
from tutorial_lib.classroom.course import NOTEBOOK_GLOB
from tutorial_lib.exercises import core, mutation

CASES = mutation.load_cases(Path(__file__).parent)
CHECKERS = mutation.all_checkers()


def rejection_id(row: tuple) -> str:
    """`<checker>-<fragment>` with the fragment's punctuation folded into underscores, for test ids."""
    checker, _, fragment = row
    words = re.sub(r"\W+", "_", fragment).strip("_")
    return f"{mutation.exercise_of(checker).removeprefix('check_')}-{words}"


# --- the tables -----------------------------------------------------------------------------------------

def test_the_tables_cover_every_requirement_of_every_checker():
    assert mutation.coverage_gaps(CASES, CHECKERS) == []


def test_every_checker_has_a_right_answer_first_and_its_requirements_in_its_docstring():
    for name, checker in CHECKERS.items():
        assert any(mutation.exercise_of(row[0]) == name for row in CASES.right), name
        for requirement in core.requirements_of(checker):
            assert requirement.key in checker.__doc__, (name, requirement.key)


@pytest.mark.parametrize("name", sorted(CHECKERS))
def test_every_requirement_names_a_hint_its_checker_module_prints(name):
    """A hint fragment must be text of the checker's own module, not words only the table knows."""
    module = __import__(CHECKERS[name].__module__, fromlist=["_"])
    text = re.sub(r"\"\s*\n\s*f?\"", "", Path(module.__file__).read_text())  # join implicitly continued strings
    for requirement in core.requirements_of(CHECKERS[name]):
        assert requirement.hint in text, (name, requirement.key, requirement.hint)


def test_the_instructor_guide_gives_the_tables_counts():
    from tutorial_lib.classroom.course import CHECKERS_PAGE

    assert mutation.counts_current(CHECKERS_PAGE, CASES, CHECKERS), \
        "run `python -m tutorial_lib check-checkers --write-counts`"


def test_the_counts_can_be_written_between_the_markers(tmp_path):
    guide = tmp_path / "guide.md"
    guide.write_text(f"before\n{mutation.BEGIN}\nold\n{mutation.END}\nafter\n")
    assert mutation.write_counts(guide, CASES, CHECKERS) and not mutation.write_counts(guide, CASES, CHECKERS)
    assert mutation.counts_current(guide, CASES, CHECKERS)
    assert guide.read_text().startswith("before\n") and guide.read_text().endswith("after\n")


def test_mutants_name_requirements_and_the_mistake():
    for checker, _, key, mistake in CASES.mutants:
        assert mutation.requirement(checker, key) and mistake.strip(), (mutation.exercise_of(checker), key)


def test_every_exercise_has_a_not_done_row():
    not_done = {mutation.exercise_of(row[0]) for row in CASES.rejected if row[2] == "not done yet"}
    assert not_done == set(CHECKERS)


@pytest.mark.parametrize("assignment", list(nbg.TYPICAL_MISTAKES))
def test_the_hubs_typical_mistakes_are_mutants_of_named_requirements(assignment):
    """The nbgrader round trip's wrong submission is made of mistakes the tables name as requirements."""
    hints = [r.hint for checker in CHECKERS.values() if mutation.notebook_of(checker) == assignment
             for r in core.requirements_of(checker)]
    for name, (_, fragment) in nbg.TYPICAL_MISTAKES[assignment].items():
        assert any(fragment in hint or hint in fragment for hint in hints), (assignment, name, fragment)


# --- the rows that are not mutants: unfinished cells and crashes ----------------------------------------

@pytest.mark.parametrize(("checker", "answer", "fragment"), CASES.rejected,
                         ids=[rejection_id(r) for r in CASES.rejected])
def test_unfinished_and_crashing_answers_are_rejected_with_their_hint(capsys, checker, answer, fragment):
    assert not checker(answer)
    out = capsys.readouterr().out
    assert fragment in out, out


def test_hint_does_not_give_the_answer_away(capsys):
    assert not ex.check_feed_bytes(lambda b: 3)
    out = capsys.readouterr().out
    assert "expected" in out and "3136" not in out.split("Hint")[1]


# --- the report itself ----------------------------------------------------------------------------------

@core.requirements(("positive", "returns a positive number", "must be positive"),
                   ("even", "returns an even number", "must be even"))
def check_toy(answer: Callable[[], int]) -> core.Verdict:
    """A checker of a made-up exercise: answer() must be positive and even."""
    def check() -> None:
        value = answer()
        if value <= 0:
            raise core.Mismatch("a positive number", str(value), "The number must be positive.")
        if value % 2:
            raise core.Mismatch("an even number", str(value), "The number must be even.")
    return core.run_check("Toy exercise", check)


def toy_cases(**tables: list[tuple]) -> mutation.Cases:
    """Right answers and mutants of the toy exercise that cover both requirements, with rows replaced or added."""
    base: dict[str, Any] = {
        "right": [(check_toy, lambda: 2, "the reference"), (check_toy, lambda: 4, "another even number")],
        "mutants": [(check_toy, lambda: -2, "positive", "negative"), (check_toy, lambda: 3, "even", "odd"),
                    (check_toy, lambda: 0, "positive", "zero")],
        "rejected": []}
    return mutation.Cases(**{**base, **tables})


def test_the_report_passes_a_complete_and_right_table(capsys):
    cases = toy_cases()
    assert all(o.ok for o in mutation.run(cases))
    assert mutation.coverage_gaps(cases, {"check_toy": check_toy}) == []


def test_the_report_fails_an_accepted_mutant_a_rejected_right_answer_and_a_missing_hint():
    cases = toy_cases(mutants=[(check_toy, lambda: 6, "positive", "accepted: not a mutant at all"),
                               (check_toy, lambda: 3, "positive", "rejected, but for another requirement")],
                      right=[(check_toy, lambda: 5, "odd, so wrong")])
    outcomes = mutation.run(cases)
    assert [o.ok for o in outcomes] == [False, False, False]
    lines = mutation.failures(outcomes)
    assert "right answer REJECTED" in lines[0] and "mutant ACCEPTED or hint missing" in lines[1]


def test_the_report_names_every_gap():
    @core.requirements(("one", "does one thing", "the one thing"))
    def check_bare(answer: Any) -> core.Verdict:
        """A checker whose tables are missing."""
        return core.run_check("Bare", lambda: None)

    def check_undocumented(answer: Any) -> core.Verdict:
        """A checker without requirements."""
        return core.run_check("Undocumented", lambda: None)

    cases = toy_cases(mutants=[(check_toy, lambda: 3, "even", "odd"), (check_toy, lambda: 1, "nonsense", "?")])
    gaps = mutation.coverage_gaps(cases, {"check_toy": check_toy, "check_bare": check_bare,
                                          "check_undocumented": check_undocumented})
    assert "check_toy: 2 mutant(s), at least 3 needed" in gaps
    assert "check_toy: requirement 'positive' has no mutant" in gaps
    assert "check_toy has no requirement 'nonsense'" in gaps
    assert "check_bare: requirement 'one' has no mutant" in gaps
    assert any(g.startswith("check_bare: 0 right answer(s)") for g in gaps)
    assert "check_undocumented: no requirements written down (@requirements)" in gaps


def test_the_table_counts_per_exercise_and_in_total():
    text = mutation.table(mutation.run(toy_cases()), {"check_toy": check_toy})
    row = next(line for line in text.splitlines() if "toy" in line).split()
    assert row[-6:-1] == ["2", "3", "3", "2", "2"]  # requirements, mutants, rejected, right, accepted


def test_requirement_keys_may_not_repeat():
    with pytest.raises(ValueError, match="repeat"):
        core.requirements(("a", "x", "y"), ("a", "z", "w"))


def test_the_command_exits_1_on_a_failure_and_2_on_an_unknown_exercise(tmp_path, capsys):
    (tmp_path / "exercise_cases_99.py").write_text(
        "from tutorial_lib import exercises as ex\n"
        "RIGHT = [(ex.check_feed_bytes, lambda b: b * 784 * 4 + b * 8, 'the reference')]\n"
        "MUTANTS = [(ex.check_feed_bytes, lambda b: b * 784 * 4 + b * 8, 'labels_too', 'not a mistake at all')]\n")
    assert mutation.main(tmp_path, ["feed_bytes"]) == 1
    out = capsys.readouterr().out
    assert "mutant ACCEPTED" in out and "01 feed_bytes" in out
    assert mutation.main(tmp_path, ["no_such_exercise"]) == 2
    with pytest.raises(FileNotFoundError, match="exercise_cases"):
        mutation.load_cases(tmp_path / "empty")


def test_notebook_of_finds_the_checkers_notebook():
    assert mutation.notebook_of(ex.check_capacity) == "03b_batching_and_shuffling"
    assert {mutation.notebook_of(c) for c in CHECKERS.values()} == {
        p.stem for p in classroom.NOTEBOOK_DIR.glob(NOTEBOOK_GLOB)}
