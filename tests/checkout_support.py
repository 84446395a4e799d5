"""A copy of the checkout as git sees it (tracked and untracked-but-not-ignored files), for tests that build the
course's wheel from it (tests/test_installed.py, tests/hub_support.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(destination: Path) -> Path:
    """Copy the repository's files (what `git ls-files` lists, ignored files left out) into `destination`."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            (destination / name).write_bytes((ROOT / name).read_bytes())
    return destination
