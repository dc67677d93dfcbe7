"""The optional parts of battleship, and the pip extra that installs each.

``pip install battleship`` brings the game, the inference, the shooters, the lab and the command line
(NumPy, Numba, Typer, Rich). The rest is installed on demand:

- ``web``: the web app (``battleship serve``): FastAPI, uvicorn, SQLAlchemy, limits, Alembic;
- ``postgres``: the web app on PostgreSQL (several processes on one store): psycopg;
- ``cluster``: ``--cluster``, games on a Dask cluster: Dask, distributed;
- ``rl``: the environments for learning agents (:mod:`battleship.envs`): Gymnasium, PettingZoo;
- ``arena``: the arena's ratings (``battleship arena --ratings``): openskill;
- ``plot``: charts and pictures (``--png``, ``--gif``, ``--frames``, ``--figures``): Matplotlib, Pillow;
- ``all``: every one of them.

Each part calls :func:`require` before it imports its packages, so a missing one is refused in one
line giving the exact install command, never an ``ImportError`` traceback.
"""

from __future__ import annotations

import importlib.util

from battleship.errors import BattleshipError

# extra -> (what needs it, the subject of "... needs the extra", and the modules it provides, in the order
# they are looked for)
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "web": ("the web app", ("fastapi", "uvicorn", "sqlalchemy", "limits", "alembic")),
    "postgres": ("the web app on PostgreSQL", ("psycopg",)),
    "cluster": ("--cluster", ("dask", "distributed")),
    "rl": ("battleship.envs (the learning environments)", ("gymnasium", "pettingzoo")),
    "arena": ("rating bots (arena --ratings)", ("openskill",)),
    "plot": ("drawing charts and pictures", ("matplotlib", "PIL")),
}


class MissingExtra(BattleshipError, ImportError):
    """A part of battleship used without the extra that installs its packages.

    A :class:`BattleshipError` (the command line prints it in one line) and an ``ImportError`` (code that
    guards an optional import with ``except ImportError`` keeps working).
    """

    def __init__(self, extra: str, what: str, module: str):
        super().__init__(f"{what} needs the {extra} extra: {install_line(extra)}")
        self.extra, self.name = extra, module


def install_line(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'battleship[web]'``."""
    return f"pip install 'battleship[{extra}]'"


def missing(extra: str) -> str | None:
    """The first module of ``extra`` that is not installed (None when all are).

    Found without importing them: checking costs nothing, the part imports what it uses.
    """
    for module in EXTRAS[extra][1]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, or without a spec
            found = False
        if not found:
            return module
    return None


def providing(module: str | None) -> str | None:
    """The extra that installs ``module`` (a dotted name: its top package counts), or None."""
    top = (module or "").partition(".")[0]
    return next((extra for extra, (_, modules) in EXTRAS.items() if top in modules), None)


def require(extra: str, what: str | None = None) -> None:
    """Refuse, in one line with the install command, when the packages of ``extra`` are not installed.

    ``what`` names the part that needs them in the message (the extra's own description by default).
    """
    if extra not in EXTRAS:
        raise ValueError(f"no extra named {extra!r}: one of {', '.join(EXTRAS)}")
    module = missing(extra)
    if module is not None:
        raise MissingExtra(extra, what or EXTRAS[extra][0], module)
