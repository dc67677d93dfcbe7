"""Play solved exactly: the fewest expected shots to sink every ship, over a list of possible layouts.

With the consistent layouts listed, the expected number of shots left under the best play is

    E(S) = 0                                  when every ship cell has been hit,
    E(S) = 1 + min over cells c of  sum over answers a of  P(a) * E(S_a)

where ``S_a`` are the layouts that answer ``a`` to a shot at ``c`` (miss, hit, or the sinking the
rules announce). Three things make it fast enough to solve small boards from the first shot:

- **A memo keyed on what is left to hit**, not on the shots fired. A layout's future answers depend
  only on its ship cells not yet hit (per ship where the rules announce sinkings, as one set where
  they do not), so a state is the multiset of those *signatures*; different shot histories that
  leave the same signatures share one entry, and layouts that can no longer be told apart merge.
- **Symmetry**: the value of a state does not change when every mask goes through the same
  permutation of cells, so states are keyed by their least image under the board's rotations and
  reflections (``symmetric=True``), and cells that lie in the same places of every signature are
  tried once.
- **Bounds**: where sinkings are not announced, or announced with the sunk ship's cells shown, a
  cell every layout puts a ship on is fired at first without a search (it must be fired at some
  time, and firing it earlier can only tell more: what any other order would have heard can be told
  from what this one hears). Not under named or anonymous sinkings: there a sure hit fired early
  turns a later "hit" into "sunk" without saying which ship the sure cell belongs to, which can tell
  less (a 3x4 board with a square and an S tetromino: 9.333 shots that way, 9.25 in truth). A
  candidate is dropped as soon as its partial sum plus the lower bounds of its remaining answers
  pass the best cell's value.

The search gives up (returns None) past a budget of solved states, so a caller can fall back.
"""

from __future__ import annotations

from collections.abc import Iterable

from battleship.rules import Rules, Sinks

Signature = object  # an int (no announcements) or a tuple of per-ship masks (see _signature)
State = tuple[tuple[Signature, int], ...]  # sorted (signature, weight) pairs


# the sink rules under which a sure hit is best fired at once (see the module docstring)
SURE_HIT_FIRST = (Sinks.NONE, Sinks.REVEALED)


class _OutOfBudget(Exception):
    """The search solved more states than it was allowed."""


def _answer(rules: Rules, ships: tuple[int, ...], shots: int, cell: int) -> object:
    """What the referee answers to a shot at ``cell`` on the layout ``ships`` (masks), after ``shots``."""
    bit = 1 << cell
    for s, mask in enumerate(ships):
        if mask & bit:
            if rules.sinks is Sinks.NONE or mask & ~(shots | bit):
                return "hit"
            return {Sinks.SUNK: "sunk", Sinks.NAMED: ("sunk", s), Sinks.REVEALED: ("sunk", mask)}[rules.sinks]
    return "miss"


def _signature(sinks: Sinks, ships: tuple[int, ...], shots: int) -> Signature:
    """All that a layout's future answers depend on, given the shots fired so far.

    No announcements: the cells left to hit. Anonymous sinkings: the set of ships' cells left.
    Named: the cells left per ship, in fleet order. Revealed: (cells left, whole ship) per ship afloat.
    """
    if sinks is Sinks.NONE:
        return sum(ships) & ~shots
    if sinks is Sinks.NAMED:
        return tuple(m & ~shots for m in ships)
    if sinks is Sinks.SUNK:
        return tuple(sorted(m & ~shots for m in ships if m & ~shots))
    return tuple(sorted((m & ~shots, m) for m in ships if m & ~shots))


def _left(sinks: Sinks, signature: Signature) -> int:
    """The cells a signature has left to hit, as one mask."""
    if sinks is Sinks.NONE:
        return signature  # type: ignore[return-value]
    if sinks is Sinks.REVEALED:
        return sum(m for m, _ in signature)  # type: ignore[union-attr]
    return sum(signature)  # type: ignore[arg-type]


def _fire(sinks: Sinks, signature: Signature, bit: int) -> tuple[object, Signature]:
    """The answer a signature gives to a shot at ``bit``, and its signature afterwards."""
    if sinks is Sinks.NONE:
        return ("hit", signature & ~bit) if signature & bit else ("miss", signature)  # type: ignore[operator]
    for s, part in enumerate(signature):  # type: ignore[arg-type]
        left = part[0] if sinks is Sinks.REVEALED else part
        if not left & bit:
            continue
        if sinks is Sinks.NAMED:
            after = (*signature[:s], left & ~bit, *signature[s + 1 :])  # type: ignore[index]
            return ("hit" if left & ~bit else ("sunk", s)), after
        rest = signature[:s] + signature[s + 1 :]  # type: ignore[index]
        if not left & ~bit:
            return ("sunk", part[1] if sinks is Sinks.REVEALED else None), rest
        kept = (left & ~bit, part[1]) if sinks is Sinks.REVEALED else left & ~bit
        return "hit", tuple(sorted((*rest, kept)))
    return "miss", signature


