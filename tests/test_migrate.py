"""The migration scanner (`python -m tutorial_lib migrate`): TF1 input calls under every import style, their tf.data
forms with the arguments filled in, pipelines in data order, the report's formats and exit status, bad input,
and real pipelines written by others (tests/data/migrate, with their reviewed reports)."""

import ast
import hashlib
import json
from collections import Counter
from pathlib import Path

import nbformat
import numpy as np
import pytest

from tutorial_lib.__main__ import main as cli
from tutorial_lib.migration import api_map, report, scanner, table

DATA = Path(__file__).resolve().parent / "data" / "migrate"
ROOT = Path(__file__).resolve().parent.parent
SHUFFLE = "shuffle_batch([image, label], batch_size=32, capacity=1000, min_after_dequeue=500)"


def scan(tmp_path, code, name="pipeline.py"):
    path = tmp_path / name
    path.write_text(code)
    return scanner.scan_file(path)


def found(result):
    return [(c.line, c.api, c.known) for c in result.calls]


# --- the map is the single source ----------------------------------------------------------------------------
def test_every_map_row_has_a_scanner_entry_and_every_entry_a_row():
    assert table.missing() == []
    rows = {k.row for k in table.known().values()}
    assert rows == set(api_map.MAP)


def test_a_row_without_a_scanner_entry_is_named(monkeypatch):
    new = api_map.Row("`tf.train.new_api`", "`Dataset.new`", "10_queues_to_tf_data#Range producer")
    monkeypatch.setattr(api_map, "MAP", [*api_map.MAP, new])
    assert table.missing() == ["row '`tf.train.new_api`' covers no call (add it to api_map.COVERS)"]
    monkeypatch.setitem(api_map.COVERS, new.tf1, ("new_api",))
    assert table.missing() == ["'new_api' (row '`tf.train.new_api`') has no scanner spec"]


def test_every_link_targets_an_existing_notebook_section():
    assert api_map.problems() == []
    for known in table.known().values():
        path = table.href(known.row.where).split("#")[0].split("::")[0]
        assert (ROOT / path).exists(), path


# --- import styles -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    f"import tensorflow as tf\nx = 1\nb = tf.train.{SHUFFLE}",
    f"import tensorflow as tf\nx = 1\nb = tf.compat.v1.train.{SHUFFLE}",
    f"import tensorflow.compat.v1 as tf\nx = 1\nb = tf.train.{SHUFFLE}",
    f"from tensorflow.python.training import input as tf_input\nx = 1\nb = tf_input.{SHUFFLE}",
    f"from tensorflow.train import shuffle_batch as sb\nx = 1\nb = sb{SHUFFLE[13:]}",
    f"from tensorflow.compat.v1.train import shuffle_batch\nx = 1\nb = {SHUFFLE}",
    f"import tensorflow as tensorflow_alias\nv1 = tensorflow_alias.compat.v1\nb = v1.train.{SHUFFLE}",
    f"from tensorflow.compat import v1\nx = 1\nb = v1.train.{SHUFFLE}",
    f"tf = env.setup()  # `tf` without an import, as in the notebooks\nv1 = tf.compat.v1\nb = v1.train.{SHUFFLE}",
], ids=["tf.train", "tf.compat.v1.train", "compat.v1 as tf", "python.training.input", "from-import alias",
        "from compat.v1.train", "module alias", "from compat import v1", "tf without import"])
def test_every_import_style_is_recognised(tmp_path, code):
    result = scan(tmp_path, code)
    assert found(result) == [(3, "shuffle_batch", True)]
    assert result.calls[0].args["min_after_dequeue"] == "500"


@pytest.mark.parametrize("code", [
    "from mylib import shuffle_batch\nb = shuffle_batch(x, 32, 100, 10)",
    "import tensorflow as tf\nds = tf.data.Dataset.range(10).batch(4)\ny = tf.reshape(ds, [2])",
    "import tensorflow as tf\nopt = tf.train.AdamOptimizer(0.1)\nsaver = tf.train.Saver()",
    "def batch(x):\n    return x\nbatch(3)",
])
def test_other_calls_are_not_tf1_input_calls(tmp_path, code):
    assert found(scan(tmp_path, code)) == []


def test_unknown_tf1_input_calls_are_listed_as_unknown(tmp_path):
    code = ("import tensorflow as tf\nfiles = tf.train.match_filenames_once('*.tfr')\n"
            "reader = tf.WholeFileReader()\nfor r in tf.python_io.tf_record_iterator('a'):\n    pass\n")
    result = scan(tmp_path, code)
    assert found(result) == [(2, "match_filenames_once", False), (3, "WholeFileReader", False),
                             (4, "tf_record_iterator", False)]
    assert "unknown: not in the migration map" in report.text([result])
    assert report.counts([result])["unknown"] == 3


# --- arguments mapped one-to-one -----------------------------------------------------------------------------
def form_of(tmp_path, call):
    result = scan(tmp_path, f"import tensorflow as tf\nb = tf.train.{call}")
    return scanner.form(result.calls[0]), scanner.pitfalls(result.calls[0]), result.calls[0]


def test_shuffle_batch_maps_capacity_threads_and_final_batch(tmp_path):
    steps, pitfalls, _ = form_of(tmp_path, "shuffle_batch(t, 32, 1000, 500, num_threads=4, seed=7, "
                                           "allow_smaller_final_batch=True)")
    assert steps == [".map(<the work before the batch>, num_parallel_calls=4)", ".shuffle(500, seed=7)",
                     ".batch(32)", ".prefetch(tf.data.AUTOTUNE)"]
    assert any("`min_after_dequeue` (500) to `capacity` (1000)" in p for p in pitfalls)
    assert any("`num_parallel_calls=4` keeps the order" in p for p in pitfalls)


@pytest.mark.parametrize("allow, batch", [(None, ".batch(8, drop_remainder=True)"), ("False", ".batch(8, "
                                          "drop_remainder=True)"), ("True", ".batch(8)"),
                                          ("last", ".batch(8, drop_remainder=not (last))")])
