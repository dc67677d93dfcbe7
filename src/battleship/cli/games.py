"""The ``play``, ``simulate``, ``compare`` and ``demo`` commands: games of one shooter, or many side by side."""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from battleship import rules as rules_mod
from battleship.cli.common import (
    ClusterOpt,
    GeneratorOpt,
    JobsOpt,
    JsonOpt,
    LayoutsOpt,
    RulesOpt,
    SeedOpt,
    SkewOpt,
    TieOpt,
    compiling,
    console,
    emit_json,
    friendly,
    games_on_layouts,
    label,
    one_shooter,
    positive,
    print_table,
    progress_bar,
    read_layout_file,
    read_text_file,
    shooter_help,
    shooter_options,
)
from battleship.errors import BattleshipError

if TYPE_CHECKING:
    import numpy as np

    from battleship.layout import Layout
    from battleship.rules import Rules
    from battleship.shooters.options import Options

ShooterArg = Annotated[str | None, typer.Argument(help=shooter_help(), show_default="random")]
OldShooterOpt = Annotated[
    str | None,
    typer.Option("--shooter", help="The old spelling of the SHOOTER argument (kept for one release)."),
]
GamesOrLayoutsOpt = Annotated[
    int | None,
    typer.Option("--games", "-n", help="Number of games (default 10,000, or one per --layouts layout)."),
]


def read_layout(text: str, r: Rules) -> Layout:
    """A layout from its text or a file holding it (the layout format or the paper's grid notation)."""
    from battleship import notation

    path = Path(text)
    if "/" not in text.strip() or path.is_file():
        text = read_text_file(path, "layout file")
    if text.lstrip().startswith("["):
        return notation.read_grid(text, r)
    return notation.parse_layout(text, r)


