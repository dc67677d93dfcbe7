"""What every ``battleship`` command shares: consoles, the options with one meaning everywhere, errors.

Kept light on purpose: importing this (and every command module) loads no NumPy or Numba, so that
``battleship --help`` answers at once; a command imports what it needs when it runs.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from battleship.errors import BattleshipError
from battleship.shooters import names as shooter_names

if TYPE_CHECKING:
    import numpy as np

    from battleship.rules import Rules
    from battleship.shooters.options import Options

# Piped output is never cut or squeezed: tables keep their natural width, as in a very wide terminal.
PIPE_WIDTH = 10_000
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH)
err = Console(stderr=True, width=None if sys.stderr.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH)

# ---- options with the same name, letter and meaning in every command ------------------------------
RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Preset name or rules TOML file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
SeedOpt = Annotated[int, typer.Option("--seed", "-s", help="Seed: the same seed gives the same result.")]
GamesOpt = Annotated[int, typer.Option("--games", "-n", help="Number of games.")]
JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        help="Threads, or worker processes with --cluster local (results do not depend on it).",
    ),
]
ClusterOpt = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Run the games on a Dask cluster: a scheduler address (tcp://HOST:8786) or 'local' for --jobs "
        "worker processes here. Results do not depend on it.",
    ),
]
GeneratorOpt = Annotated[
    str,
    typer.Option(
        "--generator",
        "-g",
        help="How layouts are drawn: uniform | sequential | r-blog | contest | edge | clustered | spread "
        "(:strength=S).",
    ),
]
LayoutsOpt = Annotated[
    Path | None,
    typer.Option("--layouts", help="Play on these layouts (one a line in the layout format) instead."),
]
TieOpt = Annotated[
    str | None,
    typer.Option(
        "--tie",
        help="Tie rule for every shooter that reads one: first | random | centre | informative "
        "(optimal, montecarlo, learning).",
    ),
]
SkewOpt = Annotated[
    bool,
    typer.Option(
        "--skew",
        help="C. Liam Brown's diagonal skew (+20% to one colour while the smallest ship floats), for every "
        "shooter that reads it.",
    ),
]


def shooter_help() -> str:
    """The help text of a shooter argument: every registered name, ``best`` included."""
    return (
        f"One of {', '.join(shooter_names())}, with options as name:key=value,... "
        "(see `battleship shooters`); best is the strongest measured shooter for the rules."
    )


def positive(value: int, option: str) -> int:
    """Refuse a count below one, naming the option."""
    if value < 1:
        raise BattleshipError(f"{option} must be at least 1, not {value}")
    return value


def shooter_options(spec: str, tie: str | None, skew: bool, r: Rules | None = None) -> tuple[str, Options]:
    """A shooter spec checked against the rules, ``best`` resolved, --tie and --skew applied where read.

    The flags amend only shooters that read them, so ``compare random density --skew`` skews
    density and leaves random as it is; a key written in the spec itself is always checked.
    """
    from battleship.shooters import registry

    name, options = registry.check(spec, r) if r is not None else registry.resolve(spec)
    unread = registry.spec(name).unread(r) if r is not None else None
    if unread:
        err.print(f"note: {unread}", highlight=False)
    reads = registry.spec(name).reads
    if tie is not None and "tie" in reads:
        if tie == "informative" and "informative" not in reads:
            raise BattleshipError(f"--tie informative: {name} does not read it")
        options = dataclasses.replace(options, tie=tie)
    if skew and not options.skew and "skew" in reads:
        options = dataclasses.replace(options, skew=20)
    return name, options


def label(name: str, options: Options) -> str:
    """How a resolved shooter is printed everywhere: its full spec, as one would type it."""
    from battleship.shooters.options import format_spec

    return format_spec(name, options)


def friendly(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn user errors into a one-line message and exit code 2, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BattleshipError as exc:
            err.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(2) from None
        except BrokenPipeError:
            raise typer.Exit(0) from None

    return wrapper


def emit_json(data: object) -> None:
    """One JSON document on stdout."""
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def progress_bar(disable: bool) -> Progress:
    """A Rich progress bar on stderr that vanishes when done."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=disable,
        transient=True,
    )


