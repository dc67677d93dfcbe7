"""``battleship arena``: bring your own bot, and rank it against the others on the same battlefields."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from battleship.cli.common import (
    GamesOpt,
    GeneratorOpt,
    JsonOpt,
    RulesOpt,
    SeedOpt,
    console,
    emit_json,
    err,
    friendly,
    print_table,
    progress_bar,
)

if TYPE_CHECKING:
    from battleship.lab.arena import ArenaResult

BOT_HELP = (
    "Bots: a registered shooter (density:skew=20, best; see 'battleship shooters'), a Python class with the "
    "Shooter protocol (package.module:Class or path/to/file.py:Class), or exec:COMMAND, a program in any "
    "language speaking the arena protocol (docs/arena-protocol.md)."
)


@friendly
def arena_cmd(
    bots: Annotated[list[str], typer.Argument(help=BOT_HELP, metavar="BOT...")],
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    games: GamesOpt = 1000,
    seed: SeedOpt = 0,
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit", help="Seconds a bot may take for a shot (the C# Pirates contest's 0.5)."
        ),
    ] = 0.5,
    start_limit: Annotated[
        float, typer.Option("--start-limit", help="Seconds a program may take to start and read the rules.")
    ] = 10.0,
    cpu_limit: Annotated[
        float | None,
        typer.Option(
            "--cpu-limit",
            help="CPU seconds a program may use in one game (default: the time limit "
            "for every cell, plus the start limit).",
        ),
    ] = None,
    memory_limit: Annotated[
        int, typer.Option("--memory-limit", help="Megabytes of data memory a program may allocate.")
    ] = 1024,
    matches: Annotated[
        bool,
        typer.Option(
            "--matches", help="Also play every pair head to head (each hides a fleet, turns alternate)."
        ),
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Save the run as JSON (the web app's arena page shows it).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Every bot on the same battlefields: a leaderboard with 95% intervals, paired differences from the
    leader, forfeits by cause and time per shot; --matches adds head-to-head win rates."""  # fmt: skip
    from battleship import rules as rules_mod
    from battleship.lab import arena

    r = rules_mod.load(rules)
    parsed = [arena.parse_bot(text, r) for text in bots]
    limits = arena.Limits(time_limit, start_limit, cpu_limit, memory_limit)
    per_bot = games * (len(bots) if matches else 1)  # its battlefields, then each opponent's fleets
    with progress_bar(disable=as_json) as progress:
        task = progress.add_task("games", total=len(bots) * per_bot)
        result = arena.run(r, parsed, games, seed, generator, limits, matches, lambda: progress.advance(task))
    if out is not None:
        arena.save(result, out)
    if as_json:
        emit_json(result.as_dict())
        return
    _print(result)
    if out is not None:
        console.print(f"saved to {out}; 'battleship serve --arena {out}' shows it at /arena", highlight=False)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}" if value < 1 else f"{value:.1f}"


def _forfeit_text(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    if not total:
        return "0"
    return f"{total} (" + ", ".join(f"{c} {n}" for c, n in counts.items() if n) + ")"


def _print(result: ArenaResult) -> None:
    title = (
        f"{result.rules}: {result.games:,} battlefields ({result.generator}, seed {result.seed}), "
        f"{result.time_limit:g} s a shot; a forfeit scores {result.forfeit_score}"
    )
    rows = [
        [
            str(row.rank), row.bot, row.kind, f"{row.mean:.2f}", f"{row.ci95[0]:.2f} .. {row.ci95[1]:.2f}",
            f"{row.minus_leader:+.2f}", f"{row.minus_leader_ci95[0]:+.2f} .. {row.minus_leader_ci95[1]:+.2f}",
            _forfeit_text(row.forfeits), _ms(row.time_per_shot_ms["median"]), _ms(row.time_per_shot_ms["worst"]),
        ]
        for row in result.leaderboard
    ]  # fmt: skip
    headers = ["#", "bot", "kind", "mean shots", "95% interval", "- leader", "95% interval ", "forfeits",
               "ms/shot median", "ms/shot worst"]  # fmt: skip
    timed = "registered kernels are timed a game at a time (the game's time over its shots)"
    print_table(title, headers, rows, optional=("kind", "95% interval "), note=timed)
    examples = [(row.bot, e) for row in result.leaderboard for e in row.forfeit_examples]
    examples += [(f"{e['bot']} (against {p.b if e['bot'] == p.a else p.a})", e)
                 for p in result.matches or () for e in p.forfeit_examples]  # fmt: skip
    for bot, e in examples:
        err.print(f"{bot}, game {e['game']}: {e['cause']}: {e['detail']}", highlight=False, markup=False)
    if result.matches:
        rows = [
            [p.a, p.b, f"{p.a_wins}/{p.games}", f"{p.a_win_rate:.3f}",
             f"{p.a_win_rate_ci95[0]:.3f} .. {p.a_win_rate_ci95[1]:.3f}", str(p.a_forfeits), str(p.b_forfeits)]
            for p in result.matches
        ]  # fmt: skip
        print_table("head to head (A moves first in even games)", ["A", "B", "A wins", "A win rate",
                    "95% interval", "A forfeits", "B forfeits"], rows)  # fmt: skip
