"""What C. Liam Brown's Learning mode buys: the learning shooter against uniform-prior `optimal`, on the same layouts.

Run: .venv/bin/python benchmarks/learning.py [--train N] [--games M] [--strength S] [--jobs J]
For each human-like generator, a placement model is fitted to N layouts it drew (seed 1); then
`optimal` and `learning` (with that model) play the same M fresh layouts of the generator (seed 2),
and, to show the cost, the same M uniform layouts. Prints one line per case: both means with their
95% intervals and the paired difference (learning minus optimal) with its interval.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from battleship import generators, lab
from battleship.inference import prior as learning
from battleship.rules import preset
from battleship.shooters.options import Options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--strength", type=float, default=4.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rules", default="standard")
    args = parser.parse_args()
    rules = preset(args.rules)
    folder = Path(tempfile.mkdtemp())
    for name in ("edge", "clustered", "spread"):
        spec = f"{name}:strength={args.strength:g}"
        start = time.perf_counter()
        model = learning.fit(rules, generators.draw(rules, spec, 1, args.train))
        path = folder / f"{name}.json"
        learning.save(model, path)
        model.prior()
        fit_seconds = time.perf_counter() - start
        for test in (spec, "uniform"):
            base = lab.simulate(rules, "optimal", args.games, seed=2, generator=test, jobs=args.jobs)
            begin = time.perf_counter()
            learned = lab.simulate(
                rules,
                "learning",
                args.games,
                seed=2,
                generator=test,
                jobs=args.jobs,
                options=Options(model=str(path)),
            )
            seconds = time.perf_counter() - begin
            a = lab.summarise(base, rules.ship_cells, 1)
            b = lab.summarise(learned, rules.ship_cells, seconds)
            diff, (low, high) = lab.paired_difference(learned, base)
            print(
                f"model {spec:22s} layouts {test:22s} games {args.games} optimal {a.mean:.3f} "
                f"({a.ci95[0]:.3f} .. {a.ci95[1]:.3f}) learning {b.mean:.3f} ({b.ci95[0]:.3f} .. {b.ci95[1]:.3f}) "
                f"minus {diff:+.3f} ({low:+.3f} .. {high:+.3f}) train {args.train} fit_s {fit_seconds:.1f} "
                f"learning_ms_per_shot {1000 * seconds * args.jobs / learned.sum():.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
