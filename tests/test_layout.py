"""The house is easy to find one's way in: every module says what it is for, and the README's tree matches the code."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tutorial_lib"


def readme_tree() -> str:
    """Return the code block of the README's "Repository" section."""
    section = (ROOT / "README.md").read_text().split("## Repository", 1)[1]
    return section.split("```", 2)[1]


def test_every_module_has_a_docstring():
    for path in sorted(PACKAGE.rglob("*.py")):
        assert ast.get_docstring(ast.parse(path.read_text())), f"{path.relative_to(ROOT)} has no docstring"


def test_the_readme_tree_names_every_package_and_module_and_nothing_else():
    tree = readme_tree()
    words = set(re.findall(r"[A-Za-z_][\w]*", tree))
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        assert path.stem in words, f"README's repository tree does not mention {path.relative_to(ROOT)}"
    packages = {p.name for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists()}
    listed = set(re.findall(r"(?<![.\w-])(\w+)/", tree)) - {"data", "notebooks", "tests", "tutorial_lib"}
    assert listed == packages, f"README lists packages {sorted(listed)}, the code has {sorted(packages)}"
    for name in re.findall(r"^\s+(\w+)\.py", tree, flags=re.M):
        assert (PACKAGE / f"{name}.py").exists(), f"README lists tutorial_lib/{name}.py, which does not exist"
