"""Answers for the exercises of 07a_validate_in_one_session and 07b_validate_in_another_process (the two parts of
notebook 07): the mutation tables (tutorial_lib.exercises.mutation): RIGHT,
MUTANTS and REJECTED."""

from __future__ import annotations

import glob
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from tutorial_lib import exercises as ex
from tutorial_lib import tf1
from tutorial_lib.classroom.nbgrader_course import TYPICAL_MISTAKES, typical_answer
from tutorial_lib.tf1 import tf, v1


def typical(name: str) -> Callable:
    """The nbgrader edition's typical wrong answer for this notebook's exercise `name`, run from its source."""
    assignment = next(a for a in TYPICAL_MISTAKES if a.startswith("07") and name in TYPICAL_MISTAKES[a])
    return typical_answer(assignment, name, np=np, tf=tf, v1=v1, tf1=tf1)


def read_to_end(sess: Any, fetch: Any) -> list:
    """Run `fetch` until OutOfRangeError; return every value (as tests/test_exercises.py's helper)."""
    values = []
    try:
        while True:
            values.append(sess.run(fetch))
    except tf.errors.OutOfRangeError:
        return values


# --- Exercise 1: batches in a pass ------------------------------------------------------------------------------

def batches_in_pass_reference(n, batch_size):
    return (n + batch_size - 1) // batch_size


def batches_in_pass_remainder_test(n, batch_size):
    return n // batch_size + (1 if n % batch_size else 0)


def batches_in_pass_range(n, batch_size):
    return len(range(0, n, batch_size))


def batches_in_pass_almost_one(n, batch_size):
    """Wrong: rounds up by adding almost one, which misses one example left over in a huge batch."""
    return int(n / batch_size + 0.999)


def batches_in_pass_plus_one(n, batch_size):
    """Wrong: always one more batch for the remainder, even when there is none."""
    return int(n / batch_size) + 1


def batches_in_pass_at_least_one(n, batch_size):
    """Wrong: a pass always has a batch."""
    return max(1, math.ceil(n / batch_size))


def batches_in_pass_do_while(n, batch_size):
    """Wrong: counts a batch before looking whether any example is left."""
    batches, done = 0, 0
    while True:
        batches += 1
        done += batch_size
        if done >= n:
            return batches


def batches_in_pass_sixteen(n, batch_size):
    """Wrong: the batch size of the statement's examples, fixed."""
    return (n + 15) // 16


def batches_in_pass_np_ceil(n, batch_size):
    """Wrong: np.ceil gives a float."""
    return np.ceil(n / batch_size)


def batches_in_pass_float_division(n, batch_size):
    """Wrong: math.ceil of a float, kept a float."""
    return float(math.ceil(n / batch_size))


# --- Exercise 2: a repeatable validation pass -----------------------------------------------------------------

def validation_pass_reference(sess, initializer, ids):
    sess.run(initializer)
    batches = []
    try:
        while True:
            batches.append(sess.run(ids))
    except tf.errors.OutOfRangeError:
        return batches


def validation_pass_drain(sess, initializer, ids):
    sess.run(initializer)
    return tf1.drain(ids, sess)


def validation_pass_flag(sess, initializer, ids):
    sess.run(initializer)
    batches, more = [], True
    while more:
        try:
            batches.append(ids.eval(session=sess))
        except v1.errors.OutOfRangeError:
            more = False
    return batches


class InitializesOnce:
    """Wrong: runs each iterator's initializer on its first pass only (from tests/test_exercises.py)."""

    def __init__(self):
        self.initialized: set = set()

    def __call__(self, sess: Any, initializer: Any, ids: Any) -> list:
        if initializer not in self.initialized:
            sess.run(initializer)
            self.initialized.add(initializer)
        return read_to_end(sess, ids)


def validation_pass_init_at_end(sess, initializer, ids):
    """Wrong: reads, then initializes to leave the iterator ready for the next pass."""
    batches = read_to_end(sess, ids)
    sess.run(initializer)
    return batches


