"""A pytest plugin for nbval: each exercise's student stub and its checker run just before the solution.

`make test` runs every notebook once, under nbval. With this plugin (`-p tutorial_lib.classroom.nbval_student`)
that one execution also checks the student edition: before each cell tagged `solution`, the stub the student
edition puts there (`edition.stub_for`) runs in the same kernel, followed by the exercise's checker, which must
run without error and say "not done yet". Then the solution and the checker run as stored and nbval compares
their outputs as usual. What the student edition needs beyond that -- no solution line left in a stub, no later
cell using a name only a solution defines -- is checked statically in tests/test_classroom.py.

With `--one-core`, this pytest process, and so every kernel it starts, runs on one core (`machines.applied`; each
pytest-xdist worker on its own): `make test` runs the measured notebooks (05, 06) that way, side by side, as a hub
that gives each student one core.
"""

from __future__ import annotations

import os

import pytest

from tutorial_lib.classroom import machines
from tutorial_lib.classroom.edition import stub_for

NOT_DONE = "not done yet"
PASSED = "✅"


def _student_cell(source: str):
    """Return an unexecuted code cell holding `source` (nbval then runs it without comparing outputs)."""
    from nbformat import NotebookNode

    return NotebookNode(cell_type="code", source=source, metadata={}, outputs=[], execution_count=None)


def _stub_item(solution_item, checker_item):
    """Return an nbval item that runs the stub, then the checker, and asserts the checker says 'not done yet'."""
    from nbval.plugin import IPyNbCell

    class StubCell(IPyNbCell):
        """The student edition's view of one exercise: stub + checker in the live kernel."""

        def runtest(self) -> None:
            super().runtest()
            text = "".join(o.get("text", "") for o in self.test_outputs or [])
            if NOT_DONE not in text or PASSED in text:
                self.raise_cell_error(f"with the student's stub, the checker must say {NOT_DONE!r}; it printed:\n"
                                      f"{text or '(nothing)'}")

    source = stub_for(solution_item.cell.source) + "\n\n" + checker_item.cell.source
    options = dict(solution_item.options)
    options.update(check=False, skip=False, check_exception=False)
    return StubCell.from_parent(solution_item.parent, name=f"{solution_item.name} (student stub)",
                                cell_num=solution_item.cell_num, cell=_student_cell(source),
                                options=options)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items) -> None:
    """Insert a stub check before every nbval item whose cell is tagged `solution`."""
    try:
        from nbval.plugin import IPyNbCell
    except ImportError:  # nbval not installed: nothing to do
        return
    result = []
    for index, item in enumerate(items):
        if isinstance(item, IPyNbCell) and "solution" in item.cell.metadata.get("tags", []):
            checker = next((later for later in items[index + 1:] if isinstance(later, IPyNbCell)
                            and later.parent is item.parent), None)
            if checker is None or "exercises.check_" not in checker.cell.source:
                raise pytest.UsageError(f"{item.nodeid}: a solution cell must be followed by its checker cell")
            result.append(_stub_item(item, checker))
        result.append(item)
    items[:] = result


def pytest_addoption(parser) -> None:
    """`--one-core`: run this session's kernels on one core."""
    parser.addoption("--one-core", action="store_true", help="pin this process, and every kernel it starts, to one "
                     "core (as a hub that gives each student one core)")


def worker_index(worker: str | None) -> int:
    """The index N of pytest-xdist worker gwN (0 without pytest-xdist): under `--one-core` it takes the Nth core, so
    two workers are two students, a core each."""
    return int(worker.removeprefix("gw")) if worker and worker.startswith("gw") else 0


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    """Run the tests under the `one-core` machine setting when asked to (the affinity is restored after)."""
    if not session.config.getoption("one_core"):
        return (yield)
    with machines.applied("one-core", core=worker_index(os.environ.get("PYTEST_XDIST_WORKER"))):
        return (yield)
