"""Run ``battleship serve`` in a child process for the tests that need a real server."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 300  # how long a server may take to be ready (its port opens at once, its warm-up follows)


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(db_url: str, port: int, *options: str) -> subprocess.Popen:
    """Start the server (with more ``serve`` options) and wait until it is ready (warmed up).

    Its output (the access log among it) goes to a temporary file, never a pipe nobody reads: a
    full pipe would stall the server.
    """
    output = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server, closed with it
    process = subprocess.Popen(
        [sys.executable, "-m", "battleship.cli", "serve", "--port", str(port), "--db", db_url, *options],
        stdout=output,
        stderr=subprocess.STDOUT,
    )
    process.output = output  # type: ignore[attr-defined]
    # generous: the first start after an install compiles the engines, on a busy machine minutes
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:  # ready once /api/ready answers 200: 503 while it warms up (urllib raises it, an OSError too)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/ready", timeout=1) as answer:
                if answer.status == 200:
                    return process
        except OSError:
            if process.poll() is not None:
                break
        time.sleep(0.1)
    process.kill()
    process.wait()
    raise AssertionError("the server did not start: " + output_of(process))


def output_of(process: subprocess.Popen) -> str:
    """What the server printed so far."""
    process.output.seek(0)  # type: ignore[attr-defined]
    return process.output.read().decode(errors="replace")  # type: ignore[attr-defined]


@contextmanager
def serving(db_url: str, *options: str):
    """Yield the base URL of a server on ``db_url`` (and its process); stop it afterwards."""
    port = free_port()
    process = start(db_url, port, *options)
    try:
        yield f"http://127.0.0.1:{port}", process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def save_arena_run(path: Path) -> None:
    """A small saved arena run to show: two shooters and a program that crashes in its second game, with matches."""
    import dataclasses

    from battleship import rules
    from battleship.lab import arena
    from battleship.lab.arena import ratings

    small = rules.square(6)
    crashing = f"exec:{sys.executable} {ROOT / 'tests' / 'lab' / 'arena_bots' / 'misbehave.py'} crash 2"
    bots = [arena.parse_bot(text, small) for text in ("density", "hunt-target", crashing)]
    result = arena.run(small, bots, 10, seed=3, matches=True)
    rated = ratings.update(path.with_name(path.stem + "-ratings.json"), result)  # the run's ratings table
    arena.save(dataclasses.replace(result, ratings=rated), path)
