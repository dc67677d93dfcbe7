"""Shooters under salvo rules: legal, reproducible salvos from every shooter that plays them, one line from
those that cannot, and the set-aware shooter's choice checked by brute force on a tiny board."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Volley, choose_salvo
from battleship.generators import generate
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Answers, Rules, Salvo, Ship, Sinks, Spacing, preset
from battleship.shooters import make, names, registry
from battleship.shooters.aim import certain_shots
from battleship.shooters.salvo import broken_answers, ship_cells
from battleship.tables import tables

ONE_SHOT_ONLY = ("rollout", "twoply", "greedy-rollout")
NEEDS_A_MODEL = ("learning",)  # plays as optimal does, under a fitted prior (model=FILE)
# microseconds to milliseconds a salvo: whole games on the standard board; the others play a few turns there
QUICK = ("random", "hunt-target", "hunt-target-parity", "density", "flood", "density-grid", "superposition")
PLAYERS = [n for n in names() if n not in ONE_SHOT_ONLY + NEEDS_A_MODEL]
FLEET = (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2), Ship.line("Boat", "B", 2))


def small(answers: Answers, spacing: Spacing = Spacing.NO_CONTACT, sinks: Sinks = Sinks.SUNK) -> Rules:
    return Rules(6, 6, FLEET, spacing=spacing, sinks=sinks, salvo=Salvo(2, answers))


SMALL = [small(a) for a in Answers] + [small(a, Spacing.TOUCH, Sinks.NAMED) for a in Answers]


def played(spec: str, rules: Rules, seed: int, turns: int = 10_000) -> tuple[Volley, ...]:
    """Up to ``turns`` salvos of ``spec`` on a seeded layout, each checked legal as it is chosen."""
    name, options = registry.check(spec, rules)
    shooter = registry.spec(name).make(options)
    game = Game(generate(rules, "uniform", seed)[0])
    shooter.reset(rules, game_rng(seed, 0))
    for _ in range(turns):
        if game.over:
            break
        size = game.turn_size()
        cells = choose_salvo(shooter, game.observation, size)
        assert len(cells) == size and len(set(cells)) == size, cells
        assert not any(game.observation.is_shot(c) for c in cells)
        game.fire_salvo(cells, size)
    return game.observation.volleys


def playable(spec: str, rules: Rules) -> bool:
    return registry.spec(registry.resolve(spec, rules)[0]).refusal(rules) is None


@pytest.mark.parametrize("spec", PLAYERS)
@pytest.mark.parametrize("rules", SMALL, ids=lambda r: f"{r.salvo.text()}-{r.spacing.value}-{r.sinks.value}")
def test_every_shooter_finishes_small_salvo_games_reproducibly(spec: str, rules: Rules) -> None:
    if not playable(spec, rules):
        pytest.skip("refused (checked below)")
    volleys = played(spec, rules, seed=3)
    layout = generate(rules, "uniform", 3)[0]
    fired = 0
    for v in volleys:
        fired |= v.mask
    assert fired & layout.occupied == layout.occupied  # sank the fleet
    assert played(spec, rules, seed=3) == volleys


@pytest.mark.parametrize("spec", PLAYERS)
@pytest.mark.parametrize("preset_name", ["salvo", "salvo-count", "hits-named"])
def test_every_shooter_plays_the_salvo_presets(spec: str, preset_name: str) -> None:
    rules = preset(preset_name)
    if not playable(spec, rules):
        pytest.skip("refused (checked below)")
    turns = 10_000 if spec in QUICK else 2
    volleys = played(spec, rules, seed=5, turns=turns)
    assert volleys and all(len(v.cells) == rules.turn_size() for v in volleys[:-1])
    if spec in QUICK:
        layout = generate(rules, "uniform", 5)[0]
        assert sum(v.mask for v in volleys) & layout.occupied == layout.occupied


def test_density_fires_five_different_cells_on_salvo_rules() -> None:
    rules = preset("salvo")
    salvo = make("density").__class__
    shooter = salvo()
    shooter.reset(rules, game_rng(5, 0))
    cells = choose_salvo(shooter, Observation(rules), 5)
    assert len(set(cells)) == 5
    # one count: the same cells as asking five times over the cells aimed at
    again = salvo()
    again.reset(rules, game_rng(5, 0))
    board, one_by_one = Observation(rules), []
    for _ in range(5):
        one_by_one.append(again.next_shot(board))
        board = board.aiming(one_by_one[-1])
    assert tuple(one_by_one) == cells


@pytest.mark.parametrize("spec", ONE_SHOT_ONLY)
@pytest.mark.parametrize("preset_name", ["salvo", "salvo-count", "hits-named"])
def test_one_shot_look_aheads_refuse_salvo_rules_in_one_line(spec: str, preset_name: str) -> None:
    rules = preset(preset_name)
    with pytest.raises(BattleshipError) as info:
        registry.check(spec, rules)
    said = str(info.value)
    assert "\n" not in said and said.startswith(f"{spec} plays the one-shot game only")
    with pytest.raises(BattleshipError, match="one-shot game only"):
        make(spec).reset(rules, game_rng(1, 0))
    assert registry.spec(spec).refusal(preset("standard")) is None


@pytest.mark.parametrize("preset_name", ["salvo", "salvo-count", "hits-named"])
def test_best_plays_a_shooter_that_plays_salvo_rules(preset_name: str) -> None:
    rules = preset(preset_name)
    name, _ = registry.check("best", rules)
    assert registry.spec(name).refusal(rules) is None


def _every_layout(rules: Rules) -> list[Layout]:
    out = []
    for combo in itertools.product(*rules.placements):
        try:
            out.append(Layout(rules, combo))
        except BattleshipError:
            continue
    return out


def _replayed(layout: Layout, volleys: tuple[Volley, ...]) -> Game | None:
    """The game on ``layout`` after ``volleys``, or None when it answers any of them otherwise."""
    game = Game(layout)
    for v in volleys:
        if game.over or game.fire_salvo(v.cells) != v:
            return None
    return game


def test_salvo_answers_checked_on_samples_agree_with_replaying_them() -> None:
    """The set-aware shooter's vectorised replay against the referee, on random layouts and salvos."""
    rng = random.Random(11)
    for answers, sinks in itertools.product((Answers.SHIPS, Answers.COUNT), Sinks):
        rules = Rules(4, 4, FLEET[1:], sinks=sinks, salvo=Salvo(3, answers))
        layouts = _every_layout(rules)
        truth = rng.choice(layouts)
        game = Game(truth)
        while not game.over and game.observation.unknown_mask.bit_count() >= 3 and rng.random() < 0.8:
            free = [c for c in range(rules.cells) if not game.observation.is_shot(c)]
            game.fire_salvo(rng.sample(free, 3))
        volleys = game.observation.volleys
        t = tables(rules)
        rows = np.array([[t.masks.index(m) for m in lay.masks] for lay in layouts], dtype=np.int64)
        broken = broken_answers(rules, volleys, ship_cells(rules, rows))
        for layout, count in zip(layouts, broken, strict=True):
            assert (count == 0) == _answers_alike(layout, volleys), (answers, sinks, layout.masks, volleys)


