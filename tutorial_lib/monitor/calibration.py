"""Choose notebook 05's knobs from costs measured on this device, so each scripted run is what it says.

Used by notebook 05. `calibrate` measures how long the producer takes per example (one reader thread, no
added cost) and how long a training step takes for growing model sizes, then `plan` picks:

* compute-bound: readers with no added cost, and the smallest model whose step takes at least
  `ONE_CORE_MARGIN` times as long as one reader thread needs to produce a batch, and at least `MIN_STEP_MS`;
* input-bound: the smallest model, one reader thread, and a per-example cost that makes producing a batch
  take at least `MARGIN` times the step;
* balanced: the compute-bound model, one reader thread, and a per-example cost that makes producing a batch
  take as long as a step -- checked by measuring the producer alone with those knobs, and corrected until
  the measured ratio is inside `BALANCE_BAND`. When a few corrections do not get it there (a sleep overruns,
  by about 1 ms under a background load, which is most of step / batch_size for a small big model), bigger
  models are measured until one again reaches the floor, and the compute-bound and balanced runs use it.

The model sizes tried are `workload.CANDIDATE_HIDDEN`, the list notebook 06 sizes its workload from.

The measuring functions are passed in, so the choice is tested with injected costs (tests/test_calibration.py).
The machine's cores, the timing and the smallest delay come from `tutorial_lib.workload`, which sizes notebook
06's workload the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from tutorial_lib.workload import CANDIDATE_HIDDEN, MIN_COST_MS, cores_now, median_ms
from tutorial_lib.workload import cores as usable_cores

MARGIN = 4.0
BALANCE_BAND = (0.8, 1.25)  # measured producer time per batch / step time for the balanced run
BATCH_SIZE, CAPACITY = 64, 256
# MIN_COST_MS (from workload): the smallest per-example cost the input-bound run adds (sleep granularity)
# The big model's step must also take at least this long: so that the balanced run's per-example cost
# (about step / batch_size) stays well above what a sleep can resolve (measured: a 0.07 ms cost could not be
# calibrated, the producer's floor is higher), and so that the fixed cost of the `run` that dequeues a full
# queue (about 1 ms here) stays far below the 5% threshold in the compute-bound run (with a 37 ms step it
# was 2.4-2.8% on a quiet 2-core machine and crossed 5% when another process shared the cores; 80 ms keeps
# it near 1%). Under a background load a sleep in the producer also overruns by about 1 ms per example, close
# to step / batch_size for such steps: on 2 cores under load no cost balanced a 50 ms step in 4 of 5 runs, nor
# a 91-95 ms one in 2 of 3, so `calibrate` then moves on to the next bigger model.
MIN_STEP_MS = 80.0
# On one core the readers refill each dequeued batch on the step's own core, and part of that work lands inside
# the dequeue's run: measured 2026-11-28 on one core with 2 reader threads, a 15.7 ms batch of reads beside a
# 101-110 ms step waited 4.5-6.6% in 4 runs (3 over the 5% line; 5.8-6.4 ms a step in the 2 runs timed per step).
# There the compute-bound step must be ONE_CORE_MARGIN x the batch one reader thread makes: in 2 one-core runs of
# notebook 05 it then picked a 244-251 ms step, which waited 2.5%. The same holds when the kernel has 2 cores but
# another process keeps one busy, and that can start after the calibration: two students running notebook 05 at
# once on the 2-core hub test waited 5.4% (CI, 2026-11-28) when the margin applied only where the calibration
# found one core free. So the margin applies on every machine (on a quiet one MIN_STEP_MS is the larger floor),
# and the producer is measured again after the step sizes, the larger of the two counting.
ONE_CORE_MARGIN = 12.0


@dataclass
class Calibration:
    """What was measured on this device and the knobs chosen from it."""

    producer_ms_per_example: float  # one reader thread, no added cost
    step_ms: dict[int, float]  # hidden units -> ms per training step at BATCH_SIZE
    cores: int
    knobs: dict[str, dict] = field(default_factory=dict)  # scenario -> knobs
    balanced_ratio: float = float("nan")  # measured producer time per batch / step time, balanced knobs
    reachable: bool = True  # False when no candidate model is slow enough to be compute-bound here
    unbalanced: list[int] = field(default_factory=list)  # big models on which no cost balanced the producer


def producer_ms_per_batch(producer_ms_per_example: float, reader_threads: int, cost_ms: float, cores: int,
                          batch_size: int = BATCH_SIZE) -> float:
    """Predict the producer's time per batch: the CPU part parallel up to the cores, the added cost per thread."""
    return batch_size * (producer_ms_per_example / min(reader_threads, cores) + cost_ms / reader_threads)


def knobs(reader_threads: int, cost_ms: float, hidden_units: int) -> dict:
    """Return one run's knobs in the notebook's vocabulary."""
    return dict(reader_threads=reader_threads, producer_cost_ms=round(cost_ms, 3), batch_size=BATCH_SIZE,
                capacity=CAPACITY, hidden_units=hidden_units)


