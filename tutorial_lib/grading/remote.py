"""The grader's side of a remote answer: the checker runs here, the answer runs in the student's kernel.

`RemoteAnswer(name, transport)` is what the grader hands a checker instead of the student's function: calling it
sends the arguments (plain data, `codec`) to the kernel, which calls the answer and sends back the result and the
arguments as the call left them (so a checker still sees an answer that changed its input in place). The result is
rebuilt here from JSON, so the checker compares plain values of its own making; an exception comes back by name
(a built-in exception as itself, so `except IndexError` in a checker still works).

`REMOTE` lists the exercises graded this way: each takes and returns data (plain values, TensorFlow dtypes and
tensors, files by content, and datasets as the elements they yield: `codec`, `tfdata`). The other exercises hand
the answer live TensorFlow objects (a session, a graph, a coordinator, a dataset with instruments of the checker's
own); they are graded in the kernel by `sandbox.run_test` with the checkers captured before the student's code ran
(see `grading.__doc__`).
"""

from __future__ import annotations

import builtins
import json
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tutorial_lib.grading import codec

# checker -> "call" (the answer is a function, called remotely), "files" (a call whose arguments name files of the
# grader's: they cross by content) or "value" (the answer is a value, read once)
REMOTE: dict[str, str] = {
    "check_count_label": "call", "check_invert": "call", "check_atom_count": "call",                     # 00
    "check_feed_bytes": "call",                                                                            # 01
    "check_record_defaults": "value", "check_csv_dataset": "files",                                        # 02
    "check_threads_started": "call",                                                                       # 03a
    "check_capacity": "call", "check_mean_displacement": "call",                                           # 03b
    "check_graph_megabytes": "call", "check_epoch_dataset": "call",                                        # 04
    "check_classify": "call",                                                                              # 05
    "check_tf1_queue_advice": "value",                                                                     # 06
    "check_batches_in_pass": "call", "check_same_pass": "call",                                            # 07a
    "check_kept_checkpoints": "call",                                                                      # 07b
    "check_armijo": "call",                                                                                # 08
    "check_epoch_size": "call", "check_window": "call",                                                    # 09
    "check_ideal_seconds": "call", "check_translation": "files",                                           # 10
    "check_expected_count": "call",                                                                        # 11
}
EXCEPTIONS = ("NotImplementedError", "IndexError", "KeyError", "ValueError", "TypeError", "ZeroDivisionError",
              "AttributeError", "NameError", "AssertionError", "RuntimeError", "ImportError", "MemoryError",
              "RecursionError", "OverflowError", "StopIteration", "ArithmeticError", "LookupError")


class AnswerError(RuntimeError):
    """An exception the answer raised that is not a built-in one (its type name kept)."""


class GradingError(RuntimeError):
    """The kernel did not answer the grader's request as it must (no reply, a malformed reply)."""


class TimeLimit(GradingError):
    """The answer ran past the grader's cell time limit and was interrupted."""


def raised(name: str, message: str) -> BaseException:
    """An exception like the one the answer raised: the built-in type itself, else AnswerError under that name."""
    if name in EXCEPTIONS:
        return getattr(builtins, name)(message)
    safe = name if name.isidentifier() else "Error"
    return type(safe, (AnswerError,), {})(message)


def parse_reply(stdout: str, nonce: str) -> dict:
    """The reply line that starts with the nonce, as a dict (GradingError when there is none or it is malformed)."""
    for line in stdout.splitlines():
        if line.startswith(nonce):
            try:
                reply = json.loads(line[len(nonce):])
            except ValueError:
                break
            if type(reply) is dict:
                return reply
            break
    raise GradingError("the kernel sent no reply to the grader's request")


def new_nonce() -> str:
    """A request's nonce: random and unguessable before the request. It travels in the code the kernel runs, so an
    answer can read it and reply for itself: a reply is trusted only as "what the answer returned"."""
    return f"@@grader-{secrets.token_hex(16)}@@"


