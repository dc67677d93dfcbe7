"""The shooters of 001, 002, 003 and 004: kernels against readable versions, their rules, and refusals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators, lab
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, Shot, play
from battleship.inference import prior as learning
from battleship.rng import game_rng
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import kernels, make, names, spec
from battleship.shooters.choice import (
    HIT,
    IMPOSSIBLE,
    MISS,
    SUNK,
    UNKNOWN,
    favoured,
    pattern_factor,
    skew_factor,
)
from battleship.shooters.density import fitting, forced_cell
from battleship.shooters.flood import FloodShooter
from battleship.shooters.learning import LearningShooter
from battleship.shooters.options import Options, format_spec, parse_spec
from battleship.shooters.trial_sink import NEGLIGIBLE, trial_sink_shot
from battleship.tables import geometry, tables
from tests.helpers import small_rules

NO_TOUCH = (Spacing.NO_EDGE, Spacing.NO_CONTACT)


def _same_games(rules, name, options, seed, games=3):
    """The kernel's shot counts and the readable shooter's, on the same layouts and random streams."""
    layouts = generators.draw(rules, "uniform", seed, games)
    fast = lab.play_rows(rules, kernels.KINDS[name], seed, layouts, options)
    slow = [
        len(play(make(name, options), generators.to_layout(rules, row), game_rng(seed, i)).shots)
        for i, row in enumerate(layouts)
    ]
    return list(fast), slow


TIES = st.sampled_from(["first", "random", "centre"])


@settings(max_examples=40, deadline=None)
@given(small_rules(), st.integers(0, 2**32), TIES, st.integers(0, 30))
def test_superposition_kernel_matches_the_readable_shooter(rules, seed, tie, boost):
    fast, slow = _same_games(rules, "superposition", Options(tie=tie, boost=boost), seed)
    assert fast == slow


@settings(max_examples=40, deadline=None)
@given(small_rules(spacings=NO_TOUCH), st.integers(0, 2**32), TIES, st.booleans(), st.integers(0, 1))
def test_trial_sink_kernel_matches_the_readable_shooter(rules, seed, tie, skew, lattice):
    options = Options(tie=tie, skew=20 if skew else 0, lattice=lattice)
    fast, slow = _same_games(rules, "trial-sink", options, seed)
    assert fast == slow


@settings(max_examples=30, deadline=None)
@given(small_rules(), st.integers(0, 2**32), st.integers(1, 40), TIES, st.integers(0, 1))
def test_density_skew_kernel_matches_the_readable_shooter(rules, seed, skew, tie, lattice):
    fast, slow = _same_games(rules, "density", Options(skew=skew, tie=tie, lattice=lattice), seed)
    assert fast == slow


@settings(max_examples=30, deadline=None)
@given(
    small_rules(),
    st.integers(0, 2**32),
    st.sampled_from(["random", "hunt-target", "hunt-target-parity", "flood", "density-grid"]),
)
def test_the_classic_kernels_play_the_readable_shooters_games_random_numbers_included(rules, seed, name):
    if spec(name).refusal(rules):
        return
    fast, slow = _same_games(rules, name, Options(), seed)
    assert fast == slow


def _r_rec_search_order(board, row, col, seen):
    """004's recSearch, recording the cells it marks in order."""
    if board[row, col] == -1:
        return
    ship = board[row, col] > 0
    board[row, col] = -1
    seen.append(row * board.shape[1] + col)
    if not ship:
        return
    nrow, ncol = board.shape
    if row + 1 < nrow:
        _r_rec_search_order(board, row + 1, col, seen)
    if row - 1 >= 0:
        _r_rec_search_order(board, row - 1, col, seen)
    if col + 1 < ncol:
        _r_rec_search_order(board, row, col + 1, seen)
    if col - 1 >= 0:
        _r_rec_search_order(board, row, col - 1, seen)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["r-blog", "square-7", "standard"]))
