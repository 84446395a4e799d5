"""Watch an input pipeline while a model trains: queue fill levels, and time waiting for input vs computing.

A `Monitor` samples the size of every watched queue at a fixed rate from a background thread -- TF1 queues
through the running Session, eager `tf.queue` objects, and Python `queue.Queue`s -- and the training loop
reports, per step, how long it waited for input and how long it computed. History is bounded, so a long run
does not grow memory. Listeners (the live dashboard) get a snapshot after every sample; TensorBoard
summaries of fill and wait fractions, like TF1's `fraction_of_N_full`, are written when a log_dir is given.
When TensorFlow sees a GPU, the sampler also reads its utilisation and memory through NVML (`monitor.gpu`).

Thresholds for the verdict follow the TensorFlow profiler's input-pipeline analysis: a run is input-bound
when 20% or more of the step time is spent waiting for input, moderately input-bound from 5%.
"""

from __future__ import annotations

import collections
import queue as pyqueue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

INPUT_BOUND, MODERATELY_INPUT_BOUND = 0.20, 0.05


def verdict(wait_fraction: float) -> str:
    """Classify a run by the share of step time spent waiting for input (the profiler's thresholds)."""
    if wait_fraction >= INPUT_BOUND:
        return "input-bound"
    if wait_fraction >= MODERATELY_INPUT_BOUND:
        return "moderately input-bound"
    return "compute-bound"


@dataclass
class Probe:
    """One watched queue: a name, its capacity, and a function returning its current size."""

    name: str
    capacity: int
    size: Callable[[], int]


def tf1_probes(sess: Any, queues: dict[str, Any] | None = None) -> list[Probe]:
    """Probe TF1 queues of a running session; by default every queue in the session's graph.

    The size ops are created here, in the calling thread; the sampler only runs them (one `run` per sample).
    """
    from tutorial_lib.tf1 import queue_ops, tf

    graph = sess.graph
    if queues is None:
        ops = {op.name: op for op in queue_ops(graph)}
    else:
        ops = {name: q.queue_ref.op if hasattr(q, "queue_ref") else q for name, q in queues.items()}
    with graph.as_default():
        size_ops = [tf.raw_ops.QueueSizeV2(handle=op.outputs[0]) for op in ops.values()]
    latest: dict[str, int] = {}
    lock = threading.Lock()

    def refresh() -> None:
        values = sess.run(size_ops)
        with lock:
            latest.update(zip(ops, (int(v) for v in values), strict=True))

    probes = []
    for k, (name, op) in enumerate(ops.items()):
        def size(name: str = name, first: bool = k == 0) -> int:
            if first:  # one session run refreshes every queue of this graph
                refresh()
            with lock:
                return latest.get(name, 0)
        probes.append(Probe(name, int(op.get_attr("capacity")), size))
    return probes


def eager_probe(name: str, q: Any, capacity: int) -> Probe:
    """Probe an eager `tf.queue.*Queue`."""
    return Probe(name, capacity, lambda: int(q.size()))


def python_probe(name: str, q: pyqueue.Queue) -> Probe:
    """Probe a Python `queue.Queue` (its maxsize is the capacity)."""
    return Probe(name, q.maxsize, q.qsize)


@dataclass
class Snapshot:
    """What the monitor knows at one moment (passed to listeners)."""

    elapsed_s: float
    sizes: dict[str, int]
    capacities: dict[str, int]
    steps: int
    wait_fraction: float
    examples_per_s: float
    step_ms: float
    verdict: str
    gpu: Any = None  # the latest GpuReading when a GPU is watched