def test_allow_smaller_final_batch_becomes_drop_remainder(tmp_path, allow, batch):
    extra = f", allow_smaller_final_batch={allow}" if allow else ""
    steps, _, _ = form_of(tmp_path, f"batch(t, 8{extra})")
    assert batch in steps


def test_producer_arguments_and_the_epoch_pitfall(tmp_path):
    steps, pitfalls, call = form_of(tmp_path, "string_input_producer(files, num_epochs=2, seed=1)")
    assert steps == ["tf.data.Dataset.from_tensor_slices(files).shuffle(len(files), seed=1).repeat(2)"]
    assert any("`shuffle` defaults to True" in p for p in pitfalls)
    assert any("local_variables_initializer()" in p for p in pitfalls)
    rows = [row.tf1 for row in scanner.rows(call)]
    assert rows == ["`string_input_producer(files, shuffle, num_epochs)`", "`num_epochs=n` and `OutOfRangeError`"]


def test_enqueue_many_dynamic_pad_and_readers(tmp_path):
    steps, _, _ = form_of(tmp_path, "batch(t, 4, enqueue_many=True, dynamic_pad=True)")
    assert steps[:2] == [".unbatch()", ".padded_batch(4, drop_remainder=True)"]
    result = scan(tmp_path, "import tensorflow as tf\nr = tf.FixedLengthRecordReader(3073, header_bytes=1)\n"
                            "s = tf.TextLineReader(skip_header_lines=1)\n")
    assert scanner.form(result.calls[0]) == [
        ".flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, 3073, header_bytes=1))"]
    assert scanner.form(result.calls[1]) == [".flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))"]


# --- pipelines -----------------------------------------------------------------------------------------------
PIPELINE = """import tensorflow as tf

def decode(serialized):
    features = tf.parse_single_example(serialized, {"x": tf.FixedLenFeature([], tf.string)})
    return tf.image.decode_png(features["x"], channels=1)

reader = tf.TFRecordReader()
queue = tf.train.string_input_producer(["a.tfr"], num_epochs=3)
_, record = reader.read(queue)
image = decode(record)
images = tf.train.shuffle_batch([image], 16, 200, 100, num_threads=2)
other = tf.train.range_input_producer(10).dequeue()
others = tf.train.batch([other], 5)
with tf.Session() as sess:
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    sess.run(images)
"""


def test_the_pipeline_follows_the_data_not_the_lines(tmp_path):
    result = scan(tmp_path, PIPELINE)
    pipelines = [[f"{c.api}@{c.line}" for c in p] for p in scanner.pipelines(result)]
    assert pipelines == [
        ["string_input_producer@8", "TFRecordReader@7", "parse_single_example@4", "decode_png@5", "shuffle_batch@11"],
        ["range_input_producer@12", "batch@13"]]
    sketch = scanner.sketch(scanner.pipelines(result)[0])
    assert sketch == (
        "# TFRecordReader: the chain yields records without the reader's keys; rebuild them if the batch used them\n"
        'dataset = (tf.data.Dataset.from_tensor_slices(["a.tfr"]).shuffle(len(["a.tfr"])).repeat(3)\n'
        "    .flat_map(lambda filename: tf.data.TFRecordDataset(filename))\n"
        '    .map(lambda record: tf.io.parse_single_example(record, {"x": tf.io.FixedLenFeature([], tf.string)}))\n'
        "    .map(lambda record: tf.io.decode_png(record, channels=1), num_parallel_calls=2)\n"
        "    .shuffle(100)\n    .batch(16, drop_remainder=True)\n    .prefetch(tf.data.AUTOTUNE))")
    assert "sketch to review" in report.text([result])
    reader = next(c for c in result.calls if c.api == "TFRecordReader")
    assert any("rebuild it" in p and "key" in p for p in scanner.pitfalls(reader))  # the key tf.data does not give


def test_a_helper_called_from_two_pipelines_does_not_join_them(tmp_path):
    code = ("import tensorflow as tf\ndef read(files):\n    q = tf.train.string_input_producer(files)\n"
            "    return tf.TFRecordReader().read(q)[1]\n"
            "a = tf.train.batch([read(['a'])], 4)\nb = tf.train.shuffle_batch([read(['b'])], 4, 50, 10)\n")
    pipelines = [[f"{c.api}@{c.line}" for c in p] for p in scanner.pipelines(scan(tmp_path, code))]
    assert pipelines == [["string_input_producer@3", "TFRecordReader@4", "batch@5"],
                         ["string_input_producer@3", "TFRecordReader@4", "shuffle_batch@6"]]


def test_a_hand_built_queue_takes_what_its_runner_enqueues(tmp_path):
    code = ("import tensorflow as tf\nq = tf.train.string_input_producer(files)\nx = tf.TFRecordReader().read(q)\n"
            "rq = tf.RandomShuffleQueue(100, 10, [tf.string])\nenq = rq.enqueue(x)\n"
            "tf.train.add_queue_runner(tf.train.QueueRunner(rq, [enq] * 4))\nbatch = rq.dequeue_many(8)\n")
    (pipeline,) = scanner.pipelines(scan(tmp_path, code))
    assert [c.api for c in pipeline] == ["string_input_producer", "TFRecordReader", "RandomShuffleQueue",
                                         "queue.dequeue_many", "queue.enqueue", "QueueRunner", "add_queue_runner"]


QUEUE_METHODS = """import tensorflow as tf
q = tf.FIFOQueue(100, [tf.float32])
q.enqueue([1.0])
q.enqueue_many([[1.0, 2.0]])
one = q.dequeue()
many = q.dequeue_many(4)
some = q.dequeue_up_to(4)
n = q.size()
q.close(cancel_pending_enqueues=True)
log = open("log.txt")
log.close()
sizes = dict(a=1)
sizes.size()
"""


