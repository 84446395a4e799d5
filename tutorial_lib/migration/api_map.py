"""The migration map: each TF1 input API the course used, its tf.data / eager form, and where the pair is checked.

`where` is either a notebook section ("NN_name#Heading text", where a cell asserts the pair: for the input
APIs, that both forms yield the same data) or a test ("tests/file.py::test_name"). tests/test_migration.py
checks that every target exists and asserts something.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import nbformat

from tutorial_lib.classroom.course import NOTEBOOK_DIR


class Row(NamedTuple):
    """One line of the map."""

    tf1: str
    tf_data: str
    where: str


MAP = [
    Row("`placeholder` + `feed_dict`", "call a `tf.function` with NumPy arrays; mini-batches from "
        "`from_tensor_slices(...).batch(n)`", "01_feeding#Today's form: `tf.function` with NumPy input"),
    Row("`string_input_producer(files, shuffle, num_epochs)`",
        "`from_tensor_slices(files).shuffle(len(files)).repeat(n)`, readers via `interleave` / `flat_map`",
        "03a_queues_and_threads#One epoch, every example exactly once"),
    Row("`slice_input_producer([arrays])`", "`from_tensor_slices(tuple(arrays))` (a tuple: a list is stacked into "
        "one tensor, or refused; `.shuffle(n)` over all n, then `.repeat`: the producer shuffles and repeats by "
        "default)",
        "04_preloaded_data#Today's form: `Dataset.from_tensor_slices`"),
    Row("`range_input_producer(n)`", "`Dataset.range(n)` (int64 where the producer gave int32; `.shuffle(n)`, then "
        "`.repeat`: the producer shuffles and repeats by default)",
        "10_queues_to_tf_data#Range producer"),
    Row("`TextLineReader(skip_header_lines=1)` + `decode_csv`", "`TextLineDataset(f).skip(1)` + `decode_csv` "
        "(per file, in `flat_map`)", "02_reading_files#The same with `tf.data`"),
    Row("`FixedLengthRecordReader` + `decode_raw`", "`FixedLengthRecordDataset` + `decode_raw`",
        "02_reading_files#Fixed-length records: the CIFAR-10 layout"),
    Row("`TFRecordReader` + `parse_single_example`", "`TFRecordDataset` + `parse_single_example`",
        "02_reading_files#TFRecord files and `tf.train.Example`"),
    Row("`train.batch`", "`batch(n, drop_remainder=True)`: TF1's default (`allow_smaller_final_batch=False`) "
        "dropped a short last batch", "02_reading_files#The example queue"),
    Row("`train.shuffle_batch(capacity, min_after_dequeue)`", "`shuffle(min_after_dequeue).batch(n, "
        "drop_remainder=True)`",
        "03b_batching_and_shuffling#Shuffle quality against `min_after_dequeue`"),
    Row("`train.batch_join` (several readers, no shuffling)",
        "`interleave(cycle_length=readers, num_parallel_calls=...)` + `batch(n, drop_remainder=True)`",
        "03b_batching_and_shuffling#One reader with many threads, or many readers"),
    Row("`train.shuffle_batch_join` (several readers sharing one filename queue)",
        "`interleave(cycle_length=readers)` + `shuffle` + `batch(n, drop_remainder=True)`",
        "03b_batching_and_shuffling#Batching: `batch`, `shuffle_batch`, `shuffle_batch_join`"),
    Row("`train.maybe_batch(keep_input=...)`", "`filter(predicate).batch(n, drop_remainder=True)` (`batch(n)` "
        "with `allow_smaller_final_batch=True`)",
        "10_queues_to_tf_data#Conditional batching"),
    Row("`enqueue_many=True` (many examples per record)", "`unbatch()` or `flat_map(from_tensor_slices)`",
        "03b_batching_and_shuffling#Filtering, and many examples per record: `enqueue_many`"),
    Row("a queue's own methods: `enqueue`, `dequeue`, `close`, `size`",
        "TF 2 keeps the queues: `tf.queue.FIFOQueue` and the same methods run eagerly, without a session. In a "
        "`tf.data` pipeline what is enqueued becomes the dataset (`from_tensor_slices`, or `from_generator` for "
        "values Python makes over time), `dequeue` is the next element, `close` the data's end; `size` has no "
        "tf.data form", "03a_queues_and_threads#Queues by hand"),
    Row("`QueueRunner`, `Coordinator`, `start_queue_runners`", "nothing to start or stop: iterate; `prefetch` "
        "runs ahead", "10_queues_to_tf_data#Runners and coordinator"),
    Row("`num_epochs=n` and `OutOfRangeError`", "`repeat(n)`; the loop ends (`StopIteration`)",
        "03a_queues_and_threads#One epoch, every example exactly once"),
    Row("`allow_smaller_final_batch=True` (every `*batch*` call), `dequeue_up_to`", "`batch(n)` "
        "(`drop_remainder=False`, the default); without it, TF1 dropped a short last batch",
        "03a_queues_and_threads#`allow_smaller_final_batch` is `dequeue_up_to`"),
    Row("`batch(dynamic_pad=True)` / `PaddingFIFOQueue`", "`padded_batch` or `ragged_batch`",
        "08_one_batch_many_evaluations#Variable-size batches: padding, `padded_batch`, ragged"),
    Row("`get_session_handle` / `get_session_tensor`", "keep the eager tensor in a Python variable",
        "08_one_batch_many_evaluations#The eager form: the batch is a Python value"),
    Row("`make_one_shot_iterator`", "`for batch in dataset:`", "04_preloaded_data#One-shot iterator"),
    Row("`make_initializable_iterator` (placeholders as parameters)", "build the dataset in a function of its "
        "parameters; a new `iter` per pass", "04_preloaded_data#Initializable iterator"),
    Row("reinitializable iterator (`Iterator.from_structure`)", "loop over whichever dataset you need",
        "04_preloaded_data#Reinitializable iterator"),
    Row("feedable iterator (`string_handle`)", "Python chooses which iterator to call `next` on",
        "04_preloaded_data#Feedable iterator"),
    Row("`Saver` checkpoints read by a separate evaluation process (`tf.train.checkpoints_iterator`)",
        "`tf.train.Checkpoint` + `CheckpointManager`; the same `tf.train.checkpoints_iterator`",
        "07b_validate_in_another_process#The TF2 form: `tf.train.Checkpoint`, and the same `checkpoints_iterator`"),
    Row("batch `num_threads`; several readers (`*_join`)",
        "`map(num_parallel_calls=...)`, `interleave(num_parallel_calls=...)`, "
        "`prefetch`", "03b_batching_and_shuffling#One reader with many threads, or many readers"),
]


# The TF1 calls and arguments each row covers, by the row's TF1 column: the keys of the code scanner's table
# (`migration/scanner.py`, `python -m tutorial_lib migrate`). tests/test_migrate.py fails when a row has none.
COVERS: dict[str, tuple[str, ...]] = {
    "`placeholder` + `feed_dict`": ("placeholder", "placeholder_with_default", "feed_dict"),
    "`string_input_producer(files, shuffle, num_epochs)`": ("string_input_producer", "input_producer"),
    "`slice_input_producer([arrays])`": ("slice_input_producer",),
    "`range_input_producer(n)`": ("range_input_producer",),
    "`TextLineReader(skip_header_lines=1)` + `decode_csv`": ("TextLineReader", "decode_csv"),
    "`FixedLengthRecordReader` + `decode_raw`": ("FixedLengthRecordReader", "decode_raw"),
    "`TFRecordReader` + `parse_single_example`": ("TFRecordReader", "parse_single_example",
                                                  "parse_single_sequence_example", "parse_example"),
    "`train.batch`": ("batch", "FIFOQueue", "queue.dequeue_many"),
    "`train.shuffle_batch(capacity, min_after_dequeue)`": ("shuffle_batch", "RandomShuffleQueue"),
    "`train.batch_join` (several readers, no shuffling)": ("batch_join",),
    "`train.shuffle_batch_join` (several readers sharing one filename queue)": ("shuffle_batch_join",),
    "`train.maybe_batch(keep_input=...)`": ("maybe_batch", "maybe_shuffle_batch", "maybe_batch_join",
                                            "maybe_shuffle_batch_join"),
    "`enqueue_many=True` (many examples per record)": ("enqueue_many", "queue.enqueue_many"),
    "a queue's own methods: `enqueue`, `dequeue`, `close`, `size`": ("queue.enqueue", "queue.dequeue", "queue.close",
                                                                      "queue.size"),
    "`QueueRunner`, `Coordinator`, `start_queue_runners`": ("QueueRunner", "add_queue_runner", "start_queue_runners",
                                                            "create_threads", "Coordinator", "Supervisor",
                                                            "MonitoredTrainingSession"),
    "`num_epochs=n` and `OutOfRangeError`": ("num_epochs",),
    "`allow_smaller_final_batch=True` (every `*batch*` call), `dequeue_up_to`": ("allow_smaller_final_batch",
                                                                                   "queue.dequeue_up_to"),
    "`batch(dynamic_pad=True)` / `PaddingFIFOQueue`": ("dynamic_pad", "PaddingFIFOQueue"),
    "`get_session_handle` / `get_session_tensor`": ("get_session_handle", "get_session_tensor"),
    "`make_one_shot_iterator`": ("make_one_shot_iterator",),
    "`make_initializable_iterator` (placeholders as parameters)": ("make_initializable_iterator",),
    "reinitializable iterator (`Iterator.from_structure`)": ("from_structure",),
    "feedable iterator (`string_handle`)": ("string_handle", "from_string_handle"),
    "`Saver` checkpoints read by a separate evaluation process (`tf.train.checkpoints_iterator`)":
        ("checkpoints_iterator",),
    "batch `num_threads`; several readers (`*_join`)": ("num_threads",),
}


def covering(api: str) -> Row | None:
    """Return the row that covers a TF1 call or argument (see `COVERS`), or None."""
    return next((row for row in MAP if api in COVERS.get(row.tf1, ())), None)


def anchor(heading: str) -> str:
    """Return JupyterLab's anchor for a Markdown heading: the rendered text with spaces as dashes."""
    return heading.replace("`", "").strip().replace(" ", "-")


