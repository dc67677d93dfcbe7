"""The ``battleship`` command line."""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Column, Table

from battleship import cli_defence, cli_match, cli_serve, figures, generators, lab, notation, sampling, shapes  # noqa: F401 (they register their commands)
from battleship import posterior as posterior_mod
from battleship import rules as rules_mod
from battleship.cells import cell_name
from battleship.cli_common import (
    JsonOpt,
    RulesOpt,
    SeedOpt,
    ShooterHelp,
    SkewOpt,
    TieOpt,
    app,
    console,
    emit_json,
    friendly,
    progress_bar,
    read_layout_file,
    shooter_options,
)
from battleship.density import best_cells
from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.game import play as play_game
from battleship.layout import Layout
from battleship.options import Options, format_spec, parse_spec
from battleship.render import grid_text, heat_text
from battleship.rules import Rules
from battleship.shooters import SHOOTERS, make
from battleship.shooters.best import best_for


def rules_json(r: Rules) -> dict:
    """Rules as plain data."""
    return {
        "name": r.name,
        "rows": r.rows,
        "cols": r.cols,
        "spacing": r.spacing.value,
        "sinks": r.sinks.value,
        "reflections": r.reflections,
        "fleet": [
            {
                "name": s.name,
                "symbol": s.symbol,
                "size": s.size,
                "cells": [list(c) for c in s.cells],
            }
            for s in r.fleet
        ],
    }


def read_layout(text: str, r: Rules) -> Layout:
    """A layout from notation text or a file holding it (layout format or 001's grid)."""
    path = Path(text)
    if "/" not in text.strip() or path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise BattleshipError(f"cannot read layout file {path}: {exc.strerror}") from None
    if text.lstrip().startswith("["):
        return notation.read_grid(text, r)
    return notation.parse_layout(text, r)


