"""The ``match`` and ``sweep`` commands: two players, each hiding a fleet, firing in turn (the Dunman High paper)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from battleship import rules as rules_mod
from battleship.cli.common import (
    MAX_JOBS,
    ClusterOpt,
    GeneratorOpt,
    JobsOpt,
    JsonOpt,
    Pace,
    ResumeOpt,
    RulesOpt,
    SeedOpt,
    SkewOpt,
    TieOpt,
    compiling,
    emit_json,
    forewarn_play,
    friendly,
    games_on_layouts,
    games_option,
    label,
    load_rules,
    one_shooter,
    output_file,
    parse_sizes,
    positive,
    print_table,
    progress_bar,
    read_layout_file,
    session,
    shooter_help,
    shooter_options,
)
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError
from battleship.words import counted

if TYPE_CHECKING:
    import numpy as np

    from battleship.lab.match import MatchResult, Side
    from battleship.rules import Rules

FirstOpt = Annotated[str, typer.Option("--first", help="Who moves first: alternate (game by game) | a | b.")]
TurnsOpt = Annotated[
    str,
    typer.Option(
        "--turns",
        help="alternate (one side then the other) | simultaneous (both fire at once, BattleSalvo's rule: "
        "both fleets sinking in the same turn is a tie).",
    ),
]


def side(spec: str, r: Rules, generator: str, tie: str | None = None, skew: bool = False) -> Side:
    """A player from a shooter spec (``best`` resolved for ``r``), checked against the rules."""
    from battleship.lab.match import Side

    name, options = shooter_options(spec, tie, skew, r)
    shown = label(name, options) + ("" if generator == "uniform" else f" [{generator}]")
    return Side(name, options, generator, shown)


def _ci(low_high: tuple[float, float]) -> str:
    return f"{low_high[0]:.3f} .. {low_high[1]:.3f}"


MatchLayoutsOpt = Annotated[
    Path | None,
    typer.Option(
        "--layouts",
        help="Both sides hide these layouts, game N the Nth of the file (one a line; '-': standard input); "
        "--games N plays the first N.",
    ),
]


def _fleets(r: Rules, both: Path | None, a: Path | None, b: Path | None, games: int | None):
    """(games, (layouts A hides, layouts B hides)) from --layouts, --layouts-a, --layouts-b (None: drawn)."""
    if both is not None and (a is not None or b is not None):
        raise BattleshipError("give --layouts (both sides) or --layouts-a/--layouts-b, not both")
    if both is not None:
        games, rows = games_on_layouts(games, read_layout_file(both, r), both)
        return games, (rows, rows)
    given = {path: read_layout_file(path, r) for path in (a, b) if path is not None}
    if not given:
        games, _ = games_on_layouts(games, None, None)
        return games, (None, None)
    path = min(given, key=lambda p: len(given[p]))  # the file with the fewest layouts
    games, _ = games_on_layouts(games, given[path], path)
    return games, tuple(None if p is None else given[p][:games] for p in (a, b))


class MatchRun:
    """A pairing's games counted so far (resumed from --out, then played), and how to say what was kept."""

    def __init__(self, rules: Rules, first: str, games: int, out: Path | None, turns: str = "alternate"):
        self.rules, self.first, self.games, self.out, self.turns = rules, first, games, out, turns
        self.totals: list | None = None
        self.done = 0

    def add_rows(self, rows: np.ndarray) -> None:
        """Count games read back from the file (``(games, 1 + opponents)`` shots)."""
        from battleship.lab.match import add_tallies, tally_rows

        self.totals = add_tallies(
            self.totals, tally_rows(rows, self.done, self.first, self.rules, self.turns)
        )
        self.done += len(rows)

    def kept(self) -> str:
        from battleship.cli.games import kept_games

        return kept_games(lambda: self.done, self.games, self.out)()


