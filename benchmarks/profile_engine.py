"""Speed of the profile engine (straight ships, any spacing) against the search, on one core.

Run: .venv/bin/python benchmarks/profile_engine.py [--skip-seabattle]
Prints plain numbers, after a warm-up call that compiles the kernels: seconds to count and to
give every placement's count on the open `pirates` board and with one miss (profile and search,
and their ratio), and on Sea Battle's open board (profile only: the search cannot visit 5e17
layouts).
"""

from __future__ import annotations

import argparse
import time

from battleship.game import Observation, Outcome, Shot
from battleship.inference.evidence import evidence
from battleship.inference.profile import count_by_profile
from battleship.inference.search import count_by_search
from battleship.rules import Rules, preset


def timed(func, *args, **kwargs) -> tuple[float, object]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = func(*args, **kwargs)
    return time.perf_counter() - start, result


def board(rules: Rules, misses: int) -> Observation:
    """The open board, or one with a miss at E5."""
    shots = (Shot(44, Outcome.MISS),) if misses else ()
    return Observation(rules, shots)


def compare_on(rules: Rules, label: str) -> None:
    """Profile against search on one board: count only, then every placement's count."""
    ev = evidence(rules, board(rules, 1 if "miss" in label else 0))
    for marginals in (False, True):
        p, (total, _) = timed(count_by_profile, rules, ev, marginals=marginals)
        s, (check, _) = timed(count_by_search, rules, ev, marginals=marginals)
        assert total == check
        what = "marginals" if marginals else "count"
        print(f"{label:<24} {what:<9} profile {p:7.3f} s   search {s:7.3f} s   profile/search {p / s:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-seabattle", action="store_true", help="leave out Sea Battle (about 100 s)")
    args = parser.parse_args()
    pirates = preset("pirates")
    count_by_profile(pirates, evidence(pirates, board(pirates, 1)))  # compile
    compare_on(pirates, "pirates, open board")
    compare_on(pirates, "pirates, one miss")
    if not args.skip_seabattle:
        sea = preset("seabattle")
        ev = evidence(sea, board(sea, 0))
        c, (total, _) = timed(count_by_profile, sea, ev, marginals=False)
        print(f"{'seabattle, open board':<24} count     profile {c:7.3f} s   layouts {total:,}")
        m, _ = timed(count_by_profile, sea, ev)
        print(f"{'seabattle, open board':<24} marginals profile {m:7.3f} s")


if __name__ == "__main__":
    main()
