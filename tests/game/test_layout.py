import pytest

from battleship.errors import LayoutError
from battleship.layout import Layout
from battleship.notation import parse_layout
from battleship.rules import preset

STANDARD = preset("standard")
GOOD = "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........."


def test_a_valid_layout_round_trips():
    layout = parse_layout(GOOD, STANDARD)
    assert layout.occupied.bit_count() == 17
    assert layout.ship_at(0) == 0 and layout.ship_at(99) is None


@pytest.mark.parametrize(
    ("masks_of", "message"),
    [
        (lambda m: (m[0], m[0] >> 0, *m[2:]), "not a 4-cell Battleship placement"),
        (lambda m: (m[0], m[0] & 0b1111, *m[2:]), "Carrier and Battleship overlap at A1, A2, A3, A4"),
        (lambda m: (m[0] | 1 << 99, *m[1:]), "not a 5-cell Carrier placement"),
        (lambda m: (m[0] << 100, *m[1:]), "off the 10x10 board"),
        (lambda m: m[:4], "places 4 ships but the fleet has 5"),
    ],
)
def test_bad_layouts_name_the_ships_and_cells(masks_of, message):
    masks = parse_layout(GOOD, STANDARD).masks
    with pytest.raises(LayoutError, match=message):
        Layout(STANDARD, masks_of(masks))


def test_no_contact_spacing_is_enforced():
    pirates = preset("pirates")
    with pytest.raises(LayoutError, match="Carrier at A1, A2, A3, A4, A5 and Battleship at B1"):
        parse_layout(
            "CCCCC...../BBBB....../........../DDD......./........../SSS......./........../PP......../........../..........",
            pirates,
        )
    # the same fleet with a row of water between ships is fine
    assert parse_layout(GOOD, pirates).rules is pirates
