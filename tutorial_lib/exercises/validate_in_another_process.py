"""Checkers for notebook 07b_validate_in_another_process: accuracy over a pass, the checkpoints a
CheckpointManager keeps, evaluate every checkpoint.
"""

from __future__ import annotations

import numbers
import os
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from tutorial_lib.env import import_tensorflow
from tutorial_lib.exercises.core import Mismatch, Verdict, expect_equal, requirements, run_check

# --- Exercise 1 ---------------------------------------------------------------------------------------------

def _accuracy_cases() -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(predictions, labels, batch_size): the statement's small case, then larger, uneven ones (fixed seeds)."""
    rng = np.random.default_rng(7)
    cases = [(np.array([1, 1, 1, 1, 1], np.int64), np.array([1, 1, 1, 1, 0], np.int64), 4)]  # 4 of 5; 4 + 1
    for count, batch_size, right_share in [(203, 32, 0.7), (50, 7, 0.4)]:
        labels = rng.integers(0, 10, count).astype(np.int64)
        right = rng.random(count) < right_share
        right[-(count % batch_size):] = False  # the smaller final batch: every prediction wrong
        right[:batch_size] = np.arange(batch_size) % 4 == 0  # the first batch: a quarter right
        predictions = np.where(right, labels, (labels + 1) % 10).astype(np.int64)
        cases.append((predictions, labels, batch_size))
    return cases


@requirements(
    ("final_batch", "counts every example once, so the smaller final batch weighs by its size", "final batch"),
    ("fraction", "returns the accuracy as a fraction between 0 and 1, not rounded, not a percentage",
     "fraction between 0 and 1"),
    ("uses_dataset", "computes it from the dataset it is handed", "dataset you are handed"),
    ("every_batch", "reads each batch once, not the first one again and again", "first batch again"),
    ("one_pass", "reads the dataset once (one pass, right answers and examples counted together)",
     "Read the dataset once"),
)
def check_accuracy_over(accuracy_over: Callable) -> Verdict:
    """Exercise 07b.1: accuracy over every example, with a smaller final batch counted by its size."""
    tf = import_tensorflow()

    def check() -> None:
        results = []
        for predictions, labels, batch_size in _accuracy_cases():
            reads: list = []  # one entry per batch the answer reads

            def tick(p: Any, y: Any, reads: list = reads) -> tuple:
                def counted(batch: Any) -> Any:
                    reads.append(1)
                    return batch
                return tf.ensure_shape(tf.py_function(counted, [p], tf.int64), [None]), y

            dataset = tf.data.Dataset.from_tensor_slices((predictions, labels)).batch(batch_size).map(tick)
            got_value = accuracy_over(dataset)
            got = float(got_value)
            right = predictions == labels
            expected = float(right.mean())
            batches = [right[i:i + batch_size] for i in range(0, len(right), batch_size)]
            batch_mean = float(np.mean([b.mean() for b in batches]))
            n, last = len(labels), len(batches[-1])
            case = f"{expected:.4f} ({int(right.sum())} of {n} right, batches of {batch_size}, the last of {last})"
            results.append((got, expected, case))
            if np.isclose(got, expected):
                if len(reads) > len(batches):
                    raise Mismatch(f"{len(batches)} batches read (one pass)", f"{len(reads)}",
                                   "Read the dataset once: count right answers and examples in the same loop.")
                continue
            if np.isclose(got, batch_mean):
                raise Mismatch(case, f"{got:.4f}", f"The mean of batch accuracies weighs the final batch of {last} "
                               "like a full one; count correct examples and divide by all examples.")
            if np.isclose(got, 100 * expected) or (got == np.floor(expected) and 0 < expected < 1):
                raise Mismatch(case, f"{got:g}", "The accuracy is a fraction between 0 and 1, not rounded to a "
                               "whole number (integer division or an integer mean) and not a percentage.")
            if np.isclose(got, float(batches[0].mean())) and len(batches) > 1:
                raise Mismatch(case, f"{got:.4f}", "That is the accuracy of the first batch: a new iterator starts "
                               "at the first batch again; loop over the dataset once to read each batch.")
            if any(np.isclose(got, other) for other, _, _ in results[:-1]):
                raise Mismatch(case, f"{got:.4f}, as for the previous dataset",
                               "Compute it from the dataset you are handed, whatever it holds.")
            raise Mismatch(case, f"{got:.4f}", "Correct predictions over all examples.")
    return run_check("Exercise 1 (accuracy over a pass)", check)


# --- Exercise 2 ---------------------------------------------------------------------------------------------

# (saves, max_to_keep): fewer saves than kept, exactly as many, more, one kept, none saved, keep everything.
_KEEP_CASES = [(5, 3), (2, 3), (3, 3), (7, 1), (0, 3), (4, None), (12, 5)]


def _kept_by_tensorflow(saves: int, max_to_keep: int | None) -> list[int]:
    """Save `saves` times through a real CheckpointManager; return the numbers of the checkpoints it keeps."""
    tf = import_tensorflow()
    with tempfile.TemporaryDirectory() as directory:
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=tf.Variable(0)), directory,
                                             max_to_keep=max_to_keep)
        for _ in range(saves):
            manager.save()
        return [int(path.rsplit("-", 1)[1]) for path in manager.checkpoints]


