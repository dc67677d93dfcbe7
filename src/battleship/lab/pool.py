"""Where the lab's chunks of games run: threads on this machine, or the workers of a Dask cluster.

A run is cut into chunks of games (by seed and game index: :mod:`battleship.lab.runner`), and a
chunk's result is a function of its parameters alone. So it is the same on any machine, and when
Dask reruns the tasks of a worker that died, nothing is lost and nothing counted twice.

- :class:`Threads`: ``--jobs`` threads in this process (the Numba kernels release the GIL).
- :class:`Cluster`: a Dask ``distributed`` client; ``--cluster local`` starts a local cluster of
  ``--jobs`` worker processes (one thread each: Python shooters hold the GIL), ``--cluster
  tcp://HOST:8786`` uses the scheduler started there with ``dask scheduler`` and ``dask worker``.

Both give results in chunk order with a bounded number of chunks in flight, so memory stays flat
for any number of games. Given a :class:`~battleship.stop.Stop`, they submit no more chunks once it
is requested: threads hand it to every chunk (which returns the games it finished), a cluster's
chunks still queued or running are cancelled and only those already done come back.
"""

from __future__ import annotations

import hashlib
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from battleship.errors import BattleshipError
from battleship.stop import Stop

CONNECT_SECONDS = 10  # how long to wait for a scheduler to answer
WORKER_SECONDS = 30  # how long to wait for a cluster's first worker
IN_FLIGHT = 4  # chunks queued per worker thread: enough to keep each busy, few enough to stay small
POLL = 0.05  # seconds between looks at a stop request while waiting on a cluster's chunk
# a local cluster's workers share this machine's cores with its scheduler and this process: their
# statistical profiler (every 10 ms) and GIL monitor (every 1 ms) cost up to a tenth of a 2-core
# machine (benchmarks/cluster.py); remote workers can be started with the same settings through
# DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__GIL__ENABLED=False
QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
}


class Pool(Protocol):
    """Runs ``fn(*task)`` for every task; results come back in the tasks' order."""

    threads: int

    def ordered(
        self, fn: Callable[..., Any], tasks: Iterable[tuple], stop: Stop | None = None
    ) -> Iterator[Any]: ...


class Threads:
    """``jobs`` threads in this process."""

    def __init__(self, jobs: int = 1):
        self.threads = max(1, jobs)

    def ordered(
        self, fn: Callable[..., Any], tasks: Iterable[tuple], stop: Stop | None = None
    ) -> Iterator[Any]:
        """Results in order, at most ``IN_FLIGHT`` chunks a thread queued at once.

        With ``stop``, every chunk is called with ``stop=stop`` and winds down when it is requested;
        the chunks already queued then return at once, so all of them come back.
        """
        extra = {} if stop is None else {"stop": stop}
        executor = ThreadPoolExecutor(max_workers=self.threads)
        try:
            yield from _in_order(
                lambda task: executor.submit(fn, *task, **extra), tasks, IN_FLIGHT * self.threads, stop
            )
        finally:  # a consumer that stops early leaves no queued chunk to run
            executor.shutdown(wait=True, cancel_futures=True)


class Cluster:
    """The workers of a Dask cluster, through a connected ``distributed.Client``."""

    def __init__(self, client: Any, address: str):
        self.client = client
        self.address = address
        self.threads = max(1, sum(w["nthreads"] for w in client.scheduler_info()["workers"].values()))

    def ordered(
        self, fn: Callable[..., Any], tasks: Iterable[tuple], stop: Stop | None = None
    ) -> Iterator[Any]:
        """Results in order; a task whose worker dies is run again by Dask on another worker.

        A stop request cancels the chunks not yet done (a worker cannot be reached mid-chunk): the
        results already computed come back, in order, up to the first one missing.
        """
        pending: deque = deque()
        try:
            for task in tasks:
                if stop is not None and stop.requested:
                    break
                pending.append(self.client.submit(fn, *task, pure=False))
                if len(pending) >= IN_FLIGHT * self.threads + 2:
                    if not _wait(pending[0], stop):
                        break
                    yield pending.popleft().result()
            while pending and _wait(pending[0], stop):
                yield pending.popleft().result()
        finally:
            if pending:
                self.client.cancel(list(pending))


