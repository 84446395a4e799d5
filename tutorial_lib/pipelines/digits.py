"""Reference input pipelines in pairs -- the TF1 queue form and the tf.data form -- with the same semantics.

These are the tested versions of what notebooks 02-04 build in their cells; later notebooks import them.
Every reader yields (image uint8 [28, 28, 1], label int64) examples from the shipped digit files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from tutorial_lib.datasets import DIGIT_SHAPE, csv_header, parse_digit_example, record_bytes
from tutorial_lib.env import import_tensorflow

tf = import_tensorflow()
v1 = tf.compat.v1

Paths = Sequence[str | os.PathLike]


def csv_record_defaults(image_shape: Sequence[int] = DIGIT_SHAPE) -> list[list[int]]:
    """Return decode_csv's record_defaults: one int32 column for the label and one per pixel."""
    return [[0] for _ in csv_header(image_shape)]


def decode_csv_line(line: tf.Tensor, image_shape: Sequence[int] = DIGIT_SHAPE) -> tuple[tf.Tensor, tf.Tensor]:
    """Decode one CSV line `label,p0,...` into (uint8 image, int64 label)."""
    fields = tf.io.decode_csv(line, record_defaults=csv_record_defaults(image_shape))
    image = tf.reshape(tf.cast(tf.stack(fields[1:]), tf.uint8), image_shape)
    return image, tf.cast(fields[0], tf.int64)


def decode_fixed_record(record: tf.Tensor, image_shape: Sequence[int] = DIGIT_SHAPE) -> tuple[tf.Tensor, tf.Tensor]:
    """Decode one CIFAR-10-layout record (label byte, depth-major image) into (uint8 HWC image, int64 label)."""
    height, width, depth = image_shape
    raw = tf.io.decode_raw(record, tf.uint8)
    label = tf.cast(raw[0], tf.int64)
    image = tf.transpose(tf.reshape(raw[1:], [depth, height, width]), [1, 2, 0])
    return image, label


def tf1_read_digits(files: Paths, fmt: str, *, num_epochs: int | None = 1, shuffle: bool = False,
                    seed: int | None = None) -> tuple[tf.Tensor, tf.Tensor]:
    """Build the TF1 reading stages (filename queue -> reader -> decoder) inside the current graph."""
    filename_queue = v1.train.string_input_producer([str(f) for f in files], num_epochs=num_epochs,
                                                    shuffle=shuffle, seed=seed)
    if fmt == "csv":
        _, line = v1.TextLineReader(skip_header_lines=1).read(filename_queue)
        return decode_csv_line(line)
    if fmt == "bin":
        _, record = v1.FixedLengthRecordReader(record_bytes=record_bytes()).read(filename_queue)
        return decode_fixed_record(record)
    if fmt == "tfrecord":
        _, serialized = v1.TFRecordReader().read(filename_queue)
        return parse_digit_example(serialized)
    raise ValueError(f"unknown format {fmt!r}; choose 'csv', 'bin' or 'tfrecord'")


def dataset_read_digits(files: Paths, fmt: str) -> tf.data.Dataset:
    """Return a tf.data.Dataset of (image, label) read from the files in order."""
    names = [str(f) for f in files]
    if fmt == "csv":
        lines = tf.data.Dataset.from_tensor_slices(names).flat_map(lambda f: tf.data.TextLineDataset(f).skip(1))
        return lines.map(decode_csv_line)  # skip(1) inside flat_map drops every file's header
    if fmt == "bin":
        return tf.data.FixedLengthRecordDataset(names, record_bytes()).map(decode_fixed_record)
    if fmt == "tfrecord":
        return tf.data.TFRecordDataset(names).map(parse_digit_example)
    raise ValueError(f"unknown format {fmt!r}; choose 'csv', 'bin' or 'tfrecord'")


def scale(image: tf.Tensor) -> tf.Tensor:
    """Convert a uint8 image to float32 in [0, 1]."""
    return tf.cast(image, tf.float32) / 255.0


