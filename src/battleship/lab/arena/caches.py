"""What one bot leaves in the kernel's caches is gone before the next bot runs.

Every sandbox sees the same read-only system files (``/usr``, the Python installation, the
``battleship`` package), and the kernel keeps what any process read of them in memory: file pages
in the page cache, names and inodes in the dentry and inode caches. A bot can mark pages by reading
them and a later bot can tell which were read, by asking without waiting (``preadv2`` with
``RWF_NOWAIT`` fails on a page not in memory) or by timing a plain read (a few microseconds from
memory, tens from the disk): a channel from an earlier bot to a later one on the same battlefields,
which no system call filter closes (an ordinary ``read`` is enough).

The arena closes it by dropping the kernel's clean caches (``echo 3 > /proc/sys/vm/drop_caches``,
which needs root) before each sandboxed bot's turn: every page, name and inode the earlier bot
brought in is then gone, and the later bot finds every page it did not read itself on the disk,
whatever the earlier one did. What stays in memory is what some live process holds mapped (the
referee's own libraries, other programs'), which no bot can change. Private copies of what bots
read, the other way round, are no choice: a sandbox shows some 190,000 files (15 GiB) here. Nor is
evicting those files one by one (``POSIX_FADV_DONTNEED``): it takes several times longer than a
drop and leaves the names cached (docs/arena.md gives the figures).

Dropping caches is machine-wide: other programs on the machine read their files from the disk again
afterwards. Where the arena cannot drop them (not root, or a container whose ``/proc/sys`` is
read-only), :func:`why_not` says so and the arena refuses program and class bots unless the
organiser passes ``--shared-caches-i-trust``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from battleship.errors import BattleshipError

DROP_CACHES = Path("/proc/sys/vm/drop_caches")
EVERYTHING = "3"  # the page cache, and the dentry and inode caches
SHARED_OPTION = "--shared-caches-i-trust"


class CachesUnavailable(BattleshipError):
    """The kernel's caches cannot be dropped here (the text says why)."""


def why_not() -> str | None:
    """Why this process cannot drop the kernel's caches (None: it can)."""
    if os.geteuid() != 0:
        return "only root can drop the kernel's caches (/proc/sys/vm/drop_caches)"
    if not os.access(DROP_CACHES, os.W_OK):
        return f"{DROP_CACHES} is not writable here (a container's read-only /proc/sys?)"
    return None


def drop() -> float:
    """Drop the page, dentry and inode caches of the whole machine; the seconds it took. A
    :class:`CachesUnavailable` if the kernel refuses."""
    begin = time.perf_counter()
    try:
        with open(DROP_CACHES, "w") as f:
            f.write(EVERYTHING)
    except OSError as exc:
        raise CachesUnavailable(f"cannot drop the kernel's caches: {exc.strerror or exc}") from None
    return time.perf_counter() - begin
