"""Run the notebooks as on other machines: one core, a busy machine, a model step 4x slower or 4x cheaper.

`python -m tutorial_lib notebooks --machine SETTING[,SETTING...]` (`make machines` for the whole matrix,
`make test` for the measured notebooks under `one-core`) executes each notebook in a fresh kernel under each
setting and reports, per notebook and setting, how many cells raised and the wall time. A kernel inherits
its CPU affinity and its environment from this process, so each setting is applied here, around the runs:

* `normal` -- the machine as it is;
* `one-core` -- this process (and so every kernel it starts) may run on one core only (`os.sched_setaffinity`),
  as a hub that gives each student one core;
* `loaded` -- one background process per core, each pinned to its core and busy half of every 10 ms, as a
  student's laptop doing something else;
* `slow-step` -- `TUTORIAL_STEP_COST=4`: every digit model's step about four times slower (`tutorial_lib.workload`);
* `fast-step` -- `TUTORIAL_STEP_COST=0.25`: every digit model's step about four times cheaper (fewer units).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from tutorial_lib.classroom.execute import Repeats
from tutorial_lib.workload import STEP_COST_ENV

SETTINGS = {
    "normal": "the machine as it is",
    "one-core": "every kernel pinned to one core",
    "loaded": "a background load busy half of every core",
    "slow-step": f"{STEP_COST_ENV}=4: the model step about 4x slower",
    "fast-step": f"{STEP_COST_ENV}=0.25: the model step about 4x cheaper",
}
LOAD_PERIOD_S, LOAD_BUSY_SHARE = 0.010, 0.5

# One background load process: pinned to its core, busy for half of every period, asleep for the rest.
_LOAD_CODE = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
period, busy = float(sys.argv[2]), float(sys.argv[2]) * float(sys.argv[3])
while True:
    start = time.perf_counter()
    while time.perf_counter() - start < busy:
        pass
    time.sleep(max(0.0, period - (time.perf_counter() - start)))
"""


def parse(text: str) -> list[str]:
    """Return the settings named in 'a,b' ('all' for every one); refuse an unknown name."""
    names = list(SETTINGS) if text.strip() == "all" else [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in SETTINGS]
    if unknown or not names:
        raise ValueError(f"unknown machine setting(s) {unknown or text!r}: choose from {', '.join(SETTINGS)} or all")
    return names


def _cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))


@contextlib.contextmanager
def applied(setting: str, core: int = 0) -> Iterator[None]:
    """Apply a setting to this process (and the kernels it starts) for the duration of the block; `one-core` pins
    it to the `core`-th usable core (0: the lowest; counted round, so two sessions can take a core each)."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown machine setting {setting!r}: choose from {', '.join(SETTINGS)}")
    saved_env = os.environ.get(STEP_COST_ENV)
    saved_cpus = set(_cpus())
    loads: list[subprocess.Popen] = []
    try:
        if setting == "one-core":
            os.sched_setaffinity(0, {sorted(saved_cpus)[core % len(saved_cpus)]})
        elif setting == "loaded":
            loads = [subprocess.Popen([sys.executable, "-c", _LOAD_CODE, str(cpu), str(LOAD_PERIOD_S),
                                       str(LOAD_BUSY_SHARE)]) for cpu in sorted(saved_cpus)]
        elif setting in ("slow-step", "fast-step"):
            os.environ[STEP_COST_ENV] = "4" if setting == "slow-step" else "0.25"
        yield
    finally:
        for process in loads:
            process.kill()
            process.wait()
        if setting == "one-core":
            os.sched_setaffinity(0, saved_cpus)
        if saved_env is None:
            os.environ.pop(STEP_COST_ENV, None)
        else:
            os.environ[STEP_COST_ENV] = saved_env


@dataclass
class Cell:
    """One notebook under one setting: how many cells raised (and which), and the wall time."""

    notebook: str
    setting: str
    seconds: float
    raised: list[tuple[int, str]]


def run(names: list[str], settings: list[str], times: int = 1, progress=print,
        spreads: dict[tuple[str, str], Repeats] | None = None) -> list[Cell]:
    """Execute every named notebook `times` times under every setting, in fresh kernels, without saving.

    With `spreads`, also collect per (notebook, setting) what the runs printed (`execute.Repeats`), so that
    the spread of every measured number can be reported.
    """
    import nbformat

    from tutorial_lib.classroom.course import notebook_paths
    from tutorial_lib.classroom.execute import _run, failures

    results = []
    for setting in settings:
        with applied(setting):
            for path in notebook_paths(names):
                for attempt in range(times):
                    notebook = nbformat.read(path, as_version=4)
                    seconds = _run(notebook, path, True, "python3")
                    # a checker that refused its reference prints, not raises: it counts as a cell raised here
                    results.append(Cell(path.stem, setting, seconds, failures(notebook)))
                    if spreads is not None:
                        spreads.setdefault((path.stem, setting), Repeats(f"{path.name} ({setting})")).add(
                            notebook, seconds)
                    progress(f"  {setting:>9} {path.stem} run {attempt + 1}/{times}: {seconds:.1f} s, "
                             f"{len(results[-1].raised)} cell(s) raised"
                             + "".join(f"\n      cell {i}: {message}" for i, message in results[-1].raised))
    return results


def table(results: list[Cell]) -> str:
    """Return a markdown table: one row per notebook, per setting 'cells raised / wall time (s)'."""
    settings = list(dict.fromkeys(r.setting for r in results))
    notebooks = list(dict.fromkeys(r.notebook for r in results))
    lines = ["| notebook | " + " | ".join(settings) + " |", "|---|" + "---|" * len(settings)]
    for name in notebooks:
        row = []
        for setting in settings:
            runs = [r for r in results if r.notebook == name and r.setting == setting]
            raised = sum(len(r.raised) for r in runs)
            times = "/".join(f"{r.seconds:.0f}" for r in runs)
            row.append(f"{raised} raised, {times} s")
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    total = sum(len(r.raised) for r in results)
    lines.append(f"\n{len(results)} notebook runs, {total} cell(s) raised")
    return "\n".join(lines)
