"""Hygiene of the committed notebooks beyond what nbval checks: markers nbval will honour, exercises
wired to checkers, solutions tagged, outputs from a clean top-to-bottom run."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def cells(path):
    return json.loads(path.read_text())["cells"]


def source(cell):
    return "".join(cell["source"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_nbval_markers_stand_alone_on_their_line(path):
    for cell in cells(path):
        for line in source(cell).splitlines():
            if "NBVAL_" in line and cell["cell_type"] == "code":
                assert re.fullmatch(r"# NBVAL_[A-Z_]+", line.strip()), f"nbval ignores {line!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_ignored_outputs_are_backed_by_assertions(path):
    code = [source(c) for c in cells(path) if c["cell_type"] == "code"]
    ignored = [i for i, text in enumerate(code) if "# NBVAL_IGNORE_OUTPUT" in text]
    for i in ignored:
        following = "\n".join(code[i:i + 2])
        assert "assert" in following, f"cell {i} hides its output but nothing after it asserts"


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if not p.name.startswith("00")], ids=lambda p: p.name)
def test_at_least_three_exercises_with_tagged_solutions_and_checkers(path):
    all_cells = cells(path)
    solutions = [i for i, c in enumerate(all_cells) if "solution" in c["metadata"].get("tags", [])]
    assert len(solutions) >= 3
    for i in solutions:
        checker = next(c for c in all_cells[i + 1:] if c["cell_type"] == "code")
        assert "exercises.check_" in source(checker), f"solution cell {i} is not followed by a checker"
        assert any("✅" in "".join(o.get("text", "")) for o in checker["outputs"]), "the reference passes"
