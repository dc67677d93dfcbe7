from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import cells, generate, generators, notation
from battleship.errors import BattleshipError, LayoutError, NotationError
from battleship.game import Game, Observation, play
from battleship.inference.hider import Hider
from battleship.layout import Layout
from battleship.noise import Coins, grid_seed
from battleship.rules import PRESETS, Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from tests.helpers import small_rules


def _game(rules, seed):
    layout = generators.generate(rules, "uniform", seed, 1)[0]
    hider = Hider(rules, seed) if rules.hider is not None else None  # a cheating hider holds no layout
    return play(make("random"), layout, np.random.default_rng(seed), referee=hider)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32))
def test_round_trips_on_games_of_every_preset(name, seed):
    rules = preset(name)
    record = _game(rules, seed)
    layout = record.layout
    assert notation.parse_layout(notation.format_layout(layout), rules) == layout
    assert notation.parse_layout(notation.format_layout(layout, multiline=True), rules) == layout
    assert notation.read_grid(notation.write_grid(layout), rules) == layout
    game = notation.from_record(record)
    back = notation.read_game(notation.write_game(game), rules)
    assert back == game
    assert back.records()[record.shooter] == record
    state = notation.board_state(record.observation)
    assert notation.read_board_state(state.text(), rules) == state
    assert notation.read_board_state(state.text(multiline=True), rules) == state
    board = record.observation.text()
    assert Observation.from_text(board, rules).text() == board
    assert Layout.from_text(layout.text(), rules) == layout


@settings(max_examples=30, deadline=None)
@given(small_rules(), st.integers(0, 2**32))
def test_round_trips_under_any_small_rules(rules, seed):
    record = _game(rules, seed)
    for k in (len(record.shots) // 2, len(record.shots)):
        partial = Observation(rules, record.shots[:k])
        state = notation.board_state(partial)
        assert notation.read_board_state(state.text(), rules) == state
        assert notation.parse_board(state.text(), rules).text() == state.text()


def test_board_state_letters_follow_the_sink_rule():
    layout_text = "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........."
    for name, expect in (("standard", "xP"), ("datagenetics", "DD"), ("pirates", "xx")):
        rules = preset(name)
        text = layout_text.translate(str.maketrans("CBDSP", rules.symbols))
        record = Game(notation.parse_layout(text, rules))
        record.fire(80)
        record.fire(81)
        assert notation.format_board(record.observation).split("/")[8][:2] == expect


def test_paper_coordinates_put_1_1_at_the_bottom_left():
    assert cells.to_xy(90, 10, 10) == (1, 1)
    assert cells.to_xy(9, 10, 10) == (10, 10)
    assert cells.from_xy(3, 7, 10, 10) == 3 * 10 + 2
    assert cells.cell_name(16, 10) == "B7"
    assert cells.parse_cell("b7", 10, 10) == 16
    with pytest.raises(BattleshipError, match="off the 10x10 board"):
        cells.parse_cell("K1", 10, 10)
    with pytest.raises(BattleshipError, match="not a cell name"):
        cells.parse_cell("7B", 10, 10)


def test_reads_the_papers_moves_several_on_a_line():
    rules = preset("standard")
    moves = notation.read_moves("Player 1: (6, 6) Player 2: (6, 6) Player 1: (5, 5)", rules)
    assert moves == [("Player 1", 45), ("Player 2", 45), ("Player 1", 54)]


STANDARD = preset("standard")


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        (
            "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........",
            1,
            100,
            "row 10 of the layout has 9 cells",
        ),
        (
            "CCCCC...../..Z......./BBBB....../........../DDD......./........../SSS......./........../PP......../..........",
            1,
            14,
            "'Z' is not '.'",
        ),
        ("CCCCC.....\n..........\nBBBB......", 3, None, "layout has 3 rows, expected 10"),
        (
            "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../........../..........",
            None,
            None,
            "no Patrol Boat",
        ),
    ],
)
def test_malformed_layouts_say_where(text, line, column, message):
    with pytest.raises(NotationError, match=message) as info:
        notation.parse_layout(text, STANDARD)
    assert (info.value.line, info.value.column) == (line, column)


