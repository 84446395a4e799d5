"""Trusted grading, the boundary's data (tutorial_lib.grading.codec, tfdata, remote): plain data only across it,
TensorFlow values and datasets as data, checkers that behave the same on remote answers, and the exercises whose
answers hand over datasets judged by the grader in a real sealed grading (tests/test_grading.py: the seal and the
red-team suite)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from tutorial_lib.grading import classroom, codec, remote, seal, tfdata
from tutorial_lib.grading.worker import is_test

ROOT = Path(__file__).resolve().parents[1]


# --- plain data -------------------------------------------------------------------------------------------------

def test_plain_values_cross_as_themselves():
    values = [None, True, 3, -2**70, 1.5, float("nan"), "text", b"\x00\xff", [1, (2, 3)], {4: "four", "k": [5]},
              {1, 2}, range(2, 9, 3), np.arange(6, dtype=np.int32).reshape(2, 3), np.float32(2.5), np.bool_(True),
              np.array(["a", "bc"])]
    for value in values:
        back = codec.decode(codec.encode(value))
        assert type(back) is type(value), (value, back)
        if isinstance(value, np.ndarray):
            assert back.dtype == value.dtype and np.array_equal(back, value)
        elif value == value:  # not NaN
            assert back == value


def test_objects_that_lie_arrive_as_stand_ins_without_their_lies():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    class Whole(int):
        def __eq__(self, other):
            return True

    class Liar(dict):
        def __len__(self):
            return 10**6

    for liar in (AlwaysEqual(), Whole(0), Liar(), [AlwaysEqual()]):
        back = codec.decode(codec.encode(liar))
        inner = back[0] if isinstance(back, list) else back
        assert isinstance(inner, codec.StandIn), back
        assert inner != 0 and inner != {} and inner != inner.__class__()
        assert type(inner).__name__ == type(liar if not isinstance(liar, list) else liar[0]).__name__


@pytest.mark.parametrize("text", ['{"A": ["|O", [1], [1]]}', '{"A": ["<i8", [2], [1]]}', '{"N": ["<f8", [1]]}',
                                  '{"Q": 1}', '[1, 2]', '{"D": [[1]]}', '{"R": ["Molecule", {"x": 1}]}',
                                  '{"I": 5}', "not json", '{"ARG": 0}'])
def test_anything_else_is_refused(text):
    with pytest.raises(codec.DecodeError):
        codec.decode(text)


def test_datasets_cross_as_the_elements_they_yield_and_end_as_they_ended():
    from tutorial_lib.env import import_tensorflow
    from tutorial_lib.exercises.core import allows_reordering

    tf = import_tensorflow()
    pairs = tf.data.Dataset.from_tensor_slices((np.arange(10, dtype=np.uint8).reshape(5, 2), np.arange(5))).batch(2)
    back = codec.decode(codec.encode(pairs))
    assert isinstance(back, tf.data.Dataset) and back.element_spec == pairs.element_spec
    assert [[a.tolist(), b.tolist()] for a, b in back.as_numpy_iterator()] == \
        [[a.tolist(), b.tolist()] for a, b in pairs.as_numpy_iterator()]
    endless = codec.decode(codec.encode(tf.data.Dataset.range(3).repeat()))
    assert len(list(endless.take(tfdata.DATASET_ITEMS).as_numpy_iterator())) == tfdata.DATASET_ITEMS
    with pytest.raises(tf.errors.InvalidArgumentError, match="read only the first"):
        list(endless.as_numpy_iterator())
    lines = tf.data.Dataset.from_tensor_slices(["1,2", "p0,3"]).map(lambda line: tf.io.decode_csv(line, [[0], [0]]))
    failing = codec.decode(codec.encode(lines))
    with pytest.raises(tf.errors.InvalidArgumentError, match="p0"):  # the pipeline's own error, where it came
        list(failing.as_numpy_iterator())
    reordering = tf.data.Dataset.range(4).map(lambda x: x + 1, num_parallel_calls=2, deterministic=False)
    assert allows_reordering(codec.decode(codec.encode(reordering)))  # its stages, read from the graph it sent
    assert not allows_reordering(codec.decode(codec.encode(tf.data.Dataset.range(4).map(lambda x: x + 1))))
    defaults = codec.decode(codec.encode([tf.string, tf.constant([], tf.int32), [-99.0], tf.constant("a")]))
    assert defaults[0] == tf.string and defaults[1].dtype == tf.int32 and defaults[1].shape == [0]
    assert defaults[3].numpy() == b"a"


def test_reading_in_batches_gives_the_elements_and_the_end_of_reading_one_by_one(monkeypatch):
    from tutorial_lib.env import import_tensorflow

    tf = import_tensorflow()
    images = np.arange(700 * 6, dtype=np.uint8).reshape(700, 2, 3)
    cases = {"range": tf.data.Dataset.range(600), "exactly the limit": tf.data.Dataset.range(300),
             "pairs": tf.data.Dataset.from_tensor_slices((images, np.arange(700))),
             "dicts": tf.data.Dataset.from_tensor_slices({"x": images, "y": np.arange(700.0)}).batch(7, True),
             "endless": tf.data.Dataset.range(5).repeat(), "bytes": tf.data.Dataset.from_tensor_slices(images)}
    monkeypatch.setattr(tfdata, "DATASET_ITEMS", 300)
    for name, dataset in cases.items():
        if name == "bytes":
            monkeypatch.setattr(tfdata, "DATASET_BYTES", 6 * 100 + 1)  # crossed by the 101st element
        batched, one_by_one = tfdata._read_in_batches(dataset, tf), tfdata._read_one_by_one(dataset, tf)
        assert batched[1:] == one_by_one[1:], name  # ended, error
        assert len(batched[0]) == len(one_by_one[0]) == {"range": 300, "bytes": 101, "dicts": 100}.get(name, 300)
        for got, want in zip(batched[0], one_by_one[0], strict=True):
            assert all(np.array_equal(a, b) for a, b in zip(tf.nest.flatten(got), tf.nest.flatten(want), strict=True))
            assert tf.nest.map_structure(lambda _: 0, got) == tf.nest.map_structure(lambda _: 0, want), name
    assert tfdata._read_one_by_one(cases["exactly the limit"], tf)[1] is False  # at the limit: not known to end
    lines = tf.data.Dataset.from_tensor_slices(["1,2", "p0,3"]).map(lambda line: tf.io.decode_csv(line, [[0], [0]]))
    assert tfdata._read_in_batches(lines, tf) is None  # an error: read again one by one, to keep what came before
    elements, ended, error = tfdata._read_one_by_one(lines, tf)
    assert len(elements) == 1 and ended is False and error[0] == "InvalidArgumentError"
    assert tfdata._read_in_batches(tf.data.Dataset.from_tensor_slices(["a", "bb"]), tf) is None  # sizes may differ


def test_a_dataset_that_disagrees_with_its_own_spec_or_a_file_outside_its_folder_is_refused(tmp_path):
    from tutorial_lib.env import import_tensorflow

    tf = import_tensorflow()
    sent = json.loads(codec.encode(tf.data.Dataset.range(3)))
    for item in ({"AB": ["<i4", [], "AAAAAA=="]}, {"T": [{"AB": ["<i8", [], "AAAAAAAAAAA="]}]}, {"X": "Liar"}):
        sent["DS"]["items"][0] = item
        with pytest.raises(codec.DecodeError):
            codec.decode(json.dumps(sent))
    shipped = tmp_path / "inputs"
    for folder, name in [("..", "x"), ("a", "../x"), ("a", ""), ("a/b", "x")]:
        with pytest.raises(codec.DecodeError):
            codec.decode(json.dumps({"FILE": [folder, name, ""]}), (), shipped)
    with pytest.raises(codec.DecodeError):  # files are written only on the kernel's side
        codec.decode(json.dumps({"FILE": ["a", "x", ""]}))
    assert not shipped.exists()


def test_a_reply_counts_only_on_its_own_nonce():
    nonce = remote.new_nonce()
    forged = '@@grader-0000@@{"result": "{\\"I\\": \\"1\\"}"}\n'
    assert remote.parse_reply(forged + nonce + '{"result": "2"}\n', nonce) == {"result": "2"}
    with pytest.raises(remote.GradingError):
        remote.parse_reply(forged, nonce)


# --- remote checking is the same checking -------------------------------------------------------------------------

def _remote_verdict(checker, answer) -> tuple[bool, str]:
    """The checker's verdict and feedback when the answer runs behind the JSON boundary."""
    printed = io.StringIO()
    transport = remote.loopback({"answer": answer})
    with contextlib.redirect_stdout(printed):
        if remote.REMOTE[checker.__name__] == "value":
            verdict = checker(remote.remote_value("answer", transport))
        else:
            files = remote.REMOTE[checker.__name__] == "files"
            verdict = checker(remote.RemoteAnswer("answer", transport, files=files))
    return verdict.passed, printed.getvalue()


