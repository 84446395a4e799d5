"""A class on a real JupyterHub, end to end (`make hub-test`, run by `.ci/run`; root only): the hub of
tests/hub_support.py, set up as docs/instructors/hub.md says, driven in Chromium as its people would.

The instructor logs in and, in a JupyterLab terminal, writes the nbgrader course, generates and releases
`00_start_here`; three students log in, fetch it in the Assignments tab, answer in the notebook (right, a typical
mistake, tampering) and press Submit; three more hand in broken notebooks through the same exchange from their shells;
the instructor collects, grades with `sudo python -m tutorial_lib grade`, generates and releases feedback and exports
the grades; every student fetches their feedback and sees their own score and hints. Who can read what is checked as
each user, and two students run notebook 05's live dashboard at once while each server's memory is measured.
Screenshots go to out/hub-test/.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import pwd
import re
import shutil
import threading
import time
from pathlib import Path

import pytest
from hub_support import (
    BROWSER_STUDENTS,
    COURSE_ID,
    EXCHANGE,
    EXCHANGE_STUDENTS,
    FORMGRADER_SERVER,
    INSTRUCTOR,
    INSTRUCTOR_TOOLS,
    ROOT,
    STUDENTS,
    as_user,
    build_wheel,
    chromium,
    create_accounts,
    environment,
    install_course,
    install_proxy,
    memory_mib_by_user,
    private_homes,
    set_up_exchange,
    start_hub,
    tear_down,
)

pytestmark = [
    pytest.mark.skipif(os.environ.get("HUB_TEST") != "1", reason="`make hub-test` runs it (a hub, Unix accounts)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the hub test adds Unix accounts and runs JupyterHub: root only"),
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs Debian's Chromium (.ci/run installs it)"),
]

ASSIGNMENT = "00_start_here"
SHOTS = ROOT / "out" / "hub-test"
MEMORY_PER_USER_MIB = 2.5 * 1024  # the guide: "give each user at least 2.5 GB while one notebook's kernel runs"
RIGHT = {
    "count_label": "def count_label(labels, digit):\n    return int(np.sum(labels == digit))\n",
    "invert": "def invert(vocab):\n    return {i: word for word, i in vocab.items()}\n",
    "atom_count": "def atom_count(molecule, symbol):\n"
                  "    return sum(datasets.SPECIES[int(z)] == symbol for z in molecule.species)\n",
}
MISTAKE = "def count_label(labels, digit):\n    return labels == digit\n"
# Tampering, run in the grader's kernel: overwrite the gradebook and a classmate's notebook, signal every process it
# may, forge the checker; then a wrong answer.
TAMPER = f"""import os
import signal

for target in ("/home/{INSTRUCTOR}/data-into-tf-course/gradebook.db", "/home/hub-ana/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"):
    try:
        with open(target, "w") as file:
            file.write("")
    except OSError as error:
        print("blocked:", error)
os.kill(-1, signal.SIGKILL)
exercises.check_count_label = lambda *args, **kwargs: None
exercises.require = lambda *args, **kwargs: None


def count_label(labels, digit):
    return 0
