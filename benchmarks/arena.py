"""What the arena's referee costs: each kind of bot on the same battlefields, one core.

Run: .venv/bin/python benchmarks/arena.py [--games 200] [--rules standard] [--seed 5]
Plays the same hunt-target-with-parity idea as each kind of bot the arena takes: a registered
shooter (in the arena's process, its Numba kernel), a Python class served through the host process,
a standard-library Python program and a Node.js program (skipped without ``node``), the last three
speaking protocol version 1. First the class is called straight, with no process or protocol between
it and the referee: the floor for a Python bot. Prints, per bot: mean shots, games a second, wall
milliseconds a shot over the whole run after a one-game warm-up (starts, the rules, every round
trip), the median and worst answer times the referee recorded (a kernel's game is timed whole), and
the wall time a shot as a ratio to the class called straight. Programs and classes run in the
sandbox (bubblewrap), as the arena runs them.

Then what the sandbox costs: the same three program bots in the sandbox (seccomp filter and a control
group per bot), in the sandbox without control groups (``--per-process-limits-i-trust``, the
confinement before control groups) and unconfined (``--unconfined-bots-i-trust``), interleaved run by
run (``--sandbox-only`` runs this part alone): wall milliseconds a shot over whole runs,
and the time to start a bot's process and hear ``readyok`` (what every restart after a fault costs,
and each bot's first game), then to stop it. Then how long ``battleship arena`` takes to exit after
SIGINT in the middle of a program bot's game (the guide promises two seconds).

Last, the Gymnasium environment's steps a second with a random masked agent, against the same agent
firing straight at the referee (battleship.game.Game) on uniform layouts of the same seed (not the
environment's own draws) as the floor.

``--defences`` measures instead what the defences against a hostile class cost and leave (run as
root: it drops the machine's caches, as the arena does):

- a channel through the kernel's caches, both ends in the sandbox (benchmarks/cache_channel.py):
  BITS random bits sent through page residency (``RWF_NOWAIT``, timed reads) and through names
  looked up (dentries), with no defence, with the caches dropped between sender and receiver (the
  arena's), and with the alternative of evicting every file the sandbox shows
  (``POSIX_FADV_DONTNEED`` over all of them): errors, and the bits a channel with that error rate
  carries (a binary symmetric channel's capacity, N (1 - H(p)));
- what a drop costs: the drop itself, and starting each kind of bot to ``readyok`` with its files
  in memory and with the caches just dropped; and what private copies would cost: the files a
  sandbox shows, and copying the Python installation into memory;
- entry snapshots: loading a folder of 20 entries, and one entry of 100 MB;
- a slow bot (9.5 s to start, 0.45 s before every shot) against the default budgets over 1,000
  games on the standard board.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np

from battleship import generators
from battleship.envs.hunt import open_cells  # importing battleship.envs registers Battleship-v0
from battleship.game import Game, play
from battleship.lab import arena
from battleship.lab.arena import channel, protocol
from battleship.rules import load

ROOT = Path(__file__).resolve().parent.parent
BOTS = {
    "registered shooter": "hunt-target-parity",
    "Python class (host)": f"{ROOT}/examples/bots/parity_hunter.py:ParityHunter",
    "Python program": f"exec:{sys.executable} {ROOT}/examples/bots/hunt_target.py",
    "Node.js program": f"exec:node {ROOT}/examples/bots/hunt_target.js",
}


def in_process(rules, games: int, seed: int) -> tuple[float, float]:
    """The class bot called straight, no process or protocol: (mean shots, seconds a shot)."""
    sys.path.insert(0, str(ROOT / "examples" / "bots"))
    from parity_hunter import ParityHunter

    rows = generators.draw(rules, "uniform", seed, games)
    shots, begin = 0, time.perf_counter()
    for g in range(games):
        shots += len(
            play(ParityHunter(), generators.to_layout(rules, rows[g]), np.random.default_rng(g)).shots
        )
    return shots / games, (time.perf_counter() - begin) / shots


def bench_arena(rules, games: int, seed: int) -> None:
    print(
        f"arena on {rules.name}, {games} games a bot, seed {seed}; ratio: ms a shot over the class in-process"
    )
    print(
        f"{'bot':22s} {'mean':>6s} {'games/s':>8s} {'ms/shot':>8s} {'median':>7s} {'worst':>7s} {'ratio':>6s}"
    )
    mean, base = in_process(rules, games, seed)
    print(
        f"{'class, in-process':22s} {mean:6.2f} {1 / (base * mean):8.1f} {base * 1000:8.3f} {'':7s} {'':7s} {1:6.2f}"
    )
    for kind, text in BOTS.items():
        if text.startswith("exec:node") and shutil.which("node") is None:
            print(f"{kind:22s} skipped: no node on PATH")
            continue
        bot = arena.parse_bot(text, rules)
        jail = arena.choose(caches=False)  # kept warm: a drop before each run is measured apart (--defences)
        arena.run(
            rules, [bot], 1, seed + 1, jail=jail
        )  # warm: Numba's compile or cache load, the OS's file cache
        begin = time.perf_counter()
        row = arena.run(rules, [bot], games, seed, jail=jail).leaderboard[0]
        per_shot = (time.perf_counter() - begin) / (row.mean * games)
        timing = row.time_per_shot_ms
        print(
            f"{kind:22s} {row.mean:6.2f} {1 / (per_shot * row.mean):8.1f} {per_shot * 1000:8.3f} "
            f"{timing['median']:7.3f} {timing['worst']:7.2f} {per_shot / base:6.2f}"
            + (f"  forfeits {row.forfeits}" if any(row.forfeits.values()) else "")
        )


def _run_ms_a_shot(rules, text: str, games: int, seed: int, jail) -> float:
    bot = arena.parse_bot(text, rules)
    begin = time.perf_counter()
    row = arena.run(rules, [bot], games, seed, jail=jail).leaderboard[0]
    assert not any(row.forfeits.values()), row.forfeit_examples
    return (time.perf_counter() - begin) / (row.mean * games) * 1000


def _start_ms(rules, text: str, jail) -> tuple[float, float]:
    """Milliseconds to start a bot's process and hear readyok; then to stop it (and all it started)."""
    program = arena.parse_bot(text, rules).program
    begin = time.perf_counter()
    process = channel.Process(program, arena.Limits(), jail)
    process.send([protocol.GREETING, *protocol.rules_lines(rules), "isready"], time.monotonic() + 30)
    while process.receive(time.monotonic() + 30, "'isready'") != "readyok":
        pass
    ready = time.perf_counter()
    process.stop()
    return (ready - begin) * 1000, (time.perf_counter() - ready) * 1000


