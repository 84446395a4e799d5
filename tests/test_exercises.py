"""Every checker accepts the reference solution and rejects typical wrong answers with the right hint."""

import numpy as np
import pytest

from tutorial_lib import exercises as ex


def verdict_and_output(capsys, checker, answer):
    verdict = checker(answer)
    return bool(verdict), capsys.readouterr().out


def not_done(*args, **kwargs):
    raise NotImplementedError


@pytest.mark.parametrize("checker", [ex.check_feed_bytes, ex.check_logits_feed, ex.check_feed_batches])
def test_unfinished_exercise_reports_not_done_yet(capsys, checker):
    passed, out = verdict_and_output(capsys, checker, not_done)
    assert not passed and "not done yet" in out


def test_crashing_answer_is_reported_without_passing(capsys):
    passed, out = verdict_and_output(capsys, ex.check_feed_bytes, lambda b: 1 / 0)
    assert not passed and "ZeroDivisionError" in out


# --- 01_feeding ---------------------------------------------------------------------------------------

def test_feed_bytes(capsys):
    assert verdict_and_output(capsys, ex.check_feed_bytes, lambda b: b * 784 * 4 + b * 8)[0]
    passed, out = verdict_and_output(capsys, ex.check_feed_bytes, lambda b: b * 784 * 4)
    assert not passed and "labels are fed too" in out
    passed, out = verdict_and_output(capsys, ex.check_feed_bytes, lambda b: b * 784 + b * 8)
    assert not passed and "float32" in out
    passed, out = verdict_and_output(capsys, ex.check_feed_bytes, lambda b: 3)
    assert not passed and "expected" in out and "3136" not in out.split("Hint")[1]


def test_logits_feed(capsys):
    def reference(logits, batch_size):
        return {logits: np.zeros([batch_size, 10], np.float32)}

    assert verdict_and_output(capsys, ex.check_logits_feed, reference)[0]

    def feeds_images(logits, batch_size):
        images = logits.graph.get_tensor_by_name("images:0")
        return {images: np.zeros([batch_size, 784], np.float32)}

    passed, out = verdict_and_output(capsys, ex.check_logits_feed, feeds_images)
    assert not passed and "feed the tensor whose value" in out

    def wrong_values(logits, batch_size):
        return {logits: np.eye(batch_size, 10, dtype=np.float32) * 5}

    passed, out = verdict_and_output(capsys, ex.check_logits_feed, wrong_values)
    assert not passed and "equal logits" in out


def test_feed_batches(capsys):
    def reference(images, labels, batch_size):
        for start in range(0, len(labels), batch_size):
            yield images[start:start + batch_size], labels[start:start + batch_size]

    assert verdict_and_output(capsys, ex.check_feed_batches, reference)[0]

    def drops_last(images, labels, batch_size):
        for start in range(0, len(labels) - batch_size + 1, batch_size):
            yield images[start:start + batch_size], labels[start:start + batch_size]

    passed, out = verdict_and_output(capsys, ex.check_feed_batches, drops_last)
    assert not passed and "smaller final batch" in out

    def shuffled(images, labels, batch_size):
        order = np.random.default_rng(0).permutation(len(labels))
        yield from reference(images[order], labels[order], batch_size)

    passed, out = verdict_and_output(capsys, ex.check_feed_batches, shuffled)
    assert not passed and "order" in out


# --- 02_reading_files -----------------------------------------------------------------------------------

def test_record_defaults(capsys):
    from tutorial_lib.tf1 import tf

    assert verdict_and_output(capsys, ex.check_record_defaults, [[""], tf.constant([], tf.int32), [-99.0]])[0]
    passed, out = verdict_and_output(capsys, ex.check_record_defaults, [[""], [0], [-99.0]])
    assert not passed and "required column" in out
    passed, out = verdict_and_output(capsys, ex.check_record_defaults, [[""], tf.constant([], tf.int32), [0]])
    assert not passed and "column's type" in out
    passed, out = verdict_and_output(capsys, ex.check_record_defaults, [[""], tf.constant([], tf.int32), [0.0]])
    assert not passed and "empty field becomes" in out
    passed, out = verdict_and_output(capsys, ex.check_record_defaults, [[""], [0]])
    assert not passed and "One entry per CSV column" in out


