"""The arena's line protocol, version 3: what the referee says to a bot, and what a bot may answer.

In the spirit of chess's UCI: plain lines of words on the bot's stdin and stdout. The referee sends
the rules once, then for each game ``newgame``, and for each shot ``shoot`` (the bot answers a cell
name) followed by ``result`` (the referee's answer). docs/arena-protocol.md is the reference, with a
transcript; both sides of it live here, so the referee and the Python host cannot disagree.

Version 2 adds salvos, and nothing else: under rules without salvo the referee greets with
``battleship 1`` and every line is version 1's. Under salvo rules it greets with ``battleship 2``,
the rules block has a line ``salvo SHOTS ANSWERS`` (:meth:`battleship.rules.Salvo.text`:
``salvo 5 each``, ``salvo afloat count``; SHOTS is K, ``afloat`` or ``afloat-cells``, ANSWERS
``each``, ``ships`` or ``count``), each turn is ``shoot K`` answered with K distinct cell names on one
line, separated by spaces, and the referee answers a salvo

- under ``each``: with K ``result`` lines, version 1's, one per shot in the order the bot named
  them (a ship is sunk by the shot that completes it in that order);
- under ``ships`` and ``count``: with one line ``salvo CELLS hits H [ships LETTERS] [sunk WORDS]``:
  CELLS the salvo's cells joined by ``,``, H the number of hits, LETTERS (``ships`` only) one ship
  symbol per hit in fleet order (``-`` for none), and, when the salvo sank ships and the sink rule
  says so, ``sunk`` followed by one word per ship sunk: ``#`` (``sinks sunk``), its symbol
  (``named``) or ``SYMBOL=CELLS`` (``revealed``).

A bot says it speaks version 2 with a line ``protocol 2`` before its ``readyok``; one that does
not is a version 1 bot, which plays rules without salvo as before and is refused salvo rules (a
``start`` forfeit of every game, saying why). One-sided, the fleet firing is whole, so ``afloat``
fires a shot per ship of the fleet (capped by the cells left), and a game is scored in turns.

Version 3 adds answers that lie and the cheating hider, and nothing else: under rules with neither the
greeting and every line are version 1's or 2's. Under ``[noise]`` or ``[hider]`` rules the referee
greets with ``battleship 3`` and the rules block has a line ``noise FLIP SINKINGS``
(:meth:`battleship.rules.Noise.text`: ``noise 0.05 truthful``) or ``hider KIND PLAY``
(:meth:`battleship.rules.Hider.text`: ``hider adversarial greedy``). Under noise a bot may fire at a
cell it fired at before (each answer flips on its own coin; only a cell named twice in one salvo is a
``repeat``), the game ends once every ship cell has been fired at (the referee says ``gameover``), and
a game that reaches :func:`most_shots` shots without that is an ``endless`` forfeit. Under a cheating
hider nothing else changes: the referee answers as the hider chooses. A bot says ``protocol 3`` (and
so plays versions 1 and 2 too); an older one is refused these rules, a ``start`` forfeit saying why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from battleship import shapes
from battleship.cells import cell_name, iter_cells, parse_cell
from battleship.errors import BattleshipError
from battleship.game import NOISY_SHOTS_PER_CELL, Outcome, Shot, Volley
from battleship.layout import Layout
from battleship.rules import Answers, Hider, Noise, Rules, Salvo, Ship, Sinks, Spacing

VERSION = 3
SALVO_VERSION = 2  # the first version with salvos
TWISTS_VERSION = 3  # the first version with answers that lie ([noise]) and a cheating hider ([hider])
GREETING = "battleship 1"  # the greeting under rules without salvo (version 1, unchanged)
CELL_NAME = re.compile(r"[A-Za-z]{1,2}[1-9][0-9]{0,2}")  # a cell name as parse_cell reads one
VERSION_WORD = re.compile(r"[0-9]{1,5}")  # ASCII digits only: '²'.isdigit() is true, int('²') fails
MAX_LINE = 4096  # longest line a bot may send, in bytes: a longer one is nonsense, not a shot
NAME_KEPT = 80  # characters of a bot's ``name`` line the referee keeps


# why a bot lost a game, as the leaderboard counts them (docs/arena-protocol.md says each)
CAUSES = (
    "start", "crash", "time", "budget", "cpu", "malformed", "off-board", "repeat", "layout", "referee", "endless",
)  # fmt: skip


class ProtocolError(BattleshipError):
    """A message that breaks the protocol (the text says what and where)."""


class BotFault(Exception):
    """A bot broke a rule of the arena: ``cause`` is one of :data:`CAUSES`, ``detail`` says how."""

    def __init__(self, cause: str, detail: str):
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail


def unexpected(exc: Exception, line: str | None = None) -> BotFault:
    """The forfeit of a bot whose answer made the referee fail in a way no rule foresaw (a fault of the
    arena's, kept as this bot's forfeit so that the run goes on and keeps every other game)."""
    answer = f" on its answer {_quote(line)}" if line is not None else ""
    return BotFault(
        "referee",
        f"the referee failed{answer} ({type(exc).__name__}: {str(exc)[:200]}); "
        "the game is scored as this bot's forfeit, and the arena's authors would like to hear of it",
    )


# ---- the referee's side ---------------------------------------------------------------------------
def needed(rules: Rules) -> int:
    """The first version of the protocol that tells these rules: 3 under noise or a cheating hider,
    2 under salvos, else 1."""
    if rules.noise is not None or rules.hider is not None:
        return TWISTS_VERSION
    return SALVO_VERSION if rules.salvo is not None else 1


def greeting(rules: Rules) -> str:
    """The first line: ``battleship 1`` under the classic rules, ``battleship 2`` under salvo rules,
    ``battleship 3`` under rules with noise or a cheating hider."""
    version = needed(rules)
    return GREETING if version == 1 else f"battleship {version}"


def most_shots(rules: Rules) -> int:
    """The most shots (turns, under salvo rules) a game can take, which a forfeit scores: every cell of
    the board, or under noise, where a cell may be fired at again, :data:`NOISY_SHOTS_PER_CELL` a cell
    (a game that gets there is stopped, an ``endless`` forfeit)."""
    return rules.cells if rules.noise is None else NOISY_SHOTS_PER_CELL * rules.cells


def endless(fired: int, rules: Rules) -> BotFault | None:
    """The forfeit of a game under noise that has fired :func:`most_shots` shots and goes on; else None."""
    most = most_shots(rules)
    if rules.noise is None or fired < most:
        return None
    return BotFault(
        "endless",
        f"fired {fired} shots under noise without firing at every ship cell: a game stops at {most} "
        f"({NOISY_SHOTS_PER_CELL} a cell); fire at cells not tried yet",
    )


def rules_lines(rules: Rules) -> list[str]:
    """The rules block the referee sends once, after the greeting (``salvo ...`` under salvo rules,
    ``noise ...`` under noise, ``hider ...`` under a cheating hider)."""
    lines = [
        f"rules {rules.name}",
        f"board {rules.rows} {rules.cols}",
        f"spacing {rules.spacing.value}",
        f"sinks {rules.sinks.value}",
        f"reflections {'yes' if rules.reflections else 'no'}",
    ]
    lines += [f"ship {s.symbol} {s.size} {shapes.render(s.cells)} {s.name}" for s in rules.fleet]
    if rules.salvo is not None:
        lines.append(f"salvo {rules.salvo.text()}")
    if rules.noise is not None:
        lines.append(f"noise {rules.noise.text()}")
    if rules.hider is not None:
        lines.append(f"hider {rules.hider.text()}")
    return [*lines, "end"]


def answer_lines(volley: Volley, rules: Rules) -> list[str]:
    """The referee's answer to a salvo: a ``result`` line per shot (``each``), else one ``salvo`` line."""
    if rules.answered_each:
        return [result_line(shot, rules) for shot in volley.shots]
    cols = rules.cols
    words = ["salvo", ",".join(cell_name(c, cols) for c in volley.cells), "hits", str(volley.hits)]
    if rules.answers is Answers.SHIPS:
        letters = "".join(ship.symbol * n for ship, n in zip(rules.fleet, volley.ship_hits, strict=True))
        words += ["ships", letters or "-"]
    sunk = _sunk_words(volley, rules)
    return [" ".join(words + (["sunk", *sunk] if sunk else []))]


