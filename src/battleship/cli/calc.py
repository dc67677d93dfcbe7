"""The ``calc`` and ``replay`` commands: C. Liam Brown's probability calculator and the DataGenetics walkthrough."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from battleship import rules as rules_mod
from battleship.cli.common import (
    JsonOpt,
    SeedOpt,
    SkewOpt,
    console,
    emit_json,
    err,
    friendly,
    progress_bar,
    read_text_file,
)
from battleship.errors import BattleshipError

if TYPE_CHECKING:
    from battleship.game import Observation, Record
    from battleship.rules import Rules

GameOpt = Annotated[
    int,
    typer.Option(
        "--index", help="Which game of the file, from 1 (files from simulate --notation hold many)."
    ),
]
PlayerOpt = Annotated[str | None, typer.Option("--player", help="Whose shots (default: the first who shot).")]
FileRulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        "-r",
        help="Preset name or rules TOML file (default: standard; a game file's own rules always apply).",
    ),
]


def read_board_arg(board: str, r: Rules) -> Observation:
    """The observation a board state shows, given as text or as a file holding it."""
    from battleship import notation

    path = Path(board)
    if path.is_file():
        return notation.parse_board(read_text_file(path, "board file"), r)
    try:
        return notation.parse_board(board, r)
    except BattleshipError:
        if board.startswith(("/", "./", "~")) or path.suffix:
            raise BattleshipError(f"{board}: no such board file (and not a board state either)") from None
        raise


def read_game_record(
    path: Path, rules: str | None, player: str | None, index: int = 1
) -> tuple[Rules, str, Record]:
    """``(rules, player, record)`` of one shooter in game ``index`` of a file in the paper's game notation.

    The rules are those the file carries; ``rules`` (a preset or TOML file) only for a file that
    carries none, which otherwise reads as standard, saying so on stderr.
    """
    from battleship import notation

    text = read_text_file(path, "game file")
    given = rules_mod.load(rules) if rules else None
    r = notation.game_rules(text, given)
    if given is None and notation.carried_rules(text) is None:
        err.print(f"{path} does not say its rules: read under standard", highlight=False)
    games = notation.read_games(text, r)
    if not 1 <= index <= len(games):
        raise BattleshipError(f"--index {index}: {path} holds {len(games)} game{'s' * (len(games) != 1)}")
    records = games[index - 1].records()
    if not records:
        raise BattleshipError(f"{path}: nobody has fired yet")
    name = player or next(iter(records))
    if name not in records:
        raise BattleshipError(f"{path}: {name!r} fired no shots; shooters: {', '.join(records)}")
    return r, name, records[name]


@friendly
def calc_cmd(
    board: Annotated[
        str | None, typer.Argument(help="A board state (one line, rows split by '/') or a file holding one.")
    ] = None,
    rules: FileRulesOpt = None,
    game: Annotated[
        Path | None,
        typer.Option("--game", help="A game file in the paper's game notation: its shots, in their order."),
    ] = None,
    index: GameOpt = 1,
    player: PlayerOpt = None,
    percent: Annotated[
        bool,
        typer.Option("--percent", help="Show each cell's probability in percent (always, without colour)."),
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
    from battleship import inference
    from battleship.cells import cell_name
    from battleship.inference import sampling
    from battleship.shooters.density import best_cells

    if (board is None) == (game is None):
        raise BattleshipError("give a board state or --game FILE (one of the two)")
    if game is not None:
        r, _, record = read_game_record(game, rules, player, index)
        observation = record.observation
    else:
        r = rules_mod.load(rules or "standard")
        observation = read_board_arg(board, r)
    start = time.perf_counter()
    data: dict[str, Any] = {"rules": r.name, "shots": len(observation.shots)}
    if seconds is not None:
        if seconds <= 0:
            raise BattleshipError("--time must be a positive number of seconds")
        estimate = sampling.monte_carlo(r, observation, seconds, seed)
        probability = estimate.probability
        data.update(layouts=None, engine=f"monte carlo ({estimate.samples:,} samples)")
        data.update(samples=estimate.samples, standard_error=estimate.standard_error.tolist())
    else:
        result = inference.posterior(r, observation)
        probability = result.probability
        data.update(layouts=result.layouts, engine=result.engine)
    data["seconds"] = time.perf_counter() - start
    best = best_cells(r, observation, probability, 20 if skew else 0)
    data.update(probability=probability.tolist(), best=[cell_name(c, r.cols) for c in best])
    if png is not None:
        from battleship.lab import figures

        title = f"{r.name}: P(ship), {len(observation.shots)} shots"
        figures.heat_map(probability, observation.grid(), png, title, best)
    if as_json:
        emit_json({k: data[k] for k in _CALC_KEYS if k in data})
        return
    _print_calc(observation, probability, best, data, percent, skew, png)


# the --json keys, in the order they have always been printed
_CALC_KEYS = (
    "rules",
    "layouts",
    "probability",
    "best",
    "shots",
    "engine",
    "seconds",
    "samples",
    "standard_error",
)


def _print_calc(observation, probability, best, data, percent, skew, png) -> None:
    """The heat map (numbers when colour cannot show), layouts left or the Monte Carlo margin, the best cells."""
    from battleship.render import heat_text

    numbers = percent or console.no_color or console.color_system is None
    console.print(heat_text(probability, observation.grid(), numbers, frozenset(best)))
    if data["layouts"] is not None:
        console.print(
            f"layouts left: {data['layouts']:,} ({data['engine']}, {data['seconds']:.3f} s)", highlight=False
        )
    else:
        worst = max(max(row) for row in data["standard_error"])
        console.print(
            f"{data['engine']} in {data['seconds']:.2f} s; every cell within +-{196 * worst:.2f} percentage "
            f"points (95% interval; largest standard error {100 * worst:.2f})",
            highlight=False,
        )
    if best:
        what = "best cell" if len(best) == 1 else "best cells (tied)"
        shown = float(probability.ravel()[best[0]])
        names = ", ".join(data["best"])
        console.print(f"{what}{' with skew' if skew else ''}: {names} ({100 * shown:.2f}%)", highlight=False)
    if png is not None:
        console.print(f"heat map: {png}", highlight=False)


@friendly
def replay_cmd(
    game: Annotated[Path, typer.Argument(help="A game file in the paper's game notation.")],
    rules: FileRulesOpt = None,
    index: GameOpt = 1,
    player: PlayerOpt = None,
    frames: Annotated[
        Path | None, typer.Option("--frames", help="Write one PNG per turn into this folder.")
    ] = None,
    gif: Annotated[Path | None, typer.Option("--gif", help="Write the turns as one animated GIF.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The DataGenetics walkthrough: every turn's exact probability map beside the board, the chosen cell marked.

    Without --frames or --gif it prints the turns as a table.
    """
    r, name, record = read_game_record(game, rules, player, index)
    if frames is not None:
        frames.mkdir(parents=True, exist_ok=True)
    with progress_bar(disable=as_json) as progress:
        task = progress.add_task(f"replaying {name}", total=len(record.shots))
        turns = _replay_turns(r, record, frames, gif, lambda: progress.advance(task))
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
    if frames is None and gif is None:
        from rich.table import Table

        table = Table("turn", "cell", "P(ship) before", "answer", "layouts before", title=f"{name}'s shots")
        for t in turns:
            table.add_row(
                str(t["turn"]), t["cell"], f"{100 * t['probability']:.1f}%", t["outcome"], f"{t['layouts']:,}"
            )
        console.print(table)
        return
    written = ", ".join(str(x) for x in (frames, gif) if x is not None)
    console.print(f"{len(turns)} turns of {name}: {written}", highlight=False)


