"""The arena under salvo rules: version 2 of the protocol, its answers, and version 1 bots refused."""

from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship import rules as rules_mod
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, play
from battleship.lab import arena
from battleship.lab.arena import protocol
from battleship.rules import Answers, Rules, Salvo, Ship, Sinks

ROOT = Path(__file__).resolve().parents[2]
SALVO_BOT = ROOT / "tests" / "lab" / "arena_bots" / "salvo.py"
CLASS_BOT = f"{ROOT / 'tests' / 'lab' / 'arena_bots' / 'reading_order.py'}:ReadingOrder"
MISBEHAVE = ROOT / "tests" / "lab" / "arena_bots" / "misbehave.py"
SMALL = rules_mod.square(6)
KEY = arena.Key.from_seed(5)
JAIL = arena.choose(caches=False)  # caches kept between bots, as in test_arena.py (which says why)
LIMITS = arena.Limits(time=2.0, start=10.0, memory_mb=256)  # generous: a busy machine is no bot's fault


def salvo_rules(shots: int | str = "afloat", answers: Answers = Answers.EACH) -> Rules:
    """The standard fleet on 6x6 under a salvo rule."""
    name = f"salvo-6-{shots}-{answers.value}"
    return dataclasses.replace(SMALL, name=name, salvo=Salvo(shots, answers))


def bot(mode: str = "fine", game: int = 2) -> str:
    return f"exec:{sys.executable} {SALVO_BOT} {mode} {game}"


def run(bots: list[str], rules: Rules, games: int = 3, matches: bool = False) -> arena.ArenaResult:
    parsed = [arena.parse_bot(b, rules) for b in bots]
    return arena.run(rules, parsed, games, KEY, limits=LIMITS, jail=JAIL, matches=matches)


class ReadingOrder:
    """The salvo bot's play, in process: the next cells in reading order."""

    name = "reading-order"

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        self.cells = rules.cells

    def next_shot(self, observation: Observation) -> int:
        return next(c for c in range(self.cells) if not observation.is_shot(c))


def reading_order_turns(rules: Rules, games: int) -> list[int]:
    """Turns the reading-order hunt takes on the arena's battlefields, played by the game's referee."""
    rows = KEY.battlefields(rules, "uniform", games)
    rng = np.random.default_rng(0)
    return [play(ReadingOrder(), generators.to_layout(rules, row), rng).turns for row in rows]


# ---- the protocol's lines ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["salvo", "salvo-count", "hits-named"])
def test_the_rules_block_says_the_salvo_rule_and_reads_back(name: str) -> None:
    rules = rules_mod.preset(name)
    lines = protocol.rules_lines(rules)
    assert f"salvo {rules.salvo.text()}" in lines and lines[-1] == "end"  # type: ignore[union-attr]
    reader = protocol.RulesReader()
    for line in lines:
        reader.feed(line)
    assert reader.rules == rules
    assert protocol.greeting(rules) == "battleship 2" and protocol.greeting(SMALL) == "battleship 1"
    assert not any(line.startswith("salvo") for line in protocol.rules_lines(SMALL))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(Answers)), st.sampled_from(list(Sinks)), st.integers(1, 4), st.integers(0, 2**20))
def test_every_salvo_answer_reads_back_as_the_referees(answers, sinks, k, seed) -> None:
    """The lines the referee sends say what its Volley says, and the host reads the same Volley back."""
    fleet = (Ship.line("Long", "L", 3), Ship.line("Short", "S", 2), Ship.line("Boat", "B", 1))
    rules = Rules(4, 4, fleet, sinks=sinks, salvo=Salvo(k, answers))
    game = Game(generators.generate(rules, seed=seed)[0])
    order = np.random.default_rng(seed).permutation(rules.cells)
    fired = 0
    while not game.over:
        size = game.turn_size()
        volley = game.fire_salvo([int(c) for c in order[fired : fired + size]], size)
        fired += size
        lines = protocol.answer_lines(volley, rules)
        if answers is Answers.EACH:
            assert [protocol.read_result(line, rules) for line in lines] == list(volley.shots)
            assert protocol.volley_of(volley.shots) == volley
        else:
            assert len(lines) == 1 and protocol.read_volley(lines[0], rules) == volley, lines


def test_a_salvo_line_under_ships_answers_spells_hits_and_sinkings() -> None:
    rules = rules_mod.preset("standard")
    ships = dataclasses.replace(rules, sinks=Sinks.REVEALED, salvo=Salvo(3, Answers.SHIPS))
    from battleship.game import Volley

    volley = Volley((0, 1, 2), hits=2, ship_hits=(0, 0, 0, 0, 2), sunk=(4,), sunk_count=1, revealed=(0b11,))
    assert protocol.answer_lines(volley, ships) == ["salvo A1,A2,A3 hits 2 ships PP sunk P=A1,A2"]
    count = dataclasses.replace(rules, sinks=Sinks.SUNK, salvo=Salvo(3, Answers.COUNT))
    counted = Volley((0, 1, 2), hits=2, sunk_count=1)
    assert protocol.answer_lines(counted, count) == ["salvo A1,A2,A3 hits 2 sunk #"]
    missed = Volley((0, 1, 2), ship_hits=(0, 0, 0, 0, 0))
    assert protocol.answer_lines(missed, ships) == ["salvo A1,A2,A3 hits 0 ships -"]


