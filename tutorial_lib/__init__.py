"""Plumbing for the "Data into TensorFlow" course."""

# The course's one version number: pyproject.toml reads it (`[tool.setuptools.dynamic]`), so do the wheel, the
# sdist and `python -m tutorial_lib --version`.
__version__ = "0.2.0"
