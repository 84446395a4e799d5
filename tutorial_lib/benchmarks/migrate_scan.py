"""How fast the migration scanner (`migration/scanner.py`) reads code: `python -m tutorial_lib bench migrate`
writes N generated files (TF1 pipelines of several shapes, plain Python, a notebook now and then) to a
temporary folder and times one scan of the folder, the progress bar off. Quoted in the README."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from tutorial_lib.migration import report, scanner

PIPELINE = '''import tensorflow as tf


def inputs_{i}(files, batch_size, num_epochs=None):
    """A TF1 input pipeline: file names, a producer, a reader, a decoder, a shuffle queue."""
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, {{"image": tf.FixedLenFeature([], tf.string),
                                                    "label": tf.FixedLenFeature([], tf.int64)}})
    image = tf.image.decode_jpeg(features["image"], channels=3)
    image = tf.image.resize_images(tf.to_float(image) / 255.0, [{size}, {size}])
    return tf.train.shuffle_batch([image, features["label"]], batch_size=batch_size, num_threads=4,
                                  capacity=1000 + 3 * batch_size, min_after_dequeue=1000)


def train_{i}(files):
    images, labels = inputs_{i}(files, 32)
    logits = tf.layers.dense(tf.layers.flatten(images), 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    step = tf.train.AdamOptimizer(1e-3).minimize(loss)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            for _ in range({steps}):
                sess.run(step)
        finally:
            coord.request_stop()
            coord.join(threads)
'''

PLAIN = '''"""Plain Python: no TensorFlow here."""
import json


def load_{i}(path):
    with open(path) as f:
        return json.load(f)


class Counter{i}:
    def __init__(self):
        self.counts = {{}}

    def add(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1
        return self.counts[key]
'''


def write_corpus(folder: Path, files: int) -> int:
    """Write `files` generated files (every 4th plain Python, every 10th a notebook); return their lines."""
    lines = 0
    for i in range(files):
        text = (PLAIN if i % 4 == 3 else PIPELINE * 3).format(i=i, size=24 + i % 8, steps=100 + i)
        lines += text.count("\n")
        if i % 10 == 9:
            cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                      "source": ["%matplotlib inline\n", *text.splitlines(keepends=True)]}]
            notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
            (folder / f"nb_{i:04d}.ipynb").write_text(json.dumps(notebook))
        else:
            (folder / f"mod_{i:04d}.py").write_text(text)
    return lines


def measure(files: int = 1000) -> dict:
    """Scan `files` generated files once; return the counts and files per second."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = write_corpus(Path(tmp), files)
        start = time.perf_counter()
        scans = scanner.scan_paths([tmp], progress_from=files + 1)
        counts = report.counts(scans)
        seconds = time.perf_counter() - start
    return {"files": len(scans), "lines": lines, "calls": counts["calls"], "pipelines": counts["pipelines"],
            "seconds": seconds, "files_per_s": len(scans) / seconds}