def validation_pass_init_if_needed(sess, initializer, ids):
    """Wrong: initializes only when the iterator complains that it is not initialized."""
    try:
        batches = [sess.run(ids)]
    except tf.errors.FailedPreconditionError:
        sess.run(initializer)
        batches = []
    return batches + read_to_end(sess, ids)


def validation_pass_local_initializer(sess, initializer, ids):
    """Wrong: resets with an initializer of its own instead of the one handed in."""
    sess.run(v1.local_variables_initializer())
    return read_to_end(sess, ids)


def validation_pass_fixed_steps(sess, initializer, ids):
    """Wrong: reads a fixed number of batches (from tests/test_exercises.py)."""
    sess.run(initializer)
    return [sess.run(ids) for _ in range(2)]


def validation_pass_uncaught(sess, initializer, ids):
    """Wrong: lets OutOfRangeError out."""
    sess.run(initializer)
    batches = []
    while True:
        batches.append(sess.run(ids))
    return batches


def validation_pass_do_while(sess, initializer, ids):
    """Wrong: reads the first batch before the loop, so an empty pass raises."""
    sess.run(initializer)
    batches = [sess.run(ids)]
    try:
        while True:
            batches.append(sess.run(ids))
    except tf.errors.OutOfRangeError:
        return batches


def validation_pass_init_every_batch(sess, initializer, ids):
    """Wrong: runs the initializer before every batch (the pass starts again each time and never ends)."""
    batches = []
    try:
        while True:
            sess.run(initializer)
            batches.append(sess.run(ids))
    except tf.errors.OutOfRangeError:
        return batches


def validation_pass_own_session(sess, initializer, ids):
    """Wrong: opens a session of its own (its variables are not the trained ones)."""
    with tf1.session() as own:
        own.run(initializer)
        return tf1.drain(ids, own)


def validation_pass_plain_session(sess, initializer, ids):
    """Wrong: a plain new Session (its variables are not even initialized)."""
    with v1.Session() as own:
        own.run(initializer)
        return read_to_end(own, ids)


def validation_pass_flat(sess, initializer, ids):
    """Wrong: one flat list of ids instead of one array per batch."""
    sess.run(initializer)
    return [int(i) for batch in read_to_end(sess, ids) for i in batch]


def validation_pass_concatenated(sess, initializer, ids):
    """Wrong: one array for the whole pass."""
    sess.run(initializer)
    batches = read_to_end(sess, ids)
    return np.concatenate(batches) if batches else []


def validation_pass_lists(sess, initializer, ids):
    """Wrong: each batch turned into a Python list."""
    sess.run(initializer)
    return [batch.tolist() for batch in read_to_end(sess, ids)]


def validation_pass_int32(sess, initializer, ids):
    """Wrong: each batch cast to int32."""
    sess.run(initializer)
    return [batch.astype(np.int32) for batch in read_to_end(sess, ids)]


def validation_pass_reshape(sess, initializer, ids):
    """Wrong: builds a reshape op for every batch ("to be sure it is flat")."""
    sess.run(initializer)
    batches = []
    try:
        while True:
            batches.append(sess.run(tf.reshape(ids, [-1])))
    except tf.errors.OutOfRangeError:
        return batches


def validation_pass_identity_once(sess, initializer, ids):
    """Wrong: builds its fetch anew on every call (once per pass, but every pass adds to the graph)."""
    fetch = tf.identity(ids)
    sess.run(initializer)
    return read_to_end(sess, fetch)


# --- Exercise 3: accuracy over a pass -------------------------------------------------------------------------

def accuracy_over_reference(dataset):
    correct = total = 0
    for predictions, labels in dataset:
        correct += int(tf.reduce_sum(tf.cast(predictions == labels, tf.int32)))
        total += int(tf.size(labels))
    return correct / total


