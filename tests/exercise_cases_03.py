"""Answers for the exercises of 03a_queues_and_threads and 03b_batching_and_shuffling (the two parts of notebook 03):
the mutation tables (tutorial_lib.exercises.mutation): RIGHT, MUTANTS and REJECTED."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from tutorial_lib import datasets, tf1
from tutorial_lib import exercises as ex
from tutorial_lib.classroom.nbgrader_course import TYPICAL_MISTAKES
from tutorial_lib.tf1 import tf, v1

RECORD_BYTES = datasets.record_bytes()


def from_source(source: str) -> Callable:
    """The function a notebook cell's source defines, run with the notebook's names (tf, v1, RECORD_BYTES)."""
    namespace: dict[str, Any] = {"tf": tf, "v1": v1, "tf1": tf1, "np": np, "RECORD_BYTES": RECORD_BYTES}
    exec(source, namespace)
    return next(value for name, value in namespace.items() if callable(value) and name not in ("tf", "v1"))


# --- 03.2 run_with_runners -------------------------------------------------------------------------------

RUN_WITH_RUNNERS_SOLUTION = """
def run_with_runners(sess, fetch, steps):
    coord = v1.train.Coordinator()
    threads = v1.train.start_queue_runners(sess, coord)
    try:
        return [sess.run(fetch) for _ in range(steps)]
    finally:
        coord.request_stop()
        coord.join(threads)
"""


def run_with_runners_error_to_coordinator(sess: Any, fetch: Any, steps: int) -> list:
    """Right, another shape: a failed run is reported to the Coordinator, whose join raises it again (a Coordinator
    that takes no error for a clean stop, so OutOfRangeError too)."""
    coord = v1.train.Coordinator(clean_stop_exception_types=())
    threads = v1.train.start_queue_runners(sess=sess, coord=coord)
    values = []
    try:
        for _ in range(steps):
            values.append(sess.run(fetch))
    except Exception as error:  # noqa: BLE001 -- handed to the Coordinator, which re-raises it in join
        coord.request_stop(error)
    finally:
        coord.request_stop()
        coord.join(threads)
    return values


def run_with_runners_forgets_runners(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong: never starts the queue runners."""
    return [sess.run(fetch) for _ in range(steps)]