def test_readable_flood_fires_in_the_r_codes_order_and_stops_at_the_last_ship_cell(seed, name):
    rules = preset(name)
    layout = generators.generate(rules, "uniform", seed, 1)[0]
    order = [int(c) for c in np.random.default_rng(seed).permutation(rules.cells)]
    board = np.zeros((rules.rows, rules.cols), dtype=int)
    for cell in range(rules.cells):
        ship = layout.ship_at(cell)
        board[divmod(cell, rules.cols)] = 0 if ship is None else ship + 1
    seen: list[int] = []
    for cell in order:
        if not (board > 0).any():
            break
        _r_rec_search_order(board, *divmod(cell, rules.cols), seen)
    record = play(FloodShooter(order=order), layout, np.random.default_rng(0))
    last_hit = max(i for i, c in enumerate(seen) if layout.ship_at(c) is not None)
    assert [s.cell for s in record.shots] == seen[: last_hit + 1]


# the look-ahead and the learned prior on the 15x15 board: half a minute of the test's two, for the same
# code this test plays on the 10x10 presets (other tests play larger boards)
LONG_GAMES = {("twoply", "square-15"), ("learning", "square-15")}


@pytest.mark.slow
def test_every_shooter_plays_every_preset_or_refuses_with_a_reason():
    # (r-blog is the standard game under other ships' names: the same games)
    presets = ["standard", "datagenetics", "pirates", "square-6", "square-15"]
    tromino = Rules(6, 6, (Ship("Ell", "L", ((0, 0), (1, 0), (1, 1))), Ship.line("Two", "T", 2)))
    for i, rules in enumerate([*(preset(n) for n in presets), tromino]):
        layout = generators.generate(rules, "uniform", 7, 1)[0]
        # a prior given outright: fitting one takes up to 20 s a rule set (the fit is tested apart)
        placements = len(tables(rules).masks)
        prior = np.random.default_rng(i).uniform(0.5, 2.0, placements)
        model = learning.PlacementModel(rules, np.zeros(placements, np.int64), 0, _prior=prior)
        for name in names():
            if (name, rules.name) in LONG_GAMES:
                continue
            why = None if name == "best" else spec(name).refusal(rules)
            if why:
                with pytest.raises(BattleshipError, match=name.split("-")[0]):
                    play(_made(name, model), layout, np.random.default_rng(1))
                continue
            record = play(_made(name, model), layout, np.random.default_rng(1))
            hit = sum(1 for s in record.shots if s.outcome is not Outcome.MISS)
            assert hit == rules.ship_cells, (name, rules.name)


def _made(name: str, model: learning.PlacementModel):
    """The shooter ``name``; learning with ``model`` (it needs one)."""
    return LearningShooter(model=model) if name == "learning" else make(name)


def _water_by_the_margin(rules: Rules, observation: Observation) -> set[int]:
    """Cells no-contact rules make water for straight ships: a hit's diagonals, a sunk ship's ring."""
    water, cols = set(), rules.cols
    ring = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    for shot in observation.shots:
        if shot.outcome is Outcome.MISS:
            continue
        sunk_cells = [c for c in range(rules.cells) if shot.cells >> c & 1] or [shot.cell]
        around = ring if shot.cells else [(dr, dc) for dr, dc in ring if dr and dc]
        for cell in sunk_cells:
            r, c = divmod(cell, cols)
            water |= {
                (r + dr) * cols + c + dc
                for dr, dc in around
                if 0 <= r + dr < rules.rows and 0 <= c + dc < cols
            }
    return water - {s.cell for s in observation.shots}


def test_every_shooter_reads_the_margin_refuses_or_says_it_leaves_it_unread(tmp_path):
    fleet = (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2), Ship.line("Deux", "D", 2))
    rules = Rules(6, 6, fleet, Spacing.NO_CONTACT, Sinks.REVEALED, name="spaced-6")
    model = tmp_path / "model.json"
    learning.save(learning.fit(rules, generators.draw(rules, "edge", 1, 200)), model)
    ours = [n for n in names() if spec(n).entry_point.startswith("battleship.")]  # not the README's example
    for name in ours:
        if name != "best" and spec(name).refusal(rules):
            continue
        if "margin" in spec(name).ignores:
            assert "spacing margin" in spec(name).unread(rules) and spec(name).ignores_why
            continue
        shooter = make(f"learning:model={model}" if name == "learning" else name)
        for layout in generators.generate(rules, "uniform", 3, 4):
            record = play(shooter, layout, np.random.default_rng(2))
            for n, shot in enumerate(record.shots):
                seen = Observation(rules, record.shots[:n])
                assert shot.cell not in _water_by_the_margin(rules, seen), (name, seen.text(), shot.cell)


