"""The migration scanner: find the TF1 input pipeline in Python files and notebooks, without running them.

`python -m tutorial_lib migrate PATH...` (and notebook 10's section "Your own code: the migration report") read
the code with `ast` (no TensorFlow import), find every TF1 input call under any import style, follow the data
from call to call (assignments, function returns and arguments) to put each pipeline in order, and give each
call's `tf.data` form from the table in `table` (built from the migration map). The report's formats
are in `migrate_report`.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutorial_lib.migration import table

SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", ".ipynb_checkpoints", "node_modules", ".tox", ".mypy_cache"}
# Where an unknown TensorFlow call still counts as a TF1 input call (it is listed, never dropped).
INPUT_NAMESPACES = ("train", "queue", "python_io", "python.training.input", "python.training.queue_runner",
                    "python.training.queue_runner_impl", "python.training.coordinator", "python.ops.data_flow_ops",
                    "python.ops.io_ops", "python.ops.session_ops", "python.data.ops.iterator_ops")
# Names in those namespaces that are not about input (optimizers, checkpoints, protos, schedules, hooks).
NOT_INPUT = {"Saver", "Example", "SequenceExample", "Features", "Feature", "FeatureList", "FeatureLists",
             "BytesList", "Int64List", "FloatList", "Checkpoint", "CheckpointManager", "get_global_step",
             "get_or_create_global_step", "create_global_step", "global_step", "latest_checkpoint",
             "list_variables", "load_variable", "init_from_checkpoint", "Scaffold", "ClusterSpec", "Server",
             "replica_device_setter", "ExponentialMovingAverage", "write_graph", "import_meta_graph",
             "export_meta_graph", "get_checkpoint_state", "piecewise_constant", "summary_iterator", "TFRecordWriter",
             "TFRecordOptions", "TFRecordCompressionType", "ClusterDef", "JobDef", "ServerDef", "SessionManager"}
RECEIVER_FIRST = ("make_one_shot_iterator", "make_initializable_iterator")  # dataset.make_...(): the dataset
BATCH_NAMESPACES = ("train", "python.training.input")  # `batch` means the TF1 call only here
FLOW_METHODS = {"append", "extend", "add", "update", "insert"}  # x.append(v): v flows into x
# What makes a TF1 session: its classes, and the methods that return one (Supervisor, SessionManager).
SESSIONS = {"Session", "InteractiveSession", "MonitoredTrainingSession", "MonitoredSession",
            "SingularMonitoredSession", "get_default_session"}
SESSION_METHODS = {"managed_session", "prepare_or_wait_for_session", "prepare_session", "wait_for_session",
                   "recover_session"}
PYTHON2_FIXERS = ("print", "exec", "except", "raise", "ne", "repr", "numliterals")  # fissix.fixes.fix_<name>
TF_NAME = re.compile(r"\btf(?:\.[A-Za-z_]\w*)+")
MAGIC = re.compile(r"^(\s*)(%|!|\?)")
SHELL_ASSIGN = re.compile(r"^(\s*)([\w, ]+?)\s*=\s*[!%]")


@dataclass
class Call:
    """One TF1 input call found in a file."""

    key: tuple[int, int, int]  # (cell, line, column): cell is -1 in a .py file
    api: str
    written: str  # the callee as written, e.g. "tf.train.shuffle_batch"
    args: dict[str, str]  # by parameter name (positional ones bound in TF1's order)
    known: bool
    shown: list[str] = field(default_factory=list)  # the arguments as written
    upstream: set = field(default_factory=set)  # keys of calls (and parameter tokens) this call's inputs came from

    @property
    def cell(self) -> int:
        """Return the notebook cell (-1 in a .py file)."""
        return self.key[0]

    @property
    def line(self) -> int:
        """Return the line (in the cell, for a notebook)."""
        return self.key[1]

    @property
    def kind(self) -> str:
        """Return the call's kind: producer, reader, decoder, queue, batch, runner, ... or unknown."""
        spec = spec_of(self.api)
        return spec.kind if spec and self.known else "unknown"


@dataclass
class RecordOps:
    """The statements that make a batch's tensors from the record a reader read, as one function for `.map`."""

    param: str  # the name the reader's record was bound to
    statements: list[ast.stmt]  # the statements, in order, as written
    tensors: ast.expr  # what the batch took
    places: set = field(default_factory=set)  # (cell, line) of every line they span

    @functools.cached_property
    def body(self) -> list[str]:
        """Return the statements as TF 2 expects them."""
        return [tf2_names(ast.unparse(upgraded(s))) for s in self.statements]

    @functools.cached_property
    def returned(self) -> str:
        """Return what the batch took, as the dataset's element (`[x]` is x, `[a, b]` is (a, b))."""
        return tf2_names(table.components(ast.unparse(upgraded(self.tensors))))

    @property
    def lines(self) -> list[int]:
        """Return the lines the statements start on."""
        return sorted({s.lineno for s in self.statements})

    def function(self) -> list[str]:
        """Return the function's lines: `def per_record(record):`, its statements and its return."""
        lines = self.lines
        span = f"line {lines[0]}" if len(lines) == 1 else f"lines {lines[0]}-{lines[-1]}" if lines else ""
        cell = min(self.places)[0] if self.places else -1
        where = f"  # {span} of {f'cell {cell}' if cell >= 0 else 'the file'}, run on each record" if lines else ""
        return [f"def per_record({self.param}):{where}", *("    " + line for line in self.body),
                f"    return {self.returned}"]

    def trivial(self) -> bool:
        """Return whether the batch took the record itself (no function is needed)."""
        return not self.body and self.returned == self.param


@dataclass
class Scan:
    """What the scanner found in one file."""

    path: str
    calls: list[Call] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)  # {"line", "cell"?, "message"}
    alternatives: list[list[set]] = field(default_factory=list)  # per branch point, the calls one branch made
    copies: list[Call] = field(default_factory=list)  # a function's calls as seen from one call site (pipelines)
    cloned: set = field(default_factory=set)  # keys of the calls that have such copies
    python2: dict[int, list[int]] = field(default_factory=dict)  # cell (-1 in a .py file) -> lines read as Python 2
    records: dict[tuple, RecordOps | str] = field(default_factory=dict)  # a batch's place -> its per-record ops (or
    # why they cannot be moved into one function)


def is_token(item: object) -> bool:
    """Return whether a data-flow item is a function parameter's token ("param", function, name), not a call."""
    return isinstance(item, tuple) and len(item) == 3 and item[0] == "param"


def spec_of(api: str) -> table.Spec | None:
    """Return the table's spec of an API name (or of an op that keeps its form), or None."""
    return table.SPECS.get(api) or table.SAME_OPS.get(api)


