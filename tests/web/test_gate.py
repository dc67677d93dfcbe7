"""The gate in front of heavy work: a free slot runs at once, the queue is bounded, a wait has a deadline."""

from __future__ import annotations

import threading

import pytest

from battleship.web.gate import Gate, Saturated


def test_a_free_slot_runs_at_once_and_a_full_queue_refuses_at_once():
    gate = Gate(workers=1, queue=1, wait_seconds=30)
    holding, release = threading.Event(), threading.Event()

    def hold() -> str:
        holding.set()
        release.wait(30)
        return "held"

    results: list[object] = []
    first = threading.Thread(target=lambda: results.append(gate.run(hold)))
    first.start()
    assert holding.wait(30)
    second = threading.Thread(target=lambda: results.append(gate.run(lambda: "queued")))
    second.start()
    for _ in range(3000):  # bounded: the second request joins the queue
        if gate.waiting == 1:
            break
        threading.Event().wait(0.01)
    assert gate.waiting == 1
    with pytest.raises(Saturated) as refused:  # the queue holds one: a third is refused, not queued
        gate.run(lambda: "never")
    assert 1 <= refused.value.retry_after <= 30
    release.set()
    first.join(30)
    second.join(30)
    assert sorted(results) == ["held", "queued"] and gate.waiting == 0


def test_a_wait_past_its_deadline_is_refused():
    gate = Gate(workers=1, queue=4, wait_seconds=0.05)
    release = threading.Event()
    holder = threading.Thread(target=gate.run, args=(release.wait, 30))
    holder.start()
    try:
        for _ in range(3000):
            if not gate._slots.acquire(blocking=False):
                break
            gate._slots.release()
            threading.Event().wait(0.01)
        with pytest.raises(Saturated, match=r"within 0\.05 s"):
            gate.run(lambda: "late")
    finally:
        release.set()
        holder.join(30)
    assert gate.run(lambda: "free again") == "free again"


def test_bad_settings_are_refused():
    for workers, queue, wait in ((0, 1, 1.0), (1, -1, 1.0), (1, 1, 0.0)):
        with pytest.raises(ValueError):
            Gate(workers, queue, wait)