@requirements(
    ("newest", "keeps the newest checkpoints, not the first ones", "the newest"),
    ("how_many", "keeps exactly max_to_keep of them once there are more", "exactly max_to_keep"),
    ("fewer", "keeps every checkpoint while there are fewer than max_to_keep", "fewer saves"),
    ("numbering", "numbers the checkpoints as save() does: 1 for the first save", "numbered from 1"),
    ("none_saved", "keeps nothing when nothing was saved", "nothing was saved"),
    ("keep_all", "keeps every checkpoint when max_to_keep is None", "max_to_keep=None"),
    ("oldest_first", "lists them oldest first, as a list of ints", "oldest first"),
)
def check_kept_checkpoints(kept_checkpoints: Callable[[int, int | None], list]) -> Verdict:
    """Exercise 07b.2: the checkpoint numbers a CheckpointManager keeps, compared with a real one."""
    def check() -> None:
        for saves, keep in _KEEP_CASES:
            want = _kept_by_tensorflow(saves, keep)  # observed, not computed: TensorFlow decides
            case = f"saves={saves}, max_to_keep={keep}"
            try:
                got = kept_checkpoints(saves, keep)
            except TypeError as error:
                if keep is None:
                    raise Mismatch(f"{want} for {case}", f"TypeError: {error}",
                                   "With max_to_keep=None the manager deletes nothing: it keeps every checkpoint.") \
                        from None
                raise
            if not isinstance(got, list) or not all(isinstance(n, numbers.Integral) for n in got):
                raise Mismatch(f"a list of ints for {case}", f"{type(got).__name__} {got!r}",
                               "Return the checkpoint numbers as a list of ints, oldest first.")
            if got == want:
                continue
            if sorted(got) == want:
                raise Mismatch(f"{want} for {case}", repr(got), "List the checkpoints oldest first, as "
                               "`manager.checkpoints` does.")
            if not want:
                raise Mismatch(f"{want} for {case}", repr(got), "When nothing was saved, nothing was kept.")
            if keep is None:
                raise Mismatch(f"{want} for {case}", repr(got),
                               "With max_to_keep=None the manager deletes nothing: it keeps every checkpoint.")
            if saves < keep and len(got) != saves:
                raise Mismatch(f"{want} for {case}", repr(got), "With fewer saves than max_to_keep, every "
                               "checkpoint is still there.")
            if [n + 1 for n in got] == want or (got and got[0] == 0):
                raise Mismatch(f"{want} for {case}", repr(got), "Checkpoints are numbered from 1: save() numbers "
                               "them by its save counter, which counts the saves.")
            if len(got) != len(want):
                raise Mismatch(f"{want} for {case}", repr(got),
                               "Once there are more, the manager keeps exactly max_to_keep checkpoints.")
            if got == list(range(1, len(want) + 1)):
                raise Mismatch(f"{want} for {case}", repr(got), "Each save deletes the oldest beyond max_to_keep: "
                               "the newest stay.")
            expect_equal(got, want, "Each save deletes the oldest beyond max_to_keep: the newest stay.", f"{case}: ")
    return run_check("Exercise 2 (the checkpoints a manager keeps)", check)


# --- Exercise 3 ---------------------------------------------------------------------------------------------

_LABELS = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 2], np.int64)  # 10 examples in batches of 4, 4, 2
_STEPS = [9, 10, 99, 100, 1000]  # step numbers of 1 to 4 digits: sorting the file names as text mixes them up
_CLASS_OF = [(2, 2, 2), (1, 1, 1), (1, 1, 2), (0, 0, 2), (0, 1, 2)]  # what each checkpoint predicts per class


def _checkpoint_case(ckpt_dir: str):
    """Build the checker's evaluation graph (a num_epochs=1 queue, a 3-class model) and write 5 checkpoints.

    The checkpoints are written by a saver of their own (as a training process would); the saver handed to the
    answer records what it restores. Returns (graph, saver, correct, examples, expected accuracies oldest first,
    accuracy of the initial weights, mean of the per-batch accuracies of each checkpoint).
    """
    tf = import_tensorflow()
    v1 = tf.compat.v1
    from tutorial_lib import tf1

    class RecordingSaver(v1.train.Saver):
        """A Saver that records every (session, path) it restores."""

        def restore(self, sess: Any, save_path: Any) -> Any:
            self.restored.append((sess, save_path))
            return super().restore(sess, save_path)

    features = np.eye(3, dtype=np.float32)[_LABELS]
    weights = [np.eye(3, dtype=np.float32)[list(classes)] for classes in _CLASS_OF]
    expected, batch_means = [], []
    for w in weights:
        right = (np.argmax(features @ w, 1) == _LABELS).astype(float)
        expected.append(float(right.mean()))
        batch_means.append(float(np.mean([right[:4].mean(), right[4:8].mean(), right[8:].mean()])))
    graph = tf.Graph()
    with graph.as_default():
        x, y = v1.train.slice_input_producer([features, _LABELS], num_epochs=1, shuffle=False)
        x_batch, y_batch = v1.train.batch([x, y], batch_size=4, allow_smaller_final_batch=True)
        w = v1.get_variable("w", [3, 3], initializer=v1.zeros_initializer())  # zeros: predicts class 0
        correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(tf.matmul(x_batch, w), 1), y_batch), tf.int32))
        examples = tf.size(y_batch)
        writer = v1.train.Saver()
        new_weights = v1.placeholder(tf.float32, [3, 3])
        assign = w.assign(new_weights)
        with tf1.session(graph, start_queue_runners=False) as sess:
            for step, value in zip(_STEPS, weights, strict=True):
                sess.run(assign, {new_weights: value})
                writer.save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=step)
        saver = RecordingSaver()
        saver.restored = []
    return graph, saver, correct, examples, expected, float(np.mean(_LABELS == 0)), batch_means


