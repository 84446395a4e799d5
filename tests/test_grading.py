"""Trusted grading (tutorial_lib.grading): each kernel sealed by the operating system, hostile input that stops only
its own submission, and the red-team suite in a real nbgrader round trip (tests/test_grading_data.py: the data
across the boundary; tests/test_grading_answers.py: right answers that must score)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import nbformat
import pytest

from tutorial_lib.classroom import nbgrader_course as nc
from tutorial_lib.classroom.course import read
from tutorial_lib.grading import classroom, remote, seal
from tutorial_lib.grading.redteam import ATTEMPTS, FORGED_STUDENT, FORGES_OWN, placed
from tutorial_lib.grading.worker import graded_notebook, is_answer, is_test, nbgrader_meta

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ("00_start_here", "03a_queues_and_threads")


# --- the seal ------------------------------------------------------------------------------------------------------

LOOK_AROUND = """
import ctypes, json, os, platform, resource, socket
print(json.dumps({
    "uid": os.getuid(), "pids": sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),
    "interfaces": [name for _, name in socket.if_nameindex()],
    "course": os.path.exists(%r), "notebooks": os.path.exists(%r), "home": os.path.expanduser('~'),
    "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0], "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
    "library_writable": os.access(%r, os.W_OK), "home_writable": os.access('/box/home', os.W_OK),
    "box_writable": os.access('/box', os.W_OK),
    "unshare": ctypes.CDLL(None).unshare(0x10000000), "clone_newuser": ctypes.CDLL(None).syscall(
        {"x86_64": 56, "aarch64": 220}.get(platform.machine(), -1), 0x10000000 | 17, 0, 0, 0, 0),
}))
"""


def test_a_sealed_process_sees_only_itself_the_environment_and_its_box(tmp_path):
    assert seal.problem() is None, seal.problem()
    from tutorial_lib import locations

    (tmp_path / "gradebook.db").write_text("secret")
    uid = seal.uid_for(7)
    library = Path(seal.__file__).parent
    done = seal.run_sealed(LOOK_AROUND % (str(tmp_path), str(locations.notebook_root()), str(library)), uid,
                           seal.Limits(processes=99, file_mb=3))
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["uid"] == (uid if seal.privileged() else os.getuid())
    assert seen["pids"] == [1, 2], seen["pids"]  # its own PID namespace: bwrap's init and itself
    assert seen["interfaces"] == ["lo"]  # its own network namespace: its own loopback only
    assert not seen["course"] and not seen["notebooks"]
    assert seen["home"] == "/box/home" and seen["home_writable"] and not seen["library_writable"]
    assert not seen["box_writable"] or not seal.privileged()  # /box itself is root's
    assert seen["nproc"] == 99 and seen["fsize"] == 3 * 2**20
    assert seen["unshare"] == -1 and seen["clone_newuser"] == -1  # no new namespaces from inside (seccomp)


REACH_OUT = r"""
import json, os, socket
seen = {}
try:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.connect("\0" + %r)
    probe.send(b"3 of 3")
    seen["abstract socket"] = "connected"
except OSError as error:
    seen["abstract socket"] = type(error).__name__
for path in ("/proc/1/environ", "/proc/1/root/etc/shadow", "/proc/1/cwd", "/proc/1/fd"):
    try:
        seen[path] = len(os.listdir(path)) if path.endswith(("cwd", "fd")) else len(open(path, "rb").read())
    except OSError as error:
        seen[path] = type(error).__name__
print(json.dumps(seen))
"""


def test_a_sealed_process_reaches_no_abstract_socket_of_the_grader_and_not_into_its_init():
    """An abstract Unix socket has no file that permissions could guard: only the network namespace keeps a
    submission from it. Nor can it read the environment, root, cwd or descriptors of bwrap's init (root, pid 1)."""
    name = f"grader-probe-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0" + name)
    server.listen(2)
    server.settimeout(1.0)
    try:
        done = seal.run_sealed(REACH_OUT % name, seal.uid_for(9), seal.Limits())
        assert done.returncode == 0, done.stderr[-2000:]
        seen = json.loads(done.stdout)
        assert seen["abstract socket"] == "ConnectionRefusedError", seen
        assert all(seen[path] == "PermissionError" for path in seen if path.startswith("/proc")), seen
        with pytest.raises(TimeoutError):
            server.accept()  # nothing arrived
        unsealed = subprocess.run([sys.executable, "-c", REACH_OUT % name], capture_output=True, text=True,
                                  timeout=60)
        assert json.loads(unsealed.stdout)["abstract socket"] == "connected"  # what the seal stops
    finally:
        server.close()