def test_decode_cifar(capsys):
    from tutorial_lib.tf1 import tf

    def reference(record):
        raw = tf.io.decode_raw(record, tf.uint8)
        return tf.transpose(tf.reshape(raw[1:], [3, 32, 32]), [1, 2, 0]), tf.cast(raw[0], tf.int64)

    assert verdict_and_output(capsys, ex.check_decode_cifar, reference)[0]

    def straight_reshape(record):
        raw = tf.io.decode_raw(record, tf.uint8)
        return tf.reshape(raw[1:], [32, 32, 3]), tf.cast(raw[0], tf.int64)

    passed, out = verdict_and_output(capsys, ex.check_decode_cifar, straight_reshape)
    assert not passed and "red plane" in out

    def uint8_label(record):
        image, label = reference(record)
        return image, tf.cast(label, tf.uint8)

    passed, out = verdict_and_output(capsys, ex.check_decode_cifar, uint8_label)
    assert not passed and "int64" in out


def test_csv_dataset(capsys):
    from tutorial_lib import pipelines
    from tutorial_lib.tf1 import tf

    def reference(paths):
        return pipelines.dataset_read_digits(paths, "csv")

    assert verdict_and_output(capsys, ex.check_csv_dataset, reference)[0]

    def headers_as_data(paths):
        return tf.data.TextLineDataset(paths).map(pipelines.decode_csv_line)

    passed, out = verdict_and_output(capsys, ex.check_csv_dataset, headers_as_data)
    assert not passed and "header line" in out

    def first_file_only(paths):
        return pipelines.dataset_read_digits(paths[:1], "csv")

    passed, out = verdict_and_output(capsys, ex.check_csv_dataset, first_file_only)
    assert not passed and "each once" in out


# --- 03_queues_and_threads ------------------------------------------------------------------------------

def test_capacity(capsys):
    assert verdict_and_output(capsys, ex.check_capacity, lambda m, t, b: m + (t + 3) * b)[0]
    passed, out = verdict_and_output(capsys, ex.check_capacity, lambda m, t, b: (t + 3) * b)
    assert not passed and "min_after_dequeue examples" in out
    passed, out = verdict_and_output(capsys, ex.check_capacity, lambda m, t, b: m + t * b)
    assert not passed and "margin" in out


def count_reference(sess, batch):
    from tutorial_lib.tf1 import tf

    total = 0
    try:
        while True:
            total += len(sess.run(batch))
    except tf.errors.OutOfRangeError:
        return total


def test_count_examples(capsys):
    from tutorial_lib.tf1 import tf

    assert verdict_and_output(capsys, ex.check_count_examples, count_reference)[0]

    def counts_batches(sess, batch):
        count = 0
        try:
            while True:
                sess.run(batch)
                count += 1
        except tf.errors.OutOfRangeError:
            return count

    passed, out = verdict_and_output(capsys, ex.check_count_examples, counts_batches)
    assert not passed and "counted batches" in out

    def lets_it_escape(sess, batch):
        while True:
            sess.run(batch)

    passed, out = verdict_and_output(capsys, ex.check_count_examples, lets_it_escape)
    assert not passed and "catch it" in out


def test_run_with_runners(capsys):
    from tutorial_lib.tf1 import v1

    def reference(sess, fetch, steps):
        coord = v1.train.Coordinator()
        threads = v1.train.start_queue_runners(sess, coord)
        try:
            return [sess.run(fetch) for _ in range(steps)]
        finally:
            coord.request_stop()
            coord.join(threads)

    assert verdict_and_output(capsys, ex.check_run_with_runners, reference)[0]

    def forgets_runners(sess, fetch, steps):
        return [sess.run(fetch) for _ in range(steps)]

    passed, out = verdict_and_output(capsys, ex.check_run_with_runners, forgets_runners)
    assert not passed and "queue runners are started" in out

    def never_stops(sess, fetch, steps):
        v1.train.start_queue_runners(sess, v1.train.Coordinator())
        return [sess.run(fetch) for _ in range(steps)]

    passed, out = verdict_and_output(capsys, ex.check_run_with_runners, never_stops)
    assert not passed and "join the threads" in out


