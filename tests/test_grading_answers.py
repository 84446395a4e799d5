"""Right answers, written as students write them, score full marks under the sealed grader.

With the operating system as the boundary, an answer cell runs as written; what could still cost a right answer its
points is the one rule left (`worker.library_call`, checked on the source) and the plain-data boundary (`codec`:
what the answer returns crosses as JSON to the checker in the grader's process). Each answer below goes through
both exactly as the grader takes it: the rule on its source, then the source run in a notebook-like namespace as an
IPython cell runs it (`__name__ == "__main__"`), then its checker on the far side of the JSON boundary. Nine of them
are the shapes the RestrictedPython rules refused (issue #43): a helper class, `sorted(key=operator.itemgetter(1))`,
`'{}'.format(...)` in a debug print, a namedtuple's `_asdict()`, an `if __name__ == "__main__":` self-test,
`getattr`, a `match` statement, `type(x) is str`, `nonlocal`.
"""

from __future__ import annotations

import contextlib
import io
import math

import numpy as np
import pytest

from tutorial_lib import datasets, exercises
from tutorial_lib.grading import remote
from tutorial_lib.grading.worker import library_call

# (checker, the answer's name, label, source)
RIGHT_ANSWERS: list[tuple[str, str, str, str]] = [
    # --- 00.1 count_label
    ("check_count_label", "count_label", "helper class", """
class Tally:
    def __init__(self, labels):
        self.labels = labels
    def of(self, digit):
        return int((self.labels == digit).sum())

def count_label(labels, digit):
    return Tally(labels).of(digit)
"""),
    ("check_count_label", "count_label", "'{}'.format in a debug print", """
def count_label(labels, digit):
    n = int(np.count_nonzero(labels == digit))
    print('{} labels, {} of them are {}'.format(len(labels), n, digit))
    return n
"""),
    ("check_count_label", "count_label", "self-test under __main__", """
def count_label(labels, digit):
    return int(np.sum(labels == digit))

if __name__ == "__main__":
    assert count_label(np.array([1, 2, 1]), 1) == 2
    print('self-test passed')
"""),
    ("check_count_label", "count_label", "getattr on the array", """
def count_label(labels, digit):
    return int(getattr(labels == digit, 'sum')())
"""),
    ("check_count_label", "count_label", "nonlocal counter", """
def count_label(labels, digit):
    total = 0
    def see(label):
        nonlocal total
        if label == digit:
            total += 1
    for label in labels.tolist():
        see(label)
    return total
"""),
    ("check_count_label", "count_label", "collections.Counter", """
from collections import Counter

def count_label(labels, digit):
    return Counter(labels.tolist())[digit]
"""),
    ("check_count_label", "count_label", "f-string debug print and a type hint", """
def count_label(labels: np.ndarray, digit: int) -> int:
    matches = labels == digit
    print(f"{matches.sum()=}")
    return int(matches.sum())
"""),
    ("check_count_label", "count_label", "a dataclass helper", """
from dataclasses import dataclass

@dataclass
class Query:
    digit: int
    def count(self, labels):
        return sum(1 for label in labels if label == self.digit)

def count_label(labels, digit):
    return Query(digit).count(labels)
"""),
    # --- 00.2 invert
    ("check_invert", "invert", "sorted by operator.itemgetter(1)", """
import operator

def invert(vocab):
    return {i: word for word, i in sorted(vocab.items(), key=operator.itemgetter(1))}
"""),
    ("check_invert", "invert", "match statement", """
def invert(vocab):
    inverse = {}
    for pair in vocab.items():
        match pair:
            case (word, i):
                inverse[i] = word
    return inverse
"""),
    ("check_invert", "invert", "type(x) is str check", """
def invert(vocab):
    out = {}
    for word, i in vocab.items():
        if type(word) is str:
            out[i] = word
    return out
"""),
    ("check_invert", "invert", "a namedtuple's _asdict()", """
from collections import namedtuple

Entry = namedtuple('Entry', ['word', 'i'])

def invert(vocab):
    entries = [Entry(w, i)._asdict() for w, i in vocab.items()]
    return {e['i']: e['word'] for e in entries}
"""),
    ("check_invert", "invert", "dict(zip)", """
def invert(vocab):
    return dict(zip(vocab.values(), vocab.keys()))
"""),
    ("check_invert", "invert", "a class with __init__ and a method", """
class Inverter:
    def __init__(self):
        self.table = {}
    def add(self, word, i):
        self.table[i] = word
        return self

def invert(vocab):
    inv = Inverter()
    for word, i in vocab.items():
        inv.add(word, i)
    return inv.table
"""),
    ("check_invert", "invert", "isinstance guard and a generator", """
def invert(vocab):
    assert isinstance(vocab, dict), 'expected a dict'
    return dict((i, w) for w, i in vocab.items())
"""),
    # --- 00.3 atom_count
    ("check_atom_count", "atom_count", "getattr on the molecule", """
def atom_count(molecule, symbol):
    species = getattr(molecule, 'species')
    return sum(1 for z in species if datasets.SPECIES[int(z)] == symbol)
"""),
    ("check_atom_count", "atom_count", "the molecule's _asdict()", """
def atom_count(molecule, symbol):
    fields = molecule._asdict()
    return int(sum(datasets.SPECIES[int(z)] == symbol for z in fields['species']))
"""),
    ("check_atom_count", "atom_count", "match on the symbol", """
def atom_count(molecule, symbol):
    count = 0
    for z in molecule.species:
        match datasets.SPECIES[int(z)]:
            case s if s == symbol:
                count += 1
            case _:
                pass
    return count
"""),
    ("check_atom_count", "atom_count", "reverse lookup table", """
def atom_count(molecule, symbol):
    number = {s: z for z, s in datasets.SPECIES.items()}[symbol]
    return int(np.count_nonzero(molecule.species == number))
"""),
    ("check_atom_count", "atom_count", "str.format'd formula", """
def atom_count(molecule, symbol):
    formula = ''.join('{}'.format(datasets.SPECIES[int(z)]) for z in molecule.species)
    return formula.count(symbol)
"""),
    # --- 01.1 feed_bytes
    ("check_feed_bytes", "feed_bytes", "itemsize via getattr", """
def feed_bytes(batch_size):
    image = getattr(np.dtype(np.float32), 'itemsize')
    label = getattr(np.dtype(np.int64), 'itemsize')
    return batch_size * (784 * image + label)
"""),
    ("check_feed_bytes", "feed_bytes", "empty arrays' nbytes", """
def feed_bytes(batch_size):
    images = np.empty([batch_size, 784], np.float32)
    labels = np.empty([batch_size], np.int64)
    return images.nbytes + labels.nbytes
"""),
    ("check_feed_bytes", "feed_bytes", "a constant per example", """
BYTES_PER_EXAMPLE = 784 * 4 + 8

def feed_bytes(batch_size):
    return batch_size * BYTES_PER_EXAMPLE
"""),
    ("check_feed_bytes", "feed_bytes", "a namedtuple of sizes", """
from collections import namedtuple

Sizes = namedtuple('Sizes', 'image label')

def feed_bytes(batch_size):
    sizes = Sizes(784 * np.float32().itemsize, np.int64().itemsize)
    return batch_size * sum(sizes._asdict().values())
"""),
    # --- 07a.1 batches_in_pass
    ("check_batches_in_pass", "batches_in_pass", "ceil division", """
def batches_in_pass(n, batch_size):
    return -(-n // batch_size)
"""),
    ("check_batches_in_pass", "batches_in_pass", "divmod", """
def batches_in_pass(n, batch_size):
    full, rest = divmod(n, batch_size)
    return full + (1 if rest else 0)
"""),
    ("check_batches_in_pass", "batches_in_pass", "a while loop with nonlocal", """
def batches_in_pass(n, batch_size):
    batches = 0
    def take():
        nonlocal batches
        batches += 1
    left = n
    while left > 0:
        take()
        left -= batch_size
    return batches
"""),
    ("check_batches_in_pass", "batches_in_pass", "an explicit empty pass", """
def batches_in_pass(n, batch_size):
    return (n + batch_size - 1) // batch_size if n else 0
"""),
    # --- 09.1 epoch_size_for
    ("check_epoch_size", "epoch_size_for", "a local named epoch_size", """
def epoch_size_for(num_tokens, batch_size, num_steps):
    batch_len = num_tokens // batch_size
    epoch_size = (batch_len - 1) // num_steps
    return max(0, epoch_size)
"""),
    ("check_epoch_size", "epoch_size_for", "guard first", """
def epoch_size_for(num_tokens, batch_size, num_steps):
    if num_tokens < batch_size * (num_steps + 1):
        return 0
    return (num_tokens - batch_size) // (batch_size * num_steps)
"""),
    ("check_epoch_size", "epoch_size_for", "match on the row length", """
def epoch_size_for(num_tokens, batch_size, num_steps):
    match num_tokens // batch_size:
        case n if n <= num_steps:
            return 0
        case n:
            return (n - 1) // num_steps
"""),
    # --- 09.2 window
    ("check_window", "window", "the notebook's reshape with a helper", """
def _rows(raw, batch_size):
    raw = np.asarray(raw)
    batch_len = len(raw) // batch_size
    return raw[:batch_size * batch_len].reshape(batch_size, batch_len)

def window(raw, batch_size, num_steps, i):
    data = _rows(raw, batch_size)
    start = i * num_steps
    return data[:, start:start + num_steps], data[:, start + 1:start + num_steps + 1]
"""),
    ("check_window", "window", "a helper class", """
class Stream:
    def __init__(self, raw, batch_size):
        raw = np.asarray(raw)
        self.rows = raw[:len(raw) // batch_size * batch_size].reshape(batch_size, -1)
    def cut(self, start, width):
        return self.rows[:, start:start + width]

def window(raw, batch_size, num_steps, i):
    stream = Stream(raw, batch_size)
    return stream.cut(i * num_steps, num_steps), stream.cut(i * num_steps + 1, num_steps)
"""),
    ("check_window", "window", "rows stacked in a loop", """
def window(raw, batch_size, num_steps, i):
    raw = np.asarray(raw)
    batch_len = len(raw) // batch_size
    start = i * num_steps
    xs, ys = [], []
    for row in range(batch_size):
        base = row * batch_len + start
        xs.append(raw[base:base + num_steps])
        ys.append(raw[base + 1:base + num_steps + 1])
    return np.stack(xs), np.stack(ys)
"""),
]


