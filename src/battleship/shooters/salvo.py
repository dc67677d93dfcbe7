"""A set-aware salvo shooter: it chooses the salvo for the game, not for the cells.

The K most likely cells are not the best salvo. Two cells that only one ship can cover are worth
little more together than one of them is (its answer tells where the other lies), and under count
answers a salvo whose hits cannot be told apart tells little. This shooter scores a whole salvo by
what it is worth over two turns, on exact uniform samples of the layouts consistent with everything
answered so far (:func:`battleship.inference.sampling.draw`):

    value(S) = E[hits of S] + E[hits of the best next salvo, given the answer to S]

where the answer is what the rules say (every shot's hit or miss, each ship's hits, or only their
number: so the information in a count is weighed as what it lets the next salvo hit), and a layout
that S finishes counts a whole next salvo of hits (the turn it saves). The salvo is grown greedily,
one cell at a time, among the most likely cells; the sets that would sink every ship left in some
sampled layout are tried whole too, so that the last salvo is aimed to finish.

Under salvos answered whole ("ships", "count") the samples are exact too: the inference engines read
those answers. Should the exact sampler give up, layouts are drawn from what is certain cell by cell
and kept when replaying every salvo on them gives the answers the referee gave (exact rejection);
when too few are kept in the draws allowed, the layouts that break the fewest answers fill up the
rest (an approximation, rather than a game stopped).
"""

from __future__ import annotations

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation, Volley
from battleship.inference import Contradiction
from battleship.inference.sampling import draw
from battleship.rng import seed_words
from battleship.rules import Answers, Rules, Sinks
from battleship.shooters.aim import evidence_view, fill_up, free, without_pending
from battleship.shooters.options import Named, Options
from battleship.tables import tables

CANDIDATES = 16  # cells tried for each place of the salvo: the most likely free cells
FINISHING_SETS = 64  # sets that would finish a sampled layout, tried whole
REJECTION_BATCHES = 24  # batches drawn from what is certain, should the exact sampler give up
SAMPLES = 200  # layouts sampled a turn unless ``samples`` says otherwise


