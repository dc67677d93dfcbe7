"""The Numba game kernels against the readable shooters, and the random shooter against exact theory."""

from math import comb

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators, lab
from battleship.game import play
from battleship.rng import stream
from battleship.rules import preset
from battleship.shooters import density, flood, hunt_target, kernels
from battleship.shooters.hunt_target import HuntTargetParityShooter, HuntTargetShooter
from battleship.shooters.options import Options
from tests.helpers import small_rules


def _kernel_shots(rules, kind, seed, layouts, options=None):
    return lab.play_rows(rules, kind, seed, layouts, options)


@settings(max_examples=40, deadline=None)
@given(small_rules(), st.integers(0, 2**32), st.booleans(), st.integers(0, 1))
def test_hunt_target_kernel_matches_the_readable_shooter(rules, seed, parity, colour):
    layouts = generators.draw(rules, "uniform", seed, 3)
    kind = kernels.HUNT_TARGET_PARITY if parity else kernels.HUNT_TARGET
    shots = _kernel_shots(rules, kind, seed, layouts, Options(colour=colour))
    for i, row in enumerate(layouts):
        order = hunt_target.hunt_order(
            stream(np.uint64(seed) ^ kernels.SHOOTER_SALT, np.uint64(i)),
            rules.rows,
            rules.cols,
            parity,
            colour,
        )
        cls = HuntTargetParityShooter if parity else HuntTargetShooter
        shooter = cls(Options(colour=colour), order=[int(c) for c in order])
        record = play(shooter, generators.to_layout(rules, row), np.random.default_rng(0))
        assert len(record.shots) == shots[i]


def test_random_kernel_follows_the_exact_distribution():
    # the game ends with the last of the 17 ship cells: P(T <= n) = C(n, 17) / C(100, 17)
    rules = preset("standard")
    games = 200_000
    shots = _kernel_shots(rules, kernels.RANDOM, 3, generators.draw(rules, "uniform", 3, games))
    mean = sum(n * (comb(n, 17) - comb(n - 1, 17)) for n in range(17, 101)) / comb(100, 17)
    sd = np.sqrt(
        sum(n * n * (comb(n, 17) - comb(n - 1, 17)) for n in range(17, 101)) / comb(100, 17) - mean**2
    )
    assert abs(shots.mean() - mean) < 5 * sd / np.sqrt(games)
    for n in (80, 90, 97, 99):
        p = comb(n, 17) / comb(100, 17)
        assert abs((shots <= n).mean() - p) < 5 * np.sqrt(p * (1 - p) / games)


def test_parity_hunting_beats_plain_hunting_on_the_same_layouts():
    rules = preset("standard")
    layouts = generators.draw(rules, "uniform", 5, 20_000)
    plain = _kernel_shots(rules, kernels.HUNT_TARGET, 5, layouts)
    parity = _kernel_shots(rules, kernels.HUNT_TARGET_PARITY, 5, layouts)
    diff = plain - parity
    assert diff.mean() > 5 * diff.std() / np.sqrt(len(diff))


@settings(max_examples=40, deadline=None)
@given(small_rules(), st.integers(0, 2**32), st.sampled_from(["first", "centre"]))
def test_density_kernel_matches_the_readable_shooter(rules, seed, tie):
    layouts = generators.draw(rules, "uniform", seed, 3)
    shots = _kernel_shots(rules, kernels.DENSITY, seed, layouts, Options(tie=tie))
    for i, row in enumerate(layouts):
        record = play(
            density.DensityShooter(tie=tie), generators.to_layout(rules, row), np.random.default_rng(0)
        )
        assert len(record.shots) == shots[i]


def _r_board(rules, row):
    """004's board: a matrix of ship ids (1..), 0 for water."""
    board = np.zeros((rules.rows, rules.cols), dtype=int)
    for s, mask in enumerate(generators.to_layout(rules, row).masks):
        for cell in range(rules.cells):
            if mask >> cell & 1:
                board[divmod(cell, rules.cols)] = s + 1
    return board


