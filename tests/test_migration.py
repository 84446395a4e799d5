"""The migration map: every TF1 API the course used has a row, and every row's link lands on an assertion."""

import nbformat
import pytest

from tutorial_lib.migration import api_map

# The TF1 input APIs the course teaches (issue #6's list); each must appear in the map's TF1 column.
TF1_APIS = ["feed_dict", "string_input_producer", "slice_input_producer", "range_input_producer",
            "TextLineReader", "FixedLengthRecordReader", "TFRecordReader", "decode_csv", "decode_raw",
            "parse_single_example", "train.batch", "shuffle_batch", "shuffle_batch_join", "maybe_batch",
            "enqueue_many", "QueueRunner", "Coordinator", "num_epochs", "allow_smaller_final_batch", "dynamic_pad",
            "PaddingFIFOQueue", "get_session_handle", "make_one_shot_iterator", "make_initializable_iterator",
            "from_structure", "string_handle"]


def test_every_row_lands_on_an_assertion():
    assert api_map.problems() == []


@pytest.mark.parametrize("api", TF1_APIS)
def test_the_map_covers_every_tf1_input_api(api):
    assert any(api in row.tf1 for row in api_map.MAP), f"{api} has no row in the migration map"


def test_links_use_jupyterlab_anchors_and_relative_paths():
    heading = "Today's form: `tf.function` with NumPy input"
    assert api_map.anchor(heading) == "Today's-form:-tf.function-with-NumPy-input"
    table = api_map.table()
    assert table.count("\n") == len(api_map.MAP) + 1
    assert "(02_reading_files.ipynb#The-same-with-tf.data)" in table
    assert api_map.link("tests/test_x.py::test_y") == "[`test_y`](../tests/test_x.py)"


def test_problems_name_a_missing_section_an_empty_one_and_a_missing_test(tmp_path, monkeypatch):
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## Checked\n### Inside"), nbformat.v4.new_code_cell("x = 1\nassert x == 1"),
        nbformat.v4.new_markdown_cell("## Unchecked"), nbformat.v4.new_code_cell("print('no check here')")])
    nbformat.write(notebook, tmp_path / "99_fake.ipynb")
    (tmp_path.parent / "tests").mkdir(exist_ok=True)
    monkeypatch.setattr(api_map, "MAP", [
        api_map.Row("a", "b", "99_fake#Checked"), api_map.Row("c", "d", "99_fake#Inside"),
        api_map.Row("e", "f", "99_fake#Unchecked"), api_map.Row("g", "h", "99_fake#Nowhere"),
        api_map.Row("i", "j", "tests/test_nothing.py::test_missing")])
    found = api_map.problems(tmp_path)
    assert found == ["e: section 'Unchecked' of 99_fake asserts nothing", "g: no section 'Nowhere' in 99_fake",
                     "i: no test tests/test_nothing.py::test_missing"]