def _wait(future: Any, stop: Stop | None) -> bool:
    """Wait for a cluster's future; False when a stop request comes first."""
    if stop is None:
        return True
    while not future.done():
        if stop.requested:
            return False
        time.sleep(POLL)
    return True


def _in_order(
    submit: Callable[[tuple], Any], tasks: Iterable[tuple], window: int, stop: Stop | None = None
) -> Iterator[Any]:
    """Submit tasks keeping ``window`` in flight; yield their results in submission order.

    Once ``stop`` is requested no more tasks are submitted; those in flight are still waited for
    (each winds down at the request).
    """
    pending: deque = deque()
    for task in tasks:
        if stop is not None and stop.requested:
            break
        pending.append(submit(task))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The package's version and a hash of its source and of the NumPy and Numba it runs on.

    Two processes with the same fingerprint play the same games from the same seed; workers whose
    fingerprint differs from the client's are refused.
    """
    import numba
    import numpy

    import battleship

    digest = hashlib.sha256(f"numpy {numpy.__version__} numba {numba.__version__}".encode())
    root = Path(battleship.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return f"{battleship.__version__}+{digest.hexdigest()[:12]}"


def worker_fingerprint() -> str:
    """:func:`code_fingerprint` as a worker computes it (sent to workers by name, so they run their own)."""
    return code_fingerprint()


@contextmanager
def open_pool(cluster: str | None, jobs: int = 1) -> Iterator[Pool]:
    """The pool a command runs on: threads without ``cluster``, else a Dask cluster (see the module)."""
    if cluster is None:
        yield Threads(jobs)
        return
    client, local = _connect(cluster, jobs)
    try:
        _check_workers(client, cluster)
        yield Cluster(client, cluster)
    finally:
        client.close()
        if local is not None:
            local.close()


def _connect(cluster: str, jobs: int):
    """A client for ``cluster`` (and the local cluster it started, to close), or a clear error."""
    from battleship.extras import require

    require("cluster")
    from distributed import Client, LocalCluster

    if cluster == "local":
        import dask

        with dask.config.set(QUIET_WORKERS):  # the workers are spawned with this configuration
            local = LocalCluster(
                n_workers=max(1, jobs), threads_per_worker=1, processes=True, dashboard_address=None
            )
        return Client(local), local
    if "://" not in cluster:
        raise BattleshipError(
            f"--cluster takes 'local' or a scheduler address like tcp://HOST:8786, not {cluster!r}"
        )
    try:
        return Client(cluster, timeout=CONNECT_SECONDS), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise BattleshipError(f"cannot reach the Dask scheduler at {cluster}: {exc}") from None


def _check_workers(client: Any, cluster: str) -> None:
    """Refuse a cluster with no workers, or with workers that run other code than this process."""
    try:
        client.wait_for_workers(1, timeout=WORKER_SECONDS)
    except TimeoutError:
        raise BattleshipError(
            f"the Dask cluster at {cluster} has no workers (start some with: dask worker {cluster})"
        ) from None
    mine = code_fingerprint()
    try:
        theirs = client.run(worker_fingerprint)
    except Exception as exc:  # e.g. a worker whose battleship has no such module
        raise BattleshipError(
            f"workers cannot run this version of battleship ({mine}): {type(exc).__name__}: {exc}"
            " — install the same version on every worker"
        ) from None
    other = sorted(f"{worker} runs {print_}" for worker, print_ in theirs.items() if print_ != mine)
    if other:
        raise BattleshipError(
            f"workers run another version of battleship than this one ({mine}): "
            + "; ".join(other)
            + " — install the same version on every worker"
        )