def dotted(node: ast.AST) -> str | None:
    """Return `a.b.c` for a chain of names and attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def canonical(path: str) -> tuple[str, str] | None:
    """Return (namespace, name) of a resolved TensorFlow path without `tensorflow.compat.v1`, or None."""
    parts = path.split(".")
    if parts[0] != "tensorflow" or len(parts) < 2:
        return None
    parts = parts[1:]
    if parts[:1] == ["compat"] and parts[1:2] in (["v1"], ["v2"]):
        parts = parts[2:]
    return (".".join(parts[:-1]), parts[-1]) if parts else None


def is_input_namespace(namespace: str, name: str) -> bool:
    """Return whether an unknown TensorFlow call belongs to the TF1 input APIs (listed as unknown) or not."""
    if name in NOT_INPUT or name.endswith(("Optimizer", "Hook", "_decay")) or "checkpoint" in name.lower():
        return False
    if name.endswith(("Reader", "Queue")):
        return True
    return any(namespace == ns or namespace.startswith(ns + ".") for ns in INPUT_NAMESPACES)


class Scanner(ast.NodeVisitor):
    """Walks one module (or a notebook's cells in order) and records TF1 input calls and the data between them."""

    def __init__(self, scan: Scan) -> None:
        self.scan = scan
        self.aliases: dict[str, str] = {"tf": "tensorflow"}  # name -> module path; `tf` even without an import
        self.env: dict[str, set] = {}
        self.self_attrs: dict[str, set] = {}  # self.X, across the methods of a file
        self.functions: dict[str, list[str]] = {}  # name -> parameters (methods: without self)
        self.returns: dict[str, set] = {}
        self.sites: list[tuple[str, dict[str, set]]] = []  # (function, parameter -> what flowed into it)
        self.calls: dict[tuple, Call] = {}
        self.copies: dict[tuple, Call] = {}
        self.cloned: set = set()
        self.cell = -1
        self.current: str | None = None  # the function being walked
        self.sessions: set[str] = set()  # names bound to a TF1 session
        self.alternatives: set[frozenset] = set()  # calls a name holds in different branches: one or the other
        self.copies_of: dict[str, str] = {}  # a list filled with n alike copies (a loop not using its counter) -> n
        self.repeated_values: dict[str, str] = {}  # a name bound to a value repeated n times (tf.tile...) -> n

    # --- names -------------------------------------------------------------------------------------------------
    def resolve(self, node: ast.AST) -> str | None:
        """Return the full module path of a callee written as a dotted name, through the file's imports."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head not in self.aliases:
            return None
        return self.aliases[head] + ("." + rest if rest else "")

    def visit_Import(self, node: ast.Import) -> None:
        """Record `import tensorflow.compat.v1 as tf` and the like."""
        for alias in node.names:
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                self.aliases[alias.name.split(".")[0]] = alias.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        """Record `from tensorflow.python.training import input as tf_input` and the like."""
        if node.module and node.level == 0:
            for alias in node.names:
                self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    # --- data flow ----------------------------------------------------------------------------------------------
    def lookup(self, name: str) -> set:
        """Return what a variable (or `self.X`) holds: the calls it came from."""
        if name in self.env:
            return self.env[name]
        return self.self_attrs.get(name, set())

    def target_names(self, target: ast.AST) -> list[str]:
        """Return the variable names an assignment target binds (`self.x` as "self.x")."""
        if isinstance(target, ast.Name):
            return [target.id]
        if isinstance(target, (ast.Tuple, ast.List)):
            return [n for element in target.elts for n in self.target_names(element)]
        if isinstance(target, ast.Starred):
            return self.target_names(target.value)
        if isinstance(target, ast.Attribute) and dotted(target):
            return [dotted(target)]
        if isinstance(target, ast.Subscript):
            return self.target_names(target.value)
        return []

    def bind(self, target: ast.AST, flows: set, merge: bool = False) -> None:
        """Bind the names of an assignment target to what flowed into the value."""
        for name in self.target_names(target):
            if name == "_":
                continue
            if isinstance(target, ast.Subscript) or merge:
                self.env[name] = self.lookup(name) | flows
            else:
                self.env[name] = set(flows)
            if name.startswith("self."):
                self.self_attrs[name] = self.self_attrs.get(name, set()) | flows

    def flows(self, node: ast.AST | None) -> set:
        """Return the calls (and parameter tokens) an expression's value comes from; record the calls in it."""
        if node is None:
            return set()
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Name):
            return set(self.lookup(node.id)) if isinstance(node.ctx, ast.Load) else set()
        if isinstance(node, ast.Attribute) and dotted(node) and dotted(node).startswith("self."):
            return set(self.lookup(dotted(node))) | self.flows(node.value)
        if isinstance(node, ast.Lambda):
            return set()
        found: set = set()
        for child in ast.iter_child_nodes(node):
            found |= self.flows(child)
        return found

    def arguments(self, node: ast.Call, params: tuple[str, ...], skip: int = 0) -> dict[str, str]:
        """Return the call's arguments as written, by parameter name (positional ones bound in TF1's order)."""
        args: dict[str, str] = {}
        for i, arg in enumerate(node.args):
            text = self.source(arg)
            if isinstance(arg, ast.Starred):
                args[f"*{i}"] = text
            else:
                args[params[i + skip] if i + skip < len(params) else f"#{i}"] = text
        for keyword in node.keywords:
            args[keyword.arg or f"**{len(args)}"] = self.source(keyword.value)
        return args

    def source(self, node: ast.AST) -> str:
        """Return an expression as written (whitespace collapsed)."""
        text = None
        if self.lines and node.end_lineno is not None and node.end_col_offset is not None:
            first, last = self.lines[node.lineno - 1], self.lines[node.end_lineno - 1]
            if node.lineno == node.end_lineno:
                text = first.encode()[node.col_offset:node.end_col_offset].decode(errors="replace")
            else:
                middle = "".join(self.lines[node.lineno:node.end_lineno - 1])
                text = (first.encode()[node.col_offset:].decode(errors="replace") + middle
                        + last.encode()[:node.end_col_offset].decode(errors="replace"))
        return re.sub(r"\s+", " ", text if text is not None else ast.unparse(node)).replace("( ", "(").replace(
            " )", ")").replace("[ ", "[").replace(" ]", "]")

    def identify(self, node: ast.Call) -> tuple[str, str, bool] | None:
        """Return (api, callee as written, known) when the call is a TF1 input call, else None."""
        written = dotted(node.func) or (f"….{node.func.attr}" if isinstance(node.func, ast.Attribute) else "")
        path = self.resolve(node.func)
        found = canonical(path) if path else None
        if found:
            namespace, name = found
            if name == "batch" and namespace not in BATCH_NAMESPACES:
                return None
            if spec_of(name) and (name in table.SAME_OPS or name in table.SPECS):
                return name, written, True
            if is_input_namespace(namespace, name):
                return name, written, False
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr in table.METHODS:
            return node.func.attr, written, True
        return None

    def call(self, node: ast.Call) -> set:
        """Record a call: a TF1 input call becomes a node fed by its inputs; others pass their inputs through."""
        receiver = self.flows(node.func.value) if isinstance(node.func, ast.Attribute) else set()
        inputs = [self.flows(arg) for arg in node.args]
        by_keyword = {kw.arg: self.flows(kw.value) for kw in node.keywords}
        everything = receiver.union(*inputs, *by_keyword.values())
        local = self.local_function(node)
        if local:
            params = self.functions[local]
            site = {p: inputs[i] for i, p in enumerate(params) if i < len(inputs)}
            site.update({k: v for k, v in by_keyword.items() if k in params})
            self.sites.append((local, site))
            returned: set = set()
            for item in self.returns.get(local, set()):
                if is_token(item):
                    returned |= site.get(item[2], set()) if item[1] == local else {item}
                elif self.depends_on(item, local):
                    returned.add(self.copy(item, local, site, (self.cell, node.lineno, node.col_offset)))
                else:
                    returned.add(item)
            if isinstance(node.func, ast.Name) and node.func.id in self.classes:
                returned |= everything  # an object built from these inputs
            # a method may be another object's of the same name (reader.read): its inputs pass through too
            return returned | (everything if isinstance(node.func, ast.Attribute) else set())
        found = self.identify(node) or self.queue_method(node, receiver)
        feed = self.feed_of(node)
        if feed is not None:  # what flowed into it was found above, with the call's other arguments
            flowed = {id(a): f for a, f in zip(node.args, inputs, strict=True)}
            flowed.update({id(kw.value): by_keyword[kw.arg] for kw in node.keywords})
            self.record(node, "feed_dict", "feed_dict", True, flowed[id(feed)], key_offset=1, feed=feed)
        if found is None:
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.attr in FLOW_METHODS:
                self.bind(node.func.value, set().union(*inputs, *by_keyword.values()), merge=True)
            return everything
        api, written, known = found
        key = self.record(node, api, written, known, everything)
        return {key}

    def queue_method(self, node: ast.Call, receiver: set) -> tuple[str, str, bool] | None:
        """Return (api, callee as written, known) for a queue's method: `enqueue`, `dequeue`... on any object,
        `close` and `size` on an object a queue call made; else None."""
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        made_by_queue = any(not is_token(k) and k in self.calls and self.calls[k].kind == "queue" for k in receiver)
        if method in table.QUEUE_METHODS or method in table.QUEUE_ONLY_METHODS and made_by_queue:
            return f"queue.{method}", dotted(node.func) or f"….{method}", True
        return None

    def feed_of(self, node: ast.Call) -> ast.expr | None:
        """Return the feed a call passes, else None: `feed_dict=` (not None) to any call, the second positional
        argument of a session's `run` (a name bound to a Session, or one with "sess" in it), or a dict written out
        as the first argument of `.eval` / `.run` (`Tensor.eval(feed_dict)`, `Operation.run(feed_dict)`)."""
        keyword = next((kw.value for kw in node.keywords if kw.arg == "feed_dict"), None)
        if keyword is not None:
            return None if isinstance(keyword, ast.Constant) and keyword.value is None else keyword
        if not isinstance(node.func, ast.Attribute) or node.func.attr not in ("run", "eval"):
            return None
        receiver = dotted(node.func.value) or ""
        if node.func.attr == "run" and len(node.args) >= 2 and (receiver in self.sessions
                                                                 or "sess" in receiver.lower()):
            feed = node.args[1]
            return None if isinstance(feed, ast.Constant) and feed.value is None else feed
        if len(node.args) == 1 and isinstance(node.args[0], ast.Dict) and node.args[0].keys:
            return node.args[0]
        return None

    def note_session(self, target: ast.AST, value: ast.AST | None) -> None:
        """Remember the names bound to a TF1 session (`sess = tf.Session()`, `with sv.managed_session() as s`)."""
        if not isinstance(value, ast.Call):
            return
        path = self.resolve(value.func) or ""
        method = value.func.attr if isinstance(value.func, ast.Attribute) else ""
        if path.rsplit(".", 1)[-1] in SESSIONS or method in SESSION_METHODS:
            self.sessions.update(self.target_names(target))

    def record(self, node: ast.Call, api: str, written: str, known: bool, upstream: set, key_offset: int = 0,
               feed: ast.expr | None = None):
        """Add (or update, on a later pass) the call found at this place; return its key."""
        key = (self.cell, node.lineno, node.col_offset + key_offset)
        if key in self.calls:  # a later pass: only what flows in can have grown
            self.calls[key].upstream |= {u for u in upstream if u != key}
            return key
        spec = spec_of(api)
        skip = 1 if api in RECEIVER_FIRST and isinstance(node.func, ast.Attribute) and not self.resolve(node.func) \
            else 0
        if feed is not None:
            args = {"feed_dict": self.source(feed)}
            shown = [f"feed_dict={args['feed_dict']}"]
        else:
            args = self.arguments(node, spec.params if spec else (), skip)
            copies = self.alike_copies(args.get("tensors_list")) if api.endswith("_join") else None
            if copies:
                args[table.COPIES] = copies
            if api == "queue.enqueue_many":
                reps = self.repeated_in(node.args[0] if node.args else next(
                    (k.value for k in node.keywords if k.arg == "vals"), None))
                if reps:
                    args[table.REPEATED] = reps
            if spec and spec.kind == "batch" and self.fed(args.get("batch_size")):
                args[table.FED_BATCH_SIZE], args["batch_size"] = args["batch_size"], "batch_size"
            shown = [self.source(a) for a in node.args]
            shown += [f"{k.arg}={self.source(k.value)}" if k.arg else f"**{self.source(k.value)}"
                      for k in node.keywords]
        call = self.calls.setdefault(key, Call(key, api, written, args, known, shown))
        call.upstream |= {u for u in upstream if u != key}
        return key

    def repeated_in(self, node: ast.AST | None) -> str | None:
        """Return n when what is enqueued is repeated n times (`tf.tile`, `tf.concat([x] * n)`), in place or
        through a name bound to it; else None."""
        for part in ast.walk(node) if node is not None else []:
            if isinstance(part, ast.Name) and part.id in self.repeated_values:
                return self.repeated_values[part.id]
            if isinstance(part, ast.Call) and (count := repetition(part)):
                return count
        return None

    def fed(self, written: str | None) -> bool:
        """Return whether an argument as written is a name bound to a placeholder (a value fed at run time)."""
        return bool(written) and written.isidentifier() and any(
            not is_token(k) and k in self.calls and self.calls[k].api in ("placeholder", "placeholder_with_default")
            for k in self.lookup(written))

    def alike_copies(self, written: str | None) -> str | None:
        """Return n when a `*_join`'s tensors_list is n alike copies: `[x] * n`, `[f() for _ in range(n)]`, or a
        list a loop not using its counter filled; else None."""
        if not written:
            return None
        if written in self.copies_of:
            return self.copies_of[written]
        try:
            node = ast.parse(written, mode="eval").body
        except SyntaxError:
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and isinstance(node.left, ast.List) \
                and len(node.left.elts) == 1:
            return ast.unparse(node.right)
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            return unused_range_count(node.generators[0].target, node.generators[0].iter, [node.elt])
        return None

    def depends_on(self, key: tuple, function: str) -> bool:
        """Return whether a call's inputs come (directly or not) from a parameter of the function."""
        seen, todo = set(), [key]
        while todo:
            for u in self.node(todo.pop()).upstream:
                if is_token(u):
                    if u[1] == function:
                        return True
                elif u not in seen:
                    seen.add(u)
                    todo.append(u)
        return False

    def node(self, key: tuple) -> Call:
        """Return a call found, or a copy made for a call site."""
        return self.calls[key] if key in self.calls else self.copies[key]

    def copy(self, key: tuple, function: str, site: dict[str, set], where: tuple) -> tuple:
        """Return the key of a copy of a call made inside a function, fed by what one call site passed in."""
        original = self.node(key)
        new_key = (*key, *where)
        if new_key in self.copies:
            return new_key
        self.cloned.add(key)
        upstream: set = set()
        for u in original.upstream:
            if is_token(u):
                upstream |= site.get(u[2], set()) if u[1] == function else {u}
            elif self.depends_on(u, function):
                upstream.add(self.copy(u, function, site, where))
            else:
                upstream.add(u)
        self.copies[new_key] = Call(new_key, original.api, original.written, original.args, original.known,
                                    original.shown, upstream)
        return new_key

    def local_function(self, node: ast.Call) -> str | None:
        """Return the name of a function (or class) of this file that the call calls, else None."""
        if isinstance(node.func, ast.Name) and node.func.id in self.functions and node.func.id not in self.aliases:
            return node.func.id
        if isinstance(node.func, ast.Attribute) and node.func.attr in self.functions:
            receiver = node.func.value  # self.method(), or LocalClass(...).method()
            if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls") or isinstance(receiver, ast.Call) \
                    and isinstance(receiver.func, ast.Name) and receiver.func.id in self.classes:
                return node.func.attr
        return None

    # --- statements ---------------------------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        """Bind the targets to what flowed into the value; `v1 = tf.compat.v1` is an alias."""
        path = self.resolve(node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else None
        if path and path.startswith("tensorflow") and len(node.targets) == 1 and isinstance(node.targets[0],
                                                                                            ast.Name):
            self.aliases[node.targets[0].id] = path
            return
        reps = repetition(node.value)
        if reps and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.repeated_values[node.targets[0].id] = reps
        flows = self.flows(node.value)
        copies = self.alike_copies(self.source(node.value)) if isinstance(node.value, (ast.ListComp, ast.BinOp)) \
            else None
        for target in node.targets:
            self.bind(target, flows)
            self.note_session(target, node.value)
            if copies and isinstance(target, ast.Name):
                self.copies_of[target.id] = copies

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        """Bind an annotated assignment."""
        self.bind(node.target, self.flows(node.value))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        """x += v: v flows into x as well."""
        self.bind(node.target, self.flows(node.value), merge=True)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        """(x := v) binds x."""
        self.bind(node.target, self.flows(node.value))

    def visit_Expr(self, node: ast.Expr) -> None:
        """A bare expression: record its calls."""
        self.flows(node.value)

    def visit_Return(self, node: ast.Return) -> None:
        """Remember what the current function returns."""
        flows = self.flows(node.value)
        if self.current:
            self.returns[self.current] = self.returns.get(self.current, set()) | flows

    def visit_For(self, node: ast.For) -> None:
        """The loop variable holds what the iterable held; the body is walked once, its bindings merged. A
        `for _ in range(n)` whose body does not use its counter makes n alike copies of what it appends."""
        self.bind(node.target, self.flows(node.iter))
        count = unused_range_count(node.target, node.iter, node.body)
        if count:
            for call in (n for statement in node.body for n in ast.walk(statement) if isinstance(n, ast.Call)):
                if isinstance(call.func, ast.Attribute) and call.func.attr == "append" and dotted(call.func.value):
                    self.copies_of[dotted(call.func.value)] = count
        self.branches([node.body, node.orelse])

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With) -> None:
        """`with x as y`: y holds x."""
        for item in node.items:
            flows = self.flows(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, flows)
                self.note_session(item.optional_vars, item.context_expr)
        for statement in node.body:
            self.visit(statement)

    visit_AsyncWith = visit_With

    def visit_If(self, node: ast.If) -> None:
        """Both branches may run: each starts from the same bindings, and their bindings are merged."""
        self.flows(node.test)
        self.branches([node.body, node.orelse])

    def visit_While(self, node: ast.While) -> None:
        """A while loop: like an if."""
        self.flows(node.test)
        self.branches([node.body, node.orelse])

    def visit_Try(self, node: ast.Try) -> None:
        """try/except/else/finally: every block may run."""
        self.branches([node.body, *[h.body for h in node.handlers], node.orelse])
        for statement in node.finalbody:
            self.visit(statement)

    visit_TryStar = visit_Try

    def branches(self, blocks: list[list[ast.stmt]]) -> None:
        """Walk blocks that may each run, from the same bindings, then merge what each bound."""
        start = dict(self.env)
        merged: dict[str, set] = {}
        ends = []
        for block in blocks:
            self.env = dict(start)
            for statement in block:
                self.visit(statement)
            ends.append(self.env)
            for name, value in self.env.items():
                merged[name] = merged.get(name, set()) | value
        self.env = {**start, **{name: start.get(name, set()) | value for name, value in merged.items()}}
        for name in merged:  # a name bound to different calls in different blocks holds one or the other
            options = {frozenset(end.get(name, start.get(name, set()))) for end in ends}
            calls = [o for o in options if o and not any(is_token(k) for k in o)]
            if len(calls) >= 2 and not set.intersection(*map(set, calls)):
                self.alternatives.add(frozenset(calls))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        """Walk a function with its parameters as tokens, then restore the enclosing bindings."""
        outer_env, outer_current = self.env, self.current
        self.env = dict(outer_env)
        self.current = node.name
        for param in self.functions.get(node.name, []):
            self.env[param] = {("param", node.name, param)}
        for statement in node.body:
            self.visit(statement)
        for default in node.args.defaults + node.args.kw_defaults:
            self.flows(default)
        self.env, self.current = outer_env, outer_current

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        """Walk a class body (its methods share `self.X`)."""
        for statement in node.body:
            self.visit(statement)

    def generic_visit(self, node: ast.AST) -> None:
        """Any other statement: record the calls in its expressions."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.visit(child)
            elif isinstance(child, ast.expr):
                self.flows(child)

    # --- the whole file -----------------------------------------------------------------------------------------
    def prepare(self, trees: list[ast.Module]) -> None:
        """Collect the file's functions and classes (a class's call binds its `__init__`'s parameters)."""
        self.classes: set[str] = set()
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    params = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
                    if params[:1] in (["self"], ["cls"]):
                        params = params[1:]
                    self.functions[node.name] = params
                elif isinstance(node, ast.ClassDef):
                    self.classes.add(node.name)
                    init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
                                None)
                    params = [a.arg for a in init.args.args[1:]] if init else []
                    self.functions[node.name] = params
                    if init:
                        self.functions.setdefault("__init__", params)

    def run(self, trees: list[tuple[int, ast.Module, str]]) -> None:
        """Walk the trees twice (so calls see functions defined later), then link parameters across calls."""
        self.prepare([tree for _, tree, _ in trees])
        for _ in range(2):
            self.env, self.sites, self.self_attrs, self.copies = {}, [], dict(self.self_attrs), {}
            for cell, tree, text in trees:
                self.cell, self.lines = cell, [line + "\n" for line in text.split("\n")]
                for statement in tree.body:
                    self.visit(statement)
        self.link()

    def link(self) -> None:
        """Replace parameter tokens by what flowed into the parameters at each call site, until nothing changes."""
        sites: dict[str, list[dict[str, set]]] = {}
        for function, site in self.sites:
            sites.setdefault("__init__" if function in self.classes else function, []).append(site)
        changed = True
        while changed:
            changed = False
            for call in self.calls.values():
                if call.key in self.cloned:
                    continue  # seen through its copies, one per call site
                for token in [t for t in call.upstream if is_token(t)]:
                    for site in sites.get(token[1], []):
                        new = site.get(token[2], set()) - call.upstream - {call.key}
                        if new:
                            call.upstream |= new
                            changed = True
        for call in [*self.calls.values(), *self.copies.values()]:
            call.upstream = {u for u in call.upstream if u in self.calls or u in self.copies}
        for call in self.calls.values():  # what `q.enqueue(x)` enqueues flows into q, not out of it
            if call.api in ("queue.enqueue", "queue.enqueue_many"):
                queues = [u for u in call.upstream if self.node(u).kind == "queue"]
                for q in queues:
                    for u in call.upstream:
                        if u not in queues and q not in self.upstream_closure(u):
                            self.node(q).upstream.add(u)
        for call in self.calls.values():  # a runner's enqueued data flows into its queue
            if call.api == "QueueRunner":
                queues = [u for u in call.upstream if self.node(u).kind == "queue"]
                for u in call.upstream:
                    if u not in queues and self.node(u).kind in table.STAGES:
                        for q in queues:
                            if u not in self.upstream_closure(q) and q not in self.upstream_closure(u):
                                self.node(q).upstream.add(u)

    def upstream_closure(self, key: tuple) -> set:
        """Return every call a call's inputs came from, directly or not."""
        return reachable([key], lambda k: self.node(k).upstream)


