"""A bot's process: started in its jail with limits, spoken to in lines, every wait bounded by a deadline.

The referee never blocks on a bot: reads and writes go through non-blocking pipes and ``select``
with a deadline, so a bot that hangs, floods its output or stops reading its input costs at most
its time limit. The same ``select`` watches the process itself (a pidfd), so a bot that exits is
noticed at once even if a child of its still holds its output, and drains its stderr, of which the
referee keeps only the last :data:`STDERR_KEPT` bytes.

Where the program runs is :mod:`~battleship.lab.arena.sandbox`'s business; here are the limits
every bot gets either way: data memory (``RLIMIT_DATA``, which counts what a program allocates but
not the address space Node.js or the JVM merely reserve), file size, processes (in the sandbox), and
CPU time a game: the referee reads the bot's CPU time after every answer and, while it waits for
one, every :data:`CPU_LOOK` seconds, so a bot that spins, in its turn or between turns, is stopped
(the referee cannot move a kernel limit on a bot running as another user without a privilege it
may lack; the kernel's ``RLIMIT_CPU`` is only a backstop for the whole run).

Every process started is tracked until it is stopped, and :func:`stop_all` ends whatever the
calling thread left (the arena calls it however a run ends, Ctrl-C included).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import IO, cast

from battleship.lab.arena.protocol import MAX_LINE, BotFault
from battleship.lab.arena.sandbox import Jail, Limits, Program

STDERR_KEPT = 16 << 10  # bytes of a bot's stderr the referee keeps (the end): the rest is read and dropped
GONE_WAIT = 2.0  # seconds the referee waits for a killed sandbox's processes to be gone
CPU_LOOK = 0.25  # seconds between looks at a bot's CPU time while the referee waits for its answer
_LIVE: dict[Process, int] = {}  # every process not yet stopped, with the thread that started it


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends: a Ctrl-C cannot strike between starting a process
    and recording it (so :func:`stop_all` always knows every process)."""
    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None