PLANT = r"""
import json, os, socket
seen = {}
for path in ("/dev/shm/planted", "/tmp/planted", "/box/planted"):
    try:
        open(path, "w").write("from another student")
        seen[path] = "written"
    except OSError as error:
        seen[path] = type(error).__name__
os.mkfifo("/tmp/pipe")
socket.socket(socket.AF_UNIX).bind("/tmp/grader.sock")
print(json.dumps(seen))
"""
LOOK_FOR_PLANTED = r"""
import json, os
print(json.dumps([p for p in ("/dev/shm/planted", "/tmp/planted", "/box/planted", "/tmp/pipe", "/tmp/grader.sock")
                  if os.path.exists(p)]))
"""


def test_what_one_sandbox_plants_in_shared_memory_or_tmp_reaches_no_other_sandbox_and_not_the_grader():
    """A submission writes into /dev/shm and /tmp, makes a FIFO and binds a Unix socket there, for a classmate's
    kernel or the grader to find: each sandbox's /dev/shm and /tmp are its own, and /box is root's."""
    planted = seal.run_sealed(PLANT, seal.uid_for(31), seal.Limits())
    assert planted.returncode == 0, planted.stderr[-2000:]
    seen = json.loads(planted.stdout)
    assert seen["/dev/shm/planted"] == seen["/tmp/planted"] == "written", seen  # it could write there...
    assert seen["/box/planted"] == "PermissionError" or not seal.privileged(), seen
    looked = seal.run_sealed(LOOK_FOR_PLANTED, seal.uid_for(32), seal.Limits())
    assert looked.returncode == 0 and json.loads(looked.stdout) == [], looked.stdout  # ...and no other sandbox sees it
    assert not any(Path(p).exists() for p in ("/dev/shm/planted", "/tmp/planted", "/tmp/pipe", "/tmp/grader.sock"))


def test_a_sandbox_dies_with_the_process_that_started_it():
    """The grader's worker may be killed at the time limit: its sandbox must not outlive it."""
    import signal
    import time

    uid = seal.uid_for(8)
    command = seal.bwrap_command([sys.executable, "-c", "import time; time.sleep(60)"], None, None, uid,
                                 seal.Limits(), None, None)
    process = subprocess.Popen(command, start_new_session=True)
    deadline = time.monotonic() + 30
    while not seal._children(process.pid) or not seal._children(seal._children(process.pid)[0]):
        assert time.monotonic() < deadline, "the sandbox did not start"
        time.sleep(0.1)
    kernel = seal._children(seal._children(process.pid)[0])[0]
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    def alive() -> bool:
        try:
            return Path(f"/proc/{kernel}/stat").read_text().split()[2] != "Z"
        except OSError:
            return False

    deadline = time.monotonic() + 10
    while alive():
        assert time.monotonic() < deadline, "the sandboxed process outlived bwrap"
        time.sleep(0.1)


