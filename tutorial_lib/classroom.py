"""Classroom tooling: the student edition of the notebooks, and the generated navigation cells.

Student edition: every cell tagged `solution` becomes a stub that defines the same names (functions raise
NotImplementedError, values are `exercises.TODO`), so each checker reports "not done yet" instead of the
notebook crashing; the outputs of solution and checker cells are cleared; everything else is kept.

Navigation: each notebook starts with a cell saying where it sits in the course and ends with a link to
the next one. Both cells are tagged `navigation` and generated here from the course map, never edited by
hand; a test fails when a notebook's navigation differs from what `write_navigation` would produce.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import nbformat

from tutorial_lib.notebooks import NOTEBOOK_DIR, notebook_paths

# The course map: notebook stem -> title. Notebooks not written yet are named but not linked.
COURSE = {
    "00_start_here": "Start here",
    "01_feeding": "Feeding",
    "02_reading_files": "Reading files",
    "03_queues_and_threads": "Queues and threads",
    "04_preloaded_data": "Preloaded data",
    "05_live_dashboard": "The live dashboard",
    "06_train_and_validate": "Train and validate in one session",
    "07_one_batch_many_evaluations": "One batch, many evaluations",
    "08_ptb_producer": "The PTB producer",
    "09_queues_to_tf_data": "From queues to tf.data, measured",
    "10_scaling_out": "Scaling out with tf.data service",
}
STUB_NOTE = "# Exercise: write your answer here, then run the checker below."


def read(path: Path) -> nbformat.NotebookNode:
    """Read a notebook (format 4)."""
    return nbformat.read(path, as_version=4)


def write(path: Path, notebook: nbformat.NotebookNode) -> None:
    """Write a notebook the way Jupyter does."""
    nbformat.write(notebook, path)


def source(cell: dict) -> str:
    """Return a cell's source as one string."""
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def tags(cell: dict) -> list[str]:
    """Return a cell's tags."""
    return cell.get("metadata", {}).get("tags", [])


# ----------------------------------------------------------------------------------------------------
# Student edition
# ----------------------------------------------------------------------------------------------------

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
        checker = next((c for c in cells[index + 1:] if c["cell_type"] == "code"), None)
        if checker is not None and "exercises.check_" in source(checker):
            checker["outputs"], checker["execution_count"] = [], None
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


# ----------------------------------------------------------------------------------------------------
# Navigation
# ----------------------------------------------------------------------------------------------------

def _link(stem: str, existing: set[str]) -> str:
    title = COURSE[stem]
    return f"[{stem} · {title}]({stem}.ipynb)" if stem in existing else f"{stem} · {title} (coming)"


def navigation_cells(stem: str, existing: set[str]) -> tuple[str, str]:
    """Return the (top, bottom) navigation markdown for one notebook."""
    stems = list(COURSE)
    k = stems.index(stem)
    before = _link(stems[k - 1], existing) if k > 0 else "—"
    after = _link(stems[k + 1], existing) if k + 1 < len(stems) else "—"
    top = (f"<small>**Data into TensorFlow** · notebook {k} of {len(stems) - 1} · "
           f"previous: {before} · next: {after} · course map: [00_start_here](00_start_here.ipynb)</small>")
    bottom = (f"**Next:** {after}" if k + 1 < len(stems) else "**This is the last notebook of the course.**") + \
        "  \nBack to the course map: [00_start_here](00_start_here.ipynb)"
    return top, bottom


def _nav_cell(text: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["tags"] = ["navigation"]
    return cell


def with_navigation(notebook: nbformat.NotebookNode, stem: str, existing: set[str]) -> nbformat.NotebookNode:
    """Return the notebook with its navigation cells (first and last) regenerated."""
    top, bottom = navigation_cells(stem, existing)
    cells = [c for c in notebook["cells"] if "navigation" not in tags(c)]
    updated = copy.deepcopy(notebook)
    updated["cells"] = [_nav_cell(top), *cells, _nav_cell(bottom)]
    return updated


def _course_notebooks(notebook_dir: Path) -> tuple[list[Path], set[str]]:
    paths = sorted(notebook_dir.glob("[0-9][0-9]_*.ipynb"))
    return paths, {p.stem for p in paths}


def navigation_problems(notebook_dir: Path = NOTEBOOK_DIR) -> list[str]:
    """Say which notebooks' navigation cells differ from the generated ones (empty when all agree)."""
    paths, existing = _course_notebooks(notebook_dir)
    problems = []
    for path in paths:
        cells = read(path).cells
        top, bottom = navigation_cells(path.stem, existing)
        if not cells or source(cells[0]) != top or "navigation" not in tags(cells[0]):
            problems.append(f"{path.name}: the first cell is not the generated navigation")
        if not cells or source(cells[-1]) != bottom or "navigation" not in tags(cells[-1]):
            problems.append(f"{path.name}: the last cell is not the generated link to the next notebook")
    return problems


def write_navigation(notebook_dir: Path = NOTEBOOK_DIR) -> list[Path]:
    """Regenerate the navigation cells of every course notebook in place; return the notebooks changed."""
    paths, existing = _course_notebooks(notebook_dir)
    changed = []
    for path in paths:
        notebook = read(path)
        before = [(c.cell_type, source(c), tags(c)) for c in notebook.cells]
        updated = with_navigation(notebook, path.stem, existing)
        if [(c.cell_type, source(c), tags(c)) for c in updated.cells] != before:
            write(path, updated)
            changed.append(path)
    return changed
