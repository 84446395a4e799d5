"""A submission's kernel, sealed by the operating system (bubblewrap): its own uid, PID, mount, network, IPC and UTS
namespaces, the Python environment and the course library read-only, a private writable copy of its own notebook in
a size-capped tmpfs, and nothing else. `grading.worker` starts each kernel through `SealedKernelManager`.

What the kernel sees: `/usr` (and the `/lib`, `/bin` links), the interpreter's install and the virtual environment
(`sys.base_prefix`, `sys.prefix`), the course library's package folder and its shipped data, all read-only; a few
files of `/etc` the C library reads; `/proc` of its own PID namespace (itself only); a minimal `/dev`; and `/box`, a
tmpfs of `Limits.disk_mb` holding its home, its `/tmp`, its notebook copy, the connection file (read-only) and the
folder of its ZeroMQ IPC sockets. No other submission, no `release/` or `source/`, no gradebook, no grader process,
no network interface but its own loopback. The kernel protocol over those IPC sockets is the only way out: the
grader reaches them through `/proc/<sandbox pid>/root/box/sock`, a link it makes beside its own copy of the
connection file (the kernel's copy names its sockets relative to /box).

As root (the course's machines, a hub's grading account run with sudo), bwrap sets the sandbox up privileged and the
kernel then runs under its own uid (`uid_for`), with no capabilities and `no_new_privs`. Where the grader is not root
and user namespaces are allowed, bwrap makes a user namespace instead and the kernel keeps the grader's uid outside
it (the namespaces still hide every file and process but its own). `problem()` says in one line when neither works.
Limits (`Limits`): address space, processes and threads of its uid, file size, open files, the tmpfs's size; the
wall clock is the grader's (`grading.classroom`).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

UID_BASE = 2_900_000_000  # submission k's kernel runs as UID_BASE + k (no account has these uids)
BOX = "/box"  # the sandbox's only writable folder (a tmpfs)
SOCKETS = "sock"  # the IPC sockets' folder, under BOX and, as a link, beside the grader's connection file
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/fonts", "/etc/nsswitch.conf",
             "/etc/host.conf", "/etc/mime.types")
PASSED_ENV = ("TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
              "OMP_NUM_THREADS", "LANG")
HOW_TO_ENABLE = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and grade as root, or allow "
                 "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces"
                 " > 0; a container needs them allowed, e.g. Docker's --security-opt seccomp=unconfined); or grade "
                 "unsealed with --unsealed, which every feedback will then say")

# Run inside the sandbox as its first process, before the kernel: as root, hand the writable folders to the
# submission's uid and drop to it; set the limits; become the kernel.
ENTRY = f"""\
import json, os, resource, sys
uid, limits = int(sys.argv[1]), json.loads(sys.argv[2])
if uid >= 0 and os.getuid() == 0:
    for folder, _, files in os.walk({BOX!r}):
        for path in [folder] + [os.path.join(folder, name) for name in files]:
            try:
                os.chown(path, uid, uid)
            except OSError:
                pass
    os.chmod("/dev/shm", 0o1777)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
for name, value in limits.items():
    resource.setrlimit(getattr(resource, name), (value, value))
os.execv(sys.argv[3], sys.argv[3:])
"""


@dataclass(frozen=True)
class Limits:
    """What one sealed kernel may use."""

    memory_mb: int = 8192  # address space (TensorFlow alone maps about 2.4 GB of it)
    processes: int = 512  # processes and threads of the kernel's uid (TensorFlow starts a few dozen threads)
    file_mb: int = 64  # the largest file it may write
    open_files: int = 1024
    disk_mb: int = 256  # its tmpfs: home, /tmp and the notebook copy
    shm_mb: int = 64  # its /dev/shm

    def rlimits(self) -> dict[str, int]:
        """The resource limits the kernel gets (resource module names -> values)."""
        return {"RLIMIT_AS": self.memory_mb * 2**20, "RLIMIT_NPROC": self.processes,
                "RLIMIT_FSIZE": self.file_mb * 2**20, "RLIMIT_NOFILE": self.open_files, "RLIMIT_CORE": 0}


def privileged() -> bool:
    """Whether this process can set the sandbox up as root (and so give the kernel a uid of its own)."""
    return os.geteuid() == 0


def uid_for(index: int) -> int:
    """The uid of submission `index`'s kernel: UID_BASE + index, skipping any uid an account holds."""
    uid = UID_BASE + index
    while _account(uid):
        uid += 100_000
    return uid


