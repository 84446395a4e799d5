"""The mutation report: every checker against its right answers and its mutants (`python -m tutorial_lib
check-checkers`, `make check-checkers`).

The answers live with the tests, one file per notebook (`tests/exercise_cases_<NN>.py`), in three tables:

* `RIGHT`: (checker, answer, how it is written) -- the reference first, then right answers written differently
  (another API, another loop shape); each must pass;
* `MUTANTS`: (checker, answer, requirement key, the mistake) -- a plausible wrong answer that breaks one of the
  checker's requirements (`core.requirements`); each must be rejected with feedback that holds that
  requirement's hint fragment;
* `REJECTED`: (checker, answer, fragment) -- other answers that must be rejected (an unfinished cell, a crash).

The report prints, per exercise: its requirements, mutants, mutants rejected, right answers, right answers
accepted and the slowest check; then every failure and every gap in coverage (a checker without requirements, a
requirement without a mutant, fewer than `MIN_MUTANTS` mutants, no right answer besides the reference). It exits
1 when anything failed or is missing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutorial_lib.exercises.core import Requirement, requirements_of

MIN_MUTANTS = 3  # per exercise
MIN_RIGHT = 2  # per exercise: the reference and at least one written differently
SLOW_CHECK_S = 10.0  # a checker slower than this says so in its hint and statement


@dataclass
class Cases:
    """The three tables of every `exercise_cases_*.py` in a folder, concatenated in file order."""

    right: list[tuple] = field(default_factory=list)
    mutants: list[tuple] = field(default_factory=list)
    rejected: list[tuple] = field(default_factory=list)


@dataclass
class Outcome:
    """One answer run through its checker: whether it came out as it must, and what the checker printed."""

    exercise: str
    kind: str  # "right", "mutant" or "rejected"
    label: str
    ok: bool
    feedback: str
    seconds: float


def checker_function(checker: Callable) -> Callable:
    """The checker itself (a functools.partial's function)."""
    return getattr(checker, "func", checker)


def exercise_of(checker: Callable) -> str:
    """`check_x`, the name that identifies an exercise."""
    return checker_function(checker).__name__


def all_checkers() -> dict[str, Callable]:
    """Every exercise checker the course exports, by name."""
    from tutorial_lib import exercises

    return {name: getattr(exercises, name) for name in dir(exercises) if name.startswith("check_")}


def notebook_of(checker: Callable) -> str:
    """The notebook stem whose exercises the checker's module checks (e.g. `03a_queues_and_threads`)."""
    from tutorial_lib import classroom

    module = checker_function(checker).__module__.rsplit(".", 1)[-1]
    for path in sorted(classroom.NOTEBOOK_DIR.glob(classroom.NOTEBOOK_GLOB)):
        if path.stem.split("_", 1)[1] == module:
            return path.stem
    return module


def load_cases(folder: Path) -> Cases:
    """Read RIGHT, MUTANTS and REJECTED from every `exercise_cases_*.py` in `folder`."""
    cases = Cases()
    files = sorted(Path(folder).glob("exercise_cases_*.py"))
    if not files:
        raise FileNotFoundError(f"no exercise_cases_*.py in {folder}: pass the project's tests/ folder")
    for path in files:
        spec = importlib.util.spec_from_file_location(f"_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cases.right += getattr(module, "RIGHT", [])
        cases.mutants += getattr(module, "MUTANTS", [])
        cases.rejected += getattr(module, "REJECTED", [])
    return cases


def requirement(checker: Callable, key: str) -> Requirement:
    """The checker's requirement with this key; KeyError naming the checker when it has none such."""
    for row in requirements_of(checker):
        if row.key == key:
            return row
    raise KeyError(f"{exercise_of(checker)} has no requirement {key!r}")


def _run(checker: Callable, answer: Any) -> tuple[bool, str, float]:
    """Run one answer through its checker with its printing captured: (passed, feedback, seconds)."""
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        verdict = checker(answer)
    return bool(verdict), out.getvalue(), time.perf_counter() - start


def run(cases: Cases, progress: Callable[[str], None] | None = None) -> list[Outcome]:
    """Run every right answer, mutant and rejected answer; return what came out of each."""
    outcomes = []
    for checker, answer, how in cases.right:
        passed, feedback, seconds = _run(checker, answer)
        outcomes.append(Outcome(exercise_of(checker), "right", how, passed, feedback, seconds))
    for checker, answer, key, mistake in cases.mutants:
        passed, feedback, seconds = _run(checker, answer)
        ok = not passed and requirement(checker, key).hint in feedback
        outcomes.append(Outcome(exercise_of(checker), "mutant", f"{key}: {mistake}", ok, feedback, seconds))
    for checker, answer, fragment in cases.rejected:
        passed, feedback, seconds = _run(checker, answer)
        outcomes.append(Outcome(exercise_of(checker), "rejected", fragment, not passed and fragment in feedback,
                                feedback, seconds))
    if progress:
        progress(f"ran {len(outcomes)} answers")
    return outcomes


def coverage_gaps(cases: Cases, checkers: dict[str, Callable]) -> list[str]:
    """What the tables miss: requirements, mutants per requirement and per exercise, right answers."""
    gaps = []
    for name, checker in checkers.items():
        rows = requirements_of(checker)
        if not rows:
            gaps.append(f"{name}: no requirements written down (@requirements)")
        mutants = [m for m in cases.mutants if exercise_of(m[0]) == name]
        if len(mutants) < MIN_MUTANTS:
            gaps.append(f"{name}: {len(mutants)} mutant(s), at least {MIN_MUTANTS} needed")
        covered = {m[2] for m in mutants}
        for row in rows:
            if row.key not in covered:
                gaps.append(f"{name}: requirement {row.key!r} has no mutant")
        right = [r for r in cases.right if exercise_of(r[0]) == name]
        if len(right) < MIN_RIGHT:
            gaps.append(f"{name}: {len(right)} right answer(s), the reference and one written differently needed")
    for checker, _, key, _ in cases.mutants:
        try:
            requirement(checker, key)
        except KeyError as error:
            gaps.append(str(error.args[0]))
    return gaps


def table(outcomes: Iterable[Outcome], checkers: dict[str, Callable]) -> str:
    """Per exercise, in course order: requirements, mutants rejected, right answers accepted, slowest check."""
    outcomes = list(outcomes)
    header = (f"{'exercise':<44} {'reqs':>4} {'mutants':>7} {'rejected':>8} {'right':>5} {'accepted':>8} "
              f"{'slowest':>8}")
    lines, totals = [header, "-" * len(header)], [0, 0, 0, 0, 0]
    order = sorted(checkers, key=lambda name: (notebook_of(checkers[name]), name))
    for name in order:
        mine = [o for o in outcomes if o.exercise == name]
        mutants = [o for o in mine if o.kind == "mutant"]
        right = [o for o in mine if o.kind == "right"]
        row = [len(requirements_of(checkers[name])), len(mutants), sum(o.ok for o in mutants), len(right),
               sum(o.ok for o in right)]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        slowest = max((o.seconds for o in mine), default=0.0)
        label = f"{notebook_of(checkers[name]).split('_', 1)[0]} {name.removeprefix('check_')}"
        lines.append(f"{label:<44} {row[0]:>4} {row[1]:>7} {row[2]:>8} {row[3]:>5} {row[4]:>8} {slowest:>7.1f}s")
    lines.append("-" * len(header))
    lines.append(f"{'total (' + str(len(order)) + ' exercises)':<44} {totals[0]:>4} {totals[1]:>7} {totals[2]:>8} "
                 f"{totals[3]:>5} {totals[4]:>8}")
    return "\n".join(lines)


BEGIN, END = "<!-- checkers:begin -->", "<!-- checkers:end -->"  # the counts' block in docs/instructors/checkers.md


def counts_markdown(cases: Cases, checkers: dict[str, Callable]) -> str:
    """Per exercise, from the tables alone (nothing run): requirements, mutants and right answers, as markdown."""
    lines = ["| exercise | requirements | mutants | right answers |", "|---|---:|---:|---:|"]
    totals = [0, 0, 0]
    for name in sorted(checkers, key=lambda n: (notebook_of(checkers[n]), n)):
        row = [len(requirements_of(checkers[name])), sum(exercise_of(m[0]) == name for m in cases.mutants),
               sum(exercise_of(r[0]) == name for r in cases.right)]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        lines.append(f"| `{notebook_of(checkers[name])}` {name.removeprefix('check_')} | "
                     + " | ".join(map(str, row)) + " |")
    lines.append(f"| **{len(checkers)} exercises** | **{totals[0]}** | **{totals[1]}** | **{totals[2]}** |")
    return "\n".join(lines)


def write_counts(path: Path, cases: Cases, checkers: dict[str, Callable]) -> bool:
    """Put the counts between the markers in `path` (docs/instructors/checkers.md); return whether the file changed."""
    text = Path(path).read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    new = f"{text[:start]}\n{counts_markdown(cases, checkers)}\n{text[end:]}"
    if new != text:
        Path(path).write_text(new)
    return new != text


def counts_current(path: Path, cases: Cases, checkers: dict[str, Callable]) -> bool:
    """Whether the counts between the markers in `path` are the tables' own."""
    text = Path(path).read_text()
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip() == counts_markdown(cases, checkers)


def failures(outcomes: Iterable[Outcome]) -> list[str]:
    """One line per answer that did not come out as it must, with the checker's first line of feedback."""
    lines = []
    for o in outcomes:
        if o.ok:
            continue
        said = (o.feedback.strip().splitlines() or ["(printed nothing)"])[0][:160]
        what = {"right": "right answer REJECTED", "mutant": "mutant ACCEPTED or hint missing",
                "rejected": "wrong answer ACCEPTED or hint missing"}[o.kind]
        lines.append(f"{o.exercise}: {what}: {o.label}\n    the checker said: {said}")
    return lines


def main(folder: str | Path, only: list[str] | None = None, counts_to: Path | None = None) -> int:
    """Print the report for the cases in `folder` (optionally only some checkers); return the exit status.

    With `counts_to` (docs/instructors/checkers.md), only rewrite the counts' block there from the tables (nothing
    is run)."""
    import tqdm.auto as tqdm

    cases = load_cases(Path(folder))
    checkers = all_checkers()
    if counts_to is not None:
        changed = write_counts(counts_to, cases, checkers)
        print(f"{counts_to}: counts {'rewritten' if changed else 'already current'}")
        return 0
    if only:
        unknown = sorted(set(only) - set(checkers) - {n.removeprefix("check_") for n in checkers})
        if unknown:
            print(f"unknown exercise(s): {', '.join(unknown)}; known: {', '.join(sorted(checkers))}",
                  file=sys.stderr)
            return 2
        wanted = {n if n.startswith("check_") else f"check_{n}" for n in only}
        checkers = {n: c for n, c in checkers.items() if n in wanted}
        cases = Cases(*[[row for row in rows if exercise_of(row[0]) in checkers]
                        for rows in (cases.right, cases.mutants, cases.rejected)])
    rows = ([("right", r) for r in cases.right] + [("mutant", m) for m in cases.mutants]
            + [("rejected", r) for r in cases.rejected])
    outcomes = []
    for kind, row in tqdm.tqdm(rows, desc="answers", unit="answer", file=sys.stderr):
        single = Cases(**{{"right": "right", "mutant": "mutants", "rejected": "rejected"}[kind]: [row]})
        outcomes += run(single)
    gaps = coverage_gaps(cases, checkers)
    print(table(outcomes, checkers))
    slow = sorted({o.exercise for o in outcomes if o.seconds > SLOW_CHECK_S})
    if slow:
        print(f"\nslower than {SLOW_CHECK_S:g} s on this machine: {', '.join(slow)}")
    problems = failures(outcomes) + gaps
    if problems:
        print(f"\n{len(problems)} problem(s):")
        print("\n".join(f"  {p}" for p in problems))
        return 1
    print("\nevery mutant rejected with its requirement's hint, every right answer accepted, every requirement covered")
    return 0
