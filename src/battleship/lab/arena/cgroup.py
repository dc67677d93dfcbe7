"""A control group per bot: memory, processes and CPU time counted over everything the bot starts.

This is how ``isolate`` (the IOI's contest sandbox) holds a box: limits on single processes
(``RLIMIT_DATA``, ``RLIMIT_NPROC``) miss what a bot does through its children, shared memory
(``memfd_create``, ``/dev/shm``) or files on a tmpfs; a control group counts all of it. Each bot's
program runs in a group of its own, made before it starts and removed when it is stopped:

- memory (the kernel's ``memory`` controller): every page its processes use, shared memory and tmpfs
  files included, with no swap; past the limit the kernel kills a process of the group, and the
  referee reads the group's count of such kills to say ``memory``;
- processes (``pids``): at most ``Limits.processes`` at once, threads included;
- CPU time (``cpuacct`` in version 1, ``cpu.stat`` in version 2): used by the whole group, children
  the bot never waits for included; the referee reads it game by game;
- CPUs (``cpuset``, version 1 only): the bot's own CPU set, which it cannot widen (elsewhere its
  affinity alone holds it, see the sandbox).

Both kinds of hierarchy are supported: version 2 where the machine delegates a subtree to the arena
(the root of the hierarchy when run as root, or a group whose controllers are handed down, as
``systemd-run --scope -p Delegate=yes`` makes), version 1 where each controller has a hierarchy of
its own. :func:`available` says which, or why neither. Runtimes that size their heaps from the
memory they are allowed (the JVM, Node.js, .NET) read the limit from the group, which the sandbox
shows the bot read-only.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

MOUNT = Path("/sys/fs/cgroup")
PREFIX = "battleship-arena"
CONTROLLERS_V1 = ("memory", "pids", "cpuacct")
# groups made only to be shown to the bot: the JVM's container support needs every one of these
# mounted, or it ignores the memory limit
SHOWN_V1 = ("cpu", "cpuset")
CONTROLLERS_V2 = ("memory", "pids", "cpu")
_counter = itertools.count()


@dataclass(frozen=True)
class Hierarchy:
    """Where the arena makes its groups: ``version`` 1 or 2, and the parent folder of each controller's
    groups (version 2 has one folder for all, under the key ``""``)."""

    version: int
    parents: tuple[tuple[str, str], ...]

    def parent(self, controller: str) -> Path:
        table = dict(self.parents)
        return Path(table[controller if self.version == 1 else ""])


def _own_groups() -> dict[str, str]:
    """This process's group in each hierarchy: {controller (or "" for version 2): path}."""
    groups: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            for name in names.split(",") if names else [""]:
                groups[name] = path
    return groups


def _v1() -> Hierarchy | str:
    groups = _own_groups()
    parents = []
    for controller in CONTROLLERS_V1:
        mount = MOUNT / controller
        if controller not in groups or not (mount / "cgroup.procs").exists():
            return f"the {controller} controller is not mounted at {mount}"
        folder = mount / groups[controller].lstrip("/")
        if not os.access(folder, os.W_OK):
            return f"cannot make control groups in {folder} (run the arena as root, or delegate it)"
        parents.append((controller, str(folder)))
    for controller in SHOWN_V1:
        folder = MOUNT / controller / groups.get(controller, "/").lstrip("/")
        if controller in groups and os.access(folder, os.W_OK):
            parents.append((controller, str(folder)))
    return Hierarchy(1, tuple(parents))


def _v2() -> Hierarchy | str:
    path = _own_groups().get("")
    if path is None or not (MOUNT / "cgroup.controllers").exists():
        return "no control group version 2 hierarchy at /sys/fs/cgroup"
    own = MOUNT / path.lstrip("/")
    missing = set(CONTROLLERS_V2) - set((own / "cgroup.controllers").read_text().split())
    if missing:
        return f"control group {path} is not given the {', '.join(sorted(missing))} controller(s)"
    try:  # hand the controllers down (refused while the group holds processes, unless it is the root)
        (own / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in CONTROLLERS_V2))
    except OSError:
        leaf = own / f"{PREFIX}-referee-{os.getpid()}"
        try:  # a group with only the referee in it: the referee moves into a leaf of it, then hands down
            leaf.mkdir(exist_ok=True)
            (leaf / "cgroup.procs").write_text(str(os.getpid()))
            (own / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in CONTROLLERS_V2))
        except OSError as exc:
            return (
                f"control group {path} is not delegated to the arena ({exc.strerror}): run it in a scope "
                "of its own, e.g. systemd-run --scope -p Delegate=yes battleship arena ..."
            )
    return Hierarchy(2, (("", str(own)),))


