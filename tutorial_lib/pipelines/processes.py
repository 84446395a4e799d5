"""Run a few Python scripts as separate processes at the same time, and always stop them (notebook 07b).

Notebook 07 trains in one process and evaluates in another, as the TF1 guide recommends:

    finished = processes.run_together({"trainer": ["trainer.py", ckpt_dir], "evaluator": [...]}, timeout_s=60)
    finished["evaluator"].stdout

Each script runs under this interpreter (`sys.executable`) with TensorFlow's start-up banner silenced. The
call returns when every process has exited with status 0. If one fails, or the timeout passes, or the caller
is interrupted (the stop button), every process still running is terminated, then killed, and waited for --
nothing is left behind -- and `ProcessFailed` says which process failed and shows the end of its stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

QUIET_TF = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0", "PYTHONUNBUFFERED": "1"}
STOP_GRACE_S = 3.0
POLL_S = 0.05


class ProcessFailed(RuntimeError):
    """A process exited with an error or ran past the timeout; the message names it and shows its stderr."""


@dataclass
class Finished:
    """A process that ran to the end: its exit status, what it printed, how long it ran."""

    name: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def python_command(script: str | os.PathLike, *args: object) -> list[str]:
    """Return the command that runs `script` with `args` under this notebook's Python."""
    return [sys.executable, str(script), *(str(a) for a in args)]


def stop(process: subprocess.Popen, grace_s: float = STOP_GRACE_S) -> None:
    """Terminate a process, kill it if it is still alive after `grace_s`, and wait for it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def run_together(commands: dict[str, list[str]], timeout_s: float, env: dict[str, str] | None = None,
                 cwd: str | os.PathLike | None = None) -> dict[str, Finished]:
    """Start every command at once; return {name: Finished} when all exited with 0, else raise ProcessFailed.

    Script paths in a command are plain strings: a list from `python_command`, or any argv list.
    """
    environment = {**os.environ, **QUIET_TF, **(env or {})}
    started: dict[str, tuple[subprocess.Popen, object, object, float]] = {}
    ended: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as logs:
        try:
            for name, command in commands.items():
                out = open(Path(logs, f"{name}.out"), "w+")  # noqa: SIM115 (closed in the finally below)
                err = open(Path(logs, f"{name}.err"), "w+")  # noqa: SIM115
                process = subprocess.Popen(command, stdout=out, stderr=err, env=environment, cwd=cwd, text=True)
                started[name] = (process, out, err, time.monotonic())
            deadline = time.monotonic() + timeout_s
            while len(ended) < len(started):
                for name, (process, _, _, began) in started.items():
                    if name not in ended and process.poll() is not None:
                        ended[name] = time.monotonic() - began
                        if process.returncode != 0:
                            raise ProcessFailed(f"{name} exited with status {process.returncode}:\n"
                                                f"{_tail(_read(started[name][2]))}")
                if time.monotonic() > deadline:
                    running = [name for name in started if name not in ended]
                    raise ProcessFailed(f"still running after {timeout_s:g} s, stopped: {', '.join(running)}")
                time.sleep(POLL_S)
            return {name: Finished(name, process.returncode, _read(out), _read(err), ended[name])
                    for name, (process, out, err, _) in started.items()}
        finally:
            for process, out, err, _ in started.values():
                stop(process)
                out.close()
                err.close()


def _read(handle) -> str:
    handle.flush()
    handle.seek(0)
    return handle.read()
