"""Checkers for notebook 03a_queues_and_threads: the threads start_queue_runners starts, runners started and
stopped, one clean epoch."""

from __future__ import annotations

import numbers
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tutorial_lib.env import import_tensorflow
from tutorial_lib.exercises.core import Mismatch, Verdict, expect_equal, requirements, run_check


def _labels_pipeline(count: int, batch_size: int):
    """Batches of the numbers 0..count-1, in order, for one epoch (queue runners registered, not started)."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    value = v1.train.range_input_producer(count, num_epochs=1, shuffle=False).dequeue()
    return v1.train.batch([value], batch_size=batch_size, allow_smaller_final_batch=True)


class _StartsRecorded:
    """While active, record every (session, coordinator) that QueueRunner.create_threads is called with (what
    start_queue_runners passes on), so the checker sees whether the runners ran in its session, under a Coordinator."""

    def __init__(self) -> None:
        self.starts: list[tuple] = []

    def __enter__(self) -> _StartsRecorded:
        runner_class = import_tensorflow().compat.v1.train.QueueRunner
        self._class, self._original = runner_class, runner_class.__dict__["create_threads"]
        original, starts = self._original, self.starts

        def create_threads(runner, sess, coord=None, daemon=False, start=False):
            starts.append((sess, coord))
            return original(runner, sess, coord=coord, daemon=daemon, start=start)

        runner_class.create_threads = create_threads
        return self

    def __exit__(self, *exc) -> None:
        self._class.create_threads = self._original


def _run_and_find_leaks(run_with_runners: Callable, fetch_for: Callable, steps: int, labels: int = 1000) -> tuple:
    """Call the answer on a fresh pipeline of `labels` labels in batches of 10; return (values or None, the error it
    raised, leaked threads, the (session, coordinator) pairs the runners were started with, the checker's session)."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    before = set(threading.enumerate())
    values, raised = None, None
    with tf.Graph().as_default():
        fetch = fetch_for(_labels_pipeline(labels, 10))
        config = v1.ConfigProto(operation_timeout_in_ms=3000)  # a forgotten runner fails, not hangs
        with v1.Session(config=config) as sess, _StartsRecorded() as recorded:
            sess.run([v1.global_variables_initializer(), v1.local_variables_initializer()])
            try:
                values = run_with_runners(sess, fetch, steps)
            except tf.errors.OpError as error:
                raised = error
            finally:
                leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
                if leaked:
                    sess.close()  # cancels the blocked enqueues, so the leaked threads end
    return values, raised, leaked, recorded.starts, sess


def _fails_on_third_batch(batch):
    """The batch, checked so that the third run (labels 20..29) fails with InvalidArgumentError."""
    tf = import_tensorflow()
    check = tf.debugging.assert_less(batch, tf.constant(20, batch.dtype), message="the checker's failing run")
    with tf.control_dependencies([check]):
        return tf.identity(batch)


RUN_STEPS = 7  # an odd count, not the statement's 3
SHORT_LABELS, SHORT_STEPS = 25, 5  # batches of 10, 10 and 5, then OutOfRangeError: the input runs out first


@requirements(
    ("starts", "starts the queue runners (nothing fills the queues otherwise)", "queue runners are started"),
    ("coordinator", "starts them under a Coordinator, so that one request stops them all", "under a Coordinator"),
    ("given_session", "starts them and runs the fetch in the session it was given", "the session you were given"),
    ("once_per_step", "runs the fetch exactly `steps` times and returns those results, in order", "once per step"),
    ("joins", "asks the Coordinator to stop and joins the threads before returning", "join the threads"),
    ("finally", "stops and joins the threads also when a run raises", "finally"),
    ("error_through", "lets a failed run's error reach the caller", "let the error through"),
    ("out_of_range", "lets OutOfRangeError reach the caller too, when the input runs out before `steps` runs (a "
     "Coordinator takes it for a clean stop: handed to one, it is not raised again)", "OutOfRangeError included"),
)
def check_run_with_runners(run_with_runners: Callable) -> Verdict:
    """Exercise 03a.2: start runners under a Coordinator, run `steps` times, stop and join threads (even on error)."""
    tf = import_tensorflow()

    def check() -> None:
        values, raised, leaked, starts, sess = _run_and_find_leaks(run_with_runners, lambda batch: batch, RUN_STEPS)
        if isinstance(raised, tf.errors.DeadlineExceededError) and not starts:
            raise Mismatch(f"{RUN_STEPS} batches", "a dequeue that waited forever",
                           "Nothing fills the queue until the queue runners are started.")
        if starts and any(started is not sess for started, _ in starts):
            raise Mismatch("the queue runners started in the session passed in", "runners started in another "
                           "session", "Use the session you were given: it is initialized and it runs the fetch.")
        if starts and any(coord is None for _, coord in starts):
            raise Mismatch("runner threads started with a Coordinator", "start_queue_runners without one",
                           "Start the queue runners under a Coordinator (pass it to start_queue_runners): then one "
                           "request_stop stops them all, and its join waits for them.")
        if raised is not None:
            raise raised
        if leaked:
            raise Mismatch("no runner threads left", f"{len(leaked)} still running",
                           "Ask the Coordinator to stop, then join the threads, before returning.")
        if not isinstance(values, list | tuple) or len(values) != RUN_STEPS:
            got = f"{len(values)} results" if isinstance(values, list | tuple) else type(values).__name__
            raise Mismatch(f"a list of {RUN_STEPS} results for steps={RUN_STEPS}", got,
                           "Run the fetch once per step and return the list of what each run gave.")
        expect_equal(np.concatenate([np.ravel(v) for v in values]), np.arange(10 * RUN_STEPS),
                     "Run the fetch once per step and return the list of what each run gave, in order.", "values ")

        values, raised, leaked, _, _ = _run_and_find_leaks(run_with_runners, _fails_on_third_batch, 5)
        if leaked:
            raise Mismatch("no runner threads left after a run that fails", f"{len(leaked)} still running",
                           "Stop and join the threads also when a run raises: put that in a `finally:` block.")
        if not isinstance(raised, tf.errors.InvalidArgumentError):
            got = "a list of results" if raised is None else type(raised).__name__
            raise Mismatch("the failing run's InvalidArgumentError to reach the caller", got,
                           "Do not swallow a run's error: clean up on the way out and let the error through.")

        # The input runs out after 3 runs of 5: the 4th run's OutOfRangeError must reach the caller like any other
        # error. A Coordinator treats OutOfRangeError as a clean stop (its clean_stop_exception_types), so an
        # answer that hands the error to it (coord.stop_on_exception(), coord.request_stop(error)) or catches it
        # returns fewer results than `steps`, without an error.
        values, raised, leaked, _, _ = _run_and_find_leaks(run_with_runners, lambda batch: batch, SHORT_STEPS,
                                                           SHORT_LABELS)
        if leaked:
            raise Mismatch("no runner threads left after a run that fails", f"{len(leaked)} still running",
                           "Stop and join the threads also when a run raises: put that in a `finally:` block.")
        if not isinstance(raised, tf.errors.OutOfRangeError):
            if raised is not None:
                got = type(raised).__name__
            elif isinstance(values, list | tuple):
                got = f"{len(values)} results and no error"
            else:
                got = type(values).__name__
            batches = -(-SHORT_LABELS // 10)
            raise Mismatch(f"OutOfRangeError from run {batches + 1} of steps={SHORT_STEPS} (the input holds "
                           f"{batches} batches)", got,
                           "Let every run's error reach the caller, OutOfRangeError included: do not catch it, and "
                           "do not leave it to the Coordinator (coord.stop_on_exception(), coord.request_stop(error)"
                           "): a Coordinator takes OutOfRangeError for a clean stop, and its join does not raise it.")
    return run_check("Exercise 2 (runners started and stopped)", check)


class _SessionsRecorded:
    """While active, record every tf.compat.v1.Session and train.Coordinator created (to see that the answer
    closes its own, and to stop what it left running)."""

    def __enter__(self) -> _SessionsRecorded:
        v1 = import_tensorflow().compat.v1
        self.sessions: list = []
        self.coordinators: list = []
        self._saved = [(cls, cls.__dict__["__init__"]) for cls in (v1.Session, v1.train.Coordinator)]
        for (cls, original), made in zip(self._saved, (self.sessions, self.coordinators), strict=True):
            cls.__init__ = self._recording(original, made)
        return self

    @staticmethod
    def _recording(original, made: list):
        def __init__(instance, *args, **kwargs):
            original(instance, *args, **kwargs)
            made.append(instance)
        return __init__

    def __exit__(self, *exc) -> None:
        for cls, original in self._saved:
            cls.__init__ = original

    def still_open(self) -> list:
        return [s for s in self.sessions if not s._closed]

    def stop_what_was_left(self, threads: list[threading.Thread]) -> None:
        """Stop an answer's leftovers: request a stop from its coordinators (their close-on-stop threads wait for
        one), close its sessions (cancelling what its enqueue threads wait for), then join those threads."""
        for coord in self.coordinators:
            coord.request_stop()
        for session in self.still_open():
            session.close()
        for thread in threads:
            thread.join(timeout=5)





# --- Exercise 1 ---------------------------------------------------------------------------------------------

# How many enqueue ops each runner of a graph holds: none, one, several runners, uneven counts.
_RUNNER_CASES = [[], [1], [2], [1, 2], [3, 1, 4], [1, 1, 1, 1, 1]]


def _threads_observed(threads_per_runner: list[int], coordinated: bool) -> int:
    """Register runners holding that many enqueue ops each; count the threads start_queue_runners creates."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        for index, count in enumerate(threads_per_runner):
            queue = v1.FIFOQueue(capacity=10, dtypes=[tf.int32], shapes=[[]], name=f"queue_{index}")
            v1.train.add_queue_runner(v1.train.QueueRunner(queue, [queue.enqueue(index)] * count))
        with v1.Session() as sess:
            coord = v1.train.Coordinator() if coordinated else None
            return len(v1.train.start_queue_runners(sess, coord, start=False))  # created, not started


@requirements(
    ("per_op", "counts one thread per enqueue op of every runner", "one thread per enqueue op"),
    ("closers", "adds, with a Coordinator, one close-on-stop thread per runner", "close-on-stop thread"),
    ("closers_per_runner", "counts those closers per runner, not per enqueue thread", "not one per enqueue thread"),
    ("no_coordinator", "adds no closer without a Coordinator", "without a Coordinator"),
    ("whole", "returns a whole number of threads (an int)", "(an int)"),
)
def check_threads_started(threads_started: Callable[[list, bool], int]) -> Verdict:
    """Exercise 03a.1: the threads start_queue_runners starts, compared with the count TensorFlow creates."""
    def check() -> None:
        for counts in _RUNNER_CASES:
            for coordinated in (True, False):
                want = _threads_observed(counts, coordinated)  # observed: TensorFlow decides
                case = f"runners holding {counts} enqueue ops, {'with' if coordinated else 'without'} a Coordinator"
                got = threads_started(list(counts), coordinated)
                if isinstance(got, bool) or not isinstance(got, numbers.Integral):
                    raise Mismatch(f"an int for {case}", f"{type(got).__name__} {got!r}",
                                   "Count whole threads (an int).")
                if got == want:
                    continue
                if sum(counts) != len(counts) and got == len(counts) * (2 if coordinated else 1):
                    raise Mismatch(f"{want} for {case}", str(got), "A runner starts one thread per enqueue op it "
                                   "holds (the same op held twice runs in two threads).")
                if coordinated and got == sum(counts):
                    raise Mismatch(f"{want} for {case}", str(got), "Given a Coordinator, each runner also starts "
                                   "a close-on-stop thread that closes its queue when a stop is requested.")
                if coordinated and got == 2 * sum(counts):
                    raise Mismatch(f"{want} for {case}", str(got), "One close-on-stop thread per runner, not one "
                                   "per enqueue thread.")
                if not coordinated and got == sum(counts) + len(counts):
                    raise Mismatch(f"{want} for {case}", str(got), "Close-on-stop threads wait for a Coordinator's "
                                   "request: without a Coordinator there are none.")
                raise Mismatch(f"{want} for {case}", str(got), "A runner starts one thread per enqueue op it holds, "
                               "and, given a Coordinator, one close-on-stop thread.")
    return run_check("Exercise 1 (the threads started)", check)


# --- Exercise 3 ---------------------------------------------------------------------------------------------

EPOCH_RECORDS = (7, 13, 5)  # records in each of the checker's files: 25 in all
EPOCH_BATCH_SIZE = 4  # 6 batches of 4 and a final one of 1


class _RunsBounded:
    """While active, count the runs the checking thread makes and end the input (OutOfRangeError) after `limit`
    of them, so that an epoch that would never end ends, with its duplicates showing."""

    def __init__(self, limit: int) -> None:
        self.limit, self.runs = limit, 0

    def __enter__(self) -> _RunsBounded:
        tf = import_tensorflow()
        self._class, self._original = tf.compat.v1.Session, tf.compat.v1.Session.__dict__.get("run")
        base_run, owner, bound = tf.compat.v1.Session.run, threading.current_thread(), self

        def run(session, fetches, *args, **kwargs):
            if threading.current_thread() is owner:  # the runners' threads run enqueues: not counted
                bound.runs += 1
                if bound.runs > bound.limit:
                    raise tf.errors.OutOfRangeError(None, None, "the checker ended an epoch that did not end")
            return base_run(session, fetches, *args, **kwargs)

        self._class.run = run
        return self

    def __exit__(self, *exc) -> None:
        if self._original is None:
            del self._class.run
        else:
            self._class.run = self._original


def _epoch_files(directory: str) -> list[str]:
    """Write EPOCH_RECORDS records of random bytes (the digit record size) to files of their own; return the paths."""
    from tutorial_lib import datasets

    rng, paths = np.random.default_rng(3), []
    for index, count in enumerate(EPOCH_RECORDS):
        path = Path(directory) / f"part-{index}.bin"
        path.write_bytes(rng.integers(0, 256, count * datasets.record_bytes(), dtype=np.uint8).tobytes())
        paths.append(str(path))
    return paths


@requirements(
    ("given_files", "reads the files it is given, not the course's", "the files you were given"),
    ("keys", "returns the reader's keys (file:record), batch by batch", "the reader's keys"),
    ("one_epoch", "reads each example once: the filename producer limited to one epoch", "num_epochs=1"),
    ("final_batch", "lets the final, smaller batch through", "final, smaller batch"),
    ("batch_size", "returns batches of batch_size keys (the last one smaller)", "batch_size keys"),
    ("local_init", "initializes the local variables (the epoch counter lives there)", "local variable"),
    ("no_threads", "leaves no runner thread running", "join the threads"),
)
def check_one_epoch_keys(one_epoch_keys: Callable[[list, int], list]) -> Verdict:
    """Exercise 03a.3: one epoch through one reader and `batch`, every example once, the smaller batch kept."""
    tf = import_tensorflow()

    def check() -> None:
        with tempfile.TemporaryDirectory() as directory:
            files = _epoch_files(directory)
            expected = [f"{f}:{i}".encode() for f, n in zip(files, EPOCH_RECORDS, strict=True) for i in range(n)]
            full, remainder = divmod(len(expected), EPOCH_BATCH_SIZE)
            before = set(threading.enumerate())
            with tf.Graph().as_default(), _RunsBounded(3 * (full + 1) + 10), _SessionsRecorded() as recorded:
                try:
                    batches = one_epoch_keys(list(files), EPOCH_BATCH_SIZE)
                except (tf.errors.FailedPreconditionError, tf.errors.NotFoundError) as error:
                    if "epochs" not in str(error):  # the counter `num_epochs` keeps: uninitialized, or not found
                        raise
                    raise Mismatch(f"{len(expected)} keys", "FailedPreconditionError: the epoch counter is not "
                                   "initialized", "num_epochs counts in a local variable: initialize the local "
                                   "variables too.") from None
                finally:
                    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
                    recorded.stop_what_was_left(leaked)
            if leaked:
                raise Mismatch("no runner threads left", f"{len(leaked)} still running",
                               "Ask the Coordinator to stop, then join the threads, before returning (or let "
                               "tf1.drain / tf1.session do it).")
            keys = [bytes(k) if isinstance(k, bytes | np.bytes_) else k for b in batches for k in np.ravel(b)]
            if not keys:
                raise Mismatch(f"{len(expected)} keys", "no key at all", "num_epochs counts in a local variable: "
                               "initialize the local variables too, or the first read ends the epoch.")
            if not all(isinstance(k, bytes) for k in keys):
                raise Mismatch("the reader's keys (bytes like b'file:3')", f"{type(keys[0]).__name__} values",
                               "Batch the reader's keys, the first thing read() returns: they name file and record.")
            if not set(keys) <= set(expected):
                raise Mismatch(f"keys of the {len(files)} files passed in", "keys of other files",
                               "Read the files you were given (the checker writes small files of its own).")
            if len(keys) > len(expected):
                raise Mismatch(f"each of the {len(expected)} examples once", f"{len(keys)} keys, some repeated",
                               "The filename producer repeats the files until told how many epochs: num_epochs=1.")
            missing = len(expected) - len(set(keys))
            if missing == remainder and remainder and all(len(np.ravel(b)) == EPOCH_BATCH_SIZE for b in batches):
                raise Mismatch(f"all {len(expected)} examples", f"{len(keys)}: the last {remainder} never arrived",
                               "The epoch does not divide into full batches: let the final, smaller batch through.")
            sizes = [len(np.ravel(b)) for b in batches]
            want_sizes = [EPOCH_BATCH_SIZE] * full + [remainder] * bool(remainder)
            if sizes != want_sizes:
                raise Mismatch(f"{len(want_sizes)} batches of {EPOCH_BATCH_SIZE} (the last {remainder})",
                               f"batch sizes {sizes}", "Return batches of batch_size keys, as `batch` gives them.")
            expect_equal(sorted(keys), sorted(expected), "Every example of the epoch once: the reader's keys.")
    return run_check("Exercise 3 (one clean epoch)", check)
