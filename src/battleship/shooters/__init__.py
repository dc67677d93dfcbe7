"""Shooting strategies, registered by name and built with :func:`make`, as Gymnasium builds environments.

Each :func:`register` call below says everything about one shooter: its name, what it does and whose
idea it is, where its class lives (imported only when the shooter is first made), the Numba kernel the
lab plays it with, the options it takes (``name:key=value,...``, or keywords to :func:`make`; see
:mod:`battleship.shooters.options`), whether it is recommended, a published baseline or an
experiment, and its measured strength with the command that measured it. Which rules a shooter refuses, and why, is its class's
``refusal``. Register your own the same way; :func:`battleship.shooters.check.check_shooter` checks
that a shooter keeps the protocol and, when it has a kernel, that the kernel plays the very same
games as the class, shot for shot, random numbers included.
"""

import dataclasses

from battleship.shooters.options import OPTION, Alias, Options, OptionSpec
from battleship.shooters.registry import (
    SCORING,
    TIES_WITHOUT_INFORMATIVE,
    ShooterSpec,
    Strength,
    check,
    informative,
    make,
    names,
    reference_markdown,
    register,
    resolve,
    spec,
    specs,
)

__all__ = [
    "Alias",
    "OptionSpec",
    "Options",
    "ShooterSpec",
    "Strength",
    "check",
    "informative",
    "make",
    "names",
    "reference_markdown",
    "register",
    "resolve",
    "spec",
    "specs",
]

_HERE = "battleship.shooters"
# why the classic baselines leave answers unread: they are kept as their sources published them
_AS_DATAGENETICS = (
    "DataGenetics' hunt/target reads hits and misses only (its walkthrough walks round a cruiser it has sunk)"
)
_AS_THE_R_STUDY = "the R study's search reads hits and misses only"
_REPRODUCTION = "docs/research/reproduction.md"
_TIE_HELP = "how equal cells are split: first (reading order), random, or centre (nearest the middle)"
_BASELINE = "kept as its source wrote it"
# the old spellings of the exact shooters' options: ``endgame`` was their exact solve (now ``exact``,
# as twoply names it; twoply's ``endgame`` is greedy's exact rest of game), ``boost`` the lattice skew
_EXACT_ALIASES = (Alias("endgame", "exact"), Alias("boost", "skew", (("lattice", 1),)))
_BOOST_ALIAS = (Alias("boost", "skew", (("lattice", 1),)),)
# the salvo measurements: every shooter on the same seeded layouts (benchmarks/salvo_shooters.py)
_SALVO_SOURCE = "benchmarks/salvo_shooters.py"
_SALVO_RUN = (
    ".venv/bin/python benchmarks/salvo_shooters.py --games 400 --rules salvo --generators uniform "
    "--shooters density,density:skew=20,salvo --versus salvo:density,salvo:density:skew=20"
)


def _options(*keys: str, informative: bool = False, **defaults: int) -> tuple[OptionSpec, ...]:
    """The shared definitions of ``keys`` (tie narrowed unless ``informative``, defaults as given)."""
    out = []
    for key in keys:
        option = OPTION[key]
        if key == "tie" and not informative:
            option = dataclasses.replace(option, choices=TIES_WITHOUT_INFORMATIVE, help=_TIE_HELP)
        if key in defaults:
            option = dataclasses.replace(option, default=defaults[key])
        out.append(option)
    return tuple(out)


def _one(
    rules: str, spec: str, games: int, mean: float, interval: str, command: str, **more: str
) -> Strength:
    return Strength(rules, spec, games, mean, interval, command, **more)


