"""What every ``battleship`` command shares: consoles, the options with one meaning everywhere, errors.

Kept light on purpose: importing this (and every command module) loads no NumPy or Numba, so that
``battleship --help`` answers at once; a command imports what it needs when it runs.
"""

from __future__ import annotations

import functools
import json
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from battleship.cli.output import PIPE_WIDTH, console, err
from battleship.errors import BattleshipError, NotationError
from battleship.words import counted

if TYPE_CHECKING:
    import numpy as np
    from rich.progress import Progress

    from battleship.cli.interrupts import Session
    from battleship.rules import Rules
    from battleship.shooters.options import Options


def print_error(message: str) -> None:
    """The one line of a refused command on stderr: ``error: message`` (the message printed as written,
    brackets and all, never read as Rich markup)."""
    from rich.markup import escape

    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)


def refuse_at_parse(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An option's callback from ``check``: the value it returns, or the one-line error and exit code 2 of a
    :class:`BattleshipError` (what :func:`friendly` does for errors raised once the command runs)."""

    def callback(value: Any) -> Any:  # not functools.wraps: Typer reads the callback's own signature
        try:
            return check(value)
        except BattleshipError as exc:
            print_error(str(exc))
            raise typer.Exit(2) from None

    return callback


def seed_option(value: int | None, option: str = "--seed") -> int | None:
    """A seed the random streams use every bit of: from 0 to 2^64 - 1 (a seed outside would alias one inside)."""
    from battleship.seeds import check_seed

    return None if value is None else check_seed(value, option)


def cluster_option(value: str | None) -> str | None:
    """--cluster, refused at once (not after the kernels compile) when the cluster extra is missing."""
    if value is not None:
        from battleship.extras import require

        require("cluster", "--cluster")
    return value


# ---- options with the same name, letter and meaning in every command ------------------------------
RulesOpt = Annotated[
    str, typer.Option("--rules", "-r", help="Preset name or rules TOML file ('-': standard input).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
SeedOpt = Annotated[
    int,
    typer.Option(
        "--seed",
        "-s",
        help="Seed, from 0 to 2^64 - 1: the same seed gives the same result.",
        callback=refuse_at_parse(seed_option),
    ),
]
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
        callback=refuse_at_parse(cluster_option),
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
    typer.Option(
        "--layouts",
        help="Play on these layouts (one a line in the layout format; '-': standard input) instead; "
        "--games N plays the first N.",
    ),
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", help="Write every game's shots to this file, one game a line (--resume carries it on)."
    ),
]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Carry on the run saved in --out (after Ctrl-C or a kill).")
]
MAX_GAMES = 10**10  # more than a day of the fastest shooter on every core of a large machine
MAX_JOBS = 1024
TIE_RULES = ("first", "random", "centre", "informative")


def tie_option(value: str | None) -> str | None:
    """--tie: one of :data:`TIE_RULES`, refused otherwise even for shooters that do not read it (a typo is
    never silently dropped)."""
    if value is not None and value not in TIE_RULES:
        raise BattleshipError(f"--tie {value!r} is not one of {', '.join(TIE_RULES)}")
    return value


TieOpt = Annotated[
    str | None,
    typer.Option(
        "--tie",
        help=f"Tie rule for every shooter that reads one: {' | '.join(TIE_RULES)} "
        "(optimal, montecarlo, learning).",
        callback=refuse_at_parse(tie_option),
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
    from battleship.shooters import names as shooter_names  # here: the commands without one skip the registry

    return (
        f"One of {', '.join(shooter_names())}, with options as name:key=value,... "
        "(see `battleship shooters`); best is the strongest measured shooter for the rules."
    )


def positive(value: int, option: str, high: int | None = None) -> int:
    """Refuse a count below one (or above ``high``), naming the option and its range."""
    if value < 1:
        raise BattleshipError(f"{option} must be at least 1, not {value}")
    if high is not None and value > high:
        raise BattleshipError(f"{option} runs from 1 to {high:,}, not {value:,}")
    return value


def games_option(value: int, option: str = "--games") -> int:
    """A number of games: from 1 to :data:`MAX_GAMES`."""
    return positive(value, option, MAX_GAMES)


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
        options = options.replace(tie=tie)
    if skew and not options.skew and "skew" in reads:
        options = options.replace(skew=20)
    return name, options


def label(name: str, options: Options) -> str:
    """How a resolved shooter is printed everywhere: its full spec, as one would type it."""
    from battleship.shooters.options import format_spec

    return format_spec(name, options)


def friendly(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command in an interrupt session (:mod:`battleship.cli.interrupts`) and turn user errors into
    a one-line message and exit code 2, never a traceback; an interrupt exits 130 (SIGTERM: 143)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _stdin_read
        from battleship.cli import interrupts

        _stdin_read = False
        from battleship.stop import Stopped

        with interrupts.session() as s:
            try:
                result = func(*args, **kwargs)
            except Stopped as exc:
                if s.signalled:
                    s.interrupted()
                print_error(str(exc))
                raise typer.Exit(2) from None
            except BattleshipError as exc:
                if s.signalled:  # the work failed because it was stopped
                    s.interrupted()
                print_error(str(exc))
                raise typer.Exit(2) from None
            except KeyboardInterrupt:  # raised by code outside the session's handlers
                s.stop.signal = s.stop.signal or signal.SIGINT
                s.interrupted()
            except BrokenPipeError:
                raise typer.Exit(0) from None
            except ImportError as exc:  # an optional package missing where no guard asked for it first
                _refuse_missing_extra(exc)
            except OSError as exc:  # a file the user named that cannot be read or written
                _refuse_file_error(exc)
            s.check()  # a signal during the last moments: the work is done, and says so
            return result

    return wrapper


def _refuse_missing_extra(exc: ImportError) -> None:
    """A missing package of an extra: its install line and exit code 2; any other import error is a bug."""
    from battleship.extras import EXTRAS, MissingExtra, providing

    extra = providing(exc.name)
    if extra is None:
        raise exc
    print_error(str(MissingExtra(extra, EXTRAS[extra][0], exc.name or "")))
    raise typer.Exit(2) from None


def _refuse_file_error(exc: OSError) -> None:
    """A file or folder that cannot be read or written: what and where in one line, exit code 2."""
    if exc.filename is None:
        raise exc
    print_error(f"{exc.filename}: {exc.strerror or exc}")
    raise typer.Exit(2) from None


def session() -> Session:
    """The running command's interrupt session: its stop flag, what it keeps, how it ends."""
    from battleship.cli import interrupts

    return interrupts.current()


def emit_json(data: object) -> None:
    """One JSON document on stdout."""
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def on_terminal() -> bool:
    """True when both stdout and stderr are a terminal: progress is shown then, never in pipes or files."""
    return sys.stdout.isatty() and sys.stderr.isatty()


def progress_bar(disable: bool = False) -> Progress:
    """A Rich progress bar on stderr that vanishes when done: what, how far, time so far and time left.

    Shown only on a terminal (:func:`on_terminal`) and never when ``disable`` (``--json``). A task with
    no known total shows a spinner and the time so far; put the up-front estimate in its description.
    The library's long waits under it (:mod:`battleship.waiting`) are shown in the latest task's words.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return _bar_class()(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=err,
        disable=disable or not on_terminal(),
        transient=True,
    )


@functools.cache
def _bar_class() -> type[Progress]:
    """Rich's Progress, showing the library's long waits beside the latest task's description instead of
    lines on stderr (made when first used: Rich's progress module takes a tenth of a second to load)."""
    from rich.progress import Progress

    from battleship import waiting

    class Bar(Progress):
        def __enter__(self) -> Bar:
            super().__enter__()
            if not self.disable:
                self._shown = waiting.shown_by(self._wait)
                self._shown.__enter__()
            return self

        def __exit__(self, *exc: Any) -> None:
            shown = getattr(self, "_shown", None)
            if shown is not None:
                shown.__exit__(None, None, None)
            super().__exit__(*exc)

        def _wait(self, words: str) -> None:
            if not self.task_ids:
                return
            task = self._tasks[self.task_ids[-1]]
            # the words before the wait's: kept while the description is the one set here, else the command's
            base = (
                task.fields.get("base") if task.fields.get("shown") == task.description else task.description
            )
            shown = f"{base} ({words})" if words else str(base)
            self.update(task.id, description=shown, base=base, shown=shown)

    return Bar


LONG = 60.0  # seconds past which a command says up front how long it expects to take


class Pace:
    """Says once, a second or so into a run of games, when at its pace the whole will take more than
    :data:`LONG` seconds (the first games measure what no formula can: this shooter on these rules)."""

    def __init__(self, total: int, done: int = 0, quiet: bool = False):
        self.total, self.first, self.quiet = total, done, quiet
        self.start = time.monotonic()
        self.said = False

    def after(self, done: int, instead: str) -> None:
        """Called after each batch of games, ``done`` in all so far."""
        elapsed = time.monotonic() - self.start
        if self.said or self.quiet or done <= self.first or elapsed < 1.0:
            return
        self.said = True
        rate = (done - self.first) / elapsed
        forewarn(elapsed + (self.total - done) / rate, counted(self.total - self.first, "game"), instead)


EXACT_PLAY = ("optimal", "learning")  # shooters that count every consistent layout before each shot


def forewarn_play(r: Rules, names: list[str], games: int) -> None:
    """Say up front when a shooter counting every layout each shot makes ``games`` games far too long."""
    slow = [name for name in names if name in EXACT_PLAY]
    if slow:
        from battleship.cli.estimate import game_seconds

        per_game = game_seconds(r)  # measured per engine: see cli/estimate.py
        forewarn(
            per_game * games * len(slow),
            f"{', '.join(slow)} counting every layout before each shot, over {counted(games, 'game')}",
            "a shooter with a kernel (battleship shooters), fewer games, or a smaller board",
        )


def forewarn(seconds: float | None, what: str, instead: str, quiet: bool = False) -> None:
    """Say before the work starts when it is expected to take more than :data:`LONG` seconds, and what to do
    instead (on stderr, so scripts reading stdout are not disturbed)."""
    if seconds is not None and seconds > LONG:
        from battleship.inference.cost import duration

        err.print(f"note: {what} is expected to take about {duration(seconds)}; {instead}", highlight=False)


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


STDIN = "-"
_stdin_read = False


def read_text_file(path: Path | str, what: str) -> str:
    """A text file's contents (``-``: standard input, which can be read once), or a clear error naming it."""
    global _stdin_read
    if str(path) == STDIN:
        if _stdin_read:
            raise BattleshipError(f"standard input is read once: give the {what} as a file")
        _stdin_read = True
        try:
            return sys.stdin.read()
        except UnicodeDecodeError:
            raise BattleshipError(f"the {what} on standard input is not UTF-8 text") from None
    from battleship.files import read_text

    return read_text(path, what)


def output_file(path: Path | None, option: str) -> Path | None:
    """The file an output option names (None: not given), checked before any work: its missing folders are
    created, a folder of that name or a file in the way of its folder refused in one line."""
    from battleship.files import output_file as checked

    return None if path is None else checked(path, f"{option} {path}")


def output_folder(path: Path | None, option: str) -> Path | None:
    """The folder an output option names (None: not given), created now with its missing parents, or a
    one-line error when a file is in the way."""
    from battleship.files import make_folder

    return None if path is None else make_folder(path, f"{option} {path}")


def source_name(path: Path | str) -> str:
    """How a file the user gave is named in messages (``-`` is standard input)."""
    return "standard input" if str(path) == STDIN else str(path)


def load_rules(text: str) -> Rules:
    """The rules a ``--rules`` option names: a preset, a TOML file, or ``-`` for TOML on standard input."""
    from battleship import rules as rules_mod

    if text == STDIN:
        return rules_mod.from_toml(read_text_file(STDIN, "rules"), source="standard input")
    return rules_mod.load(text)


def read_layout_file(path: Path | str, r: Rules) -> np.ndarray:
    """A file of layouts, one a line in the layout format (``-``: standard input), as rows of placement indices."""
    from battleship import generators, notation

    layouts = []
    where = source_name(path)
    for number, line in enumerate(read_text_file(path, "layouts file").splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                layouts.append(notation.parse_layout(line, r))
            except NotationError as exc:  # its own "line 1" is this file's line ``number``
                column = f"column {exc.column}: " if exc.column is not None else ""
                raise BattleshipError(f"{where}: layout on line {number}: {column}{exc.reason}") from None
            except BattleshipError as exc:
                raise BattleshipError(f"{where}: layout on line {number}: {exc}") from None
    if not layouts:
        raise BattleshipError(f"{where} holds no layouts")
    return generators.to_indices(r, layouts)


def games_on_layouts(
    games: int | None, rows: np.ndarray | None, path: Path | str | None
) -> tuple[int, np.ndarray | None]:
    """How many games to play, and the layouts they are played on.

    Without --layouts: --games (10,000 by default). With them: one game a layout, or with --games N the
    first N of the file (said on stderr); more games than layouts is refused.
    """
    if rows is None:
        return games_option(10_000 if games is None else games), None
    if games is None:
        return len(rows), rows
    games_option(games)
    where = source_name(path or STDIN)
    if games > len(rows):
        raise BattleshipError(
            f"--games {games:,} but {where} holds {len(rows):,} layout{'s' if len(rows) != 1 else ''}: "
            "leave out --games to play each layout once"
        )
    if games < len(rows):
        err.print(
            f"note: playing the first {games:,} of the {counted(len(rows), 'layout')} in {where}",
            highlight=False,
        )
    return games, rows[:games]


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
