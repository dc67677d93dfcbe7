"""The ``play``, ``simulate``, ``compare`` and ``demo`` commands: games of one shooter, or many side by side."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from battleship.cli.common import (
    MAX_JOBS,
    ClusterOpt,
    GeneratorOpt,
    JobsOpt,
    JsonOpt,
    LayoutsOpt,
    OutOpt,
    Pace,
    ResumeOpt,
    RulesOpt,
    SeedOpt,
    SkewOpt,
    TieOpt,
    compiling,
    console,
    emit_json,
    err,
    forewarn_play,
    friendly,
    games_on_layouts,
    label,
    load_rules,
    one_shooter,
    output_file,
    output_folder,
    positive,
    print_table,
    progress_bar,
    read_layout_file,
    read_text_file,
    session,
    shooter_help,
    shooter_options,
)
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError

if TYPE_CHECKING:
    import numpy as np

    from battleship.game import Record
    from battleship.lab import ShotsFile
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
    typer.Option(
        "--games", "-n", help="Number of games (default 10,000, or one per --layouts layout; at most 10^10)."
    ),
]
NOTATION_GAMES = 100_000  # --notation replays every game in Python


def read_layout(text: str, r: Rules) -> Layout:
    """A layout from its text or a file holding it (the layout format or the paper's grid notation; ``-``:
    standard input)."""
    from battleship import notation

    path = Path(text)
    if text == "-" or "/" not in text.strip() or path.is_file():
        text = read_text_file(text if text == "-" else path, "layout file")
    if text.lstrip().startswith("["):
        return notation.read_grid(text, r)
    return notation.parse_layout(text, r)


def play_one(name: str, options: Options, target: Layout, seed: int, game: int = 0) -> Record:
    """Game ``game`` of a run seeded ``seed`` (its stream, ``rng.game_rng``) played by a resolved shooter,
    stoppable between shots, its record naming the shooter as everywhere."""
    from battleship.game import play
    from battleship.rng import game_rng
    from battleship.shooters import spec

    s = session()

    def between_shots(_observation: object, _shot: object) -> None:
        s.stop.check()

    record = s.run(play, spec(name).make(options), target, game_rng(seed, game), between_shots)
    return dataclasses.replace(record, shooter=label(name, options))


@examples("battleship play best --seed 7", "battleship play density:skew=20 --rules pirates --out game.txt")
@friendly
def play_cmd(
    shooter: ShooterArg = None,
    rules: RulesOpt = "standard",
    seed: SeedOpt = 0,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    generator: GeneratorOpt = "uniform",
    layout: Annotated[
        str | None, typer.Option("--layout", help="Target layout: its text or a file ('-': standard input).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the game (the paper's notation) to this file.")
    ] = None,
    old_shooter: OldShooterOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play one game and print it in the paper's game notation (replay and calc --game read it back).

    The board at the end follows as comment lines (starting with #), which the readers skip.
    """
    from battleship import generators, notation
    from battleship.render import grid_text

    r = load_rules(rules)
    target = read_layout(layout, r) if layout else generators.generate(r, generator, seed, 1)[0]
    name, options = shooter_options(one_shooter(shooter, old_shooter, "random"), tie, skew, r)
    session().keeping(lambda: "the game was not finished; nothing written")
    _new_file(out, "--out")
    with progress_bar(as_json) as progress:
        progress.add_task(f"{label(name, options)} playing", total=None)
        record = play_one(name, options, target, seed)
    game_text = notation.write_game(notation.from_record(record))
    if out is not None:
        from battleship.files import write_atomically

        write_atomically(out, game_text)
    board = record.observation.text()
    if as_json:
        emit_json(
            {
                "rules": r.name,
                "shooter": record.shooter,
                "seed": seed,
                "shots": record.fired,
                **({"turns": record.turns} if r.salvo is not None else {}),
                "unit": "shots" if r.salvo is None else "turns",
                "layout": target.text(),
                "board": board,
                "moves": record.observation.moves(),
                "notation": game_text,
            }
        )
        return
    sys.stdout.write(game_text)
    took = f"{record.turns} salvos ({record.fired} shots)" if r.salvo is not None else f"{record.fired} shots"
    console.print(f"# {record.shooter} sank the fleet in {took}:", highlight=False)
    for line in grid_text(record.observation.grid(), r.symbols).split("\n"):
        console.print("# ", line, sep="", highlight=False)
    console.print(f"# {board}", highlight=False, soft_wrap=True)


