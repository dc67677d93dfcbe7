"""What a stored game is: its rules (a preset, or custom TOML within the web's bounds), its two sides and
their layouts, its moves in the Dunman High paper's notation; and how the pages see a game (shots,
layouts, rules, sunk ships drawn whole where the answers pin them down).

A game is its two layouts and its moves; everything else (answers, sunk ships, whose turn, the end)
is replayed from them, so what is stored is exactly the paper's game notation. A game against the
computer is played by "Player" and "Computer", a game between friends by "Player 1" and "Player 2".

Under ``[noise]`` rules the record keeps the referees' seed (``# coins: N``, each grid answered by coins
of its own: :func:`battleship.noise.grid_seed`), so every answer, lies included, replays exactly.
Against a cheating hider (``[hider]``, the computer's side only) the computer's grid is left out of the
record until the game ends; the hider's answers replay from the game's seed (:data:`HIDER_STREAM`), and
the finished notation holds the layout it showed at the end, which answers every move as the hider did.
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass, field, replace
from typing import Any

from battleship import notation
from battleship import rules as rules_mod
from battleship.cells import cell_name, from_xy, to_xy
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Outcome, Shot, Volley
from battleship.inference.hider import Hider
from battleship.layout import Layout
from battleship.noise import grid_seed
from battleship.rules import PRESETS, Rules, Sinks, preset

RULES = tuple(PRESETS)  # every preset is on offer (square-N and the salvo rules included)
FRIEND = "friend"  # the mode of a game between two people
COMPUTER_SIDES = ("Player", "Computer")
FRIEND_SIDES = ("Player 1", "Player 2")
TURNS = ("player-turn", "computer-turn")  # the stored status while side 0 or side 1 is to move
# a cheating hider's ties: the game's seed, stream 2 (stream 0 is the computer's shots, 1 "play for me")
HIDER_STREAM = 2
Referee = Game | Hider  # who answers the shots at one side: a referee on a layout, or a cheating hider

# custom rules (the CLI's TOML) within these bounds; whether a level answers in time under them is
# measured when a game is created (battleship.web.computer)
MAX_RULES_TOML = 4000  # characters
MAX_SIDE = 15  # the largest preset board
MAX_SHIPS = 10  # Sea Battle's fleet
MAX_SHIP_CELLS = 6
NO_HIDER_SALVOS = "the web plays a cheating hider one shot a turn: leave [salvo] out of these rules"


class NotFound(BattleshipError):
    """No game has that id."""


class Conflict(BattleshipError):
    """The move is not allowed now (not your turn, or the game is over)."""


def rules_for(name: str) -> Rules:
    """One of the presets the game offers."""
    if name not in RULES:
        raise BattleshipError(f"rules must be one of {', '.join(RULES)}, not {name!r}")
    return preset(name)


def custom_rules(text: str) -> Rules:
    """Rules from a TOML document, as ``--rules FILE.toml`` reads it, within the web's bounds."""
    if len(text) > MAX_RULES_TOML:
        raise BattleshipError(f"rules_toml: at most {MAX_RULES_TOML} characters, not {len(text)}")
    rules = rules_mod.from_toml(text, "rules_toml")
    if max(rules.rows, rules.cols) > MAX_SIDE:
        raise BattleshipError(f"rules_toml: the web plays boards of at most {MAX_SIDE}x{MAX_SIDE}")
    if len(rules.fleet) > MAX_SHIPS:
        raise BattleshipError(f"rules_toml: the web plays fleets of at most {MAX_SHIPS} ships")
    big = [s.name for s in rules.fleet if s.size > MAX_SHIP_CELLS]
    if big:
        raise BattleshipError(f"rules_toml: ships of at most {MAX_SHIP_CELLS} cells ({big[0]} has more)")
    return replace(rules, name="custom")