class Process:
    """One run of a bot's program. Raises :class:`BotFault` on any failure to talk."""

    def __init__(self, program: Program, limits: Limits, jail: Jail, cpu_total: float | None = None):
        self.limits, self.confined = limits, jail.confined
        self._buffer = b""
        self._stderr = bytearray()
        self._asked_at = time.monotonic()  # when the last message went out: a timeout says how long it waited
        self._cpu_start, self._cpu_allowed = 0.0, float("inf")
        self._sandbox_pid: int | None = None  # the sandbox's first process (its PID namespace's init)
        self._bot_pid: int | None = None  # the bot's own process (inside the sandbox, or the one started)
        try:
            launch = jail.launch(program, limits, cpu_total)
        except OSError as exc:
            raise BotFault("start", f"cannot run {program.argv[0]!r}: {exc.strerror or exc}") from None
        self._info, self._box = launch.info, launch.box
        with _signals_held():
            try:
                self._popen = subprocess.Popen(
                    launch.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    cwd=launch.cwd, env=launch.env, start_new_session=True, preexec_fn=launch.preexec,
                    pass_fds=launch.pass_fds,
                )  # fmt: skip
            except OSError as exc:
                self._close_info()
                if self._box is not None:
                    self._box.remove()
                raise BotFault("start", f"cannot run {program.argv[0]!r}: {exc.strerror or exc}") from None
            finally:
                launch.started()
            # all three were asked for as pipes, so Popen made each one
            self._stdin_pipe = cast(IO[bytes], self._popen.stdin)
            self._stdout_pipe = cast(IO[bytes], self._popen.stdout)
            self._stderr_pipe = cast(IO[bytes], self._popen.stderr)
            _LIVE[self] = threading.get_ident()
            self._pidfd = os.pidfd_open(self._popen.pid)
            for stream in (self._stdin_pipe, self._stdout_pipe, self._stderr_pipe):
                os.set_blocking(stream.fileno(), False)

    # ---- the processes ----------------------------------------------------------------------------
    def _read_info(self, deadline: float) -> None:
        """The sandbox's first process id, from bubblewrap's --info-fd (written once it is set up)."""
        if self._info is None:
            return
        data = b""
        while (
            time.monotonic() < deadline
            and select.select([self._info], [], [], deadline - time.monotonic())[0]
        ):
            chunk = os.read(self._info, 4096)
            data += chunk
            if not chunk or data.rstrip().endswith(b"}"):
                break
        self._close_info()
        with contextlib.suppress(ValueError):
            self._sandbox_pid = int(json.loads(data)["child-pid"])

    def _close_info(self) -> None:
        if self._info is not None:
            os.close(self._info)
            self._info = None

    def bot_pid(self) -> int | None:
        """The bot's own process: the one started, or in a sandbox the first its init started."""
        if self._bot_pid is None and not self.confined:
            self._bot_pid = self._popen.pid
        if self._bot_pid is None:
            self._read_info(time.monotonic() + self.limits.start)
            if self._sandbox_pid is not None:
                self._bot_pid = _first_child(self._sandbox_pid)
        return self._bot_pid

    # ---- limits -----------------------------------------------------------------------------------
    def cpu_seconds(self) -> float:
        """CPU time the bot has used so far: in a control group, every process it started, waited for or
        not; else user + system of its own process, with the children it has waited for."""
        if self._box is not None:
            return self._box.cpu_seconds()
        pid = self.bot_pid()
        fields = _stat(pid) if pid else None
        if fields is None:
            return 0.0
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    def allow_cpu(self, seconds: float) -> None:
        """Let the bot use ``seconds`` more CPU time from now; :meth:`over_cpu` says when it has not."""
        self._cpu_start = self.cpu_seconds()
        self._cpu_allowed = seconds

    def over_cpu(self) -> None:
        """A ``cpu`` :class:`BotFault` if the bot has used more CPU time than :meth:`allow_cpu` let it."""
        used = self.cpu_seconds() - self._cpu_start
        if used > self._cpu_allowed:
            raise BotFault(
                "cpu", f"used {used:.1f} s of CPU time in a game; the limit is {self._cpu_allowed:g} s"
            )

    # ---- talking ----------------------------------------------------------------------------------
    def _wait(self, reading: bool, deadline: float) -> bool:
        """Wait until stdout can be read (``reading``) or stdin written; False at the deadline.
        Drains stderr meanwhile; a :class:`BotFault` if the bot has exited."""
        data = self._stdout_pipe if reading else self._stdin_pipe
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if reading and self._cpu_allowed < float("inf"):
                self.over_cpu()  # a bot spinning instead of answering is stopped at its CPU limit
                left = min(left, CPU_LOOK)
            watch: list[int | IO[bytes]] = [self._pidfd]
            if not self._stderr_pipe.closed:
                watch.append(self._stderr_pipe)
            ready_r, ready_w, _ = select.select(
                watch + ([data] if reading else []), [] if reading else [data], [], left
            )
            if self._stderr_pipe in ready_r:
                self._drain_stderr()
            if data in ready_r or data in ready_w:
                return True
            if self._pidfd in ready_r:
                return True  # gone: the read or write that follows says how (after what it left)

    def _drain_stderr(self) -> None:
        try:
            chunk = os.read(self._stderr_pipe.fileno(), 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            self._stderr_pipe.close()
            return
        self._stderr += chunk
        if len(self._stderr) > STDERR_KEPT:
            del self._stderr[: len(self._stderr) - STDERR_KEPT]

    def send(self, lines: list[str], deadline: float) -> None:
        """Write lines; a bot that stops reading its input loses at the deadline."""
        data = "".join(line + "\n" for line in lines).encode()
        self._asked_at = time.monotonic()
        fd = self._stdin_pipe.fileno()
        while data:
            if not self._wait(False, deadline):
                raise BotFault("time", "stopped reading its input")
            if self._exited():
                raise self._ended("exited")
            try:
                data = data[os.write(fd, data) :]
            except BlockingIOError:
                continue
            except BrokenPipeError:
                raise self._ended("closed its input") from None

    def receive(self, deadline: float, waiting_for: str) -> str:
        """The next line the bot writes, without its newline."""
        fd = self._stdout_pipe.fileno()
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                raise BotFault(
                    "malformed", f"wrote a line of over {MAX_LINE} bytes while asked {waiting_for}"
                )
            if not self._wait(True, deadline):
                waited = (time.monotonic() - self._asked_at) * 1000
                raise BotFault(
                    "time", f"no answer to {waiting_for} within the limit (waited {waited:.0f} ms)"
                )
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                chunk = None  # nothing to read: the process has gone
            if chunk:
                self._buffer += chunk
            elif chunk == b"":
                raise self._ended(f"closed its output while asked {waiting_for}")
            elif self._exited():
                raise self._ended(f"exited while asked {waiting_for}")
        line, self._buffer = self._buffer.split(b"\n", 1)
        return decode_line(line, waiting_for)

    def _exited(self) -> bool:
        return bool(select.select([self._pidfd], [], [], 0)[0])

    def _ended(self, what: str) -> BotFault:
        """The fault of a bot that has gone: ``cpu`` if the kernel stopped it for its CPU time, else
        ``crash``, with the exit status and the end of its stderr."""
        try:
            code = self._popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return BotFault("crash", what)
        if self.confined and code > 128:  # bubblewrap reports a signal as 128 + its number
            code = -(code - 128)
        while not self._stderr_pipe.closed and select.select([self._stderr_pipe], [], [], 0)[0]:
            self._drain_stderr()
        if self._box is not None and self._box.memory_kills():
            limit = self.limits.memory_mb
            return BotFault(
                "crash", f"{what}: killed at its memory limit ({limit} MB over its whole sandbox)"
            )
        if code < 0 and _signal_name(-code) == "SIGXCPU":
            return BotFault("cpu", f"{what}: stopped by SIGXCPU, over its CPU time limit")
        story = f"{what}: stopped by {_signal_name(-code)}" if code < 0 else f"{what}: exit code {code}"
        tail = self.stderr_tail()
        return BotFault("crash", f"{story}; stderr ends {tail!r}" if tail else story)

    def settle_stderr(self, wait: float = 0.2) -> None:
        """Read what the bot has written to stderr so far (waiting up to ``wait`` for more): a fault's
        detail then shows it."""
        end = time.monotonic() + wait
        while not self._stderr_pipe.closed:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self._stderr_pipe], [], [], left)[0]:
                return
            self._drain_stderr()

    def stderr_tail(self, size: int = 240) -> str:
        """The last ``size`` characters the bot wrote to stderr."""
        return bytes(self._stderr[-size:]).decode(errors="replace").strip()

    @property
    def stderr_kept(self) -> int:
        """Bytes of stderr the referee holds for this bot (never more than :data:`STDERR_KEPT`)."""
        return len(self._stderr)

    # ---- the end ----------------------------------------------------------------------------------
    def stop(self, polite: bool = True) -> None:
        """End the process and everything it started; never raises. ``polite`` sends ``quit`` first
        and waits a moment for the bot to exit by itself."""
        if polite:
            with contextlib.suppress(BotFault, OSError, ValueError):
                self.send(["quit"], time.monotonic() + 0.05)
                select.select([self._pidfd], [], [], 0.2)
        if self.confined and self._sandbox_pid is None:
            self._read_info(time.monotonic() + 0.5)
        running = self._popen.poll() is None  # so its children are not yet reaped: their ids are safe
        if running and self._sandbox_pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self._sandbox_pid, signal.SIGKILL)  # the kernel empties its PID namespace
        if running or not self.confined:  # unconfined, what the bot started may outlive it in its session
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._popen.pid, signal.SIGKILL)
        self._popen.wait()
        if self._box is not None:
            self._box.remove()  # kills anything left in it first
        if self._sandbox_pid is not None:
            _wait_gone(self._sandbox_pid)
        elif not self.confined:
            _wait_group_gone(self._popen.pid)
        for stream in (self._stdin_pipe, self._stdout_pipe, self._stderr_pipe):
            with contextlib.suppress(OSError):
                stream.close()
        with contextlib.suppress(OSError):
            os.close(self._pidfd)
        self._close_info()
        _LIVE.pop(self, None)


