"""`python -m tutorial_lib start [DIR]`: the course written into a student's folder, an edited notebook never
replaced without a yes (and kept beside the new copy when it is)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tutorial_lib import locations
from tutorial_lib.classroom import workspace
from tutorial_lib.classroom.course import COURSE

ROOT = Path(__file__).resolve().parent.parent


def test_start_writes_every_notebook_and_the_instructor_guide(tmp_path):
    report = workspace.start(tmp_path / "course", ask=lambda question: False)
    names = sorted(p.name for p in (tmp_path / "course").iterdir())
    assert names == sorted([f"{stem}.ipynb" for stem in COURSE] + ["INSTRUCTORS.md"])
    assert sorted(report.written) == names and not report.unchanged and not report.kept
    for name in names:
        assert (tmp_path / "course" / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes()


def test_a_second_start_changes_nothing_and_an_edited_notebook_is_kept_without_a_yes(tmp_path):
    folder = tmp_path / "course"
    workspace.start(folder, ask=lambda question: False)
    edited = folder / "01_feeding.ipynb"
    edited.write_text(edited.read_text().replace("Feeding", "Feeding (my notes)", 1))
    asked = []
    report = workspace.start(folder, ask=lambda question: asked.append(question) or False)
    assert report.kept == ["01_feeding.ipynb"] and not report.written and not report.replaced
    assert len(report.unchanged) == len(COURSE)  # the other 13 notebooks and INSTRUCTORS.md
    assert "my notes" in edited.read_text(), "an edited notebook was replaced without a yes"
    assert len(asked) == 1 and "01_feeding.ipynb" in asked[0] and "edited" in asked[0]
    assert any("kept 01_feeding.ipynb" in line for line in report.lines())


def test_with_a_yes_the_edited_notebook_is_replaced_and_kept_beside_it(tmp_path):
    folder = tmp_path / "course"
    workspace.start(folder, ask=lambda question: False)
    edited = folder / "01_feeding.ipynb"
    edited.write_text(edited.read_text().replace("Feeding", "Feeding (my notes)", 1))
    report = workspace.start(folder, ask=lambda question: True)
    assert list(report.replaced) == ["01_feeding.ipynb"]
    old = folder / report.replaced["01_feeding.ipynb"]
    assert re.fullmatch(r"01_feeding\.edited-\d{8}-\d{6}\.ipynb", old.name)
    assert "my notes" in old.read_text() and "my notes" not in edited.read_text()


def test_the_command_without_a_terminal_keeps_edits_and_says_how_to_open_the_course(tmp_path):
    folder = tmp_path / "my course"
    first = subprocess.run([sys.executable, "-m", "tutorial_lib", "start", str(folder)], cwd=tmp_path,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert first.returncode == 0, first.stderr
    assert f"{len(COURSE) + 1} written" in first.stdout
    assert "--ServerApp.ip=127.0.0.1" in first.stdout and "00_start_here.ipynb" in first.stdout
    (folder / "00_start_here.ipynb").write_text("{}")
    again = subprocess.run([sys.executable, "-m", "tutorial_lib", "start", str(folder)], cwd=tmp_path,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert again.returncode == 0 and "kept 00_start_here.ipynb" in again.stdout, again.stdout
    assert (folder / "00_start_here.ipynb").read_text() == "{}"


def test_the_checkout_reads_its_own_folders_and_setup_py_packs_them_where_the_library_looks():
    assert not locations.is_installed()  # the editable install: no packaged copy, the checkout's folders
    assert locations.data_root() == ROOT / "data" and locations.notebook_root() == ROOT / "notebooks"
    assert f'PACKAGED_DIR = "{locations.PACKAGED_DIR}"' in (ROOT / "setup.py").read_text()
