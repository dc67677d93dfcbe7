"""Where a bot's program runs: in a bubblewrap sandbox, or (only when the organiser says so) unconfined.

The sandbox is bubblewrap (``bwrap``, Debian's ``bubblewrap``, the tool Flatpak confines its apps
with). Each program gets:

- its own PID namespace (it sees only its own processes: not the referee, not other bots, not their
  ``/proc``), network namespace (no network but its own loopback), IPC and UTS namespaces;
- a file system of its own: ``/usr``, ``/etc`` and ``/opt`` read-only, the Python interpreter and
  the ``battleship`` package read-only (class bots import them), its own program's files read-only,
  an empty skeleton of the arena's working directory with only those files in it, a fresh ``/proc``
  and a minimal ``/dev``, and a private scratch directory (``/tmp``, a size-capped tmpfs that is gone
  with the sandbox) as its only writable place and its home;
- a cleared environment (no variable of the referee's reaches it);
- limits on processes and threads (``RLIMIT_NPROC``), data memory, file size, CPU time (the
  referee's, see :mod:`~battleship.lab.arena.channel`), over its whole control group where the
  machine gives the arena one (:mod:`~battleship.lab.arena.cgroup`);
- a CPU set of its own (:attr:`Limits.cpus` CPUs, ``sched_setaffinity`` and the group's ``cpuset``),
  which it sees wherever CPUs are counted (``/sys/devices/system/cpu/online`` and ``possible``,
  ``/proc/stat``), so runtimes size their pools to it;
- a private copy in place of an entry's own files (:attr:`Program.sources`, an entry's snapshot);
- the kernel's caches dropped before its turn (:meth:`Sandbox.before_turn`,
  :mod:`~battleship.lab.arena.caches`), so it finds nothing an earlier bot left there;
- an end: the referee kills the sandbox's first process, and the kernel kills everything left in
  its PID namespace with it, whatever the bot started (``setsid`` or not); ``--die-with-parent``
  does the same if the referee itself dies.

Run as root, bubblewrap mounts the bot's view and the bot then runs under a user id of its own,
unprivileged (``setpriv``), so the process limit holds (the kernel does not count root's
processes); run as anyone else, bubblewrap makes a user namespace, which needs unprivileged user
namespaces (most distributions allow them). :func:`probe` tries it once and says why not.
"""

from __future__ import annotations

import errno
import functools
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import battleship
from battleship.errors import BattleshipError
from battleship.lab.arena import budgets, caches, cgroup, seccomp

BWRAP = "bwrap"  # looked up on PATH
SCRATCH = "/tmp"  # the bot's only writable directory, and its HOME
SYSTEM = ("/usr", "/etc", "/opt")  # read-only for every bot: programs, libraries, interpreters
TOP = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # links into /usr on merged-/usr systems
UNCONFINED_OPTION = "--unconfined-bots-i-trust"
UNCOUNTED_OPTION = "--per-process-limits-i-trust"  # the sandbox without control groups
# a bot running the arena's Python loads the package's compiled kernels where the package lies (bound
# read-only, battleship.jit); whatever it compiles beyond them is kept in its scratch
NUMBA_CACHE = SCRATCH + "/.numba-cache"
PIPE_HOLDS = 60_000  # bytes written into a pipe before anyone reads it (a pipe holds 64 KiB)
# numerical libraries' thread pools sized to the bot's CPU set (a pool sized to the machine's cores
# would meet the process limit, and the CPU limit counts every thread anyway)
QUIET_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


@dataclass(frozen=True)
class Limits:
    """What every bot is allowed. ``time`` is per shot (wall clock, as the C# Pirates contest timed
    moves; 0 for none); ``start`` covers starting and reading the rules; ``cpu`` is CPU seconds per
    game (None: ``time`` for every cell of the board, plus ``start``); ``memory_mb`` its data memory;
    ``processes`` the processes and threads it may run at once (in the sandbox); ``scratch_mb`` the
    size of its scratch directory and of any file it writes; ``game`` and ``bot`` its wall-clock
    budgets for a game and for the run (None: derived from ``time`` and ``start``, see
    :mod:`~battleship.lab.arena.budgets`), ``strikes`` the games over budget before the rest are
    forfeited; ``cpus`` the CPUs it may use (its own CPU set)."""

    time: float = 0.5
    start: float = 10.0
    cpu: float | None = None
    memory_mb: int = 1024
    processes: int = 64
    scratch_mb: int = 64
    game: float | None = None
    bot: float | None = None
    strikes: int = budgets.STRIKES
    cpus: int = 1

    def cpu_per_game(self, cells: int) -> float:
        """CPU seconds a bot may use in one game on a board of ``cells`` cells."""
        if self.cpu is not None:
            return self.cpu
        return (self.time or self.start) * cells + self.start

    def clock(self, cells: int, games: int) -> budgets.Clock:
        """A bot's budgets for a run in which it plays ``games`` games on a board of ``cells`` cells."""
        game = self.game if self.game is not None else budgets.default_game(self.time, self.start, cells)
        total = self.bot if self.bot is not None else budgets.default_bot(self.time, self.start, cells, games)
        return budgets.Clock(game, total, self.strikes)


