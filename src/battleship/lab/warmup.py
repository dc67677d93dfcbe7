"""Every kernel called once: what the package's build compiles, and what ``battleship warm`` loads.

The engines and the shooters' kernels are Numba functions, compiled when the package is built into the
package's own store and loaded from it at run time (:mod:`battleship.jit`). :func:`steps` is every
kernel's first call, on the rules and boards that reach each code path: whole games of every shooter
on the presets most played, the engines with and without a prior, exact sampling, the endgame solver.

- :func:`build_package`: the package build's part (``python -m battleship.lab.warmup --build``);
- :func:`compile_all`: every step with its progress, as ``battleship warm`` runs them: it compiles
  what the package's store does not hold (a changed source in a checkout) into the user's store;
- :func:`notice` (:func:`battleship.jit.notice`): compiles said on stderr, with progress.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from battleship.jit import notice

if TYPE_CHECKING:
    from battleship.game import Observation
    from battleship.rules import Rules
    from battleship.stop import Stop

# the presets whose whole games the build plays with every shooter, and the games left out (minutes each)
PRESETS_PLAYED = ("standard", "pirates", "salvo")
SLOW_GAMES = {("twoply", "pirates")}
# what a process the build starts runs (the module's main, with the sources it was started from)
MAIN = "from battleship.lab.warmup import main; main()"


# the two families of kernels, which share little code: the build compiles each in a process of its own
GAMES = "games"  # the layout generators, the whole-game kernels and the shooters' games
ENGINES = "engines"  # the exact engines, exact sampling, the endgame solver and the look-ahead shooters


@dataclass(frozen=True)
class Step:
    """One piece of warming up: what it compiles, the call that does it, and its family of kernels."""

    label: str
    run: Callable[[], object]
    family: str = GAMES


def steps() -> list[Step]:
    """Every kernel's first call: the layout generators, each whole-game kernel, the exact engines,
    exact sampling, and each shooter's first shots, on the presets that reach each code path."""
    from battleship import generators
    from battleship.lab.runner import warm_up
    from battleship.rules import Rules, Ship, Sinks, Spacing, preset
    from battleship.shooters import registry

    standard = preset("standard")
    # the sweep engine's code on a graph compiled in a moment (pirates' takes seconds, every process)
    apart = Rules(
        6, 6, (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2)), Spacing.NO_CONTACT, Sinks.NONE
    )
    out = [
        Step(f"layouts ({name})", partial(generators.draw, standard, name, 0, 2, threads=False))
        for name in generators.GENERATORS
    ]
    out.append(Step("layouts by the thousand, and as text", partial(_many_layouts, standard)))
    played = {n: r for n in registry.names() if (r := _rules_for(n, (standard, apart))) is not None}
    kernels = [n for n in played if registry.spec(n).kernel is not None]
    out += [Step(f"{n} games", partial(warm_up, played[n], n)) for n in kernels]
    out += [
        Step("the README's compare", partial(_readme_compare, standard)),
        Step("exact endgame", partial(_endgame)),  # a family of its own, small: with the games, for balance
        Step("exact counts (rows, search)", partial(_counts, standard), ENGINES),
        Step("exact counts (sweep, search)", partial(_counts, apart), ENGINES),
        Step("exact counts (one ship, search)", partial(_one_ship_counts), ENGINES),
        Step("weighed counts (rows, search)", partial(_weighed_counts, standard), ENGINES),
        Step("weighed counts (sweep, search)", partial(_weighed_counts, apart), ENGINES),
        Step("exact counts (frontier)", partial(_frontier_counts), ENGINES),
        Step("noisy counts (rows, sweep, search)", partial(_noisy_counts, standard, apart), ENGINES),
        Step("exact samples", partial(_samples, standard), ENGINES),
    ]
    out += [
        Step(f"{n} shots", partial(_first_shots, played[n], n), ENGINES) for n in played if n not in kernels
    ]
    # whole games on the presets the README, the guides and the web game play most: every phase of each
    # shooter (hunt, target, endgame), the readable shooters' paths into the kernels included
    for name in PRESETS_PLAYED:
        rules = preset(name)
        shooters = [n for n in registry.names() if n != "learning" and _plays(n, rules, name)]
        out += [Step(f"{n} game ({name})", partial(_whole_game, rules, n)) for n in shooters]
        out.append(Step(f"learning game ({name})", partial(_whole_game, rules, "learning")))
    return out


