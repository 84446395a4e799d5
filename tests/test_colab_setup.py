"""Every notebook's Setup as Colab and Kaggle run it: `tutorial_lib` absent, so the install cell installs the course.

Each case runs notebook 05's install cell and then its setup cell in a fresh Python process, from which the
checkout (the editable install's path) has been removed, so `import tutorial_lib` fails as it does in a new Colab
runtime. `subprocess.run` is replaced by a recorder: it notes a `pip install` and puts the checkout back on the
path, as the real install would make the package importable (offline, it fails as pip does where GitHub cannot be
reached, the connection to PyPI is refused, and the cells run in IPython's own shell, which shows what a notebook
shows). In the Colab cases a stand-in `google.colab.output` module (a folder put first on the path; `google`
stays a namespace package, so `google.protobuf` still imports) records the widget-manager call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tutorial_lib.classroom.course import INSTALL_SOURCE, read, source, tags
from tutorial_lib.classroom.navigation import INSTALL_CELL, INSTALL_TAG

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "05_live_dashboard.ipynb"

DRIVER = r'''
import json, os, subprocess, sys

checkout, log, cells, absent = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4] != "present"
offline = sys.argv[4] == "offline"
import importlib.util
if absent:
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != os.path.realpath(checkout)]
    assert importlib.util.find_spec("tutorial_lib") is None, "tutorial_lib is still importable"


def recorded_run(command, *args, **kwargs):
    if list(command[1:4]) != ["-m", "pip", "install"]:
        return real_run(command, *args, **kwargs)  # e.g. platform's `uname -p` while TensorFlow imports
    with open(log, "a") as out:
        out.write(json.dumps({"run": list(command)}) + "\n")
    if offline:
        return subprocess.CompletedProcess(command, 1, "", GIT_OFFLINE)
    sys.path.append(checkout)  # what the install achieves: the package can be imported
    return subprocess.CompletedProcess(command, 0, "", "")


GIT_OFFLINE = ("  error: subprocess-exited-with-error\n  fatal: unable to access "
               "'https://github.com/data-into-tensorflow/data-into-tensorflow/': Could not resolve host: github.com\n")
real_run, subprocess.run = subprocess.run, recorded_run
if offline:
    import socket
    from IPython.core.interactiveshell import InteractiveShell

    def refused(*args, **kwargs):
        raise OSError("[Errno -3] Temporary failure in name resolution")

    socket.create_connection = refused
    shell = InteractiveShell.instance()
    for cell in cells:
        if not shell.run_cell(cell).success:
            sys.exit(0)
namespace = {"__name__": "__main__"}
for cell in cells:
    exec(compile(cell, "<cell>", "exec"), namespace)
import tutorial_lib
print("tutorial_lib from", "the checkout" if tutorial_lib.__file__.startswith(checkout) else tutorial_lib.__file__)
'''

STAND_IN_OUTPUT = '''"""A stand-in for google.colab.output: records the calls the course makes."""
import json
import os


def enable_custom_widget_manager(*args, **kwargs):
    with open(os.environ["COLAB_STAND_IN_LOG"], "a") as out:
        out.write(json.dumps({"google.colab.output": "enable_custom_widget_manager"}) + "\\n")
'''


def setup_cells() -> list[str]:
    """Return notebook 05's install cell and the setup cell after it."""
    cells = [c for c in read(NOTEBOOK).cells if c.cell_type == "code"]
    assert INSTALL_TAG in tags(cells[0]) and source(cells[0]) == INSTALL_CELL
    assert "env.setup(" in source(cells[1])
    return [source(cells[0]), source(cells[1])]


