"""The shooter registry, in the manner of Gymnasium's ``register`` / ``EnvSpec`` / ``make``.

A :class:`ShooterSpec` holds everything about one shooter in one place: its name, a one-line
summary naming its source, where its class lives (loaded only when first used, so listing the
shooters costs no import of NumPy or Numba), the Numba kernel the lab plays it with (if any), the
options it takes (:class:`~battleship.shooters.options.OptionSpec`: name, type, default, values,
help) and their old spellings, whether it is recommended, a published baseline or an experiment
kept for comparison, and its measured strength. Which rules it refuses, and why, is the class's own
``refusal`` function.

``make("density:skew=20")`` and ``make("density", skew=20)`` build the same shooter; an unknown key or
a bad value is refused in one line naming the shooter's options. ``register`` adds your own. A spec may
also name a class outright, ``path/to/file.py:Class`` or ``package.module:Class`` (as the arena
takes bots): it is built with no arguments, reads no options and is played in Python.

What played is named one way everywhere (tables, JSON, files, game notation): the resolved spec,
``name:key=value,...`` with every option given (and every value changed) in a fixed order
(:func:`battleship.shooters.options.format_spec`), ``best`` replaced by what it plays.
:func:`reference_markdown` writes the registry as a reference page.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battleship.errors import BattleshipError
from battleship.shooters.options import (
    FIELDS_IN_ORDER,
    OPTION,
    Alias,
    Options,
    OptionSpec,
    build_options,
    listing,
    split_spec,
)

if TYPE_CHECKING:
    from battleship.game import Shooter
    from battleship.rules import Rules

# every option key; a spec names those its shooter reads (the others are refused, not ignored)
OPTION_KEYS = FIELDS_IN_ORDER
# keys a choosing shooter (``best``) reads itself and does not hand to the shooter it chooses
CHOOSER_KEYS = ("fast",)
SCORING = ("tie", "skew", "lattice")  # what every scoring shooter reads
ANSWERS = {"sinkings": "the sinking announcements", "margin": "the spacing margin"}
ROLES = ("recommended", "baseline", "experiment")
TIES_WITHOUT_INFORMATIVE = tuple(t for t in OPTION["tie"].choices if t != "informative")


@dataclass(frozen=True)
class Strength:
    """A measured mean: ``mean`` shots over ``games`` games of ``spec`` on the preset ``rules``, with
    layouts from ``generator``, measured by ``command`` (as recorded in ``source``)."""

    rules: str
    spec: str
    games: int
    mean: float
    interval: str
    command: str
    generator: str = "uniform"
    source: str = "docs/research/rules.md"
    unit: str = "shots"  # "turns" (salvos to sink the fleet) under salvo rules

    def describe(self) -> str:
        """``44.385 (44.262 .. 44.508) on standard: density, 20,000 games`` (``10.6 turns (...)`` under
        salvo rules)."""
        layouts = "" if self.generator == "uniform" else f", {self.generator} layouts"
        unit = "" if self.unit == "shots" else f" {self.unit}"
        return f"{self.mean:g}{unit} ({self.interval}) on {self.rules}{layouts}: {self.spec}, {self.games:,} games"


def _declared(reads: tuple[str, ...]) -> tuple[OptionSpec, ...]:
    """The option specs of keys named the old way (``reads``, with ``informative`` for tie's choice)."""
    unknown = [k for k in reads if k not in (*OPTION_KEYS, "informative")]
    if unknown:
        raise BattleshipError(f"unknown option {unknown[0]!r}")
    out = []
    for key in reads:
        if key == "informative":
            continue
        option = OPTION[key]
        if key == "tie" and "informative" not in reads:
            option = dataclasses.replace(option, choices=TIES_WITHOUT_INFORMATIVE)
        out.append(option)
    return tuple(out)


@dataclass(frozen=True)
class ShooterSpec:
    """Everything about one registered shooter, in one place (see the module docstring).

    The fields below are its name, where its class lives (``"package.module:Class"``, imported on
    first use), a one-line summary naming its source, its Numba kernel, the options it takes, the
    answers it leaves unread and why, its role and its measured strength.

    Examples
    --------
    >>> import battleship as bs
    >>> from battleship.shooters import spec
    >>> density = spec("density")
    >>> density.name, density.role, density.kernel is not None
    ('density', 'recommended', True)
    >>> [o.name for o in density.options][:3]
    ['tie', 'skew', 'lattice']
    """

    name: str
    entry_point: str  # "package.module:Class"; the class takes ``options`` as its first argument
    summary: str
    # the name of its Numba kernel in battleship.shooters.kernels, which plays game i of a run seeded
    # s exactly as the class reset with battleship.rng.game_rng(s, i) (check_shooter demands it)
    kernel: str | None = None
    # the option keys it reads, the old way of declaring them (``informative``: tie may be informative);
    # filled in from ``options`` when those are given
    reads: tuple[str, ...] = ()
    # answers the rules may give that it leaves unread, as its source published it ("sinkings",
    # "margin"), and why; the CLI says so when it plays rules that give them
    ignores: tuple[str, ...] = ()
    ignores_why: str = ""
    # "package.module:function" for a shooter that plays another one chosen by the rules (``best``):
    # the function maps rules and the options given to the spec text of the shooter it plays (see
    # :func:`resolve`)
    chooses: str | None = None
    takes_options: bool = True  # False: the class is built with no arguments (a class named outright)
    # the options it reads: name, type, default, values allowed, help (built from ``reads`` if empty)
    options: tuple[OptionSpec, ...] = ()
    aliases: tuple[Alias, ...] = ()  # old spellings of its options, still read
    # "recommended" (a player), "baseline" (a published strategy as its source wrote it) or
    # "experiment" (kept for comparison: it lost every measurement)
    role: str = "recommended"
    strength: tuple[Strength, ...] = ()  # measured means, where measured
    # a choosing shooter: the shooters it may play, whose options it takes and hands on
    passes_on: tuple[str, ...] = ()
    advice: str = ""  # one line: when to use it, or why it is kept

    def __post_init__(self) -> None:
        if self.options and self.reads:
            raise BattleshipError(f"shooter {self.name!r}: declare options or reads, not both")
        try:
            options = self.options or _declared(self.reads)
        except BattleshipError as exc:
            raise BattleshipError(f"shooter {self.name!r} reads {exc}") from None
        names = [o.name for o in options]
        if len(set(names)) != len(names) or any(n not in OPTION_KEYS for n in names):
            raise BattleshipError(
                f"shooter {self.name!r}: options must be distinct keys among {', '.join(OPTION_KEYS)}"
            )
        tie = next((o for o in options if o.name == "tie"), None)
        informative = ("informative",) if tie is not None and "informative" in tie.choices else ()
        if self.role not in ROLES:
            raise BattleshipError(
                f"shooter {self.name!r}: role is one of {', '.join(ROLES)}, not {self.role!r}"
            )
        object.__setattr__(self, "options", tuple(options))
        object.__setattr__(self, "reads", (*names, *informative))
        if self.passes_on and all(n in _REGISTRY for n in self.passes_on):  # else register refuses it
            taken = self.accepted()
            tie = next((o for o in taken if o.name == "tie"), None)
            informative = ("informative",) if tie is not None and "informative" in tie.choices else ()
            object.__setattr__(self, "reads", (*(o.name for o in taken), *informative))
        for alias in self.aliases:
            targets = [alias.new, *(k for k, _ in alias.also)]
            if alias.old in names or any(t not in names for t in targets) or alias.old not in OPTION_KEYS:
                raise BattleshipError(f"shooter {self.name!r}: alias {alias.old!r} must name its options")

    @property
    def recommended(self) -> bool:
        """True for a player (not a published baseline or an experiment kept for comparison)."""
        return self.role == "recommended"

    def load(self) -> type:
        """The shooter's class (imported on first use)."""
        return load_class(self.entry_point)

    def choose(self, rules: Rules, options: Options | None = None) -> str | None:
        """The spec text of the shooter this one plays under ``rules`` and the options given (None: it
        plays itself)."""
        return _attribute(self.chooses)(rules, options) if self.chooses else None

    def accepted(self) -> tuple[OptionSpec, ...]:
        """Every option this shooter takes: its own, and for a choosing shooter those of every shooter it
        may play (old spellings included), checked again against the one it plays."""
        if not self.passes_on:
            return self.options
        out = {o.name: o for o in self.options}
        for name in self.passes_on:
            other = spec(name)
            for option in (*other.options, *(OPTION[a.old] for a in other.aliases)):
                if option.name not in out or len(option.choices) > len(out[option.name].choices):
                    out[option.name] = option
        return tuple(sorted(out.values(), key=lambda o: OPTION_KEYS.index(o.name)))

    def build(
        self, values: Mapping[str, object], base: Options | None = None, shown: str | None = None
    ) -> Options:
        """``values`` (texts as written or Python values) checked against the options this shooter takes,
        on top of ``base``: :func:`battleship.shooters.options.build_options`."""
        if not self.takes_options and (values or (base is not None and base.named())):
            raise BattleshipError(f"{self.name} is a class named outright: it takes no options")
        return build_options(self.name, self.accepted(), values, base, self.aliases, shown)

    def make(self, options: Options | None = None, **kwargs: Any) -> Shooter:
        """A new shooter with these options (checked against those it takes); ``kwargs`` go to its
        class (``learning`` takes a fitted ``model=`` object this way)."""
        return self.new(self.build({}, options), **kwargs)

    def new(self, options: Options, **kwargs: Any) -> Shooter:
        """A new shooter with ``options`` this spec's :meth:`build` made (so checked already)."""
        cls = self.load()
        return cls(options, **kwargs) if self.takes_options else cls(**kwargs)  # type: ignore[no-any-return]

    def refusal(self, rules: Rules) -> str | None:
        """Why this shooter cannot play ``rules``, or None when it can. Under ``[noise]`` only a class that
        says it reads answers that lie (``plays_noise = True``) plays."""
        cls = self.load()
        if rules.noise is not None and not getattr(cls, "plays_noise", False):
            players = ", ".join(n for n, s in _REGISTRY.items() if getattr(s.load(), "plays_noise", False))
            return f"{self.name} reads every answer as true: under the [noise] rules of {rules.name} play one of {players}"
        why = getattr(cls, "refusal", None)
        return why(rules) if why is not None else None

    def unread(self, rules: Rules) -> str | None:
        """What ``rules`` tell the shooter that it leaves unread on purpose, and why; or None."""
        given = {"sinkings": rules.sinks.value != "none", "margin": rules.spacing.value != "touch"}
        unread = [ANSWERS[a] for a in self.ignores if given[a]]
        said = []
        if unread:
            said.append(
                f"{self.name} leaves {' and '.join(unread)} of {rules.name} unread: {self.ignores_why}"
            )
        if (
            rules.salvo is not None
            and not rules.answered_each
            and not getattr(self.load(), "reads_salvos", False)
        ):
            said.append(
                f"{self.name} reads the salvos of {rules.name}, answered whole, only as far as they answer "
                "single cells (a salvo of one, one that missed everywhere, one that hit everywhere and sank "
                "nothing), and which ship a hit struck not at all"
            )
        return "; ".join(said) or None

    def check_options(self, options: Options) -> None:
        """Refuse options this shooter would silently ignore, or values it does not take."""
        self.build({}, options)

    def takes(self) -> str:
        """Its options in one line: ``density takes tie=first (first|random|centre), ...``."""
        return listing(self.name, self.accepted(), self.aliases)


def _attribute(where: str) -> Any:
    """``package.module:name``, imported on first use."""
    module, _, attr = where.partition(":")
    return getattr(importlib.import_module(module), attr)


_REGISTRY: dict[str, ShooterSpec] = {}
_CLASSES: dict[str, ShooterSpec] = {}  # classes named outright, by their spec text
_FILES: dict[str, object] = {}  # modules loaded from .py files, by resolved path
# ``package.module:Class`` or ``path/to/file.py:Class``, as the arena reads bots
CLASS_SPEC = re.compile(r"([A-Za-z_][\w.]*|[^:]+\.py):([A-Za-z_]\w*)")


def load_class(entry_point: str) -> type:
    """The class ``package.module:Class`` or ``path/to/file.py:Class`` names, or a clear error."""
    where, _, attr = entry_point.rpartition(":")
    try:
        module = _load_file(where) if where.endswith(".py") else importlib.import_module(where)
    except BattleshipError:
        raise
    except ImportError as exc:
        raise BattleshipError(f"cannot import {where}: {exc}") from None
    except Exception as exc:  # the user's module failed while loading
        raise BattleshipError(f"{where} failed while loading: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, attr, None)
    if not isinstance(cls, type):
        raise BattleshipError(f"{where} has no class {attr}")
    return cls


def _load_file(where: str) -> object:
    """A module from a ``.py`` file, loaded once per process."""
    path = Path(where).expanduser().resolve()
    key = str(path)
    if key not in _FILES:
        if not path.is_file():
            raise BattleshipError(f"{where}: no such file")
        found = importlib.util.spec_from_file_location(path.stem, path)
        if found is None or found.loader is None:  # pragma: no cover - a .py file always has a loader
            raise BattleshipError(f"cannot load {where}")
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
        _FILES[key] = module
    return _FILES[key]


def is_class_spec(text: str) -> bool:
    """True when ``text`` names a class outright (``file.py:Class``, ``package.module:Class``)."""
    name = text.partition(":")[0].strip()
    return name not in _REGISTRY and name != "best" and CLASS_SPEC.fullmatch(text.strip()) is not None


def class_spec(text: str) -> ShooterSpec:
    """The spec of a class named outright (built with no arguments, reading no options), checked."""
    text = text.strip()
    if text not in _CLASSES:
        cls = load_class(text)
        missing = [a for a in ("reset", "next_shot") if not callable(getattr(cls, a, None))]
        if missing:
            raise BattleshipError(f"{text} is not a shooter: it has no {' or '.join(missing)} method")
        summary = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else f"the class {text}"
        _CLASSES[text] = ShooterSpec(text, text, summary, takes_options=False)
    return _CLASSES[text]


def register(spec: ShooterSpec) -> ShooterSpec:
    """Add a shooter to the registry, as Gymnasium registers environments.

    Parameters
    ----------
    spec : ShooterSpec
        The shooter: its name must be new, and a choosing shooter's ``passes_on`` registered already.

    Returns
    -------
    ShooterSpec
        The spec, registered: :func:`make` builds it by name from then on.

    Raises
    ------
    BattleshipError
        A name registered already.

    Examples
    --------
    >>> import battleship as bs
    >>> _ = bs.register(bs.ShooterSpec("my-random", "battleship.shooters.random:RandomShooter", "my copy"))
    >>> bs.make("my-random")
    <Shooter random>
    >>> bs.register(bs.ShooterSpec("my-random", "battleship.shooters.random:RandomShooter", "again"))
    Traceback (most recent call last):
    ...
    battleship.errors.BattleshipError: a shooter named 'my-random' is registered already
    """
    if spec.name in _REGISTRY:
        raise BattleshipError(f"a shooter named {spec.name!r} is registered already")
    missing = [n for n in spec.passes_on if n not in _REGISTRY]
    if missing:
        raise BattleshipError(
            f"shooter {spec.name!r} passes options on to {missing[0]!r}, which is not registered"
        )
    _REGISTRY[spec.name] = spec
    return spec


def names() -> list[str]:
    """Every registered shooter's name, in registration order."""
    return list(_REGISTRY)


def specs() -> dict[str, ShooterSpec]:
    """A copy of the registry: name -> spec."""
    return dict(_REGISTRY)


def informative() -> list[str]:
    """The shooters that read ``tie=informative``."""
    return [s.name for s in _REGISTRY.values() if "informative" in s.reads]


def spec(name: str) -> ShooterSpec:
    """The spec of a registered shooter (or of a class named outright), or a clear error listing them."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    if is_class_spec(name):
        return class_spec(name)
    raise BattleshipError(
        f"no shooter named {name!r}; choose one of {', '.join(_REGISTRY)}, "
        "or name a class as path/to/file.py:Class or package.module:Class"
    )


def _shown(text: str, values: Mapping[str, object]) -> str:
    """The spec as one would write it: ``text`` with keyword options appended (for error messages)."""
    if not values:
        return text
    extra = ",".join(f"{k}={v}" for k, v in values.items())
    return f"{text}{',' if ':' in text else ':'}{extra}"


def resolve(
    text: str,
    rules: Rules | None = None,
    base: Options | None = None,
    values: Mapping[str, object] | None = None,
) -> tuple[str, Options]:
    """``"name:key=value,..."`` (and keyword ``values``) as a registered name and its options, checked
    against the options that shooter takes (:meth:`ShooterSpec.build`); ``base`` is what the text
    amends.

    A shooter that chooses (``best``: the strongest measured shooter for ``rules``) becomes the one it
    chooses, with that shooter's options and then every option given here on top, each honoured
    whatever its value (``best:skew=0`` turns off the skew ``best`` plays); without rules it stays
    itself. A class named outright resolves to itself and takes no options.
    """
    values = dict(values or {})
    if is_class_spec(text):
        found = class_spec(text)
        found.build(values, base)
        return found.name, base or Options()
    name, written = split_spec(text)
    shown = _shown(text, values)
    twice = sorted(set(written) & set(values))
    if twice:
        raise BattleshipError(f"shooter {shown!r}: {twice[0]} is given twice")
    chooser = spec(name)
    options = chooser.build({**written, **values}, base, shown)
    chosen_text = chooser.choose(rules, options) if rules is not None else None
    if chosen_text is None:
        return name, options
    chosen_name, chosen_written = split_spec(chosen_text)
    chosen = spec(chosen_name)
    given = {k: v for k, v in options.named().items() if k not in CHOOSER_KEYS}
    played = chosen.build(given, chosen.build(chosen_written), f"{shown} (playing {chosen_text})")
    return chosen_name, played


def make(text: str, options: Options | None = None, **values: object) -> Shooter:
    """A new shooter, by name and options, as Gymnasium makes environments.

    Parameters
    ----------
    text : str
        ``name`` or ``name:key=value,...`` (``battleship shooters`` lists the names and options), or
        a class named outright (``path/to/file.py:Class``).
    options : Options, optional
        A base the text and the keywords amend.
    **values
        Options as keywords: ``make("density", skew=20)`` plays exactly as ``make("density:skew=20")``.

    Returns
    -------
    Shooter
        The shooter, ready for :func:`battleship.play <battleship.api.play>`.

    Raises
    ------
    BattleshipError
        An unknown shooter, key or value, naming the shooter's options.

    Examples
    --------
    >>> import battleship as bs
    >>> bs.make("density", skew=20)
    <Shooter density:skew=20>
    >>> bs.make("density:skeww=20")
    Traceback (most recent call last):
    ...
    battleship.errors.BattleshipError: ...
    """
    if options is None and not values and not is_class_spec(text):
        name, resolved = _resolved(text)
        return spec(name).new(resolved)
    name, resolved = resolve(text, base=options, values=values)
    return spec(name).make(resolved)


@functools.lru_cache(maxsize=256)
def _resolved(text: str) -> tuple[str, Options]:
    """A registered shooter's spec resolved once: a server makes a shooter for every move, and resolving
    its text took ten times longer than the shooter's own start (an error is not kept: asked again, it
    is raised again)."""
    return resolve(text)


def canonical(text: str) -> str:
    """A spec as it is written today: old spellings read and written anew (``optimal:endgame=12`` ->
    ``optimal:exact=12``), keys in the fixed order; the same play. For comparing a stored spec (a run's
    parameters, a results file) with one resolved now."""
    from battleship.shooters.options import format_spec

    return format_spec(*resolve(text))


def check(text: str, rules: Rules, **values: object) -> tuple[str, Options]:
    """Resolve a spec for ``rules`` and refuse it, saying why, when it cannot play them."""
    name, options = resolve(text, rules, values=values)
    why = spec(name).refusal(rules)
    if why:
        raise BattleshipError(why)
    return name, options


@functools.lru_cache(maxsize=256)
def checked(text: str, rules: Rules) -> tuple[str, Options]:
    """:func:`check` kept for each spec and rules (an error is not kept: asked again, it is raised again).

    ``best`` chooses its shooter for the rules at every reset, and a server resets one for every move:
    choosing took about an eighth of a busy Expert worker's time."""
    return check(text, rules)


ROLE_WORDS = {
    "recommended": "Recommended",
    "baseline": "A published baseline",
    "experiment": "An experiment, kept for comparison",
}


def _cell(text: str) -> str:
    """Text for a Markdown table cell (pipes escaped)."""
    return text.replace("|", "\\|")


def options_rows(shooter: ShooterSpec) -> list[dict[str, str]]:
    """One row per option a shooter takes: ``name``, ``default``, ``allowed`` and ``help``."""
    return [
        {"name": o.name, "default": str(o.default), "allowed": o.allowed(), "help": o.help}
        for o in shooter.accepted()
    ]


def reference_markdown() -> str:
    """The shooter reference as MyST Markdown: one section per registered shooter with what it does,
    whether it is recommended or an experiment, a table of its options (name, default, values, help),
    its old spellings, and its measured strength with the command that measured it."""
    lines = [
        "# Shooters",
        "",
        "Every shooter is named `name:key=value,...` (on the command line, in `battleship.make`, in files);",
        'keyword options work too: `make("density", skew=20)` plays as `make("density:skew=20")`. An',
        "unknown key or a bad value is refused, naming the shooter's options. A key given is honoured",
        "whatever its value: `best:skew=0` turns off the skew `best` plays. `battleship shooters` lists the",
        "same, and `battleship shooters --rules R` says which shooters play R and what `best` plays there.",
        "",
    ]
    for shooter in _REGISTRY.values():
        lines += _reference_section(shooter)
    return "\n".join(lines).rstrip() + "\n"


def _reference_section(shooter: ShooterSpec) -> list[str]:
    """One shooter's section of :func:`reference_markdown`."""
    kind = ROLE_WORDS[shooter.role]
    summary = shooter.summary[:1].upper() + shooter.summary[1:]
    lines = [
        f"## `{shooter.name}`",
        "",
        f"{summary}.",
        "",
        f"**{kind}**" + (f": {shooter.advice}." if shooter.advice else "."),
    ]
    if shooter.kernel:
        lines += ["", "Runs as a Numba kernel in the lab (thousands of games a second)."]
    if shooter.ignores:
        lines += [
            "",
            f"Leaves {' and '.join(ANSWERS[a] for a in shooter.ignores)} unread: {shooter.ignores_why}.",
        ]
    lines.append("")
    if shooter.passes_on:
        lines += [
            f"Its own options are below; it also takes every option of the shooter it plays "
            f"({', '.join(f'`{n}`' for n in shooter.passes_on)}), checked against that shooter.",
            "",
        ]
    rows = (
        options_rows(shooter)
        if not shooter.passes_on
        else [
            {"name": o.name, "default": str(o.default), "allowed": o.allowed(), "help": o.help}
            for o in shooter.options
        ]
    )
    if rows:
        lines += ["| option | default | values | what it does |", "|---|---|---|---|"]
        lines += [
            f"| `{r['name']}` | `{r['default'] or chr(34) * 2}` | `{_cell(r['allowed'])}` | {_cell(r['help'])} |"
            for r in rows
        ]
    else:
        lines.append("No options.")
    if shooter.aliases:
        lines += [
            "",
            "Old spellings, still read: " + "; ".join(f"`{a.describe()}`" for a in shooter.aliases) + ".",
        ]
    if shooter.strength:
        lines += ["", "Measured (mean shots, or turns under salvo rules; 95% interval):", ""]
        lines += [f"- {s.describe()}: `{s.command}` ({s.source})" for s in shooter.strength]
    return [*lines, ""]
