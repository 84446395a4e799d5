"""Plain data across the process boundary: what an answer returns, written as JSON and read back strictly.

The grader never unpickles what a student's kernel sends, and never keeps an object the answer made: `decode` builds
fresh Python and NumPy values (None, bool, int, float, str, bytes, range, list, tuple, dict, set, NumPy arrays and
scalars of numeric, bool or text dtypes, and the course's own records in `_records`) from JSON text, and refuses
anything malformed. Any other value (a tensor, an object of the answer's own) crosses as a `StandIn` that keeps
only its type's name: an object with a lying `==`, `len` or dtype arrives without them, so a checker sees a wrong
type, not a right value.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from tutorial_lib.grading import tfdata

MAX_TEXT = 64 * 2**20  # the most JSON one answer may send back
MAX_DEPTH = 32
DTYPE_KINDS = "biufU"  # bool, signed and unsigned ints, floats, text


class EncodeError(TypeError):
    """A value the grader takes only as plain data was something else."""


class DecodeError(ValueError):
    """What came back is not plain data written by `encode`."""


def _records() -> dict[str, type]:
    """The course's record types that may travel as arguments (name -> class)."""
    from tutorial_lib.datasets import Molecule

    return {"Molecule": Molecule}


def _record_name(value: Any) -> str | None:
    """The name under which a course record travels, or None."""
    for name, cls in _records().items():
        if type(value) is cls:
            return name
    return None


def encode(value: Any, args: tuple = (), files: bool = False) -> str:
    """Return `value` as JSON text; an object that is one of `args` (by identity) is written as a reference to it;
    with `files`, a path to a file under the grader's temporary folder is written as the file's name and content."""
    return json.dumps(_encode(value, args, 0, files), allow_nan=True)


def _encode(value: Any, args: tuple, depth: int, files: bool = False) -> Any:
    """The JSON-ready form of one value (exact types only: a subclass of int or dict is not plain data)."""
    if depth > MAX_DEPTH:
        raise EncodeError("values nested deeper than the grader reads")
    for index, arg in enumerate(args):
        if value is arg and not isinstance(value, (bool, int, float, str, type(None))):
            return {"ARG": index}
    kind = type(value)
    if kind is str and files and _shipped(value):
        folder = hashlib.sha256(str(Path(value).resolve().parent).encode()).hexdigest()[:12]
        return {"FILE": [folder, Path(value).name,
                         base64.b64encode(Path(value).read_bytes()).decode()]}
    if value is None or kind in (bool, str):
        return value
    if kind is int:
        return {"I": str(value)}
    if kind is float:
        return value if math.isfinite(value) else {"F": repr(value)}
    if kind is bytes:
        return {"B": base64.b64encode(value).decode()}
    if kind in (list, tuple, set, frozenset):
        items = sorted(value, key=repr) if kind in (set, frozenset) else value
        tag = {list: "L", tuple: "T", set: "S", frozenset: "S"}[kind]
        return {tag: [_encode(item, args, depth + 1, files) for item in items]}
    if kind is dict:
        return {"D": [[_encode(k, args, depth + 1, files), _encode(v, args, depth + 1, files)]
                      for k, v in value.items()]}
    if kind is np.ndarray:
        if value.dtype.kind in "biuf":
            return {"AB": [value.dtype.str, list(value.shape), base64.b64encode(value.tobytes()).decode()]}
        if value.dtype.kind == "O" and all(type(v) is bytes for v in value.ravel()):
            return {"OB": [list(value.shape), [base64.b64encode(v).decode() for v in value.ravel()]]}
        if value.dtype.kind not in DTYPE_KINDS:
            raise EncodeError(f"an array of dtype {value.dtype}: the grader takes bool, int, float or text arrays")
        return {"A": [value.dtype.str, list(value.shape), value.ravel().tolist()]}
    if isinstance(value, np.generic) and kind.__module__ == "numpy":
        if value.dtype.kind not in DTYPE_KINDS:
            raise EncodeError(f"a NumPy {value.dtype} value")
        return {"N": [value.dtype.str, value.item()]}
    record = _record_name(value)
    if record is not None:
        return {"R": [record, {name: _encode(getattr(value, name), args, depth + 1) for name in value._fields}]}
    if kind.__name__ == "_Todo" and kind.__module__ == "tutorial_lib.exercises.core":
        return {"TODO": None}
    if kind is range:
        return {"RG": [value.start, value.stop, value.step]}
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        found = tfdata.encode_tf(value, tf, lambda item: _encode(item, (), depth + 1))
        if found is not None:
            return found
    return {"X": kind.__name__}  # anything else crosses as a stand-in that has only its type's name


