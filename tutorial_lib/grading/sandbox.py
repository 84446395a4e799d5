"""The grading kernel's side: answer cells run under rules, and what the grader asks of them comes back as plain data.

Imported into the kernel that runs one submission, before any of the student's code (`install`). The worker
(`grading.worker`, another process) then sends the notebook's cells; an answer cell is not run as it is but through
`run_answer`, which compiles it with RestrictedPython under `AnswerPolicy` and runs it with guards:

* no imports but `ALLOWED_IMPORTS`; no classes (an object with a lying `==` cannot be made); no attribute that
  starts with `_`, no dunder name; builtins limited to RestrictedPython's safe set (no `open`, `exec`, `getattr`,
  `type`), and those never reachable through an attribute either (`DANGEROUS`);
* no reading of the course's checkers, grader or editions (`tutorial_lib.exercises`, but for the stubs'
  `exercises.TODO`; `.grading`, `.classroom`) or of `sys`, `os` (but `os.path`), `builtins` and other modules
  that reach the process (`BLOCKED_MODULES`), nor of attributes that write files or reach interpreter state
  (`BLOCKED_ATTRIBUTES`); reading files is allowed (exercises read data and list checkpoints);
* no attribute or item written to a module, class, function or library object (`_write_` guard);
* an answer may not call the course library's own version of its exercise (`LIBRARY_ANSWERS`);
* an answer cell can define or redefine only its own names: the exercise's stub names and names new to the
  notebook; a notebook name it reassigns (`exercises = ...`) is not carried back.

Then, for an exercise whose answer takes and returns plain data, the worker runs the checker in its own process
and calls the answer through `call` (arguments and result cross as `codec` JSON); for the others, `run_test` runs
the release's locked test cell with the checkers captured at `install`, and sends back the verdict only. Every
reply is one stdout line that starts with a nonce the worker chose for that request, which no answer can read.
"""

from __future__ import annotations

import builtins
import json
import operator
import types
import warnings
from typing import Any

from RestrictedPython import RestrictingNodeTransformer, compile_restricted
from RestrictedPython.Guards import (
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
    safe_builtins,
    safer_getattr,
)

ALLOWED_IMPORTS = ("numpy", "tensorflow", "math", "collections", "itertools", "functools", "statistics", "string",
                   "re", "time", "random", "heapq", "bisect", "dataclasses", "typing", "glob", "os")
BLOCKED_MODULES = ("tutorial_lib.exercises", "tutorial_lib.grading", "tutorial_lib.classroom", "builtins", "sys",
                   "os", "posix", "io", "importlib", "inspect", "gc", "ctypes", "subprocess", "shutil", "pathlib",
                   "sqlite3", "pickle", "marshal", "IPython", "ipykernel", "threading", "signal", "resource",
                   "socket", "tempfile", "runpy", "code", "codeop", "types", "weakref", "operator",
                   "traceback", "linecache", "atexit", "nbformat", "nbgrader", "jupyter_client", "zmq")
# What an answer may read from a blocked module: the stubs' placeholder, and os.path for file names.
OPEN_IN_BLOCKED_MODULES = (("tutorial_lib.exercises", "TODO"), ("os", "path"))
# Attribute names an answer may not use, whatever they belong to: interpreter state, process state, and what
# writes files (reading files is allowed: exercises read data and list checkpoints).
BLOCKED_ATTRIBUTES = frozenset({
    "f_globals", "f_locals", "f_back", "f_builtins", "gi_frame", "cr_frame", "ag_frame", "tb_frame", "tb_next",
    "func_globals", "mro", "format", "format_map", "environ", "modules", "load_library", "load_op_library",
    "get_ipython", "set_printoptions", "seterr", "seterrcall", "setbufsize", "system", "popen", "open",
    "write_file", "GFile", "FastGFile", "makedirs", "mkdir", "remove", "unlink", "rename", "rmtree", "copyfile",
    "save", "savez", "savez_compressed", "savetxt", "tofile", "memmap", "open_memmap", "write", "writelines",
    "print", "TFRecordWriter", "create_file_writer", "experimental_write_csv",
})
# Builtins an answer may not reach through any attribute (e.g. a module that imported them).
DANGEROUS = (builtins.eval, builtins.exec, builtins.compile, builtins.open, builtins.__import__, builtins.getattr,
             builtins.setattr, builtins.delattr, builtins.globals, builtins.locals, builtins.vars, builtins.breakpoint,
             builtins.input)
MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
                      "sort", "reverse", "add", "discard", "difference_update", "intersection_update",
                      "symmetric_difference_update"})
