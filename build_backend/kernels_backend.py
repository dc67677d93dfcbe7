"""The package's build backend: setuptools', with the compiled kernels packed in.

``pip install .``, ``pip install -e .`` and ``pip wheel .`` build through here. Before setuptools builds
the wheel (or the editable install), every Numba kernel is compiled into ``src/battleship/_kernels``
(:func:`battleship.lab.warmup.build_package`, a few minutes on two cores), so the installed package
answers its first call without compiling anything (:mod:`battleship.jit`). A store already compiled
from the same sources, Python and Numba is kept, so building again is quick.

Settings, as environment variables:

- ``BATTLESHIP_KERNEL_TARGET``: ``host`` (the default: this machine's CPU, as Numba compiles at run time)
  or an x86-64 level (``x86-64-v3``) for a wheel meant for other machines;
- ``BATTLESHIP_KERNEL_JOBS``: processes compiling side by side (default 2 where there are two cores,
  each compiling a family of kernels that share little with the other's: 155 s of wall against 203 s
  for one, on two idle cores);
- ``BATTLESHIP_KERNELS=skip``: build without compiling (the kernels then compile on first use, or with
  ``battleship warm``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 -- every other hook is setuptools' own

ROOT = Path(__file__).resolve().parents[1]


def _compile_kernels() -> None:
    if os.environ.get("BATTLESHIP_KERNELS") == "skip":
        return
    target = os.environ.get("BATTLESHIP_KERNEL_TARGET", "host")
    jobs = os.environ.get("BATTLESHIP_KERNEL_JOBS", "2" if (os.cpu_count() or 1) >= 2 else "1")
    # the sources on sys.path by hand: pip's isolated build drops from the path whatever an installed
    # copy's .pth file names, the checkout's src folder included
    start = f"import sys; sys.path.insert(0, {str(ROOT / 'src')!r}); from battleship.lab.warmup import main; main()"
    command = [sys.executable, "-c", start, "--build", "--jobs", jobs, "--target", target]
    subprocess.run(command, cwd=ROOT, check=True)


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    _compile_kernels()
    return str(build_meta.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    _compile_kernels()
    return str(build_meta.build_editable(wheel_directory, config_settings, metadata_directory))
