"""The student edition keeps no solution (it runs, stub by stub, inside nbval: see test_student_edition.py);
navigation is generated, not edited."""

import ast
from pathlib import Path

import nbformat
import pytest

from tutorial_lib import classroom
from tutorial_lib.classroom.course import NOTEBOOK_GLOB

NOTEBOOKS = sorted(classroom.NOTEBOOK_DIR.glob(NOTEBOOK_GLOB))


def solution_lines(cell) -> list[str]:
    """Return the lines of a solution that are its answer (not the def line the stub keeps)."""
    tree = ast.parse(classroom.source(cell))
    keep = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            keep.add(node.lineno)
    lines = classroom.source(cell).splitlines()
    return [line.strip() for n, line in enumerate(lines, start=1)
            if n not in keep and line.strip() and not line.strip().startswith(("import ", "from "))]


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    classroom.student_edition(out)
    return out


def test_every_notebook_is_written(edition):
    assert sorted(p.name for p in edition.glob("*.ipynb")) == [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_solution_code_survives_and_everything_else_is_intact(edition, path):
    original = classroom.read(path).cells
    student = classroom.read(edition / path.name).cells
    assert len(student) == len(original)
    solutions = [i for i, c in enumerate(original) if "solution" in classroom.tags(c)]
    assert len(solutions) >= 3, "each notebook has at least three exercises"
    for i, (before, after) in enumerate(zip(original, student, strict=True)):
        if i in solutions:
            stub = classroom.source(after)
            assert "exercise" in classroom.tags(after) and not after.outputs
            for line in solution_lines(before):
                assert line not in stub, f"solution line survived in the stub: {line!r}"
        else:
            assert classroom.source(after) == classroom.source(before), "non-solution cells are kept as they are"
    assert not any("solution" in classroom.tags(c) for c in student)


def test_navigation_cells_are_the_generated_ones():
    assert classroom.navigation_problems() == [], "run `make navigation` (python -m tutorial_lib navigation)"


def test_navigation_links_only_to_existing_notebooks(tmp_path):
    for name in ("00_start_here", "01_feeding"):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# title")])
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    classroom.write_navigation(tmp_path)
    first = classroom.read(tmp_path / "01_feeding.ipynb")
    assert "[00_start_here · Start here](00_start_here.ipynb)" in classroom.source(first.cells[0])
    assert "02_reading_files · Reading files (coming)" in classroom.source(first.cells[-1])
    assert classroom.navigation_problems(tmp_path) == []
    assert classroom.write_navigation(tmp_path) == [], "regenerating changes nothing"


def test_instructor_guide_covers_every_notebook():
    from tutorial_lib.classroom.course import GUIDE_DIR

    index = (classroom.NOTEBOOK_DIR / "INSTRUCTORS.md").read_text()
    for path in NOTEBOOKS:
        page = GUIDE_DIR / f"{path.stem}.md"
        assert page.is_file() and page.read_text().startswith(f"# {path.stem} — "), f"no guide page for {path.stem}"
        assert f"](../docs/instructors/{path.stem}.md)" in index, f"INSTRUCTORS.md does not link {page.name}"


def test_course_tables_are_the_generated_ones():
    assert classroom.course_table_problems() == [], "run `make navigation` (python -m tutorial_lib navigation)"
    assert list(classroom.SUMMARIES) == list(classroom.COURSE), "one summary per notebook of the course map"


def test_regenerating_the_course_tables_fixes_an_edited_table_and_changes_nothing_twice(tmp_path):
    import shutil

    root = classroom.NOTEBOOK_DIR.parent
    (tmp_path / "notebooks").mkdir()
    shutil.copy(root / "README.md", tmp_path / "README.md")
    shutil.copy(classroom.NOTEBOOK_DIR / "00_start_here.ipynb", tmp_path / "notebooks")
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text().replace("`01_feeding` |", "`01_feeding` | edited by hand,"))
    notebook = classroom.read(tmp_path / "notebooks" / "00_start_here.ipynb")
    cell = next(c for c in notebook.cells if "course-map" in classroom.tags(c))
    cell["source"] = cell["source"].replace("11_scaling_out", "10_renamed")
    classroom.write(tmp_path / "notebooks" / "00_start_here.ipynb", notebook)
    assert len(classroom.course_table_problems(tmp_path)) == 2
    assert len(classroom.write_course_tables(tmp_path)) == 2
    assert classroom.course_table_problems(tmp_path) == []
    assert classroom.write_course_tables(tmp_path) == [], "regenerating again changes nothing"


