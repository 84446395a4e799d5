"""The live dashboard in a real browser, in two front ends: JupyterLab and Jupyter Notebook 7, each on
127.0.0.1 (random port, token), in Debian's Chromium driven by Playwright. Runs notebook 05 up to its three
scripted runs, checks that the queue bars render and change while training runs, and that each run leaves its
static figure. Then, for students who do not see the bars, it reads Chromium's accessibility tree (Playwright's
aria snapshot): each dashboard has a polite live region (role status) whose line states the verdict and the numbers
and changes while training runs, no more often than every few seconds; each run's figure is an image named by its
text alternative; the knob panel's boxes are labelled spin buttons that the arrow keys change. Saves a screenshot
and the dashboard's aria snapshot per front end under out/browser/.

Skipped, with the reason, when /usr/bin/chromium is missing (`apt-get install chromium` enables it).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
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
    """Return how many cells (from the top) must run to include the last scripted live run and the knob panel."""
    cells = json.loads(path.read_text())["cells"]
    live = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "_run = train_tf1(" in "".join(c["source"])]
    knobs = next(i for i, c in enumerate(cells) if "dashboard.knob_sliders(" in "".join(c["source"]))
    assert knobs > live[LIVE_RUNS - 1], "the knob panel comes after the scripted runs"
    return knobs + 1


@pytest.fixture(params=sorted(FRONT_ENDS))
def lab(request, tmp_path):
    """Start the front end on 127.0.0.1 with a token, on a copy of the notebook with its outputs cleared."""
    notebook = json.loads((ROOT / "notebooks" / NOTEBOOK).read_text())
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (tmp_path / NOTEBOOK).write_text(json.dumps(notebook))
    yield from serve(request.param, tmp_path, NOTEBOOK)


def serve(front_end: str, tmp_path: Path, name: str):
    """Serve `tmp_path` with the front end on 127.0.0.1 with a token; yield what a test needs to open `name`."""
    command, url_path, options = FRONT_ENDS[front_end]
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
        yield front_end, base, base + url_path.format(notebook=name), token, tmp_path / name
    finally:
        stop(server)


STORED = "00_start_here.ipynb"  # a committed notebook with figures, opened as a student opens it: untrusted


@pytest.fixture(params=sorted(FRONT_ENDS))
def stored(request, tmp_path):
    """Start the front end on a copy of a committed notebook, its stored outputs kept."""
    shutil.copyfile(ROOT / "notebooks" / STORED, tmp_path / STORED)
    yield from serve(request.param, tmp_path, STORED)


@contextlib.contextmanager
def open_page(url: str, token: str, selector: str):
    """Open the notebook's URL in headless Chromium with the token; yield the page once `selector` shows."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}?token={token}")
            page.wait_for_selector(selector, timeout=60_000)
            yield page
        finally:
            browser.close()


def test_stored_figures_show_with_their_text_alternative(stored):
    """A figure stored by the course (an <img alt> in text/html) renders, sanitized, as an image whose accessible
    name is its text alternative, in an untrusted notebook (JupyterLab's image/png renderer would give no alt)."""
    from tutorial_lib import plots

    front_end, _, url, token, notebook = stored
    alts = [found[0] for c in json.loads(notebook.read_text())["cells"] for o in c.get("outputs", [])
            if (found := plots.figure_alt(o.get("data", {})))]
    assert alts, f"{STORED} stores no described figure"
    with open_page(url, token, ".jp-OutputArea-output img") as page:
        images = page.locator(".jp-OutputArea-output img")
        page.wait_for_function("n => document.querySelectorAll('.jp-OutputArea-output img').length >= n",
                               arg=len(alts), timeout=60_000)
        for i in range(images.count()):
            images.nth(i).scroll_into_view_if_needed()
        shown = images.evaluate_all("els => els.map(i => [i.alt, i.complete && i.naturalWidth > 0])")
        assert [alt for alt, _ in shown] == alts and all(loaded for _, loaded in shown), shown
        tree = page.locator(".jp-Notebook").aria_snapshot()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / f"stored-figures-aria-{front_end}.yml").write_text(tree)
        for alt in alts:
            assert f'img "{alt}"' in tree, f"no image named {alt!r} in the accessibility tree"


def kernel_idle(base: str, token: str) -> bool:
    """Return whether the server has a session for the notebook whose kernel is idle (any front end)."""
    request = urllib.request.Request(f"{base}/api/sessions", headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=5) as reply:
        sessions = json.loads(reply.read())
    return any(s["path"].endswith(NOTEBOOK) and s["kernel"]["execution_state"] == "idle" for s in sessions)


