"""Answers for the exercises of 05_live_dashboard: the mutation tables (tutorial_lib.exercises.mutation): RIGHT,
MUTANTS and REJECTED.

The checkers of exercises 2 and 3 measure time in the notebook; here they get stand-ins (`measure`, `train`) so
that no row's outcome depends on timing.
"""

from __future__ import annotations

import functools
from typing import Any

from tutorial_lib import datasets, pipelines
from tutorial_lib import exercises as ex
from tutorial_lib.exercises import live_dashboard
from tutorial_lib.tf1 import tf

# --- 05.1: the verdict ------------------------------------------------------------------------------------------


def classify_reference(wait_s: float, compute_s: float) -> str:
    """The notebook's solution cell."""
    share = wait_s / (wait_s + compute_s)
    if share >= 0.20:
        return "input-bound"
    if share >= 0.05:
        return "moderately input-bound"
    return "compute-bound"


def classify_percent_table(wait_s: float, compute_s: float) -> str:
    """Right, written differently: the percentage, and the thresholds in a table."""
    percent = 100 * wait_s / (wait_s + compute_s)
    for threshold, name in [(20, "input-bound"), (5, "moderately input-bound")]:
        if percent >= threshold - 1e-9:
            return name
    return "compute-bound"


def classify_share_of_compute(wait_s: float, compute_s: float) -> str:
    """Wrong: the share is taken of the compute time only."""
    return "input-bound" if wait_s / compute_s >= 0.2 else "moderately input-bound" if wait_s / compute_s >= 0.05 \
        else "compute-bound"


def classify_strict(wait_s: float, compute_s: float) -> str:
    """Wrong: thresholds are exclusive."""
    share = wait_s / (wait_s + compute_s)
    return "input-bound" if share > 0.2 else "moderately input-bound" if share > 0.05 else "compute-bound"


def classify_seconds(wait_s: float, compute_s: float) -> str:
    """Wrong: compares the seconds waited with the thresholds (right on a one-second run only)."""
    if wait_s >= 0.20:
        return "input-bound"
    if wait_s >= 0.05:
        return "moderately input-bound"
    return "compute-bound"


def classify_moderate_first(wait_s: float, compute_s: float) -> str:
    """Wrong: tests the 5% threshold first, so nothing is ever input-bound."""
    share = wait_s / (wait_s + compute_s)
    if share >= 0.05:
        return "moderately input-bound"
    if share >= 0.20:
        return "input-bound"
    return "compute-bound"


def classify_percent_vs_fraction(wait_s: float, compute_s: float) -> str:
    """Wrong: a percentage compared with the thresholds written as fractions."""
    percent = 100 * wait_s / (wait_s + compute_s)
    if percent >= 0.20:
        return "input-bound"
    if percent >= 0.05:
        return "moderately input-bound"
    return "compute-bound"


def classify_other_thresholds(wait_s: float, compute_s: float) -> str:
    """Wrong: thresholds of 25% and 10%."""
    share = wait_s / (wait_s + compute_s)
    return "input-bound" if share >= 0.25 else "moderately input-bound" if share >= 0.10 else "compute-bound"


def classify_short_labels(wait_s: float, compute_s: float) -> str:
    """Wrong: its own names for the verdicts."""
    share = wait_s / (wait_s + compute_s)
    return "input bound" if share >= 0.2 else "moderate" if share >= 0.05 else "compute bound"


def classify_typical_mistake(wait_s: float, compute_s: float) -> str:
    """nbgrader_course.TYPICAL_MISTAKES['05_live_dashboard']['classify'], verbatim."""
    share = wait_s / compute_s
    if share >= 0.20:
        return 'input-bound'
    if share >= 0.05:
        return 'moderately input-bound'
    return 'compute-bound'


# --- 05.2: keep up without a parallel read ----------------------------------------------------------------------

