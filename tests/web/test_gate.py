"""The gate in front of heavy work: a free slot runs at once, the queue is bounded, a wait has a bound and
follows the request's stop, and analysis never takes the last slot from moves."""

from __future__ import annotations

import threading

import pytest

from battleship.stop import Stop, Stopped
from battleship.web.gate import ANALYSIS, MOVE, START, Gate, Saturated


def hold(gate: Gate, lane: str = MOVE) -> tuple[threading.Thread, threading.Event]:
    """A job holding a slot of ``lane`` until released."""
    holding, release = threading.Event(), threading.Event()

    def work() -> str:
        holding.set()
        release.wait(30)
        return "held"

    thread = threading.Thread(target=gate.run, args=(work,), kwargs={"lane": lane})
    thread.start()
    assert holding.wait(30)
    return thread, release


def wait_until(condition) -> None:
    for _ in range(3000):  # bounded
        if condition():
            return
        threading.Event().wait(0.01)
    raise AssertionError("the condition never held")


def test_a_free_slot_runs_at_once_and_a_full_queue_refuses_at_once():
    gate = Gate(workers=1, queue=1, wait_seconds=30)
    first, release = hold(gate)
    results: list[object] = []
    second = threading.Thread(target=lambda: results.append(gate.run(lambda: "queued")))
    second.start()
    wait_until(lambda: gate.waiting == 1)
    with pytest.raises(Saturated) as refused:  # the queue holds one: a third is refused, not queued
        gate.run(lambda: "never")
    assert 1 <= refused.value.retry_after <= 30
    release.set()
    first.join(30)
    second.join(30)
    assert results == ["queued"] and gate.waiting == 0


def test_a_wait_past_its_bound_is_refused():
    gate = Gate(workers=1, queue=4, wait_seconds=0.05)
    holder, release = hold(gate)
    try:
        with pytest.raises(Saturated, match=r"within 0\.05 s"):
            gate.run(lambda: "late")
    finally:
        release.set()
        holder.join(30)
    assert gate.run(lambda: "free again") == "free again"


def test_a_wait_ends_when_its_request_goes_away_but_not_at_its_deadline():
    gate = Gate(workers=1, queue=4, wait_seconds=30)
    holder, release = hold(gate)
    try:
        gone = Stop(30)
        threading.Timer(0.1, gone.request).start()
        with pytest.raises(Stopped):
            gate.run(lambda: "late", stop=gone)
        results: list[object] = []
        late = Stop(0.05)  # the work answers at once once it has its slot (a move falls back)
        waiter = threading.Thread(target=lambda: results.append(gate.run(lambda: late.requested, stop=late)))
        waiter.start()
        wait_until(lambda: gate.waiting == 1)
        threading.Event().wait(0.2)
        assert gate.waiting == 1  # its deadline passed, and it still waits
    finally:
        release.set()
        holder.join(30)
    waiter.join(30)
    assert results == [True]


def test_analysis_leaves_a_slot_for_a_start_and_one_for_a_move():
    gate = Gate(workers=4, queue=4, wait_seconds=0.05)
    assert (gate.analysis, gate.starts) == (2, 1)
    held = [hold(gate, ANALYSIS) for _ in range(2)]
    try:
        with pytest.raises(Saturated):  # a third analysis waits, and its wait runs out
            gate.run(lambda: "third", lane=ANALYSIS)
        assert gate.busy(ANALYSIS) == 2
        held.append(hold(gate, START))  # a game starting under new rules has its level timed
        with pytest.raises(Saturated):  # a second start waits for the first
            gate.run(lambda: "second start", lane=START)
        assert gate.run(lambda: "a move", lane=MOVE) == "a move"
    finally:
        for thread, release in held:
            release.set()
            thread.join(30)
    assert gate.busy(ANALYSIS) == gate.busy(START) == 0


def test_bad_settings_are_refused():
    for workers, queue, wait in ((0, 1, 1.0), (1, -1, 1.0), (1, 1, 0.0)):
        with pytest.raises(ValueError):
            Gate(workers, queue, wait)
