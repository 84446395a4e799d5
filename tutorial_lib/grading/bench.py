"""How long a class takes to grade: `nbgrader autograde`, one submission after another, against the course's grader
(`grading.classroom`), all cores, on the same synthetic class in the same run (`python -m tutorial_lib bench
grading [--class-size 30] [--jobs N] [ASSIGNMENT...]`).

The class: a third reference answers, a sixth untouched releases, a sixth typical mistakes
(`nbgrader_course.TYPICAL_MISTAKES`), the rest tampering (`redteam.ATTEMPTS` for that assignment, in turn,
but `EXCLUDED`). Both graders' scores are reported for each kind of submission.
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

# Not in the timed class: the runaways (autograde would hold each for its full cell timeout; the red-team test times
# them under the grader) and the attempts that, under plain autograde, would really damage the grading machine
# (overwrite the library's files or every gradebook it can find, kill the kernel mid-run).
EXCLUDED = ("rt-loop", "rt-memory", "rt-sleep", "rt-library-file", "rt-gradebook", "rt-exit")


@dataclass
class ClassRun:
    """One assignment's synthetic class graded both ways."""

    assignment: str
    students: dict[str, str] = field(default_factory=dict)  # student -> kind
    autograde_s: float = 0.0
    grade_s: float = 0.0
    autograde_scores: dict[str, float] = field(default_factory=dict)
    grade_scores: dict[str, float] = field(default_factory=dict)
    one_submission_s: float = 0.0  # the grader, one reference submission alone
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


def measure(assignments: list[str], size: int = 30, jobs: int | None = None,
            progress=print) -> list[ClassRun]:
    """Grade a synthetic class of each assignment with autograde (serial) and the grader (parallel)."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as scratch:
        course = Path(scratch) / "course"
        nc.write_course(course, assignments)
        for assignment in assignments:
            nc.nbgrader(course, "generate_assignment", assignment, "--force")
            run = ClassRun(assignment, synthetic_class(course, assignment, size))
            first = next(s for s, kind in run.students.items() if kind == "reference")
            alone = classroom.grade_assignment(course, assignment, jobs=1, students=[first], progress=lambda _: None)
            run.one_submission_s, run.peak_mb = alone[0].seconds, alone[0].peak_mb
            start = time.perf_counter()
            for student in run.students:
                try:
                    nc.nbgrader(course, "autograde", assignment, "--student", student, "--force")
                    run.autograde_scores[student] = sum(nc.cell_scores(course, assignment, student).values())
                except RuntimeError:  # autograde itself failed on this submission
                    run.autograde_scores[student] = float("nan")
            run.autograde_s = time.perf_counter() - start
            start = time.perf_counter()
            outcomes = classroom.grade_assignment(course, assignment, jobs=jobs, progress=lambda _: None)
            run.grade_s = time.perf_counter() - start
            run.grade_scores = {o.student: o.total for o in outcomes}
            run.peak_mb = max([run.peak_mb, *(o.peak_mb for o in outcomes)])
            progress(report(run, jobs or os.cpu_count() or 1))
            runs.append(run)
    return runs


def report(run: ClassRun, jobs: int) -> str:
    """The run's lines: times, their ratio, and each kind of submission's scores under both graders."""
    lines = [f"{run.assignment}: a class of {len(run.students)} on {os.cpu_count()} cores: nbgrader autograde one "
             f"after another {run.autograde_s:.0f} s; the grader, {jobs} at a time, {run.grade_s:.0f} s "
             f"({run.autograde_s / run.grade_s:.2f}x); one submission alone {run.one_submission_s:.1f} s; "
             f"kernel peak memory {run.peak_mb:.0f} MB"]
    for kind in dict.fromkeys(run.students.values()):
        students = [s for s, k in run.students.items() if k == kind]
        auto = sorted({run.autograde_scores[s] for s in students})
        graded = sorted({run.grade_scores[s] for s in students})
        lines.append(f"  {kind:<20} x{len(students):<3} autograde {auto}  grader {graded}")
    return "\n".join(lines)