def _plays(shooter: str, rules: Rules, name: str) -> bool:
    """Whether a whole game of ``shooter`` under ``rules`` is worth a step: it plays them, in moments."""
    from battleship.shooters import registry

    return registry.spec(shooter).refusal(rules) is None and (shooter, name) not in SLOW_GAMES


def _whole_game(rules: Rules, name: str) -> None:
    """One seeded game to the end (the learning shooter with a model fitted to no layouts, as the web's)."""
    import numpy as np

    from battleship.game import Shooter, play
    from battleship.generators import generate
    from battleship.inference.prior import fit
    from battleship.rng import game_rng
    from battleship.shooters import make
    from battleship.shooters.learning import LearningShooter

    shooter: Shooter
    if name == "learning":
        shooter = LearningShooter(model=fit(rules, np.zeros((0, len(rules.fleet)), dtype=np.int64)))
    else:
        shooter = make(name)
    play(shooter, generate(rules, "uniform", 3, 1)[0], game_rng(1, 0))


def _rules_for(name: str, choices: tuple[Rules, ...]) -> Rules | None:
    """The first of ``choices`` the shooter plays (some refuse ships that may touch, or polyominoes)."""
    from battleship.shooters import registry

    return next((r for r in choices if registry.spec(name).refusal(r) is None), None)


def _many_layouts(rules: Rules) -> None:
    """More layouts than one thread draws (the threaded draw: a prior's fit, `layout --count`, a match's
    hidden fleets) and layouts written as text (the arena's battlefields, `layout --count`): kernels of
    their own, which no game reaches."""
    from battleship import generators

    rows = generators.draw(rules, "uniform", 0, generators.BLOCK + 1)
    generators.format_lines(rules, rows[:2])


def _half_fired(rules: Rules, seed: int = 1) -> Observation:
    """A board fired at on every other cell: past the open board, far from the end."""
    from battleship.game import Game
    from battleship.generators import generate

    game = Game(generate(rules, "uniform", seed, 1)[0])
    for cell in range(0, game.rules.cells, 2):
        if not game.over:
            game.fire(cell)
    return game.observation


def _counts(rules: Rules) -> None:
    """The engines on the open board and on a board with hits (where the search takes over)."""
    from battleship.game import Observation
    from battleship.inference.posterior import posterior

    posterior(Observation(rules))
    posterior(_half_fired(rules))


def _one_ship_counts() -> None:
    """A one-ship fleet's board with a hit: the search counts one ship at a time there, a kernel of its
    own (fleets of two ships or more count their last two together). Custom rules in the web game meet it:
    its compile on a busy server outlasted the timing of Expert's first move, which refused the rules."""
    from battleship.game import Observation, Outcome, Shot
    from battleship.inference.posterior import posterior
    from battleship.rules import Rules, Ship

    one = Rules(6, 6, (Ship.line("Boat", "B", 2),))
    posterior(Observation(one, (Shot(14, Outcome.HIT),)))


def _noisy_counts(*rules: Rules) -> None:
    """The engines under noisy answers (float weights from the answers), a bent fleet's search among them."""
    from dataclasses import replace

    from battleship.game import Observation, Outcome, Shot
    from battleship.inference.posterior import posterior
    from battleship.rules import Noise, Rules, Ship

    bent = Rules(4, 4, (Ship("Ell", "L", ((0, 0), (1, 0), (1, 1))), Ship.line("Boat", "B", 2)))
    for each in (*rules, bent):
        noisy = replace(each, noise=Noise(0.1))
        shots = (Shot(5, Outcome.HIT), Shot(6, Outcome.MISS), Shot(5, Outcome.MISS))
        posterior(Observation(noisy, shots))