@examples(
    "battleship match best hunt-target --rules square-8 --games 1000 --seed 1",
    "battleship match density random --rules salvo --turns simultaneous --games 1000",
)
@friendly
def match_cmd(
    a: Annotated[str, typer.Argument(help="Player A's shooter. " + shooter_help())],
    b: Annotated[str, typer.Argument(help="Player B's shooter.")],
    games: Annotated[
        int | None,
        typer.Option("--games", "-n", help="Number of games (default 10,000, or one per --layouts layout)."),
    ] = None,
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    generator_a: Annotated[
        str | None, typer.Option("--generator-a", help="How A hides its fleet (default: --generator).")
    ] = None,
    generator_b: Annotated[
        str | None, typer.Option("--generator-b", help="How B hides its fleet (default: --generator).")
    ] = None,
    layouts: MatchLayoutsOpt = None,
    layouts_a: Annotated[
        Path | None,
        typer.Option("--layouts-a", help="The layouts A hides, game N the Nth (instead of drawn)."),
    ] = None,
    layouts_b: Annotated[
        Path | None,
        typer.Option("--layouts-b", help="The layouts B hides, game N the Nth (instead of drawn)."),
    ] = None,
    first: FirstOpt = "alternate",
    turns: TurnsOpt = "alternate",
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    cluster: ClusterOpt = None,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write every game's shots (A's, then B's) to this file, one game a line (--resume carries it "
            "on); under salvo rules A's and B's turns, their shots, and the winner (1 A, 2 B, 0 a tie).",
        ),
    ] = None,
    resume: ResumeOpt = False,
    size: Annotated[
        int | None, typer.Option("--size", help="Old spelling of --rules square-N (kept for one release).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Two shooters, each hiding its own fleet, fire in turn: win rates, first-mover advantage, moves.

    Under salvo rules each side fires the salvo its own fleet gives it (shots = "afloat": one shot per
    ship still afloat), and the figures are in turns. Ctrl-C stops within two seconds, keeping every
    finished game in --out; --resume carries it on.
    """
    from battleship.lab.match import SALVO_COLUMNS, Side, check_turns

    positive(jobs, "--jobs", MAX_JOBS)
    check_turns(turns, first)
    if size is not None:
        if rules != "standard":
            raise BattleshipError(
                "give --size (the paper's n x n board, standard fleet) or --rules, not both"
            )
        if not 4 <= size <= 16:
            raise BattleshipError(f"--size {size}: sides run from 4 to 16")
        r = rules_mod.square(size)
    else:
        r = load_rules(rules)
    side_a = side(a, r, generator_a or generator, tie, skew)
    side_b = side(b, r, generator_b or generator, tie, skew)
    if side_a.label == side_b.label:
        side_b = Side(side_b.name, side_b.options, side_b.generator, side_b.label + " (B)")
    games, fleets = _fleets(r, layouts, layouts_a, layouts_b, games)
    params = {
        "a": side_a.label, "b": side_b.label, "rules": r.to_toml(), "seed": seed, "games": games,
        "first": first, "layouts_sha256": [_digest(rows) for rows in fleets],
    }  # fmt: skip
    if turns != "alternate":  # only when asked, so that files written before --turns still resume
        params["turns"] = turns
    run = MatchRun(r, first, games, out, turns)
    columns = [side_a.label, side_b.label] if r.salvo is None else list(SALVO_COLUMNS)
    shots_file = _start_file(out, resume, params, columns, run.add_rows)
    forewarn_play(r, [side_a.name, side_b.name], games - run.done)  # the games left after --resume
    result = _play(
        r, side_a, [side_b], games, seed, first, jobs, cluster, fleets, shots_file, run, as_json, turns=turns
    )
    from battleship.lab.match import summarise

    match = summarise(r, side_a, side_b, result[0], seed, first, turns)
    if as_json:
        emit_json(match.as_dict())
        return
    how = f"first: {first}" if turns == "alternate" else "simultaneous turns"
    _match_table([match], f"{r.name}: {counted(games, 'game')} (seed {seed}, {how})")


def _digest(rows: np.ndarray | None) -> str | None:
    import hashlib

    return None if rows is None else hashlib.sha256(rows.tobytes()).hexdigest()


def _start_file(
    out: Path | None, resume: bool, params: dict, columns: list[str], on_rows: Callable[[np.ndarray], None]
):
    """The --out file (None without one), the games it already holds handed to ``on_rows``."""
    from battleship.lab import ShotsFile

    if out is None:
        if resume:
            raise BattleshipError("--resume needs --out FILE, the run to carry on")
        return None
    output_file(out, "--out")
    shots_file = ShotsFile(out, params, columns)
    shots_file.start(resume, on_rows)
    return shots_file


def _play(
    r, player, opponents, games, seed, first, jobs, cluster, fleets, shots_file, run, quiet, keep_message=True,
    turns="alternate",
):  # fmt: skip
    """Play the pairings from ``run.done`` on, writing and counting every chunk; returns the totals."""
    from battleship.lab.match import add_tallies, stream_pairings
    from battleship.lab.pool import open_pool

    s = session()
    if keep_message:
        s.keeping(run.kept)
    for one in (player, *opponents):
        if r.salvo is not None:
            break  # salvo games are played in Python, turn by turn: no kernel to compile
        with compiling(f"the {one.name} kernels", quiet=quiet):
            s.run(lab_warm_up, r, one)
    with open_pool(cluster, jobs) as pool, progress_bar(quiet) as progress:
        vs = " v ".join(o.label for o in (player, *opponents))
        task = progress.add_task(f"{vs} on {r.name}", total=games, completed=run.done)
        pace = Pace(games, run.done, quiet)
        chunks = stream_pairings(
            r, player, opponents, games, seed, first, pool, start=run.done, fleets=fleets,
            keep_shots=shots_file is not None, stop=s.stop, turns=turns,
        ) if run.done < games else ()  # fmt: skip
        for chunk in chunks:
            with s.committing():
                if shots_file is not None:
                    shots_file.append(chunk.shots)
                run.totals = add_tallies(run.totals, chunk.tallies)
                run.done += chunk.games
            progress.advance(task, chunk.games)
            pace.after(run.done, "fewer --games, more --jobs, or --cluster")
    s.check()
    return run.totals


def lab_warm_up(r: Rules, one: Side) -> None:
    from battleship import lab

    lab.warm_up(r, one.name, one.generator)


def _paper_figures(m: MatchResult) -> list[str]:
    """The Dunman High paper's win rate and moves for this board and opponent, when it gives them."""
    from battleship.lab.match import PUBLISHED_001

    n = int(m.rules.split("-")[1])
    key = next((k for k in PUBLISHED_001.get(n, {}) if m.b.startswith(k)), None)
    paper = PUBLISHED_001[n][key] if key and m.b.split(":")[0] == key else None
    return [f"{paper[0]:g}", " ".join(f"{x:.3f}" for x in paper[1:])] if paper else ["", ""]


def _match_table(results: list[MatchResult], title: str, published: bool = False) -> None:
    salvo = any(m.unit == "turns" for m in results)
    tied = any(m.turns == "simultaneous" for m in results)
    headers = [
        "rules", "A v B", "A wins (95% CI)", "first mover wins (95% CI)", "moves/2n² mean", "median", "mode",
        "A shots", "B shots",
    ]  # fmt: skip
    if tied:
        headers[2:4] = ["A wins (95% CI)", "B wins (95% CI)", "ties (95% CI)"]
    if salvo:
        headers[-2:-2] = ["A turns", "B turns"]
    if published:
        headers += ["paper: win", "paper: mean, median, mode"]
    print_table(title, headers, [_match_row(m, tied, salvo, published) for m in results], optional=(
        "B shots", "A shots", "mode", "median", "rules",
    ))  # fmt: skip


def _match_row(m: MatchResult, tied: bool, salvo: bool, published: bool) -> list[str]:
    """One match's row of the table: wins (and ties, with simultaneous turns), moves, turns and shots."""
    row = [m.rules, f"{m.a} v {m.b}", f"{m.a_win_rate:.3f} ({_ci(m.a_win_rate_ci95)})"]
    if tied:
        row += [
            f"{m.b_win_rate:.3f} ({_ci(m.b_win_rate_ci95)})",
            f"{m.tie_rate:.3f} ({_ci(m.tie_rate_ci95)})",
        ]
    else:
        assert m.first_mover_win_rate is not None and m.first_mover_win_rate_ci95 is not None
        row.append(f"{m.first_mover_win_rate:.3f} ({_ci(m.first_mover_win_rate_ci95)})")
    row += [f"{m.moves_mean_scaled:.3f}", f"{m.moves_median_scaled:.3f}", f"{m.moves_mode_scaled:.3f}"]
    if salvo:
        row += [f"{m.a_turns_mean:.2f}", f"{m.b_turns_mean:.2f}"]
    row += [f"{m.a_shots_mean:.2f}", f"{m.b_shots_mean:.2f}", *(_paper_figures(m) if published else [])]
    return row


@examples("battleship sweep best --sizes 6..10 --games 1000 --seed 1 --jobs 2")
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
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write every game to this file, one a line: the side, the shooter's shots, each opponent's "
            "(--resume carries it on).",
        ),
    ] = None,
    resume: ResumeOpt = False,
    old_shooter: Annotated[
        str | None,
        typer.Option("--shooter", help="The old spelling of the SHOOTER argument (kept for one release)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The paper's section 7 tables: a shooter against Random and Hunt Target on every side length.

    Ctrl-C stops within two seconds, keeping every finished game in --out; --resume carries it on.
    """
    import numpy as np

    from battleship.lab.match import PUBLISHED_001, first_movers, summarise

    games_option(games)
    positive(jobs, "--jobs", MAX_JOBS)
    first_movers(1, first)
    sides = parse_sizes(sizes)
    opponents_specs = [s.strip() for s in against.split(",") if s.strip()]
    if not opponents_specs:
        raise BattleshipError("--against names no opponent")
    probe = rules_mod.square(sides[0])
    player = side(one_shooter(shooter, old_shooter, "best"), probe, generator, tie, skew)
    opponents = [side(spec, probe, generator, tie, skew) for spec in opponents_specs]
    runs = {n: MatchRun(rules_mod.square(n), first, games, out) for n in sides}
    params = {
        "shooter": player.label, "against": [o.label for o in opponents], "sides": sides, "games": games,
        "seed": seed, "first": first, "generator": generator,
    }  # fmt: skip
    columns = ["side", player.label, *(o.label for o in opponents)]

    def add_rows(rows: np.ndarray) -> None:
        for n in np.unique(rows[:, 0]):
            if int(n) not in runs:
                raise BattleshipError(f"{out} holds games of side {n}, which --sizes {sizes} does not")
            runs[int(n)].add_rows(rows[rows[:, 0] == n, 1:])

    shots_file = _start_file(out, resume, params, columns, add_rows)
    session().keeping(lambda: _kept_sweep(runs, games, out))
    results = []
    for n in sides:
        rows_file = None if shots_file is None else _SideFile(shots_file, n)
        totals = _play(
            runs[n].rules, player, opponents, games, seed, first, jobs, cluster, (None, None), rows_file,
            runs[n], as_json, keep_message=False,
        )  # fmt: skip
        results += [
            summarise(runs[n].rules, player, o, t, seed, first)
            for o, t in zip(opponents, totals, strict=True)
        ]
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
    title = (
        f"{player.label} against {', '.join(o.label for o in opponents)}: {counted(games, 'game')} a match"
    )
    _match_table(results, title, published=True)


class _SideFile:
    """The sweep's one file seen by one side's games: each line starts with the side."""

    def __init__(self, shots_file, side: int):
        self.shots_file, self.side = shots_file, side

    def append(self, shots: np.ndarray) -> None:
        import numpy as np

        self.shots_file.append(np.column_stack([np.full(len(shots), self.side), shots]))


def _kept_sweep(runs: dict[int, MatchRun], games: int, out: Path | None) -> str:
    done = sum(run.done for run in runs.values())
    total = games * len(runs)
    if out is None:
        return f"{done:,} of {total:,} games played, none kept (--out FILE keeps them, --resume carries on)"
    return f"kept {done:,} of {total:,} games in {out}; the same command with --resume carries on"
