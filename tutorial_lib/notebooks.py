"""Execute the course notebooks in place, each in a fresh kernel, top to bottom."""

from __future__ import annotations

import time
from pathlib import Path

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT_S = 300


def notebook_paths(names: list[str] | None = None) -> list[Path]:
    """Return the course notebooks (all `NN_*.ipynb`, or those named) in course order."""
    if names:
        return [Path(n) if Path(n).exists() else NOTEBOOK_DIR / n for n in names]
    return sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))


def execute(path: Path, kernel_name: str = "python3") -> float:
    """Run one notebook in a fresh kernel with its folder as working directory; save outputs; return seconds."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name=kernel_name,
                            resources={"metadata": {"path": str(path.parent)}}, record_timing=False)
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    nbformat.write(notebook, path)
    return elapsed


def main(names: list[str]) -> int:
    """Execute the named notebooks (default: all) and print how long each took."""
    for path in notebook_paths(names):
        print(f"executing {path.name} ...", flush=True)
        print(f"  {path.name}: {execute(path):.1f} s", flush=True)
    return 0