"""
ANSWERS = {"hub-ana": RIGHT, "hub-ben": {**RIGHT, "count_label": MISTAKE}, "hub-cai": {**RIGHT, "count_label": TAMPER}}
EXPECTED = {"hub-ana": 3, "hub-ben": 2, "hub-cai": 2, "hub-dan": 2, "hub-eve": 2, "hub-fay": 0}
FEEDBACK_LINES = {  # what each student must read in their feedback
    "hub-ana": ["3.0 / 3.0"],
    "hub-ben": ["2.0 / 3.0", "Comparing gives one True/False per example; add them up."],
    "hub-cai": ["2.0 / 3.0", "Test cell (Score: 0.0 / 1.0)", "blocked:"],  # its kernel's print: the paths are not there
    "hub-dan": ["has no answer cell `ex1_count_label`", "fetch the assignment again"],
    "hub-eve": ["has no answer cell `ex2_invert`", "fetch the assignment again"],
    "hub-fay": ["is not valid notebook JSON", "open it in JupyterLab, save it, and submit again"],
}
STEPS: dict[str, float] = {}  # seconds per step, printed at the end


def home(user: str) -> Path:
    return Path(pwd.getpwnam(user).pw_dir)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """The hub, set up from a fresh wheel as the guide says; everything but the environment undone afterwards."""
    started = time.perf_counter()
    work = tmp_path_factory.mktemp("hub")
    SHOTS.mkdir(parents=True, exist_ok=True)
    install_course(build_wheel(work))
    proxy = install_proxy()
    STEPS["install (wheel, environment, proxy)"] = time.perf_counter() - started
    created_exchange, the_hub = set_up_exchange(), None
    try:
        passwords = create_accounts()
        # Debian's useradd (as TLJH calls it) leaves every home readable by every account: the guide's step fixes it.
        readable = as_user("hub-ana", f"ls /home/{INSTRUCTOR} /home/hub-ben", check=False).returncode == 0
        private_homes()
        source = home(INSTRUCTOR) / "data-into-tf-source"
        shutil.copytree(ROOT / "notebooks", source / "notebooks")
        shutil.chown(source, INSTRUCTOR, INSTRUCTOR)
        for path in source.rglob("*"):
            shutil.chown(path, INSTRUCTOR, INSTRUCTOR)
        source.chmod(0o700)
        as_user(INSTRUCTOR, " && ".join(  # the guide's commands, as the instructor
            [f"jupyter labextension enable --level=user {tool}" for tool in INSTRUCTOR_TOOLS]
            + ["mkdir -p ~/.jupyter",
               f"""echo '{{"ServerApp": {{"jpserver_extensions": {{"{FORMGRADER_SERVER}": true}}}}}}' """
               "> ~/.jupyter/jupyter_server_config.json"]))
        the_hub = start_hub(passwords, proxy, work)
        the_hub.created_exchange = created_exchange
        the_hub.notes.append(f"homes as useradd made them were readable by another student: {readable}")
        STEPS["accounts and hub"] = time.perf_counter() - started - sum(STEPS.values())
        yield the_hub
    finally:
        tear_down(the_hub, created_exchange)
        print("\nhub test steps: " + "; ".join(f"{name} {seconds:.0f} s" for name, seconds in STEPS.items()))
        print("\n".join(the_hub.notes if the_hub else []))


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chrome = chromium(playwright)
        yield chrome
        chrome.close()


def log_in(browser, hub, user: str):
    """A new browser profile: the hub's login page, the user's name and password, then their JupyterLab."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{hub.url}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", hub.passwords[user])
    page.click("#login_submit")
    page.wait_for_selector(".jp-LabShell", timeout=180_000)
    page.goto(f"{hub.url}/user/{user}/lab?reset")  # without the tabs an earlier visit left open
    page.wait_for_selector(".jp-LabShell", timeout=60_000)
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=60_000)
    page.wait_for_selector(".lm-MenuBar-itemLabel >> text=Nbgrader", timeout=60_000)
    return page


