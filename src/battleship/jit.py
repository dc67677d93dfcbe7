"""Numba with every kernel ready when the package is: compiled when the package is built, loaded from
the package at run time, compiled again only for what the build could not foresee.

Every compiled function of the package is declared with this module's :func:`njit`: Numba's decorator,
but ``cache=True`` keeps the machine code in two stores instead of Numba's one:

- **the package's own**, the folder ``battleship/_kernels``: written when the package is built (``pip
  install``, ``pip wheel``, ``make``: :func:`battleship.lab.warmup.build_package` calls every kernel
  once), and only read afterwards. Its ``manifest.json`` says which Python, Numba and CPU
  target it was compiled for; it is used only where they match, so a wheel built on one machine
  loads on another only when it was built for a target that machine runs (``BATTLESHIP_KERNEL_TARGET``
  below), and is otherwise left alone;
- **the user's**, ``$NUMBA_CACHE_DIR`` or else ``~/.cache/battleship/kernels``: whatever compiles
  after the build (a source file changed in a checkout, a signature the build did not reach), kept for
  the next run as Numba would keep it. Its entries are for this machine's CPU, so they are looked at
  first.

A function's entries in either store are found by its module, name and line, and are valid for the
exact content of its source file (a hash) and the exact bytes of its code, as Numba's own cache is.
Numba's limits stay: a kernel is not recompiled when only a function it calls, in another file,
changed.

The build compiles for the building machine's own CPU (what Numba does at run time, so the code is the
same); ``BATTLESHIP_KERNEL_TARGET=x86-64-v3`` (or ``x86-64-v2``, ``generic``) builds for a CPU level
instead, for a wheel meant for other machines: such a store is used on every machine with that level's
instructions. With bounds checks on (``NUMBA_BOUNDSCHECK=1``) the package's store is not used: its code
has none.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import os
import pickle
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TextIO, TypeVar, cast, overload

import numba
from numba.core import config as numba_config
from numba.core import event as numba_event
from numba.core.caching import IndexDataCacheFile, _Cache
from numba.core.compiler import CompileResult
from numba.core.errors import NumbaWarning
from numba.core.runtime import rtsys
from numba.core.serialize import dumps

from battleship import waiting
from battleship.words import counted

config: Any = numba_config  # Numba's settings, read from its NUMBA_* environment variables
PACKAGE_STORE = Path(__file__).with_name("_kernels")
MANIFEST = "manifest.json"
# set by the build (lab.warmup.build_package): compiled kernels go to the package's store, whose own entries are the
# only ones looked at, so that everything the build reaches is compiled into it
BUILD_VARIABLE = "BATTLESHIP_KERNELS_BUILD"
# the CPU features each x86-64 micro-architecture level requires (the x86-64 psABI), as LLVM names them
LEVELS = {
    "generic": (),
    "x86-64": (),
    "x86-64-v2": ("cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"),
    "x86-64-v3": (
        *("cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"),
        *("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"),
    ),
}


F = TypeVar("F", bound=Callable[..., Any])


@overload
def njit(function: F, **options: Any) -> F: ...
@overload
def njit(function: None = None, **options: Any) -> Callable[[F], F]: ...
def njit(function: F | None = None, **options: Any) -> F | Callable[[F], F]:
    """Numba's ``njit``, with ``cache=True`` meaning this package's two stores (see the module).

    Typed as giving back the function it compiles: a Numba dispatcher is called as that function is.
    """
    cached = options.pop("cache", False)

    def decorate(py_func: F) -> F:
        dispatcher = numba.njit(**options)(py_func)
        if cached:
            dispatcher._cache = KernelCache(py_func)
        return cast(F, dispatcher)

    return decorate if function is None else decorate(function)


@dataclass(frozen=True)
class Manifest:
    """What the package's store was compiled for, and whether this process may load it."""

    python: str
    numba: str
    target: str  # "host" or an x86-64 level
    magic: tuple[Any, ...]  # Numba's description of the code generator: (triple, CPU name, features)
    functions: int  # compiled functions stored
    sources: str  # sources_digest(files) when it was compiled
    files: tuple[str, ...]  # the package's modules the build loaded (its kernels and all they read)

    @classmethod
    def read(cls, folder: Path = PACKAGE_STORE) -> Manifest | None:
        try:
            data = json.loads((folder / MANIFEST).read_text())
            return cls(**{**data, "magic": _tuple(data["magic"]), "files": tuple(data["files"])})
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def built_for(self) -> tuple[str, str, str]:
        """The Python, Numba and target the store was compiled for."""
        return self.python, self.numba, self.target

    def current(self, target: str) -> bool:
        """Whether the store holds what a build for ``target`` would compile now: the same Python, Numba
        and target, and the same content of every module the build loaded."""
        same = (self.python, self.numba, self.target) == (python_version(), numba.__version__, target)
        return same and self.sources == sources_digest(self.files)

    def write(self, folder: Path = PACKAGE_STORE) -> None:
        data = {**self.__dict__, "magic": list(self.magic), "files": list(self.files)}
        (folder / MANIFEST).write_text(json.dumps(data, indent=1) + "\n")

    def refusal(self, host_magic: tuple[Any, ...]) -> str | None:
        """Why this process cannot load the store, or None if it can."""
        if self.python != python_version():
            return f"it was compiled for Python {self.python}, this is {python_version()}"
        if self.numba != numba.__version__:
            return f"it was compiled with Numba {self.numba}, this is {numba.__version__}"
        if self.magic[0] != host_magic[0]:
            return f"it was compiled for {self.magic[0]}, this is {host_magic[0]}"
        if self.target == "host":
            return None if self.magic == host_magic else f"it was compiled for another CPU ({self.magic[1]})"
        missing = [f for f in LEVELS.get(self.target, ("unknown",)) if not _host_features().get(f, False)]
        return f"this CPU lacks {', '.join(missing)} ({self.target})" if missing else None


