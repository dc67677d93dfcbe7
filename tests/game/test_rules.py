import pytest

from battleship import rules as R
from battleship import shapes
from battleship.errors import RulesError
from battleship.rules import Rules, Ship, Sinks, Spacing


def test_standard_preset_matches_the_1990_rules():
    r = R.preset("standard")
    assert (r.rows, r.cols) == (10, 10)
    assert [(s.name, s.symbol, s.size) for s in r.fleet] == [
        ("Carrier", "C", 5),
        ("Battleship", "B", 4),
        ("Destroyer", "D", 3),
        ("Submarine", "S", 3),
        ("Patrol Boat", "P", 2),
    ]
    assert r.spacing is Spacing.TOUCH and r.sinks is Sinks.NAMED
    # a straight ship of length L has 2 * 10 * (11 - L) placements on 10x10
    assert [len(p) for p in r.placements] == [120, 140, 160, 160, 180]


def test_presets_of_each_document():
    assert R.preset("datagenetics").sinks is Sinks.REVEALED
    assert R.preset("datagenetics").fleet[0].name == "Aircraft Carrier"
    pirates = R.preset("pirates")
    assert pirates.spacing is Spacing.NO_CONTACT and pirates.sinks is Sinks.NONE
    for n in range(6, 16):
        sq = R.preset(f"square-{n}")
        assert (sq.rows, sq.cols, sq.ship_cells) == (n, n, 17)


def test_sea_battle_preset_has_the_russian_fleet():
    r = R.preset("seabattle")
    assert sorted((s.size for s in r.fleet), reverse=True) == [4, 3, 3, 2, 2, 2, 1, 1, 1, 1]
    assert r.spacing is Spacing.NO_CONTACT and r.sinks is Sinks.NAMED


SEA_BATTLE_TOML = """
spacing = "no-contact"
[[ship]]
name = "Battleship"
symbol = "B"
length = 4
[[ship]]
name = "Cruiser"
symbol = "CD"
length = 3
count = 2
[[ship]]
name = "Destroyer"
symbol = "EFG"
length = 2
count = 3
[[ship]]
name = "Torpedo Boat"
symbol = "HIJK"
length = 1
count = 4
"""


def test_a_ship_count_makes_a_fleet_in_a_few_lines():
    r = R.from_toml(SEA_BATTLE_TOML, source="sea.toml")
    assert r.fleet == R.preset("seabattle").fleet
    assert [s.name for s in r.fleet][-4:] == [f"Torpedo Boat {i}" for i in range(1, 5)]
    assert R.from_toml(r.to_toml()) == r


@pytest.mark.parametrize(
    "change, message",
    [
        ('symbol = "HIJK"', "count = 4 needs 4 symbols"),
        ("count = 4", "count must be a whole number of at least 1, not 0"),
    ],
)
def test_a_bad_ship_count_says_what_and_where(change, message):
    text = SEA_BATTLE_TOML.replace(
        change, {'symbol = "HIJK"': 'symbol = "H"', "count = 4": "count = 0"}[change]
    )
    with pytest.raises(RulesError, match=message) as info:
        R.from_toml(text, source="sea.toml")
    assert "sea.toml: ship #4 (Torpedo Boat)" in str(info.value)


def test_unknown_preset_lists_the_choices():
    with pytest.raises(RulesError, match="choose one of standard"):
        R.preset("nope")


def test_polyomino_orientations():
    tee = shapes.parse("###/.#.")
    assert len(shapes.orientations(tee, reflections=False)) == 4
    ell = shapes.parse("#../###")
    assert len(shapes.orientations(ell, reflections=False)) == 4
    assert len(shapes.orientations(ell, reflections=True)) == 8
    square = shapes.parse("##/##")
    assert len(shapes.orientations(square, reflections=True)) == 1
    # a T on 4x4: 4 orientations, each with a 2x3 or 3x2 box that fits in 3*2 places
    assert len(shapes.placements(tee, 4, 4, False)) == 24
    assert len(shapes.placements(shapes.line(1), 3, 3, True)) == 9


