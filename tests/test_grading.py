"""Trusted grading (tutorial_lib.grading): plain data only across the boundary, answer cells under rules, checkers
that behave the same on remote answers, and the red-team suite in a real nbgrader round trip."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from tutorial_lib.classroom import nbgrader_course as nc
from tutorial_lib.classroom.course import read
from tutorial_lib.grading import classroom, codec, remote, sandbox
from tutorial_lib.grading.redteam import ATTEMPTS, FORGED_STUDENT
from tutorial_lib.grading.worker import graded_notebook, is_answer, is_test, nbgrader_meta

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ("00_start_here", "03a_queues_and_threads")


# --- plain data -------------------------------------------------------------------------------------------------

def test_plain_values_cross_as_themselves():
    values = [None, True, 3, -2**70, 1.5, float("nan"), "text", b"\x00\xff", [1, (2, 3)], {4: "four", "k": [5]},
              {1, 2}, range(2, 9, 3), np.arange(6, dtype=np.int32).reshape(2, 3), np.float32(2.5), np.bool_(True),
              np.array(["a", "bc"])]
    for value in values:
        back = codec.decode(codec.encode(value))
        assert type(back) is type(value), (value, back)
        if isinstance(value, np.ndarray):
            assert back.dtype == value.dtype and np.array_equal(back, value)
        elif value == value:  # not NaN
            assert back == value


def test_objects_that_lie_arrive_as_stand_ins_without_their_lies():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    class Whole(int):
        def __eq__(self, other):
            return True

    class Liar(dict):
        def __len__(self):
            return 10**6

    for liar in (AlwaysEqual(), Whole(0), Liar(), [AlwaysEqual()]):
        back = codec.decode(codec.encode(liar))
        inner = back[0] if isinstance(back, list) else back
        assert isinstance(inner, codec.StandIn), back
        assert inner != 0 and inner != {} and inner != inner.__class__()
        assert type(inner).__name__ == type(liar if not isinstance(liar, list) else liar[0]).__name__


@pytest.mark.parametrize("text", ['{"A": ["|O", [1], [1]]}', '{"A": ["<i8", [2], [1]]}', '{"N": ["<f8", [1]]}',
                                  '{"Q": 1}', '[1, 2]', '{"D": [[1]]}', '{"R": ["Molecule", {"x": 1}]}',
                                  '{"I": 5}', "not json", '{"ARG": 0}'])
def test_anything_else_is_refused(text):
    with pytest.raises(codec.DecodeError):
        codec.decode(text)


def test_a_reply_counts_only_on_its_own_nonce():
    nonce = remote.new_nonce()
    forged = '@@grader-0000@@{"result": "{\\"I\\": \\"1\\"}"}\n'
    assert remote.parse_reply(forged + nonce + '{"result": "2"}\n', nonce) == {"result": "2"}
    with pytest.raises(remote.GradingError):
        remote.parse_reply(forged, nonce)


# --- the rules for answer cells -----------------------------------------------------------------------------------

@pytest.mark.parametrize("source", ["class A:\n    pass", "x.__class__", "Verdict.__bool__ = f",
                                    "f = lambda: __import__"])
def test_the_policy_refuses_classes_and_private_names(source):
    from RestrictedPython import compile_restricted

    with pytest.raises(SyntaxError):
        compile_restricted(source, "<answer>", "exec", policy=sandbox.AnswerPolicy)


def _kernel_side(monkeypatch: pytest.MonkeyPatch | None = None, user_ns: dict | None = None) -> None:
    """Give the sandbox what the grading kernel gives it: import, print, the library's protected objects, and (with
    `user_ns`) a shell whose namespace is the notebook's."""
    sandbox._state.setdefault("import", __import__)
    sandbox._state.setdefault("print", print)
    sandbox._state.setdefault("protected", sandbox._protected_ids())
    if user_ns is not None:
        from types import SimpleNamespace

        monkeypatch.setitem(sandbox._state, "shell", SimpleNamespace(user_ns=user_ns))