def test_study_times_are_the_generated_ones():
    assert classroom.study_time_problems() == [], "run `make navigation` (python -m tutorial_lib navigation)"


def test_study_time_adds_reading_run_and_exercises_at_the_stated_rates(tmp_path):
    from tutorial_lib.classroom import study_time as st

    solution = nbformat.v4.new_code_cell("def f(x):\n    return x + 1", metadata={"tags": ["solution"]})
    cells = [nbformat.v4.new_markdown_cell("**Time:** about 99 minutes.\n\n" + "word " * 240),
             nbformat.v4.new_code_cell("\n".join(f"x{i} = {i}  # code" for i in range(20)) + "\n# a comment"),
             solution, nbformat.v4.new_code_cell("exercises.check_f(f)")]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / "01_x.ipynb")
    (tmp_path / "INSTRUCTORS.md").write_text(f"{st.TABLE_START}\n{st.TABLE_END}\n\n### 01_x — 7 minutes\n")
    estimate = st.study_time(tmp_path / "01_x.ipynb")
    assert estimate == st.StudyTime(prose_words=240, code_lines=21, exercises=1, solution_lines=2)
    # 240 / 120 = 2 min prose, 21 / 10 = 2.1 min code (the checker call counts, comments do not),
    # 1.5 min run, 3 + 2 * 1.5 = 6 min exercise
    assert estimate.minutes == 15
    assert st.study_time_problems(tmp_path) != []
    st.write_study_times(tmp_path)
    assert st.study_time_problems(tmp_path) == []
    assert "### 01_x — 15 minutes" in (tmp_path / "INSTRUCTORS.md").read_text()
    # the parts as computed and their sum, so that the rounding can be checked by the reader (4.1 + 6 + 1.5 = 11.6)
    assert "**Time:** about 15 minutes: reading 4.1, the 1 exercises 6.0, running 1.5, together 11.6, rounded up" in \
        classroom.source(classroom.read(tmp_path / "01_x.ipynb").cells[0])


def test_a_recorded_run_longer_than_the_budget_is_the_run_time(tmp_path):
    # The Overview's "running" part: the 1.5-minute budget, or the run that made the stored outputs if longer.
    from tutorial_lib.classroom import study_time as st

    cells = [nbformat.v4.new_markdown_cell("**Time:** about 99 minutes.\n\n" + "word " * 240)]
    for seconds, minutes in ((None, 1.5), (40.0, 1.5), (90.0, 1.5), (90.1, 1.6), (101.4, 1.7), (True, 1.5)):
        notebook = nbformat.v4.new_notebook(cells=cells)
        if seconds is not None:
            notebook.metadata["tutorial"] = {st.RUN_SECONDS_KEY: seconds}
        nbformat.write(notebook, tmp_path / "01_x.ipynb")
        estimate = st.study_time(tmp_path / "01_x.ipynb")
        assert estimate.run_minutes == minutes, seconds
        assert f"running {minutes:g}, together {2 + minutes:.1f}" in st.time_line(estimate)


def test_study_rates_are_overridden_in_one_file_and_bad_values_are_named(tmp_path):
    from tutorial_lib.classroom import study_time

    path = tmp_path / "study_rates.toml"
    assert study_time.load_rates(path) == study_time.DEFAULT_RATES  # no file: the defaults
    path.write_text("[rates]\ncode_lines_per_minute = 5\n")
    assert study_time.load_rates(path) == {**study_time.DEFAULT_RATES, "code_lines_per_minute": 5.0}
    path.write_text("[rates]\nwords_per_minute = 200\n")
    with pytest.raises(ValueError, match="study_rates.toml: unknown rate 'words_per_minute'"):
        study_time.load_rates(path)
    path.write_text("[rates]\nrun_minutes = -1\n")
    with pytest.raises(ValueError, match="run_minutes = -1 must be a positive number"):
        study_time.load_rates(path)
    path.write_text("[rates\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        study_time.load_rates(path)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_fits_a_class_period(path):
    from tutorial_lib.classroom import study_time

    assert study_time.study_time(path).minutes <= 90, f"{path.stem}: more than a 90-minute class period"
