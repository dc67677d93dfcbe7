"""Heavy work in worker processes: answers and errors come back, a job past its deadline or whose request
went away is stopped (its process killed unless it stops by itself), a crash is an error, not a hang."""

from __future__ import annotations

import threading
import time

import pytest

from battleship.errors import BattleshipError
from battleship.stop import OutOfTime, Stop, Stopped
from battleship.web.workers import Closed, StillCompiling, WorkerDied, Workers
from tests.web import jobs_for_tests as jobs


@pytest.fixture
def workers():
    pool = Workers(2)
    yield pool
    pool.close()


def test_answers_and_user_errors_come_back(workers):
    assert workers.run(jobs.echo, {"a": [1, 2]}, stop=Stop(30)) == {"a": [1, 2]}
    with pytest.raises(BattleshipError, match="no such ship"):
        workers.run(jobs.refuse, "no such ship", stop=Stop(30))
    assert workers.run(jobs.echo, 3, stop=Stop(30)) == 3  # the worker is still serving


def test_a_job_past_its_deadline_is_killed_and_its_worker_replaced(workers):
    before = workers.run(jobs.pid, stop=Stop(30))
    with pytest.raises(OutOfTime):
        workers.run(jobs.spin, 60, stop=Stop(0.2))
    assert workers.killed == 1
    after = workers.run(jobs.pid, stop=Stop(30))
    assert after != before  # a fresh worker answers


def test_a_job_that_reads_its_stop_stops_by_itself_and_keeps_its_worker(workers):
    before = workers.run(jobs.pid, stop=Stop(30))
    with pytest.raises(OutOfTime):
        workers.run(jobs.polite, 60, stop=Stop(0.2))
    assert workers.killed == 0
    assert workers.run(jobs.pid, stop=Stop(30)) == before


def _settled(pool: Workers) -> bool:
    """Whether no job runs in the pool (a worker finishing a compile aside counts as running one)."""
    for _ in range(600):  # bounded: a minute at most
        with pool._lock:
            if not pool._busy:
                return True
        time.sleep(0.1)
    return False


# a compile's deadline: generous, since the stand-in must have begun compiling by then (the pool's one
# worker is started, and so warm, before each timed job)
COMPILE_DEADLINE = 2.0


@pytest.fixture
def one_worker():
    """A pool of one worker, started (its first job done), and the process id it answers with."""
    pool = Workers(1)
    yield pool, pool.run(jobs.pid, stop=Stop(60))
    pool.close()


def test_a_job_cut_off_while_compiling_lets_the_compile_finish_and_keeps_its_worker(one_worker, tmp_path):
    pool, before = one_worker
    with pytest.raises(StillCompiling, match="kept"):  # at its deadline, as any job out of time
        pool.run(jobs.compile_stand_in, tmp_path, stop=Stop(COMPILE_DEADLINE))
    assert pool.killed == 0  # killed, the compile would be lost and paid again by the next job
    (tmp_path / "release").touch()  # the compile ends
    assert _settled(pool)
    assert pool.killed == 0
    assert pool.run(jobs.pid, stop=Stop(30)) == before  # the same worker, back in the pool
    # a job past its deadline that is not compiling is still killed at once
    with pytest.raises(OutOfTime) as late:
        pool.run(jobs.spin, 60, stop=Stop(0.2))
    assert not isinstance(late.value, StillCompiling) and pool.killed == 1


def test_a_second_compile_after_the_first_is_let_finish_too(one_worker, tmp_path):
    pool, _ = one_worker
    with pytest.raises(StillCompiling):
        pool.run(jobs.compile_stand_in, tmp_path, ("first", "second"), stop=Stop(COMPILE_DEADLINE))
    (tmp_path / "first").touch()  # the first compile ends, and the job goes on to a second
    time.sleep(3.0)  # longer than a job past its deadline is given once its compile is done
    assert pool.killed == 0 and pool.alive == 1  # the second compile is not cut off
    (tmp_path / "second").touch()
    assert _settled(pool)
    assert pool.killed == 0


def test_a_request_gone_while_its_job_compiles_is_stopped_and_the_compile_goes_on(one_worker, tmp_path):
    pool, _ = one_worker
    stop = Stop(120)

    def hang_up_once_compiling() -> None:  # the client hangs up in the middle of the compile
        for _ in range(600):  # bounded: a minute at most
            if (tmp_path / "compiling").exists():
                break
            time.sleep(0.1)
        stop.request()

    threading.Thread(target=hang_up_once_compiling, daemon=True).start()
    with pytest.raises(Stopped) as stopped:
        pool.run(jobs.compile_stand_in, tmp_path, stop=stop)
    assert not isinstance(stopped.value, OutOfTime) and pool.killed == 0
    (tmp_path / "release").touch()
    assert _settled(pool)  # the job ran on to its own end: finished, not killed
    assert pool.killed == 0


def test_a_worker_compiling_aside_is_killed_when_the_pool_closes(one_worker, tmp_path):
    pool, _ = one_worker
    with pytest.raises(StillCompiling):
        pool.run(jobs.compile_stand_in, tmp_path, stop=Stop(COMPILE_DEADLINE))
    pool.close()  # the server stops: nothing waits for the compile
    assert _settled(pool)
    assert pool.alive == 0


def test_a_request_that_goes_away_stops_its_job_at_once(workers):
    stop = Stop(60)
    threading.Timer(0.3, stop.request).start()  # the client hung up
    with pytest.raises(Stopped) as stopped:
        workers.run(jobs.spin, 60, stop=stop)
    assert not isinstance(stopped.value, OutOfTime)
    assert workers.killed == 1


def test_a_crash_is_an_error_and_the_pool_goes_on(workers):
    with pytest.raises(WorkerDied):
        workers.run(jobs.crash, stop=Stop(30))
    assert workers.run(jobs.echo, "on", stop=Stop(30)) == "on"


def test_closing_stops_busy_jobs_and_refuses_new_ones():
    pool = Workers(1)
    errors: list[BaseException] = []

    def busy() -> None:
        try:
            pool.run(jobs.spin, 60, stop=Stop(120))
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=busy)
    thread.start()
    for _ in range(300):  # bounded: wait for the job to be under way
        if pool._busy:
            break
        threading.Event().wait(0.02)
    pool.close()
    thread.join(30)
    assert not thread.is_alive() and isinstance(errors[0], WorkerDied)
    with pytest.raises(Closed):
        pool.run(jobs.echo, 1, stop=Stop(30))


def test_a_worker_killed_from_two_threads_at_once_is_killed_once():
    """At shutdown a job's thread and the pool's close may both kill a busy worker: its pipe is closed
    once (closing it twice raised EBADF in the server's shutdown, or could close another file)."""
    from battleship.web.workers import _context, _Worker

    for _ in range(5):  # bounded: the race is a matter of timing
        worker = _Worker(_context())
        start, errors = threading.Barrier(3), []

        def kill(w=worker, barrier=start, errors=errors) -> None:
            barrier.wait()
            try:
                w.kill()
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=kill) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not errors and not worker.process.is_alive() and worker.conn.closed
