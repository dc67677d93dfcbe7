"""The sweep engine's state graphs for the web: compiled ahead, off the request path, and shared.

Exact counting under a spacing margin sweeps a state graph compiled once per board shape, spacing
and ship classes: seconds to compile (Sea Battle's: about 13 s
and 291 MB), then a board is one sweep. A move has 2 s, so no request ever compiles one. Instead:

- :class:`Graphs` (in the server) compiles the graphs that are wanted, one at a time, in a worker
  process of its own (:func:`build_job`), and writes each to a folder as ``.npy`` files: the
  presets' when the server warms up, a custom rules' when a game under them is created, a learned
  prior's when a move needs it;
- a worker about to answer a board maps the graph it needs from that folder (:func:`adopt`) into
  its engine's cache. The files are mapped copy-on-write and never written, so every worker shares
  the same pages of memory: one copy of each graph on the machine, however many workers sweep it;
- a request whose graph is not ready waits for it only as long as its deadline allows, then says so
  and answers without it (the density shooter's move, or the calculator's estimate).

:func:`~battleship.inference.state_graphs.needed` says which graph (if any) a board needs: none where
ships may touch (the row engine counts those without one) or where the sweep does not apply
(polyominoes). Which graph, compiling it, and the files it is kept in are the inference layer's
(:mod:`battleship.inference.state_graphs`); the queue, the compiling process and the waiting are here.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import queue
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from battleship.game import Observation
from battleship.inference.state_graphs import (
    Shape,
    TooLarge,
    adopt,
    compile_graph,
    first_pass,
    key,
    load,
    needed,
    save,
)
from battleship.inference.watch import flag_of
from battleship.stop import CANCELLED, Stop, Stopped
from battleship.web.workers import Workers

log = logging.getLogger("battleship.web")
COMPILE_SECONDS = 600.0  # the most one graph's compilation may take before it is given up
# The compiler's own first-pass figure (it overestimates: Sea Battle 28.6 million for 22.9 million
# states, 1.5 GB at the compiler's peak); past it a graph would take the server past 2 GB.
MAX_LIKELY_STATES = 30_000_000
CLAIM_POLL = 0.2  # seconds between looks while another process sharing the folder compiles a graph
RETRY_AFTER = 600.0  # seconds before a compilation that failed (killed, say) is tried again
READY, QUEUED, COMPILING, TOO_LARGE, FAILED = "ready", "queued", "compiling", "too-large", "failed"


def build_job(shape: Shape, directory: Path, *, stop: Stop) -> dict[str, Any]:
    """:func:`compile_into`, niced: what the compiling worker runs (a fresh process per compilation, so
    the games' moves come first on a busy machine)."""
    os.nice(10)
    return compile_into(shape, directory, stop=stop)


def compile_into(shape: Shape, directory: Path, *, stop: Stop) -> dict[str, Any]:
    """Compile ``shape``'s graph and store it in ``directory``: its size, or why it is too large."""
    flag = flag_of(stop)
    try:
        likely = first_pass(shape, flag)  # kept: the compilation reuses it
        if likely is None:
            stop.check()
            raise Stopped("the compilation stopped")
        if likely > MAX_LIKELY_STATES:
            return {
                "too_large": f"about {likely:,} states, past the {MAX_LIKELY_STATES:,} this server compiles"
            }
        compiled = compile_graph(shape, flag)
    except TooLarge as error:
        return {"too_large": str(error)}
    if compiled is None:
        stop.check()
        raise Stopped("the compilation stopped")
    save(compiled, directory)
    return {"states": compiled.states, "edges": compiled.edges, "bytes": compiled.nbytes}


def with_graphs(directory: Path, shapes: tuple[Shape | None, ...], work, *args: Any, stop: Stop) -> Any:
    """``work(*args, stop=stop)`` in a worker, once the graphs it needs are this process's (a job wrapper)."""
    for shape in shapes:
        adopt(directory, shape)
    return work(*args, stop=stop)


# ---- compiling ahead, in the server ------------------------------------------------------------------
@dataclass(frozen=True)
class Status:
    """Where a graph stands: ``ready``, ``queued``, ``compiling``, ``too-large`` (with why) or ``failed``."""

    state: str
    since: float  # time.monotonic() when it reached that state
    why: str = ""
    states: int = 0

    def words(self) -> str:
        """What a player reads about it."""
        if self.state == READY:
            return f"its state graph is compiled ({self.states:,} states)"
        waited = time.monotonic() - self.since
        if self.state == QUEUED:
            return f"its state graph is waiting to be compiled (queued {waited:.0f} s ago); exact play starts once it is ready"
        if self.state == COMPILING:
            return f"its state graph is being compiled (for {waited:.0f} s so far); exact play starts once it is ready"
        if self.state == TOO_LARGE:
            return f"its state graph would not fit in memory: {self.why}"
        return f"its state graph could not be compiled: {self.why}"


class Graphs:
    """Graphs compiled ahead, one at a time, each in a fresh worker process of its own (a compilation
    may take 1.5 GB at its peak, all returned when the process ends), stored in a folder every
    worker maps from.

    A game's graph comes before the warm-up's: asked for while a warm-up graph compiles, it stops that
    compilation (which goes back to the queue, to start again after it) rather than wait minutes
    behind Sea Battle's.
    """

    job = staticmethod(build_job)  # what compiles a graph in the worker (a test may give a stand-in)

    def __init__(self, directory: Path | None = None, compile_seconds: float = COMPILE_SECONDS):
        self._own = directory is None
        self._directory = directory
        self._made = False  # whether the folder is known to exist
        self._directory_lock = threading.Lock()
        self.compile_seconds = compile_seconds
        self._pool: Workers | None = None  # the compiling process, while one runs
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._status: dict[Shape, Status] = {}
        self._queue: queue.PriorityQueue[tuple[int, int, Shape | None]] = queue.PriorityQueue()
        self._asked = 0  # a counter: first asked, first compiled within a priority
        self._stop = Stop()
        self._thread: threading.Thread | None = None
        # the stop of a warm-up's compilation under way (a game's graph asked for stops it)
        self._warm_up_stop: Stop | None = None
        self.preempted = 0  # warm-up compilations stopped for a game's graph

    @property
    def directory(self) -> Path:
        """The folder of compiled graphs (a temporary one made on first use, unless one was given)."""
        with self._directory_lock:
            if self._directory is None:
                self._directory = temporary_folder()
            if not self._made:  # once: every move asks for the folder
                self._directory.mkdir(parents=True, exist_ok=True)
                self._made = True
            return self._directory

    def status(self, shape: Shape | None) -> Status | None:
        """Where ``shape``'s graph stands (None: nobody asked for it); a graph needing none is ready."""
        if shape is None:
            return Status(READY, 0.0)
        with self._lock:
            return self._status.get(shape)

    def want(self, shape: Shape | None, urgent: bool = True) -> Status:
        """Ask for ``shape``'s graph (queued unless known; a game's before the warm-up's); where it stands now."""
        if shape is None:
            return Status(READY, 0.0)
        with self._lock:
            known = self._status.get(shape)
            stale = (
                known is not None and known.state == FAILED and time.monotonic() - known.since > RETRY_AFTER
            )
            if known is not None and not stale:
                return known
            if load(shape, self.directory) is not None:  # stored by an earlier server on this folder
                known = Status(READY, time.monotonic())
            else:
                known = Status(QUEUED, time.monotonic())
                self._asked += 1
                self._queue.put((0 if urgent else 1, self._asked, shape))
                self._start()
                if urgent and self._warm_up_stop is not None:
                    self._warm_up_stop.request()  # a warm-up's compilation gives way
            self._status[shape] = known
            return known

    def wait(self, shape: Shape | None, stop: Stop, until: float | None = None) -> Status:
        """Ask for ``shape``'s graph and wait until it is ready, refused, ``until`` (monotonic) or ``stop``."""
        status = self.want(shape)
        with self._lock:
            while True:
                status = self._status.get(shape, status) if shape is not None else status
                done = status.state in (READY, TOO_LARGE, FAILED)
                left = (until if until is not None else float("inf")) - time.monotonic()
                if stop.deadline is not None:
                    left = min(left, stop.deadline - time.monotonic())
                if done or left <= 0 or stop.requested:
                    return status
                self._changed.wait(min(left, 0.1))

    def _start(self) -> None:
        """The compiling thread and its worker process, on first need (with the lock held)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._compile_all, daemon=True, name="compile-graphs")
            self._thread.start()

    def _set(self, shape: Shape, status: Status) -> None:
        with self._changed:
            self._status[shape] = status
            self._changed.notify_all()

    def _compile_all(self) -> None:
        """Compile what is queued, one at a time, until closed."""
        while (queued := self._queue.get())[2] is not None:
            priority, order, shape = queued
            assert shape is not None
            item = (priority, order, shape)
            self._set(shape, Status(COMPILING, time.monotonic()))
            claim = self._claim(item)
            if claim is None:
                continue
            with claim:
                if not self._compile(item):
                    return

    def _claim(self, item: tuple[int, int, Shape]) -> IO[str] | None:
        """The right to compile ``item``'s graph into the folder, which other processes may share (every
        worker of ``serve --workers N``, servers given one ``--graphs``): its lock file, held. While another
        process compiles it, wait; None when that one stored it (ready, and said so), when this one
        stops, or when a game's graph was asked for meanwhile (a warm-up's waiting gives way to it)."""
        priority, _order, shape = item
        lock = open(self.directory / f".{key(shape)}.lock", "a")  # noqa: SIM115 - closed by the caller
        while (stored := load(shape, self.directory)) is None:
            if _locked(lock):
                stored = load(shape, self.directory)  # stored just before the lock came free?
                if stored is None:
                    return lock
                break
            if self._stop.requested or self._game_waits(priority):
                if not self._stop.requested:
                    self._requeue(item)
                lock.close()
                return None
            time.sleep(CLAIM_POLL)
        lock.close()
        self._set(shape, Status(READY, time.monotonic(), states=stored.states))
        return None

    def _game_waits(self, priority: int) -> bool:
        """True when a game's graph waits in the queue behind one of the warm-up's (``priority`` > 0)."""
        with self._lock:
            return priority > 0 and bool(self._queue.queue) and self._queue.queue[0][0] == 0

    def _compile(self, item: tuple[int, int, Shape]) -> bool:
        """Compile ``item``'s graph in a worker process of its own, and say how it went; False when this
        object is closing (nothing more is compiled)."""
        priority, order, shape = item
        started = time.monotonic()
        with self._lock:
            if self._stop.requested:
                return False
            self._pool = Workers(1)
            mine = self._stop.part(self.compile_seconds)
            self._warm_up_stop = mine if priority > 0 else None
            if priority > 0 and self._queue.queue and self._queue.queue[0][0] == 0:
                mine.request()  # a game's graph was asked for as this one was taken: it goes first
        try:
            done = self._pool.run(type(self).job, shape, self.directory, stop=mine)
        except Exception as error:  # a stop at shutdown, a killed process, a bug: said, not raised
            if self._stop.requested:
                return False
            if int(mine.flag[0]) == CANCELLED:  # given way to a game's graph (not its time): again later
                self._requeue((priority, order, shape))
                return True
            log.warning("compiling the state graph of %s failed: %s", shape, error)
            self._set(shape, Status(FAILED, time.monotonic(), str(error) or type(error).__name__))
            return True
        finally:
            self._pool.close()  # its memory back to the system
            with self._lock:
                self._warm_up_stop = None
        if "too_large" in done:
            self._set(shape, Status(TOO_LARGE, time.monotonic(), done["too_large"]))
        else:
            log.info(
                "compiled the state graph of %s in %.1f s: %s states, %s MB",
                shape, time.monotonic() - started, f"{done['states']:,}", done["bytes"] // 10**6,
            )  # fmt: skip
            self._set(shape, Status(READY, time.monotonic(), states=done["states"]))
        return True

    def _requeue(self, item: tuple[int, int, Shape]) -> None:
        """A warm-up compilation stopped for a game's graph: queued again, where it was."""
        log.info("compiling the state graph of %s gave way to a game's; it starts again later", item[2])
        self.preempted += 1
        self._set(item[2], Status(QUEUED, time.monotonic()))
        self._queue.put(item)

    def close(self) -> None:
        """Stop compiling, end the worker, delete the folder (if this object made it)."""
        with self._lock:
            self._stop.request()
            pool = self._pool
        self._queue.put((-1, 0, None))
        if pool is not None:
            pool.close()
        if self._thread is not None:
            self._thread.join(10)
        if self._own and self._directory is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(self._directory)