# exercise (the name its answer defines) -> the course library's own version of that answer: an answer to that
# exercise may not call it (the grader grades the student's code, not the library's); other exercises may.
LIBRARY_ANSWERS: dict[str, tuple[str, ...]] = {
    "decode_cifar": ("tutorial_lib.pipelines.digits:decode_fixed_record",),
    "csv_dataset": ("tutorial_lib.pipelines.digits:dataset_read_digits",),
    "classify": ("tutorial_lib.monitor.sampler:verdict",),
    "build_fast_dataset": ("tutorial_lib.pipelines.digits:dataset_training_batches",),
    "profile": ("tutorial_lib.monitor.profiler:profile_steps",),
    "validation_pass": ("tutorial_lib.tf1:drain",),
    "epoch_size_for": ("tutorial_lib.pipelines.ptb:epoch_size",),
    "window": ("tutorial_lib.pipelines.ptb:windows",),
    "ideal_seconds": ("tutorial_lib.benchmarks.pipelines:ideal_s",),
    "each_once": ("tutorial_lib.pipelines.service.cluster:distributed",),
    "start_service": ("tutorial_lib.pipelines.service.cluster:distributed",),
}
INTERNAL_NAMES = frozenset({"In", "Out", "get_ipython", "exit", "quit", "open"})

_state: dict[str, Any] = {}


class AnswerRejected(Exception):
    """An answer cell broke one of the grader's rules (its names stay undefined)."""


class AnswerPolicy(RestrictingNodeTransformer):
    """RestrictedPython's rules, but a private name of the answer's own (`_helper`) is allowed and an annotated
    assignment is run as a plain one; plus: no class definitions in an answer cell."""

    def check_name(self, node: Any, name: str | None, allow_magic_methods: bool = False) -> None:
        """Refuse dunder names and RestrictedPython's own (`_getattr_`, `_print`, ...); allow `_helper`."""
        if name is not None and name.startswith("_") and not name.startswith("__") and not name.endswith("_") \
                and name != "_print":
            return
        super().check_name(node, name, allow_magic_methods)

    def visit_AnnAssign(self, node: Any) -> Any:
        """`x: int = 3` runs as `x = 3` (an annotation alone does nothing)."""
        import ast

        if node.value is None:
            return None
        plain = ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)
        return self.visit(plain)

    def visit_ClassDef(self, node: Any) -> Any:
        """Refuse a class: an answer returns plain values, not objects of its own making."""
        self.error(node, "Class definitions are not allowed in an answer cell (return plain values).")
        return node


def _blocked_module(value: Any) -> bool:
    """Whether a value is a module an answer may not reach."""
    if not isinstance(value, types.ModuleType):
        return False
    name = value.__name__
    return any(name == b or name.startswith(b + ".") for b in BLOCKED_MODULES)


def guarded_getattr(obj: Any, name: str, default: Any = None) -> Any:
    """Read an attribute unless it is private, writes files, or leads to a blocked module."""
    if not isinstance(name, str) or name in BLOCKED_ATTRIBUTES:
        raise AttributeError(f"the grader does not let an answer use .{name}")
    allowed = isinstance(obj, types.ModuleType) and (obj.__name__, name) in OPEN_IN_BLOCKED_MODULES
    if _blocked_module(obj) and not allowed:
        raise AttributeError(f"the grader does not let an answer use the module {obj.__name__}")
    value = safer_getattr(obj, name)
    if any(value is danger for danger in DANGEROUS):
        raise AttributeError(f"the grader does not let an answer use {name}")
    if _blocked_module(value):
        raise AttributeError(f"the grader does not let an answer use the module {value.__name__}")
    if name in MUTATORS and id(obj) in _state.get("protected", ()):
        raise AttributeError(f"the grader does not let an answer change the course library's own data (.{name})")
    return value


def guarded_write(obj: Any) -> Any:
    """Allow an attribute or item write only on ordinary objects: not a module, class, function or library state."""
    if isinstance(obj, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        raise TypeError(f"the grader does not let an answer change a {type(obj).__name__}")
    if id(obj) in _state.get("protected", ()):
        raise TypeError("the grader does not let an answer change the course library's own data")
    module = getattr(type(obj), "__module__", "") or ""
    if module.startswith(("tutorial_lib.exercises", "tutorial_lib.grading", "tutorial_lib.classroom")):
        raise TypeError("the grader does not let an answer change the checkers' objects")
    return obj


def guarded_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    """Import one of ALLOWED_IMPORTS (and their submodules), nothing else."""
    if level != 0 or name.split(".")[0] not in ALLOWED_IMPORTS:
        raise ImportError(f"the grader does not let an answer cell import {name}: use the notebook's own names")
    return _state["import"](name, globals, locals, fromlist, level)


class _Print:
    """What RestrictedPython calls for print(): the kernel's own print."""

    def __init__(self, _getattr_: Any = None):
        pass

    def _call_print(self, *values: Any, **options: Any) -> None:
        options.pop("file", None)
        _state["print"](*values, **options)


def _inplace(op: str, x: Any, y: Any) -> Any:
    """x op= y, for the operators an answer may use."""
    table = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
             "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "|=": operator.ior,
             "&=": operator.iand, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
             "@=": operator.imatmul}
    return table[op](x, y)