def pick_rules(name: str | None, toml: str | None) -> Rules:
    """Custom rules when ``toml`` is given, else the preset ``name`` (standard when neither is)."""
    if toml is not None:
        if name not in (None, "custom"):
            raise BattleshipError(
                'give rules (a preset) or rules_toml (custom rules), or rules "custom" with rules_toml'
            )
        return custom_rules(toml)
    if name == "custom":
        raise BattleshipError('rules "custom" needs rules_toml, the TOML document of the rules')
    return rules_for(name or "standard")


def rules_of(row: dict[str, Any]) -> Rules:
    """The rules a stored game was played under."""
    return pick_rules(row["rules"], row["rules_toml"] if row["rules"] == "custom" else None)


def rules_key(row: dict[str, Any]) -> str:
    """What the statistics group a game by: its preset, or ``custom-`` and a digest of its TOML."""
    if row["rules"] != "custom":
        return row["rules"]
    return "custom-" + hashlib.sha256(row["rules_toml"].encode()).hexdigest()[:12]


def sides(row: dict[str, Any]) -> tuple[str, str]:
    """The two players' names in the game's notation."""
    return FRIEND_SIDES if row["mode"] == FRIEND else COMPUTER_SIDES


@dataclass
class Replay:
    """A stored game replayed: both layouts, the moves, each side's shots and (salvo rules) its turns."""

    rules: Rules
    names: tuple[str, str]
    # the first side's fleet, the second's; None for a cheating hider's, which has none until it shows
    # one at the end (:meth:`shown_layout`)
    layouts: tuple[Layout, Layout | None]
    moves: list[tuple[str, int]]
    at: tuple[Referee, Referee]  # at[k]: the shots fired at side k's fleet (by the other side)
    turns: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)  # (side, cells) of every turn
    record: str = ""  # the game so far in the paper's notation (what :func:`write_record` writes)
    coins: int | None = None  # under [noise]: the referees' seed the record keeps

    def fleet(self, side: int) -> Layout:
        """Side ``side``'s fleet (a cheating hider's: the layout it shows, :meth:`shown_layout`)."""
        layout = self.layouts[side]
        return layout if layout is not None else self.shown_layout()

    def shown_layout(self) -> Layout:
        """The layout the cheating hider shows once the game ends: one consistent with every answer it
        gave (drawn once from its stream, then kept)."""
        layout, hider = self.layouts[1], self.at[1]
        if layout is None:
            assert isinstance(hider, Hider), "only a cheating hider hides no layout"
            layout = Layout(self.rules, hider.layout.masks)
            self.layouts = (self.layouts[0], layout)
        return layout

    def referee_at(self, side: int) -> Game:
        """A fresh referee answering shots at side ``side``'s fleet as this game's did (against a cheating
        hider, an honest one on the layout it showed, which gives the very same answers)."""
        layout = self.fleet(side)
        if self.rules.hider is not None:
            return Game(Layout(self.rules.honest(), layout.masks))
        return Game(layout, seed=None if self.coins is None else grid_seed(self.coins, side))

    def ships_left(self, side: int, revealed: bool) -> int | None:
        """Side ``side``'s ships afloat as a player may know it (:func:`ships_afloat`)."""
        layout = self.layouts[side]
        observation = self.at[side].observation
        if layout is None:  # a cheating hider: only what it announced
            revealed = False
            layout = self.layouts[0]
        return ships_afloat(layout, observation, revealed)

    def fired(self, shooter: int, truth: bool) -> list[dict[str, Any]]:
        """The shots side ``shooter`` fired (:func:`fired_json`); under noise each says which visit to its
        cell it was, and with ``truth`` whether its answer was flipped."""
        shots = fired_json(self.target(shooter).observation, self.rules)
        if self.rules.noise is not None:
            mark_noise(shots, self.layouts[1 - shooter] if truth else None)
        return shots

    def side(self, name: str) -> int:
        return self.names.index(name)

    def target(self, shooter: int) -> Referee:
        """The game the side ``shooter`` fires in (at the other side's fleet)."""
        return self.at[1 - shooter]

    def turn_size(self, shooter: int) -> int:
        """How many shots the side ``shooter`` fires on its next turn (1 in the one-shot game)."""
        if self.rules.salvo is None:
            return 1
        own, fired_at_own, target = self.layouts[shooter], self.at[shooter], self.target(shooter)
        assert own is not None and isinstance(fired_at_own, Game), "a cheating hider plays one shot a turn"
        return turn_size(own, fired_at_own, target)

    def play(self, shooter: int, cells: tuple[int, ...]) -> Shot | Volley:
        """One more turn by ``shooter``: a shot, or (salvo rules) a salvo of the size its turn allows."""
        target = self.target(shooter)
        if self.rules.salvo is None:
            if len(cells) != 1:
                raise BattleshipError(f"cells: these rules fire one shot a turn, not {len(cells)}")
            answer: Shot | Volley = target.fire(cells[0])
        else:
            answer = target.fire_salvo(cells, self.turn_size(shooter))
        self.turns.append((shooter, tuple(cells)))
        self.moves += [(self.names[shooter], c) for c in cells]
        # the record grows by the turn's line (one line a shot, or a salvo's): what write_record would
        # write of the whole game, without writing the whole game again
        if self.rules.salvo is None:
            line = notation.write_move(self.names[shooter], cells[0], self.rules)
        else:
            line = write_turn(self.names[shooter], tuple(cells), self.rules)
        self.record += ("" if self.record.endswith("\n") else "\n") + line + "\n"
        return answer

    def copy(self) -> Replay:
        """A replay to play on, leaving this one as it is (the games' answers so far are shared: they
        never change)."""
        return Replay(
            self.rules,
            self.names,
            self.layouts,
            list(self.moves),
            (copy.copy(self.at[0]), copy.copy(self.at[1])),
            list(self.turns),
            self.record,
            self.coins,
        )