def _answers_alike(layout: Layout, volleys: tuple[Volley, ...]) -> bool:
    game = Game(layout)
    for v in volleys:
        if game.over:  # the referee would have stopped: a whole salvo on a finished game is no answer
            return False
        if game.fire_salvo(v.cells) != v:
            return False
    return not game.over  # a shooter is asked for a salvo only while the game goes on


def test_certain_shots_are_what_every_consistent_layout_answers() -> None:
    rules = Rules(4, 4, FLEET[1:], sinks=Sinks.NAMED, salvo=Salvo(2, Answers.COUNT))
    layouts = _every_layout(rules)
    truth = layouts[7]
    game = Game(truth)
    rng = random.Random(5)
    while not game.over:
        free = [c for c in range(rules.cells) if not game.observation.is_shot(c)]
        game.fire_salvo(rng.sample(free, min(2, len(free))))
        known = certain_shots(game.observation)
        for layout in layouts:
            if _answers_alike(layout, game.observation.volleys):
                for shot in known:
                    assert (layout.ship_at(shot.cell) is not None) == (shot.outcome.value != "miss")


# --- the set-aware choice on a hand-made position --------------------------------------------------
# A 3x4 board with a cruiser (3) and a destroyer (2), two shots a turn answered shot by shot. The first
# salvo hit A4 and C2. The likeliest free cells are A3 and B4, next to A4: but one ship runs through A4,
# either along row A (A3) or down column 4 (B4), never both, so one of the two shots is surely wasted.
TINY = Rules(
    3, 4, (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2)), salvo=Salvo(2, Answers.EACH)
)


def _position() -> Observation:
    game = Game(Layout.from_text("...C/...C/.DDC", TINY))
    game.fire_salvo(["A4", "C2"])
    return game.observation


def _two_turn_hits(layouts: list[Layout], observation: Observation, salvo: list[int]) -> float:
    """Brute force: expected hits of ``salvo`` and of the best next salvo given its answer."""
    groups: dict[Volley, list[Layout]] = {}
    for layout in layouts:
        game = _replayed(layout, observation.volleys)
        assert game is not None
        groups.setdefault(game.fire_salvo(salvo), []).append(layout)
    taken = observation.shot_mask | sum(1 << c for c in salvo)
    free = [c for c in range(TINY.cells) if not taken >> c & 1]
    total = 0.0
    for volley, group in groups.items():
        ships = sorted((sum(lay.ship_at(c) is not None for lay in group) for c in free), reverse=True)
        total += volley.hits * len(group) + sum(ships[: len(salvo)])
    return total / len(layouts)


