"""Shared set-up for the tests, and the order and groups in which `make test` hands files to its pytest-xdist
workers."""

import os
import subprocess
import time
from collections import defaultdict
from pathlib import Path

from site_support import built, served  # noqa: F401 -- the built site, per module that asks (tests/site_support.py)

from tutorial_lib.classroom import suite_times

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

# `make test` runs files (and notebooks) on several workers, one file at a time per worker, in collection order
# (`--no-loadscope-reorder`). The longest go first, so that no long one starts last while the other workers are
# idle; the rest keep their order. Longest first, as measured on the 2-core test machine (a scheduling hint only:
# nothing asserts a time).
LONGEST_FIRST = [
    "tests/test_grading.py",
    "tests/test_installed.py",
    "tests/test_site.py",
    "tests/test_grading_data.py",
    "tests/test_site_readers.py",
    "tests/test_checker_mutants.py",
    "tests/test_first_minute.py",
    "notebooks/11_scaling_out.ipynb",
    "tests/test_service.py",
    "notebooks/10_queues_to_tf_data.ipynb",
    "notebooks/07b_validate_in_another_process.ipynb",
    "notebooks/09_ptb_producer.ipynb",
    "tests/test_lab_environments.py",
    "notebooks/04_preloaded_data.ipynb",
    "notebooks/08_one_batch_many_evaluations.ipynb",
    "notebooks/01_feeding.ipynb",
    "tests/test_quiet_commands.py",
    "notebooks/03b_batching_and_shuffling.ipynb",
    "tests/test_benchmarks.py",
    "tests/test_datasets.py",
    "tests/test_student_edition.py",
    "tests/test_profiler.py",
    "tests/test_pipelines.py",
    "tests/test_env.py",
]

# `make test`'s second run (`--one-core`): one pytest-xdist worker per group, each pinned to a core of its own.
# Notebook 05 is alone on its core; notebook 06, then the nbgrader round trip, share the other, one after the other
# (the round trip runs in the time 05 takes beyond 06). A file not named here is a group of its own.
CORE_GROUPS = {
    "notebooks/05_live_dashboard.ipynb": "core-a",
    "notebooks/06_profiler_check.ipynb": "core-b",
    "tests/test_nbgrader.py": "core-b",
}


def pytest_collection_modifyitems(session, config, items):
    """Put the files of LONGEST_FIRST first, in that order; every other item keeps its place after them."""
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: a file stays in order


# Files whose tests are independent and long in all (each its own exercise): `make test`'s first run spreads their
# tests over the workers instead of giving the whole file to one.
SPREAD_BY_TEST = {"tests/test_checker_mutants.py"}


def pytest_xdist_make_scheduler(config, log):
    """Hand work to the workers by scope, in collection order (pytest-xdist's hook): a file (a notebook's cells stay
    together, in order), except a test of SPREAD_BY_TEST; under `--one-core`, a group of CORE_GROUPS."""
    if config.getoption("dist", "no") != "loadfile" and not config.getoption("one_core", False):
        return None
    from xdist.scheduler import LoadScopeScheduling

    one_core = config.getoption("one_core", False)

    class CourseScheduling(LoadScopeScheduling):
        """pytest-xdist's scope scheduling, with the course's scopes."""

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::")[0]
            if one_core:
                return CORE_GROUPS.get(path, path)
            return nodeid if path in SPREAD_BY_TEST else path

    return CourseScheduling(config, log)


# --- how long `make test` takes: each of its runs (named by TEST_STAGE) records its time (classroom/suite_times.py) ---

_STARTED = time.perf_counter()
_BUSY_AT_START = suite_times.machine_cpu()
_PER_FILE: defaultdict[str, float] = defaultdict(float)
_OUTCOMES: dict[str, bool] = {}  # test id -> passed (or skipped) in every phase


def pytest_runtest_logreport(report):
    """Add each phase's time to its file, and note failures (on the controller, as the workers report)."""
    _PER_FILE[report.nodeid.split("::")[0]] += report.duration
    _OUTCOMES[report.nodeid] = _OUTCOMES.get(report.nodeid, True) and not report.failed


def pytest_sessionfinish(session, exitstatus):
    """Under `make test` (TEST_STAGE set), append this run's time to out/make-test-times.jsonl."""
    stage = os.environ.get("TEST_STAGE")
    if not stage or hasattr(session.config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    git = ["git", "-C", str(root)]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    if subprocess.run([*git, "diff", "--quiet", "HEAD"]).returncode:
        commit += "-with-changes"
    failed = sum(not ok for ok in _OUTCOMES.values()) or int(exitstatus != 0)  # a collection error counts too
    suite_times.append_stage(root / suite_times.RUN_LOG, stage, time.perf_counter() - _STARTED, len(_OUTCOMES),
                             failed, dict(_PER_FILE), commit, os.cpu_count() or 1, time.strftime("%Y-%m-%d"),
                             suite_times.busy_share(_BUSY_AT_START, suite_times.machine_cpu()))
