"""A bot's process: started with limits, spoken to in lines, every wait bounded by a deadline.

The referee never blocks on a bot: reads and writes go through non-blocking pipes and ``select``
with a deadline, so a bot that hangs, floods its output or stops reading its input costs at most
its time limit. The process gets its own session (so the referee can kill it and anything it
started), a data-memory limit (``RLIMIT_DATA``, which counts what a program allocates but not the
address space Node.js or the JVM merely reserve) and a CPU-time limit the referee raises game by
game, so a bot that spins between its turns is stopped too.
"""

from __future__ import annotations

import contextlib
import os
import resource
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

from battleship.lab.arena.protocol import MAX_LINE, BotFault


@dataclass(frozen=True)
class Limits:
    """What every bot is allowed. ``time`` is per shot (wall clock, as the C# Pirates contest timed
    moves; 0 for none); ``start`` covers starting and reading the rules; ``cpu`` is CPU seconds per
    game (None: ``time`` for every cell of the board, plus ``start``); ``memory_mb`` its data memory."""

    time: float = 0.5
    start: float = 10.0
    cpu: float | None = None
    memory_mb: int = 1024

    def cpu_per_game(self, cells: int) -> float:
        """CPU seconds a bot may use in one game on a board of ``cells`` cells."""
        if self.cpu is not None:
            return self.cpu
        return (self.time or self.start) * cells + self.start


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Process:
    """One run of a bot's program. Raises :class:`BotFault` on any failure to talk."""

    def __init__(self, argv: list[str], limits: Limits, cwd: str | None = None):
        self.limits = limits
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the process runs; closed by stop()
        self._buffer = b""
        self._asked_at = time.monotonic()  # when the last message went out: a timeout says how long it waited
        self._cpu_start, self._cpu_allowed = 0.0, float("inf")
        memory = limits.memory_mb << 20

        def confine() -> None:  # runs in the child before the program starts
            resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
            # the soft limit moves game by game (allow_cpu); the hard one stays open, as raising it
            # later takes a privilege the arena may not have. A bot that ignores SIGXCPU is still
            # caught: the referee reads its CPU time after every answer (over_cpu).
            cpu = int(limits.start) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))

        try:
            self._popen = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                cwd=cwd,
                start_new_session=True,
                preexec_fn=confine,
            )
        except OSError as exc:
            self._stderr.close()
            raise BotFault("start", f"cannot run {argv[0]!r}: {exc.strerror or exc}") from None
        os.set_blocking(self._popen.stdin.fileno(), False)
        os.set_blocking(self._popen.stdout.fileno(), False)

    # ---- limits -----------------------------------------------------------------------------------
    def cpu_seconds(self) -> float:
        """CPU time the process has used so far (user + system), from /proc."""
        try:
            with open(f"/proc/{self._popen.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def allow_cpu(self, seconds: float) -> None:
        """Let the process use ``seconds`` more CPU time from now: past that the kernel sends SIGXCPU,
        and :meth:`over_cpu` says so."""
        self._cpu_start = self.cpu_seconds()
        self._cpu_allowed = seconds
        soft = int(self._cpu_start + seconds) + 1
        with contextlib.suppress(ProcessLookupError):  # it has exited: the next read says so
            resource.prlimit(self._popen.pid, resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))

    def over_cpu(self) -> None:
        """A ``cpu`` :class:`BotFault` if the process has used more CPU time than :meth:`allow_cpu` let it."""
        used = self.cpu_seconds() - self._cpu_start
        if used > self._cpu_allowed:
            raise BotFault(
                "cpu", f"used {used:.1f} s of CPU time in a game; the limit is {self._cpu_allowed:g} s"
            )

    # ---- talking ----------------------------------------------------------------------------------
    def send(self, lines: list[str], deadline: float) -> None:
        """Write lines; a bot that stops reading its input loses at the deadline."""
        data = "".join(line + "\n" for line in lines).encode()
        self._asked_at = time.monotonic()
        fd = self._popen.stdin.fileno()
        while data:
            if not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
                raise BotFault("time", "stopped reading its input")
            try:
                data = data[os.write(fd, data) :]
            except BrokenPipeError:
                raise self._ended("closed its input") from None

    def receive(self, deadline: float, waiting_for: str) -> str:
        """The next line the bot writes, without its newline."""
        fd = self._popen.stdout.fileno()
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                raise BotFault(
                    "malformed", f"wrote a line of over {MAX_LINE} bytes while asked {waiting_for}"
                )
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                waited = (time.monotonic() - self._asked_at) * 1000
                raise BotFault(
                    "time", f"no answer to {waiting_for} within the limit (waited {waited:.0f} ms)"
                )
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._ended(f"closed its output while asked {waiting_for}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return line.decode().rstrip("\r")
        except UnicodeDecodeError:
            raise BotFault("malformed", f"wrote bytes that are not UTF-8 while asked {waiting_for}") from None

    def _ended(self, what: str) -> BotFault:
        """The fault of a bot that has gone: ``cpu`` if the kernel stopped it for its CPU time, else
        ``crash``, with the exit status and the end of its stderr."""
        try:
            code = self._popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return BotFault("crash", what)
        if code < 0 and _signal_name(-code) == "SIGXCPU":
            return BotFault("cpu", f"{what}: stopped by SIGXCPU, over its CPU time limit")
        story = f"{what}: stopped by {_signal_name(-code)}" if code < 0 else f"{what}: exit code {code}"
        tail = self.stderr_tail()
        return BotFault("crash", f"{story}; stderr ends {tail!r}" if tail else story)

    def stderr_tail(self, size: int = 240) -> str:
        """The last ``size`` characters the bot wrote to stderr."""
        self._stderr.seek(0, os.SEEK_END)
        end = self._stderr.tell()
        self._stderr.seek(max(0, end - size))
        return self._stderr.read().decode(errors="replace").strip()

    def stop(self) -> None:
        """End the process and everything it started; never raises."""
        with contextlib.suppress(BotFault):
            self.send(["quit"], time.monotonic() + 0.05)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout=0.2)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._popen.pid, signal.SIGKILL)
        self._popen.wait()
        for stream in (self._popen.stdin, self._popen.stdout, self._stderr):
            with contextlib.suppress(OSError):
                stream.close()
