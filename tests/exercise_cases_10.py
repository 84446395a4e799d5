"""Answers for notebook 10's exercises (loaded by tests/test_exercises.py and by the mutation report): right answers
written several ways, and one mutant or more per requirement of each checker."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from tutorial_lib import datasets, pipelines
from tutorial_lib import exercises as ex
from tutorial_lib.tf1 import tf

# --- 10.1: translate a queue pipeline -------------------------------------------------------------------------


def translate(files):
    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32)


def translate_per_file(files: list[str]) -> Any:
    """Right: one file after the other (interleave with cycle_length=1), decoded in parallel, order kept."""
    files_ds = tf.data.Dataset.from_tensor_slices(files)
    records = files_ds.interleave(lambda f: tf.data.FixedLengthRecordDataset(f, datasets.record_bytes()),
                                  cycle_length=1)
    decoded = records.map(pipelines.decode_fixed_record, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    return decoded.repeat(2).batch(32, drop_remainder=False).prefetch(1)


def translate_own_decoder(files: list[str]) -> Any:
    """Right: decodes by hand (label byte, then the depth-major image) and repeats the file list."""
    def decode(record):
        raw = tf.io.decode_raw(record, tf.uint8)
        image = tf.transpose(tf.reshape(raw[1:], [1, 28, 28]), [1, 2, 0])
        return image, tf.cast(raw[0], tf.int64)
    files_twice = tf.data.Dataset.from_tensor_slices(files).repeat(2)
    return files_twice.flat_map(lambda f: tf.data.FixedLengthRecordDataset(f, 785)).map(decode).batch(32)


def translation(decode: Callable | None = None) -> Callable:
    """An answer to 10.1 (fixed-length records, repeated twice, batched by 32) with its own record decoder."""
    def translate(files: list[str]) -> Any:
        records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())
        return records.map(decode or pipelines.decode_fixed_record).repeat(2).batch(32)
    return translate


def decode_scaled(record: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Wrong: scales the pixels to [0, 1], which the TF1 pipeline does not."""
    image, label = pipelines.decode_fixed_record(record)
    return pipelines.scale(image), label


