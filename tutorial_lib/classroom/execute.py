"""Execute the course notebooks: in place (`make notebooks`), or N times in fresh kernels to check stability.

`python -m tutorial_lib notebooks --repeat 5` runs every notebook five times without saving, and reports
every failing assertion (cell, error) and, for each cell whose output nbval ignores, the spread of every
number it printed across the runs, plus each notebook's run time against the 90 s budget.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from tutorial_lib.classroom.course import notebook_paths
from tutorial_lib.classroom.study_time import RUN_SECONDS_KEY

CELL_TIMEOUT_S = 300
BUDGET_S = 90.0
IGNORE_TAG = "nbval-ignore-output"  # the cell tag nbval reads; the course uses tags, not comment markers
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _spread(match: re.Match, values: tuple[float, ...]) -> str:
    """Return the matched number unchanged if it never varied, else '[min–max]' with its decimals."""
    low, high = min(values), max(values)
    if low == high:
        return match.group(0)
    decimals = len(match.group(0).split(".")[1]) if "." in match.group(0) else 0
    return f"[{low:.{decimals}f}–{high:.{decimals}f}]"


def kernel_config():
    """Return the traitlets config for the kernels these commands start: CurveZMQ-encrypted connections.

    ipykernel (7.4+) warns "Kernel is running over TCP without encryption" on its stderr, which is this
    terminal, between the progress lines, when the kernel manager gives it no CurveZMQ keys. jupyter_client
    (8.10+) provisions keys when asked (`KernelManager.transport_encryption`, "auto": when the kernelspec
    declares support, as ipykernel's does): the kernel then encrypts and says nothing. Older versions have no
    such option, and their kernels do not warn. The kernels still listen on 127.0.0.1 only.
    """
    import zmq
    from jupyter_client.manager import KernelManager
    from traitlets.config import Config

    config = Config()
    if "transport_encryption" in KernelManager.class_trait_names() and zmq.has("curve"):
        config.KernelManager.transport_encryption = "auto"
    return config


def _run(notebook, path: Path, allow_errors: bool, kernel_name: str) -> float:
    from nbclient import NotebookClient

    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name=kernel_name, allow_errors=allow_errors,
                            resources={"metadata": {"path": str(path.parent)}}, record_timing=False,
                            config=kernel_config())
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def execute(path: Path, kernel_name: str = "python3") -> float:
    """Run one notebook in a fresh kernel with its folder as working directory; save outputs; return seconds.

    The seconds are saved in the notebook's metadata too: its Overview's run time (`study_time`) reads them.

    A checker prints its verdict rather than raising, so a reference solution that its checker refused would not
    stop the run: such a notebook is not saved (RuntimeError naming the cells).
    """
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    elapsed = _run(notebook, path, False, kernel_name)
    refused = refused_references(notebook)
    if refused:
        raise RuntimeError(f"{path.name} not saved: a checker refused the reference solution: "
                           + "; ".join(f"cell {index}: {message}" for index, message in refused))
    notebook.metadata.setdefault("tutorial", {})[RUN_SECONDS_KEY] = round(elapsed, 1)  # its Overview's run time
    nbformat.write(notebook, path)
    return elapsed


def is_ignored(cell) -> bool:
    """Return whether nbval ignores this cell's output (the course marks such cells with a tag)."""
    return IGNORE_TAG in cell.get("metadata", {}).get("tags", [])


def output_text(cell) -> str:
    """Return the text a code cell printed or displayed (stream, plain text and markdown), errors excluded."""
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output.get("text", ""))
        elif "data" in output:
            data = output["data"]
            parts.append(data.get("text/markdown") or ("" if "image/png" in data else data.get("text/plain", "")))
    return "".join(parts)


def errors(notebook) -> list[tuple[int, str]]:
    """Return (cell index, 'Name: first line of the message') for every cell that raised."""
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = (output.get("evalue") or "").strip().splitlines()
                found.append((index, f"{output.get('ename')}: {message[0] if message else ''}"))
    return found


def refused_references(notebook) -> list[tuple[int, str]]:
    """Return (checker cell index, its first line) for every checker that refused the solution cell before it."""
    cells = notebook.cells
    found = []
    for index, cell in enumerate(cells):
        if "solution" not in cell.get("metadata", {}).get("tags", []):
            continue
        checker = next((i for i in range(index + 1, len(cells)) if cells[i].cell_type == "code"), None)
        text = "" if checker is None else output_text(cells[checker])
        refusals = [line for line in text.splitlines() if "❌" in line]
        if refusals:
            found.append((checker, f"checker refused the reference: {refusals[0].strip()}"))
    return found


