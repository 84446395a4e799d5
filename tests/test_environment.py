"""environment.yml (conda) and pyproject.toml (pip) describe the same environment."""

import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def normalized(specs: list[str]) -> dict[str, str]:
    requirements = [Requirement(spec) for spec in specs]
    return {r.name.lower(): (str(r.specifier), str(r.marker)) for r in requirements}


def test_conda_pip_block_lists_exactly_the_runtime_lab_dev_and_instructor_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = normalized(project["dependencies"] + extras["lab"] + extras["dev"] + extras["instructor"])
    conda = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_block = next(item["pip"] for item in conda["dependencies"] if isinstance(item, dict))
    assert "-e ." in pip_block, "the conda environment installs tutorial_lib itself"
    assert normalized([line for line in pip_block if not line.startswith("-")]) == wanted


def test_conda_python_is_one_pyproject_admits():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    conda = yaml.safe_load((ROOT / "environment.yml").read_text())
    python = next(d for d in conda["dependencies"] if isinstance(d, str) and d.startswith("python="))
    assert python.split("=")[1] + ".0" in SpecifierSet(project["requires-python"])
    assert "conda-forge" in conda["channels"]


def test_make_installs_the_extras_the_conda_environment_has():
    recipe = (ROOT / "Makefile").read_text()
    assert "-e '.[lab,dev,instructor]'" in recipe
    assert "-e '.[lab]'" in recipe  # the student environment: the course and JupyterLab


def test_gpu_extra_pins_the_same_tensorflow_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = normalized(project["dependencies"])["tensorflow"]
    gpu = Requirement(project["optional-dependencies"]["gpu"][0])
    assert gpu.name == "tensorflow" and "and-cuda" in gpu.extras and str(gpu.specifier) == runtime[0]