def run_with_runners_never_stops(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong: starts the runners but never stops or joins them."""
    v1.train.start_queue_runners(sess, v1.train.Coordinator())
    return [sess.run(fetch) for _ in range(steps)]


def run_with_runners_no_coordinator(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong: starts the runners without a Coordinator and joins the threads (which end only when their ops fail)."""
    threads = v1.train.start_queue_runners(sess)
    try:
        return [sess.run(fetch) for _ in range(steps)]
    finally:
        for thread in threads:
            thread.join()


def run_with_runners_own_session(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong: opens (and initializes) a session of its own instead of using the one passed in."""
    own = v1.Session()
    own.run([v1.global_variables_initializer(), v1.local_variables_initializer()])
    coord = v1.train.Coordinator()
    threads = v1.train.start_queue_runners(own, coord)
    try:
        return [own.run(fetch) for _ in range(steps)]
    finally:
        coord.request_stop()
        coord.join(threads)
        own.close()


def run_with_runners_one_short(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong: counts the steps from 1, so it runs one step fewer."""
    coord = v1.train.Coordinator()
    threads = v1.train.start_queue_runners(sess, coord)
    try:
        return [sess.run(fetch) for _ in range(1, steps)]
    finally:
        coord.request_stop()
        coord.join(threads)


def run_with_runners_last_only(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong: runs every step but keeps only the last result."""
    coord = v1.train.Coordinator()
    threads = v1.train.start_queue_runners(sess, coord)
    try:
        for _ in range(steps):
            value = sess.run(fetch)
        return [value]
    finally:
        coord.request_stop()
        coord.join(threads)


def run_with_runners_stop_without_join(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong: asks the Coordinator to stop but returns without joining the threads."""
    coord = v1.train.Coordinator()
    v1.train.start_queue_runners(sess, coord)
    try:
        return [sess.run(fetch) for _ in range(steps)]
    finally:
        coord.request_stop()


def run_with_runners_no_finally(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong for 03.2: stops and joins the threads only when every run succeeds."""
    coord = v1.train.Coordinator()
    threads = v1.train.start_queue_runners(sess, coord)
    values = [sess.run(fetch) for _ in range(steps)]
    coord.request_stop()
    coord.join(threads)
    return values


def run_with_runners_returning_on(error: type, doc: str) -> Any:
    """A wrong answer that cleans up in `finally` but catches `error` and returns the results so far."""

    def answer(sess: Any, fetch: Any, steps: int) -> list:
        coord = v1.train.Coordinator()
        threads = v1.train.start_queue_runners(sess, coord)
        values = []
        try:
            for _ in range(steps):
                values.append(sess.run(fetch))
        except error:
            pass
        finally:
            coord.request_stop()
            coord.join(threads)
        return values

    answer.__doc__ = doc
    return answer


run_with_runners_swallows_error = run_with_runners_returning_on(
    tf.errors.OpError, "Wrong for 03.2: cleans up in `finally`, but returns what it has instead of letting a failed "
    "run's error out.")


def run_with_runners_stop_on_exception(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong for 03.2: runs inside coord.stop_on_exception(), whose request_stop drops OutOfRangeError as a clean stop:
    when the input runs out it returns fewer than `steps` results, without an error (other errors join re-raises)."""
    coord = v1.train.Coordinator()
    threads = v1.train.start_queue_runners(sess, coord)
    values = []
    with coord.stop_on_exception():
        for _ in range(steps):
            values.append(sess.run(fetch))
    coord.request_stop()
    coord.join(threads)
    return values


def run_with_runners_request_stop_error(sess: Any, fetch: Any, steps: int) -> list:
    """Wrong for 03.2: hands a failed run's error to a default Coordinator (request_stop(error)), which re-raises it
    in join unless it is OutOfRangeError, a clean stop to it."""
    coord = v1.train.Coordinator()
    threads = v1.train.start_queue_runners(sess=sess, coord=coord)
    values = []
    try:
        for _ in range(steps):
            values.append(sess.run(fetch))
    except Exception as error:  # noqa: BLE001 -- handed to the Coordinator, which re-raises it in join
        coord.request_stop(error)
    finally:
        coord.request_stop()
        coord.join(threads)
    return values


run_with_runners_catches_end = run_with_runners_returning_on(
    tf.errors.OutOfRangeError,
    "Wrong for 03.2: catches OutOfRangeError (the end-of-epoch loop's habit) and returns the results so far.")


def _student_loop(fetch: Any, coord: Any, *, local_init: bool = True, start: bool = True, catch: bool = True,
                  stop: bool = True, close: bool = True) -> list:
    """The session loop a student writes (init, start the runners, run until told to stop); keywords drop a step."""
    sess = v1.Session()
    sess.run([v1.global_variables_initializer()] + ([v1.local_variables_initializer()] if local_init else []))
    threads = v1.train.start_queue_runners(sess, coord) if start else []
    batches = []
    try:
        while not coord.should_stop():
            batches.append(sess.run(fetch))
    except tf.errors.OutOfRangeError:
        if not catch:
            raise
    finally:
        if stop:
            coord.request_stop()
            coord.join(threads)
        if close:
            sess.close()
    return batches


# --- 03.3 join_epoch -----------------------------------------------------------------------------------

JOIN_EPOCH_SOLUTION = """
def join_epoch(filenames, batch_size, coord):
    filename_queue = v1.train.string_input_producer(filenames, num_epochs=1, shuffle=True)
    readers = [[v1.FixedLengthRecordReader(record_bytes=RECORD_BYTES).read(filename_queue)[0]]
               for _ in filenames]
    keys = v1.train.shuffle_batch_join(readers, batch_size, capacity=1000 + (len(filenames) + 3) * batch_size,
                                       min_after_dequeue=1000, allow_smaller_final_batch=True)
    sess = v1.Session()
    sess.run([v1.global_variables_initializer(), v1.local_variables_initializer()])
    threads = v1.train.start_queue_runners(sess, coord)
    batches = []
    try:
        while not coord.should_stop():
            batches.append(sess.run(keys))
    except tf.errors.OutOfRangeError:
        pass
    finally:
        coord.request_stop()
        coord.join(threads)
        sess.close()
    return batches
"""


def join_epoch(*, num_epochs: int | None = 1, allow_smaller_final_batch: bool = True, readers: str = "several",
               shuffle: bool = True, stop: bool = True, catch: bool = True, own_graph: bool = False,
               files: str = "given", producers: str = "shared", min_after_dequeue: int = 1000,
               batch_size: int | None = None, coord_given: bool = True, close: bool = True,
               start: bool = True) -> Callable:
    """An answer to 03.3; the reference without arguments, each keyword one typical mistake.

    readers: "several" (one per file), "one" (one reader run by several threads), "two" (two readers, however many
    files); files: "given" or "all" (the course's digit files, not the ones passed in); producers: "shared" or
    "per_reader" (every reader its own filename producer over all files); batch_size: a fixed size instead of the
    one passed in; coord_given: False makes a Coordinator of its own; close: False leaves the session open; start:
    False never starts the queue runners.
    """
    def answer(filenames: list[str], size: int, coord: Any) -> list:
        if files == "all":
            filenames = [str(path) for path in datasets.digit_files("bin", "train")]
        size = batch_size or size
        count = {"several": len(filenames), "one": 1, "two": 2}[readers]
        shared = v1.train.string_input_producer(filenames, num_epochs=num_epochs, shuffle=True)
        queues = [shared if producers == "shared" or i == 0 else
                  v1.train.string_input_producer(filenames, num_epochs=num_epochs, shuffle=True)
                  for i in range(count)]
        example_list = [[v1.FixedLengthRecordReader(record_bytes=RECORD_BYTES).read(queue)[0]] for queue in queues]
        capacity = min_after_dequeue + (len(filenames) + 3) * size
        if readers == "one":  # one reader, run by several threads
            keys = v1.train.shuffle_batch(example_list[0], size, capacity, min_after_dequeue,
                                          num_threads=len(filenames),
                                          allow_smaller_final_batch=allow_smaller_final_batch)
        elif shuffle:
            keys = v1.train.shuffle_batch_join(example_list, size, capacity, min_after_dequeue,
                                               allow_smaller_final_batch=allow_smaller_final_batch)
        else:
            keys = v1.train.batch_join(example_list, size, capacity,
                                       allow_smaller_final_batch=allow_smaller_final_batch)
        if not coord_given:
            coord = v1.train.Coordinator()
        return _student_loop(keys, coord, start=start, catch=catch, stop=stop, close=close)

    if not own_graph:
        return answer

    def in_own_graph(filenames: list[str], batch_size: int, coord: Any) -> list:
        with tf.Graph().as_default():
            return answer(filenames, batch_size, coord)
    return in_own_graph


def join_epoch_queue_per_file(filenames: list[str], batch_size: int, coord: Any) -> list:
    """Right, another shape: each reader has a one-file filename queue of its own; the session in a `with` block."""
    readers = []
    for filename in filenames:
        queue = v1.train.string_input_producer([filename], num_epochs=1)
        _, record = v1.FixedLengthRecordReader(record_bytes=RECORD_BYTES).read(queue)
        readers.append([_])
    keys = v1.train.shuffle_batch_join(readers, batch_size=batch_size, capacity=2000 + 10 * batch_size,
                                       min_after_dequeue=2000, allow_smaller_final_batch=True)
    batches = []
    with v1.Session() as sess:
        sess.run(v1.local_variables_initializer())
        threads = v1.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                try:
                    batches.append(sess.run(keys))
                except tf.errors.OutOfRangeError:
                    coord.request_stop()
        finally:
            coord.request_stop()
            coord.join(threads)
    return batches


def join_epoch_never_asks(filenames: list[str], batch_size: int, coord: Any) -> list:
    """Wrong: starts the runners under the coord but loops with `while True`, never asking it should_stop()."""
    filename_queue = v1.train.string_input_producer(filenames, num_epochs=1)
    readers = [[v1.FixedLengthRecordReader(record_bytes=RECORD_BYTES).read(filename_queue)[0]] for _ in filenames]
    keys = v1.train.shuffle_batch_join(readers, batch_size, 1000 + (len(filenames) + 3) * batch_size, 1000,
                                       allow_smaller_final_batch=True)
    batches = []
    with v1.Session() as sess:
        sess.run(v1.local_variables_initializer())
        threads = v1.train.start_queue_runners(sess, coord)
        try:
            for _ in itertools.count():
                batches.append(sess.run(keys))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads)
    return batches


# --- 03a.1 threads_started, 03a.3 one_epoch_keys, 03b.2 mean_displacement ---------------------------------------

ONE_EPOCH_KEYS_SOLUTION = """
def one_epoch_keys(filenames, batch_size):
    filename_queue = v1.train.string_input_producer(filenames, num_epochs=1, shuffle=False)
    key, _ = v1.FixedLengthRecordReader(record_bytes=RECORD_BYTES).read(filename_queue)
    return tf1.drain(v1.train.batch([key], batch_size, allow_smaller_final_batch=True))
"""


def one_epoch_keys(*, files: str = "given", what: str = "keys", num_epochs: int | None = 1,
                   allow_smaller_final_batch: bool = True, batch_size: int | None = None,
                   local_init: bool = True, join: bool = True) -> Callable:
    """An answer written as a session loop of its own, each option a way to get it wrong."""
    def answer(filenames: list[str], size: int) -> list:
        names = [str(p) for p in datasets.digit_files("bin", "train")] if files == "course" else filenames
        filename_queue = v1.train.string_input_producer(names, num_epochs=num_epochs, shuffle=False)
        key, record = v1.FixedLengthRecordReader(record_bytes=RECORD_BYTES).read(filename_queue)
        value = key if what == "keys" else tf.cast(tf.io.decode_raw(record, tf.uint8)[0], tf.int64)
        batch = v1.train.batch([value], batch_size or size, allow_smaller_final_batch=allow_smaller_final_batch)
        return _student_loop(batch, v1.train.Coordinator(), local_init=local_init, stop=join, close=join)
    return answer


def mean_displacement_by_hand(values: Any) -> float:
    """Right, another shape: a Python sum over enumerate, averaged, then divided by N."""
    return sum(abs(i - v) for i, v in enumerate(values)) / len(values) / len(values)


def mean_displacement_spread(values: Any) -> float:
    """Wrong: how far the values lie from their mean, not how far each moved."""
    values = np.asarray(values)
    return float(np.mean(np.abs(values - values.mean()))) / len(values)


def mean_displacement_array_only(values: Any) -> float:
    """Wrong: needs a NumPy array (.size), fails on a list."""
    return float(np.mean(np.abs(np.arange(values.size) - values))) / values.size


def mean_displacement_array_result(values: Any) -> Any:
    """Wrong: returns a one-element array, not a float."""
    return np.abs(np.arange(len(values)) - np.asarray(values)).mean(keepdims=True) / len(values)


# --- the mutation tables (tutorial_lib.exercises.mutation) ----------------------------------------------------

RIGHT = [
    (ex.check_threads_started, lambda threads_per_runner, coordinated:
        sum(threads_per_runner) + (len(threads_per_runner) if coordinated else 0), "the notebook's solution"),
    (ex.check_threads_started, lambda counts, coordinated: sum(n + bool(coordinated) for n in counts),
     "each runner's ops plus its closer"),
    (ex.check_one_epoch_keys, from_source(ONE_EPOCH_KEYS_SOLUTION), "the notebook's solution"),
    (ex.check_one_epoch_keys, one_epoch_keys(), "a session loop of its own under a Coordinator"),
    (ex.check_mean_displacement, lambda values: float(np.mean(np.abs(np.arange(len(values)) - np.asarray(values))))
     / len(values), "the notebook's solution"),
    (ex.check_mean_displacement, mean_displacement_by_hand, "a Python sum over enumerate"),
    (ex.check_capacity, lambda min_after_dequeue, num_threads, batch_size:
        min_after_dequeue + (num_threads + 3) * batch_size, "the reference"),
    (ex.check_capacity, lambda min_after_dequeue, num_threads, batch_size:
        sum([min_after_dequeue, num_threads * batch_size, 3 * batch_size]), "the three parts summed"),
    (ex.check_run_with_runners, from_source(RUN_WITH_RUNNERS_SOLUTION), "the notebook's solution"),
    (ex.check_run_with_runners, run_with_runners_error_to_coordinator,
     "error handed to a Coordinator with no clean-stop errors, re-raised by its join"),
    (ex.check_join_epoch, from_source(JOIN_EPOCH_SOLUTION), "the notebook's solution"),
    (ex.check_join_epoch, join_epoch_queue_per_file, "a filename queue per file, session in a with block"),
]

_TYPICAL = {**TYPICAL_MISTAKES["03a_queues_and_threads"], **TYPICAL_MISTAKES["03b_batching_and_shuffling"]}

MUTANTS = [
    (ex.check_threads_started, lambda c, k: len(c) * (2 if k else 1), "per_op", "one thread per runner"),
    (ex.check_threads_started, lambda c, k: sum(c), "closers", "no close-on-stop threads"),
    (ex.check_threads_started, from_source(_TYPICAL["threads_started"][0]), "closers", "nbgrader's typical mistake"),
    (ex.check_threads_started, lambda c, k: 2 * sum(c) if k else sum(c), "closers_per_runner",
     "a closer per enqueue thread"),
    (ex.check_threads_started, lambda c, k: sum(c) + len(c), "no_coordinator", "closers even without a Coordinator"),
    (ex.check_threads_started, lambda c, k: float(sum(c) + (len(c) if k else 0)), "whole", "a float count"),
    (ex.check_one_epoch_keys, one_epoch_keys(files="course"), "given_files", "reads the course's files"),
    (ex.check_one_epoch_keys, one_epoch_keys(what="labels"), "keys", "batches the labels, not the keys"),
    (ex.check_one_epoch_keys, one_epoch_keys(num_epochs=None), "one_epoch", "no epoch limit"),
    (ex.check_one_epoch_keys, one_epoch_keys(allow_smaller_final_batch=False), "final_batch", "drops the last batch"),
    (ex.check_one_epoch_keys, one_epoch_keys(batch_size=64), "batch_size", "the notebook's 64, not batch_size"),
    (ex.check_one_epoch_keys, one_epoch_keys(local_init=False), "local_init", "global variables only"),
    (ex.check_one_epoch_keys, one_epoch_keys(join=False), "no_threads", "never stops, joins or closes"),
    (ex.check_mean_displacement, mean_displacement_spread, "in_order", "distance from the mean value"),
    (ex.check_mean_displacement, lambda v: float(np.mean(np.arange(len(v)) - np.asarray(v))) / len(v), "absolute",
     "no absolute value"),
    (ex.check_mean_displacement, from_source(_TYPICAL["mean_displacement"][0]), "absolute",
     "nbgrader's typical mistake"),
    (ex.check_mean_displacement, lambda v: float(np.sum(np.abs(np.arange(len(v)) - np.asarray(v))))
     / (len(v) - 1), "by_length", "divides by N - 1"),
    (ex.check_mean_displacement, lambda v: float(np.mean(np.abs(np.arange(len(v)) - np.asarray(v)))) / 2000,
     "by_length", "the notebook's N = 2000"),
    (ex.check_mean_displacement, lambda v: float(np.mean(np.abs(np.arange(1, len(v) + 1) - np.asarray(v))))
     / len(v), "positions", "positions from 1"),
    (ex.check_mean_displacement, mean_displacement_array_only, "any_sequence", "values.size: arrays only"),
    (ex.check_mean_displacement, mean_displacement_array_result, "a_float", "a one-element array"),
    (ex.check_capacity, lambda m, t, b: (t + 3) * b, "keeps", "forgets the examples kept back"),
    (ex.check_capacity, lambda m, t, b: m + 3 * b, "per_thread", "only the margin, no batch per thread"),
    (ex.check_capacity, lambda m, t, b: m + t * b, "margin", "no margin"),
    (ex.check_capacity, lambda m, t, b: m + 3 * t * b, "margin_once", "3 batches per thread"),
    (ex.check_capacity, lambda m, t, b: m + (t + 3.0) * b, "whole_examples", "a float count"),
    (ex.check_capacity, lambda m, t, b: 1000 + (4 + 3) * 32, "any_arguments", "the value for one example"),
    (ex.check_capacity, from_source(_TYPICAL["capacity_for"][0]), "keeps", "nbgrader's typical mistake"),
    (ex.check_run_with_runners, run_with_runners_forgets_runners, "starts", "never starts the runners"),
    (ex.check_run_with_runners, run_with_runners_no_coordinator, "coordinator",
     "start_queue_runners without a Coordinator, threads joined by hand"),
    (ex.check_run_with_runners, run_with_runners_own_session, "given_session", "opens a session of its own"),
    (ex.check_run_with_runners, run_with_runners_one_short, "once_per_step", "range(1, steps)"),
    (ex.check_run_with_runners, run_with_runners_last_only, "once_per_step", "keeps only the last result"),
    (ex.check_run_with_runners, run_with_runners_never_stops, "joins", "never stops or joins"),
    (ex.check_run_with_runners, run_with_runners_stop_without_join, "joins", "request_stop without join"),
    (ex.check_run_with_runners, from_source(_TYPICAL["run_with_runners"][0]), "joins",
     "nbgrader's typical mistake"),
    (ex.check_run_with_runners, run_with_runners_no_finally, "finally", "cleans up only when every run succeeds"),
    (ex.check_run_with_runners, run_with_runners_swallows_error, "error_through", "returns instead of raising"),
    (ex.check_run_with_runners, run_with_runners_stop_on_exception, "out_of_range",
     "coord.stop_on_exception(): OutOfRangeError taken for a clean stop"),
    (ex.check_run_with_runners, run_with_runners_request_stop_error, "out_of_range",
     "request_stop(error) to a default Coordinator: OutOfRangeError dropped"),
    (ex.check_run_with_runners, run_with_runners_catches_end, "out_of_range", "catches OutOfRangeError, returns the "
     "results so far"),
    (ex.check_join_epoch, join_epoch(own_graph=True), "default_graph", "builds in a graph of its own"),
    (ex.check_join_epoch, join_epoch(files="all"), "given_files", "reads the course's files, not those passed in"),
    (ex.check_join_epoch, join_epoch(readers="one"), "one_reader_per_file", "one reader run by several threads"),
    (ex.check_join_epoch, join_epoch(readers="two"), "one_reader_per_file", "two readers, however many files"),
    (ex.check_join_epoch, join_epoch(producers="per_reader"), "shared_queue",
     "a filename producer over all files per reader"),
    (ex.check_join_epoch, join_epoch(num_epochs=None), "one_epoch", "no epoch limit"),
    (ex.check_join_epoch, join_epoch(allow_smaller_final_batch=False), "final_batch", "drops the last batch"),
    (ex.check_join_epoch, join_epoch(batch_size=64), "batch_size", "the notebook's 64, not batch_size"),
    (ex.check_join_epoch, join_epoch(shuffle=False), "shuffled", "batch_join: files mixed, not shuffled"),
    (ex.check_join_epoch, join_epoch(min_after_dequeue=10), "pool", "a pool of 10"),
    (ex.check_join_epoch, join_epoch(start=False), "starts", "never starts the runners"),
    (ex.check_join_epoch, join_epoch(coord_given=False), "given_coord", "a Coordinator of its own"),
    (ex.check_join_epoch, join_epoch_never_asks, "given_coord", "while True, never asks should_stop"),
    (ex.check_join_epoch, join_epoch(catch=False), "catches_end", "lets OutOfRangeError out"),
    (ex.check_join_epoch, join_epoch(stop=False), "joins", "never stops or joins"),
    (ex.check_join_epoch, join_epoch(close=False), "closes_session", "leaves its session open"),
]

REJECTED = [
    (ex.check_threads_started, ex.TODO, "not done yet"),
    (ex.check_one_epoch_keys, ex.TODO, "not done yet"),
    (ex.check_mean_displacement, ex.TODO, "not done yet"),
    (ex.check_capacity, ex.TODO, "not done yet"),
    (ex.check_run_with_runners, ex.TODO, "not done yet"),
    (ex.check_join_epoch, ex.TODO, "not done yet"),
]
