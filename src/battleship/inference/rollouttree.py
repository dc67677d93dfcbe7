"""The rest-of-game rollout's own play over an explicit list of layouts, as a tree: a second rollout step.

``twoply:endgame=N`` fires, of greedy's best cells, the one after which greedy play ends the game in
fewest expected shots (Bertsekas' rollout over greedy, :class:`~battleship.inference.greedytree.GreedyTree`).
That rollout is itself a policy, never worse than greedy; a rollout over *it* is never worse than it
(policy improvement again). :class:`RolloutTree` counts, over every layout consistent with a board,
the shots the game takes when a cell is fired next and the rollout plays on: at each board of that
game it ranks greedy's ``width`` best cells (most layouts, the first cell when equal) by greedy's
rest-of-game count and fires the least (the first when equal), splits the layouts by the referee's
answers and goes on, until every ship cell is hit.

Its boards repeat between candidates, shots and games, so their counts are kept in a dictionary keyed
by the layouts' content (the greedy tree's 128-bit layout keys, summed) and the cells shot, shared by
every tree of the same rules and width. Each count is exact; a shot costs far more than one rollout
step (one greedy count per candidate at every board of the rollout's game), so it is for small boards.
"""

from __future__ import annotations

import numpy as np

from battleship.inference.greedytree import GreedyTree


class RolloutTree:
    """The rest-of-game rollout (over greedy, ``width`` candidates) played over ``tree``'s layouts."""

    def __init__(self, tree: GreedyTree, width: int, memo: dict | None = None):
        self.greedy = tree
        self.width = width
        self.memo = {} if memo is None else memo
        self._occupied = tree.tree[0]  # per layout and cell: a ship there
        self._lkeys = tree.tree[5:7]  # per layout: its content's two 64-bit keys

    def choice(self, subset: np.ndarray, shot: np.ndarray) -> int:
        """The rollout's cell: of greedy's ``width`` best, the one greedy finishes after in fewest shots."""
        counts = self._occupied[subset].sum(axis=0)
        counts[shot] = -1
        ranked = np.argsort(-counts, kind="stable")[: self.width]
        cells = [int(c) for c in ranked if counts[c] > 0] or [int(ranked[0])]
        if len(cells) == 1:
            return cells[0]
        costs = [self.greedy.after(subset, shot, c) for c in cells]
        return cells[min(range(len(cells)), key=lambda i: (costs[i], i))]

    def after(self, subset: np.ndarray, shot: np.ndarray, cell: int) -> int:
        """Shots over the layouts ``subset`` (indices) when ``cell`` is fired next, then the rollout."""
        return self._count(subset, shot, cell)

    def shots(self, subset: np.ndarray, shot: np.ndarray) -> int:
        """Shots the rollout takes to finish every layout of ``subset`` from a board with ``shot`` fired at."""
        return self._count(subset, shot, None)

    def _count(self, subset: np.ndarray, shot: np.ndarray, cell: int | None) -> int:
        """Shots over ``subset``: ``cell`` fired next (None: the rollout's cell), then the rollout.

        Depth first on an explicit stack (a game on a large board is longer than Python's recursion
        limit): a frame is [memo key, board after its shot, answer groups left to count, shots so far].
        """
        top = self._open(subset, shot, cell)
        if isinstance(top, int):
            return top
        stack = [top]
        while True:
            frame = stack[-1]
            if frame[2]:
                child = self._open(frame[2].pop(), frame[1], None)
                if isinstance(child, int):
                    frame[3] += child
                else:
                    stack.append(child)
                continue
            stack.pop()
            if frame[0] is not None:
                self.memo[frame[0]] = frame[3]
            if not stack:
                return frame[3]
            stack[-1][3] += frame[3]

    def _open(self, subset: np.ndarray, shot: np.ndarray, cell: int | None) -> int | list:
        """The count of a board the memo knows, or a new frame: ``cell`` (None: the rollout's) fired,
        the layouts split by the referee's answers, those whose games go on kept as groups."""
        key = None
        if cell is None:
            lkey1, lkey2 = self._lkeys
            key = (
                int(lkey1[subset].sum()),
                int(lkey2[subset].sum()),
                len(subset),
                np.packbits(shot).tobytes(),
            )
            known = self.memo.get(key)
            if known is not None:
                return known
            cell = self.choice(subset, shot)
        board = shot.copy()
        board[cell] = True
        answer = self.greedy.answers(subset, board, cell)
        groups = []
        for code in np.unique(answer):
            part = subset[answer == code]
            going = (self._occupied[part] & ~board).any(axis=1)  # a ship cell left: the game goes on
            if going.any():
                groups.append(part[going])
        return [key, board, groups, len(subset)]
