"""The ``rules``, ``shooters``, ``layout`` and ``count`` commands: what the game is and what plays it."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import typer

from battleship import rules as rules_mod
from battleship.cli.common import (
    GeneratorOpt,
    JsonOpt,
    RulesOpt,
    SeedOpt,
    console,
    emit_json,
    forewarn,
    friendly,
    label,
    load_rules,
    parse_sizes,
    progress_bar,
    session,
)
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError
from battleship.words import counted


@examples("battleship rules", "battleship rules salvo --toml > my-rules.toml")
@friendly
def rules_cmd(
    name: Annotated[
        str | None, typer.Argument(help="A preset or rules file to show ('-': TOML on standard input).")
    ] = None,
    toml: Annotated[bool, typer.Option("--toml", help="Print the rules as TOML.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """List the rule presets, or show one (as a table, TOML or JSON)."""
    from rich.table import Table

    from battleship import shapes

    if name is None:
        if as_json:
            emit_json([{"description": d, **r.as_dict()} for d, r in rules_mod.PRESETS.values()])
            return
        table = Table("preset", "board", "fleet", "spacing", "sinks", "what it is", title="Rule presets")
        for key, (desc, r) in rules_mod.PRESETS.items():
            fleet = " ".join(f"{s.symbol}{s.size}" for s in r.fleet)
            table.add_row(key, f"{r.rows}x{r.cols}", fleet, r.spacing.value, r.sinks.value, desc)
        console.print(table)
        return
    r = load_rules(name)
    if toml:
        sys.stdout.write(r.to_toml())
    elif as_json:
        emit_json(r.as_dict())
    else:
        table = Table("ship", "symbol", "size", "shape", "placements", title=r.describe())
        for ship, ms in zip(r.fleet, r.placements, strict=True):
            table.add_row(ship.name, ship.symbol, str(ship.size), shapes.render(ship.cells), str(len(ms)))
        console.print(table)


@examples("battleship shooters", "battleship shooters --rules pirates")
@friendly
def shooters_cmd(
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules", "-r", help="Also say whether each can play these rules, and what best plays."
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the registered shooters: what each does, its options (name=default and what they do), whether
    it is recommended, a published baseline or an experiment, its measured strength, and its kernel.

    With --rules, whether each plays them (and what it leaves unread), and what best becomes.
    """
    import dataclasses

    from rich.markup import escape
    from rich.table import Table

    from battleship.shooters import registry, specs

    r = load_rules(rules) if rules is not None else None
    best = label(*registry.resolve("best", r)) if r is not None else None
    rows = []
    for spec in specs().values():
        own = spec.options if spec.passes_on else spec.accepted()
        row: dict[str, object] = {
            "name": spec.name,
            "summary": spec.summary,
            "reads": list(spec.reads),
            "kernel": spec.kernel is not None,
            "role": spec.role,
            "recommended": spec.recommended,
            "advice": spec.advice,
            "options": [
                {"name": o.name, "default": o.default, "allowed": o.allowed(), "help": o.help} for o in own
            ],
            "passes_on": list(spec.passes_on),
            "aliases": {a.old: a.describe() for a in spec.aliases},
            "strength": [dataclasses.asdict(s) for s in spec.strength],
        }
        if r is not None:
            row["refusal"] = spec.refusal(r) if spec.name != "best" else None
            row["unread"] = spec.unread(r)
            if spec.name == "best":
                row["plays"] = best
        rows.append(row)
    if as_json:
        emit_json(rows)
        return
    table = Table(
        "shooter", "what it does", "options", "measured (mean shots)", title="Shooters (name:key=value,...)"
    )
    if r is not None:
        table.add_column(f"plays {r.name}?")
    for spec, row in zip(specs().values(), rows, strict=True):
        what = f"{escape(spec.summary)}\n[{'bold' if spec.recommended else 'dim'}]{spec.role}[/]"
        what += escape(f": {spec.advice}") if spec.advice else ""
        what += "; a kernel" if spec.kernel else ""
        own = spec.options if spec.passes_on else spec.accepted()
        options = [escape(f"{o.describe()}: {o.help}") for o in own]
        if spec.passes_on:
            options.append(f"and every option of what it plays ({', '.join(spec.passes_on)})")
        options += [f"old: {a.describe()}" for a in spec.aliases]
        measured = "\n".join(s.describe() for s in spec.strength)
        cells = [spec.name, what, "\n".join(options) or "none", escape(measured)]
        if r is not None:
            plays = "yes" if not row["unread"] else f"yes; {row['unread']}"
            if spec.name == "best":
                plays = f"yes, as {best}"
            cells.append(plays if row["refusal"] is None else f"no: {row['refusal']}")
        table.add_row(*cells)
    console.print(table)
    if r is not None:
        console.print(f"best on {r.name} plays {best}", highlight=False)
    console.print(
        "Measured figures and their commands: docs/research/rules.md, docs/research/reproduction.md.",
        highlight=False,
    )