def _r_rec_search(board, row, col):
    """004's recSearch, recursion and all."""
    if board[row, col] <= 0:
        board[row, col] = -1
        return
    board[row, col] = -1
    nrow, ncol = board.shape
    if row + 1 < nrow:
        _r_rec_search(board, row + 1, col)
    if row - 1 >= 0:
        _r_rec_search(board, row - 1, col)
    if col + 1 < ncol:
        _r_rec_search(board, row, col + 1)
    if col - 1 >= 0:
        _r_rec_search(board, row, col - 1)


def _r_guess_search(board, order):
    """004's guessSearch with a given guess order."""
    board = board.copy()
    for cell in order:
        if not (board > 0).any():
            break
        r, c = divmod(int(cell), board.shape[1])
        if board[r, c] > 0:
            _r_rec_search(board, r, c)
        elif board[r, c] == 0:
            board[r, c] = -1
    return int((board == -1).sum())


def _r_den_search(board, sizes):
    """004's denSearch: buildDen over every ship, first maximum in column-major order."""
    board = board.copy()
    nrow, ncol = board.shape
    while (board > 0).any():
        den = np.zeros_like(board)
        for size in sizes:
            for j in range(nrow - size + 1):
                for i in range(ncol):
                    if not (board[j : j + size, i] == -1).any():
                        den[j : j + size, i] += 1
            for j in range(nrow):
                for i in range(ncol - size + 1):
                    if not (board[j, i : i + size] == -1).any():
                        den[j, i : i + size] += 1
        first = int(np.flatnonzero(den.ravel(order="F") == den.max())[0])
        r, c = first % nrow, first // nrow
        if board[r, c] > 0:
            _r_rec_search(board, r, c)
        elif board[r, c] == 0:
            board[r, c] = -1
    return int((board == -1).sum())


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["r-blog", "square-7"]))
def test_004_methods_match_a_literal_port_of_the_r_code(seed, name):
    rules = preset(name)
    t = generators.tables(rules)
    for i, row in enumerate(generators.draw(rules, "uniform", seed, 4)):
        board = _r_board(rules, row)
        ship_at = (board - 1).ravel()
        order = np.random.default_rng([seed, i]).permutation(rules.cells)
        got = flood.play_flood(
            stream(np.uint64(0), np.uint64(0)), ship_at, rules.ship_cells, rules.rows, rules.cols, order, True
        )
        assert got == _r_guess_search(board, order)
        assert flood.play_density_grid(
            ship_at, rules.ship_cells, rules.rows, rules.cols, t.size, 0, True
        ) == _r_den_search(board, [int(x) for x in t.size])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["pirates", "seabattle"]))
def test_density_never_fires_where_the_margin_says_water(seed, name):
    rules = preset(name)
    layout = generators.generate(rules, "uniform", seed, 1)[0]
    record = play(density.DensityShooter(skew=20), layout, np.random.default_rng(seed))
    hits = set()
    for shot in record.shots:
        r, c = divmod(shot.cell, rules.cols)
        # no-contact, straight ships: a hit's diagonal neighbours are water
        assert not any(
            (r + dr) * rules.cols + c + dc in hits
            for dr in (-1, 1)
            for dc in (-1, 1)
            if 0 <= r + dr < rules.rows and 0 <= c + dc < rules.cols
        ), shot
        if shot.outcome.value != "miss":
            hits.add(shot.cell)


def test_density_reads_an_anonymous_sinking_when_only_one_run_fits():
    from dataclasses import replace

    from battleship.game import Game
    from battleship.layout import Layout
    from battleship.rules import Sinks
    from battleship.shooters.choice import SUNK

    rules = replace(preset("standard"), sinks=Sinks.SUNK)
    layout = Layout.from_text(
        "PP......../........../..DDD...../........../........../........../CCCCC...../........../"
        "BBBB....../SSS.......",
        rules,
    )
    game = Game(layout)
    for cell in (0, 1):  # A1, A2: the patrol boat, whose two hits can only be it
        game.fire(cell)
    status, afloat = density.observed_status(rules, game.observation)
    assert status[0] == SUNK and status[1] == SUNK
    assert afloat.tolist() == [True, True, True, True, False]