@cache
def package_status() -> tuple[Manifest | None, str | None]:
    """The package's store: its manifest (None if there is none) and why it is not used (None if it is)."""
    manifest = Manifest.read()
    if manifest is None:
        return None, "the package was built without its compiled kernels"
    if config.BOUNDSCHECK:
        return manifest, "bounds checks are on (NUMBA_BOUNDSCHECK=1) and its code has none"
    if config.DEBUGINFO_DEFAULT or config.OPT != 3:  # Numba's cache keys leave these settings out
        return manifest, "Numba is set to compile otherwise (NUMBA_OPT, NUMBA_DEBUGINFO) than its code was"
    return manifest, manifest.refusal(_host_magic())


def user_store() -> Path:
    """The user's store: $NUMBA_CACHE_DIR if set, else the user's cache folder; one folder per
    installed copy of the package (two checkouts do not overwrite each other's entries)."""
    base = config.CACHE_DIR or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    root = Path(base) if config.CACHE_DIR else Path(base) / "battleship" / "kernels"
    copy = hashlib.sha1(str(PACKAGE_STORE.parent).encode()).hexdigest()[:12]
    return root / f"battleship-{copy}"


class KernelCache(_Cache):
    """One function's compiled code in the two stores (Numba's cache interface: load, save)."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        self._py_func = py_func
        self._name = repr(py_func)
        self._file = inspect.getfile(py_func)
        qualname = py_func.__qualname__.replace("<", "").replace(">", "")
        version = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
        self._base = f"{qualname}-{py_func.__code__.co_firstlineno}.{version}"
        self._module = py_func.__module__
        self._enabled = True

    def __repr__(self) -> str:
        return f"<KernelCache {self._module}.{self._py_func.__qualname__}>"

    @property
    def cache_path(self) -> str:
        return str(_writable_root() / self._module)

    def enable(self) -> None:
        self._enabled = True

    def disable(self) -> None:
        self._enabled = False

    def flush(self) -> None:
        self._store(_writable_root()).flush()

    def load_overload(self, sig: Any, target_context: Any) -> CompileResult | None:
        if not self._enabled:
            return None
        # Numba refreshes its whole target here (every lowering registry: most of a second, and only a
        # compile needs them); loading machine code needs the runtime's symbols, and those only
        rtsys.initialize(target_context)
        for root, magic in _lookups(target_context.codegen().magic_tuple()):
            with _unreadable_is_missing():
                data = self._store(root).load(self._key(sig, magic))
                if data is not None:
                    return CompileResult._rebuild(target_context, *data)
        return None

    def save_overload(self, sig: Any, cres: Any) -> None:
        if not self._enabled or not self._cachable(cres):
            return
        root = _writable_root()
        with contextlib.suppress(OSError):  # a read-only home: the next run compiles again, as Numba does
            (root / self._module).mkdir(parents=True, exist_ok=True)
            self._store(root).save(self._key(sig, cres.codegen.magic_tuple()), cres._reduce())

    def _store(self, root: Path) -> IndexDataCacheFile:
        return IndexDataCacheFile(str(root / self._module), self._base, _source_stamp(self._file))

    def _key(self, sig: Any, magic: tuple[Any, ...]) -> tuple[Any, ...]:
        """Numba's index key: the signature, the code generator, the function's code and closure."""
        code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
        closure = self._py_func.__closure__
        cells = dumps(tuple(c.cell_contents for c in closure)) if closure else b""
        return (sig, magic, (code, hashlib.sha256(cells).hexdigest()))

    def _cachable(self, cres: Any) -> bool:
        if any(not lifted.can_cache for lifted in cres.lifted) or cres.library.has_dynamic_globals:
            message = f"cannot cache the compiled {self._py_func.__qualname__}: it uses lifted code or dynamic globals"
            warnings.warn_explicit(message, NumbaWarning, self._file, self._py_func.__code__.co_firstlineno)
            return False
        return True


def _lookups(host_magic: tuple[Any, ...]) -> list[tuple[Path, tuple[Any, ...]]]:
    """Where to look, in order: (store, the code generator its entries were compiled by)."""
    if os.environ.get(BUILD_VARIABLE):
        return [(PACKAGE_STORE, host_magic)]
    out = [(user_store(), host_magic)]
    manifest, refusal = package_status()
    if manifest is not None and refusal is None:
        out.append((PACKAGE_STORE, manifest.magic))
    return out


def _writable_root() -> Path:
    return PACKAGE_STORE if os.environ.get(BUILD_VARIABLE) else user_store()


@contextlib.contextmanager
def _unreadable_is_missing() -> Iterator[None]:
    """A store's file that cannot be read back (cut short, from another build) is a miss: compile again."""
    try:
        yield
    except (OSError, EOFError, ValueError, TypeError, AttributeError, ImportError, KeyError):
        return


