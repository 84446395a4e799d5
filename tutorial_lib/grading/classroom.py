"""Grade a class: every submission of an assignment, in parallel, each within a time and a memory limit, into
nbgrader's gradebook.

    python -m tutorial_lib grade COURSE_DIR ASSIGNMENT [--jobs N] [--time-limit S] [--memory-mb M]
        [--cell-timeout S] [--student ID ...]

COURSE_DIR is an nbgrader course (`python -m tutorial_lib nbgrader`) after `nbgrader generate_assignment` and
`nbgrader collect` (or `zip_collect`): the release is `release/A/A.ipynb`, the submissions
`submitted/<student>/A/A.ipynb`. Each submission is graded by its own `grading.worker` process (its own session,
`--jobs` at a time, default one per core) with RLIMIT_AS at `--memory-mb`; one that runs past `--time-limit` is
killed with its kernel, and the exercises it had not finished score 0 with the reason in their feedback. Results
come back over a pipe the kernel does not inherit. Then, in this process only, the scores go into the gradebook as
`nbgrader autograde` writes them (each test cell's auto_score) and each graded notebook into
`autograded/<student>/A/`, so `nbgrader generate_feedback`, `export` and the formgrader work as usual.

Before the workers start, the gradebook and the course library's files are fingerprinted; if either changed while
submissions ran, the gradebook is restored from the copy taken before grading and the run fails, naming it.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from tutorial_lib.grading.worker import is_test, nbgrader_meta

TIME_LIMIT_S = 600.0  # per submission: the slowest notebook runs in under 90 s on 2 cores
MEMORY_MB = 8192  # address space per process (TensorFlow alone maps about 2.4 GB of it)


@dataclass
class Outcome:
    """One submission's grading: each test cell's score and feedback, how long it took, why it stopped early."""

    student: str
    scores: dict[str, float] = field(default_factory=dict)
    feedback: dict[str, str] = field(default_factory=dict)
    how: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    stopped: str = ""
    peak_mb: float = 0.0  # the kernel's peak resident memory, when it could be read

    @property
    def total(self) -> float:
        """The submission's score."""
        return sum(self.scores.values())


def release_path(course: Path, assignment: str) -> Path:
    """The released notebook of an assignment (nbgrader generate_assignment writes it)."""
    path = course / "release" / assignment / f"{assignment}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `nbgrader generate_assignment {assignment}` in {course} "
                                "first")
    return path


def submissions(course: Path, assignment: str, students: list[str] | None = None) -> dict[str, Path]:
    """student -> submitted notebook, for every (or the named) student who submitted the assignment."""
    found = {p.parent.parent.name: p for p in sorted(course.glob(f"submitted/*/{assignment}/{assignment}.ipynb"))}
    if students:
        missing = sorted(set(students) - set(found))
        if missing:
            raise FileNotFoundError(f"no submission of {assignment} in {course / 'submitted'} for {missing}")
        found = {s: found[s] for s in students}
    return found


def test_cells(release: Path) -> dict[str, float]:
    """grade_id -> points of the release's test cells."""
    return {nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c).get("points", 0))
            for c in nbformat.read(release, 4).cells if is_test(c)}


def fingerprint(paths: list[Path]) -> str:
    """A digest of files' contents (missing files count as empty)."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path).encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def library_files() -> list[Path]:
    """The installed course library's Python files."""
    import tutorial_lib

    return sorted(Path(tutorial_lib.__file__).parent.rglob("*.py"))


