"""The code scanner's table: for each TF1 input call or argument of the migration map, its `tf.data` form with the
call's own arguments filled in, and the pitfalls that differ.

The keys are exactly the names in `api_map.COVERS` (the map stays the single source: `KNOWN` is built from it,
and tests/test_migrate.py fails when a row has no entry here). Used by `migration/scanner.py`
(`python -m tutorial_lib migrate`, notebook 10).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from tutorial_lib.migration import api_map

Args = dict[str, str]  # parameter name -> argument as written ("*0" for a `*args`, "**0" for a `**kwargs`)

STAGES = ("producer", "reader", "decoder", "queue", "batch")  # the kinds that form a pipeline, in order
PLUMBING = ("runner", "coordinator", "queue_op")


@dataclass(frozen=True)
class Spec:
    """What the scanner knows of one TF1 call (or, with kind "argument", of one argument of such calls)."""

    kind: str
    params: tuple[str, ...]  # positional parameters, in TF1's order
    steps: Callable[[Args], list[str]]  # the tf.data form: chain steps, or one sentence when there is no step
    pitfalls: Callable[[Args], list[str]] = lambda a: []


def _is_false(value: str | None) -> bool:
    """Return whether an argument as written is literally false (False, None, 0)."""
    return value in ("False", "None", "0")


def _is_true(value: str | None) -> bool:
    """Return whether an argument as written is literally True."""
    return value == "True"


def _kw(args: Args, *names: str) -> str:
    """Return ", name=value" for each of the names given in the call (the keyword form of a one-to-one argument)."""
    return "".join(f", {name}={args[name]}" for name in names if name in args)


def _repeat(args: Args) -> str:
    """Return the `repeat` step for a producer's `num_epochs`."""
    epochs = args.get("num_epochs")
    return ".repeat()" if epochs is None or epochs == "None" else f".repeat({epochs})"


def _shuffle(args: Args, size: str) -> str:
    """Return the `shuffle` step of a producer (TF1 producers shuffle unless told not to)."""
    return "" if _is_false(args.get("shuffle")) else f".shuffle({size}{_kw(args, 'seed')})"


def components(vals: str) -> str:
    """Return what an enqueue's list of components becomes in a dataset: `[x]` is x, `[a, b]` is (a, b)."""
    try:
        node = ast.parse(vals, mode="eval").body
    except SyntaxError:
        return vals
    if isinstance(node, (ast.List, ast.Tuple)):
        parts = [ast.unparse(e) for e in node.elts]
        return parts[0] if len(parts) == 1 else f"({', '.join(parts)})"
    return vals


def _first(expr: str) -> str:
    """Return the first element of a list written as a literal, or `expr[0]`."""
    inner = _tuple(expr)
    return inner[1:-1].split(",")[0].strip() if inner != expr else f"{expr}[0]"


def _tuple(expr: str) -> str:
    """Return a list literal as a tuple literal (what `from_tensor_slices` wants); other expressions unchanged."""
    return f"({expr[1:-1]})" if expr.startswith("[") and expr.endswith("]") else expr


SEED_PITFALL = ("the same `seed` does not give TF1's order: `Dataset.shuffle` is another op than TF1's shuffle (and "
                "the graph-level seed paired with it can differ too) (notebook 10, Range producer)")


def _producer_pitfalls(args: Args) -> list[str]:
    """Return the pitfalls every input producer shares."""
    found = []
    if "shuffle" not in args:
        found.append("`shuffle` defaults to True in TF1 producers: the order was shuffled every epoch although the "
                     "call does not say so (the form keeps the `.shuffle`; drop it for a fixed order)")
    epochs = args.get("num_epochs")
    if epochs is None or epochs == "None":
        found.append("no `num_epochs`: the producer cycles forever, as `.repeat()` does; the loop must stop itself")
    if "capacity" in args:
        found.append(f"`capacity={args['capacity']}` sized the producer's queue: tf.data has no such queue (drop it)")
    if "seed" in args:
        found.append(SEED_PITFALL)
    return found


