"""Both ends of a channel through the kernel's caches, run in the arena's sandbox by benchmarks/arena.py.

Run: python cache_channel.py send KIND FILE BITS      (BITS a string of 0 and 1)
     python cache_channel.py receive KIND FILE COUNT  (prints the COUNT bits it read)

Standard library only (it runs in the sandbox with nothing else). FILE is a file every sandbox sees;
bit i is carried by:

- ``nowait`` and ``timed``: page ``i * BLOCK`` of FILE (a block of pages each, so that a read reading
  ahead never reaches another bit's page). The sender reads the pages of its 1 bits; the receiver asks
  of each page, from the last down, whether it is in memory: with ``preadv2(RWF_NOWAIT)`` (which fails
  on a page not in memory; an answer slower than FAST_NS is a read the kernel made all the same, so
  a 0), or by timing a plain read against a page it has just read (a few microseconds from memory,
  tens from the disk);
- ``dentry``: the name ``FILE.bit-i`` (which does not exist) in FILE's folder. The sender looks up
  the names of its 1 bits (the kernel remembers a name that is not there, a negative dentry); the
  receiver times a lookup of each name against the halfway mark between lookups of names never
  looked up and of the same names again.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

PAGE = 4096
BLOCK = 32  # pages a bit owns
FAST_NS = 30_000


def _name(path: str, i: int) -> str:
    return f"{path}.bit-{i}"


def send(kind: str, path: str, bits: str) -> None:
    ones = [i for i, b in enumerate(bits) if b == "1"]
    if kind == "dentry":
        for i in ones:
            os.path.exists(_name(path, i))
        return
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # exactly the page asked for
    for i in ones:
        os.pread(fd, 1, i * BLOCK * PAGE)
    os.close(fd)


def _nowait(path: str, page: int) -> bool:
    fd = os.open(path, os.O_RDONLY)  # afresh: no read-ahead state from the last question
    begin = time.perf_counter_ns()
    try:
        os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
        return time.perf_counter_ns() - begin < FAST_NS
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def _timed(what) -> int:
    begin = time.perf_counter_ns()
    what()
    return time.perf_counter_ns() - begin


def receive(kind: str, path: str, count: int) -> str:
    order = list(reversed(range(count)))
    got = [False] * count
    if kind == "nowait":
        for i in order:
            got[i] = _nowait(path, i * BLOCK)
    elif kind == "timed":
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        last = os.fstat(fd).st_size // PAGE - 1  # a page no bit uses: read, then timed from memory
        os.pread(fd, 1, last * PAGE)
        fast = min(_timed(lambda: os.pread(fd, 1, last * PAGE)) for _ in range(5))
        for i in order:
            got[i] = _timed(lambda i=i: os.pread(fd, 1, i * BLOCK * PAGE)) < max(10_000, 4 * fast)
        os.close(fd)
    else:  # names no bit uses, timed the first time (not remembered) and again (remembered)
        fresh = [_name(path, count + k) for k in range(9)]
        slow = statistics.median(_timed(lambda n=n: os.path.exists(n)) for n in fresh)
        fast = statistics.median(_timed(lambda n=n: os.path.exists(n)) for n in fresh)
        for i in order:
            got[i] = _timed(lambda i=i: os.path.exists(_name(path, i))) < (slow + fast) / 2
    return "".join("1" if g else "0" for g in got)


if __name__ == "__main__":
    action, kind, path, arg = sys.argv[1:5]
    if action == "send":
        send(kind, path, arg)
    else:
        print(receive(kind, path, int(arg)))