def test_without_bubblewrap_grading_stops_in_one_line_unless_unsealed(tmp_path, monkeypatch):
    monkeypatch.setattr(seal.shutil, "which", lambda name: None)
    problem = seal.problem()
    assert "bubblewrap" in problem and "--unsealed" in problem and "\n" not in problem
    with pytest.raises(classroom.Unsealable, match="bubblewrap"):
        classroom.grade_assignment(tmp_path, "00_start_here")
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    done = subprocess.run([sys.executable, "-m", "tutorial_lib", "grade", str(tmp_path), "00_start_here"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "bubblewrap" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_where_namespaces_are_refused_grading_says_so_in_one_line(tmp_path, monkeypatch):
    """A bwrap that cannot make namespaces (as in a container started without them) answers as bubblewrap does."""
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does "
                    "not allow non-privileged user namespaces.' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    problem = seal.problem()
    assert problem.startswith("cannot seal submissions: bwrap could not make namespaces here (bwrap: No permissions")
    assert "user.max_user_namespaces" in problem and "--unsealed" in problem and "\n" not in problem


def test_graded_notebooks_keep_only_text_and_images_of_what_the_kernel_sent():
    from tutorial_lib.grading.worker import plain_outputs

    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<script>steal()</script>",
                                                                 "application/javascript": "steal()",
                                                                 "text/plain": "shown"}),
                    nbformat.v4.new_output("display_data", data={"image/svg+xml": "<svg onload=steal()/>"}),
                    nbformat.v4.new_output("stream", name="stdout", text="printed")]
    notebook = nbformat.v4.new_notebook(cells=[cell])
    plain_outputs(notebook)
    assert [o.get("data") for o in cell.outputs] == [{"text/plain": "shown"},
                                                     {"text/plain": "(output not kept by the grader)"}, None]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands files to another owner")
def test_run_as_root_grade_leaves_what_it_wrote_to_the_course_owner(tmp_path):
    course = tmp_path / "course"
    (course / "autograded" / "s" / "a").mkdir(parents=True)
    written = [course / "gradebook.db", course / "autograded" / "s" / "a" / "a.ipynb"]
    for path in written:
        path.write_text("x")
    os.chown(course, 4321, 4321)
    classroom._give_to_owner(course, [*written, course / "autograded" / "s" / "a", course / "autograded"])
    assert {path.stat().st_uid for path in [*written, course / "autograded"]} == {4321}


def test_a_workers_malformed_lines_are_noted_never_raised():
    outcome = classroom.Outcome("s")
    points = {"ex1": 1.0}
    for line in (b"not json", b"[1, 2]", b'{"grade_id": "ex1"}', b'{"grade_id": "ex1", "score": "x", "feedback": 1, '
                 b'"how": 2}', b'{"kernel_peak_mb": "nope"}', b"\xff\xfe"):
        assert classroom._take(line, outcome, points) is None
    assert "malformed" in outcome.stopped and outcome.scores == {}
    classroom._take(b'{"grade_id": "ex1", "score": 5, "feedback": "f", "how": "remote"}', outcome, points)
    classroom._take(b'{"grade_id": "ex1", "score": 0, "feedback": "g", "how": "remote"}', outcome, points)
    assert outcome.scores == {"ex1": 1.0}  # capped at the cell's points; the first word on an exercise is final


@pytest.mark.parametrize("content, said", [(b"{not json", "not valid notebook JSON (line 1"),
                                           (b"\xff\xfe\x00", "is not text"), (b'{"cells": 3}', "could not be read")])
def test_a_submission_that_is_not_a_notebook_is_named_with_what_to_do(tmp_path, content, said):
    path = tmp_path / "A.ipynb"
    path.write_bytes(content)
    data, why = classroom.read_submission(path)
    assert data is None and said in why and "A.ipynb" in why


# --- the red-team suite, in a real nbgrader round trip ------------------------------------------------------------

def _nbgrader(course: Path, *args: str) -> None:
    nc.nbgrader(course, *args)


def _forged(released: nbformat.NotebookNode, references: dict[str, str]) -> nbformat.NotebookNode:
    """A submission that forges the notebook file: wrong first answer, test cells emptied with 'passed' outputs,
    their points raised and their grading turned off, and an extra graded cell worth 100."""
    notebook = nc.answered(released, {**references, "ex1_count_label": "def count_label(labels, digit):\n"
                                                                        "    return 0\n"})
    for cell in notebook.cells:
        if is_test(cell):
            cell.source = "pass"
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="✅ passed\n")]
            cell.metadata["nbgrader"]["points"] = 100
            cell.metadata["nbgrader"]["grade"] = False
    extra = nbformat.v4.new_code_cell("print('✅ passed')")
    extra.metadata["nbgrader"] = {"grade": True, "grade_id": "bonus", "locked": True, "points": 100,
                                  "schema_version": 3, "solution": False}
    notebook.cells.append(extra)
    return notebook


