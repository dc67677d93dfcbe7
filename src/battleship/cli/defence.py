"""The ``defend`` and ``learn`` commands: layouts that survive, and placement models learned from layouts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from battleship import rules as rules_mod
from battleship.cli.common import (
    ClusterOpt,
    JobsOpt,
    JsonOpt,
    RulesOpt,
    SeedOpt,
    SkewOpt,
    TieOpt,
    console,
    emit_json,
    friendly,
    label,
    positive,
    progress_bar,
    read_layout_file,
    shooter_help,
    shooter_options,
)
from battleship.errors import BattleshipError

DEFAULT_SMOOTHING = 2.0  # battleship.inference.prior.DEFAULT_SMOOTHING, checked by a test

METHODS = ("construct", "anneal")


@friendly
def defend_cmd(
    shooter: Annotated[str, typer.Argument(help="The shooter to hide from. " + shooter_help())],
    method: Annotated[
        str,
        typer.Option(
            "--method", help="construct (the Dunman High paper's optimal layout) | anneal (layout search)."
        ),
    ] = "construct",
    rules: RulesOpt = "standard",
    iterations: Annotated[int, typer.Option("--iterations", help="anneal: moves tried.")] = 2000,
    seeds: Annotated[
        int,
        typer.Option("--seeds", help="anneal: games a layout is scored on (1 for deterministic shooters)."),
    ] = 1,
    check: Annotated[int, typer.Option("--check", help="Fresh games on the layout found.")] = 200,
    uniform_games: Annotated[
        int, typer.Option("--uniform-games", help="Games on uniform layouts to compare with.")
    ] = 2000,
    seed: SeedOpt = 0,
    jobs: JobsOpt = 1,
    cluster: ClusterOpt = None,
    generator: Annotated[
        str,
        typer.Option(
            "--generator", "-g", help="The layouts the found layout is compared with (uniform, ...)."
        ),
    ] = "uniform",
    tie: TieOpt = None,
    skew: SkewOpt = False,
    out: Annotated[Path | None, typer.Option("--out", help="Write the layout (layout format).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The layout a shooter finds last: the Dunman High paper's construction, or an annealed search; checked in fresh games."""
    if method not in METHODS:
        raise BattleshipError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    if check < 1 or uniform_games < 1:
        raise BattleshipError("--check and --uniform-games must be at least 1")
    from battleship import notation
    from battleship.lab import defence

    positive(jobs, "--jobs")
    r = rules_mod.load(rules)
    name, options = shooter_options(shooter, tie, skew, r)
    from battleship.lab.pool import open_pool

    search, built = None, 0

    with open_pool(cluster, jobs) as pool, progress_bar(disable=as_json) as progress:
        if method == "construct":
            progress.add_task(f"building the layout {name} finds last", total=None)
            layout, built = defence.adversary_layout(r, name, options, seed=seed)
        else:
            task = progress.add_task(f"annealing against {name}", total=iterations)
            search = defence.search_layout(
                r,
                name,
                options,
                iterations,
                seeds,
                seed,
                on_step=lambda _i: progress.advance(task),
                pool=pool,
            )
            layout = search.layout
        progress.add_task("checking in fresh games", total=None)
        result = defence.measure(r, name, options, layout, check, uniform_games, jobs, generator, pool)
    text = notation.format_layout(layout)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    _report(r, label(name, options), method, seed, layout, text, result, built, search, as_json)


def _report(r, shown, method, seed, layout, text, result, built, search, as_json) -> None:
    """The layout found and its check, as JSON or as a grid and one line.

    ``built``: the construction's shots; ``search``: the annealing's result (None for a construction).
    """
    from battleship.render import grid_text

    data = {
        "rules": r.name,
        "shooter": shown,
        "method": method,
        "seed": seed,
        "layout": text,
        "shots_mean": result.shots_mean,
        "shots_ci95": list(result.shots_ci95),
        "games": result.games,
        "uniform_mean": result.uniform_mean,
        "uniform_ci95": list(result.uniform_ci95),
        "uniform_games": result.uniform_games,
        "ratio": result.ratio,
    }
    if search is None:
        data["construction_shots"] = built
    else:
        data.update(search_cost=search.cost, start_cost=search.start_cost, accepted=search.accepted)
    if as_json:
        emit_json(data)
        return
    console.print(grid_text(layout.grid(), r.symbols))
    console.print(text, highlight=False)
    how = (
        f"built in {built} shots"
        if search is None
        else f"annealed: {search.start_cost:.2f} -> {search.cost:.2f} shots"
    )
    console.print(
        f"{shown.split(':')[0]} on this layout: {result.shots_mean:.2f} shots ({result.shots_ci95[0]:.2f} .. "
        f"{result.shots_ci95[1]:.2f}) over {result.games} fresh games; on uniform layouts "
        f"{result.uniform_mean:.2f} ({result.uniform_ci95[0]:.2f} .. {result.uniform_ci95[1]:.2f}) over "
        f"{result.uniform_games}: x{result.ratio:.3f} ({how})",
        highlight=False,
    )


@friendly
def learn_cmd(
    layouts: Annotated[Path, typer.Argument(help="Layouts, one a line in the layout format.")],
    rules: RulesOpt = "standard",
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the model (JSON).")] = Path(
        "model.json"
    ),
    smoothing: Annotated[
        float, typer.Option("--smoothing", help="Pseudo-layouts pulling unseen placements to their regions.")
    ] = DEFAULT_SMOOTHING,
    as_json: JsonOpt = False,
) -> None:
    """Fit C. Liam Brown's Learning-mode placement model to recorded layouts; `learning:model=FILE` plays with it."""
    from battleship.inference import prior as placement_prior

    r = rules_mod.load(rules)
    rows = read_layout_file(layouts, r)
    model = placement_prior.fit(r, rows, smoothing)
    placement_prior.save(model, out)
    shift = placement_prior.open_board_shift(model)
    if as_json:
        emit_json(
            {
                "rules": r.name,
                "layouts": model.layouts,
                "smoothing": model.smoothing,
                "out": str(out),
                "hit_probability_minus_uniform": shift.round(6).tolist(),
            }
        )
        return
    console.print(f"{model.layouts:,} layouts -> {out} (smoothing {model.smoothing:g})", highlight=False)
    touching = " (counted as if ships could touch, as the fit is)" if r.spacing.value != "touch" else ""
    console.print(f"open-board hit probability under the model minus uniform, percentage points{touching}:")
    console.print(signed_grid(100 * shift), highlight=False)


def signed_grid(values) -> str:
    """A small table of signed numbers, one row a line."""
    return "\n".join(" ".join(f"{v:+5.1f}" for v in row) for row in values)