def _restricted(source: str, **names) -> dict:
    """Run restricted source with the sandbox's guards; return its scope."""
    from RestrictedPython import compile_restricted

    scope = {**names, **sandbox._guards()}
    _kernel_side()
    exec(compile_restricted(source, "<answer>", "exec", policy=sandbox.AnswerPolicy), scope)  # noqa: S102
    return scope


@pytest.mark.parametrize("source, error", [
    ("import sys", ImportError), ("import tutorial_lib.exercises", ImportError), ("open('x', 'w')", NameError),
    ("import os\nos.system('true')", AttributeError), ("import os\nos.path.join('a', 'b')", None),
    ("type('W', (int,), {})", NameError), ("getattr(np, 'sum')", NameError), ("np.sum = len", TypeError),
    ("exercises.require", AttributeError), ("tf.io.write_file('x', 'y')", AttributeError),
    ("datasets.SPECIES.clear()", AttributeError), ("datasets.SPECIES[1] = 'X'", TypeError),
    ("exit()", NameError)])
def test_the_guards_stop_tampering_at_run_time(source, error):
    import tensorflow as tf

    from tutorial_lib import datasets, exercises

    if error is None:  # what an answer may do: os.path, for file names
        _restricted(source, np=np, tf=tf, exercises=exercises, datasets=datasets)
        return
    with pytest.raises(error):
        _restricted(source, np=np, tf=tf, exercises=exercises, datasets=datasets)


def test_plain_answers_run_under_the_rules():
    scope = _restricted("import math\n\ndef f(xs):\n    total = 0\n    for x in xs:\n        total += x\n"
                        "    a, *b = xs\n    pairs = tuple(zip(xs, sorted(xs, reverse=True)))\n"
                        "    return {i: str(v) for i, v in enumerate(xs)}, total, math.sqrt(a), pairs\n"
                        "def g(n):\n    yield from range(n)\n", np=np)
    assert scope["f"]([4, 5]) == ({0: "4", 1: "5"}, 9, 2.0, ((4, 5), (5, 4)))
    assert list(scope["g"](3)) == [0, 1, 2]


# --- remote checking is the same checking -------------------------------------------------------------------------

def _remote_verdict(checker, answer) -> tuple[bool, str]:
    """The checker's verdict and feedback when the answer runs behind the JSON boundary."""
    printed = io.StringIO()
    transport = remote.loopback({"answer": answer})
    with contextlib.redirect_stdout(printed):
        if remote.REMOTE[checker.__name__] == "value":
            verdict = checker(remote.remote_value("answer", transport))
        else:
            verdict = checker(remote.RemoteAnswer("answer", transport))
    return verdict.passed, printed.getvalue()


def test_every_remote_checker_takes_right_answers_and_rejects_mutants_with_their_hints():
    from tutorial_lib.exercises import mutation

    cases = mutation.load_cases(ROOT / "tests")
    seen, problems = set(), []
    for row in cases.right + cases.mutants:
        checker = mutation.checker_function(row[0])
        if checker.__name__ not in remote.REMOTE:
            continue
        seen.add(checker.__name__)
        passed, feedback = _remote_verdict(row[0], row[1])
        if row in cases.right and not passed:
            problems.append(f"{checker.__name__}: right answer {row[2]!r} rejected: {feedback.strip()}")
        if row in cases.mutants and (passed or mutation.requirement(row[0], row[2]).hint not in feedback):
            problems.append(f"{checker.__name__}: mutant {row[2]!r} not rejected with its hint: {feedback.strip()}")
    assert seen == set(remote.REMOTE), set(remote.REMOTE) - seen
    assert not problems, "\n".join(problems)


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


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> dict:
    """Two assignments released with nbgrader, a class of reference, blank and tampering submissions, graded."""
    course = tmp_path_factory.mktemp("course")
    nc.write_course(course, list(ASSIGNMENTS))
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
        for student, target, answers, tampered, _ in ATTEMPTS:
            if target == assignment:
                nc.submit(course, assignment, student, nc.answered(released, {**references, **answers}))
                expected[(student, assignment)] = {t: 0.0 if t in tampered else 1.0 for t in tests}
        if assignment == "00_start_here":
            nc.submit(course, assignment, FORGED_STUDENT, _forged(released, references))
            expected[(FORGED_STUDENT, assignment)] = {t: 0.0 if t.startswith("ex1_") else 1.0 for t in tests}
    library = classroom.fingerprint(classroom.library_files())
    outcomes = {}
    for assignment in ASSIGNMENTS:
        for outcome in classroom.grade_assignment(course, assignment, jobs=2, time_limit=240, cell_timeout=60,
                                                  progress=lambda line: None):
            outcomes[(outcome.student, assignment)] = outcome
    return {"course": course, "expected": expected, "outcomes": outcomes, "library": library}