def _locked(lock: IO[str]) -> bool:
    """Take ``lock`` (an open lock file) if no other process holds it; whether it was taken."""
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


# a server's own folder of graphs (no --graphs given): temporary, named so, with the process that owns it
TEMPORARY, OWNER = "battleship-graphs-", "owner"
FOLDER_ENV = "BATTLESHIP_GRAPHS"  # the folder of servers given none (folder_from_environment)


def temporary_folder() -> Path:
    """A new temporary folder of graphs, owned by this process (deleted by the next server once this
    process is gone, if it did not delete it itself)."""
    remove_orphans()
    folder = Path(tempfile.mkdtemp(prefix=TEMPORARY))
    (folder / OWNER).write_text(_process_key(os.getpid()) or "")
    return folder


def folder_from_environment() -> Path | None:
    """The folder of graphs named by ``$BATTLESHIP_GRAPHS`` (None if unset): where a server given no
    folder of its own keeps them, so that every server started with it shares one compilation."""
    named = os.environ.get(FOLDER_ENV, "")
    return Path(named) if named else None


def remove_orphans() -> list[Path]:
    """Delete the temporary graph folders of servers that ended without deleting them (killed, or the
    machine went down): each says which process made it, and that process is gone. Sea Battle's graph
    alone is 300 MB, so a few killed servers would fill a temporary folder. A folder whose process
    lives, or which says none (being made, or by an older version), is left alone. Returns those deleted."""
    gone = []
    for folder in Path(tempfile.gettempdir()).glob(f"{TEMPORARY}*"):
        try:
            owner = (folder / OWNER).read_text().strip()
        except OSError:
            continue
        pid = owner.split(" ")[0]
        if owner and pid.isdigit() and _process_key(int(pid)) != owner:
            shutil.rmtree(folder, ignore_errors=True)
            gone.append(folder)
    return gone