@friendly
def play_cmd(
    shooter: ShooterArg = None,
    rules: RulesOpt = "standard",
    seed: SeedOpt = 0,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    generator: GeneratorOpt = "uniform",
    layout: Annotated[str | None, typer.Option("--layout", help="Target layout: its text or a file.")] = None,
    old_shooter: OldShooterOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play one game and print it in the paper's game notation (replay and calc --game read it back).

    The board at the end follows as comment lines (starting with #), which the readers skip.
    """
    from battleship import generators, notation
    from battleship.game import play
    from battleship.render import grid_text
    from battleship.rng import game_rng
    from battleship.shooters import spec

    r = rules_mod.load(rules)
    target = read_layout(layout, r) if layout else generators.generate(r, generator, seed, 1)[0]
    name, options = shooter_options(one_shooter(shooter, old_shooter, "random"), tie, skew, r)
    record = play(spec(name).make(options), target, game_rng(seed, 0))  # simulate's game 0
    game_text = notation.write_game(notation.from_record(record))
    board = record.observation.text()
    if as_json:
        emit_json(
            {
                "rules": r.name,
                "shooter": label(name, options),
                "seed": seed,
                "shots": len(record.shots),
                "layout": target.text(),
                "board": board,
                "moves": record.observation.moves(),
                "notation": game_text,
            }
        )
        return
    sys.stdout.write(game_text)
    console.print(f"# {label(name, options)} sank the fleet in {len(record.shots)} shots:", highlight=False)
    for line in grid_text(record.observation.grid(), r.symbols).split("\n"):
        console.print("# ", line, sep="", highlight=False)
    console.print(f"# {board}", highlight=False, soft_wrap=True)


def write_notation(
    path: Path, r: Rules, name: str, options: Options, seed: int, rows: np.ndarray, quiet: bool
) -> None:
    """Every game of a run in the paper's notation, separated by blank lines, replayed by the readable shooter.

    The layouts are the run's own and game ``i`` draws the run's stream ``i`` (``rng.game_rng``), so
    these are the very games the run counted, shot for shot.
    """
    from battleship import generators, notation
    from battleship.game import play
    from battleship.rng import game_rng
    from battleship.shooters import spec

    if len(rows) > 100_000:
        raise BattleshipError("--notation writes at most 100,000 games; it replays each one in Python")
    if path.exists():
        raise BattleshipError(f"{path} exists: remove it or choose another file")
    with (
        path.open("w", encoding="utf-8") as handle,
        progress_bar(disable=quiet or len(rows) < 200) as progress,
    ):
        task = progress.add_task("writing games", total=len(rows))
        handle.write(notation.write_rules(r) + "\n")
        for i, row in enumerate(rows):
            record = play(spec(name).make(options), generators.to_layout(r, row), game_rng(seed, i))
            handle.write(
                notation.write_game(notation.from_record(record, "target"), rules_header=False) + "\n"
            )
            progress.advance(task)


@friendly
def simulate_cmd(
    shooter: ShooterArg = None,
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    layouts: LayoutsOpt = None,
    games: GamesOrLayoutsOpt = None,
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    out: Annotated[Path | None, typer.Option("--out", help="Write shots per game, one a line.")] = None,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    resume: Annotated[bool, typer.Option("--resume", help="Carry on the run saved in --out.")] = False,
    cluster: ClusterOpt = None,
    games_file: Annotated[
        Path | None,
        typer.Option(
            "--notation",
            help="Also write every game in the paper's game notation (at most 100,000 games), played by the "
            "readable shooter on the same layouts with the same random numbers: the games counted.",
        ),
    ] = None,
    old_shooter: OldShooterOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play many games of one shooter and summarise the shots per game (streamed: any number of games)."""
    from battleship import generators, lab

    r = rules_mod.load(rules)
    positive(jobs, "--jobs")
    name, options = shooter_options(one_shooter(shooter, old_shooter, "random"), tie, skew, r)
    rows = read_layout_file(layouts, r) if layouts is not None else None
    games = games_on_layouts(games, rows, layouts)
    shots_file = _shots_file(out, resume, r, name, options, generator, seed, games, layouts)
    done, histogram = shots_file.start(resume, r.cells) if shots_file else (0, None)
    with compiling(f"the {name} kernels", quiet=as_json):
        lab.warm_up(r, name, generator)
    from battleship.lab.pool import open_pool

    with open_pool(cluster, jobs) as pool:
        histogram, seconds = _run(
            r, name, options, games, seed, generator, rows, pool, shots_file, done, histogram, as_json
        )
    if games_file is not None:
        layout_rows = rows[:games] if rows is not None else generators.draw(r, generator, seed, games)
        write_notation(games_file, r, name, options, seed, layout_rows, as_json)
    summary = lab.summarise_histogram(histogram, r.ship_cells, seconds)
    summary = dataclasses.replace(summary, games_per_second=(games - done) / seconds if seconds > 0 else 0.0)
    shown = label(name, options)
    if as_json:
        emit_json({"shooter": shown, "rules": r.name, "seed": seed, **summary.as_dict()})
        return
    low, high = summary.ci95
    values = [
        ("mean", f"{summary.mean:.3f}  (95% CI {low:.3f} .. {high:.3f})"),
        ("sd", f"{summary.sd:.3f}"),
        ("median", f"{summary.median:g}"),
        ("mode", str(summary.mode)),
        ("min .. max", f"{summary.min} .. {summary.max}"),
        *((f"quantile {q}", f"{v:g}") for q, v in summary.quantiles.items()),
        ("perfect games", str(summary.perfect)),
        ("games per second", f"{summary.games_per_second:,.0f}"),
    ]
    print_table(
        f"{shown} on {r.name}: {games:,} games (seed {seed})",
        ["statistic", "shots"],
        [list(v) for v in values],
    )


def _shots_file(out, resume, r, name, options, generator, seed, games, layouts):
    """The --out file of a run with the parameters that must match to --resume it (None without --out)."""
    from battleship import lab

    if out is None:
        if resume:
            raise BattleshipError("--resume needs --out FILE, the run to carry on")
        return None
    params = {
        "shooter": label(name, options),
        "rules": r.to_toml(),
        "generator": generator,
        "seed": seed,
        "games": games,
        "tie": options.tie,
        "layouts": str(layouts) if layouts else None,
    }
    if set(options.changed()) - {"tie"}:
        params["options"] = dataclasses.asdict(options)
    return lab.ShotsFile(out, params, lab.chunk_size(name))


def _run(r, name, options, games, seed, generator, rows, pool, shots_file, done, histogram, quiet):
    """Stream the games from ``done`` on into the histogram (and the shots file); returns it and the seconds."""
    import numpy as np

    from battleship import lab

    if histogram is None:
        histogram = np.zeros(r.cells + 1, dtype=np.int64)
    with progress_bar(disable=quiet or (lab.is_kernel(name) and games < 100_000)) as progress:
        task = progress.add_task(f"{label(name, options)} on {r.name}", total=games, completed=done)
        start = time.perf_counter()
        if done < games:
            for chunk in lab.stream(
                r, name, games, seed=seed, generator=generator, layouts=rows, options=options, start=done,
                pool=pool, keep_shots=shots_file is not None,
            ):  # fmt: skip
                if shots_file is not None:
                    shots_file.append(chunk.shots)
                histogram += chunk.histogram
                progress.advance(task, int(chunk.histogram.sum()))
        return histogram, time.perf_counter() - start


@friendly
def compare_cmd(
    shooters: Annotated[
        list[str], typer.Argument(help="Shooters to compare on the same layouts. " + shooter_help())
    ],
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    layouts: LayoutsOpt = None,
    games: GamesOrLayoutsOpt = None,
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    figures_dir: Annotated[
        Path | None,
        typer.Option("--figures", help="Also draw the DataGenetics charts (PNG and SVG) into this folder."),
    ] = None,
    cluster: ClusterOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every shooter on the same layouts: one table with paired differences from the first."""
    from battleship import lab

    r = rules_mod.load(rules)
    positive(jobs, "--jobs")
    specs: dict[str, tuple[str, Options]] = {}
    for text in shooters:  # refuse unknown names, bad options and unplayable rules before any work
        name, options = shooter_options(text, tie, skew, r)
        specs[label(name, options)] = (name, options)
    if len(specs) < len(shooters):
        raise BattleshipError("a shooter is named twice (with the same options)")
    rows = read_layout_file(layouts, r) if layouts is not None else None
    games = games_on_layouts(games, rows, layouts)
    for name, _ in specs.values():
        with compiling(f"the {name} kernels", quiet=as_json):
            lab.warm_up(r, name, generator)
    histograms, minus_first, seconds, wall = _paired_run(
        r, specs, games, seed, generator, rows, cluster, jobs, as_json
    )
    summaries, differences = {}, {}
    for i, shown in enumerate(specs):
        # the run's wall time, shared among the shooters by the time each spent playing
        share = wall * seconds[i] / seconds.sum() if seconds.sum() > 0 else 0.0
        summaries[shown] = lab.summarise_histogram(histograms[i], r.ship_cells, share)
        differences[shown] = lab.paired_from_sums(games, int(minus_first[i, 0]), int(minus_first[i, 1]))
    first = next(iter(specs))
    written = []
    if figures_dir is not None:
        from battleship.lab import figures

        written = figures.compare_charts(
            dict(zip(specs, histograms, strict=True)),
            r.cells,
            r.ship_cells,
            figures_dir,
            f"{r.name}, {games:,} games",
        )
    if as_json:
        emit_json(
            {
                "rules": r.name,
                "seed": seed,
                "games": games,
                "shooters": {
                    name: {
                        **s.as_dict(),
                        "minus_first": differences[name][0],
                        "minus_first_ci95": list(differences[name][1]),
                    }
                    for name, s in summaries.items()
                },
                "figures": [str(p) for p in written],
            }
        )
        return
    _print_compare(r, games, seed, summaries, differences, first, written)


def _paired_run(r, specs, games, seed, generator, rows, cluster, jobs, quiet):
    """Every shooter on the same games: histograms, sums of differences from the first, seconds each, wall time."""
    import numpy as np

    from battleship import lab
    from battleship.lab.pool import open_pool

    histograms = np.zeros((len(specs), r.cells + 1), dtype=np.int64)
    minus_first = np.zeros((len(specs), 2), dtype=np.int64)
    seconds = np.zeros(len(specs))
    with open_pool(cluster, jobs) as pool, progress_bar(disable=quiet) as progress:
        task = progress.add_task(f"{len(specs)} shooters on {r.name}", total=games)
        start = time.perf_counter()
        for chunk in lab.stream_paired(r, list(specs.values()), games, seed, generator, rows, pool):
            histograms += chunk.histograms
            minus_first += chunk.minus_first
            seconds += chunk.seconds
            progress.advance(task, int(chunk.histograms[0].sum()))
        return histograms, minus_first, seconds, time.perf_counter() - start


def _print_compare(r, games, seed, summaries, differences, first, written) -> None:
    headers = [
        "shooter",
        "mean (95% CI)",
        "sd",
        "median",
        "mode",
        "min",
        "max",
        "games/s",
        f"minus {first} (95% CI)",
    ]
    rows = []
    for name, s in summaries.items():
        diff, (low, high) = differences[name]
        rows.append(
            [
                name,
                f"{s.mean:.2f} ({s.ci95[0]:.2f} .. {s.ci95[1]:.2f})",
                f"{s.sd:.2f}",
                f"{s.median:g}",
                str(s.mode),
                str(s.min),
                str(s.max),
                f"{s.games_per_second:,.0f}",
                "" if name == first else f"{diff:+.3f} ({low:+.3f} .. {high:+.3f})",
            ]
        )
    note = ("charts: " + ", ".join(str(p) for p in written)) if written else ""
    title = f"{r.name}: {games:,} games each, the same layouts (seed {seed})"
    print_table(title, headers, rows, optional=("median", "games/s", "min", "max", "mode", "sd"), note=note)


@friendly
def demo_cmd(seed: SeedOpt = 0, as_json: JsonOpt = False) -> None:
    """One game of every registered shooter on one standard layout, with each final board."""
    from battleship import generators
    from battleship.game import play
    from battleship.render import grid_text
    from battleship.rng import game_rng
    from battleship.shooters import specs

    r = rules_mod.preset("standard")
    target = generators.generate(r, "uniform", seed, 1)[0]
    # learning needs a model fitted to recorded layouts; best is one of the others
    playable = [s for s in specs().values() if s.name not in ("learning", "best") and s.refusal(r) is None]
    with compiling("every shooter's kernels", quiet=as_json):
        records = {s.name: play(s.make(), target, game_rng(seed, 0)) for s in playable}
    if as_json:
        emit_json(
            {
                "rules": r.name,
                "seed": seed,
                "layout": target.text(),
                "games": {
                    name: {"shots": len(rec.shots), "board": rec.observation.text()}
                    for name, rec in records.items()
                },
            }
        )
        return
    console.print(f"[bold]{r.describe()}[/]\nHidden layout (seed {seed}):", highlight=False)
    console.print(grid_text(target.grid(), r.symbols))
    for name, record in records.items():
        console.print(f"\n[bold]{name}[/]: {len(record.shots)} shots", highlight=False)
        console.print(grid_text(record.observation.grid(), r.symbols))
