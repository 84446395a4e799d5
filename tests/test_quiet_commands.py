"""The course's commands print what they mean to print, and no warnings between their lines.

* `make notebooks NB=<the first notebook>` (navigation, then the notebook executed in a fresh kernel), run in a
  copy of the repository so the committed notebook is not rewritten: ipykernel used to print "Kernel is running
  over TCP without encryption" there; `classroom.execute.kernel_config` now has jupyter_client give each kernel
  CurveZMQ keys, and the kernel says nothing.
* `pip install -e .` (what `make` runs): setuptools used to warn that "folders in your working directory with the
  same name as your package ... may take precedence during imports"; `package-dir = {"" = "."}` in
  pyproject.toml makes the editable install a plain .pth line, with no warning.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tutorial_lib.classroom.course import COURSE

ROOT = Path(__file__).resolve().parent.parent
WARNING = re.compile(r"warn", re.IGNORECASE)
# pip's note about this machine's own index settings (a configured index folder without that package); not ours.
PIP_INDEX_NOTE = re.compile(r"^WARNING: Location '[^']+' is ignored: it is neither a file nor a directory\.$")
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv*", "out", "build", "scratch", "tests", "__pycache__", "*.egg-info",
                                     ".ipynb_checkpoints", ".pytest_cache", ".ruff_cache")


def repository_copy(tmp_path: Path) -> Path:
    """Copy the repository (sources, notebooks, data) into tmp_path/repo, with .venv linked, not copied."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=COPY_IGNORE, symlinks=True)
    (copy / ".venv").symlink_to((ROOT / ".venv").resolve())
    return copy


def warning_lines(output: str, allowed: re.Pattern | None = None) -> list[str]:
    lines = output.replace("\r", "\n").splitlines()
    return [line for line in lines if WARNING.search(line) and not (allowed and allowed.match(line))]


def test_make_notebooks_prints_progress_and_no_warnings(tmp_path):
    first = next(iter(COURSE))
    copy = repository_copy(tmp_path)
    # The copy's tutorial_lib, in this process's children and in the kernel; no user-level Jupyter state.
    env = {**os.environ, "PYTHONPATH": str(copy), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    done = subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "notebooks", f"NB={first}"],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "navigation regenerated" in output, output[-3000:]
    assert re.search(rf"{first}\.ipynb: \d+\.\d s", output), f"no progress line for {first}:\n{output[-3000:]}"
    assert not warning_lines(output), f"warnings in `make notebooks`:\n{output[-3000:]}"
    assert "[IPKernelApp]" not in output and "Traceback" not in output, output[-3000:]


def test_editable_install_prints_no_warning(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ["pyproject.toml", "README.md", "setup.py", "MANIFEST.in"]:
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "tutorial_lib", source / "tutorial_lib", ignore=COPY_IGNORE)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    # This environment's pip (`make` upgrades pip before installing; an older pip hides setuptools' warnings).
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                           "--disable-pip-version-check", "--no-deps", "-e", str(source)],
                          capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "Successfully installed data-into-tensorflow" in output, output[-3000:]
    assert not warning_lines(output, PIP_INDEX_NOTE), f"warnings in `pip install -e .`:\n{output[-3000:]}"
    # The install is the plain .pth line: this copy's folder on sys.path, tutorial_lib imported from it.
    found = subprocess.run([str(venv / "bin" / "python"), "-c", "import tutorial_lib; print(tutorial_lib.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    assert Path(found) == source / "tutorial_lib" / "__init__.py"