def decode(text: str, args: tuple = (), files_to: Path | None = None) -> Any:
    """Rebuild a value from `encode`'s JSON text, accepting nothing but plain data (DecodeError otherwise); a file
    (only where `files_to` names a folder: the kernel's side) is written there and becomes its new path."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise DecodeError("the answer sent back more than the grader reads")
    try:
        return _decode(json.loads(text), args, 0, files_to)
    except DecodeError:
        raise
    except (TypeError, ValueError, OverflowError, RecursionError) as error:
        raise DecodeError(f"malformed: {type(error).__name__}: {str(error)[:200]}") from None


def _decode(tree: Any, args: tuple, depth: int, files_to: Path | None = None) -> Any:
    """One value from its JSON form."""
    if depth > MAX_DEPTH:
        raise DecodeError("nested too deep")
    if tree is None or type(tree) in (bool, str, float):
        return tree
    if type(tree) is not dict or len(tree) != 1:
        raise DecodeError(f"unexpected {type(tree).__name__}")
    (tag, body), = tree.items()
    if tag == "I" and type(body) is str:
        return int(body)
    if tag == "F" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "B" and type(body) is str:
        return base64.b64decode(body, validate=True)
    if tag in ("L", "T", "S") and type(body) is list:
        items = [_decode(item, args, depth + 1, files_to) for item in body]
        return {"L": list, "T": tuple, "S": set}[tag](items)
    if tag == "D" and type(body) is list:
        if not all(type(pair) is list and len(pair) == 2 for pair in body):
            raise DecodeError("a dict's items are not pairs")
        return {_decode(k, args, depth + 1): _decode(v, args, depth + 1) for k, v in body}
    if tag == "A" and type(body) is list and len(body) == 3:
        dtype, shape, flat = np.dtype(_dtype(body[0])), body[1], body[2]
        if type(shape) is not list or not all(type(n) is int and n >= 0 for n in shape) or type(flat) is not list:
            raise DecodeError("an array's shape or values are malformed")
        if not all(type(v) in (bool, int, float, str) for v in flat) or len(flat) != int(np.prod(shape)):
            raise DecodeError("an array's values are not plain numbers or text")
        return np.array(flat, dtype=dtype).reshape(shape)
    if tag == "AB" and type(body) is list and len(body) == 3:
        return _raw_array(*body)
    if tag == "OB" and type(body) is list and len(body) == 2 and type(body[1]) is list:
        shape = _shape(body[0])
        if len(body[1]) != math.prod(shape) or not all(type(v) is str for v in body[1]):
            raise DecodeError("a text array's values are malformed")
        values = np.empty(len(body[1]), dtype=object)
        values[:] = [base64.b64decode(v, validate=True) for v in body[1]]
        return values.reshape(shape)
    if tag == "N" and type(body) is list and len(body) == 2 and type(body[1]) in (bool, int, float, str):
        return np.dtype(_dtype(body[0])).type(body[1])
    if tag == "TODO" and body is None:
        from tutorial_lib.exercises.core import TODO

        return TODO
    if tag == "RG" and type(body) is list and len(body) == 3 and all(type(n) is int for n in body):
        return range(*body)
    if tag == "X" and type(body) is str:
        return stand_in(body)
    if tag == "ARG" and type(body) is int and 0 <= body < len(args):
        return args[body]
    if tag == "R" and type(body) is list and len(body) == 2 and body[0] in _records() and type(body[1]) is dict:
        cls = _records()[body[0]]
        if sorted(body[1]) != sorted(cls._fields):
            raise DecodeError(f"a {body[0]} with other fields")
        return cls(**{name: _decode(v, args, depth + 1) for name, v in body[1].items()})
    if tag == "FILE" and files_to is not None and type(body) is list and len(body) == 3 \
            and all(type(v) is str for v in body):
        return _write_file(files_to, *body)
    if tag in ("DT", "TT", "DS"):
        return tfdata.decode_tf(tag, body, lambda item: _decode(item, (), depth + 1))
    raise DecodeError(f"unknown or malformed {tag!r}")


def _shape(shape: Any) -> list[int]:
    """A shape: a short list of non-negative ints (DecodeError otherwise)."""
    if type(shape) is not list or len(shape) > MAX_DEPTH or not all(type(n) is int and n >= 0 for n in shape):
        raise DecodeError("an array's shape is malformed")
    return shape


def _raw_array(dtype_text: Any, shape: Any, data: Any) -> np.ndarray:
    """A numeric array from its dtype, shape and base64 bytes (exactly as many bytes as the shape holds)."""
    dtype = np.dtype(_dtype(dtype_text))
    shape = _shape(shape)
    if dtype.kind not in "biuf" or type(data) is not str:
        raise DecodeError("a raw array of a dtype that is not numeric")
    raw = base64.b64decode(data, validate=True)
    if len(raw) != math.prod(shape) * dtype.itemsize:
        raise DecodeError("a raw array's bytes do not fill its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _shipped(path: str) -> bool:
    """Whether a path names a file the grader ships by content: a regular file under its temporary folder."""
    try:
        where = Path(path)
        return where.is_absolute() and where.is_file() and Path(tempfile.gettempdir()).resolve() in \
            where.resolve().parents
    except (OSError, ValueError):
        return False


def _write_file(root: Path, folder: str, name: str, content: str) -> str:
    """Write a shipped file under `root`, files of one grader folder together in one folder; return its path."""
    if not all(part and part not in (".", "..") and "/" not in part and "\x00" not in part for part in (folder, name)):
        raise DecodeError(f"a file name the grader would not write: {folder!r}/{name!r}")
    target = root / folder
    target.mkdir(parents=True, exist_ok=True)
    path = target / name
    path.write_bytes(base64.b64decode(content, validate=True))
    return str(path)


class StandIn:
    """What the grader gets for a value that is not plain data: an object with its type's name and nothing else
    (no comparison, length or conversion of the answer's making)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} (not plain data)>"


def stand_in(type_name: str) -> StandIn:
    """A StandIn whose type is called `type_name` (so feedback names what the answer returned)."""
    name = type_name if type_name.isidentifier() and len(type_name) <= 80 else "object"
    return type(name, (StandIn,), {})()


def _dtype(text: Any) -> str:
    """A dtype string, if it names a plain dtype (bool, int, float, text)."""
    if type(text) is not str or len(text) > 8 or np.dtype(text).kind not in DTYPE_KINDS:
        raise DecodeError(f"dtype {text!r} is not plain data")
    return text
