"""Measure fairly: variants run interleaved (A B C A B C ...) after a warm-up, reported as medians and ratios.

Used by notebook 01 (feed cost, with `aligned_array`) and by the other benchmarks here (`monitor_overhead`, quoted in
notebook 05; `pipelines`, notebook 10's benchmark).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def interleaved(variants: dict[str, Callable[[], Any]], repeats: int = 5, warmup: int = 1) -> dict[str, list[float]]:
    """Time every variant `repeats` times, interleaved, after `warmup` untimed rounds; return seconds per run."""
    for _ in range(warmup):
        for run in variants.values():
            run()
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, run in variants.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


def medians(times: dict[str, list[float]]) -> dict[str, float]:
    """Return the median of each variant's times."""
    return {name: statistics.median(values) for name, values in times.items()}


def ratios(times: dict[str, list[float]], baseline: str) -> dict[str, float]:
    """Return each variant's median time divided by the baseline's median time."""
    middle = medians(times)
    return {name: value / middle[baseline] for name, value in middle.items()}


def aligned_array(shape: tuple[int, ...], dtype=np.float32, offset: int = 0, alignment: int = 64) -> np.ndarray:
    """Return a C-contiguous array of ones whose data starts `offset` bytes past an `alignment`-byte boundary."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(nbytes + 2 * alignment + offset, np.uint8)
    start = (-raw.ctypes.data) % alignment + offset
    array = raw[start:start + nbytes].view(dtype).reshape(shape)
    array[...] = 1
    return array
