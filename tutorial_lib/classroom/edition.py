"""The student edition: every cell tagged `solution` becomes a stub that defines the same names (functions raise
NotImplementedError, values are `exercises.TODO`), so each checker reports "not done yet" instead of the
notebook crashing; the outputs of solution and checker cells are cleared; everything else is kept.
(`make student-edition`; checked cell by cell during `make test` by `classroom.nbval_student`.) A built wheel
carries this edition (`packaged_notebook`), never the solutions: setup.py writes it into the package.
"""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import nbformat

from tutorial_lib.classroom.course import notebook_paths, read, source, tags, write

STUB_NOTE = "# Exercise: write your answer here, then run the checker below."


def stub_for(solution: str) -> str:
    """Return a stub that defines every top-level name the solution defines, without its code."""
    lines = [STUB_NOTE]
    for node in ast.parse(solution).body:
        if isinstance(node, ast.FunctionDef):
            arguments = ast.unparse(node.args)
            lines += ["", f"def {node.name}({arguments}):", "    raise NotImplementedError"]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            lines += [f"{ast.unparse(t)} = exercises.TODO" for t in targets]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            lines.append(ast.unparse(node))
    return "\n".join(lines)


def checker_after(cells: list, index: int) -> nbformat.NotebookNode | None:
    """Return the checker cell of the solution at `index` (the next code cell, if it calls a checker), else None."""
    checker = next((c for c in cells[index + 1:] if c["cell_type"] == "code"), None)
    return checker if checker is not None and "exercises.check_" in source(checker) else None


def student_notebook(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a copy with solution cells stubbed and the outputs of exercise cells cleared."""
    student = copy.deepcopy(notebook)
    cells = student["cells"]
    for index, cell in enumerate(cells):
        if "solution" not in tags(cell):
            continue
        cell["source"] = stub_for(source(cell))
        cell["metadata"]["tags"] = [t for t in tags(cell) if t != "solution"] + ["exercise"]
        cell["outputs"], cell["execution_count"] = [], None
        checker = checker_after(cells, index)
        if checker is not None:
            checker["outputs"], checker["execution_count"] = [], None
    prune_widget_state(student)
    return student


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def prune_widget_state(notebook: nbformat.NotebookNode) -> None:
    """Keep only the saved widget models that an output still shows (and the models those refer to): a cleared
    exercise leaves nothing of the solved run behind in the notebook's metadata."""
    saved = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE)
    if not saved or "state" not in saved:
        return
    state = saved["state"]
    wanted = [o["data"][WIDGET_VIEW].get("model_id") for c in notebook["cells"] for o in c.get("outputs", [])
              if WIDGET_VIEW in o.get("data", {})]
    kept: set[str] = set()
    while wanted:
        model = wanted.pop()
        if model in kept or model not in state:
            continue
        kept.add(model)
        wanted += re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(state[model]))
    saved["state"] = {model: value for model, value in state.items() if model in kept}


NBVAL_IGNORE = "nbval-ignore-output"


def packaged_notebook(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return the copy an installed course carries: the student edition (no solution in it), with each exercise and
    checker cell tagged for nbval to run it without comparing its output (what it prints is the student's)."""
    student = student_notebook(notebook)
    cells = student["cells"]
    for index, cell in enumerate(cells):
        if "exercise" not in tags(cell):
            continue
        for marked in (cell, checker_after(cells, index)):
            if marked is not None and NBVAL_IGNORE not in tags(marked):
                marked.setdefault("metadata", {})["tags"] = [*tags(marked), NBVAL_IGNORE]
    return student


def student_edition(out_dir: Path, notebooks: list[Path] | None = None) -> list[Path]:
    """Write the student edition of every course notebook into out_dir; return the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks or notebook_paths():
        target = out_dir / path.name
        write(target, student_notebook(read(path)))
        written.append(target)
    return written


