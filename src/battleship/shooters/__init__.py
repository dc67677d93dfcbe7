"""Shooting strategies, registered by name and built with :func:`make`, as Gymnasium builds environments.

Each :func:`register` call below says everything about one shooter: its name, what it does and whose
idea it is, where its class lives (imported only when the shooter is first made), the Numba kernel the
lab plays it with, and the option keys it reads (``name:key=value,...``; see
:mod:`battleship.shooters.options`). Which rules a shooter refuses, and why, is its class's
``refusal``. Register your own the same way; :func:`battleship.shooters.check.check_shooter` checks
that a shooter keeps the protocol and, when it has a kernel, that the kernel plays the very same
games as the class, shot for shot, random numbers included.
"""

from battleship.shooters.registry import (
    SCORING,
    ShooterSpec,
    check,
    informative,
    make,
    names,
    register,
    resolve,
    spec,
    specs,
)

__all__ = [
    "ShooterSpec",
    "check",
    "informative",
    "make",
    "names",
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

register(
    ShooterSpec(
        "random",
        f"{_HERE}.random:RandomShooter",
        "a uniformly random cell not yet fired at",
        "random",
        ignores=("sinkings", "margin"),
        ignores_why="DataGenetics' first baseline fires at any cell not yet fired at",
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
    )
)
register(
    ShooterSpec(
        "hunt-target-parity",
        f"{_HERE}.hunt_target:HuntTargetParityShooter",
        "DataGenetics: hunt/target that hunts on one checkerboard colour (colour=0|1)",
        "hunt-target-parity",
        ("colour",),
        ignores=("sinkings", "margin"),
        ignores_why=_AS_DATAGENETICS,
    )
)
register(
    ShooterSpec(
        "density",
        f"{_HERE}.density:DensityShooter",
        "DataGenetics: the most counted cell over every placement of every afloat ship",
        "density",
        (*SCORING, "weight", "lastship"),
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
    )
)
register(
    ShooterSpec(
        "density-grid",
        f"{_HERE}.flood:DensityGridShooter",
        "The R study: a misses-only density over the whole fleet, and a flood on a hit",
        "density-grid",
        ("skew",),
        ignores=("sinkings", "margin"),
        ignores_why=_AS_THE_R_STUDY,
    )
)
register(
    ShooterSpec(
        "superposition",
        f"{_HERE}.density:SuperpositionShooter",
        "The Dunman High paper: forced cells, then the most arranged cell, parity boosted",
        "superposition",
        ("tie", "boost"),
    )
)
register(
    ShooterSpec(
        "trial-sink",
        f"{_HERE}.trial_sink:TrialSinkShooter",
        "The C# Pirates winner: trial shots by ship options, sink shots to finish (no-touch rules)",
        "trial-sink",
        (*SCORING, "prior"),
    )
)
register(
    ShooterSpec(
        "optimal",
        f"{_HERE}.optimal:OptimalShooter",
        "The Dunman High paper done exactly: the cell most consistent layouts put a ship on",
        None,
        (*SCORING, "informative", "boost", "endgame", "prior"),
    )
)
register(
    ShooterSpec(
        "montecarlo",
        f"{_HERE}.montecarlo:MonteCarloShooter",
        "C. Liam Brown's Probability mode: the cell most exact uniform samples put a ship on",
        None,
        (*SCORING, "informative", "boost", "samples", "budget"),
    )
)
register(
    ShooterSpec(
        "learning",
        f"{_HERE}.learning:LearningShooter",
        "C. Liam Brown's Learning mode: optimal under a placement prior fitted to recorded layouts (model=FILE)",
        None,
        (*SCORING, "informative", "boost", "model", "samples"),
    )
)
register(
    ShooterSpec(
        "rollout",
        f"{_HERE}.rollout:RolloutShooter",
        "Look-ahead: the density shooter played on from each candidate cell over exact posterior samples",
        None,
        (*SCORING, "weight", "rollouts", "width"),
    )
)
register(
    ShooterSpec(
        "twoply",
        f"{_HERE}.twoply:TwoPlyShooter",
        "Exact two-ply look-ahead: of greedy's best cells, the one with most expected hits this shot and next",
        None,
        (*SCORING, "width", "plies", "early", "prior", "endgame", "exact", "second"),
    )
)
register(
    ShooterSpec(
        "greedy-rollout",
        f"{_HERE}.greedy_rollout:GreedyRolloutShooter",
        "Look-ahead: exact greedy played on from each of its best cells over exact posterior samples, gated",
        None,
        (*SCORING, "width", "rollouts", "endgame"),
    )
)
register(
    ShooterSpec(
        "best",
        f"{_HERE}.best:BestShooter",
        "the strongest measured shooter for the rules (docs/strategies.md); options apply to it",
        None,
        (
            "tie",
            "colour",
            "weight",
            "skew",
            "boost",
            "samples",
            "budget",
            "endgame",
            "model",
            "informative",
            "fast",
        ),
        chooses=f"{_HERE}.best:best_for",
    )
)