@cache
def _source_stamp(path: str) -> str:
    """The content of a source file: entries compiled from other content are not loaded."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@cache
def _host_magic() -> tuple[Any, ...]:
    from numba.core.registry import cpu_target

    return tuple(cpu_target.target_context.codegen().magic_tuple())


@cache
def _host_features() -> dict[str, bool]:
    import llvmlite.binding as llvm

    return dict(llvm.get_host_cpu_features())


def python_version() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


def sources_digest(files: tuple[str, ...]) -> str:
    """A hash of some of the package's modules (paths inside the package); a missing one hashes apart."""
    digest = hashlib.sha256()
    root = PACKAGE_STORE.parent
    for name in files:
        path = root / name
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"\0missing"))
    return digest.hexdigest()


def write_manifest(target: str) -> Manifest:
    """Describe the package's store as this process compiled it (the build's last step): the package's
    modules loaded by then are what its kernels were compiled from."""
    root = PACKAGE_STORE.parent
    loaded = (Path(getattr(m, "__file__", None) or "") for m in list(sys.modules.values()))
    files = tuple(sorted({p.relative_to(root).as_posix() for p in loaded if p.is_relative_to(root)}))
    prune_store()
    kernels = sum(1 for _ in PACKAGE_STORE.rglob("*.nbc"))
    manifest = Manifest(
        python_version(), numba.__version__, target, _host_magic(), kernels, sources_digest(files), files
    )
    manifest.write()
    return manifest


def prune_store(folder: Path = PACKAGE_STORE) -> None:
    """Remove what no current source can load: the indexes of a changed or missing source file (or of
    another Numba), and the compiled code no index names."""
    root = folder.parent
    for module in (m for m in folder.iterdir() if m.is_dir()):
        source = root.joinpath(*module.name.split(".")[1:]).with_suffix(".py")
        stamp = _source_stamp(str(source)) if source.is_file() else None
        named: set[str] = set()
        for index in module.glob("*.nbi"):
            try:
                with open(index, "rb") as f:
                    version = pickle.load(f)
                    stamp_then, overloads = pickle.loads(f.read())
            except (
                OSError,
                EOFError,
                ValueError,
                TypeError,
                AttributeError,
                ImportError,
                pickle.UnpicklingError,
            ):
                version = stamp_then = overloads = None
            if version != numba.__version__ or stamp_then != stamp or not isinstance(overloads, dict):
                index.unlink()
                continue
            named.update(overloads.values())
        for data in module.glob("*.nbc"):
            if data.name not in named:
                data.unlink()