def mirror(original: Any, after: Any) -> None:
    """Make `original` (the grader's argument) look as the answer left its copy: arrays, lists and dicts in place."""
    if type(original) is np.ndarray and type(after) is np.ndarray:
        if original.shape == after.shape and original.flags.writeable:
            original[...] = after.astype(original.dtype, copy=False)
    elif type(original) is list and type(after) is list:
        if len(original) != len(after):
            original[:] = after
            return
        for index, (a, b) in enumerate(zip(original, after, strict=True)):
            if _same_kind(a, b):
                mirror(a, b)
            else:
                original[index] = b
    elif type(original) is dict and type(after) is dict:
        if list(original) != list(after) or any(type(original[k]) is not type(after[k]) for k in original):
            original.clear()
            original.update(after)
        else:
            for key in original:
                if type(original[key]) in (np.ndarray, list, dict):
                    mirror(original[key], after[key])
                else:
                    original[key] = after[key]
    elif isinstance(original, tuple) and isinstance(after, tuple) and len(original) == len(after):
        for a, b in zip(original, after, strict=True):
            mirror(a, b)


def _same_kind(a: Any, b: Any) -> bool:
    """Whether b can be mirrored into a in place."""
    return type(a) is type(b) and type(a) in (np.ndarray, list, dict)


class RemoteAnswer:
    """A stand-in for the student's function `name`: each call goes to the kernel through `transport`."""

    def __init__(self, name: str, transport: Callable[[str, tuple], dict], files: bool = False):
        self.name, self.transport, self.calls, self.files = name, transport, 0, files
        self.__name__ = name

    def __call__(self, *args: Any) -> Any:
        payload = codec.encode(list(args), files=self.files)  # the checker's own arguments: plain data
        reply = self.transport("call", (self.name, payload))
        self.calls += 1
        return result_of(reply, args)


def result_of(reply: dict, args: tuple = ()) -> Any:
    """The answer's result from a reply (raising what the answer raised); the arguments mirrored as it left them."""
    if "raised" in reply:
        name, message = reply["raised"]
        raise raised(str(name), str(message))
    if type(reply.get("result")) is not str:
        raise GradingError("a reply without a result")
    if args and type(reply.get("args")) is str:
        for original, after in zip(args, codec.decode(reply["args"]), strict=False):
            mirror(original, after)
    return codec.decode(reply["result"], args)


def remote_value(name: str, transport: Callable[[str, tuple], dict]) -> Any:
    """The value an answer cell assigned to `name`, read from the kernel as plain data."""
    return result_of(transport("value", (name,)))


def loopback(namespace: dict[str, Any]) -> Callable[[str, tuple], dict]:
    """A transport that runs answers from `namespace` in this process through the same JSON (tests, the mutation
    report's remote mode): what crosses is exactly what would cross from a kernel."""
    def transport(kind: str, params: tuple) -> dict:
        if kind == "value":
            return {"result": codec.encode(namespace[params[0]])}
        name, payload = params
        with tempfile.TemporaryDirectory() as scratch:
            return answer_call(namespace.get(name), name, payload, Path(scratch))
    return transport


def answer_call(function: Callable | None, name: str, payload: str, under: Path | None = None) -> dict:
    """The answering side's reply to a call of the answer `name` (`function`, None when it is not defined): its
    result, and its arguments as the call left them, unless the grader sent files (written first into a new folder
    of this side's own, under `under`); whatever the answer raised goes back by name."""
    try:
        inputs = Path(tempfile.mkdtemp(prefix="grader-inputs-", dir=under))
        args = tuple(codec.decode(payload, (), inputs))
        if function is None:
            return {"raised": ["NameError", f"name {name!r} is not defined"]}
        result = function(*args)
        reply = {"result": codec.encode(result, args)}
        if not any(inputs.iterdir()):
            reply["args"] = codec.encode(list(args))
        return reply
    except Exception as error:  # noqa: BLE001 -- whatever the answer raised goes back by name
        return {"raised": [type(error).__name__, str(error)[:500]]}