def _account(uid: int) -> bool:
    """Whether an account has this uid."""
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def problem() -> str | None:
    """None when submissions can be sealed here; else one line saying why not and how to enable it."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return f"cannot seal submissions: bubblewrap (bwrap) is not installed; {HOW_TO_ENABLE}"
    trial = [bwrap, *_namespaces(), "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/true"]
    try:
        done = subprocess.run(trial, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot seal submissions: bwrap did not run ({error}); {HOW_TO_ENABLE}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"cannot seal submissions: bwrap could not make namespaces here ({said}); {HOW_TO_ENABLE}"
    return None


def _namespaces() -> list[str]:
    """bwrap's namespace options: all but the user namespace as root, all with it otherwise."""
    options = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--die-with-parent", "--new-session", "--as-pid-1"]
    return options if privileged() else ["--unshare-user", *options]


def visible_paths() -> list[Path]:
    """The folders the kernel sees read-only: the interpreter, the environment, the library and its data."""
    import tutorial_lib
    from tutorial_lib import locations

    paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent,
             Path(tutorial_lib.__file__).resolve().parent, locations.data_root().resolve()}
    paths |= {Path(p).resolve() for p in sys.path if p and Path(p).is_dir() and "site-packages" in p}
    kept = sorted(p for p in paths if p.exists())
    return [p for p in kept if not any(q != p and q in p.parents for q in kept) and not str(p).startswith("/usr/")]


def _system_mounts() -> list[str]:
    """/usr read-only, and /lib, /lib64, /bin, /sbin as the host has them (links or folders)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("/lib", "/lib64", "/lib32", "/bin", "/sbin"):
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in ETC_FILES:
        args += ["--ro-bind-try", name, name]
    return args


def _folders_for(paths: list[Path]) -> list[str]:
    """--dir options (mode 0755) for every folder above a bound path, so the kernel's uid can walk to it."""
    made, args = set(), []
    for path in paths:
        for parent in reversed(path.parents):
            if str(parent) in ("/", "/usr") or parent in made or str(parent).startswith("/usr/"):
                continue
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def bwrap_command(kernel_argv: list[str], connection_fd: int | None, notebook: Path | None, uid: int,
                  limits: Limits, info_fd: int | None, notebook_fd: int | None) -> list[str]:
    """The whole command: bwrap's mounts and namespaces, then ENTRY (uid, limits), then the kernel."""
    paths = visible_paths()
    env = {"HOME": f"{BOX}/home", "TMPDIR": f"{BOX}/tmp", "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
           "PYTHONNOUSERSITE": "1", "MPLCONFIGDIR": f"{BOX}/home/.matplotlib", "IPYTHONDIR": f"{BOX}/home/.ipython",
           "JUPYTER_PREFER_ENV_PATH": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1", "LANG": "C.UTF-8",
           **{k: os.environ[k] for k in PASSED_ENV if k in os.environ}}
    args = ["bwrap", *_namespaces()]
    if privileged():
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_CHOWN"]
    args += _system_mounts() + _folders_for(paths)
    for path in paths:
        args += ["--ro-bind", str(path), str(path)]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.shm_mb * 2**20), "--tmpfs", "/dev/shm",
             "--size", str(limits.disk_mb * 2**20), "--tmpfs", BOX, "--dir", f"{BOX}/home", "--dir", f"{BOX}/tmp",
             "--dir", f"{BOX}/{SOCKETS}", "--symlink", f"{BOX}/tmp", "/tmp"]
    if connection_fd is not None:
        args += ["--file", str(connection_fd), f"{BOX}/connection.json"]
    if notebook is not None and notebook_fd is not None:
        args += ["--file", str(notebook_fd), f"{BOX}/{notebook.name}"]
    args += ["--chdir", BOX, "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    args += ["--", sys.executable, "-I", "-c", ENTRY,
             str(uid if privileged() else -1), json.dumps(limits.rlimits()), *kernel_argv]
    return args