def _sunk_words(volley: Volley, rules: Rules) -> list[str]:
    """One word per ship a salvo answered whole sank: ``#``, its symbol, or ``SYMBOL=CELLS``."""
    if rules.sinks is Sinks.SUNK:
        return ["#"] * volley.sunk_count
    if rules.sinks is Sinks.NAMED:
        return [rules.fleet[i].symbol for i in volley.sunk]
    if rules.sinks is Sinks.REVEALED:
        return [
            f"{rules.fleet[i].symbol}={','.join(cell_name(c, rules.cols) for c in iter_cells(mask))}"
            for i, mask in zip(volley.sunk, volley.revealed, strict=True)
        ]
    return []


def result_line(shot: Shot, rules: Rules) -> str:
    """The referee's answer to a shot, as much as the rules let it say."""
    words = ["result", cell_name(shot.cell, rules.cols), shot.outcome.value]
    if shot.ship is not None:
        words.append(rules.fleet[shot.ship].symbol)
    if shot.cells:
        words.append(",".join(cell_name(c, rules.cols) for c in iter_cells(shot.cells)))
    return " ".join(words)


CHATTER = ("info", "name", "author", "debug", "protocol")  # first words of lines the referee skips


def is_chatter(line: str) -> bool:
    """Lines a bot may send at any time and the referee skips: ``info``, ``name``, ``author``, ``debug``,
    alone or followed by a space and any text. Every other line answers what the referee asked."""
    word = line.split(" ", 1)[0]
    return word in CHATTER


