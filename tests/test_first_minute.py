"""A student's first minute is quiet on every supported TensorFlow: the Setup and the first cells of 00, 02, 05 and
09, run in a fresh kernel, print nothing to stderr that the student did not cause (no C++ start-up banner, no
"MLIR V1 optimization pass is not enabled", no cuInit error on a machine without a GPU).

`make test` runs it on the environment's TensorFlow (the newest the course admits). `.ci/run` also builds an
environment with the oldest (2.18: the course, ipykernel and nbclient) and names its interpreter in
FIRST_MINUTE_PYTHONS (paths separated by ":"); each runs tests/first_minute_run.py the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ("00_start_here", "02_reading_files", "05_live_dashboard", "09_ptb_producer")
RUNNER = ROOT / "tests" / "first_minute_run.py"
PYTHONS = [sys.executable] + [p for p in os.environ.get("FIRST_MINUTE_PYTHONS", "").split(":") if p]


@pytest.mark.parametrize("python", PYTHONS, ids=lambda p: "this-environment" if p == sys.executable else p)
@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_the_first_minute_prints_nothing_the_student_did_not_cause(python, stem):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "PYTEST", "JPY_"))}
    done = subprocess.run([python, str(RUNNER), stem], capture_output=True, text=True, timeout=600, env=env,
                          cwd=ROOT / "notebooks")
    assert done.returncode == 0, done.stderr[-3000:]
    version, said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == [], f"{stem} under TensorFlow {version} ({python}):\n" + "\n".join(said)
