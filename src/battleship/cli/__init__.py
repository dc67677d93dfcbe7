"""The ``battleship`` command line: one Typer app, its commands grouped by module.

A command's module is imported only when that command is used (:mod:`battleship.cli.lazy`), and it
imports only what its commands need when they run, so ``battleship --help`` answers without loading
NumPy or Numba, and ``battleship calc`` loads the calculator's module and no other.

Run as the ``battleship`` program, Ctrl-C or SIGTERM before a command has started (while Python
loads it) end it at once, quietly, with the usual 130 or 143: there is nothing to keep yet. Once a
command runs, its interrupt session takes over (:mod:`battleship.cli.interrupts`).
"""

from __future__ import annotations

import os
import signal
import sys


def _end_quietly(number: int, _frame: object) -> None:
    """A signal outside any command: nothing to keep, so end without a traceback."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(128 + number)


from battleship.cli.program import AS_PROGRAM  # noqa: E402

if AS_PROGRAM:
    for _signal in (signal.SIGINT, signal.SIGTERM):
        signal.signal(_signal, _end_quietly)

import typer  # noqa: E402 -- after the handlers: loading it takes a moment

from battleship.cli import helptext, lazy  # noqa: E402

# each command and where it is defined ("module:attribute" in battleship.cli), in the order `battleship
# --help` lists them; a command's module is imported when that command is used (battleship.cli.lazy)
COMMANDS = {
    "rules": "rules:rules_cmd",
    "shooters": "rules:shooters_cmd",
    "layout": "rules:layout_cmd",
    "count": "rules:count_cmd",
    "calc": "calc:calc_cmd",
    "replay": "calc:replay_cmd",
    "play": "games:play_cmd",
    "simulate": "games:simulate_cmd",
    "compare": "games:compare_cmd",
    "report": "report:report_cmd",
    "demo": "games:demo_cmd",
    "limit": "limit:limit_cmd",
    "match": "matches:match_cmd",
    "sweep": "matches:sweep_cmd",
    "arena": "arena:arena_cmd",
    "defend": "defence:defend_cmd",
    "learn": "defence:learn_cmd",
    "serve": "serve:serve_cmd",
    "warm": "warm:warm_cmd",
    "db": "db:db_app",  # `battleship db upgrade`: the web game's store
}

app = typer.Typer(
    cls=lazy.group_class(COMMANDS),
    help="Battleship: a rules engine, the classic shooting strategies and exact inference, a probability "
    "calculator, a simulation lab, matches, layout research, and the game in the browser.",
    epilog=helptext.epilog(["battleship play best --seed 7", "battleship COMMAND --help"]),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _show_version(asked: bool) -> None:
    if asked:
        from battleship import __version__

        typer.echo(f"battleship {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", callback=_show_version, is_eager=True
    ),
) -> None:
    """Options before any command."""


def main() -> None:
    """Console entry point."""
    app()
