"""The arena under answers that lie and a cheating hider: version 3 of the protocol, both sides of it."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Game
from battleship.inference.hider import Hider as CheatingHider
from battleship.lab import arena
from battleship.lab.arena import bots, protocol
from battleship.rules import Hider, Noise, Rules, Salvo, Ship
from tests.lab.test_arena_output import Scripted

ROOT = Path(__file__).resolve().parents[2]
TWICE = ROOT / "tests" / "lab" / "arena_bots" / "twice.py"
MISBEHAVE = ROOT / "tests" / "lab" / "arena_bots" / "misbehave.py"
CLASS_BOT = f"{ROOT / 'tests' / 'lab' / 'arena_bots' / 'reading_order.py'}:ReadingOrder"
FLEET = (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2))
NOISY = Rules(5, 5, FLEET, name="noisy-5", noise=Noise(0.2, "noisy"))
CHEAT = Rules(5, 5, FLEET, name="cheat-5", hider=Hider())
KEY = arena.Key.from_seed(5)
JAIL = arena.choose(caches=False)  # caches kept between bots, as in test_arena.py (which says why)
LIMITS = arena.Limits(time=2.0, start=10.0, memory_mb=256)  # generous: a busy machine is no bot's fault


def twice(mode: str = "fine", game: int = 2) -> str:
    return f"exec:{sys.executable} {TWICE} {mode} {game}"


def run(names: list[str], rules: Rules, games: int = 3, matches: bool = False) -> arena.ArenaResult:
    parsed = [arena.parse_bot(b, rules) for b in names]
    return arena.run(rules, parsed, games, KEY, limits=LIMITS, jail=JAIL, matches=matches)


def twice_shots(rules: Rules, games: int) -> list[int]:
    """Shots the twice bot takes on the run's battlefields, against referees seeded as the arena seeds them."""
    out = []
    for g, row in enumerate(KEY.battlefields(rules, "uniform", games)):
        referee = bots.make_referee(generators.to_layout(rules, row), KEY.referee_seed("battlefield", g), g)
        shots = 0
        while not referee.over:
            referee.fire(shots // 2 if rules.noise is not None else shots)
            shots += 1
        out.append(shots)
    return out


# ---- the protocol's lines -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rules", [NOISY, CHEAT, Rules(5, 5, FLEET, noise=Noise(0.05), salvo=Salvo(2, "each"))]
)
def test_the_rules_block_says_noise_and_the_hider_and_reads_back(rules: Rules) -> None:
    lines = protocol.rules_lines(rules)
    assert protocol.greeting(rules) == "battleship 3" and lines[-1] == "end"
    assert ("noise 0.2 noisy" in lines) == (rules is NOISY) and ("hider adversarial greedy" in lines) == (
        rules is CHEAT
    )
    reader = protocol.RulesReader()
    for line in lines:
        reader.feed(line)
    assert reader.rules == rules


class Recording(Scripted):
    """A bot's process that answers from a script and records both directions, as a transcript."""

    def __init__(self, answers: list[str]):
        super().__init__(answers)
        self.transcript: list[str] = []

    def send(self, lines: list[str], deadline: float) -> None:
        super().send(lines, deadline)
        self.transcript += [f"> {line}" for line in lines]

    def receive(self, deadline: float, waiting_for: str) -> str:
        line = super().receive(deadline, waiting_for)
        self.transcript.append(f"< {line}")
        return line


def recorded_game(monkeypatch, rules: Rules, answers: list[str]) -> tuple[bots.GameResult, list[str]]:
    process = Recording(answers)
    monkeypatch.setattr(bots, "Process", lambda *a, **k: process)
    bot = arena.ProgramBot("exec:recorded", arena.sandbox.Program(("recorded",)))
    bot.start(rules, arena.Limits(), arena.choose(unconfined=True), games=1)
    row = KEY.battlefields(rules, "uniform", 1)[0]
    return bot.play(
        0, generators.to_layout(rules, row), row, 7, coins=KEY.referee_seed("battlefield", 0)
    ), process.transcript


def test_a_transcript_under_noise_fires_a_cell_again_and_ends_when_every_ship_cell_is_hit(
    monkeypatch,
) -> None:
    cells = [f"{r}{c}" for r in "ABCDE" for c in range(1, 6)]
    answers = ["protocol 3", "readyok", *[name for name in cells for _ in (0, 1)]]
    result, transcript = recorded_game(monkeypatch, NOISY, answers)
    assert result.fault is None and result.shots == twice_shots(NOISY, 1)[0]
    assert transcript[:2] == ["> battleship 3", "> rules noisy-5"] and "> noise 0.2 noisy" in transcript
    assert transcript[transcript.index("< readyok") - 1] == "< protocol 3"
    assert transcript[-1] == f"> gameover {result.shots}"
    said = [line for line in transcript if line.startswith("> result")]
    assert (
        len(said) == result.shots and said[0].split()[2] == said[1].split()[2] == "A1"
    )  # A1 twice, both answered


def test_a_transcript_against_the_cheating_hider_is_the_hiders_answers(monkeypatch) -> None:
    cells = [f"{r}{c}" for r in "ABCDE" for c in range(1, 6)]
    result, transcript = recorded_game(monkeypatch, CHEAT, ["protocol 3", "readyok", *cells])
    hider = CheatingHider(CHEAT, KEY.referee_seed("battlefield", 0), 0)
    for cell in range(result.shots):
        hider.fire(cell)
    assert result.fault is None and hider.over and "> hider adversarial greedy" in transcript
    assert [line for line in transcript if line.startswith("> result")] == [
        f"> {protocol.result_line(shot, CHEAT)}" for shot in hider.observation.shots
    ]