def magic_free(source: str) -> str:
    """Return a cell's code with IPython magics and shell lines made harmless, keeping line numbers."""
    lines = source.splitlines()
    if lines and lines[0].startswith("%%"):
        if lines[0].split()[0] not in ("%%time", "%%timeit", "%%capture", "%%prun"):
            return ""
        lines[0] = ""
    out = []
    for line in lines:
        shell = SHELL_ASSIGN.match(line)
        if shell:
            out.append(f"{shell.group(1)}{shell.group(2)} = None")
        elif MAGIC.match(line) or line.rstrip().endswith("?") and not line.lstrip().startswith("#"):
            out.append(f"{MAGIC.match(line).group(1) if MAGIC.match(line) else ''}pass")
        else:
            out.append(line)
    return "\n".join(out)


def as_python3(text: str) -> tuple[str, list[int]] | None:
    """Return Python 2 code rewritten as Python 3 line for line, with the lines that changed; None when it is not
    Python 2 either. fissix (the maintained fork of lib2to3) parses it with the Python 2 grammar and applies only
    the fixers of syntax Python 3 cannot parse (print and exec statements, `except E, e`, `raise E, v`, `<>`,
    backquotes, `0777` and `10L`), each of which keeps its line."""
    import logging

    from fissix.pgen2.parse import ParseError
    from fissix.pgen2.tokenize import TokenError
    from fissix.refactor import RefactoringTool

    logging.getLogger("RefactoringTool").setLevel(logging.ERROR)
    tool = RefactoringTool([f"fissix.fixes.fix_{name}" for name in PYTHON2_FIXERS])
    try:
        converted = str(tool.refactor_string(text if text.endswith("\n") else text + "\n", "<python 2>"))
        ast.parse(converted)
    except (ParseError, TokenError, SyntaxError, ValueError, IndentationError):
        return None
    before, after = text.splitlines(), converted.splitlines()
    if len(before) != len(after):
        return None
    return converted, [i for i, (old, new) in enumerate(zip(before, after, strict=True), 1) if old != new]