def test_a_queues_methods_are_found_and_close_and_size_only_on_a_queue(tmp_path):
    calls = [(c.line, c.api, c.kind) for c in scan(tmp_path, QUEUE_METHODS).calls]
    assert calls == [(2, "FIFOQueue", "queue"), (3, "queue.enqueue", "queue_op"),
                     (4, "queue.enqueue_many", "queue_op"), (5, "queue.dequeue", "batch"),
                     (6, "queue.dequeue_many", "batch"), (7, "queue.dequeue_up_to", "batch"),
                     (8, "queue.size", "queue_op"), (9, "queue.close", "queue_op")]
    forms = {c.api: scanner.form(c) for c in scan(tmp_path, QUEUE_METHODS).calls}
    assert forms["queue.dequeue_many"] == [".batch(4, drop_remainder=True)"]
    assert forms["queue.dequeue_up_to"] == [".batch(4)"]


PYTHON_FED = """import tensorflow as tf
triplets = tf.placeholder(tf.string, [None, 3])
labels = tf.placeholder(tf.int64, [None, 3])
queue = tf.FIFOQueue(100000, [tf.string, tf.int64], shapes=[[3], [3]])
enqueue = queue.enqueue_many([triplets, labels])
batch = queue.dequeue_many(90)
for round in range(10):
    sess.run(enqueue, {triplets: mined(), labels: their_labels()})
"""


def test_a_queue_filled_from_python_is_the_source_not_a_prefetch(tmp_path):
    (pipeline,) = scanner.pipelines(scan(tmp_path, PYTHON_FED))
    sketch = scanner.sketch(pipeline)
    assert "dataset = (tf.data.Dataset.from_tensor_slices((triplets, labels))" in sketch
    assert "# FIFOQueue (line 4) is filled from Python (enqueue_many, line 5): it is the source" in sketch
    assert ".batch(90, drop_remainder=True)" in sketch and "from_tensor_slices(filenames)" not in sketch


BRANCHES = """import tensorflow as tf
files = tf.train.string_input_producer(["a.tfr"])
_, record = tf.TFRecordReader().read(files)
if shuffle:
    common = tf.RandomShuffleQueue(64, 16, [tf.string])
else:
    common = tf.FIFOQueue(64, [tf.string])
tf.train.add_queue_runner(tf.train.QueueRunner(common, [common.enqueue([record])] * 4))
batch = common.dequeue_many(8)
"""


def test_a_variable_holding_one_queue_or_another_gives_a_pipeline_per_branch(tmp_path):
    result = scan(tmp_path, BRANCHES)
    pipelines = [[f"{c.api}@{c.line}" for c in p] for p in scanner.pipelines(result)]
    assert pipelines == [
        ["string_input_producer@2", "TFRecordReader@3", "RandomShuffleQueue@5", "queue.dequeue_many@9",
         "queue.enqueue@8", "QueueRunner@8", "add_queue_runner@8"],
        ["string_input_producer@2", "TFRecordReader@3", "FIFOQueue@7", "queue.dequeue_many@9", "queue.enqueue@8",
         "QueueRunner@8", "add_queue_runner@8"]]
    assert ".shuffle(16)" in scanner.sketch(scanner.pipelines(result)[0])
    assert ".shuffle(" not in scanner.sketch(scanner.pipelines(result)[1]).split("TFRecordDataset")[1]


# --- notebooks, bad input, formats and exit status ----------------------------------------------------------
def notebook(path, *sources):
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources]), path)


def test_a_notebook_with_magics_and_a_broken_cell_is_still_reported(tmp_path):
    notebook(tmp_path / "old.ipynb", "%matplotlib inline\n!pip install tensorflow==1.15\nfiles = !ls *.tfr",
             "import tensorflow as tf\nq = tf.train.string_input_producer(files)", "def broken(:\n    pass",
             "%%bash\necho not python", "r = tf.TFRecordReader()\n_, v = r.read(q)\nb = tf.train.batch([v], 2)")
    result = scanner.scan_file(tmp_path / "old.ipynb", "old.ipynb")
    assert [(c.cell, c.line, c.api) for c in result.calls] == [(1, 2, "string_input_producer"),
                                                               (4, 1, "TFRecordReader"), (4, 3, "batch")]
    assert result.errors == [{"cell": 2, "line": 1, "message": "cannot parse: invalid syntax"}]
    assert len(scanner.pipelines(result)) == 1
    assert "ERROR old.ipynb, cell 2, line 1: cannot parse" in report.text([result])


