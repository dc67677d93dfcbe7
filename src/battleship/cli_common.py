"""What every ``battleship`` command shares: the app, consoles, common options, error handling."""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from battleship import generators, notation
from battleship.errors import BattleshipError
from battleship.options import Options, parse_spec
from battleship.rules import Rules
from battleship.shooters import SHOOTERS
from battleship.shooters.best import best_for

app = typer.Typer(
    help="Battleship: rules engine, shooters, exact inference and a simulation lab.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# piped output is not cut to 80 columns: tables keep their natural width, as in a wide terminal
console = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)

RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Preset name or rules TOML file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
SeedOpt = Annotated[int, typer.Option("--seed", "-s", help="Seed: the same seed gives the same result.")]
ShooterHelp = f"One of {', '.join(SHOOTERS)}, with options as name:key=value,... (tie, colour, weight, skew, boost, samples, budget)."
TieOpt = Annotated[
    str | None,
    typer.Option(
        "--tie",
        help="Tie rule of scoring shooters: first | random | centre | informative (optimal, montecarlo).",
    ),
]
SkewOpt = Annotated[
    bool,
    typer.Option("--skew", help="002's diagonal skew: +20% to one colour while the smallest ship floats."),
]


def shooter_options(spec: str, tie: str | None, skew: bool, r: Rules | None = None) -> tuple[str, Options]:
    """A shooter spec with the --tie and --skew flags applied on top (``best``: the record's best for ``r``)."""
    if r is not None and parse_spec(spec)[0] == "best":
        spec = best_for(r)
    name, options = parse_spec(spec)
    if tie is not None:
        options = dataclasses.replace(options, tie=tie)
    if skew and not options.skew:
        options = dataclasses.replace(options, skew=20)
    return name, options


def friendly(func):
    """Turn user errors into a one-line message and exit code 2, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
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


def read_layout_file(path: Path, r: Rules) -> np.ndarray:
    """A file of layouts, one a line in the layout format, as rows of placement indices."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BattleshipError(f"cannot read layouts file {path}: {exc.strerror}") from None
    layouts = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                layouts.append(notation.parse_layout(line, r))
            except BattleshipError as exc:
                raise BattleshipError(f"{path}: layout on line {number}: {exc}") from None
    if not layouts:
        raise BattleshipError(f"{path} holds no layouts")
    return generators.to_indices(r, layouts)