def decode_with_label_byte(record: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Wrong: takes the image from the record's first 784 bytes, label byte included."""
    raw = tf.io.decode_raw(record, tf.uint8)
    return tf.reshape(raw[:784], [28, 28, 1]), tf.cast(raw[0], tf.int64)


def decode_float(record: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Wrong: casts the pixels to float32 (unscaled), which the TF1 pipeline does not."""
    image, label = pipelines.decode_fixed_record(record)
    return tf.cast(image, tf.float32), label


def decode_int32_label(record: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Wrong: casts the label to int32."""
    image, label = pipelines.decode_fixed_record(record)
    return image, tf.cast(label, tf.int32)


def decode_flat(record: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Wrong: flattens the image to 784 values."""
    image, label = pipelines.decode_fixed_record(record)
    return tf.reshape(image, [784]), label


def translate_batch_first(files):
    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).batch(32).repeat(2)


def translate_drop(files):
    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32, drop_remainder=True)


def translate_one_epoch(files):
    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).batch(32)


def translate_forever(files):
    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).repeat().batch(32)


def translate_first_file(files):
    records = tf.data.FixedLengthRecordDataset(files[0], datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32)


def translate_course_files(files):
    course_files = [str(f) for f in datasets.digit_files("bin", "test")]
    records = tf.data.FixedLengthRecordDataset(course_files, datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32)


def translate_list_files(files):
    """Wrong: `list_files` puts the files in its own order (sorted here; by default shuffled, which on the checker's
    three files keeps the given order one time in six, so the mutant would be accepted by chance)."""
    records = tf.data.FixedLengthRecordDataset(tf.data.Dataset.list_files(files, shuffle=False),
                                               datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32)


def translate_unordered(files):
    """Wrong: a parallel map allowed to reorder (an independent reader's; in order on most runs, not guaranteed)."""
    dataset = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes()).repeat(2)
    dataset = dataset.map(pipelines.decode_fixed_record, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)
    return dataset.batch(32)


def translate_sorted(files):
    records = tf.data.FixedLengthRecordDataset(sorted(files), datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32)


def translate_interleaved(files):
    records = tf.data.Dataset.from_tensor_slices(files).interleave(
        lambda f: tf.data.FixedLengthRecordDataset(f, datasets.record_bytes()), cycle_length=len(files))
    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32)


def translate_shuffled(files):
    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())
    return records.map(pipelines.decode_fixed_record).shuffle(1000).repeat(2).batch(32)


# --- 10.2: the ideal time -------------------------------------------------------------------------------------


def ideal_seconds(steps, batch_size, read_ms, step_ms, readers):
    read = batch_size * read_ms / 1000 / readers
    step = step_ms / 1000
    return steps * max(read, step) + min(read, step)


def ideal_seconds_fill_and_drain(steps: int, batch_size: int, read_ms: float, step_ms: float, readers: int) -> float:
    """Right: the first read and the last step outside the overlap, steps - 1 overlapped rounds."""
    per_reader = batch_size // readers
    read_s, step_s = per_reader * read_ms * 1e-3, step_ms * 1e-3
    return read_s + (steps - 1) * max(read_s, step_s) + step_s


def ideal_no_overlap(steps, batch_size, read_ms, step_ms, readers):
    return steps * (batch_size * read_ms / 1000 / readers + step_ms / 1000)


def ideal_no_fill(steps, batch_size, read_ms, step_ms, readers):
    return steps * max(batch_size * read_ms / 1000 / readers, step_ms / 1000)


def ideal_fill_with_slower(steps, batch_size, read_ms, step_ms, readers):
    read, step = batch_size * read_ms / 1000 / readers, step_ms / 1000
    return (steps + 1) * max(read, step)


def ideal_ignores_readers(steps, batch_size, read_ms, step_ms, readers):
    read, step = batch_size * read_ms / 1000, step_ms / 1000
    return steps * max(read, step) + min(read, step)


def ideal_per_batch_read(steps, batch_size, read_ms, step_ms, readers):
    read, step = read_ms / 1000 / readers, step_ms / 1000
    return steps * max(read, step) + min(read, step)


def ideal_milliseconds(steps, batch_size, read_ms, step_ms, readers):
    read, step = batch_size * read_ms / readers, step_ms
    return steps * max(read, step) + min(read, step)


def ideal_reading_paces(steps, batch_size, read_ms, step_ms, readers):
    read, step = batch_size * read_ms / 1000 / readers, step_ms / 1000
    return steps * read + step


def ideal_step_paces(steps, batch_size, read_ms, step_ms, readers):
    read, step = batch_size * read_ms / 1000 / readers, step_ms / 1000
    return steps * step + read


# --- 10.3: a feedable iterator, without one --------------------------------------------------------------------


def alternate(train, valid, k, rounds):
    train_batches = iter(train.repeat())
    seen = []
    for _ in range(rounds):
        seen += [next(train_batches) for _ in range(k)]
        seen += list(valid)
    return seen


def alternate_cycle(train: Any, valid: Any, k: int, rounds: int) -> list:
    """Right: itertools.cycle over the training batches, a for loop over validation."""
    batches = itertools.cycle(train)
    seen = []
    for _ in range(rounds):
        seen.extend(itertools.islice(batches, k))
        for batch in valid:
            seen.append(batch)
    return seen


def alternate_restart_on_end(train: Any, valid: Any, k: int, rounds: int) -> list:
    """Right: starts a new pass over train by hand when the old one ends."""
    it, seen = iter(train), []
    for _ in range(rounds):
        for _ in range(k):
            try:
                seen.append(next(it))
            except StopIteration:
                it = iter(train)
                seen.append(next(it))
        seen.extend(valid.as_numpy_iterator())
    return seen


def alternate_restarts(train: Any, valid: Any, k: int, rounds: int) -> list:
    """Wrong: restarts training every round."""
    return [b for _ in range(rounds) for b in [*train.take(k), *valid]]


def alternate_repeat_take(train, valid, k, rounds):
    train = train.repeat()
    seen = []
    for _ in range(rounds):
        seen += list(train.take(k))
        seen += list(valid)
    return seen


def alternate_no_repeat(train: Any, valid: Any, k: int, rounds: int) -> list:
    """Wrong: the training set runs out."""
    batches, seen = iter(train), []
    for _ in range(rounds):
        seen += [next(batches) for _ in range(k)] + list(valid)
    return seen


def alternate_islice(train, valid, k, rounds):
    batches = iter(train)
    seen = []
    for _ in range(rounds):
        seen += list(itertools.islice(batches, k))
        seen += list(valid)
    return seen


def alternate_rebatched(train, valid, k, rounds):
    batches = iter(train.unbatch().repeat().batch(3))
    seen = []
    for _ in range(rounds):
        seen += [next(batches) for _ in range(k)]
        seen += list(valid)
    return seen


def alternate_one_too_many(train, valid, k, rounds):
    batches = iter(train.repeat())
    seen = []
    for _ in range(rounds):
        for i, batch in enumerate(batches):
            seen.append(batch)
            if i == k:
                break
        seen += list(valid)
    return seen


def alternate_partial_validation(train, valid, k, rounds):
    batches = iter(train.repeat())
    seen = []
    for _ in range(rounds):
        seen += [next(batches) for _ in range(k)]
        seen += list(valid.take(k))
    return seen


def alternate_validation_once(train, valid, k, rounds):
    batches, valid_batches = iter(train.repeat()), iter(valid)
    seen = []
    for _ in range(rounds):
        seen += [next(batches) for _ in range(k)]
        seen += list(valid_batches)
    return seen


def alternate_validation_first(train, valid, k, rounds):
    batches = iter(train.repeat())
    seen = []
    for _ in range(rounds):
        seen += list(valid)
        seen += [next(batches) for _ in range(k)]
    return seen



# --- the mutation tables (tutorial_lib.exercises.mutation) ----------------------------------------------------

RIGHT = [
    (ex.check_translation, translate, "the notebook's solution"),
    (ex.check_translation, translate_per_file, "one file after the other, parallel decoding, prefetch"),
    (ex.check_translation, translate_own_decoder, "a hand-written decoder, the file list repeated"),
    (ex.check_ideal_seconds, ideal_seconds, "the notebook's solution"),
    (ex.check_ideal_seconds, ideal_seconds_fill_and_drain, "fill and drain, then steps - 1 rounds"),
    (ex.check_alternate, alternate, "the notebook's solution"),
    (ex.check_alternate, alternate_cycle, "itertools.cycle and islice"),
    (ex.check_alternate, alternate_restart_on_end, "a new training pass started by hand"),
]

MUTANTS = [
    (ex.check_translation, translate_batch_first, "epochs_across", "batches each epoch, then repeats"),
    (ex.check_translation, translate_drop, "final_batch", "drop_remainder=True"),
    (ex.check_translation, translate_one_epoch, "epochs", "forgets the second epoch"),
    (ex.check_translation, translate_forever, "epochs", "repeat() forever"),
    (ex.check_translation, translate_first_file, "files", "reads only the first file"),
    (ex.check_translation, translate_course_files, "files", "reads the course's files, not those handed in"),
    (ex.check_translation, translate_list_files, "order", "Dataset.list_files (sorts the files)"),
    (ex.check_translation, translate_sorted, "order", "sorts the file names"),
    (ex.check_translation, translate_interleaved, "order", "interleaves the files"),
    (ex.check_translation, translate_shuffled, "order", "shuffles the records"),
    (ex.check_translation, translate_unordered, "order", "a parallel map with deterministic=False"),
    (ex.check_translation, translation(decode_flat), "shape", "flattens the image"),
    (ex.check_translation, translation(decode_scaled), "unscaled", "scales the pixels to [0, 1]"),
    (ex.check_translation, translation(decode_float), "dtypes", "casts the pixels to float32"),
    (ex.check_translation, translation(decode_int32_label), "dtypes", "casts the labels to int32"),
    (ex.check_translation, translation(decode_with_label_byte), "decode", "the label byte inside the image"),
    (ex.check_ideal_seconds, ideal_no_overlap, "overlap", "adds reading and stepping"),
    (ex.check_ideal_seconds, ideal_no_fill, "fill", "only the overlapped rounds"),
    (ex.check_ideal_seconds, ideal_fill_with_slower, "cheaper", "one more round of the slower stage"),
    (ex.check_ideal_seconds, ideal_ignores_readers, "readers", "ignores the readers"),
    (ex.check_ideal_seconds, ideal_per_batch_read, "per_element", "read_ms per batch"),
    (ex.check_ideal_seconds, ideal_milliseconds, "seconds", "returns milliseconds"),
    (ex.check_ideal_seconds, ideal_reading_paces, "slower", "reading always sets the pace"),
    (ex.check_ideal_seconds, ideal_step_paces, "slower", "the step always sets the pace"),
    (ex.check_alternate, alternate_restarts, "continue", "train.take(k) every round"),
    (ex.check_alternate, alternate_repeat_take, "continue", "train.repeat().take(k) every round"),
    (ex.check_alternate, alternate_no_repeat, "repeat", "next() on iter(train): StopIteration"),
    (ex.check_alternate, alternate_islice, "repeat", "islice on iter(train): training stops"),
    (ex.check_alternate, alternate_rebatched, "repeat", "re-batches across the epoch boundary"),
    (ex.check_alternate, alternate_one_too_many, "k_batches", "k + 1 training batches per round"),
    (ex.check_alternate, alternate_partial_validation, "full_pass", "valid.take(k)"),
    (ex.check_alternate, alternate_validation_once, "fresh_pass", "one validation iterator for all rounds"),
    (ex.check_alternate, alternate_validation_first, "order", "validation before training"),
]

REJECTED = [
    (ex.check_translation, ex.TODO, "not done yet"),
    (ex.check_ideal_seconds, ex.TODO, "not done yet"),
    (ex.check_alternate, ex.TODO, "not done yet"),
]