def accuracy_over_numpy(dataset: Any) -> float:
    """Correct predictions over all examples, counted with NumPy (from tests/test_exercises.py)."""
    right = total = 0
    for predictions, labels in dataset:
        right += int((predictions.numpy() == labels.numpy()).sum())
        total += len(labels)
    return right / total


def accuracy_over_reduce(dataset):
    def add(counts, batch):
        predictions, labels = batch
        right = tf.reduce_sum(tf.cast(tf.equal(predictions, labels), tf.int64))
        return counts[0] + right, counts[1] + tf.size(labels, out_type=tf.int64)
    right, total = dataset.reduce((tf.constant(0, tf.int64), tf.constant(0, tf.int64)), add)
    return float(right) / float(total)


def accuracy_over_concat(dataset):
    pairs = list(dataset)
    predictions = tf.concat([p for p, _ in pairs], 0)
    labels = tf.concat([y for _, y in pairs], 0)
    return tf.reduce_mean(tf.cast(predictions == labels, tf.float64))


def accuracy_mean_of_batches(dataset: Any) -> float:
    """Wrong: the mean of batch accuracies (from tests/test_exercises.py)."""
    return np.mean([(p.numpy() == lb.numpy()).mean() for p, lb in dataset])


def accuracy_over_full_batches(dataset):
    """Wrong: counts every batch as big as the first."""
    correct, batch_size = 0, None
    for predictions, labels in dataset:
        batch_size = batch_size or len(labels)
        correct += int(np.sum(predictions.numpy() == labels.numpy()))
    return correct / (int(dataset.cardinality()) * batch_size)


def accuracy_over_integer_mean(dataset):
    """Wrong: the mean of an int32 tensor is rounded down."""
    pairs = list(dataset)
    right = tf.cast(tf.concat([p for p, _ in pairs], 0) == tf.concat([y for _, y in pairs], 0), tf.int32)
    return tf.reduce_mean(right)


def accuracy_over_integer_division(dataset):
    """Wrong: floor division of the counts."""
    correct = total = 0
    for predictions, labels in dataset:
        correct += int(tf.reduce_sum(tf.cast(predictions == labels, tf.int32)))
        total += int(tf.size(labels))
    return correct // total


def accuracy_over_percent(dataset):
    """Wrong: a percentage."""
    correct = total = 0
    for predictions, labels in dataset:
        correct += int(tf.reduce_sum(tf.cast(predictions == labels, tf.int32)))
        total += int(tf.size(labels))
    return 100 * correct / total


def accuracy_over_constant(dataset):
    """Wrong: the statement's example worked out once, by hand."""
    return 0.8


VALIDATION = tf.data.Dataset.from_tensor_slices((np.array([1, 1, 1, 1, 1], np.int64),
                                                 np.array([1, 1, 1, 1, 0], np.int64))).batch(4)


def accuracy_over_global(dataset):
    """Wrong: measures the notebook's own validation dataset instead of the one handed in."""
    correct = total = 0
    for predictions, labels in VALIDATION:
        correct += int(tf.reduce_sum(tf.cast(predictions == labels, tf.int32)))
        total += int(tf.size(labels))
    return correct / total


def accuracy_over_new_iterator(dataset):
    """Wrong: a new iterator for every batch, so always the first batch."""
    correct = total = 0
    for _ in range(len(dataset)):
        predictions, labels = next(iter(dataset))
        correct += int(tf.reduce_sum(tf.cast(predictions == labels, tf.int32)))
        total += int(tf.size(labels))
    return correct / total


def accuracy_over_two_passes(dataset):
    """Wrong: one pass to count the examples, another to count the right ones."""
    total = sum(int(tf.size(labels)) for _, labels in dataset)
    correct = sum(int(tf.reduce_sum(tf.cast(p == y, tf.int32))) for p, y in dataset)
    return correct / total


# --- Exercise 4: evaluate every checkpoint --------------------------------------------------------------------

