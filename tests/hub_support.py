"""The hub of `make hub-test` (tests/test_hub.py), set up as docs/instructors/hub.md tells a hub's admin: one Python
environment every user's server runs in, with the course installed from its wheel; real Unix accounts that log in
with their passwords (PAM); nbgrader's exchange; the instructor tools switched off for everyone and back on for the
instructor; a real JupyterHub on 127.0.0.1 with the local process spawner and configurable-http-proxy.

Everything here runs as root (it adds and removes accounts) and undoes what it did when the test ends, except the
environment and the proxy under HUB_ROOT, kept for the next run (the course's wheel is reinstalled every run).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from browser_support import CHROMIUM_FLAGS, free_port  # noqa: E402
from checkout_support import copy_checkout  # noqa: E402

HUB_ROOT = Path(os.environ.get("HUB_ROOT", "/opt/data-into-tf-hub-test"))  # like TLJH's /opt/tljh: every user reads it
SYSTEM_PYTHON = "/usr/bin/python3"  # the venv's interpreter must be one every account can run (not under /root)
EXCHANGE = Path("/usr/local/share/nbgrader/exchange")  # nbgrader's default Exchange.root, as the guide keeps it
COURSE_ID = "data-into-tf"
INSTRUCTOR = "hub-instructor"
BROWSER_STUDENTS = ("hub-ana", "hub-ben", "hub-cai")  # in Chromium: right, a typical mistake, tampering
EXCHANGE_STUDENTS = ("hub-dan", "hub-eve", "hub-fay")  # from their shell: no answer cell, a changed cell ID, not JSON
STUDENTS = BROWSER_STUDENTS + EXCHANGE_STUDENTS
ADMIN_GROUP = "jupyterhub-admins"  # TLJH's: its members may sudo
SUDOERS = Path("/etc/sudoers.d/data-into-tf-hub-test")
INSTRUCTOR_TOOLS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment")
FORMGRADER_SERVER = "nbgrader.server_extensions.formgrader"


def sh(command: list[str], timeout: int = 900, **kwargs) -> subprocess.CompletedProcess:
    """Run a command as root; fail with its output when it fails."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, command))}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def environment() -> Path:
    """The environment every user's server runs in."""
    return HUB_ROOT / "env"


