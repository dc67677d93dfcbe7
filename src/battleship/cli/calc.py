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
    from battleship.game import Observation, Record
    from battleship.inference import Posterior
    from battleship.inference.sampling import Estimate
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
    session().deadline(seconds)
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
    if seconds is None and salvos_out_of_reach(r, observation, as_json):
        seconds = SALVO_FALLBACK_SECONDS
        session().deadline(seconds)
        data["fallback"] = True
    if seconds is not None:
        estimate = monte_carlo_within(r, observation, seed, seconds, as_json)
        probability = estimate.probability
        data.update(layouts=None, engine=f"monte carlo ({estimate.samples:,} samples)")
        data.update(samples=estimate.samples, standard_error=estimate.standard_error.tolist())
    else:
        result = exact_posterior(r, observation, as_json)
        probability = result.probability
        data.update(layouts=result.layouts, engine=result.engine)
    data["seconds"] = time.perf_counter() - start
    over = hits_seen(observation) == r.ship_cells  # every ship cell hit: nothing left to find
    best = [] if over else _best(r, observation, probability, skew)
    data.update(probability=probability.tolist(), best=[cell_name(c, r.cols) for c in best], over=over)
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


def hits_seen(observation: Observation) -> int:
    """Ship cells hit so far, known on their own or counted by the salvos' answers."""
    if any(not v.shots for v in observation.volleys):
        return sum(v.hits for v in observation.volleys)
    return observation.hit_mask.bit_count()


def _fired(observation: Observation) -> str:
    """``12 shots``, or ``3 salvos (15 shots)`` under salvo rules."""
    shots = f"{observation.fired} shot{'s' * (observation.fired != 1)}"
    if observation.rules.salvo is None:
        return shots
    turns = len(observation.volleys)
    return f"{turns} salvo{'s' * (turns != 1)} ({shots})"


# Salvos answered by a count: an exact answer foreseen to take longer than this (or with too many
# hit patterns to count one by one) is estimated by Monte Carlo within SALVO_FALLBACK_SECONDS instead.
SALVO_EXACT_SECONDS = 120.0
SALVO_FALLBACK_SECONDS = 10.0


def salvos_out_of_reach(r: Rules, observation: Observation, quiet: bool) -> bool:
    """True (and said on stderr) when salvos answered by a count make the exact answer too long."""
    from battleship.inference.cost import duration
    from battleship.inference.posterior import global_evidence, work

    if global_evidence(r, observation) is None:
        return False
    needed = work(r, observation)
    if needed.seconds <= SALVO_EXACT_SECONDS:
        return False
    why = f"counting every layout would take about {duration(needed.seconds)} ({needed.detail})"
    if not quiet:
        err.print(
            f"note: {why}; estimating by Monte Carlo within {SALVO_FALLBACK_SECONDS:g} s instead "
            "(--time sets the budget)",
            highlight=False,
        )
    return True


def _best(r: Rules, observation: Observation, probability: Any, skew: bool) -> list[int]:
    """The unshot cells of highest probability (with C. Liam Brown's skew: the density shooter's choice)."""
    if skew:  # the skew lives with the density shooter: loaded only when asked for
        from battleship.shooters.density import best_cells

        return best_cells(r, observation, probability, 20)
    value = probability.ravel()
    open_cells = [c for c in range(r.cells) if not observation.shot_mask >> c & 1]
    top = max((float(value[c]) for c in open_cells), default=0.0)
    # the same tolerance as the density shooter's best_cells, so that ties read the same
    return [c for c in open_cells if value[c] >= top * (1 - 1e-12)]


MAX_SECONDS = 86_400.0
OUTPUT_SECONDS = 0.15  # of a --time budget, kept back for drawing and printing the answer
ABANDON_WAIT = 0.2  # seconds to let a sample batch under way finish once the budget is spent


def exact_posterior(r: Rules, observation: Observation, quiet: bool) -> Posterior:
    """The exact posterior, said up front when it will take long, with a spinner, stoppable by Ctrl-C."""
    from battleship import inference
    from battleship.cli.estimate import exact_seconds
    from battleship.inference.cost import duration

    expected = exact_seconds(r, observation)
    forewarn(expected, "counting every layout", "--time 10 answers by Monte Carlo within ten seconds")
    session().keeping(lambda: "nothing to keep: the count was not finished")
    with progress_bar(quiet or expected < 2) as progress:
        progress.add_task(f"counting layouts (expected about {duration(expected)})", total=None)
        return session().run(inference.posterior, r, observation)


def monte_carlo_within(
    r: Rules, observation: Observation, seed: int, seconds: float, quiet: bool
) -> Estimate:
    """Monte Carlo on exact samples, drawn in batches until the session's deadline (``--time``).

    The batches run in a worker thread: one that has not finished when the time is up is left
    behind (a batch can take long where rejection fails and exact sampling counts the board) and
    the answer is the batches finished, so the budget holds for the whole answer.
    """
    import threading

    import numpy as np

    from battleship.inference.sampling import Estimate, draw, hit_counts

    s = session()
    budget = s.stop.remaining() or 0.0
    # each batch is told the deadline: where rejection keeps too few draws it goes on rejecting until
    # then rather than compiling the exact sampler's graph, which could take the whole budget
    deadline = time.perf_counter() + budget
    lock = threading.Lock()
    done: list[Estimate] = []
    box: dict[str, BaseException] = {}

    def batches() -> None:
        size = 16  # a small first batch keeps short budgets short
        try:
            while not s.stop.requested:
                started = time.perf_counter()
                rows = draw(r, observation, size, seed=seed * 1_000_003 + len(done), deadline=deadline)
                if len(rows) == 0:
                    break
                hits = hit_counts(r, rows).reshape(r.rows, r.cols)
                part = Estimate(len(rows), hits / len(rows), hits * 0.0, time.perf_counter() - started)
                with lock:
                    done.append(part)
                size = min(2 * size, 256)
        except BaseException as exc:  # handed to the main thread
            box["error"] = exc

    worker = threading.Thread(target=batches, name="battleship-samples", daemon=True)
    s.keeping(lambda: "nothing to keep: the estimate was not finished")
    with progress_bar(quiet or budget < 2) as progress:
        progress.add_task("sampling", total=None)
        worker.start()
        while worker.is_alive() and (s.stop.remaining() or 0.0) > OUTPUT_SECONDS and not s.signalled:
            worker.join(0.05)
    s.check()
    s.stop.request()  # the budget is spent: no new batch
    worker.join(ABANDON_WAIT)
    if worker.is_alive():
        s.abandon(worker)
    if "error" in box and not done:
        raise box["error"]
    with lock:
        parts = list(done)
    if not parts:
        raise BattleshipError(
            f"no exact sample was drawn within --time {seconds:g}: on this board rejection keeps too few "
            "draws and exact sampling counts the layouts first; give more --time, or leave it out for exact counts"
        )
    n = sum(p.samples for p in parts)
    p = np.asarray(sum(part.probability * part.samples for part in parts)) / n  # asarray: for mypy only
    return Estimate(n, p, np.sqrt(p * (1 - p) / n), sum(part.seconds for part in parts))


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
    if data["layouts"] is not None:
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
