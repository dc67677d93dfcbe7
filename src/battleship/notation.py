"""Text formats: layouts and board states (one line, like chess's FEN), and the Dunman High paper's notation.

Layout: rows top to bottom joined by ``/``, one character per cell: ``.`` water or a ship's letter.
Board state (what a shooter has seen): ``.`` unknown, ``o`` miss, ``x`` hit, and for a sunk ship
its letter (``named`` rules: only on the cell whose shot sank it; ``revealed``: on all its cells)
or ``#`` under ``sunk`` rules, where no name is given. Either may be spread over several lines, one
row a line. Each is its value type's own text (:meth:`~battleship.layout.Layout.from_text`, :meth:`~battleship.game.Observation.from_text`,
written in :mod:`battleship.layout` and :mod:`battleship.game`, which import nothing from here);
the functions below read and write them under their usual names.

The Dunman High paper's notation: a grid is rows of ``[]`` (water) and ``[n]`` (ship number n,
from 0 in fleet order), top row first; a move is ``<player>: (x, y)`` with ``(1, 1)`` the bottom-left
cell; a game is ``[<player>]`` and that player's grid for each player, then the moves. Under salvo rules a turn is one
line, the player then every cell of the salvo in the order fired: ``A: (1, 2) (3, 4)``. A file may hold
several games one after another; lines starting with ``#`` are comments (what ``battleship play``
prints after the moves), and blank lines are ignored.

A game file carries its rules in a comment at its top, so that any reader plays it back under them:
``# rules: pirates`` for a preset, or ``# rules:`` followed by the rules' TOML, one line per ``# |``
line, for any other rules. A file without that line reads as the standard rules (:func:`carried_rules`
says whether it has one). Readers of older files keep working: the header is a comment.

Every format here is read back by the function that writes it: ``parse_layout(format_layout(x))``,
``parse_board(format_board(x))`` and ``read_games(write_game(x))`` give back what was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from battleship.cells import from_xy, iter_cells, to_xy
from battleship.errors import BattleshipError, IllegalShot, NotationError

# the board-state text lives with Observation (battleship.game); these names are read here as before
from battleship.game import BoardState as BoardState
from battleship.game import Game, Record
from battleship.game import board_state as board_state
from battleship.game import format_board as format_board
from battleship.game import parse_board as parse_board
from battleship.game import read_board_state as read_board_state
from battleship.layout import Layout
from battleship.noise import grid_seed
from battleship.rules import PRESETS, Rules, from_toml, preset

# --- the layout and board-state texts (they live with their value types) -------------------------


def parse_layout(text: str, rules: Rules) -> Layout:
    """Read a layout in the one-line (or one-row-a-line) format (:meth:`~battleship.layout.Layout.from_text`)."""
    return Layout.from_text(text, rules)


def format_layout(layout: Layout, multiline: bool = False) -> str:
    """A layout in the one-line format (or one row a line)."""
    return layout.text(multiline)


# --- the Dunman High paper's grid, move and game notation ---------------------------------------------------------

_CELL = re.compile(r"\s*\[\s*(\d*)\s*\]")
# a player's name may hold ':' (shooters are named by their spec, ``density:skew=20``): the name ends
# at the first ':' that an ``(x, y)`` follows
_MOVE = re.compile(r"\s*([^\[\]\n]+?)\s*:\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_PLAYER = re.compile(r"^\s*\[([^\[\]]+)\]\s*$")
# under salvo rules, a further cell of the salvo a named move began: ``(3, 4)`` after ``A: (1, 2)``
_MORE = re.compile(r"\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)")


def write_grid(layout: Layout) -> str:
    """The Dunman High paper's grid notation: ``[n]`` for ship number n (from 0), ``[]`` for water, top row first."""
    rules = layout.rules
    ids = [[""] * rules.cols for _ in range(rules.rows)]
    for i, mask in enumerate(layout.masks):
        for cell in iter_cells(mask):
            ids[cell // rules.cols][cell % rules.cols] = str(i)
    return "\n".join("".join(f"[{v}]" for v in row) for row in ids)


def read_grid(text: str, rules: Rules, first_line: int = 1) -> Layout:
    """Read the Dunman High paper's grid notation (rows of ``[]`` and ``[n]``, top row first)."""
    lines = [(n, line) for n, line in enumerate(text.split("\n"), first_line) if line.strip()]
    if len(lines) != rules.rows:
        raise NotationError(
            f"the grid has {len(lines)} rows, expected {rules.rows}",
            lines[-1][0] if lines else first_line,
        )
    masks = [0] * len(rules.fleet)
    for r, (n, line) in enumerate(lines):
        pos, c = 0, 0
        while pos < len(line.rstrip()):
            match = _CELL.match(line, pos)
            if not match:
                raise NotationError("expected a cell, '[]' for water or '[n]' for ship n", n, pos + 1)
            if c >= rules.cols:
                raise NotationError(f"row has more than {rules.cols} cells", n, pos + 1)
            if match.group(1):
                ship = int(match.group(1))
                if ship >= len(rules.fleet):
                    raise NotationError(
                        f"ship number {ship} does not exist: the fleet has ships 0..{len(rules.fleet) - 1}",
                        n,
                        match.start(1) + 1,
                    )
                masks[ship] |= 1 << (r * rules.cols + c)
            pos, c = match.end(), c + 1
        if c != rules.cols:
            raise NotationError(f"row has {c} cells, expected {rules.cols}", n, 1)
    for i, (fleet_ship, mask) in enumerate(zip(rules.fleet, masks, strict=True)):
        if not mask:
            raise NotationError(f"the grid has no ship {i} ({fleet_ship.name})", lines[0][0])
    return Layout(rules, tuple(masks))


def write_move(player: str, cell: int, rules: Rules) -> str:
    """The Dunman High paper's move notation: ``Player 1: (3, 7)``."""
    x, y = to_xy(cell, rules.rows, rules.cols)
    return f"{player}: ({x}, {y})"


def write_salvo(player: str, cells: tuple[int, ...], rules: Rules) -> str:
    """One turn of a salvo game: ``Player 1: (3, 7) (4, 7) (5, 7)``, the cells in the order fired."""
    return f"{player}: " + " ".join("({}, {})".format(*to_xy(cell, rules.rows, rules.cols)) for cell in cells)


def read_salvos(text: str, rules: Rules, first_line: int = 1) -> list[tuple[str, tuple[int, ...]]]:
    """Read salvo turns as ``(player, cells)``: a named move starts a turn and the cells after it without a
    name (``A: (1, 2) (3, 4)``) belong to it; ``#`` lines are comments."""
    turns: list[tuple[str, list[int]]] = []
    for n, line in enumerate(text.split("\n"), first_line):
        if _is_comment(line):
            continue
        pos = 0
        while pos < len(line.rstrip()):
            more = _MORE.match(line, pos)
            match = more or _MOVE.match(line, pos)
            if not match or (more and not turns):
                raise NotationError("expected a turn like 'Player 1: (3, 7) (4, 7)'", n, pos + 1)
            x, y = (
                (int(match.group(1)), int(match.group(2)))
                if more
                else (int(match.group(2)), int(match.group(3)))
            )
            try:
                cell = from_xy(x, y, rules.rows, rules.cols)
            except BattleshipError as exc:
                raise NotationError(str(exc), n, match.start(1 if more else 2) + 1) from None
            if more:
                turns[-1][1].append(cell)
            else:
                turns.append((match.group(1), [cell]))
            pos = match.end()
    return [(player, tuple(cells)) for player, cells in turns]


def read_moves(text: str, rules: Rules, first_line: int = 1) -> list[tuple[str, int]]:
    """Read moves (any number on a line) as ``(player, cell)``; ``#`` lines are comments."""
    moves = []
    for n, line in enumerate(text.split("\n"), first_line):
        if _is_comment(line):
            continue
        pos = 0
        while pos < len(line.rstrip()):
            match = _MOVE.match(line, pos)
            if not match:
                raise NotationError("expected a move like 'Player 1: (3, 7)'", n, pos + 1)
            x, y = int(match.group(2)), int(match.group(3))
            try:
                cell = from_xy(x, y, rules.rows, rules.cols)
            except BattleshipError as exc:
                raise NotationError(str(exc), n, match.start(2) + 1) from None
            moves.append((match.group(1), cell))
            pos = match.end()
    return moves


@dataclass(frozen=True)
class PaperGame:
    """A game in the Dunman High paper's notation: players with their grids (None for a player who only
    shoots) and the moves in order.

    Under salvo rules ``salvos`` holds the turns, ``(player, cells)`` each (``moves`` is every cell of
    them in order, as one-shot readers expect); given only ``moves``, each move is a turn of one shot.
    """

    rules: Rules
    players: tuple[tuple[str, Layout | None], ...]
    moves: tuple[tuple[str, int], ...] = ()
    salvos: tuple[tuple[str, tuple[int, ...]], ...] = ()
    coins: int | None = None  # under [noise]: the referees' seed (a "# coins: N" line before the players)

    def __post_init__(self) -> None:
        moves = tuple((p, int(c)) for p, c in self.moves)
        salvos = tuple((p, tuple(int(c) for c in cells)) for p, cells in self.salvos)
        flat = tuple((p, c) for p, cells in salvos for c in cells)
        if salvos and moves and flat != moves:
            raise NotationError("the moves are not the cells of the salvos, in order")
        if self.rules.salvo is None and any(len(cells) != 1 for _, cells in salvos):
            raise NotationError("these rules fire one shot a turn: a turn of several cells is a salvo")
        if self.rules.noise is not None and self.coins is None:
            raise NotationError(
                f"{self.rules.name} flips answers at random: a game under them needs its referee's seed "
                f"('{COINS_LINE} N' before its players)"
            )
        object.__setattr__(self, "moves", moves or flat)
        object.__setattr__(self, "salvos", salvos or tuple((p, (c,)) for p, c in moves))

    def records(self) -> dict[str, Record]:
        """Replay the moves: for each player who shot, the record of their shots at the other.

        Under salvo rules each turn is fired as one salvo and answered as the rules say; a player
        whose own grid is not in the game (one-sided play: nobody fires back) fires the rules' full
        salvo each turn, and a player with a grid at most that many (ships lost cost shots).
        """
        names = [p for p, _ in self.players]
        games: dict[str, Game | None] = {}
        targets: dict[str, Layout] = {}  # the grid each player shoots at
        for me, _ in self.players:
            grid = 1 - names.index(me)
            other = self.players[grid][1]
            games[me] = _referee(other, self.coins, grid) if other is not None else None
            if other is not None:
                targets[me] = other
        own = dict(self.players)
        for number, (player, cells) in enumerate(self.salvos, 1):
            game = games[player]
            if game is None:
                raise NotationError(f"move {number}: {player} fires but the other player has no grid")
            try:
                if self.rules.salvo is None:
                    game.fire(cells[0])
                else:
                    if own[player] is not None and len(cells) > game.rules.turn_size():
                        raise IllegalShot(f"a turn fires at most {game.rules.turn_size()} shots")
                    game.fire_salvo(cells, game.turn_size() if own[player] is None else None)
            except IllegalShot as exc:
                move = write_salvo(player, cells, self.rules) if self.rules.salvo else ""
                move = move or write_move(player, cells[0], self.rules)
                raise NotationError(
                    f"{'turn' if self.rules.salvo else 'move'} {number} ({move}): {exc}"
                ) from None
        return {
            name: Record(targets[name], name, game.observation.shots, game.observation.volleys, game.coins)
            for name, game in games.items()
            if game is not None and (game.observation.shots or game.observation.volleys)
        }


def _referee(layout: Layout, coins: int | None, grid: int = 1) -> Game:
    """The referee that replays a game's moves on ``layout``, player number ``grid``'s: under noise its
    coins (each grid's its own, :func:`battleship.noise.grid_seed`); and against a cheating hider an honest
    referee on the layout the hider showed at the end, which answers every move as the hider did (that
    layout is consistent with every answer it gave)."""
    rules = layout.rules
    if rules.hider is not None:
        return Game(Layout(rules.honest(), layout.masks))
    return Game(layout, seed=None if coins is None else grid_seed(coins, grid))


def from_record(record: Record, target: str = "target") -> PaperGame:
    """A one-sided game: the shooter (no grid) and the target's layout."""
    rules = record.layout.rules
    players = ((record.shooter, None), (target, record.layout))
    if rules.salvo is not None:
        salvos = tuple((record.shooter, v.cells) for v in record.volleys)
        return PaperGame(rules, players, salvos=salvos, coins=record.coins)
    return PaperGame(
        rules, players, tuple((record.shooter, s.cell) for s in record.shots), coins=record.coins
    )


RULES_LINE = "# rules:"
TOML_LINE = "# |"
# a game under [noise]: its referees' seed, before its players (each grid's coins: noise.grid_seed)
COINS_LINE = "# coins:"


def write_rules(rules: Rules) -> str:
    """The rules header of a game file: ``# rules: NAME`` for a preset, else the TOML on ``# |`` lines."""
    if _is_preset(rules):
        return f"{RULES_LINE} {rules.name}\n"
    body = "".join(f"{TOML_LINE} {line}".rstrip() + "\n" for line in rules.to_toml().splitlines())
    return f"{RULES_LINE}\n{body}"


def _is_preset(rules: Rules) -> bool:
    """True when ``rules`` are the preset of their name (not a custom set that borrowed it)."""
    if rules.name not in PRESETS and not rules.name.startswith("square-"):
        return False
    try:
        return preset(rules.name) == rules
    except BattleshipError:
        return False


def carried_rules(text: str) -> Rules | None:
    """The rules a game file says it was played under (its ``# rules:`` header), or None without one."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith(RULES_LINE):
            if stripped and not _is_comment(line):
                return None  # the header comes before the first game
            continue
        name = stripped[len(RULES_LINE) :].strip()
        if name:
            try:
                return preset(name)
            except BattleshipError as exc:
                raise NotationError(f"the file's rules: {exc}", n + 1, line.index(RULES_LINE) + 1) from None
        toml = []
        for body in lines[n + 1 :]:
            if not body.strip().startswith(TOML_LINE):
                break
            toml.append(body.strip()[len(TOML_LINE) :].removeprefix(" "))
        if not toml:
            raise NotationError(
                f"'{RULES_LINE}' names no preset and no '{TOML_LINE}' TOML lines follow it", n + 1, 1
            )
        try:
            return from_toml("\n".join(toml), source="the file's rules")
        except BattleshipError as exc:
            raise NotationError(str(exc), n + 2, 1) from None
    return None


def write_game(game: PaperGame, rules_header: bool = True) -> str:
    """The Dunman High paper's game notation: each player's name and grid, then the moves, one a line.

    With ``rules_header`` the rules come first (:func:`write_rules`); a file of many games writes
    them once, at its top.
    """
    parts = [write_rules(game.rules).rstrip("\n")] if rules_header else []
    if game.coins is not None:
        parts.append(f"{COINS_LINE} {game.coins}")
    for name, layout in game.players:
        parts.append(f"[{name}]")
        if layout is not None:
            parts.append(write_grid(layout))
    if game.rules.salvo is None:
        parts += [write_move(p, c, game.rules) for p, c in game.moves]
    else:
        parts += [write_salvo(p, cells, game.rules) for p, cells in game.salvos]
    return "\n".join(parts) + "\n"


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _read_one(lines: list[str], i: int, rules: Rules) -> tuple[PaperGame, int]:
    """The game starting at line ``i`` (from 0): its two players and grids, then its moves up to the
    next game's first player line or the end. Returns the game and where the next one starts."""
    players: list[tuple[str, Layout | None]] = []
    coins: int | None = None
    while len(players) < 2:
        while i < len(lines) and (not lines[i].strip() or _is_comment(lines[i])):
            if not players and lines[i].strip().startswith(COINS_LINE):
                coins = _coins(lines[i], i + 1)
            i += 1
        if i == len(lines):
            raise NotationError(f"a game needs two players, found {len(players)}", len(lines))
        match = _PLAYER.match(lines[i])
        if not match:
            raise NotationError("expected a player's name in brackets, like '[Player 1]'", i + 1, 1)
        name, start = match.group(1).strip(), i + 1
        i += 1
        while i < len(lines) and lines[i].strip().startswith("[") and not _PLAYER.match(lines[i]):
            i += 1
        grid = "\n".join(lines[start:i])
        players.append((name, read_grid(grid, rules, start + 1) if grid.strip() else None))
    if players[0][0] == players[1][0]:
        raise NotationError(f"both players are named {players[0][0]!r}", i)
    end = i
    while end < len(lines) and not _PLAYER.match(lines[end]):
        end += 1
    body = "\n".join(lines[i:end])
    salvos = read_salvos(body, rules, i + 1) if rules.salvo is not None else []
    moves = read_moves(body, rules, i + 1) if rules.salvo is None else []
    names = {p for p, _ in players}
    for player in [p for p, _ in moves] + [p for p, _ in salvos]:
        if player not in names:
            raise NotationError(f"move by {player!r}, who is not a player ({' or '.join(sorted(names))})")
    game = PaperGame(rules, tuple(players), tuple(moves), tuple(salvos), coins)
    game.records()  # replays every move: refuses repeats and shots after the end
    return game, end


def _coins(line: str, number: int) -> int:
    """The referee's seed on a ``# coins: N`` line."""
    word = line.strip()[len(COINS_LINE) :].strip()
    if not word.isdigit() or int(word) >= 2**64:
        raise NotationError(
            f"'{COINS_LINE}' takes the referee's seed, a whole number below 2^64, not {word!r}", number, 1
        )
    return int(word)


def game_rules(text: str, rules: Rules | None = None) -> Rules:
    """The rules to read a game file under: those it carries, else ``rules``, else the standard rules.

    Refuses ``rules`` that differ from the ones the file carries: the moves would mean other cells.
    """
    carried = carried_rules(text)
    if carried is None:
        return rules if rules is not None else preset("standard")
    if rules is not None and rules != carried:
        raise NotationError(
            f"the file was played under {carried.name} ({carried.describe()}), not under the rules "
            f"given ({rules.describe()}): leave the rules out to read it under its own"
        )
    return carried


def read_games(text: str, rules: Rules | None = None) -> list[PaperGame]:
    """Every game in a text holding one or more (as ``simulate --notation`` writes them), each checked.

    Under the rules the text carries (:func:`game_rules`), else ``rules``, else the standard rules.
    """
    rules = game_rules(text, rules)
    lines = text.split("\n")
    games, i = [], 0
    while any(line.strip() and not _is_comment(line) for line in lines[i:]):
        game, i = _read_one(lines, i, rules)
        games.append(game)
    if not games:
        raise NotationError("no game found: expected a player's name in brackets, like '[Player 1]'", 1, 1)
    return games


def read_game(text: str, rules: Rules | None = None) -> PaperGame:
    """Read exactly one game in the paper's notation and check every move by replaying it."""
    games = read_games(text, rules)
    if len(games) > 1:
        raise NotationError(f"the text holds {len(games)} games where one was expected")
    return games[0]
