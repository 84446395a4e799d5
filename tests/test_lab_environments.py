"""The two JupyterLabs, in a real browser: `make lab` (students, from .venv-student) and `make lab-instructor`
(instructors, from .venv).

Each is started by its own make target (only the port, the token and --no-browser added through LAB_ARGS) on
127.0.0.1 with a fresh Jupyter config, data and runtime folder, and opened in a fresh Chromium context driven by
Playwright. Student: the course's first notebook is listed, no nbgrader menu, command, panel or server
extension, no "official Jupyter news" prompt; and the student environment's Python cannot import the dev and
instructor tools. Instructor: the same, except that nbgrader's menu and its formgrader are there. Screenshots in
out/lab-environments/.

Skipped, with the reason, when /usr/bin/chromium is missing, and when .venv-student is missing (`make test`
builds it first, so it is never skipped there).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from pathlib import Path

import pytest
from browser_support import CHROMIUM, CHROMIUM_FLAGS, free_port, get, needs_chromium, stop, wait_for_jupyter

from tutorial_lib.classroom.course import COURSE

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "out" / "lab-environments"
# environment -> (its make target, its virtual environment)
ENVIRONMENTS = {"student": ("lab", ".venv-student"), "instructor": ("lab-instructor", ".venv")}
# What the student's kernel must not be able to import: the dev tools and the instructor's.
NOT_FOR_STUDENTS = ["pytest", "ruff", "nbval", "nbgrader", "playwright"]
NEEDED_BY_STUDENTS = ["tensorflow", "tutorial_lib", "ipykernel", "ipywidgets", "jupyterlab", "matplotlib"]
NBGRADER_WORDS = ["Nbgrader", "Formgrader", "Assignment List", "Course List", "Create Assignment"]
NEWS_PROMPT = "official Jupyter news"
NEWS_WAIT_S = 4  # how long a page is watched for the news prompt after the file browser has listed the notebooks
FIRST_NOTEBOOK = next(iter(COURSE)) + ".ipynb"

pytestmark = needs_chromium




@pytest.fixture(params=sorted(ENVIRONMENTS))
def lab(request, tmp_path):
    """Run `make lab` or `make lab-instructor` on 127.0.0.1 with a random port and token, fresh Jupyter dirs."""
    name = request.param
    target, venv = ENVIRONMENTS[name]
    if not (ROOT / venv / "bin" / "jupyter").exists():
        pytest.skip(f"{venv} is missing: `make test` builds it first (or `make {venv}/.installed-stamp`)")
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_DATA_DIR": str(tmp_path / "data"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    env.pop("JUPYTER_PATH", None)
    env.pop("JUPYTER_CONFIG_PATH", None)
    lab_args = f"--no-browser --ServerApp.port={port} --ServerApp.port_retries=0 --IdentityProvider.token={token}"
    # -o: never (re)install an environment from here; make only copies the lab settings in if they are missing.
    command = ["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "-o", ".venv-student/.installed-stamp",
               target, f"LAB_ARGS={lab_args}"]
    log = tmp_path / "server.log"
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    wait_for_jupyter(server, base, token, log, f"`make {target}`")
    try:
        yield name, base, token, log
    finally:
        stop(server)


def test_each_environment_opens_the_course_with_only_its_own_tools(lab):
    from playwright.sync_api import sync_playwright

    name, base, token, log = lab
    assert f"http://127.0.0.1:{base.rsplit(':', 1)[1]}/lab" in log.read_text(), log.read_text()[-2000:]
    assert get(f"{base}/api/status", "not-the-token")[0] == 403, "the server must ask for its token"
    # The setting the news prompt reads ("none", the default: ask; "false": never fetch, never ask), as this
    # server's defaults have it after the environment's overrides (lab-settings/overrides.json).
    status, body = get(f"{base}/lab/api/settings/@jupyterlab/apputils-extension:notification", token)
    assert status == 200, body[:500]
    defaults = {key: value.get("default") for key, value in json.loads(body)["schema"]["properties"].items()}
    assert defaults["fetchNews"] == "false", f"the lab settings override is not installed: {defaults}"
    # nbgrader's server side: the formgrader answers in the instructor's JupyterLab only.
    formgrader_status = get(f"{base}/formgrader", token)[0]
    page_config = get(f"{base}/lab?token={token}", token)[1].decode()
    screenshot = SCREENSHOTS / f"{name}.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            page.goto(f"{base}/lab?token={token}")
            page.locator(".jp-DirListing-itemText", has_text=FIRST_NOTEBOOK).first.wait_for(timeout=60_000)
            page.wait_for_selector(".lm-MenuBar-itemLabel", timeout=30_000)
            deadline = time.time() + NEWS_WAIT_S
            news = 0
            while time.time() < deadline and not news:
                news = page.get_by_text(NEWS_PROMPT).count()
                time.sleep(0.25)
            menus = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
            # The side panels (nbgrader's "Create Assignment" is one on the right), by their tabs' labels and titles.
            tabs = page.locator(".jp-SideBar .lm-TabBar-tab")
            panels = " | ".join(page.locator(".jp-SideBar .lm-TabBar-tabLabel").all_inner_texts()
                                + [tabs.nth(i).get_attribute("title") or "" for i in range(tabs.count())])
            # Every command the front end knows, as the command palette lists them for a search.
            page.keyboard.press("Control+Shift+C")
            palette = page.locator(".lm-CommandPalette-input")
            palette.wait_for(timeout=10_000)
            found = {}
            for word in NBGRADER_WORDS:
                palette.fill(word)
                page.wait_for_timeout(200)
                found[word] = page.locator(".lm-CommandPalette-item", has_text=word).count()
            palette.fill("")
            page.keyboard.press("Escape")
            if name == "instructor":
                page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
                page.locator(".lm-Menu-itemLabel", has_text="Formgrader").first.wait_for(timeout=10_000)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot))
            listed = page.locator(".jp-DirListing-itemText").all_inner_texts()
        finally:
            browser.close()
    assert FIRST_NOTEBOOK in listed, f"the file browser should list the course's first notebook; it lists {listed}"
    assert news == 0, f"the '{NEWS_PROMPT}' prompt appeared in the {name}'s JupyterLab"
    assert "File" in menus and "Kernel" in menus, f"JupyterLab's menu bar did not load: {menus}"
    if name == "student":
        assert "Nbgrader" not in menus, f"the student's JupyterLab shows nbgrader's menu: {menus}"
        assert "Create Assignment" not in panels, f"the student's JupyterLab has nbgrader's panel: {panels}"
        assert not any(found.values()), f"nbgrader commands in the student's JupyterLab: {found}"
        assert formgrader_status == 404, f"the student's server answers /formgrader with {formgrader_status}"
        assert "nbgrader" not in page_config.lower(), "the student's page config names an nbgrader extension"
    else:
        assert "Nbgrader" in menus, f"the instructor's JupyterLab should show nbgrader's menu: {menus}"
        assert "Create Assignment" in panels, f"the instructor's JupyterLab lacks nbgrader's panel: {panels}"
        assert found["Formgrader"] and found["Create Assignment"], f"nbgrader's commands are missing: {found}"
        assert formgrader_status == 200, f"the instructor's server answers /formgrader with {formgrader_status}"
    assert screenshot.stat().st_size > 10_000


def test_student_environment_has_the_course_and_not_the_dev_or_instructor_tools():
    python = ROOT / ".venv-student" / "bin" / "python"
    if not python.exists():
        pytest.skip(".venv-student is missing: `make test` builds it first (or `make .venv-student/.installed-stamp`)")
    probe = ("import importlib.util, json, sys; "
             "print(json.dumps({m: getattr(importlib.util.find_spec(m), 'origin', None) for m in sys.argv[1:]}))")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([str(python), "-c", probe, *NOT_FOR_STUDENTS, *NEEDED_BY_STUDENTS], cwd=ROOT / "notebooks",
                          env=env, capture_output=True, text=True, timeout=60, check=True)
    origins = json.loads(done.stdout)
    importable = [m for m in NOT_FOR_STUDENTS if origins[m]]
    assert not importable, f"the student environment can import {importable}"
    missing = [m for m in NEEDED_BY_STUDENTS if not origins[m]]
    assert not missing, f"the student environment lacks {missing}"
    assert Path(origins["tutorial_lib"]).resolve().is_relative_to(ROOT), (
        f"the student kernel should import this checkout's tutorial_lib, not {origins['tutorial_lib']}")
