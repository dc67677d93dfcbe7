"""Reading a salvo game as the one-shot shooters read a board: what is known cell by cell, and which
cells are no longer free to choose.

Under salvo rules a shooter is asked for a whole salvo, or for its cells one at a time on
:meth:`Observation.aiming` (the cells already chosen for this salvo are ``pending``: not evidence, but
not free either). Under ``answers = "each"`` every shot has its own answer, so the shots are the
evidence; under ``"ships"`` and ``"count"`` a salvo is answered whole, and the cells whose answer is
certain are: every cell of a salvo of one (its answer is the salvo's), of a salvo that hit nothing (a
miss) and of a salvo whose every shot hit and sank nothing (a hit). :func:`certain_shots` gives those
as shots, in the order fired, so a shooter that reads shots plays on what is certain (the rest of a
salvo's answer it leaves unread); :func:`free` says which cells it may still choose.
"""

from __future__ import annotations

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, Shot, Volley
from battleship.rules import Rules, Sinks


def is_salvo(rules: Rules) -> bool:
    """True for rules that fire several shots a turn or answer a turn whole."""
    return rules.salvo is not None


def _volley_shots(rules: Rules, volley: Volley) -> tuple[Shot, ...]:
    """The shots of a salvo answered whole whose answers are certain (see the module docstring)."""
    if len(volley.cells) == 1:
        cell = volley.cells[0]
        if not volley.hits:
            return (Shot(cell, Outcome.MISS),)
        if not volley.sunk_count or rules.sinks is Sinks.NONE:
            return (Shot(cell, Outcome.HIT),)
        ship = volley.sunk[0] if volley.sunk else None
        shown = volley.revealed[0] if volley.revealed else 0
        return (Shot(cell, Outcome.SUNK, ship, shown),)
    if volley.hits == 0:
        return tuple(Shot(c, Outcome.MISS) for c in volley.cells)
    if volley.hits == len(volley.cells) and not volley.sunk_count:
        return tuple(Shot(c, Outcome.HIT) for c in volley.cells)
    return ()


def certain_shots(observation: Observation) -> tuple[Shot, ...]:
    """Every shot whose answer is known on its own, in the order fired (see the module docstring)."""
    if observation.rules.answered_each or not observation.volleys:
        return observation.shots
    rules = observation.rules
    return tuple(s for v in observation.volleys for s in (v.shots or _volley_shots(rules, v)))


def evidence_view(observation: Observation) -> Observation:
    """The observation without the cells being aimed (they are not evidence) and, where salvos are
    answered whole, the shots whose answers are certain under the same rules played one shot a turn
    (:meth:`Rules.one_shot`): what a shooter reading shots reads."""
    if not is_salvo(observation.rules):
        return observation
    if observation.rules.answered_each:
        return Observation(observation.rules, observation.shots, observation.volleys)
    return Observation(observation.rules.one_shot(), certain_shots(observation))


def without_pending(observation: Observation) -> Observation:
    """The observation with every answer (whole salvos included) and no cell being aimed."""
    if not observation.pending:
        return observation
    return Observation(observation.rules, observation.shots, observation.volleys)


def free(observation: Observation) -> np.ndarray:
    """Per cell: True when it has not been fired at nor chosen for the salvo being aimed."""
    rules = observation.rules
    taken = observation.shot_mask
    return np.array([not taken >> c & 1 for c in range(rules.cells)], dtype=np.bool_)


def blocked_status(status: np.ndarray, observation: Observation, code: int) -> np.ndarray:
    """``status`` with every cell fired at or aimed at whose answer it does not show set to ``code``:
    heuristic shooters aim the rest of a salvo as if those cells held no ship."""
    if not is_salvo(observation.rules):
        return status
    out = status.copy()
    taken = ~free(observation)
    out[taken & (status == 0)] = code
    return out


def fill_up(observation: Observation, chosen: list[int], size: int) -> list[int]:
    """Free cells in reading order to make ``chosen`` a salvo of ``size`` (a shooter that sees no
    likely cell left, with cells the margin makes water or an answer it cannot read, still fires)."""
    if len(chosen) >= size:
        return []
    open_cells = free(observation)
    open_cells[list(chosen)] = False
    return [int(c) for c in np.flatnonzero(open_cells)[: size - len(chosen)]]


def one_shot_only(name: str, why: str) -> object:
    """A ``refusal`` for a shooter that plays one shot a turn only: ``why`` says what it looks ahead at."""

    def refusal(rules: Rules) -> str | None:
        if is_salvo(rules):
            return f"{name} plays the one-shot game only, not the [salvo] rules of {rules.name}: {why}"
        return None

    return staticmethod(refusal)


def refuse(refusal: object, rules: Rules) -> None:
    """Raise the refusal's one line, if ``refusal(rules)`` gives one."""
    why = refusal(rules)  # type: ignore[operator]
    if why:
        raise BattleshipError(why)