def _kill(pid: int | None) -> None:
    """Kill a process's whole group (the worker's session, or the kernel's), if it is still there."""
    if not pid:
        return
    try:
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def grade_one(release: Path, submission: Path, out_dir: Path, time_limit: float, memory_mb: int,
              cell_timeout: int, points: dict[str, float]) -> tuple[Outcome, Path]:
    """Run one worker within the limits; return what it reported (missing exercises scored 0, with the reason)."""
    student = out_dir.name
    outcome = Outcome(student)
    out_dir.mkdir(parents=True, exist_ok=True)
    read_end, write_end = os.pipe()
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
           "JUPYTER_PREFER_ENV_PATH": "1", "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                                   os.environ.get("PATH", "")])}
    start = time.perf_counter()
    with (out_dir / "worker.log").open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "tutorial_lib.grading.worker", str(release), str(submission), str(out_dir),
             "--cell-timeout", str(cell_timeout), "--results-fd", str(write_end), "--memory-mb", str(memory_mb)],
            pass_fds=(write_end,), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, env=env, cwd=out_dir)
    os.close(write_end)
    kernel_pid, buffer, deadline = None, b"", start + time_limit
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                outcome.stopped = f"it ran past the time limit of {time_limit:g} s and was stopped"
                break
            ready, _, _ = select.select([pipe], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                kernel_pid = _take(json.loads(line), outcome, points) or kernel_pid
    _kill(process.pid)
    _kill(kernel_pid)
    process.wait()
    outcome.seconds = time.perf_counter() - start
    if not outcome.stopped and process.returncode not in (0, None) and len(outcome.scores) < len(points):
        outcome.stopped = f"the grader's worker exited with {process.returncode} (see its log)"
    for grade_id in points:
        if grade_id not in outcome.scores:
            outcome.scores[grade_id] = 0.0
            outcome.how[grade_id] = "not finished"
            outcome.feedback[grade_id] = f"❌ Not graded: {outcome.stopped or 'the submission stopped before it'}."
    return outcome, out_dir / "graded.ipynb"


def _take(message: dict, outcome: Outcome, points: dict[str, float]) -> int | None:
    """Record one message from a worker; return the kernel's pid when that is what it says."""
    if "kernel_pid" in message:
        return int(message["kernel_pid"]) if message["kernel_pid"] else None
    if "kernel_peak_mb" in message:
        outcome.peak_mb = float(message["kernel_peak_mb"])
        return None
    if "stopped" in message:
        outcome.stopped = str(message["stopped"])
        return None
    grade_id = message["grade_id"]
    if grade_id in points:
        outcome.scores[grade_id] = min(float(message["score"]), points[grade_id])
        outcome.feedback[grade_id], outcome.how[grade_id] = str(message["feedback"]), str(message["how"])
    return None


def write_gradebook(course: Path, assignment: str, outcomes: list[Outcome], course_id: str) -> None:
    """Record each test cell's auto_score as `nbgrader autograde` does (a manual score already given is kept)."""
    import warnings

    from nbgrader.api import Gradebook, MissingEntry

    with warnings.catch_warnings(), Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=course_id) as gradebook:
        warnings.simplefilter("ignore")  # SQLAlchemy's autoflush warnings from nbgrader's own API
        for outcome in outcomes:
            try:
                gradebook.find_student(outcome.student)
            except MissingEntry:
                gradebook.add_student(outcome.student)
            gradebook.update_or_create_submission(assignment, outcome.student)
            for grade_id, score in outcome.scores.items():
                grade = gradebook.find_grade(grade_id, assignment, assignment, outcome.student)
                grade.auto_score = score
                grade.needs_manual_grade = grade.manual_score is not None
            gradebook.db.commit()


def with_feedback(graded: Path, release: Path, outcome: Outcome) -> nbformat.NotebookNode:
    """The autograded notebook: the worker's executed notebook, or the release with the reason when it stopped."""
    notebook = nbformat.read(graded, 4) if graded.exists() else nbformat.read(release, 4)
    for cell in notebook.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if is_test(cell) and outcome.how.get(grade_id) == "not finished":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=outcome.feedback[grade_id] + "\n")]
    return notebook


def grade_assignment(course: Path, assignment: str, jobs: int | None = None, time_limit: float = TIME_LIMIT_S,
                     memory_mb: int = MEMORY_MB, cell_timeout: int = 300, students: list[str] | None = None,
                     course_id: str | None = None, progress=print) -> list[Outcome]:
    """Grade every submission of an assignment in parallel and write the gradebook; return each outcome."""
    from tutorial_lib.classroom.nbgrader_course import COURSE_ID

    course = course.resolve()
    release = release_path(course, assignment)
    points = test_cells(release)
    found = submissions(course, assignment, students)
    jobs = jobs or os.cpu_count() or 1
    gradebook = course / "gradebook.db"
    library = library_files()
    before = fingerprint([gradebook]), fingerprint(library)
    with tempfile.TemporaryDirectory(prefix="grading-") as scratch:
        backup = Path(scratch) / "gradebook.db"
        if gradebook.exists():
            shutil.copy2(gradebook, backup)
        work = Path(tempfile.mkdtemp(prefix=f"{assignment}-", dir=scratch))
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {student: pool.submit(grade_one, release, path, work / student, time_limit, memory_mb,
                                            cell_timeout, points) for student, path in found.items()}
            results = {}
            for student, future in futures.items():
                results[student] = future.result()
                outcome = results[student][0]
                progress(f"{student:<24} {outcome.total:g} / {sum(points.values()):g} in {outcome.seconds:.1f} s"
                         + (f" -- {outcome.stopped}" if outcome.stopped else ""))
        changed = [name for name, (was, now) in
                   (("the gradebook", (before[0], fingerprint([gradebook]))),
                    ("the course library", (before[1], fingerprint(library)))) if was != now]
        if changed:
            if backup.exists():
                shutil.copy2(backup, gradebook)
            raise RuntimeError(f"{' and '.join(changed)} changed while submissions ran; the gradebook was restored "
                               "from the copy taken before grading and nothing was recorded. Reinstall the course "
                               "library if it changed, and grade again from an account that holds nothing else.")
        outcomes = [outcome for outcome, _ in results.values()]
        write_gradebook(course, assignment, outcomes, course_id or COURSE_ID)
        for outcome, graded in results.values():
            target = course / "autograded" / outcome.student / assignment / f"{assignment}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(with_feedback(graded, release, outcome), target)
    return outcomes