def test_malformed_board_states_say_where():
    with pytest.raises(NotationError, match="'#' is not allowed here") as info:
        notation.parse_board("........../....#...../" + "........../" * 7 + "..........", STANDARD)
    assert (info.value.line, info.value.column) == (1, 16)
    pirates = preset("pirates")
    with pytest.raises(NotationError, match="no sinks are announced"):
        notation.parse_board("C........./" + "........../" * 8 + "..........", pirates)
    with pytest.raises(NotationError, match="marked sunk twice"):
        notation.parse_board("C....C..../" + "........../" * 8 + "..........", STANDARD)
    data = preset("datagenetics")
    assert data.sinks is Sinks.REVEALED
    with pytest.raises(NotationError, match="not one Destroyer placement"):
        notation.parse_board("D.D......./" + "........../" * 8 + "..........", data)


def test_malformed_games_say_where():
    record = _game(STANDARD, 1)
    text = notation.write_game(notation.from_record(record))
    lines = text.split("\n")
    bad = "\n".join([*lines[:3], lines[3].replace("[]", "[7]", 1), *lines[4:]])
    with pytest.raises(NotationError, match="ship number 7 does not exist") as info:
        notation.read_game(bad, STANDARD)
    assert info.value.line == 4
    repeat = text + lines[13] + "\n"  # the first move again (after the rules line, players and grid)
    with pytest.raises(NotationError, match=r"game is over|fired at already"):
        notation.read_game(repeat, STANDARD)
    with pytest.raises(NotationError, match=r"expected a move like 'Player 1: \(3, 7\)'") as info:
        notation.read_game(text.replace(": (", " (", 1), STANDARD)
    with pytest.raises(NotationError, match=r"\(11, 1\) is off the 10x10 board"):
        notation.read_game(text + "random: (11, 1)\n", STANDARD)
    with pytest.raises(NotationError, match="expected a player's name"):
        notation.read_game("Player 1\n", STANDARD)


def test_grid_with_broken_layout_names_the_ships():
    grid = "\n".join(["[0][0][0][0][0][1][1][1][1][]"] + ["[][][][][][][][][][]"] * 9)
    with pytest.raises(NotationError, match="no ship 2"):
        notation.read_grid(grid, STANDARD)
    grid = "\n".join(
        [
            "[0][0][0][0][0][][][][][]",
            "[1][1][1][1][][][][][][]",
            "[2][2][2][][][][][][][]",
            "[3][3][3][][][][][][][]",
            "[4][4][4][][][][][][][]",
        ]
        + ["[][][][][][][][][][]"] * 5
    )
    with pytest.raises(LayoutError, match="Patrol Boat"):
        notation.read_grid(grid, STANDARD)


def test_a_file_of_several_games_with_comments_reads_game_by_game():
    rules = preset("standard")
    records = [_game(rules, seed) for seed in (1, 2, 3)]
    text = "# three games\n\n" + "\n".join(
        notation.write_game(notation.from_record(r)) + "# the board at the end, as a comment\n"
        for r in records
    )
    games = notation.read_games(text, rules)
    assert [g.records()["random"] for g in games] == records
    with pytest.raises(NotationError, match="holds 3 games"):
        notation.read_game(text, rules)
    with pytest.raises(NotationError, match="no game found"):
        notation.read_games("# only a comment\n\n", rules)


CUSTOM = Rules(
    5,
    6,
    (Ship("Ell", "L", ((0, 0), (1, 0), (1, 1))), Ship.line("Boat", "B", 2), Ship.line("Skiff", "K", 1)),
    Spacing.NO_EDGE,
    Sinks.SUNK,
    name='custom "ell" rules',
)