@contextmanager
def compiling(what: str, quiet: bool = False) -> Iterator[None]:
    """Say what is being compiled when warming up takes more than a second (the first run after install).

    Numba compiles the kernels once and caches them; a warm run loads them in a moment and says
    nothing, a cold one is told what it is waiting for, and how long it took.
    """
    if quiet:
        yield
        return
    import threading

    start = time.perf_counter()
    said = threading.Event()

    def announce() -> None:
        said.set()
        err.print(
            f"compiling {what} (the first run after an install; cached afterwards) ...", highlight=False
        )

    timer = threading.Timer(1.0, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
    if said.is_set():
        err.print(f"compiled {what} in {time.perf_counter() - start:.0f} s", highlight=False)


def read_text_file(path: Path, what: str) -> str:
    """A text file's contents, or a clear error naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BattleshipError(f"cannot read {what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise BattleshipError(f"{what} {path} is not UTF-8 text") from None


def read_layout_file(path: Path, r: Rules) -> np.ndarray:
    """A file of layouts, one a line in the layout format, as rows of placement indices."""
    from battleship import generators, notation

    layouts = []
    for number, line in enumerate(read_text_file(path, "layouts file").splitlines(), 1):
        if line.strip():
            try:
                layouts.append(notation.parse_layout(line, r))
            except BattleshipError as exc:
                raise BattleshipError(f"{path}: layout on line {number}: {exc}") from None
    if not layouts:
        raise BattleshipError(f"{path} holds no layouts")
    return generators.to_indices(r, layouts)


def games_on_layouts(games: int | None, rows: np.ndarray | None, path: Path | None) -> int:
    """How many games to play: --games, or one per layout of --layouts; more games than layouts is refused."""
    if rows is None:
        return positive(10_000 if games is None else games, "--games")
    if games is None:
        return len(rows)
    positive(games, "--games")
    if games > len(rows):
        raise BattleshipError(
            f"--games {games} but {path} holds {len(rows)} layout{'s' if len(rows) != 1 else ''}: "
            "leave out --games to play each layout once"
        )
    return games


def parse_sizes(text: str, low: int = 4, high: int = 16) -> list[int]:
    """``"6..15"`` or ``"6,8,10"`` as a list of board sides, each from ``low`` to ``high``."""
    try:
        if ".." in text:
            first, last = (int(x) for x in text.split("..", 1))
            sizes = list(range(first, last + 1))
        else:
            sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise BattleshipError(f"--sizes {text!r}: give a range like 6..15 or a list like 6,8,10") from None
    if not sizes:
        raise BattleshipError(f"--sizes {text!r} is an empty range: write the smaller side first, like 6..15")
    bad = [n for n in sizes if not low <= n <= high]
    if bad:
        raise BattleshipError(f"--sizes {text!r}: side {bad[0]} is not between {low} and {high}")
    return sizes


def one_shooter(argument: str | None, option: str | None, default: str) -> str:
    """The shooter of a one-shooter command: the SHOOTER argument, or the old ``--shooter`` option."""
    if argument is not None and option is not None and argument != option:
        raise BattleshipError(f"two shooters given ({argument} and --shooter {option}): give one")
    return argument or option or default


def print_table(
    title: str, headers: list[str], rows: list[list[str]], optional: tuple[str, ...] = (), note: str = ""
) -> None:
    """A table that never squeezes a value: in a narrow terminal the ``optional`` columns are left out
    (last first, saying so) until it fits, and what still does not fit runs past the edge unwrapped."""
    from rich.measure import Measurement
    from rich.table import Column, Table

    shown = list(headers)
    while True:
        table = Table(*(Column(h, no_wrap=True) for h in shown), title=title)
        for row in rows:
            table.add_row(*(v for h, v in zip(headers, row, strict=True) if h in shown))
        width = Measurement.get(console, console.options.update_width(PIPE_WIDTH), table).maximum
        droppable = [h for h in optional if h in shown]
        if width <= console.width or not droppable:
            break
        shown.remove(droppable[-1])
    console.print(table, width=max(width, console.width), crop=False)
    left_out = [h for h in headers if h not in shown]
    if left_out:
        console.print(
            f"(left out to fit the terminal: {', '.join(left_out)}; --json has every value)", highlight=False
        )
    if note:
        console.print(note, highlight=False)
