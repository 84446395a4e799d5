"""What every exercise checker shares (all notebooks, through the per-notebook modules).

Checkers give specific, friendly feedback that never reveals the solution.

Every checker takes the student's function (or value), tries it on cases of its own, and prints one of
    "✅ Exercise ...: passed"
    "❌ Exercise ...: not yet -- <what was expected, what came back>. Hint: <hint>"
    "⏳ Exercise ...: not done yet (the cell still raises NotImplementedError)."
and returns a Verdict that is true only when the answer is right, so a test can assert on it.
`require(verdict)` turns a failed verdict into an AssertionError carrying the same feedback: the nbgrader
edition's autograder test cells (classroom.nbgrader_course) call it around the checker, so a wrong or missing
answer fails the cell and scores zero, with the hint in the error.

Every checker carries its exercise's requirements (`@requirements(...)`, read back with `requirements_of`): what
a right answer must do, each with the fragment of the hint the checker prints when an answer breaks it. The
mutation report (`python -m tutorial_lib check-checkers`, `exercises.mutation`) runs at least one wrong answer per
requirement against the checker and asserts it is rejected with that hint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np


class _Todo:
    """The placeholder a student edition puts where an answer goes: any use means "not done yet"."""

    def _not_done(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this exercise is not done yet")

    __call__ = __len__ = __iter__ = __getitem__ = __getattr__ = __bool__ = __float__ = __int__ = _not_done

    def __repr__(self) -> str:
        return "TODO"


TODO = _Todo()

Checker = TypeVar("Checker", bound=Callable[..., Any])


@dataclass(frozen=True)
class Requirement:
    """One thing a right answer must do: a short key, the requirement in words, a fragment of the hint printed
    when an answer breaks it."""

    key: str
    text: str
    hint: str


def requirements(*rows: tuple[str, str, str]) -> Callable[[Checker], Checker]:
    """Attach an exercise's requirements, as (key, what a right answer must do, hint fragment) rows, to its checker."""
    listed = tuple(Requirement(*row) for row in rows)
    keys = [r.key for r in listed]
    if len(set(keys)) != len(keys):
        raise ValueError(f"requirement keys repeat: {keys}")

    def attach(checker: Checker) -> Checker:
        checker.requirements = listed
        lines = "\n".join(f"    * {r.key}: {r.text} (hint: \"{r.hint}\")" for r in listed)
        checker.__doc__ = f"{checker.__doc__ or ''}\n\n    Requirements:\n{lines}\n"
        return checker
    return attach


def requirements_of(checker: Callable) -> tuple[Requirement, ...]:
    """The requirements attached to a checker (or to the checker a functools.partial wraps); () when none."""
    return getattr(getattr(checker, "func", checker), "requirements", ())


class Mismatch(AssertionError):
    """A wrong answer: what was expected, what came back, and a hint that does not give it away."""

    def __init__(self, expected: str, got: str, hint: str):
        super().__init__(f"expected {expected}, got {got}")
        self.expected, self.got, self.hint = expected, got, hint


class Verdict:
    """The outcome of a check: true when passed; `message` is what was printed."""

    def __init__(self, passed: bool, message: str):
        self.passed, self.message = passed, message

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"Verdict(passed={self.passed})"

    def _ipython_display_(self) -> None:
        """Show nothing more in a notebook: the feedback was already printed."""


def require(verdict: Verdict) -> None:
    """Raise AssertionError(verdict.message) unless the verdict passed (nbgrader's test cells call this)."""
    if not verdict:
        raise AssertionError(verdict.message)


def run_check(title: str, check: Callable[[], None]) -> Verdict:
    """Run one check, print friendly feedback, and return the verdict."""
    try:
        check()
    except NotImplementedError:
        message, passed = f"⏳ {title}: not done yet (the cell still raises NotImplementedError).", False
    except Mismatch as wrong:
        message = f"❌ {title}: not yet -- expected {wrong.expected}, got {wrong.got}.\n   Hint: {wrong.hint}"
        passed = False
    except Exception as error:  # the student's code crashed: say how, without a traceback wall
        first_line = (str(error).splitlines() or [""])[0][:300]
        message, passed = f"❌ {title}: your code raised {type(error).__name__}: {first_line}", False
    else:
        message, passed = f"✅ {title}: passed", True
    print(message)
    return Verdict(passed, message)


def expect_equal(got: Any, expected: Any, hint: str, what: str = "") -> None:
    """Raise Mismatch unless got == expected (arrays compared element-wise, with shapes)."""
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        got_array, expected_array = np.asarray(got), np.asarray(expected)
        if got_array.shape != expected_array.shape:
            raise Mismatch(f"{what}shape {expected_array.shape}", f"shape {got_array.shape}", hint)
        if not np.array_equal(got_array, expected_array):
            raise Mismatch(f"{what}the reference values", "different values", hint)
        return
    if got != expected:
        raise Mismatch(f"{what}{expected!r}", repr(got), hint)


def dataset_graph(dataset: Any) -> Any:
    """Return a tf.data dataset's GraphDef: its stages, and the functions they map (for a dataset the grader rebuilt
    from an answer's, the graph the answer's kernel sent: `grading.tfdata`)."""
    import tensorflow as tf

    graph = tf.compat.v1.GraphDef()
    sent = getattr(dataset, "_grader_graph", False)
    if sent is None:
        raise ValueError("the answer's dataset was too large to send its stages to the grader")
    graph.ParseFromString(sent or dataset._as_serialized_graph().numpy())  # noqa: SLF001 -- the only way to see them
    return graph


def allows_reordering(dataset: Any) -> bool:
    """Whether a tf.data pipeline was allowed to hand out elements out of order (deterministic=False anywhere)."""
    if dataset.options().deterministic is False:
        return True
    return any(node.attr["deterministic"].s == b"false" for node in dataset_graph(dataset).node
               if "deterministic" in node.attr)
