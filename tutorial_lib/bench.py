"""Measure fairly: variants run interleaved (A B C A B C ...) after a warm-up, reported as medians and ratios."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


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