def naive_options() -> Any:
    """The options of the exercise's naive pipeline: nothing runs ahead of the step."""
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    options.experimental_optimization.map_and_batch_fusion = False
    options.autotune.enabled = False
    return options


def build_reference(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """The notebook's solution cell."""
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    options.experimental_optimization.map_and_batch_fusion = False
    options.autotune.enabled = False
    dataset = records.map(read).cache()  # read once; later epochs come from memory
    dataset = dataset.batch(batch_size, drop_remainder=True).map(augment)  # augmented afresh every epoch
    return dataset.repeat().prefetch(2).with_options(options)  # the next batch is made during the step


def reference(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Read once (cache), augment afresh every epoch, make the next batch during the step (prefetch)."""
    dataset = records.map(read).cache().batch(batch_size, drop_remainder=True).map(augment)
    return dataset.repeat().prefetch(2).with_options(naive_options())


def cache_batches_parallel_augment(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Right, written differently: the batches cached, the augmentation run ahead by a parallel map, no options."""
    dataset = records.map(read).batch(batch_size, drop_remainder=True).cache()
    return dataset.repeat().map(augment, num_parallel_calls=2)


def naive(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """The naive pipeline: every epoch reads every record again."""
    dataset = records.map(read).batch(batch_size, drop_remainder=True).map(augment)
    return dataset.repeat().with_options(naive_options())


def prefetch_only(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Prefetch without cache: still one slow read per example per epoch."""
    return naive(records, batch_size, read, augment).prefetch(4)


def no_prefetch(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Cache without prefetch (the naive options kept): the augmentation runs while the step waits."""
    dataset = records.map(read).cache().batch(batch_size, drop_remainder=True).map(augment)
    return dataset.repeat().with_options(naive_options())


def prefetch_before_augment(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Cached, but the prefetch sits before the augmentation: the 25 ms still run while the step waits."""
    dataset = records.map(read).cache().batch(batch_size, drop_remainder=True).prefetch(2).map(augment)
    return dataset.repeat().with_options(naive_options())


def cached_augmentation(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Cache after the random augmentation: every epoch identical."""
    dataset = records.map(read).batch(batch_size, drop_remainder=True).map(augment).cache()
    return dataset.repeat().prefetch(2).with_options(naive_options())


def parallel_read(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Notebook 06's fix: the read in parallel, which this exercise forbids."""
    dataset = records.map(read, num_parallel_calls=8).batch(batch_size, drop_remainder=True).map(augment)
    return dataset.repeat().prefetch(2).with_options(naive_options())


def shuffled(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Cached and prefetched, but shuffled: the order changed."""
    dataset = records.map(read).cache().shuffle(512, seed=0).batch(batch_size, drop_remainder=True).map(augment)
    return dataset.repeat().prefetch(2).with_options(naive_options())


def skipped(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Cached and prefetched, but one record skipped: the data changed."""
    return reference(records.skip(1), batch_size, read, augment)


def not_augmented(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Cached and prefetched, augmentation dropped."""
    dataset = records.map(read).cache().batch(batch_size, drop_remainder=True)
    return dataset.repeat().prefetch(2).with_options(naive_options())


def own_noise(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Ignores the augment handed in: adds noise of its own (no 25 ms, so it looks fast)."""
    def noisy(images: Any, labels: Any) -> Any:
        return tf.clip_by_value(images + tf.random.normal(tf.shape(images), stddev=0.05), 0.0, 1.0), labels
    dataset = records.map(read).cache().batch(batch_size, drop_remainder=True).map(noisy)
    return dataset.repeat().prefetch(2).with_options(naive_options())


def decodes_itself(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Ignores the slow read: decodes the records with pipelines.flat_image."""
    dataset = records.map(pipelines.flat_image).cache().batch(batch_size, drop_remainder=True).map(augment)
    return dataset.repeat().prefetch(2).with_options(naive_options())


def own_records(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Ignores the records handed in: reads the first CACHE_RECORDS records of the digit files."""
    files = [str(f) for f in datasets.digit_files("bin", "train")]
    mine = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes()).take(live_dashboard.CACHE_RECORDS)
    return reference(mine, batch_size, read, augment)


def keeps_partial_batch(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Batches without drop_remainder: each epoch ends with a batch of 8."""
    dataset = records.map(read).cache().batch(batch_size).map(augment)
    return dataset.repeat().prefetch(2).with_options(naive_options())


def repeat_before_batch(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Repeats the cached records before batching: batches run across the end of an epoch."""
    dataset = records.map(read).cache().repeat().batch(batch_size, drop_remainder=True).map(augment)
    return dataset.prefetch(2).with_options(naive_options())


def three_epochs(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """repeat(3): enough for the timed run, not for training."""
    dataset = records.map(read).cache().batch(batch_size, drop_remainder=True).map(augment)
    return dataset.repeat(3).prefetch(2).with_options(naive_options())


def as_iterator(records: Any, batch_size: int, read: Any, augment: Any) -> Any:
    """Returns an iterator over the right dataset."""
    return iter(reference(records, batch_size, read, augment))


def waits_fast(dataset: Any) -> float:
    """A stand-in for the timed run: 1% of the step time waiting."""
    return 0.01


def waits_slow(dataset: Any) -> float:
    """A stand-in for the timed run on a pipeline that does not keep up: 30% waiting."""
    return 0.30


# The stand-ins replace the timed run, so the read may be quicker than the exercise's (only the timing needs it).
check_keep_up_fast = functools.partial(ex.check_keep_up, measure=waits_fast, read_ms=1.0)
check_keep_up_slow = functools.partial(ex.check_keep_up, measure=waits_slow, read_ms=1.0)


# --- 05.3: compute-bound by the pipeline alone ------------------------------------------------------------------

class SimulatedRun:
    """What `train(knobs)` returns in notebook 05, reduced to its wait fraction."""

    def __init__(self, fraction: float):
        self.fraction = fraction

    def wait_fraction(self) -> float:
        """The share of step time spent waiting for input."""
        return self.fraction


def simulated_train(knobs: dict) -> SimulatedRun:
    """Producer time per batch against a 20 ms step."""
    producer_ms = knobs["batch_size"] * knobs["producer_cost_ms"] / knobs["reader_threads"]
    return SimulatedRun((producer_ms - 20.0) / producer_ms if producer_ms > 20 else 0.01)


check_knobs = functools.partial(ex.check_compute_bound_knobs, train=simulated_train)
BIG = 2048  # COMPUTE_BOUND["hidden_units"] in the notebook; the checker's default
GOOD_KNOBS = dict(reader_threads=8, producer_cost_ms=0.5, batch_size=64, capacity=512, hidden_units=BIG)
compute_bound_knobs = dict(reader_threads=8, producer_cost_ms=0.5, batch_size=64, capacity=512,
                           hidden_units=BIG)  # the notebook's solution cell, COMPUTE_BOUND["hidden_units"] = BIG
COMPUTE_BOUND = dict(reader_threads=1, producer_cost_ms=0.1, batch_size=64, capacity=256, hidden_units=BIG)



# --- the mutation tables ----------------------------------------------------------------------------------------

RIGHT = [
    (ex.check_classify, classify_reference, "the notebook's solution"),
    (ex.check_classify, classify_percent_table, "in percent, thresholds in a table"),
    (check_keep_up_fast, build_reference, "the notebook's solution"),
    (check_keep_up_fast, cache_batches_parallel_augment, "batches cached, augmentation in a parallel map"),
    (check_knobs, compute_bound_knobs, "the notebook's solution"),
    (check_knobs, dict(COMPUTE_BOUND, reader_threads=4, producer_cost_ms=0.5, capacity=1024),
     "COMPUTE_BOUND with more threads and the given cost"),
    (check_knobs, {"hidden_units": BIG, "batch_size": 64, "producer_cost_ms": 0.5, "reader_threads": 16,
                   "capacity": 64}, "many threads, a queue of one batch"),
]

MUTANTS = [
    (ex.check_classify, classify_short_labels, "labels", "its own names for the verdicts"),
    (ex.check_classify, classify_share_of_compute, "whole_step", "wait / compute"),
    (ex.check_classify, classify_typical_mistake, "whole_step", "nbgrader's typical mistake"),
    (ex.check_classify, classify_seconds, "share_not_seconds", "the seconds compared with the thresholds"),
    (ex.check_classify, classify_strict, "inclusive", "thresholds exclusive"),
    (ex.check_classify, classify_moderate_first, "most_first", "the 5% threshold tested first"),
    (ex.check_classify, classify_percent_vs_fraction, "thresholds", "a percentage against fractions"),
    (ex.check_classify, classify_other_thresholds, "thresholds", "25% and 10%"),
    (check_keep_up_fast, as_iterator, "dataset", "an iterator"),
    (check_keep_up_fast, three_epochs, "endless", "repeat(3)"),
    (check_keep_up_fast, decodes_itself, "uses_read", "the read handed in ignored"),
    (check_keep_up_fast, parallel_read, "one_read", "the read in parallel"),
    (check_keep_up_fast, own_records, "records_given", "its own records"),
    (check_keep_up_fast, keeps_partial_batch, "batches", "no drop_remainder"),
    (check_keep_up_fast, shuffled, "order", "shuffled"),
    (check_keep_up_fast, skipped, "every_record", "one record skipped"),
    (check_keep_up_fast, repeat_before_batch, "epochs", "repeat before batch"),
    (check_keep_up_fast, not_augmented, "augment", "no augmentation"),
    (check_keep_up_fast, own_noise, "augment", "its own noise instead of augment"),
    (check_keep_up_fast, cached_augmentation, "fresh_augment", "cache after the augmentation"),
    (check_keep_up_fast, naive, "read_once", "the naive pipeline"),
    (check_keep_up_fast, prefetch_only, "read_once", "prefetch without cache"),
    (check_keep_up_fast, no_prefetch, "prefetch", "cache without prefetch"),
    (check_keep_up_fast, prefetch_before_augment, "prefetch", "prefetch before the augmentation"),
    (check_keep_up_slow, reference, "keeps_up", "cached and prefetched, yet the timed run waits 30%"),
    (check_knobs, {k: v for k, v in GOOD_KNOBS.items() if k != "capacity"}, "complete", "no capacity"),
    (check_knobs, [8, 0.5, 64, 512, BIG], "complete", "a list, not a dict"),
    (check_knobs, {**GOOD_KNOBS, "hidden_units": 8192}, "same_model", "a bigger model"),
    (check_knobs, {**GOOD_KNOBS, "hidden_units": 4096}, "same_model", "another model"),
    (check_knobs, {**GOOD_KNOBS, "batch_size": 256}, "batch", "a bigger batch"),
    (check_knobs, {**GOOD_KNOBS, "producer_cost_ms": 0.0}, "cost", "the cost removed"),
    (check_knobs, {**GOOD_KNOBS, "producer_cost_ms": 0.05}, "cost", "a cheaper producer"),
    (check_knobs, {**GOOD_KNOBS, "reader_threads": 8.0}, "whole_counts", "a float thread count"),
    (check_knobs, {**GOOD_KNOBS, "capacity": 32}, "capacity_holds_batch", "a queue smaller than a batch"),
    (check_knobs, {**GOOD_KNOBS, "reader_threads": 1}, "compute_bound", "one reader thread"),
]

REJECTED = [
    (ex.check_classify, ex.TODO, "not done yet"),
    (check_keep_up_fast, ex.TODO, "not done yet"),
    (check_knobs, ex.TODO, "not done yet"),
]