class Listener:
    """A TCP port on the grader's loopback that records whatever reaches it (an answer must never reach it)."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.5)
        self.port, self.received, self.stop = self.server.getsockname()[1], [], threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    self.received.append(conn.recv(65536) or b"(connected)")
                except OSError:
                    self.received.append(b"(connected)")

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.server.close()


RIGHT_VARIANTS = {  # three right answers in shapes the old rules refused (tests/test_grading_answers.py has 30+)
    "ex1_count_label": "class Tally:\n    def __init__(self, labels):\n        self.labels = labels\n"
                       "    def of(self, digit):\n        return int((self.labels == digit).sum())\n\n"
                       "def count_label(labels, digit):\n    print('{} labels'.format(len(labels)))\n"
                       "    return Tally(labels).of(digit)\n",
    "ex2_invert": "import operator\n\ndef invert(vocab):\n    inverse = {}\n"
                  "    for pair in sorted(vocab.items(), key=operator.itemgetter(1)):\n        match pair:\n"
                  "            case (word, i) if type(word) is str:\n                inverse[i] = word\n"
                  "    return inverse\n",
    "ex3_atom_count": "def atom_count(molecule, symbol):\n    total = 0\n    def see(z):\n        nonlocal total\n"
                      "        total += datasets.SPECIES[int(z)] == symbol\n"
                      "    for z in getattr(molecule, 'species'):\n        see(z)\n    return int(total)\n\n"
                      "if __name__ == '__main__':\n    print('self-test', atom_count(molecules[0], 'C'))\n",
}


def _setup_and_exercises(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook's title and Setup, then its Exercises section: what the red-team suite grades (the lesson between
    them runs in every submission's kernel otherwise, and tests/test_nbgrader.py grades the whole notebooks)."""
    def heading(cell) -> str:
        return cell.source.splitlines()[0] if cell.cell_type == "markdown" and cell.source.startswith("## ") else ""

    headings = [heading(c) for c in notebook.cells]
    lesson = next(i for i, h in enumerate(headings) if h and h != "## Setup")
    exercises = headings.index("## Exercises")
    reduced = nbformat.from_dict(json.loads(json.dumps(notebook)))
    reduced.cells = notebook.cells[:lesson] + notebook.cells[exercises:]
    return reduced


# The class's limits: a right submission takes 10 to 30 s here (3 at once, beside the other tests, on 2 cores); under
# `make test`'s load its Setup cell alone (importing TensorFlow in the sealed kernel) once ran past a 20 s cell limit,
# which lost right answers, so the cell limit is 60 s. Each of the sleeper's calls (15 s) stays under it, and its
# 180 calls pass the time limit whatever it is. Three jobs at once, so that the runaways' waiting overlaps the
# others' work.
TIME_LIMIT_S, CELL_TIMEOUT_S = 180, 60


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> dict:
    """Two assignments (their Setup and Exercises) released with nbgrader, a class of reference, blank, right-variant,
    malformed and tampering submissions, graded sealed."""
    course = tmp_path_factory.mktemp("course")
    listener = Listener()
    for source in nc.write_course(course, list(ASSIGNMENTS))[:-1]:
        nbformat.write(_setup_and_exercises(read(source)), source)
    expected: dict[tuple[str, str], dict[str, float]] = {}
    for assignment in ASSIGNMENTS:
        _nbgrader(course, "generate_assignment", assignment, "--force")
        released = read(course / "release" / assignment / f"{assignment}.ipynb")
        references = nc.reference_answers(nc.nbgrader_notebook(read(ROOT / "notebooks" / f"{assignment}.ipynb")))
        tests = [nbgrader_meta(c)["grade_id"] for c in released.cells if is_test(c)]
        nc.submit(course, assignment, "reference", nc.answered(released, references))
        expected[("reference", assignment)] = dict.fromkeys(tests, 1.0)
        nc.submit(course, assignment, "blank", released)
        expected[("blank", assignment)] = dict.fromkeys(tests, 0.0)
        for student, target, answers, lost, _ in ATTEMPTS:
            if target == assignment:
                answers = {k: placed(v, str(course), listener.port) for k, v in answers.items()}
                nc.submit(course, assignment, student, nc.answered(released, {**references, **answers}))
                expected[(student, assignment)] = {t: 0.0 if t in lost else 1.0 for t in tests}
        if assignment == "00_start_here":
            nc.submit(course, assignment, FORGED_STUDENT, _forged(released, references))
            expected[(FORGED_STUDENT, assignment)] = {t: 0.0 if t.startswith("ex1_") else 1.0 for t in tests}
            nc.submit(course, assignment, "right-variants", nc.answered(released, RIGHT_VARIANTS))
            expected[("right-variants", assignment)] = dict.fromkeys(tests, 1.0)
            nc.submit(course, assignment, "not-json", released)
            (course / "submitted" / "not-json" / assignment / f"{assignment}.ipynb").write_text('{"cells": [')
            expected[("not-json", assignment)] = dict.fromkeys(tests, 0.0)
    library = classroom.fingerprint(classroom.library_files())
    inputs = classroom.fingerprint(sorted(p for d in ("submitted", "source", "release") for p in (course / d).rglob("*")
                                          if p.is_file()))
    outcomes = {}
    try:
        for assignment in ASSIGNMENTS:
            for outcome in classroom.grade_assignment(course, assignment, jobs=3, time_limit=TIME_LIMIT_S,
                                                      cell_timeout=CELL_TIMEOUT_S,
                                                      progress=lambda line: None):
                outcomes[(outcome.student, assignment)] = outcome
    finally:
        listener.close()
    return {"course": course, "expected": expected, "outcomes": outcomes, "library": library, "inputs": inputs,
            "received": listener.received}


