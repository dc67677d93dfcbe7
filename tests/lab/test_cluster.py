"""Runs on a real Dask cluster (a `dask scheduler` and `dask worker` processes on 127.0.0.1) give the
very results of local runs, survive a worker killed mid-run, and refuse bad clusters clearly."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from battleship.cli import app
from battleship.errors import BattleshipError
from battleship.lab import pool as pool_mod
from battleship.lab import runner
from battleship.rules import preset

DASK = str(Path(sys.executable).with_name("dask"))
START_SECONDS = 60  # generous: a busy 2-core machine imports NumPy and Numba slowly
cli = CliRunner()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _scheduler() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    process = subprocess.Popen(
        [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return process, f"tcp://127.0.0.1:{port}"


def _worker(address: str, name: str) -> subprocess.Popen:
    # no nanny: the process is the worker itself, so killing it kills the worker (nothing restarts it)
    return subprocess.Popen(
        [DASK, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(*processes: subprocess.Popen) -> None:
    for p in processes:
        p.kill()  # throwaway processes: nothing of theirs needs a clean shutdown
    for p in processes:
        p.wait(timeout=30)


def _client(address: str, workers: int):
    from distributed import Client

    client = Client(address, timeout=START_SECONDS)
    client.wait_for_workers(workers, timeout=START_SECONDS)
    return client


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-thread workers, as a user would start them."""
    scheduler, address = _scheduler()
    workers = [_worker(address, f"w{i}") for i in range(2)]
    try:
        _client(address, 2).close()
        yield address
    finally:
        _stop(*workers, scheduler)


def _json(args: list[str]) -> dict:
    result = cli.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for timing in ("games_per_second", "seconds"):
        data.pop(timing, None)
        for entry in [*data.get("shooters", {}).values(), *data.get("matches", [])]:
            entry.pop(timing, None)
    return data


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "hunt-target", "--games", "45000", "--seed", "5"],
        ["simulate", "optimal", "--rules", "square-6", "--games", "60", "--seed", "5"],
        ["compare", "random", "density", "--games", "30000", "--seed", "6"],
        ["match", "density", "hunt-target-parity", "--games", "30000", "--seed", "7"],
        ["sweep", "density", "--sizes", "6,7", "--against", "random", "--games", "5000", "--seed", "7"],
        ["defend", "density", "--method", "anneal", "--iterations", "20", "--seeds", "20", "--check", "100"],
    ],
    ids=["simulate-kernel", "simulate-python", "compare", "match", "sweep", "defend"],
)
def test_a_remote_cluster_gives_the_local_results_bit_for_bit(cluster, command):
    # (--jobs N against --jobs 1 is checked in tests/lab/test_lab.py)
    assert _json([*command, "--cluster", cluster]) == _json(command)


def test_shots_files_are_the_same_on_a_cluster_and_resume_there(cluster, tmp_path):
    args = ["simulate", "hunt-target", "--games", "50000", "--seed", "8"]
    assert cli.invoke(app, [*args, "--out", str(tmp_path / "here.txt")]).exit_code == 0
    there = tmp_path / "there.txt"
    assert cli.invoke(app, [*args, "--out", str(there), "--cluster", cluster]).exit_code == 0
    assert there.read_bytes() == (tmp_path / "here.txt").read_bytes()
    with there.open("r+b") as handle:  # as if killed part-way through the third chunk
        handle.truncate(len(b"".join(there.read_bytes().splitlines(keepends=True)[:45_000])))
    resumed = cli.invoke(app, [*args, "--out", str(there), "--cluster", cluster, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert there.read_bytes() == (tmp_path / "here.txt").read_bytes()


def test_a_worker_killed_mid_run_loses_no_game_and_counts_none_twice(cluster):
    rules = preset("standard")
    expected = np.concatenate([c.shots for c in runner.stream(rules, "hunt-target", 400_000, seed=9)])
    doomed = _worker(cluster, "doomed")
    client = _client(cluster, 3)
    try:
        got, killed = [], False
        for chunk in runner.stream(
            rules, "hunt-target", 400_000, seed=9, pool=pool_mod.Cluster(client, cluster)
        ):
            got.append(chunk.shots)
            if not killed:  # the first chunk is back: the doomed worker holds others in flight
                os.kill(doomed.pid, signal.SIGKILL)
                killed = True
        assert doomed.wait(timeout=30) == -signal.SIGKILL
        np.testing.assert_array_equal(np.concatenate(got), expected)
    finally:
        client.close()
        _stop(doomed)


def test_bad_clusters_are_refused_with_a_reason(monkeypatch):
    monkeypatch.setattr(pool_mod, "WORKER_SECONDS", 3)
    monkeypatch.setattr(pool_mod, "CONNECT_SECONDS", 2)
    with (
        pytest.raises(BattleshipError, match="cannot reach the Dask scheduler"),
        pool_mod.open_pool(f"tcp://127.0.0.1:{_free_port()}"),
    ):
        pass
    result = cli.invoke(app, ["simulate", "density", "--games", "10", "--cluster", "nowhere"])
    assert result.exit_code == 2 and "tcp://HOST:8786" in result.output
    scheduler, address = _scheduler()
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:  # the scheduler takes a moment to listen
            try:
                with pool_mod.open_pool(address):
                    pass
            except BattleshipError as exc:
                if "no workers" in str(exc):
                    break
                assert "cannot reach" in str(exc) and time.monotonic() < deadline
    finally:
        _stop(scheduler)


def test_workers_running_other_code_are_refused(cluster, monkeypatch):
    # this process pretends to run other code; the workers compute their own fingerprint
    monkeypatch.setattr(pool_mod, "code_fingerprint", lambda: "0.0.0+elsewhere")
    with pytest.raises(BattleshipError, match="another version of battleship"), pool_mod.open_pool(cluster):
        pass