def evaluate_checkpoints_reference(ckpt_dir, saver, correct, examples):
    accuracies = []
    for path in v1.train.get_checkpoint_state(ckpt_dir).all_model_checkpoint_paths:
        with tf1.session() as sess:  # a new session: the validation queue starts again
            saver.restore(sess, path)
            counts = tf1.drain([correct, examples], sess)
        accuracies.append(sum(c for c, _ in counts) / sum(n for _, n in counts))
    return accuracies


def evaluate_checkpoints_by_step(ckpt_dir, saver, correct, examples):
    paths = [name[:-len(".index")] for name in glob.glob(os.path.join(ckpt_dir, "*.index"))]
    accuracies = []
    for path in sorted(paths, key=lambda p: int(p.rsplit("-", 1)[1])):
        with tf1.session() as sess:
            saver.restore(sess, path)
            right = seen = 0
            try:
                while True:
                    c, n = sess.run([correct, examples])
                    right, seen = right + c, seen + n
            except tf.errors.OutOfRangeError:
                pass
        accuracies.append(right / seen)
    return accuracies


def evaluate_checkpoints(which: str = "all", restore: str = "each", saver_used: str = "given",
                         read: str = "same session", sessions: str = "one per checkpoint",
                         order: str = "oldest first", mean_of_batches: bool = False) -> Callable:
    """An answer to 07.4 with at most one typical mistake (the reference without arguments).

    which: "all" (right), "latest" (latest_checkpoint only), "iterator" (checkpoints_iterator, arriving late),
    "last_checkpoints" (the saver's own list), "all and newest" (the newest twice), "glob" (file names sorted as
    text); restore: "each" (right), "none", "latest" (the newest every time); saver_used: "given" (right), "own
    each time", "own once"; read: "same session" (right), "drain's own session"; sessions: "one per checkpoint"
    (right), "shared" (one session, its queue read once), "shared, guarded" (divides by max(1, examples));
    order: "oldest first" (right) or "newest first"; mean_of_batches: average the per-batch accuracies.
    """
    def answer(ckpt_dir: str, saver: Any, correct: Any, examples: Any) -> list:
        state = v1.train.get_checkpoint_state(ckpt_dir)
        paths = list(state.all_model_checkpoint_paths)
        if which == "latest":
            paths = [v1.train.latest_checkpoint(ckpt_dir)]
        elif which == "iterator":
            paths = list(v1.train.checkpoints_iterator(ckpt_dir, min_interval_secs=0, timeout=0))
        elif which == "last_checkpoints":
            paths = list(saver.last_checkpoints)
        elif which == "all and newest":
            paths.append(state.model_checkpoint_path)
        elif which == "glob":
            paths = sorted(name[:-len(".index")] for name in glob.glob(os.path.join(ckpt_dir, "*.index")))
        if order == "newest first":
            paths.reverse()
        if saver_used == "own once":
            saver = v1.train.Saver()

        def evaluate(sess: Any, path: str) -> float:
            restorer = v1.train.Saver() if saver_used == "own each time" else saver
            if restore == "each":
                restorer.restore(sess, path)
            elif restore == "latest":
                restorer.restore(sess, v1.train.latest_checkpoint(ckpt_dir))
            batches = tf1.drain([correct, examples], sess if read == "same session" else None)
            if mean_of_batches:
                return sum(c / n for c, n in batches) / len(batches)
            total = sum(n for _, n in batches)
            if sessions == "shared, guarded":
                total = max(1, total)
            return sum(c for c, _ in batches) / total

        if sessions.startswith("shared"):
            with tf1.session() as sess:
                return [evaluate(sess, path) for path in paths]
        accuracies = []
        for path in paths:
            with tf1.session() as sess:
                accuracies.append(evaluate(sess, path))
        return accuracies
    return answer


# --- the mutation tables (tutorial_lib.exercises.mutation) ----------------------------------------------------

def batches_float_ceil(n, batch_size):
    """Wrong only for huge counts: a float division rounds (2**53 + 1) / 2**53 to 1.0 before the ceiling."""
    return math.ceil(n / batch_size)