def _tuple(value: Any) -> Any:
    """JSON's lists back into the tuples Numba compares (its description of a code generator)."""
    return tuple(_tuple(v) for v in value) if isinstance(value, list) else value


# -- saying so while something compiles ------------------------------------------------------------------

HINT = "not among the package's compiled kernels; kept for the next run; `battleship warm` compiles them all ahead"


class _Announcer:
    """Numba's compile events, said as a wait (:func:`battleship.waiting.said`): a compile that lasts more
    than half a second is said, with the functions compiled so far, then how long it took.

    Compiles of this package's kernels are always said; within a :func:`notice` block every compile is
    (Numba's own helpers, compiled on the package's behalf). Numba compiles one function at a time,
    whatever the thread, so one tally serves the process.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0  # compiles under way, nested (a kernel compiles the functions it calls)
        self.widened = 0  # notice() blocks open
        self.functions = 0
        self.total = 0  # every function compiled in this process (compiles())
        self.said: contextlib.AbstractContextManager[waiting.Wait] | None = None
        self.wait: waiting.Wait | None = None
        self.watchers: list[Callable[[bool], None]] = []  # on_compiling()'s

    def begin(self, dispatcher: Any) -> None:
        function = getattr(dispatcher, "py_func", None)
        module = str(getattr(function, "__module__", ""))
        ours = module.startswith("battleship.")
        with self.lock:
            if self.depth == 0:
                for watcher in self.watchers:
                    watcher(True)
            if self.depth == 0 and (ours or self.widened):
                self.functions = 0
                building = os.environ.get(BUILD_VARIABLE)
                self.said = waiting.said(
                    "compiling the package's kernels" if building else f"compiling Numba kernels ({HINT})"
                )
                self.wait = self.said.__enter__()
            self.depth += 1
            if self.wait is not None and ours:  # name only ours: Numba's helpers compile too
                name = f"{module.removeprefix('battleship.')}.{getattr(function, '__name__', '')}"
                self.wait.at(f"{counted(self.functions, 'function')} compiled, now {name}")

    def end(self) -> None:
        with self.lock:
            self.depth -= 1
            self.functions += 1
            self.total += 1
            if self.wait is not None:
                self.wait.done_words = f"compiled {counted(self.functions, 'function')}"
            if self.depth == 0 and self.said is not None:
                self.said.__exit__(None, None, None)
                self.said = self.wait = None
            if self.depth == 0:
                for watcher in self.watchers:
                    watcher(False)


_announcer = _Announcer()


def on_compiling(watcher: Callable[[bool], None]) -> None:
    """Call ``watcher(True)`` whenever Numba begins to compile in this process and ``watcher(False)`` when
    it is done (the outermost compile: a kernel compiles the functions it calls within its own), in the
    compiling thread, for the rest of the process's life."""
    with _announcer.lock:
        _announcer.watchers.append(watcher)


def compiles() -> int:
    """How many functions Numba has compiled in this process so far: a timing that saw it change timed a
    compile, not the code."""
    return _announcer.total


class _Listener(numba_event.Listener):
    def on_start(self, ev: numba_event.Event) -> None:
        _announcer.begin(ev.data.get("dispatcher") if isinstance(ev.data, dict) else None)

    def on_end(self, ev: numba_event.Event) -> None:
        _announcer.end()


numba_event.register("numba:compile", _Listener())


@contextlib.contextmanager
def notice(out: TextIO | None = None) -> Iterator[None]:
    """Within the block, every compile is said (Numba's own helpers too), on ``out`` if given (stderr)."""
    with _announcer.lock:
        _announcer.widened += 1
    try:
        with waiting.to(out):
            yield
    finally:
        with _announcer.lock:
            _announcer.widened -= 1
