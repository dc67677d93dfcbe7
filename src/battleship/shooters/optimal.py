"""The Dunman High paper's "optimal strategy", done exactly: fire at the unknown cell most likely to hold a ship.

The probabilities come from :func:`battleship.inference.posterior` (every layout consistent with
the shots, sink announcements included). Options: ``tie`` (first, random, centre, informative),
C. Liam Brown's ``skew`` (percent) and its ``lattice`` (the Dunman High paper's parity boost is
``skew=P,lattice=1``; ``boost=P`` still reads so). Plays every rules variant the
engine plays; under spacing rules and polyomino fleets the engine's search is slow on open boards.
``prior=GENERATOR`` plays under that layout generator's prior. ``prior=contest`` on straight
ships plays the contest generator's exact layout law (:mod:`battleship.inference.likelihood`,
measured ahead of its placement weights): ``samples`` exact uniform samples of the consistent
layouts a shot, each weighed by its probability under the generator, seeded from the game's stream.
Every other generator, and rules the law cannot be played on, weigh each layout by how often the
generator draws its placements (:func:`battleship.inference.prior.generator_weights`).
``prior=GENERATOR-exact`` asks for a ship-by-ship generator's law (``sequential-exact``,
``r-blog-exact``; rules it cannot be played on are refused), ``prior=GENERATOR-weights`` for the
placement weights. Under a prior the endgame solver is not used. ``exact=N`` (once spelled ``endgame=N``) solves the rest of the game exactly (:mod:`battleship.inference.endgame`) once at most ``N``
layouts remain.

``tie=informative`` splits equally likely cells by what the answer would tell: the cell whose
possible answers (miss, hit, and each sinking announcement the rules make) are most evenly spread,
i.e. of highest answer entropy, then reading order.
"""

from __future__ import annotations

import math

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.inference import evidence, posterior, select_by_search
from battleship.inference.endgame import Solver
from battleship.inference.likelihood import check, importance, plays_law, split_prior
from battleship.inference.prior import generator_weights
from battleship.rng import kernel_state, seed_words
from battleship.rules import Rules, Sinks
from battleship.shooters.aim import evidence_view, fill_up, free, is_salvo, without_pending
from battleship.shooters.choice import HIT, UNKNOWN, choose, pattern_factor, skew_factor, smallest_afloat
from battleship.shooters.density import observed_status
from battleship.shooters.options import TIES, Named, Options
from battleship.tables import tables


def answer_entropy(rules: Rules, status: np.ndarray, weight: np.ndarray, total: float, cell: int) -> float:
    """Entropy (bits) of the referee's answer to a shot at ``cell``, from per-placement layout weights."""
    t = tables(rules)
    answers: dict[object, float] = {}
    for i in range(t.through_start[cell], t.through_start[cell + 1]):
        p = int(t.through[i])
        if not weight[p]:
            continue
        s = int(t.ship_of[p])
        others = [int(x) for x in t.cell_list[p, : t.size[s]] if x != cell]
        sinks = rules.sinks is not Sinks.NONE and all(status[x] == HIT for x in others)
        key: object = "hit"
        if sinks:
            key = {Sinks.SUNK: "sunk", Sinks.NAMED: ("sunk", s), Sinks.REVEALED: ("sunk", p)}[rules.sinks]
        answers[key] = answers.get(key, 0.0) + float(weight[p])
    answers["miss"] = max(0.0, float(total) - sum(answers.values()))
    return -sum(w / total * math.log2(w / total) for w in answers.values() if w > 0)


def endgame_solver(rules: Rules, layouts: int) -> Solver:
    """The exact solver a shooter keeps for a game whose endgame starts at ``layouts`` layouts, with its
    budget of states (past it the shooter plays its own cell: the search's cost is bounded, and
    whether it fits depends on the game alone, never on the machine)."""
    return Solver(rules, budget=max(5_000, 200 * layouts), symmetric=True)


def solved_cell(solver: Solver, rules: Rules, observation: Observation, total: int) -> int | None:
    """A best cell of the rest of the game over the ``total`` layouts consistent with ``observation``,
    solved exactly; None when the solver's budget runs out."""
    rows = select_by_search(rules, evidence(rules, observation), np.arange(total, dtype=np.int64))
    masks = tables(rules).masks
    shots = sum(1 << s.cell for s in observation.shots)
    solved = solver.solve([tuple(masks[p] for p in row) for row in rows], shots)
    return None if solved is None else solved[1]


