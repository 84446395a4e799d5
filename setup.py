"""Builds put the course's data and notebooks inside the package (pyproject.toml holds everything else).

`data/` and `notebooks/` stay at the top of the repository. A wheel (and so an sdist's wheel, and `pip install
git+URL`) gets copies of both in `tutorial_lib/course_files/`, where `tutorial_lib.locations` finds them through
importlib.resources; the notebooks as their student edition (`classroom.edition.packaged_notebook`: each
solution replaced by its stub), so an installed course holds no reference solution. An editable install (`pip
install -e .`, what `make` runs) copies nothing: the library then reads the checkout's own folders. The sdist
carries the two folders as they are (MANIFEST.in), solutions included: it is the course's source.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PACKAGED_DIR = "course_files"  # tutorial_lib.locations.PACKAGED_DIR: a test checks that the two agree
COURSE_FOLDERS = {"data": ("MANIFEST", "README.md", "*/*"), "notebooks": ("[0-9][0-9]*_*.ipynb", "INSTRUCTORS.md")}


class BuildWithCourseFiles(build_py):
    """build_py, then the course's data and notebooks copied into the built package (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "tutorial_lib" / PACKAGED_DIR
        for folder, patterns in COURSE_FOLDERS.items():
            files = sorted({path for pattern in patterns for path in (root / folder).glob(pattern) if path.is_file()})
            if not files:
                raise SystemExit(f"{folder}/ holds none of {patterns}: build from a clone or from the sdist")
            for path in files:
                destination = target / path.relative_to(root)
                self.mkpath(str(destination.parent))
                if path.suffix == ".ipynb":
                    write_student_edition(root, path, destination)
                else:
                    self.copy_file(str(path), str(destination))


def write_student_edition(root: Path, path: Path, destination: Path) -> None:
    """Write a notebook's student edition (solutions replaced by stubs) where the wheel carries it."""
    import sys

    import nbformat

    sys.path.insert(0, str(root))
    try:
        from tutorial_lib.classroom.edition import packaged_notebook
    finally:
        sys.path.remove(str(root))
    nbformat.write(packaged_notebook(nbformat.read(path, 4)), destination)


setup(cmdclass={"build_py": BuildWithCourseFiles})
