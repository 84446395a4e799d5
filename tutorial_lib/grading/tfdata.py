"""TensorFlow values across the grading boundary: a dtype, an eager tensor, a dataset, as data (used by `codec`).

In the kernel, `encode_tf` writes a `tf.data.Dataset` as its element spec, the elements it yields (read there, at
most `DATASET_ITEMS`), how the reading ended (the end, an error, or the grader's limit), whether it may
reorder (`deterministic=False`) and its serialized graph. In the grader, `decode_tf` checks all of it against the
spec and rebuilds a dataset of its own (`Dataset.from_generator` over the values it decoded, then the error, if
any, as a real TensorFlow error): a checker reads from it what the answer's pipeline yielded. The graph is only
parsed (`core.dataset_graph` reads its stages), never run.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import numpy as np

GRAPH_BYTES = 8 * 2**20  # a larger graph (big constants inside) is not sent; its stages are then unknown
DATASET_ITEMS = 10_000  # the most elements of a dataset the kernel reads and sends
DATASET_BYTES = 24 * 2**20  # ... and the most bytes of values
MAX_DEPTH = 32  # the deepest element spec read
TF_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
             "float32", "float64", "string")


class Malformed(ValueError):
    """What came back is not a TensorFlow value as `encode_tf` writes it (codec.decode reports it as DecodeError)."""


def encode_tf(value: Any, tf: Any, encode_item: Callable[[Any], Any]) -> Any:
    """The JSON-ready form of a TensorFlow value, or None when `value` is not one the grader takes."""
    if isinstance(value, tf.dtypes.DType):
        return {"DT": value.name}
    if isinstance(value, tf.Tensor) and hasattr(value, "numpy"):
        return {"TT": [value.dtype.name, encode_item(_plain(value.numpy()))]}
    if isinstance(value, tf.data.Dataset):
        return _encode_dataset(value, tf, encode_item)
    return None


def _spec_tree(spec: Any, tf: Any) -> Any:
    """An element spec as data: TensorSpecs in tuples, lists and dicts (None when it holds anything else)."""
    if type(spec) is tf.TensorSpec and spec.dtype.name in TF_DTYPES:
        return {"TS": [spec.dtype.name, spec.shape.as_list() if spec.shape.rank is not None else None]}
    if isinstance(spec, tuple | list):
        parts = [_spec_tree(part, tf) for part in spec]
        return None if None in parts else {"T" if isinstance(spec, tuple) else "L": parts}
    if type(spec) is dict and all(type(k) is str for k in spec):
        parts = {k: _spec_tree(v, tf) for k, v in spec.items()}
        return None if None in parts.values() else {"D": [[k, v] for k, v in parts.items()]}
    return None


def _encode_dataset(dataset: Any, tf: Any, encode_item: Callable[[Any], Any]) -> Any:
    """A dataset as its spec, its first elements and how reading them ended (in the kernel)."""
    spec = _spec_tree(dataset.element_spec, tf)
    if spec is None:
        return {"X": f"Dataset_of_{type(dataset.element_spec).__name__}"[:80]}
    elements, ended, error = _read_in_batches(dataset, tf) or _read_one_by_one(dataset, tf)
    items = [encode_item(_plain(element)) for element in elements]
    graph = None
    try:
        serialized = dataset._as_serialized_graph().numpy()  # noqa: SLF001 -- its stages, as data
        graph = base64.b64encode(serialized).decode() if len(serialized) <= GRAPH_BYTES else None
    except Exception:  # noqa: BLE001, S110 -- a pipeline that cannot be serialized sends no graph
        pass
    return {"DS": {"spec": spec, "items": items, "ended": ended, "error": error, "graph": graph,
                   "deterministic": dataset.options().deterministic}}


def _read_one_by_one(dataset: Any, tf: Any) -> tuple[list, bool, list | None]:
    """Read elements until the end, the pipeline's own error, DATASET_ITEMS elements or DATASET_BYTES (the element
    that crosses it included); return them, whether the dataset ended, and the error as [type, message]."""
    elements, size, ended, error = [], 0, False, None
    try:
        iterator = iter(dataset.as_numpy_iterator())
        while len(elements) < DATASET_ITEMS and size < DATASET_BYTES:
            try:
                element = next(iterator)
            except StopIteration:
                ended = True
                break
            size += sum(np.asarray(leaf).nbytes for leaf in tf.nest.flatten(element))
            elements.append(element)
    except Exception as error_raised:  # noqa: BLE001 -- the pipeline's own error is part of what it yields
        error = [type(error_raised).__name__, str(error_raised)[:2000]]
    return elements, ended, error


def _read_in_batches(dataset: Any, tf: Any) -> tuple[list, bool, None] | None:
    """The same elements as `_read_one_by_one`, read READ_BATCH at a time where every element has the same size
    (fully defined shapes, no strings); None where they may not, or where the pipeline raised (then the elements
    before the error are read again one by one)."""
    leaves = tf.nest.flatten(dataset.element_spec)
    if not all(leaf.shape.is_fully_defined() and leaf.dtype != tf.string for leaf in leaves):
        return None
    element_bytes = sum(leaf.shape.num_elements() * leaf.dtype.size for leaf in leaves)
    limit = min(DATASET_ITEMS, -(-DATASET_BYTES // element_bytes) if element_bytes else DATASET_ITEMS)
    elements = []
    try:
        for batch in dataset.take(limit).batch(READ_BATCH).as_numpy_iterator():
            parts = tf.nest.flatten(batch)
            for k in range(len(parts[0])):
                elements.append(tf.nest.pack_sequence_as(dataset.element_spec, [part[k] for part in parts]))
    except Exception:  # noqa: BLE001 -- read again one by one, to keep the elements before the error
        return None
    return elements, len(elements) < limit, None


READ_BATCH = 256  # elements read at once where they all have the same size


def _plain(element: Any) -> Any:
    """An element as as_numpy_iterator gives it, with tuples and dicts of exact types (named tuples as tuples)."""
    if type(element) in (tuple, list):
        return type(element)(_plain(part) for part in element)
    if isinstance(element, tuple):  # a named tuple
        return tuple(_plain(part) for part in element)
    if isinstance(element, dict):
        return {k: _plain(v) for k, v in element.items()}
    if type(element) is bytes:
        return np.array(element, dtype=object)
    return np.asarray(element) if isinstance(element, np.generic) else element


def decode_tf(tag: str, body: Any, decode_item: Callable[[Any], Any]) -> Any:
    """A fresh TensorFlow value of the grader's own from its JSON form (Malformed when malformed)."""
    from tutorial_lib.env import import_tensorflow

    tf = import_tensorflow()
    if tag == "DT" and body in TF_DTYPES:
        return tf.dtypes.as_dtype(body)
    if tag == "TT" and type(body) is list and len(body) == 2 and body[0] in TF_DTYPES:
        values = decode_item(body[1])
        if type(values) is not np.ndarray:
            raise Malformed("a tensor's values are not an array")
        _expect_leaf(values, tf.TensorSpec(values.shape, tf.dtypes.as_dtype(body[0])), tf)
        return tf.constant(values, dtype=body[0])
    if tag == "DS" and type(body) is dict:
        return _rebuild_dataset(body, tf, decode_item)
    raise Malformed(f"malformed {tag!r}")