# --- 04_preloaded_data ----------------------------------------------------------------------------------

def test_preload(capsys):
    from tutorial_lib.tf1 import tf, v1

    def reference(array):
        placeholder = v1.placeholder(tf.as_dtype(array.dtype), array.shape)
        return v1.Variable(placeholder, trainable=False, collections=[]), placeholder

    assert verdict_and_output(capsys, ex.check_preload, reference)[0]

    def as_constant(array):
        placeholder = v1.placeholder(tf.float32, array.shape)
        return v1.Variable(tf.constant(array), trainable=False, collections=[]), placeholder

    passed, out = verdict_and_output(capsys, ex.check_preload, as_constant)
    assert not passed and "from a placeholder" in out

    def trainable(array):
        placeholder = v1.placeholder(tf.float32, array.shape)
        return v1.Variable(placeholder, collections=[]), placeholder

    passed, out = verdict_and_output(capsys, ex.check_preload, trainable)
    assert not passed and "trainable=False" in out

    def collected(array):
        placeholder = v1.placeholder(tf.float32, array.shape)
        return v1.Variable(placeholder, trainable=False), placeholder

    passed, out = verdict_and_output(capsys, ex.check_preload, collected)
    assert not passed and "collections=[]" in out


def test_graph_megabytes(capsys):
    assert verdict_and_output(capsys, ex.check_graph_megabytes, lambda n: n * 28 * 28 * 4 / 1e6)[0]
    passed, out = verdict_and_output(capsys, ex.check_graph_megabytes, lambda n: n * 28 * 28 / 1e6)
    assert not passed and "float32" in out
    passed, out = verdict_and_output(capsys, ex.check_graph_megabytes, lambda n: n * 28 * 28 * 8 / 1e6)
    assert not passed and "bytes per value" in out


def test_epoch_dataset(capsys):
    from tutorial_lib.tf1 import tf

    def reference(images, labels, batch_size, num_epochs, seed):
        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        return dataset.shuffle(len(labels), seed=seed).batch(batch_size).repeat(num_epochs)

    assert verdict_and_output(capsys, ex.check_epoch_dataset, reference)[0]

    def straddles(images, labels, batch_size, num_epochs, seed):
        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        return dataset.shuffle(len(labels), seed=seed).repeat(num_epochs).batch(batch_size)

    passed, out = verdict_and_output(capsys, ex.check_epoch_dataset, straddles)
    assert not passed and "batch, then repeat" in out

    def mixes_epochs(images, labels, batch_size, num_epochs, seed):
        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        return dataset.repeat(num_epochs).shuffle(len(labels), seed=seed).batch(batch_size)

    passed, out = verdict_and_output(capsys, ex.check_epoch_dataset, mixes_epochs)
    assert not passed and "Shuffle before repeating" in out

    def same_order(images, labels, batch_size, num_epochs, seed):
        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        return dataset.shuffle(len(labels), seed=seed, reshuffle_each_iteration=False).batch(batch_size) \
            .repeat(num_epochs)

    passed, out = verdict_and_output(capsys, ex.check_epoch_dataset, same_order)
    assert not passed and "new order each epoch" in out


# --- 05_live_dashboard ----------------------------------------------------------------------------------

def test_classify(capsys):
    def reference(wait, compute):
        share = wait / (wait + compute)
        return "input-bound" if share >= 0.2 else "moderately input-bound" if share >= 0.05 else "compute-bound"

    assert verdict_and_output(capsys, ex.check_classify, reference)[0]

    passed, out = verdict_and_output(capsys, ex.check_classify,
                                     lambda w, c: "input-bound" if w / c >= 0.2 else
                                     "moderately input-bound" if w / c >= 0.05 else "compute-bound")
    assert not passed and "wait / (wait + compute)" in out
    passed, out = verdict_and_output(capsys, ex.check_classify,
                                     lambda w, c: "input-bound" if w / (w + c) > 0.2 else
                                     "moderately input-bound" if w / (w + c) > 0.05 else "compute-bound")
    assert not passed and ">=" in out