def _batch_steps(args: Args, shuffle: bool = False, join: bool = False, keep: bool = False) -> list[str]:
    """Return the steps of a batching call: unbatch, interleave, filter, map threads, shuffle, batch, prefetch."""
    steps = []
    if join and COPIES in args:
        steps.append(f".map(<the work each of the {args[COPIES]} copies did>, num_parallel_calls={args[COPIES]})")
    elif join:
        steps.append(f".interleave(<one reader per element of {args.get('tensors_list', 'tensors_list')}>, "
                     f"cycle_length=len({args.get('tensors_list', 'tensors_list')}), "
                     "num_parallel_calls=tf.data.AUTOTUNE)")
    if _is_true(args.get("enqueue_many")):
        steps.append(".unbatch()")
    elif "enqueue_many" in args and not _is_false(args["enqueue_many"]):
        steps.append(f".unbatch()  # if {args['enqueue_many']}")
    if keep:
        steps.append(f".filter(lambda *example: <keep_input={args.get('keep_input', '?')} on the example>)")
    threads = args.get("num_threads")
    if threads is not None and threads != "1":
        steps.append(f".map(<the work before the batch>, num_parallel_calls={threads})")
    if shuffle:
        steps.append(f".shuffle({args.get('min_after_dequeue', 'buffer_size')}{_kw(args, 'seed')})")
    allow = args.get("allow_smaller_final_batch")
    drop = "" if _is_true(allow) else ", drop_remainder=True" if allow is None or _is_false(allow) else \
        f", drop_remainder=not ({allow})"
    padded = _is_true(args.get("dynamic_pad")) or args.get("dynamic_pad") not in (None, "False")
    steps.append(f".{'padded_batch' if padded else 'batch'}({args.get('batch_size', 'batch_size')}{drop})")
    steps.append(".prefetch(tf.data.AUTOTUNE)")
    return steps


def _batch_pitfalls(args: Args, shuffle: bool = False) -> list[str]:
    """Return what differs between a TF1 batching call with these arguments and its tf.data form."""
    found = []
    if FED_BATCH_SIZE in args:
        found.append(f"the batch size was fed at run time (`{args[FED_BATCH_SIZE]}` is a placeholder); a dataset's "
                     "batch size is fixed when the dataset is built: make `batch_size` an argument of a function "
                     "that builds the dataset, and build it again for another size")
    if COPIES in args:
        found.append(f"the {args[COPIES]} elements of `tensors_list` are copies of one preprocessing (made in a loop "
                     "that does not use its counter), each run by a thread of its own on the same input: one "
                     f"`map(..., num_parallel_calls={args[COPIES]})` over one dataset, not an `interleave` of readers")
    if shuffle:
        found.append(f"`shuffle_batch` samples from a pool of `min_after_dequeue` ({args.get('min_after_dequeue')}) "
                     f"to `capacity` ({args.get('capacity')}) examples; `Dataset.shuffle(buffer_size)` from a buffer "
                     "of `buffer_size`. Both make the first batch wait for the pool to fill (the queue blocks a "
                     "dequeue that would leave fewer than `min_after_dequeue`; the dataset fills its buffer first) "
                     "and hold it in memory; TF1's runner threads may have started filling before the first "
                     "`sess.run`, tf.data fills when iteration starts. `min_after_dequeue` is the pool TF1 "
                     "guaranteed, so it is the `buffer_size`; `capacity` "
                     "was only the most the queue held")
        if "seed" in args:
            found.append(SEED_PITFALL)
    elif "capacity" in args:
        found.append(f"`capacity={args['capacity']}` counted examples in the batch queue; `prefetch` counts "
                     "batches (AUTOTUNE sizes it)")
    allow = args.get("allow_smaller_final_batch")
    if allow is None or _is_false(allow):
        found.append("TF1 dropped the last partial batch (`allow_smaller_final_batch=False`): `drop_remainder=True` "
                     "keeps that; without it tf.data returns the remainder")
    threads = args.get("num_threads")
    if threads is not None and threads != "1":
        found.append(f"`num_threads={threads}` ran the enqueue op in that many threads, in no fixed order; "
                     f"`num_parallel_calls={threads}` keeps the order unless `deterministic=False` "
                     "(or an `Options` with `deterministic = False` applied by `with_options`, for stages that "
                     "leave `deterministic` unset)")
    return found


