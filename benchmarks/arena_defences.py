"""What the arena's defences against a hostile class cost, and what they leave: ``benchmarks/arena.py
--defences`` (see its docstring). Run as root: it drops the machine's caches, as the arena does."""

from __future__ import annotations

import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from battleship.lab import arena
from battleship.lab.arena import caches, channel, protocol
from battleship.lab.arena.sandbox import Limits, Program, Sandbox

ROOT = Path(__file__).resolve().parent.parent
CHANNEL = Path(__file__).resolve().parent / "cache_channel.py"
ATTACK = ROOT / "tests" / "lab" / "arena_bots" / "attack.py"
PAGE, BLOCK = 4096, 32  # as cache_channel.py reads them


def _sandboxed(jail: Sandbox, argv: list[str]) -> str:
    """Run ``argv`` in the sandbox (the caches left as they are); its standard output."""
    launch = jail.launch(Program(tuple(argv), (str(CHANNEL),)), Limits())
    try:
        done = subprocess.run(launch.argv, pass_fds=launch.pass_fds, capture_output=True, text=True,
                              timeout=300, preexec_fn=launch.preexec)  # fmt: skip
    finally:
        launch.started()
        if launch.info is not None:
            os.close(launch.info)
        if launch.box is not None:
            launch.box.remove()
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-500:])
    return done.stdout.strip()