def notebook_namespace() -> dict:
    """The names an answer cell of these notebooks can use, as an IPython cell has them."""
    import tensorflow as tf

    from tutorial_lib.pipelines import ptb

    return {"np": np, "tf": tf, "math": math, "datasets": datasets, "ptb": ptb, "exercises": exercises,
            "__name__": "__main__"}


def test_the_table_is_as_large_and_as_wide_as_promised():
    assert len(RIGHT_ANSWERS) >= 30
    assert len({checker for checker, *_ in RIGHT_ANSWERS}) >= 6
    assert all(checker in remote.REMOTE for checker, *_ in RIGHT_ANSWERS)


@pytest.mark.parametrize("checker_name, name, label, source", RIGHT_ANSWERS,
                         ids=[f"{row[1]}: {row[2]}" for row in RIGHT_ANSWERS])
def test_a_right_answer_scores_full_marks(checker_name, name, label, source):
    assert library_call(source, [name]) is None, "the grader's one rule refused it"
    scope = notebook_namespace()
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, f"<answer: {label}>", "exec"), scope)  # noqa: S102 -- the answer, as the kernel runs it
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        verdict = getattr(exercises, checker_name)(remote.RemoteAnswer(name, remote.loopback(scope)))
    assert verdict.passed is True, printed.getvalue()


