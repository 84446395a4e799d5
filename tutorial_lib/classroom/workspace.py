"""A student's own copy of the course: `python -m tutorial_lib start [DIR]` (or `data-into-tensorflow start`).

Writes the course notebooks (and INSTRUCTORS.md, which they link to) from the installed package, or from the
checkout, into a folder of the student's, then says how to open them. A notebook already there is left alone
when it is the course's copy; one that differs (the student edited it, or it comes from another version of the
course) is replaced only when the student says yes, and then the old one is kept beside it as
`NAME.edited-<time>.ipynb`. Without a terminal to ask in, nothing that differs is replaced.
"""

from __future__ import annotations

import filecmp
import importlib.util
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tutorial_lib.classroom.course import NOTEBOOK_DIR, notebook_paths

DEFAULT_DIR = "data-into-tensorflow"


@dataclass
class StartReport:
    """What `start` did to each file: written new, already the course's copy, kept (differs), replaced."""

    folder: Path
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    replaced: dict[str, str] = field(default_factory=dict)  # file -> where the old one was kept

    def lines(self) -> list[str]:
        """Return the report as lines for the terminal."""
        out = [f"{self.folder}: {len(self.written)} written, {len(self.unchanged)} already up to date, "
               f"{len(self.replaced)} replaced, {len(self.kept)} kept as they were"]
        out += [f"  replaced {name} (your old copy is {old})" for name, old in self.replaced.items()]
        out += [f"  kept {name}: it differs from the course's copy (edited?); run again in a terminal to be "
                "asked, or delete it first" for name in self.kept]
        return out


def course_files() -> list[Path]:
    """Return the files a student's copy holds: every course notebook and INSTRUCTORS.md."""
    extra = NOTEBOOK_DIR / "INSTRUCTORS.md"
    return notebook_paths() + ([extra] if extra.is_file() else [])


def ask_on_terminal(question: str) -> bool:
    """Ask a yes/no question on the terminal; without one (a pipe, a notebook), the answer is no."""
    if not sys.stdin or not sys.stdin.isatty():
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def start(folder: Path, ask: Callable[[str], bool] = ask_on_terminal) -> StartReport:
    """Copy the course into `folder` (created if needed), never replacing a differing file without a yes."""
    folder = Path(folder).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    report = StartReport(folder.resolve())
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for source in course_files():
        target = folder / source.name
        if not target.exists():
            shutil.copyfile(source, target)
            report.written.append(source.name)
        elif filecmp.cmp(source, target, shallow=False):
            report.unchanged.append(source.name)
        elif ask(f"{target} differs from the course's copy (you may have edited it). Replace it? Your copy is "
                 "kept beside it."):
            old = target.with_name(f"{target.stem}.edited-{stamp}{target.suffix}")
            target.rename(old)
            shutil.copyfile(source, target)
            report.replaced[source.name] = old.name
        else:
            report.kept.append(source.name)
    return report


def how_to_open(folder: Path) -> str:
    """Say how to open the copied course (JupyterLab on 127.0.0.1 with its token)."""
    if importlib.util.find_spec("jupyterlab") is None:
        return ("JupyterLab is not installed here: pip install \"data-into-tensorflow[lab]\", then run this again; or "
                "open the folder's notebooks in VS Code, or upload them to Colab or Kaggle. Start with "
                "00_start_here.ipynb.")
    jupyter = "jupyter lab" if shutil.which("jupyter") else f"{shlex.quote(sys.executable)} -m jupyterlab"
    return (f"open it with:\n  {jupyter} --ServerApp.ip=127.0.0.1 --ServerApp.root_dir={shlex.quote(str(folder))}\n"
            "then open the URL it prints (it carries a token) and start with 00_start_here.ipynb")