def augment(image: tf.Tensor, seed: int | None = None, max_shift: int = 2, noise: float = 0.05) -> tf.Tensor:
    """Shift a float image by up to `max_shift` pixels (pad, random crop) and add Gaussian noise."""
    height, width, depth = image.shape
    padded = tf.pad(image, [[max_shift, max_shift], [max_shift, max_shift], [0, 0]])
    shifted = tf.image.random_crop(padded, [height, width, depth], seed=seed)
    noisy = shifted + tf.random.normal(tf.shape(shifted), stddev=noise, seed=seed)
    return tf.clip_by_value(noisy, 0.0, 1.0)


def _sleep_ms(cost_ms: float):
    """Return a Python function that waits `cost_ms` and passes its input through (a slow producer)."""
    import time

    def slow(value):
        time.sleep(cost_ms / 1000.0)
        return value
    return slow


def slow_map(producer_cost_ms: float) -> Callable[[tf.Tensor, tf.Tensor], tuple[tf.Tensor, tf.Tensor]]:
    """Return a `Dataset.map` function that spends `producer_cost_ms` per example in a py_function, like slow I/O."""
    slow = _sleep_ms(producer_cost_ms)

    def slow_example(image: tf.Tensor, label: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        image = tf.py_function(slow, [image], tf.float32)
        return tf.reshape(image, [784]), label
    return slow_example


def flat_image(record: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Decode a digit record into a float32 [784] image in [0, 1] and an int64 label."""
    image, label = decode_fixed_record(record)
    return tf.reshape(scale(image), [784]), label


def tf1_training_batches(files: Paths, batch_size: int, reader_threads: int, capacity: int,
                         producer_cost_ms: float = 0.0, seed: int | None = 1) -> tuple[tf.Tensor, tf.Tensor]:
    """Build an endless TF1 pipeline: filename queue -> reader -> decode -> (slow step) -> batch queue."""
    filename_queue = v1.train.string_input_producer([str(f) for f in files], shuffle=True, seed=seed)
    _, record = v1.FixedLengthRecordReader(record_bytes=record_bytes()).read(filename_queue)
    image, label = flat_image(record)
    if producer_cost_ms > 0:  # per-example latency after the read (the enqueue threads run it side by side)
        image = tf.reshape(v1.py_func(_sleep_ms(producer_cost_ms), [image], tf.float32, stateful=True), [784])
    return v1.train.batch([image, label], batch_size=batch_size, num_threads=reader_threads, capacity=capacity,
                          name="batch")


def dataset_training_batches(files: Paths, batch_size: int, producer_cost_ms: float = 0.0,
                             num_parallel_calls: int | None = None, prefetch: int = 0) -> tf.data.Dataset:
    """Return an endless tf.data pipeline with the same stages; naive unless parallel calls / prefetch are set.

    The naive form also turns off tf.data's automatic prefetch injection, autotuning and map-and-batch fusion
    (the fused op would build the next batch in the background), so nothing runs ahead of the consumer. With
    `num_parallel_calls`, the pipeline gets a private thread pool with room for that many calls.
    """
    dataset = tf.data.FixedLengthRecordDataset([str(f) for f in files], record_bytes()).repeat()
    dataset = dataset.map(flat_image, num_parallel_calls=num_parallel_calls)
    if producer_cost_ms > 0:
        dataset = dataset.map(slow_map(producer_cost_ms), num_parallel_calls=num_parallel_calls)
    dataset = dataset.batch(batch_size, drop_remainder=True)
    if prefetch:
        dataset = dataset.prefetch(prefetch)
    options = tf.data.Options()
    if num_parallel_calls is None and not prefetch:
        options.experimental_optimization.inject_prefetch = False
        options.experimental_optimization.map_and_batch_fusion = False
        options.autotune.enabled = False
    elif num_parallel_calls:
        # A sleeping py_function holds its thread: without a pool this big, the shared pool (one thread per
        # core) would let only as many slow calls overlap as there are cores.
        options.threading.private_threadpool_size = num_parallel_calls + 2
    return dataset.with_options(options)