def run_setup(tmp_path: Path, colab: bool, extra_env: dict[str, str] | None = None,
              course_present: bool = False, offline: bool = False) -> tuple[str, list[dict]]:
    """Run the Setup in a fresh process as the named front end would; return its output and the recorded calls."""
    log = tmp_path / "calls.jsonl"
    log.write_text("")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "TUTORIAL_DATA_DIR", "DATA_INTO_TF_SOURCE", "KAGGLE_KERNEL_RUN_TYPE",
                        "VSCODE_PID")}
    env.update(COLAB_STAND_IN_LOG=str(log), **(extra_env or {}))
    if colab:
        stand_in = tmp_path / "stand_in" / "google" / "colab"
        stand_in.mkdir(parents=True)
        (stand_in / "__init__.py").write_text('"""A stand-in for google.colab."""\n')
        (stand_in / "output.py").write_text(STAND_IN_OUTPUT)
        env["PYTHONPATH"] = str(tmp_path / "stand_in")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    presence = "present" if course_present else "offline" if offline else "absent"  # present: a clone or installed
    done = subprocess.run([sys.executable, str(driver), str(ROOT), str(log), json.dumps(setup_cells()), presence],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout, [json.loads(line) for line in log.read_text().splitlines()]


def pip_install(source_: str) -> list[str]:
    return [sys.executable, "-m", "pip", "install", "--quiet", source_]


def test_in_colab_the_setup_installs_the_course_and_turns_on_the_widget_manager(tmp_path):
    output, calls = run_setup(tmp_path, colab=True)
    assert calls == [{"run": pip_install(INSTALL_SOURCE)},
                     {"google.colab.output": "enable_custom_widget_manager"}], calls
    assert INSTALL_SOURCE == "git+https://github.com/data-into-tensorflow/data-into-tensorflow@main"
    assert f"installing the course from {INSTALL_SOURCE}" in output
    assert "front end: Google Colab (its custom widget manager is now on); accelerator: none" in output, output
    assert "tutorial_lib from the checkout" in output  # the stand-in install made it importable, and it was used


def test_a_configured_wheel_is_installed_instead(tmp_path):
    wheel = "/content/data_into_tensorflow-0.2.0-py3-none-any.whl"
    output, calls = run_setup(tmp_path, colab=True, extra_env={"DATA_INTO_TF_SOURCE": wheel})
    assert calls[0] == {"run": pip_install(wheel)}, calls


def test_in_kaggle_the_setup_installs_the_course_without_colab_calls(tmp_path):
    output, calls = run_setup(tmp_path, colab=False, extra_env={"KAGGLE_KERNEL_RUN_TYPE": "Interactive"})
    assert calls == [{"run": pip_install(INSTALL_SOURCE)}], calls
    assert "front end: Kaggle; accelerator: none" in output, output


def test_where_the_course_is_installed_the_setup_installs_nothing(tmp_path):
    output, calls = run_setup(tmp_path, colab=False, course_present=True)
    assert calls == [], calls
    assert "installing the course" not in output
    assert "front end: Jupyter; accelerator: none" in output, output


def test_without_internet_the_install_says_what_to_do_in_one_line(tmp_path):
    output, calls = run_setup(tmp_path, colab=False, extra_env={"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, offline=True)
    assert calls == [{"run": pip_install(INSTALL_SOURCE)}], calls
    shown = output.split("pip keeps an installed TensorFlow that fits", 1)[1].strip().splitlines()
    assert len(shown) == 1 and shown[0].startswith("CourseNotInstalled: no internet"), output
    assert "Settings → Internet" in shown[0] and "DATA_INTO_TF_SOURCE" in shown[0]
    assert "Traceback" not in output and "front end" not in output  # the cell stopped there, in one line


def test_an_uploaded_wheel_that_fails_offline_is_not_told_to_upload_a_wheel(tmp_path):
    wheel = tmp_path / "data_into_tensorflow-0.2.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    output, calls = run_setup(tmp_path, colab=False, extra_env={"DATA_INTO_TF_SOURCE": str(wheel)}, offline=True)
    assert calls == [{"run": pip_install(str(wheel))}], calls
    shown = output.split("pip keeps an installed TensorFlow that fits", 1)[1].strip().splitlines()
    assert shown == [f"CourseNotInstalled: pip could not install {wheel} (its message is above); without internet it "
                     "cannot fetch from pypi.org the dependencies this runtime lacks"], output


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")), ids=lambda p: p.name)
def test_every_notebook_has_the_same_install_cell_first(path):
    code = [c for c in read(path).cells if c.cell_type == "code"]
    assert source(code[0]) == INSTALL_CELL and INSTALL_TAG in tags(code[0]), "run `make navigation`"
