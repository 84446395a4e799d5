"""Where the course's own files are: the shipped data and the notebooks, in a checkout or inside the installed package.

In a clone (and in its editable install, `pip install -e .`, which `make` runs), they are the repository's `data/`
and `notebooks/`, beside the package. The wheel and the sdist built by `python -m build` carry copies of both
inside the package, under `tutorial_lib/course_files/` (`setup.py` puts them there), found here through
`importlib.resources` from any working directory, with no checkout. `datasets.files.data_dir`, `classroom.course`
and `python -m tutorial_lib start` (which writes the notebooks out for a student) use these functions.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

PACKAGED_DIR = "course_files"  # setup.py writes the copies into tutorial_lib/<this> in the wheel and sdist builds
CHECKOUT = Path(__file__).resolve().parent.parent


def packaged_root() -> Path | None:
    """Return the folder holding the packaged data and notebooks, or None when this is a checkout."""
    root = resources.files("tutorial_lib") / PACKAGED_DIR
    return Path(os.fspath(root)) if root.is_dir() else None


def course_root() -> Path:
    """Return the folder that holds `data/` and `notebooks/`: the installed package's copy, else the checkout."""
    return packaged_root() or CHECKOUT


def is_installed() -> bool:
    """Say whether the course runs from an installed package (wheel or sdist) rather than from a checkout."""
    return packaged_root() is not None


def data_root() -> Path:
    """Return the shipped data's folder."""
    return course_root() / "data"


def notebook_root() -> Path:
    """Return the course notebooks' folder."""
    return course_root() / "notebooks"
