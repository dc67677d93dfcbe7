"""No import circles: every module of the package can be read after the ones it imports.

Every import statement counts, those inside functions too (a lazy import is still a dependency);
only imports for type checkers (``if TYPE_CHECKING:``) are left out, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "battleship"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Line numbers of the imports under ``if TYPE_CHECKING:``."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, ast.Import | ast.ImportFrom):
                        lines.add(sub.lineno)
    return lines


def _package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def imports(module: str, source: str | None = None) -> set[str]:
    """The package's modules that ``module`` imports (a name imported from a package may be a module)."""
    tree = ast.parse(source if source is not None else MODULES[module].read_text(encoding="utf-8"))
    skip = _type_checking_only(tree)
    out = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in MODULES}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package upward
                package = _package_of(module).split(".")
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    out.add(f"{base}.{alias.name}")
                elif base in MODULES:
                    out.add(base)
    out.discard(module)
    return out


def cycles() -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm), each sorted."""
    graph = {m: imports(m) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_the_checker_sees_lazy_imports_and_skips_those_for_type_checkers():
    source = """
from typing import TYPE_CHECKING
from battleship import rules as rules_mod
from .options import Options
if TYPE_CHECKING:
    from battleship.lab import Summary
def later():
    from battleship.notation import read_games
    import battleship.inference.prior
"""
    assert imports("battleship.shooters.best", source) == {
        "battleship.rules",
        "battleship.shooters.options",
        "battleship.notation",
        "battleship.inference.prior",
    }


def test_no_module_imports_itself_through_others():
    assert cycles() == []


def test_a_board_the_row_engine_answers_never_loads_the_sweep_or_the_samplers():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from battleship.game import Observation\n"
        "from battleship.inference import posterior\n"
        "from battleship.rules import preset\n"
        "assert posterior(Observation(preset('standard'))).engine == 'rows'\n"
        "print(sorted(m for m in sys.modules if m.startswith('battleship.inference.')))\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr
    loaded = ran.stdout
    assert "battleship.inference.rows" in loaded
    for heavy in ("sweep", "graph", "sampling"):
        assert f"battleship.inference.{heavy}'" not in loaded, loaded