def read_version(line: str) -> int:
    """The version a ``protocol N`` line names: N in ASCII digits (at most five), else 0 (none it speaks)."""
    word = line.removeprefix("protocol").strip(" ")
    return int(word) if VERSION_WORD.fullmatch(word) else 0


def read_name(line: str) -> str:
    """The name a ``name TEXT`` line gives (its first :data:`NAME_KEPT` characters; shown escaped)."""
    return line.removeprefix("name").strip()[:NAME_KEPT]


def read_shot(line: str, rules: Rules) -> int:
    """The cell a bot's answer to ``shoot`` names; a ``malformed`` or ``off-board`` :class:`BotFault` if none."""
    text = line.strip()
    try:
        return parse_cell(text, rules.rows, rules.cols)
    except BattleshipError as exc:
        cause = "off-board" if CELL_NAME.fullmatch(text) else "malformed"
        raise BotFault(cause, f"answered {_quote(line)} to 'shoot': {exc}") from None


def read_salvo(line: str, rules: Rules, size: int, fired: int) -> tuple[int, ...]:
    """The cells a bot's answer to ``shoot K`` names (``size`` of them, none twice, and none in ``fired``
    unless the rules have noise, where a cell may be fired at again); a ``malformed``, ``off-board`` or
    ``repeat`` :class:`BotFault` saying what is wrong."""
    words = line.split()
    if len(words) != size:
        raise BotFault(
            "malformed",
            f"answered {_quote(line)} to 'shoot {size}': expected {size} cell name{'s' * (size != 1)} "
            f"on one line, separated by spaces, not {len(words)}",
        )
    cells: list[int] = []
    for word in words:
        cell = read_shot(word, rules)
        name = cell_name(cell, rules.cols)
        if fired >> cell & 1 and rules.noise is None:
            raise BotFault("repeat", f"fired at {name} a second time")
        if cell in cells:
            raise BotFault("repeat", f"named {name} twice in one salvo ({_quote(line)})")
        cells.append(cell)
    return tuple(cells)


def read_layout(line: str, rules: Rules) -> Layout | None:
    """The layout a bot's answer to ``place`` gives, or None for ``layout random``; a ``layout``
    :class:`BotFault` if the answer is not a valid layout of ``rules``."""
    words = line.split()
    if len(words) != 2 or words[0] != "layout":
        raise BotFault(
            "layout", f"answered {_quote(line)} to 'place': expected 'layout TEXT' or 'layout random'"
        )
    if words[1] == "random":
        return None
    try:
        return Layout.from_text(words[1], rules)
    except BattleshipError as exc:
        raise BotFault("layout", f"answered {_quote(line)} to 'place': {exc}") from None