def library_answer(path: str) -> Any:
    """The library function at "module:name"."""
    import importlib

    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def _excluding(blocked: dict[int, str]) -> Any:
    """A getattr guard that also refuses the library's own versions of this cell's exercise."""
    def guard(obj: Any, name: str, default: Any = None) -> Any:
        value = guarded_getattr(obj, name, default)
        if id(value) in blocked:
            raise AttributeError(f"the grader does not let this exercise's answer call the course library's own "
                                 f"version ({blocked[id(value)]}): write it yourself")
        return value
    return guard


def _guards(blocked: dict[int, str] | None = None) -> dict[str, Any]:
    """The globals RestrictedPython's compiled code looks up."""
    allowed = dict(safe_builtins)
    for name in ("sum", "min", "max", "any", "all", "enumerate", "map", "filter", "reversed", "list", "dict",
                 "set", "frozenset", "iter", "next", "sorted", "zip", "tuple", "bytes", "bin"):
        allowed[name] = getattr(builtins, name)
    for name in ("getattr", "setattr", "delattr", "type", "object", "super", "__build_class__", "vars", "dir"):
        allowed.pop(name, None)
    allowed["__import__"] = guarded_import
    getattr_guard = _excluding(blocked) if blocked else guarded_getattr
    return {"__builtins__": allowed, "_getattr_": getattr_guard, "_write_": guarded_write,
            "_getitem_": operator.getitem, "_getiter_": iter, "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_unpack_sequence_": guarded_unpack_sequence, "_inplacevar_": _inplace, "_print_": _Print,
            "_apply_": lambda f, *a, **k: f(*a, **k), "__name__": "answer", "__metaclass__": type}


def _protected_ids() -> set[int]:
    """The ids of the course library's module-level containers (an answer may read them, never change them)."""
    import sys

    ids = set()
    for name, module in list(sys.modules.items()):
        if name.startswith("tutorial_lib") and module is not None:
            for value in vars(module).values():
                if isinstance(value, (dict, list, set)):
                    ids.add(id(value))
    return ids


def install() -> None:
    """Capture the checkers and what replies need, before any student code runs in this kernel."""
    from IPython import get_ipython

    from tutorial_lib import exercises
    from tutorial_lib.exercises.core import Verdict
    from tutorial_lib.grading import codec

    checkers = {name: getattr(exercises, name) for name in dir(exercises) if name.startswith("check_")}
    _state.update(shell=get_ipython(), checkers=checkers, verdict=Verdict, encode=codec.encode,
                  decode=codec.decode, dumps=json.dumps, print=print, protected=_protected_ids())
    _state["import"] = builtins.__import__


def _namespace() -> dict[str, Any]:
    """The notebook's names an answer cell may use."""
    return {k: v for k, v in _state["shell"].user_ns.items() if not k.startswith("_") and k not in INTERNAL_NAMES}


def run_answer(source: str, grade_id: str, own_names: list[str]) -> None:
    """Run an answer cell under the rules; carry back the exercise's own names and names new to the notebook."""
    _state["protected"] = _state["protected"] | _protected_ids()
    try:
        with warnings.catch_warnings():  # print() goes straight to the kernel (_Print): no `printed` to read
            warnings.filterwarnings("ignore", message=".*never reads 'printed'", category=SyntaxWarning)
            code = compile_restricted(source, filename=f"<answer cell {grade_id}>", mode="exec", policy=AnswerPolicy)
    except SyntaxError as error:
        raise AnswerRejected(f"the grader cannot run this answer cell: {error}") from None
    user_ns = _state["shell"].user_ns
    before = _namespace()
    blocked = {id(library_answer(path)): path.replace(":", ".") for name in own_names
               for path in LIBRARY_ANSWERS.get(name, ())}
    scope = {**{k: v for k, v in before.items() if id(v) not in blocked}, **_guards(blocked)}
    exec(code, scope)  # noqa: S102 -- restricted code, with guards
    kept = []
    for name, value in scope.items():
        if name.startswith("_") or name in _guards():
            continue
        if name in own_names or name not in user_ns:
            user_ns[name] = value
        elif value is not before.get(name):
            kept.append(name)
    if kept:
        _state["print"](f"(grader: an answer cell may not change the notebook's {', '.join(kept)}; kept as it was)")


def call(name: str, payload: str, nonce: str) -> None:
    """Call the answer `name` on decoded arguments; reply with its result and its arguments afterwards."""
    reply: dict[str, Any]
    try:
        args = tuple(_state["decode"](payload))
        function = _state["shell"].user_ns.get(name)
        if function is None:
            reply = {"raised": ["NameError", f"name {name!r} is not defined"]}
        else:
            result = function(*args)
            reply = {"result": _state["encode"](result, args), "args": _state["encode"](list(args))}
    except Exception as error:  # noqa: BLE001 -- whatever the answer raised goes back by name
        reply = {"raised": [type(error).__name__, str(error)[:500]]}
    _state["print"](nonce + _state["dumps"](reply))


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