@pytest.mark.parametrize("rules", [*(preset(name) for name in sorted(PRESETS)), CUSTOM], ids=lambda r: r.name)
def test_a_game_file_carries_its_rules(rules):
    record = _game(rules, 3)
    text = notation.write_game(notation.from_record(record))
    assert notation.carried_rules(text) == rules
    back = notation.read_game(text)  # no rules given: the file's own
    assert back.rules == rules and back.records()[record.shooter] == record
    assert notation.read_game(text, rules) == back  # the same rules given: the same game
    if rules != STANDARD:
        with pytest.raises(NotationError, match=f"played under {rules.name}"):
            notation.read_game(text, STANDARD)


def test_a_preset_is_written_by_name_and_other_rules_as_toml():
    assert notation.write_rules(preset("pirates")) == "# rules: pirates\n"
    assert notation.write_rules(preset("square-7")) == "# rules: square-7\n"
    borrowed = replace(preset("pirates"), sinks=Sinks.NAMED)  # a custom set that kept the name
    header = notation.write_rules(borrowed)
    assert header.startswith("# rules:\n# | ") and 'sinks = "named"' in header
    assert notation.carried_rules(header) == borrowed


def test_a_file_without_rules_reads_as_standard_or_as_told():
    record = _game(STANDARD, 4)
    text = "".join(
        line + "\n"
        for line in notation.write_game(notation.from_record(record)).splitlines()
        if not line.startswith("# rules")
    )
    assert notation.carried_rules(text) is None
    assert notation.read_game(text).rules == STANDARD
    assert notation.game_rules(text, preset("r-blog")) == preset("r-blog")


def test_a_bad_rules_header_says_where():
    with pytest.raises(NotationError, match="no preset named 'nope'") as info:
        notation.read_games("# a comment\n# rules: nope\n[a]\n[b]\n")
    assert info.value.line == 2
    with pytest.raises(NotationError, match="no '# \\|' TOML lines follow"):
        notation.read_games("# rules:\n[a]\n[b]\n")
    with pytest.raises(NotationError, match="rows must be a whole number"):
        notation.read_games('# rules:\n# | rows = "ten"\n[a]\n[b]\n')


# --- salvos: a turn is one line, the player then every cell fired together ---------------------

SALVO_PRESETS = [name for name in sorted(PRESETS) if preset(name).salvo is not None]


@st.composite
def salvo_rules(draw) -> Rules:
    """Small rules with a custom salvo: any size, answer and sink rule."""
    from battleship.rules import Answers, Salvo

    rules = draw(small_rules(max_side=5, max_ships=3))
    shots = draw(st.one_of(st.integers(1, 4), st.sampled_from(["afloat", "afloat-cells"])))
    answers = draw(st.sampled_from(list(Answers)))
    return replace(rules, salvo=Salvo(shots, answers), name="custom salvo")


def _salvo_round_trip(record):
    rules = record.layout.rules
    game = notation.from_record(record)
    text = notation.write_game(game)
    back = notation.read_game(text)
    assert back == game and back.rules == rules
    again = back.records()[record.shooter]
    assert again == record
    assert again.turns == record.turns and again.fired == record.fired
    return text


@settings(max_examples=20, deadline=None)
@given(st.one_of(st.sampled_from(SALVO_PRESETS).map(preset), salvo_rules()), st.integers(0, 2**32))
def test_salvo_games_round_trip_a_turn_a_line(rules, seed):
    record = _game(rules, seed)
    text = _salvo_round_trip(record)
    turns = [line for line in text.splitlines() if line.startswith(f"{record.shooter}:")]
    assert len(turns) == record.turns  # one line a salvo
    assert [line.count("(") for line in turns] == [len(v.cells) for v in record.volleys]


def test_a_salvo_line_lists_its_cells_in_the_order_fired():
    rules = preset("salvo-count")
    record = _game(rules, 5)
    first = record.volleys[0].cells
    line = notation.write_game(notation.from_record(record)).split("\n")[13]
    expected = " ".join("({}, {})".format(*cells.to_xy(c, 10, 10)) for c in first)
    assert line == f"random: {expected}"
    assert notation.read_salvos(line, rules) == [("random", first)]
    # a named move starts the next turn, on the same line or the next
    assert notation.read_salvos("a: (1, 1) (2, 1) b: (3, 3)\n(4, 4)", rules) == [
        ("a", (90, 91)),
        ("b", (72, 63)),
    ]