def step_floor_ms(producer_ms_per_example: float) -> float:
    """Return the step the big model needs: ONE_CORE_MARGIN x the batch one reader thread makes (as if the
    readers shared the step's core), and MIN_STEP_MS."""
    return max(ONE_CORE_MARGIN * producer_ms_per_batch(producer_ms_per_example, 1, 0.0, 1), MIN_STEP_MS)


def plan(producer_ms_per_example: float, step_ms: dict[int, float], cores: int,
         skip: Collection[int] = ()) -> tuple[dict[str, dict], bool]:
    """Choose the three runs' knobs from measured costs (big models in `skip` left out); return them and
    whether compute-bound was reachable."""
    threads = min(4, max(2, cores))
    floor = step_floor_ms(producer_ms_per_example)
    fitting = [h for h in sorted(step_ms) if h not in skip and step_ms[h] >= floor]
    big = fitting[0] if fitting else max(step_ms)
    small = min(step_ms)
    input_cost = max(MIN_COST_MS, MARGIN * step_ms[small] / BATCH_SIZE - producer_ms_per_example)
    balanced_cost = max(0.0, step_ms[big] / BATCH_SIZE - producer_ms_per_example)
    return {"compute-bound": knobs(threads, 0.0, big), "input-bound": knobs(1, input_cost, small),
            "balanced": knobs(1, balanced_cost, big)}, bool(fitting)


def calibrate(measure_producer: Callable[[int, float], float], measure_step: Callable[[int], float],
              cores: int | None = None, corrections: int = 4) -> Calibration:
    """Measure, plan, then measure the balanced producer and correct its cost until it matches the step.

    `measure_producer(reader_threads, cost_ms)` returns ms per batch of the producer alone;
    `measure_step(hidden_units)` returns ms per training step.
    """
    if cores is None:
        cores = cores_now(usable_cores())  # 1 when another process keeps the other cores busy right now
    per_example = measure_producer(1, 0.0) / BATCH_SIZE
    floor = step_floor_ms(per_example)
    steps: dict[int, float] = {}
    unbalanced: list[int] = []
    candidates = iter(CANDIDATE_HIDDEN)
    remeasured = False
    while True:
        for hidden in candidates:  # grow the model until a step is slow enough, then stop measuring
            steps[hidden] = measure_step(hidden)
            if steps[hidden] >= floor:
                break
        if not remeasured:  # another process may have got busy while the steps were timed: the slower reading counts
            remeasured = True
            per_example = max(per_example, measure_producer(1, 0.0) / BATCH_SIZE)
            floor = step_floor_ms(per_example)
            if max(steps.values()) < floor:
                continue  # measure bigger models (none left: the loop above adds none, and this runs once)
        chosen, reachable = plan(per_example, steps, cores, unbalanced)
        balanced = chosen["balanced"]
        step = steps[balanced["hidden_units"]]
        ratio = measure_producer(1, balanced["producer_cost_ms"]) / step
        for _ in range(corrections):
            if BALANCE_BAND[0] <= ratio <= BALANCE_BAND[1]:
                break
            # The producer's time per batch is roughly batch * (overhead + cost): scale the cost toward the step.
            wanted = step / BATCH_SIZE
            overhead = ratio * step / BATCH_SIZE - balanced["producer_cost_ms"]
            balanced["producer_cost_ms"] = round(max(0.0, wanted - overhead), 3)
            ratio = measure_producer(1, balanced["producer_cost_ms"]) / step
        if BALANCE_BAND[0] <= ratio <= BALANCE_BAND[1] or not reachable:
            break
        unbalanced.append(balanced["hidden_units"])  # no cost balanced this step: try a bigger model
    return Calibration(per_example, steps, cores, chosen, ratio, reachable, unbalanced)


def measure_producer(files, reader_threads: int, cost_ms: float, batches: int = 9) -> float:
    """Time the TF1 training pipeline alone (no model): median ms per batch after the first batch."""
    from tutorial_lib import pipelines, tf1

    tf, v1 = tf1.tf, tf1.v1
    with tf.Graph().as_default():
        images, _ = pipelines.tf1_training_batches(files, BATCH_SIZE, reader_threads, BATCH_SIZE, cost_ms)
        config = v1.ConfigProto(inter_op_parallelism_threads=reader_threads + 2, use_per_session_threads=True)
        with tf1.session(config=config) as sess:
            sess.run(images)  # the first batch includes starting up
            return median_ms(lambda: sess.run(images), batches)


def measure_step(hidden_units: int, device: str, steps: int = 9) -> float:
    """Time one training step of notebook 05's model on a staged batch: median ms after a warm-up step."""
    import numpy as np

    from tutorial_lib import models, tf1

    tf = tf1.tf
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        images = tf.constant(rng.random((BATCH_SIZE, 784), dtype=np.float32))
        labels = tf.constant(rng.integers(0, 10, BATCH_SIZE))
        stage, train, _ = models.staged_mlp(images, labels, hidden_units, device)
        with tf1.session() as sess:
            sess.run(stage)
            sess.run(train)
            return median_ms(lambda: sess.run(train), steps)
