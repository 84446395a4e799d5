"""Checkers for notebook 05_live_dashboard: the verdict, keeping up without a parallel read, making a run
compute-bound."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tutorial_lib.exercises.core import TODO, Mismatch, Verdict, requirements, run_check

# --- Exercise 05.1: the verdict ---------------------------------------------------------------------------

VERDICTS = ("input-bound", "moderately input-bound", "compute-bound")


def _verdict_of(share: float, inclusive: bool = True) -> str:
    """The course's verdict for a wait share (thresholds 0.20 and 0.05, `>=` unless `inclusive` is false)."""
    if share >= 0.20 if inclusive else share > 0.20:
        return "input-bound"
    if share >= 0.05 if inclusive else share > 0.05:
        return "moderately input-bound"
    return "compute-bound"


# (wait_s, compute_s): runs of a few milliseconds to minutes, shares on both sides of each threshold and exactly at
# them (1/5 and 1/20 are the same doubles as 0.20 and 0.05), a run that never waits and one that only waits.
CLASSIFY_CASES = [(2.0, 8.0), (1.0, 9.0), (3.0, 7.0), (1.8, 8.2), (0.4, 9.6), (0.5, 9.5), (1.0, 4.0),
                  (2.2, 7.8), (0.7, 9.3),
                  (1.0, 19.0), (60.0, 240.0), (12.0, 288.0), (9.0, 291.0), (150.0, 150.0), (0.002, 0.006),
                  (0.0003, 0.0097), (0.0001, 0.0099), (45.0, 55.0), (0.0, 1.0), (0.0, 250.0), (3.0, 0.0)]


def _classify_explanations(wait: float, compute: float, got: Any) -> set[str]:
    """The known mistakes (requirement keys) that would give this wrong verdict."""
    if got is ZeroDivisionError:  # the run never computed: only dividing by the compute time fails here
        return {"whole_step"}
    if not isinstance(got, str) or got not in VERDICTS:
        return {"labels"}
    share = wait / (wait + compute)
    found = set()
    if compute > 0 and got in (_verdict_of(wait / compute), _verdict_of(wait / compute, inclusive=False)):
        found.add("whole_step")
    if got in (_verdict_of(wait), _verdict_of(wait, inclusive=False)):
        found.add("share_not_seconds")
    if got == _verdict_of(share, inclusive=False):
        found.add("inclusive")
    if share >= 0.20 and got == "moderately input-bound":
        found.add("most_first")
    return found


_CLASSIFY_HINTS = {
    "labels": "Return one of the three verdicts, spelled exactly as in the statement (a str).",
    "whole_step": "The share is wait / (wait + compute), of the whole step, not wait / compute.",
    "share_not_seconds": "The verdict depends on the share of the step spent waiting, not on the seconds: a run "
                         "ten times as long with the same share gets the same verdict.",
    "inclusive": "A share exactly at a threshold counts as the more input-bound verdict (>=).",
    "most_first": "A share of 20% or more is also over 5%: test the verdicts from the most input-bound down.",
    "thresholds": "Compare the share (a fraction of 1) with the profiler's thresholds: 20% and 5% of the step.",
}


@requirements(
    ("labels", "returns exactly one of the three verdict strings", "spelled exactly as in the statement"),
    ("whole_step", "takes the share of the whole step, wait / (wait + compute)", "wait / (wait + compute)"),
    ("share_not_seconds", "decides on the share, whatever the run's length (milliseconds or minutes)",
     "not on the seconds"),
    ("inclusive", "gives a share exactly at a threshold the more input-bound verdict", "(>=)"),
    ("most_first", "calls a share of 20% or more input-bound although it is also over 5%", "most input-bound down"),
    ("thresholds", "uses the profiler's thresholds, 20% and 5%, as fractions of the step",
     "the profiler's thresholds"),
)
def check_classify(classify: Callable[[float, float], str]) -> Verdict:
    """Exercise 05.1: the profiler's verdict from seconds waiting and computing."""
    def check() -> None:
        wrong = []
        for wait, compute in CLASSIFY_CASES:
            expected = _verdict_of(wait / (wait + compute))
            try:
                got = classify(wait, compute)
            except ZeroDivisionError:
                if compute or not wrong:  # no known mistake divides by zero here: let the crash be reported
                    raise
                got = ZeroDivisionError  # dividing by the compute time, on a run that never computed
            if got != expected:
                wrong.append((wait, compute, expected, got))
        if not wrong:
            return
        found = [_classify_explanations(wait, compute, got) for wait, compute, _, got in wrong]
        # the first known mistake that explains every wrong verdict; else the thresholds themselves
        key = next((k for k in _CLASSIFY_HINTS if all(k in f for f in found)), "thresholds")
        wait, compute, expected, got = wrong[0]
        raise Mismatch(f"{expected!r} for wait={wait}, compute={compute}", repr(got), _CLASSIFY_HINTS[key])
    return run_check("Exercise 1 (the verdict)", check)