def test_every_remote_checker_takes_right_answers_and_rejects_mutants_with_their_hints():
    from tutorial_lib.exercises import mutation

    cases = mutation.load_cases(ROOT / "tests")
    seen, problems = set(), []
    rows = [(row, True) for row in cases.right] + [(row, False) for row in cases.mutants]
    for row, right in rows:  # (rows hold tensors: never compared with ==)
        checker = mutation.checker_function(row[0])
        if checker.__name__ not in remote.REMOTE:
            continue
        seen.add(checker.__name__)
        passed, feedback = _remote_verdict(row[0], row[1])
        if right and not passed:
            problems.append(f"{checker.__name__}: right answer {row[2]!r} rejected: {feedback.strip()}")
        if not right and (passed or mutation.requirement(row[0], row[2]).hint not in feedback):
            problems.append(f"{checker.__name__}: mutant {row[2]!r} not rejected with its hint: {feedback.strip()}")
    assert seen == set(remote.REMOTE), set(remote.REMOTE) - seen
    assert not problems, "\n".join(problems)


# --- dataset exercises, judged by the grader from what the pipeline yielded ----------------------------------------

DATASET_SETUP = "import numpy as np\nimport tensorflow as tf\nfrom tutorial_lib import datasets, exercises, pipelines\n"
DATASET_RIGHT = {
    "record_defaults": ("check_record_defaults", "weather_defaults",
                        "weather_defaults = [[''], tf.constant([], tf.int32), [-99.0]]\n"),
    "csv_dataset": ("check_csv_dataset", "csv_dataset",
                    "def from_columns(label, *pixels):\n"
                    "    image = tf.reshape(tf.cast(tf.stack(pixels), tf.uint8), [28, 28, 1])\n"
                    "    return image, tf.cast(label, tf.int64)\n"
                    "\ndef csv_dataset(paths):\n"
                    "    columns = tf.data.experimental.CsvDataset(paths, [tf.int32] * 785, header=True)\n"
                    "    return columns.map(from_columns)\n"),
    "epoch_dataset": ("check_epoch_dataset", "epoch_dataset",
                      "def epoch_dataset(images, labels, batch_size, num_epochs, seed):\n"
                      "    dataset = tf.data.Dataset.from_tensor_slices((images, labels))\n"
                      "    return dataset.shuffle(len(labels), seed=seed).batch(batch_size).repeat(num_epochs)\n"),
    "translate": ("check_translation", "translate",
                  "def translate(files):\n"
                  "    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())\n"
                  "    return records.map(pipelines.decode_fixed_record).repeat(2).batch(32)\n"),
}
# Wrong answers that also replace, in their own kernel, every checker and the grader's in-kernel test runner with
# ones that say "passed": with the verdict decided there, this scored 4 of 4.
FORGE = ("import json, sys\nfrom tutorial_lib.exercises import core\n"
         "core.run_check = lambda title, check: core.Verdict(True, 'forged')\n"
         "sys.modules['tutorial_lib.grading.sandbox'].run_test = lambda source, nonce: print(nonce + json.dumps("
         "{'verdicts': [[True, 'forged']]}))\n")
