"""The ``calc`` and ``replay`` commands: C. Liam Brown's probability calculator and the DataGenetics walkthrough."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from battleship.cli.common import (
    JsonOpt,
    SeedOpt,
    SkewOpt,
    console,
    emit_json,
    err,
    forewarn,
    friendly,
    load_rules,
    output_file,
    output_folder,
    progress_bar,
    read_text_file,
    session,
    source_name,
)
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError
from battleship.extras import require
from battleship.words import counted

if TYPE_CHECKING:
    from rich.progress import Progress

    from battleship.game import Observation, Record
    from battleship.inference.calculator import Answer
    from battleship.rules import Rules

MAX_SECONDS = 86_400.0
OUTPUT_SECONDS = 0.15  # of a --time budget, kept back for drawing and printing the answer

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
    if board == "-" or path.is_file():
        return notation.parse_board(read_text_file(board if board == "-" else path, "board file"), r)
    try:
        return notation.parse_board(board, r)
    except BattleshipError:
        if board.startswith(("/", "./", "~")) or (path.suffix and "|" not in board):
            raise BattleshipError(f"{board}: no such board file (and not a board state either)") from None
        raise


def read_game_record(
    path: Path, rules: str | None, player: str | None, index: int = 1
) -> tuple[Rules, str, Record]:
    """``(rules, player, record)`` of one shooter in game ``index`` of a file in the paper's game notation
    (``-``: standard input).

    The rules are those the file carries; ``rules`` (a preset or TOML file) only for a file that
    carries none, which otherwise reads as standard, saying so on stderr.
    """
    from battleship import notation

    where = source_name(path)
    text = read_text_file(path, "game file")
    given = load_rules(rules) if rules else None
    r = notation.game_rules(text, given)
    if given is None and notation.carried_rules(text) is None:
        err.print(f"{where} does not say its rules: read under standard", highlight=False)
    games = notation.read_games(text, r)
    if not 1 <= index <= len(games):
        raise BattleshipError(f"--index {index}: {where} holds {len(games)} game{'s' * (len(games) != 1)}")
    records = games[index - 1].records()
    if not records:
        raise BattleshipError(f"{where}: nobody has fired yet")
    name = player or next(iter(records))
    if name not in records:
        raise BattleshipError(f"{where}: {name!r} fired no shots; shooters: {', '.join(records)}")
    return r, name, records[name]


@examples(
    'battleship calc --rules square-6 "....../..o.../.oxo../....../....../......" --percent',
    "battleship calc board.txt --time 10",
)
@friendly
def calc_cmd(
    board: Annotated[
        str | None,
        typer.Argument(
            help="A board state (one line, rows split by '/') or a file holding one ('-': standard input)."
        ),
    ] = None,
    rules: FileRulesOpt = None,
    game: Annotated[
        Path | None,
        typer.Option(
            "--game",
            help="A game file in the paper's game notation: its shots, in their order ('-': standard input).",
        ),
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
        typer.Option(
            "--time",
            help="Monte Carlo on exact samples instead of exact counts, answering within this many seconds "
            "(the whole answer).",
        ),
    ] = None,
    skew: SkewOpt = False,
    seed: SeedOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Hit probabilities of every cell given what has been seen: exact counts, or Monte Carlo with --time.

    The board is one character a cell, its rows joined by '/' (or one row a line in a file): '.' a cell
    not fired at, 'o' a miss, 'x' a hit, and a sunk ship's letter (C, B, D, S and P under the standard
    rules; `battleship rules NAME` lists a fleet's letters) on the cell whose shot sank it, or on all of
    its cells where the rules reveal sunk ships; '#' is a sinking under rules that do not name the ship.
    Under salvo rules answered whole, '?' is a cell fired at whose own answer is not known, and the
    salvos follow after ' | ', each its cells, '=' and the answer: E5,F5,G5=2 (two hits), or E5,F5=BC+C
    (the ships hit, one letter a hit, then the ship sunk).
    """
    from battleship.cells import cell_name

    start = time.perf_counter()
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise BattleshipError(
            f"--time is a number of seconds above 0 and at most {MAX_SECONDS:,}, not {seconds:g}"
        )
    if (board is None) == (game is None):
        raise BattleshipError("give a board state or --game FILE (one of the two)")
    if png is not None:
        require("plot", "--png")
        output_file(png, "--png")
    if game is not None:
        r, _, record = read_game_record(game, rules, player, index)
        observation = record.observation
    else:
        assert board is not None  # one of the two was given (checked above)
        r = load_rules(rules or "standard")
        observation = read_board_arg(board, r)
    data: dict[str, Any] = {"rules": r.name, "shots": observation.fired}
    if r.salvo is not None:
        data["salvos"] = len(observation.volleys)
    # the whole answer's budget: what is left of --time once the board is read, less the printing
    budget = None if seconds is None else max(seconds - (time.perf_counter() - start) - OUTPUT_SECONDS, 0.01)
    answer = calculated(observation, budget, seed, as_json)
    probability = answer.probability
    if answer.exact:
        data.update(layouts=answer.layouts, engine=answer.engine)
    else:
        data.update(layouts=None, engine=f"monte carlo ({answer.samples:,} samples)")
        data.update(
            samples=answer.samples,
            standard_error=[] if answer.standard_error is None else answer.standard_error.tolist(),
        )
        if seconds is None:  # the calculator estimated where exact counts were asked for (salvos' counts)
            data["fallback"] = True
    data["seconds"] = time.perf_counter() - start
    best: list[int] = [*answer.best()]
    if skew and not answer.over:  # C. Liam Brown's skew: the density shooter's choice
        from battleship.shooters.density import best_cells

        best = best_cells(r, observation, probability, 20)
    data.update(probability=probability.tolist(), best=[cell_name(c, r.cols) for c in best], over=answer.over)
    if png is not None:
        from battleship.lab import figures

        title = f"{r.name}: P(ship), {_fired(observation)}"
        figures.heat_map(probability, observation.grid(), png, title, best)
    if r.salvo is not None:
        data["exact"] = data["layouts"] is not None
    if as_json:
        emit_json({k: data[k] for k in _CALC_KEYS if k in data})
        return
    _print_calc(observation, probability, best, data, percent, skew, png)