def test_threads_needed(capsys):
    import math

    assert verdict_and_output(capsys, ex.check_threads_needed, lambda b, c, s: math.ceil(b * c / s))[0]
    passed, out = verdict_and_output(capsys, ex.check_threads_needed, lambda b, c, s: int(b * c / s))
    assert not passed and "Round up" in out
    passed, out = verdict_and_output(capsys, ex.check_threads_needed, lambda b, c, s: math.ceil(s / (b * c)))
    assert not passed and "expected" in out


def test_compute_bound_knobs(capsys):
    class Run:
        def __init__(self, fraction):
            self.fraction = fraction

        def wait_fraction(self):
            return self.fraction

    def simulated(knobs):  # producer time per batch against a 20 ms step
        producer_ms = knobs["batch_size"] * knobs["producer_cost_ms"] / knobs["reader_threads"]
        return Run((producer_ms - 20.0) / producer_ms if producer_ms > 20 else 0.01)

    good = dict(reader_threads=8, producer_cost_ms=0.5, batch_size=64, capacity=512, hidden_units=2048)
    assert verdict_and_output(capsys, lambda k: ex.check_compute_bound_knobs(k, simulated), good)[0]
    passed, out = verdict_and_output(capsys, lambda k: ex.check_compute_bound_knobs(k, simulated),
                                     {**good, "hidden_units": 8192})
    assert not passed and "only the pipeline" in out
    passed, out = verdict_and_output(capsys, lambda k: ex.check_compute_bound_knobs(k, simulated),
                                     {**good, "producer_cost_ms": 0.0})
    assert not passed and "cost is given" in out
    passed, out = verdict_and_output(capsys, lambda k: ex.check_compute_bound_knobs(k, simulated),
                                     {**good, "reader_threads": 1})
    assert not passed and "reader thread adds" in out


# --- 00_start_here --------------------------------------------------------------------------------------

def test_count_label(capsys):
    assert verdict_and_output(capsys, ex.check_count_label, lambda labels, d: int((labels == d).sum()))[0]
    passed, out = verdict_and_output(capsys, ex.check_count_label, lambda labels, d: labels == d)
    assert not passed and "add them up" in out
    passed, out = verdict_and_output(capsys, ex.check_count_label, lambda labels, d: float((labels == d).mean()))
    assert not passed and "not their share" in out


def test_invert(capsys):
    assert verdict_and_output(capsys, ex.check_invert, lambda vocab: {i: w for w, i in vocab.items()})[0]
    passed, out = verdict_and_output(capsys, ex.check_invert, lambda vocab: list(vocab))
    assert not passed and "dictionary keyed by id" in out
    passed, out = verdict_and_output(capsys, ex.check_invert, lambda vocab: dict(vocab))
    assert not passed and "Each id becomes a key" in out


def test_atom_count(capsys):
    from tutorial_lib import datasets

    def reference(molecule, symbol):
        return sum(datasets.SPECIES[int(z)] == symbol for z in molecule.species)

    assert verdict_and_output(capsys, ex.check_atom_count, reference)[0]
    passed, out = verdict_and_output(capsys, ex.check_atom_count, lambda m, s: int((m.species == s).sum()))
    assert not passed and "atomic numbers" in out


# --- 08_ptb_producer ------------------------------------------------------------------------------------

