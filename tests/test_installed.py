"""The course as a student meets it without a clone, offline: built, installed from the wheel, started, run.

The wheel and the sdist are built with `python -m build --no-isolation` (no download: setuptools and build come
from `.venv`) from a copy of the repository's files (so the build leaves nothing in the checkout), and pass
`twine check`. The wheel goes into a fresh virtual environment in a temporary folder outside the checkout, with
`pip install --no-deps --no-index`: the course itself comes only from the wheel, while its dependencies are
reused from `.venv` (a .pth file, written after the install, names `.venv`'s site-packages; a path there is not
processed for .pth files of its own, so `.venv`'s editable install of the checkout stays out). Then, with no
PYTHONPATH and no TUTORIAL_DATA_DIR, from the temporary folder: `python -m tutorial_lib start` writes the
notebooks out, nbval executes them there in kernels of that environment (with the student-edition plugin and
the course's sanitizer, as `make test` does), and `doctor` checks the packaged data against its MANIFEST.

`make test` runs the notebooks of INSTALLED_NOTEBOOKS_IN_MAKE_TEST: 00 (which opens every kind of shipped data:
digits, PTB corpus, molecules) and the notebooks that read each kind in each of its formats (02: the digits as
CSV, fixed-length records and TFRecord; 08: the molecules; 09: the corpus); `make test` does not run those four
from the checkout. `make test-installed` runs every notebook (`NB="05_live_dashboard ..."` for some), through
INSTALLED_NOTEBOOKS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from checkout_support import copy_checkout

from tutorial_lib import __version__
from tutorial_lib.classroom.course import COURSE

ROOT = Path(__file__).resolve().parent.parent
INSTALLED_NOTEBOOKS_IN_MAKE_TEST = ["00_start_here", "02_reading_files", "08_one_batch_many_evaluations",
                                    "09_ptb_producer"]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
         "-p", "tutorial_lib.classroom.nbval_student", "-p", "no:cacheprovider"]


def chosen_notebooks() -> list[str]:
    """The notebooks to execute from the installed wheel: INSTALLED_NOTEBOOKS ('all' or stems), else make test's."""
    chosen = os.environ.get("INSTALLED_NOTEBOOKS", "").split()
    if chosen == ["all"]:
        return list(COURSE)
    unknown = [stem for stem in chosen if stem not in COURSE]
    if unknown:
        raise pytest.UsageError(f"INSTALLED_NOTEBOOKS: no notebook {unknown} in the course map")
    return chosen or INSTALLED_NOTEBOOKS_IN_MAKE_TEST


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would point Python or the course at the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TUTORIAL_DATA_DIR", "VIRTUAL_ENV",
                                                             "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT)))
    return {**env, **extra}


