from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import drawing, generators, rng
from battleship.errors import RulesError
from battleship.inference import occupancy
from battleship.rules import Rules, Ship, Spacing, preset, square
from battleship.seeds import Stream
from tests import brute
from tests.helpers import brute_force_layouts, chi2_upper, small_rules


def _chi_square(rules: Rules, generator: str, draws: int, seed: int) -> tuple[float, int]:
    """Chi-square statistic of drawn layouts against the uniform distribution over all layouts."""
    every = {layout: i for i, layout in enumerate(brute_force_layouts(rules))}
    masks = generators.tables(rules).masks
    counts = np.zeros(len(every))
    for row in generators.draw(rules, generator, seed, draws):
        counts[every[tuple(masks[p] for p in row)]] += 1
    expected = draws / len(every)
    return float(((counts - expected) ** 2 / expected).sum()), len(every) - 1


SMALL = [
    Rules(4, 4, (Ship.line("A", "A", 3), Ship.line("B", "B", 2), Ship.line("C", "C", 2))),
    Rules(5, 5, (Ship.line("A", "A", 3), Ship.line("B", "B", 2)), Spacing.NO_EDGE),
    Rules(5, 5, (Ship.line("A", "A", 3), Ship.line("B", "B", 2)), Spacing.NO_CONTACT),
    Rules(4, 4, (Ship("T", "T", ((0, 0), (0, 1), (0, 2), (1, 1))), Ship.line("B", "B", 2)), reflections=True),
]


@pytest.mark.parametrize("rules", SMALL, ids=["touch", "no-edge", "no-contact", "tee"])
def test_uniform_passes_chi_square_over_every_layout(rules):
    stat, df = _chi_square(rules, "uniform", draws=200 * (len(brute_force_layouts(rules))), seed=11)
    assert stat < chi2_upper(df), (stat, df)


def test_sequential_is_measurably_biased():
    rules = SMALL[0]
    stat, df = _chi_square(rules, "sequential", draws=200 * len(brute_force_layouts(rules)), seed=11)
    assert stat > 3 * chi2_upper(df)  # measured: about 7.7 times the 1e-4 critical value


def test_uniform_cell_frequencies_match_exact_occupancy_on_6x6():
    rules = square(6)
    total, per_cell = occupancy(rules)
    exact = (per_cell / total).ravel()
    draws = 1_000_000
    rows = generators.draw(rules, "uniform", 2024, draws)
    cell_list = generators.tables(rules).cell_list
    counts = np.zeros(rules.cells)
    cells = cell_list[rows].ravel()
    np.add.at(counts, cells[cells >= 0], 1)  # rows of cell_list are padded with -1
    freq = counts / draws
    sigma = np.sqrt(exact * (1 - exact) / draws)
    assert np.all(np.abs(freq - exact) < 5 * sigma)


def test_seeded_and_independent_of_batching():
    rules = preset("standard")
    whole = generators.draw(rules, "uniform", 5, 50)
    assert np.array_equal(whole, generators.draw(rules, "uniform", 5, 50))
    parts = np.vstack([generators.draw(rules, "uniform", 5, 10, first=k) for k in range(0, 50, 10)])
    assert np.array_equal(whole, parts)
    assert not np.array_equal(whole, generators.draw(rules, "uniform", 6, 50))


@settings(max_examples=30, deadline=None)
@given(small_rules(), st.sampled_from(["uniform", "sequential"]), st.integers(0, 2**32))
def test_every_generator_makes_valid_layouts(rules, generator, seed):
    for layout in generators.generate(rules, generator, seed, 5):
        assert layout.occupied.bit_count() == rules.ship_cells  # Layout() itself checks the rules