def board_symmetries(rows: int, cols: int) -> list[tuple[int, ...]]:
    """The board's rotations and reflections as cell permutations (8 on a square board, else 4)."""
    maps = [lambda r, c: (r, c), lambda r, c: (rows - 1 - r, c), lambda r, c: (r, cols - 1 - c)]
    maps.append(lambda r, c: (rows - 1 - r, cols - 1 - c))
    if rows == cols:
        maps += [lambda r, c, f=f: f(c, r) for f in list(maps)]
    perms = []
    for f in maps:
        perm = [0] * (rows * cols)
        for cell in range(rows * cols):
            r, c = f(*divmod(cell, cols))
            perm[cell] = r * cols + c
        perms.append(tuple(perm))
    return perms


class _Permutation:
    """A cell permutation applied to masks 16 cells at a time (a lookup table per 16 cells of the board)."""

    def __init__(self, perm: tuple[int, ...]):
        self.perm = perm
        self.inverse = tuple(sorted(range(len(perm)), key=perm.__getitem__))
        self.tables = []
        for start in range(0, len(perm), 16):
            table = [0] * (1 << min(16, len(perm) - start))
            for b in range(len(table).bit_length() - 1):
                image = 1 << perm[start + b]
                for low in range(1 << b):
                    table[low | 1 << b] = table[low] | image
            self.tables.append(table)

    def mask(self, m: int) -> int:
        out = 0
        for table in self.tables:
            out |= table[m & 0xFFFF]
            m >>= 16
        return out

    def signature(self, sinks: Sinks, sig: Signature) -> Signature:
        if sinks is Sinks.NONE:
            return self.mask(sig)  # type: ignore[arg-type]
        if sinks is Sinks.NAMED:
            return tuple(self.mask(m) for m in sig)  # type: ignore[union-attr]
        if sinks is Sinks.SUNK:
            return tuple(sorted(self.mask(m) for m in sig))  # type: ignore[union-attr]
        return tuple(sorted((self.mask(m), self.mask(w)) for m, w in sig))  # type: ignore[union-attr]