@app.command("rules")
@friendly
def rules_cmd(
    name: Annotated[str | None, typer.Argument(help="A preset or rules file to show.")] = None,
    toml: Annotated[bool, typer.Option("--toml", help="Print the rules as TOML.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """List the rule presets, or show one (as a table, TOML or JSON)."""
    if name is None:
        if as_json:
            emit_json(
                [{"name": k, "description": d, **rules_json(r)} for k, (d, r) in rules_mod.PRESETS.items()]
            )
            return
        table = Table("preset", "board", "fleet", "spacing", "sinks", "what it is", title="Rule presets")
        for key, (desc, r) in rules_mod.PRESETS.items():
            fleet = " ".join(f"{s.symbol}{s.size}" for s in r.fleet)
            table.add_row(key, f"{r.rows}x{r.cols}", fleet, r.spacing.value, r.sinks.value, desc)
        console.print(table)
        return
    r = rules_mod.load(name)
    if toml:
        sys.stdout.write(r.to_toml())
    elif as_json:
        emit_json(rules_json(r))
    else:
        table = Table("ship", "symbol", "size", "shape", "placements", title=r.describe())
        for ship, ms in zip(r.fleet, r.placements, strict=True):
            table.add_row(ship.name, ship.symbol, str(ship.size), shapes.render(ship.cells), str(len(ms)))
        console.print(table)


@app.command("layout")
@friendly
def layout_cmd(
    rules: RulesOpt = "standard",
    generator: Annotated[
        str,
        typer.Option(
            "--generator",
            "-g",
            help="uniform | sequential | r-blog | edge | clustered | spread (:strength=S)",
        ),
    ] = "uniform",
    seed: SeedOpt = 0,
    count: Annotated[int | None, typer.Option("--count", "-n", help="Print N layouts, one a line.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Draw seeded layouts: one as a grid, or N one per line in the layout format."""
    r = rules_mod.load(rules)
    if count is not None and count < 0:
        raise BattleshipError("--count must be at least 0")
    n = 1 if count is None else count
    indices = generators.draw(r, generator, seed, n)
    if as_json:
        lines = generators.format_lines(r, indices).decode().split()
        emit_json({"rules": r.name, "generator": generator, "seed": seed, "layouts": lines})
    elif count is None:
        layout = generators.to_layout(r, indices[0])
        console.print(grid_text(layout.grid(), r.symbols))
        console.print(notation.format_layout(layout), highlight=False, soft_wrap=True)
    else:
        out = sys.stdout.buffer
        chunk = 65536
        for first in range(0, n, chunk):
            out.write(generators.format_lines(r, indices[first : first + chunk]))
        out.flush()


def parse_sizes(text: str) -> list[int]:
    """``"6..15"`` or ``"6,8,10"`` as a list of board sides."""
    try:
        if ".." in text:
            low, high = (int(x) for x in text.split("..", 1))
            return list(range(low, high + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise BattleshipError(f"--sizes {text!r}: give a range like 6..15 or a list like 6,8,10") from None


@app.command("count")
@friendly
def count_cmd(
    rules: RulesOpt = "standard",
    sizes: Annotated[
        str | None, typer.Option("--sizes", help="Square boards with the standard fleet, e.g. 6..15.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The number of layouts, with same-shaped ships told apart (distinct) and not (identical)."""
    targets = (
        [rules_mod.square(n) for n in parse_sizes(sizes)] if sizes is not None else [rules_mod.load(rules)]
    )
    rows = []
    with progress_bar(disable=as_json or len(targets) == 1) as progress:
        task = progress.add_task("counting", total=len(targets))
        for r in targets:
            start = time.perf_counter()
            layouts, engine = posterior_mod.count(r)
            rows.append(
                {
                    "rules": r.name,
                    "board": f"{r.rows}x{r.cols}",
                    "spacing": r.spacing.value,
                    "distinct": layouts,
                    "identical": layouts // posterior_mod.identical_factor(r),
                    "engine": engine,
                    "seconds": time.perf_counter() - start,
                }
            )
            progress.advance(task)
    if as_json:
        emit_json(rows if sizes is not None else rows[0])
        return
    table = Table(
        "rules",
        "board",
        "spacing",
        "layouts (distinct ships)",
        "layouts (identical ships)",
        "engine",
        "seconds",
    )
    for row in rows:
        table.add_row(
            row["rules"],
            row["board"],
            row["spacing"],
            f"{row['distinct']:,}",
            f"{row['identical']:,}",
            row["engine"],
            f"{row['seconds']:.3f}",
        )
    console.print(table)
    console.print(
        "distinct: ships of the same shape are different ships (the standard fleet's two 3-ships); "
        "identical: swapping them gives the same layout.",
        highlight=False,
    )


def read_board_arg(board: str, r: Rules) -> notation.BoardState:
    """A board state given as text or as a file holding it."""
    path = Path(board)
    if path.is_file():
        try:
            return notation.parse_board(path.read_text(encoding="utf-8"), r)
        except OSError as exc:
            raise BattleshipError(f"cannot read board file {path}: {exc.strerror}") from None
    try:
        return notation.parse_board(board, r)
    except BattleshipError:
        if board.startswith(("/", "./", "~")) or path.suffix:
            raise BattleshipError(f"{board}: no such board file (and not a board state either)") from None
        raise


def read_game_record(path: Path, r: Rules, player: str | None):
    """``(player, record)`` of one shooter in a game file in 001's notation (default: the first who shot)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BattleshipError(f"cannot read game file {path}: {exc.strerror}") from None
    records = notation.read_game(text, r).records()
    if not records:
        raise BattleshipError(f"{path}: nobody has fired yet")
    name = player or next(iter(records))
    if name not in records:
        raise BattleshipError(f"{path}: {name!r} fired no shots; shooters: {', '.join(records)}")
    return name, records[name]


@app.command("calc")
@friendly
def calc_cmd(
    board: Annotated[
        str | None, typer.Argument(help="A board state (one line, rows split by '/') or a file holding one.")
    ] = None,
    rules: RulesOpt = "standard",
    game: Annotated[
        Path | None, typer.Option("--game", help="A game in 001's notation: its shots, in their order.")
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", help="With --game: whose shots (default: the first who shot).")
    ] = None,
    percent: Annotated[
        bool, typer.Option("--percent", help="Show each cell's probability in percent.")
    ] = False,
    png: Annotated[
        Path | None, typer.Option("--png", help="Also draw the heat map to this PNG file.")
    ] = None,
    seconds: Annotated[
        float | None,
        typer.Option("--time", help="Monte Carlo with this time budget instead of exact counts."),
    ] = None,
    skew: SkewOpt = False,
    seed: SeedOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Hit probabilities of every cell given what has been seen: exact counts, or Monte Carlo with --time."""
    r = rules_mod.load(rules)
    if (board is None) == (game is None):
        raise BattleshipError("give a board state or --game FILE (one of the two)")
    if game is not None:
        observation = read_game_record(game, r, player)[1].observation
    else:
        observation = read_board_arg(board, r).observation()
    grid = notation.board_state(observation).grid()
    start = time.perf_counter()
    estimate = None
    if seconds is not None:
        if seconds <= 0:
            raise BattleshipError("--time must be a positive number of seconds")
        estimate = sampling.monte_carlo(r, observation, seconds, seed)
        probability, layouts, engine = (
            estimate.probability,
            None,
            f"monte carlo ({estimate.samples:,} samples)",
        )
    else:
        result = posterior_mod.posterior(r, observation)
        probability, layouts, engine = result.probability, result.layouts, result.engine
    elapsed = time.perf_counter() - start
    flat = probability.ravel()
    best = best_cells(r, observation, probability, 20 if skew else 0)
    names = [cell_name(c, r.cols) for c in best]
    if png is not None:
        figures.heat_map(probability, grid, png, f"{r.name}: P(ship), {len(observation.shots)} shots", best)
    if as_json:
        data = {
            "rules": r.name,
            "layouts": layouts,
            "probability": [[float(x) for x in row] for row in probability],
            "best": names,
            "shots": len(observation.shots),
            "engine": engine,
            "seconds": elapsed,
        }
        if estimate is not None:
            data["samples"] = estimate.samples
            data["standard_error"] = [[float(x) for x in row] for row in estimate.standard_error]
        emit_json(data)
        return
    console.print(heat_text(probability, grid, percent, frozenset(best)))
    if layouts is not None:
        console.print(f"layouts left: {layouts:,} ({engine}, {elapsed:.3f} s)", highlight=False)
    else:
        worst = float(estimate.standard_error.max())
        console.print(
            f"{engine} in {elapsed:.2f} s; every cell within +-{196 * worst:.2f} percentage points "
            f"(95% interval; largest standard error {100 * worst:.2f})",
            highlight=False,
        )
    label = "best cell" if len(names) == 1 else "best cells (tied)"
    if names:
        shown = flat[best[0]]
        console.print(
            f"{label}{' with skew' if skew else ''}: {', '.join(names)} ({100 * shown:.2f}%)", highlight=False
        )
    if png is not None:
        console.print(f"heat map: {png}", highlight=False)


@app.command("replay")
@friendly
def replay_cmd(
    game: Annotated[Path, typer.Argument(help="A game in 001's notation.")],
    rules: RulesOpt = "standard",
    player: Annotated[
        str | None, typer.Option("--player", help="Whose shots (default: the first who shot).")
    ] = None,
    frames: Annotated[
        Path | None, typer.Option("--frames", help="Write one PNG per turn into this folder.")
    ] = None,
    gif: Annotated[Path | None, typer.Option("--gif", help="Write the turns as one animated GIF.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """000's walkthrough: every turn's exact probability map beside the board, the chosen cell marked."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    r = rules_mod.load(rules)
    if frames is None and gif is None:
        raise BattleshipError("say where the pictures go: --frames DIR and/or --gif FILE")
    name, record = read_game_record(game, r, player)
    hidden = record.layout.grid() if record.layout is not None else None
    if frames is not None:
        frames.mkdir(parents=True, exist_ok=True)
    images, turns = [], []
    shots = record.shots
    with progress_bar(disable=as_json) as progress:
        task = progress.add_task(f"replaying {name}", total=len(shots))
        for turn, shot in enumerate(shots):
            before = Observation(r, shots[:turn])
            result = posterior_mod.posterior(r, before)
            seen = notation.board_state(before).grid()
            p = float(result.probability.ravel()[shot.cell])
            title = f"turn {turn + 1}: {cell_name(shot.cell, r.cols)} ({100 * p:.1f}%), {shot.outcome.value}"
            fig = figures.replay_frame(result.probability, seen, hidden, shot.cell, title)
            canvas = FigureCanvasAgg(fig)
            if frames is not None:
                fig.savefig(frames / f"turn-{turn + 1:03d}.png", dpi=90)
            if gif is not None:
                canvas.draw()
                images.append(Image.fromarray(np.asarray(canvas.buffer_rgba())).convert("P"))
            turns.append(
                {
                    "turn": turn + 1,
                    "cell": cell_name(shot.cell, r.cols),
                    "probability": p,
                    "outcome": shot.outcome.value,
                    "layouts": result.layouts,
                }
            )
            progress.advance(task)
    if gif is not None:
        gif.parent.mkdir(parents=True, exist_ok=True)
        images[0].save(gif, save_all=True, append_images=images[1:], duration=900, loop=0)
    if as_json:
        emit_json(
            {
                "player": name,
                "turns": turns,
                "frames": str(frames) if frames else None,
                "gif": str(gif) if gif else None,
            }
        )
        return
    console.print(
        f"{len(turns)} turns of {name}: " + ", ".join(str(x) for x in (frames, gif) if x is not None),
        highlight=False,
    )


@app.command("play")
@friendly
def play_cmd(
    shooter: Annotated[str, typer.Option("--shooter", help=ShooterHelp)] = "random",
    rules: RulesOpt = "standard",
    seed: SeedOpt = 0,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    generator: Annotated[str, typer.Option("--generator", "-g", help="Layout generator.")] = "uniform",
    layout: Annotated[
        str | None, typer.Option("--layout", help="Target layout: notation text or a file.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Play one game and print it in 001's game notation, with the board at the end."""
    r = rules_mod.load(rules)
    target = read_layout(layout, r) if layout else generators.generate(r, generator, seed, 1)[0]
    name, options = shooter_options(shooter, tie, skew, r)
    player = make(name, options)
    record = play_game(player, target, np.random.default_rng([seed, 1]))
    game_text = notation.write_game(notation.from_record(record))
    board = notation.format_board(record.observation)
    if as_json:
        emit_json(
            {
                "rules": r.name,
                "shooter": shooter,
                "seed": seed,
                "shots": len(record.shots),
                "layout": notation.format_layout(target),
                "board": board,
                "moves": record.observation.moves(),
                "notation": game_text,
            }
        )
        return
    sys.stdout.write(game_text)
    console.print(f"\n{shooter} sank the fleet in {len(record.shots)} shots:", highlight=False)
    console.print(grid_text(notation.board_state(record.observation).grid(), r.symbols))
    console.print(board, highlight=False, soft_wrap=True)


def write_notation(
    path: Path, r: Rules, name: str, options: Options, games: int, seed: int, generator, rows, quiet
):
    """Every game of a run in 001's notation, separated by blank lines, replayed by the readable shooter.

    The layouts are the run's own; a shooter that draws random numbers draws them from its own
    generator here (seeded by the game number), so its moves follow the same law but are not the
    kernel's very moves. Deterministic shooters (ties ``first`` or ``centre``) make the same moves.
    """
    if games > 100_000:
        raise BattleshipError("--notation writes at most 100,000 games; it replays each one in Python")
    if path.exists():
        raise BattleshipError(f"{path} exists: remove it or choose another file")
    layouts = rows[:games] if rows is not None else generators.draw(r, generator, seed, games)
    with path.open("w", encoding="utf-8") as handle, progress_bar(disable=quiet or games < 200) as progress:
        task = progress.add_task("writing games", total=games)
        for i, row in enumerate(layouts):
            record = play_game(
                make(name, options), generators.to_layout(r, row), np.random.default_rng([seed, i])
            )
            handle.write(notation.write_game(notation.from_record(record, "target")) + "\n")
            progress.advance(task)


@app.command("simulate")
@friendly
def simulate_cmd(
    shooter: Annotated[str, typer.Option("--shooter", help=ShooterHelp)] = "random",
    rules: RulesOpt = "standard",
    generator: Annotated[str, typer.Option("--generator", "-g", help="Layout generator.")] = "uniform",
    layouts: Annotated[
        Path | None, typer.Option("--layouts", help="Play on these layouts, one a line.")
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games.")] = 10_000,
    seed: SeedOpt = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Threads (results do not depend on it).")] = 1,
    out: Annotated[Path | None, typer.Option("--out", help="Write shots per game, one a line.")] = None,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    resume: Annotated[bool, typer.Option("--resume", help="Carry on the run saved in --out.")] = False,
    games_file: Annotated[
        Path | None,
        typer.Option(
            "--notation",
            help="Also write every game in 001's notation (at most 100,000 games), played by the readable "
            "shooter on the same layouts.",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Play many games of one shooter and summarise the shots per game (streamed: any number of games)."""
    r = rules_mod.load(rules)
    name, options = shooter_options(shooter, tie, skew, r)
    lab.check(name, r)
    shooter = format_spec(name, options)
    rows = read_layout_file(layouts, r) if layouts is not None else None
    if rows is not None and games > len(rows):
        games = len(rows)
    done, histogram = 0, np.zeros(r.cells + 1, dtype=np.int64)
    shots_file = None
    if out is not None:
        params = {
            "shooter": shooter,
            "rules": r.to_toml(),
            "generator": generator,
            "seed": seed,
            "games": games,
            "tie": options.tie,
            "layouts": str(layouts) if layouts else None,
        }
        if set(options.changed()) - {"tie"}:
            params["options"] = dataclasses.asdict(options)
        shots_file = lab.ShotsFile(out, params, lab.chunk_size(name))
        done, histogram = shots_file.start(resume, r.cells)
    elif resume:
        raise BattleshipError("--resume needs --out FILE, the run to carry on")
    with progress_bar(disable=as_json or (lab.is_kernel(name) and games < 100_000)) as progress:
        task = progress.add_task(f"{shooter} on {r.name}", total=games, completed=done)
        lab.warm_up(r, name, generator)
        start = time.perf_counter()
        if done < games:
            for _first, chunk in lab.stream(
                r,
                name,
                games,
                seed=seed,
                generator=generator,
                layouts=rows,
                jobs=jobs,
                options=options,
                start=done,
            ):
                if shots_file is not None:
                    shots_file.append(chunk)
                histogram += np.bincount(chunk, minlength=r.cells + 1)
                progress.advance(task, len(chunk))
        seconds = time.perf_counter() - start
    if games_file is not None:
        write_notation(games_file, r, name, options, games, seed, generator, rows, as_json)
    summary = lab.summarise_histogram(histogram, r.ship_cells, seconds)
    summary = dataclasses.replace(summary, games_per_second=(games - done) / seconds if seconds > 0 else 0.0)
    if as_json:
        emit_json({"shooter": shooter, "rules": r.name, "seed": seed, **summary.as_dict()})
        return
    table = Table("statistic", "shots", title=f"{shooter} on {r.name}: {games:,} games (seed {seed})")
    low, high = summary.ci95
    for name, value in (
        ("mean", f"{summary.mean:.3f}  (95% CI {low:.3f} .. {high:.3f})"),
        ("sd", f"{summary.sd:.3f}"),
        ("median", f"{summary.median:g}"),
        ("mode", str(summary.mode)),
        ("min .. max", f"{summary.min} .. {summary.max}"),
        *((f"quantile {q}", f"{v:g}") for q, v in summary.quantiles.items()),
        ("perfect games", str(summary.perfect)),
        ("games per second", f"{summary.games_per_second:,.0f}"),
    ):
        table.add_row(name, value)
    console.print(table)


@app.command("compare")
@friendly
def compare_cmd(
    shooters: Annotated[
        list[str], typer.Argument(help="Shooters to compare on the same layouts, as name:key=value,...")
    ],
    rules: RulesOpt = "standard",
    generator: Annotated[str, typer.Option("--generator", "-g", help="Layout generator.")] = "uniform",
    games: Annotated[int, typer.Option("--games", "-n", help="Games per shooter.")] = 10_000,
    seed: SeedOpt = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Threads (results do not depend on it).")] = 1,
    figures_dir: Annotated[Path, typer.Option("--figures", help="Where to write the charts.")] = Path(
        "out/compare"
    ),
    as_json: JsonOpt = False,
) -> None:
    """Every shooter on the same layouts: one table, and 000's charts as PNG and SVG."""
    r = rules_mod.load(rules)
    specs = {}
    for spec in shooters:  # refuse unknown names, bad options and unplayable rules before any work
        name, options = parse_spec(best_for(r) if parse_spec(spec)[0] == "best" else spec)
        lab.check(name, r)
        specs[format_spec(name, options)] = (name, options)
    if len(specs) < len(shooters):
        raise BattleshipError("a shooter is named twice (with the same options)")
    results: dict[str, np.ndarray] = {}
    summaries: dict[str, lab.Summary] = {}
    with progress_bar(disable=as_json) as progress:
        for label, (name, options) in specs.items():
            task = progress.add_task(label, total=games)
            lab.warm_up(r, name, generator)
            start = time.perf_counter()
            results[label] = lab.simulate(
                r,
                name,
                games,
                seed=seed,
                generator=generator,
                jobs=jobs,
                options=options,
                on_chunk=lambda _first, chunk, task=task: progress.advance(task, len(chunk)),
            )
            summaries[label] = lab.summarise(results[label], r.ship_cells, time.perf_counter() - start)
    first = next(iter(results))
    differences = {name: lab.paired_difference(shots, results[first]) for name, shots in results.items()}
    written = figures.compare_charts(
        results, r.cells, r.ship_cells, figures_dir, f"{r.name}, {games:,} games"
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
    table = Table(
        Column("shooter", no_wrap=True),
        Column("mean (95% CI)", no_wrap=True),
        "sd",
        "median",
        "mode",
        "min",
        "max",
        "games/s",
        Column(f"minus {next(iter(summaries))}", no_wrap=True),
        title=f"{r.name}: {games:,} games each, the same layouts (seed {seed})",
    )
    for name, s in summaries.items():
        diff, (low, high) = differences[name]
        table.add_row(
            name,
            f"{s.mean:.2f} ({s.ci95[0]:.2f} .. {s.ci95[1]:.2f})",
            f"{s.sd:.2f}",
            f"{s.median:g}",
            str(s.mode),
            str(s.min),
            str(s.max),
            f"{s.games_per_second:,.0f}",
            "" if name == first else f"{diff:+.3f} ({low:+.3f} .. {high:+.3f})",
        )
    console.print(table)
    console.print("charts: " + ", ".join(str(p) for p in written), highlight=False)


@app.command("demo")
@friendly
def demo_cmd(seed: SeedOpt = 2026, as_json: JsonOpt = False) -> None:
    """The first half of `make compare`: one game of each shooter on the standard rules, with its board."""
    r = rules_mod.preset("standard")
    target = generators.generate(r, "uniform", seed, 1)[0]
    # trial-sink needs no-touch rules; learning needs a model fitted to recorded layouts
    playable = [name for name in SHOOTERS if lab.refusal(name, r) is None and name != "learning"]
    records = {name: play_game(make(name), target, np.random.default_rng([seed, 1])) for name in playable}
    if as_json:
        emit_json(
            {
                "rules": r.name,
                "seed": seed,
                "layout": notation.format_layout(target),
                "games": {
                    name: {"shots": len(rec.shots), "board": notation.format_board(rec.observation)}
                    for name, rec in records.items()
                },
            }
        )
        return
    console.print(f"[bold]{r.describe()}[/]\nHidden layout (seed {seed}):", highlight=False)
    console.print(grid_text(target.grid(), r.symbols))
    for name, record in records.items():
        console.print(f"\n[bold]{name}[/]: {len(record.shots)} shots", highlight=False)
        console.print(grid_text(notation.board_state(record.observation).grid(), r.symbols))


def main() -> None:
    """Console entry point."""
    app()


if __name__ == "__main__":
    main()
