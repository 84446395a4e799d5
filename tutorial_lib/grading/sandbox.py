"""The grading kernel's side: what the grader asks of a submission's kernel comes back as plain data.

Imported into the sealed kernel that runs one submission (`grading.seal`), before any of the student's code
(`install`). The worker (`grading.worker`, another process, outside the sandbox) then sends the notebook's cells;
answer cells run as the student wrote them, with no rules inside the kernel: the operating system is the boundary
(the kernel reaches nothing but its own answer), so nothing the answer does in its kernel can change another
student's grade, the gradebook or the library.

For an exercise whose answer takes and returns plain data, the worker runs the checker in its own process and calls
the answer through `call` (arguments and result cross as `codec` JSON), or reads a value through `value`: the
kernel's reply is only what the answer returned, and the verdict is the grader's. For the others, `run_test` runs
the release's locked test cell with the checkers captured at `install`, and sends back the verdict only: that
verdict is the kernel's word, which the student's own code could forge, for its own points only
(docs/instructors/grading.md lists those exercises). Every reply is one stdout line that starts with a nonce the
worker chose for that request.
"""

from __future__ import annotations

import json
import types
from typing import Any

_state: dict[str, Any] = {}


def install() -> None:
    """Capture the checkers and what replies need, before any student code runs in this kernel."""
    from IPython import get_ipython

    from tutorial_lib import exercises
    from tutorial_lib.exercises.core import Verdict
    from tutorial_lib.grading import codec, remote

    checkers = {name: getattr(exercises, name) for name in dir(exercises) if name.startswith("check_")}
    _state.update(shell=get_ipython(), checkers=checkers, verdict=Verdict, encode=codec.encode,
                  answer_call=remote.answer_call, dumps=json.dumps, print=print)


def call(name: str, payload: str, nonce: str) -> None:
    """Call the answer `name` on decoded arguments; reply with its result and its arguments afterwards (files the
    grader sent are written into a folder of this kernel's own first, and the arguments then not sent back)."""
    _state["print"](nonce + _state["dumps"](_state["answer_call"](_state["shell"].user_ns.get(name), name, payload)))


def value(name: str, nonce: str) -> None:
    """Reply with the notebook's value `name` (an exercise whose answer is a value)."""
    try:
        if name not in _state["shell"].user_ns:
            reply = {"raised": ["NameError", f"name {name!r} is not defined"]}
        else:
            reply = {"result": _state["encode"](_state["shell"].user_ns[name])}
    except Exception as error:  # noqa: BLE001
        reply = {"raised": [type(error).__name__, str(error)[:500]]}
    _state["print"](nonce + _state["dumps"](reply))


def run_test(source: str, nonce: str) -> None:
    """Run a locked test cell with the checkers captured at install; reply with each verdict (passed, feedback)."""
    verdicts: list[list[Any]] = []

    def require(verdict: Any) -> None:
        """Record the verdict (the checker already printed its feedback)."""
        real = type(verdict) is _state["verdict"]
        verdicts.append([real and verdict.passed is True, verdict.message if real else "no verdict"])

    trusted = types.SimpleNamespace(**_state["checkers"], require=require)
    scope = {**_state["shell"].user_ns, "exercises": trusted}
    try:
        exec(compile(source, "<test cell>", "exec"), scope)  # noqa: S102 -- the release's locked test cell
        reply: dict[str, Any] = {"verdicts": verdicts}
    except BaseException as error:  # noqa: BLE001 -- the answer may raise anything; the verdict is then "no"
        reply = {"verdicts": verdicts, "raised": [type(error).__name__, str(error)[:500]]}
    _state["print"](nonce + _state["dumps"](reply))