def test_an_endless_game_under_noise_is_stopped_and_scores_the_most_a_game_can_take(monkeypatch) -> None:
    water = next(c for c in range(NOISY.cells) if not any(m >> c & 1 for m in noisy_layout().masks))
    name = f"{'ABCDE'[water // 5]}{water % 5 + 1}"
    result, _ = recorded_game(monkeypatch, NOISY, ["protocol 3", "readyok", *[name] * 501])
    assert result.fault is not None and result.fault.cause == "endless" and "500" in result.fault.detail
    assert result.shots == protocol.most_shots(NOISY) == 20 * NOISY.cells


def noisy_layout():  # the first battlefield of the noisy rules
    return generators.to_layout(NOISY, KEY.battlefields(NOISY, "uniform", 1)[0])


def test_the_python_host_reads_noise_and_fires_where_its_class_says(monkeypatch) -> None:
    from battleship.lab.arena.host import Host
    from battleship.shooters import make

    out = io.StringIO()
    host = Host(make("density"), out)
    for line in [protocol.greeting(NOISY), *protocol.rules_lines(NOISY), "isready", "newgame 1 7", "shoot"]:
        host.handle(line)
    said = out.getvalue().splitlines()
    assert said[-3:-1] == ["protocol 3", "readyok"] and host.rules == NOISY
    first = said[-1]
    host.handle(f"result {first} miss")
    host.handle(f"result {first} hit")  # the same cell again: both answers kept, as the referee gave them
    assert host.observation is not None and len(host.observation.shots) == 2


# ---- runs -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", [NOISY, CHEAT])
def test_a_program_a_class_and_a_shooter_play_noise_and_the_hider(rules: Rules) -> None:
    """The twice bot fires at each cell twice under noise (once against the hider): its games are the
    referee's as the arena seeds it; the class and the registered shooter play every game too."""
    result = run([twice(), CLASS_BOT, "density"], rules)
    rows = {row.bot: row for row in result.leaderboard}
    for row in result.leaderboard:
        assert sum(row.forfeits.values()) == 0, (row.bot, row.forfeit_examples)
        assert all(rules.ship_cells <= shots <= 2 * rules.cells for shots in row.shots)
    assert rows[twice()].shots == twice_shots(rules, 3) and rows[twice()].name == "twice"
    assert result.rules_detail[("noise" if rules is NOISY else "hider")] and result.protocol == 3
    assert result.forfeit_score == protocol.most_shots(rules)


@pytest.mark.parametrize("rules", [NOISY, CHEAT])
def test_version_1_and_2_bots_are_refused_these_rules_saying_why(rules: Rules) -> None:
    result = run([f"exec:{sys.executable} {MISBEHAVE} fine 99", twice("v2")], rules, games=2)
    for row in result.leaderboard:
        assert row.forfeits["start"] == 2, row.forfeit_examples
        detail = row.forfeit_examples[-1]["detail"]
        assert "'protocol 3'" in detail and ("noise 0.2 noisy" in detail or "adversarial greedy" in detail), (
            detail
        )


def test_a_repeat_is_refused_without_noise_and_fired_under_it() -> None:
    refused = run([twice("again", 2)], CHEAT).leaderboard[0]
    assert refused.forfeits["repeat"] == 1 and refused.forfeit_examples[0]["game"] == 2
    assert "fired at A1 a second time" in refused.forfeit_examples[0]["detail"]
    assert refused.shots[1] == CHEAT.cells and sum(refused.forfeits.values()) == 1
    fired = run([twice("again", 2)], NOISY).leaderboard[0]
    assert sum(fired.forfeits.values()) == 0, fired.forfeit_examples


def test_matches_under_a_cheating_hider_are_refused_and_under_noise_played() -> None:
    with pytest.raises(BattleshipError, match="nobody hides a fleet"):
        run([twice(), "density"], CHEAT, games=2, matches=True)
    noisy = run([twice(), "density"], NOISY, games=2, matches=True)
    assert noisy.matches is not None and noisy.matches[0].games == 2
    assert noisy.matches[0].a_forfeits == noisy.matches[0].b_forfeits == 0


@pytest.mark.parametrize("rules", [NOISY, CHEAT])
def test_a_run_under_noise_or_the_hider_verifies_from_its_results(rules: Rules, tmp_path: Path) -> None:
    """The results keep the noise and the hider, and the referee's seeds come from the key: a replay
    meets the same lies and the same hider, so every check passes."""
    from battleship.lab.arena.results import save
    from battleship.lab.arena.verify import rules_of, verify

    result = run([twice(), "density"], rules, games=2)
    path = tmp_path / "run.json"
    save(result, path)
    assert rules_of(result.rules_detail) == rules
    checks = verify(path, [twice()], jail=JAIL)
    assert all(c.ok and c.checked for c in checks), [c for c in checks if not (c.ok and c.checked)]


def test_every_bot_meets_the_same_coins_and_they_come_from_the_key() -> None:
    coins = [KEY.referee_seed("battlefield", g) for g in range(3)]
    assert len(set(coins)) == 3 and coins == [
        arena.Key.from_seed(5).referee_seed("battlefield", g) for g in range(3)
    ]
    assert arena.Key.from_seed(6).referee_seed("battlefield", 0) != coins[0]
    row = KEY.battlefields(NOISY, "uniform", 1)[0]
    layout = generators.to_layout(NOISY, row)
    answers = [[Game(layout, seed=coins[0]).fire(0).outcome for _ in range(1)] for _ in range(2)]
    assert answers[0] == answers[1]
    assert np.array_equal(KEY.battlefields(NOISY, "uniform", 2), KEY.battlefields(NOISY, "uniform", 2))