@examples(
    "battleship layout --seed 7", "battleship layout --rules pirates --count 1000 --seed 1 > layouts.txt"
)
@friendly
def layout_cmd(
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    seed: SeedOpt = 0,
    count: Annotated[
        int | None,
        typer.Option(
            "--count", "-n", help="Print N layouts, one a line (-n is also the number of games elsewhere)."
        ),
    ] = None,
    start: Annotated[
        int,
        typer.Option(
            "--start", help="Begin at layout K of the seed, from 0 (carries on an interrupted --count)."
        ),
    ] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Draw seeded layouts: one as a grid, or N one per line in the layout format.

    Layout K of a seed is the same however many are drawn. Ctrl-C stops within two seconds, every
    line written whole, and says the --start that carries on.
    """
    from battleship import drawing, notation
    from battleship.render import grid_text

    r = load_rules(rules)
    if count is not None and not 0 <= count <= MAX_LAYOUTS:
        raise BattleshipError(f"--count runs from 0 to {MAX_LAYOUTS:,}, not {count:,}")
    if not 0 <= start <= MAX_LAYOUTS:
        raise BattleshipError(f"--start runs from 0 to {MAX_LAYOUTS:,}, not {start:,}")
    n = 1 if count is None else count
    if as_json:
        from battleship import generators

        indices = generators.draw(r, generator, seed, n, first=start)
        lines = generators.format_lines(r, indices).decode().split()
        emit_json({"rules": r.name, "generator": generator, "seed": seed, "layouts": lines})
    elif count is None:
        row = drawing.draw_few(r, generator, seed, 1, first=start)  # one layout: no need to load Numba
        if row is None:  # a human-like generator, or a fleet packed too tightly for plain Python
            from battleship import generators

            row = generators.draw(r, generator, seed, 1, first=start)
        layout = drawing.to_layout(r, row[0])
        console.print(grid_text(layout.grid(), r.symbols))
        console.print(notation.format_layout(layout), highlight=False, soft_wrap=True)
    else:
        _write_layouts(r, generator, seed, start, n)


MAX_LAYOUTS = 10**12
LAYOUT_BLOCK = 65_536  # layouts drawn at a time (about 7 MB of text on 10x10)
# layouts written at a time: a stop waits for the write under way, and a terminal or a slow reader
# takes seconds over a whole block
LAYOUT_PIECE = 1_024


def _write_layouts(r, generator: str, seed: int, start: int, n: int) -> None:
    """Layouts ``start .. start + n`` one a line on stdout, a block at a time, stoppable between blocks."""
    from battleship import generators

    s = session()
    written = 0

    def kept() -> str:
        left = f"; --start {start + written} --count {n - written} writes the rest" if written < n else ""
        return f"{written:,} of {counted(n, 'layout')} written, every line whole{left}"

    s.keeping(kept)
    out = sys.stdout.buffer
    with progress_bar(n < 10 * LAYOUT_BLOCK) as progress:
        task = progress.add_task("layouts", total=n)
        while written < n and not s.stop.requested:
            block = min(LAYOUT_BLOCK, n - written)
            lines = generators.format_lines(
                r, generators.draw(r, generator, seed, block, first=start + written)
            ).splitlines(keepends=True)
            for piece in range(0, block, LAYOUT_PIECE):
                if s.stop.requested:
                    break
                with s.committing():
                    out.write(b"".join(lines[piece : piece + LAYOUT_PIECE]))
                    out.flush()
                    written += len(lines[piece : piece + LAYOUT_PIECE])
                progress.advance(task, len(lines[piece : piece + LAYOUT_PIECE]))


@examples("battleship count --rules pirates", "battleship count --sizes 6..10")
@friendly
def count_cmd(
    rules: RulesOpt = "standard",
    sizes: Annotated[
        str | None, typer.Option("--sizes", help="Square boards with the standard fleet, e.g. 6..15.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The number of layouts, with same-shaped ships told apart (distinct) and not (identical)."""
    from rich.table import Table

    from battleship import inference
    from battleship.cli.estimate import exact_seconds
    from battleship.inference.cost import duration

    targets = (
        [rules_mod.square(n) for n in parse_sizes(sizes, 1, rules_mod.MAX_SIDE)]
        if sizes is not None
        else [load_rules(rules)]
    )
    expected = [exact_seconds(r) for r in targets]
    forewarn(sum(expected), "counting every layout", "a smaller board or fleet answers sooner")
    rows: list[dict[str, Any]] = []
    s = session()
    s.keeping(lambda: f"counted {len(rows)} of {len(targets)} rule sets; nothing written")
    with progress_bar(as_json or sum(expected) < 2) as progress:
        task = progress.add_task(f"counting (expected about {duration(sum(expected))})", total=len(targets))
        for r in targets:
            start = time.perf_counter()
            layouts, engine = s.run(inference.count, r)
            rows.append(
                {
                    "rules": r.name,
                    "board": f"{r.rows}x{r.cols}",
                    "spacing": r.spacing.value,
                    "distinct": layouts,
                    "identical": layouts // inference.identical_factor(r),
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