def _process_key(pid: int) -> str | None:
    """``pid`` and when it started (from /proc: a number reused by a later process reads otherwise), or
    None if no such process runs; the number alone where /proc is not there to read."""
    try:
        started = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        if Path("/proc/self/stat").exists():
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass  # another user's, alive
        return str(pid)
    return f"{pid} {started}"


def warm_presets(compiled: Graphs) -> list[Shape]:
    """Ask for the graph of every preset that sweeps one (a spacing margin), smallest board first;
    the shapes asked for. Returns at once: they compile in the background."""
    from battleship.rules import PRESETS

    shapes = [needed(rules, Observation(rules)) for _words, rules in PRESETS.values()]
    wanted = sorted({s for s in shapes if s is not None}, key=lambda s: (s.cells, sum(s.mult)))
    for shape in wanted:
        compiled.want(shape, urgent=False)
    return wanted


def compile_presets(folder: Path) -> dict[Shape, Status]:
    """Compile every preset's graph into ``folder`` now, one at a time (those stored there already are
    kept), and say where each ended: for a folder that servers will share (``serve --graphs``), so that
    they start with exact play ready. A server compiling one of them into the folder meanwhile is
    waited for, not raced."""
    compiled = Graphs(folder)
    try:
        wanted = warm_presets(compiled)
        return {shape: compiled.wait(shape, Stop()) for shape in wanted}
    finally:
        compiled.close()