@dataclass
class Monitor:
    """Sample queue sizes at `rate_hz` in a background thread and account each training step's wait vs compute."""

    probes: Sequence[Probe]
    rate_hz: float = 10.0
    history: int = 3000
    warmup_steps: int = 5
    log_dir: str | None = None
    listeners: list[Callable[[Snapshot], None]] = field(default_factory=list)  # called by the sampler thread
    step_listeners: list[Callable[[], None]] = field(default_factory=list)  # called by the training loop's thread
    gpu: Any = "auto"  # a gpu.GpuProbe, None, or "auto": watch TensorFlow's /GPU:0 when there is one

    def __post_init__(self) -> None:
        self.samples: collections.deque = collections.deque(maxlen=self.history)  # (t, {name: size})
        self.steps: collections.deque = collections.deque(maxlen=self.history)  # (t, wait_s, compute_s, n)
        self._seen = 0  # every recorded step, warm-up included
        self._totals = [0, 0.0, 0.0, 0]  # steps, wait, compute, examples -- after the warm-up, whole run
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start = time.perf_counter()
        self._writer = None
        self.errors: list[BaseException] = []
        self.sampling_s = 0.0  # CPU time the sampler thread spent sampling and notifying its listeners
        self.gpu_samples: collections.deque = collections.deque(maxlen=self.history)  # (t, GpuReading)
        self._owns_gpu = self.gpu == "auto"
        if self._owns_gpu:
            from tutorial_lib.monitor.gpu import detect

            self.gpu, self.gpu_note = detect()
        else:
            self.gpu_note = self.gpu.name if self.gpu is not None else "no GPU watched"

    # -- the training loop's side ------------------------------------------------------------------------

    def record_step(self, wait_s: float, compute_s: float, examples: int) -> None:
        """Account one training step: seconds blocked waiting for input, seconds computing, batch size."""
        now = time.perf_counter() - self._start
        with self._lock:
            self.steps.append((now, wait_s, compute_s, examples))
            self._seen += 1
            if self._seen > self.warmup_steps:
                self._totals[0] += 1
                self._totals[1] += wait_s
                self._totals[2] += compute_s
                self._totals[3] += examples
        for listener in self.step_listeners:  # in the caller's thread, between two steps (the live view)
            listener()

    def timed_step(self, get_input: Callable[[], Any], compute: Callable[[Any], Any], examples: int) -> Any:
        """Run one step as get_input() then compute(batch), recording both durations; return compute's result."""
        start = time.perf_counter()
        batch = get_input()
        fetched = time.perf_counter()
        result = compute(batch)
        self.record_step(fetched - start, time.perf_counter() - fetched, examples)
        return result

    # -- the figures ---------------------------------------------------------------------------------------

    def wait_fraction(self) -> float:
        """Share of step time spent waiting for input, over the run after the warm-up steps."""
        with self._lock:
            _, wait, compute, _ = self._totals
        return wait / (wait + compute) if wait + compute > 0 else 0.0

    def snapshot(self, sizes: dict[str, int] | None = None) -> Snapshot:
        """Return the current figures (sizes: the latest sample unless given)."""
        with self._lock:
            steps, wait, compute, examples = self._totals
            recent = list(self.steps)[-20:]
            latest = dict(self.samples[-1][1]) if sizes is None and self.samples else (sizes or {})
            gpu = self.gpu_samples[-1][1] if self.gpu_samples else None
        busy = wait + compute
        fraction = wait / busy if busy > 0 else 0.0
        recent_time = sum(w + c for _, w, c, _ in recent)
        return Snapshot(
            elapsed_s=time.perf_counter() - self._start, sizes=latest,
            capacities={p.name: p.capacity for p in self.probes}, steps=steps, wait_fraction=fraction,
            examples_per_s=examples / busy if busy > 0 else 0.0,
            step_ms=1000 * recent_time / len(recent) if recent else 0.0, verdict=verdict(fraction), gpu=gpu)

    # -- the sampler thread ----------------------------------------------------------------------------------

    def sample(self) -> dict[str, int]:
        """Read every probe once, store the sample, write summaries and notify listeners."""
        sizes = {p.name: p.size() for p in self.probes}
        reading = self.gpu.read() if self.gpu is not None else None
        now = time.perf_counter() - self._start
        with self._lock:
            self.samples.append((now, sizes))
            if reading is not None:
                self.gpu_samples.append((now, reading))
        snapshot = self.snapshot(sizes)
        self._write_summaries(snapshot, len(self.samples))
        for listener in self.listeners:
            listener(snapshot)
        return sizes

    def _run(self) -> None:
        period = 1.0 / self.rate_hz
        next_time = time.perf_counter()
        while not self._stop.is_set():
            began = time.thread_time()
            try:
                self.sample()
            except Exception as error:  # a closed session or queue ends sampling, and is kept for the caller
                self.errors.append(error)
                return
            self.sampling_s += time.thread_time() - began
            next_time += period
            self._stop.wait(max(0.0, next_time - time.perf_counter()))

    def start(self) -> Monitor:
        """Start the sampler thread (idempotent)."""
        if self._thread is None:
            if self.log_dir:
                from tutorial_lib.env import import_tensorflow

                self._writer = import_tensorflow().summary.create_file_writer(self.log_dir)
            self._start = time.perf_counter()
            self._thread = threading.Thread(target=self._run, name="queue-monitor", daemon=True)
            self._thread.start()
        return self

    @property
    def running(self) -> bool:
        """Return whether the sampler thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self, raise_errors: bool = True) -> None:
        """Stop and join the sampler thread, flush summaries, and raise the error that ended sampling, if any."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._writer is not None:
            self._writer.flush()
            self._writer.close()
            self._writer = None
        if self._owns_gpu and self.gpu is not None:
            self.gpu.close()
            self._owns_gpu = False
        if self.errors and raise_errors:
            raise RuntimeError(f"queue sampling stopped early: {self.errors[0]!r}") from self.errors[0]

    def __enter__(self) -> Monitor:
        return self.start()

    def __exit__(self, exc_type: type | None, *exc: object) -> None:
        self.stop(raise_errors=exc_type is None)

    def _write_summaries(self, snapshot: Snapshot, step: int) -> None:
        if self._writer is None:
            return
        from tutorial_lib.env import import_tensorflow

        tf = import_tensorflow()
        with self._writer.as_default(step=step):
            for name, size in snapshot.sizes.items():
                capacity = max(1, snapshot.capacities[name])
                tf.summary.scalar(f"{name}/fraction_of_{capacity}_full", size / capacity)
            tf.summary.scalar("input/wait_fraction", snapshot.wait_fraction)

    # -- history as arrays, for the static picture ------------------------------------------------------------

    def fill_history(self, last: int | None = None) -> tuple[list[float], dict[str, list[float]]]:
        """Return sample times and, per queue, the fill fraction at each sample (only the `last` ones if given)."""
        with self._lock:
            samples = list(self.samples)[-last:] if last else list(self.samples)
        times = [t for t, _ in samples]
        fractions = {p.name: [s.get(p.name, 0) / max(1, p.capacity) for _, s in samples] for p in self.probes}
        return times, fractions

    def gpu_history(self) -> tuple[list[float], list[float], list[float]]:
        """Return sample times, GPU utilisation (0-1) and GPU memory in use (MiB) of the GPU readings."""
        with self._lock:
            readings = list(self.gpu_samples)
        return [t for t, _ in readings], [r.utilization for _, r in readings], [r.memory_used_mib for _, r in readings]

    def step_history(self) -> tuple[list[float], list[float], list[float]]:
        """Return step end times, wait seconds and compute seconds of the recorded steps."""
        with self._lock:
            steps = list(self.steps)
        return [s[0] for s in steps], [s[1] for s in steps], [s[2] for s in steps]

    def warmup_in_history(self) -> int:
        """Return how many of the recorded steps (the oldest kept) are warm-up steps, left out of the verdict."""
        with self._lock:
            kept = len(self.steps)
            dropped = self._seen - kept  # steps older than the kept history
        return max(0, min(kept, self.warmup_steps - dropped))


class InputBuffer:
    """A bounded Python queue filled from an iterator by a thread: the monitored hand-off to a training step.

    `get()` returns the next item, or None when the iterator is exhausted; `close()` stops and joins the thread.
    """

    def __init__(self, iterator: Any, capacity: int, name: str = "input-buffer"):
        self.queue: pyqueue.Queue = pyqueue.Queue(maxsize=capacity)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._fill, args=(iter(iterator),), name=name, daemon=True)
        self._thread.start()

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except pyqueue.Full:
                continue
        return False

    def _fill(self, iterator: Any) -> None:
        try:
            for item in iterator:
                if not self._put(item):
                    return
        finally:
            self._put(None)

    def get(self) -> Any:
        """Return the next item (blocking), or None at the end of the input."""
        return self.queue.get()

    def probe(self, name: str = "buffer") -> Probe:
        """Return a probe of this buffer for a Monitor."""
        return python_probe(name, self.queue)

    def close(self) -> None:
        """Stop filling and join the thread."""
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> InputBuffer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