def _quote(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")


# ---- the bot's side (what the Python host reads) --------------------------------------------------
@dataclass
class RulesReader:
    """Reads the rules block line by line; :attr:`rules` is set once ``end`` arrives."""

    name: str = "custom"
    rows: int = 0
    cols: int = 0
    spacing: str = "touch"
    sinks: str = "named"
    reflections: bool = False
    ships: list[Ship] | None = None  # None until the block's ``rules`` line
    salvo: Salvo | None = None
    noise: Noise | None = None
    hider: Hider | None = None
    rules: Rules | None = None

    def feed(self, line: str) -> None:
        """Take one line of the block."""
        word, _, rest = line.partition(" ")
        if word == "rules":
            self.name, self.ships = rest or "custom", []
        elif word == "board":
            self.rows, self.cols = (int(v) for v in rest.split())
        elif word in ("spacing", "sinks"):
            setattr(self, word, rest)
        elif word == "reflections":
            self.reflections = rest == "yes"
        elif word == "salvo":
            self.salvo = Salvo.from_text(rest)
        elif word == "noise":
            self.noise = Noise.from_text(rest)
        elif word == "hider":
            self.hider = Hider(*rest.split(" ", 1))
        elif word == "ship":
            symbol, _size, shape, name = rest.split(" ", 3)
            self._ships_so_far(word).append(Ship(name, symbol, shapes.parse(shape)))
        elif word == "end":
            self.rules = Rules(
                self.rows,
                self.cols,
                tuple(self._ships_so_far(word)),
                Spacing(self.spacing),
                Sinks(self.sinks),
                self.reflections,
                self.name,
                self.salvo,
                self.noise,
                self.hider,
            )

    def _ships_so_far(self, word: str) -> list[Ship]:
        if self.ships is None:
            raise ProtocolError(f"{word!r} before the 'rules' line that opens the rules block")
        return self.ships


def read_result(line: str, rules: Rules) -> Shot:
    """The :class:`Shot` a ``result`` line reports."""
    words = line.split()
    if len(words) < 3 or words[0] != "result":
        raise ProtocolError(f"expected 'result CELL miss|hit|sunk ...', not {_quote(line)}")
    cell = parse_cell(words[1], rules.rows, rules.cols)
    outcome = Outcome(words[2])
    ship = rules.ship_index(words[3]) if len(words) > 3 else None
    mask = 0
    if len(words) > 4:
        for name in words[4].split(","):
            mask |= 1 << parse_cell(name, rules.rows, rules.cols)
    return Shot(cell, outcome, ship, mask)


def read_volley(line: str, rules: Rules) -> Volley:
    """The :class:`Volley` a ``salvo`` line reports (a salvo answered whole, under ``ships``/``count``)."""
    words = line.split()
    if len(words) < 4 or words[0] != "salvo" or words[2] != "hits" or not words[3].isdigit():
        raise ProtocolError(f"expected 'salvo CELLS hits H [ships LETTERS] [sunk WORDS]', not {_quote(line)}")
    cells = tuple(parse_cell(name, rules.rows, rules.cols) for name in words[1].split(","))
    rest = words[4:]
    ship_hits: tuple[int, ...] = ()
    if rest[:1] == ["ships"] and len(rest) > 1:
        letters = rest[1].replace("-", "")
        ship_hits = tuple(letters.count(ship.symbol) for ship in rules.fleet)
        rest = rest[2:]
    sunk: list[int] = []
    revealed: list[int] = []
    count = 0
    if rest[:1] == ["sunk"]:
        for word in rest[1:]:
            count += 1
            symbol, _, shown = word.partition("=")
            if symbol != "#":
                sunk.append(rules.ship_index(symbol))
            if shown:
                mask = 0
                for name in shown.split(","):
                    mask |= 1 << parse_cell(name, rules.rows, rules.cols)
                revealed.append(mask)
    return Volley(cells, (), int(words[3]), ship_hits, tuple(sunk), count, tuple(revealed))


def volley_of(shots: tuple[Shot, ...]) -> Volley:
    """A salvo answered shot by shot (``each``), from its ``result`` lines: the Volley the referee kept."""
    return Volley(
        tuple(s.cell for s in shots),
        shots,
        hits=sum(s.outcome is not Outcome.MISS for s in shots),
        sunk=tuple(s.ship for s in shots if s.ship is not None),
        sunk_count=sum(s.outcome is Outcome.SUNK for s in shots),
        revealed=tuple(s.cells for s in shots if s.cells),
    )