def test_trial_sink_refuses_touching_ships_and_the_lab_says_why():
    with pytest.raises(BattleshipError, match="may not touch"):
        lab.check("trial-sink", preset("standard"))
    assert spec("trial-sink").refusal(preset("pirates")) is None


def test_superposition_forced_cells():
    rules = Rules(5, 5, (Ship.line("Four", "F", 4), Ship.line("Two", "T", 2)))
    g = geometry(tables(rules))
    afloat = np.ones(2, dtype=np.bool_)
    # a hit in the corner A1 whose east neighbour is a miss: its only open neighbour (A2) holds the ship
    status = np.zeros(25, dtype=np.int8)
    status[0], status[1] = HIT, MISS
    assert forced_cell(status, afloat, fitting(status, g), 5, 5, g) == 5
    # misses on every row but the top leave the four-ship one arrangement on each of rows... so block
    # all but one: misses everywhere except the first four cells of the bottom row
    status = np.full(25, MISS, dtype=np.int8)
    status[20:24] = UNKNOWN
    afloat[1] = False
    assert forced_cell(status, afloat, fitting(status, g), 5, 5, g) == 20


def test_trial_sink_finishes_a_bounded_run_and_marks_its_halo_impossible():
    rules = preset("pirates")
    g = geometry(tables(rules))
    status = np.zeros(100, dtype=np.int8)
    status[[0, 1]] = HIT  # A1, B1... a horizontal run at the top-left corner
    status[2] = MISS  # bounded on the east
    afloat = np.ones(5, dtype=np.bool_)
    cell = trial_sink_shot(
        status, afloat, 10, 10, Options().vector(rules), g, np.zeros(1, dtype=np.uint64), NEGLIGIBLE
    )
    assert status[0] == SUNK and status[1] == SUNK
    assert status[10] == IMPOSSIBLE and status[11] == IMPOSSIBLE and status[12] == IMPOSSIBLE
    assert afloat.tolist() == [True, True, True, True, False]  # the two-cell ship is struck off
    assert status[cell] == UNKNOWN


def test_trial_sink_extends_a_run_in_line():
    rules = preset("pirates")
    g = geometry(tables(rules))
    status = np.zeros(100, dtype=np.int8)
    status[[44, 45]] = HIT
    afloat = np.ones(5, dtype=np.bool_)
    cell = trial_sink_shot(
        status, afloat, 10, 10, Options().vector(rules), g, np.zeros(1, dtype=np.uint64), NEGLIGIBLE
    )
    assert cell in (43, 46)


def test_skew_favours_the_colour_most_shots_went_to():
    status = np.zeros(16, dtype=np.int8)
    status[[0, 2, 5]] = MISS  # (0,0) (0,2) (1,1): all colour 0
    status[1] = HIT  # colour 1
    assert favoured(status, 4, 4, 2) == 0
    factor = pattern_factor(status, 4, 4, 2, 20)
    assert factor[0] == 120 and factor[1] == 100


