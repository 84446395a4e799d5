"""Checkers for notebook 07a_validate_in_one_session: batches in a pass, a repeatable validation pass, the same
pass twice."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from tutorial_lib.env import import_tensorflow
from tutorial_lib.exercises.core import Mismatch, Verdict, expect_equal, requirements, run_check


def _flatten(batches: Any) -> np.ndarray | None:
    """The values of a pass's batches as one flat int64 array (None when they are not numbers)."""
    try:
        return np.concatenate([np.ravel(np.asarray(b)) for b in batches] or [np.zeros(0)]).astype(np.int64)
    except (TypeError, ValueError):
        return None


# --- Exercise 1 ---------------------------------------------------------------------------------------------

# (n, batch_size): small ones first, then a remainder of one example in a huge batch, larger and uneven sizes.
_PASS_SIZES = [(83, 16), (80, 16), (1, 16), (17, 16), (64, 64), (5, 5), (3, 1000), (100, 7), (100, 50),
               (1_000_001, 1_000_000), (1_000_000, 3), (999_999, 1000), (0, 16), (0, 1),
               (2**53 + 1, 2**53)]  # exact for any count: a float division rounds this one down to 1


@requirements(
    ("remainder", "counts the examples left over as one more, smaller batch (even one left over in a huge batch, "
     "for counts too large for a float's 53 bits too)", "smaller batch"),
    ("exact", "adds no batch when the examples divide evenly", "divide evenly"),
    ("empty", "gives 0 batches for 0 examples", "no example"),
    ("batch_size", "uses the batch_size it is given, not one fixed size", "batch size you are given"),
    ("whole_number", "returns a whole number of batches (an int)", "(an int)"),
)
def check_batches_in_pass(batches_in_pass: Callable[[int, int], int]) -> Verdict:
    """Exercise 07a.1: batches in one validation pass when the last batch may be smaller."""
    def check() -> None:
        got = {(n, b): batches_in_pass(n, b) for n, b in _PASS_SIZES}
        if got[100, 7] == got[100, 50]:
            raise Mismatch(f"{-(-100 // 7)} batches of 7 and {-(-100 // 50)} of 50 for 100 examples",
                           f"{got[100, 7]!r} for both", "The count depends on the batch size you are given, too.")
        for (n, b), value in got.items():
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise Mismatch(f"an int for {n} examples in batches of {b}", f"{type(value).__name__} {value!r}",
                               "Return the number of batches as a whole number (an int), not a float.")
        for (n, b), value in got.items():
            expected = -(-n // b)
            case = f"{expected} for {n} examples in batches of {b}"
            if value == expected:
                continue
            if n == 0:
                raise Mismatch(case, repr(value), "With no example, a pass reads no batch at all.")
            if n % b == 0 and value == n // b + 1:
                raise Mismatch(case, repr(value), "When the examples divide evenly, there is no extra batch.")
            if n % b and value == n // b:
                raise Mismatch(case, repr(value), "The examples left over make one more, smaller batch -- even a "
                               "single one left over.")
            expect_equal(value, expected, "Round the division up.", f"for {n} examples, batch_size {b}: ")
    return run_check("Exercise 1 (batches in a pass)", check)


# --- Exercise 2 ---------------------------------------------------------------------------------------------

_OFFSET = 1000  # what the "trained" variable adds to every id in the session handed in (0 in any other session)
_MAX_RUNS = 100  # runs of the session in one pass beyond which the pass is taken to never end


class _RunawayPass(BaseException):
    """Raised by the session handed in when one pass runs it far more often than it has batches (a BaseException,
    so that an answer's `except Exception` does not hide it)."""


def _instrument(sess: Any) -> dict:
    """Count the runs of `sess` (the instance's own `run`, which any `sess.run`, `tensor.eval(session=sess)` or
    `tf1.drain(..., sess)` goes through); stop a pass that never ends."""
    record = {"runs": 0, "limit": _MAX_RUNS}
    run = sess.run

    def counted_run(*args: Any, **kwargs: Any) -> Any:
        record["runs"] += 1
        if record["runs"] > record["limit"]:
            raise _RunawayPass
        return run(*args, **kwargs)
    sess.run = counted_run
    return record


@requirements(
    ("every_pass", "runs the initializer it is handed at the start of every pass, whatever state the iterator is in",
     "initializer at the start of every pass"),
    ("to_the_end", "reads batches until OutOfRangeError, however many there are", "until OutOfRangeError"),
    ("empty", "returns an empty list for a pass without a batch", "no batch at all"),
    ("init_once", "runs the initializer once per pass, not before every batch", "starts the pass again"),
    ("given_session", "runs the pass in the session it is handed (it holds the trained weights)",
     "session you are handed"),
    ("per_batch", "returns a list with one entry per batch", "one entry per batch"),
    ("as_given", "keeps each batch the NumPy array `ids` gave (dtype and shape)", "exactly as `ids` gave it"),
    ("no_new_ops", "adds no op to the graph (a pass runs only what it is handed)", "adds ops to the graph"),
)
def check_validation_pass(validation_pass: Callable) -> Verdict:
    """Exercise 07a.2: one complete, repeatable validation pass with an initializable iterator."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    from tutorial_lib import tf1
    from tutorial_lib.datasets import chunked

    hint_every = "Run the iterator's initializer at the start of every pass (the one you are handed)."
    hint_session = ("Run everything in the session you are handed: another session has its own copy of every "
                    "variable (not the trained weights) and of every iterator.")

    def reference(seed: int, num_chunks: int, batch_size: int) -> list[np.ndarray]:
        ids = np.array([e[0] for e in chunked.generate(seed=seed, num_chunks=num_chunks)], np.int64) + _OFFSET
        return [ids[i:i + batch_size] for i in range(0, len(ids), batch_size)]

    def compare(got: Any, expected: list[np.ndarray], what: str, empty_case: bool) -> None:
        raw = [batch - _OFFSET for batch in expected]
        if isinstance(got, np.ndarray) or not isinstance(got, list | tuple):
            raise Mismatch(f"{what}: a list with one NumPy array per batch", type(got).__name__,
                           "Return a list with one entry per batch.")
        if empty_case and got:
            raise Mismatch(f"{what}: an empty list", f"{len(got)} entries",
                           "A pass with no batch at all returns an empty list.")
        if not expected:
            return
        if not got:
            raise Mismatch(f"{what}: {len(expected)} batches", "an empty list", hint_every)
        if len(got) != len(expected):
            flat = _flatten(got)
            if flat is not None and np.array_equal(flat, np.concatenate(expected)):
                raise Mismatch(f"{what}: {len(expected)} entries", f"{len(got)}",
                               "Return a list with one entry per batch: what `ids` gave for that batch.")
            if flat is not None and len(flat) < sum(map(len, expected)) and np.array_equal(
                    flat, np.concatenate(expected)[:len(flat)]):
                raise Mismatch(f"{what}: {len(expected)} batches", f"{len(got)}, the first ones",
                               "Read batches until OutOfRangeError: the size is not known in advance.")
            if flat is not None and np.array_equal(flat, np.concatenate(expected)[-len(flat):]):
                raise Mismatch(f"{what}: {len(expected)} batches from the first example", "the last ones only",
                               hint_every)
            raise Mismatch(f"{what}: {len(expected)} batches", f"{len(got)}",
                           "Read every batch once, from the first until OutOfRangeError.")
        for got_batch, batch, raw_batch in zip(got, expected, raw, strict=True):
            values = np.asarray(got_batch)
            if values.shape == raw_batch.shape and np.array_equal(values, raw_batch):
                raise Mismatch(f"{what}: the ids as the session handed in computes them", "other values",
                               hint_session)
            if values.shape != batch.shape or not np.array_equal(values, batch):
                raise Mismatch(f"{what}: the ids of every batch, in order", "different values",
                               "Read every batch once, from the first until OutOfRangeError.")
            if not isinstance(got_batch, np.ndarray) or got_batch.dtype != batch.dtype:
                raise Mismatch(f"{what}: each batch a NumPy {batch.dtype} array",
                               f"{type(got_batch).__name__} {getattr(got_batch, 'dtype', '')}".strip(),
                               "Keep each batch exactly as `ids` gave it (a NumPy array, same dtype and shape).")

    def check() -> None:
        with tf.Graph().as_default() as graph:
            offset = v1.get_variable("trained_offset", [], tf.int64, initializer=v1.zeros_initializer())
            cases = {}
            for name, seed, num_chunks, batch_size in [("A", 99, 9, 4), ("B", 5, 17, 5), ("empty", 1, 0, 4)]:
                iterator = v1.data.make_initializable_iterator(
                    chunked.dataset(seed=seed, num_chunks=num_chunks).batch(batch_size))
                ids, _, _ = iterator.get_next()
                cases[name] = (iterator, ids + offset, reference(seed, num_chunks, batch_size))
            with tf1.session(timeout_s=10) as sess:
                sess.run(offset.assign(_OFFSET))  # the "trained weights": only this session has them
                record = _instrument(sess)

                def one_pass(name: str, what: str, again: bool = False) -> None:
                    iterator, ids, expected = cases[name]
                    ops, runs = len(graph.get_operations()), record["runs"]
                    record["limit"] = runs + _MAX_RUNS
                    try:
                        got = validation_pass(sess, iterator.initializer, ids)
                    except _RunawayPass:
                        raise Mismatch(f"{what}: a pass that ends", f"more than {_MAX_RUNS} runs and no end",
                                       "Running the initializer starts the pass again: once per pass, before its "
                                       "first batch.") from None
                    except tf.errors.OutOfRangeError:
                        if record["runs"] == runs:
                            raise
                        if not expected:
                            hint = ("A pass with no batch at all returns an empty list; read batches until "
                                    "OutOfRangeError and catch it.")
                        elif again:  # it caught OutOfRangeError before: this pass started at the end
                            hint = f"The iterator was still at its end. {hint_every}"
                        else:
                            hint = "Read batches until OutOfRangeError and catch it: it ends the pass."
                        raise Mismatch(f"{what}: the pass to end normally", "OutOfRangeError raised", hint) from None
                    except tf.errors.FailedPreconditionError:
                        if record["runs"] == runs:
                            raise Mismatch(f"{what}: a pass in the session you are handed",
                                           "FailedPreconditionError in another session", hint_session) from None
                        raise Mismatch(f"{what}: a pass of a fresh iterator", "FailedPreconditionError (the "
                                       "iterator was not initialized)", hint_every) from None
                    if record["runs"] == runs:
                        compare(got, expected, what, not expected)  # another session: say what differs
                        raise Mismatch(f"{what}: runs in the session you are handed", "none", hint_session)
                    compare(got, expected, what, not expected)
                    if len(graph.get_operations()) != ops:
                        raise Mismatch(f"{what}: no new op in the graph",
                                       f"{len(graph.get_operations()) - ops} new ops",
                                       "The pass adds ops to the graph on every call (they stay there for good): "
                                       "run only the tensors and ops you are handed.")

                one_pass("A", "first pass (a fresh iterator)")
                one_pass("A", "second pass, right after the first", again=True)
                iterator, ids, _ = cases["A"]
                sess.run(iterator.initializer)  # a pass stopped after two batches leaves the iterator half read
                sess.run(ids)
                sess.run(ids)
                one_pass("A", "third pass (the iterator left half read)", again=True)
                one_pass("B", "a pass over another, longer input")
                one_pass("empty", "a pass over an empty input")
    return run_check("Exercise 2 (a repeatable validation pass)", check)



# --- Exercise 3 ---------------------------------------------------------------------------------------------


@requirements(
    ("same", "says True when the batches give exactly the expected ids, in that order", "exactly those ids"),
    ("order", "says False when the ids arrive in another order", "in the same order"),
    ("duplicates", "says False when an example arrives twice and another never", "exactly once"),
    ("final_batch", "counts the final, smaller batch like any other", "final, smaller batch"),
    ("batch_split", "does not care how the ids are split into batches", "split into batches"),
    ("empty", "handles a pass with no batch (True only when no id was expected)", "no batch at all"),
    ("a_bool", "returns a bool", "True or False"),
)
def check_same_pass(is_same_pass: Callable[[list, list], bool]) -> Verdict:
    """Exercise 07a.3: the batches of a pass give exactly the expected ids, each once, in order."""
    expected = list(range(100, 183))  # 83 ids: 5 batches of 16 and a final one of 3
    full = [np.array(expected[i:i + 16], np.int64) for i in range(0, 83, 16)]
    swapped = [b.copy() for b in full]
    swapped[1][[0, 1]] = swapped[1][[1, 0]]
    doubled = [b.copy() for b in full]
    doubled[2][5] = doubled[2][4]  # one id twice, its neighbour never: same length, same first and last ids
    cases = [  # (batches, expected ids, the answer, what the case shows, the hint)
        (full, expected, True, "the pass as it should be", "True when the batches give exactly those ids, in order."),
        (list(reversed(full)), expected, False, "the batches in reverse order",
         "The passes must match in the same order, not only as a set."),
        (swapped, expected, False, "two neighbours swapped", "The passes must match in the same order, not only as "
         "a set."),
        (doubled, expected, False, "one id twice and one missing", "Every example exactly once: the same length is "
         "not enough."),
        (full[:-1], expected, False, "the final, smaller batch missing",
         "The final, smaller batch belongs to the pass: a pass without it is incomplete."),
        ([np.array(expected[:40]), np.array(expected[40:])], expected, True, "the same ids in two batches",
         "Only the ids and their order count, not how they are split into batches."),
        ([np.array(expected[i:i + 7]) for i in range(0, 83, 7)], expected, True, "the same ids in batches of 7",
         "Only the ids and their order count, not how they are split into batches."),
        ([], [], True, "an empty pass of an empty set", "A pass with no batch at all is complete when no id was "
         "expected (and np.concatenate([]) raises)."),
        ([], expected, False, "no batch at all", "A pass with no batch at all is incomplete when ids were expected."),
    ]

    def check() -> None:
        for batches, ids, want, what, hint in cases:
            try:
                got = is_same_pass([b.copy() for b in batches], list(ids))
            except ValueError as error:
                raise Mismatch(f"{want} for {what}", f"ValueError: {error}", hint) from None
            if not isinstance(got, bool | np.bool_):
                raise Mismatch(f"True or False for {what}", f"{type(got).__name__} {got!r}",
                               "Return True or False (a bool), not the ids or a count.")
            if bool(got) != want:
                raise Mismatch(f"{want} for {what}", str(bool(got)), hint)
    return run_check("Exercise 3 (the same pass)", check)