def turn_size(own: Layout, fired_at_own: Game, target: Referee) -> int:
    """Shots in the next turn of a side whose fleet is ``own`` (fired at in ``fired_at_own``) firing in
    ``target``: the rules' salvo for that much of its fleet afloat, never more than the cells left."""
    hit = fired_at_own.observation.shot_mask & own.occupied
    ships = sum(1 for mask in own.masks if mask & ~hit)
    return target.turn_size(ships, (own.occupied & ~hit).bit_count())


def referees(
    rules: Rules, layouts: tuple[Layout, Layout | None], coins: int | None, seed: int
) -> tuple[Referee, Referee]:
    """Who answers the shots at each side: a referee on its layout (under noise with its grid's coins,
    :func:`battleship.noise.grid_seed`); against a cheating hider, the hider (its ties from ``seed``'s
    :data:`HIDER_STREAM`), and an honest referee on the player's fleet."""
    if rules.hider is not None:
        player = Game(Layout(rules.honest(), layouts[0].masks))
        return player, Hider(rules, seed, HIDER_STREAM)
    if layouts[1] is None:
        raise BattleshipError("the stored game has no fleet for its second player")
    if rules.noise is not None:
        if coins is None:
            raise BattleshipError(f"{rules.name} flips answers: the stored game has no '# coins:' line")
        return Game(layouts[0], seed=grid_seed(coins, 0)), Game(layouts[1], seed=grid_seed(coins, 1))
    return Game(layouts[0]), Game(layouts[1])


def replay(row: dict[str, Any]) -> Replay:
    """Rebuild a game from its stored row."""
    rules = rules_of(row)
    if rules.hider is not None:
        return _replay_hider(row, rules)
    if rules.salvo is not None:
        return _replay_salvos(row, rules)
    paper = notation.read_game(row["record"], rules)
    names = sides(row)
    fleets = (_fleet(paper, names[0]), _fleet(paper, names[1]))
    at = referees(rules, fleets, paper.coins, 0)
    for who, cell in paper.moves:
        at[1 - names.index(who)].fire(cell)
    moves = list(paper.moves)
    turns: list[tuple[int, tuple[int, ...]]] = [(names.index(who), (cell,)) for who, cell in moves]
    return Replay(rules, names, fleets, moves, at, turns, row["record"], paper.coins)