def _weighed_counts(rules: Rules) -> None:
    """The engines again with a float weight a placement (a prior): kernels of their own."""
    import numpy as np

    from battleship.game import Observation
    from battleship.inference.posterior import posterior
    from battleship.tables import tables

    prior = np.linspace(0.5, 2.0, len(tables(rules).masks))
    posterior(Observation(rules), prior=prior)
    posterior(_half_fired(rules), prior=prior)


def _readme_compare(rules: Rules) -> None:
    """The README's comparison, on a few games: the shooters as `compare` resolves them (``best`` to the
    shooter it names for the rules), through the lab's paired runner."""
    from battleship.lab.runner import compare, warm_up
    from battleship.shooters import registry

    shooters = [
        registry.check(n, rules) for n in ("random", "hunt-target", "hunt-target-parity", "density", "best")
    ]
    for name, _options in shooters:
        warm_up(rules, name, "uniform")
    compare(rules, shooters, 4, seed=1)


def _frontier_counts() -> None:
    """The frontier engine (ship shapes: polyominoes, or straight ships the sweep leaves), with and
    without a prior and marginals, on a board small enough to take a moment once compiled."""
    import numpy as np

    from battleship.game import Observation
    from battleship.inference.evidence import evidence
    from battleship.inference.posterior import ENGINES
    from battleship.rules import Rules, Ship
    from battleship.tables import tables

    rules = Rules(6, 6, (Ship("Ell", "L", ((0, 0), (1, 0), (1, 1))), Ship.line("Two", "T", 2)))
    prior = np.linspace(0.5, 2.0, len(tables(rules).masks))
    for seen in (Observation(rules), _half_fired(rules)):
        ev = evidence(rules, seen)
        for weight in (None, prior):
            for marginals in (True, False):
                ENGINES["frontier"](rules, ev, marginals=marginals, weight=weight)


def _endgame() -> None:
    """The exact rest of a game (the limit's solver), on a board it finishes in a moment."""
    from battleship.lab import limit
    from battleship.rules import Rules, Ship, Sinks, Spacing

    two = (Ship.line("Two", "T", 2), Ship.line("Other two", "W", 2))
    limit.optimum(Rules(3, 3, two, Spacing.TOUCH, Sinks.NAMED))


def _samples(rules: Rules) -> None:
    from battleship.inference.sampling import draw

    draw(rules, _half_fired(rules), 4, seed=0)


def _first_shots(rules: Rules, name: str) -> None:
    """A shooter's choice on the open board and on a board half fired at (its hunt and its endgame)."""
    import numpy as np

    from battleship.errors import BattleshipError
    from battleship.game import Observation
    from battleship.shooters import make

    shooter = make(name)
    for board in (Observation(rules), _half_fired(rules)):
        try:
            shooter.reset(rules, np.random.default_rng(0))
        except BattleshipError:  # a shooter that needs more than its name (a fitted model's file): not warmed
            return
        shooter.next_shot(board)


