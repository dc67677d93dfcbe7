"""Run ``battleship serve`` in a child process for the tests that need a real server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(db_url: str, port: int) -> subprocess.Popen:
    """Start the server and wait until it answers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "battleship.cli", "serve", "--port", str(port), "--db", db_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/rules", timeout=1)
            return process
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    raise AssertionError("the server did not start: " + process.stdout.read().decode())


@contextmanager
def serving(db_url: str):
    """Yield the base URL of a server on ``db_url``; stop it afterwards."""
    port = free_port()
    process = start(db_url, port)
    try:
        yield f"http://127.0.0.1:{port}", process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
