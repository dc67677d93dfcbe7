"""Writing a user's file so that it is whole or untouched, and never written through a planted link.

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


def write_atomically(path: str | Path, text: str) -> None:
    """Replace ``path`` with ``text`` all at once, following no link (see the module docstring)."""
    path = Path(path)
    if _is_special(path):
        try:
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(text)
        except OSError as exc:
            raise BattleshipError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
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
