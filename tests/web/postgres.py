"""A throwaway PostgreSQL server for the API tests, from Debian's postgresql package.

The server runs as the ``postgres`` user (PostgreSQL refuses root) in a temporary folder, on a free
port of 127.0.0.1 with trust authentication, and is stopped and removed at the end.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(
            f"PostgreSQL's {name} is missing: `make test` installs Debian's postgresql package"
        )
    return found[-1]


def _as_postgres(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


@contextmanager
def postgres_server():
    """Yield a SQLAlchemy URL of a fresh, empty database."""
    folder = tempfile.mkdtemp(prefix="battleship-pg-")
    data = os.path.join(folder, "data")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    try:
        subprocess.run(
            _as_postgres([_bin("initdb"), "-D", data, "--auth=trust", "-U", "postgres", "--no-sync"]),
            check=True,
            capture_output=True,
        )
        subprocess.run(
            _as_postgres(
                [
                    _bin("pg_ctl"),
                    "-D",
                    data,
                    "-l",
                    os.path.join(folder, "log"),
                    "-w",
                    "-o",
                    f"-p {port} -h 127.0.0.1 -k {folder}",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )
        for _ in range(100):
            ready = subprocess.run(
                [_bin("pg_isready"), "-h", "127.0.0.1", "-p", str(port)], capture_output=True
            )
            if ready.returncode == 0:
                break
            time.sleep(0.1)
        subprocess.run(
            [_bin("createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "battleship"],
            check=True,
            capture_output=True,
        )
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/battleship"
    finally:
        subprocess.run(
            _as_postgres([_bin("pg_ctl"), "-D", data, "-m", "immediate", "stop"]), capture_output=True
        )
        shutil.rmtree(folder, ignore_errors=True)


def empty(url: str) -> str:
    """Empty the database at ``url`` (every table, the schema's revision included); ``url``."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as c:
        c.execute(text("DROP SCHEMA public CASCADE"))
        c.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return url