def test_set_aware_salvo_beats_the_two_likeliest_cells_by_brute_force() -> None:
    observation = _position()
    layouts = [lay for lay in _every_layout(TINY) if _replayed(lay, observation.volleys)]
    layouts = [lay for lay in layouts if not _replayed(lay, observation.volleys).over]  # type: ignore[union-attr]
    free = [c for c in range(TINY.cells) if not observation.is_shot(c)]
    likely = {c: sum(lay.ship_at(c) is not None for lay in layouts) for c in free}
    top = sorted(free, key=lambda c: (-likely[c], c))[:2]
    assert sorted(top) == [2, 7]  # A3 and B4
    assert not any(lay.ship_at(2) is not None and lay.ship_at(7) is not None for lay in layouts)
    greedy = make("optimal")
    greedy.reset(TINY, game_rng(1, 0))
    assert sorted(greedy.next_salvo(observation, 2)) == [2, 7]  # top-K on the exact posterior plays them
    shooter = make("salvo:samples=4000")
    shooter.reset(TINY, game_rng(1, 0))
    chosen = shooter.next_salvo(observation, 2)
    assert _two_turn_hits(layouts, observation, chosen) > _two_turn_hits(layouts, observation, top) + 0.2


def test_best_plays_the_set_aware_shooter_on_salvo_rules_and_density_when_fast() -> None:
    rules = preset("salvo")
    assert registry.check("best", rules)[0] == "salvo"
    assert registry.check("best", preset("salvo-count"))[0] == "salvo"
    assert registry.check("best:fast=1", rules)[0] == "density"
    assert registry.resolve("best", preset("hits-named")) == registry.resolve("density:skew=20")
    shooter = make("best")
    shooter.reset(rules, game_rng(2, 0))
    cells = choose_salvo(shooter, Observation(rules), 5)
    assert len(set(cells)) == 5


def test_set_aware_shooter_plays_on_when_the_exact_sampler_gives_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own rejection from what is certain takes over, and every salvo stays legal."""
    from battleship.shooters import salvo as module

    exact = module.draw

    def gives_up(rules: Rules, observation: Observation, count: int, seed: int = 0) -> np.ndarray:
        if any(not v.shots for v in observation.volleys):
            raise BattleshipError("no layout fitting these salvos' counts was found")
        return exact(rules, observation, count, seed=seed)

    monkeypatch.setattr(module, "draw", gives_up)
    rules = small(Answers.COUNT, Spacing.TOUCH, Sinks.NAMED)
    volleys = played("salvo:samples=100", rules, seed=8)
    assert volleys == played("salvo:samples=100", rules, seed=8)


def test_check_shooter_checks_salvos() -> None:
    from battleship.shooters.check import ShooterCheckError, check_shooter

    rules = [small(Answers.EACH, Spacing.TOUCH, Sinks.NAMED), small(Answers.COUNT)]
    check_shooter("density", rules, games=2)
    check_shooter("rollout", rules, games=1)  # refused, saying why: nothing to play

    class Twice:
        """Fires the first cell not fired at, blind to the cells aimed at: a salvo with a cell twice."""

        name = "twice"

        def reset(self, rules: Rules, rng: np.random.Generator) -> None:
            pass

        def next_shot(self, observation: Observation) -> int:
            fired = sum(v.mask for v in observation.volleys)
            return next(c for c in range(observation.rules.cells) if not fired >> c & 1)

    with pytest.raises(ShooterCheckError, match=r"twice: salvo 1 is illegal: .* is in the salvo twice"):
        check_shooter(_spec_of(Twice), rules[:1], games=1)


def _spec_of(cls: type) -> registry.ShooterSpec:
    """A spec whose class is ``cls`` itself."""

    class Spec(registry.ShooterSpec):
        def load(self) -> type:
            return cls

        def refusal(self, rules: Rules) -> str | None:
            return None

    return Spec(cls.name, "test:" + cls.__name__, "a test class", takes_options=False)  # type: ignore[attr-defined]


def test_what_a_shooter_leaves_unread_of_salvos_answered_whole_is_said() -> None:
    said = registry.spec("density").unread(preset("salvo-count"))
    assert said is not None and "only as far as they answer single cells" in said
    assert registry.spec("density").unread(preset("salvo")) is None  # answered shot by shot
    assert registry.spec("salvo").unread(preset("salvo-count")) is None
    assert registry.spec("optimal").unread(preset("hits-named")) is None


def test_density_refuses_its_one_shot_look_ahead_under_salvo_rules() -> None:
    with pytest.raises(BattleshipError, match=r"^density: lastship=8 looks ahead one shot a turn"):
        make("density:lastship=8").reset(preset("salvo"), game_rng(1, 0))
    make("density:lastship=8").reset(preset("standard"), game_rng(1, 0))