def run_sealed(code: str, uid: int, limits: Limits = Limits(), timeout: float = 120) -> subprocess.CompletedProcess:
    """Run Python code in the same sandbox a kernel gets (for tests and `doctor`); return what it printed."""
    command = bwrap_command([sys.executable, "-c", code], None, None, uid, limits, None, None)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          check=False)


class SealedProvisioner(LocalProvisioner):
    """Launches the kernel inside bwrap, links its socket folder beside the connection file, and signals the kernel
    itself (the sandbox's first process) when asked to interrupt it."""

    uid: int = -1
    limits: Limits = Limits()
    notebook: Path | None = None
    log_path: Path | None = None
    child_pid: int | None = None

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> dict:
        """Start the sandbox; return the connection info (its IPC paths reach the sandbox through the link)."""
        km = self.parent
        connection_file = Path(km.connection_file).resolve()
        kernel_argv = [sys.executable, "-m", "ipykernel_launcher", "-f", f"{BOX}/connection.json"]
        info_read, info_write = os.pipe()
        # The kernel's copy of the connection file: its IPC paths relative to its own folder (/box).
        info = json.loads(connection_file.read_text())
        info["ip"] = f"{SOCKETS}/kernel"
        connection_fd, connection_write = os.pipe()
        os.write(connection_write, json.dumps(info).encode())
        os.close(connection_write)
        notebook_fd = os.open(self.notebook, os.O_RDONLY) if self.notebook else None
        passed = (info_write, connection_fd) + ((notebook_fd,) if notebook_fd is not None else ())
        command = bwrap_command(kernel_argv, connection_fd, self.notebook, self.uid, self.limits, info_write,
                                notebook_fd)
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115 -- kept by Popen
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            pass_fds=passed, start_new_session=True, cwd=connection_file.parent)
        finally:
            os.close(info_write)
            os.close(connection_fd)
            if notebook_fd is not None:
                os.close(notebook_fd)
            if log is not subprocess.DEVNULL:
                log.close()
        with os.fdopen(info_read, "rb") as info:
            text = info.read(65536)
        try:
            self.child_pid = int(json.loads(text)["child-pid"])
        except (ValueError, KeyError, TypeError):
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"the sandbox did not start (bwrap exited with {self.process.returncode}; see "
                               f"{self.log_path})") from None
        link = connection_file.parent / SOCKETS
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(f"/proc/{self.child_pid}/root{BOX}/{SOCKETS}")
        self.pid, self.pgid = self.process.pid, os.getpgid(self.process.pid)
        return self.connection_info

    async def send_signal(self, signum: int) -> None:
        """An interrupt goes to the kernel itself; any other signal to the whole sandbox."""
        if signum == signal.SIGINT and self.child_pid:
            try:
                os.kill(self.child_pid, signum)
            except ProcessLookupError:
                pass
            return
        await super().send_signal(signum)


class SealedKernelManager(AsyncKernelManager):
    """An async KernelManager (as nbclient uses) whose kernel runs sealed (`SealedProvisioner`), over IPC sockets."""

    def __init__(self, uid: int, limits: Limits, notebook: Path | None = None, log_path: Path | None = None,
                 **kwargs: Any):
        folder = Path(kwargs["connection_file"]).resolve().parent
        super().__init__(transport="ipc", ip=str(folder / SOCKETS / "kernel"), **kwargs)
        self._seal = {"uid": uid, "limits": limits, "notebook": notebook, "log_path": log_path}

    async def _async_pre_start_kernel(self, **kw: Any) -> Any:
        """Use the sealed provisioner instead of the kernelspec's."""
        if self.provisioner is None:
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or os.urandom(8).hex()
            provisioner = SealedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
            for name, value in self._seal.items():
                setattr(provisioner, name, value)
            self.provisioner = provisioner
        return await super()._async_pre_start_kernel(**kw)

    def peak_mb(self) -> float:
        """The largest resident memory of any finished child of this process (the sandboxed kernel, once reaped)."""
        import resource

        return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def describe(limits: Limits) -> dict[str, Any]:
    """The seal's settings, for reports."""
    return {"privileged": privileged(), **asdict(limits)}
