"""The built course site, served on 127.0.0.1: pytest fixtures shared by tests/test_site.py and
tests/test_site_readers.py (each module builds the site once)."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from tutorial_lib.classroom import site


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the site once for this module; return its folder and the build's problems."""
    out = tmp_path_factory.mktemp("site") / "site"
    lines: list[str] = []
    problems = site.build(out, progress=lines.append)
    assert any(line.startswith("site: built in") for line in lines), "the build prints its progress and summary"
    return out, problems


@pytest.fixture(scope="module")
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