def read_code(path: Path) -> tuple[list[tuple[int, str]], list[dict]]:
    """Return [(cell, code)] of a .py file (cell -1) or a notebook's code cells, and the errors reading it."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return [], [{"line": 0, "message": "not a text file (binary content)"}]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return [], [{"line": line, "message": "not UTF-8 text"}]
    if path.suffix != ".ipynb":
        return [(-1, text)], []
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        return [], [{"line": error.lineno, "message": f"not a notebook (bad JSON: {error.msg})"}]
    cells = notebook.get("cells", []) if isinstance(notebook, dict) else []
    code = []
    for i, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            code.append((i, "".join(source) if isinstance(source, list) else str(source)))
    return code, []


def scan_file(path: Path, shown: str | None = None) -> Scan:
    """Scan one .py file or notebook; a part that cannot be parsed is an error, the rest is still scanned."""
    scan = Scan(shown or str(path))
    code, scan.errors = read_code(path)
    trees = []
    for cell, text in code:
        text = magic_free(text) if cell >= 0 else text
        try:
            trees.append((cell, ast.parse(text), text))
        except (SyntaxError, ValueError) as error:
            converted = as_python3(text)
            if converted is not None:
                trees.append((cell, ast.parse(converted[0]), converted[0]))
                scan.python2[cell] = converted[1]
                continue
            where = {"cell": cell} if cell >= 0 else {}
            line = getattr(error, "lineno", None) or 0
            scan.errors.append({**where, "line": line, "message": f"cannot parse: {getattr(error, 'msg', error)}"})
    scanner = Scanner(scan)
    scanner.lines = []
    scanner.run(trees)
    scan.calls = sorted(scanner.calls.values(), key=lambda c: c.key)
    scan.copies, scan.cloned = list(scanner.copies.values()), scanner.cloned
    scan.alternatives = [[set(option) for option in group] for group in scanner.alternatives]
    by_cell = {cell: tree for cell, tree, _ in trees}
    scan.records = {c.key[:3]: record_ops(by_cell[c.cell], c, scan.calls) for c in scan.calls
                    if c.kind == "batch" and not c.api.startswith("queue.") and c.cell in by_cell}
    return scan


def files_under(paths: list[str]) -> tuple[list[tuple[Path, str]], list[Scan]]:
    """Return the .py and .ipynb files under the paths given ((path, name shown)), and a Scan per missing path."""
    found, missing = [], []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                parts = file.relative_to(path).parts
                if file.suffix in (".py", ".ipynb") and file.is_file() and not SKIP_DIRS & set(parts[:-1]):
                    found.append((file, str(Path(given) / file.relative_to(path))))
        elif path.is_file():
            found.append((path, given))
        else:
            missing.append(Scan(given, errors=[{"line": 0, "message": "no such file or folder"}]))
    return found, missing


def not_python(paths: list[str]) -> list[str]:
    """Return the files named on their own that are neither .py nor .ipynb (scanned as Python all the same)."""
    return [given for given in paths if Path(given).is_file() and Path(given).suffix not in (".py", ".ipynb")]


def scan_paths(paths: list[str], progress_from: int = 200) -> list[Scan]:
    """Scan every file under the paths; a progress bar (stderr) from `progress_from` files on."""
    found, scans = files_under(paths)
    iterator = found
    if len(found) >= progress_from:
        from tqdm.auto import tqdm

        iterator = tqdm(found, desc="scanning", unit="file", leave=False)
    scans += [scan_file(path, shown) for path, shown in iterator]
    return scans


# --- pipelines -------------------------------------------------------------------------------------------------
class Pipeline(list):
    """A pipeline's calls in data order, and the file's branch points (which calls exclude each other)."""

    alternatives: list[list[set]] = []
    records: dict[tuple, RecordOps | str] = {}


def pipelines(scan: Scan) -> list[list[Call]]:
    """Return each pipeline in the file, in data order: a last stage with every stage that feeds it, and the
    runners attached to those stages. Only connected calls (two stages or more) form a pipeline; a function called
    from several places is followed separately from each (its calls appear in each pipeline)."""
    by_key = {c.key: c for c in [*scan.calls, *scan.copies] if c.key not in scan.cloned}
    stages = {k for k, c in by_key.items() if c.kind in table.STAGES}
    downstream: dict[tuple, set] = {k: set() for k in by_key}
    for c in by_key.values():
        for u in c.upstream:
            if u in downstream:
                downstream[u].add(c.key)

    feeding = {k: reachable([k], lambda c: (u for u in by_key[c].upstream if u in by_key)) for k in stages}
    found, seen = [], set()
    for key in sorted(stages):
        members = (feeding[key] & stages) | {key}
        if len(members) < 2 or any(key in feeding[other] for other in stages - {key}):
            continue  # a single call, or not the last stage
        originals = {k[:3] for k in members}
        plumbing: set = set()
        grown = True
        while grown:  # runners fed by those stages, and the runners registered or started from them
            near = originals | {k[:3] for k in plumbing}
            more = {k for k, c in by_key.items() if c.kind in table.PLUMBING and k not in plumbing
                    and ({u[:3] for u in c.upstream} | {d[:3] for d in downstream[k]}) & near}
            plumbing |= more
            grown = bool(more)
        for branch in branches(key, members | plumbing, scan.alternatives, by_key):
            pipeline = Pipeline(order([by_key[k] for k in branch]))
            pipeline.alternatives, pipeline.records = scan.alternatives, scan.records
            signature = tuple((c.cell, c.line, c.api) for c in pipeline)  # two calls alike on a line: one
            if signature not in seen and len([c for c in pipeline if c.kind in table.STAGES]) >= 2:
                seen.add(signature)
                found.append(pipeline)
    return found


def branches(last: tuple, members: set, alternatives: list[list[set]], by_key: dict[tuple, Call]) -> list[set]:
    """Return a pipeline's calls once per branch taken: where a variable holds one call or another (an if and its
    else), each pipeline keeps one of them and what feeds it, and drops what only the others needed."""
    def upstream_of(keys: set, avoid: set = frozenset()) -> set:
        return reachable(keys, lambda k: (u for u in by_key[k].upstream if u in members and u not in avoid))

    result = [members]
    for group in alternatives:
        split = []
        for branch in result:
            taken = [option & branch for option in group if option & branch]
            if len(taken) < 2:
                split.append(branch)
                continue
            for option in taken:
                dropped = set().union(*taken) - option - upstream_of(option)
                stages = {last} | {k for k in upstream_of({last}, dropped) if by_key[k].kind in table.STAGES}
                split.append(stages | _plumbing_of(branch, stages, by_key))
        result = split
    return result


def _plumbing_of(branch: set, stages: set, by_key: dict[tuple, Call]) -> set:
    """Return the runners and queue methods of a branch that serve its stages: those fed by a queue it keeps (or,
    fed by no queue, by a stage it keeps), and the runners registering those. Calls are matched by their place in
    the file, so that a function's call seen from one call site matches the call it copies."""
    kinds = {k[:3]: by_key[k].kind for k in branch}
    kept: set = set()
    grown = True
    while grown:
        grown = False
        near = {k[:3] for k in stages | kept}
        for k in [k for k in branch - stages - kept if by_key[k].kind in table.PLUMBING]:
            upstream = {u[:3] for u in by_key[k].upstream if u[:3] in kinds}
            queues = {u for u in upstream if kinds[u] == "queue"}
            if queues & near or not queues and upstream & near:
                kept.add(k)
                grown = True
    return kept