def test_each_tampering_scores_zero_where_it_tampers_and_the_rest_as_usual(graded_class):
    wrong = []
    for key, expected in graded_class["expected"].items():
        got = nc.cell_scores(graded_class["course"], key[1], key[0])
        if key[0] in FORGES_OWN:  # judged by its own kernel's word: it forges its own points (and only those)
            expected = {**expected, **dict.fromkeys(FORGES_OWN[key[0]], 1.0)}
        if got != expected:
            outcome = graded_class["outcomes"][key]
            wrong.append(f"{key}: {got} (expected {expected}); feedback {outcome.feedback}; {outcome.stopped}")
    assert not wrong, "\n".join(wrong)


def test_tampering_leaves_the_library_the_network_and_the_other_students_untouched(graded_class):
    assert classroom.fingerprint(classroom.library_files()) == graded_class["library"]
    assert graded_class["received"] == []  # nothing reached the grader's loopback port
    course = graded_class["course"]
    for assignment in ASSIGNMENTS:
        assert graded_class["outcomes"][("reference", assignment)].total == 3
    after = classroom.fingerprint(sorted(p for d in ("submitted", "source", "release") for p in (course / d).rglob("*")
                                         if p.is_file()))
    assert after == graded_class["inputs"]  # no submission, solution or release was changed


def test_runaway_and_malformed_submissions_are_not_graded_with_the_reason_in_their_feedback(graded_class):
    outcomes = graded_class["outcomes"]
    assert "time limit" in outcomes[("rt-sleep", "00_start_here")].feedback["ex3_atom_count_test"]
    assert outcomes[("rt-sleep", "00_start_here")].seconds < TIME_LIMIT_S + 30
    assert "cell time limit" in outcomes[("rt-loop", "00_start_here")].feedback["ex1_count_label_test"]
    assert "MemoryError" in outcomes[("rt-memory", "00_start_here")].feedback["ex2_invert_test"]
    assert "more than 32 MB of output" in outcomes[("rt-flood", "00_start_here")].feedback["ex3_atom_count_test"]
    for student in ("rt-abort", "rt-exit"):
        assert "kernel died" in outcomes[(student, "00_start_here")].feedback["ex3_atom_count_test"], student
    assert "not valid notebook JSON" in outcomes[("not-json", "00_start_here")].feedback["ex1_count_label_test"]


def test_feedback_and_export_work_from_the_gradebook_as_nbgrader_writes_it(graded_class):
    course = graded_class["course"]
    _nbgrader(course, "generate_feedback", "00_start_here")
    html = (course / "feedback" / "rt-abort" / "00_start_here" / "00_start_here.html").read_text()
    assert "Not graded" in html and "kernel died" in html
    html = (course / "feedback" / "not-json" / "00_start_here" / "00_start_here.html").read_text()
    assert "not valid notebook JSON" in html
    _nbgrader(course, "export")
    rows = (course / "grades.csv").read_text().splitlines()
    assert any(row.startswith("00_start_here,") and ",reference," in row and row.endswith(",3.0,3.0")
               for row in rows), rows