class SandboxUnavailable(BattleshipError):
    """This machine cannot sandbox bots (the text says why and what to do)."""


@dataclass(frozen=True)
class Program:
    """What a bot runs: its command, the files that are its own, where it starts, variables it needs.

    ``reads`` are absolute paths (files or directories) the bot may read in the sandbox; ``cwd`` is
    where it starts (default: the arena's working directory, in which the sandbox shows only those
    files); ``python`` says it runs the arena's own interpreter (so may use the package's kernels);
    ``sources`` shows a private copy in place of a path of ``reads`` (an entry's snapshot)."""

    argv: tuple[str, ...]
    reads: tuple[str, ...] = ()
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    python: bool = False
    sources: tuple[tuple[str, str], ...] = ()  # (a path of ``reads``, the private copy shown there instead)

    def source(self, path: str) -> str:
        """Where the files the bot sees at ``path`` come from: its private copy, or the path itself."""
        for shown, copy in self.sources:
            if _inside(path, shown):
                return copy + path[len(shown) :]
        return path


@dataclass
class Launch:
    """How to start one program: the command line, the child's set-up, the descriptors it keeps."""

    argv: list[str]
    preexec: Callable[[], None]
    cwd: str | None
    env: dict[str, str] | None
    pass_fds: tuple[int, ...] = ()
    info: int | None = None  # read end of bwrap's --info-fd: the sandbox's first process id
    box: cgroup.Box | None = None  # the control group the program runs in (None: per-process limits)
    _close_after_start: list[int] = field(default_factory=list)

    def started(self) -> None:
        """Close the descriptors only the child needed."""
        for fd in self._close_after_start:
            os.close(fd)
        self._close_after_start.clear()


class Jail(Protocol):
    """Where programs run: :class:`Sandbox` or :class:`Unconfined`."""

    confined: bool

    def launch(self, program: Program, limits: Limits, cpu_total: float | None = None) -> Launch: ...

    def check(self, program: Program, label: str) -> None: ...

    def before_turn(self) -> None: ...


def _limits_in_child(
    limits: Limits, cpu_total: float | None, box: cgroup.Box | None = None
) -> Callable[[], None]:
    """The limits set in the child before it runs anything (inherited by all it starts).

    In a control group (``box``) memory is the group's limit, over everything the bot starts; without
    one it is ``RLIMIT_DATA``, per process (which the JVM trips by merely reserving its heap).
    ``cpu_total`` is a backstop: CPU seconds any one of its processes may use in its whole life (the
    referee itself holds the bot to its limit game by game, see channel.Process.allow_cpu); past it
    the kernel sends SIGXCPU, and a few seconds later SIGKILL."""
    memory = limits.memory_mb << 20
    scratch = limits.scratch_mb << 20
    cpu = resource.RLIM_INFINITY if cpu_total is None else int(cpu_total) + 1
    cpu_hard = resource.RLIM_INFINITY if cpu_total is None else cpu + 5
    cpus = cpu_set(limits.cpus)

    def confine() -> None:
        # the referee holds SIGINT/SIGTERM while it starts a bot (so a Ctrl-C cannot lose track of
        # a child half-started); the child must not inherit that
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
        os.sched_setaffinity(0, cpus)  # inherited by all it starts: the CPUs it sees and may use
        if box is not None:
            box.join()
        else:
            resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (scratch, scratch))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))

    return confine


class Unconfined:
    """Programs run as the arena's own user, in a session of their own, with the same limits but no
    sandbox: they can read and write what the arena can, open connections, and a child that leaves
    the session survives. Only for bots the organiser trusts (``--unconfined-bots-i-trust``)."""

    confined = False

    def launch(self, program: Program, limits: Limits, cpu_total: float | None = None) -> Launch:
        env = {**os.environ, **dict(program.env)} if program.env else None
        return Launch(list(program.argv), _limits_in_child(limits, cpu_total), program.cwd, env)

    def check(self, program: Program, label: str) -> None:
        return None

    def before_turn(self) -> None:
        return None