DATASET_WRONG = {
    "record_defaults": "weather_defaults = [[''], [0], [-99.0]]\n" + FORGE,
    "csv_dataset": "def csv_dataset(paths):\n    return tf.data.TextLineDataset(paths).skip(1).map("
                   "pipelines.decode_csv_line)\n",
    "epoch_dataset": "def epoch_dataset(images, labels, batch_size, num_epochs, seed):\n"
                     "    dataset = tf.data.Dataset.from_tensor_slices((images, labels))\n"
                     "    return dataset.repeat(num_epochs).shuffle(len(labels), seed=seed).batch(batch_size)\n",
    "translate": "def translate(files):\n"
                 "    records = tf.data.FixedLengthRecordDataset(files, datasets.record_bytes())\n"
                 "    return records.map(pipelines.decode_fixed_record).batch(32).repeat(2)\n",
}


def _dataset_release(answers: dict[str, str]) -> nbformat.NotebookNode:
    """A release (or, with answers, a submission) of the four exercises whose answers hand the grader datasets or
    TensorFlow values."""
    cells = [nbformat.v4.new_code_cell(DATASET_SETUP)]
    for exercise, (checker, name, _) in DATASET_RIGHT.items():
        answer = nbformat.v4.new_code_cell(answers.get(exercise, f"{name} = None\n"))
        answer.metadata["nbgrader"] = {"solution": True, "grade": False, "locked": False, "grade_id": exercise,
                                       "schema_version": 3}
        test = nbformat.v4.new_code_cell(f"exercises.require(exercises.{checker}({name}))")
        test.metadata["nbgrader"] = {"solution": False, "grade": True, "locked": True, "points": 1,
                                     "grade_id": f"{exercise}_test", "schema_version": 3}
        cells += [answer, test]
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "language": "python",
                                                                          "display_name": "Python 3"}})


