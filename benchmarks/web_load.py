"""The web game under load: simulated players play whole games through the HTTP API, many at once.

Run: .venv/bin/python benchmarks/web_load.py [--players 1,20,50] [--seconds 20] [--kind computer|friend]
        [--db sqlite|postgres] [--processes N | --workers N] [--url URL ...] [--mode best] [--no-reply]
        [--client lean|httpx]

Each simulated player is an asyncio task with a client of its own (its own connection, its own
cookies and so its own session, and its own address: 127.0.0.2, 127.0.0.3, ...), playing whole
games one after another for ``--seconds`` at each level of concurrency:

- ``computer``: a new game at ``--mode`` (Expert by default, the API's default level), then the
  player's shots at random squares not yet fired at, each with the computer's reply in the same
  request (``"reply": true``; ``--no-reply`` asks for it with a second request,
  ``POST /api/games/{id}/computer``, as a client of the older API does), to the end of the game;
- ``friend``: players in pairs, each pair a game between friends: one creates it, both place random
  fleets, and each player listens to its seat's live stream (``GET /api/seats/{seat}/events``) and
  fires when the stream says it is its turn. Where the servers are several, the two seats of a
  game are on different processes, so every move crosses from one process to the other; the time
  from a move's request being sent to the other seat's stream showing it is the *delivery* latency.

It prints, per level: whole games finished per second, requests per second, the latency of every
request (p50 / p95 / p99 / max, ms), requests answered 503 or 429 (retried after ``Retry-After``),
other failures, and the CPU the server's processes used (their share of one core, from /proc:
the web processes apart from the heavy-work processes under them).

The servers: ``--url`` (repeatable) plays against servers already running; otherwise the script
starts them, on a temporary SQLite file (``--db sqlite``) or a throw-away PostgreSQL server
(``--db postgres``, Debian's, as the tests start it), ``--rate-limit ""`` unless ``--rate-limit`` is
given, ``--processes N`` separate ``battleship serve`` processes on one database (players spread
over them) or one ``battleship serve --workers N``.

Keep runs short on a shared machine: the client's own CPU is on the same cores as the servers'. The
computer games' players use a lean HTTP client of the script's own (``--client httpx`` for httpx, which
took six to eight times the CPU a request); the friend games' use httpx (their live streams).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.web.postgres import postgres_server
from tests.web.server import free_port, start

TIMEOUT = 30.0  # seconds a request may take before the client counts it failed


@dataclass
class Tally:
    """What one level of concurrency measured."""

    latencies: list[float] = field(default_factory=list)  # seconds, every request
    delivery: list[float] = field(default_factory=list)  # seconds, friend moves to the other seat
    games: int = 0
    moves: int = 0  # shots fired, both sides, in every game (finished or not)
    game_moves: list[int] = field(default_factory=list)  # the moves of each finished game
    refused: dict[int, int] = field(default_factory=dict)  # 503 and 429 answers, by status
    failures: list[str] = field(default_factory=list)


class Refused(Exception):
    """An answer that is neither a success nor a retry."""


async def call(
    client: httpx.AsyncClient | LeanClient, tally: Tally, method: str, path: str, body: dict | None = None
):
    """A request, timed; 503 and 429 are retried after their Retry-After (each counted and timed)."""
    for _ in range(50):
        begin = time.perf_counter()
        answer = await client.request(method, path, json=body)
        tally.latencies.append(time.perf_counter() - begin)
        if answer.status_code in (429, 503):
            tally.refused[answer.status_code] = tally.refused.get(answer.status_code, 0) + 1
            await asyncio.sleep(float(answer.headers.get("Retry-After", "1")))
            continue
        if answer.status_code >= 400:
            raise Refused(
                f"{method} {path.split('/api/')[-1][:20]}: {answer.status_code} {answer.text[:120]}"
            )
        return answer.json()
    raise Refused(f"{method} {path}: refused 50 times")


def address_of(player: int) -> str:
    """A player's own address (127.0.x.y): the server counts each as a client of its own."""
    return f"127.0.{1 + player // 250}.{2 + player % 250}"


def client_for(base: str, player: int) -> httpx.AsyncClient:
    """A player's own client: its own connection pool, cookies and address."""
    transport = httpx.AsyncHTTPTransport(local_address=address_of(player))
    return httpx.AsyncClient(base_url=base, transport=transport, timeout=TIMEOUT)


@dataclass
class Answer:
    """What :class:`LeanClient` read: as much of an httpx response as :func:`call` uses."""

    status_code: int
    headers: dict[str, str]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")

    def json(self):
        return json.loads(self.content)


class LeanClient:
    """A player's HTTP/1.1 client, one keep-alive connection and its session cookie, and nothing else.

    httpx took 40-50% of a core to play 20 players' requests, on the two cores the server under test
    has: a measurement of the server then measured the client too. This one reads and writes the
    few headers the API needs and takes a fraction of that (``--client httpx`` compares)."""

    def __init__(self, base: str, player: int):
        host, port = base.removeprefix("http://").split(":")
        self.host, self.port, self.address = host, int(port), address_of(player)
        self.cookie: str | None = None
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def __aenter__(self) -> LeanClient:
        return self

    async def __aexit__(self, *_exc) -> None:
        if self.streams is not None:
            self.streams[1].close()

    async def request(self, method: str, path: str, json: dict | None = None) -> Answer:
        body = b"" if json is None else _json_bytes(json)
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(body)}\r\n"
        if json is not None:
            head += "Content-Type: application/json\r\n"
        if self.cookie:
            head += f"Cookie: {self.cookie}\r\n"
        for attempt in (0, 1):  # a keep-alive connection the server closed meanwhile: once more, afresh
            if self.streams is None:
                self.streams = await asyncio.open_connection(
                    self.host, self.port, local_addr=(self.address, 0)
                )
            reader, writer = self.streams
            try:
                writer.write(head.encode() + b"\r\n" + body)
                return await asyncio.wait_for(self._read(reader), TIMEOUT)
            except (ConnectionError, asyncio.IncompleteReadError):
                writer.close()
                self.streams = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _read(self, reader: asyncio.StreamReader) -> Answer:
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
                if name.lower() == "set-cookie":
                    self.cookie = value.strip().split(";", 1)[0]
        if headers.get("transfer-encoding") == "chunked":
            content = b""
            while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
                content += (await reader.readexactly(size + 2))[:-2]
            await reader.readuntil(b"\r\n")
        else:
            content = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection") == "close" and self.streams is not None:
            self.streams[1].close()
            self.streams = None
        return Answer(status, headers, content)