class Sandbox:
    """Programs run in a bubblewrap sandbox (see the module docstring); ``readable`` adds paths every
    bot may read (an interpreter installed outside ``/usr``, say); ``groups`` False limits each process
    alone; ``caches`` False leaves the kernel's caches as one bot left them for the next."""

    confined = True

    def __init__(self, readable: tuple[str, ...] = (), groups: bool = True, caches: bool = True):
        self.readable = tuple(os.path.abspath(p) for p in readable)
        self.root = os.geteuid() == 0
        self.groups = groups  # False: per-process limits only (the organiser's UNCOUNTED_OPTION)
        self.caches = caches  # False: caches shared between bots (the organiser's caches.SHARED_OPTION)

    def before_turn(self) -> None:
        """Before a bot's turn: drop what earlier bots left in the kernel's caches (:mod:`caches`)."""
        if self.caches:
            caches.drop()

    def _box(self, limits: Limits) -> cgroup.Box | None:
        if not self.groups:
            return None
        hierarchy = cgroup.available()
        if isinstance(hierarchy, str):
            raise SandboxUnavailable(f"no control group for the bot: {hierarchy}")
        try:
            return cgroup.Box(
                hierarchy, limits.memory_mb << 20, limits.processes, cpu_list(cpu_set(limits.cpus))
            )
        except OSError as exc:
            raise SandboxUnavailable(f"cannot make a control group for the bot: {exc}") from None

    # ---- what a bot sees ----------------------------------------------------------------------------
    def visible(self, program: Program) -> list[str]:
        """Every path bound read-only into this bot's sandbox, outermost first (nested ones dropped)."""
        python = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        wanted = [*SYSTEM, *python, str(Path(battleship.__file__).parent), *self.readable, *program.reads]
        kept: list[str] = []
        for path in sorted(
            {os.path.normpath(p) for p in wanted if os.path.exists(program.source(p))}, key=len
        ):
            if not any(_inside(path, k) for k in kept):
                kept.append(path)
        return kept

    def check(self, program: Program, label: str) -> None:
        """Refuse, before the run, a bot whose own files the sandbox could not show it, or a run whose
        working directory every bot could read."""
        cwd = os.getcwd()
        shared = next((p for p in self.visible(Program(())) if _inside(cwd, p)), None)
        if shared is not None:
            raise BattleshipError(
                f"the arena's working directory {cwd} lies in {shared}, which every bot may read: "
                "run the arena from a folder of its own"
            )
        for path in program.reads:
            if _inside(cwd, path):
                raise BattleshipError(
                    f"bot {label!r} names {path}, which holds the arena's working directory: a bot sees "
                    "only its own files, so name them (or give the bot a folder of its own)"
                )
            mode = os.stat(program.source(path)).st_mode
            need = 0o005 if os.path.isdir(path) else 0o004
            if self.root and mode & need != need:
                raise BattleshipError(
                    f"bot {label!r}: {path} is not readable by other users (mode {mode & 0o777:o}); the "
                    f"sandbox runs bots as an unprivileged user: chmod o+r{'x' if need == 0o005 else ''} it"
                )

    def launch(self, program: Program, limits: Limits, cpu_total: float | None = None) -> Launch:
        """The bwrap command that runs ``program``; an OSError if its command is not there to run."""
        env = self._env(program, limits.cpus)
        _found(program.argv[0], env["PATH"], program.cwd or os.getcwd(), program.source)
        try:
            filter_fd = seccomp.descriptor()
        except seccomp.SeccompUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from None
        try:
            box = self._box(limits)
        except SandboxUnavailable:
            os.close(filter_fd)
            raise
        read, write = os.pipe()
        argv = [_tool(BWRAP), *self._namespaces(), "--die-with-parent", "--new-session", "--clearenv"]
        argv += ["--seccomp", str(filter_fd)]
        for name, value in env.items():
            argv += ["--setenv", name, value]
        if program.python:
            argv += ["--setenv", "NUMBA_CACHE_DIR", NUMBA_CACHE]
        data_fds: list[int] = []  # the text of files bwrap writes in the sandbox (the CPU set shown)
        argv += self._file_system(program, limits, box, data_fds)
        argv += ["--info-fd", str(write)]
        argv += [*self._drop(), _tool("prlimit"), f"--nproc={limits.processes}:{limits.processes}", "--"]
        argv += program.argv
        return Launch(
            argv, _limits_in_child(limits, cpu_total, box), None, None, (write, filter_fd, *data_fds), read, box,
            _close_after_start=[write, filter_fd, *data_fds],
        )  # fmt: skip

    def _namespaces(self) -> list[str]:
        if self.root:  # no user namespace: the bot is made an unprivileged user instead (_drop)
            return ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                    "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]  # fmt: skip
        return ["--unshare-all", "--unshare-user", "--disable-userns"]

    def _drop(self) -> list[str]:
        """As root: run the bot as a user id no other process has, so RLIMIT_NPROC counts only its own."""
        if not self.root:
            return []
        uid = str(2**30 + secrets.randbelow(2**30))
        return [
            _tool("setpriv"),
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--",
        ]

    def _env(self, program: Program, cpus: int = 1) -> dict[str, str]:
        visible = self.visible(program)
        path = [
            p
            for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and any(_inside(p, v) for v in visible)
        ]
        env = {
            "PATH": os.pathsep.join(path) or "/usr/local/bin:/usr/bin:/bin",
            "HOME": SCRATCH,
            "TMPDIR": SCRATCH,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.update(dict.fromkeys(QUIET_THREADS, str(cpus)))
        return {**env, **dict(program.env)}

    def _file_system(
        self, program: Program, limits: Limits, box: cgroup.Box | None, fds: list[int]
    ) -> list[str]:
        args: list[str] = ["--perms", "0755", "--dir", "/sys"]
        if box is not None:  # its own group, read-only, where the JVM, Node.js and .NET read their limit
            for folder in ("/sys/fs", "/sys/fs/cgroup"):
                args += ["--perms", "0755", "--dir", folder]
            for folder, shown in box.shown():
                args += ["--ro-bind", folder, shown]
        for top in TOP:
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        args += ["--proc", "/proc", "--dev", "/dev", *_cpus_shown(limits, fds)]
        # a /dev/shm of its own (POSIX shared memory and semaphores live there), as small as the scratch
        args += ["--size", str(limits.scratch_mb << 20), "--perms", "1777", "--tmpfs", "/dev/shm"]
        # the scratch first: the bot's own files may lie under /tmp too, and are bound over it
        args += ["--size", str(limits.scratch_mb << 20), "--perms", "1777", "--tmpfs", SCRATCH]
        visible = self.visible(program)
        cwd = program.cwd or os.getcwd()
        made: list[str] = []  # directories on the way to each bound path, and the working directory
        for path in [*(str(p) for v in visible for p in reversed(Path(v).parents)), *(
                str(p) for p in [*reversed(Path(cwd).parents), Path(cwd)])]:  # fmt: skip
            if path != "/" and path not in made and not any(_inside(path, v) for v in visible):
                made.append(path)
        for path in made:
            args += ["--perms", "0755", "--dir", path]  # bwrap would make them 0700
        for path in visible:
            args += ["--ro-bind", program.source(path), path]
        return [*args, "--remount-ro", "/", "--chdir", cwd]


def cpu_set(count: int) -> frozenset[int]:
    """The CPUs each bot may use: the last ``count`` of the arena's own (a BattleshipError if it has fewer)."""
    mine = sorted(os.sched_getaffinity(0))
    if not 1 <= count <= len(mine):
        raise BattleshipError(
            f"--bot-cpus must be from 1 to {len(mine)} (the CPUs the arena may use here: {cpu_list(mine)}), "
            f"not {count}"
        )
    return frozenset(mine[-count:])


def cpu_list(cpus) -> str:
    """CPUs as the kernel lists them (``0-3,6``)."""
    spans: list[list[int]] = []
    for cpu in sorted(cpus):
        if spans and cpu == spans[-1][1] + 1:
            spans[-1][1] = cpu
        else:
            spans.append([cpu, cpu])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)