@pytest.mark.parametrize("name", list(R.PRESETS))
def test_toml_round_trip_of_every_preset(name):
    r = R.preset(name)
    back = R.from_toml(r.to_toml())
    assert back == r and back.name == r.name


def test_toml_with_tetrominoes(tmp_path):
    text = """
name = "tetris"
rows = 8
cols = 8
spacing = "no-edge"
sinks = "revealed"
reflections = true
[[ship]]
name = "Tee"
symbol = "T"
shape = "###/.#."
[[ship]]
name = "Ell"
symbol = "L"
cells = [[0, 0], [1, 0], [2, 0], [2, 1]]
[[ship]]
name = "Line"
symbol = "I"
length = 4
"""
    path = tmp_path / "tetris.toml"
    path.write_text(text)
    r = R.load(str(path))
    assert r.fleet[0].size == 4 and not r.fleet[0].is_straight
    assert len(r.placements[1]) == 8 * 6 * 7  # 8 orientations of an L, 6x7 anchors each
    assert R.from_toml(r.to_toml()) == r


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rows = 3\ncols = 3\n[[ship]]\nname='Long'\nsymbol='L'\nlength=4", "does not fit on a 3x3"),
        (
            "rows = 2\ncols = 2\n[[ship]]\nname='A'\nsymbol='A'\nlength=2\n[[ship]]\nname='B'\nsymbol='B'\nlength=2\n"
            "[[ship]]\nname='C'\nsymbol='C'\nlength=1",
            "has 5 cells but the 2x2 board has only 4",
        ),
        (
            "rows = 3\ncols = 3\nspacing='no-contact'\n[[ship]]\nname='A'\nsymbol='A'\nlength=3\n"
            "[[ship]]\nname='B'\nsymbol='B'\nlength=3\n[[ship]]\nname='C'\nsymbol='C'\nlength=1",
            "cannot fit under spacing no-contact",
        ),
        (
            "rows = 3\ncols = 4\nspacing='no-edge'\n[[ship]]\nname='A'\nsymbol='A'\nlength=4\n"
            "[[ship]]\nname='B'\nsymbol='B'\nlength=4\n[[ship]]\nname='C'\nsymbol='C'\nlength=4",
            "no layout",
        ),
        ("sinks = 'loud'\n[[ship]]\nname='A'\nsymbol='A'\nlength=2", "sinks 'loud' is not one of"),
        ("colour = 1", "unknown key 'colour'"),
        ("[[ship]]\nname='A'\nsymbol='a'\nlength=2", "one capital letter"),
        ("[[ship]]\nname='A'\nsymbol='A'\nshape='#.#'", "not joined edge to edge"),
        (
            "[[ship]]\nname='A'\nsymbol='A'\nlength=2\n[[ship]]\nname='B'\nsymbol='A'\nlength=2",
            "share the symbol",
        ),
        ("rows = 0\n[[ship]]\nname='A'\nsymbol='A'\nlength=1", "rows must be a whole number"),
        ("rows = ", "not valid TOML"),
        ("", "the fleet is empty"),
    ],
)
def test_bad_rules_files_say_why(text, message):
    with pytest.raises(RulesError, match=message):
        R.from_toml(text, source="my.toml")


def test_missing_rules_file_is_a_clear_error():
    with pytest.raises(RulesError, match="cannot read rules file"):
        R.load("/nonexistent/rules.toml")


def test_halo_follows_spacing():
    ship = (Ship.line("A", "A", 1),)
    centre = 1 << 4  # the middle of a 3x3 board
    assert Rules(3, 3, ship).halo(centre) == centre
    assert bin(Rules(3, 3, ship, Spacing.NO_EDGE).halo(centre)).count("1") == 5
    assert bin(Rules(3, 3, ship, Spacing.NO_CONTACT).halo(centre)).count("1") == 9
