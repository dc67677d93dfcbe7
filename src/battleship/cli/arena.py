"""``battleship arena``: bring your own bot, and rank it against the others on the same battlefields."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from battleship.cli.common import (
    GamesOpt,
    GeneratorOpt,
    JsonOpt,
    RulesOpt,
    console,
    emit_json,
    err,
    friendly,
    output_file,
    print_table,
    progress_bar,
)
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError
from battleship.words import counted

if TYPE_CHECKING:
    from battleship.lab.arena import ArenaResult
    from battleship.stop import Stop

UNCONFINED_OPTION = "--unconfined-bots-i-trust"  # battleship.lab.arena.sandbox names it in its refusal
UNCOUNTED_OPTION = "--per-process-limits-i-trust"  # and this one where the machine has no control groups
SHARED_OPTION = "--shared-caches-i-trust"  # and this one where it cannot drop the kernel's caches

BOT_HELP = (
    "Bots: a registered shooter (density:skew=20, best; see 'battleship shooters'), a Python class with the "
    "Shooter protocol (package.module:Class or path/to/file.py:Class), or exec:COMMAND, a program in any "
    "language speaking the arena protocol (docs/arena-protocol.md; COMMAND is split into words as a shell "
    "would, but no shell runs it: exec:sh -c '...' for a shell line)."
)


# ---- the command's own options (the shared ones are in cli/common.py) ----
BotsArg = Annotated[list[str] | None, typer.Argument(help=BOT_HELP, metavar="BOT...")]

EntriesOpt = Annotated[
    Path | None,
    typer.Option(
        "--entries",
        help="A folder of entries, one file or folder per bot (language from the extension, or a "
        "bot.toml in the folder): each becomes a bot named after its entry.",
    ),
]

ArenaSeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        "-s",
        help="Make the run reproducible from this seed. Anyone who knows it can draw every battlefield: "
        "a contest leaves it out (the key then comes from the operating system and is revealed in the "
        "results) or picks it after the entries are in.",
    ),
]

TimeLimitOpt = Annotated[
    float,
    typer.Option("--time-limit", help="Seconds a bot may take for a shot (the C# Pirates contest's 0.5)."),
]

StartLimitOpt = Annotated[
    float, typer.Option("--start-limit", help="Seconds a program may take to start and read the rules.")
]

CpuLimitOpt = Annotated[
    float | None,
    typer.Option(
        "--cpu-limit",
        help="CPU seconds a program may use in one game (default: the time limit "
        "for every cell, plus the start limit).",
    ),
]

MemoryLimitOpt = Annotated[
    int, typer.Option("--memory-limit", help="Megabytes of data memory a program may allocate.")
]

ProcessLimitOpt = Annotated[
    int,
    typer.Option("--process-limit", help="Processes and threads a program may run at once (in the sandbox)."),
]

GameBudgetOpt = Annotated[
    float | None,
    typer.Option(
        "--game-budget",
        help="Wall-clock seconds a program may take over one game, its start not counted (default: a "
        "quarter of the time limit for every cell of the board); past it the game is a forfeit.",
    ),
]

BotBudgetOpt = Annotated[
    float | None,
    typer.Option(
        "--bot-budget",
        help="Wall-clock seconds a program may take over the whole run, starts and matches included "
        "(default: the start limit plus a tenth of the time limit for every cell of every game it "
        "plays); once spent, its remaining games are forfeits.",
    ),
]

BudgetForfeitsOpt = Annotated[
    int,
    typer.Option(
        "--budget-forfeits",
        help="Games a program may lose over its game budget before its remaining games are forfeits.",
    ),
]

BotCpusOpt = Annotated[
    int,
    typer.Option(
        "--bot-cpus",
        help="CPUs each program may use: a CPU set of its own, which os.cpu_count(), the JVM and Node.js "
        "see and size their pools by.",
    ),
]

RosterOpt = Annotated[
    Path | None,
    typer.Option(
        "--roster",
        help='Who entered which entry, for the ratings: a TOML file with an [entries] table, "entry" = '
        '"entrant" (default: each entry is a player of its own, under its file or folder name).',
    ),
]

MatchesOpt = Annotated[
    bool,
    typer.Option(
        "--matches", help="Also play every pair head to head (each hides a fleet, turns alternate)."
    ),
]

OutOpt = Annotated[
    Path | None, typer.Option("--out", help="Save the run as JSON (the web app's arena page shows it).")
]

RatingsOpt = Annotated[
    Path | None,
    typer.Option(
        "--ratings",
        help="Ratings that carry across runs (OpenSkill): read from this file, updated with this run, "
        "written back, and saved with the results.",
    ),
]

BattlefieldsOpt = Annotated[
    Path | None,
    typer.Option("--battlefields", help="Also write the battlefields played, one layout a line, here."),
]

VerifyOpt = Annotated[
    Path | None,
    typer.Option(
        "--verify",
        help="Check a saved run instead: its key against its commitment, its battlefields against the "
        "key, and its registered shooters (and any BOT named) replayed game by game.",
    ),
]

ReadableOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--bot-can-read",
        help="A file or folder every program bot may read in the sandbox (an interpreter installed "
        "outside /usr, say); repeat for more.",
    ),
]

UnconfinedOpt = Annotated[
    bool,
    typer.Option(
        UNCONFINED_OPTION,
        help="Run program and class bots without the sandbox: they can then read and write your files, "
        "use the network and leave processes behind. Only for bots you trust.",
    ),
]

UncountedOpt = Annotated[
    bool,
    typer.Option(
        UNCOUNTED_OPTION,
        help="Keep the sandbox but limit memory, processes and CPU time per process (where this machine "
        "gives the arena no control groups): a bot can then take more through its children and shared "
        "memory. Only for bots you trust.",
    ),
]

SharedCachesOpt = Annotated[
    bool,
    typer.Option(
        SHARED_OPTION,
        help="Keep the sandbox but leave the kernel's caches as each bot left them (where the arena cannot "
        "drop them: not root): a bot can then pass what it saw to a later bot through the pages it read. "
        "Only for bots you trust.",
    ),
]


@examples(
    'battleship arena best hunt-target "exec:python3 examples/bots/hunt_target.py" --games 200 --out results.json',
    'battleship arena --verify results.json "exec:python3 examples/bots/hunt_target.py"',
)
@friendly
def arena_cmd(
    bots: BotsArg = None,
    entries: EntriesOpt = None,
    rules: RulesOpt = "standard",
    generator: GeneratorOpt = "uniform",
    games: GamesOpt = 1000,
    seed: ArenaSeedOpt = None,
    time_limit: TimeLimitOpt = 0.5,
    start_limit: StartLimitOpt = 10.0,
    cpu_limit: CpuLimitOpt = None,
    memory_limit: MemoryLimitOpt = 1024,
    process_limit: ProcessLimitOpt = 64,
    game_budget: GameBudgetOpt = None,
    bot_budget: BotBudgetOpt = None,
    budget_forfeits: BudgetForfeitsOpt = 3,
    bot_cpus: BotCpusOpt = 1,
    matches: MatchesOpt = False,
    out: OutOpt = None,
    ratings: RatingsOpt = None,
    roster: RosterOpt = None,
    battlefields: BattlefieldsOpt = None,
    verify: VerifyOpt = None,
    readable: ReadableOpt = None,
    unconfined: UnconfinedOpt = False,
    uncounted: UncountedOpt = False,
    shared_caches: SharedCachesOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Every bot on the same battlefields: a leaderboard with 95% intervals, paired differences from the
    leader, forfeits by cause and time per shot; --matches adds head-to-head win rates. Program and
    class bots run in a sandbox (bubblewrap). The battlefields come from a secret key whose SHA-256 is
    printed first and which the results reveal, so anyone can check them (--verify).
    """  # fmt: skip
    from battleship import rules as rules_mod
    from battleship.lab import arena

    jail = arena.choose(
        unconfined, tuple(str(p) for p in readable or ()), groups=not uncounted, caches=not shared_caches
    )
    if verify is not None:
        _verify(verify, bots or [], battlefields, jail, as_json, entries)
        return
    r = rules_mod.load(rules)
    parsed = [arena.parse_bot(text, r) for text in bots or []]
    if entries is not None:
        parsed += arena.load_entries(entries)
    if roster is not None:
        from battleship.lab.arena import roster as roster_mod

        roster_mod.apply(roster_mod.read(roster), parsed)
    limits = arena.Limits(time_limit, start_limit, cpu_limit, memory_limit, process_limit,
                          game=game_budget, bot=bot_budget, strikes=budget_forfeits, cpus=bot_cpus)  # fmt: skip
    key = arena.Key.new() if seed is None else arena.Key.from_seed(seed)
    from battleship.lab.arena.contest import check

    check(r, parsed, games, limits, jail, matches)  # refused now, before the commitment is printed
    for path, option in ((out, "--out"), (ratings, "--ratings"), (battlefields, "--battlefields")):
        output_file(path, option)  # a file in the way of its folder: refused now, not after the run
    if ratings is not None:
        _ratings_mod().read(ratings)  # a bad file is refused now, not after the run
    err.print(
        f"commitment: sha256 of the run's key is {key.commitment}; the results reveal the key",
        highlight=False,
    )
    result, stop = _play(r, parsed, games, key, generator, limits, matches, jail, as_json)
    unrated = None
    if ratings is not None and not result.interrupted:
        try:
            result = dataclasses.replace(result, ratings=_ratings_mod().update(ratings, result))
        except BattleshipError as exc:  # the games are saved all the same, then the error is said
            unrated = exc
    _finish(result, r, key, out, battlefields, as_json)
    if unrated is not None:
        raise BattleshipError(
            f"the ratings were not updated: {unrated}" + (f" (the run is saved to {out})" if out else "")
        )
    if result.interrupted:
        played = sum(row.games for row in result.leaderboard)
        err.print(
            f"interrupted: {counted(played, 'game')} finished" + (f", saved to {out}" if out else ""),
            highlight=False,
        )
        from battleship.stop import exit_code

        raise typer.Exit(exit_code(stop))


