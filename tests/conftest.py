"""Shared set-up for the tests, and the order `make test` hands files to its pytest-xdist workers."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

# `make test` runs files (and notebooks) on several workers, one file at a time per worker, in collection order
# (`--no-loadscope-reorder`). The longest go first, so that no long one starts last while the other workers are
# idle; the rest keep their order. Longest first, as measured on the 2-core test machine (a scheduling hint only:
# nothing asserts a time).
LONGEST_FIRST = [
    "tests/test_checker_mutants.py",
    "tests/test_nbgrader.py",
    "notebooks/11_scaling_out.ipynb",
    "tests/test_service.py",
    "notebooks/10_queues_to_tf_data.ipynb",
    "notebooks/07b_validate_in_another_process.ipynb",
    "notebooks/09_ptb_producer.ipynb",
    "tests/test_lab_environments.py",
    "notebooks/04_preloaded_data.ipynb",
    "notebooks/08_one_batch_many_evaluations.ipynb",
]


def pytest_collection_modifyitems(session, config, items):
    """Put the files of LONGEST_FIRST first, in that order; every other item keeps its place after them."""
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: a file stays in order