READER_KEY = ("`reader.read` returned (key, value), the key naming the file and record; the dataset yields the "
              "records only: where the pipeline uses the key, rebuild it (e.g. `enumerate()` inside the per-file "
              "`flat_map`)")


def _reader_pitfalls(extra: Callable[[Args], list[str]]) -> Callable[[Args], list[str]]:
    """Return a reader's pitfalls: its arguments' (from `extra`), then the key that tf.data does not give."""
    return lambda a: [*extra(a), READER_KEY]


def _reader_step(dataset: str, first: str, args: Args, keywords: tuple[str, ...] = ()) -> list[str]:
    """Return a reader's step: one file at a time, in order, as the single TF1 reader read them."""
    positional = f", {args[first]}" if first in args else ""
    return [f".flat_map(lambda filename: tf.data.{dataset}(filename{positional}{_kw(args, *keywords)}))"]


def _decode(function: str, first: str, *rest: str, batched: bool = False) -> Callable[[Args], list[str]]:
    """Return the steps function of a decoder that keeps its op and moves into `map`."""
    def steps(args: Args) -> list[str]:
        given = "".join(f", {args[name]}" if not name.startswith("=") else _kw(args, name[1:]) for name in rest
                        if name.lstrip("=") in args)
        before = [".batch(batch_size)"] if batched else []
        return before + [f".map(lambda {first}: tf.io.{function}({first}{given}))"]
    return steps


def _runner_steps(args: Args) -> list[str]:
    """Return the form of a QueueRunner: nothing, or the number of threads it ran as `num_parallel_calls`."""
    ops = args.get("enqueue_ops", "")
    match = re.fullmatch(r"\[.*\]\s*\*\s*(.+)", ops)
    if match:
        return [f".map(<the enqueued work>, num_parallel_calls={match.group(1)})"]
    return ["nothing to start or stop: iterate the dataset; `.prefetch(tf.data.AUTOTUNE)` runs ahead"]


NOTHING = "nothing to start or stop: iterate the dataset; `.prefetch(tf.data.AUTOTUNE)` runs ahead"
COPIES = "copies"  # not a TF1 parameter: the scanner's count of identical elements in a `*_join`'s tensors_list
REPEATED = "repeated"  # not a TF1 parameter: how many times an enqueue_many's values were repeated (tf.tile...)
FED_BATCH_SIZE = "fed_batch_size"  # not a TF1 parameter: the placeholder a batch size was fed through
ANY = frozenset({"*"})  # a call whose arguments do not change the data (a runner)
CHECKED: dict[str, frozenset] = {  # the calls and arguments whose sketch tests/test_migrate.py runs against TF1
    "string_input_producer": frozenset({"string_tensor", "num_epochs", "shuffle", "seed"}),
    "TFRecordReader": frozenset(),
    "TextLineReader": frozenset({"skip_header_lines"}),
    "batch": frozenset({"tensors", "batch_size", "allow_smaller_final_batch"}),
    "shuffle_batch": frozenset({"tensors", "batch_size", "capacity", "min_after_dequeue", "num_threads", "seed"}),
    "FIFOQueue": frozenset({"capacity", "dtypes", "shapes"}),
    "queue.enqueue_many": frozenset({"vals", REPEATED}),
    "queue.dequeue_many": frozenset({"n"}),
    "QueueRunner": ANY,
    "add_queue_runner": ANY,
}
STARTERS = ("Coordinator", "start_queue_runners", "Supervisor", "MonitoredTrainingSession")  # they start and stop
# runners; no data passes through them
EPOCH_PITFALL = ("`num_epochs` is a local variable in TF1: run `local_variables_initializer()` or the first step "
                 "raises a misleading OutOfRangeError; `.repeat(n)` needs nothing, and the loop simply ends")

