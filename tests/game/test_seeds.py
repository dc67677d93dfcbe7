"""Seeds outside what the random streams use are refused at the Python front door, as on the command line."""

import pytest

import battleship as bs
from battleship.rng import SEED_MAX, check_seed


@pytest.mark.parametrize("seed", [-1, SEED_MAX + 1, 10**30])
def test_a_seed_outside_64_bits_is_refused_by_every_seeded_call(seed):
    calls = [
        lambda: bs.generate("square-5", seed=seed),
        lambda: bs.play(bs.generate("square-5", seed=1), "random", seed=seed),
        lambda: bs.simulate("square-5", "random", games=2, seed=seed),
        lambda: bs.compare("square-5", ["random", "hunt-target"], games=2, seed=seed),
        lambda: bs.match("square-5", "random", "hunt-target", games=2, seed=seed),
    ]
    for call in calls:
        with pytest.raises(bs.BattleshipError, match=r"seed runs from 0 to 2\^64 - 1"):
            call()


@pytest.mark.parametrize("seed", [True, 1.5, "7", None])
def test_a_seed_that_is_not_a_whole_number_is_refused(seed):
    with pytest.raises(bs.BattleshipError, match="seed is a whole number"):
        check_seed(seed)


def test_the_largest_seed_is_taken_and_differs_from_zero():
    top = bs.generate("square-6", seed=SEED_MAX)
    assert top == bs.generate("square-6", seed=SEED_MAX)
    assert check_seed(SEED_MAX) == SEED_MAX and check_seed(0) == 0