def run(command: list[str], cwd: Path, timeout: int = 600, **extra_env: str) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=clean_env(**extra_env), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory) -> dict[str, Path]:
    """Build the sdist and the wheel (from that sdist, as `python -m build` does) offline, from a copy of the repo."""
    tmp = tmp_path_factory.mktemp("build")
    source = copy_checkout(tmp / "source")
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp / "dist"), str(source)], cwd=tmp)
    wheel, = (tmp / "dist").glob("*.whl")
    sdist, = (tmp / "dist").glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def installed(artefacts, tmp_path_factory) -> dict[str, Path]:
    """A fresh virtual environment with the course from the wheel only, and the course started in a folder."""
    tmp = tmp_path_factory.mktemp("student")
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(artefacts["wheel"])], cwd=tmp)
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    cwd=tmp).stdout.strip())
    (site / "zz_course_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    started = time.perf_counter()
    start = run([str(python), "-m", "tutorial_lib", "start", "course"], cwd=tmp)
    return {"tmp": tmp, "python": python, "site": site, "course": tmp / "course", "start_output": start.stdout,
            "start_s": time.perf_counter() - started}


def test_the_artefacts_pass_twine_and_carry_the_data_and_the_notebooks(artefacts):
    run([sys.executable, "-m", "twine", "check", "--strict", str(artefacts["wheel"]), str(artefacts["sdist"])],
        cwd=artefacts["wheel"].parent)
    assert artefacts["wheel"].name == f"data_into_tensorflow-{__version__}-py3-none-any.whl"
    assert artefacts["sdist"].name == f"data_into_tensorflow-{__version__}.tar.gz"
    names = set(zipfile.ZipFile(artefacts["wheel"]).namelist())
    manifest = [line.split()[1] for line in (ROOT / "data" / "MANIFEST").read_text().splitlines() if line.strip()]
    for name in manifest + ["MANIFEST", "README.md"]:
        assert f"tutorial_lib/course_files/data/{name}" in names, name
    for stem in COURSE:
        assert f"tutorial_lib/course_files/notebooks/{stem}.ipynb" in names, stem
        packaged = nbformat.reads(zipfile.ZipFile(artefacts["wheel"]).read(
            f"tutorial_lib/course_files/notebooks/{stem}.ipynb").decode(), 4)
        text = "\n".join(cell.source for cell in packaged.cells)
        for cell in nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", 4).cells:
            if "solution" in cell.get("metadata", {}).get("tags", []):  # no solution in the installed course
                assert cell.source.strip() not in text, (stem, cell.source)
        assert not [c for c in packaged.cells if "solution" in c.get("metadata", {}).get("tags", [])], stem
    metadata = zipfile.ZipFile(artefacts["wheel"]).read(
        f"data_into_tensorflow-{__version__}.dist-info/entry_points.txt").decode()
    assert "data-into-tensorflow = tutorial_lib.__main__:main" in metadata


def test_the_installed_course_comes_from_the_wheel_with_no_checkout_on_the_path(installed):
    probe = ("import json, sys, tutorial_lib, tutorial_lib.locations as l, tutorial_lib.datasets as d; "
             "print(json.dumps([tutorial_lib.__file__, sys.path, str(d.data_dir()), l.is_installed()]))")
    where, path, data, is_installed = json.loads(run([str(installed["python"]), "-c", probe],
                                                     cwd=installed["tmp"]).stdout)
    assert Path(where).is_relative_to(installed["site"]), where
    assert is_installed and Path(data).is_relative_to(installed["site"]), data
    dependencies = sysconfig.get_paths()["purelib"]
    from_checkout = [p for p in path if p and Path(p).resolve().is_relative_to(ROOT) and p != dependencies]
    assert from_checkout == [], f"the checkout is on the installed course's path: {from_checkout}"
    version = run([str(installed["python"].parent / "data-into-tensorflow"), "--version"], cwd=installed["tmp"]).stdout
    assert version.strip() == f"data-into-tensorflow {__version__}"


def test_start_wrote_the_course_and_doctor_finds_the_packaged_data_intact(installed):
    assert f"{len(COURSE) + 1} written" in installed["start_output"], installed["start_output"]
    assert sorted(p.stem for p in installed["course"].glob("*.ipynb")) == sorted(COURSE)
    doctor = run([str(installed["python"]), "-m", "tutorial_lib", "doctor"], cwd=installed["tmp"]).stdout
    assert "data: ok (all files match MANIFEST)" in doctor, doctor
    assert f"course: data-into-tensorflow {__version__}, from the installed package" in doctor, doctor


def test_the_notebooks_run_and_verify_from_the_installed_wheel(installed):
    stems = chosen_notebooks()
    started = time.perf_counter()
    done = subprocess.run([str(installed["python"]), "-m", "pytest", "-q", *NBVAL,
                           *[f"{stem}.ipynb" for stem in stems]], cwd=installed["course"], env=clean_env(),
                          capture_output=True, text=True, timeout=60 * 60, stdin=subprocess.DEVNULL)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    print(f"installed wheel: {', '.join(stems)}: {summary} in {time.perf_counter() - started:.0f} s "
          f"(start wrote the course in {installed['start_s']:.1f} s)")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary


def test_make_test_skips_in_the_checkout_exactly_the_notebooks_it_runs_from_the_wheel():
    line = next(line for line in (ROOT / "Makefile").read_text().splitlines() if line.startswith("WHEEL_NOTEBOOKS :="))
    assert line.split(":=")[1].split() == INSTALLED_NOTEBOOKS_IN_MAKE_TEST