def test_each_tampering_scores_zero_where_it_tampers_and_the_rest_as_usual(graded_class):
    wrong = []
    for key, expected in graded_class["expected"].items():
        got = nc.cell_scores(graded_class["course"], key[1], key[0])
        if got != expected:
            outcome = graded_class["outcomes"][key]
            wrong.append(f"{key}: {got} (expected {expected}); feedback {outcome.feedback}; {outcome.stopped}")
    assert not wrong, "\n".join(wrong)


def test_tampering_leaves_the_library_and_the_other_students_untouched(graded_class):
    assert classroom.fingerprint(classroom.library_files()) == graded_class["library"]
    assert graded_class["outcomes"][("reference", "00_start_here")].total == 3
    assert graded_class["outcomes"][("reference", "03a_queues_and_threads")].total == 3


def test_runaway_submissions_are_cut_off_with_the_reason_in_their_feedback(graded_class):
    outcomes = graded_class["outcomes"]
    assert "time limit" in outcomes[("rt-sleep", "00_start_here")].feedback["ex3_atom_count_test"]
    assert outcomes[("rt-sleep", "00_start_here")].seconds < 240 + 30
    assert "cell time limit" in outcomes[("rt-loop", "00_start_here")].feedback["ex1_count_label_test"]
    assert "MemoryError" in outcomes[("rt-memory", "00_start_here")].feedback["ex2_invert_test"]


def test_feedback_and_export_work_from_the_gradebook_as_nbgrader_writes_it(graded_class):
    course = graded_class["course"]
    _nbgrader(course, "generate_feedback", "00_start_here")
    html = (course / "feedback" / "rt-require" / "00_start_here" / "00_start_here.html").read_text()
    assert "the grader does not let an answer change a module" in html
    _nbgrader(course, "export")
    rows = (course / "grades.csv").read_text().splitlines()
    assert any(row.startswith("00_start_here,") and ",reference," in row and row.endswith(",3.0,3.0")
               for row in rows), rows


