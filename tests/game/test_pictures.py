"""Notebooks and terminals: short reprs, and boards, records and heat maps drawn as SVG."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import battleship as bs
from battleship.game import Game, Observation, Outcome, Record
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.svg import VIRIDIS, grid_svg, heat_colour

SVG = "{http://www.w3.org/2000/svg}"
LINE = "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........."


def _cells(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == f"{SVG}svg"
    return [e for e in root.iter(f"{SVG}rect") if e.get("class") == "cell"]


def _glyphs(svg: str) -> list[str]:
    """The marks drawn in the cells (not the row letters and column numbers)."""
    return [t.text for t in ET.fromstring(svg).iter(f"{SVG}text") if t.get("font-weight") == "bold"]


def _game(rules_name: str = "standard") -> Game:
    rules = preset(rules_name)
    game = Game(bs.Layout.from_text(LINE, rules))
    for target in ("A1", "B1", "A2", "A3", "A4", "A5", "J10"):
        game.fire(target)
    return game


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (3, 7), (10, 10), (12, 5)])
def test_one_rect_per_cell_on_any_board(rows, cols):
    fleet = (Ship.line("Destroyer", "D", 1),)
    rules = Rules(rows, cols, fleet, Spacing.TOUCH, Sinks.NAMED)
    layout = bs.Layout(rules, (1,))
    observation = Observation(rules)
    for svg in (layout._repr_svg_(), observation._repr_svg_()):
        cells = _cells(svg)
        assert len(cells) == rows * cols
        # each cell's tooltip names it, in reading order
        names = [c.find(f"{SVG}title").text for c in cells]
        assert names == [bs.cell_name(i, rules) for i in range(rows * cols)]


def test_a_board_shows_what_the_shooter_saw():
    game = _game()
    svg = game.observation._repr_svg_()
    cells = _cells(svg)
    assert len(cells) == 100
    texts = _glyphs(svg)
    assert texts.count("C") == 1  # the carrier sunk, its letter on the sinking cell (named rules)
    assert texts.count("\u00d7") == 4  # the carrier's other hits
    assert texts.count("\u2022") == 2  # B1 and J10 missed
    assert game._repr_svg_() == svg  # the referee shows only what the shooter saw


def test_a_record_shows_the_hidden_ships_and_the_shots():
    layout = bs.Layout.from_text(LINE, preset("standard"))
    record = Record(layout, "me", _game().observation.shots)
    svg = record._repr_svg_()
    assert len(_cells(svg)) == 100
    texts = _glyphs(svg)
    assert texts.count("P") == 2 and texts.count("C") == 5  # every ship, hit or not
    assert texts.count("\u2022") == 2
    assert "me: 7 shots" in [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_the_heat_map_colours_unknown_cells_and_draws_its_scale():
    grid = [[".", "o"], ["x", "."]]
    svg = grid_svg(grid, heat=[[0.5, 0.0], [1.0, 0.25]], framed=frozenset({0}))
    root = ET.fromstring(svg)
    cells = _cells(svg)
    assert cells[0].get("fill") == VIRIDIS[-1]  # the highest unknown cell: the top colour
    assert cells[3].get("fill") == heat_colour(0.25, 0.5)
    assert cells[3].find(f"{SVG}title").text == "B2: 25.0%"
    assert [e.get("class") for e in root.iter(f"{SVG}rect")].count("scale") == 1
    assert [e.get("class") for e in root.iter(f"{SVG}rect")].count("frame") == 1
    assert "50%" in [t.text for t in root.iter(f"{SVG}text")]


def test_heat_colours_run_from_the_first_to_the_last_viridis_colour():
    assert heat_colour(0.0, 0.4) == VIRIDIS[0] and heat_colour(0.4, 0.4) == VIRIDIS[-1]
    assert heat_colour(0.3, 0.0) == VIRIDIS[0]
    steps = [VIRIDIS.index(heat_colour(v, 1.0)) for v in np.linspace(0, 1, 50)]
    assert steps == sorted(steps)


def test_names_and_titles_are_escaped():
    svg = grid_svg([["."]], title="<b> & 'quoted'")
    assert "&lt;b&gt; &amp;" in svg
    ET.fromstring(svg)


def test_reprs_are_short_and_say_what_matters():
    rules = preset("standard")
    game = _game()
    layout = bs.Layout.from_text(LINE, rules)
    record = Record(layout, "density", game.observation.shots)
    shown = {
        "rules": repr(rules),
        "layout": repr(layout),
        "observation": repr(game.observation),
        "game": repr(game),
        "record": repr(record),
    }
    assert all(len(text) < 160 for text in shown.values()), shown
    assert shown["rules"] == "<Rules standard: 10x10, fleet C5 B4 D3 S3 P2, spacing touch, sinks named>"
    assert shown["layout"] == "<Layout standard 10x10: C A1-A5, B C1-C4, D E1-E3, S G1-G3, P I1-I2>"
    assert "7 shots (5 hit, 1 sunk), the last J10 miss" in shown["observation"]
    assert "stopped in 7 shots" in shown["record"]
    finished = bs.play(layout, "density", seed=1)
    assert (
        repr(finished) == f"<Record density on standard 10x10: sank the fleet in {len(finished.shots)} shots>"
    )
    assert all(s.outcome is not Outcome.MISS for s in finished.shots if layout.ship_at(s.cell) is not None)


def test_shots_shooters_and_counts_of_one_read_as_a_person_writes_them():
    game = Game(bs.Layout.from_text(LINE, preset("standard")))
    assert repr(game.fire("E5")) == "E5 miss"
    assert repr(game.fire("A1")) == "A1 hit"
    assert [repr(game.fire(c)) for c in ("I1", "I2")] == ["I1 hit", "I2 sunk (ship 4)"]
    assert repr(bs.make("density", skew=20)) == "<Shooter density:skew=20>"
    assert repr(bs.make("density:tie=centre,skew=20")) == "<Shooter density:tie=centre,skew=20>"
    assert repr(bs.make("random")) == "<Shooter random>"
    one = Game(bs.Layout.from_text(LINE, preset("standard")))
    one.fire("E5")
    assert "1 shot:" in repr(bs.posterior(one.observation)) and "1 shots" not in repr(one.observation)
    assert "P(ship), 1 shot<" in bs.posterior(one.observation)._repr_svg_()
    record = Record(bs.Layout.from_text(LINE, preset("standard")), "me", one.observation.shots)
    assert repr(record).endswith("stopped in 1 shot>")
    salvo = Game(bs.generate("salvo", seed=7))
    salvo.fire(["A1", "C3", "E5", "G7", "J10"])
    assert "1 salvo of 5 shots" in repr(salvo.observation)


def _luminance(colour: str) -> float:
    """WCAG's relative luminance of ``#RRGGBB`` (or the names the pictures use)."""
    colour = {"white": "#FFFFFF", "black": "#000000"}.get(colour, colour)
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_picture_paints_its_background_and_colours_its_text():
    """Readable on a light notebook and a dark one: nothing is left to the page's colours. Labels and
    figures stand on the picture's own background at WCAG's 4.5:1; a cell's glyph on its cell at 3:1
    (bold and large)."""
    game = _game()
    result = bs.posterior(game.observation)
    record = Record(bs.Layout.from_text(LINE, preset("standard")), "me", game.observation.shots)
    for svg in (result._repr_svg_(), game.observation._repr_svg_(), record._repr_svg_()):
        root = ET.fromstring(svg)
        background = root.find(f"{SVG}rect")
        assert background.get("class") == "background" and background.get("width") == root.get("width")
        paper = background.get("fill")
        fills = {(c.get("x"), c.get("y")): c.get("fill") for c in _cells(svg)}
        for text in root.iter(f"{SVG}text"):
            ink = text.get("fill")
            assert ink, f"{text.text!r} has no colour of its own"
            if text.get("font-weight") == "bold":  # a glyph, on the cell under it
                x, y = float(text.get("x")) - 12, float(text.get("y")) - 16
                under = next(f for (cx, cy), f in fills.items() if float(cx) == x and float(cy) == y)
                assert _contrast(ink, under) >= 3, (text.text, ink, under)
            else:
                assert _contrast(ink, paper) >= 4.5, (text.text, ink, paper)