def failures(notebook) -> list[tuple[int, str]]:
    """Return every cell that raised and every checker that refused its reference: what makes a run fail."""
    return errors(notebook) + refused_references(notebook)


@dataclass
class Repeats:
    """What N executions of one notebook printed and raised."""

    name: str
    seconds: list[float] = field(default_factory=list)
    failures: dict[tuple[int, str], int] = field(default_factory=dict)
    texts: dict[int, list[str]] = field(default_factory=dict)  # ignored cell -> its text in each run

    def add(self, notebook, seconds: float) -> None:
        """Record one execution."""
        self.seconds.append(seconds)
        for failure in failures(notebook):
            self.failures[failure] = self.failures.get(failure, 0) + 1
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code" and is_ignored(cell):
                self.texts.setdefault(index, []).append(output_text(cell))

    def spreads(self) -> dict[int, str]:
        """Return, per ignored cell, its first run's text with each varying number replaced by 'min–max'."""
        result = {}
        for index, texts in self.texts.items():
            numbers = [[float(n) for n in _NUMBER.findall(text)] for text in texts]
            if not texts[0].strip() or not numbers[0]:
                continue
            if len({len(n) for n in numbers}) > 1:
                result[index] = f"(the number of values printed varies between runs) {texts[0].strip()[:200]}"
                continue
            columns = list(zip(*numbers, strict=True))
            pieces = iter(columns)
            result[index] = _NUMBER.sub(lambda match, pieces=pieces: _spread(match, next(pieces)), texts[0]).strip()
        return result

    def report(self) -> str:
        """Return a plain-text report of this notebook's runs."""
        runs = len(self.seconds)
        over = sum(s > BUDGET_S for s in self.seconds)
        lines = [f"## {self.name}: {runs} runs, {min(self.seconds):.1f}–{max(self.seconds):.1f} s"
                 + (f" ({over} over the {BUDGET_S:g} s budget)" if over else "")]
        if self.failures:
            lines += [f"- FAILED in {count} of {runs} runs: cell {index}: {message}"
                      for (index, message), count in sorted(self.failures.items())]
        else:
            lines.append(f"- no cell raised in any of the {runs} runs")
        for index, text in self.spreads().items():
            lines.append(f"- cell {index} (output ignored by nbval):")
            lines += [f"    {line}" for line in text.splitlines()[:12]]
        return "\n".join(lines)


def repeat(path: Path, times: int, kernel_name: str = "python3", progress=print) -> Repeats:
    """Execute a notebook `times` times, each in a fresh kernel, without saving; collect failures and outputs."""
    import nbformat

    result = Repeats(path.name)
    for run in range(times):
        notebook = nbformat.read(path, as_version=4)
        seconds = _run(notebook, path, True, kernel_name)
        result.add(notebook, seconds)
        progress(f"  {path.name} run {run + 1}/{times}: {seconds:.1f} s, "
                 f"{len(errors(notebook))} cell(s) raised, {len(refused_references(notebook))} reference(s) refused")
    return result


def main(names: list[str], times: int = 0, report: str | None = None) -> int:
    """Execute the named notebooks (default: all) in place, or `times` times each and report; 1 on any failure."""
    from tqdm.auto import tqdm

    paths = notebook_paths(names)
    if not times:
        for path in tqdm(paths, desc="notebooks", unit="nb"):
            tqdm.write(f"  {path.name}: {execute(path):.1f} s")
        return 0
    results = [repeat(path, times, progress=tqdm.write) for path in tqdm(paths, desc="notebooks", unit="nb")]
    text = "\n\n".join(r.report() for r in results)
    print(text)
    if report:
        Path(report).parent.mkdir(parents=True, exist_ok=True)
        Path(report).write_text(text + "\n")
        Path(report).with_suffix(".json").write_text(json.dumps(
            {r.name: {"seconds": r.seconds, "failures": [[i, m, n] for (i, m), n in r.failures.items()]}
             for r in results}, indent=1))
    return 1 if any(r.failures for r in results) else 0
