"""The stop request: kernels see the flag, deadlines set it, signals reach a thread waiting on a kernel."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest
from numba import njit

from battleship.stop import CANCELLED, DEADLINE, OutOfTime, Stop, Stopped, exit_code, run, signals_stop


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


def test_a_part_s_own_deadline_ends_the_part_alone_and_the_whole_s_stop_ends_both():
    whole = Stop(60)
    part = whole.part(30)
    assert part.deadline < whole.deadline and not part.requested
    whole.request(CANCELLED)  # the client went away
    assert part.requested
    with pytest.raises(Stopped) as stopped:
        part.check()
    assert type(stopped.value) is Stopped  # a cancellation, not its deadline
    whole = Stop(60)
    over = whole.part(0)
    assert over.requested and not whole.flag[0]  # the part's own deadline leaves the whole's alone
    with pytest.raises(OutOfTime):
        over.check()
    soon = Stop(1)
    assert soon.part(3600).deadline == soon.deadline  # never later than the whole's