@functools.cache
def available() -> Hierarchy | str:
    """The hierarchy the arena makes its groups in, or a one-line reason why it cannot."""
    unified = MOUNT / "cgroup.controllers"
    found = _v2() if unified.exists() else _v1()
    if isinstance(found, str):
        return found
    try:  # one real group, made and removed, proves the rights
        box = Box(found, memory_bytes=64 << 20, processes=4)
        box.remove()
    except OSError as exc:
        return f"cannot make a control group: {exc}"
    return found


class Box:
    """One bot's group (in each controller's hierarchy, for version 1), with its limits set."""

    def __init__(self, hierarchy: Hierarchy, memory_bytes: int, processes: int, cpus: str | None = None):
        self.hierarchy = hierarchy
        name = f"{PREFIX}-{os.getpid()}-{next(_counter)}"
        controllers = [c for c, _ in hierarchy.parents]
        self.folders: dict[str, Path] = {}
        made: set[str] = set()  # a hierarchy may hold several controllers (cpu,cpuacct): one group
        try:
            for controller in controllers:
                folder = hierarchy.parent(controller) / name
                if os.path.realpath(folder) not in made:
                    folder.mkdir()
                    made.add(os.path.realpath(folder))
                self.folders[controller] = folder
            if "cpuset" in self.folders:  # a cpuset group takes no process until given its cpus and mems
                for table in ("cpuset.cpus", "cpuset.mems"):
                    given = (hierarchy.parent("cpuset") / table).read_text()
                    (self.folders["cpuset"] / table).write_text(
                        cpus if table == "cpuset.cpus" and cpus else given
                    )
            self._limit(memory_bytes, processes)
        except OSError:
            self.remove()
            raise

    def _limit(self, memory_bytes: int, processes: int) -> None:
        if self.hierarchy.version == 1:
            memory = self.folders["memory"]
            (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
            with contextlib.suppress(FileNotFoundError):  # swap accounting off: there is no swap to limit
                (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
            (self.folders["pids"] / "pids.max").write_text(str(processes))
        else:
            folder = self.folders[""]
            (folder / "memory.max").write_text(str(memory_bytes))
            with contextlib.suppress(FileNotFoundError):
                (folder / "memory.swap.max").write_text("0")
            (folder / "pids.max").write_text(str(processes))

    @property
    def memory_folder(self) -> Path:
        """The group's memory folder (shown to the bot read-only, where runtimes look for their limit)."""
        return self.folders["memory" if self.hierarchy.version == 1 else ""]

    def shown(self) -> list[tuple[str, str]]:
        """(the group's folder, where the bot sees it): its own groups only, read-only."""
        if self.hierarchy.version == 2:
            return [(str(self.folders[""]), str(MOUNT))]
        return [(str(folder), str(MOUNT / controller)) for controller, folder in self.folders.items()]

    def join(self) -> None:
        """Move the calling process into the group (called in the child, before it runs the bot)."""
        for folder in {os.path.realpath(f): f for f in self.folders.values()}.values():
            with open(folder / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))

    def cpu_seconds(self) -> float:
        """CPU time used by every process the group has held."""
        try:
            if self.hierarchy.version == 1:
                return int((self.folders["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
            for line in (self.folders[""] / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            pass
        return 0.0

    def memory_kills(self) -> int:
        """How many processes of the group the kernel has killed for its memory limit."""
        folder = self.memory_folder
        table = "memory.oom_control" if self.hierarchy.version == 1 else "memory.events"
        with contextlib.suppress(OSError, ValueError):
            for line in (folder / table).read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        return 0

    def processes(self) -> list[int]:
        folder = self.folders["pids" if self.hierarchy.version == 1 else ""]
        with contextlib.suppress(OSError, ValueError):
            return [int(p) for p in (folder / "cgroup.procs").read_text().split()]
        return []

    def kill(self) -> None:
        """Kill every process in the group."""
        if self.hierarchy.version == 2:
            with contextlib.suppress(OSError):
                (self.folders[""] / "cgroup.kill").write_text("1")
                return
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove(self, wait: float = 2.0) -> None:
        """Kill what is left and remove the group (a group holding processes cannot be removed)."""
        end = time.monotonic() + wait
        for folder in {os.path.realpath(f): f for f in self.folders.values()}.values():
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > end:
                        break
                    self.kill()
                    time.sleep(0.005)