register(
    ShooterSpec(
        "random",
        f"{_HERE}.random:RandomShooter",
        "a uniformly random cell not yet fired at",
        "random",
        ignores=("sinkings", "margin"),
        ignores_why="DataGenetics' first baseline fires at any cell not yet fired at",
        role="baseline",
        advice=_BASELINE,
        strength=(
            _one(
                "standard",
                "random",
                1_000_000,
                95.387,
                "95.377 .. 95.396",
                "battleship simulate --shooter random --games 1000000 --seed 1 --jobs 2",
                source=_REPRODUCTION,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "hunt-target",
        f"{_HERE}.hunt_target:HuntTargetShooter",
        "DataGenetics: random hunt, then the N/S/E/W neighbours of every hit",
        "hunt-target",
        ignores=("sinkings", "margin"),
        ignores_why=_AS_DATAGENETICS,
        role="baseline",
        advice=_BASELINE,
        strength=(
            _one(
                "standard",
                "hunt-target",
                1_000_000,
                66.257,
                "66.232 .. 66.281",
                "battleship simulate --shooter hunt-target --games 1000000 --seed 1 --jobs 2",
                source=_REPRODUCTION,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "hunt-target-parity",
        f"{_HERE}.hunt_target:HuntTargetParityShooter",
        "DataGenetics: hunt/target that hunts on one checkerboard colour (colour=0|1)",
        "hunt-target-parity",
        ignores=("sinkings", "margin"),
        ignores_why=_AS_DATAGENETICS,
        options=_options("colour"),
        role="baseline",
        advice=_BASELINE,
        strength=(
            _one(
                "standard",
                "hunt-target-parity",
                1_000_000,
                61.317,
                "61.301 .. 61.334",
                "battleship simulate --shooter hunt-target-parity --games 1000000 --seed 1 --jobs 2",
                source=_REPRODUCTION,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "density",
        f"{_HERE}.density:DensityShooter",
        "DataGenetics: the most counted cell over every placement of every afloat ship",
        "density",
        options=_options(*SCORING, "weight", "lastship", "twostep", "book", "confirm"),
        advice="microseconds a game; best plays density:skew=20,lattice=1,lastship=8,book=1 on standard rules",
        strength=(
            _one(
                "standard",
                "density",
                100_000_000,
                44.3655,
                "44.3638 .. 44.3673",
                "battleship simulate --shooter density --games 100000000 --seed 1 --jobs 2",
                source=_REPRODUCTION,
            ),
            _one(
                "standard",
                "density:skew=20",
                20_000,
                44.111,
                "43.997 .. 44.226",
                "battleship compare density density:skew=20 density:tie=centre,skew=20 density:skew=10 "
                "density:skew=30 superposition:boost=20 --rules standard --games 20000 --seed 5",
            ),
            _one(
                "standard",
                "density:skew=20,lattice=1,lastship=8",
                20_000,
                43.97,
                "43.86 .. 44.08",
                "battleship compare density:skew=20 density:skew=20,lattice=1,lastship=8 --games 20000 "
                "--seed 30033 --jobs 1",
            ),
            _one(
                "salvo",
                "density (its 5 likeliest cells a turn)",
                400,
                11.332,
                "11.133 .. 11.532",
                _SALVO_RUN,
                unit="turns",
                source=_SALVO_SOURCE,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "flood",
        f"{_HERE}.flood:FloodShooter",
        "The R study: random guesses, and a flood of the neighbours of every hit",
        "flood",
        ignores=("sinkings", "margin"),
        ignores_why=_AS_THE_R_STUDY,
        role="baseline",
        advice=_BASELINE,
        strength=(
            _one(
                "r-blog",
                "flood",
                100_000,
                64.932,
                "64.850 .. 65.014",
                "battleship simulate flood --rules r-blog --generator r-blog --games 100000 --seed 1",
                generator="r-blog",
                source=_REPRODUCTION,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "density-grid",
        f"{_HERE}.flood:DensityGridShooter",
        "The R study: a misses-only density over the whole fleet, and a flood on a hit",
        "density-grid",
        ignores=("sinkings", "margin"),
        ignores_why=_AS_THE_R_STUDY,
        options=(
            dataclasses.replace(
                OPTION["skew"],
                help="C. Liam Brown's diagonal skew, percent more for the checkerboard colour most shots went "
                "to (always: the R study never drops a ship)",
            ),
        ),
        role="baseline",
        advice=_BASELINE,
        strength=(
            _one(
                "r-blog",
                "density-grid",
                100_000,
                55.769,
                "55.715 .. 55.823",
                "battleship simulate density-grid --rules r-blog --generator r-blog --games 100000 --seed 1",
                generator="r-blog",
                source=_REPRODUCTION,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "superposition",
        f"{_HERE}.density:SuperpositionShooter",
        "The Dunman High paper: forced cells, then the most arranged cell, parity boosted",
        "superposition",
        options=_options("tie", "boost"),
        role="baseline",
        advice="kept as the Dunman High paper wrote it; behind density on standard rules",
        strength=(
            _one(
                "standard",
                "superposition",
                100_000,
                45.254,
                "45.202 .. 45.306",
                "battleship compare superposition superposition:boost=0 superposition:boost=20 --games 100000 --seed 1",
                source=_REPRODUCTION,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "trial-sink",
        f"{_HERE}.trial_sink:TrialSinkShooter",
        "The C# Pirates winner: trial shots by ship options, sink shots to finish (no-touch rules)",
        "trial-sink",
        options=_options(*SCORING, "prior"),
        advice="a kernel, microseconds a shot; best plays trial-sink:skew=20 under a margin where exact play costs too much",
        strength=(
            _one(
                "pirates",
                "trial-sink",
                20_000,
                40.813,
                "40.737 .. 40.889",
                "battleship compare trial-sink trial-sink:tie=random trial-sink:tie=centre trial-sink:skew=20 "
                "trial-sink:tie=random,skew=20 trial-sink:tie=centre,skew=20 superposition density "
                "hunt-target-parity --rules pirates --games 20000 --seed 1",
            ),
            _one(
                "pirates",
                "trial-sink:skew=20",
                20_000,
                40.783,
                "40.709 .. 40.856",
                "battleship compare trial-sink trial-sink:tie=random trial-sink:tie=centre trial-sink:skew=20 "
                "trial-sink:tie=random,skew=20 trial-sink:tie=centre,skew=20 superposition density "
                "hunt-target-parity --rules pirates --games 20000 --seed 1",
            ),
        ),
    )
)
register(
    ShooterSpec(
        "optimal",
        f"{_HERE}.optimal:OptimalShooter",
        "The Dunman High paper done exactly: the cell most consistent layouts put a ship on",
        options=_options(*SCORING, "exact", "prior", "samples", "confirm", informative=True),
        aliases=_EXACT_ALIASES,
        advice="exact greedy play, any rules and shapes; milliseconds to seconds a shot",
        strength=(
            _one(
                "standard",
                "optimal",
                1_000,
                44.239,
                "43.680 .. 44.798",
                "battleship compare optimal optimal:skew=20 optimal:boost=10 optimal:tie=centre density "
                "--games 1000 --seed 7 --jobs 2",
            ),
            _one(
                "pirates",
                "optimal",
                5_000,
                40.676,
                "40.526 .. 40.827",
                "battleship compare optimal twoply:plies=1,endgame=5000 --rules pirates --games 5000 "
                "--seed 30003 --jobs 1",
            ),
        ),
    )
)
register(
    ShooterSpec(
        "montecarlo",
        f"{_HERE}.montecarlo:MonteCarloShooter",
        "C. Liam Brown's Probability mode: the cell most exact uniform samples put a ship on",
        options=_options(*SCORING, "samples", "budget", informative=True),
        aliases=_BOOST_ALIAS,
        advice="C. Liam Brown's calculator as published; sampling noise costs a little against optimal",
        strength=(
            _one(
                "standard",
                "montecarlo",
                1_000,
                45.02,
                "44.46 .. 45.58",
                "battleship compare density:skew=20 montecarlo:skew=20 montecarlo montecarlo:skew=20,samples=200 "
                "--games 1000 --seed 7 --jobs 2",
            ),
            _one(
                "standard",
                "montecarlo:skew=20",
                1_000,
                44.57,
                "44.06 .. 45.08",
                "battleship compare density:skew=20 montecarlo:skew=20 montecarlo montecarlo:skew=20,samples=200 "
                "--games 1000 --seed 7 --jobs 2",
            ),
        ),
    )
)
register(
    ShooterSpec(
        "learning",
        f"{_HERE}.learning:LearningShooter",
        "C. Liam Brown's Learning mode: optimal under a placement prior fitted to recorded layouts (model=FILE)",
        options=_options(*SCORING, "model", "samples", informative=True),
        aliases=_BOOST_ALIAS,
        advice="for layouts from one opponent: fit a model with battleship learn",
    )
)
register(
    ShooterSpec(
        "rollout",
        f"{_HERE}.rollout:RolloutShooter",
        "Look-ahead: the density shooter played on from each candidate cell over exact posterior samples",
        options=_options(*SCORING, "weight", "rollouts", "width"),
        role="experiment",
        advice="level with density:skew=20 at best on standard rules (docs/research/rules.md); not played by best",
    )
)
register(
    ShooterSpec(
        "twoply",
        f"{_HERE}.twoply:TwoPlyShooter",
        "Exact two-ply look-ahead: of greedy's best cells, the one with most expected hits this shot and next",
        options=_options(*SCORING, "endgame", "exact", "second", "prior", "width", "plies", "early"),
        role="experiment",
        advice="plain two-ply lost every measurement; with endgame=5000,plies=1 it is what best plays on "
        "pirates and small boards (use best)",
        strength=(
            _one(
                "pirates",
                "twoply:plies=1,endgame=5000",
                5_000,
                40.522,
                "40.377 .. 40.667",
                "battleship compare optimal twoply:plies=1,endgame=5000 --rules pirates --games 5000 "
                "--seed 30003 --jobs 1",
            ),
        ),
    )
)
register(
    ShooterSpec(
        "greedy-rollout",
        f"{_HERE}.greedy_rollout:GreedyRolloutShooter",
        "Look-ahead: exact greedy played on from each of its best cells over exact posterior samples, gated",
        options=_options(*SCORING, "endgame", "rollouts", "width"),
        role="experiment",
        advice="not measured ahead of exact greedy play; not played by best",
    )
)
register(
    ShooterSpec(
        "salvo",
        f"{_HERE}.salvo:SalvoShooter",
        "Set-aware salvos: the salvo worth most over two turns (its hits, then the best next salvo given its answer), on exact samples",
        options=(
            dataclasses.replace(
                OPTION["samples"], default=200, help="exact uniform samples of the layouts, a turn"
            ),
        ),
        advice="for salvo rules: it chooses the salvo for the game, not the K likeliest cells; "
        "about a second a game in Python",
        strength=(
            _one(
                "salvo",
                "salvo",
                400,
                10.615,
                "10.393 .. 10.837",
                _SALVO_RUN,
                unit="turns",
                source=_SALVO_SOURCE,
            ),
        ),
    )
)
register(
    ShooterSpec(
        "minimax",
        f"{_HERE}.minimax:MinimaxShooter",
        "Against a cheating hider: the cell whose worst answer leaves fewest layouts; exact minimax play on small boards",
        options=_options("tie", "exact"),
        advice="for Cheat Battleship ([hider] rules): it fires for the worst case; exact=N plays the solved game "
        "on boards of at most N layouts",
    )
)
register(
    ShooterSpec(
        "best",
        f"{_HERE}.best:BestShooter",
        "the strongest measured shooter for the rules (docs/research/rules.md); options apply to it",
        options=_options("fast"),
        chooses=f"{_HERE}.best:best_for",
        passes_on=("density", "trial-sink", "optimal", "twoply", "salvo", "minimax"),
        advice="start here: it plays the strongest measured shooter for the rules (shooters --rules R says which)",
        strength=(
            _one(
                "standard",
                "best = density:skew=20,lattice=1,lastship=8,book=1",
                20_000,
                44.00,
                "43.89 .. 44.11",
                "battleship compare best density:skew=20 --rules standard --games 20000 --seed 45131 --jobs 1",
            ),
            _one(
                "pirates",
                "best = twoply:plies=1,endgame=5000",
                5_000,
                40.522,
                "40.377 .. 40.667",
                "battleship compare optimal twoply:plies=1,endgame=5000 --rules pirates --games 5000 "
                "--seed 30003 --jobs 1",
            ),
            _one(
                "pirates",
                "best:prior=contest on contest layouts = optimal under the contest generator's exact law",
                10_000,
                38.054,
                "37.952 .. 38.157",
                "battleship simulate optimal:prior=contest --rules pirates --generator contest "
                "--games 10000 --seed 45141 --jobs 2",
            ),
        ),
    )
)
