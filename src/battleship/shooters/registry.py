"""The shooter registry, in the manner of Gymnasium's ``register`` / ``EnvSpec`` / ``make``.

A :class:`ShooterSpec` holds everything about one shooter in one place: its name, a one-line
summary naming its source, where its class lives (loaded only when first used, so listing the
shooters costs no import of NumPy or Numba), the Numba kernel the lab plays it with (if any) and the
option keys it reads. Which rules it refuses, and why, is the class's own ``refusal`` function.

``make("density:skew=20")`` builds a shooter from a spec text; ``register`` adds your own. A spec may
also name a class outright, ``path/to/file.py:Class`` or ``package.module:Class`` (as the arena
takes bots): it is built with no arguments, reads no options and is played in Python.

What played is named one way everywhere (tables, JSON, files, game notation): the resolved spec,
``name:key=value,...`` with the options that differ from the defaults in a fixed order
(:func:`battleship.shooters.options.format_spec`), ``best`` replaced by what it plays.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battleship.errors import BattleshipError

if TYPE_CHECKING:
    from battleship.game import Shooter
    from battleship.rules import Rules
    from battleship.shooters.options import Options

# every option key; a spec names those its shooter reads (the others are refused, not ignored)
OPTION_KEYS = (
    "tie",
    "colour",
    "weight",
    "skew",
    "lattice",
    "lastship",
    "boost",
    "samples",
    "budget",
    "endgame",
    "exact",
    "second",
    "model",
    "prior",
    "rollouts",
    "width",
    "plies",
    "early",
    "fast",
)
# keys a choosing shooter (``best``) reads itself and does not hand to the shooter it chooses
CHOOSER_KEYS = ("fast",)
SCORING = ("tie", "skew", "lattice")  # what every scoring shooter reads
ANSWERS = {"sinkings": "the sinking announcements", "margin": "the spacing margin"}


@dataclass(frozen=True)
class ShooterSpec:
    """One registered shooter (see the module docstring)."""

    name: str
    entry_point: str  # "package.module:Class"; the class takes ``options`` as its first argument
    summary: str
    # the name of its Numba kernel in battleship.shooters.kernels, which plays game i of a run seeded
    # s exactly as the class reset with battleship.rng.game_rng(s, i) (check_shooter demands it)
    kernel: str | None = None
    reads: tuple[str, ...] = ()  # the option keys it reads
    # answers the rules may give that it leaves unread, as its source published it ("sinkings",
    # "margin"), and why; the CLI says so when it plays rules that give them
    ignores: tuple[str, ...] = ()
    ignores_why: str = ""
    # "package.module:function" for a shooter that plays another one chosen by the rules (``best``):
    # the function maps rules and the options given to the spec text of the shooter it plays (see
    # :func:`resolve`)
    chooses: str | None = None
    takes_options: bool = True  # False: the class is built with no arguments (a class named outright)

    def load(self) -> type:
        """The shooter's class (imported on first use)."""
        return load_class(self.entry_point)

    def choose(self, rules: Rules, options: Options | None = None) -> str | None:
        """The spec text of the shooter this one plays under ``rules`` and the options given (None: it
        plays itself)."""
        return _attribute(self.chooses)(rules, options) if self.chooses else None

    def make(self, options: Options | None = None, **kwargs: Any) -> Shooter:
        """A new shooter with these options (checked against the keys it reads)."""
        from battleship.shooters.options import Options

        options = options or Options()
        self.check_options(options)
        cls = self.load()
        return cls(options, **kwargs) if self.takes_options else cls(**kwargs)

    def refusal(self, rules: Rules) -> str | None:
        """Why this shooter cannot play ``rules``, or None when it can."""
        cls = self.load()
        why = getattr(cls, "refusal", None)
        return why(rules) if why is not None else None

    def unread(self, rules: Rules) -> str | None:
        """What ``rules`` tell the shooter that it leaves unread on purpose, and why; or None."""
        given = {"sinkings": rules.sinks.value != "none", "margin": rules.spacing.value != "touch"}
        unread = [ANSWERS[a] for a in self.ignores if given[a]]
        if not unread:
            return None
        return f"{self.name} leaves {' and '.join(unread)} of {rules.name} unread: {self.ignores_why}"

    def check_options(self, options: Options) -> None:
        """Refuse options this shooter would silently ignore."""
        ignored = [k for k in options.changed() if k not in self.reads]
        if ignored:
            reads = ", ".join(self.reads) or "no options"
            raise BattleshipError(f"{self.name} does not read {', '.join(ignored)} (it reads {reads})")
        if options.tie == "informative" and "informative" not in self.reads:
            raise BattleshipError(
                f"tie=informative is read by {' and '.join(informative())} only, not by {self.name}"
            )


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
    """Add a shooter to the registry (its name must be new)."""
    if spec.name in _REGISTRY:
        raise BattleshipError(f"a shooter named {spec.name!r} is registered already")
    unknown = [k for k in spec.reads if k not in (*OPTION_KEYS, "informative")]
    if unknown:
        raise BattleshipError(f"shooter {spec.name!r} reads unknown option {unknown[0]!r}")
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


def resolve(text: str, rules: Rules | None = None, base: Options | None = None) -> tuple[str, Options]:
    """``"name:key=value,..."`` as a registered name and its options, checked.

    A shooter that chooses (``best``: the strongest measured shooter for ``rules``) becomes the one it
    chooses, its own options then any given here on top; without rules it stays itself. A class named
    outright resolves to itself.
    """
    from battleship.shooters.options import Options, parse_spec

    if is_class_spec(text):
        return class_spec(text).name, base or Options()
    name, options = parse_spec(text, base)
    chosen_text = spec(name).choose(rules, options) if rules is not None else None
    if chosen_text is not None:
        chosen, chosen_options = parse_spec(chosen_text)
        given = {k: v for k, v in options.changed().items() if k not in CHOOSER_KEYS}
        options = dataclasses.replace(chosen_options, **given)
        name = chosen
    spec(name).check_options(options)
    return name, options


def make(text: str, options: Options | None = None, **kwargs: Any) -> Shooter:
    """A new shooter from ``name`` or ``name:key=value,...`` (``options`` are the base the text amends)."""
    name, options = resolve(text, base=options)
    return spec(name).make(options, **kwargs)


def check(text: str, rules: Rules) -> tuple[str, Options]:
    """Resolve a spec for ``rules`` and refuse it, saying why, when it cannot play them."""
    name, options = resolve(text, rules)
    why = spec(name).refusal(rules)
    if why:
        raise BattleshipError(why)
    return name, options