def decode_line(line: bytes, waiting_for: str) -> str:
    """A line a bot wrote (without its newline), as text: UTF-8, a carriage return at its end dropped;
    a ``malformed`` :class:`BotFault` if it is not UTF-8."""
    try:
        return line.decode().rstrip("\r")
    except UnicodeDecodeError:
        raise BotFault("malformed", f"wrote bytes that are not UTF-8 while asked {waiting_for}") from None


def _first_child(pid: int) -> int | None:
    """The process a sandbox's init started first: the bot's command (process 2 of its namespace)."""
    for name in os.listdir("/proc"):
        fields = _stat(int(name)) if name.isdigit() else None
        if fields is not None and int(fields[1]) == pid:
            with contextlib.suppress(OSError), open(f"/proc/{name}/status", "rb") as f:
                nspid = next((line.split() for line in f if line.startswith(b"NSpid:")), [])
                if nspid[-1:] == [b"2"]:
                    return int(name)
    return None


def _wait_gone(pid: int) -> None:
    """Wait until a killed sandbox's init is gone or a zombie: then nothing of its namespace is left."""
    end = time.monotonic() + GONE_WAIT
    while time.monotonic() < end:
        fields = _stat(pid)
        if fields is None or fields[0] in (b"Z", b"X"):
            return
        time.sleep(0.001)


def _wait_group_gone(group: int) -> None:
    """Wait until every process of a killed session's group has died (they take a moment each)."""
    end = time.monotonic() + GONE_WAIT
    while time.monotonic() < end:
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.001)


def stop_all() -> None:
    """Stop every bot process this thread started that still runs (a run interrupted, or a bot left
    open by mistake); another thread's run is left alone."""
    me = threading.get_ident()
    for process in [p for p, thread in list(_LIVE.items()) if thread == me]:
        process.stop(polite=False)