def test_the_grade_command_grades_a_named_student_and_ends_with_a_summary(graded_class, tmp_path):
    course = graded_class["course"]
    done = subprocess.run([sys.executable, "-m", "tutorial_lib", "grade", str(course), "00_start_here",
                           "--student", "blank", "--student", "not-json", "--jobs", "1"], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "blank" in done.stdout and "0 / 3" in done.stdout
    assert "graded 2 submissions of 00_start_here, each in its own sealed kernel" in done.stdout, done.stdout
    assert "not-json: 0 / 3 -- 00_start_here.ipynb is not valid notebook JSON" in done.stdout, done.stdout


def test_the_instructor_guide_lists_every_attempt_with_the_score_the_suite_asserts():
    guide = (ROOT / "docs" / "instructors" / "grading.md").read_text()
    rows = {line.split(" | ")[0].lstrip("| "): line for line in guide.splitlines() if line.startswith("| ")}
    for student, _assignment, _answers, lost, what in ATTEMPTS:
        assert what in rows, f"the guide's red-team table lacks {student}: {what!r}"
        points = 3 - len([t for t in lost if t not in FORGES_OWN.get(student, [])])
        assert f"| {points} of 3 |" in rows[what], (student, rows[what])


def test_only_answer_cells_come_from_the_submission():
    released = read(ROOT / "notebooks" / "00_start_here.ipynb")
    release = nc.nbgrader_notebook(released)
    submission = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in submission.cells:
        cell.source = "print('mine')"
    graded = graded_notebook(release, submission)
    for mine, theirs in zip(graded.cells, release.cells, strict=True):
        assert mine.source == ("print('mine')" if is_answer(theirs) else theirs.source)


def test_only_the_librarys_own_versions_in_the_mutation_tables_are_refused():
    """The one rule left refuses an answer that calls the library's own version of its exercise, and nothing else
    among the mutation tables' right answers (another exercise's answer may call the same function)."""
    import inspect
    import textwrap
    import types as pytypes

    from tutorial_lib.exercises import mutation
    from tutorial_lib.grading.worker import library_call

    aliases = {"build": "build_fast_dataset", "trainer_inputs": "start_service"}  # the stub's name, not the parameter
    refused, ran = [], 0
    for checker, answer, _label in mutation.load_cases(ROOT / "tests").right:
        if not isinstance(answer, pytypes.FunctionType) or answer.__name__ == "<lambda>":
            continue
        try:
            source = textwrap.dedent(inspect.getsource(answer))
        except OSError:
            continue
        ran += 1
        parameter = next(iter(inspect.signature(mutation.checker_function(checker)).parameters))
        if library_call(source, [aliases.get(parameter, parameter)]):
            refused.append(answer.__name__)
    assert ran >= 60, ran
    assert sorted(refused) == ["csv_dataset_library", "fast_library", "validation_pass_drain",
                               "window_from_producer"], refused


def test_the_guides_count_the_exercises_judged_outside_the_kernel_as_the_grader_does():
    import re

    checkers = set()
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        checkers |= set(re.findall(r"exercises\.(check_\w+)\(", notebook.read_text()))
    outside, inside = len(remote.REMOTE), len(checkers - set(remote.REMOTE))
    assert set(remote.REMOTE) <= checkers
    guide = (ROOT / "docs" / "instructors" / "grading.md").read_text()
    assert f"For {outside} exercises (`remote.REMOTE`" in guide and f"For the other {inside} exercises" in guide
    assert f"For these {inside} exercises" in guide
    listed = guide.split("For these")[1].split("**What a determined student")[0]
    assert set(re.findall(r"`(check_\w+)`", listed)) == checkers - set(remote.REMOTE)
    commands = (ROOT / "CONTRIBUTING.md").read_text()
    assert f"{outside} of the {len(checkers)} exercises judged outside it" in commands