def bench_sandbox(rules, games: int, seed: int, rounds: int = 3) -> None:
    # the caches left as they are between bots: what their drop costs is measured apart (--defences)
    jails = {"groups": arena.choose(caches=False), "per-proc": arena.choose(groups=False, caches=False),
             "unconf.": arena.choose(unconfined=True)}  # fmt: skip
    print(f"\nthe sandbox's cost: {games} games a run, median of {rounds} runs each way, interleaved")
    print(f"{'bot':22s} " + " ".join(f"{'ms/shot ' + k:>16s}" for k in jails) + " "
          + " ".join(f"{'start ms ' + k:>17s}" for k in jails) + " " + " ".join(f"{'stop ms ' + k:>16s}" for k in jails))  # fmt: skip
    for kind, text in list(BOTS.items())[1:]:
        if text.startswith("exec:node") and shutil.which("node") is None:
            print(f"{kind:22s} skipped: no node on PATH")
            continue
        shots = {k: [] for k in jails}
        starts = {k: [] for k in jails}
        for r in range(rounds):
            for name, jail in jails.items():
                shots[name].append(_run_ms_a_shot(rules, text, games, seed + r, jail))
                starts[name] += [_start_ms(rules, text, jail) for _ in range(5)]
        shot = {k: statistics.median(v) for k, v in shots.items()}
        start = {k: statistics.median(s for s, _ in v) for k, v in starts.items()}
        stop = {k: statistics.median(t for _, t in v) for k, v in starts.items()}
        print(f"{kind:22s} " + " ".join(f"{shot[k]:16.3f}" for k in jails) + " "
              + " ".join(f"{start[k]:17.1f}" for k in jails) + " " + " ".join(f"{stop[k]:16.1f}" for k in jails))  # fmt: skip


def bench_interrupt(rules, tries: int = 3) -> None:
    """Seconds from SIGINT to the command's exit, a program bot in the middle of its games."""
    bot = f"exec:{sys.executable} {ROOT}/examples/bots/hunt_target.py"
    waits = []
    for _ in range(tries):
        process = subprocess.Popen(
            [sys.executable, "-m", "battleship", "arena", bot, "--rules", rules.name, "--games", "100000",
             "--json", "--out", "/dev/null"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(4.0)  # imports, the key, the bot started and playing
        begin = time.perf_counter()
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
        waits.append(time.perf_counter() - begin)
        assert code == 130, code
    print(
        f"\nSIGINT to exit (a program bot playing): {', '.join(f'{w:.2f}' for w in waits)} s; worst {max(waits):.2f} s"
    )


def bench_env(rules, games: int, seed: int) -> None:
    env = gymnasium.make("battleship/Battleship-v0", rules=rules.name)
    rng, steps, begin = np.random.default_rng(seed), 0, time.perf_counter()
    for g in range(games):
        _, info = env.reset(seed=seed + g)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            steps, done = steps + 1, terminated or truncated
    env_rate = steps / (time.perf_counter() - begin)
    layouts = generators.generate(rules, "uniform", seed, games)
    rng, shots, begin = np.random.default_rng(seed), 0, time.perf_counter()
    for layout in layouts:
        game = Game(layout)
        while not game.over:
            game.fire(int(rng.choice(np.flatnonzero(open_cells(game.observation)))))
            shots += 1
    floor = shots / (time.perf_counter() - begin)
    print(f"gymnasium Battleship-v0, random masked agent: {env_rate:,.0f} steps/s over {steps:,} steps")
    print(
        f"the referee alone (Game.fire, same agent): {floor:,.0f} shots/s; environment / referee {env_rate / floor:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--sandbox-only", action="store_true", help="only the sandbox's cost")
    parser.add_argument("--defences", action="store_true", help="only what the defences cost and leave")
    parser.add_argument("--bits", type=int, default=500, help="bits sent through each cache channel")
    args = parser.parse_args()
    rules = load(args.rules)
    if args.defences:
        from arena_defences import bench_defences

        bench_defences(rules, args.bits, args.seed)
        return
    if args.sandbox_only:
        bench_sandbox(rules, max(args.games // 4, 1), args.seed)
        return
    bench_arena(rules, args.games, args.seed)
    bench_sandbox(rules, max(args.games // 4, 1), args.seed)
    bench_interrupt(rules)
    bench_env(rules, max(args.games // 4, 1), args.seed)


if __name__ == "__main__":
    main()
