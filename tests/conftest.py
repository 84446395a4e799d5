"""Shared set-up for the tests, and the order and groups in which `make test` hands files to its pytest-xdist
workers."""

import os

from site_support import built, served  # noqa: F401 -- the built site, per module that asks (tests/site_support.py)

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


def pytest_xdist_make_scheduler(config, log):
    """Under `--one-core`, hand each group of CORE_GROUPS to one worker, in collection order (pytest-xdist's hook)."""
    if not config.getoption("one_core", False):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class CoreGroupScheduling(LoadScopeScheduling):
        """pytest-xdist's scope scheduling, with CORE_GROUPS as the scopes."""

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::")[0]
            return CORE_GROUPS.get(path, path)

    return CoreGroupScheduling(config, log)