def write_notation(
    path: Path, r: Rules, name: str, options: Options, seed: int, rows: np.ndarray, quiet: bool
) -> None:
    """Every game of a run in the paper's notation, separated by blank lines, replayed by the readable shooter.

    The layouts are the run's own and game ``i`` draws the run's stream ``i`` (``rng.game_rng``), so
    these are the very games the run counted, shot for shot. Interrupted, the file keeps every game
    written whole.
    """
    from battleship import generators, notation

    _new_file(path, "--notation")
    s = session()
    written = 0
    s.keeping(lambda: f"the games were all played; {written:,} of {len(rows):,} written to {path}")
    with path.open("w", encoding="utf-8") as handle, progress_bar(quiet) as progress:
        task = progress.add_task("writing games", total=len(rows))
        handle.write(notation.write_rules(r) + "\n")
        for i, row in enumerate(rows):
            record = play_one(name, options, generators.to_layout(r, row), seed, i)
            with s.committing():
                game_text = notation.write_game(notation.from_record(record, "target"), rules_header=False)
                handle.write(game_text + "\n")
                handle.flush()
                written += 1
            progress.advance(task)


def _new_file(path: Path | None, option: str) -> None:
    """Refuse a file option naming a file that exists (these write once, never over another file); create its
    missing folders."""
    output_file(path, option)
    if path is not None and path.exists():
        raise BattleshipError(f"{option} {path} exists: remove it or choose another file")


def kept_games(done: Callable[[], int], games: int, out: Path | None) -> Callable[[], str]:
    """What a run that plays ``games`` games says it kept when interrupted after ``done`` (read late)."""

    def describe() -> str:
        if out is None:
            return f"{done():,} of {games:,} games played, none kept (--out FILE keeps them, --resume carries on)"
        return f"kept {done():,} of {games:,} games in {out}; the same command with --resume carries on"

    return describe


