"""The codebase keeps the shape docs/design/architecture.md describes: short functions, no upward imports."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "battleship"
LAYERS = ["inference", "shooters", "lab", "cli", "web"]  # each may import only the ones before it
TOP = {
    "cli": 4,
    "web": 4,
    "envs": 3,
}  # the two faces share the top (serve starts the web app); envs sit beside the lab


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_no_function_is_longer_than_a_hundred_lines():
    long = [
        f"{path.relative_to(SRC)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > 100
    ]
    assert long == []


def test_nothing_imports_upward():
    def layer(module: str) -> int:
        parts = module.split(".")
        if len(parts) > 1 and parts[1] in (*LAYERS, *TOP):
            return TOP.get(parts[1], LAYERS.index(parts[1]) + 1) if parts[1] not in TOP else TOP[parts[1]]
        return 0

    upward = []
    for path, tree in _modules():
        rel = path.relative_to(SRC).parts
        if rel[0] in ("__init__.py", "__main__.py", "api.py"):
            continue  # the front door reaches every layer
        mine = TOP[rel[0]] if rel[0] in TOP else LAYERS.index(rel[0]) + 1 if rel[0] in LAYERS else 0
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("battleship"):
                names = [node.module] + [
                    f"{node.module}.{a.name}" for a in node.names if node.module == "battleship"
                ]
                for name in names:
                    if layer(name) > mine:
                        upward.append(f"{'/'.join(rel)} imports {name}")
    assert upward == []


def test_the_library_never_imports_the_command_line_or_the_web_app():
    """The front door (battleship, battleship.api) is library too: only the two faces import each other
    (``serve`` starts the web app), lazy imports inside functions included; ``python -m battleship``
    (``__main__.py``) is the program, not the library."""
    faces = ("battleship.cli", "battleship.web")
    reaching = []
    for path, tree in _modules():
        rel = path.relative_to(SRC).parts
        if rel[0] in ("cli", "web", "__main__.py"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(n == face or n.startswith(face + ".") for n in names for face in faces):
                reaching.append(f"{'/'.join(rel)}:{node.lineno} imports {names[0]}")
    assert reaching == []


def test_every_kernel_is_declared_with_the_package_s_njit():
    """Numba's own decorators would cache beside the sources, out of the package build's reach."""
    numba_decorators = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("numba")
        and any(
            alias.name in ("njit", "jit", "generated_jit", "vectorize", "guvectorize") for alias in node.names
        )
    ]
    assert numba_decorators == []
