"""The README's Python example, as it stands there (benchmarks/first_run.py times it on a fresh install)."""

import battleship as bs

rules = bs.preset("standard")  # or bs.load("my-rules.toml")
layout = bs.generate(rules, seed=7)  # every valid layout equally likely
game = bs.Game(layout)  # the referee holds the hidden layout
game.fire("E5")  # or "e5", (4, 4), 44
result = bs.posterior(game.observation)  # exact: every consistent layout, counted
print(f"{result.layouts:,} layouts fit what was seen")
record = bs.play(layout, "best", seed=1)  # the strongest shooter measured for these rules
print(len(record.shots), "shots by", record.shooter)
summary = bs.simulate(rules, "density:skew=20", games=2_000, seed=1)  # the lab, in Numba
print(f"mean {summary.mean:.2f} shots ({summary.ci95[0]:.2f} .. {summary.ci95[1]:.2f})")
