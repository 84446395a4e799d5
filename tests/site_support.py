"""The built course site, served on 127.0.0.1: pytest fixtures shared by tests/test_site.py and
tests/test_site_readers.py (built once per run, however many workers ask)."""

from __future__ import annotations

import fcntl
import functools
import http.server
import json
import threading

import pytest

from tutorial_lib.classroom import site


@pytest.fixture(scope="session")
def built(tmp_path_factory, worker_id):
    """Build the site once for the whole run, whichever pytest-xdist worker asks first (the others wait for it and
    reuse it); return its folder and the build's problems."""
    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    out, record = shared / "site", shared / "site-problems.json"
    with open(shared / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not record.exists():
            lines: list[str] = []
            problems = site.build(out, progress=lines.append)
            assert any(line.startswith("site: built in") for line in lines), "the build prints its summary"
            record.write_text(json.dumps(problems))
        return out, json.loads(record.read_text())


@pytest.fixture(scope="session")
def served(built):
    """Serve the built site on 127.0.0.1 (a free port) from a thread."""
    out, _ = built
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass
