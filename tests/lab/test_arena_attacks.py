"""Bots written to cheat or to do harm (tests/lab/arena_bots/attack.py), one for each way the arena was
once beaten, each shown to gain nothing: no better score than an honest bot of its strength, no file
changed outside its scratch directory, no connection, no process left after the run, no other bot
affected.

The attacker's honest play fires in reading order, so on a battlefield it takes exactly one more shot
than the index of the fleet's last cell (:func:`honest_shots`, computed here from the revealed key);
when an attack tells it where the ships are, a game takes as many shots as the fleet has cells.
Where it costs little, the same attack is run unconfined too (``--unconfined-bots-i-trust``), where
it succeeds: the attacker is real, and it is the sandbox that stops it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from battleship import generators
from battleship import rules as rules_mod
from battleship.lab import arena
from battleship.lab.arena import channel, sandbox

pytestmark = pytest.mark.skipif(
    sandbox.probe() is not None, reason=f"no bubblewrap sandbox here: {sandbox.probe()}"
)

ROOT = Path(__file__).resolve().parents[2]
ATTACK = ROOT / "tests" / "lab" / "arena_bots" / "attack.py"
SMALL = rules_mod.square(6)  # the standard fleet (17 cells) on 6x6
# the sandbox leaving the kernel's caches as they are between bots (test_arena.py says why); the
# cache-channel tests and the honest runtimes at the defaults use DEFAULTS, which drops them
SANDBOX, UNCONFINED, DEFAULTS = arena.choose(caches=False), arena.choose(unconfined=True), arena.choose()
SHARED = "--shared-caches-i-trust"
LIMITS = arena.Limits(time=5.0, start=20.0, memory_mb=512)  # generous: the machine may be busy


def attacker(mode: str, *args: str, script: Path = ATTACK) -> str:
    return " ".join([f"exec:{sys.executable}", str(script), mode, *args])


HONEST = attacker("honest")


def play(bots: list[str], games: int = 3, key=None, jail=SANDBOX, limits=LIMITS) -> arena.ArenaResult:
    parsed = [arena.parse_bot(b, SMALL) for b in bots]
    return arena.run(SMALL, parsed, games, key or arena.Key.new(), limits=limits, jail=jail)


def row_of(result, bot: str):
    return next(r for r in result.leaderboard if r.bot == bot)


def honest_shots(result: arena.ArenaResult | dict) -> list[int]:
    """What reading-order play takes on each battlefield of a run (from the key its results reveal)."""
    saved = result if isinstance(result, dict) else result.as_dict()
    rows = arena.Key.from_hex(saved["key"]).battlefields(SMALL, saved["generator"], saved["games"])
    return [
        generators.to_layout(SMALL, r).occupied.bit_length() for r in rows
    ]  # the last ship cell, plus one


def assert_gains_nothing(result, bot: str, found: str | None = "nothing") -> None:
    """The bot scored exactly as honest play would (and, unless ``found`` is None, says it found that)."""
    row = row_of(result, bot)
    assert row.shots == honest_shots(result), row.forfeit_examples
    if found is not None:
        assert row.name == f"attack:found:{found}"


def leftovers(token: str) -> list[int]:
    """Processes whose command line holds ``token``."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            with contextlib.suppress(OSError), open(f"/proc/{name}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    pids.append(int(name))
    return pids


@contextlib.contextmanager
def killing(token: str):
    """Whatever the block leaves holding ``token`` is killed afterwards (the unconfined controls)."""
    try:
        yield
    finally:
        for pid in leftovers(token):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file and link under ``folder``, with its content or target."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path)] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            out[str(path)] = path.read_bytes()
    return out


def cli(args: list[str], cwd: Path, env: dict | None = None) -> tuple[int, dict | str]:
    """``battleship arena ARGS --json`` in a process of its own (its command line is what bots read)."""
    done = subprocess.run(
        [sys.executable, "-m", "battleship", "arena", *args, "--json", "--start-limit", "20", SHARED],
        cwd=cwd, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
    )  # fmt: skip
    if done.returncode != 0:
        return done.returncode, done.stderr
    return 0, json.loads(done.stdout)


# ---- row 1: the seed on the parent's command line; the default seed ---------------------------------
def test_a_bot_cannot_read_the_runs_seed_from_the_arenas_command_line(tmp_path):
    bots, args = [attacker("cmdline"), HONEST], ["--rules", "square-6", "--games", "3", "--time-limit", "5"]
    code, seeded = cli([*bots, *args, "--seed", "7"], tmp_path)
    assert code == 0, seeded
    for row in seeded["leaderboard"]:
        assert row["shots"] == honest_shots(seeded), row  # the sandbox hides the arena's command line
    assert {r["name"] for r in seeded["leaderboard"]} == {"attack:found:nothing"}
    code, unseeded = cli(
        [*bots, *args], tmp_path
    )  # no --seed: a key from the OS (the default 0 guessed in vain)
    assert code == 0 and unseeded["seed"] is None, unseeded
    assert all(row["shots"] == honest_shots(unseeded) for row in unseeded["leaderboard"])
    # unconfined, the same bot reads the seed off its parent's command line and sinks every fleet in 17
    code, exposed = cli([*bots, *args, "--seed", "7", "--unconfined-bots-i-trust"], tmp_path)
    assert code == 0, exposed
    cheat = next(r for r in exposed["leaderboard"] if "cmdline" in r["bot"])
    assert cheat["shots"] == [17, 17, 17] and cheat["name"] == "attack:found:key"


# ---- row 2: the run's seed worked back from the seeds a bot is sent --------------------------------
def test_a_bot_cannot_work_the_key_back_from_its_seeds():
    brute = attacker("seed", "3000")  # every seed below 3,000 and the last hour's clock seconds
    result = play([brute, HONEST])
    assert_gains_nothing(result, brute)
    assert row_of(result, HONEST).shots == honest_shots(result)
    # a public seed is guessable: with --seed 1234 the same bot finds it, as docs/arena.md warns
    known = play([brute], key=arena.Key.from_seed(1234))
    assert row_of(known, brute).shots == [17, 17, 17] and row_of(known, brute).name == "attack:found:key"


# ---- row 3: the parent's environment and memory ------------------------------------------------------
def test_a_bot_cannot_read_the_arenas_environment_or_memory(tmp_path):
    marker = "arena-secret-" + secrets.token_hex(8)
    snoop = attacker("snoop", marker)
    code, saved = cli([snoop, "--rules", "square-6", "--games", "2", "--time-limit", "5"], tmp_path,
                      {"ARENA_TEST_SECRET": marker})  # fmt: skip
    assert code == 0, saved
    row = saved["leaderboard"][0]
    assert row["name"] == "attack:found:nothing" and row["shots"] == honest_shots(saved)
    args = [snoop, "--rules", "square-6", "--games", "2", "--time-limit", "5", "--unconfined-bots-i-trust"]
    code, exposed = cli(args, tmp_path, {"ARENA_TEST_SECRET": marker})
    assert code == 0, exposed
    assert "environ-of-" in exposed["leaderboard"][0]["name"]  # unconfined: the referee's environment


# ---- row 4: files outside the scratch directory ------------------------------------------------------
def test_a_bot_cannot_write_outside_its_scratch_nor_spoil_another_bot_or_the_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    token = secrets.token_hex(6)
    victim = tmp_path / "victim.py"
    shutil.copy(ATTACK, victim)
    results, elsewhere = tmp_path / "results.json", tmp_path / "elsewhere.txt"
    results.write_text("{}")  # an earlier run's results
    targets = [str(tmp_path / "planted.txt"), str(victim), str(results), f"/tmp/arena-attack-{token}",
               f"link:{results}.part:{elsewhere}", f"link:/tmp/arena-attack-link-{token}:{elsewhere}"]  # fmt: skip
    writer, honest = attacker("write", *targets), attacker("honest", script=victim)
    before = snapshot(tmp_path)
    result = play([writer, honest])
    arena.save(result, results)
    after = snapshot(tmp_path)
    assert after.pop(str(results)) != before.pop(str(results))  # the run's own results, and nothing else
    assert after == before
    assert not os.path.lexists(f"/tmp/arena-attack-{token}") and not os.path.lexists(
        f"/tmp/arena-attack-link-{token}"
    )
    assert_gains_nothing(result, writer, found=None)  # what it wrote went to its own scratch, gone with it
    assert row_of(result, honest).shots == honest_shots(result)  # the later bot played from its own script


def test_the_results_are_written_aside_and_renamed_following_no_link(tmp_path):
    """Even unconfined, a link planted where the results once went aside (results.json.part) is not
    followed: the results go to a new file of a random name, renamed over results.json."""
    results, elsewhere = tmp_path / "results.json", tmp_path / "elsewhere.txt"
    elsewhere.write_text("untouched")
    os.symlink(elsewhere, f"{results}.part")
    writer = attacker("write", f"link:{results}.new:{elsewhere}")
    arena.save(play([writer], games=1, jail=UNCONFINED), results)
    assert elsewhere.read_text() == "untouched" and json.loads(results.read_text())["games"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.txt", "results.json", "results.json.new",
                                                           "results.json.part"]  # fmt: skip
    results.unlink()
    os.symlink(elsewhere, results)  # --out itself a link: the link is replaced, its target left alone
    arena.save(play(["random"], games=1), results)
    assert not results.is_symlink() and elsewhere.read_text() == "untouched"


# ---- row 5: connections ------------------------------------------------------------------------------
def test_a_bot_cannot_open_a_connection():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(5)
        listener.settimeout(0.5)
        caller = attacker("connect", str(listener.getsockname()[1]))
        assert_gains_nothing(play([caller], games=1), caller)
        with pytest.raises(TimeoutError):
            listener.accept()  # nobody called
        exposed = play([caller], games=1, jail=UNCONFINED)
        assert row_of(exposed, caller).name == "attack:found:connected"
        listener.accept()[0].close()


# ---- rows 6 and 9: processes left behind, and what they did to the next bot ------------------------
def test_a_bot_leaves_no_process_behind_to_rewrite_the_results(tmp_path):
    token = "linger-" + secrets.token_hex(6)
    results = tmp_path / "results.json"
    lingerer = attacker("linger", token, str(results))
    with killing(token):
        result = play([lingerer, HONEST])
        assert leftovers(token) == []  # gone with the bot's sandbox
        arena.save(result, results)
        written = results.read_bytes()
        time.sleep(0.5)  # a survivor would rewrite the file every 0.2 s
        assert results.read_bytes() == written
        assert_gains_nothing(result, lingerer)
        exposed = play([lingerer], games=1, jail=UNCONFINED)  # unconfined, the child outlives the run
        assert exposed.leaderboard[0].name == "attack:found:nothing" and leftovers(token)


def test_a_bot_left_behind_cannot_prey_on_the_next_bot():
    token, victim = "prey-" + secrets.token_hex(6), "victim-" + secrets.token_hex(6)
    predator, prey = attacker("prey", token, victim), attacker("honest", victim)
    with killing(token):
        result = play([predator, prey], games=5)
        assert leftovers(token) == []
        assert row_of(result, prey).shots == honest_shots(result)
        assert sum(row_of(result, prey).forfeits.values()) == 0
        assert_gains_nothing(result, predator)
        # unconfined, the predator's child survives, finds the victim and feeds it moves: it forfeits
        slow_prey = attacker("honest", victim, "slow")
        exposed = play([predator, slow_prey], games=4, jail=UNCONFINED)
        assert sum(row_of(exposed, slow_prey).forfeits.values()) > 0


# ---- row 7: a fork flood, and a bot whose exit leaves its output open -------------------------------
@pytest.mark.parametrize("jail", [SANDBOX, UNCONFINED], ids=["sandbox", "unconfined"])
def test_a_bot_that_forks_and_exits_is_seen_exiting_at_once_and_its_children_die(jail):
    token = "fork-" + secrets.token_hex(6)
    forker = attacker("fork", token, "200")
    with killing(token):
        result = play([forker], games=2, jail=jail)
        assert leftovers(token) == []
    row = row_of(result, forker)
    assert row.forfeits["start"] == 2
    detail = row.forfeit_examples[0]["detail"]
    assert "while asked 'isready': exit code 3" in detail, (
        detail
    )  # seen exiting, not waited out as a time-out
    forked = int(row.name.split(":")[-1])
    if jail.confined:
        assert forked < LIMITS.processes  # the process limit held (its own process counts, and the init's)
    else:
        assert forked == 200


# ---- row 8: a flood on stderr --------------------------------------------------------------------------
def test_a_flood_on_stderr_is_drained_and_only_its_end_kept():
    from battleship.lab.arena import protocol
    from battleship.lab.arena.bots import program_of

    process = channel.Process(program_of([sys.executable, str(ATTACK), "flood", "100"]), LIMITS, SANDBOX)
    try:
        process.send([protocol.GREETING, *protocol.rules_lines(SMALL), "isready"], time.monotonic() + 30)
        while (line := process.receive(time.monotonic() + 30, "'isready'")).startswith("name "):
            pass
        assert line == "readyok"
        assert process.stderr_kept <= channel.STDERR_KEPT and process.stderr_tail().endswith("flood ends")
    finally:
        process.stop()


# ---- a colluding pair: one bot files the battlefields in a kernel object, a later one reads them ------
def forget_keys(token: str) -> None:
    """Unlink from the host's key store whatever an unconfined attacker filed under ``token``."""
    import ctypes
    import platform

    keyctl = {"x86_64": 250, "aarch64": 219}.get(platform.machine())
    libc = ctypes.CDLL(None, use_errno=True)
    with contextlib.suppress(OSError):
        for line in Path("/proc/keys").read_text().splitlines():
            if f" {token}-" in line and keyctl is not None:
                libc.syscall(keyctl, 21, int(line.split()[0], 16))  # KEYCTL_INVALIDATE


def forget_filed(token: str) -> None:
    forget_keys(token)
    for folder in ("/dev/shm", "/tmp"):
        for path in Path(folder).glob(f"{token}-*"):
            path.unlink(missing_ok=True)


@pytest.mark.parametrize("how", ["keys", "sysv", "shm", "tmp"])
def test_a_colluding_pair_gains_nothing(how):
    """The first files every battlefield's ship cells where the second, playing later, could read them:
    in the sandbox both score exactly as honest reading-order play; unconfined, the reader sinks every
    fleet in 17 shots (so the channel is real)."""
    token = "collude-" + secrets.token_hex(6)
    filer, reader = attacker("collude-file", how, token), attacker("collude-read", how, token)
    try:
        result = play([filer, reader], games=3)
        assert row_of(result, filer).shots == honest_shots(result)
        assert_gains_nothing(result, reader)
        if how in ("keys", "shm"):  # cheap to show unconfined (sysv and tmp need cleaning the host)
            exposed = play([filer, reader], games=3, jail=UNCONFINED)
            assert row_of(exposed, reader).shots == [17, 17, 17], row_of(exposed, reader).forfeit_examples
    finally:
        forget_filed(token)


# ---- a pair passing ship cells through the kernel's page cache -------------------------------------------
@pytest.fixture
def shared_pages():
    """A file of random bytes on the disk (/var/tmp is not a tmpfs, whose pages never leave memory), which
    every sandbox may read (as --bot-can-read shows a file), none of its pages in memory."""
    folder = Path(tempfile.mkdtemp(prefix="arena-pages-", dir="/var/tmp"))
    path = folder / "pages.bin"
    try:
        with open(path, "wb") as f:
            f.write(os.urandom(16 << 20))  # 32 pages a (game, cell): 3 games on 6x6 take 15 MB
            f.flush()
            os.fsync(f.fileno())
        folder.chmod(0o755)
        path.chmod(0o644)
        forget_pages(path)
        yield path
    finally:
        shutil.rmtree(folder)


def forget_pages(path: Path) -> None:
    """Evict ``path``'s pages from the page cache (what any process read of it is forgotten)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


@pytest.mark.parametrize("how", ["nowait", "timed"])
def test_a_pair_passing_ship_cells_through_the_page_cache_gains_nothing(how, shared_pages, tmp_path):
    """The first bot reads one page of a file every sandbox sees for each ship cell it hit; the second
    asks which of those pages are in memory (``preadv2`` with ``RWF_NOWAIT``, or timing a plain read)
    and fires there first. With the caches dropped before each bot (the default) the reader scores
    exactly as honest reading-order play; left shared, it finds the marked pages, and ``--verify`` (which
    replays the bots in the order they played, isolated) flags it."""
    marker, reader = attacker("cache-mark", str(shared_pages)), attacker("cache-read", how, str(shared_pages))
    readable = (str(shared_pages),)
    result = play([marker, reader], games=3, jail=arena.choose(readable=readable))
    assert row_of(result, marker).shots == honest_shots(result)
    assert_gains_nothing(result, reader, found=f"cache-{how}:0")
    forget_pages(shared_pages)
    shared = play([marker, reader], games=3, jail=arena.choose(readable=readable, caches=False))
    exposed = row_of(shared, reader)  # the channel is real: it beats honest play (17 shots is the fewest)
    assert exposed.name != f"attack:found:cache-{how}:0" and sum(exposed.shots) < sum(honest_shots(shared)), (
        exposed
    )
    if how == "nowait":  # --verify replays the pair in the live order, isolated: the reader is flagged
        out = tmp_path / "run.json"
        arena.save(shared, out)
        code, said = _verify(out, marker, reader, "--bot-can-read", str(shared_pages))
        assert code == 1 and f"ok   replay {marker}" in said and f"FAIL replay {reader}" in said, said
        assert "in the live run's order" in said and "the live run differed from an isolated replay" in said
        assert said.strip().splitlines()[-1].endswith(f"FLAGGED: {reader} (live games that differ from an "
                                                       "isolated replay: a sign of interference; do not "
                                                       "trust these scores as they stand)"), said  # fmt: skip


def test_a_machine_that_cannot_drop_the_caches_is_named_and_refused_unless_the_organiser_says(monkeypatch):
    from battleship.lab.arena import caches

    monkeypatch.setattr(caches, "why_not", lambda: "only root can drop the kernel's caches")
    with pytest.raises(
        arena.SandboxUnavailable, match=r"drop the kernel's caches\. .* --shared-caches-i-trust"
    ):
        sandbox.require(arena.choose(), ["exec:bot"])
    sandbox.require(arena.choose(caches=False), ["exec:bot"])  # the organiser's loudly named option


def test_the_sandbox_refuses_the_kernels_shared_objects_and_new_namespaces():
    """The seccomp filter: no key, no System V or POSIX IPC object, no user namespace (by unshare or by
    clone), no mount, no ptrace. Unconfined, the same bot (as root, or a user with user namespaces)
    gets at least the key and the namespace: the probe is real."""
    token = "calls-" + secrets.token_hex(6)
    prober = attacker("syscalls", token)
    assert_gains_nothing(play([prober], games=1), prober)
    try:
        exposed = row_of(play([prober], games=1, jail=UNCONFINED), prober).name
    finally:
        forget_keys(token)
    assert {"add_key", "shmget", "mq_open"} <= set(exposed.removeprefix("attack:found:").split(",")), exposed


# ---- memory and CPU taken where per-process limits do not look ---------------------------------------
@pytest.mark.parametrize("how", ["memfd", "shm", "children"])
def test_memory_taken_through_shared_memory_or_children_is_stopped_at_the_limit(how):
    """256 MiB held with a 128 MiB limit: the control group counts shared memory, tmpfs files and
    children together, and the kernel kills at the limit: the bot itself, which forfeits (a crash that
    says so), or, where its children hold the memory, the children (the bot plays on, holding nothing)."""
    hoarder = attacker("hoard", how, "256")
    limits = dataclasses.replace(LIMITS, memory_mb=128, scratch_mb=512)  # the tmpfs is no cap here
    row = row_of(play([hoarder], games=1, limits=limits), hoarder)
    assert row.name is None or "hoarded" not in row.name, row
    if how != "children" or row.forfeits["start"]:
        assert row.forfeits["start"] == 1 and "memory limit" in row.forfeit_examples[0]["detail"], row


def test_cpu_burnt_by_children_never_waited_for_is_counted():
    """4 children spinning 0.6 s each against a 1 s limit a game: the group's CPU time counts them, the
    bot forfeits for CPU. Held per process (the sandbox without control groups), the same bot plays
    its game in full: the attack is real."""
    burner = attacker("burn", "0.6")
    limits = dataclasses.replace(LIMITS, cpu=1.0, time=60.0)  # the machine may be busy
    row = row_of(play([burner], games=1, limits=limits), burner)
    assert row.forfeits["cpu"] == 1, row.forfeit_examples
    uncounted = play([burner], games=1, limits=limits, jail=arena.choose(groups=False))
    assert row_of(uncounted, burner).shots == honest_shots(uncounted), row_of(
        uncounted, burner
    ).forfeit_examples


def test_a_machine_without_control_groups_is_named_and_refused_unless_the_organiser_says(monkeypatch):
    from battleship.lab.arena import cgroup

    monkeypatch.setattr(cgroup, "available", lambda: "the memory controller is not mounted")
    with pytest.raises(
        arena.SandboxUnavailable, match=r"memory, processes and CPU time .* --per-process-limits"
    ):
        sandbox.require(arena.choose(), ["exec:bot"])
    sandbox.require(arena.choose(groups=False), ["exec:bot"])  # the organiser's loudly named option


# ---- a doctored results file -----------------------------------------------------------------------------
def _saved_run(tmp_path: Path) -> tuple[Path, dict, str]:
    program = f"exec:{sys.executable} {ROOT / 'examples' / 'bots' / 'hunt_target.py'}"
    out = tmp_path / "run.json"
    arena.save(play(["random", program], games=3), out)
    return out, json.loads(out.read_text()), program


def _verify(path: Path, *bots: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from battleship.cli import app

    done = CliRunner().invoke(app, ["arena", "--verify", str(path), *bots])
    return done.exit_code, done.output


def test_verify_fails_on_any_edited_row_and_runs_nothing_the_file_names(tmp_path):
    out, saved, program = _saved_run(tmp_path)
    code, said = _verify(out, program)
    assert code == 0 and said.strip().splitlines()[-1].startswith("verified: all"), said
    assert said.startswith("results sha256: ")
    # the program's row made the winner (mean 17, rank 1), or a forfeit hidden: each fails, named
    edits = [{"mean": 17.0, "rank": 1}, {"forfeits": {**dict.fromkeys(arena.CAUSES, 0), "crash": 2}},
             {"ci95": [1.0, 2.0]}, {"games": 9}]  # fmt: skip
    for edit in edits:
        board = [{**row, **edit} if row["bot"] == program else row for row in saved["leaderboard"]]
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**saved, "leaderboard": board}))
        code, said = _verify(bad)  # not even the program named: the row's own figures give it away
        assert code == 1 and f"FAIL row {program}" in said and "FAILED" in said.splitlines()[-1], (edit, said)
    # a shooter row naming a command: never run, and the row fails
    planted = tmp_path / "planted.txt"
    board = [{**saved["leaderboard"][0], "bot": f"exec:touch {planted}", "kind": "shooter"},
             *saved["leaderboard"][1:]]  # fmt: skip
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**saved, "leaderboard": board}))
    code, said = _verify(bad)
    assert code == 1 and "no registered shooter" in said and not planted.exists(), said
    # a row whose kind is not its bot's
    board = [{**row, "kind": "class"} if row["bot"] == program else row for row in saved["leaderboard"]]
    bad.write_text(json.dumps({**saved, "leaderboard": board}))
    code, said = _verify(bad, program)
    assert code == 1 and f"FAIL kind {program}" in said, said


def test_verify_says_when_a_row_could_not_be_replayed(tmp_path):
    out, _, program = _saved_run(tmp_path)
    code, said = _verify(out)  # the program not named: its row is checked for sums, not replayed
    assert code == 3, said
    assert f"unchecked replay {program}" in said and said.strip().splitlines()[-1].startswith("NOT VERIFIED")


# ---- names with terminal escapes ----------------------------------------------------------------------
def test_names_reach_no_terminal_raw(tmp_path, monkeypatch):
    """An entry named with a hyperlink and a colour escape, a ``name`` line with a carriage return:
    the results, the terminal table and the run's stderr hold them escaped."""
    from battleship.lab.arena.names import escape

    assert (
        escape("a\x1b]8;;http://x\x07b\x1b[31mc\r\u202e") == "a\\x1b]8;;http://x\\x07b\\x1b[31mc\\x0d\\u202e"
    )
    assert escape(escape("\x1b")) == escape("\x1b") and escape("plain ü [b]") == "plain ü [b]"
    folder = tmp_path / "entries"
    folder.mkdir()
    hostile = "\x1b]8;;evil\x07evil\x1b[31m.py"
    shutil.copy(ATTACK, folder / hostile)
    monkeypatch.chdir(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "battleship", "arena", "--entries", str(folder), "--rules", "square-6",
         "--games", "1", "--start-limit", "20", "--out", "run.json", SHARED],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "\x1b" not in done.stdout + done.stderr, done.stdout + done.stderr
    saved = (tmp_path / "run.json").read_text()
    assert "\\u001b" not in saved and "\\\\x1b" in saved  # escaped text, not a raw (JSON-quoted) ESC


# ---- sybils against the ratings ----------------------------------------------------------------------------
def _rated(rows: list[tuple[str, str | None, list[int]]], runs: int = 3) -> dict:
    """The ratings after ``runs`` runs of the same rows (bot, entrant, shots), each a run of its own."""
    from types import SimpleNamespace

    from battleship.lab.arena import ratings

    data = ratings._empty()
    for run in range(runs):
        board = [SimpleNamespace(bot=b, entrant=e, shots=s) for b, e, s in rows]
        ratings.apply(data, SimpleNamespace(leaderboard=board, forfeit_score=36, commitment=f"run-{run}"))
    return data["bots"]


def test_sybil_entries_cannot_inflate_a_rating():
    """Ten always-forfeiting entries leave everyone else's rating exactly as it was; three copies of
    one bot entered by one author are one player rated as that bot; forfeiting a game never saves a
    rating (a forfeiter ends below what finishing last would give it)."""
    honest = [("alice", None, [20, 22, 25, 21]), ("bob", None, [24, 23, 22, 26])]
    alone = _rated(honest)
    sybils = [(f"sybil-{i}", None, [36] * 4) for i in range(10)]
    crowded = _rated(honest + sybils)
    for bot in ("alice", "bob"):
        assert crowded[bot]["mu"] == pytest.approx(alone[bot]["mu"])
        assert crowded[bot]["sigma"] == pytest.approx(alone[bot]["sigma"])
    assert all(crowded[s]["mu"] < alone["bob"]["mu"] for s, _, _ in sybils)
    copies = _rated([("alice", None, honest[0][2]), *((f"bob-{i}", "bob", honest[1][2]) for i in range(3))])
    assert set(copies) == {"alice", "bob"}
    assert copies["bob"]["mu"] == pytest.approx(alone["bob"]["mu"])
    assert copies["alice"]["mu"] == pytest.approx(alone["alice"]["mu"])
    quitter = _rated([honest[0], ("carol", None, [36, 36, 36, 36])])
    loser = _rated([honest[0], ("carol", None, [35, 35, 35, 35])])
    assert quitter["carol"]["mu"] <= loser["carol"]["mu"] + 1e-9


# ---- an honest entrant's JVM at the defaults -----------------------------------------------------------
@pytest.mark.skipif(
    shutil.which("java") is None, reason="no java on this machine (make test does not install it)"
)
def test_a_jvm_at_its_defaults_sizes_its_heap_from_the_sandboxs_memory_limit():
    """Stock ``java`` (the source launcher, no -Xmx) with a 256 MB limit: it plays every game, and the
    heap it chose is a fraction of the limit (it read the control group), not of the host's RAM."""
    bot = f"exec:java {ROOT / 'tests' / 'lab' / 'arena_bots' / 'Scan.java'}"
    limits = dataclasses.replace(LIMITS, memory_mb=256, start=60.0)
    result = play([bot], games=2, limits=limits)
    row = row_of(result, bot)
    assert sum(row.forfeits.values()) == 0, row.forfeit_examples
    assert row.shots == honest_shots(result)
    heap = int(row.name.rsplit(":", 1)[1])
    assert 0 < heap < 256, row.name


def test_a_bot_that_fails_to_start_shows_the_end_of_its_stderr():
    bot = f"exec:{sys.executable} -c \"import sys; sys.stderr.write('the fault: no such heap'); sys.exit(7)\""
    row = row_of(play([bot], games=1), bot)
    detail = row.forfeit_examples[0]["detail"]
    assert row.forfeits["start"] == 1 and "exit code 7" in detail and "the fault: no such heap" in detail, (
        detail
    )


def test_a_bot_that_answers_nonsense_at_start_shows_the_end_of_its_stderr():
    """A runtime that crashes at start may print on stdout (the JVM's '#' report) and explain on
    stderr: the organiser sees both."""
    script = "import sys; sys.stderr.write('Error occurred during initialization\\n'); print('#'); sys.stdout.flush()"
    bot = f'exec:{sys.executable} -c "{script}; import time; time.sleep(30)"'
    row = row_of(play([bot], games=1), bot)
    detail = row.forfeit_examples[0]["detail"]
    assert "answered '#'" in detail and "Error occurred during initialization" in detail, detail


def test_entry_rows_are_replayed_from_their_folder_and_a_roster_makes_one_rating(tmp_path, monkeypatch):
    """Two copies of a bot, each claiming an author: the organiser's roster makes them one entrant, rated
    once under the roster's name (the claim is shown, not merged on); ``--verify --entries`` replays both."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "entries"
    for name in ("copy-a", "copy-b"):
        (folder / name).mkdir(parents=True)
        shutil.copy(ATTACK, folder / name / "main.py")
        (folder / name / "bot.toml").write_text('command = "python3 main.py honest"\nauthor = "mallory"\n')
    roster = tmp_path / "roster.toml"
    roster.write_text('[entries]\n"copy-a" = "Mallory M."\n"copy-b" = "Mallory M."\n')
    from typer.testing import CliRunner

    from battleship.cli import app

    out, table = tmp_path / "run.json", tmp_path / "ratings.json"
    args = [
        "arena",
        "random",
        "--entries",
        str(folder),
        "--rules",
        "square-6",
        "--games",
        "3",
        "--start-limit",
        "20",
    ]
    made = CliRunner().invoke(
        app, [*args, "--out", str(out), "--ratings", str(table), "--roster", str(roster), SHARED]
    )
    assert made.exit_code == 0, made.output
    assert set(json.loads(table.read_text())["bots"]) == {"Mallory M.", "random"}
    board = json.loads(out.read_text())
    rows = {r["bot"]: r for r in board["leaderboard"]}
    assert rows["copy-a"]["entrant"] == "Mallory M." and rows["copy-a"]["author"] == "mallory"
    assert "claims mallory" in made.stdout
    board.pop("ratings")  # ratings carry earlier runs: unchecked; the rows are what is replayed here
    plain = tmp_path / "rows.json"
    plain.write_text(json.dumps(board))
    code, said = _verify(plain, "--entries", str(folder), SHARED)
    assert code == 0 and "ok   replay copy-a" in said and "ok   replay copy-b" in said, said


# ---- a borrowed identity ------------------------------------------------------------------------------------
def _entries_run(folder: Path, games: dict[str, list[int | None]]):
    """The results of the entries in ``folder`` having played ``games`` (shots per game; None: a forfeit),
    as the referee would tally them (no process runs)."""
    from types import SimpleNamespace

    from battleship.lab.arena import results
    from battleship.lab.arena.bots import GameResult
    from battleship.lab.arena.protocol import BotFault

    bots = arena.load_entries(folder)
    tallies = []
    for bot in bots:
        tally = results.Tally()
        for shots in games[bot.label]:
            tally.add(GameResult(0, BotFault("start", "exited")) if shots is None else GameResult(shots))
        tallies.append(tally)
    board = results.leaderboard(bots, tallies, 17, 36)
    return bots, SimpleNamespace(leaderboard=board, forfeit_score=36, commitment=secrets.token_hex(8))


def test_a_borrowed_author_merges_nothing_and_its_forfeits_move_no_one(tmp_path):
    """An entry whose bot.toml names another entrant as its author, and whose bot exits at once: it is
    rated under its own name, last, and every other rating is exactly what it is without it."""
    from battleship.lab.arena import ratings

    folder = tmp_path / "entries"
    folder.mkdir()
    for name in ("alice.py", "bob.py"):
        shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", folder / name)
    honest = {"alice.py": [20, 22, 25, 21], "bob.py": [24, 23, 22, 26]}
    _, alone = _entries_run(folder, honest)
    (folder / "mallory").mkdir()
    (folder / "mallory" / "main.py").write_text("raise SystemExit(1)\n")
    (folder / "mallory" / "bot.toml").write_text('main = "main.py"\nauthor = "alice.py"\n')
    bots, crowded = _entries_run(folder, {**honest, "mallory": [None] * 4})
    mallory = next(b for b in bots if b.label == "mallory")
    assert mallory.claimed_author == "alice.py" and mallory.entrant is None
    row = next(r for r in crowded.leaderboard if r.bot == "mallory")
    assert row.author == "alice.py" and row.entrant is None  # shown as a claim, merged on nowhere
    before, after = ratings._empty(), ratings._empty()
    ratings.apply(before, alone)
    ratings.apply(after, crowded)
    assert set(after["bots"]) == {"alice.py", "bob.py", "mallory"}
    for name in ("alice.py", "bob.py"):
        assert after["bots"][name]["mu"] == pytest.approx(before["bots"][name]["mu"])
        assert after["bots"][name]["sigma"] == pytest.approx(before["bots"][name]["sigma"])
    ordinal = {n: r["mu"] - 3 * r["sigma"] for n, r in after["bots"].items()}
    assert min(ordinal, key=ordinal.get) == "mallory"


def test_a_roster_merges_an_entrants_entries_and_a_forfeit_of_one_is_the_entrants(tmp_path):
    """The organiser's roster makes two entries one player; a battlefield one of them forfeited is the
    entrant's forfeit, so the other players' ratings move exactly as without the entrant's forfeits there.
    A roster naming an entrant as another bot is named is refused; so is a malformed one."""
    from battleship.errors import BattleshipError
    from battleship.lab.arena import ratings, roster

    folder = tmp_path / "entries"
    folder.mkdir()
    for name in ("alice.py", "alice-2.py", "bob.py"):
        shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", folder / name)
    table = tmp_path / "roster.toml"
    table.write_text('[entries]\n"alice.py" = "Alice"\n"alice-2.py" = "Alice"\n')
    bots, run = _entries_run(
        folder, {"alice.py": [20, 22, 25], "alice-2.py": [None, 24, 23], "bob.py": [24, 23, 22]}
    )
    roster.apply(roster.read(table), bots)
    assert [roster.identity(b) for b in bots] == ["Alice", "Alice", "bob.py"]
    run.leaderboard = [dataclasses.replace(r, entrant=next(b.entrant for b in bots if b.label == r.bot))
                       for r in run.leaderboard]  # fmt: skip
    assert ratings.players(run) == {"Alice": [36.0, 23.0, 24.0], "bob.py": [24.0, 23.0, 22.0]}
    table.write_text('[entries]\n"alice.py" = "bob.py"\n')
    roster.apply(roster.read(table), bots)
    with pytest.raises(BattleshipError, match="also the name of another bot"):
        roster.check(bots)
    for text, says in [("", "no \\[entries\\] table"), ("alice = 'x'\n", "unknown key 'alice'"),
                       ('[entries]\n"a" = 3\n', "non-empty string"), ("[entries\n", "not a TOML file")]:  # fmt: skip
        table.write_text(text)
        with pytest.raises(BattleshipError, match=says):
            roster.read(table)


# ---- an entry that is a link, or reaches outside itself ------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: os.symlink(".", d / "zz_spy"), "entry zz_spy is a symbolic link (to .)"),
        (lambda d: os.symlink(d / "alice.py", d / "zz_copy.py"), "entry zz_copy.py is a symbolic link"),
        (lambda d: ((d / "eve").mkdir(), os.symlink("../alice.py", d / "eve" / "main.py")),
         "entry eve holds main.py, a symbolic link leading out of the entry (to ../alice.py)"),
        (lambda d: ((d / "eve").mkdir(), (d / "eve" / "main.py").touch(), os.symlink("/etc", d / "eve" / "etc")),
         "entry eve holds etc, a symbolic link leading out of the entry (to /etc)"),
        (lambda d: ((d / "eve").mkdir(), os.link(d / "alice.py", d / "eve" / "main.py")),
         "entry alice.py is a hard link (2 names): its other names lie outside the entry"),
        (lambda d: ((d / "eve").mkdir(), (d / "eve" / "main.py").touch(), os.mkfifo(d / "eve" / "pipe")),
         "entry eve holds pipe, which is a named pipe"),
    ],
    ids=["entry-is-a-link", "file-entry-is-a-link", "link-out", "link-to-etc", "hard-link", "fifo"],
)  # fmt: skip
def test_an_entry_that_reaches_outside_itself_is_refused_before_anything_runs(tmp_path, make, says):
    from typer.testing import CliRunner

    from battleship.cli import app

    folder = tmp_path / "entries"
    folder.mkdir()
    shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", folder / "alice.py")
    make(folder)
    done = CliRunner().invoke(app, ["arena", "--entries", str(folder), "--rules", "square-6", "--games", "1"])
    assert done.exit_code == 2 and says in done.output and "commitment" not in done.output, done.output
    assert len(done.output.strip().splitlines()) == 1, done.output


def test_an_entry_runs_from_its_own_snapshot_of_its_files(tmp_path):
    """Links that stay inside an entry are kept; what is changed in the entries folder after the entries
    are read reaches no bot: each plays from the copy taken before anything ran."""
    folder = tmp_path / "entries"
    (folder / "eve" / "lib").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", folder / "alice.py")
    shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", folder / "eve" / "lib" / "play.py")
    os.symlink("lib/play.py", folder / "eve" / "main.py")
    os.symlink("..", folder / "eve" / "lib" / "up")  # a link to a folder of the entry itself
    bots = arena.load_entries(folder)
    (folder / "alice.py").write_text("raise SystemExit(9)\n")  # changed after reading: never run
    shutil.rmtree(folder / "eve")
    result = arena.run(SMALL, bots, 2, arena.Key.new(), limits=LIMITS, jail=SANDBOX)
    for row in result.leaderboard:
        assert sum(row.forfeits.values()) == 0 and row.name == "hunt-target (python)", row.forfeit_examples


# ---- a slow bot against the budgets ----------------------------------------------------------------------------
def test_a_slow_bot_forfeits_over_its_game_budget_and_then_the_rest(tmp_path):
    """A bot taking 0.05 s before every answer (well within the shot limit) against a 0.3 s game budget:
    each game it plays is a ``budget`` forfeit, and after three of them the rest are forfeits unplayed,
    saying why. The run's progress names the bot using the time. (Honest bots at the default budgets:
    test_honest_runtimes_play_at_the_defaults_and_see_one_cpu.)"""
    slow = attacker("dawdle", "0", "0.05")
    limits = dataclasses.replace(LIMITS, game=0.3)
    said: list[str] = []
    parsed = [arena.parse_bot(slow, SMALL)]
    result = arena.run(SMALL, parsed, 4, arena.Key.new(), limits=limits, jail=SANDBOX, on_status=said.append)
    row = row_of(result, slow)
    assert row.forfeits["budget"] == 4 and row.shots == [SMALL.cells] * 4, row.forfeit_examples
    details = [e["detail"] for e in row.forfeit_examples]
    assert all(d.startswith("still playing after ") and d.endswith("when its 0.3 s for a game ran out")
               for d in details[:3]), details  # fmt: skip
    assert details[3:] == ["not played: 3 of its games went over their 0.3 s (the limit is 3 such games)"]
    assert said[0] == f"{slow}: 0.0 s of its {limits.clock(SMALL.cells, 4).total:,.0f} s"  # its turn begins
    assert len(said) == 1 + 4 and all(line.startswith(f"{slow}: ") for line in said)  # and each game's end


def test_a_bot_budget_spent_forfeits_the_rest_of_the_run():
    slow = attacker("dawdle", "0", "0.02")
    limits = dataclasses.replace(LIMITS, bot=0.5)
    row = row_of(play([slow], games=4, limits=limits), slow)
    assert row.forfeits["budget"] >= 2 and row.shots[-1] == SMALL.cells, row.forfeit_examples
    details = [e["detail"] for e in row.forfeit_examples]
    assert any("what was left of its 0.5 s for the run" in d for d in details), details
    assert details[-1].startswith("not played: it used its 0.5 s for the run"), details


# ---- the CPUs a bot sees, and honest runtimes at the defaults ---------------------------------------------------
def test_honest_runtimes_play_at_the_defaults_and_see_one_cpu():
    """At the defaults (caches dropped before each bot, one CPU each): a Python bot with a pool sized by
    os.cpu_count() and 16 threads writing 20 MB of scratch, Node.js, Perl and Java (also told it has 64
    CPUs) play every game, and each sees the one CPU it may use."""
    bots = {attacker("cpus", "16", "20"): "attack:found:cpus:1:1:1",
            f"exec:perl {ROOT / 'tests' / 'lab' / 'arena_bots' / 'scan.pl'}": "perl"}  # fmt: skip
    if shutil.which("node"):
        bots[f"exec:node {ROOT / 'tests' / 'lab' / 'arena_bots' / 'scan.js'}"] = "node:cpus:1:1"
    if shutil.which("java"):
        scan = ROOT / "tests" / "lab" / "arena_bots" / "Scan.java"
        bots[f"exec:java {scan}"] = "java:cpus:1:"
        bots[f"exec:java -XX:ActiveProcessorCount=64 {scan}"] = "java:cpus:64:"
    result = play(list(bots), games=2, jail=DEFAULTS, limits=dataclasses.replace(LIMITS, start=60.0))
    for bot, seen in bots.items():
        row = row_of(result, bot)
        assert sum(row.forfeits.values()) == 0 and row.shots == honest_shots(result), (
            bot,
            row.forfeit_examples,
        )
        assert row.name.startswith(seen), (bot, row.name)