class SalvoShooter(Named):
    """Chooses whole salvos by their worth over two turns on exact samples (see the module docstring)."""

    name = "salvo"
    reads_salvos = True  # salvos answered whole are read exactly (by the inference engines)

    def __init__(self, options: Options | None = None):
        self.options = options or Options()
        self._samples = self.options.samples if "samples" in self.options.named() else SAMPLES

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules; seed the sampler."""
        self._rules = rules
        self._seed = int(rng.integers(0, 2**62))

    def next_shot(self, observation: Observation) -> int:
        """One cell: a salvo of one."""
        return self.next_salvo(observation, 1)[0]

    def next_salvo(self, observation: Observation, size: int) -> list[int]:
        """The ``size`` cells whose salvo is worth most over two turns."""
        remaining = self.remaining(observation)
        open_cells = free(observation)
        cells = choose_salvo_cells(remaining, open_cells, size, self._rules.answers, self._ships)
        return cells + fill_up(observation, cells, size)

    def remaining(self, observation: Observation) -> np.ndarray:
        """Per sampled layout (rows) and cell: True where a ship cell has not been fired at yet.

        Also keeps, in ``self._ships``, which ship of the layout each of those cells belongs to (for
        answers by ship)."""
        rules = self._rules
        seed = seed_words(self._seed * 1_000_003 + observation.fired)
        whole = without_pending(observation)
        try:
            rows = draw(rules, whole, self._samples, seed=seed)
        except Contradiction:
            raise
        except BattleshipError:  # the exact sampler gave up (see the module docstring)
            rows = self._rejection(observation, seed)
        ships = ship_cells(rules, rows)
        fired = ~free(whole)
        ships[:, :, fired] = False
        self._ships = ships
        return np.asarray(ships.any(axis=1))

    def _rejection(self, observation: Observation, seed: int) -> np.ndarray:
        """Layouts drawn from what is certain cell by cell, kept when every salvo answered whole gets
        the same answer on them; topped up with the fewest-broken ones (see the module docstring)."""
        rules, want = self._rules, self._samples
        view = evidence_view(observation)
        kept: list[np.ndarray] = []
        near: list[tuple[np.ndarray, np.ndarray]] = []
        for batch in range(REJECTION_BATCHES):
            rows = draw(view.rules, view, max(want, 256), seed=seed_words(seed + 7919 * (batch + 1)))
            broken = broken_answers(rules, observation.volleys, ship_cells(rules, rows))
            kept.append(rows[broken == 0])
            near.append((rows, broken))
            if sum(len(k) for k in kept) >= want:
                break
        out = np.concatenate(kept)[:want]
        if len(out) >= max(1, want // 4):
            return out
        rows = np.concatenate([r for r, _ in near])
        broken = np.concatenate([b for _, b in near])
        order = np.argsort(broken, kind="stable")
        return rows[order[:want]]


def ship_cells(rules: Rules, rows: np.ndarray) -> np.ndarray:
    """Per layout, ship and cell: True where that ship of the layout lies (``rows``: placements)."""
    t = tables(rules)
    n, nships = rows.shape
    out = np.zeros((n, nships, rules.cells), dtype=np.bool_)
    for s in range(nships):
        cells = t.cell_list[rows[:, s]]
        layout, k = np.nonzero(cells >= 0)
        out[layout, s, cells[layout, k]] = True
    return out


def broken_answers(rules: Rules, volleys: tuple[Volley, ...], ships: np.ndarray) -> np.ndarray:
    """Per layout, how many salvos answered whole would have been answered otherwise on it (and one
    more when every ship cell of it has been fired at: the game would be over)."""
    n, nships, cells = ships.shape
    broken = np.zeros(n, dtype=np.int64)
    fired = np.zeros(cells, dtype=np.bool_)
    for volley in volleys:
        aimed = np.zeros(cells, dtype=np.bool_)
        aimed[list(volley.cells)] = True
        if volley.shots:  # answered shot by shot: the samplers read it already
            fired |= aimed
            continue
        hits = ships[:, :, aimed].sum(axis=2)  # (layouts, ships)
        wrong = hits.sum(axis=1) != volley.hits
        if rules.answers is Answers.SHIPS:
            wrong |= (hits != np.array(volley.ship_hits)).any(axis=1)
        if rules.sinks is not Sinks.NONE:
            before = ~(ships & ~fired).any(axis=2)
            after = ~(ships & ~(fired | aimed)).any(axis=2)
            sunk = after & ~before
            if rules.sinks is Sinks.SUNK:
                wrong |= sunk.sum(axis=1) != volley.sunk_count
            else:
                named = np.zeros(nships, dtype=np.bool_)
                named[list(volley.sunk)] = True
                wrong |= (sunk != named).any(axis=1)
                for ship, mask in zip(volley.sunk, volley.revealed, strict=False):
                    shown = np.array([mask >> c & 1 for c in range(cells)], dtype=np.bool_)
                    wrong |= (ships[:, ship, :] != shown).any(axis=1)
        broken += wrong
        fired |= aimed
    # the shooter is asked for a salvo only while a ship cell is left: a layout all fired at is no answer
    broken += ~(ships & ~fired).any(axis=(1, 2))
    return broken


def answer_codes(chosen: list[int], remaining: np.ndarray, ships: np.ndarray, answers: Answers) -> np.ndarray:
    """Per layout, a number for the answer the salvo ``chosen`` would get (layouts answered alike share it)."""
    hit = remaining[:, chosen]
    if answers is Answers.COUNT:
        return hit.sum(axis=1)
    if answers is Answers.SHIPS:
        per_ship = ships[:, :, chosen].sum(axis=2)
        return per_ship @ (len(chosen) + 1) ** np.arange(per_ship.shape[1])
    return hit @ (1 << np.arange(len(chosen)))


def salvo_value(
    chosen: list[int],
    remaining: np.ndarray,
    ships: np.ndarray,
    open_cells: np.ndarray,
    size: int,
    answers: Answers,
    weights: np.ndarray | None = None,
) -> float:
    """Expected hits of ``chosen`` and of the best next salvo of ``size`` given its answer; a layout
    ``chosen`` finishes counts ``size`` for the turn it saves (``weights``: ``remaining`` as floats)."""
    n = remaining.shape[0]
    if weights is None:
        weights = remaining.astype(np.float64)
    hits = remaining[:, chosen].sum(axis=1)
    finished = hits == remaining.sum(axis=1)
    codes = answer_codes(chosen, remaining, ships, answers)
    order = np.argsort(codes, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
    # (answers, cells): the layouts of each answer with a ship on each cell
    counts = np.add.reduceat(weights[order], starts, axis=0)
    later = open_cells.copy()
    later[chosen] = False
    counts = counts[:, later]
    k = min(size, counts.shape[1])
    best_next = np.partition(counts, counts.shape[1] - k, axis=1)[:, -k:].sum() if k else 0.0
    return float(hits.sum() + best_next + size * finished.sum()) / n


def choose_salvo_cells(
    remaining: np.ndarray, open_cells: np.ndarray, size: int, answers: Answers, ships: np.ndarray
) -> list[int]:
    """The salvo of ``size`` free cells of most :func:`salvo_value`: grown greedily among the likeliest
    cells, against every set that would finish some sampled layout (padded with the likeliest)."""
    likely = remaining.sum(axis=0).astype(np.float64)
    likely[~open_cells] = -1.0
    order = [int(c) for c in np.argsort(-likely, kind="stable") if likely[c] > 0]
    if not order:
        return []
    size = min(size, len(order))
    weights = remaining.astype(np.float64)

    def value(cells: list[int]) -> float:
        return salvo_value(cells, remaining, ships, open_cells, size, answers, weights)

    chosen: list[int] = []
    for _ in range(size):
        tried = [c for c in order if c not in chosen][:CANDIDATES]
        scores = [value([*chosen, c]) for c in tried]
        chosen.append(tried[int(np.argmax(scores))])  # the first best: likeliest, then reading order
    best, best_value = chosen, value(chosen)
    for finishing in _finishing_sets(remaining, size, order):
        worth = value(finishing)
        if worth > best_value + 1e-12:
            best, best_value = finishing, worth
    return best


def _finishing_sets(remaining: np.ndarray, size: int, order: list[int]) -> list[list[int]]:
    """The distinct sets of ship cells left in sampled layouts that one salvo can finish, most sampled
    first, each padded with the likeliest cells to a whole salvo."""
    left = remaining.sum(axis=1)
    small = remaining[(left > 0) & (left <= size)]
    if not len(small):
        return []
    sets, counts = np.unique(small, axis=0, return_counts=True)
    out = []
    for row in sets[np.argsort(-counts, kind="stable")][:FINISHING_SETS]:
        cells = [int(c) for c in np.flatnonzero(row)]
        out.append(cells + [c for c in order if c not in cells][: size - len(cells)])
    return out