def part(todo: list[Step], index: int, parts: int) -> list[Step]:
    """The steps process ``index`` of ``parts`` runs in the build: a family to a process, so that two
    processes seldom compile the same kernel (each would, unseen by the other, until one has saved it);
    with more processes than families, a family's steps are dealt in turn among those it has."""
    families = list(dict.fromkeys(step.family for step in todo))
    if parts <= len(families):
        mine = set(families[index::parts])
        return [step for step in todo if step.family in mine]
    family = families[index % len(families)]
    sharing = len(range(index % len(families), parts, len(families)))
    return [step for step in todo if step.family == family][index // len(families) :: sharing]


def compile_all(progress: Callable[[int, int, str], None] | None = None, stop: Stop | None = None) -> int:
    """Compile (or load from the cache) every kernel; ``progress(done, total, label)`` before each step.

    ``stop`` is read between steps (one function's compilation cannot be cut short). Returns the
    number of steps done (all of them unless stopped).
    """
    todo = steps()
    for done, step in enumerate(todo):
        if stop is not None and stop.requested:
            return done
        if progress is not None:
            progress(done, len(todo), step.label)
        step.run()
    if progress is not None:
        progress(len(todo), len(todo), "done")
    return len(todo)


def build_package(jobs: int = 2, target: str = "host", out: TextIO | None = None) -> int:
    """Compile every kernel into the package's own store (:mod:`battleship.jit`), as the package's build
    does: ``jobs`` processes share the steps (a family of kernels to each, :func:`part`), then one more
    runs them all (loading what the others compiled, compiling what two of them raced for) and writes
    the store's manifest. ``target``: ``host`` (this machine's CPU) or an x86-64 level (``x86-64-v3``)
    for a wheel meant for other machines. Returns the number of compiled functions stored. A store
    already compiled from these sources, for this Python, Numba and target, is kept as it is; one
    compiled from other sources is brought up to date: Numba compiles again the kernels whose own file changed (its limit: not those
    that only call a changed function in another file; a release is built from a clean checkout).
    """
    import os
    import shutil
    import subprocess

    from battleship import jit

    say = out or sys.stderr
    if target != "host" and target not in jit.LEVELS:
        raise ValueError(f"unknown kernel target {target!r}: host or one of {', '.join(jit.LEVELS)}")
    manifest = jit.Manifest.read()
    if manifest is not None and manifest.current(target):
        say.write(f"the compiled kernels are up to date ({manifest.functions} functions)\n")
        return manifest.functions
    same = manifest is not None and manifest.built_for() == (
        jit.python_version(),
        jit.numba.__version__,
        target,
    )
    if not same:
        shutil.rmtree(jit.PACKAGE_STORE, ignore_errors=True)
    jit.PACKAGE_STORE.mkdir(parents=True, exist_ok=True)
    (jit.PACKAGE_STORE / jit.MANIFEST).unlink(missing_ok=True)  # until it is written again, no claim
    env = {**os.environ, jit.BUILD_VARIABLE: "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("NUMBA_CACHE_DIR", None)
    if target != "host":  # Numba reads the CPU to compile for from these when it is imported
        env.update(NUMBA_CPU_NAME=target, NUMBA_CPU_FEATURES="")
    started = time.perf_counter()
    kept = "compiling those of changed sources" if same else "compiling every one"
    say.write(f"the package's kernels into {jit.PACKAGE_STORE} for {target}: {kept} ({jobs} processes) ...\n")
    say.flush()
    source = str(Path(__file__).resolve().parents[2])  # the folder holding this very package
    command = [sys.executable, "-c", f"import sys; sys.path.insert(0, {source!r}); {MAIN}"]
    parts = (
        [subprocess.Popen([*command, "--part", f"{i}/{jobs}"], env=env) for i in range(jobs)]
        if jobs > 1
        else []
    )
    if any(part.wait() != 0 for part in parts):
        raise RuntimeError("compiling the kernels failed (see above)")
    subprocess.run([*command, "--part", "0/1", "--manifest", target], env=env, check=True)
    written = jit.Manifest.read()
    if written is None:
        raise RuntimeError("compiling the kernels wrote no manifest")
    took = time.perf_counter() - started
    say.write(f"the package's kernels: {written.functions} functions, ready in {took:.0f} s\n")
    return written.functions


def main() -> None:
    """``python -m battleship.lab.warmup``: the package build's worker (see :func:`build_package`)."""
    import argparse

    parser = argparse.ArgumentParser(description="Compile the package's kernels (its build runs this).")
    parser.add_argument(
        "--part", default="0/1", help="I/N: the I-th (0-based) of N processes' steps (see part)"
    )
    parser.add_argument("--manifest", metavar="TARGET", help="then write the store's manifest for TARGET")
    parser.add_argument("--build", action="store_true", help="build the whole store (every part, then all)")
    parser.add_argument("--jobs", type=int, default=2, help="with --build: processes sharing the steps")
    parser.add_argument("--target", default="host", help="with --build: host, or an x86-64 level")
    args = parser.parse_args()
    if args.build:
        build_package(args.jobs, args.target)
        return
    index, parts = (int(x) for x in args.part.split("/"))
    with notice():
        for step in part(steps(), index, parts):
            step.run()
    if args.manifest:
        from battleship import jit

        jit.write_manifest(args.manifest)


if __name__ == "__main__":
    main()