def _fired(observation: Observation) -> str:
    """``12 shots``, or ``3 salvos (15 shots)`` under salvo rules."""
    shots = f"{observation.fired} shot{'s' * (observation.fired != 1)}"
    if observation.rules.salvo is None:
        return shots
    turns = len(observation.volleys)
    return f"{turns} salvo{'s' * (turns != 1)} ({shots})"


def calculated(observation: Observation, seconds: float | None, seed: int, quiet: bool) -> Answer:
    """The calculator's answer (:func:`battleship.inference.calculator.calculate`): Monte Carlo within
    ``seconds`` when given, else exact counts (or, where salvos answered by a count put them out of
    reach, Monte Carlo within ten seconds, said); said up front when long, with a progress bar,
    stoppable by Ctrl-C."""
    from contextlib import ExitStack
    from functools import partial

    from battleship.inference.calculator import Plan, calculate
    from battleship.inference.cost import duration

    s = session()
    with ExitStack() as shown:
        bars: list[Progress] = []

        def spinner(description: str) -> None:
            """A spinner for a long calculation: the bar is made only then (most answer at once, and Rich's
            progress module is a fair share of a short command's start)."""
            if not bars:
                bars.append(shown.enter_context(progress_bar(quiet)))
            bars[0].add_task(description, total=None)

        def on_plan(plan: Plan) -> None:
            if plan.exact:
                forewarn(
                    plan.expected,
                    "counting every layout",
                    "--time 10 answers by Monte Carlo within ten seconds",
                )
                s.keeping(lambda: "nothing to keep: the count was not finished")
                if plan.expected >= 2:
                    spinner(f"counting layouts (expected about {duration(plan.expected)})")
                return
            if seconds is None and not quiet:
                err.print(
                    f"note: {plan.why}; estimating by Monte Carlo within {plan.seconds:g} s instead "
                    "(--time sets the budget)",
                    highlight=False,
                )
            s.keeping(lambda: "nothing to keep: the estimate was not finished")
            if (plan.seconds or 0) >= 2:
                spinner("sampling")

        method = "auto" if seconds is None else "sample"
        work = partial(calculate, stop=s.stop, on_plan=on_plan, on_abandon=s.abandon)
        return s.run(work, observation, seconds=seconds, method=method, seed=seed)


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
    "over",
    "salvos",
    "exact",
)