def _json_bytes(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


async def computer_games(
    base: str, player: int, tally: Tally, until: float, mode: str, reply: bool, lean: bool
) -> None:
    """Whole games against the computer, one after another, until ``until``."""
    rng = random.Random(player)
    async with LeanClient(base, player) if lean else client_for(base, player) as client:
        while time.perf_counter() < until:
            state = await call(client, tally, "POST", "/api/games", {"mode": mode, "rules": "standard"})
            game = f"/api/games/{state['id']}"
            cells = list(range(state["rules"]["rows"] * state["rules"]["cols"]))
            rng.shuffle(cells)
            while state["status"] != "over" and time.perf_counter() < until:
                if state["status"] == "computer-turn":  # a reply that did not come (or --no-reply)
                    state = (await call(client, tally, "POST", f"{game}/computer", {}))["state"]
                    tally.moves += 1
                    continue
                body = {"cell": cells.pop(), **({"reply": True} if reply else {})}
                moves = state["moves"]
                state = (await call(client, tally, "POST", f"{game}/fire", body))["state"]
                tally.moves += state["moves"] - moves
            if state["status"] == "over":
                tally.games += 1
                tally.game_moves.append(state["moves"])


async def seat_stream(client: httpx.AsyncClient, seat: str, views: asyncio.Queue) -> None:
    """Every view the seat's live stream sends, with the time it came, into ``views``."""
    async with client.stream("GET", f"/api/seats/{seat}/events", timeout=None) as stream:
        data = None
        async for line in stream.aiter_lines():
            if line.startswith("data: "):
                data = line[6:]
            elif not line and data is not None:
                await views.put((time.perf_counter(), json.loads(data)))
                data = None


async def friend_player(
    client: httpx.AsyncClient,
    seat: str,
    tally: Tally,
    until: float,
    sent: dict[int, float],
    rng: random.Random,
) -> bool:
    """One seat of a game between friends: fire whenever the stream says it is this seat's turn; True
    once the game is over. ``sent``: when each move (by count) was sent, shared by the two seats."""
    views: asyncio.Queue = asyncio.Queue()
    listening = asyncio.create_task(seat_stream(client, seat, views))
    try:
        fired: set[int] = set()
        after = -1  # the moves once this seat last fired: its next turn comes after the other's move
        while time.perf_counter() < until:
            try:
                arrived, view = await asyncio.wait_for(views.get(), max(0.1, until - time.perf_counter()))
            except TimeoutError:
                return False
            moves = view["moves"]
            if moves in sent and moves > 0 and view["status"] != "placing":
                tally.delivery.append(arrived - sent.pop(moves))
            if view["status"] == "over":
                return True
            if view["status"] != "your-turn" or moves <= after:  # an older view (say, who is connected)
                continue
            fired |= {s["cell"] for s in view["your_shots"]}
            free = [c for c in range(100) if c not in fired]
            cell = rng.choice(free)
            fired.add(cell)
            sent[moves + 1], after = time.perf_counter(), moves + 1
            answer = await call(client, tally, "POST", f"/api/seats/{seat}/fire", {"cell": cell})
            tally.moves += 1
            if answer["state"]["status"] == "over":
                tally.game_moves.append(answer["state"]["moves"])
        return False
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await listening


async def friend_games(bases: tuple[str, str], pair: int, tally: Tally, until: float) -> None:
    """Whole games between two players (seat 1 on ``bases[0]``, seat 2 on ``bases[1]``) until ``until``."""
    rng = random.Random(pair)
    async with client_for(bases[0], 2 * pair) as one, client_for(bases[1], 2 * pair + 1) as two:
        while time.perf_counter() < until:
            made = await call(one, tally, "POST", "/api/friends", {"rules": "standard"})
            seats = (made["seat"], made["invite"])
            sent: dict[int, float] = {}
            await call(one, tally, "POST", f"/api/seats/{seats[0]}/layout", {})
            await call(two, tally, "POST", f"/api/seats/{seats[1]}/layout", {})
            done = await asyncio.gather(
                friend_player(one, seats[0], tally, until, sent, rng),
                friend_player(two, seats[1], tally, until, sent, rng),
            )
            if all(done):
                tally.games += 1


def cpu_of(pids: list[int]) -> dict[int, float]:
    """CPU seconds so far of each process in ``pids``."""
    return {pid: cpu_seconds(pid) for pid in pids}


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between the two looks (a process gone meanwhile is not counted past the first)."""
    return sum(after[pid] - before.get(pid, 0.0) for pid in after)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def processes(roots: list[int]) -> tuple[list[int], list[int]]:
    """The web processes (``roots``, and for --workers their children that serve) and the heavy-work
    processes under them (forkservers and workers), by pid."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    web, heavy = [], []

    def walk(pid: int) -> None:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        # heavy work: the forkserver and the workers forked from it (a --workers server's own workers are
        # spawned: they serve the web)
        (heavy if b"forkserver" in command else web).append(pid)
        for child in children.get(pid, []):
            walk(child)

    for root in roots:
        with contextlib.suppress(OSError):
            walk(root)
    return web, heavy


def database_processes(url: str | None) -> list[int]:
    """The PostgreSQL server's processes (its postmaster's children), found from a backend of its own."""
    if not url or not url.startswith("postgresql"):
        return []
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as c:
        backend = c.execute(text("SELECT pg_backend_pid()")).scalar_one()
    engine.dispose()
    postmaster = int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    kids.append(int(entry.name))
    return [postmaster, *kids]


def level(args, bases: list[str], players: int, roots: list[int]) -> tuple[Tally, float]:
    """One level of concurrency: play for ``--seconds``, then print what was measured."""
    tally = Tally()
    web, heavy = processes(roots)
    web_and_heavy = [cpu_of(group) for group in (web, heavy)]
    database = database_processes(args.store)
    before = [*web_and_heavy, cpu_of(database)]
    began, client_cpu = time.perf_counter(), time.process_time()
    until = began + args.seconds

    async def everyone() -> None:
        if args.kind == "computer":
            tasks = [
                computer_games(
                    bases[p % len(bases)],
                    p,
                    tally,
                    until,
                    args.mode,
                    not args.no_reply,
                    args.client == "lean",
                )
                for p in range(players)
            ]
        else:
            pairs = max(1, players // 2)
            tasks = [
                friend_games((bases[p % len(bases)], bases[(p + 1) % len(bases)]), p, tally, until)
                for p in range(pairs)
            ]
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(outcome, BaseException):
                tally.failures.append(f"{type(outcome).__name__}: {outcome}")

    asyncio.run(everyone())
    elapsed = time.perf_counter() - began
    client_cpu = time.process_time() - client_cpu
    web, heavy = processes(roots)
    after = [cpu_of(group) for group in (web, heavy)] + [cpu_of(database_processes(args.store))]
    used = [cpu_used(b, a) for b, a in zip(before, after, strict=True)]
    ms = 1000 * np.array(tally.latencies or [0.0])
    line = (
        f"{args.kind:8s} players {players:4d}  moves/s {tally.moves / elapsed:6.1f} (games finished "
        f"{tally.games})  requests/s {len(tally.latencies) / elapsed:7.1f}  ms p50 {np.percentile(ms, 50):6.1f} "
        f"p95 {np.percentile(ms, 95):6.1f} p99 {np.percentile(ms, 99):6.1f} max {ms.max():7.1f}  "
        f"503 {tally.refused.get(503, 0)} 429 {tally.refused.get(429, 0)} failed {len(tally.failures)}  "
        f"cpu web {100 * used[0] / elapsed:4.0f}% heavy {100 * used[1] / elapsed:4.0f}% "
        f"database {100 * used[2] / elapsed:4.0f}% client {100 * client_cpu / elapsed:4.0f}%"
    )
    if tally.delivery:
        d = 1000 * np.array(tally.delivery)
        line += (
            f"  delivery ms p50 {np.percentile(d, 50):.1f} p99 {np.percentile(d, 99):.1f} "
            f"max {d.max():.1f} (n {len(d)})"
        )
    print(line, flush=True)
    for failure in tally.failures[:3]:
        print("   failed:", failure, flush=True)
    return tally, elapsed


@contextlib.contextmanager
def servers(args) -> Iterator[tuple[list[str], list[int]]]:
    """The servers to play against (their base URLs and, when started here, their pids)."""
    args.store = None
    if args.url:
        yield args.url, []
        return
    with contextlib.ExitStack() as stack:
        if args.db == "postgres":
            url = args.store = stack.enter_context(postgres_server())
        else:
            url = f"sqlite:///{stack.enter_context(tempfile.TemporaryDirectory())}/games.db"
        if args.workers > 1:  # several workers check the schema, they do not make it
            subprocess.run([sys.executable, "-m", "battleship.cli", "db", "upgrade", "--db", url], check=True)
        options = ["--rate-limit", args.rate_limit, "--access-log", ""]
        if args.workers > 1:
            options += ["--workers", str(args.workers)]
        started = []
        for _ in range(args.processes):
            port = free_port()
            process = start(url, port, *options)
            stack.callback(_stop, process)
            started.append((f"http://127.0.0.1:{port}", process.pid))
        yield [b for b, _ in started], [p for _, p in started]


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", default="1,20,50", help="levels of concurrency, comma-separated")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of play at each level")
    parser.add_argument("--kind", choices=("computer", "friend"), default="computer")
    parser.add_argument("--mode", default="best", help="the computer's level (computer games)")
    parser.add_argument("--no-reply", action="store_true", help="ask for the computer's move apart")
    parser.add_argument(
        "--client",
        choices=("lean", "httpx"),
        default="lean",
        help="computer games' HTTP client: a lean one of its own (default), or httpx (friend games use httpx)",
    )
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--processes", type=int, default=1, help="separate servers on one database")
    parser.add_argument("--workers", type=int, default=1, help="battleship serve --workers N")
    parser.add_argument("--rate-limit", default="", help="the servers' --rate-limit (default: none)")
    parser.add_argument("--url", action="append", help="a running server (repeat for more)")
    args = parser.parse_args()
    with servers(args) as (bases, roots):
        print(
            f"# {args.kind} games against {len(bases)} process(es) x {args.workers} worker(s) on "
            f"{args.db if not args.url else 'given servers'}, {args.seconds:g} s a level"
            + (
                f", level {args.mode}, reply {'apart' if args.no_reply else 'with the shot'}"
                if args.kind == "computer"
                else ""
            ),
            flush=True,
        )
        levels = [
            (players, *level(args, bases, players, roots)) for players in map(int, args.players.split(","))
        ]
    # games a second in the steady state: moves a second over the moves a whole game takes (the mean of
    # every game finished, at any level: how long a game is does not depend on how many play). Counting
    # the games finished in a short run would not say, where a player's first game takes most of it.
    finished = [m for _players, tally, _elapsed in levels for m in tally.game_moves]
    per_game = float(np.mean(finished)) if finished else float("nan")
    print(
        f"# games/s (moves/s over {per_game:.1f} moves a game, the mean of {len(finished)} finished games):"
    )
    for players, tally, elapsed in levels:
        ms = 1000 * np.array(tally.latencies or [0.0])
        print(
            f"#   {players:4d} players: {tally.moves / elapsed / per_game:6.2f} games/s, "
            f"p50 / p95 / p99 {np.percentile(ms, 50):.0f} / {np.percentile(ms, 95):.0f} / "
            f"{np.percentile(ms, 99):.0f} ms, 503s {tally.refused.get(503, 0)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