def _replay_hider(row: dict[str, Any], rules: Rules) -> Replay:
    """A game against a cheating hider: the hider answers again from the game's seed, shot by shot
    (the layout it showed, once the game is over, is the row's)."""
    if rules.salvo is not None:
        raise BattleshipError(NO_HIDER_SALVOS)
    _grids, turns = split_record(row["record"], rules)
    names = sides(row)
    shown = notation.parse_layout(row["computer_layout"], rules) if row["computer_layout"] else None
    fleets = (notation.parse_layout(row["player_layout"], rules), shown)
    at = referees(rules, fleets, None, int(row["seed"]))
    moves = [(who, c) for who, cells in turns for c in cells]
    for who, cell in moves:
        if who not in names:
            raise BattleshipError(f"the stored game has a move by {who!r}, who is not one of its players")
        at[1 - names.index(who)].fire(cell)
    sides_of: list[tuple[int, tuple[int, ...]]] = [(names.index(who), (cell,)) for who, cell in moves]
    return Replay(rules, names, fleets, moves, at, sides_of, row["record"])


def _replay_salvos(row: dict[str, Any], rules: Rules) -> Replay:
    """A salvo game: each turn one salvo, fired whole, of the size its turn allows."""
    grids, turns = split_record(row["record"], rules)
    paper = notation.read_game(grids, rules)
    names = sides(row)
    fleets = (_fleet(paper, names[0]), _fleet(paper, names[1]))
    moves = [(who, c) for who, cells in turns for c in cells]
    at = referees(rules, fleets, paper.coins, 0)
    game = Replay(rules, names, fleets, moves, at, record=row["record"], coins=paper.coins)
    for who, cells in turns:
        if who not in names:
            raise BattleshipError(f"the stored game has a turn by {who!r}, who is not one of its players")
        side = names.index(who)
        game.target(side).fire_salvo(cells, game.turn_size(side))
        game.turns.append((side, cells))
    return game  # its moves are the stored ones: ``play`` adds to them


_TURN = re.compile(r"^\s*([^\[\]\n]+?)\s*:\s*((?:\(\s*\d+\s*,\s*\d+\s*\)\s*)+)$")
_XY = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")