def _cpus_shown(limits: Limits, fds: list[int]) -> list[str]:
    """bwrap arguments showing the bot its CPU set where CPUs are counted: ``/sys/devices/system/cpu``'s
    ``online``, ``possible`` and ``present`` (what the C library, so ``os.cpu_count()`` and ``nproc``,
    reads) and ``/proc/stat`` (Node.js's ``os.cpus()``), this one as it was when the bot started, with
    only its CPUs' lines. The descriptors holding the files' text go to ``fds`` (closed once it starts)."""
    cpus = cpu_set(limits.cpus)
    listed = (cpu_list(cpus) + "\n").encode()
    with open("/proc/stat", "rb") as f:  # each interrupt's count cut (a large machine's run to pages)
        stat = b"".join(line if not line.startswith(b"intr ") else b" ".join(line.split()[:2]) + b"\n"
                        for line in f if not _other_cpu(line, cpus))  # fmt: skip
    args = [arg for folder in ("/sys/devices", "/sys/devices/system", "/sys/devices/system/cpu")
            for arg in ("--perms", "0755", "--dir", folder)]  # fmt: skip
    shown = [(f"/sys/devices/system/cpu/{name}", listed) for name in ("online", "possible", "present")]
    for where, text in [*shown, *([("/proc/stat", stat)] if len(stat) < PIPE_HOLDS else [])]:
        read, write = os.pipe()
        os.write(write, text)  # written whole before bwrap reads: a pipe holds PIPE_HOLDS
        os.close(write)
        fds.append(read)
        args += ["--perms", "0444", "--ro-bind-data", str(read), where]
    return args