@pytest.mark.parametrize("source, names, refused", [
    ("def window(raw, b, s, i):\n    return ptb.windows(raw, b, s)[i]", ["window"],
     "tutorial_lib.pipelines.ptb.windows"),
    ("from tutorial_lib.pipelines.ptb import windows\n\ndef window(raw, b, s, i):\n    return windows(raw, b, s)[i]",
     ["window"], "tutorial_lib.pipelines.ptb.windows"),
    ("def window(raw, b, s, i):\n    return ptb.windows(raw, b, s)[i]", ["epoch_size_for"], None),
    ("def epoch_size_for(n, b, s):\n    epoch_size = (n // b - 1) // s\n    return max(0, epoch_size)",
     ["epoch_size_for"], None),
    ("def epoch_size_for(n, b, s):\n    return ptb.epoch_size(n, b, s)", ["epoch_size_for"],
     "tutorial_lib.pipelines.ptb.epoch_size"),
    ("from tutorial_lib.pipelines import decode_fixed_record\n\ndef decode_cifar(record):\n"
     "    return decode_fixed_record(record)", ["decode_cifar"], "tutorial_lib.pipelines.digits.decode_fixed_record"),
    ("def broken(:\n", ["window"], None),
])
def test_the_one_rule_left_refuses_only_the_librarys_own_version(source, names, refused):
    assert library_call(source, names) == refused