RANK = {kind: i for i, kind in enumerate((*table.STAGES, *table.PLUMBING))}


def order(calls: list[Call]) -> list[Call]:
    """Return calls in data order (a call after every call it depends on); ties by stage (producer, reader,
    decoder, queue, batch, runners), then by place in the file."""
    keys = {c.key for c in calls}
    done: set = set()
    ordered: list[Call] = []
    left = sorted(calls, key=lambda c: (RANK.get(c.kind, 9), c.key))
    while left:
        ready = next((c for c in left if not (c.upstream & keys) - done), left[0])
        ordered.append(ready)
        done.add(ready.key)
        left.remove(ready)
    return ordered


def enclosing(statements: list[ast.stmt], line: int, column: int) -> tuple[list[ast.stmt], int, ast.Call] | None:
    """Return the innermost block holding the call at (line, column), the statement's index in it, and the call."""
    for i, statement in enumerate(statements):
        if not statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            continue
        blocks = [getattr(statement, name, None) for name in ("body", "orelse", "finalbody")]
        blocks += [handler.body for handler in getattr(statement, "handlers", [])]
        for block in blocks:
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found = enclosing(block, line, column)
                if found:
                    return found
        call = next((n for n in ast.walk(statement) if isinstance(n, ast.Call) and n.lineno == line
                     and n.col_offset == column), None)
        return (statements, i, call) if call else None
    return None