def test_exit_status_and_a_syntax_error_named_with_its_line(tmp_path, capsys):
    (tmp_path / "plain.py").write_text("print('no TensorFlow here')\n")
    assert cli(["migrate", str(tmp_path / "plain.py")]) == 0
    (tmp_path / "old.py").write_text("import tensorflow as tf\nc = tf.train.Coordinator()\n")
    assert cli(["migrate", str(tmp_path / "plain.py"), str(tmp_path / "old.py")]) == 1
    (tmp_path / "bad.py").write_text("x = 1\ny = (\n")
    capsys.readouterr()
    assert cli(["migrate", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert f"ERROR {tmp_path / 'bad.py'}, line 2: cannot parse" in out
    assert "line 2: tf.train.Coordinator()  [coordinator]" in out  # the other files are still reported


def test_binary_file_missing_path_and_empty_folder(tmp_path, capsys):
    (tmp_path / "blob.py").write_bytes(b"\x00\x01\x02 binary")
    (tmp_path / "empty").mkdir()
    assert scanner.scan_file(tmp_path / "blob.py").errors == [{"line": 0,
                                                               "message": "not a text file (binary content)"}]
    assert cli(["migrate", str(tmp_path / "blob.py")]) == 2
    assert cli(["migrate", str(tmp_path / "nowhere")]) == 2
    capsys.readouterr()
    assert cli(["migrate", str(tmp_path / "empty")]) == 0
    captured = capsys.readouterr()
    assert "no .py or .ipynb files under" in captured.err and "0 file(s) scanned" in captured.out


def test_json_and_markdown_formats(tmp_path, capsys):
    (tmp_path / "old.py").write_text(PIPELINE)
    assert cli(["migrate", str(tmp_path), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["exit_status"] == 1 and found["counts"]["pipelines"] == 2
    call = next(c for c in found["files"][0]["calls"] if c["api"] == "shuffle_batch")
    assert call["line"] == 11 and call["args"] == ["[image]", "16", "200", "100", "num_threads=2"]
    path, anchor = call["proved_in"][0]["href"].split("#")
    assert (ROOT / path).exists() and anchor == api_map.anchor(call["proved_in"][0]["where"].split("#")[1])
    assert found["files"][0]["pipelines"][0]["note"] == report.SKETCH_NOTE
    assert cli(["migrate", str(tmp_path), "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert "| where | TF1 call | tf.data | pitfalls | proved in |" in markdown
    assert "```python\ndataset = (" in markdown and "**Pipeline 1:**" in markdown


def test_a_progress_bar_on_large_folders_only(tmp_path, capsys):
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text("x = 1\n")
    scanner.scan_paths([str(tmp_path)])
    assert "scanning" not in capsys.readouterr().err
    scanner.scan_paths([str(tmp_path)], progress_from=2)
    assert "scanning" in capsys.readouterr().err


# --- real pipelines written by others ------------------------------------------------------------------------
EXPECTED = json.loads((DATA / "expected.json").read_text())
SHA256 = {"magenta_sequence_example_lib.py": "c4d9b09cfa91142da5cc8f3a711abc8f206ed4c7b29a21b6995d5b1cd09515b8",
          "magenta_nsynth_reader.py": "2cd7386b3ffee353f2c1e0879ea3897aa6b1afcfdc67af5f42aadcb59e4f51b1",
          "tf_slim_parallel_reader.py": "98a8eb6905af61a5c24cf1778341f874b493b32c0f9d7f2e27162e705f99a72c",
          "tf_slim_queues.py": "8981e8c645a79af0562e115646b03de008c3c98538ddacee2148b9cc6fa60fcb"}


def test_the_real_files_are_the_published_ones_with_their_licence():
    assert sorted(EXPECTED) == sorted(SHA256) == sorted(p.name for p in DATA.glob("*.py"))
    for name, digest in SHA256.items():
        data = (DATA / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest
        assert b'Licensed under the Apache License, Version 2.0 (the "License")' in data
    assert "Apache License\n                           Version 2.0" in (DATA / "LICENSE").read_text()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_pipelines_give_their_reviewed_reports(name):
    result = scanner.scan_file(DATA / name)
    assert [[c.line, c.api, c.known] for c in result.calls] == EXPECTED[name]["calls"]
    assert [[f"{c.api}@{c.line}" for c in p] for p in scanner.pipelines(result)] == EXPECTED[name]["pipelines"]
    assert result.errors == []


# --- Python 2, feeds in every form, counts, files that are not Python ------------------------------------------
PYTHON2 = """import sys
import tensorflow as tf

def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=2)
    _, record = tf.TFRecordReader().read(queue)
    print "read", record
    return tf.train.batch([record], batch_size)

batch = inputs(["a.tfr"], 32)
try:
    tf.Session().run(batch)
except tf.errors.OutOfRangeError, e:
    print >>sys.stderr, "done", e
"""


def test_a_python_2_file_is_read_with_fissix_and_its_rewritten_lines_named(tmp_path, capsys):
    result = scan(tmp_path, PYTHON2)
    assert result.errors == [] and result.python2 == {-1: [7, 13, 14]}
    assert found(result) == [(5, "string_input_producer", True), (6, "TFRecordReader", True), (8, "batch", True)]
    assert [[c.api for c in p] for p in scanner.pipelines(result)] == [["string_input_producer", "TFRecordReader",
                                                                       "batch"]]
    assert "note: read as Python 2 (fissix, the lib2to3 fork, rewrote the syntax Python 3 cannot parse): lines 7, " \
           "13, 14" in report.text([result])
    assert json.loads(report.as_json([result]))["files"][0]["python2"] == {"-1": [7, 13, 14]}
    assert report.summary_line([result]).startswith("1 file(s) scanned (1 read as Python 2): 3 call(s) listed")
    broken = scan(tmp_path, PYTHON2 + "def broken(:\n    pass\n", "broken.py")  # neither Python 3 nor 2
    assert broken.python2 == {} and broken.errors[0]["message"].startswith("cannot parse")


FEEDS = """import tensorflow as tf
x = tf.placeholder(tf.float32)
op = x * 2
sess = tf.Session()
feed = {x: 1.0}
sess.run(op, {x: 1.0})
sess.run(op, feed)
with tf.compat.v1.Session() as s:
    s.run([op], feed)
sv = tf.train.Supervisor()
with sv.managed_session() as managed:
    managed.run(op, feed)
op.eval({x: 3.0})
sess.run(op, feed_dict=feed)
sess.run(op, feed_dict=None)
sess.run(op, None)
sess.run(op)
runner.run(op, feed)
op.eval()
"""


def test_a_feed_is_found_by_keyword_by_position_and_as_a_variable_but_not_when_it_is_none(tmp_path):
    result = scan(tmp_path, FEEDS)
    feeds = [(c.line, c.args["feed_dict"]) for c in result.calls if c.api == "feed_dict"]
    assert feeds == [(6, "{x: 1.0}"), (7, "feed"), (9, "feed"), (12, "feed"), (13, "{x: 3.0}"), (14, "feed")]


def test_the_summary_counts_every_call_it_lists(tmp_path):
    result = scan(tmp_path, "import tensorflow as tf\nq = tf.train.string_input_producer(['a.jpg'])\n"
                            "_, v = tf.WholeFileReader().read(q)\nimage = tf.image.decode_jpeg(v)\n"
                            "b = tf.train.batch([image], 4)\n")
    listed = [line for line in report.text([result]).splitlines() if line.startswith("  line ")]
    assert len(listed) == len(result.calls) == 4
    assert "4 call(s) listed, 3 TF1 input call(s) in 1 file(s) (1 unknown) and 1 op(s) that keep their form" in \
        report.summary_line([result])


def test_a_file_named_that_is_not_python_is_warned_about_in_one_line(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("import tensorflow as tf\nc = tf.train.Coordinator()\n")
    (tmp_path / "old.py").write_text("import tensorflow as tf\nc = tf.train.Coordinator()\n")
    assert cli(["migrate", str(tmp_path / "notes.txt"), str(tmp_path / "old.py"), str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"warning: {tmp_path / 'notes.txt'} is not a .py or .ipynb file: read as "
                                        "Python"]


TF1_NAMES = """import tensorflow as tf
q = tf.train.string_input_producer(["a.tfr"], num_epochs=2)
_, v = tf.TFRecordReader().read(q)
f = tf.parse_single_example(v, features={"x": tf.FixedLenFeature([], tf.string), "y": tf.VarLenFeature(tf.int64)})
image = tf.decode_raw(f["x"], tf.uint8)
b = tf.train.shuffle_batch([image], 32, 1000, 100)
"""


def test_every_tensorflow_name_in_a_sketch_resolves_in_the_installed_tensorflow(tmp_path):
    """Sketches are written in TF 2 names (TensorFlow's own renames table): each `tf.` name in every sketch of the
    files here exists in the installed TensorFlow, while the TF1 names they replace do not."""
    import tensorflow as tf

    def resolves(name: str) -> bool:
        found = tf
        for part in name.split(".")[1:]:
            found = getattr(found, part, None)
            if found is None:
                return False
        return True

    sketches = [scanner.sketch(p) for name in sorted(EXPECTED)
                for p in scanner.pipelines(scanner.scan_file(DATA / name))]
    sketches += [scanner.sketch(p) for name in sorted(CORPUS_EXPECTED)
                 for p in scanner.pipelines(scanner.scan_file(CORPUS / name))]
    for i, code in enumerate([TF1_NAMES, PYTHON2, PYTHON_FED, BRANCHES, QUEUE_METHODS]):
        sketches += [scanner.sketch(p) for p in scanner.pipelines(scan(tmp_path, code, f"case{i}.py"))]
    sketches += [scanner.sketch(p) for path in sorted(NOTEBOOKS.glob("0*.ipynb"))
                 for p in scanner.pipelines(scanner.scan_file(path))]  # the course's own TF1 code
    for sketch in sketches:
        ast.parse(sketch)  # valid Python: code the tool cannot write is a named function, noted
    names = {name for sketch in sketches for name in scanner.TF_NAME.findall(sketch)}
    assert {"tf.io.FixedLenFeature", "tf.io.VarLenFeature", "tf.io.decode_raw", "tf.io.parse_single_example"} <= names
    assert sorted(name for name in names if not resolves(name)) == []
    assert not any(resolves(old) for old in ("tf.FixedLenFeature", "tf.decode_raw", "tf.parse_single_example"))


def _join_form(tmp_path, tensors_list_code: str) -> list[str]:
    code = ("import tensorflow as tf\nq = tf.train.string_input_producer(files)\n" + tensors_list_code
            + "\nb = tf.train.batch_join(copies, batch_size=32)\n")
    join = next(c for c in scan(tmp_path, code).calls if c.api == "batch_join")
    return scanner.form(join)


@pytest.mark.parametrize("code, parallel", [
    ("copies = []\nfor _ in range(4):\n    v = tf.TFRecordReader().read(q)[1]\n    copies.append([v])", "4"),
    ("copies = [[tf.TFRecordReader().read(q)[1]] for _ in range(threads)]", "threads"),
    ("copies = [[tf.TFRecordReader().read(q)[1]]] * 4", "4"),
    ("copies = [[tf.TFRecordReader().read(f)[1]] for f in queues]", None),
    ("copies = []\nfor i in range(4):\n    copies.append([tf.TFRecordReader().read(qs[i])[1]])", None),
], ids=["loop without its counter", "comprehension", "list times n", "one reader per queue", "loop using i"])
def test_alike_copies_given_to_batch_join_become_a_parallel_map_and_different_readers_an_interleave(
        tmp_path, code, parallel):
    steps = _join_form(tmp_path, code)
    if parallel:
        assert steps[0] == f".map(<the work each of the {parallel} copies did>, num_parallel_calls={parallel})"
        assert not any(s.startswith(".interleave(") for s in steps)
    else:
        assert steps[0].startswith(".interleave(<one reader per element of copies>")


def test_runners_started_by_a_supervisor_or_a_monitored_session_are_said(tmp_path):
    result = scan(tmp_path, "import tensorflow as tf\nsv = tf.train.Supervisor(logdir='x')\n"
                            "s = tf.compat.v1.train.MonitoredTrainingSession(checkpoint_dir='x')\n")
    assert [(c.api, c.kind, c.known) for c in result.calls] == [("Supervisor", "runner", True),
                                                                ("MonitoredTrainingSession", "runner", True)]
    said = [p for c in result.calls for p in scanner.pitfalls(c)]
    assert "start the graph's queue runners for you" in said[0] and "starts the queue runners" in said[1]


def test_a_batch_size_fed_at_run_time_becomes_an_argument_with_its_reason(tmp_path):
    code = ("import tensorflow as tf\nsize = tf.placeholder(tf.int32)\nq = tf.train.string_input_producer(files)\n"
            "_, v = tf.TFRecordReader().read(q)\nb = tf.train.batch([v], batch_size=size)\n"
            "c = tf.train.batch([v], batch_size=64)\n")
    fed, fixed = [c for c in scan(tmp_path, code).calls if c.api == "batch"]
    assert ".batch(batch_size, drop_remainder=True)" in scanner.form(fed)
    assert any("the batch size was fed at run time (`size` is a placeholder)" in p for p in scanner.pitfalls(fed))
    assert ".batch(64, drop_remainder=True)" in scanner.form(fixed)
    assert not any("fed at run time" in p for p in scanner.pitfalls(fixed))
    assert fed.shown == ["[v]", "batch_size=size"]  # the call is still shown as written


REPEATED = """import tensorflow as tf
files = tf.train.string_input_producer(["a.tfr", "b.tfr"], num_epochs=3, shuffle=True)
_, record = tf.TFRecordReader().read(files)
features = tf.parse_single_example(record, {"x": tf.FixedLenFeature([4], tf.float32)})
batch = tf.train.shuffle_batch([features["x"]], 16, 1000, 100)
repeated = tf.tile(batch, [nb_repeat, 1])
queue = tf.FIFOQueue(200, [tf.float32], shapes=[[4]])
enqueue = queue.enqueue_many([repeated])
tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue]))
out = queue.dequeue_many(16)
"""


def test_batches_repeated_into_a_queue_keep_their_repetition_and_the_sketch_runs(tmp_path, monkeypatch):
    """Each shuffled batch tiled `nb_repeat` times and enqueued with enqueue_many: the sketch repeats each batch
    (a flat_map), not a prefetch; run on two small TFRecord files, it yields every batch twice in a row."""
    import tensorflow as tf

    (pipeline,) = scanner.pipelines(scan(tmp_path, REPEATED))
    enqueue = next(c for c in pipeline if c.api == "queue.enqueue_many")
    assert any("each value is repeated nb_repeat times" in p for p in scanner.pitfalls(enqueue))
    sketch = scanner.sketch(pipeline)
    assert ".flat_map(lambda *value: tf.data.Dataset.from_tensors(value).repeat(nb_repeat))\n    .unbatch()" in sketch
    monkeypatch.chdir(tmp_path)
    for i, name in enumerate(["a.tfr", "b.tfr"]):
        with tf.io.TFRecordWriter(name) as writer:
            for j in range(16):
                x = tf.train.Feature(float_list=tf.train.FloatList(value=[100 * i + j] * 4))
                writer.write(tf.train.Example(features=tf.train.Features(feature={"x": x})).SerializeToString())
    namespace = {"tf": tf, "nb_repeat": 2}
    exec(sketch, namespace)  # the sketch as the report prints it
    batches = [b[0].numpy() for b in namespace["dataset"]]  # the element is the batched tensor itself, as in TF1
    assert len(batches) == 2 * (2 * 16 * 3 // 16)  # 3 epochs of 32 records in batches of 16, each twice
    assert all((batches[k] == batches[k + 1]).all() for k in range(0, len(batches), 2))
    assert not (batches[0] == batches[2]).all()


PART_SHUFFLED = """import tensorflow as tf
files = tf.train.string_input_producer(["a.tfr"], num_epochs=1)
_, record = tf.TFRecordReader().read(files)
parsed = tf.parse_single_example(record, {"image": tf.FixedLenFeature([], tf.string),
                                          "other": tf.FixedLenFeature([], tf.string)})
image, other = parsed["image"], parsed["other"]
mixer = tf.RandomShuffleQueue(1000, 100, [tf.string], shapes=[[]])
tf.train.add_queue_runner(tf.train.QueueRunner(mixer, [mixer.enqueue([other])]))
batch = tf.train.batch([image, mixer.dequeue()], 32)
"""


def test_a_queue_that_shuffles_one_output_alone_is_said_not_turned_into_a_shuffle_of_the_element(tmp_path):
    (pipeline,) = scanner.pipelines(scan(tmp_path, PART_SHUFFLED))
    sketch = scanner.sketch(pipeline)
    assert "# RandomShuffleQueue (line 7) shuffles only what its enqueue puts in ([other]), apart from the rest" in \
        sketch and "tf.data.Dataset.zip((rest, part.shuffle(100)))" in sketch
    assert ".shuffle(100)\n" not in sketch  # the whole element is not shuffled in its place
    # Magenta's queue shuffles the whole element, in one branch of an if: no such note there
    magenta = scanner.pipelines(scanner.scan_file(DATA / "magenta_sequence_example_lib.py"))
    assert not any("shuffles only" in scanner.sketch(p) for p in magenta)
    assert any(".shuffle(" in scanner.sketch(p).split("parse_single_sequence_example")[1] for p in magenta)


def test_a_padding_queue_read_by_dequeue_many_is_one_padded_batch(tmp_path):
    code = ("import tensorflow as tf\nq = tf.PaddingFIFOQueue(100, [tf.int32], shapes=[[None]])\n"
            "q.enqueue_many([sequences])\nb = q.dequeue_many(8)\n")
    (pipeline,) = scanner.pipelines(scan(tmp_path, code))
    sketch = scanner.sketch(pipeline)
    assert ".padded_batch(8, drop_remainder=True)" in sketch and ".batch(" not in sketch


# --- the corpus written for these tests: recall, precision, pipelines and advice ----------------------------------
CORPUS = Path(__file__).resolve().parent / "data" / "migrate_corpus"
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CORPUS_EXPECTED = json.loads((CORPUS / "expected.json").read_text())


def test_the_corpus_reports_every_call_with_full_recall_and_precision(capsys):
    assert len(CORPUS_EXPECTED) >= 12 and sorted(CORPUS_EXPECTED) == sorted(p.name for p in CORPUS.glob("*.py"))
    expected, found = set(), set()
    for name, want in CORPUS_EXPECTED.items():
        result = scanner.scan_file(CORPUS / name)
        expected |= {(name, line, api) for line, api in want["calls"]}
        found |= {(name, c.line, c.api) for c in result.calls}
        assert result.errors == [], (name, result.errors)
    recall, precision = len(expected & found) / len(expected), len(expected & found) / len(found)
    with capsys.disabled():
        print(f"\nmigration corpus: {len(CORPUS_EXPECTED)} files, {len(expected)} calls expected, {len(found)} found: "
              f"recall {100 * recall:.0f}%, precision {100 * precision:.0f}%")
    assert sorted(expected - found) == [] and sorted(found - expected) == []


@pytest.mark.parametrize("name", sorted(CORPUS_EXPECTED))
def test_each_corpus_file_gives_its_reviewed_pipelines_and_advice(name):
    result = scanner.scan_file(CORPUS / name)
    assert [[f"{c.api}@{c.line}" for c in p] for p in scanner.pipelines(result)] == CORPUS_EXPECTED[name]["pipelines"]
    said = report.text([result])
    missing = [advice for advice in CORPUS_EXPECTED[name]["advice"] if advice not in said]
    assert missing == [], f"{name}: the report does not say {missing}"


# --- sketches called equivalent, run beside their TF1 pipelines on the same small files -------------------------
def write_tfrecords(path: Path, features: list[dict]) -> None:
    """Write tf.train.Examples: each feature an int list, a float list or bytes."""
    import tensorflow as tf

    def feature(value):
        if isinstance(value, bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))
        if isinstance(value[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=value))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=value))

    with tf.io.TFRecordWriter(str(path)) as writer:
        for example in features:
            proto = tf.train.Example(features=tf.train.Features(feature={k: feature(v) for k, v in example.items()}))
            writer.write(proto.SerializeToString())


def csv_text(rows: int, start: int, values: int = 2) -> str:
    """A CSV file with a header and `rows` rows of a label and `values` numbers (all distinct)."""
    header = ",".join(["label", *"ab"[:values]])
    return header + "\n" + "".join(",".join([str(start + i), f"{start + i}.25", f"{-(start + i)}.5"][:values + 1])
                                   + "\n" for i in range(rows))


def records(count: int, start: int) -> list[dict]:
    """Examples with an image of 4 bytes, a label and 8 floats, all distinct."""
    return [{"image": bytes([(start + i) % 256, i, 7, 9]), "label": [start + i], "x": [float(start + i)] * 8}
            for i in range(count)]


# Per corpus file whose sketch the report calls equivalent: the small files both pipelines read, the names the code
# leaves to its caller (also given to the sketch), where the TF1 pipeline ends (a name the file binds, or a call of
# its function), how many examples the run yields, and whether both promise an order (neither shuffles).
EQUIVALENT_RUNS = {
    "csv_epochs.py": {"files": {"train.csv": csv_text(50, 0), "valid.csv": csv_text(30, 100)}, "output": "batch",
                      "examples": 2 * 80, "ordered": True},
    "supervised_runners.py": {"files": {"a.csv": csv_text(25, 0, values=1)}, "output": "batch", "examples": 20,
                              "ordered": True},
    "py2_reader.py": {"files": {"a.tfr": records(16, 0), "b.tfr": records(16, 100)}, "output": "batch",
                      "names": {"files": ["a.tfr", "b.tfr"], "batch_size": 32}, "examples": 2 * 32},
    "tf1_names_records.py": {"files": {"train.tfr": records(32, 0)}, "output": "images, labels", "examples": 3 * 32},
    "repeated_batches.py": {"files": {"a.tfr": records(10, 0), "b.tfr": records(10, 100)},
                            "output": "batches(files, batch_size)", "names": {"files": ["a.tfr", "b.tfr"],
                                                                               "batch_size": 10},
                            "examples": 5 * 20 * 3},
}


def corpus_code(name: str) -> str:
    """Return a corpus file's code as Python 3 (a Python 2 file as the scanner reads it)."""
    text = (CORPUS / name).read_text()
    return scanner.as_python3(text)[0] if name in ("py2_reader.py",) else text


def example_rows(batches: list) -> list[tuple]:
    """Return every example of a run's batches (an array, or a tuple of arrays), each as a tuple of its values."""
    rows = []
    for batch in batches:
        parts = list(batch) if isinstance(batch, list | tuple) else [batch]
        rows += [tuple(repr(np.asarray(part[i]).tolist()) for part in parts) for i in range(len(parts[0]))]
    return rows


def run_tf1(name: str, run: dict) -> list[tuple]:
    """Build the corpus file's TF1 graph (its statements until the output is bound), run it to the end of its
    epochs with its queue runners, and return its examples."""
    import tensorflow as tf

    from tutorial_lib import tf1

    names = [n.strip() for n in run["output"].split(",")]
    with tf.Graph().as_default():
        namespace = dict(run.get("names", {}))
        for statement in ast.parse(corpus_code(name)).body:
            if names[0].isidentifier() and all(n in namespace for n in names):
                break
            if isinstance(statement, ast.Import | ast.ImportFrom):
                namespace["tf"] = tf.compat.v1  # `import tensorflow as tf`, as TF1 code meant it
                continue
            exec(compile(ast.Module([statement], []), name, "exec"), namespace)
        output = eval(run["output"], namespace)
        return example_rows(tf1.drain(output))


def run_sketch(sketch: str, name: str, run: dict) -> list[tuple]:
    """Run a sketch as the report prints it (with the file's constants and the caller's names); return its
    examples."""
    import tensorflow as tf

    constants = {t.id: ast.literal_eval(s.value) for s in ast.parse(corpus_code(name)).body
                 if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) for t in s.targets}
    namespace = {"tf": tf, **constants, **run.get("names", {})}
    exec(sketch, namespace)
    return example_rows(list(namespace["dataset"].as_numpy_iterator()))


def write_run_files(folder: Path, run: dict) -> None:
    """Write the small files a run reads."""
    for file, content in run["files"].items():
        if isinstance(content, str):
            (folder / file).write_text(content)
        else:
            write_tfrecords(folder / file, content)


def test_the_files_called_equivalent_are_the_ones_run_beside_tf1():
    """The report calls a corpus sketch equivalent exactly where this module runs it beside its TF1 pipeline."""
    called = {name for name in CORPUS_EXPECTED for p in scanner.pipelines(scanner.scan_file(CORPUS / name))
              if not scanner.not_equivalent(p)}
    assert called == set(EQUIVALENT_RUNS)


def test_every_call_and_argument_an_equivalent_sketch_may_have_is_run_beside_tf1():
    """table.CHECKED lists what an equivalent pipeline may contain; each call and argument in it occurs in a corpus
    pipeline run beside TF1 below, so none is claimed unrun."""
    seen = set()
    for name in EQUIVALENT_RUNS:
        for pipeline in scanner.pipelines(scanner.scan_file(CORPUS / name)):
            seen |= {(c.api, arg) for c in pipeline for arg in ("*", *c.args)}
    claimed = {(api, arg) for api, args in table.CHECKED.items() for arg in args}
    claimed |= {(api, "*") for api in table.CHECKED}
    assert sorted(claimed - seen) == [], "claimed equivalent, never run beside TF1"


@pytest.mark.parametrize("name", sorted(EQUIVALENT_RUNS))
def test_an_equivalent_sketch_yields_the_tf1_pipelines_examples(name, tmp_path, monkeypatch):
    """The TF1 pipeline (tf.compat.v1 graph, queue runners) and the report's sketch read the same small files to the
    end of their epochs: the same examples, as multisets, and in the same order where neither shuffles."""
    run = EQUIVALENT_RUNS[name]
    monkeypatch.chdir(tmp_path)
    write_run_files(tmp_path, run)
    (pipeline,) = scanner.pipelines(scanner.scan_file(CORPUS / name))
    tf1_rows, sketch_rows = run_tf1(name, run), run_sketch(scanner.sketch(pipeline), name, run)
    assert len(tf1_rows) == run["examples"]
    assert Counter(sketch_rows) == Counter(tf1_rows)
    if run.get("ordered"):
        assert sketch_rows == tf1_rows


def test_the_comparison_sees_a_lost_epoch_and_a_changed_order(tmp_path, monkeypatch):
    """The comparison above fails for a sketch that is wrong: one epoch instead of two (the multisets differ), and
    a shuffle the TF1 pipeline did not make (same multiset, another order)."""
    run = EQUIVALENT_RUNS["csv_epochs.py"]
    monkeypatch.chdir(tmp_path)
    write_run_files(tmp_path, run)
    (pipeline,) = scanner.pipelines(scanner.scan_file(CORPUS / "csv_epochs.py"))
    sketch, tf1_rows = scanner.sketch(pipeline), run_tf1("csv_epochs.py", run)
    assert ".repeat(2)" in sketch and ".map(per_record)" in sketch
    one_epoch = run_sketch(sketch.replace(".repeat(2)", ".repeat(1)"), "csv_epochs.py", run)
    assert Counter(one_epoch) != Counter(tf1_rows)
    shuffled = run_sketch(sketch.replace(".map(per_record)", ".map(per_record).shuffle(200, seed=1)"),
                          "csv_epochs.py", run)
    assert Counter(shuffled) == Counter(tf1_rows) and shuffled != tf1_rows


@pytest.mark.parametrize("code, reason", [
    ("key, value = tf.TFRecordReader().read(q)\nb = tf.train.batch([key, value], 4)\n", "takes the reader's key"),
    ("_, value = tf.TFRecordReader().read(q)\nfor i in range(2):\n    value = tf.identity(value)\n"
     "b = tf.train.batch([value], 4)\n", "inside a for statement"),
    ("_, value = tf.TFRecordReader().read(q)\nm = tf.RandomShuffleQueue(10, 2, [tf.string])\n"
     "b = tf.train.batch([value, m.dequeue()], 4)\n", "include RandomShuffleQueue"),
    ("def read(q):\n    return tf.TFRecordReader().read(q)[1]\nb = tf.train.batch([read(q)], 4)\n",
     "not read in the same function"),
    ("_, value = tf.TFRecordReader().read(q)\nempty = value != ''\nb = tf.train.batch([value, empty], 4)\n",
     "compares with == or !="),
])
def test_per_record_ops_that_cannot_be_moved_say_why(tmp_path, code, reason):
    """The ops between the reader and the batch become one function only when they are plain assignments in the
    batch's own block, use the record and not its key, and hold no queue; otherwise the report says why."""
    result = scan(tmp_path, "import tensorflow as tf\nq = tf.train.string_input_producer(['a'], num_epochs=1)\n"
                  + code)
    (pipeline,) = scanner.pipelines(result)
    assert any(reason in r for r in scanner.not_equivalent(pipeline)), scanner.not_equivalent(pipeline)
    assert "per_record" not in scanner.sketch(pipeline)


def test_moved_ops_take_tf2_names_and_arguments(tmp_path):
    """Moved statements are written as TF 2 expects them: names from TensorFlow's renames, arguments TF 2 reordered
    passed by keyword (decode_csv's 5th is `name` in TF1), keywords TF 2 renamed (decode_raw's `bytes`)."""
    result = scan(tmp_path, "import tensorflow as tf\nq = tf.train.string_input_producer(['a'], num_epochs=1)\n"
                  "_, line = tf.TextLineReader().read(q)\n"
                  "a, b = tf.decode_csv(line, [[0], ['']], ',', True, 'csv')\n"
                  "c = tf.decode_raw(bytes=b, out_type=tf.uint8)\n"
                  "batch = tf.train.batch([a, c], 2)\n")
    (pipeline,) = scanner.pipelines(result)
    sketch = scanner.sketch(pipeline)
    assert "a, b = tf.io.decode_csv(line, [[0], ['']], ',', True, name='csv')" in sketch
    assert "c = tf.io.decode_raw(input_bytes=b, out_type=tf.uint8)" in sketch
    assert "def per_record(line):  # lines 4-5 of the file, run on each record" in sketch
    assert ".map(per_record)" in sketch and "return (a, c)" in sketch


def test_the_report_says_equivalent_or_why_a_sketch_may_differ(tmp_path, capsys):
    """Text, Markdown and JSON say which sketches are equivalent, and for the others each reason."""
    equivalent, other = CORPUS / "csv_epochs.py", CORPUS / "part_shuffled.py"
    said = report.text([scanner.scan_file(equivalent), scanner.scan_file(other)])
    assert f"tf.data ({report.EQUIVALENT_NOTE}):" in said and f"tf.data ({report.SKETCH_NOTE}):" in said
    assert "may differ from TF1: the RandomShuffleQueue (line 9) shuffles part of each element" in said
    assert said.count("may differ from TF1") == len(scanner.not_equivalent(
        scanner.pipelines(scanner.scan_file(other))[0]))
    data = json.loads(report.as_json([scanner.scan_file(equivalent), scanner.scan_file(other)]))
    assert [p["equivalent"] for f in data["files"] for p in f["pipelines"]] == [True, False]
    assert "- may differ from TF1: " in report.markdown([scanner.scan_file(other)])
