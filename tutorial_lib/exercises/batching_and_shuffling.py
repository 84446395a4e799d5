"""Checkers for notebook 03b_batching_and_shuffling: the capacity rule, how far a shuffle moves the values, an
epoch from several readers."""

from __future__ import annotations

import numbers
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tutorial_lib.env import import_tensorflow
from tutorial_lib.exercises.core import Mismatch, Verdict, expect_equal, requirements, run_check
from tutorial_lib.exercises.queues_and_threads import _SessionsRecorded, _StartsRecorded


@requirements(
    ("keeps", "counts the min_after_dequeue examples that stay in the queue", "min_after_dequeue examples"),
    ("per_thread", "adds room for one batch per thread", "every thread needs room"),
    ("margin", "adds a safety margin of 3 batches", "safety margin of 3 batches"),
    ("margin_once", "counts that margin once, not per thread", "not 3 per thread"),
    ("whole_examples", "returns a whole number of examples (an int)", "(an int)"),
    ("any_arguments", "holds for any arguments, not only one example", "Room to keep"),
)
def check_capacity(capacity_for: Callable[[int, int, int], int]) -> Verdict:
    """Exercise 03b.1: capacity = min_after_dequeue + (num_threads + 3) * batch_size."""
    def check() -> None:
        for min_after_dequeue, num_threads, batch_size in [(1000, 4, 32), (0, 1, 10), (500, 2, 100)]:
            got = capacity_for(min_after_dequeue, num_threads, batch_size)
            expected = min_after_dequeue + (num_threads + 3) * batch_size
            case = f"min_after_dequeue={min_after_dequeue}, num_threads={num_threads}, batch_size={batch_size}"
            if got == (num_threads + 3) * batch_size and min_after_dequeue:
                raise Mismatch(f"{expected} for {case}", str(got),
                               "The queue must also hold min_after_dequeue examples that are never handed out.")
            if got == min_after_dequeue + num_threads * batch_size:
                raise Mismatch(f"{expected} for {case}", str(got), "Leave a safety margin of 3 batches.")
            if got == min_after_dequeue + 3 * num_threads * batch_size and num_threads > 1:
                raise Mismatch(f"{expected} for {case}", str(got),
                               "Each thread needs room for one batch; the safety margin is 3 batches in all, "
                               "not 3 per thread.")
            if got == min_after_dequeue + 3 * batch_size and num_threads > 1:
                raise Mismatch(f"{expected} for {case}", str(got),
                               "Besides the margin, every thread needs room for the batch it is filling.")
            if isinstance(got, bool) or not isinstance(got, (int, np.integer)):
                raise Mismatch(f"an int for {case}", f"{type(got).__name__} {got!r}",
                               "Room to keep + room for every thread's batch in flight + a margin, counted in whole "
                               "examples (an int).")
            expect_equal(got, expected, "Room to keep + room for every thread's batch in flight + a margin.",
                         f"for {case}: ")
    return run_check("Exercise 1 (the capacity rule)", check)


# --- Exercise 2 ---------------------------------------------------------------------------------------------


def _displacement(values: list[int]) -> float:
    return float(np.mean(np.abs(np.arange(len(values)) - np.asarray(values))) / len(values))


