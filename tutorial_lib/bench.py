"""Measure fairly: variants run interleaved (A B C A B C ...) after a warm-up, reported as medians and ratios."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
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


def rss_bytes() -> int:
    """Return this process's resident memory now (Linux /proc; elsewhere the peak from `resource`)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


_PRELOAD_PROBE = """
import gc, sys
import numpy as np
from tutorial_lib.bench import rss_bytes
from tutorial_lib.env import import_tensorflow
tf = import_tensorflow()
v1 = tf.compat.v1
kind, rows = sys.argv[1], int(sys.argv[2])
data = np.random.default_rng(0).random((rows, 784), dtype=np.float32)
with tf.Graph().as_default():  # warm up TensorFlow's own allocations before measuring
    v1.Session().run(tf.reduce_sum(tf.constant([1.0])))
gc.collect()
start = rss_bytes()
with tf.Graph().as_default():
    if kind == "constant":
        total = tf.reduce_sum(tf.constant(data))
        feed, init = None, []
    else:
        placeholder = v1.placeholder(tf.float32, data.shape)
        variable = v1.Variable(placeholder, trainable=False, collections=[])
        total, feed, init = tf.reduce_sum(variable), {placeholder: data}, [variable.initializer]
    sess = v1.Session()
    if init:
        sess.run(init, feed_dict=feed)
    sess.run(total)
    print(rss_bytes() - start)
"""


def preload_memory(kind: str, rows: int) -> int:
    """Return how much a fresh process grows holding `rows` float32 [784] rows as a 'constant' or 'variable'."""
    done = subprocess.run([sys.executable, "-c", _PRELOAD_PROBE, kind, str(rows)], capture_output=True,
                          text=True, check=True, timeout=300)
    return int(done.stdout.split()[-1])


def monitor_overhead(steps: int = 100, repeats: int = 11, rate_hz: float = 10.0, hidden_units: int = 1024,
                     batch_size: int = 64) -> dict[str, float]:
    """Measure what a Monitor + live dashboard sampling at `rate_hz` costs a training loop, two ways.

    One TF1 graph (the dashboard notebook's compute-bound setting), runs of `steps` steps interleaved
    (plain, monitored, plain, ...) after a warm-up:
    * `throughput_ratio`: median plain time / median monitored time (1.0 = free; noisy on a busy machine,
      because reader threads and training share the cores);
    * `sampling_share`: the CPU time of the sampler thread itself (sampling + widget updates) divided by
      the monitored runs' wall time -- the CPU the monitor takes away, measured directly.
    """
    from tutorial_lib import dashboard, datasets, models, monitor, pipelines, tf1
    from tutorial_lib.env import device_name

    tf, v1 = tf1.tf, tf1.v1
    files = datasets.digit_files("bin", "train")
    with tf.Graph().as_default():
        v1.set_random_seed(0)
        images, labels = pipelines.tf1_training_batches(files, batch_size, 2, 4 * batch_size)
        stage, train, _ = models.staged_mlp(images, labels, hidden_units, device_name())
        with tf1.session() as sess:
            def plain() -> None:
                for _ in range(steps):
                    sess.run(stage)
                    sess.run(train)

            probes = monitor.tf1_probes(sess)
            # One fresh monitor + live view per run, built before the clock starts: sampling and the live widget
            # updates are measured; building the view and drawing the final figure are not.
            watchers = [monitor.Monitor(probes, rate_hz=rate_hz) for _ in range(repeats + 1)]
            views = [dashboard.LiveDashboard(w, show=False) for w in watchers]

            spent: list[tuple[float, float]] = []  # (wall seconds, sampler seconds) per monitored run

            def monitored() -> None:
                watcher = watchers.pop()
                start = time.perf_counter()
                watcher.start()
                for _ in range(steps):
                    watcher.timed_step(lambda: sess.run(stage), lambda _: sess.run(train), batch_size)
                watcher.stop()
                spent.append((time.perf_counter() - start, watcher.sampling_s))

            times = interleaved({"plain": plain, "monitored": monitored}, repeats=repeats, warmup=1)
    middle = medians(times)
    return {"plain_s": middle["plain"], "monitored_s": middle["monitored"],
            "view_updates_per_s": sum(v.updates for v in views) / sum(wall for wall, _ in spent),
            "sampling_share": sum(sampler for _, sampler in spent) / sum(wall for wall, _ in spent),
            "throughput_ratio": middle["plain"] / middle["monitored"], "rate_hz": rate_hz, "steps": steps}
