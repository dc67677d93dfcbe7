"""Best is best: every registered shooter against ``best``, paired on the same layouts.

:func:`rivals` plays ``best`` (as resolved for the rules) and each other shooter on the same layouts
and reports the paired difference (rival minus best) with its 95% interval. A rival *beats* best
when the whole interval lies below zero. Kernel shooters play ``games`` games; shooters played in
Python play the first ``slow_games`` of the same layouts. ``benchmarks/strength.py`` runs it at
scale on every preset and on custom rule sets; a test runs it on small counts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from battleship.inference import work
from battleship.lab.pool import Pool
from battleship.lab.runner import is_kernel, stream_paired
from battleship.lab.summary import paired_from_sums
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import registry
from battleship.shooters.options import Options, format_spec

# shooters not played, and why: learning needs a model fitted to someone's recorded layouts
SKIPPED = {"learning": "needs a model of recorded layouts (model=FILE)"}
SLOW_SHOT_SECONDS = (
    2.0  # shooters played in Python are left out when an exact count takes longer (open board)
)
# shooters that count several exact posteriors a shot (twoply: one per candidate and answer), about
POSTERIORS_A_SHOT = {"twoply": 12}
# fewer paired games give no verdict: two games one shot apart each make a zero-width interval
VERDICT_GAMES = 10
# variants best itself may play
EXTRA = ["density:skew=20", "density:skew=20,lattice=1", "trial-sink:skew=20", "optimal:skew=20"]


def custom_rules() -> dict[str, Rules]:
    """Three rule sets no preset covers: anonymous sinkings on the standard board, an 8x8 board with a
    T-shaped ship, and a 9x9 board whose ships may meet only at corners."""
    standard = preset("standard")
    tee = Rules(8, 8, (Ship("Tee", "T", ((0, 0), (0, 1), (0, 2), (1, 1))), Ship.line("Boat", "B", 2)))
    lengths = {"A": 4, "B": 3, "C": 3, "D": 2}
    nine = Rules(9, 9, tuple(Ship.line(f"Ship {k}", k, n) for k, n in lengths.items()), Spacing.NO_EDGE)
    return {
        "standard-sunk": dataclasses.replace(standard, name="standard-sunk", sinks=Sinks.SUNK),
        "tee-8x8": dataclasses.replace(tee, name="tee-8x8"),
        "no-edge-9x9": dataclasses.replace(nine, name="no-edge-9x9"),
    }


@dataclass(frozen=True)
class Rival:
    """One shooter against best: its spec, games, means and paired difference (rival minus best)."""

    shooter: str
    games: int
    mean: float
    best_mean: float
    difference: float
    interval: tuple[float, float]

    @property
    def beats_best(self) -> bool:
        """True when the rival is significantly ahead of best (fewer shots) over enough games to say."""
        return self.games >= VERDICT_GAMES and self.interval[1] < 0


def skipped_for(rules: Rules, name: str) -> str | None:
    """Why a registered shooter is left out for ``rules`` (None: it plays)."""
    if name in SKIPPED:
        return SKIPPED[name]
    why = registry.spec(name).refusal(rules)
    if why:
        return why
    # shooters played in Python infer exactly (or sample) every shot
    if not is_kernel(name) and work(rules).again * POSTERIORS_A_SHOT.get(name, 1) > SLOW_SHOT_SECONDS:
        return "exact inference on this fleet takes too long a shot"
    return None


def rivals(
    rules: Rules, games: int, slow_games: int, seed: int = 0, jobs: int = 1, pool: Pool | None = None
) -> tuple[str, list[Rival], dict[str, str]]:
    """``best``'s spec for the rules, each rival's paired comparison, and the shooters left out with why.

    The games run on ``jobs`` threads, or on ``pool`` (a Dask cluster); the figures are the same.
    """
    best_name, best_options = registry.resolve("best", rules)
    best_spec = format_spec(best_name, best_options)
    specs = [n for n in registry.names() if n not in (best_spec, "best")] + [
        e for e in EXTRA if e != best_spec
    ]
    left_out: dict[str, str] = {}
    by_count: dict[int, list[tuple[str, str, Options]]] = {}
    for text in specs:
        name, options = registry.resolve(text, rules)
        why = skipped_for(rules, name)
        if why:
            left_out[text] = why
            continue
        count = games if is_kernel(name) and is_kernel(best_name) else slow_games
        by_count.setdefault(count, []).append((text, name, options))
    played: list[Rival] = []
    for count, group in by_count.items():  # best and every rival of a game count, on the same games
        shooters = [(best_name, best_options), *((name, options) for _, name, options in group)]
        histograms = np.zeros((len(shooters), rules.cells + 1), dtype=np.int64)  # games by shots
        sums = np.zeros((len(shooters), 2), dtype=np.int64)  # each one's differences and their squares
        for chunk in stream_paired(rules, shooters, count, seed, pool=pool, jobs=jobs):
            histograms, sums = histograms + chunk.histograms, sums + chunk.minus_first
        means = (histograms * np.arange(histograms.shape[1])).sum(axis=1) / count
        for i, (text, _, _) in enumerate(group, 1):
            diff, interval = paired_from_sums(count, int(sums[i, 0]), int(sums[i, 1]))
            played.append(Rival(text, count, float(means[i]), float(means[0]), diff, interval))
    order = {text: i for i, text in enumerate(specs)}
    return best_spec, sorted(played, key=lambda r: order[r.shooter]), left_out