def as_user(user: str, command: str, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run a shell command as `user` in their home, with a clean environment whose PATH starts with the course's."""
    home = pwd.getpwnam(user).pw_dir
    done = subprocess.run(
        ["runuser", "-u", user, "--", "env", "-i", f"HOME={home}", f"USER={user}", "LANG=C.UTF-8",
         f"PATH={environment() / 'bin'}:/usr/bin:/bin", "bash", "-c", command],
        capture_output=True, text=True, timeout=timeout, cwd=home, stdin=subprocess.DEVNULL)
    if check:
        assert done.returncode == 0, f"as {user}: {command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def build_wheel(tmp: Path) -> Path:
    """Build the course's wheel offline from a copy of the repository's files, as tests/test_installed.py does."""
    source = copy_checkout(tmp / "source")
    sh([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(tmp / "dist"), str(source)])
    wheel, = (tmp / "dist").glob("*.whl")
    return wheel


def install_course(wheel: Path) -> None:
    """The guide's install: the course with its `lab` and `instructor` extras from the wheel, into the environment every
    server runs in (with JupyterHub, which TLJH's environment has), then the instructor tools off for everyone."""
    HUB_ROOT.mkdir(parents=True, exist_ok=True)
    HUB_ROOT.chmod(0o755)
    python = environment() / "bin" / "python"
    if not python.exists():
        sh([SYSTEM_PYTHON, "-m", "venv", str(environment())])
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    sh([*pip, "--force-reinstall", "--no-deps", str(wheel)])  # this checkout's course, every run
    sh([*pip, f"{wheel}[lab,instructor]", "jupyterhub"])
    jupyter = str(environment() / "bin" / "jupyter")
    for tool in INSTRUCTOR_TOOLS:
        sh([jupyter, "labextension", "disable", "--level=sys_prefix", tool])
        sh([jupyter, "labextension", "unlock", "--level=sys_prefix", tool])  # else the instructor cannot enable it
    sh([jupyter, "server", "extension", "disable", "--sys-prefix", FORMGRADER_SERVER])


def install_proxy() -> Path:
    """configurable-http-proxy from npm (JupyterHub's default proxy), under HUB_ROOT."""
    proxy = HUB_ROOT / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
    if not proxy.exists():
        sh(["npm", "install", "--prefix", str(HUB_ROOT / "node"), "--no-audit", "--no-fund", "--loglevel=error",
            "configurable-http-proxy@4"])
    return proxy


def create_accounts() -> dict[str, str]:
    """The instructor and the students as Unix accounts with passwords (TLJH: `useradd --create-home`), each home
    private (the guide's step: Debian's useradd leaves homes readable by everyone), the instructor a sudoer."""
    passwords = {}
    sh(["groupadd", "--force", ADMIN_GROUP])
    for user in (INSTRUCTOR, *STUDENTS):
        remove_account(user)
        sh(["useradd", "--create-home", "--shell", "/bin/bash", user])
        passwords[user] = secrets.token_urlsafe(12)
        subprocess.run(["chpasswd"], input=f"{user}:{passwords[user]}\n", text=True, check=True, capture_output=True)
    sh(["usermod", "--append", "--groups", ADMIN_GROUP, INSTRUCTOR])
    SUDOERS.write_text(f"%{ADMIN_GROUP} ALL = (ALL) NOPASSWD: ALL\n")
    SUDOERS.chmod(0o440)
    return passwords


def private_homes() -> None:
    """The guide's step for a hub whose useradd leaves homes readable (Debian): `chmod 700 /home/*`."""
    for user in (INSTRUCTOR, *STUDENTS):
        Path(pwd.getpwnam(user).pw_dir).chmod(0o700)


def remove_account(user: str) -> None:
    """Stop every process of the account and remove it with its home (nothing when it does not exist)."""
    try:
        pwd.getpwnam(user)
    except KeyError:
        return
    subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
    time.sleep(0.3)
    subprocess.run(["userdel", "--remove", "--force", user], capture_output=True)


@dataclass
class Hub:
    """A running JupyterHub: its public URL, its process and log, and each account's password."""

    url: str
    process: subprocess.Popen
    log: Path
    passwords: dict[str, str]
    state: Path
    created_exchange: bool = False
    notes: list[str] = field(default_factory=list)


HUB_CONFIG = """\
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{state}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{state}/cookie_secret"
c.JupyterHub.pid_file = "{state}/jupyterhub.pid"
c.Authenticator.allowed_users = {users!r}
c.Authenticator.admin_users = {{{instructor!r}}}
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {{"PATH": "{bin}:/usr/local/bin:/usr/bin:/bin"}}
# A terminal's shell that is not a login shell keeps that PATH (Debian's /etc/profile resets it for login shells).
c.Spawner.args = ['--ServerApp.terminado_settings={{"shell_command": ["/bin/bash"]}}']
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
"""


def start_hub(passwords: dict[str, str], proxy: Path, work: Path) -> Hub:
    """Start JupyterHub as root (PAM and the local process spawner need it) on a free port of 127.0.0.1."""
    state = work / "hub-state"
    state.mkdir(mode=0o700)
    port = free_port()
    config = state / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        port=port, hub_port=free_port(), proxy_api_port=free_port(), proxy=str(proxy), state=state,
        users=set(passwords), instructor=INSTRUCTOR, singleuser=str(environment() / "bin" / "jupyterhub-singleuser"),
        bin=environment() / "bin"))
    log = work / "jupyterhub.log"
    env = {"PATH": f"{environment() / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(state)}
    with log.open("w") as out:
        process = subprocess.Popen([str(environment() / "bin" / "jupyterhub"), "-f", str(config)], cwd=state,
                                   stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                   start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/hub/api/", timeout=5) as reply:
                if reply.status == 200:
                    return Hub(url, process, log, passwords, state)
        except OSError:
            time.sleep(0.5)
    stop_hub(Hub(url, process, log, passwords, state))
    raise AssertionError(f"JupyterHub did not start: {log.read_text()[-3000:]}")


def stop_hub(hub: Hub) -> None:
    """Stop the hub and its proxy (its session), then every user's server."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(hub.process.pid, 15)
    try:
        hub.process.wait(30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(hub.process.pid, 9)
        hub.process.wait()
    for user in (INSTRUCTOR, *STUDENTS):
        subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)


def set_up_exchange() -> bool:
    """The guide's exchange: `sudo mkdir -p /usr/local/share/nbgrader/exchange && sudo chmod 1777` it; return
    whether this run created it (and so removes it)."""
    created = not EXCHANGE.exists()
    if not created and any(EXCHANGE.iterdir()):
        raise AssertionError(f"{EXCHANGE} is in use on this machine; the hub test needs it to itself")
    EXCHANGE.mkdir(parents=True, exist_ok=True)
    EXCHANGE.chmod(0o1777)
    return created


def tear_down(hub: Hub | None, created_exchange: bool) -> None:
    """Undo the accounts, the sudoers file, the admin group and the exchange's contents."""
    if hub is not None:
        stop_hub(hub)
    for user in (INSTRUCTOR, *STUDENTS):
        remove_account(user)
    SUDOERS.unlink(missing_ok=True)
    subprocess.run(["groupdel", ADMIN_GROUP], capture_output=True)
    if created_exchange:
        shutil.rmtree(EXCHANGE, ignore_errors=True)
    elif EXCHANGE.exists():
        for child in EXCHANGE.iterdir():
            shutil.rmtree(child, ignore_errors=True)


def chromium(playwright):
    """Debian's Chromium through Playwright, as the other browser tests start it."""
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)


def memory_mib_by_user(users: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Each account's processes' summed resident (Rss: shared pages counted in full) and proportional (Pss: shared
    pages split between their users) set sizes now, in MiB, from /proc/<pid>/smaps_rollup."""
    uids = {pwd.getpwnam(user).pw_uid: user for user in users}
    total = {user: {"Rss": 0.0, "Pss": 0.0} for user in users}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            owner = uids.get(entry.stat().st_uid)
            if owner is None:
                continue
            for line in (entry / "smaps_rollup").read_text().splitlines():
                name = line.split(":")[0]
                if name in ("Rss", "Pss"):
                    total[owner][name] += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total
