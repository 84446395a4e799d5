"""Module docstrings that name notebooks agree with the course map (`classroom.course.COURSE`) and the notebooks.

A docstring names a notebook by its stem (`07_train_and_validate`), or by number: "notebook 05", "notebooks 05,
06 and 10", "notebooks 00-05" (every notebook from 00 to 05 in course order), "notebook 10's", "10's". Every
name must exist in the course map as it is now (after a rename, the stale names fail here). Where a docstring
pairs a module with notebooks -- in its first paragraph, in "Used by notebook(s) ...", or in a package's bullet
"* `module` -- ... (notebook NN)" -- each notebook named must use that module: import it or call into it in
its code cells (its scripts included), directly or through the library modules it calls (not through a
package's __init__, which imports its whole package). For the exercises, that means the notebook calls the
module's checkers. Everything is read from the files; nothing is imported but the course map.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path

from tutorial_lib.classroom.course import COURSE

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tutorial_lib"
NOTEBOOKS = ROOT / "notebooks"

TOKEN = r"\d\d[a-z]?(?!\w)"
ASIDE = r"(?:\s*\([^()]*\))?"  # "notebooks 01 (feed cost, with `aligned_array`), 04 and 05"
SEPARATOR = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*[-–]\s*)"
NUMBER_LIST = re.compile(rf"\bnotebooks?\s+({TOKEN}{ASIDE}(?:{SEPARATOR}{TOKEN}{ASIDE})*)")
POSSESSIVE = re.compile(rf"(?<![\w.])({TOKEN})'s\b")
STEM = re.compile(r"(?<![\w/])(\d\d[a-z]?_[a-z0-9_]*[a-z0-9])\b")
BULLET = re.compile(r"^\* `(\w+)` --", re.MULTILINE)


def number(stem: str) -> str:
    return stem.split("_", 1)[0]


def dotted(path: Path) -> str:
    """tutorial_lib/pipelines/service/__init__.py -> 'pipelines.service'; tutorial_lib/__init__.py -> ''."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_file(name: str) -> Path | None:
    base = PACKAGE.joinpath(*name.split(".")) if name else PACKAGE
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if name and candidate.is_file() or not name and candidate.name == "__init__.py":
            return candidate
    return None


def where(module: str) -> str:
    return str(module_file(module).relative_to(ROOT))


def modules() -> dict[str, str]:
    """Every module of tutorial_lib (dotted, without 'tutorial_lib.') -> its docstring."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found[dotted(path)] = ast.get_docstring(ast.parse(path.read_text())) or ""
    return found


@cache
def reexports(package: str) -> dict[str, str]:
    """Name -> the submodule that defines it, for the names a package's __init__ imports from its submodules."""
    init = module_file(package)
    if init is None or init.name != "__init__.py":
        return {}
    prefix = "tutorial_lib." + package + "." if package else "tutorial_lib."
    names = {}
    for node in ast.walk(ast.parse(init.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(prefix):
            for alias in node.names:
                names[alias.asname or alias.name] = node.module.removeprefix("tutorial_lib.")
    return names


def used_in(sources: list[str]) -> set[str]:
    """The tutorial_lib modules some code imports or reaches by attribute ('pipelines.service', 'tf1', ...)."""
    trees = []
    for text in sources:
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines()]
        try:
            trees.append(ast.parse("\n".join(lines)))
        except SyntaxError:
            continue
    aliases: dict[str, str] = {}  # local name -> the module it is ('' is tutorial_lib itself)
    used: set[str] = set()

    def inner(module: str, name: str) -> str:
        return f"{module}.{name}" if module else name

    def resolve(module: str, name: str) -> str | None:
        """The module `module.name` is, or the submodule that defines the name `module.name`."""
        return inner(module, name) if module_file(inner(module, name)) else reexports(module).get(name)

    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tutorial_lib":
                module = node.module.removeprefix("tutorial_lib").lstrip(".")
                used.add(module)
                for alias in node.names:
                    target = resolve(module, alias.name)
                    if target:
                        used.add(target)
                    if target == inner(module, alias.name):
                        aliases[alias.asname or alias.name] = target
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "tutorial_lib":
                        module = alias.name.removeprefix("tutorial_lib").lstrip(".")
                        used.add(module)
                        if alias.asname:
                            aliases[alias.asname] = module
                        else:
                            aliases["tutorial_lib"] = ""
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            chain, value = [], node
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if not isinstance(value, ast.Name) or value.id not in aliases:
                continue
            module = aliases[value.id]
            for part in reversed(chain):
                target = resolve(module, part)
                if not target:
                    break
                used.add(target)
                if target != inner(module, part):
                    break
                module = target
    return {m for m in used if m}


@cache
def closure(start: frozenset[str]) -> frozenset[str]:
    """The modules `start` uses, and the modules those use in turn (a package's __init__ is not followed)."""
    seen, todo = set(start), list(start)
    while todo:
        path = module_file(todo.pop())
        if path is None or path.name == "__init__.py":
            continue
        for module in used_in([path.read_text()]) - seen:
            seen.add(module)
            todo.append(module)
    return frozenset(seen)


@cache
def notebook_uses(stem: str) -> frozenset[str]:
    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]
    return closure(frozenset(used_in(["".join(c["source"]) for c in cells if c["cell_type"] == "code"])))