def test_bad_salvo_turns_say_where_and_why():
    rules = preset("salvo")
    record = _game(rules, 2)
    text = notation.write_game(notation.from_record(record))
    lines = text.split("\n")
    short = "\n".join([*lines[:13], lines[13].rsplit(" (", 1)[0], *lines[14:]])
    with pytest.raises(NotationError, match=r"turn 1 \(random: .*\): this turn fires 5 shots, not 4"):
        notation.read_game(short)
    with pytest.raises(NotationError, match="expected a turn like 'Player 1: \\(3, 7\\) \\(4, 7\\)'") as info:
        notation.read_salvos("(1, 1) (2, 2)", rules)
    assert (info.value.line, info.value.column) == (1, 1)
    repeated = lines[13] + " " + lines[13].split(": ", 1)[1].split(") ")[0] + ")"
    with pytest.raises(NotationError, match=r"in the salvo twice|this turn fires"):
        notation.read_game("\n".join([*lines[:13], repeated, *lines[14:]]))
    # one-shot rules keep reading one cell a move: a second cell without a name is refused as before
    standard = notation.write_game(notation.from_record(_game(STANDARD, 2))).split("\n")
    with pytest.raises(NotationError, match=r"expected a move like 'Player 1: \(3, 7\)'"):
        notation.read_game("\n".join([*standard[:13], standard[13] + " (1, 1)", *standard[14:]]))


def test_a_two_sided_salvo_game_fires_at_most_a_full_salvo():
    rules = preset("salvo")
    a, b = (generators.generate(rules, "uniform", seed, 1)[0] for seed in (1, 2))
    free = [c for c in range(rules.cells) if not a.occupied >> c & 1][:6]
    game = notation.PaperGame(rules, (("A", a), ("B", b)), salvos=(("A", tuple(free[:3])),))
    assert notation.read_game(notation.write_game(game)) == game  # a short salvo: ships lost cost shots
    assert game.records()["A"].fired == 3
    too_many = notation.PaperGame(rules, (("A", a), ("B", b)), salvos=(("A", tuple(free)),))
    with pytest.raises(NotationError, match="a turn fires at most 5 shots"):
        too_many.records()


def test_a_paper_game_built_from_moves_alone_fires_one_cell_a_turn():
    rules = preset("hits-named")
    record = _game(rules, 9)
    flat = notation.PaperGame(
        rules, ((record.shooter, None), ("target", record.layout)), notation.from_record(record).moves
    )
    assert flat == notation.from_record(record)
    assert flat.records()[record.shooter] == record
    with pytest.raises(NotationError, match="one shot a turn"):
        notation.PaperGame(STANDARD, (("A", None), ("B", None)), salvos=(("A", (1, 2)),))


def test_each_grid_of_a_two_sided_noisy_game_has_coins_of_its_own():
    rules = preset("noisy")
    first, second = generate(rules, seed=1), generate(rules, seed=2)
    cells = list(range(40))
    moves = tuple(move for c in cells for move in (("A", c), ("B", c)))
    text = notation.write_game(notation.PaperGame(rules, (("A", first), ("B", second)), moves, coins=77))
    records = notation.read_game(text).records()
    # the second grid (a one-sided game's target) answers by the record's coins, the first by its own
    for name, layout, seed in (("A", second, 77), ("B", first, grid_seed(77, 0))):
        referee = Game(layout, seed=seed)
        assert [referee.fire(c) for c in cells] == list(records[name].shots)
    # were the coins shared, the answers about a player's own fleet would tell which of theirs lie
    first_coins, second_coins = Coins(grid_seed(77, 0)), Coins(77)
    assert [first_coins.flips(c, 0, 0.3) for c in range(100)] != [
        second_coins.flips(c, 0, 0.3) for c in range(100)
    ]
