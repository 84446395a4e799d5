"""The live dashboard in a real browser, in two front ends: JupyterLab and Jupyter Notebook 7, each on
127.0.0.1 (random port, token), in Debian's Chromium driven by Playwright. Runs notebook 05 up to its three
scripted runs, checks that the queue bars render and change while training runs, and that each run leaves its
static figure. Saves a screenshot per front end under out/browser/.

Skipped, with the reason, when /usr/bin/chromium is missing (`apt-get install chromium` enables it).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser_support import CHROMIUM, CHROMIUM_FLAGS, free_port, needs_chromium, stop, wait_for_jupyter

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "out" / "browser"
# front end -> (the jupyter subcommand that serves it, the notebook's URL path, its app's extra options)
FRONT_ENDS = {
    "jupyterlab": ("lab", "/lab/tree/{notebook}", ["--LabApp.news_url=",
                                                   "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]),
    "notebook7": ("notebook", "/notebooks/{notebook}", []),
}
NOTEBOOK = "05_live_dashboard.ipynb"
LIVE_RUNS = 3  # the three scripted runs: input-bound, compute-bound, balanced

pytestmark = needs_chromium



def cells_up_to_last_live_run(path: Path) -> int:
    """Return how many cells (from the top) must run to include the last scripted live run."""
    cells = json.loads(path.read_text())["cells"]
    live = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "_run = train_tf1(" in "".join(c["source"])]
    return live[LIVE_RUNS - 1] + 1


@pytest.fixture(params=sorted(FRONT_ENDS))
def lab(request, tmp_path):
    """Start the front end on 127.0.0.1 with a token, on a copy of the notebook with its outputs cleared."""
    front_end = request.param
    command, url_path, options = FRONT_ENDS[front_end]
    notebook = json.loads((ROOT / "notebooks" / NOTEBOOK).read_text())
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (tmp_path / NOTEBOOK).write_text(json.dumps(notebook))
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_PREFER_ENV_PATH": "1", "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", command, "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={tmp_path}", *options, *(["--allow-root"] if os.geteuid() == 0 else [])],
        env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "server.log", "w"), start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    wait_for_jupyter(server, base, token, tmp_path / "server.log", f"jupyter {command}")
    try:
        yield front_end, base, base + url_path.format(notebook=NOTEBOOK), token, tmp_path / NOTEBOOK
    finally:
        stop(server)


def kernel_idle(base: str, token: str) -> bool:
    """Return whether the server has a session for the notebook whose kernel is idle (any front end)."""
    request = urllib.request.Request(f"{base}/api/sessions", headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=5) as reply:
        sessions = json.loads(reply.read())
    return any(s["path"].endswith(NOTEBOOK) and s["kernel"]["execution_state"] == "idle" for s in sessions)


def test_live_dashboard_renders_and_changes_during_training(lab):
    from playwright.sync_api import sync_playwright

    front_end, base, url, token, notebook = lab
    screenshot = SCREENSHOTS / f"dashboard-{front_end}.png"
    presses = cells_up_to_last_live_run(notebook)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            deadline = time.time() + 180  # generous: `make test` runs other files beside this one
            while not kernel_idle(base, token):  # the kernel has started and is ready
                assert time.time() < deadline, "the notebook's kernel did not become idle within 180 s"
                time.sleep(0.5)
            page.locator(".jp-Notebook .jp-Cell").first.click()
            for _ in range(presses):
                page.keyboard.press("Shift+Enter")
            page.wait_for_selector(".widget-hprogress", timeout=120_000)
            widths: set[str] = set()
            deadline = time.time() + 480  # the loop ends as soon as every run has left its figure
            while time.time() < deadline:
                bars = page.locator(".widget-hprogress .progress-bar")
                widths.update(bars.nth(i).get_attribute("style") or "" for i in range(bars.count()))
                done = page.locator(".jp-OutputArea-output img").count()
                if done >= LIVE_RUNS:
                    break
                time.sleep(0.2)
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
            assert page.locator(".widget-hprogress").count() >= 2 * LIVE_RUNS, "two queue bars per run"
            assert len(widths) >= 3, f"the bars should move during training; saw only {widths}"
            assert page.locator(".jp-OutputArea-output img").count() >= LIVE_RUNS, "each run leaves its figure"
            assert "waiting for input" in page.content()
        finally:
            browser.close()
    assert screenshot.stat().st_size > 10_000
    shutil.rmtree(notebook.parent / ".ipynb_checkpoints", ignore_errors=True)