def _ratings_mod():
    from battleship.lab.arena import ratings

    return ratings


def _play(r, bots, games, key, generator, limits, matches, jail, quiet) -> tuple[ArenaResult, Stop]:
    """The run, with a progress bar; Ctrl-C or SIGTERM ends it early with what finished."""
    from battleship.lab import arena
    from battleship.stop import Stop, signals_stop

    stop = Stop()
    per_bot = games * (1 + len(bots) if matches else 1)  # its battlefields, fleets hidden, each opponent's
    with progress_bar(disable=quiet) as progress:
        task = progress.add_task("games", total=len(bots) * per_bot)
        with signals_stop(stop):
            result = arena.run(
                r, bots, games, key, generator, limits, matches, lambda: progress.advance(task), jail,
                on_status=lambda said: progress.update(task, description=said),
            )  # fmt: skip
    return result, stop


def _finish(result: ArenaResult, r, key, out: Path | None, battlefields: Path | None, as_json: bool) -> None:
    from battleship import generators
    from battleship.lab import arena

    if out is not None:
        arena.save(result, out)
    if battlefields is not None:
        from battleship.files import write_atomically

        rows = key.battlefields(r, result.generator, result.games)
        write_atomically(battlefields, generators.format_lines(r, rows).decode())
    if as_json:
        emit_json(result.as_dict())
        return
    _print(result)
    if out is not None:
        from battleship.lab.arena.verify import results_digest

        console.print(f"saved to {out} (sha256 {results_digest(out)}, to publish beside the commitment); "
                      f"'battleship serve --arena {out}' shows it at /arena", highlight=False, markup=False)  # fmt: skip