def split_record(record: str, rules: Rules) -> tuple[str, list[tuple[str, tuple[int, ...]]]]:
    """A stored salvo game's text as its players and grids (a game of no moves), and its turns: one a
    line, the player then the salvo's cells in the order fired (``Player: (3, 7) (4, 7)``)."""
    lines = record.split("\n")
    grid_end = max((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), default=-1) + 1
    turns = []
    for n, line in enumerate(lines[grid_end:], grid_end + 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _TURN.match(line)
        if match is None:
            raise BattleshipError(f"the stored game's line {n} is no turn like 'Player: (3, 7) (4, 7)'")
        xy = [(int(x), int(y)) for x, y in _XY.findall(match.group(2))]
        turns.append((match.group(1), tuple(from_xy(x, y, rules.rows, rules.cols) for x, y in xy)))
    return "\n".join(lines[:grid_end]) + "\n", turns


def write_turn(player: str, cells: tuple[int, ...], rules: Rules) -> str:
    """One turn of a salvo game as a line: ``Player 1: (3, 7) (4, 7) (5, 7)``, the cells in the order fired."""
    return f"{player}: " + " ".join("({}, {})".format(*to_xy(c, rules.rows, rules.cols)) for c in cells)


def group_turns(names: tuple[str, str], moves: list[tuple[str, int]]) -> list[tuple[int, tuple[int, ...]]]:
    """The moves as turns: each run of moves by one side is one salvo (the sides take turns)."""
    turns: list[tuple[int, tuple[int, ...]]] = []
    for who, cell in moves:
        if who not in names:
            raise BattleshipError(f"the stored game has a move by {who!r}, who is not one of its players")
        side = names.index(who)
        if turns and turns[-1][0] == side:
            turns[-1] = (side, (*turns[-1][1], cell))
        else:
            turns.append((side, (cell,)))
    return turns


def _fleet(paper: notation.PaperGame, name: str) -> Layout:
    """The fleet ``name`` hid in a stored game (Game refuses a missing one with a BattleshipError too)."""
    layout = dict(paper.players)[name]
    if layout is None:
        raise BattleshipError(f"the stored game has no fleet for {name}")
    return layout


def write_record(
    rules: Rules,
    names: tuple[str, str],
    layouts: tuple[Layout, Layout | None],
    moves,
    coins: int | None = None,
) -> str:
    """The Dunman High paper's game notation of the whole game so far (under salvo rules one turn a line,
    the player then the salvo's cells: :func:`write_turn`); under noise with the referees' seed
    (``coins``). A cheating hider's grid (None) is left out until it shows one at the end: until then the
    record is no game the notation replays (the web replays it from the hider's seed, :func:`replay`)."""
    players = ((names[0], layouts[0]), (names[1], layouts[1]))
    if layouts[1] is None:
        head = (
            notation.write_rules(rules) + f"[{names[0]}]\n{notation.write_grid(layouts[0])}\n[{names[1]}]\n"
        )
        turns = group_turns(names, list(moves))
        return head + "".join(write_turn(names[side], cells, rules) + "\n" for side, cells in turns)
    if rules.salvo is None:
        return notation.write_game(notation.PaperGame(rules, players, tuple(moves), coins=coins))
    text = notation.write_game(notation.PaperGame(rules, players, (), coins=coins))
    lines = [write_turn(names[side], cells, rules) for side, cells in group_turns(names, list(moves))]
    return text + "".join(line + "\n" for line in lines)


def known_ships(rules: Rules, shots: tuple[Shot, ...]) -> dict[int, int]:
    """For each sinking shot (by its index) whose ship the answers pin down, that ship's cells.

    Under ``revealed`` rules the referee shows them. Otherwise a sunk ship lies on hits fired up to
    its sinking, through the sinking cell: when exactly one placement of the ship named (under
    ``sunk`` rules, of any ship) fits the hits not already taken by another known ship, those are
    its cells. Repeated until nothing changes, since placing one ship can settle another.
    """
    hits_by: list[int] = []
    hit = 0
    for s in shots:
        hit |= 0 if s.outcome is Outcome.MISS else 1 << s.cell
        hits_by.append(hit)
    known: dict[int, int] = {i: s.cells for i, s in enumerate(shots) if s.cells}
    if rules.noise is not None:  # a "hit" may lie: no ship is placed on the answers
        return known
    taken = 0
    for cells in known.values():
        taken |= cells
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(shots):
            if s.outcome is not Outcome.SUNK or i in known:
                continue
            ships = [s.ship] if s.ship is not None else range(len(rules.fleet))
            free = hits_by[i] & ~taken
            fits = {m for k in ships for m in rules.placements[k] if m >> s.cell & 1 and not m & ~free}
            if len(fits) == 1:
                known[i] = fits.pop()
                taken |= known[i]
                changed = True
    return known


def shots_json(shots: tuple[Shot, ...], rules: Rules) -> list[dict[str, Any]]:
    """Shots and their answers as the pages read them; a sunk ship's cells wherever they are known."""
    known = known_ships(rules, shots)
    return [shot_json(s, rules, known.get(i, 0)) for i, s in enumerate(shots)]


def shot_json(shot: Shot, rules: Rules, cells: int = 0) -> dict[str, Any]:
    """One shot and its answer (``cells``: the sunk ship's, when known)."""
    out: dict[str, Any] = {"cell": shot.cell, "outcome": shot.outcome.value}
    if shot.ship is not None:
        out["ship"] = rules.fleet[shot.ship].name
    cells = cells or shot.cells
    if cells:
        out["cells"] = [c for c in range(rules.cells) if cells >> c & 1]
    return out


def mark_noise(shots: list[dict[str, Any]], truth: Layout | None) -> None:
    """Under noise: each shot's ``visit`` (the how-many-th shot at its cell, from 1) and, given the fleet
    fired at (``truth``), ``flipped``: whether its answer lied (a miss on a ship, a hit or a sinking on water)."""
    visits: dict[int, int] = {}
    for shot in shots:
        cell = shot["cell"]
        visits[cell] = visits.get(cell, 0) + 1
        shot["visit"] = visits[cell]
        if truth is not None and shot["outcome"] != "fired":
            on_ship = bool(truth.occupied >> cell & 1)
            shot["flipped"] = (shot["outcome"] == Outcome.MISS.value) == on_ship


def fired_json(observation: Observation, rules: Rules) -> list[dict[str, Any]]:
    """Every shot one side fired, as the pages read them: under salvo rules each with its ``turn`` (from
    1), and under salvos answered whole (``ships``, ``count``) the outcome ``fired`` (the answer is the
    salvo's, :func:`salvos_json`)."""
    if rules.salvo is None:
        return shots_json(observation.shots, rules)
    answered = iter(shots_json(observation.shots, rules))
    out = []
    for turn, volley in enumerate(observation.volleys, 1):
        if volley.shots:
            out += [{**next(answered), "turn": turn} for _ in volley.shots]
        else:
            out += [{"cell": c, "outcome": "fired", "turn": turn} for c in volley.cells]
    return out


def salvos_json(observation: Observation, rules: Rules) -> list[dict[str, Any]]:
    """Each salvo one side fired and the referee's answer to it, whole (empty in the one-shot game)."""
    return [salvo_json(v, rules, turn) for turn, v in enumerate(observation.volleys, 1)]


def salvo_json(volley: Volley, rules: Rules, turn: int) -> dict[str, Any]:
    """One salvo: its cells (and their names), its hits, the ships it hit (``ships`` answers) and sank
    (as the sink rule says), and the answer in words ("2 hits")."""
    fleet = rules.fleet
    out: dict[str, Any] = {
        "turn": turn,
        "cells": list(volley.cells),
        "names": [cell_name(c, rules.cols) for c in volley.cells],
        "hits": volley.hits,
        "sunk_count": volley.sunk_count,
        "sunk": [fleet[k].name for k in volley.sunk],
    }
    if volley.ship_hits:
        out["ship_hits"] = [{"ship": fleet[k].name, "hits": n} for k, n in enumerate(volley.ship_hits) if n]
    if volley.revealed:
        out["revealed"] = [[c for c in range(rules.cells) if mask >> c & 1] for mask in volley.revealed]
    out["words"] = salvo_words(out, rules)
    return out


def salvo_words(salvo: dict[str, Any], rules: Rules) -> str:
    """A salvo's answer in words: "2 hits", "hit the Battleship twice", "1 hit, sank the Destroyer"."""
    hits = salvo["hits"]
    said = f"{hits} hit{'s' * (hits != 1)}"
    if "ship_hits" in salvo:
        times = {1: "once", 2: "twice"}
        said = (
            "hit the "
            + ", the ".join(
                f"{h['ship']} {times.get(h['hits'], str(h['hits']) + ' times')}" for h in salvo["ship_hits"]
            )
            if salvo["ship_hits"]
            else "no hit"
        )
    if salvo["sunk"]:
        said += ", sank the " + " and the ".join(salvo["sunk"])
    elif salvo["sunk_count"] and rules.sinks is not Sinks.NONE:
        n = salvo["sunk_count"]
        said += f", sank {'a ship' if n == 1 else str(n) + ' ships'}"
    return said


def salvo_rule_json(rules: Rules) -> dict[str, Any] | None:
    """The salvo rule as the pages read it (None in the one-shot game)."""
    if rules.salvo is None:
        return None
    return {"shots": rules.salvo.shots, "answers": rules.salvo.answers.value}


def layout_json(layout: Layout) -> dict[str, Any]:
    """A layout: its notation and each ship's cells."""
    rules = layout.rules
    return {
        "notation": notation.format_layout(layout),
        "ships": [
            {
                "name": ship.name,
                "symbol": ship.symbol,
                "cells": [c for c in range(rules.cells) if mask >> c & 1],
            }
            for ship, mask in zip(rules.fleet, layout.masks, strict=True)
        ],
    }


def rules_json(rules: Rules) -> dict[str, Any]:
    """What the page needs to draw the rules (and, for custom rules, the TOML that gives them)."""
    out = {
        "name": rules.name,
        "rows": rules.rows,
        "cols": rules.cols,
        "sinks": rules.sinks.value,
        "spacing": rules.spacing.value,
        "reflections": rules.reflections,
        "fleet": [
            {"name": s.name, "symbol": s.symbol, "size": s.size, "cells": [list(c) for c in s.cells]}
            for s in rules.fleet
        ],
    }
    if rules.salvo is not None:
        out["salvo"] = salvo_rule_json(rules)
    if rules.noise is not None:
        out["noise"] = {"flip": rules.noise.flip, "sinkings": rules.noise.sinkings.value}
    if rules.hider is not None:
        out["hider"] = {"kind": rules.hider.kind, "play": rules.hider.play}
    if rules.name in PRESETS:
        out["about"] = PRESETS[rules.name][0]
    if rules.name == "custom":
        out["toml"] = rules.to_toml()
    return out


# ---- what every page shows of a game, one function each -------------------------------------------


def ships_afloat(layout: Layout, observation: Observation, revealed: bool) -> int | None:
    """Ships of ``layout`` still afloat as a player may know it.

    ``revealed`` (the fleet is the player's own, or the game is over and both are shown): the true
    count, every ship not hit on all its cells. Otherwise only what the referee announced: the fleet
    less the ships announced sunk, or None under rules that never say (the page shows "?").
    """
    rules = layout.rules
    if revealed:
        hit = observation.shot_mask & layout.occupied  # every cell fired at on a ship (salvos too)
        return sum(1 for mask in layout.masks if mask & ~hit)
    if rules.sinks is Sinks.NONE:
        return None
    return len(rules.fleet) - observation.sunk_count


def history_status(row: dict[str, Any]) -> str:
    """A stored game's status in words a history list shows: whose turn it is, by the game's own sides.

    A game against the computer: ``player-turn``, ``computer-turn`` or ``over``. A game between
    friends: ``placing`` (a fleet is still to be placed, the second player's included while they
    have not come), ``player1-turn``, ``player2-turn`` or ``over``.
    """
    status = row["status"]
    if row["mode"] != FRIEND or status not in TURNS:
        return status
    return f"player{TURNS.index(status) + 1}-turn"


def clock_left(
    clock: float | None, used: list[float], ended_by: str | None, winner: str | None
) -> list[float]:
    """Seconds each side has left on a game's clock; a side that lost on time has none (0:00) left.

    ``used``: seconds each side has used, the side to move counted up to now; ``winner``:
    ``player1`` or ``player2``.
    """
    if not clock:
        return [0.0, 0.0]
    left = [max(0.0, clock - u) for u in used]
    if ended_by == "time" and winner in ("player1", "player2"):
        left[2 - int(winner[-1])] = 0.0  # the loser's flag fell: the clock says so, whenever it was read
    return left