SPECS: dict[str, Spec] = {
    # producers
    "string_input_producer": Spec(
        "producer", ("string_tensor", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name"),
        lambda a: [f"tf.data.Dataset.from_tensor_slices({a.get('string_tensor', 'filenames')})"
                   f"{_shuffle(a, 'len(' + a.get('string_tensor', 'filenames') + ')')}{_repeat(a)}"],
        _producer_pitfalls),
    "input_producer": Spec(
        "producer", ("input_tensor", "element_shape", "num_epochs", "shuffle", "seed", "capacity", "shared_name",
                     "summary_name", "name"),
        lambda a: [f"tf.data.Dataset.from_tensor_slices({a.get('input_tensor', 'tensor')})"
                   f"{_shuffle(a, 'len(' + a.get('input_tensor', 'tensor') + ')')}{_repeat(a)}"],
        _producer_pitfalls),
    "slice_input_producer": Spec(
        "producer", ("tensor_list", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name"),
        lambda a: [f"tf.data.Dataset.from_tensor_slices({_tuple(a.get('tensor_list', 'tensors'))})"
                   f"{_shuffle(a, 'len(' + _first(a.get('tensor_list', 'tensors')) + ')')}{_repeat(a)}"],
        _producer_pitfalls),
    "range_input_producer": Spec(
        "producer", ("limit", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name"),
        lambda a: [f"tf.data.Dataset.range({a.get('limit', 'n')}){_shuffle(a, a.get('limit', 'n'))}{_repeat(a)}"],
        _producer_pitfalls),
    # readers and decoders
    "TextLineReader": Spec(
        "reader", ("skip_header_lines", "name"),
        lambda a: [".flat_map(lambda filename: tf.data.TextLineDataset(filename)"
                   + (f".skip({a['skip_header_lines']}))" if "skip_header_lines" in a else ")")],
        _reader_pitfalls(lambda a: ["`skip_header_lines` skipped each file's header: `.skip` inside the per-file "
                                    "`flat_map`, not after it"] if "skip_header_lines" in a else [])),
    "FixedLengthRecordReader": Spec(
        "reader", ("record_bytes", "header_bytes", "footer_bytes", "hop_bytes", "name", "encoding"),
        lambda a: _reader_step("FixedLengthRecordDataset", "record_bytes", a,
                               ("header_bytes", "footer_bytes", "compression_type")),
        _reader_pitfalls(lambda a: ["`hop_bytes` has no FixedLengthRecordDataset counterpart"]
                         if "hop_bytes" in a else [])),
    "TFRecordReader": Spec(
        "reader", ("name", "options"),
        lambda a: [".flat_map(lambda filename: tf.data.TFRecordDataset(filename"
                   + (", compression_type=<from options>))" if "options" in a else "))")],
        _reader_pitfalls(lambda a: [f"`options={a['options']}`: pass its compression as `compression_type`"]
                         if "options" in a else [])),
    "decode_csv": Spec("decoder", ("records", "record_defaults", "field_delim", "use_quote_delim", "name", "na_value",
                                   "select_cols"),
                       _decode("decode_csv", "line", "record_defaults", "=field_delim", "=na_value", "=select_cols")),
    "decode_raw": Spec("decoder", ("input_bytes", "out_type", "little_endian", "name"),
                       _decode("decode_raw", "record", "out_type", "=little_endian")),
    "parse_single_example": Spec("decoder", ("serialized", "features", "name", "example_names"),
                                 _decode("parse_single_example", "record", "features")),
    "parse_single_sequence_example": Spec(
        "decoder", ("serialized", "context_features", "sequence_features", "example_name", "name"),
        _decode("parse_single_sequence_example", "record", "=context_features", "=sequence_features")),
    "parse_example": Spec(
        "decoder", ("serialized", "features", "name", "example_names"),
        _decode("parse_example", "records", "features", batched=True),
        lambda a: ["`parse_example` parses a batch: batch first, then map (one vectorized call per batch)"]),
    # batching and shuffling
    "batch": Spec("batch", ("tensors", "batch_size", "num_threads", "capacity", "enqueue_many", "shapes",
                            "dynamic_pad", "allow_smaller_final_batch", "shared_name", "name"),
                  _batch_steps, _batch_pitfalls),
    "shuffle_batch": Spec("batch", ("tensors", "batch_size", "capacity", "min_after_dequeue", "num_threads", "seed",
                                    "enqueue_many", "shapes", "allow_smaller_final_batch", "shared_name", "name"),
                          lambda a: _batch_steps(a, shuffle=True), lambda a: _batch_pitfalls(a, shuffle=True)),
    "batch_join": Spec("batch", ("tensors_list", "batch_size", "capacity", "enqueue_many", "shapes", "dynamic_pad",
                                 "allow_smaller_final_batch", "shared_name", "name"),
                       lambda a: _batch_steps(a, join=True), _batch_pitfalls),
    "shuffle_batch_join": Spec("batch", ("tensors_list", "batch_size", "capacity", "min_after_dequeue", "seed",
                                         "enqueue_many", "shapes", "allow_smaller_final_batch", "shared_name", "name"),
                               lambda a: _batch_steps(a, shuffle=True, join=True),
                               lambda a: _batch_pitfalls(a, shuffle=True)),
    "maybe_batch": Spec("batch", ("tensors", "keep_input", "batch_size", "num_threads", "capacity", "enqueue_many",
                                  "shapes", "dynamic_pad", "allow_smaller_final_batch", "shared_name", "name"),
                        lambda a: _batch_steps(a, keep=True), _batch_pitfalls),
    "maybe_shuffle_batch": Spec("batch", ("tensors", "batch_size", "capacity", "min_after_dequeue", "keep_input",
                                          "num_threads", "seed", "enqueue_many", "shapes",
                                          "allow_smaller_final_batch", "shared_name", "name"),
                                lambda a: _batch_steps(a, shuffle=True, keep=True),
                                lambda a: _batch_pitfalls(a, shuffle=True)),
    "maybe_batch_join": Spec("batch", ("tensors_list", "keep_input", "batch_size", "capacity", "enqueue_many",
                                       "shapes", "dynamic_pad", "allow_smaller_final_batch", "shared_name", "name"),
                             lambda a: _batch_steps(a, join=True, keep=True), _batch_pitfalls),
    "maybe_shuffle_batch_join": Spec("batch", ("tensors_list", "batch_size", "capacity", "min_after_dequeue",
                                               "keep_input", "seed", "enqueue_many", "shapes",
                                               "allow_smaller_final_batch", "shared_name", "name"),
                                     lambda a: _batch_steps(a, shuffle=True, join=True, keep=True),
                                     lambda a: _batch_pitfalls(a, shuffle=True)),
    # queues built by hand
    "FIFOQueue": Spec("queue", ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
                      lambda a: [f".prefetch({a.get('capacity', 'tf.data.AUTOTUNE')})"],
                      lambda a: ["a queue built by hand: its enqueue ops become the dataset's steps before it, and "
                                 "its runner disappears"]),
    "RandomShuffleQueue": Spec(
        "queue", ("capacity", "min_after_dequeue", "dtypes", "shapes", "names", "seed", "shared_name", "name"),
        lambda a: [f".shuffle({a.get('min_after_dequeue', 'buffer_size')}{_kw(a, 'seed')})"],
        lambda a: [f"the queue samples from `min_after_dequeue` ({a.get('min_after_dequeue')}) to `capacity` "
                   f"({a.get('capacity')}) elements; `shuffle(buffer_size)` from a buffer of `buffer_size`: use "
                   "`min_after_dequeue` as the `buffer_size`"]),
    "PaddingFIFOQueue": Spec("queue", ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
                             lambda a: [".padded_batch(batch_size)"],
                             lambda a: ["`padded_batch` pads each batch to its longest element, as the queue did"]),
    # a queue's own methods (`q.enqueue(...)`): `queue.` + the method's name
    "queue.enqueue": Spec("queue_op", ("vals", "name"),
                          lambda a: ["what is enqueued becomes the dataset's elements: the stages that feed it, or, "
                                     "for values from Python, a dataset built from those values"],
                          lambda a: ["one element per `enqueue`"]),
    "queue.enqueue_many": Spec("queue_op", ("vals", "name"),
                               lambda a: [f"`tf.data.Dataset.from_tensor_slices("
                                          f"{components(a.get('vals', 'vals'))})` for values from Python; "
                                          "`.unbatch()` after stages that make them"],
                               lambda a: ["`enqueue_many` splits each value along its first dimension into "
                                          "elements"] + ([
                                   f"each value is repeated {a[REPEATED]} times before it is enqueued (each batch "
                                   f"goes in {a[REPEATED]} times in a row): keep it with `.flat_map(lambda *value: "
                                   f"tf.data.Dataset.from_tensors(value).repeat({a[REPEATED]}))` before `.unbatch()`"
                                   ", not with a prefetch"] if REPEATED in a else [])),
    "queue.dequeue": Spec("batch", ("name",), lambda a: ["`for element in dataset:` (one element per step)"]),
    "queue.dequeue_many": Spec("batch", ("n", "name"),
                               lambda a: [f".batch({a.get('n', 'n')}, drop_remainder=True)"],
                               lambda a: ["`dequeue_many` never hands out a short batch: at the end it raises "
                                          "`OutOfRangeError` and the last elements are left in the queue"]),
    "queue.dequeue_up_to": Spec("batch", ("n", "name"), lambda a: [f".batch({a.get('n', 'n')})"],
                                lambda a: ["after `close`, a short last batch: `batch`'s default "
                                           "(`drop_remainder=False`)"]),
    "queue.close": Spec("queue_op", ("cancel_pending_enqueues", "name"),
                        lambda a: ["nothing: a dataset from finite data ends by itself (`StopIteration` in a loop)"]),
    "queue.size": Spec("queue_op", ("name",),
                       lambda a: ["no fill level to read in tf.data: time the wait for the next element instead "
                                  "(notebook 05's dashboard)"]),
    # runners and coordinator
    "QueueRunner": Spec("runner", ("queue", "enqueue_ops", "close_op", "cancel_op", "queue_closed_exception_types",
                                   "queue_runner_def", "import_scope"), _runner_steps),
    "add_queue_runner": Spec("runner", ("qr", "collection"), lambda a: [NOTHING]),
    "start_queue_runners": Spec(
        "runner", ("sess", "coord", "daemon", "start", "collection"), lambda a: [NOTHING],
        lambda a: ["forgetting this call hung TF1's first `run`; there is nothing to forget in tf.data"]),
    "create_threads": Spec("runner", ("sess", "coord", "daemon", "start"), lambda a: [NOTHING]),
    "Supervisor": Spec("runner", ("graph", "ready_op", "ready_for_local_init_op", "is_chief", "init_op"),
                       lambda a: [NOTHING],
                       lambda a: ["its `managed_session()` and `prepare_or_wait_for_session()` start the graph's "
                                  "queue runners for you (`start_standard_services=True`, the default): they go "
                                  "with the queues"]),
    "MonitoredTrainingSession": Spec(
        "runner", ("master", "is_chief", "checkpoint_dir", "scaffold", "hooks"), lambda a: [NOTHING],
        lambda a: ["it starts the queue runners of the graph's QUEUE_RUNNERS collection when it creates its session: "
                   "they go with the queues"]),
    "Coordinator": Spec(
        "coordinator", ("clean_stop_exception_types",), lambda a: [NOTHING],
        lambda a: ["`request_stop` / `join` go: the `for` loop ends at the end of the data, and an error in the "
                   "pipeline raises in the loop"]),
    # feeding, iterators, session handles, checkpoints
    "placeholder": Spec("feed", ("dtype", "shape", "name"),
                        lambda a: [f"an argument of a `tf.function` (`input_signature=[tf.TensorSpec("
                                   f"{a.get('shape', 'None')}, {a.get('dtype', 'dtype')})]`), or "
                                   "`Dataset.from_tensor_slices(array)` for data"]),
    "placeholder_with_default": Spec("feed", ("input", "shape", "name"),
                                     lambda a: [f"a Python default argument (= {a.get('input', 'value')})"]),
    "feed_dict": Spec("feed", (), lambda a: ["call the `tf.function` with the fed values as arguments"],
                      lambda a: ["every `feed_dict` copies the NumPy arrays into the graph at each step"]),
    "make_one_shot_iterator": Spec("iterator", ("dataset",), lambda a: ["`for element in dataset:`"]),
    "make_initializable_iterator": Spec(
        "iterator", ("dataset", "shared_name"),
        lambda a: ["build the dataset in a function of its parameters; a new `iter(...)` per pass"],
        lambda a: ["the initializer ran with a `feed_dict` of placeholders: the parameters become plain "
                   "Python arguments"]),
    "from_structure": Spec("iterator", ("output_types", "output_shapes", "shared_name", "output_classes"),
                           lambda a: ["loop over whichever dataset you need"]),
    "string_handle": Spec("iterator", ("name",), lambda a: ["keep the Python iterators; call `next` on the one "
                                                            "you need"]),
    "from_string_handle": Spec("iterator", ("string_handle", "output_types", "output_shapes", "output_classes"),
                               lambda a: ["keep the Python iterators; call `next` on the one you need"]),
    "get_session_handle": Spec("handle", ("data", "name"), lambda a: ["keep the eager tensor in a Python variable"]),
    "get_session_tensor": Spec("handle", ("handle", "dtype", "name"),
                               lambda a: ["keep the eager tensor in a Python variable"]),
    "checkpoints_iterator": Spec(
        "checkpoint", ("checkpoint_dir", "min_interval_secs", "timeout", "timeout_fn"),
        lambda a: [f"the same `tf.train.checkpoints_iterator({a.get('checkpoint_dir', 'checkpoint_dir')})`, "
                   "restoring with `tf.train.Checkpoint`"]),
    # arguments (attached to the call that has them)
    "num_epochs": Spec("argument", (), lambda a: [_repeat(a)],
                       lambda a: [EPOCH_PITFALL] if not _is_false(a.get("num_epochs")) else []),
    "allow_smaller_final_batch": Spec("argument", (), lambda a: []),
    "enqueue_many": Spec("argument", (), lambda a: [".unbatch()"]),
    "dynamic_pad": Spec("argument", (), lambda a: [".padded_batch(...)"]),
    "num_threads": Spec("argument", (), lambda a: [f"num_parallel_calls={a.get('num_threads')}"]),
}

# Ops that keep their form in tf.data (they move into `map`): pipeline stages, not migration calls.
SAME_OPS = {name: Spec("decoder", ("contents",), _decode(name, "record", "=channels", "=dtype"))
            for name in ("decode_jpeg", "decode_png", "decode_image", "decode_gif", "decode_bmp", "read_file")}

# A queue's methods: the names only TF1 queues have count on any object; `close` and `size` only on one that a queue
# call made (`q = tf.FIFOQueue(...)`, then `q.size()`).
QUEUE_METHODS = ("enqueue", "enqueue_many", "dequeue", "dequeue_many", "dequeue_up_to")
QUEUE_ONLY_METHODS = ("close", "size")

# Method names that identify a TF1 call whatever the object they are called on.
METHODS = ("make_one_shot_iterator", "make_initializable_iterator", "string_handle", "from_string_handle",
           "from_structure", "create_threads")


@dataclass(frozen=True)
class Known:
    """One key of the scanner's table: its spec and the map row that covers it."""

    name: str
    spec: Spec
    row: api_map.Row


def known() -> dict[str, Known]:
    """Return the scanner's table, built from the migration map: every name a row covers, with its spec."""
    table = {}
    for row in api_map.MAP:
        for name in api_map.COVERS.get(row.tf1, ()):
            if name in SPECS:
                table[name] = Known(name, SPECS[name], row)
    return table


def missing() -> list[str]:
    """Return what keeps the map and the table apart: rows covering nothing, names without a spec (empty: none)."""
    found = [f"row {row.tf1!r} covers no call (add it to api_map.COVERS)" for row in api_map.MAP
             if not api_map.COVERS.get(row.tf1)]
    for row in api_map.MAP:
        found += [f"{name!r} (row {row.tf1!r}) has no scanner spec" for name in api_map.COVERS.get(row.tf1, ())
                  if name not in SPECS]
    covered = {name for names in api_map.COVERS.values() for name in names}
    found += [f"scanner spec {name!r} is in no map row" for name in SPECS if name not in covered]
    return found


def href(where: str) -> str:
    """Return the path (from the repository root) of a map target, with the section's anchor."""
    if where.startswith("tests/"):
        return where
    stem, heading = where.split("#", 1)
    return f"notebooks/{stem}.ipynb#{api_map.anchor(heading)}"
