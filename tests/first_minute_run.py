"""Run by an interpreter under test (tests/test_first_minute.py): the first code cells of one notebook in a fresh
kernel of that interpreter; prints one JSON line: [TensorFlow's version, what the cells wrote to stderr]."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST_CELLS = 6  # the install cell, the imports and the first lesson cells: about a minute of a student's time


def first_minute(stem: str) -> list[str]:
    """Run the first code cells of a notebook in a fresh kernel of this interpreter; return what they wrote to
    stderr (and any error)."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", 4)
    notebook.cells = [c for c in notebook.cells if c.cell_type == "code"][:FIRST_CELLS]
    for cell in notebook.cells:
        cell.outputs = []
    NotebookClient(notebook, timeout=300, allow_errors=True, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    said = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr":
                said += [f"cell {index}: {line}" for line in output.text.splitlines() if line.strip()]
            elif output.output_type == "error":
                said.append(f"cell {index}: {output.ename}: {output.evalue}")
    return said


if __name__ == "__main__":  # run by the interpreter under test: one notebook, its findings as a JSON line
    from importlib.metadata import version

    print(json.dumps([version("tensorflow"), first_minute(sys.argv[1])]))
