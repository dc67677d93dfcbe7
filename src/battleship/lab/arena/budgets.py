"""Wall-clock budgets: how long one bot may keep a run waiting, a game at a time and in all.

The shot limit bounds one answer and the start limit one start, but a bot that takes just under both
stretches a run without end: 9.5 s to start and 0.45 s before every shot is 53 s a game, 15 hours for
1,000 games, with no forfeit. So each program and class bot also has

- a **game budget**: the wall-clock seconds it may take over one game, from ``newgame`` to its last
  answer (starting its process is not counted: the start limit holds that). Past it the game is a
  ``budget`` forfeit, at once: the referee waits no longer than the budget for any answer;
- a **bot budget**: the wall-clock seconds it may take over the whole run, everything counted (its
  starts, its games, the fleets it hides and its matches). Once it is spent, its remaining games are
  ``budget`` forfeits, not played;
- **strikes**: after that many games lost over the game budget, its remaining games are forfeits too
  (a bot that is too slow once is usually too slow every time).

By default the game budget is a quarter of the shot limit for every cell of the board (12.5 s on
10x10 at 0.5 s a shot: an average of 0.2 s a shot over 60 shots), the bot budget the start limit plus a
tenth of the shot limit for every cell of every game it plays (5 s a game on average), and three
strikes. Registered shooters (the organiser's own yardsticks, played in the arena's process, a
Numba kernel's game at once) are timed but held to no budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from battleship.lab.arena.protocol import BotFault

GAME_SHARE = 0.25  # the default game budget: this share of the shot limit for every cell of the board
BOT_SHARE = 0.1  # the default bot budget: the start limit, plus this share for every cell of every game
STRIKES = 3  # games lost over the game budget before the rest are forfeited


@dataclass(frozen=True)
class Allowance:
    """What one game may take: ``seconds`` from its start, and what runs out then (said in the forfeit)."""

    seconds: float
    what: str

    def fault(self, shots: int) -> BotFault:
        """The forfeit of a game still going when the allowance ran out, after ``shots`` answers."""
        return BotFault("budget", f"still playing after {shots} answers when {self.what} ran out")


@dataclass
class Clock:
    """One bot's budgets over a run, and what it has used of them."""

    game: float  # seconds a game may take
    total: float  # seconds the bot may take over the whole run
    strikes: int = STRIKES
    used: float = 0.0
    struck: int = 0
    spent: BotFault | None = None  # why its remaining games are forfeits (None: it plays on)

    def allowance(self) -> Allowance:
        """What the next game may take: the game budget, or what is left of the bot budget if less."""
        left = self.total - self.used
        if left < self.game:
            return Allowance(max(left, 0.0), f"what was left of its {self.total:,.1f} s for the run")
        return Allowance(self.game, f"its {self.game:,.1f} s for a game")

    def charge(self, seconds: float, fault: BotFault | None = None) -> None:
        """Count ``seconds`` of wall clock against the bot, and a game's fault (a budget strike)."""
        self.used += seconds
        if fault is not None and fault.cause == "budget":
            self.struck += 1
        if self.spent is not None:
            return
        if self.used >= self.total:
            self.spent = BotFault(
                "budget",
                f"not played: it used its {self.total:,.1f} s for the run ({self.used:,.1f} s taken)",
            )
        elif self.struck >= self.strikes:
            self.spent = BotFault(
                "budget",
                f"not played: {self.struck} of its games went over their {self.game:,.1f} s "
                f"(the limit is {self.strikes} such games)",
            )


def default_game(time_limit: float, start: float, cells: int) -> float:
    """The default game budget (see the module docstring)."""
    return GAME_SHARE * (time_limit or start) * cells


def default_bot(time_limit: float, start: float, cells: int, games: int) -> float:
    """The default bot budget for a bot playing ``games`` games in the run."""
    return start + BOT_SHARE * (time_limit or start) * cells * games