def _verify(
    path: Path, bots: list[str], battlefields: Path | None, jail, as_json: bool, entries=None
) -> None:
    """Print every check; exit 1 if any failed, 3 if none failed but some row could not be checked."""
    from battleship.lab.arena.verify import results_digest, verify

    checks = verify(path, bots, battlefields, jail, entries)
    failed = [c for c in checks if c.checked and not c.ok]
    unchecked = [c for c in checks if not c.checked]
    flagged = [c.flagged for c in checks if c.flagged]
    digest = results_digest(path)
    if failed:
        last = f"FAILED: {len(failed)} of {len(checks)} checks failed"
    elif unchecked:
        last = f"NOT VERIFIED: {len(unchecked)} of {len(checks)} checks could not be made (see 'unchecked')"
    else:
        last = f"verified: all {len(checks)} checks hold"
    if flagged:
        last += (f"; FLAGGED: {', '.join(flagged)} (live games that differ from an isolated replay: a sign "
                 "of interference; do not trust these scores as they stand)")  # fmt: skip
    if as_json:
        emit_json({"run": str(path), "sha256": digest, "ok": not failed and not unchecked, "verdict": last,
                   "flagged": flagged, "checks": [c.__dict__ for c in checks]})  # fmt: skip
    else:
        console.print(f"results sha256: {digest}", highlight=False, markup=False)
        for c in checks:
            mark = "ok  " if c.ok else "FAIL" if c.checked else "unchecked"
            console.print(f"{mark} {c.what}: {c.detail}", highlight=False, markup=False)
        console.print(last, highlight=False, markup=False)
    if failed or unchecked:
        raise typer.Exit(1 if failed else 3)


