from hypothesis import given, settings

from battleship.count import count_by_enumeration, enumerate_layouts
from battleship.rules import Rules, Ship, square
from tests.conftest import brute_force_layouts, small_rules


@settings(max_examples=40, deadline=None)
@given(small_rules(max_side=5, max_ships=3))
def test_enumeration_matches_brute_force(rules):
    layouts = brute_force_layouts(rules)
    total, per_cell = enumerate_layouts(rules)
    assert total == len(layouts)
    expected = [0] * rules.cells
    for layout in layouts:
        for mask in layout:
            for cell in range(rules.cells):
                expected[cell] += mask >> cell & 1
    assert per_cell.ravel().tolist() == expected


def test_identical_ships_counted_once_when_asked():
    r = Rules(5, 5, (Ship.line("A", "A", 3), Ship.line("B", "B", 2), Ship.line("C", "C", 2)))
    assert count_by_enumeration(r) == 2 * count_by_enumeration(r, distinct=False)
    six = square(6)
    assert count_by_enumeration(six) == 2 * count_by_enumeration(six, distinct=False)