def _spec(tree: Any, tf: Any, depth: int = 0) -> Any:
    """An element spec from its data form."""
    if depth > MAX_DEPTH or type(tree) is not dict or len(tree) != 1:
        raise Malformed("a malformed element spec")
    (tag, body), = tree.items()
    if tag == "TS" and type(body) is list and len(body) == 2 and body[0] in TF_DTYPES:
        shape = body[1]
        if shape is not None and (type(shape) is not list or len(shape) > MAX_DEPTH or not all(
                n is None or (type(n) is int and n >= 0) for n in shape)):
            raise Malformed("a malformed shape in an element spec")
        return tf.TensorSpec(shape, tf.dtypes.as_dtype(body[0]))
    if tag in ("T", "L") and type(body) is list:
        parts = [_spec(part, tf, depth + 1) for part in body]
        return tuple(parts) if tag == "T" else parts
    if tag == "D" and type(body) is list and all(type(p) is list and len(p) == 2 and type(p[0]) is str
                                                  for p in body):
        return {k: _spec(v, tf, depth + 1) for k, v in body}
    raise Malformed("a malformed element spec")


def _expect_leaf(value: Any, spec: Any, tf: Any) -> np.ndarray:
    """The value of one tensor of an element, checked against its spec (dtype and shape)."""
    if type(value) is not np.ndarray:
        raise Malformed("an element's value is not an array")
    if spec.dtype == tf.string:
        if value.dtype.kind != "O":
            raise Malformed("a text tensor's value is not bytes")
    elif value.dtype != np.dtype(spec.dtype.as_numpy_dtype):
        raise Malformed(f"an element of dtype {value.dtype} where the spec says {spec.dtype.name}")
    if not spec.shape.is_compatible_with(value.shape):
        raise Malformed(f"an element of shape {list(value.shape)} where the spec says {spec.shape}")
    return value