def _replay_turns(
    r: Rules, record: Record, frames: Path | None, gif: Path | None, advance
) -> list[dict[str, Any]]:
    """Each turn's exact posterior before the shot; its picture drawn when frames or a GIF are asked for."""
    from battleship import inference
    from battleship.cells import cell_name
    from battleship.game import Observation

    pictures = frames is not None or gif is not None
    hidden = record.layout.grid()
    images, turns = [], []
    for turn, shot in enumerate(record.shots):
        before = Observation(r, record.shots[:turn])
        result = inference.posterior(r, before)
        p = float(result.probability.ravel()[shot.cell])
        if pictures:
            title = f"turn {turn + 1}: {cell_name(shot.cell, r.cols)} ({100 * p:.1f}%), {shot.outcome.value}"
            image = _frame(
                result.probability, before.grid(), hidden, shot.cell, title, frames, turn, gif is not None
            )
            if image is not None:
                images.append(image)
        turns.append(
            {
                "turn": turn + 1,
                "cell": cell_name(shot.cell, r.cols),
                "probability": p,
                "outcome": shot.outcome.value,
                "layouts": result.layouts,
            }
        )
        advance()
    if gif is not None and images:
        gif.parent.mkdir(parents=True, exist_ok=True)
        images[0].save(gif, save_all=True, append_images=images[1:], duration=900, loop=0)
    return turns


def _frame(probability, seen, hidden, cell, title, frames, turn, want_image):
    """Draw one turn; save it as a PNG when ``frames``; return it as a GIF frame when ``want_image``."""
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    from battleship.lab import figures

    fig = figures.replay_frame(probability, seen, hidden, cell, title)
    canvas = FigureCanvasAgg(fig)
    if frames is not None:
        fig.savefig(frames / f"turn-{turn + 1:03d}.png", dpi=90)
    if not want_image:
        return None
    canvas.draw()
    return Image.fromarray(np.asarray(canvas.buffer_rgba())).convert("P")
