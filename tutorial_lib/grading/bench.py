"""What sealing costs: the same synthetic class graded by the course's grader unsealed (each kernel as the grading
user, as before sealing) and sealed (each kernel in its own bubblewrap sandbox), one after the other in one run, and
optionally by `nbgrader autograde` one submission after another (`python -m tutorial_lib bench grading
[--class-size 30] [--jobs N] [--autograde] [ASSIGNMENT...]`).

The class: a third reference answers, a sixth untouched releases, a sixth typical mistakes
(`nbgrader_course.TYPICAL_MISTAKES`), the rest tampering (`redteam.ATTEMPTS` for that assignment, in turn, but
those in `redteam.HARMFUL_UNSEALED` and the runaways, which must not run unsealed). Every grader's scores are
reported for each kind of submission.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tutorial_lib.classroom import nbgrader_course as nc
from tutorial_lib.classroom.course import NOTEBOOK_DIR, read
from tutorial_lib.grading import classroom, redteam

# Not in the timed class: the runaways (each holds a job for its full time limit, rt-builtins by hanging its own
# kernel) and whatever would harm the machine when run unsealed.
EXCLUDED = ("rt-loop", "rt-memory", "rt-sleep", "rt-builtins", *redteam.HARMFUL_UNSEALED)


@dataclass
class ClassRun:
    """One assignment's synthetic class graded each way."""

    assignment: str
    students: dict[str, str] = field(default_factory=dict)  # student -> kind
    seconds: dict[str, float] = field(default_factory=dict)  # "unsealed", "sealed", "autograde" -> class time
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # way -> student -> score
    alone_s: dict[str, float] = field(default_factory=dict)  # way -> one reference submission alone
    per_submission_s: dict[str, float] = field(default_factory=dict)  # way -> mean of the submissions' own times
    peak_mb: float = 0.0


def synthetic_class(course: Path, assignment: str, size: int) -> dict[str, str]:
    """Submit `size` synthetic submissions of a released assignment; return student -> what it is."""
    released = read(course / "release" / assignment / f"{assignment}.ipynb")
    notebook = read(NOTEBOOK_DIR / f"{assignment}.ipynb")
    references = nc.reference_answers(nc.nbgrader_notebook(notebook))
    mistakes, _ = nc.mistaken_answers(assignment, notebook)
    attempts = [a for a in redteam.ATTEMPTS if a[1] == assignment and a[0] not in EXCLUDED]
    kinds = ["reference"] * (size // 3) + ["blank"] * (size // 6) + ["mistakes"] * (size // 6)
    kinds += [attempts[k % len(attempts)][0] if attempts else "reference" for k in range(size - len(kinds))]
    students = {}
    for index, kind in enumerate(kinds):
        student = f"s{index:02d}-{kind}"
        if kind == "reference":
            submission = nc.answered(released, references)
        elif kind == "blank":
            submission = released
        elif kind == "mistakes":
            submission = nc.answered(released, mistakes)
        else:
            attempt = next(a for a in attempts if a[0] == kind)
            submission = nc.answered(released, {**references, **attempt[2]})
        nc.submit(course, assignment, student, submission)
        students[student] = kind
    return students


def measure(assignments: list[str], size: int = 30, jobs: int | None = None, autograde: bool = False,
            progress=print) -> list[ClassRun]:
    """Grade a synthetic class of each assignment unsealed, then sealed (and with autograde when asked)."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as scratch:
        course = Path(scratch) / "course"
        nc.write_course(course, assignments)
        for assignment in assignments:
            nc.nbgrader(course, "generate_assignment", assignment, "--force")
            run = ClassRun(assignment, synthetic_class(course, assignment, size))
            first = next(s for s, kind in run.students.items() if kind == "reference")
            for way in ("unsealed", "sealed"):
                alone = classroom.grade_assignment(course, assignment, jobs=1, students=[first],
                                                   progress=lambda _: None, unsealed=way == "unsealed")
                run.alone_s[way] = alone[0].seconds
                start = time.perf_counter()
                outcomes = classroom.grade_assignment(course, assignment, jobs=jobs, progress=lambda _: None,
                                                      unsealed=way == "unsealed")
                run.seconds[way] = time.perf_counter() - start
                run.scores[way] = {o.student: o.total for o in outcomes}
                run.per_submission_s[way] = sum(o.seconds for o in outcomes) / len(outcomes)
                run.peak_mb = max([run.peak_mb, *(o.peak_mb for o in outcomes)])
            if autograde:
                start, run.scores["autograde"] = time.perf_counter(), {}
                for student in run.students:
                    try:
                        nc.nbgrader(course, "autograde", assignment, "--student", student, "--force")
                        run.scores["autograde"][student] = sum(nc.cell_scores(course, assignment, student).values())
                    except RuntimeError:  # autograde itself failed on this submission
                        run.scores["autograde"][student] = float("nan")
                run.seconds["autograde"] = time.perf_counter() - start
            progress(report(run, jobs or os.cpu_count() or 1))
            runs.append(run)
    return runs


def report(run: ClassRun, jobs: int) -> str:
    """The run's lines: each way's time, sealed over unsealed, and each kind of submission's scores."""
    ratio = run.per_submission_s["sealed"] / run.per_submission_s["unsealed"]
    lines = [f"{run.assignment}: a class of {len(run.students)} on {os.cpu_count()} cores, {jobs} at a time: "
             f"unsealed {run.seconds['unsealed']:.0f} s, sealed {run.seconds['sealed']:.0f} s; per submission "
             f"{run.per_submission_s['unsealed']:.1f} s unsealed, {run.per_submission_s['sealed']:.1f} s sealed "
             f"(sealed / unsealed {ratio:.3f}, {100 * (ratio - 1):+.1f}%); one submission alone "
             f"{run.alone_s['unsealed']:.1f} s unsealed, {run.alone_s['sealed']:.1f} s sealed; kernel peak memory "
             f"{run.peak_mb:.0f} MB"]
    if "autograde" in run.seconds:
        lines[0] += f"; nbgrader autograde one after another {run.seconds['autograde']:.0f} s"
    for kind in dict.fromkeys(run.students.values()):
        students = [s for s, k in run.students.items() if k == kind]
        scores = "  ".join(f"{way} {sorted({run.scores[way][s] for s in students})}" for way in run.scores)
        lines.append(f"  {kind:<20} x{len(students):<3} {scores}")
    return "\n".join(lines)