# --- Exercise 05.3: compute-bound by the pipeline alone -------------------------------------------------------

KNOBS = ("reader_threads", "capacity", "producer_cost_ms", "batch_size", "hidden_units")
PRODUCER_COST_MS = 0.5  # the default; the notebook hands in a cost sized so that one reader thread is input-bound


def _whole(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1


@requirements(
    ("complete", "is a dict with every knob train_tf1 reads", "every knob train_tf1 reads"),
    ("same_model", "keeps the given model (hidden_units)", "only the pipeline"),
    ("batch", "keeps batch_size=64", "Keep the batch size"),
    ("cost", "keeps the given producer_cost_ms", "cost is given"),
    ("whole_counts", "gives reader_threads and capacity as positive whole numbers", "whole numbers"),
    ("capacity_holds_batch", "gives the batch queue room for at least one batch", "room for at least one batch"),
    ("compute_bound", "waits less than 5% of the step time when trained", "reader thread adds"),
)
def check_compute_bound_knobs(knobs: dict, train: Callable[[dict], Any], hidden_units: int = 2048,
                              batch_size: int = 64, producer_cost_ms: float = PRODUCER_COST_MS) -> Verdict:
    """Exercise 05.3: pipeline knobs that make the given model compute-bound despite a slow producer.

    `train(knobs)` returns a run with `wait_fraction()`: the notebook trains for real; tests pass a stand-in.
    """
    def check() -> None:
        if knobs is TODO:
            raise NotImplementedError
        if not isinstance(knobs, dict) or any(k not in knobs for k in KNOBS):
            missing = [k for k in KNOBS if k not in knobs] if isinstance(knobs, dict) else list(KNOBS)
            raise Mismatch(f"a dict with {', '.join(KNOBS)}", f"{type(knobs).__name__} missing {missing}",
                           "A knob dictionary holds every knob train_tf1 reads: start from one of the run's "
                           "dictionaries above.")
        if knobs["hidden_units"] != hidden_units:
            raise Mismatch(f"hidden_units={hidden_units}", str(knobs["hidden_units"]),
                           "Change only the pipeline, not the model.")
        if knobs["batch_size"] != batch_size or isinstance(knobs["batch_size"], bool):
            raise Mismatch(f"batch_size={batch_size}", str(knobs["batch_size"]),
                           "Keep the batch size: a bigger batch makes a longer step, which changes the model's work.")
        if knobs["producer_cost_ms"] != producer_cost_ms or isinstance(knobs["producer_cost_ms"], bool):
            raise Mismatch(f"producer_cost_ms={producer_cost_ms}", repr(knobs["producer_cost_ms"]),
                           "The producer's cost is given; work around it.")
        for name in ("reader_threads", "capacity"):
            if not _whole(knobs[name]):
                raise Mismatch(f"{name} a positive int", repr(knobs[name]),
                               "Threads and queue places come in whole numbers (a positive int).")
        if knobs["capacity"] < batch_size:
            raise Mismatch(f"capacity >= {batch_size}", str(knobs["capacity"]),
                           "The batch queue must have room for at least one batch, or its dequeue never completes.")
        wait = train(knobs).wait_fraction()
        if wait >= 0.05:
            raise Mismatch("less than 5% of step time waiting", f"{100 * wait:.1f}%",
                           "Each reader thread adds production rate; compare batch_size x cost with the step time.")
    return run_check("Exercise 3 (make it compute-bound)", check)


# --- Exercise 05.2: cache what is the same every epoch, prefetch what is not ----------------------------------
# A slow, deterministic `read` of each record (it serves one request at a time), a random `augment` of each batch,
# a training step of fixed cost. The epoch (264 records from record 1,000 on: 4 batches, so that reading it once,
# 264 x 7 ms, stays short) is not a multiple of the batch, so each epoch ends with 8 records that the naive pipeline
# drops, and it is not where the files start.
CACHE_RECORDS, CACHE_OFFSET, CACHE_BATCH_SIZE, CACHE_EPOCHS = 264, 1000, 64, 3
# The step is long next to the fixed cost of handing over a prefetched batch: on the 2-core test machine 3-5 ms a
# step, and 12 ms on average in some one-core runs under nbval, against 5% of an 80 ms step = 4 ms (the reference
# answer failed 1 run in 4 there with 80 ms, and some one-core runs with 200 ms). The timed run is the first epoch
# (it fills the cache; not counted) and one more. A batch's reads (64 x 7 ms = 448 ms) take longer than the step, so
# prefetching without the cache cannot keep up: one read at a time, only reading each record once can.
READ_MS, AUGMENT_MS, STEP_MS = 7.0, 25.0, 400.0
TIMED_EPOCHS = 2
_BATCHES_PER_EPOCH = CACHE_RECORDS // CACHE_BATCH_SIZE
# How long the prefetch check waits, after handing out a batch, for the pipeline to start augmenting the next one
# on its own: a pipeline that runs ahead starts within milliseconds; one that does not never starts.
PREFETCH_WAIT_S = 3.0


class _ReadCounter:
    """Counts the calls of one of the checker's slow stages, and how many ran at the same time."""

    def __init__(self, cost_ms: float = READ_MS) -> None:
        self.cost_ms = cost_ms
        self.calls = self.active = self.peak = 0
        self._lock = threading.Lock()

    def slow(self, value: Any) -> Any:
        """Wait `cost_ms` like a slow stage and pass the value through, counting the call."""
        with self._lock:
            self.calls += 1
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            time.sleep(self.cost_ms / 1000.0)
        finally:
            with self._lock:
                self.active -= 1
        return value


def _records(count: int, offset: int) -> Any:
    import tensorflow as tf

    from tutorial_lib import datasets

    files = [str(f) for f in datasets.digit_files("bin", "train")]
    return tf.data.FixedLengthRecordDataset(files, datasets.record_bytes()).skip(offset).take(count)


def cache_stages(counter: _ReadCounter, augments: _ReadCounter | None = None) -> tuple[Any, Callable, Callable]:
    """Return (records, read, augment): one epoch of digit records and the exercise's two map functions."""
    import tensorflow as tf

    from tutorial_lib import pipelines

    augments = augments or _ReadCounter(AUGMENT_MS)

    def read(record: Any) -> tuple[Any, Any]:
        image, label = pipelines.flat_image(record)
        return tf.reshape(tf.py_function(counter.slow, [image], tf.float32), [784]), label

    def augment(images: Any, labels: Any) -> tuple[Any, Any]:
        images = tf.reshape(tf.py_function(augments.slow, [images], tf.float32), [-1, 784])
        noisy = images + tf.random.normal(tf.shape(images), stddev=0.05)
        return tf.clip_by_value(noisy, 0.0, 1.0), labels

    return _records(CACHE_RECORDS, CACHE_OFFSET), read, augment


def _clean_batches(records: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return one epoch of the exercise's batches without the slow read's wait and without augmentation."""
    from tutorial_lib import pipelines

    batches = records.map(pipelines.flat_image).batch(CACHE_BATCH_SIZE, drop_remainder=True)
    return [(x.numpy(), y.numpy()) for x, y in batches]


def _all_labels(records: Any) -> np.ndarray:
    from tutorial_lib import pipelines

    return np.array([int(y) for _, y in records.map(pipelines.flat_image)])


def _in_order_within(part: np.ndarray, whole: np.ndarray) -> bool:
    """Whether `part` is `whole` with some items left out, the rest in their order."""
    remaining = iter(whole.tolist())
    return all(item in remaining for item in part.tolist())


def _within(part: np.ndarray, whole: np.ndarray) -> bool:
    """Whether every item of `part` is in `whole` (as many times), in any order."""
    from collections import Counter

    return not Counter(part.tolist()) - Counter(whole.tolist())


def _compare_epochs(got: list, clean: list, records: Any) -> None:
    """Raise Mismatch unless every epoch holds the clean batches' examples, in order, freshly augmented."""
    per_epoch = len(clean)
    if len(got) < CACHE_EPOCHS * per_epoch + 1:
        raise Mismatch(f"an endless dataset (more than {CACHE_EPOCHS} epochs)", f"{len(got)} batches",
                       "Training takes as many batches as it needs: keep the naive pipeline's repeat().")
    for k, (x, y) in enumerate(got):
        want_x, want_y = clean[k % per_epoch]
        where = f"batch {k % per_epoch} of epoch {k // per_epoch + 1}: "
        if x.shape != want_x.shape or y.shape != want_y.shape or x.dtype != want_x.dtype or y.dtype != want_y.dtype:
            raise Mismatch(f"{where}{want_x.dtype} {want_x.shape} images, {want_y.dtype} {want_y.shape} labels",
                           f"{x.dtype} {x.shape}, {y.dtype} {y.shape}",
                           "Keep the stages and the batch size of the naive pipeline: only how they run changes.")
        if np.array_equal(y, want_y):
            continue
        epoch = k // per_epoch
        got_labels = np.concatenate([b[1] for b in got[epoch * per_epoch:(epoch + 1) * per_epoch]])
        want_labels = np.concatenate([b[1] for b in clean])
        stream = np.concatenate([b[1] for b in got])
        every = _all_labels(records)
        endless = np.tile(every, len(stream) // len(every) + 1)[:len(stream)]
        if np.array_equal(stream, endless):
            raise Mismatch(f"{where}the naive pipeline's examples", "a batch mixing the end of one epoch with the "
                           "start of the next",
                           "A batch must not mix two epochs: every epoch is the naive pipeline's batches, and the "
                           "records left over at its end are dropped. Keep the order of its stages.")
        own = _clean_batches(_records(CACHE_RECORDS, 0))
        if np.array_equal(got[0][1], own[0][1]) and not np.array_equal(own[0][1], clean[0][1]):
            raise Mismatch("batches of the records the checker handed in", "the first records of the files",
                           "Build the pipeline on the records you are given, not on a dataset of your own.")
        if _in_order_within(got_labels, every):
            raise Mismatch(f"{where}the naive pipeline's examples", "an epoch with records missing",
                           "Keeping up must not change the data: every record once per epoch, nothing skipped, "
                           "taken or dropped.")
        if sorted(got_labels.tolist()) == sorted(want_labels.tolist()) or _within(got_labels, every):
            raise Mismatch(f"{where}the naive pipeline's examples in its order",
                           "the same examples in another order",
                           "Keeping up must not change the data: the order must stay the naive pipeline's, "
                           "so nothing may shuffle.")
        raise Mismatch(f"{where}the naive pipeline's examples", "different examples",
                       "Keeping up must not change the data: every record once per epoch, nothing skipped, "
                       "taken or dropped.")
    for k, (x, _) in enumerate(got):
        want_x = clean[k % per_epoch][0]
        where = f"batch {k % per_epoch} of epoch {k // per_epoch + 1}: "
        if np.array_equal(x, want_x) or np.abs(x - want_x).mean() > 0.1:
            raise Mismatch(f"{where}the images with the given augmentation", "images without it" if
                           np.array_equal(x, want_x) else "other images",
                           "The random augmentation is part of the data: map the augment you are given over every "
                           "batch.")
    for k in range(per_epoch):
        if np.array_equal(got[k][0], got[k + per_epoch][0]):
            raise Mismatch(f"batch {k} augmented afresh in epoch 2", "the same augmented images as in epoch 1",
                           "The augmentation is random: keeping its result makes every epoch identical. Keep only "
                           "what is the same every epoch.")


def _runs_ahead(dataset: Any, augments: _ReadCounter) -> bool:
    """Whether, after handing out a batch, the pipeline starts augmenting the next one while nobody asks for it."""
    iterator = iter(dataset)
    next(iterator)
    before = augments.calls
    deadline = time.monotonic() + PREFETCH_WAIT_S
    while time.monotonic() < deadline:
        if augments.calls > before or augments.active:
            return True
        time.sleep(0.005)
    return False


def _timed_wait(dataset: Any) -> float:
    """Train for TIMED_EPOCHS epochs with a STEP_MS step; return the wait share after epoch 1."""
    from tutorial_lib import monitor

    watcher = monitor.Monitor([], warmup_steps=_BATCHES_PER_EPOCH, gpu=None)  # epoch 1 fills the cache
    iterator = iter(dataset)
    for _ in range(TIMED_EPOCHS * _BATCHES_PER_EPOCH):
        watcher.timed_step(lambda: next(iterator), lambda _: time.sleep(STEP_MS / 1000.0), CACHE_BATCH_SIZE)
    return watcher.wait_fraction()


@requirements(
    ("dataset", "returns a tf.data.Dataset", "Return the dataset itself"),
    ("endless", "repeats without end, as the naive pipeline does", "keep the naive pipeline's repeat()"),
    ("uses_read", "reads every record with the read it is given", "map it over the records"),
    ("one_read", "never runs two reads at once", "serves one request at a time"),
    ("records_given", "builds on the records it is given", "the records you are given"),
    ("batches", "keeps the naive pipeline's full batches of batch_size, dtypes and shapes",
     "batch size of the naive pipeline"),
    ("order", "keeps the naive pipeline's order", "so nothing may shuffle"),
    ("every_record", "delivers every record of the epoch, nothing skipped", "nothing skipped, taken or dropped"),
    ("epochs", "never mixes two epochs in a batch (the leftover records are dropped)", "must not mix two epochs"),
    ("augment", "augments every batch with the augment it is given", "The random augmentation is part of the data"),
    ("fresh_augment", "augments afresh every epoch", "The augmentation is random"),
    ("read_once", "reads each record once, in the first epoch only", "Which stage could run once and be kept?"),
    ("prefetch", "makes the next batch while the step computes", "nothing makes the next batch while the step"),
    ("keeps_up", f"waits less than 5% of a {STEP_MS:.0f} ms step after the first epoch", "ready when the step asks"),
)
def check_keep_up(build: Callable[[Any, int, Callable, Callable], Any],
                  measure: Callable[[Any], float] | None = None, read_ms: float = READ_MS) -> Verdict:
    """Exercise 05.2: a pipeline with a slow sequential read and a random augmentation that keeps up with the step.

    `measure(dataset)` returns the wait share after epoch 1: by default the checker trains 2 epochs with the
    course's Monitor; tests pass a stand-in so that their outcome never depends on timing, and with it a shorter
    `read_ms` (only the timed run needs the read's real cost) so that they run quickly.
    """
    import tensorflow as tf

    from tutorial_lib.monitor import MODERATELY_INPUT_BOUND

    if measure is None and read_ms != READ_MS:
        raise ValueError(f"the timed run needs the exercise's read of {READ_MS} ms, not {read_ms}")

    def check() -> None:
        counter, augments = _ReadCounter(read_ms), _ReadCounter(AUGMENT_MS)
        records, read, augment = cache_stages(counter, augments)
        dataset = build(records, CACHE_BATCH_SIZE, read, augment)
        if not isinstance(dataset, tf.data.Dataset):
            raise Mismatch("a tf.data.Dataset", type(dataset).__name__,
                           "Return the dataset itself; the checker makes its own iterator.")
        got = [(x.numpy(), y.numpy()) for x, y in dataset.take(CACHE_EPOCHS * _BATCHES_PER_EPOCH + 1)]
        if counter.calls == 0:
            raise Mismatch("every record read with `read`", "no call to read",
                           "The slow read is part of the task: map it over the records.")
        if counter.peak > 1:
            raise Mismatch("one read at a time", f"{counter.peak} reads at once",
                           "The read serves one request at a time (running it in parallel is notebook 06's "
                           "exercise): make it run fewer times instead.")
        if augments.calls == 0:
            raise Mismatch("every batch augmented with `augment`", "no call to augment",
                           "The random augmentation is part of the data: map the augment you are given over every "
                           "batch.")
        _compare_epochs(got, _clean_batches(records), records)
        if counter.calls > CACHE_RECORDS:
            raise Mismatch(f"each of the {CACHE_RECORDS} records read once", f"{counter.calls} reads in "
                           f"{CACHE_EPOCHS} epochs",
                           "Every epoch reads every record again, and its result is the same each time: a batch "
                           "still takes batch_size x the read. Which stage could run once and be kept?")
        if not _runs_ahead(dataset, augments):
            raise Mismatch("the next batch made while the step computes",
                           f"no augmentation started in {PREFETCH_WAIT_S:.0f} s after a batch was handed out",
                           "The reads are done once, but nothing makes the next batch while the step computes: the "
                           "augmentation of each batch still runs while the step waits.")
        wait = _timed_wait(dataset) if measure is None else measure(dataset)
        if wait >= MODERATELY_INPUT_BOUND:
            raise Mismatch(f"under {100 * MODERATELY_INPUT_BOUND:.0f}% of step time waiting (compute-bound)",
                           f"{100 * wait:.0f}% of step time waiting after epoch 1",
                           "The step still waits: after the first epoch a batch must be ready when the step asks "
                           "for it. Compare what one batch costs to make with the step time.")
    return run_check("Exercise 2 (keep up without a parallel read)", check)