def uses(stem: str, module: str) -> bool:
    return any(m == module or m.startswith(module + ".") for m in notebook_uses(stem))


def references(text: str) -> list[tuple[int, str, list[str]]]:
    """Every notebook reference in a text: (position, as written, the stems it names; [] if none exists)."""
    stems = list(COURSE)
    by_number = {number(s): s for s in stems}
    found = []
    for match in NUMBER_LIST.finditer(text):
        listed = re.sub(r"\([^()]*\)", "", match.group(1))
        tokens = re.findall(rf"{TOKEN}|[-–]", listed)
        named: list[str] = []
        for i, token in enumerate(tokens):
            if token in "-–":
                continue
            if token not in by_number:
                named = []
                break
            if i >= 2 and tokens[i - 1] in "-–" and tokens[i - 2] in by_number:
                low, high = stems.index(by_number[tokens[i - 2]]), stems.index(by_number[token])
                named += stems[low + 1:high + 1]
            else:
                named.append(by_number[token])
        found.append((match.start(), match.group(0), named))
    listed_spans = [(m.start(), m.end()) for m in NUMBER_LIST.finditer(text)]
    for match in POSSESSIVE.finditer(text):
        if not any(a <= match.start() < b for a, b in listed_spans):
            token = match.group(1)
            found.append((match.start(), match.group(0), [by_number[token]] if token in by_number else []))
    for match in STEM.finditer(text):
        found.append((match.start(), match.group(0), [match.group(1)] if match.group(1) in COURSE else []))
    return sorted(found)


def pairings(module: str, doc: str) -> list[tuple[str, str, list[str]]]:
    """(module, reference as written, stems) for each reference that pairs a module with notebooks."""
    summary_end = doc.find("\n\n") if "\n\n" in doc else len(doc)
    paired = [(module, written, named) for position, written, named in references(doc)
              if position < summary_end or doc[:position].endswith("Used by ")]
    bullets = list(BULLET.finditer(doc))
    for i, bullet in enumerate(bullets):
        end = bullets[i + 1].start() if i + 1 < len(bullets) else len(doc)
        blank = doc.find("\n\n", bullet.start())
        end = min(end, blank) if blank != -1 else end
        target = f"{module}.{bullet.group(1)}" if module else bullet.group(1)
        if module_file(target):
            paired += [(target, written, named) for _, written, named in references(doc[bullet.start():end])]
    return paired


def test_the_reference_patterns_read_every_form():
    stems = list(COURSE)
    first, second, third, last = stems[0], stems[1], stems[2], stems[-1]
    n = number
    text = (f"notebook {n(second)}; notebooks {n(first)} (an aside, with `x`), {n(third)} and {n(last)}; "
            f"notebooks {n(first)}-{n(third)}, {n(last)}; {n(second)}'s workload; notebook 99; `{last}`; "
            "`42_no_such_notebook`")
    assert [named for _, _, named in references(text)] == [
        [second], [first, third, last], [first, second, third, last], [second], [], [last], []]
    by_number = {number(s): s for s in stems}
    assert uses(by_number["11"], "pipelines.service") and not uses(by_number["10"], "pipelines.service")
    assert uses(by_number["05"], "benchmarks.timing"), "through benchmarks.monitor_overhead"
    assert not uses(by_number["05"], "pipelines.service")


def test_every_notebook_a_docstring_names_is_in_the_course():
    problems = [f"{where(module)}: '{written}' names no notebook of the course "
                f"({', '.join(COURSE)})"
                for module, doc in modules().items() for _, written, named in references(doc) if not named]
    assert not problems, "\n".join(problems)


def test_each_notebook_paired_with_a_module_uses_it():
    problems = []
    for module, doc in modules().items():
        for paired, written, named in pairings(module, doc):
            for stem in named:
                if not uses(stem, paired):
                    problems.append(f"{where(module)}: '{written}' pairs `{paired}` with {stem}, which does not "
                                    "use it")
    assert not problems, "\n".join(problems)


def test_each_exercises_module_names_the_notebook_whose_checkers_it_holds():
    for path in sorted((PACKAGE / "exercises").glob("*.py")):
        if path.stem in ("__init__", "core", "mutation"):
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        named = [stem for _, _, stems in references(doc.split("\n\n")[0]) for stem in stems]
        assert named, f"{path.name}'s docstring should name its notebook in its first paragraph"
        for stem in named:
            assert uses(stem, f"exercises.{path.stem}"), (
                f"{path.name} names {stem}, whose cells call none of its checkers")