@settings(max_examples=60, deadline=None)
@given(
    st.integers(3, 8),
    st.integers(3, 8),
    st.lists(st.integers(1, 5), min_size=1, max_size=5),
    st.data(),
)
def test_the_skew_and_its_lattice_against_their_definitions(rows, cols, lengths, data):
    # plain: the checkerboard colour most shots went to, only while a ship of the fleet's smallest
    # length may float; lattice: (row + col) % n for the smallest afloat length n, while any floats
    size = np.array(lengths, dtype=np.int64)
    afloat = np.array(data.draw(st.lists(st.booleans(), min_size=len(lengths), max_size=len(lengths))))
    status = np.array(
        data.draw(
            st.lists(st.sampled_from([UNKNOWN, MISS, HIT, SUNK]), min_size=rows * cols, max_size=rows * cols)
        ),
        dtype=np.int8,
    )
    afloat_lengths = [n for n, a in zip(lengths, afloat, strict=True) if a]
    for lattice in (0, 1):
        factor = skew_factor(status, afloat, size, rows, cols, 20, lattice)
        plain = 2 if min(lengths) in afloat_lengths else 0
        modulus = min(afloat_lengths, default=0) if lattice else plain
        if modulus == 0:
            assert len(factor) == 0 or (factor == 100).all()
            continue
        residue = _most_shot_residue(status, cols, modulus)
        expected = [
            120 if modulus > 1 and (c // cols + c % cols) % modulus == residue else 100
            for c in range(rows * cols)
        ]
        assert factor.tolist() == expected


def _most_shot_residue(status, cols, modulus):
    """The residue of (row + col) % modulus that most shots went to, the lowest on a tie."""
    tally = [0] * modulus
    for c, st_ in enumerate(status):
        if st_ in (MISS, HIT, SUNK):
            tally[(c // cols + c % cols) % modulus] += 1
    return tally.index(max(tally))


def test_shooter_specs_round_trip_and_bad_ones_are_named():
    name, options = parse_spec("density:tie=random,skew=20")
    assert (name, options.tie, options.skew) == ("density", "random", 20)
    assert format_spec(name, options) == "density:tie=random,skew=20"
    for bad, words in (
        ("density:tie=sideways", "tie rule"),
        ("density:speed=3", "density does not read speed; density takes tie"),
        ("density:speed", "not key=value"),
        ("density:skew=lots", "integer"),
        ("superposition:boost=-1", "percentage"),
        ("nobody", "no shooter named"),
    ):
        with pytest.raises(BattleshipError, match=words):
            make(bad)


def test_observation_for_make_is_only_shots():
    # the readable shooters rebuild everything from the observation: a fresh one agrees mid-game
    rules = preset("pirates")
    layout = generators.generate(rules, "uniform", 3, 1)[0]
    record = play(make("trial-sink"), layout, np.random.default_rng(2))
    half = Observation(rules, record.shots[:30])
    shooter = make("trial-sink")
    shooter.reset(rules, np.random.default_rng(2))
    assert shooter.next_shot(half) == record.shots[30].cell
    assert isinstance(record.shots[0], Shot)


def test_optimal_fires_at_a_forced_cell_and_never_repeats():
    rules = preset("standard")
    shooter = make("optimal")
    shooter.reset(rules, np.random.default_rng(0))
    # a hit at D5 whose other neighbours are misses: E5 holds a ship for certain
    shots = (*(Shot(c, Outcome.MISS) for c in (24, 33, 35)), Shot(34, Outcome.HIT))
    assert shooter.next_shot(Observation(rules, shots)) == 44


@pytest.mark.slow
def test_the_lab_plays_python_shooters_reproducibly_across_jobs():
    rules = preset("square-6")
    one = lab.simulate(rules, "optimal", 60, seed=2, jobs=1)
    two = lab.simulate(rules, "optimal", 60, seed=2, jobs=2)
    assert np.array_equal(one, two)
    assert one.min() >= rules.ship_cells
    density = lab.simulate(rules, "density", 60, seed=2)
    assert one.mean() < density.mean() + 3  # the same layouts: exact play is no worse by much
    # the look-ahead shooters keep memo tables that their kernels write without the GIL
    for text in ("twoply:plies=1,endgame=3000", "greedy-rollout:rollouts=24,endgame=300"):
        name, options = parse_spec(text)
        one = lab.simulate(rules, name, 16, seed=3, jobs=1, options=options)
        assert np.array_equal(one, lab.simulate(rules, name, 16, seed=3, jobs=2, options=options)), text