# --- 07a.3 is_same_pass, 07b.2 kept_checkpoints ------------------------------------------------------------------


def same_pass_reference(batches: list, expected_ids: list) -> bool:
    """The notebook's solution."""
    return [int(i) for batch in batches for i in batch] == list(expected_ids)


def same_pass_array_equal(batches: list, expected_ids: list) -> bool:
    """Right, another shape: one concatenated array (an empty one when there is no batch)."""
    return np.array_equal(np.concatenate(batches) if batches else np.zeros(0), expected_ids)


def same_pass_sorted_run(batches: list, expected_ids: list) -> bool:
    """Wrong: checks the length, the first id and that the ids only go up -- a repeated id slips through."""
    flat = [int(i) for batch in batches for i in batch]
    return (len(flat) == len(expected_ids) and flat[:1] == list(expected_ids)[:1]
            and all(a <= b for a, b in zip(flat, flat[1:], strict=False)))


def same_pass_full_batches(batches: list, expected_ids: list) -> bool:
    """Wrong: compares only the batches of the first batch's size, so a missing final batch goes unseen."""
    flat = [int(i) for batch in batches if len(batch) == len(batches[0]) for i in batch] if batches else []
    return flat == list(expected_ids)[:len(flat)] and (bool(flat) or not expected_ids)


def same_pass_by_batch(batches: list, expected_ids: list) -> bool:
    """Wrong: compares batch by batch in batches of 16, as the notebook's pass was split."""
    ids = list(expected_ids)
    return len(batches) == -(-len(ids) // 16) and all(
        [int(i) for i in batch] == ids[16 * n:16 * (n + 1)] for n, batch in enumerate(batches))


def kept_checkpoints_simulated(saves: int, max_to_keep: int | None) -> list:
    """Right, another shape: save after save, the oldest dropped beyond max_to_keep."""
    kept: list[int] = []
    for number in range(1, saves + 1):
        kept.append(number)
        if max_to_keep is not None and len(kept) > max_to_keep:
            kept.pop(0)
    return kept


def kept_checkpoints_newest_first(saves: int, max_to_keep: int | None) -> list:
    """Wrong: newest first."""
    first = 1 if max_to_keep is None else max(1, saves - max_to_keep + 1)
    return list(range(saves, first - 1, -1))


