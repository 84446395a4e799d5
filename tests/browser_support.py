"""What the real-browser tests share: Debian's Chromium, its flags, a free port, a server started and stopped."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# No sandbox (CI runs as root), no GPU, and nothing that reaches out: the tests run offline.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="the browser test needs Debian's Chromium at /usr/bin/chromium: `apt-get install chromium` "
           "(.ci/run installs it)")


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str, token: str) -> tuple[int, bytes]:
    """GET a server URL with the token in the header; return (status, body), 4xx/5xx included."""
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wait_for_jupyter(server: subprocess.Popen, base: str, token: str, log: Path, what: str) -> None:
    """Wait up to 60 s for a Jupyter server's /api/status; fail the test with its log's tail if it never answers."""
    deadline = time.time() + 60
    while time.time() < deadline and server.poll() is None:
        try:
            if get(f"{base}/api/status", token)[0] == 200:
                return
        except OSError:
            time.sleep(0.3)
    stop(server)
    pytest.fail(f"{what} did not start a Jupyter server: {log.read_text()[-2000:]}")


def stop(server: subprocess.Popen) -> None:
    """Stop a server started in its own session, with everything it started (SIGTERM, then SIGKILL after 30 s)."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
