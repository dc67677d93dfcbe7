"""Nothing a bot prints can stop the arena: every reader of a bot's output, fed whatever Hypothesis makes
of Unicode digits, control characters, huge numbers, signs, every kind of white space and bytes that
are not UTF-8, ends in a value the rules allow or a forfeit whose cause the referee foresaw (never an
exception of its own); and should the referee fail all the same, the game is the bot's forfeit, the
run goes on and its finished games are saved.

Most of this runs no process: the bot is a script of lines (:class:`Scripted`) in place of a program.
One test runs a real program that writes such things, in the sandbox, from the command line.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from battleship import generators
from battleship import rules as rules_mod
from battleship.cells import cell_name
from battleship.cli import app
from battleship.lab import arena
from battleship.lab.arena import bots, channel, protocol
from battleship.lab.arena.protocol import CAUSES, BotFault
from battleship.layout import Layout
from battleship.rules import Hider, Noise, Rules, Salvo, Ship

ROOT = Path(__file__).resolve().parents[2]
MISBEHAVE = ROOT / "tests" / "lab" / "arena_bots" / "misbehave.py"
SMALL = rules_mod.square(6)
SALVO = replace(SMALL, name="square-6-salvo", salvo=Salvo(2, "each"))
NOISY_SALVO = replace(SALVO, name="square-6-noisy-salvo", noise=Noise(0.2))  # a cell may be fired at again
TWO_SHIPS = (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2))  # the hider is cheap on them
TWISTS = {  # every kind of rules a bot's answers are read under (version 3's on 6x6)
    "classic": SMALL,
    "salvo": SALVO,
    "noisy": replace(SMALL, name="square-6-noisy", noise=Noise(0.2, "noisy")),
    "noisy-salvo": NOISY_SALVO,
    "cheat": Rules(6, 6, TWO_SHIPS, name="cheat-6", hider=Hider()),
}
FORESEEN = set(CAUSES) - {"referee"}  # every cause but the referee's own failure

# what a hostile bot might write, a word at a time: cell names on and off the board, numbers Python
# calls digits but int() refuses ('²', circled, Roman), other scripts' digits, signs, huge and
# exponent numbers, every kind of white space and line separator, control and format characters,
# letters whose upper case is ASCII ('ı', 'ſ', the Kelvin sign) or two letters ('ß'), full-width forms
WORDS = [
    "readyok", "protocol", "protocol 2", "protocol ²", "name", "info", "author", "debug", "layout", "random",
    "A1", "a1", "b2", "F6", "f6", "G1", "A7", "A0", "A01", "AA1", "z99", "Z999", "0", "-1", "+2", "1e3",
    "9" * 30, "²", "٣", "১", "Ⅻ", "①", "𝟙", "\x00", "\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85",
    "\xa0", "\u2028", "\u2029", "\u3000", "\u200b", "\ufeff", "\u202e", "\r", "ı", "ſ", "K", "ß", "Ａ１", "#",
    "C.....", ".", "/", "CCCCC./", "B=A1,A2",
]  # fmt: skip
word = st.one_of(st.sampled_from(WORDS), st.text(max_size=4))
line = st.builds(
    lambda ws, joiner: joiner.join(ws).replace("\n", " "),
    st.lists(word, max_size=6),
    st.sampled_from([" ", "", "\t"]),
)


def reference_cell(text: str, rows: int, cols: int) -> int | None:
    """Brute force: the cell whose name the answer is (letters in either case, spaces around), or None."""
    names = {cell_name(c, cols): c for c in range(rows * cols)}
    word = text.strip()
    return names.get(word.upper()) if word.isascii() else None


@settings(max_examples=300, deadline=None)
@given(line)
def test_every_answer_to_shoot_is_its_cell_or_a_forfeit_saying_why(text):
    try:
        cell = protocol.read_shot(text, SMALL)
    except BotFault as fault:
        assert fault.cause in ("malformed", "off-board") and reference_cell(text, 6, 6) is None, fault
        if fault.cause == "off-board":
            assert re.fullmatch(r"[A-Za-z]{1,2}[1-9][0-9]{0,2}", text.strip(), re.ASCII)
        return
    assert cell == reference_cell(text, 6, 6)


@settings(max_examples=200, deadline=None)
@given(line, st.integers(1, 4), st.integers(0, 2**36 - 1))
def test_every_answer_to_a_salvo_is_its_cells_or_a_forfeit_saying_why(text, size, fired):
    try:
        cells = protocol.read_salvo(text, SMALL, size, fired)
    except BotFault as fault:
        assert fault.cause in ("malformed", "off-board", "repeat"), fault
        return
    words = text.split()
    assert list(cells) == [reference_cell(w, 6, 6) for w in words] and len(set(cells)) == size
    assert not any(fired >> c & 1 for c in cells)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(line, st.sampled_from(["A1 A1", "A1 B1", "b1 a1"])),
    st.integers(1, 4),
    st.integers(0, 2**36 - 1),
)
def test_under_noise_every_answer_to_a_salvo_is_its_cells_fired_before_or_not(text, size, fired):
    """Under noise a salvo may name cells fired at before; a cell named twice in it is still a repeat."""
    try:
        cells = protocol.read_salvo(text, NOISY_SALVO, size, fired)
    except BotFault as fault:
        assert fault.cause in ("malformed", "off-board", "repeat"), fault
        if fault.cause == "repeat":
            assert "twice in one salvo" in fault.detail
        return
    words = text.split()
    assert list(cells) == [reference_cell(w, 6, 6) for w in words] and len(set(cells)) == size


@settings(max_examples=200, deadline=None)
@given(st.one_of(line, st.builds(lambda t: f"layout {t}", line)))
def test_every_answer_to_place_is_a_layout_random_or_a_layout_forfeit(text):
    try:
        layout = protocol.read_layout(text, SMALL)
    except BotFault as fault:
        assert fault.cause == "layout", fault
        return
    assert layout is None or Layout.from_text(layout.text(), SMALL) == layout


@settings(max_examples=300, deadline=None)
@given(line)
def test_protocol_and_name_lines_read_whatever_they_say(text):
    said = f"protocol {text}"
    word = text.strip(" ")
    assert protocol.read_version(said) == (int(word) if re.fullmatch(r"[0-9]{1,5}", word, re.ASCII) else 0)
    assert len(protocol.read_name(f"name {text}")) <= protocol.NAME_KEPT
    assert protocol.is_chatter(text) in (True, False)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_every_byte_string_is_a_line_of_text_or_malformed(raw):
    try:
        text = channel.decode_line(raw, "'shoot'")
    except BotFault as fault:
        assert fault.cause == "malformed"
        with pytest.raises(UnicodeDecodeError):
            raw.decode()
        return
    assert text == raw.decode().rstrip("\r")


# ---- whole games with a script of lines in place of a program --------------------------------------------
class Scripted:
    """A bot's process that writes the given lines in turn, then nothing (so the referee's next wait is
    a ``time`` forfeit); it hears everything the referee sends."""

    def __init__(self, lines: list[str]):
        self.lines, self.heard = list(lines), []

    def send(self, lines: list[str], deadline: float) -> None:
        self.heard += lines

    def receive(self, deadline: float, waiting_for: str) -> str:
        if not self.lines:
            raise BotFault("time", f"no answer to {waiting_for} within the limit")
        return self.lines.pop(0)

    def allow_cpu(self, seconds: float) -> None: ...

    def over_cpu(self) -> None: ...

    def stop(self, polite: bool = True) -> None: ...

    def settle_stderr(self, wait: float = 0.2) -> None: ...

    def stderr_tail(self, size: int = 240) -> str:
        return ""


class Scanning(Scripted):
    """A process that says ``readyok``, then fires in reading order, game after game."""

    def __init__(self):
        super().__init__(["readyok"])

    def send(self, lines: list[str], deadline: float) -> None:
        super().send(lines, deadline)
        if any(line.startswith("newgame") for line in lines):
            self.lines = [cell_name(c, SMALL.cols) for c in range(SMALL.cells)]


def scripted_bot(monkeypatch, scripts: list[list[str]], rules=SMALL) -> bots.ProgramBot:
    """A program bot whose process, each time it is started, is the next script of lines."""
    queue = list(scripts)
    monkeypatch.setattr(bots, "Process", lambda *a, **k: Scripted(queue.pop(0) if queue else []))
    bot = arena.ProgramBot("exec:scripted", arena.sandbox.Program(("scripted",)))
    bot.start(rules, arena.Limits(), arena.choose(unconfined=True), games=3)
    return bot


def one_game(bot, rules=SMALL):
    row = arena.Key.from_seed(1).battlefields(rules, "uniform", 1)[0]
    return bot.play(0, generators.to_layout(rules, row), row, 7, coins=11)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(line, st.sampled_from(["protocol 3", "protocol 2"])), max_size=12),
       st.lists(st.one_of(line, st.sampled_from(["A1", "B2", "c3", "D4", "A1 B2"])), max_size=30),
       st.sampled_from(sorted(TWISTS)))  # fmt: skip
def test_whatever_a_bot_writes_its_game_is_played_or_lost_for_a_foreseen_cause(start, answers, kind):
    """The start (``protocol``, ``name``, chatter, ``readyok``) and the answers, all fuzzed; under salvo,
    noise and cheating-hider rules too (a bot that names no version it speaks, or too old a one, is refused
    them, with a ``start`` forfeit)."""
    rules = TWISTS[kind]
    with pytest.MonkeyPatch.context() as monkeypatch:
        bot = scripted_bot(monkeypatch, [[*start, "readyok", *answers]], rules)
        result = one_game(bot, rules)
    assert result.fault is None or result.fault.cause in FORESEEN, result.fault
    assert result.fault is None or "could not start it" not in result.fault.detail, result.fault  # no failure
    assert 0 <= result.shots <= protocol.most_shots(rules) and (result.fault is not None or result.shots >= 1)
    assert bot.said_name is None or len(bot.said_name) <= protocol.NAME_KEPT


def test_protocol_superscript_two_names_no_version_and_stops_nothing(monkeypatch):
    """``'²'.isdigit()`` is true and ``int('²')`` raises: the line once stopped the arena with a traceback."""
    bot = scripted_bot(monkeypatch, [["protocol ²", "readyok", "A1"]])
    assert one_game(bot).fault.cause == "time" and bot.said_version == 0  # played on, then no more answers
    salvo = scripted_bot(monkeypatch, [["protocol ²", "readyok"]], SALVO)
    fault = one_game(salvo, SALVO).fault
    assert fault.cause == "start" and "named no version it speaks" in fault.detail


def test_a_referee_failure_is_the_bots_forfeit_and_the_run_goes_on(monkeypatch, tmp_path):
    """Should the referee itself fail on an answer (here made to, on 'c3'), the game is the bot's forfeit
    naming the answer, the bot is started afresh, the other bots' games stand and the run is saved."""
    read_shot = protocol.read_shot

    def failing(line: str, rules):
        if line == "c3":
            raise ZeroDivisionError("a fault of the referee's")
        return read_shot(line, rules)

    monkeypatch.setattr(protocol, "read_shot", failing)
    queue = [Scripted(["readyok", "A1", "c3"]), Scanning()]  # the second process plays games 2 and 3
    monkeypatch.setattr(bots, "Process", lambda *a, **k: queue.pop(0))
    program = arena.ProgramBot("exec:scripted", arena.sandbox.Program(("scripted",)))
    result = arena.run(
        SMALL, [program, arena.parse_bot("random", SMALL)], 3, 5, jail=arena.choose(unconfined=True)
    )
    row = next(r for r in result.leaderboard if r.bot == "exec:scripted")
    assert row.forfeits["referee"] == 1 and row.forfeit_examples[0]["game"] == 1
    assert (
        "'c3'" in row.forfeit_examples[0]["detail"]
        and "ZeroDivisionError" in row.forfeit_examples[0]["detail"]
    )
    assert row.games == 3 and row.shots[1] < SMALL.cells and row.shots[2] < SMALL.cells
    arena.save(result, tmp_path / "run.json")
    assert json.loads((tmp_path / "run.json").read_text())["leaderboard"][0]["games"] == 3


