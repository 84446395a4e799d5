"""The nbgrader edition (tutorial_lib.classroom.nbgrader_course): the generated metadata, ids, markers and
require() checked statically, then a real round trip through nbgrader on one assignment, whose exercises build
pipelines and whose notebook is among the quickest (02_reading_files, about 10 s): generate_assignment, three
submissions, autograde, the gradebook's scores, feedback (about 50 s on one core). `make nbgrader-check` runs the
same round trip on every assignment; `make test` runs this file on notebook 06's core after it (tests/conftest.py).
"""

from __future__ import annotations

import ast
import html
import re

import nbformat
import pytest

from tutorial_lib import classroom
from tutorial_lib import exercises as ex
from tutorial_lib.classroom import nbgrader_course as nbg

NOTEBOOKS = classroom.notebook_paths()
ROUND_TRIP = ["02_reading_files"]


def grader_meta(cell: dict) -> dict:
    """Return a cell's nbgrader metadata ({} for a plain cell)."""
    return cell.get("metadata", {}).get("nbgrader", {})


# --- require() ------------------------------------------------------------------------------------------

def test_require_raises_the_checkers_feedback_when_the_answer_is_wrong():
    with pytest.raises(AssertionError, match="Hint: count them"):
        ex.require(ex.Verdict(False, "❌ Exercise 1: not yet -- expected 4, got 0.5.\n   Hint: count them"))


def test_require_is_silent_when_the_answer_passed(capsys):
    assert ex.require(ex.Verdict(True, "✅ Exercise 1: passed")) is None
    assert capsys.readouterr().out == ""


def test_require_fails_an_unfinished_exercise(capsys):
    def not_done(*args: object) -> int:
        """An unfinished answer."""
        raise NotImplementedError

    with pytest.raises(AssertionError, match="not done yet"):
        ex.require(ex.check_count_label(not_done))
    assert "not done yet" in capsys.readouterr().out  # the checker's own feedback is still printed


# --- the generated course -------------------------------------------------------------------------------

