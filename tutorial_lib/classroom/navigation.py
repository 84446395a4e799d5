"""Navigation: each notebook starts with a cell saying where it sits in the course and ends with a link to the
next one. Both cells are tagged `navigation` and generated here from the course map, never edited by hand; a
test fails when a notebook's navigation differs from what `write_navigation` would produce (`make navigation`).
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from tutorial_lib.classroom.course import COURSE, NOTEBOOK_DIR, NOTEBOOK_GLOB, read, source, tags, write


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
    paths = sorted(notebook_dir.glob(NOTEBOOK_GLOB))
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
