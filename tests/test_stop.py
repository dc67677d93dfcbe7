"""The stop request: kernels see the flag, deadlines set it, signals reach a thread waiting on a kernel."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest
from numba import njit

from battleship.stop import DEADLINE, OutOfTime, Stop, Stopped, exit_code, run, signals_stop


@njit(nogil=True)
def _spin(flag, limit):
    """Counts up to ``limit``, looking at the flag every 1024 steps; returns how far it got."""
    i = 0
    while i < limit:
        if i % 1024 == 0 and flag[0] != 0:
            return i
        i += 1
    return i


def test_work_that_finishes_returns_its_value():
    assert run(_spin, np.zeros(1, np.int64), 10_000, stop=Stop()) == 10_000


def test_a_deadline_stops_a_kernel_that_reads_the_flag():
    stop = Stop(seconds=0.2)
    with pytest.raises(OutOfTime):
        run(_spin, stop.flag, 2**62, stop=stop)
    assert stop.flag[0] == DEADLINE


def test_a_cancellation_from_another_thread_stops_the_kernel():
    stop = Stop()
    threading.Timer(0.2, stop.request).start()
    with pytest.raises(Stopped) as caught:
        run(_spin, stop.flag, 2**62, stop=stop)
    assert not isinstance(caught.value, OutOfTime)


def test_sigterm_reaches_a_thread_waiting_on_a_kernel():
    stop = Stop()
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
    with signals_stop(stop), pytest.raises(KeyboardInterrupt):
        run(_spin, stop.flag, 2**62, stop=stop)
    assert stop.requested
    assert exit_code(stop) == 143


def test_errors_in_the_work_reach_the_caller():
    def broken():
        raise ValueError("bad board")

    with pytest.raises(ValueError, match="bad board"):
        run(broken, stop=Stop())


def test_remaining_counts_down_and_never_goes_negative():
    stop = Stop(seconds=0.05)
    assert 0 < stop.remaining() <= 0.05
    time.sleep(0.06)
    assert stop.remaining() == 0.0 and stop.requested
    assert Stop().remaining() is None


def test_a_child_shares_the_flag_and_keeps_the_earlier_deadline():
    parent = Stop(seconds=60)
    part = parent.child(0.05)
    assert part.deadline < parent.deadline
    assert parent.child(3600).deadline == parent.deadline
    parent.request()
    assert part.requested
    with pytest.raises(Stopped):
        part.check()