def _rebuild_dataset(body: dict, tf: Any, decode_item: Callable[[Any], Any]) -> Any:
    """The grader's own dataset yielding the elements the kernel read, then ending as the kernel's reading did."""
    if sorted(body) != ["deterministic", "ended", "error", "graph", "items", "spec"] or type(body["items"]) is not \
            list or len(body["items"]) > DATASET_ITEMS or body["deterministic"] not in (True, False, None) \
            or type(body["ended"]) is not bool:
        raise Malformed("a malformed dataset")
    spec = _spec(body["spec"], tf)
    flat_spec = tf.nest.flatten(spec)
    items = []
    for item in body["items"]:
        element = decode_item(item)
        try:
            tf.nest.assert_same_structure(element, spec, check_types=False)
        except (TypeError, ValueError):
            raise Malformed("an element whose structure is not the spec's") from None
        leaves = [_expect_leaf(value, leaf_spec, tf) for value, leaf_spec in zip(tf.nest.flatten(element),
                                                                                   flat_spec, strict=True)]
        items.append(tf.nest.pack_sequence_as(spec, leaves))
    error = body["error"]
    if error is not None and not (type(error) is list and len(error) == 2 and all(type(e) is str for e in error)):
        raise Malformed("a malformed error")
    graph = body["graph"]
    if graph is not None and (type(graph) is not str or len(graph) > 2 * GRAPH_BYTES):
        raise Malformed("a malformed graph")

    def replay() -> Any:
        yield from items

    dataset = tf.data.Dataset.from_generator(replay, output_signature=spec)
    if error is not None or not body["ended"]:
        said = (f"{error[0]}: {error[1]}" if error is not None else
                f"the grader read only the first {len(items)} elements of this dataset")
        dataset = dataset.concatenate(_failing(spec, said, tf))
    if body["deterministic"] is False:
        options = tf.data.Options()
        options.deterministic = False
        dataset = dataset.with_options(options)
    dataset._grader_graph = base64.b64decode(graph, validate=True) if graph else None  # noqa: SLF001
    return dataset


def _failing(spec: Any, message: str, tf: Any) -> Any:
    """A dataset whose first element raises InvalidArgumentError with `message` (where the answer's stopped)."""
    def zeros(leaf: Any) -> Any:
        shape = [d or 0 for d in leaf.shape] if leaf.shape.rank is not None else []
        return tf.fill(shape, "") if leaf.dtype == tf.string else tf.zeros(shape, leaf.dtype)

    def fail(_: Any) -> Any:
        with tf.control_dependencies([tf.debugging.Assert(False, [message])]):
            return tf.nest.map_structure(lambda leaf: tf.identity(zeros(leaf)), spec)

    return tf.data.Dataset.range(1).map(tf.autograph.experimental.do_not_convert(fail))
