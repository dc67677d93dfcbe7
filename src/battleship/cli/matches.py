"""The ``match`` and ``sweep`` commands: two players, each hiding a fleet, firing in turn (the Dunman High paper)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from battleship import rules as rules_mod
from battleship.cli.common import (
    ClusterOpt,
    GamesOpt,
    GeneratorOpt,
    JobsOpt,
    JsonOpt,
    RulesOpt,
    SeedOpt,
    SkewOpt,
    TieOpt,
    emit_json,
    friendly,
    label,
    one_shooter,
    parse_sizes,
    positive,
    print_table,
    progress_bar,
    shooter_help,
    shooter_options,
)
from battleship.errors import BattleshipError

if TYPE_CHECKING:
    from battleship.lab.match import MatchResult, Side
    from battleship.rules import Rules

FirstOpt = Annotated[str, typer.Option("--first", help="Who moves first: alternate (game by game) | a | b.")]


def side(spec: str, r: Rules, generator: str, tie: str | None = None, skew: bool = False) -> Side:
    """A player from a shooter spec (``best`` resolved for ``r``), checked against the rules."""
    from battleship.lab.match import Side

    name, options = shooter_options(spec, tie, skew, r)
    shown = label(name, options) + ("" if generator == "uniform" else f" [{generator}]")
    return Side(name, options, generator, shown)


def _ci(low_high: tuple[float, float]) -> str:
    return f"{low_high[0]:.3f} .. {low_high[1]:.3f}"


@friendly
def match_cmd(
    a: Annotated[str, typer.Argument(help="Player A's shooter. " + shooter_help())],
    b: Annotated[str, typer.Argument(help="Player B's shooter.")],
    games: GamesOpt = 10_000,
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    generator_a: Annotated[
        str | None, typer.Option("--generator-a", help="How A hides its fleet (default: --generator).")
    ] = None,
    generator_b: Annotated[
        str | None, typer.Option("--generator-b", help="How B hides its fleet (default: --generator).")
    ] = None,
    first: FirstOpt = "alternate",
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    cluster: ClusterOpt = None,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    size: Annotated[
        int | None, typer.Option("--size", help="Old spelling of --rules square-N (kept for one release).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Two shooters, each hiding its own fleet, fire in turn: win rates, first-mover advantage, moves."""
    from battleship.lab.match import Side, play_match

    positive(games, "--games")
    positive(jobs, "--jobs")
    if size is not None:
        if rules != "standard":
            raise BattleshipError(
                "give --size (the paper's n x n board, standard fleet) or --rules, not both"
            )
        if not 4 <= size <= 16:
            raise BattleshipError(f"--size {size}: sides run from 4 to 16")
        r = rules_mod.square(size)
    else:
        r = rules_mod.load(rules)
    side_a = side(a, r, generator_a or generator, tie, skew)
    side_b = side(b, r, generator_b or generator, tie, skew)
    if side_a.label == side_b.label:
        side_b = Side(side_b.name, side_b.options, side_b.generator, side_b.label + " (B)")
    from battleship.lab.pool import open_pool

    with open_pool(cluster, jobs) as pool, progress_bar(disable=as_json) as progress:
        task = progress.add_task(f"{side_a.label} v {side_b.label}", total=games)
        result = play_match(
            r, side_a, side_b, games, seed=seed, first=first, pool=pool,
            on_chunk=lambda done: progress.advance(task, done),
        )  # fmt: skip
    if as_json:
        emit_json(result.as_dict())
        return
    _match_table([result], f"{r.name}: {games:,} games (seed {seed}, first: {first})")


def _paper_figures(m: MatchResult) -> list[str]:
    """The Dunman High paper's win rate and moves for this board and opponent, when it gives them."""
    from battleship.lab.match import PUBLISHED_001

    n = int(m.rules.split("-")[1])
    key = next((k for k in PUBLISHED_001.get(n, {}) if m.b.startswith(k)), None)
    paper = PUBLISHED_001[n][key] if key and m.b.split(":")[0] == key else None
    return [f"{paper[0]:g}", " ".join(f"{x:.3f}" for x in paper[1:])] if paper else ["", ""]


def _match_table(results: list[MatchResult], title: str, published: bool = False) -> None:
    headers = [
        "rules", "A v B", "A wins (95% CI)", "first mover wins (95% CI)", "moves/2n² mean", "median", "mode",
        "A shots", "B shots",
    ]  # fmt: skip
    if published:
        headers += ["paper: win", "paper: mean, median, mode"]
    rows = [
        [
            m.rules,
            f"{m.a} v {m.b}",
            f"{m.a_win_rate:.3f} ({_ci(m.a_win_rate_ci95)})",
            f"{m.first_mover_win_rate:.3f} ({_ci(m.first_mover_win_rate_ci95)})",
            f"{m.moves_mean_scaled:.3f}",
            f"{m.moves_median_scaled:.3f}",
            f"{m.moves_mode_scaled:.3f}",
            f"{m.a_shots_mean:.2f}",
            f"{m.b_shots_mean:.2f}",
            *(_paper_figures(m) if published else []),
        ]
        for m in results
    ]
    print_table(title, headers, rows, optional=("B shots", "A shots", "mode", "median", "rules"))


@friendly
def sweep_cmd(
    shooter: Annotated[
        str | None, typer.Argument(help="The paper's Optimal: this project's shooter (default best).")
    ] = None,
    sizes: Annotated[str, typer.Option("--sizes", help="Board sides: 6..15 or 6,8,10.")] = "6..15",
    against: Annotated[
        str, typer.Option("--against", help="Opponents, comma separated (the paper: random, hunt-target).")
    ] = "random,hunt-target",
    games: Annotated[int, typer.Option("--games", "-n", help="Games per match.")] = 10_000,
    generator: GeneratorOpt = "uniform",
    first: FirstOpt = "alternate",
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    cluster: ClusterOpt = None,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    old_shooter: Annotated[
        str | None,
        typer.Option("--shooter", help="The old spelling of the SHOOTER argument (kept for one release)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The paper's section 7 tables: a shooter against Random and Hunt Target on every side length."""
    from battleship.lab.match import PUBLISHED_001, sweep

    positive(games, "--games")
    positive(jobs, "--jobs")
    sides = parse_sizes(sizes)
    opponents_specs = [s.strip() for s in against.split(",") if s.strip()]
    if not opponents_specs:
        raise BattleshipError("--against names no opponent")
    probe = rules_mod.square(sides[0])
    player = side(one_shooter(shooter, old_shooter, "best"), probe, generator, tie, skew)
    opponents = [side(spec, probe, generator, tie, skew) for spec in opponents_specs]
    from battleship.lab.pool import open_pool

    results = []
    with open_pool(cluster, jobs) as pool, progress_bar(disable=as_json) as progress:
        task = progress.add_task("games", total=len(sides) * games)
        results = list(
            sweep(
                sides, player, opponents, games, seed=seed, first=first, pool=pool,
                on_chunk=lambda done: progress.advance(task, done),
            )
        )  # fmt: skip
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
    _match_table(results, title, published=True)