@requirements(
    ("in_order", "gives 0 for values that did not move", "did not move"),
    ("absolute", "counts a move backwards like a move forwards (the absolute value)", "absolute"),
    ("by_length", "divides by N, the number of values given (not a fixed 2000, not N - 1)", "by N"),
    ("positions", "numbers the positions from 0, as the values are", "from 0"),
    ("any_sequence", "accepts a list or a NumPy array", "list or a NumPy array"),
    ("a_float", "returns a float", "a float"),
)
def check_mean_displacement(mean_displacement: Callable[[Any], float]) -> Verdict:
    """Exercise 03b.2: mean |position - value| / N for a permutation of 0..N-1."""
    rng = np.random.default_rng(11)
    cases = [("0..9 in order", list(range(10))), ("0..9 reversed", list(range(9, -1, -1))),
             ("0..6 rotated by one", [6, 0, 1, 2, 3, 4, 5]), ("a shuffle of 0..2000", rng.permutation(2001).tolist()),
             ("0..4 with two swapped", [1, 0, 2, 3, 4]), ("a single value", [0])]

    def check() -> None:
        for what, values in cases:
            want = _displacement(values)
            for given in (list(values), np.array(values)):
                kind = "list" if isinstance(given, list) else "array"
                try:
                    got = mean_displacement(given)
                except (TypeError, ValueError, AttributeError) as error:
                    raise Mismatch(f"{want:.4f} for {what} (a {kind})", f"{type(error).__name__}: {error}",
                                   "Accept a list or a NumPy array of the values as they arrived.") from None
                if isinstance(got, bool) or not isinstance(got, numbers.Real):
                    raise Mismatch(f"a float for {what}", f"{type(got).__name__} {got!r}",
                                   "Return the mean as a float (a number, not an array).")
                if abs(got - want) <= 1e-9:
                    continue
                n = len(values)
                shifted = float(np.mean(np.abs(np.arange(1, n + 1) - np.asarray(values))) / n)
                if abs(got - shifted) <= 1e-9:
                    raise Mismatch(f"{want:.4f} for {what}", f"{got}", "Number the positions from 0, as the values "
                                   "are.")
                if abs(got) < 1e-9 and want:
                    raise Mismatch(f"{want:.4f} for {what}", f"{got}", "Take the absolute value of each move: "
                                   "moves backwards and forwards cancel out otherwise.")
                if n > 1 and abs(got - want * n / (n - 1)) <= 1e-9:
                    raise Mismatch(f"{want:.4f} for {what}", f"{got}", "Divide by N, the number of values given.")
                if abs(got - want * n / 2000) <= 1e-9:
                    raise Mismatch(f"{want:.4f} for {what}", f"{got}", "Divide by N, the number of values given, "
                                   "not the notebook's 2000.")
                if want == 0:
                    raise Mismatch(f"0 for {what}", f"{got}", "Values that did not move are displaced by 0.")
                raise Mismatch(f"{want:.4f} for {what}", f"{got}", "The mean over all values of |position - value|, "
                               "divided by N.")
    return run_check("Exercise 2 (how far the values moved)", check)


JOIN_BATCH_SIZE = 72  # does not divide the epoch: 3 files x 1000 records = 41 batches of 72 + one of 48
JOIN_FILES = (3, 0, 2)  # which digit files the checker hands in, in this order (not all of them, not sorted)
JOIN_POOL = 1000  # the least min_after_dequeue the statement asks for
JOIN_WATCHDOG_S = 10.0  # stop an answer whose loop has not asked should_stop() for this long (progress resets it)
JOIN_LIMIT_S = 120.0  # ...and any answer after this long, whatever it does


def _coordinator_with_a_bound(max_checks: int):
    """A Coordinator that asks for a stop once the creating thread has asked `should_stop()` max_checks times, and
    records the threads registered with it."""
    v1 = import_tensorflow().compat.v1

    class BoundedCoordinator(v1.train.Coordinator):
        def __init__(self) -> None:
            super().__init__()
            self.owner, self.checks, self.bound_hit = threading.current_thread(), 0, False
            self.registered: list[threading.Thread] = []

        def should_stop(self) -> bool:
            if threading.current_thread() is self.owner:  # runner threads ask too: count only the loop's checks
                self.checks += 1
                if self.checks > max_checks and not super().should_stop():
                    self.bound_hit = True
                    self.request_stop()
            return super().should_stop()

        def register_thread(self, thread: threading.Thread) -> None:
            self.registered.append(thread)
            super().register_thread(thread)

    return BoundedCoordinator()


class _Watchdog(threading.Thread):
    """Stops an answer that makes no progress: when the loop has not asked `coord.should_stop()` for
    JOIN_WATCHDOG_S seconds (or JOIN_LIMIT_S have passed in all) it asks the Coordinator to stop, and 1 s later
    closes the answer's sessions, which cancels a run that would wait forever. Progress, not elapsed time, decides:
    a right answer on a busy machine asks should_stop() after every batch, so it is never stopped. A loop that
    asks should_stop() although no queue runner was started waits for nothing: it is stopped after 2 s."""

    def __init__(self, coord, recorded: _SessionsRecorded, starts: _StartsRecorded) -> None:
        super().__init__(daemon=True)
        self.coord, self.recorded, self.starts = coord, recorded, starts
        self.done, self.fired = threading.Event(), False

    def run(self) -> None:
        started = quiet_since = time.monotonic()
        last = -1
        while not self.done.wait(0.2):
            now = time.monotonic()
            if self.coord.checks != last:
                last, quiet_since = self.coord.checks, now
            waits_for_nothing = last > 0 and not self.starts.starts  # looping, yet no runner was ever started
            if (now - quiet_since > (2.0 if waits_for_nothing else JOIN_WATCHDOG_S)
                    or now - started > JOIN_LIMIT_S):
                self.fired = True
                self.coord.request_stop()
                if not self.done.wait(1.0):
                    for session in list(self.recorded.sessions):
                        session.close()
                return

    def stop(self) -> None:
        self.done.set()
        self.join()


