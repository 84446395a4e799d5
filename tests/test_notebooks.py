"""Hygiene of the committed notebooks beyond what nbval checks: markers nbval will honour, exercises
wired to checkers, solutions tagged, outputs from a clean top-to-bottom run."""

import json
from pathlib import Path

import pytest

from tutorial_lib.classroom.course import NOTEBOOK_GLOB
from tutorial_lib.classroom.execute import IGNORE_TAG, is_ignored

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob(NOTEBOOK_GLOB))


def cells(path):
    return json.loads(path.read_text())["cells"]


def source(cell):
    return "".join(cell["source"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_nbval_is_told_by_cell_tags_not_by_comments_students_see(path):
    for i, cell in enumerate(cells(path)):
        if cell["cell_type"] == "code":
            assert "NBVAL_" not in source(cell), f"cell {i}: use the cell tag (nbval-ignore-output), not a comment"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_ignored_outputs_are_backed_by_assertions(path):
    code = [c for c in cells(path) if c["cell_type"] == "code"]
    for i, cell in enumerate(code):
        if is_ignored(cell):  # the assertion comes next, or (for a reading generated from asserted results) before
            around = "\n".join(source(c) for c in code[max(i - 1, 0):i + 2])
            assert "assert" in around, f"code cell {i} hides its output but no cell next to it asserts"


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if not p.name.startswith("00")], ids=lambda p: p.name)
def test_at_least_three_exercises_with_tagged_solutions_and_checkers(path):
    all_cells = cells(path)
    solutions = [i for i, c in enumerate(all_cells) if "solution" in c["metadata"].get("tags", [])]
    assert len(solutions) >= 3
    for i in solutions:
        checker = next(c for c in all_cells[i + 1:] if c["cell_type"] == "code")
        assert "exercises.check_" in source(checker), f"solution cell {i} is not followed by a checker"
        assert any("✅" in "".join(o.get("text", "")) for o in checker["outputs"]), "the reference passes"


def _executed(texts, error=None):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    ignored = new_code_cell("print(...)", metadata={"tags": [IGNORE_TAG]})
    notebook = new_notebook(cells=[ignored, new_code_cell("assert x")])
    notebook.cells[0].outputs = [new_output("stream", name="stdout", text=texts)]
    if error:
        notebook.cells[1].outputs = [new_output("error", ename="AssertionError", evalue=error, traceback=[])]
    return nbformat.from_dict(notebook)


def test_repeat_report_gives_the_spread_of_each_varying_number_and_counts_failures():
    from tutorial_lib.classroom.execute import Repeats

    runs = Repeats("x.ipynb")
    runs.add(_executed("ratio 1.50x, 40 steps\n"), 10.0)
    runs.add(_executed("ratio 2.25x, 40 steps\n", error="the ratio is above 2\nmore"), 95.0)
    runs.add(_executed("ratio 1.75x, 40 steps\n"), 12.0)
    assert runs.spreads() == {0: "ratio [1.50–2.25]x, 40 steps"}
    assert runs.failures == {(1, "AssertionError: the ratio is above 2"): 1}
    report = runs.report()
    assert "3 runs, 10.0–95.0 s (1 over the 90 s budget)" in report
    assert "FAILED in 1 of 3 runs: cell 1: AssertionError: the ratio is above 2" in report


def test_repeat_report_says_when_a_cell_prints_a_different_number_of_values():
    from tutorial_lib.classroom.execute import Repeats

    runs = Repeats("x.ipynb")
    runs.add(_executed("lost 1\n"), 1.0)
    runs.add(_executed("lost 1 and 2\n"), 1.0)
    assert runs.spreads()[0].startswith("(the number of values printed varies between runs)")
    assert "no cell raised in any of the 2 runs" in runs.report()


def _exercise(verdict):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    notebook = new_notebook(cells=[new_code_cell("answer = 1", metadata={"tags": ["solution"]}),
                                   new_markdown_cell("Check it:"), new_code_cell("exercises.check_x(answer)")])
    notebook.cells[2].outputs = [new_output("stream", name="stdout", text=verdict)]
    return nbformat.from_dict(notebook)


def test_a_checker_that_refuses_the_reference_counts_as_a_failed_run():
    # A checker prints its verdict instead of raising: without this, a run whose reference failed looked clean.
    from tutorial_lib.classroom.execute import Repeats, refused_references

    refused = _exercise("❌ Exercise 3 (x): not yet -- expected less than 5%, got 14.0%.\n   Hint: threads\n")
    assert refused_references(refused) == [(2, "checker refused the reference: ❌ Exercise 3 (x): not yet -- "
                                                "expected less than 5%, got 14.0%.")]
    assert refused_references(_exercise("✅ Exercise 3 (x): passed\n")) == []
    runs = Repeats("x.ipynb")
    runs.add(refused, 1.0)
    assert "FAILED in 1 of 1 runs: cell 2: checker refused the reference" in runs.report()


def test_executing_in_place_does_not_save_a_notebook_whose_reference_was_refused(tmp_path, monkeypatch):
    import nbformat

    from tutorial_lib.classroom import execute

    path = tmp_path / "x.ipynb"
    nbformat.write(_exercise(""), path)
    before = path.read_text()

    def run(notebook, *_):
        notebook.cells[2].outputs = _exercise("❌ Exercise 1 (x): not yet\n").cells[2].outputs
        return 1.0

    monkeypatch.setattr(execute, "_run", run)
    with pytest.raises(RuntimeError, match="x.ipynb not saved: a checker refused the reference solution: cell 2"):
        execute.execute(path)
    assert path.read_text() == before