def names_read(node: ast.AST) -> set[str]:
    """Return the names a piece of code reads."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def names_bound(statement: ast.stmt) -> set[str]:
    """Return the names a statement binds, anywhere inside it (none for a function or class)."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return set()  # no tensor: a call of it is checked where the record is read
    return {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def read_of(statement: ast.stmt) -> tuple[str, str] | None:
    """Return (key, value) for `key, value = <reader>.read(queue)`, else None."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.value, ast.Call) \
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "read":
        target = statement.targets[0]
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name)
                                                                           for e in target.elts):
            return target.elts[0].id, target.elts[1].id
    return None


def record_ops(tree: ast.Module, batch: Call, calls: list[Call]) -> RecordOps | str:
    """Return the statements between a reader's `read` and a batch that make the batch's tensors from the record
    (one function to `.map`), or why they cannot be moved into one (a sentence)."""
    found = enclosing(tree.body, batch.line, batch.key[2])
    tensors = None if found is None or found[2] is None else (found[2].args[:1] or [
        k.value for k in found[2].keywords if k.arg in ("tensors", "tensor_list")])
    if not tensors:
        return f"the tensors the {batch.api} ({where_in_file(batch)}) takes are not written in the call"
    block, index, _ = found

    def line(statement: ast.stmt) -> str:
        return (f"cell {batch.cell}, " if batch.cell >= 0 else "") + f"line {statement.lineno}"

    needed, kept = names_read(tensors[0]), []
    for statement in reversed(block[:index]):
        bound = names_bound(statement)
        if not bound & needed:
            continue
        read = read_of(statement)
        if read:
            if read[0] in needed:
                return (f"the {batch.api} takes the reader's key ({line(statement)}), and the dataset's "
                        "records have none: rebuild it (e.g. `enumerate()` inside the per-file `flat_map`)")
            own = [s for s in block if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                   and s.name in needed]
            if own:
                return (f"the ops on each record call {own[0].name} ({line(own[0])}), a function of this file "
                        "the tool does not rewrite for TF 2")
            compared = next((s for s in kept for n in ast.walk(s) if isinstance(n, ast.Compare) and any(
                isinstance(op, ast.Eq | ast.NotEq) for op in n.ops)), None)
            if compared:
                return (f"{line(compared)} compares with == or !=, which TensorFlow 1.x reads as the identity of "
                        "two tensor objects and TF 2 element by element")
            moved = {(batch.cell, n) for s in kept for n in range(s.lineno, (s.end_lineno or s.lineno) + 1)}
            inside = [c for c in calls if (c.cell, c.line) in moved and c.kind != "decoder"]
            if inside:
                return (f"the ops between the reader and the {batch.api} include {inside[0].api} "
                        f"({where_in_file(inside[0])}), which is not an op on one record")
            return RecordOps(read[1], kept, tensors[0], moved)
        if not isinstance(statement, ast.Assign):
            kind = type(statement).__name__.lower()
            return (f"{line(statement)} makes {', '.join(sorted(bound & needed))} inside "
                    f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} statement, which the tool does not move into a "
                    "function")
        kept.insert(0, statement)
        needed = (needed - bound) | names_read(statement.value)
    return (f"the record the {batch.api} ({where_in_file(batch)}) takes is not read in the same function (or cell): "
            "the tool does not gather ops from several functions into one")


@functools.cache
def compat_table(file: str, name: str) -> dict:
    """Return a dict TensorFlow ships for its upgrade script (tensorflow/tools/compatibility/<file>), read as data:
    TensorFlow is not imported. Empty where TensorFlow is not installed."""
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / "tools" / "compatibility" / file
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError):
        return {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                (dotted(t) or "").rsplit(".", 1)[-1] == name for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def upgraded(node: ast.AST) -> ast.AST:
    """Return a copy of code whose `tf.` calls pass their arguments as TF 2 expects: by keyword where TF 2 reordered
    them (reorders_v2.py), under the keyword TF 2 renamed (`tf.decode_raw(bytes=)` is `input_bytes=`)."""
    reorders = compat_table("reorders_v2.py", "reorders")
    renames = compat_table("tf_upgrade_v2.py", "function_keyword_renames")
    node = ast.parse(ast.unparse(node))  # a copy
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        name = dotted(call.func) or ""
        order = reorders.get(name, [])
        first = next((i for i, param in enumerate(order) if param), len(order))
        if first < len(call.args) <= len(order) and all(order[first:len(call.args)]):  # the reordered ones, by keyword
            moved = [ast.keyword(order[i], a) for i, a in enumerate(call.args) if i >= first]
            call.args, call.keywords = call.args[:first], moved + call.keywords
        renamed = renames.get(name, {})
        call.keywords = [ast.keyword(renamed.get(k.arg, k.arg), k.value) for k in call.keywords
                         if k.arg is None or renamed.get(k.arg, k.arg) is not None]
    return node.body[0] if isinstance(node, ast.Module) and len(node.body) == 1 else node


def sketch(pipeline: list[Call]) -> str:
    """Return the `tf.data` chain for a pipeline, from its calls' forms: a sketch to review, not tested code.
    It starts from the first producer and reader; any other source is named in a comment."""
    stages = [c for c in pipeline if c.kind in table.STAGES]
    sources = [c for c in stages if c.kind in ("producer", "reader")]
    first = {kind: next((c for c in sources if c.kind == kind), None) for kind in ("producer", "reader")}
    extra = [c for c in sources if c not in first.values()]
    fed = python_fed(pipeline) if not sources else None
    if fed:
        head = (f"tf.data.Dataset.from_tensor_slices({table.components(fed.args.get('vals', 'values'))})"
                if fed.api == "queue.enqueue_many" else
                f"tf.data.Dataset.from_tensors({table.components(fed.args.get('vals', 'values'))})")
        steps: list[str] = [head]
    else:
        steps = [] if first["producer"] else ["tf.data.Dataset.from_tensor_slices(filenames)"]
    ops = per_record_of(pipeline)
    apart = shuffled_apart(pipeline)
    many = {q.key: e for e in pipeline if e.api == "queue.enqueue_many" for q in stages
            if q.kind == "queue" and q.key in e.upstream and e is not fed}
    padding = {q.key for q in stages if q.api == "PaddingFIFOQueue" and any(
        d.api in ("queue.dequeue_many", "queue.dequeue_up_to") and q.key in d.upstream for d in stages)}
    for call in stages:
        if call in extra or fed and call.kind == "queue" or call.key in apart or call.key in padding or (
                ops and (call.cell, call.line) in ops.places):
            continue  # another source, the queue Python fills, one that shuffles part of the element (a note),
            # a padding queue whose dequeue_many makes the padded batch, or an op moved into per_record
        if call.key in many:  # what enqueue_many put in: each value (repeated, if it was) split into elements
            reps = many[call.key].args.get(table.REPEATED)
            if reps:
                steps.append(f".flat_map(lambda *value: tf.data.Dataset.from_tensors(value).repeat({reps}))")
            steps.append(".unbatch()")
        for step in form(call):
            step = step.split("  #")[0]
            if call.upstream & padding:
                step = step.replace(".batch(", ".padded_batch(", 1)
            if not step.startswith((".", "tf.")):
                continue  # a sentence (what replaces the call), not a step of the chain
            if step.startswith(".map(<") and "num_parallel_calls" in step:
                threads = step.rsplit("num_parallel_calls=", 1)[1][:-1]
                last_map = max((i for i, s in enumerate(steps) if s.startswith(".map(")), default=None)
                if last_map is not None and "num_parallel_calls" not in steps[last_map]:
                    steps[last_map] = steps[last_map][:-1] + f", num_parallel_calls={threads})"
                    continue
            if step == ".prefetch(tf.data.AUTOTUNE)" or step == ".batch(batch_size)" and steps and \
                    re.match(r"\.(padded_)?batch\(", steps[-1]):
                continue
            steps.append(step)
        if ops and call is first["reader"] and not ops.trivial():
            steps.append(".map(per_record)")
    steps.append(".prefetch(tf.data.AUTOTUNE)")
    notes = [f"# also fed by {c.api} ({where_in_file(c)}): "
             "combine the sources (zip, interleave or concatenate)" for c in extra]
    for queue, enqueue in apart.values():
        notes.append(f"# {queue.api} ({where_in_file(queue)}) shuffles only what its enqueue puts in "
                     f"({enqueue.args.get('vals', 'vals') if enqueue else 'part of each element'}), apart from the "
                     "rest of each element: their pairing is broken on purpose, and a .shuffle of the whole element "
                     "would keep it. Shuffle that part in a dataset of its own and zip it back: "
                     f"tf.data.Dataset.zip((rest, part.shuffle({queue.args.get('min_after_dequeue', 'buffer_size')})))")
    if fed:
        queue = next((c for c in stages if c.kind == "queue"), fed)
        notes.append(f"# {queue.api} ({where_in_file(queue)}) is filled from Python ({fed.api.split('.')[1]}, "
                     f"{where_in_file(fed)}): it is the source; build the dataset from the values Python enqueues "
                     "(the arrays it fed, not placeholders), and build it again when they change")
        if fed.api == "queue.enqueue":
            notes.append("# one element per enqueue: stack the values Python enqueues and use from_tensor_slices")
    if first["reader"] and not ops:
        notes.append(f"# {first['reader'].api}: the chain yields records without the reader's keys; rebuild them if "
                     "the batch used them")
    function = ops.function() if ops and not ops.trivial() else []
    steps = [PLACEHOLDER.sub(lambda m: to_write(m.group(1), notes), step) for step in steps]
    head, *rest = [tf2_names(step) for step in steps]
    return "\n".join([*notes, *function, "dataset = (" + "\n    ".join([head, *rest]) + ")"])


PLACEHOLDER = re.compile(r"<([^<>]+)>")  # a form's stand-in for code the tool cannot write: `<the work before ...>`


def to_write(text: str, notes: list[str]) -> str:
    """Return the name a sketch calls in place of code the tool cannot write, noting once that you write it (the
    sketch stays valid Python)."""
    name = re.sub(r"\W+", "_", text.removeprefix("the ")).strip("_").lower()
    note = f"# {name}: {text} -- write it; the chain calls it"
    if note not in notes:
        notes.append(note)
    return name


def per_record_of(pipeline: list[Call]) -> RecordOps | None:
    """Return the ops a pipeline's first batch runs on each record its reader read, when they could be moved into
    one function; else None."""
    batch = next((c for c in pipeline if c.kind == "batch" and not c.api.startswith("queue.")), None)
    if batch is None or not any(c.kind == "reader" for c in pipeline):
        return None
    ops = getattr(pipeline, "records", {}).get(batch.key[:3])
    return ops if isinstance(ops, RecordOps) and not decoders_elsewhere(pipeline, ops) else None


def decoders_elsewhere(pipeline: list[Call], ops: RecordOps) -> list[Call]:
    """Return a pipeline's decoders that are not among the per-record statements (made in another function)."""
    return [c for c in pipeline if c.kind == "decoder" and (c.cell, c.line) not in ops.places]


def not_equivalent(pipeline: list[Call]) -> list[str]:
    """Return why a pipeline's sketch might not yield the TF1 pipeline's examples; [] when it yields them: one
    producer and one reader, the per-record ops moved as written, and every other call and argument one whose sketch
    the tests run against TF1 (`table.CHECKED`)."""
    stages = [c for c in pipeline if c.kind in table.STAGES]
    sources = {kind: [c for c in stages if c.kind == kind] for kind in ("producer", "reader")}
    reasons = []
    if [len(found) for found in sources.values()] != [1, 1]:
        reasons.append("its source is not one filename producer and one reader")
    batch = next((c for c in pipeline if c.kind == "batch" and not c.api.startswith("queue.")), None)
    ops = getattr(pipeline, "records", {}).get(batch.key[:3]) if batch else None
    if batch and isinstance(ops, str) and sources["reader"]:
        reasons.append(ops)
    elsewhere = decoders_elsewhere(pipeline, ops) if isinstance(ops, RecordOps) else []
    if elsewhere:
        reasons.append(f"{elsewhere[0].api} ({where_in_file(elsewhere[0])}) runs in another function than the "
                       f"{batch.api}: the tool does not gather ops from several functions into one")
        ops = None
    moved = ops.places if isinstance(ops, RecordOps) else set()
    for queue, _ in shuffled_apart(pipeline).values():
        reasons.append(f"the {queue.api} ({where_in_file(queue)}) shuffles part of each element")
    places = {c.key[:3] for c in pipeline}
    if any(places & {k[:3] for k in option} for group in getattr(pipeline, "alternatives", []) for option in group):
        reasons.append("it is one branch of an `if`: which one runs is decided when the code runs")
    for call in pipeline:
        if (call.cell, call.line) in moved and call.kind == "decoder" or call.api in table.STARTERS:
            continue
        checked = table.CHECKED.get(call.api) if call.known else None
        if checked is None:
            reasons.append(f"{call.api} ({where_in_file(call)}) is not among the calls whose sketch the tests run "
                           "against TF1")
            continue
        unchecked = [name for name in call.args if name not in checked and name != "name"]
        reasons += [f"the `{name}` of {call.api} ({where_in_file(call)}) is not among the arguments the tests run "
                    "against TF1" for name in unchecked if checked != table.ANY]
    return reasons


@functools.cache
def tf2_renames() -> dict[str, str]:
    """TF1 names and their TF 2 names (`tf.FixedLenFeature` -> `tf.io.FixedLenFeature`), from the tables TensorFlow
    ships for its upgrade script (renames_v2.py, then all_renames_v2.py's manual renames over it)."""
    return {**compat_table("renames_v2.py", "renames"), **compat_table("all_renames_v2.py", "manual_symbol_renames")}


def tf2_names(code: str) -> str:
    """Return code with each TF1 name (`tf.decode_raw`, `tf.FixedLenFeature`) written as its TF 2 name."""
    renames = tf2_renames()
    return TF_NAME.sub(lambda m: renames.get(m.group(0), m.group(0)), code)


def reachable(starts: Iterable, step: Callable[[Any], Iterable]) -> set:
    """Return everything reached from the starts by taking steps (`step(item)`: the items one step away), the
    starts themselves only when a step leads back to them."""
    seen, todo = set(), list(starts)
    while todo:
        for item in step(todo.pop()):
            if item not in seen:
                seen.add(item)
                todo.append(item)
    return seen


def unused_range_count(target: ast.AST, iterable: ast.AST, body: list[ast.AST]) -> str | None:
    """Return n, as written, for a loop over `range(n)` whose body never uses its counter (n alike rounds); else
    None."""
    if not (isinstance(iterable, ast.Call) and dotted(iterable.func) in ("range", "xrange")
            and len(iterable.args) == 1):
        return None
    counter = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    used = {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name)}
    return None if counter & used else ast.unparse(iterable.args[0])