def test_dataset_exercises_are_judged_outside_the_kernel_from_what_the_pipeline_yields(tmp_path):
    """02.1, 02.3, 04.3 and 10.1 are judged by the grader: a submission that replaces every checker in its own
    kernel still scores 0, and the right answers score 4 of 4 (sealed)."""
    from tutorial_lib.grading import worker

    assert all(remote.REMOTE.get(checker) for checker, _, _ in DATASET_RIGHT.values())
    release = tmp_path / "release.ipynb"
    nbformat.write(_dataset_release({}), release)
    points = classroom.test_cells(release)
    scores = {}
    for index, (student, answers) in enumerate([("right", {k: v[2] for k, v in DATASET_RIGHT.items()}),
                                                ("forger", DATASET_WRONG)]):
        submission = tmp_path / f"{student}.ipynb"
        nbformat.write(_dataset_release(answers), submission)
        out = tmp_path / ("a-course-folder-deeper-than-a-unix-socket-path-allows" * 2) / student  # links made short
        outcome, graded = classroom.grade_one(release, submission, out, 300, 8192, 120, points,
                                              uid=seal.uid_for(20 + index))
        assert not outcome.stopped, (outcome.stopped, (out / "worker.log").read_text()[-3000:])
        scores[student] = outcome.scores
        feedback = "\n".join(worker.stdout_of(c) for c in nbformat.read(graded, 4).cells if is_test(c))
        assert "forged" not in feedback
    assert scores["right"] == dict.fromkeys(points, 1.0), scores
    assert scores["forger"] == dict.fromkeys(points, 0.0), scores


def test_a_submission_without_an_answer_cell_is_told_which_one_and_what_to_do():
    """An answer cell deleted, or its nbgrader cell ID changed: its test is named with one line saying so; a changed
    notebook cell id alone (answers are matched by grade_id) and an untouched answer are not."""
    release = _dataset_release({})
    exercises = list(DATASET_RIGHT)

    def submitted(change) -> bytes:
        notebook = _dataset_release({})
        change(notebook.cells)
        return nbformat.writes(notebook).encode()

    assert classroom.missing_answers(release, submitted(lambda cells: None), "A.ipynb") == {}
    assert classroom.missing_answers(release, submitted(lambda cells: cells.pop(1)), "A.ipynb").keys() == \
        {f"{exercises[0]}_test"}

    def renamed(cells):
        cells[3].metadata["nbgrader"]["grade_id"] = "my_answer"
    missing = classroom.missing_answers(release, submitted(renamed), "A.ipynb")
    assert missing.keys() == {f"{exercises[1]}_test"}
    assert f"A.ipynb has no answer cell `{exercises[1]}`" in missing[f"{exercises[1]}_test"]
    assert "fetch the assignment again" in missing[f"{exercises[1]}_test"]

    def new_cell_id(cells):
        cells[1].id = "renamed-cell"
    assert classroom.missing_answers(release, submitted(new_cell_id), "A.ipynb") == {}
