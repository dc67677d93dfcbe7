"""A user's files: read whole or refused in one line, written whole or untouched, never through a planted link.

Every file a user names is read by :func:`read_text` (missing, a folder, unreadable or not UTF-8 text:
one line naming it), and every file or folder written gets its missing folders created first by
:func:`make_folder` (a file standing where a folder should be: one line naming it).

A result file is written to a new file of a random name beside it (created exclusively, so no link
planted there is followed) and renamed over the name, so a reader sees the old file or the new one,
never half of one. A name that is not a file (``/dev/null``, ``/dev/stdout``, a named pipe) has
nothing to replace: renaming over it would put a plain file where the device was, so it is written
to directly.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from battleship.errors import BattleshipError


def _is_special(path: Path) -> bool:
    """True when ``path`` names a device, a pipe or a socket (not a file, a link or nothing)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode))


def read_text(path: str | Path, what: str, error: type[BattleshipError] = BattleshipError) -> str:
    """The text of the file ``path`` (``what``: "rules file", "board file", ...), or ``error`` in one line
    naming it when it is missing, a folder, unreadable or not UTF-8 text."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error(f"{what} {path} is not UTF-8 text") from None


def make_folder(folder: str | Path, what: str) -> Path:
    """``folder``, created with its missing parents if need be, or a one-line error starting with ``what``
    (such as ``"--out runs/a.txt"``) saying which part of the path is in the way."""
    folder = Path(folder)
    if folder.is_dir():
        return folder
    in_way = next((p for p in (folder, *folder.parents) if p.exists() or p.is_symlink()), None)
    if in_way is not None and not in_way.is_dir():
        raise BattleshipError(f"{what}: {in_way} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BattleshipError(f"{what}: cannot create the folder {folder}: {exc.strerror or exc}") from None
    return folder


def output_file(path: str | Path, what: str) -> Path:
    """A file about to be written: its missing folders created, a folder of that name refused (in one line
    starting with ``what``)."""
    path = Path(path)
    if path.is_dir():
        raise BattleshipError(f"{what}: {path} is a folder, not a file")
    make_folder(path.parent, what)
    return path


def write_atomically(path: str | Path, text: str) -> None:
    """Replace ``path`` with ``text`` all at once, following no link (see the module docstring); its missing
    folders are created first."""
    path = Path(path)
    if _is_special(path):
        try:
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(text)
        except OSError as exc:
            raise BattleshipError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
    output_file(path, f"cannot write {path}")
    try:
        fd, part = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or Path("."))
    except OSError as exc:
        raise BattleshipError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(part, 0o666 & ~umask)  # as an ordinary new file would be (mkstemp makes it private)
        os.replace(part, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise BattleshipError(f"cannot write {path}: {exc.strerror or exc}") from None