def test_the_grade_command_grades_a_named_student(graded_class, tmp_path):
    course = graded_class["course"]
    done = subprocess.run([sys.executable, "-m", "tutorial_lib", "grade", str(course), "00_start_here",
                           "--student", "blank", "--jobs", "1"], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "blank" in done.stdout and "0 / 3" in done.stdout and "graded 1 submissions" in done.stdout


def test_only_answer_cells_come_from_the_submission():
    released = read(ROOT / "notebooks" / "00_start_here.ipynb")
    release = nc.nbgrader_notebook(released)
    submission = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in submission.cells:
        cell.source = "print('mine')"
    graded = graded_notebook(release, submission)
    for mine, theirs in zip(graded.cells, release.cells, strict=True):
        assert mine.source == ("print('mine')" if is_answer(theirs) else theirs.source)


def test_an_answer_may_not_call_the_librarys_own_version_of_its_exercise():
    from RestrictedPython import compile_restricted

    from tutorial_lib.pipelines import ptb

    assert all(sandbox.library_answer(p) for paths in sandbox.LIBRARY_ANSWERS.values() for p in paths)
    code = compile_restricted("def window(raw, b, s, i):\n    return ptb.windows(raw, b, s)[i]", "<a>", "exec",
                              policy=sandbox.AnswerPolicy)
    blocked = {id(ptb.windows): "tutorial_lib.pipelines.ptb.windows"}
    scope = {"ptb": ptb, **sandbox._guards(blocked)}
    exec(code, scope)  # noqa: S102
    with pytest.raises(AttributeError, match="own version"):
        scope["window"](list(range(50)), 2, 3, 0)
    scope = {"ptb": ptb, **sandbox._guards()}
    exec(code, scope)  # noqa: S102 -- another exercise's answer may use it
    assert len(scope["window"](list(range(50)), 2, 3, 0)) == 2


def test_a_stub_may_still_say_todo():
    from tutorial_lib import exercises

    assert _restricted("answer = exercises.TODO", exercises=exercises)["answer"] is exercises.TODO


def test_every_right_answer_in_the_mutation_tables_passes_under_the_graders_rules():
    """The rules must not cost a right answer its points: each right answer's source, compiled and run as the
    grader runs an answer cell, still passes its checker (its module's names stand in for the notebook's)."""
    import inspect
    import textwrap
    import types as pytypes

    from RestrictedPython import compile_restricted

    from tutorial_lib.exercises import mutation

    cases = mutation.load_cases(ROOT / "tests")
    _kernel_side()
    sandbox._state["protected"] = sandbox._protected_ids()
    problems, ran = [], 0
    for checker, answer, label in cases.right:
        if not isinstance(answer, pytypes.FunctionType) or answer.__name__ == "<lambda>":
            continue
        try:
            source = textwrap.dedent(inspect.getsource(answer))
        except OSError:  # made from a source string (the notebook's own solutions: nbgrader-check grades those)
            continue
        names = {k: v for k, v in answer.__globals__.items() if not k.startswith("__")}
        names.update(zip(answer.__code__.co_freevars, (c.cell_contents for c in answer.__closure__ or ()),
                         strict=True))  # an answer a factory made: its closure's names
        blocked = {id(sandbox.library_answer(p)): p for p in sandbox.LIBRARY_ANSWERS.get(answer.__name__, ())}
        scope = {**names, **sandbox._guards(blocked)}
        try:
            exec(compile_restricted(source, f"<{label}>", "exec", policy=sandbox.AnswerPolicy), scope)  # noqa: S102
        except SyntaxError as error:
            problems.append(f"{mutation.exercise_of(checker)} {label!r}: refused: {error}")
            continue
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            passed = checker(scope[answer.__name__]).passed
        ran += 1
        if not passed:
            problems.append(f"{mutation.exercise_of(checker)} {label!r}: {printed.getvalue().strip()[:300]}")
    assert ran >= 60, ran
    assert not problems, "\n".join(problems)


def test_an_answer_cell_carries_back_only_its_own_and_new_names(monkeypatch, capsys):
    from tutorial_lib import exercises

    user_ns = {"exercises": exercises, "np": np}
    _kernel_side(monkeypatch, user_ns)
    sandbox.run_answer("exercises = print\nhelper = 2\n\ndef f():\n    return helper", "ex1_f", ["f"])
    assert user_ns["exercises"] is exercises and user_ns["f"]() == 2 and user_ns["helper"] == 2
    assert "may not change the notebook's exercises" in capsys.readouterr().out


def test_an_answer_that_prints_prints_without_a_warning(monkeypatch, capsys):
    """print() in an answer reaches the kernel's output; RestrictedPython's note about its `printed` variable (which
    the grader does not use) must not show in the student's feedback."""
    import warnings

    user_ns = {"np": np}
    _kernel_side(monkeypatch, user_ns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sandbox.run_answer("def f(x):\n    print('f got', x)\n    return x\n\nf(3)\n", "ex1_f", ["f"])
    assert user_ns["f"](4) == 4
    assert capsys.readouterr().out == "f got 3\nf got 4\n"
    assert not [str(w.message) for w in caught], [str(w.message) for w in caught]
