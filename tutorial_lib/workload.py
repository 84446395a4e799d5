"""Measure this machine's costs and size a lesson's workload from them, so a measured effect shows anywhere.

A lesson that teaches "input-bound" or "compute-bound" pits a producer against a model step. Both costs
differ from machine to machine (a laptop twice as slow, one busy core on a hub, a GPU), so no cost is fixed
in milliseconds: the lesson measures a model step here, picks a model size whose step is long enough to
time, and states every added delay as a multiple of that measured step.

Used by notebooks 05 (through `monitor.calibration`) and 06, by the checkers of 06, and by
`python -m tutorial_lib notebooks --machine ...` (`classroom.machines`), whose `slow-step` and `fast-step`
settings set `TUTORIAL_STEP_COST`:

* `TUTORIAL_STEP_COST` (default 1) -- a documented setting for checking lessons on other machines: every
  digit model of `models.digits` is built with its hidden units multiplied by the square root of this
  factor, which multiplies the cost of its dominant (hidden x hidden) matrix product by the factor. 4
  makes the big models' step about four times slower, 0.25 about four times cheaper.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tutorial_lib.models.scale import STEP_COST_ENV, scaled_units, step_cost_factor  # noqa: F401 -- re-exported

# Notebooks 05 and 06 try these in order (2560: on one core, 05's step took 40 ms at 2048 and 160 ms at 3072).
CANDIDATE_HIDDEN = (64, 256, 512, 1024, 1536, 2048, 2560, 3072, 4096, 6144, 8192, 12288, 16384)
BATCH_SIZE = 64
MIN_COST_MS = 0.2  # the smallest per-example delay a lesson adds (what a sleep can still resolve)


def cgroup_cpu_limit(root: str = "/sys/fs/cgroup") -> float | None:
    """Return the CPU quota of this process's cgroup in cores (a container's `--cpus`), or None when unlimited."""
    from pathlib import Path

    for quota_file, period_file in [("cpu.max", None), ("cpu/cpu.cfs_quota_us", "cpu/cpu.cfs_period_us")]:
        try:
            fields = (Path(root) / quota_file).read_text().split()
            if period_file is not None:
                fields.append((Path(root) / period_file).read_text().strip())
        except (OSError, ValueError):
            continue
        if len(fields) < 2 or fields[0] in ("max", "-1"):
            return None
        try:
            return int(fields[0]) / int(fields[1])
        except ValueError:
            return None
    return None


def cores() -> int:
    """Return how many cores this process may use: its CPU affinity, capped by a cgroup CPU quota if there is one."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    limit = cgroup_cpu_limit()
    return max(1, min(usable, math.floor(limit))) if limit else usable


# Two threads hashing at once (hashlib lets go of Python's lock on large inputs) run about 1.7-2x as fast as one on
# a quiet 2-core machine, and about 1.0-1.1x while another process keeps a core busy (measured 2026-11-28, 5 rounds
# each): under BUSY_ELSEWHERE the other cores count as taken.
BUSY_ELSEWHERE = 1.5


def parallel_speedup(threads: int = 2, repeats: int = 3, size: int = 8 << 20) -> float:
    """Return how much faster `threads` threads hash a block each at once than one thread hashes one (best of
    `repeats`)."""
    import hashlib
    import threading

    block = os.urandom(size)

    def one() -> None:
        hashlib.sha256(block).digest()

    def timed(count: int) -> float:
        workers = [threading.Thread(target=one) for _ in range(count)]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return time.perf_counter() - start

    one()
    alone = min(timed(1) for _ in range(repeats))
    together = min(timed(threads) for _ in range(repeats))
    return threads * alone / together


def cores_now(cores: int, speedup: Callable[[], float] = parallel_speedup) -> int:
    """Return the cores this process gets now: `cores`, or 1 when two threads at once run hardly faster than one
    (another process, a classmate's kernel on a shared hub say, keeps the other cores busy)."""
    return cores if cores < 2 or speedup() >= BUSY_ELSEWHERE else 1


def median_ms(run: Callable[[], object], times: int) -> float:
    """Return the median duration of `times` calls of `run`, in milliseconds."""
    durations = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        durations.append(time.perf_counter() - start)
    return 1000 * sorted(durations)[len(durations) // 2]


def measure_eager_step(hidden_units: int, device: str = "/CPU:0", batch_size: int = BATCH_SIZE,
                       steps: int = 7) -> float:
    """Time `models.EagerMLP.train_step` on a fixed batch: median ms per step after two warm-up steps."""
    import numpy as np

    from tutorial_lib import models
    from tutorial_lib.env import import_tensorflow

    tf = import_tensorflow()
    rng = np.random.default_rng(0)
    images = tf.constant(rng.random((batch_size, 784), dtype=np.float32))
    labels = tf.constant(rng.integers(0, 10, batch_size))
    model = models.EagerMLP(hidden_units, device)
    for _ in range(2):  # the first call traces the function
        model.train_step(images, labels).numpy()
    return median_ms(lambda: model.train_step(images, labels).numpy(), steps)


@dataclass
class ModelChoice:
    """The model size a lesson trains, and its step time measured on this machine."""

    hidden_units: int
    step_ms: float
    measured: dict[int, float]  # every candidate measured on the way, hidden units -> ms per step
    reached: bool  # False when even the biggest candidate's step stayed below the target

    def cost_ms(self, batch_ratio: float, batch_size: int = BATCH_SIZE) -> float:
        """Return the per-example delay that makes producing a batch take `batch_ratio` steps (sequentially)."""
        return per_example_cost_ms(self.step_ms, batch_ratio, batch_size)


def choose_model(measure_step: Callable[[int], float], min_step_ms: float,
                 candidates: Sequence[int] = CANDIDATE_HIDDEN) -> ModelChoice:
    """Measure growing models until a step takes at least `min_step_ms`; return the first that does.

    `measure_step(hidden_units)` returns ms per step (passed in, so the choice is tested with injected costs).
    On a fast machine the chosen model is bigger, on a slow one smaller: the step, and so the lesson's run
    time and every delay stated as a multiple of it, stays about the same.
    """
    measured: dict[int, float] = {}
    for hidden in candidates:
        measured[hidden] = measure_step(hidden)
        if measured[hidden] >= min_step_ms:
            # A busy moment can slow one measurement (then a too small model was taken under a background load):
            # the step must reach the floor twice, and the faster of the two counts.
            measured[hidden] = min(measured[hidden], measure_step(hidden))
        if measured[hidden] >= min_step_ms:
            return ModelChoice(hidden, measured[hidden], measured, True)
    biggest = candidates[-1]
    return ModelChoice(biggest, measured[biggest], measured, False)


def per_example_cost_ms(step_ms: float, batch_ratio: float, batch_size: int = BATCH_SIZE) -> float:
    """Return the per-example delay (ms) that makes a batch of `batch_size` take `batch_ratio` x `step_ms`."""
    return round(max(MIN_COST_MS, batch_ratio * step_ms / batch_size), 3)
