"""Long waits are said: a line once a wait passes half a second, progress every second, how long it took;
nested waits say the outermost with the innermost's words; a front end can take the words instead."""

from __future__ import annotations

import io
import time

from battleship import waiting


def test_a_wait_is_said_then_how_long_it_took(monkeypatch):
    monkeypatch.setattr(waiting, "AFTER", 0)
    out = io.StringIO()
    with waiting.to(out), waiting.said("counting the layouts") as wait:
        wait.at("pass 1 of 2")
        with waiting.said("compiling a kernel"):
            waiting.step("now density.play")
    lines = out.getvalue().splitlines()
    assert lines[0] == "counting the layouts ..."  # a log: the first line, then updates every ten seconds
    assert lines[-1].startswith("counting the layouts: ") and lines[-1].endswith(" s")


def test_a_short_wait_passes_in_silence(monkeypatch):
    monkeypatch.setattr(waiting, "AFTER", 30)
    out = io.StringIO()
    with waiting.to(out), waiting.said("a moment"):
        pass
    assert out.getvalue() == ""


def test_a_front_end_shows_the_words_every_second_and_nothing_goes_to_stderr(monkeypatch, capsys):
    monkeypatch.setattr(waiting, "AFTER", 0.05)
    monkeypatch.setattr(waiting, "LIVE_EVERY", 0.2)
    shown: list[str] = []
    with waiting.shown_by(shown.append), waiting.said("compiling the state graph") as wait:
        wait.at("pass 2 of 4")
        deadline = time.monotonic() + 60
        while len([w for w in shown if w]) < 2 and time.monotonic() < deadline:  # bounded: a busy machine
            time.sleep(0.05)
    words = [w for w in shown if w]
    assert len(words) >= 2 and all(w.startswith("compiling the state graph: ") for w in words)
    assert words[-1].endswith("(pass 2 of 4)") and shown[-1] == ""  # then cleared when it is over
    assert capsys.readouterr().err == ""


def test_a_new_state_graph_is_said_with_its_passes(monkeypatch):
    from battleship.game import Observation
    from battleship.inference.posterior import posterior
    from battleship.rules import Rules, Ship, Sinks, Spacing

    monkeypatch.setattr(waiting, "AFTER", 0)
    rules = Rules(5, 7, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.NO_EDGE, Sinks.NONE)
    out = io.StringIO()
    with waiting.to(out):
        posterior(Observation(rules))
    said = out.getvalue()
    assert "compiling the exact engine's state graph (35 cells, no-edge, ships 3 2; once per rules)" in said