def _join_structure(graph) -> dict:
    """What the pipeline is made of: readers, the filename queues they read, the example queues and their pools."""
    v1 = import_tensorflow().compat.v1
    runners = graph.get_collection(v1.GraphKeys.QUEUE_RUNNERS)
    reads = [op for op in graph.get_operations() if op.type in ("ReaderReadV2", "ReaderReadUpToV2")]
    shuffle_queues = [op for op in graph.get_operations() if op.type == "RandomShuffleQueueV2"]
    return {
        "most_enqueues": max((len(set(runner.enqueue_ops)) for runner in runners), default=0),
        "readers": len({op.inputs[0].op.name for op in reads}),
        "filename_queues": len({op.inputs[1].op.name for op in reads}),
        "pools": [op.get_attr("min_after_dequeue") for op in shuffle_queues],
    }


def _in_file_order(keys: list[bytes]) -> bool:
    """True when every file's records arrive in increasing record order (nothing shuffled them)."""
    last: dict[bytes, int] = {}
    for key in keys:
        name, index = key.rsplit(b":", 1)
        if int(index) < last.get(name, -1):
            return False
        last[name] = int(index)
    return True


@requirements(
    ("default_graph", "builds the pipeline in the current (default) graph", "default graph"),
    ("given_files", "reads the files it is given, every one of them, and no other", "the files you were given"),
    ("one_reader_per_file", "makes one reader per file, each feeding the batching function",
     "one reader per file"),
    ("shared_queue", "no file read twice in the epoch (the readers share one filename queue, or each has a queue "
     "of its own file)", "one filename queue"),
    ("one_epoch", "reads each example once: the filename producer limited to one epoch", "how many epochs"),
    ("final_batch", "lets the final, smaller batch through", "final, smaller batch"),
    ("batch_size", "returns batches of batch_size keys (the last one smaller)", "batch_size keys"),
    ("shuffled", "shuffles the examples (shuffle_batch_join), not only mixes files", "draws at random"),
    ("pool", "draws from a pool of at least 1000 examples (min_after_dequeue), not a token one", "pool of at least"),
    ("starts", "starts the queue runners", "queue runners are started"),
    ("given_coord", "starts the runners under the coord it is given and loops on its should_stop()",
     "the coord you were given"),
    ("catches_end", "catches the OutOfRangeError that ends the epoch and returns the batches", "catch it"),
    ("joins", "asks the Coordinator to stop and joins the threads, leaving none running", "join the threads"),
    ("closes_session", "closes the session it opened", "close the session"),
)
def check_join_epoch(join_epoch: Callable) -> Verdict:
    """Exercise 03b.3: several readers, shuffle_batch_join, one epoch under the given Coordinator, each example once."""
    tf = import_tensorflow()
    from tutorial_lib import datasets

    every_file = [str(path) for path in datasets.digit_files("bin", "train")]
    files = [every_file[i % len(every_file)] for i in JOIN_FILES]
    sizes = {f: Path(f).stat().st_size // datasets.record_bytes() for f in files}
    expected = {f"{f}:{i}".encode() for f in files for i in range(sizes[f])}
    full_batches, remainder = divmod(len(expected), JOIN_BATCH_SIZE)

    def check() -> None:
        before = set(threading.enumerate())
        coord = _coordinator_with_a_bound(2 * (full_batches + 1) + 2)  # ends a loop that would run forever
        with tf.Graph().as_default() as graph, _SessionsRecorded() as recorded, _StartsRecorded() as starts:
            watchdog = _Watchdog(coord, recorded, starts)  # ...and one that never asks should_stop, or waits forever
            watchdog.start()
            try:
                batches = join_epoch(list(files), JOIN_BATCH_SIZE, coord)
            except tf.errors.OutOfRangeError:
                raise Mismatch("the list of batches", "OutOfRangeError escaping your function",
                               "OutOfRangeError is how the epoch ends: catch it, then return the batches.") from None
            except tf.errors.OpError:
                if watchdog.fired and not starts.starts:
                    raise Mismatch("key batches", "a run that waited forever (the checker stopped it)",
                                   "Nothing fills the queues until the queue runners are started.") from None
                raise
            finally:
                watchdog.stop()
                leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
                still_open = recorded.still_open()
                coord.request_stop()  # then stop what the answer left, for the student (its verdict is below)
                recorded.stop_what_was_left(leaked)
        if not graph.get_operations():
            raise Mismatch("a pipeline in the current graph", "an empty graph",
                           "Build in the default graph (the checker opens a fresh one for you and inspects it).")
        if not starts.starts:
            raise Mismatch("key batches", "no queue runner started",
                           "Nothing fills the queues until the queue runners are started.")
        if leaked:
            raise Mismatch("no runner threads left", f"{len(leaked)} still running",
                           "Ask the Coordinator to stop, then join the threads, before returning (also on error).")
        if not coord.registered or not coord.checks or any(c is not coord for _, c in starts.starts):
            raise Mismatch("the runners started under the coord passed in, and a loop asking it should_stop()",
                           "another Coordinator, or none" if not coord.registered else "a loop that never asks it",
                           "Use the coord you were given: start the queue runners with it and loop while it does "
                           "not say stop (the checker stops runaway loops through it).")
        if still_open:
            raise Mismatch("the session you opened closed on the way out", f"{len(still_open)} left open",
                           "A session holds its graph's resources until closed: close the session when the epoch "
                           "is done (a `with` block or a `finally:`).")
        structure = _join_structure(graph)
        keys = [bytes(key) for batch in batches for key in np.asarray(batch).ravel()]
        unknown = {key for key in keys if key not in expected}
        if unknown:
            names = sorted({key.rsplit(b":", 1)[0].decode() for key in unknown})
            raise Mismatch(f"keys of the {len(files)} files passed in", f"keys of {len(names)} other file(s)",
                           "Read the files you were given (the checker passes a selection, not every digit file).")
        counts = Counter(keys)
        if len(keys) > len(expected) or any(n > 1 for n in counts.values()):
            if structure["filename_queues"] > 1:
                raise Mismatch(f"each of the {len(expected)} examples once",
                               f"{structure['filename_queues']} filename queues, each handing out every file",
                               "Make one filename queue and let every reader take its files from it: each file is "
                               "handed out once.")
            raise Mismatch(f"each of the {len(expected)} examples once", f"{len(keys)} keys, some more than once",
                           "The filename producer repeats the files until it is told how many epochs to give "
                           "(the checker stopped your loop).")
        missing = expected - set(keys)
        if len(missing) == remainder and remainder and all(len(b) == JOIN_BATCH_SIZE for b in batches):
            raise Mismatch(f"all {len(expected)} examples", f"{len(keys)}: the last {remainder} never arrived",
                           "The epoch does not divide into full batches: let the final, smaller batch through.")
        if set(keys) != expected:
            raise Mismatch(f"the {len(expected)} keys of the files you were given",
                           f"{len(missing)} missing, {len(set(keys) - expected)} unknown",
                           "Return the readers' keys, batch by batch, for every one of the files you were given.")
        got_sizes = [len(np.asarray(batch).ravel()) for batch in batches]
        want_sizes = [JOIN_BATCH_SIZE] * full_batches + [remainder] * bool(remainder)
        if got_sizes != want_sizes:
            raise Mismatch(f"{len(want_sizes)} batches of {JOIN_BATCH_SIZE} (the last {remainder})",
                           f"batch sizes {sorted(Counter(got_sizes).items())}",
                           "Return batches of batch_size keys, as the batching function gives them (only the "
                           "last one smaller).")
        if structure["most_enqueues"] < len(files) or structure["readers"] != len(files):
            raise Mismatch(f"one reader per file ({len(files)}) feeding the example queue",
                           f"{structure['readers']} reader(s), {structure['most_enqueues']} enqueue op(s)",
                           "One reader reads one file at a time however many threads run it: make one reader per "
                           "file and give the batching function a list with one reader's output each.")
        if not structure["pools"] or _in_file_order(keys):
            raise Mismatch("shuffled examples", "every file's records in file order",
                           "Readers mixing files is not shuffling: use the batching function that draws at random.")
        if max(structure["pools"]) < JOIN_POOL:
            raise Mismatch(f"min_after_dequeue of at least {JOIN_POOL}", f"{max(structure['pools'])}",
                           f"A shuffle draws only from what stays in the queue: keep a pool of at least {JOIN_POOL} "
                           "examples, or neighbours stay neighbours.")
    return run_check("Exercise 3 (an epoch from several readers)", check)