@examples(
    "battleship simulate density --games 10000 --seed 1 --jobs 2",
    "battleship simulate best --rules salvo --games 1000 --out runs.txt",
)
@friendly
def simulate_cmd(
    shooter: ShooterArg = None,
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    layouts: LayoutsOpt = None,
    games: GamesOrLayoutsOpt = None,
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    out: OutOpt = None,
    tie: TieOpt = None,
    skew: SkewOpt = False,
    resume: ResumeOpt = False,
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
    """Play many games of one shooter and summarise the shots per game (streamed: any number of games).

    Ctrl-C (or SIGTERM) stops within two seconds, keeping every finished game in --out;
    --resume carries the run on.
    """
    from battleship import generators, lab

    r = load_rules(rules)
    positive(jobs, "--jobs", MAX_JOBS)
    name, options = shooter_options(one_shooter(shooter, old_shooter, "random"), tie, skew, r)
    rows = read_layout_file(layouts, r) if layouts is not None else None
    games, rows = games_on_layouts(games, rows, layouts)
    if games_file is not None and games > NOTATION_GAMES:
        raise BattleshipError(
            f"--notation writes at most {NOTATION_GAMES:,} games; it replays each one in Python"
        )
    _new_file(games_file, "--notation")  # refused now, not after the run
    tally = lab.PairedTally(1, lab.most_shots(r))
    shots_file = _shots_file(out, resume, r, [(name, options)], generator, seed, games, rows)
    if shots_file is not None:
        shots_file.start(resume, tally.add_rows)
    forewarn_play(r, [name], games - tally.done)  # the games left, once --resume has read its file
    s = session()
    s.keeping(kept_games(lambda: tally.done, games, out))
    with compiling(f"the {name} kernels", quiet=as_json):
        s.run(lab.warm_up, r, name, generator)
    from battleship.lab.pool import open_pool

    resumed = tally.done
    with open_pool(cluster, jobs) as pool:
        seconds = _run(r, [(name, options)], games, seed, generator, rows, pool, shots_file, tally, as_json)
    s.check()
    if games_file is not None:
        layout_rows = rows if rows is not None else generators.draw(r, generator, seed, games)
        write_notation(games_file, r, name, options, seed, layout_rows, as_json)
    summary = lab.summarise_histogram(tally.histograms[0], lab.fewest(r), seconds)
    played = games - resumed
    summary = dataclasses.replace(summary, games_per_second=played / seconds if seconds > 0 else 0.0)
    shown = label(name, options)
    if as_json:
        emit_json(
            {
                "shooter": shown,
                "rules": r.name,
                "seed": seed,
                **summary.as_dict(),
                **lab.unit_keys(tally.histograms[0], r),
            }
        )
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
    if r.salvo is not None:
        values.insert(1, ("shots fired", f"{lab.shots_fired(tally.histograms[0], r):.3f}  (mean)"))
    print_table(
        f"{shown} on {r.name}: {games:,} games (seed {seed})",
        ["statistic", lab.unit(r)],
        [list(v) for v in values],
    )


def _shots_file(
    out: Path | None,
    resume: bool,
    r: Rules,
    specs: list[tuple[str, Options]],
    generator: str,
    seed: int,
    games: int,
    rows: np.ndarray | None,
) -> ShotsFile | None:
    """The --out file of a run with the parameters that must match to --resume it (None without --out)."""
    import hashlib

    from battleship import lab

    if out is None:
        if resume:
            raise BattleshipError("--resume needs --out FILE, the run to carry on")
        return None
    output_file(out, "--out")
    shown = [label(name, options) for name, options in specs]
    params: dict[str, object] = {
        "shooter" if len(specs) == 1 else "shooters": shown[0] if len(specs) == 1 else shown,
        "rules": r.to_toml(),
        "generator": generator,
        "seed": seed,
        "games": games,
        "layouts_sha256": None if rows is None else hashlib.sha256(rows.tobytes()).hexdigest(),
    }
    changed: dict[str, object] = {}
    for name, options in specs:
        if set(options.changed()) - {"tie"}:  # the full options, so a changed default is noticed
            changed[label(name, options)] = dataclasses.asdict(options)
    if changed:
        params["options"] = changed
    if r.salvo is not None:
        params["unit"] = "turns"  # one-shot runs leave it out: files written before it still resume
    return lab.ShotsFile(out, params, shown if len(specs) > 1 else None, lab.unit(r))


def _run(r, specs, games, seed, generator, rows, pool, shots_file, tally, quiet) -> float:
    """Every shooter on the same games from ``tally.done`` on, counted into ``tally`` (and the shots file).

    Returns the seconds it took. A stop request (Ctrl-C) ends it early, with every finished game
    counted and written.
    """
    from battleship import lab

    s = session()
    what = label(*specs[0]) if len(specs) == 1 else f"{len(specs)} shooters"
    with progress_bar(quiet) as progress:
        task = progress.add_task(f"{what} on {r.name}", total=games, completed=tally.done)
        pace = Pace(games, tally.done, quiet)
        start = time.perf_counter()
        if tally.done < games:
            chunks = lab.stream_paired(
                r, specs, games, seed, generator, rows, pool, start=tally.done,
                keep_shots=shots_file is not None, stop=s.stop,
            )  # fmt: skip
            for chunk in chunks:
                with s.committing():
                    if shots_file is not None:
                        shots_file.append(chunk.shots)
                    tally.add(chunk.histograms, chunk.minus_first, chunk.seconds, chunk.games)
                progress.advance(task, chunk.games)
                pace.after(tally.done, "fewer --games, more --jobs, or --cluster")
        return time.perf_counter() - start


@examples(
    "battleship compare random hunt-target density best --games 10000 --seed 1",
    "battleship compare density density:skew=20 --games 10000 --out games.txt --figures charts",
)
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
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write every game's shots to this file, one game a line, one column a shooter "
            "(--resume carries it on).",
        ),
    ] = None,
    resume: ResumeOpt = False,
    figures_dir: Annotated[
        Path | None,
        typer.Option("--figures", help="Also draw the DataGenetics charts (PNG and SVG) into this folder."),
    ] = None,
    cluster: ClusterOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every shooter on the same layouts: one table with paired differences from the first.

    Means and paired differences are over the very same games. Ctrl-C stops within two seconds,
    keeping every finished game in --out; --resume carries the run on.
    """
    from battleship import lab

    r = load_rules(rules)
    positive(jobs, "--jobs", MAX_JOBS)
    specs: dict[str, tuple[str, Options]] = {}
    for text in shooters:  # refuse unknown names, bad options and unplayable rules before any work
        name, options = shooter_options(text, tie, skew, r)
        shown = label(name, options)
        if shown in specs:
            raise BattleshipError(f"{shown} is named twice (as {text!r}): give each shooter once")
        specs[shown] = (name, options)
    rows = read_layout_file(layouts, r) if layouts is not None else None
    games, rows = games_on_layouts(games, rows, layouts)
    if figures_dir is not None:
        from battleship.extras import require

        require("plot", "--figures")
        output_folder(figures_dir, "--figures")
    tally = lab.PairedTally(len(specs), lab.most_shots(r))
    shots_file = _shots_file(out, resume, r, list(specs.values()), generator, seed, games, rows)
    if shots_file is not None:
        shots_file.start(resume, tally.add_rows)
    forewarn_play(r, [name for name, _ in specs.values()], games - tally.done)  # the games left
    s = session()
    s.keeping(kept_games(lambda: tally.done, games, out))
    for name, _ in specs.values():
        with compiling(f"the {name} kernels", quiet=as_json):
            s.run(lab.warm_up, r, name, generator)
    from battleship.lab.pool import open_pool

    with open_pool(cluster, jobs) as pool:
        wall = _run(r, list(specs.values()), games, seed, generator, rows, pool, shots_file, tally, as_json)
    s.check()
    result = tally.comparison(r.name, list(specs), lab.fewest(r), seed, wall, r)
    first = next(iter(specs))
    written = []
    if figures_dir is not None:
        from battleship.lab import figures

        written = figures.compare_charts(
            dict(zip(specs, tally.histograms, strict=True)),
            r.cells,
            r.ship_cells,
            figures_dir,
            f"{r.name}, {games:,} games",
            r.turn_size() if r.salvo is not None else 0,
        )
    if as_json:
        emit_json({**result.as_dict(), "figures": [str(p) for p in written]})
        return
    _print_compare(r, games, seed, result, first, written)


def _print_compare(r, games, seed, result, first, written) -> None:
    summaries, differences = result.summaries, result.minus_first
    headers = [
        "shooter",
        "mean (95% CI)" if r.salvo is None else "mean turns (95% CI)",
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
        if result.fired:
            rows[-1].insert(2, f"{result.fired[name]:.2f}")
    if result.fired:
        headers.insert(2, "shots fired")
    note = ("charts: " + ", ".join(str(p) for p in written)) if written else ""
    title = f"{r.name}: {games:,} games each, the same layouts (seed {seed})"
    if r.salvo is not None:
        title += ", in turns (salvos to sink the fleet)"
    print_table(title, headers, rows, optional=("median", "games/s", "min", "max", "mode", "sd"), note=note)


@examples("battleship demo --seed 3", "battleship demo --rules square-8")
@friendly
def demo_cmd(rules: RulesOpt = "standard", seed: SeedOpt = 0, as_json: JsonOpt = False) -> None:
    """One game of every registered shooter on one layout, with each final board.

    Shooters that refuse the rules are left out, saying why; so are those played on exact counts
    when one count would take minutes (Sea Battle's ten ships).
    """
    from battleship import generators
    from battleship.cli.estimate import exact_seconds
    from battleship.render import grid_text
    from battleship.shooters import specs
    from battleship.shooters.options import Options

    r = load_rules(rules)
    target = generators.generate(r, "uniform", seed, 1)[0]
    slow = exact_seconds(r)
    left_out: dict[str, str] = {}
    playable = []
    for spec in specs().values():
        # learning needs a model fitted to recorded layouts; best is one of the others
        why = "it needs a model (learning:model=FILE)" if spec.name == "learning" else spec.refusal(r)
        if spec.name == "best":
            continue
        if why is None and spec.kernel is None and slow > DEMO_EXACT_SECONDS:
            why = f"it counts every layout each shot, about {slow:.0f} s a count on these rules"
        if why is None:
            playable.append(spec)
        else:
            left_out[spec.name] = why
    records = {}
    with compiling("every shooter's kernels", quiet=as_json), progress_bar(as_json) as progress:
        task = progress.add_task("playing", total=len(playable))
        for spec in playable:
            records[spec.name] = play_one(spec.name, Options(), target, seed)
            progress.advance(task)
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
                "left_out": left_out,
            }
        )
        return
    console.print(f"[bold]{r.describe()}[/]\nHidden layout (seed {seed}):", highlight=False)
    console.print(grid_text(target.grid(), r.symbols))
    for name, record in records.items():
        console.print(f"\n[bold]{name}[/]: {len(record.shots)} shots", highlight=False)
        console.print(grid_text(record.observation.grid(), r.symbols))
    for name, why in left_out.items():
        err.print(f"note: {name} left out: {why}", highlight=False)


DEMO_EXACT_SECONDS = 5.0  # demo leaves out exact-play shooters when one count takes longer