RIGHT = [
    (ex.check_same_pass, same_pass_reference, "the notebook's solution"),
    (ex.check_same_pass, same_pass_array_equal, "np.array_equal of one concatenated array"),
    (ex.check_kept_checkpoints, lambda saves, max_to_keep: list(range(
        1 if max_to_keep is None else max(1, saves - max_to_keep + 1), saves + 1)), "the notebook's solution"),
    (ex.check_kept_checkpoints, kept_checkpoints_simulated, "save after save, the oldest dropped"),
    (ex.check_batches_in_pass, batches_in_pass_reference, "the reference: (n + batch_size - 1) // batch_size"),
    (ex.check_batches_in_pass, batches_in_pass_remainder_test, "floor division, one more when a remainder"),
    (ex.check_batches_in_pass, batches_in_pass_range, "len(range(0, n, batch_size))"),
    (ex.check_batches_in_pass, lambda n, b: -(-n // b), "negated floor division"),
    (ex.check_validation_pass, validation_pass_reference, "the reference: a while loop until OutOfRangeError"),
    (ex.check_validation_pass, validation_pass_drain, "tf1.drain in the session handed in"),
    (ex.check_validation_pass, validation_pass_flag, "a flag loop with ids.eval(session=sess)"),
    (ex.check_accuracy_over, accuracy_over_reference, "the reference: counts in a for loop, TF ops"),
    (ex.check_accuracy_over, accuracy_over_numpy, "counts in a for loop, NumPy"),
    (ex.check_accuracy_over, accuracy_over_reduce, "Dataset.reduce over the counts"),
    (ex.check_accuracy_over, accuracy_over_concat, "every batch concatenated, a float mean"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints_reference, "the reference"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(), "the reference, written as options"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints_by_step, "glob the index files, sort by step number"),
]

MUTANTS = [
    (ex.check_same_pass, lambda batches, expected_ids: False, "same", "always False"),
    (ex.check_same_pass, typical("is_same_pass"), "order", "sorted on both sides (nbgrader's typical)"),
    (ex.check_same_pass, lambda b, e: set(int(i) for x in b for i in x) == set(e), "order", "compares sets"),
    (ex.check_same_pass, same_pass_sorted_run, "duplicates", "length, first id and going up"),
    (ex.check_same_pass, same_pass_full_batches, "final_batch", "only full batches compared"),
    (ex.check_same_pass, same_pass_by_batch, "batch_split", "batch by batch, in batches of 16"),
    (ex.check_same_pass, lambda b, e: np.concatenate(b).tolist() == list(e), "empty", "np.concatenate of no batch"),
    (ex.check_same_pass, lambda b, e: len(e) if [int(i) for x in b for i in x] == list(e) else 0, "a_bool",
     "the count, not a bool"),
    (ex.check_kept_checkpoints, lambda s, k: list(range(1, min(s, k) + 1)), "newest", "the first ones kept"),
    (ex.check_kept_checkpoints, lambda s, k: list(range(max(1, s - k), s + 1)), "how_many", "one too many"),
    (ex.check_kept_checkpoints, lambda s, k: list(range(s - k + 1, s + 1)), "fewer", "no floor at the first save"),
    (ex.check_kept_checkpoints, lambda s, k: list(range(max(0, s - k), s)), "numbering", "numbered from 0"),
    (ex.check_kept_checkpoints, lambda s, k: list(range(max(1, s - k + 1), max(s, 1) + 1)), "none_saved",
     "always a first checkpoint"),
    (ex.check_kept_checkpoints, lambda s, k: list(range(max(1, s - k + 1), s + 1)), "keep_all",
     "max_to_keep=None not handled"),
    (ex.check_kept_checkpoints, kept_checkpoints_newest_first, "oldest_first", "newest first"),
    (ex.check_kept_checkpoints, lambda s, k: range(1 if k is None else max(1, s - k + 1), s + 1), "oldest_first",
     "a range, not a list"),
    # Exercise 1
    (ex.check_batches_in_pass, typical("batches_in_pass"), "remainder", "floor division (nbgrader's typical)"),
    (ex.check_batches_in_pass, batches_float_ceil, "remainder",
     "math.ceil of a float division (an independent reader's)"),
    (ex.check_batches_in_pass, batches_in_pass_almost_one, "remainder", "adds 0.999 and truncates"),
    (ex.check_batches_in_pass, batches_in_pass_plus_one, "exact", "always one more batch"),
    (ex.check_batches_in_pass, lambda n, b: n // b + 1, "exact", "floor division plus one"),
    (ex.check_batches_in_pass, batches_in_pass_at_least_one, "empty", "at least one batch"),
    (ex.check_batches_in_pass, batches_in_pass_do_while, "empty", "a do-while count"),
    (ex.check_batches_in_pass, batches_in_pass_sixteen, "batch_size", "the batch size fixed at 16"),
    (ex.check_batches_in_pass, batches_in_pass_np_ceil, "whole_number", "np.ceil: a float"),
    (ex.check_batches_in_pass, batches_in_pass_float_division, "whole_number", "float(math.ceil(...))"),
    # Exercise 2
    (ex.check_validation_pass, InitializesOnce(), "every_pass", "initializes on the first pass only"),
    (ex.check_validation_pass, validation_pass_init_at_end, "every_pass", "initializes at the end of a pass"),
    (ex.check_validation_pass, validation_pass_init_if_needed, "every_pass", "initializes when not initialized"),
    (ex.check_validation_pass, validation_pass_local_initializer, "every_pass",
     "runs the local-variables initializer instead of the one handed in"),
    (ex.check_validation_pass, validation_pass_fixed_steps, "to_the_end", "a fixed number of batches"),
    (ex.check_validation_pass, validation_pass_uncaught, "to_the_end", "lets OutOfRangeError out"),
    (ex.check_validation_pass, validation_pass_do_while, "empty", "first batch read before the loop"),
    (ex.check_validation_pass, validation_pass_init_every_batch, "init_once", "initializer before every batch"),
    (ex.check_validation_pass, validation_pass_own_session, "given_session", "a tf1.session of its own"),
    (ex.check_validation_pass, validation_pass_plain_session, "given_session", "a plain Session of its own"),
    (ex.check_validation_pass, validation_pass_flat, "per_batch", "one flat list of ids"),
    (ex.check_validation_pass, validation_pass_concatenated, "per_batch", "one array for the whole pass"),
    (ex.check_validation_pass, validation_pass_lists, "as_given", "each batch a Python list"),
    (ex.check_validation_pass, validation_pass_int32, "as_given", "each batch cast to int32"),
    (ex.check_validation_pass, validation_pass_reshape, "no_new_ops", "a reshape op built per batch"),
    (ex.check_validation_pass, validation_pass_identity_once, "no_new_ops", "an identity op built per pass"),
    # Exercise 3
    (ex.check_accuracy_over, accuracy_mean_of_batches, "final_batch", "the mean of batch accuracies"),
    (ex.check_accuracy_over, typical("accuracy_over"), "final_batch", "the mean of batch accuracies (nbgrader's)"),
    (ex.check_accuracy_over, accuracy_over_full_batches, "final_batch", "every batch counted as a full one"),
    (ex.check_accuracy_over, accuracy_over_integer_mean, "fraction", "the mean of an int32 tensor"),
    (ex.check_accuracy_over, accuracy_over_integer_division, "fraction", "floor division"),
    (ex.check_accuracy_over, accuracy_over_percent, "fraction", "a percentage"),
    (ex.check_accuracy_over, accuracy_over_constant, "uses_dataset", "the statement's value by hand"),
    (ex.check_accuracy_over, accuracy_over_global, "uses_dataset", "the notebook's own dataset"),
    (ex.check_accuracy_over, accuracy_over_new_iterator, "every_batch", "next(iter(dataset)) for every batch"),
    (ex.check_accuracy_over, accuracy_over_two_passes, "one_pass", "one pass per count"),
    # Exercise 4
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(which="latest"), "every", "latest_checkpoint only"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(which="iterator"), "every",
     "checkpoints_iterator, arriving after the last save"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(which="last_checkpoints"), "every",
     "the handed saver's last_checkpoints (it saved none)"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(which="all and newest"), "each_once",
     "the newest checkpoint added again"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(order="newest first"), "order", "newest first"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(which="glob"), "order", "index files sorted as text"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(restore="none"), "restore", "never restores"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(restore="latest"), "restore", "restores the newest each time"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(saver_used="own each time"), "saver",
     "a new Saver for every checkpoint"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(saver_used="own once"), "saver",
     "a Saver of its own, made once"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(read="drain's own session"), "same_session",
     "restores, then tf1.drain without the session (it opens its own)"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(sessions="shared"), "new_session",
     "one session for every checkpoint"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(sessions="shared, guarded"), "new_session",
     "one session, dividing by max(1, examples)"),
    (ex.check_evaluate_checkpoints, evaluate_checkpoints(mean_of_batches=True), "whole_pass",
     "the mean of batch accuracies"),
]

REJECTED = [
    (ex.check_same_pass, ex.TODO, "not done yet"),
    (ex.check_kept_checkpoints, ex.TODO, "not done yet"),
    (ex.check_batches_in_pass, ex.TODO, "not done yet"),
    (ex.check_validation_pass, ex.TODO, "not done yet"),
    (ex.check_accuracy_over, ex.TODO, "not done yet"),
    (ex.check_evaluate_checkpoints, ex.TODO, "not done yet"),
]
