"""A submission's kernel, sealed by the operating system (bubblewrap): its own uid, PID, mount, network, IPC and UTS
namespaces, the Python environment and the course library read-only, a private writable copy of its own notebook in
a size-capped tmpfs, and nothing else. `grading.worker` starts each kernel through `SealedKernelManager`.

What the kernel sees: `/usr` (and the `/lib`, `/bin` links), the interpreter's install and the virtual environment
(`sys.base_prefix`, `sys.prefix`), the course library's package folder and its shipped data, all read-only; a few
files of `/etc` the C library reads; `/proc` of its own PID namespace (bwrap's init and itself); a minimal `/dev`;
and `/box`, a root-owned tmpfs of `Limits.disk_mb` holding its home (its working folder, with the notebook copy),
its `/tmp`, the connection file (read-only) and the folder of its ZeroMQ IPC sockets. No other submission, no
`release/` or `source/`, no gradebook, no grader process, no network interface but its own loopback. The kernel
protocol over those IPC sockets is the only way out: once the kernel has bound them, the grader remounts their
folder read-only inside the sandbox and reaches it through `/proc/<sandbox init>/root/box/sock`, a link beside its
own copy of the connection file, so the root grader never follows a path the kernel could change.

As root (the course's machines, a hub's grading account run with sudo), bwrap sets the sandbox up privileged; its
init stays root as pid 1 of the namespace and dies with bwrap (and the whole namespace with it), and the kernel, its
child, runs under its own uid (`uid_for`) with no capabilities, `no_new_privs` and a seccomp filter
(`seccomp_filter`: no new namespaces, mounts, BPF, keyrings, userfaultfd, perf events, io_uring, ptrace). Where the
grader is not root and user namespaces are allowed, bwrap makes a user namespace instead and the kernel keeps the
grader's uid outside it (the namespaces still hide every file and process but its own). `problem()` says in one
line when neither works. Limits (`Limits`): address space, processes and threads of its uid, file size, open files,
the tmpfs's size; the wall clock is the grader's (`grading.classroom`).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

UID_BASE = 1_900_000_000  # submission k's kernel runs as UID_BASE + k (no account has these; below 2**31)
BOX = "/box"  # the sandbox's only writable folder (a tmpfs)
SOCKETS = "sock"  # the IPC sockets' folder, under BOX and, as a link, beside the grader's connection file
SOCKET_PATH_MAX = 100  # a Unix socket's path holds at most 107 bytes (sun_path); kept clear of it
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/fonts", "/etc/nsswitch.conf",
             "/etc/host.conf", "/etc/mime.types")
PASSED_ENV = ("TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
              "OMP_NUM_THREADS", "LANG")
HOW_TO_ENABLE = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and grade as root, or allow "
                 "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces"
                 " > 0; a container needs them allowed, e.g. Docker's --security-opt seccomp=unconfined); or grade "
                 "unsealed with --unsealed, which every feedback will then say")

# Run inside the sandbox by bwrap's init (which stays root and dies with bwrap, taking the whole PID namespace with
# it), before the kernel: as root, hand the kernel's folders (not /box itself) to the submission's uid and drop to it;
# set the limits; load the seccomp filter (`seccomp_filter`); become the kernel.
ENTRY = f"""\
import ctypes, json, os, resource, struct, sys
uid, limits, program = int(sys.argv[1]), json.loads(sys.argv[2]), bytes.fromhex(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
if uid >= 0 and os.getuid() == 0:
    for folder in ({BOX!r} + "/home", {BOX!r} + "/tmp", {BOX!r} + "/{SOCKETS}"):
        for path in [folder] + [os.path.join(folder, name) for name in os.listdir(folder)]:
            os.chown(path, uid, uid)
    os.chmod("/dev/shm", 0o1777)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
for name, value in limits.items():
    resource.setrlimit(getattr(resource, name), (value, value))
if program:
    buffer = ctypes.create_string_buffer(program)
    fprog = struct.pack("HxxxxxxQ", len(program) // 8, ctypes.addressof(buffer))
    if libc.prctl(22, 2, ctypes.c_char_p(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        sys.exit("the grader's seccomp filter did not load: " + os.strerror(ctypes.get_errno()))
os.execv(sys.argv[4], sys.argv[4:])
"""

# Syscalls a kernel never needs that open the host kernel's larger attack surface (new namespaces, mounts, BPF,
# keyrings, userfaultfd, perf, io_uring, ptrace): refused with EPERM; clone3 answers ENOSYS (glibc then uses clone,
# whose flags the filter can read), and clone may not ask for a new namespace. Numbers per architecture.
DENIED_SYSCALLS = {
    "x86_64": {"audit": 0xC000003E, "clone": 56, "clone3": 435,
               "denied": (272, 308, 165, 166, 155, 161, 321, 250, 248, 249, 323, 298, 425, 426, 427, 428, 429, 430,
                          431, 432, 433, 101)},
    "aarch64": {"audit": 0xC00000B7, "clone": 220, "clone3": 435,
                "denied": (97, 268, 40, 39, 41, 51, 280, 219, 217, 218, 282, 241, 425, 426, 427, 428, 429, 430,
                           431, 432, 433, 117)},
}
CLONE_NAMESPACES = 0x7E020080  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME


def seccomp_filter(machine: str | None = None) -> bytes:
    """The classic-BPF seccomp program ENTRY loads (empty where the architecture is not known here)."""
    import platform
    import struct

    spec = DENIED_SYSCALLS.get(machine or platform.machine())
    if spec is None:
        return b""
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38

    def op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
        return struct.pack("HBBI", code, jt, jf, k)

    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    program = [op(load, 4), op(jeq, spec["audit"], 1, 0), op(ret, eperm), op(load, 0)]
    if spec["audit"] == 0xC000003E:  # the x32 ABI's syscalls carry bit 30
        program += [op(jge, 0x40000000, 0, 1), op(ret, eperm)]
    program += [op(jeq, spec["clone3"], 0, 1), op(ret, enosys)]
    for number in spec["denied"]:
        program += [op(jeq, number, 0, 1), op(ret, eperm)]
    program += [op(jeq, spec["clone"], 1, 0), op(ret, allow), op(load, 16), op(jset, CLONE_NAMESPACES, 0, 1),
                op(ret, eperm), op(ret, allow)]
    return b"".join(program)


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
               "--die-with-parent", "--new-session"]
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
        args += ["--perms", "0644", "--file", str(connection_fd), f"{BOX}/connection.json"]
    if notebook is not None and notebook_fd is not None:
        args += ["--perms", "0644", "--file", str(notebook_fd), f"{BOX}/home/{notebook.name}"]
    args += ["--chdir", f"{BOX}/home", "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    args += ["--", sys.executable, "-I", "-c", ENTRY,
             str(uid if privileged() else -1), json.dumps(limits.rlimits()), seccomp_filter().hex(), *kernel_argv]
    return args


def run_sealed(code: str, uid: int, limits: Limits = Limits(), timeout: float = 120) -> subprocess.CompletedProcess:
    """Run Python code in the same sandbox a kernel gets (for tests and `doctor`); return what it printed."""
    command = bwrap_command([sys.executable, "-c", code], None, None, uid, limits, None, None)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          check=False)


class SealedProvisioner(LocalProvisioner):
    """Launches the kernel inside bwrap; once the kernel has bound its sockets, makes their folder read-only (so the
    root grader never follows a path the kernel chose) and links it beside the connection file; interrupts the
    kernel itself and kills the whole sandbox (its init, pid 1 of its namespace) through pidfds."""

    uid: int = -1
    limits: Limits = Limits()
    notebook: Path | None = None
    log_path: Path | None = None
    links: Path | None = None  # where the link to the sockets' folder goes (the manager's `ip` is under it)
    child_pid: int | None = None  # bwrap's init in the sandbox (root, pid 1 there)
    pidfd: int | None = None  # of that init: killing it ends every process of the sandbox
    kernel_pidfd: int | None = None  # of the kernel (pid 2 there): interrupts go to it

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> dict:
        """Start the sandbox; return the connection info (its IPC paths reach the sandbox through the link)."""
        km = self.parent
        connection_file = Path(km.connection_file).resolve()
        kernel_argv = [sys.executable, "-m", "ipykernel_launcher", "-f", f"{BOX}/connection.json"]
        # The kernel's copy of the connection file: its IPC paths inside the sandbox.
        info = json.loads(connection_file.read_text())
        info["ip"] = f"{BOX}/{SOCKETS}/kernel"
        connection_fd, connection_write = os.pipe()
        os.write(connection_write, json.dumps(info).encode())
        os.close(connection_write)
        info_read, info_write = os.pipe()
        notebook_fd = os.open(self.notebook, os.O_RDONLY) if self.notebook else None
        passed = (info_write, connection_fd) + ((notebook_fd,) if notebook_fd is not None else ())
        command = bwrap_command(kernel_argv, connection_fd, self.notebook, self.uid, self.limits, info_write,
                                notebook_fd)
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115 -- kept by Popen
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            pass_fds=passed, start_new_session=True, cwd=connection_file.parent)
        finally:
            for fd in (info_write, connection_fd, notebook_fd):
                if fd is not None:
                    os.close(fd)
            if log is not subprocess.DEVNULL:
                log.close()
        with os.fdopen(info_read, "rb") as stream:
            text = stream.read(65536)
        try:
            self.child_pid = int(json.loads(text)["child-pid"])
            self.pidfd = os.pidfd_open(self.child_pid)
        except (ValueError, KeyError, TypeError, OSError):
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"the sandbox did not start (bwrap exited with {self.process.returncode})") from None
        self.pid, self.pgid = self.process.pid, os.getpgid(self.process.pid)
        ports = [info[f"{name}_port"] for name in ("shell", "iopub", "stdin", "hb", "control")]
        self._seal_sockets(ports)
        link = (self.links or connection_file.parent) / SOCKETS
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(f"/proc/{self.child_pid}/root{BOX}/{SOCKETS}")
        return self.connection_info

    def _seal_sockets(self, ports: list[int], timeout: float = 60.0) -> None:
        """Wait until the kernel has bound its five sockets; as root, make their folder read-only and check each is
        a socket of the kernel's uid (a link or anything else the kernel put there stops the grading)."""
        import stat
        import time

        folder = f"/proc/{self.child_pid}/root{BOX}/{SOCKETS}"
        names = [f"kernel-{port}" for port in ports]
        deadline = time.monotonic() + timeout
        while not all(os.path.lexists(f"{folder}/{name}") for name in names):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the kernel did not start in its sandbox (see kernel.log)")
            time.sleep(0.05)
        kernel = _children(self.child_pid)
        if len(kernel) != 1:
            raise RuntimeError(f"the sandbox's init has {len(kernel)} children, not the kernel alone")
        self.kernel_pidfd = os.pidfd_open(kernel[0])
        if privileged():
            script = f"mount --bind {BOX}/{SOCKETS} {BOX}/{SOCKETS} && mount -o remount,bind,ro {BOX}/{SOCKETS}"
            done = subprocess.run(["nsenter", "--target", str(self.child_pid), "--mount", "--", "/bin/sh", "-c",
                                   script], capture_output=True, text=True, timeout=30, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"could not make the kernel's socket folder read-only: {done.stderr.strip()}")
        for name in names:
            status = os.lstat(f"{folder}/{name}")
            if not stat.S_ISSOCK(status.st_mode) or (privileged() and status.st_uid != self.uid):
                raise RuntimeError(f"the kernel's {name} is not a socket of its own")

    async def send_signal(self, signum: int) -> None:
        """An interrupt goes to the kernel itself; any other signal to the whole sandbox."""
        if signum == signal.SIGINT and self.kernel_pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.kernel_pidfd, signum)
            return
        await super().send_signal(signum)

    def kill_sandbox(self) -> None:
        """SIGKILL the sandbox's first process: every process of its PID namespace dies with it."""
        if self.pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    async def kill(self, restart: bool = False) -> None:
        """Kill the sandbox, then bwrap."""
        self.kill_sandbox()
        await super().kill(restart)

    async def terminate(self, restart: bool = False) -> None:
        """A sandbox is not asked to stop: it is killed."""
        await self.kill(restart)

    async def cleanup(self, restart: bool = False) -> None:
        """Kill whatever is left of the sandbox and close the pidfd."""
        self.kill_sandbox()
        for name in ("pidfd", "kernel_pidfd"):
            if getattr(self, name) is not None:
                os.close(getattr(self, name))
                setattr(self, name, None)
        await super().cleanup(restart)


def _children(pid: int) -> list[int]:
    """The pids whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{pid}\n" in status:
                found.append(int(entry))
    return found


class SealedKernelManager(AsyncKernelManager):
    """An async KernelManager (as nbclient uses) whose kernel runs sealed (`SealedProvisioner`), over IPC sockets."""

    def __init__(self, uid: int, limits: Limits, notebook: Path | None = None, log_path: Path | None = None,
                 **kwargs: Any):
        folder = Path(kwargs["connection_file"]).resolve().parent
        self._short = None  # a socket's path must fit in 107 bytes: beside a deep connection file, a short folder
        if len(str(folder / SOCKETS / "kernel-9")) > SOCKET_PATH_MAX:
            self._short = folder = Path(tempfile.mkdtemp(prefix="sealed-", dir="/tmp" if os.access("/tmp", os.W_OK)
                                                         else None))
        super().__init__(transport="ipc", ip=str(folder / SOCKETS / "kernel"), **kwargs)
        self._seal = {"uid": uid, "limits": limits, "notebook": notebook, "log_path": log_path, "links": folder}

    async def _async_pre_start_kernel(self, **kw: Any) -> Any:
        """Use the sealed provisioner instead of the kernelspec's."""
        if self.provisioner is None:
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or os.urandom(8).hex()
            provisioner = SealedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
            for name, value in self._seal.items():
                setattr(provisioner, name, value)
            self.provisioner = provisioner
        return await super()._async_pre_start_kernel(**kw)

    def cleanup_ipc_files(self) -> None:
        """The sockets live in the sandbox's tmpfs, which goes with it (the grader never unlinks a path inside the
        sandbox); only the short folder of the link to them, if one was made, is removed."""
        if self._short is not None:
            shutil.rmtree(self._short, ignore_errors=True)