def menu(page, *labels: str) -> None:
    """Click a menu bar item, then each menu entry in turn (hovering submenus)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=labels[0]).click()
    for label in labels[1:-1]:
        page.locator(".lm-Menu-itemLabel", has_text=label).first.hover()
    page.locator(".lm-Menu:visible .lm-Menu-itemLabel", has_text=labels[-1]).first.click()


def in_terminal(page, user: str, command: str, name: str, timeout: float = 600) -> tuple[int, str]:
    """Open a JupyterLab terminal and type a command into it (output to a log in the user's home); return its exit
    status and output once it ends."""
    rc, log, ready = (home(user) / f".hub-test-{name}.{kind}" for kind in ("rc", "log", "ready"))
    menu(page, "File", "New", "Terminal")
    terminal = page.locator(".jp-Terminal >> visible=true")
    terminal.wait_for(timeout=60_000)
    deadline = time.time() + 60
    while not ready.exists():  # keystrokes typed before the terminal's socket is up are lost: type until one lands
        assert time.time() < deadline, f"{user}'s terminal never ran a command"
        terminal.click()
        page.keyboard.type(f"touch {ready}\n")
        page.wait_for_timeout(2000)
    page.keyboard.type(f"( {command} ) > {log} 2>&1; echo $? > {rc}\n")
    deadline = time.time() + timeout
    while not rc.exists() or not rc.read_text().strip():
        assert time.time() < deadline, f"{name} did not finish in {timeout:.0f} s: {log.read_text()[-2000:]}"
        time.sleep(1)
    return int(rc.read_text()), log.read_text()


def assignment_list(page) -> None:
    """The Assignments tab: Nbgrader → Assignment List."""
    menu(page, "Nbgrader", "Assignment List")
    page.wait_for_selector("text=Released assignments", timeout=60_000)


def wait_for(condition, what: str, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, f"gave up waiting for {what}"
        time.sleep(0.5)


def test_only_the_instructor_sees_the_formgrader_and_create_assignment(hub, browser):
    started = time.perf_counter()
    for user, shown in ((INSTRUCTOR, True), ("hub-ana", False)):
        page = log_in(browser, hub, user)
        page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        entries = [e.strip() for e in page.locator(".lm-Menu:visible .lm-Menu-itemLabel").all_inner_texts()]
        page.keyboard.press("Escape")
        tabs = page.locator(".jp-SideBar .lm-TabBar-tab").evaluate_all(
            "tabs => tabs.map(tab => tab.getAttribute('title') || '')")
        formgrader = page.request.get(f"{hub.url}/user/{user}/formgrader").status
        assert ("Formgrader" in entries) is shown, (user, entries)
        assert ("Create assignment" in entries) is shown, (user, entries)
        assert any("Create Assignment" in tab for tab in tabs) is shown, (user, tabs)
        assert (formgrader == 200) is shown, (user, formgrader)
        assert "Assignment List" in entries, (user, entries)
        page.context.close()
    STEPS["formgrader check"] = time.perf_counter() - started


def test_the_instructor_releases_00_from_a_terminal_in_jupyterlab(hub, browser):
    started = time.perf_counter()
    page = log_in(browser, hub, INSTRUCTOR)
    status, output = in_terminal(page, INSTRUCTOR, (
        "python -m tutorial_lib nbgrader ~/data-into-tf-course --notebooks ~/data-into-tf-source/notebooks"
        f" && cd ~/data-into-tf-course && nbgrader generate_assignment {ASSIGNMENT}"
        f" && nbgrader release_assignment {ASSIGNMENT}"), "release")
    page.screenshot(path=str(SHOTS / "instructor-terminal-release.png"))
    page.context.close()
    assert status == 0, output[-3000:]
    assert (EXCHANGE / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()
    STEPS["instructor releases"] = time.perf_counter() - started


def answer_in_notebook(page, hub, user: str, answers: dict[str, str]) -> None:
    """Open the fetched notebook, replace each answer cell's text by typing into it, save."""
    notebook = home(user) / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    page.goto(f"{hub.url}/user/{user}/lab/tree/{ASSIGNMENT}/{ASSIGNMENT}.ipynb?reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    for name, source in answers.items():
        cell = page.locator(".jp-Notebook .jp-CodeCell", has_text=f"def {name}(").filter(has_text="YOUR CODE HERE")
        cell.scroll_into_view_if_needed()
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+A")
        page.keyboard.insert_text(source)
    page.keyboard.press("Control+S")

    def saved() -> bool:
        cells = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"]]
        return all(any(source.strip() == text.strip() for text in cells) for source in answers.values())
    wait_for(saved, f"{user}'s answers saved in {notebook}")


def test_each_student_fetches_answers_and_submits_in_the_assignments_tab(hub, browser):
    started = time.perf_counter()
    for user in BROWSER_STUDENTS:
        page = log_in(browser, hub, user)
        assignment_list(page)
        page.get_by_role("button", name="Fetch", exact=True).first.click()
        wait_for(lambda user=user: (home(user) / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file(), f"{user}'s fetch")
        if user == "hub-ana":
            page.wait_for_timeout(1000)
            page.screenshot(path=str(SHOTS / "student-assignments-fetched.png"))
        answer_in_notebook(page, hub, user, ANSWERS[user])
        assignment_list(page)
        page.get_by_role("button", name="Submit", exact=True).first.click()
        wait_for(lambda user=user: any(p.name.startswith(f"{user}+{ASSIGNMENT}+")
                             for p in (EXCHANGE / COURSE_ID / "inbound").iterdir()), f"{user}'s submission")
        if user == "hub-ana":
            page.wait_for_timeout(1500)
            page.screenshot(path=str(SHOTS / "student-assignments-submitted.png"))
        page.context.close()
    STEPS["three students fetch, answer, submit"] = time.perf_counter() - started


BREAKAGE = {  # run as the student on their fetched notebook: what each hands in
    "hub-dan": "cells = [c for c in nb['cells'] if c['metadata'].get('nbgrader', {}).get('grade_id') != "
               "'ex1_count_label']",
    "hub-eve": "cells = nb['cells']\n"
               "for c in cells:\n"
               "    if c['metadata'].get('nbgrader', {}).get('grade_id') == 'ex2_invert':\n"
               "        c['metadata']['nbgrader']['grade_id'] = 'my_invert'",
}


def test_broken_notebooks_go_through_the_exchange_from_students_shells(hub):
    started = time.perf_counter()
    for user in EXCHANGE_STUDENTS:
        as_user(user, f"nbgrader fetch_assignment {ASSIGNMENT} --course {COURSE_ID}")
        path = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        if user == "hub-fay":
            edit = f"printf '{{\"cells\": [' > {path}"
        else:
            right = json.dumps(RIGHT)
            edit = ("python - <<'EOF'\nimport json\n"
                    f"nb = json.load(open('{path}'))\nright = json.loads({right!r})\n"
                    "for c in nb['cells']:\n"
                    "    if c['metadata'].get('nbgrader', {}).get('solution'):\n"
                    "        name = next((n for n in right if f'def {n}(' in ''.join(c['source'])), None)\n"
                    "        if name:\n"
                    "            c['source'] = right[name]\n"
                    f"{BREAKAGE[user]}\nnb['cells'] = cells\njson.dump(nb, open('{path}', 'w'))\nEOF")
        as_user(user, edit)
        as_user(user, f"nbgrader submit {ASSIGNMENT} --course {COURSE_ID}")
    STEPS["three broken submissions"] = time.perf_counter() - started


def test_a_student_reads_nothing_but_their_own(hub):
    course = home(INSTRUCTOR) / "data-into-tf-course"
    inbound = EXCHANGE / COURSE_ID / "inbound"
    bens = next(p for p in inbound.iterdir() if p.name.startswith("hub-ben+"))
    refused = {
        "another student's home": "ls /home/hub-ben",
        "another student's notebook": f"cat /home/hub-ben/{ASSIGNMENT}/{ASSIGNMENT}.ipynb",
        "the instructor's course directory": f"ls {course}",
        "the solutions (source/)": f"cat {course}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb",
        "the gradebook": f"cat {course}/gradebook.db",
        "the exchange's submissions (listing)": f"ls {inbound}",
        "the instructor's clone": f"ls /home/{INSTRUCTOR}/data-into-tf-source",
        "another student's submission by a guessed name": f"cat {inbound}/hub-ben+{ASSIGNMENT}+*/{ASSIGNMENT}.ipynb",
    }
    for what, command in refused.items():
        done = as_user("hub-ana", command, check=False)
        assert done.returncode != 0 and not done.stdout.strip(), f"hub-ana could read {what}: {done.stdout[:300]}"
    assert bens.is_dir()
    # The installed course every user's server runs holds the student edition: no reference solution to read.
    solution = RIGHT["count_label"].splitlines()[1].strip()
    found = as_user("hub-ana", f"grep -rl --include='*.ipynb' -F '{solution}' {environment()}", check=False)
    assert found.stdout == "", f"a solution in the shared environment: {found.stdout[:300]}"
    own = as_user("hub-ana", f"cat ~/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", check=False)
    assert own.returncode == 0 and "count_label" in own.stdout, "hub-ana reads her own notebook"


def test_the_instructor_collects_grades_and_releases_feedback(hub, browser):
    started = time.perf_counter()
    page = log_in(browser, hub, INSTRUCTOR)
    status, output = in_terminal(page, INSTRUCTOR, (
        f"cd ~/data-into-tf-course && nbgrader collect {ASSIGNMENT}"
        f' && sudo "$(which python)" -m tutorial_lib grade . {ASSIGNMENT}'
        f" && nbgrader generate_feedback {ASSIGNMENT} && nbgrader release_feedback {ASSIGNMENT}"
        " && nbgrader export"), "grade", timeout=900)
    page.screenshot(path=str(SHOTS / "instructor-terminal-grade.png"))
    page.context.close()
    assert status == 0, output[-4000:]
    print(output[output.find("hub-"):][:2000] if "hub-" in output else output[-2000:])
    rows = list(csv.DictReader(io.StringIO((home(INSTRUCTOR) / "data-into-tf-course" / "grades.csv").read_text())))
    scores = {row["student_id"]: float(row["score"]) for row in rows if row["assignment"] == ASSIGNMENT}
    assert scores == {student: float(points) for student, points in EXPECTED.items()}, scores
    STEPS["instructor collects, grades, releases feedback"] = time.perf_counter() - started


def feedback_html(user: str) -> str:
    found = sorted((home(user) / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
    assert found, f"no feedback fetched for {user}"
    return html.unescape(re.sub(r"<[^>]+>", "", found[-1].read_text()))  # its text, as a reader sees it


def test_each_student_sees_their_own_score_and_hints(hub, browser):
    started = time.perf_counter()
    for user in BROWSER_STUDENTS:
        page = log_in(browser, hub, user)
        assignment_list(page)
        page.get_by_role("button", name="Fetch Feedback").first.click()
        wait_for(lambda user=user: list((home(user) / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html")),
                 f"{user}'s feedback")
        path = sorted((home(user) / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))[-1]
        relative = path.relative_to(home(user))
        page.goto(f"{hub.url}/user/{user}/files/{relative}")
        page.wait_for_load_state()
        text = page.locator("body").inner_text()
        for line in FEEDBACK_LINES[user]:
            assert line in text, f"{user}'s feedback lacks {line!r}"
        page.screenshot(path=str(SHOTS / f"feedback-{user}.png"), full_page=False)
        page.locator("a", has_text="Test cell").first.click()  # the first exercise's checker, with its hint
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / f"feedback-{user}-exercise-1.png"), full_page=False)
        page.context.close()
    for user in EXCHANGE_STUDENTS:
        as_user(user, f"nbgrader fetch_feedback {ASSIGNMENT} --course {COURSE_ID}")
        text = feedback_html(user)
        for line in FEEDBACK_LINES[user]:
            assert line in text, f"{user}'s feedback lacks {line!r}"
    own = {"hub-ben": "return labels == digit", "hub-cai": "os.kill(-1, signal.SIGKILL)"}  # answers only they gave
    for user in STUDENTS:  # each fetched their own feedback, and no one else's
        text = feedback_html(user)
        for owner, line in own.items():
            assert (line in text) is (owner == user), f"{user}'s feedback and {owner}'s answer {line!r}"
    STEPS["students fetch feedback"] = time.perf_counter() - started


def test_two_students_run_the_live_dashboard_at_once(hub, browser):
    started = time.perf_counter()
    students = ("hub-ana", "hub-ben")
    notebook = "05_live_dashboard.ipynb"
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    live = [i for i, c in enumerate(cells) if "_run = train_tf1(" in "".join(c["source"])][:3]  # 3 scripted runs
    peaks = {user: {"Rss": 0.0, "Pss": 0.0} for user in students}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            for user, now in memory_mib_by_user(students).items():
                for kind, mib in now.items():
                    peaks[user][kind] = max(peaks[user][kind], mib)
            stop.wait(0.5)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    pages = {}
    try:
        for user in students:
            as_user(user, "python -m tutorial_lib start ~/course > /dev/null")
            page = log_in(browser, hub, user)
            page.goto(f"{hub.url}/user/{user}/lab/tree/course/{notebook}?reset")
            page.wait_for_selector(".jp-NotebookPanel:visible .jp-Cell", timeout=60_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
            menu(page, "Edit", "Clear Outputs of All Cells")  # the installed copy carries the stored run's outputs
            page.wait_for_function("document.querySelectorAll('.jp-OutputArea-output img').length === 0")
            pages[user] = page
        for page in pages.values():  # both start, then both run at once
            page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
            for _ in range(live[-1] + 1):
                page.keyboard.press("Shift+Enter")
        widths = {user: set() for user in students}
        deadline = time.time() + 300
        while time.time() < deadline:
            for user, page in pages.items():
                bars = page.locator(".widget-hprogress .progress-bar")
                widths[user].update(bars.nth(i).get_attribute("style") or "" for i in range(bars.count()))
            if all(page.locator(".jp-OutputArea-output img").count() >= len(live) for page in pages.values()):
                break
            time.sleep(0.3)
        for user, page in pages.items():
            page.screenshot(path=str(SHOTS / f"dashboard-{user}.png"))
        for user, page in pages.items():
            errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            shown = errors.last.inner_text()[-800:] if errors.count() else ""
            assert len(widths[user]) >= 3, f"{user}'s dashboard did not move: {widths[user]} {shown}"
            figures = page.locator(".jp-OutputArea-output img").count()
            assert figures >= len(live), f"{user}: a run left no figure {shown}"
    finally:
        stop.set()
        sampler.join()
        for page in pages.values():
            page.context.close()
    print("peak memory of each user's server and kernel: " + ", ".join(
        f"{user} {peak['Rss']:.0f} MiB resident ({peak['Pss']:.0f} MiB proportional)" for user, peak in peaks.items()))
    (SHOTS / "memory.json").write_text(json.dumps(peaks))
    for user, peak in peaks.items():
        assert 300 < peak["Pss"] <= peak["Rss"] < MEMORY_PER_USER_MIB, f"{user}: {peak} against the guide's 2.5 GB"
    STEPS["two live dashboards at once"] = time.perf_counter() - started