def test_live_dashboard_renders_and_changes_during_training(lab):
    front_end, base, url, token, notebook = lab
    screenshot = SCREENSHOTS / f"dashboard-{front_end}.png"
    presses = cells_up_to_last_live_run(notebook)
    with open_page(url, token, ".jp-Notebook .jp-Cell") as page:
        deadline = time.time() + 180  # generous: `make test` runs other files beside this one
        while not kernel_idle(base, token):  # the kernel has started and is ready
            assert time.time() < deadline, "the notebook's kernel did not become idle within 180 s"
            time.sleep(0.5)
        page.locator(".jp-Notebook .jp-Cell").first.click()
        for _ in range(presses):
            page.keyboard.press("Shift+Enter")
        page.wait_for_selector(".widget-hprogress", timeout=120_000)
        widths: set[str] = set()
        lines: dict[str, float] = {}  # each live-region line seen, when first seen
        deadline = time.time() + 480  # the loop ends as soon as every run has left its figure
        while time.time() < deadline:
            bars = page.locator(".widget-hprogress .progress-bar")
            widths.update(bars.nth(i).get_attribute("style") or "" for i in range(bars.count()))
            for line in page.locator(".jp-OutputArea-output [role=status]").all_inner_texts():
                if line.strip():
                    lines.setdefault(line, time.time())
            done = page.locator(".jp-OutputArea-output img").count()
            if done >= LIVE_RUNS and page.get_by_role("spinbutton").count():
                break
            time.sleep(0.2)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot), full_page=True)
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        raised = errors.last.inner_text()[-1500:] if errors.count() else "no error shown"
        assert page.locator(".widget-hprogress").count() >= 2 * LIVE_RUNS, f"two queue bars per run; {raised}"
        assert len(widths) >= 3, f"the bars should move during training; saw only {widths}"
        assert page.locator(".jp-OutputArea-output img").count() >= LIVE_RUNS, "each run leaves its figure"
        assert "waiting for input" in page.content()
        check_accessibility_tree(page, front_end, lines)
    assert screenshot.stat().st_size > 10_000
    shutil.rmtree(notebook.parent / ".ipynb_checkpoints", ignore_errors=True)


def check_accessibility_tree(page, front_end: str, lines: dict[str, float]) -> None:
    """The dashboards as assistive technology gets them: Chromium's accessibility tree, through Playwright."""
    from test_accessibility import good_alt

    outputs = page.locator(".jp-OutputArea-output:has(.widget-hprogress)")
    assert outputs.count() >= LIVE_RUNS
    tree = "\n".join(outputs.nth(i).aria_snapshot() for i in range(outputs.count()))
    figures = [page.locator(".jp-OutputArea-output img").nth(i) for i in range(LIVE_RUNS)]
    names = [f.get_attribute("alt") or "" for f in figures]
    knobs = page.locator(".jp-OutputArea-output:has(.widget-text)").last
    knob_tree = knobs.aria_snapshot()
    (SCREENSHOTS / f"dashboard-aria-{front_end}.yml").write_text(
        f"# live dashboards\n{tree}\n# figures (img alt)\n" + "".join(f"- img: {n}\n" for n in names)
        + f"# knob panel\n{knob_tree}\n# live-region lines seen while training\n"
        + "".join(f"- {line}\n" for line in lines))
    assert tree.count("- status:") >= LIVE_RUNS, tree
    for run, verdict in (("Run 1", "input-bound"), ("Run 2", "compute-bound")):
        assert re.search(rf"- status: \"?{run}[^\n]*: finished, {verdict} after \d+ measured steps, waiting for input "
                         rf"\d+% of step time, [\d,]+ examples/s", tree), f"{run}'s final line: {tree}"
        assert any(n.startswith(f"{run}") and f"{verdict}, " in n for n in names), names
    assert all(good_alt(n) for n in names), names
    assert re.search(r'img "fill level of each queue, last \d+ samples; ', tree), "the sparkline has a name"
    changed = False
    for run in (f"Run {k}" for k in range(1, LIVE_RUNS + 1)):
        seen = sorted((t, line) for line, t in lines.items() if line.startswith(run) and "first step" not in line)
        changed |= len(seen) >= 2  # the line changed as the run went on (the final line included)
        during = [t for t, line in seen if ": finished, " not in line]
        gaps = [b - a for a, b in itertools.pairwise(during)]
        assert not gaps or min(gaps) >= 3, f"{run}: the live region changed more often than every few seconds: {gaps}"
    assert changed, f"the live line never changed during a run: {sorted(lines)}"
    box = page.get_by_role("spinbutton", name="reader_threads")
    assert box.count() == 1, knob_tree
    box.focus()
    before = box.input_value()
    page.keyboard.press("ArrowUp")
    assert int(box.input_value()) == int(before) + 1, "the arrow key steps the labelled box"
