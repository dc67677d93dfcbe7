"""Shooter options: declared per shooter, written ``name:key=value,...``, read by the kernels as a vector.

Every registered shooter declares the options it reads (the ``options`` of its
:class:`~battleship.shooters.ShooterSpec`), each an :class:`~battleship.shooters.OptionSpec`: its name, its type,
its default, the values it may take and one line of help. A key means the same thing for every
shooter that reads it (:data:`~battleship.shooters.options.OPTION` holds the one definition of each), so ``exact=N`` is "solve
the rest of the game exactly once at most N layouts remain" wherever it is read.

Text (``"density:skew=20"``), keywords (``make("density", skew=20)``) and the command line's
``--shooter`` all go through one validation (:func:`~battleship.shooters.options.build_options`): an unknown key or a bad value is
refused in one line that names the shooter and lists what it takes. The result is one
:class:`Options` value, which also records which keys were *given*: a key given is honoured whatever
its value, even the default (``best:skew=0`` turns off the skew ``best`` would play), and
:func:`~battleship.shooters.options.format_spec` writes every key given, so the spec printed plays what was asked.

Old spellings stay readable where stored specs use them (:class:`Alias`): ``optimal:endgame=N`` is
``optimal:exact=N`` and ``optimal:boost=P`` is ``optimal:skew=P,lattice=1`` (the same factor).
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import InitVar, dataclass
from typing import TYPE_CHECKING

from battleship.errors import BattleshipError
from battleship.rules import Sinks, Spacing

if TYPE_CHECKING:
    import numpy as np

    from battleship.rules import Rules

TIES = {"first": 0, "random": 1, "centre": 2, "informative": 3}
EARLY = ("", "density", "trial-sink")  # what twoply may play before its endgame ("": as ``plies`` says)
SINK_CODES = {Sinks.NONE: 0, Sinks.SUNK: 1, Sinks.NAMED: 2, Sinks.REVEALED: 3}
SPACING_CODES = {Spacing.TOUCH: 0, Spacing.NO_EDGE: 1, Spacing.NO_CONTACT: 2}
DEFAULT_WEIGHT = 20
SUPERPOSITION_BOOST = 5  # the Dunman High paper: "a few percentage points"

# positions in the kernels' parameter vector
TIE, COLOUR, WEIGHT, SKEW, BOOST, SINKS, SPACING, LATTICE, LASTSHIP, TWOSTEP = range(10)

Value = int | str


@dataclass(frozen=True)
class OptionSpec:
    """One option a shooter reads: a whole number in ``low..high`` or a text (one of ``choices`` when
    they are given), its default and one line of help."""

    name: str
    default: Value
    help: str
    kind: type = int  # int or str
    low: int = 0
    high: int = 0
    what: str = ""  # what a whole number counts ("a percentage"), for the error message
    choices: tuple[str, ...] = ()  # the texts it may be (empty: any text)

    def allowed(self) -> str:
        """The values it may take, shortly: ``0..100``, ``0|1``, ``first|random|centre``, ``TEXT``."""
        if self.kind is int:
            return f"{self.low}|{self.high}" if self.high - self.low == 1 else f"{self.low:,}..{self.high:,}"
        if self.choices:
            return "|".join(c or '""' for c in self.choices)
        return "GENERATOR" if self.name == "prior" else "FILE" if self.name == "model" else "TEXT"

    def parse(self, value: object) -> Value:
        """``value`` (a text as written in a spec, or a Python value) checked and converted, or a
        :class:`~battleship.errors.BattleshipError` saying what it may be."""
        if self.kind is int:
            return self._whole(value)
        if not isinstance(value, str):
            raise BattleshipError(f"{self.name} is a text, not {value!r}")
        text = value.strip()
        if self.choices and text not in self.choices:
            if self.name == "tie":
                raise BattleshipError(f"tie rule {text!r} is not one of {', '.join(self.choices)}")
            raise BattleshipError(f"{self.name} is {' or '.join(c for c in self.choices if c)}, not {text!r}")
        if "," in text:
            raise BattleshipError(f"{self.name} cannot hold a comma (a spec separates options by commas)")
        if self.name == "prior" and text:
            from battleship.generators import parse_generator
            from battleship.inference.likelihood import split_prior

            parse_generator(split_prior(text)[0])  # a clear error now rather than mid-run
        return text

    def _whole(self, value: object) -> int:
        if isinstance(value, str):
            try:
                number = int(value.strip())
            except ValueError:
                raise BattleshipError(f"{self.name} must be an integer, not {value.strip()!r}") from None
        elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
            number = int(value)
        else:
            raise BattleshipError(f"{self.name} must be an integer, not {value!r}")
        if not self.low <= number <= self.high:
            raise BattleshipError(
                f"{self.name} is {self.what} from {self.low:,} to {self.high:,}, not {number:,}"
            )
        return number

    def describe(self) -> str:
        """``name=default`` and the values allowed, for listings."""
        default = self.default if self.default != "" else '""'
        return f"{self.name}={default} ({self.allowed()})"


@dataclass(frozen=True)
class Alias:
    """An old spelling kept readable: ``old=V`` reads as ``new=V`` plus the fixed settings ``also``."""

    old: str
    new: str
    also: tuple[tuple[str, Value], ...] = ()

    def describe(self) -> str:
        """``old=V`` as what it reads as."""
        return f"{self.old}=V is {','.join([f'{self.new}=V', *(f'{k}={v}' for k, v in self.also)])}"


def _percent(name: str, default: int, help: str) -> OptionSpec:
    return OptionSpec(name, default, help, int, 0, 100, "a percentage")


# the one definition of every key (a shooter may narrow ``tie``'s choices or change a default, never
# the meaning)
OPTION: dict[str, OptionSpec] = {
    o.name: o
    for o in (
        OptionSpec(
            "tie",
            "first",
            "how equal cells are split: first (reading order), random, centre (nearest the middle), "
            "informative (the cell whose answer tells most; exact shooters only)",
            str,
            choices=tuple(TIES),
        ),
        OptionSpec(
            "colour",
            0,
            "the checkerboard colour hunted on, (row + col) % 2",
            int,
            0,
            1,
            "a checkerboard colour",
        ),
        OptionSpec(
            "weight",
            DEFAULT_WEIGHT,
            "factor per unexplained hit a placement passes through",
            int,
            1,
            10_000,
            "a factor",
        ),
        _percent(
            "skew",
            0,
            "C. Liam Brown's diagonal skew, percent more for the favoured parity cells: the checkerboard "
            "colour most shots went to, while a ship of the fleet's smallest size may be afloat (see lattice)",
        ),
        OptionSpec(
            "lattice",
            0,
            "1: the skew follows the smallest afloat ship, cells (row + col) % n for its length n, while "
            "any ship floats (0: the checkerboard of the plain skew)",
            int,
            0,
            1,
            "0 or 1",
        ),
        OptionSpec(
            "lastship",
            0,
            "once one ship is afloat, the N best cells are played on exactly against every placement of it",
            int,
            0,
            100,
            "a number of candidate cells",
        ),
        OptionSpec(
            "twostep",
            0,
            "of the N best cells, the one with most expected hits this shot and the next under the "
            "count's own per-ship model (density's placements, each ship on its own; 0: never)",
            int,
            0,
            100,
            "a number of candidate cells",
        ),
        _percent(
            "boost",
            SUPERPOSITION_BOOST,
            "the Dunman High paper's parity boost while hunting: percent more for the residue of "
            "(row + col) % n most shots went to, n the smallest afloat ship (as skew with lattice=1)",
        ),
        OptionSpec(
            "samples",
            1000,
            "exact uniform samples a shot (optimal: only under a generator's exact law)",
            int,
            1,
            10_000_000,
            "a number of samples",
        ),
        OptionSpec(
            "budget",
            0,
            "milliseconds a shot instead of samples (0: use samples; not reproducible)",
            int,
            0,
            600_000,
            "milliseconds",
        ),
        OptionSpec(
            "endgame",
            0,
            "once at most N layouts remain, each candidate is scored by greedy's exact rest of game "
            "(Bertsekas' rollout over every layout; 0: never)",
            int,
            0,
            100_000,
            "a number of layouts",
        ),
        OptionSpec(
            "exact",
            0,
            "once at most N layouts remain, the rest of the game is solved exactly, fewest expected shots "
            "(0: never)",
            int,
            0,
            100_000,
            "a number of layouts",
        ),
        OptionSpec(
            "second",
            0,
            "once at most N layouts remain, the endgame's candidates are played on by its own rollout (a "
            "second step of policy improvement; 0: never)",
            int,
            0,
            100_000,
            "a number of layouts",
        ),
        OptionSpec("model", "", "the placement model file written by battleship learn", str),
        OptionSpec(
            "prior",
            "",
            "a layout generator (contest, sequential, ...) the layouts are expected from: placements weighed "
            "by how often it draws them, except optimal under contest, which plays that generator's exact "
            "layout law (over samples exact uniform samples a shot); GENERATOR-exact asks for a ship-by-ship "
            "generator's law (optimal only), GENERATOR-weights for the weights",
            str,
        ),
        OptionSpec(
            "rollouts",
            48,
            "layouts drawn a shot, each played on from every candidate",
            int,
            1,
            100_000,
            "a number of layouts",
        ),
        OptionSpec("width", 6, "candidate cells a shot", int, 1, 1_000, "a number of candidate cells"),
        OptionSpec(
            "plies",
            2,
            "look-ahead before the endgame: 2 (this shot and the next) or 1 (greedy's best cell)",
            int,
            1,
            2,
            "a look-ahead depth",
        ),
        OptionSpec(
            "early",
            "",
            "what plays before the endgame instead of plies: density or trial-sink, with the same skew and tie",
            str,
            choices=EARLY,
        ),
        OptionSpec(
            "book",
            0,
            "1: fire the shipped opening book's cell while the position is in it (built for the rules and "
            "this shooter's other options), else play as the shooter itself",
            int,
            0,
            1,
            "0 or 1",
        ),
        OptionSpec(
            "fast",
            0,
            "1: the strongest measured shooter that runs as a Numba kernel (for lab runs)",
            int,
            0,
            1,
            "0 or 1",
        ),
        OptionSpec(
            "confirm",
            0,
            "under noise: of the N likeliest new cells and the N cells fired at most in doubt, fire at the one "
            "with most expected hits this shot and the next (a cell again, to confirm it, when that is worth "
            "more); 0: never fire at a cell again",
            int,
            0,
            100,
            "a number of candidate cells",
        ),
    )
}
"""The one definition of every option key, by name: its type, default, values allowed and help
(a shooter may narrow ``tie``'s choices or change a default, never the meaning)."""

# the whole-number keys and the values they may take (low, high, what they are)
RANGES = {o.name: (o.low, o.high, o.what) for o in OPTION.values() if o.kind is int}


@dataclass(frozen=True)
class Options:
    """The values a shooter plays with (see :data:`~battleship.shooters.options.OPTION` for what each key means), and which keys
    were given (``given``): a given key is honoured whatever its value.

    ``Options(skew=20)`` gives the values only; ``Options(skew=0, given={"skew"})`` also says skew was
    asked for. :meth:`replace` keeps track of what it sets; ``dataclasses.replace`` does not.

    Examples
    --------
    >>> from battleship.shooters.options import format_spec
    >>> options = Options(skew=20, given={"skew"})
    >>> options.skew, options.named(), format_spec("density", options)
    (20, {'skew': 20}, 'density:skew=20')
    """

    tie: str = "first"
    colour: int = 0
    weight: int = DEFAULT_WEIGHT
    skew: int = 0
    lattice: int = 0
    lastship: int = 0
    twostep: int = 0
    boost: int | None = None  # None: the shooter's own default
    samples: int = 1000
    budget: int = 0
    endgame: int = 0
    exact: int = 0
    second: int = 0
    model: str = ""
    prior: str = ""
    rollouts: int = 48
    width: int = 6
    plies: int = 2
    early: str = ""
    book: int = 0
    fast: int = 0
    confirm: int = 0
    # not a field: kept out of equality, of ``dataclasses.asdict`` (the run files) and of the repr
    given: InitVar[Iterable[str]] = frozenset()

    def __post_init__(self, given: Iterable[str]) -> None:
        keys = frozenset(given)
        unknown = sorted(keys - FIELDS)
        if unknown:
            raise BattleshipError(f"no option named {unknown[0]!r}; options are {', '.join(FIELDS_IN_ORDER)}")
        object.__setattr__(self, "given", keys)
        for option in OPTION.values():
            value = getattr(self, option.name)
            if value is not None:
                if option.kind is int and not isinstance(value, numbers.Integral):
                    raise BattleshipError(f"{option.name} must be an integer, not {value!r}")
                option.parse(value)

    def vector(self, rules: Rules) -> np.ndarray:
        """The int64 parameter vector of the kernels, for ``rules``."""
        import numpy as np

        out = np.zeros(10, dtype=np.int64)
        out[TIE] = TIES[self.tie]
        out[COLOUR] = self.colour
        out[WEIGHT] = self.weight
        out[SKEW] = self.skew
        out[BOOST] = SUPERPOSITION_BOOST if self.boost is None else self.boost
        out[SINKS] = SINK_CODES[rules.sinks]
        out[SPACING] = SPACING_CODES[rules.spacing]
        out[LATTICE] = self.lattice
        out[LASTSHIP] = self.lastship
        out[TWOSTEP] = self.twostep
        return out

    @property
    def given_keys(self) -> frozenset[str]:
        """The keys given (typed access to ``given``)."""
        keys: frozenset[str] = self.__dict__.get("given", frozenset())
        return keys

    def changed(self) -> dict[str, object]:
        """The options whose value differs from the default (see :meth:`named` for what to write)."""
        return {
            name: getattr(self, name) for name in FIELDS_IN_ORDER if getattr(self, name) != DEFAULTS[name]
        }

    def named(self) -> dict[str, object]:
        """The options a spec must write to play these: every key given and every value changed, in the
        fixed order of the fields."""
        given = self.given_keys
        return {
            name: getattr(self, name)
            for name in FIELDS_IN_ORDER
            if name in given or getattr(self, name) != DEFAULTS[name]
        }

    def replace(self, **values: object) -> Options:
        """A copy with ``values`` set, each counted as given."""
        return dataclasses.replace(self, **values, given=self.given_keys | set(values))  # type: ignore[arg-type]


FIELDS_IN_ORDER = tuple(f.name for f in dataclasses.fields(Options))
FIELDS = frozenset(FIELDS_IN_ORDER)
DEFAULTS: dict[str, object] = {f.name: f.default for f in dataclasses.fields(Options)}


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"density:tie=random,skew=20"`` -> ``("density", {"tie": "random", "skew": "20"})``: the name and
    the options as written, in order; no name, an item that is not ``key=value`` and a key given
    twice are refused, naming the spec."""
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise BattleshipError(f"shooter {spec!r}: no name before the options")
    values: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not key or not eq:
            raise BattleshipError(f"shooter {spec!r}: {item!r} is not key=value")
        if key in values:
            raise BattleshipError(f"shooter {spec!r}: {key} is given twice")
        values[key] = value.strip()
    return name, values


def listing(name: str, options: Sequence[OptionSpec], aliases: Sequence[Alias] = ()) -> str:
    """``density takes tie=first (first|random|centre), ...``: one line for error messages."""
    if not options:
        return f"{name} takes no options"
    old = f"; old spellings: {', '.join(a.describe() for a in aliases)}" if aliases else ""
    return f"{name} takes {', '.join(o.describe() for o in options)}{old}"


def build_options(
    shooter: str,
    declared: Sequence[OptionSpec],
    values: Mapping[str, object],
    base: Options | None = None,
    aliases: Sequence[Alias] = (),
    shown: str | None = None,
) -> Options:
    """The one validation of a shooter's options: ``values`` (texts as written, or Python values) read
    against the options ``shooter`` declares, old spellings (``aliases``) read as what they mean, on
    top of ``base``; every key in ``values`` is counted as given.

    An unknown key, a bad value, or a key set twice (directly and through an old spelling) is refused in
    one line naming the spec (``shown``), the shooter and every option it takes.
    """
    by_name = {o.name: o for o in declared}
    by_old = {a.old: a for a in aliases}
    where = f"shooter {shown or shooter!r}: "
    parsed: dict[str, Value] = {}
    source: dict[str, str] = {}

    def put(key: str, value: Value, via: str) -> None:
        if key in parsed:
            also = (
                f" ({via} sets it)"
                if via != key
                else f" ({source[key]} sets it)"
                if source[key] != key
                else ""
            )
            raise BattleshipError(f"{where}{key} is given twice{also}; {listing(shooter, declared, aliases)}")
        parsed[key], source[key] = value, via

    for key, raw in values.items():
        try:
            if key in by_name:
                put(key, by_name[key].parse(raw), key)
            elif key in by_old:
                alias = by_old[key]
                put(alias.new, by_name[alias.new].parse(raw), key)
                for fixed, value in alias.also:
                    put(fixed, by_name[fixed].parse(value), key)
            else:
                raise BattleshipError(f"{shooter} does not read {key}")
        except BattleshipError as exc:
            message = str(exc)
            if message.startswith(where):
                raise
            raise BattleshipError(f"{where}{message}; {listing(shooter, declared, aliases)}") from None
    start = base or Options()
    unread = [k for k in start.named() if k not in by_name]
    if unread:
        raise BattleshipError(
            f"{where}{shooter} does not read {', '.join(unread)}; {listing(shooter, declared, aliases)}"
        )
    return dataclasses.replace(start, **parsed, given=start.given_keys | set(parsed))  # type: ignore[arg-type]


def parse_spec(spec: str, base: Options | None = None) -> tuple[str, Options]:
    """``"density:tie=random,skew=20"`` -> ``("density", Options(tie="random", skew=20))``: every key
    and value checked, the keys written counted as given. Which keys the named shooter reads is
    checked by :func:`~battleship.shooters.resolve`, which reads its old spellings too."""
    name, values = split_spec(spec)
    return name, build_options(name, tuple(OPTION.values()), values, base, shown=spec)


def format_spec(name: str, options: Options) -> str:
    """The inverse of :func:`parse_spec`: every key given or changed, in the fixed order of the fields."""
    named = options.named()
    return name + (":" + ",".join(f"{k}={v}" for k, v in named.items()) if named else "")


class Named:
    """What every registered shooter's class shares: a repr naming it as the commands do.

    ``repr(make("density", skew=20))`` is ``<Shooter density:skew=20>``: its :func:`~battleship.shooters.options.format_spec`
    (the class's ``name`` and the options it was built with).
    """

    name: str
    options: Options

    def __repr__(self) -> str:
        return f"<Shooter {format_spec(self.name, self.options)}>"
