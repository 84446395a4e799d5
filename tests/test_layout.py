"""The house is easy to find one's way in: every module says what it is for, CONTRIBUTING.md's tree matches the code,
and no module imports one that imports it back."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tutorial_lib"


def readme_tree() -> str:
    """Return the code block of the maintainer's guide's "Repository" section (CONTRIBUTING.md)."""
    section = (ROOT / "CONTRIBUTING.md").read_text().split("## Repository", 1)[1]
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
        assert path.stem in words, f"CONTRIBUTING.md's repository tree does not mention {path.relative_to(ROOT)}"
    packages = {p.name for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists()}
    listed = set(re.findall(r"(?<![.\w-])(\w+)/", tree)) - {"data", "docs", "instructors", "notebooks", "tests",
                                                                    "tutorial_lib"}
    assert listed == packages, f"CONTRIBUTING.md lists packages {sorted(listed)}, the code has {sorted(packages)}"
    for name in re.findall(r"^\s+(\w+)\.py", tree, flags=re.M):
        assert (PACKAGE / f"{name}.py").exists(), f"CONTRIBUTING.md lists tutorial_lib/{name}.py, which does not exist"


def _imports() -> dict[str, set[str]]:
    """Each module of tutorial_lib -> the modules of tutorial_lib it imports (anywhere in it, functions included)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tutorial_lib"):
                targets = [resolve(f"{node.module}.{alias.name}") for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [resolve(alias.name) for alias in node.names if alias.name.startswith("tutorial_lib")]
            graph[name] |= {t for t in targets if t and t != name}
    return graph


def test_no_module_imports_one_that_imports_it_back():
    """No circles: following imports from any module never leads back to it (a package's __init__ included)."""
    graph = _imports()
    circles = []
    for start in sorted(graph):
        seen, stack = set(), [(start, [start])]
        while stack:
            module, path = stack.pop()
            for target in graph[module]:
                if target == start:
                    circles.append(" -> ".join([*path, start]))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, [*path, target]))
    assert not circles, "\n".join(circles[:10])