def repetition(node: ast.AST) -> str | None:
    """Return n for a value repeated n times along its first dimension: `tf.tile(x, [n, ...])`,
    `tf.concat([x] * n, 0)`, `tf.stack([x] * n)`; else None."""
    if not isinstance(node, ast.Call):
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name == "tile":
        multiples = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == "multiples"), None)
        if isinstance(multiples, (ast.List, ast.Tuple)) and multiples.elts:
            return ast.unparse(multiples.elts[0])
        return f"{ast.unparse(multiples)}[0]" if multiples is not None else None
    if name in ("concat", "stack") and node.args and isinstance(node.args[0], ast.BinOp) \
            and isinstance(node.args[0].op, ast.Mult) and isinstance(node.args[0].left, ast.List) \
            and len(node.args[0].left.elts) == 1:
        return ast.unparse(node.args[0].right)
    return None


def shuffled_apart(pipeline: list[Call]) -> dict[tuple, tuple[Call, Call | None]]:
    """Return the RandomShuffleQueues of a pipeline that shuffle only part of each element (with the enqueue that
    fills each): what one dequeues meets, in a later stage, a value made upstream of the queue that did not pass
    through it (and is not the other branch of an if)."""
    by_place = {c.key[:3]: c for c in pipeline}

    def upstream(call: Call) -> set:
        return {u[:3] for u in call.upstream if u[:3] in by_place}


    def excluded(a: tuple, b: tuple) -> bool:
        return any(next((i for i, o in enumerate(group) if a in {k[:3] for k in o}), None) not in (None, j)
                   for group in getattr(pipeline, "alternatives", [])
                   for j, option in enumerate(group) if b in {k[:3] for k in option})

    found: dict[tuple, tuple[Call, Call | None]] = {}  # the queue's key -> (the queue, its enqueue)
    for queue in (c for c in pipeline if c.api == "RandomShuffleQueue"):
        made_before = reachable([queue.key[:3]], lambda place: upstream(by_place[place]))
        for dequeue in (c for c in pipeline if c.api.startswith("queue.dequeue") and queue.key[:3] in upstream(c)):
            for later in (c for c in pipeline if dequeue.key[:3] in upstream(c)):
                if any(s in made_before and not excluded(s, dequeue.key[:3]) for s in upstream(later) - {
                        dequeue.key[:3]}):
                    found[queue.key] = (queue, next((e for e in pipeline if e.api.startswith("queue.enqueue")
                                                     and queue.key[:3] in upstream(e)), None))
    return found