def _print_calc(observation, probability, best, data, percent, skew, png) -> None:
    """The heat map (numbers when colour cannot show), layouts left or the Monte Carlo margin, the best cells."""
    from battleship.render import heat_text

    numbers = percent or console.no_color or console.color_system is None
    console.print(heat_text(probability, observation.grid(), numbers, frozenset(best)))
    exact = "exact, " if observation.rules.salvo is not None else ""
    if isinstance(data["layouts"], float):  # under noise: each layout weighed by how likely the answers are
        console.print(
            f"layouts left, weighed by the answers' likelihood: {data['layouts']:,.1f} "
            f"({exact}{data['engine']}, {data['seconds']:.3f} s)",
            highlight=False,
        )
    elif data["layouts"] is not None:
        console.print(
            f"layouts left: {data['layouts']:,} ({exact}{data['engine']}, {data['seconds']:.3f} s)",
            highlight=False,
        )
    else:
        worst = max(max(row) for row in data["standard_error"])
        estimated = "estimated: " if observation.rules.salvo is not None else ""
        console.print(
            f"{estimated}{data['engine']} in {data['seconds']:.2f} s; every cell within +-{196 * worst:.2f} percentage "
            f"points (95% interval; largest standard error {100 * worst:.2f})",
            highlight=False,
        )
    if data["over"]:
        console.print(
            f"the game is over: every ship is sunk, in {_fired(observation)}; no cell is left to find",
            highlight=False,
        )
    elif best:
        what = "best cell" if len(best) == 1 else "best cells (tied)"
        shown = float(probability.ravel()[best[0]])
        names = ", ".join(data["best"])
        console.print(f"{what}{' with skew' if skew else ''}: {names} ({100 * shown:.2f}%)", highlight=False)
    if png is not None:
        console.print(f"heat map: {png}", highlight=False)


@examples("battleship replay game.txt", "battleship replay game.txt --gif game.gif")
@friendly
def replay_cmd(
    game: Annotated[
        Path, typer.Argument(help="A game file in the paper's game notation ('-': standard input).")
    ],
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
    from battleship.cli.estimate import exact_seconds

    if frames is not None or gif is not None:
        require("plot", "drawing replay frames (--gif, --frames)")
    if gif is not None and gif.suffix.lower() != ".gif":
        raise BattleshipError(f"--gif {gif}: give a file name ending in .gif")
    output_file(gif, "--gif")
    r, name, record = read_game_record(game, rules, player, index)
    whole = any(not v.shots for v in record.volleys)
    if whole and (frames is not None or gif is not None):
        raise BattleshipError(
            "--frames and --gif draw games answered shot by shot; this game's salvos are answered whole "
            "(replay without them prints each salvo's turn)"
        )
    output_folder(frames, "--frames")
    count = len(record.volleys) if whole else len(record.shots)
    forewarn(
        exact_seconds(r) + exact_seconds(r, repeated=True) * max(0, count - 1),
        f"counting every layout before each of the {counted(count, 'turn')}",
        "calc --game FILE gives one turn's map (with --time, by Monte Carlo)",
    )
    done: list[int] = []
    session().keeping(
        lambda: (
            f"{len(done)} of {counted(count, 'turn')} replayed"
            + (f", their frames kept in {frames}" if frames is not None else "")
            + ("; the GIF was not written" if gif is not None else "")
        )
    )
    with progress_bar(disable=as_json) as progress:
        task = progress.add_task(f"replaying {name}", total=count)

        def turn_done() -> None:
            done.append(1)
            progress.advance(task)

        turns = (
            replay_salvos(r, record, turn_done) if whole else _replay_turns(r, record, frames, gif, turn_done)
        )
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

        chance = "expected hits before" if whole else "P(ship) before"
        table = Table("turn", "cell", chance, "answer", "layouts before", title=f"{name}'s shots")
        for t in turns:
            said = f"{t['expected_hits']:.2f}" if whole else f"{100 * t['probability']:.1f}%"
            table.add_row(str(t["turn"]), t["cell"], said, t["outcome"], f"{t['layouts']:,}")
        console.print(table)
        return
    written = ", ".join(str(x) for x in (frames, gif) if x is not None)
    console.print(f"{counted(len(turns), 'turn')} of {name}: {written}", highlight=False)


def replay_salvos(r: Rules, record: Record, advance) -> list[dict[str, Any]]:
    """Each salvo answered whole: the exact posterior before it, its cells' mean probability and
    expected hits, and its answer as the board-state text writes it."""
    from battleship import inference
    from battleship.cells import cell_name
    from battleship.game import Observation, volley_text

    turns = []
    for turn, volley in enumerate(record.volleys):
        result = session().run(inference.posterior, r, Observation(r, (), record.volleys[:turn]))
        chances = [float(result.probability.ravel()[c]) for c in volley.cells]
        turns.append(
            {
                "turn": turn + 1,
                "cell": ",".join(cell_name(c, r.cols) for c in volley.cells),
                "probability": sum(chances) / len(chances),
                "expected_hits": sum(chances),
                "outcome": volley_text(r, volley).split("=", 1)[1],
                "layouts": result.layouts,
            }
        )
        advance()
    return turns


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
        result = session().run(inference.posterior, r, before)
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