def _cell(text: str) -> str:
    """A name as a table cell: its control characters escaped (the results hold it so already; a file
    may not), and no rich markup in it."""
    from rich.markup import escape as no_markup

    from battleship.lab.arena.names import escape

    return no_markup(escape(text))


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}" if value < 1 else f"{value:.1f}"


def _forfeit_text(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    if not total:
        return "0"
    return f"{total} (" + ", ".join(f"{c} {n}" for c, n in counts.items() if n) + ")"


def _who(row) -> str:
    """Who entered a bot: the roster's entrant, and the author its bot.toml claims (only a claim)."""
    claim = f"claims {row.author}" if row.author and row.author != row.entrant else ""
    return "; ".join(w for w in (row.entrant or "", claim) if w)


def _print(result: ArenaResult) -> None:
    seeded = f"seed {result.seed}" if result.seed is not None else "a secret key"
    title = (
        f"{result.rules}: {result.games:,} battlefields ({result.generator}, {seeded}), "
        f"{result.time_limit:g} s a shot; a forfeit scores {result.forfeit_score}"
        + ("" if result.jail == "sandbox" else "; programs ran UNCONFINED")
        + ("; caches SHARED between bots" if result.jail == "sandbox" and result.caches == "shared" else "")
    )
    rows = [
        [
            str(row.rank), _cell(row.bot), _cell(row.name or ""), _cell(_who(row)), row.kind, f"{row.mean:.2f}",
            f"{row.ci95[0]:.2f} .. {row.ci95[1]:.2f}", f"{row.minus_leader:+.2f}",
            f"{row.minus_leader_ci95[0]:+.2f} .. {row.minus_leader_ci95[1]:+.2f}", _forfeit_text(row.forfeits),
            _ms(row.time_per_shot_ms["median"]), _ms(row.time_per_shot_ms["worst"]),
        ]
        for row in result.leaderboard
    ]  # fmt: skip
    headers = ["#", "bot", "name", "entrant", "kind", f"mean {result.unit}", "95% interval", "- leader", "95% interval ",
               "forfeits", "ms/shot median", "ms/shot worst"]  # fmt: skip
    if not any(_who(row) for row in result.leaderboard):
        headers.remove("entrant")
        rows = [row[:3] + row[4:] for row in rows]
    timed = "registered kernels are timed a game at a time (the game's time over its shots)"
    print_table(title, headers, rows, optional=("name", "entrant", "kind", "95% interval "), note=timed)
    examples = [(row.bot, e) for row in result.leaderboard for e in row.forfeit_examples]
    examples += [(f"{e['bot']} (against {p.b if e['bot'] == p.a else p.a})", e)
                 for p in result.matches or () for e in p.forfeit_examples]  # fmt: skip
    for bot, e in examples:
        err.print(f"{bot}, game {e['game']}: {e['cause']}: {e['detail']}", highlight=False, markup=False)
    if result.matches:
        rows = [
            [_cell(p.a), _cell(p.b), f"{p.a_wins}/{p.games}", f"{p.a_win_rate:.3f}",
             f"{p.a_win_rate_ci95[0]:.3f} .. {p.a_win_rate_ci95[1]:.3f}", str(p.a_forfeits), str(p.b_forfeits)]
            for p in result.matches
        ]  # fmt: skip
        print_table("head to head (A moves first in even games)", ["A", "B", "A wins", "A win rate",
                    "95% interval", "A forfeits", "B forfeits"], rows)  # fmt: skip
    if result.ratings:
        rows = [
            [str(x["rank"]), _cell(x["bot"]), f"{x['ordinal']:.2f}", f"{x['mu']:.2f}", f"{x['sigma']:.2f}", f"{x['games']:,}",
             str(x["runs"]), "" if x["change"] is None else f"{x['change']:+.2f}"]
            for x in result.ratings
        ]  # fmt: skip
        print_table("ratings across runs (OpenSkill; ordinal = mu - 3 sigma)", ["#", "bot", "ordinal", "mu",
                    "sigma", "games", "runs", "this run"], rows)  # fmt: skip
    console.print(f"key: {result.key} (its sha256 is the commitment printed at the start; "
                  f"battlefields sha256 {result.battlefields})", highlight=False)  # fmt: skip