class Solver:
    """Expected shots left under the best play, over an explicit list of layouts (tuples of masks)."""

    def __init__(self, rules: Rules, budget: int = 5_000, symmetric: bool = False):
        self.rules = rules
        self.sinks = rules.sinks
        self.budget = budget
        perms = board_symmetries(rules.rows, rules.cols) if symmetric else [tuple(range(rules.cells))]
        self.perms = [_Permutation(p) for p in perms]
        self.memo: dict[State, tuple[float, int]] = {}  # canonical states: value, best cell
        # the same for states as met, so that a state met again skips the costly canonical form
        self.seen: dict[State, tuple[float, int]] = {}
        self.floors: dict[State, float] = {}
        self.visits = 0

    def solve(self, layouts: Iterable[tuple[int, ...]], shots: int) -> tuple[float, int] | None:
        """(expected shots left, best cell) for these equally likely layouts; None past the budget."""
        self.visits = 0  # the budget is per call; what earlier calls solved stays in the memo
        weights: dict[Signature, int] = {}
        for ships in layouts:
            sig = _signature(self.sinks, ships, shots)
            weights[sig] = weights.get(sig, 0) + 1
        try:
            return self._value(tuple(sorted(weights.items())))
        except _OutOfBudget:
            return None

    def _canonical(self, state: State) -> tuple[State, _Permutation]:
        """The least image of a state under the symmetries, and the permutation that gives it.

        Images are first ranked by a cheap fingerprint (the weight of layouts with a cell left to hit,
        cell by cell in the image's order); only the images tied on it are built and compared whole.
        Both steps commute with the symmetries, so a state and its images get the same key.
        """
        if len(self.perms) == 1:
            return state, self.perms[0]
        weight = [0] * self.rules.cells
        for sig, w in state:
            left = _left(self.sinks, sig)
            while left:
                bit = left & -left
                left ^= bit
                weight[bit.bit_length() - 1] += w
        prints = [tuple(weight[c] for c in perm.inverse) for perm in self.perms]
        least = min(prints)
        tied = [perm for perm, f in zip(self.perms, prints, strict=False) if f == least]
        best, best_perm = None, tied[0]
        for perm in tied:
            image = state if perm is self.perms[0] else self._image(state, perm)
            if best is None or image < best:
                best, best_perm = image, perm
        return best, best_perm  # type: ignore[return-value]

    def _image(self, state: State, perm: _Permutation) -> State:
        return tuple(sorted((perm.signature(self.sinks, sig), w) for sig, w in state))

    def _value(self, state: State) -> tuple[float, int]:
        """(expected shots left, best cell) of a state, the cell in the state's own orientation."""
        known = self.seen.get(state)
        if known is not None:
            return known
        key, perm = self._canonical(state)
        if key not in self.memo:
            self.memo[key] = self._solve(key)
        value, cell = self.memo[key]
        self.seen[state] = value, (perm.inverse[cell] if cell >= 0 else cell)
        return self.seen[state]

    def _solve(self, state: State) -> tuple[float, int]:
        self.visits += 1
        if self.visits > self.budget:
            raise _OutOfBudget
        lefts = [(_left(self.sinks, sig), w) for sig, w in state]
        left = lefts[0][0].bit_count()
        if not left:
            return 0.0, -1
        if len(state) == 1:  # known layout: one shot per cell left
            return float(left), (lefts[0][0] & -lefts[0][0]).bit_length() - 1
        total = sum(w for _, w in lefts)
        cells = self._candidates(state, lefts)
        if cells[0][0] == total and self.sinks in SURE_HIT_FIRST:  # a sure hit: fire it first
            return 1 + self._expect(state, total, cells[0][1], float("inf")), cells[0][1]
        floor = self._floor(state)
        best, best_cell = float("inf"), cells[0][1]
        for _, cell in cells:
            value = 1 + self._expect(state, total, cell, best - 1)
            if value < best:
                best, best_cell = value, cell
                if best <= floor + 1e-12:
                    break
        return best, best_cell

    def _candidates(self, state: State, lefts: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """(weight of layouts with a ship there, cell) for one cell per column pattern, most likely first.

        Two cells lying in the same signatures' cells are interchangeable (swapping them maps the state
        to itself), so only the first of each pattern is kept.
        """
        parts = [self._parts(sig) for sig, _ in state]
        anywhere = 0
        for m, _ in lefts:
            anywhere |= m
        seen: set[tuple[tuple[int, int], ...]] = set()
        out = []
        while anywhere:
            bit = anywhere & -anywhere
            anywhere ^= bit
            pattern = tuple((i, k) for i, masks in enumerate(parts) for k, m in enumerate(masks) if m & bit)
            if pattern not in seen:
                seen.add(pattern)
                out.append((sum(lefts[i][1] for i, _ in pattern), bit.bit_length() - 1))
        out.sort(key=lambda x: -x[0])
        return out

    def _parts(self, sig: Signature) -> tuple[int, ...]:
        """A signature's cells left to hit, one mask per ship (one mask in all without announcements)."""
        if self.sinks is Sinks.NONE:
            return (sig,)  # type: ignore[return-value]
        if self.sinks is Sinks.REVEALED:
            return tuple(m for m, _ in sig)  # type: ignore[union-attr]
        return sig  # type: ignore[return-value]

    def _floor(self, state: State) -> float:
        """A lower bound on a state's value: its cells left to hit, plus the next shot's least miss chance."""
        if state in self.floors:
            return self.floors[state]
        lefts = [(_left(self.sinks, sig), w) for sig, w in state]
        left = lefts[0][0].bit_count()
        floor = float(left)
        if len(state) > 1 and left:
            anywhere = 0
            for m, _ in lefts:
                anywhere |= m
            most = 0
            while anywhere:
                bit = anywhere & -anywhere
                anywhere ^= bit
                most = max(most, sum(w for m, w in lefts if m & bit))
            floor = left + 1 - most / sum(w for _, w in lefts)
        self.floors[state] = floor
        return floor

    def _expect(self, state: State, total: int, cell: int, bound: float) -> float:
        """Expected shots after firing at ``cell``; inf as soon as it must reach ``bound``."""
        bit = 1 << cell
        groups: dict[object, dict[Signature, int]] = {}
        for sig, w in state:
            answer, after = _fire(self.sinks, sig, bit)
            group = groups.setdefault(answer, {})
            group[after] = group.get(after, 0) + w
        children = [tuple(sorted(g.items())) for g in groups.values()]
        shares = [sum(g.values()) / total for g in groups.values()]
        floors = [self._floor(c) * s for c, s in zip(children, shares, strict=False)]
        slack = sum(floors)
        if slack >= bound:
            return float("inf")
        value = 0.0
        for child, share, floor in zip(children, shares, floors, strict=False):
            slack -= floor
            value += self._value(child)[0] * share
            if value + slack >= bound:
                return float("inf")
        return value