def test_a_registered_shooter_that_fails_forfeits_its_game_only(monkeypatch):
    shooter = arena.parse_bot("random", SMALL)
    play = shooter.play

    def failing(game, *args, **kwargs):
        if game == 1:
            raise MemoryError("no more")
        return play(game, *args, **kwargs)

    monkeypatch.setattr(shooter, "play", failing)
    result = arena.run(SMALL, [shooter, arena.parse_bot("hunt-target", SMALL)], 3, 5)
    rows = {r.bot: r for r in result.leaderboard}
    assert rows["random"].forfeits["referee"] == 1 and rows["random"].forfeit_examples[0]["game"] == 2
    assert sum(rows["hunt-target"].forfeits.values()) == 0


def test_a_ratings_file_that_cannot_be_updated_costs_no_result(tmp_path, monkeypatch):
    """The run is saved first; then the ratings' error is said, in one line, and the command fails."""
    from battleship.errors import BattleshipError
    from battleship.lab.arena import ratings

    def broken(path, result):
        raise BattleshipError(f"cannot write {path}: the disk is full")

    monkeypatch.setattr(ratings, "update", broken)
    out, table = tmp_path / "run.json", tmp_path / "ratings.json"
    done = CliRunner().invoke(app, ["arena", "random", "hunt-target", "--rules", "square-6", "--games", "3",
                                    "--out", str(out), "--ratings", str(table)])  # fmt: skip
    assert done.exit_code == 2 and "the ratings were not updated: cannot write" in done.output, done.output
    assert f"(the run is saved to {out})" in done.output and json.loads(out.read_text())["games"] == 3


# ---- a real program writing such things, from the command line ---------------------------------------
def test_a_program_writing_nonsense_loses_those_games_and_the_run_is_saved(tmp_path):
    """In the sandbox: ``protocol ²`` and a name of escapes at the start, then in each game a third answer
    the referee cannot read (a superscript or an Arabic-Indic digit, bytes that are not UTF-8, a NUL, a
    400-digit number, a sign, a vertical tab): each of those games a ``malformed`` forfeit, the run whole."""
    out = tmp_path / "run.json"
    bot = f"exec:{sys.executable} {MISBEHAVE} weird"
    done = CliRunner().invoke(app, ["arena", bot, "hunt-target", "--rules", "square-6", "--games", "7", "--seed", "3",
                                    "--out", str(out), "--start-limit", "20", "--time-limit", "5", "--shared-caches-i-trust"])  # fmt: skip
    assert done.exit_code == 0, done.output
    saved = json.loads(out.read_text())
    row = next(r for r in saved["leaderboard"] if r["bot"] == bot)
    assert row["games"] == 7 and row["forfeits"]["malformed"] == 7 and row["forfeits"]["referee"] == 0, row
    assert row["name"] == "\\x1b[31mred\\u202e\\x07"
