"""The student edition is checked inside the one nbval run (tutorial_lib.classroom.nbval_student) plus statically here.

nbval runs each exercise's stub and checker in the live kernel just before the solution; these tests show the plugin
catches a checker that does not say "not done yet", and that no later cell needs a name only a solution defines
(so a student notebook, whose solutions are stubs, still runs top to bottom).
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tutorial_lib import classroom

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = classroom.notebook_paths()
PLUGIN = "tutorial_lib.classroom.nbval_student"


def defined_names(source: str) -> set[str]:
    """Return the top-level names a cell defines (functions and assignment targets)."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def used_names(source: str) -> set[str]:
    """Return every name a cell reads or writes (IPython magics blanked out first)."""
    text = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_later_cell_needs_what_only_a_solution_defines(path):
    code = [c for c in classroom.read(path).cells if c.cell_type == "code"]
    for i, cell in enumerate(code):
        if "solution" not in classroom.tags(cell):
            continue
        body = ast.parse(classroom.source(cell)).body
        kept = (ast.FunctionDef, ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom)
        assert all(isinstance(node, kept) for node in body), f"code cell {i}: a solution only defines things " \
            "(the stub drops any other statement)"
        defined = defined_names(classroom.source(cell))
        for j, later in enumerate(code[i + 2:], start=i + 2):  # i + 1 is the exercise's own checker
            shared = used_names(classroom.source(later)) & defined
            assert not shared, f"code cell {j} uses {sorted(shared)}, which only the solution in cell {i} defines"


def test_make_test_loads_the_student_plugin_into_nbval():
    recipe = (ROOT / "Makefile").read_text().replace("\\\n", " ")  # join continued lines
    nbval_line = next(line for line in recipe.splitlines() if "--nbval" in line)
    assert f"-p {PLUGIN}" in nbval_line


def _exercise_notebook(path: Path, checker_calls_the_answer: bool) -> Path:
    """Write a two-exercise-cell notebook whose stand-in checker needs no TensorFlow."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    call = "answer(2) == 4" if checker_calls_the_answer else "True"
    setup = new_code_cell(
        "class exercises:\n"
        "    @staticmethod\n"
        "    def check_double(answer):\n"
        "        try:\n"
        f"            print('✅ passed' if {call} else '❌ wrong')\n"
        "        except NotImplementedError:\n"
        "            print('⏳ not done yet')")
    solution = new_code_cell("def double(x):\n    return 2 * x", metadata={"tags": ["solution"]})
    checker = new_code_cell("exercises.check_double(double)")
    cells = [setup, solution, checker]
    for n, cell in enumerate(cells, start=1):
        cell.execution_count = n
    checker.outputs = [new_output("stream", name="stdout", text="✅ passed\n")]
    nbformat.write(new_notebook(cells=cells), path)
    return path


def _nbval(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "-p", PLUGIN,
                           "-p", "no:cacheprovider", "-v", str(path)], capture_output=True, text=True, cwd=path.parent,
                          timeout=300)


def test_plugin_runs_the_stub_and_its_checker_before_the_solution(tmp_path):
    done = _nbval(_exercise_notebook(tmp_path / "good.ipynb", checker_calls_the_answer=True))
    assert done.returncode == 0, done.stdout[-2000:]
    assert "Cell 1 (student stub) PASSED" in done.stdout and "Cell 2 PASSED" in done.stdout


def test_plugin_fails_when_the_checker_does_not_notice_the_stub(tmp_path):
    done = _nbval(_exercise_notebook(tmp_path / "bad.ipynb", checker_calls_the_answer=False))
    assert done.returncode != 0
    assert "Cell 1 (student stub) FAILED" in done.stdout and "must say 'not done yet'" in done.stdout


def test_the_student_edition_keeps_no_widget_state_of_a_solved_exercise():
    """A solved exercise's live view leaves widget models in the notebook's metadata, shown by no output once its
    outputs are cleared (05's solved Exercise 3 said "... 125.3 ms/step"); the student edition keeps only the models
    that a remaining output shows, and the models those refer to."""
    import json
    import re

    import nbformat

    from tutorial_lib.classroom import edition

    for path in classroom.notebook_paths():
        notebook = classroom.read(path)
        saved = notebook.metadata.get("widgets", {}).get(edition.WIDGET_STATE, {}).get("state", {})
        if not saved:
            continue
        student = edition.student_notebook(notebook)
        kept = student.metadata["widgets"][edition.WIDGET_STATE]["state"]
        reachable, wanted = set(), [o["data"][edition.WIDGET_VIEW]["model_id"] for c in student.cells
                                    for o in c.get("outputs", []) if edition.WIDGET_VIEW in o.get("data", {})]
        while wanted:
            model = wanted.pop()
            if model in saved and model not in reachable:
                reachable.add(model)
                wanted += re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(saved[model]))
        assert set(kept) == reachable, f"{path.name}: the student edition keeps widgets no output shows"
    # A solved exercise whose live view (a box holding a label) is its output, beside a lesson's view that stays.
    def view(model: str) -> dict:
        return nbformat.v4.new_output("display_data", data={edition.WIDGET_VIEW: {"model_id": model}})

    def model(text: str, children: list[str] = ()) -> dict:
        return {"model_name": "HBoxModel" if children else "HTMLModel",
                "state": {"children": [f"IPY_MODEL_{c}" for c in children], "value": text}}

    lesson = nbformat.v4.new_code_cell("run()", outputs=[view("aa01")])
    solution = nbformat.v4.new_code_cell("def f():\n    return 1", outputs=[view("bb01")],
                                         metadata={"tags": ["solution"]})
    checker = nbformat.v4.new_code_cell("exercises.check_f(f)")
    notebook = nbformat.v4.new_notebook(cells=[lesson, solution, checker])
    notebook.metadata["widgets"] = {edition.WIDGET_STATE: {"state": {
        "aa01": model("", ["aa02"]), "aa02": model("lesson run: 40 ms/step"),
        "bb01": model("", ["bb02"]), "bb02": model("finished, compute-bound, 125.3 ms/step")}}}
    kept = edition.student_notebook(notebook).metadata["widgets"][edition.WIDGET_STATE]["state"]
    assert sorted(kept) == ["aa01", "aa02"]
