"""Entries that see only themselves: each entry runs from a private, read-only copy of its own files.

An entries folder is where entrants' files land, often unpacked from what they sent. An entry that is
a symbolic link (``zz_spy -> .``), or holds one leading out of it, would show its bot whatever the
link reaches (every other submission, the organiser's home); a hard link is another name of a file
that may lie elsewhere; a named pipe or a device is no file at all, and a mount point inside an entry
is another file system. So before anything runs each entry is walked once, without following links,
and copied into a private folder of the arena's (a *snapshot*): links inside the entry that stay
inside it are copied as links, and anything else of the above refuses the entry in one line naming
it. The sandbox then shows the bot its snapshot, read-only, where the entry was: what an entrant
changes in the entries folder during the run, or links there afterwards, reaches no bot, and no two
bots share a file of their own (so nor its pages in the kernel's cache).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from battleship.errors import BattleshipError
from battleship.lab.arena.names import escape

COPY_CHUNK = 1 << 20


class Snapshot:
    """A private folder holding copies of entries (removed when the last bot holding it is gone)."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="battleship-entries-")
        self.root = Path(self._folder.name)
        os.chmod(self.root, 0o711)  # the bots' copies are bound by path; nobody lists the folder
        self._count = 0

    def take(self, entry: Path, label: str) -> Path:
        """A checked copy of ``entry`` (a file or a folder) in the snapshot; a :class:`BattleshipError`
        naming ``label`` if the entry is a link, or holds a link leading out, a hard link to a file
        outside, a special file or another file system."""
        self._count += 1
        into = self.root / str(self._count)
        into.mkdir(mode=0o755)
        copy = into / entry.name  # the same name: an extension says how to run a file
        info = os.lstat(entry)
        if stat.S_ISLNK(info.st_mode):
            raise _refused(label, f"is a symbolic link (to {escape(os.readlink(entry))}); an entry must be "
                           "a file or a folder of its own")  # fmt: skip
        if stat.S_ISDIR(info.st_mode):
            _Walk(entry, label, info.st_dev).copy(copy)
        else:
            _check_file(entry, info, label, entry.name, outside_links=info.st_nlink - 1)
            _copy_file(entry, copy)
        return copy

    def cleanup(self) -> None:
        self._folder.cleanup()


class _Walk:
    """One folder entry, walked without following links and copied as it is checked."""

    def __init__(self, root: Path, label: str, device: int):
        self.root, self.label, self.device = root, label, device
        self.links: dict[
            tuple[int, int], list
        ] = {}  # files with several names: (inode) -> [names here, nlink]

    def copy(self, into: Path) -> None:
        self._folder(self.root, into)
        for where, nlink in self.links.values():
            if len(where) < nlink:
                raise _refused(self.label, f"holds {escape(where[0])}, a hard link to a file outside the entry "
                               f"({nlink} names, {len(where)} of them in it)")  # fmt: skip

    def _folder(self, folder: Path, into: Path) -> None:
        into.mkdir(mode=0o755)
        with os.scandir(folder) as found:
            items = sorted(found, key=lambda e: e.name)
        for item in items:
            path, inside = Path(item.path), Path(item.path).relative_to(self.root).as_posix()
            info = item.stat(follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                self._link(path, inside, into / item.name)
            elif stat.S_ISDIR(info.st_mode):
                if info.st_dev != self.device:
                    raise _refused(self.label, f"holds another file system at {escape(inside)}")
                self._folder(path, into / item.name)
            else:
                _check_file(path, info, self.label, inside)
                if info.st_nlink > 1:
                    self.links.setdefault((info.st_dev, info.st_ino), [[], info.st_nlink])[0].append(inside)
                _copy_file(path, into / item.name)

    def _link(self, path: Path, inside: str, copy: Path) -> None:
        """Copy a symbolic link that stays in the entry, read both as written and as resolved."""
        target = os.readlink(path)
        written = os.path.normpath(os.path.join(path.parent, target))
        resolved = os.path.realpath(path)
        root = os.path.realpath(self.root)
        if not (_within(written, str(self.root)) and _within(resolved, root)):
            raise _refused(self.label, f"holds {escape(inside)}, a symbolic link leading out of the entry "
                           f"(to {escape(target)})")  # fmt: skip
        os.symlink(target, copy)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _check_file(path: Path, info: os.stat_result, label: str, inside: str, outside_links: int = 0) -> None:
    """Refuse anything but a regular file (a named pipe, a socket, a device), and a file entry with
    other names (they lie outside it)."""
    if not stat.S_ISREG(info.st_mode):
        kind = ("a named pipe" if stat.S_ISFIFO(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode)
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a file")  # fmt: skip
        raise _refused(
            label, f"holds {escape(inside)}, which is {kind}: an entry holds files and folders only"
        )
    if outside_links:
        raise _refused(
            label, f"is a hard link ({info.st_nlink} names): its other names lie outside the entry"
        )


def _copy_file(path: Path, copy: Path) -> None:
    """Copy one regular file (opened without following a link, and checked again once open)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BattleshipError(f"{escape(path)} changed while it was copied")
        mode = 0o755 if info.st_mode & 0o111 else 0o644
        with os.fdopen(os.dup(fd), "rb") as source, open(copy, "xb") as target:
            shutil.copyfileobj(source, target, COPY_CHUNK)
        os.chmod(copy, mode)
    finally:
        os.close(fd)


def _refused(label: str, why: str) -> BattleshipError:
    return BattleshipError(f"entry {escape(label)} {why}; it is refused (nothing has run)")