class OptimalShooter(Named):
    """Greedy on exact hit probabilities (see the module docstring). Under ``[noise]`` the posterior weighs
    every layout by the likelihood of the answers; ``confirm=N`` may fire at a cell again
    (:func:`battleship.shooters.noisy.confirming_cell`)."""

    name = "optimal"
    reads_salvos = True  # salvos answered whole are read exactly (by the inference engines)
    plays_noise = True  # the posterior under noise (inference.noisy)

    def __init__(self, options: Options | None = None):
        self.options = options or Options()

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules and seed the tie-break stream."""
        self._rules = rules
        self._state = kernel_state(rng)
        self._solver: Solver | None = None
        generator = split_prior(self.options.prior)[0]
        exact = plays_law(rules, self.options.prior)
        if exact and rules.noise is not None:  # the law is sampled from layouts that answer truly
            if split_prior(self.options.prior)[1] == "exact":
                raise BattleshipError(
                    f"optimal: prior={self.options.prior} is estimated by sampling layouts that answer truly; "
                    f"under the [noise] rules of {rules.name} give prior={generator}-weights"
                )
            exact = False  # the generator's placement weights, which the noisy posterior weighs exactly
        self._law = generator if exact else ""
        self._prior = generator_weights(rules, generator) if not exact else None
        if exact:  # drawn after the tie-break stream: the other priors' play is unchanged
            check(rules, generator)
            self._seed = int(rng.integers(0, 2**63))

    def weights(self, observation: Observation) -> tuple[np.ndarray, np.ndarray, float]:
        """Per cell and per placement, the consistent layouts with a ship there; and all layouts."""
        if self._law:  # weights under the generator's exact law, estimated
            seed = seed_words(self._seed * 1_000_003 + len(observation.shots))
            w = importance(self._rules, observation, self._law, self.options.samples, seed)
            return w.cells, w.placements, w.total
        result = posterior(self._rules, observation, prior=self._prior)
        return result.cell_layouts.ravel(), result.placement_layouts, result.layouts

    def endgame_shot(self, observation: Observation, total: float) -> int | None:
        """The best cell by solving the rest of the game, when few enough layouts remain."""
        rules = self._rules
        if self._prior is not None or self._law or rules.noise is not None:  # it weighs layouts uniformly
            return None
        if not self.options.exact or total > self.options.exact or len(rules.fleet) < 2:
            return None
        if self._solver is None:  # one a game: what it solved for one shot answers the next ones
            # (not shared between games: whether a search fits its budget must not depend on them)
            self._solver = endgame_solver(rules, self.options.exact)
        return solved_cell(self._solver, rules, observation, int(total))

    def next_shot(self, observation: Observation) -> int:
        """The unknown cell of most consistent layouts, boosted or skewed as asked."""
        if is_salvo(self._rules):
            return self.next_salvo(observation, 1)[0]
        score, placements, total = self.weights(observation)
        cell = self.endgame_shot(observation, total)
        if cell is not None:
            return cell
        cell = self._pick(observation, score, placements, total, observation)[0]
        if self._rules.noise is not None and self.options.confirm:
            from battleship.shooters.noisy import confirming_cell

            chance = np.asarray(score, dtype=np.float64) / float(total)
            cell = confirming_cell(self._rules, observation, chance, cell, self.options.confirm)
        return cell

    def next_salvo(self, observation: Observation, size: int) -> list[int]:
        """Salvo rules: the ``size`` free cells of most consistent layouts, from one posterior, ties
        split by the tie rule (the exact rest of game plays one shot a turn and is not used)."""
        read = without_pending(observation)  # the cells being aimed are no evidence
        score, placements, total = self.weights(read)
        cells = self._pick(read, score, placements, total, observation, size)
        return cells + fill_up(observation, cells, size)

    def _pick(
        self,
        read: Observation,
        score: np.ndarray,
        placements: np.ndarray,
        total: float,
        observation: Observation,
        count: int = 1,
    ) -> list[int]:
        """The ``count`` best cells in turn, scored from ``read`` and free in ``observation``."""
        rules, options = self._rules, self.options
        status, afloat = observed_status(rules, evidence_view(read))
        size = tables(rules).size
        if options.boost:
            factor = pattern_factor(
                status, rules.rows, rules.cols, smallest_afloat(afloat, size), options.boost
            )
        elif options.skew:
            factor = skew_factor(status, afloat, size, rules.rows, rules.cols, options.skew, options.lattice)
        else:
            factor = np.empty(0, dtype=np.int64)
        eligible = status == UNKNOWN
        if rules.noise is not None:  # no answer is certain: every cell not fired at is worth a shot
            eligible = np.ones(rules.cells, dtype=bool)
            eligible[[s.cell for s in read.shots]] = False
        if is_salvo(rules):
            eligible &= free(observation)
        cells: list[int] = []
        for _ in range(count):
            if not eligible.any():
                break
            if options.tie == "informative":
                value = score * (factor if len(factor) else 100)
                top = value[eligible].max()
                tied = [c for c in np.flatnonzero(eligible) if value[c] == top]
                entropy = [answer_entropy(rules, status, placements, total, int(c)) for c in tied]
                cell = int(tied[int(np.argmax(entropy))]) if len(tied) > 1 else int(tied[0])
            else:
                cell = int(
                    choose(score, factor, eligible, rules.rows, rules.cols, TIES[options.tie], self._state)
                )
            cells.append(cell)
            eligible[cell] = False
        return cells