def test_r_blog_keeps_its_off_by_one():
    rules = preset("r-blog")
    rows = generators.draw(rules, "r-blog", 1, 20_000)
    masks = generators.tables(rules).masks
    covered = 0
    last_two_cols = sum(1 << (r * 10 + c) for r in range(10) for c in (8, 9))
    last_two_rows = sum(1 << (r * 10 + c) for r in (8, 9) for c in range(10))
    for row in rows:
        for p in row:
            m = masks[p]
            covered |= m
            horizontal = m.bit_length() - 1 - (m & -m).bit_length() + 1 < 10
            assert not m & (last_two_cols if horizontal else last_two_rows)
    # the bottom-right 2x2 block is never used at all; every other cell is
    corner = (1 << 88) | (1 << 89) | (1 << 98) | (1 << 99)
    assert covered == rules.full & ~corner


def test_r_blog_refuses_rules_it_cannot_play():
    with pytest.raises(RulesError, match="straight ships only"):
        generators.plan(Rules(6, 6, (Ship("T", "T", ((0, 0), (0, 1), (0, 2), (1, 1))),)), "r-blog")
    with pytest.raises(RulesError, match="lets ships touch"):
        generators.plan(preset("pirates"), "r-blog")
    with pytest.raises(RulesError, match="no layout generator named"):
        generators.plan(preset("standard"), "clever")


def test_the_contest_generator_never_reaches_the_last_row_or_column_along_a_ship():
    rules = preset("pirates")
    layouts = generators.generate(rules, "contest", 3, 2000)
    corner = 1 << (rules.cells - 1)  # J10: only a ship ending there could cover it
    assert not any(m & corner for layout in layouts for m in layout.masks)
    for layout in layouts[:200]:  # and every layout keeps the margin
        for i, a in enumerate(layout.masks):
            assert all(not a & rules.halo(b) for b in layout.masks[i + 1 :])
    last_column = sum(1 << (r * rules.cols + rules.cols - 1) for r in range(rules.rows))
    horizontal_in_last_column = [
        m for layout in layouts for m in layout.masks if m & last_column and m & (m << 1)
    ]
    assert horizontal_in_last_column == []


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(small_rules(), brute.tiny_rules()),  # straight ships, and polyominoes with reflections
    st.sampled_from(["uniform", "sequential", "contest", "r-blog"]),
    st.integers(0, 2**64 - 1),
    st.integers(0, 10**9),
    st.integers(1, 4),
)
def test_a_few_layouts_drawn_in_plain_python_are_the_kernels_own(rules, generator, seed, first, count):
    # fewer tries than a user's draw gets: a tightly packed fleet (which draw_few then leaves to the
    # kernel, tested below) would otherwise take seconds of Python for each example
    with mock.patch.object(drawing, "PLAIN_TRIES", 20_000):
        _plain_draw_is_the_kernels(rules, generator, seed, first, count)


def _plain_draw_is_the_kernels(rules, generator: str, seed: int, first: int, count: int) -> None:
    try:
        plain = drawing.draw_few(rules, generator, seed, count, first)
    except RulesError:  # a generator that cannot play these rules: the kernel's draw refuses them too
        with pytest.raises(RulesError):
            generators.draw(rules, generator, seed, count, first=first, threads=False)
        return
    if plain is None:  # a fleet packed too tightly for Python's tries: left to the kernel (and its own)
        return
    assert (
        plain.tolist() == generators.draw(rules, generator, seed, count, first=first, threads=False).tolist()
    )


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(1, 10**6))
def test_the_plain_stream_draws_the_kernels_numbers(seed, index, n):
    kernel = rng.stream(np.uint64(seed), np.uint64(index))
    plain = Stream(seed, index)
    assert [plain.below(n) for _ in range(8)] == [rng.below(kernel, n) for _ in range(8)]


def test_human_like_layouts_and_tightly_packed_fleets_are_left_to_the_kernel(monkeypatch):
    assert drawing.draw_few(preset("standard"), "edge:strength=2", 1, 1) is None
    monkeypatch.setattr(drawing, "PLAIN_TRIES", 3)  # as if the fleet took more tries than Python gives it
    assert drawing.draw_few(preset("standard"), "uniform", 1, 4) is None