@requirements(
    ("every", "evaluates every checkpoint kept, not only the newest", "checkpoint state lists every"),
    ("each_once", "evaluates each checkpoint once", "Evaluate each checkpoint the checkpoint state lists, once"),
    ("order", "returns the accuracies oldest checkpoint first (by step, however many digits)",
     "Oldest checkpoint first"),
    ("restore", "restores each checkpoint in turn before reading the validation input", "restore each checkpoint"),
    ("saver", "restores with the saver it is handed", "with the saver you are handed"),
    ("same_session", "reads the validation input in the session it restored into", "in the session you restored"),
    ("new_session", "opens a new session for each checkpoint (a num_epochs=1 queue is read once per session)",
     "new session for each checkpoint"),
    ("whole_pass", "divides the right answers of the whole pass by its examples (the last batch is smaller)",
     "last batch is smaller"),
)
def check_evaluate_checkpoints(evaluate_checkpoints: Callable) -> Verdict:
    """Exercise 07b.3: restore every kept checkpoint and evaluate it on a validation queue read from the start."""
    def check() -> None:
        with tempfile.TemporaryDirectory() as ckpt_dir:
            graph, saver, correct, examples, expected, initial, batch_means = _checkpoint_case(ckpt_dir)
            with graph.as_default():
                try:
                    got = evaluate_checkpoints(ckpt_dir, saver, correct, examples)
                except ZeroDivisionError:
                    got = None
        hint_sessions = ("A num_epochs=1 queue is closed after one pass, for good, in its session; open a new "
                         "session for each checkpoint (its queues start again from the first example).")
        if got is None:
            raise Mismatch("an accuracy for every checkpoint", "a division by zero (a pass that saw no example)",
                           hint_sessions)
        got = [float(a) for a in got]
        if len(got) < len(expected):
            raise Mismatch(f"{len(expected)} accuracies, one per kept checkpoint", str(len(got)),
                           "latest_checkpoint (and checkpoints_iterator, when you arrive late) gives only the newest "
                           "checkpoint; the checkpoint state lists every checkpoint kept.")
        if len(got) != len(expected):
            raise Mismatch(f"{len(expected)} accuracies, one per kept checkpoint", str(len(got)),
                           "Evaluate each checkpoint the checkpoint state lists, once.")
        restored = saver.restored
        if np.allclose(got, initial):
            if not restored:
                raise Mismatch(f"{expected}", f"{got}", "Every accuracy is that of the initial weights: restore each "
                               "checkpoint into the session before reading the validation input.")
            raise Mismatch(f"{expected}", f"{got}", "Every accuracy is that of the initial weights although you "
                           "restored: read the validation input in the session you restored into.")
        if not restored:
            raise Mismatch(f"{len(expected)} restores by the saver handed in", "none",
                           "Restore with the saver you are handed: it knows which variables to restore (a new Saver "
                           "adds its ops to the graph again each time).")
        later = got[1:]
        if np.isclose(got[0], expected[0]) and all(np.isnan(a) or a == 0 for a in later):
            raise Mismatch(f"{expected}", f"{got}", hint_sessions)
        if any(np.isnan(got)):
            raise Mismatch("an accuracy for every checkpoint", f"{got}", hint_sessions)
        if np.allclose(got, expected[-1]):
            raise Mismatch(f"{expected}", f"{got}", "Every accuracy is the newest checkpoint's: restore each "
                           "checkpoint in turn, the one you are evaluating.")
        if not np.allclose(got, expected) and np.allclose(sorted(got), sorted(expected)):
            raise Mismatch(f"{expected}", f"{got}", "Oldest checkpoint first, as the checkpoint state lists them "
                           "(file names sort as text: step 10 before step 9).")
        if np.allclose(sorted(got), sorted(batch_means)):
            raise Mismatch(f"{expected}", f"{got}", "The last batch is smaller: count right answers and examples "
                           "over the whole pass, then divide.")
        if not np.allclose(got, expected):
            raise Mismatch(f"{expected}", f"{got}", "Restore each checkpoint, read the whole validation input once, "
                           "and divide right answers by examples.")
    return run_check("Exercise 3 (evaluate every checkpoint)", check)
