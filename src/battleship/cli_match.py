"""The ``match`` and ``sweep`` commands: two players, each hiding a fleet, firing in turn (001)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Column, Table

from battleship import lab
from battleship import rules as rules_mod
from battleship.cli_common import JsonOpt, RulesOpt, SeedOpt, app, console, emit_json, friendly, progress_bar
from battleship.errors import BattleshipError
from battleship.match import PUBLISHED_001, MatchResult, Side, play_match, sweep
from battleship.options import format_spec, parse_spec
from battleship.rules import Rules
from battleship.shooters.best import best_for

JobsOpt = Annotated[int, typer.Option("--jobs", "-j", help="Threads (results do not depend on it).")]
FirstOpt = Annotated[str, typer.Option("--first", help="Who moves first: alternate (game by game) | a | b.")]


def side(spec: str, r: Rules, generator: str = "uniform") -> Side:
    """A player from a shooter spec (``best``: the record's best for ``r``), checked against the rules."""
    name, options = parse_spec(best_for(r) if parse_spec(spec)[0] == "best" else spec)
    lab.check(name, r)
    label = format_spec(name, options) + ("" if generator == "uniform" else f" [{generator}]")
    return Side(name, options, generator, label)


def parse_sizes(text: str) -> list[int]:
    """``6..15`` or ``6,8,10`` as a list of board sides (4 to 16)."""
    try:
        if ".." in text:
            low, high = (int(x) for x in text.split(".."))
            sizes = list(range(low, high + 1))
        else:
            sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise BattleshipError(f"--sizes {text!r}: write 6..15 or 6,8,10") from None
    if not sizes or any(not 4 <= n <= 16 for n in sizes):
        raise BattleshipError(f"--sizes {text!r}: sides run from 4 to 16")
    return sizes


def _ci(low_high: tuple[float, float]) -> str:
    return f"{low_high[0]:.3f} .. {low_high[1]:.3f}"


@app.command("match")
@friendly
def match_cmd(
    a: Annotated[str, typer.Argument(help="Player A's shooter (name:key=value,... or best).")],
    b: Annotated[str, typer.Argument(help="Player B's shooter.")],
    games: Annotated[int, typer.Option("--games", "-n", help="Games in the match.")] = 10_000,
    size: Annotated[int | None, typer.Option("--size", help="Play on an n x n board (001's boards).")] = None,
    rules: RulesOpt = "standard",
    generator_a: Annotated[str, typer.Option("--generator-a", help="How A hides its fleet.")] = "uniform",
    generator_b: Annotated[str, typer.Option("--generator-b", help="How B hides its fleet.")] = "uniform",
    first: FirstOpt = "alternate",
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    as_json: JsonOpt = False,
) -> None:
    """Two shooters, each hiding its own fleet, fire in turn: win rates, first-mover advantage, moves."""
    if size is not None:
        if rules != "standard":
            raise BattleshipError("give --size (001's n x n board, standard fleet) or --rules, not both")
        if not 4 <= size <= 16:
            raise BattleshipError(f"--size {size}: sides run from 4 to 16")
        r = rules_mod.square(size)
    else:
        r = rules_mod.load(rules)
    side_a, side_b = side(a, r, generator_a), side(b, r, generator_b)
    if side_a.label == side_b.label:
        side_b = Side(side_b.name, side_b.options, side_b.generator, side_b.label + " (B)")
    with progress_bar(disable=as_json) as progress:
        progress.add_task(f"{side_a.label} v {side_b.label}", total=None)
        result = play_match(r, side_a, side_b, games, seed=seed, jobs=jobs, first=first)
    if as_json:
        emit_json(result.as_dict())
        return
    console.print(_match_table([result], f"{r.name}: {games:,} games (seed {seed}, first: {first})"))


def _match_table(results: list[MatchResult], title: str, published: bool = False) -> Table:
    table = Table(
        "rules",
        Column("A v B", no_wrap=True),
        Column("A wins (95% CI)", no_wrap=True),
        Column("first mover wins (95% CI)", no_wrap=True),
        "moves/2n² mean",
        "median",
        "mode",
        "A shots",
        "B shots",
        *(
            [Column("001: win", no_wrap=True), Column("001: mean, median, mode", no_wrap=True)]
            if published
            else []
        ),
        title=title,
    )
    for m in results:
        extra = []
        if published:
            n = int(m.rules.split("-")[1])
            key = (
                next((k for k in PUBLISHED_001[n] if m.b.startswith(k)), None) if n in PUBLISHED_001 else None
            )
            paper = PUBLISHED_001[n][key] if key and m.b.split(":")[0] == key else None
            extra = [f"{paper[0]:g}", " ".join(f"{x:.3f}" for x in paper[1:])] if paper else ["", ""]
        table.add_row(
            m.rules,
            f"{m.a} v {m.b}",
            f"{m.a_win_rate:.3f} ({_ci(m.a_win_rate_ci95)})",
            f"{m.first_mover_win_rate:.3f} ({_ci(m.first_mover_win_rate_ci95)})",
            f"{m.moves_mean_scaled:.3f}",
            f"{m.moves_median_scaled:.3f}",
            f"{m.moves_mode_scaled:.3f}",
            f"{m.a_shots_mean:.2f}",
            f"{m.b_shots_mean:.2f}",
            *extra,
        )
    return table


@app.command("sweep")
@friendly
def sweep_cmd(
    sizes: Annotated[str, typer.Option("--sizes", help="Board sides: 6..15 or 6,8,10.")] = "6..15",
    shooter: Annotated[
        str, typer.Option("--shooter", help="001's Optimal: this project's shooter.")
    ] = "best",
    against: Annotated[
        str, typer.Option("--against", help="Opponents, comma separated (001: random, hunt-target).")
    ] = "random,hunt-target",
    games: Annotated[int, typer.Option("--games", "-n", help="Games per match.")] = 10_000,
    first: FirstOpt = "alternate",
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    as_json: JsonOpt = False,
) -> None:
    """001's section 7 tables: a shooter against Random and Hunt Target on every side length."""
    sides = parse_sizes(sizes)
    opponents_specs = [s.strip() for s in against.split(",") if s.strip()]
    if not opponents_specs:
        raise BattleshipError("--against names no opponent")
    probe = rules_mod.square(sides[0])
    player = side(shooter, probe)
    opponents = [side(spec, probe) for spec in opponents_specs]
    results = []
    with progress_bar(disable=as_json) as progress:
        task = progress.add_task("sides", total=len(sides) * len(opponents))
        for result in sweep(sides, player, opponents, games, seed=seed, jobs=jobs, first=first):
            results.append(result)
            progress.advance(task)
    if as_json:
        emit_json(
            {
                "games": games,
                "seed": seed,
                "first": first,
                "matches": [m.as_dict() for m in results],
                "published_001": {str(n): PUBLISHED_001[n] for n in sides if n in PUBLISHED_001},
            }
        )
        return
    title = f"{player.label} against {', '.join(o.label for o in opponents)}: {games:,} games a match"
    console.print(_match_table(results, title, published=True))