@pytest.mark.parametrize(
    ("answer", "cause", "says"),
    [
        ("A1 A2 A3", None, ""),
        ("a1  A2 a3 ", None, ""),
        ("A1 A2", "malformed", "expected 3 cell names on one line"),
        ("A1,A2,A3", "malformed", "not 1"),
        ("A1 A2 A1", "repeat", "named A1 twice in one salvo"),
        ("A1 A2 B1", "repeat", "fired at B1 a second time"),
        ("A1 A2 Z99", "off-board", "'Z99'"),
        ("A1 A2 fire", "malformed", "'fire'"),
        ("", "malformed", "not 0"),
    ],
)
def test_answers_to_shoot_k(answer: str, cause: str | None, says: str) -> None:
    rules = salvo_rules(3)
    fired = 1 << 6  # B1 was fired at in an earlier salvo
    if cause is None:
        assert protocol.read_salvo(answer, rules, 3, fired) == (0, 1, 2)
        return
    with pytest.raises(arena.BotFault) as caught:
        protocol.read_salvo(answer, rules, 3, fired)
    assert caught.value.cause == cause and says in caught.value.detail, caught.value.detail


def test_the_python_host_plays_salvos_and_says_it_speaks_version_2_or_later() -> None:
    from battleship.lab.arena.host import Host
    from battleship.shooters import make

    rules = salvo_rules("afloat", Answers.COUNT)
    out = io.StringIO()
    host = Host(make("random"), out)
    for line in [protocol.greeting(rules), *protocol.rules_lines(rules), "isready", "newgame 1 7", "shoot 5"]:
        host.handle(line)
    said = out.getvalue().splitlines()
    spoken = f"protocol {protocol.VERSION}"  # version 3 plays version 2's salvos
    assert protocol.VERSION >= 2 and spoken in said and said.index(spoken) < said.index("readyok")
    cells = said[-1].split()
    assert len(cells) == 5 and len(set(cells)) == 5
    host.handle(f"salvo {','.join(cells)} hits 0")
    assert host.observation is not None and host.observation.turns == 1 and host.observation.fired == 5


# ---- runs -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("answers", [Answers.EACH, Answers.COUNT])
def test_a_salvo_program_bot_plays_the_arena_scored_in_turns(answers: Answers) -> None:
    """The salvo bot on ``salvo`` and ``salvo-count`` rules (6x6): every game played, as many turns
    as the same hunt played in process by the game's referee."""
    rules = salvo_rules("afloat", answers)
    result = run([bot(), "hunt-target", CLASS_BOT], rules)
    assert result.unit == "turns" and result.protocol == protocol.VERSION
    rows = {row.bot: row for row in result.leaderboard}
    fine = rows[bot()]
    assert sum(fine.forfeits.values()) == 0, fine.forfeit_examples
    assert fine.name == "salvo in reading order"
    assert fine.shots == reading_order_turns(rules, 3) == rows[CLASS_BOT].shots
    for row in result.leaderboard:
        assert sum(row.forfeits.values()) == 0, (row.bot, row.forfeit_examples)
        assert all(-(-rules.ship_cells // 5) <= turns <= rules.cells for turns in row.shots)


@pytest.mark.parametrize(
    ("mode", "cause", "says"),
    [
        ("short", "malformed", "expected 5 cell names"),
        ("repeat", "repeat", "twice in one salvo"),
        ("again", "repeat", "fired at A1 a second time"),
        ("offboard", "off-board", "Z99"),
        ("junk", "malformed", "fire!"),
    ],
)
def test_a_bad_salvo_loses_its_game_only(mode: str, cause: str, says: str) -> None:
    result = run([bot(mode, 2)], salvo_rules())
    row = result.leaderboard[0]
    assert row.forfeits[cause] == 1 and sum(row.forfeits.values()) == 1, row.forfeit_examples
    example = row.forfeit_examples[0]
    assert example["game"] == 2 and says in example["detail"], example
    assert row.shots[1] == SMALL.cells  # the forfeit scores every cell; the other games are played


def test_a_version_1_bot_is_refused_salvo_rules_saying_why_and_still_plays_the_classic_game() -> None:
    result = run([f"exec:{sys.executable} {MISBEHAVE} fine 99", bot("v1")], salvo_rules(), games=2)
    for row in result.leaderboard:
        assert row.forfeits["start"] == 2, row.forfeit_examples
        detail = row.forfeit_examples[-1]["detail"]
        assert "version 1 of the arena protocol" in detail and "'protocol 2'" in detail
        assert "salvo afloat each" in detail
    classic = run([f"exec:{sys.executable} {MISBEHAVE} fine 99"], SMALL, games=2)
    assert sum(classic.leaderboard[0].forfeits.values()) == 0


def test_matches_under_salvo_rules() -> None:
    """With a fixed number of shots a turn the sides stay independent and the arena plays matches;
    with shots = "afloat" it refuses them, naming the command that plays them."""
    fixed = run([bot(), "hunt-target"], salvo_rules(3), games=2, matches=True)
    assert fixed.matches is not None and fixed.matches[0].games == 2
    with pytest.raises(BattleshipError, match="battleship match"):
        run([bot(), "hunt-target"], salvo_rules("afloat"), games=2, matches=True)


def test_a_salvo_run_verifies_from_its_results(tmp_path: Path) -> None:
    """The results keep the salvo rule, so a replay plays the same salvos: every check passes."""
    from battleship.lab.arena.results import save
    from battleship.lab.arena.verify import verify

    result = run([bot(), "hunt-target"], salvo_rules("afloat", Answers.COUNT), games=2)
    path = tmp_path / "run.json"
    save(result, path)
    checks = verify(path, [bot()], jail=JAIL)
    assert all(c.ok and c.checked for c in checks), [c for c in checks if not (c.ok and c.checked)]