def test_epoch_size(capsys):
    assert verdict_and_output(capsys, ex.check_epoch_size, lambda n, b, s: (n // b - 1) // s)[0]
    passed, out = verdict_and_output(capsys, ex.check_epoch_size, lambda n, b, s: (n // b) // s)
    assert not passed and "subtract 1" in out


def test_window(capsys):
    def reference(raw, batch_size, num_steps, i):
        data = np.asarray(raw)[: len(raw) // batch_size * batch_size].reshape(batch_size, -1)
        return data[:, i * num_steps:(i + 1) * num_steps], data[:, i * num_steps + 1:(i + 1) * num_steps + 1]

    assert verdict_and_output(capsys, ex.check_window, reference)[0]

    def sequential(raw, batch_size, num_steps, i):
        chunk = np.asarray(raw)[i * batch_size * num_steps:(i + 1) * batch_size * num_steps + 1]
        return chunk[:-1].reshape(batch_size, num_steps), chunk[1:].reshape(batch_size, num_steps)

    passed, out = verdict_and_output(capsys, ex.check_window, sequential)
    assert not passed and "Reshape the whole stream" in out

    def unshifted(raw, batch_size, num_steps, i):
        x, _ = reference(raw, batch_size, num_steps, i)
        return x, x

    passed, out = verdict_and_output(capsys, ex.check_window, unshifted)
    assert not passed and "shifted one column" in out


def test_perplexity(capsys):
    assert verdict_and_output(capsys, ex.check_perplexity, lambda losses: np.exp(np.mean(losses)))[0]
    passed, out = verdict_and_output(capsys, ex.check_perplexity, lambda losses: np.mean(np.exp(losses)))
    assert not passed and "Average the cross-entropies first" in out
    passed, out = verdict_and_output(capsys, ex.check_perplexity, lambda losses: 2 ** np.mean(losses))
    assert not passed and "natural log" in out


# --- 06_train_and_validate ------------------------------------------------------------------------------

def test_batches_in_pass(capsys):
    assert verdict_and_output(capsys, ex.check_batches_in_pass, lambda n, b: -(-n // b))[0]
    passed, out = verdict_and_output(capsys, ex.check_batches_in_pass, lambda n, b: n // b)
    assert not passed and "smaller batch" in out


def read_to_end(sess, ids):
    from tutorial_lib.tf1 import tf

    out = []
    try:
        while True:
            out.append(sess.run(ids))
    except tf.errors.OutOfRangeError:
        return out


def test_validation_pass(capsys):
    def reference(sess, initializer, ids):
        sess.run(initializer)
        return read_to_end(sess, ids)

    assert verdict_and_output(capsys, ex.check_validation_pass, reference)[0]
    initialized = []

    def initializes_once(sess, initializer, ids):
        if not initialized:
            sess.run(initializer)
            initialized.append(True)
        return read_to_end(sess, ids)

    passed, out = verdict_and_output(capsys, ex.check_validation_pass, initializes_once)
    assert not passed and "initializer at the start of every pass" in out

    def fixed_steps(sess, initializer, ids):
        sess.run(initializer)
        return [sess.run(ids) for _ in range(2)]

    passed, out = verdict_and_output(capsys, ex.check_validation_pass, fixed_steps)
    assert not passed and "until OutOfRangeError" in out


def test_accuracy_over(capsys):
    def reference(dataset):
        right = total = 0
        for predictions, labels in dataset:
            right += int((predictions.numpy() == labels.numpy()).sum())
            total += len(labels)
        return right / total

    assert verdict_and_output(capsys, ex.check_accuracy_over, reference)[0]

    def mean_of_batches(dataset):
        return np.mean([(p.numpy() == lb.numpy()).mean() for p, lb in dataset])

    passed, out = verdict_and_output(capsys, ex.check_accuracy_over, mean_of_batches)
    assert not passed and "final batch" in out


# --- 07_one_batch_many_evaluations ----------------------------------------------------------------------

def test_armijo(capsys):
    assert verdict_and_output(capsys, ex.check_armijo, lambda f0, f1, a, s: f1 <= f0 + 1e-4 * a * s)[0]
    passed, out = verdict_and_output(capsys, ex.check_armijo, lambda f0, f1, a, s: f1 < f0)
    assert not passed and "Any decrease is not enough" in out


def test_cache(capsys):
    from tutorial_lib.tf1 import tf, v1

    def reference(batch):
        cache = v1.Variable(tf.zeros(batch.shape), trainable=False)
        return cache.value(), cache.assign(batch).op

    assert verdict_and_output(capsys, ex.check_cache, reference)[0]

    def reused_dequeue(batch):
        return batch, tf.no_op()

    passed, out = verdict_and_output(capsys, ex.check_cache, reused_dequeue)
    assert not passed and "non-trainable variable" in out


def test_atom_mask(capsys):
    assert verdict_and_output(capsys, ex.check_atom_mask, lambda s: (s > 0).astype(np.float32))[0]
    passed, out = verdict_and_output(capsys, ex.check_atom_mask, lambda s: (s > 0).sum(1))
    assert not passed and "per atom slot" in out


# --- 09_queues_to_tf_data -----------------------------------------------------------------------------

def _records(batch_first=False, drop=False):
    from tutorial_lib import datasets, pipelines

    tf = pipelines.tf

    def translate(files):
        dataset = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes()).map(pipelines.decode_fixed_record)
        if batch_first:
            return dataset.batch(32).repeat(2)
        return dataset.repeat(2).batch(32, drop_remainder=drop)
    return translate


def test_translation(capsys):
    assert verdict_and_output(capsys, ex.check_translation, _records())[0]
    passed, out = verdict_and_output(capsys, ex.check_translation, _records(batch_first=True))
    assert not passed and "does not know about epochs" in out
    passed, out = verdict_and_output(capsys, ex.check_translation, _records(drop=True))
    assert not passed and "allow_smaller_final_batch" in out


def test_ideal_seconds(capsys):
    def ideal(steps, batch_size, read_ms, step_ms, readers):
        read, step = batch_size * read_ms / 1000 / readers, step_ms / 1000
        return steps * max(read, step) + min(read, step)

    assert verdict_and_output(capsys, ex.check_ideal_seconds, ideal)[0]
    passed, out = verdict_and_output(capsys, ex.check_ideal_seconds,
                                     lambda s, b, r, t, p: s * (b * r / 1000 / p + t / 1000))
    assert not passed and "same time" in out
    passed, out = verdict_and_output(capsys, ex.check_ideal_seconds,
                                     lambda s, b, r, t, p: s * max(b * r / 1000 / p, t / 1000))
    assert not passed and "before the overlap" in out


def test_alternate(capsys):
    def reference(train, valid, k, rounds):
        batches, seen = iter(train.repeat()), []
        for _ in range(rounds):
            seen += [next(batches) for _ in range(k)] + list(valid)
        return seen

    def restarts(train, valid, k, rounds):
        return [b for _ in range(rounds) for b in [*train.take(k), *valid]]

    def no_repeat(train, valid, k, rounds):
        batches, seen = iter(train), []
        for _ in range(rounds):
            seen += [next(batches) for _ in range(k)] + list(valid)
        return seen

    assert verdict_and_output(capsys, ex.check_alternate, reference)[0]
    passed, out = verdict_and_output(capsys, ex.check_alternate, restarts)
    assert not passed and "create its iterator once" in out
    passed, out = verdict_and_output(capsys, ex.check_alternate, no_repeat)
    assert not passed and "train.repeat()" in out


# --- 10_scaling_out -----------------------------------------------------------------------------------

def test_expected_count(capsys):
    def reference(size, workers, mode):
        return size * workers if mode == "parallel_epochs" else size

    assert verdict_and_output(capsys, ex.check_expected_count, reference)[0]
    passed, out = verdict_and_output(capsys, ex.check_expected_count, lambda s, w, m: s * w)
    assert not passed and "dynamic" in out


def test_each_once(capsys):
    tf = ex.import_tensorflow()
    policy = tf.data.experimental.service.ShardingPolicy

    def answer(mode):
        return lambda d, t: d.apply(tf.data.experimental.service.distribute(processing_mode=mode, service=t))

    assert verdict_and_output(capsys, ex.check_each_once, answer(policy.DYNAMIC))[0]
    passed, out = verdict_and_output(capsys, ex.check_each_once, answer(policy.OFF))
    assert not passed and "every element twice" in out


def test_workers_needed(capsys):
    import math

    assert verdict_and_output(capsys, ex.check_workers_needed, lambda b, e, s, f: math.ceil(b * e / (s * f)))[0]
    passed, out = verdict_and_output(capsys, ex.check_workers_needed, lambda b, e, s, f: math.ceil(b * e / s))
    assert not passed and "efficiency" in out
    passed, out = verdict_and_output(capsys, ex.check_workers_needed, lambda b, e, s, f: int(b * e / (s * f)))
    assert not passed and "Round up" in out