def python_fed(pipeline: list[Call]) -> Call | None:
    """Return the enqueue that fills a pipeline's queue from Python (nothing but feeds and values upstream), else
    None."""
    stage_keys = {c.key for c in pipeline if c.kind in table.STAGES}
    for call in pipeline:
        if call.api in ("queue.enqueue", "queue.enqueue_many") and not (call.upstream & stage_keys - {
                c.key for c in pipeline if c.kind == "queue"}):
            return call
    return None


def where_in_file(call: Call) -> str:
    """Return a call's place: "line 12", or "cell 3, line 2" in a notebook."""
    return f"cell {call.cell}, line {call.line}" if call.cell >= 0 else f"line {call.line}"


def form(call: Call) -> list[str]:
    """Return a call's `tf.data` form (chain steps or a sentence), its arguments filled in; [] when unknown."""
    spec = spec_of(call.api)
    return spec.steps(call.args) if spec and call.known else []


def pitfalls(call: Call) -> list[str]:
    """Return what differs between a call and its tf.data form: the call's own pitfalls and its arguments'."""
    spec = spec_of(call.api)
    if not spec or not call.known:
        return []
    found = list(spec.pitfalls(call.args))
    for name in call.args:
        argument = table.SPECS.get(name)
        if argument and argument.kind == "argument" and name != call.api:
            found += [p for p in argument.pitfalls(call.args) if p not in found]
    return found


def rows(call: Call) -> list:
    """Return the map rows that cover a call and its arguments (each with the section that proves the pair)."""
    known = table.known()
    found = [known[call.api].row] if call.known and call.api in known else []
    for name in call.args:
        if name in known and known[name].spec.kind == "argument" and known[name].row not in found:
            found.append(known[name].row)
    return found