def _evict(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def evict_visible(jail: Sandbox) -> tuple[float, int]:
    """The alternative design: evict every file a sandbox shows, one by one; (seconds, files)."""
    begin, files = time.perf_counter(), 0
    for root in jail.visible(Program(())):
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    files += 1
                except OSError:
                    pass
                finally:
                    os.close(fd)
    return time.perf_counter() - begin, files


def _carried(sent: str, got: str) -> float:
    """Bits the channel carried: the mutual information of what was sent and what was read, from the
    counts of the four (sent, read) pairs, times the bits sent (0 when the receiver reads the same
    whatever was sent)."""
    n = len(sent)
    pairs = {
        (a, b): sum(x == a and y == b for x, y in zip(sent, got, strict=True)) / n for a in "01" for b in "01"
    }
    sent_p = {a: pairs[a, "0"] + pairs[a, "1"] for a in "01"}
    got_p = {b: pairs["0", b] + pairs["1", b] for b in "01"}
    return n * sum(p * math.log2(p / (sent_p[a] * got_p[b])) for (a, b), p in pairs.items() if p > 0)


def bench_channels(bits: int, seed: int) -> None:
    """Each channel with no defence, with a drop between sender and receiver, and with every shown
    file evicted instead (the dentry channel's names are fresh in every trial)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-channel-", dir="/var/tmp"))  # a disk, not a tmpfs
    shared = folder / "shared.bin"
    with open(shared, "wb") as f:
        for _ in range(bits + 1):
            f.write(os.urandom(BLOCK * PAGE))
        os.fsync(f.fileno())
    folder.chmod(0o755)
    shared.chmod(0o644)
    jail = Sandbox(readable=(str(folder), str(CHANNEL)), caches=False)
    rng = random.Random(seed)
    print(
        f"\na channel through the kernel's caches: {bits} random bits a trial, sender and receiver sandboxed"
    )
    print(
        f"{'kind':8s} {'defence':10s} {'errors':>7s} {'error rate':>10s} {'bits carried':>12s} {'defence s':>10s}"
    )
    print("(bits carried: the mutual information of what was sent and what was read, times the bits sent)")
    try:
        for trial, kind in enumerate(("nowait", "timed", "dentry") * 1):
            for defence in ("none", "drop", "evict all"):
                sent = "".join(rng.choice("01") for _ in range(bits))
                target = (
                    str(shared) if kind != "dentry" else f"{shared}.{kind}-{defence.replace(' ', '')}-{trial}"
                )
                _evict(shared)
                _sandboxed(jail, [sys.executable, str(CHANNEL), "send", kind, target, sent])
                spent = 0.0
                if defence == "drop":
                    spent = caches.drop()
                elif defence == "evict all":
                    spent, _ = evict_visible(jail)
                got = _sandboxed(jail, [sys.executable, str(CHANNEL), "receive", kind, target, str(bits)])
                errors = sum(a != b for a, b in zip(sent, got, strict=True))
                read = got.count("1")
                print(f"{kind:8s} {defence:10s} {errors:7d} {errors / bits:10.3f} {_carried(sent, got):12.1f} "
                      f"{spent:10.2f}   ({sent.count('1')} ones sent, {read} read)")  # fmt: skip
    finally:
        shutil.rmtree(folder)


def _start_ms(text: str, rules, jail, cold: bool) -> tuple[float, float]:
    """(ms to drop the caches, or 0; ms from starting the bot's process to its readyok)."""
    program = arena.parse_bot(text, rules).program
    dropped = caches.drop() * 1000 if cold else 0.0
    begin = time.perf_counter()
    process = channel.Process(program, Limits(start=60.0), jail)
    process.send([protocol.GREETING, *protocol.rules_lines(rules), "isready"], time.monotonic() + 60)
    while process.receive(time.monotonic() + 60, "'isready'") != "readyok":
        pass
    ready = (time.perf_counter() - begin) * 1000
    process.stop()
    return dropped, ready


def bench_starts(rules, rounds: int = 3) -> None:
    bots = {
        "Python program": f"exec:{sys.executable} {ROOT}/examples/bots/hunt_target.py",
        "Python class (host)": f"{ROOT}/examples/bots/parity_hunter.py:ParityHunter",
        "Node.js program": f"exec:node {ROOT}/examples/bots/hunt_target.js",
        "Java program": f"exec:java {ROOT}/tests/lab/arena_bots/Scan.java",
    }
    jail = arena.choose(caches=False)  # the drop is made here, to time it apart
    print(
        f"\nstart to readyok (ms), median of {rounds}: files in memory / caches just dropped; the drop itself"
    )
    for kind, text in bots.items():
        if (
            text.split()[0].removeprefix("exec:") in ("node", "java")
            and shutil.which(text.split()[0][5:]) is None
        ):
            print(f"{kind:22s} skipped: not installed")
            continue
        _start_ms(text, rules, jail, cold=False)  # its files in memory
        warm = [_start_ms(text, rules, jail, cold=False)[1] for _ in range(rounds)]
        cold = [_start_ms(text, rules, jail, cold=True) for _ in range(rounds)]
        print(f"{kind:22s} {statistics.median(warm):9.1f} / {statistics.median(c for _, c in cold):9.1f}"
              f"   drop {statistics.median(d for d, _ in cold):7.1f} ms")  # fmt: skip


def bench_copies() -> None:
    """What private copies of what a sandbox shows would take: its size, and a copy's speed."""
    jail = Sandbox(caches=False)
    files = size = 0
    begin = time.perf_counter()
    for root in jail.visible(Program(())):
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    files, size = files + 1, size + os.path.getsize(path)
    walked = time.perf_counter() - begin
    source = Path(sys.base_prefix)
    target = Path(tempfile.mkdtemp(prefix="arena-copy-", dir="/dev/shm"))
    try:
        begin = time.perf_counter()
        shutil.copytree(source, target / "python", symlinks=True)
        copied = time.perf_counter() - begin
        copied_mb = (
            sum(
                p.stat().st_size for p in (target / "python").rglob("*") if p.is_file() and not p.is_symlink()
            )
            / 2**20
        )
    finally:
        shutil.rmtree(target)
    print(f"\na sandbox shows {files:,} files, {size / 2**30:.1f} GiB (walked in {walked:.1f} s); copying the Python "
          f"installation ({copied_mb:,.0f} MiB) into memory took {copied:.2f} s, {copied_mb / copied:,.0f} MiB/s: "
          f"the whole at that speed {size / 2**20 / (copied_mb / copied):,.0f} s a bot")  # fmt: skip


def bench_snapshots() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        small, large = Path(scratch) / "small", Path(scratch) / "large"
        small.mkdir()
        for i in range(20):
            shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", small / f"bot{i:02d}.py")
        (large / "big").mkdir(parents=True)
        shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", large / "big" / "main.py")
        with open(large / "big" / "weights.bin", "wb") as f:
            f.write(os.urandom(100 << 20))
        for name, folder in (("20 small entries", small), ("one entry of 100 MB", large)):
            times = []
            for _ in range(3):
                begin = time.perf_counter()
                arena.load_entries(folder)
                times.append(time.perf_counter() - begin)
            print(f"snapshot of {name}: {statistics.median(times) * 1000:.1f} ms (median of 3)")


def bench_slow_bot(rules, games: int = 1000) -> None:
    slow = arena.parse_bot(f"exec:{sys.executable} {ATTACK} dawdle 9.5 0.45", rules)
    begin = time.perf_counter()
    result = arena.run(rules, [slow], games, 7)
    row = result.leaderboard[0]
    print(f"\na slow bot (9.5 s to start, 0.45 s a shot) at the default budgets, {games:,} games on {rules.name}: "
          f"{time.perf_counter() - begin:.1f} s; forfeits {({k: v for k, v in row.forfeits.items() if v})}; "
          f"the last: {row.forfeit_examples[-1]['detail']}")  # fmt: skip


def bench_counter(trials: int = 8, seed: int = 5) -> None:
    """A channel the drop does not close: the kernel numbers pipes from one counter for the whole
    machine, so a bot that makes K pipes moves the number the next bot's first pipe gets by K."""
    jail = Sandbox(caches=False)
    probe = [sys.executable, "-c", "import os; r, w = os.pipe(); print(os.fstat(r).st_ino)"]
    rng, moved = random.Random(seed), []
    for _ in range(trials):
        before = int(_sandboxed(jail, probe))
        k = rng.randrange(4000)
        _sandboxed(jail, [sys.executable, "-c", f"import os\nfor _ in range({k}): os.close(os.pipe()[0])"])
        caches.drop()
        moved.append((k, int(_sandboxed(jail, probe)) - before))
    offsets = [d - k for k, d in moved]
    print(
        f"\npipe numbers: {trials} senders made K pipes (K below 4,000), caches dropped after each: the next "
        f"bot's pipe number moved by K + {min(offsets)} .. {max(offsets)}, so K read to within "
        f"{max(offsets) - min(offsets)}: {moved}"
    )


def bench_defences(rules, bits: int, seed: int) -> None:
    if caches.why_not() is not None:
        raise SystemExit(f"--defences: {caches.why_not()}")
    bench_channels(bits, seed)
    bench_counter()
    bench_starts(rules)
    bench_copies()
    print()
    bench_snapshots()
    bench_checks(rules)
    bench_slow_bot(rules)


def bench_checks(rules, games: int = 1000) -> None:
    """The older defences that cost the organiser time outside the games: escaping names, checking a
    saved run (--verify without replays) and rating it (sybils)."""
    from battleship.lab.arena import ratings, verify
    from battleship.lab.arena.names import escape

    names = [f"bot-{i}\x1b[31m\u202e{i}" for i in range(100_000)]
    begin = time.perf_counter()
    for name in names:
        escape(name)
    per_name = (time.perf_counter() - begin) / len(names) * 1e6
    bots = [
        arena.parse_bot(b, rules) for b in ("random", "hunt-target", "hunt-target-parity", "density", "flood")
    ]
    result = arena.run(rules, bots, games, 11)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "run.json"
        arena.save(result, out)
        begin = time.perf_counter()
        checks = verify.verify(out, ())  # the shooters are replayed too: timed apart below
        checked = time.perf_counter() - begin
        begin = time.perf_counter()
        verify.consistency(arena.load(out))
        summed = time.perf_counter() - begin
        table = Path(scratch) / "ratings.json"
        begin = time.perf_counter()
        ratings.update(table, result)
        rated = time.perf_counter() - begin
    failed = [c.what for c in checks if c.checked and not c.ok]
    print(f"\nescaping a name: {per_name:.2f} us; a {games:,}-game run of {len(bots)} registered shooters: --verify "
          f"{checked:.2f} s (replays included{', FAILED ' + str(failed) if failed else ''}), its sums alone "
          f"{summed * 1000:.1f} ms; rating it {rated:.2f} s")  # fmt: skip
