"""The ``defend`` and ``learn`` commands: layouts that survive, and placement models learned from layouts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from battleship.cli.common import (
    MAX_JOBS,
    ClusterOpt,
    JobsOpt,
    JsonOpt,
    RulesOpt,
    SeedOpt,
    SkewOpt,
    TieOpt,
    console,
    emit_json,
    forewarn,
    friendly,
    games_option,
    label,
    load_rules,
    output_file,
    positive,
    progress_bar,
    read_layout_file,
    session,
    shooter_help,
    shooter_options,
)
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError

if TYPE_CHECKING:
    from battleship.lab.defence import SearchResult
    from battleship.layout import Layout

DEFAULT_SMOOTHING = 2.0  # battleship.inference.prior.DEFAULT_SMOOTHING, checked by a test

METHODS = ("construct", "anneal")


@examples(
    "battleship defend density",
    "battleship defend density --method anneal --iterations 3000 --out hidden.txt",
)
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
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write the layout found (layout format), as soon as it is found."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The layout a shooter finds last: the Dunman High paper's construction, or an annealed search; checked in fresh games.

    Ctrl-C stops within two seconds: the layout found so far (an annealing's best) is printed and
    written to --out, its check in fresh games left undone.
    """
    if method not in METHODS:
        raise BattleshipError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    for option, value in (("--iterations", iterations), ("--seeds", seeds)):
        positive(value, option, 10**9)
    games_option(check, "--check")
    games_option(uniform_games, "--uniform-games")
    positive(jobs, "--jobs", MAX_JOBS)
    r = load_rules(rules)
    name, options = shooter_options(shooter, tie, skew, r)
    output_file(out, "--out")
    _forewarn(r, name, method, iterations * seeds + check + uniform_games)
    from battleship.lab import defence
    from battleship.lab.pool import open_pool

    s = session()
    found = Found(out)
    s.keeping(found.kept)
    with open_pool(cluster, jobs) as pool, progress_bar(disable=as_json) as progress:
        search, built = None, 0
        if method == "construct":
            layout, built = _construct(r, name, options, seed, progress)
        else:
            task = progress.add_task(f"annealing against {name}", total=iterations)
            search = defence.search_layout(
                r, name, options, iterations, seeds, seed,
                on_step=lambda _i: progress.advance(task), pool=pool, stop=s.stop,
            )  # fmt: skip
            layout = search.layout
        found.have(layout, search)
        if s.signalled:
            s.interrupted()
        task = progress.add_task("checking in fresh games", total=check + uniform_games)
        result = defence.measure(
            r, name, options, layout, check, uniform_games, jobs, generator, pool,
            on_games=lambda n: progress.advance(task, n), stop=s.stop,
        )  # fmt: skip
    _report(r, label(name, options), method, seed, layout, found.text, result, built, search, as_json)


class Found:
    """The layout a defence run has found so far, written to --out as soon as it is found."""

    def __init__(self, out: Path | None):
        self.out, self.text = out, ""
        self.search: SearchResult | None = None

    def have(self, layout: Layout, search: SearchResult | None) -> None:
        from battleship import notation

        self.text, self.search = notation.format_layout(layout), search
        if self.out is not None:
            from battleship.files import write_atomically

            write_atomically(self.out, self.text + "\n")

    def kept(self) -> str:
        if not self.text:
            return "nothing to keep: no layout was found yet"
        where = f"written to {self.out}" if self.out is not None else "not written (--out FILE keeps it)"
        how = ""
        if self.search is not None:
            how = (
                f" after {self.search.iterations:,} moves, {self.search.cost:.2f} shots on the search's games"
            )
        return f"the layout found{how}, {self.text}, is {where}; its check in fresh games was not done"


def _construct(r, name, options, seed, progress):
    """The Dunman High paper's construction, in a worker thread (stoppable), its shots on the progress bar."""
    from battleship.lab import defence

    task = progress.add_task(f"building the layout {name} finds last (shots)", total=None)
    s = session()

    def build():
        return defence.adversary_layout(
            r, name, options, seed, on_shot=lambda n: progress.update(task, completed=n), stop=s.stop
        )

    return s.run(build)


def _forewarn(r, name: str, method: str, games: int) -> None:
    """Say up front when the shooter's exact counting makes the run long."""
    from battleship.cli.estimate import exact_seconds
    from battleship.lab import is_kernel

    per_count = exact_seconds(r, repeated=True)
    counts = (r.cells // 2 if method == "construct" else 0) + (0 if is_kernel(name) else games * r.cells // 2)
    if method == "construct" or not is_kernel(name):
        forewarn(
            per_count * counts,
            f"{'building the layout and ' if method == 'construct' else ''}checking it against {name}",
            "a shooter with a kernel (battleship shooters), fewer --check and --uniform-games games, "
            "or a smaller board",
        )


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


@examples("battleship learn layouts.txt --out model.json", "battleship play learning:model=model.json")
@friendly
def learn_cmd(
    layouts: Annotated[
        Path, typer.Argument(help="Layouts, one a line in the layout format ('-': standard input).")
    ],
    rules: RulesOpt = "standard",
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the model (JSON).")] = Path(
        "model.json"
    ),
    smoothing: Annotated[
        float, typer.Option("--smoothing", help="Pseudo-layouts pulling unseen placements to their regions.")
    ] = DEFAULT_SMOOTHING,
    as_json: JsonOpt = False,
) -> None:
    """Fit C. Liam Brown's Learning-mode placement model to recorded layouts; `learning:model=FILE` plays with it.

    Ctrl-C stops within two seconds; the model is written only once fitted.
    """
    from battleship.inference import prior as placement_prior

    r = load_rules(rules)
    output_file(out, "--out")
    rows = read_layout_file(layouts, r)
    s = session()
    s.keeping(lambda: f"nothing written: the model was not fitted ({out} is as it was)")
    with progress_bar(disable=as_json) as progress:
        task = progress.add_task(f"fitting to {len(rows):,} layouts", total=None)
        model = s.run(placement_prior.fit, r, rows, smoothing)
        with s.committing():
            placement_prior.save(model, out)
            s.keeping(lambda: f"the model was fitted and written to {out}; its open-board map was not shown")
        progress.update(task, description="the model's open-board hit probabilities")
        shift = s.run(placement_prior.open_board_shift, model)
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