def _other_cpu(line: bytes, cpus: frozenset[int]) -> bool:
    """Whether a /proc/stat line is one CPU's (``cpu3 ...``) and that CPU is not in ``cpus``."""
    word = line.split(b" ", 1)[0]
    return word[:3] == b"cpu" and word[3:].isdigit() and int(word[3:]) not in cpus


def _inside(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies under it."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def _found(command: str, path: str, cwd: str, source: Callable[[str], str] = str) -> None:
    """Refuse at once a command the sandbox would not find (a clear 'cannot run', not prlimit's words);
    ``source`` says where a path the bot sees comes from (an entry's private copy)."""
    where = os.path.join(cwd, command) if "/" in command else shutil.which(command, path=path)
    where = where and source(os.path.normpath(where))
    if where is None or not os.path.isfile(where) or not os.access(where, os.X_OK):
        raise FileNotFoundError(errno.ENOENT, "not found, or not an executable file", command)


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise SandboxUnavailable(f"{name} is not installed")
    return found


@functools.cache
def probe() -> str | None:
    """Why this machine cannot run a sandbox (None: it can). Tries a real one, once per process."""
    for tool in (BWRAP, "prlimit", *(("setpriv",) if os.geteuid() == 0 else ())):
        if shutil.which(tool) is None:
            package = "bubblewrap" if tool == BWRAP else "util-linux"
            return f"{tool} is not installed (Debian's {package} package)"
    launch = Sandbox(groups=False).launch(Program((shutil.which("true") or "/bin/true",)), Limits())
    try:
        done = subprocess.run(
            launch.argv, pass_fds=launch.pass_fds, capture_output=True, timeout=30, preexec_fn=launch.preexec
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{BWRAP} did not run: {exc}"
    finally:
        launch.started()
        if launch.info is not None:  # always set by a Sandbox's launch
            os.close(launch.info)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"{BWRAP} cannot make a sandbox here: {said[-1] if said else f'exit code {done.returncode}'}"
    return None


def choose(
    unconfined: bool = False, readable: tuple[str, ...] = (), groups: bool = True, caches: bool = True
) -> Jail:
    """The sandbox, or :class:`Unconfined` when the organiser asked for it; ``groups`` False keeps the
    sandbox but limits each process alone (no control group); ``caches`` False keeps it but leaves
    the kernel's caches shared between bots."""
    return Unconfined() if unconfined else Sandbox(readable, groups, caches)


def missing_limits() -> str | None:
    """The limits this machine cannot hold over a whole sandbox, in one line (None: it holds them all)."""
    found = cgroup.available()
    if isinstance(found, str):
        return f"memory, processes and CPU time cannot be counted over a whole sandbox: {found}"
    return None


def require(jail: Jail, labels: list[str]) -> None:
    """Refuse program and class bots (``labels``) in one clear line when the machine cannot sandbox them,
    or cannot hold them apart as the sandbox should (every missing piece named, with its option)."""
    if not labels or not jail.confined:
        return
    bots = ", ".join(labels)
    why = probe()
    if why is not None:
        raise SandboxUnavailable(
            f"cannot sandbox program and class bots ({bots}) here: {why}. Install bubblewrap "
            f"(apt-get install bubblewrap), or run them unconfined with {UNCONFINED_OPTION} if you trust "
            "every one of them"
        )
    missing = []  # (why it cannot be held here, the organiser's option, what a bot can do then)
    limits = missing_limits() if getattr(jail, "groups", False) else None
    if limits is not None:
        missing.append(
            (limits, UNCOUNTED_OPTION, "take memory and CPU through its children and shared memory")
        )
    shared = caches.why_not() if getattr(jail, "caches", False) else None
    if shared is not None:
        missing.append(
            (shared, caches.SHARED_OPTION, "pass what it saw to a later one through the pages it read")
        )
    if missing:
        raise SandboxUnavailable(
            f"cannot hold program and class bots ({bots}) as the sandbox should here: "
            f"{'; '.join(m[0] for m in missing)}. Run the arena as root, or pass "
            f"{' and '.join(m[1] for m in missing)} (a bot can then {' and '.join(m[2] for m in missing)}), "
            "if you trust every one of them"
        )
