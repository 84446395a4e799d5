"""Checkers for notebook 01_feeding: bytes per feed, feeding a tensor other than a placeholder, batches to feed."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tutorial_lib.env import import_tensorflow
from tutorial_lib.exercises.core import Mismatch, Verdict, expect_equal, requirements, run_check


@requirements(
    ("labels_too", "counts the labels as well as the images", "labels are fed too"),
    ("float32_images", "counts the images as float32 (4 bytes a pixel), not as uint8", "float32"),
    ("int64_labels", "counts the labels as int64 (8 bytes each)", "int64 labels take"),
    ("bytes_not_bits", "counts bytes, not bits", "bytes, not bits"),
    ("per_batch", "grows with batch_size: every array holds batch_size rows", "grows with batch_size"),
    ("whole_number", "returns a whole number of bytes (an int)", "(an int)"),
)
def check_feed_bytes(feed_bytes: Callable[[int], int]) -> Verdict:
    """Exercise 01.1: bytes copied per step when feeding float32 [batch, 784] images and int64 labels."""
    def check() -> None:
        for batch_size in (1, 32, 100, 16384, 60000):
            got = feed_bytes(batch_size)
            images, labels = 784 * 4 * batch_size, 8 * batch_size
            expected = f"{images + labels} for batch_size={batch_size}"
            if got == images:
                raise Mismatch(expected, str(got), "The labels are fed too.")
            if got == 784 * batch_size + labels or got == 784 * batch_size:
                raise Mismatch(expected, str(got),
                               "The images are fed as float32 after scaling, not as the uint8 bytes on disk.")
            if got in (images + 4 * batch_size, images + batch_size):
                raise Mismatch(expected, str(got), "The int64 labels take as many bytes each as their dtype's "
                               "itemsize says.")
            if got == 8 * (images + labels):
                raise Mismatch(expected, str(got), "Count bytes, not bits.")
            if batch_size > 1 and got in (784 * 4 + 8, images + 8, 784 * 4 + labels):
                raise Mismatch(expected, str(got), "The feed grows with batch_size: both arrays hold batch_size "
                               "rows.")
            if got == images + labels and (isinstance(got, bool) or not isinstance(got, (int, np.integer))):
                raise Mismatch(f"an int for batch_size={batch_size}", f"{type(got).__name__} {got!r}",
                               "A number of bytes is a whole number (an int).")
            expect_equal(got, images + labels, "Count both arrays: element count times bytes per element "
                         "(ndarray.nbytes tells you).", f"for batch_size={batch_size}: ")
    return run_check("Exercise 1 (bytes per feed)", check)


_FEED_LOGITS = "feed the tensor whose value you want to fix: the logits tensor you are handed."


@requirements(
    ("a_dict", "returns a feed_dict", "Return a feed_dict"),
    ("feed_logits", "feeds the logits tensor it is handed (not the images, not a tensor of its own)",
     "feed the tensor whose value"),
    ("equal_logits", "feeds equal logits, so the loss is ln(10) whatever the labels", "equal logits"),
    ("batch_rows", "feeds a [batch_size, 10] value for the batch_size it is given", "one row per example"),
    ("tensor_dtype", "feeds a value of the tensor's own dtype (float32), so nothing is converted", "own dtype"),
    ("graph_unchanged", "adds nothing to the graph", "adds nothing to the graph"),
)
def check_logits_feed(make_feed: Callable[[Any, int], dict]) -> Verdict:
    """Exercise 01.2: a feed_dict that makes the loss exactly ln(10) without touching the graph."""
    tf = import_tensorflow()
    v1 = tf.compat.v1

    def check() -> None:
        rng = np.random.default_rng(1)
        for batch_size in (5, 1, 37):
            case = f"for batch_size={batch_size}"
            with tf.Graph().as_default() as graph:
                images = v1.placeholder(tf.float32, [None, 784], name="images")
                labels = v1.placeholder(tf.int64, [None], name="labels")
                weights = tf.constant(rng.normal(size=(784, 10)).astype(np.float32))
                bias = tf.constant(rng.normal(size=10).astype(np.float32))
                logits = tf.matmul(images, weights) + bias
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
                ops_before = len(graph.get_operations())
                feed = make_feed(logits, batch_size)
                added = len(graph.get_operations()) - ops_before
                if added:
                    raise Mismatch(f"the graph unchanged {case}", f"{added} op(s) added to it",
                                   "Without changing the graph means your answer adds nothing to the graph: build "
                                   "the value outside it.")
                if not isinstance(feed, dict):
                    raise Mismatch("a dict {tensor: value}", type(feed).__name__, "Return a feed_dict.")
                fed = {}
                for key, value in feed.items():
                    try:
                        fed[graph.as_graph_element(key) if isinstance(key, str) else key] = value
                    except (KeyError, ValueError, TypeError):
                        raise Mismatch(f"a feed of the logits {case}", f"a key {key!r} the graph does not have",
                                       "That key is no tensor of this graph; " + _FEED_LOGITS) from None
                if logits not in fed:
                    if images in fed:
                        raise Mismatch("the loss to be ln(10)", "a feed of the images",
                                       "Feeding the images still goes through the weights; " + _FEED_LOGITS)
                    raise Mismatch(f"a feed of the logits {case}", "no feed of them",
                                   "Nothing fed is the logits; " + _FEED_LOGITS)
                value = fed[logits]
                if not isinstance(value, (np.ndarray, list, tuple, float, int, np.generic)):
                    raise Mismatch(f"a NumPy array {case}", type(value).__name__,
                                   "Feed a NumPy value of the tensor's own dtype, one row per example.")
                array = np.asarray(value)
                if array.shape != (batch_size, 10):
                    raise Mismatch(f"a value of shape ({batch_size}, 10) {case}", f"shape {array.shape}",
                                   "The logits hold one row per example: as many rows as the batch_size you are "
                                   "given, 10 columns.")
                if array.dtype != logits.dtype.as_numpy_dtype:
                    raise Mismatch(f"a {logits.dtype.name} value {case}", f"{array.dtype}",
                                   "Feed a value of the tensor's own dtype, so TensorFlow need not convert it.")
                values = []
                with v1.Session() as sess:
                    for fed_labels in (np.arange(batch_size) % 10, rng.integers(0, 10, batch_size)):
                        values.append(sess.run(loss, {**fed, labels: fed_labels}))
            for value in values:
                if not math.isclose(value, math.log(10), rel_tol=1e-5):
                    raise Mismatch(f"loss {math.log(10):.4f} {case}", f"{value:.4f}",
                                   "A softmax over equal logits gives every class probability 1/10.")
    return run_check("Exercise 2 (feed a tensor other than a placeholder)", check)


@requirements(
    ("generator", "is a generator: yields the batches one at a time, slicing nothing before they are asked for",
     "one at a time"),
    ("pairs", "yields (image_batch, label_batch) pairs, images and labels sliced alike",
     "images and labels alike"),
    ("keeps_arrays", "yields slices of the arrays: NumPy arrays that keep their dtype and the shape of one example",
     "dtype and the shape of one example"),
    ("no_empty_batch", "yields no empty batch (a count that is a multiple of batch_size, or zero)", "no empty batch"),
    ("final_batch", "keeps the smaller final batch", "smaller final batch"),
    ("batch_size", "yields batch_size examples a batch, for any count and batch_size", "batch_size at a time"),
    ("order", "keeps the examples in their order, each once", "in their order"),
)
def check_feed_batches(batches: Callable[[np.ndarray, np.ndarray, int], Any]) -> Verdict:
    """Exercise 01.3: split arrays into feed batches in order, keeping the smaller final batch."""
    reads = []

    class Watched(np.ndarray):
        """The images handed in, recording every time they are indexed (a generator indexes only when asked)."""

        def __getitem__(self, index: Any) -> Any:
            reads.append(index)
            return np.asarray(self)[index]

    def check() -> None:
        for count, batch_size in [(23, 5), (1000, 64), (30, 10), (7, 10), (0, 4)]:
            case = f"for {count} examples and batch_size {batch_size}"
            images = (np.arange(count * 784, dtype=np.int64).reshape(count, 28, 28, 1) * 7 // 3 % 256).astype(np.uint8)
            images[:, 0, 0, 0] = np.arange(count) % 256
            labels = np.arange(count, dtype=np.int64)
            handed = images.view(Watched)
            reads.clear()
            result = batches(handed, labels, batch_size)
            if count and (isinstance(result, (list, tuple)) or not isinstance(result, Iterator) or reads):
                raise Mismatch(f"a generator {case}", f"{type(result).__name__}, with the images sliced already"
                               if reads else type(result).__name__,
                               "Write a generator: yield the batches one at a time, as they are asked for.")
            expected_sizes = [min(batch_size, count - start) for start in range(0, count, batch_size)]
            got = list(itertools.islice(iter(result), len(expected_sizes) + 3))
            for item in got:
                if not isinstance(item, (tuple, list)) or len(item) != 2:
                    raise Mismatch(f"(image_batch, label_batch) pairs {case}", f"{type(item).__name__} items",
                                   "Yield pairs: slice images and labels alike, images first.")
                if not all(isinstance(part, np.ndarray) for part in item):
                    raise Mismatch(f"NumPy arrays {case}", f"{type(item[0]).__name__}, {type(item[1]).__name__}",
                                   "A batch keeps each array's dtype and the shape of one example: slice the "
                                   "arrays, do not convert them to lists.")
                image_batch, label_batch = (np.asarray(part) for part in item)
                if image_batch.ndim == 1 and label_batch.ndim == 4:
                    raise Mismatch(f"(image_batch, label_batch) pairs {case}", "(label_batch, image_batch)",
                                   "Yield pairs: slice images and labels alike, images first.")
                if (image_batch.dtype, image_batch.shape[1:], label_batch.dtype, label_batch.shape[1:]) != (
                        images.dtype, images.shape[1:], labels.dtype, labels.shape[1:]):
                    raise Mismatch(f"{images.dtype} images of shape [n, 28, 28, 1] and {labels.dtype} labels {case}",
                                   f"{image_batch.dtype} {list(image_batch.shape)}, {label_batch.dtype} "
                                   f"{list(label_batch.shape)}",
                                   "A batch keeps each array's dtype and the shape of one example: slice, do not "
                                   "convert or reshape.")
            sizes = [len(item[1]) for item in got]
            if 0 in sizes:
                raise Mismatch(f"batch sizes {expected_sizes} {case}", f"{sizes}",
                               "Stop when the examples run out: no empty batch at the end.")
            if expected_sizes and sizes == expected_sizes[:-1] and expected_sizes[-1] < batch_size:
                raise Mismatch(f"{len(expected_sizes)} batches {case}", f"{len(sizes)} batches",
                               f"The last {expected_sizes[-1]} examples make a smaller final batch; do not drop them.")
            expect_equal(sizes, expected_sizes, "Step through the examples batch_size at a time.",
                         f"batch sizes {case}: ")
            if [len(item[0]) for item in got] != sizes:
                raise Mismatch(f"image batches of sizes {expected_sizes} {case}",
                               f"{[len(item[0]) for item in got]}", "Slice images and labels alike.")
            if count:
                expect_equal(np.concatenate([item[1] for item in got]), labels, "Keep the examples in their order.",
                             f"labels {case}: ")
                expect_equal(np.concatenate([np.asarray(item[0]) for item in got]), images,
                             "Slice images and labels alike.", f"images {case}: ")
    return run_check("Exercise 3 (batches to feed)", check)