def link(where: str) -> str:
    """Return a Markdown link to a notebook section or a test (relative to notebooks/)."""
    if where.startswith("tests/"):
        return f"[`{where.split('::')[1]}`](../{where.split('::')[0]})"
    stem, heading = where.split("#", 1)
    return f"[{stem.split('_', 1)[0]} · {heading.replace('`', '')}]({stem}.ipynb#{anchor(heading)})"


def table() -> str:
    """Return the map as a Markdown table."""
    lines = ["| TF1 | tf.data / eager | shown in (a section that asserts) |", "|---|---|---|"]
    lines += [f"| {row.tf1} | {row.tf_data} | {link(row.where)} |" for row in MAP]
    return "\n".join(lines)


def sections(path: Path) -> dict[str, list[str]]:
    """Return {heading text: sources of the code cells in its section (subsections included)} for a notebook."""
    found: dict[str, list[str]] = {}
    open_sections: list[tuple[int, list[str]]] = []  # (heading level, code of that section)
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                match = re.match(r"(#{1,6}) (.+)", line)
                if match:
                    level = len(match.group(1))
                    open_sections = [(lv, code) for lv, code in open_sections if lv < level]
                    open_sections.append((level, found.setdefault(match.group(2).strip(), [])))
        else:
            for _, code in open_sections:
                code.append(cell.source)
    return found


def problems(notebook_dir: Path = NOTEBOOK_DIR) -> list[str]:
    """Return what is wrong with the map's targets (a missing section or test, or one asserting nothing)."""
    found = []
    for row in MAP:
        if row.where.startswith("tests/"):
            file, name = row.where.split("::")
            path = notebook_dir.parent / file
            if not path.exists() or f"def {name}(" not in path.read_text():
                found.append(f"{row.tf1}: no test {row.where}")
            continue
        stem, heading = row.where.split("#", 1)
        path = notebook_dir / f"{stem}.ipynb"
        code = sections(path).get(heading) if path.exists() else None
        if code is None:
            found.append(f"{row.tf1}: no section '{heading}' in {stem}")
        elif not any(re.search(r"^\s*assert |testing\.assert_|check_same", source, re.M) for source in code):
            found.append(f"{row.tf1}: section '{heading}' of {stem} asserts nothing")
    return found