def test_one_assignment_per_notebook_with_exercises_named_after_it():
    with_exercises = [p for p in NOTEBOOKS if any("solution" in classroom.tags(c) for c in classroom.read(p).cells)]
    assert list(nbg.assignment_notebooks()) == [p.stem for p in with_exercises]
    assert nbg.assignment_notebooks(["02_reading_files"]) == {"02_reading_files": classroom.NOTEBOOK_DIR /
                                                              "02_reading_files.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_answer_cells_and_test_cells(path):
    original = classroom.read(path)
    course = nbg.nbgrader_notebook(original)
    assert len(course.cells) == len(original.cells)
    ids = [grader_meta(c)["grade_id"] for c in course.cells if grader_meta(c)]
    assert len(ids) == len(set(ids)), "grade_ids are unique in a notebook"
    assert all(re.fullmatch(r"[a-zA-Z0-9_\-]+", i) for i in ids), "nbgrader's grade_id pattern"
    answers = 0
    for index, (before, after) in enumerate(zip(original.cells, course.cells, strict=True)):
        if "solution" in classroom.tags(before):
            answers += 1
            solution = classroom.source(before)
            assert grader_meta(after) == {"grade": False, "solution": True, "locked": False,
                                          "grade_id": grader_meta(after)["grade_id"], "schema_version": 3}
            text = classroom.source(after)
            assert text.startswith(classroom.stub_for(solution))
            assert text.count(nbg.BEGIN) == text.count(nbg.END) == 1
            assert text.split(nbg.BEGIN + "\n")[1].split("\n" + nbg.END)[0] == solution.rstrip()
            assert nbg.without_markers(text) == f"{classroom.stub_for(solution)}\n\n{solution.rstrip()}"
            test = next(c for c in course.cells[index + 1:] if c.cell_type == "code")
            assert grader_meta(test) == {"grade": True, "solution": False, "locked": True, "points": nbg.POINTS,
                                         "grade_id": grader_meta(after)["grade_id"] + "_test", "schema_version": 3}
            assert classroom.source(test).startswith("exercises.require(exercises.check_")
            ast.parse(classroom.source(test))
            assert not after.outputs and not test.outputs
        elif not (grader_meta(after) and grader_meta(after)["grade"]):
            assert not grader_meta(after), "every other cell is left plain"
            assert classroom.source(after) == classroom.source(before)
    assert answers == len(nbg.exercise_ids(original)) >= 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_nbgrader_accepts_the_metadata(path):
    pytest.importorskip("nbgrader")
    from nbgrader.nbgraderformat import MetadataValidator

    MetadataValidator().validate_nb(nbg.nbgrader_notebook(classroom.read(path)))


def test_required_source_wraps_only_the_checker_call():
    assert nbg.required_source("exercises.check_x(f)") == "exercises.require(exercises.check_x(f))"
    multi = "knobs = 1\nexercises.check_knobs(\n    knobs, lambda k: train(k, title='É'))\nprint('done')"
    assert nbg.required_source(multi) == ("knobs = 1\nexercises.require(exercises.check_knobs(\n    knobs, "
                                         "lambda k: train(k, title='É')))\nprint('done')")
    with pytest.raises(ValueError, match="no top-level"):
        nbg.required_source("print(exercises)")


def test_the_released_answer_cell_defines_the_names_and_runs():
    pytest.importorskip("nbgrader")
    from nbgrader.preprocessors import ClearSolutions

    course = nbg.nbgrader_notebook(classroom.read(classroom.NOTEBOOK_DIR / "02_reading_files.ipynb"))
    course.metadata.setdefault("kernelspec", {"language": "python"})
    released, _ = ClearSolutions(code_stub={"python": nbg.CODE_STUB}).preprocess(course, {})
    answers = [c for c in released.cells if grader_meta(c).get("solution")]
    namespace = {"exercises": ex}
    for cell in answers:
        assert nbg.BEGIN not in cell.source and nbg.CODE_STUB in cell.source
        exec(cell.source, namespace)  # noqa: S102 -- the released stub, no solution left
    assert namespace["weather_defaults"] is ex.TODO
    with pytest.raises(NotImplementedError):
        namespace["decode_cifar"](b"")


def test_write_course_writes_sources_and_a_config(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    written = nbg.write_course(tmp_path, ["00_start_here", "02_reading_files"])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == [
        "nbgrader_config.py", "source/00_start_here/00_start_here.ipynb",
        "source/02_reading_files/02_reading_files.ipynb"]
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert config.CourseDirectory.course_id == nbg.COURSE_ID
    assert config.CourseDirectory.root == str(tmp_path)
    assert config.CourseDirectory.db_url == f"sqlite:///{tmp_path / 'gradebook.db'}"
    assert config.Execute.timeout == config.ExecutePreprocessor.timeout == 300
    assert config.ClearSolutions.code_stub == {"python": nbg.CODE_STUB}


@pytest.mark.parametrize("assignment", list(nbg.TYPICAL_MISTAKES))
def test_typical_mistakes_are_real_exercises_and_leave_one_right(assignment):
    notebook = classroom.read(classroom.NOTEBOOK_DIR / f"{assignment}.ipynb")
    names = [name for name, _, _ in nbg.exercise_ids(notebook)]
    mistakes = nbg.TYPICAL_MISTAKES[assignment]
    assert set(mistakes) <= set(names)
    assert len(mistakes) < len(names) or len(names) == 1
    for name, (wrong, hint) in mistakes.items():
        assert nbg.exercise_name(wrong) == name and hint


# --- the round trip through nbgrader --------------------------------------------------------------------

@pytest.fixture(scope="module", params=ROUND_TRIP)
def graded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Generate, release, submit three ways, autograde and give feedback on one assignment; return the facts."""
    pytest.importorskip("nbgrader")
    assignment = request.param
    course = tmp_path_factory.mktemp(f"course_{assignment}")
    nbg.write_course(course, [assignment])
    nbg.nbgrader(course, "generate_assignment", assignment)
    notebook = classroom.read(classroom.NOTEBOOK_DIR / f"{assignment}.ipynb")
    released = classroom.read(course / "release" / assignment / f"{assignment}.ipynb")
    source = classroom.read(course / "source" / assignment / f"{assignment}.ipynb")
    reference = {grader_meta(c)["grade_id"]: nbg.without_markers(classroom.source(c))
                 for c in source.cells if grader_meta(c).get("solution")}
    wrong, hints = nbg.mistaken_answers(assignment, notebook)
    nbg.submit(course, assignment, "reference", nbg.answered(released, reference))
    nbg.submit(course, assignment, "untouched", released)
    nbg.submit(course, assignment, "mistakes", nbg.answered(released, wrong))
    nbg.nbgrader(course, "autograde", assignment)
    nbg.nbgrader(course, "generate_feedback", assignment, "--student", "mistakes")
    return {"assignment": assignment, "course": course, "hints": hints,
            "tests": [test_id for _, _, test_id in nbg.exercise_ids(notebook)]}


def gradebook_scores(graded: dict, student: str) -> tuple[float, float, dict[str, float]]:
    """Return (score, max score, test grade_id -> score) of a submission, from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    assignment = graded["assignment"]
    with Gradebook(f"sqlite:///{graded['course'] / 'gradebook.db'}", course_id=nbg.COURSE_ID) as gradebook:
        submission = gradebook.find_submission(assignment, student)
        cells = gradebook.find_submission_notebook(assignment, assignment, student).grades
        return submission.score, submission.max_score, {grade.name: grade.score for grade in cells}


def test_reference_solutions_get_full_marks(graded):
    score, max_score, cells = gradebook_scores(graded, "reference")
    assert max_score == nbg.POINTS * len(graded["tests"]) == sum(cells.values()) == score
    assert set(cells) == set(graded["tests"])


def test_the_untouched_release_gets_zero(graded):
    score, max_score, cells = gradebook_scores(graded, "untouched")
    assert score == 0 and max_score == nbg.POINTS * len(graded["tests"])
    graded_nb = classroom.read(graded["course"] / "autograded" / "untouched" / graded["assignment"] /
                               f"{graded['assignment']}.ipynb")
    for test_id in graded["tests"]:
        assert "not done yet" in nbg.error_text(graded_nb, test_id)


def test_typical_mistakes_get_the_points_of_the_exercises_left_right(graded):
    score, max_score, cells = gradebook_scores(graded, "mistakes")
    wrong = set(graded["hints"])
    assert wrong and 0 < score < max_score
    assert score == nbg.POINTS * (len(graded["tests"]) - len(wrong))
    assert {test_id for test_id, points in cells.items() if points == 0} == wrong


def test_a_failing_test_cell_names_the_mistake(graded):
    assignment = graded["assignment"]
    graded_nb = nbformat.read(graded["course"] / "autograded" / "mistakes" / assignment / f"{assignment}.ipynb", 4)
    for test_id, hint in graded["hints"].items():
        error = nbg.error_text(graded_nb, test_id)
        assert error.startswith("AssertionError: ❌") and hint in error, error


def test_feedback_shows_the_hint(graded):
    assignment = graded["assignment"]
    page = graded["course"] / "feedback" / "mistakes" / assignment / f"{assignment}.html"
    text = html.unescape(page.read_text())
    for hint in graded["hints"].values():
        assert hint in text


def test_the_check_never_replaces_a_real_course(tmp_path):
    nbg.write_course(tmp_path, ["00_start_here"])
    (tmp_path / "gradebook.db").write_bytes(b"grades")
    with pytest.raises(FileExistsError, match="not written by nbgrader-check"):
        nbg.check(tmp_path, ["00_start_here"])
    assert (tmp_path / "gradebook.db").read_bytes() == b"grades"
