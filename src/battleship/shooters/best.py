"""Which shooter is strongest under which rules: the measured record of docs/strategies.md, as data.

``battleship simulate --shooter best`` plays (and names) the shooter listed here for its rules.
"""

from __future__ import annotations

from battleship.rules import Rules, Spacing

# the strongest measured shooter per preset (docs/strategies.md has the measurements)
BEST = {
    "standard": "density:skew=20",
    "datagenetics": "density:skew=20",
    "pirates": "trial-sink:skew=20",
}
# the shooters kept in the record besides the best, per preset
KEPT = {
    "standard": ["density", "optimal", "optimal:skew=20", "montecarlo:skew=20"],
    "datagenetics": ["density"],
    "pirates": ["trial-sink", "optimal", "montecarlo"],
}
# the published mean each preset is measured against (None: the document gives no mean)
PUBLISHED = {"standard": 44.37, "datagenetics": None, "pirates": 38.19}


def best_for(rules: Rules) -> str:
    """The strongest measured shooter for ``rules``: by preset, else by the rules' kind."""
    if rules.name in BEST:
        return BEST[rules.name]
    straight = all(ship.is_straight for ship in rules.fleet)
    if rules.spacing is not Spacing.TOUCH and straight:
        return BEST["pirates"]
    return BEST["standard"]


def kept(rules_name: str) -> list[str]:
    """The best shooter and the others kept in the record, for one preset."""
    return [BEST[rules_name], *KEPT[rules_name]]
