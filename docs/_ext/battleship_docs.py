"""Pages generated at build time from the code itself, so the reference cannot drift from it.

At ``builder-inited`` this writes Markdown into ``docs/_generated/`` (not a page of its own: the
reference pages include it with MyST's ``{include}``):

- ``http.md``: every path of the web app's OpenAPI schema (``create_app().openapi()``) with its
  methods, parameters, request body and responses;
- ``names.md``: the names ``import battleship`` offers, each linked to its documentation;
- ``cli.md``: every command of the ``battleship`` program, read from the Typer app;
- ``shooters.md``: the shooter registry, from ``battleship.shooters.registry.reference_markdown()``
  when the registry offers it, else from ``battleship.shooters.specs()`` (name, summary, options read,
  answers left unread).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the renderers below need no Sphinx (the docs test calls them)
    from sphinx.application import Sphinx

OUT = Path(__file__).resolve().parents[1] / "_generated"


def _cell(text: object) -> str:
    """Text fit for one cell of a Markdown table: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _schema_type(schema: dict[str, Any], components: dict[str, Any]) -> str:
    """A short name for a JSON schema: its type, its component's name, or its alternatives."""
    if "$ref" in schema:
        return f"`{schema['$ref'].rsplit('/', 1)[-1]}`"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_schema_type(s, components) for s in schema[key])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_schema_type(schema.get('items', {}), components)}"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    return f"`{kind}`"


def _body(operation: dict[str, Any], components: dict[str, Any]) -> str:
    content = operation.get("requestBody", {}).get("content", {})
    return "; ".join(
        f"{kind}: {_schema_type(c.get('schema', {}), components)}" for kind, c in content.items()
    )


def _operation(path: str, method: str, operation: dict[str, Any], components: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", ""]
    summary = operation.get("summary") or ""
    description = (operation.get("description") or "").strip()
    if summary:
        lines += [summary, ""]
    if description and description != summary:
        lines += [description, ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["| parameter | in | type | required | description |", "|---|---|---|---|---|"]
        for p in parameters:
            lines.append(
                f"| `{p['name']}` | {p.get('in', '')} | {_schema_type(p.get('schema', {}), components)} "
                f"| {'yes' if p.get('required') else 'no'} | {_cell(p.get('description', ''))} |"
            )
        lines.append("")
    body = _body(operation, components)
    if body:
        lines += [f"Request body: {body}.", ""]
    lines += ["| status | meaning |", "|---|---|"]
    for status, response in sorted(operation.get("responses", {}).items()):
        lines.append(f"| {status} | {_cell(response.get('description', ''))} |")
    return [*lines, ""]


def _component(name: str, schema: dict[str, Any], components: dict[str, Any]) -> list[str]:
    lines = [f"### `{name}`", ""]
    if schema.get("description"):
        lines += [_cell(schema["description"]), ""]
    properties = schema.get("properties", {})
    if properties:
        required = set(schema.get("required", []))
        lines += ["| field | type | required | description |", "|---|---|---|---|"]
        for field, sub in properties.items():
            lines.append(
                f"| `{field}` | {_schema_type(sub, components)} | {'yes' if field in required else 'no'} "
                f"| {_cell(sub.get('description', ''))} |"
            )
        lines.append("")
    return lines


def http_markdown(schema: dict[str, Any]) -> str:
    """The API reference in Markdown: operations grouped by path, then the schemas they use."""
    components = schema.get("components", {}).get("schemas", {})
    lines = [
        f"Generated from the app's OpenAPI schema, version {schema['info'].get('version', '')}; a running "
        "server serves the same schema at `/openapi.json` and draws it at `/docs`.",
        "",
        "## Operations",
        "",
    ]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            lines += _operation(path, method, operation, components)
    if components:
        lines += ["## Schemas", ""]
        for name, sub in components.items():
            lines += _component(name, sub, components)
    return "\n".join(lines) + "\n"


def openapi_schema() -> dict[str, Any]:
    """The web app's schema, from an app on a throwaway database (no server, no workers started)."""
    from battleship.web.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(f"sqlite:///{Path(folder) / 'docs.db'}")
        return app.openapi()


def project_urls() -> dict[str, str]:
    """The package's Project-URLs, read from pyproject.toml (the one place they are written)."""
    import tomllib

    with (Path(__file__).resolve().parents[2] / "pyproject.toml").open("rb") as file:
        return dict(tomllib.load(file)["project"]["urls"])


def _source_link(path: str) -> str:
    """A file of the repository named in the shooter reference, as a link: a page of this site to
    that page, any other file (a benchmark script) to the file on the code host."""
    if path.startswith("docs/") and path.endswith(".md"):
        return f"{{doc}}`/{path.removeprefix('docs/').removesuffix('.md')}`"
    return f"[{path}]({project_urls()['Source']}/blob/main/{path})"


def shooters_markdown() -> str:
    """The shooter reference: the registry's own when it writes one (its title dropped: the page has
    its own, and the repository files it cites as links), else a table from its specs."""
    import re

    from battleship.shooters import registry, specs

    own = getattr(registry, "reference_markdown", None)
    if own is not None:
        text = re.sub(r"\A# [^\n]*\n+", "", own())
        return re.sub(
            r"\(((?:docs|benchmarks|examples)/[\w./-]+)\)", lambda m: f"({_source_link(m[1])})", text
        )
    lines = [
        "| shooter | what it does | options it reads | in the lab | answers it leaves unread |",
        "|---|---|---|---|---|",
    ]
    for name, spec in specs().items():
        reads = ", ".join(f"`{key}`" for key in spec.reads) or "none"
        ignores = _cell(f"{', '.join(spec.ignores)}: {spec.ignores_why}") if spec.ignores else ""
        lab = "a Numba kernel" if spec.kernel else ("plays another" if spec.chooses else "Python")
        lines.append(f"| `{name}` | {_cell(spec.summary)} | {reads} | {lab} | {ignores} |")
    return "\n".join(lines) + "\n"


def names_markdown() -> str:
    """The front door's names: each with the module documenting it and its docstring's first line (a
    value's, like ``CellLike`` or ``PRESETS``, from the comment documenting it where it is assigned)."""
    import inspect

    from sphinx.pycode import ModuleAnalyzer

    import battleship

    lines = ["| name | what it is |", "|---|---|"]
    for name in battleship.__all__:
        if name == "__version__":
            continue
        home = battleship._EXPORTS.get(name, "battleship.api")
        value = getattr(battleship, name)
        if inspect.isclass(value) or inspect.isroutine(value):
            doc = value.__doc__ or ""
        else:
            doc = "\n".join(ModuleAnalyzer.for_module(home).find_attr_docs().get(("", name), []))
        first = inspect.cleandoc(doc).split("\n\n")[0]
        lines.append(f"| {{py:obj}}`bs.{name} <{home}.{name}>` | {_cell(first)} |")
    return "\n".join(lines) + "\n"


def _write(name: str, text: str) -> None:
    OUT.mkdir(exist_ok=True)
    target = OUT / name
    if not target.exists() or target.read_text(encoding="utf-8") != text:  # unchanged: no rebuild
        target.write_text(text, encoding="utf-8")


def generate(_app: Sphinx) -> None:
    _write("http.md", http_markdown(openapi_schema()))
    _write("shooters.md", shooters_markdown())
    _write("cli.md", cli_markdown())
    _write("names.md", names_markdown())


PYTHON = "https://docs.python.org/3/library/"
NUMPY = "https://numpy.org/doc/stable/reference/"
# the names of other projects that the signatures and docstrings use, and where each is documented:
# linked here rather than through intersphinx, which fetches inventories and so needs the network
EXTERNAL = {
    "int": f"{PYTHON}functions.html#int",
    "float": f"{PYTHON}functions.html#float",
    "bool": f"{PYTHON}functions.html#bool",
    "str": f"{PYTHON}stdtypes.html#str",
    "bytes": f"{PYTHON}stdtypes.html#bytes",
    "list": f"{PYTHON}stdtypes.html#list",
    "tuple": f"{PYTHON}stdtypes.html#tuple",
    "dict": f"{PYTHON}stdtypes.html#dict",
    "set": f"{PYTHON}stdtypes.html#set",
    "frozenset": f"{PYTHON}stdtypes.html#frozenset",
    "object": f"{PYTHON}functions.html#object",
    "type": f"{PYTHON}functions.html#type",
    "None": "https://docs.python.org/3/library/constants.html#None",
    "ValueError": f"{PYTHON}exceptions.html#ValueError",
    "ImportError": f"{PYTHON}exceptions.html#ImportError",
    "RuntimeError": f"{PYTHON}exceptions.html#RuntimeError",
    "KeyboardInterrupt": f"{PYTHON}exceptions.html#KeyboardInterrupt",
    "DeprecationWarning": f"{PYTHON}exceptions.html#DeprecationWarning",
    "UserWarning": f"{PYTHON}exceptions.html#UserWarning",
    "enum.Enum": f"{PYTHON}enum.html#enum.Enum",
    "typing.Protocol": f"{PYTHON}typing.html#typing.Protocol",
    "typing.TypedDict": f"{PYTHON}typing.html#typing.TypedDict",
    "typing.Any": f"{PYTHON}typing.html#typing.Any",
    "pathlib.Path": f"{PYTHON}pathlib.html#pathlib.Path",
    "dataclasses.InitVar": f"{PYTHON}dataclasses.html#dataclasses.InitVar",
    "threading.Event": f"{PYTHON}threading.html#threading.Event",
    **{
        f"collections.abc.{name}": f"{PYTHON}collections.abc.html#collections.abc.{name}"
        for name in ("Callable", "Iterable", "Iterator", "Mapping", "Sequence", "Generator")
    },
    "numpy.ndarray": f"{NUMPY}generated/numpy.ndarray.html",
    "numpy.random.Generator": f"{NUMPY}random/generator.html#numpy.random.Generator",
    "numpy.random._generator.Generator": f"{NUMPY}random/generator.html#numpy.random.Generator",
    **{
        f"numpy.{name}": f"{NUMPY}arrays.scalars.html#numpy.{name}"
        for name in ("uint64", "int64", "float64", "int32", "uint8", "bool")
    },
    "gymnasium.Env": "https://gymnasium.farama.org/api/env/#gymnasium.Env",
    "gymnasium.core.Env": "https://gymnasium.farama.org/api/env/#gymnasium.Env",
    "gymnasium.spaces.space.Space": "https://gymnasium.farama.org/api/spaces/#gymnasium.spaces.Space",
    "pettingzoo.utils.env.AECEnv": "https://pettingzoo.farama.org/api/aec/#pettingzoo.utils.env.AECEnv",
    "pettingzoo.utils.env.ParallelEnv": "https://pettingzoo.farama.org/api/parallel/#pettingzoo.utils.env.ParallelEnv",
}
# the short spellings the sources use for them
EXTERNAL |= {
    "np.ndarray": EXTERNAL["numpy.ndarray"],
    "np.random.Generator": EXTERNAL["numpy.random.Generator"],
    "Path": EXTERNAL["pathlib.Path"],
    "Enum": EXTERNAL["enum.Enum"],
    "Protocol": EXTERNAL["typing.Protocol"],
    "TypedDict": EXTERNAL["typing.TypedDict"],
    "Any": EXTERNAL["typing.Any"],
}


def link_external(_app: Sphinx, _env: Any, node: Any, contnode: Any) -> Any:
    """A reference to another project's name (``numpy.ndarray``, ``pathlib.Path``) as a link to its
    documentation; None for any other name, which Sphinx then reports (nitpicky mode)."""
    from docutils import nodes

    if node.get("refdomain") != "py":
        return None
    url = EXTERNAL.get(node["reftarget"])
    if url is None:
        return None
    link = nodes.reference("", "", internal=False, refuri=url, reftitle=node["reftarget"])
    link.append(contnode)
    return link


def source_module(_app: Sphinx, modname: str, attribute: str) -> str | None:
    """The module whose source shows a documented name (viewcode): where a class or function is
    defined, but for a value (a preset table, a type alias) the module that assigns it, never
    ``builtins`` (whose source page does not exist)."""
    import importlib
    import inspect

    try:
        value = getattr(importlib.import_module(modname), attribute.split(".")[0])
    except (ImportError, AttributeError):
        return None
    home = getattr(value, "__module__", None) if inspect.isclass(value) or inspect.isroutine(value) else None
    return home if isinstance(home, str) and home.startswith("battleship") else modname


def numpy_sections(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Napoleon's reading of the NumPy sections, for everything but values: the one paragraph of an
    attribute or property ("Bitboard of every cell hit: ...") it would read as "type: description"."""
    from sphinx.ext import napoleon

    if what not in ("attribute", "property", "data"):
        napoleon._process_docstring(app, what, name, obj, options, lines)


def _read_numpy_sections_our_way(app: Sphinx) -> None:
    from sphinx.ext import napoleon

    for listener in list(app.events.listeners.get("autodoc-process-docstring", [])):
        if listener.handler is napoleon._process_docstring:
            app.disconnect(listener.id)
    app.connect("autodoc-process-docstring", numpy_sections)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx.ext.napoleon")
    _read_numpy_sections_our_way(app)
    app.connect("builder-inited", generate)
    app.connect("missing-reference", link_external)
    app.connect("viewcode-follow-imported", source_module)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


def _usage(command: Any, ctx: Any) -> str:
    return command.get_usage(ctx).removeprefix("Usage: ")


def _command_markdown(name: str, command: Any, parent: Any) -> list[str]:
    """One command: its usage, its help, and a table of its arguments and options (a group's own
    commands after it, each as its own)."""
    import typer._click as click

    from battleship.cli.helptext import examples_of, unescaped

    ctx = click.Context(command, info_name=name, parent=parent)
    lines = [f"## `{ctx.command_path}`", "", "```text", _usage(command, ctx), "```", ""]
    if command.help:
        lines += [unescaped(command.help.strip()), ""]
    rows = []
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False) or param.name == "help":
            continue
        record = param.get_help_record(ctx) if param.param_type_name == "option" else None
        names, text = record if record else (param.name.upper(), param.help or "")
        rows.append(f"| `{names}` | {_cell(unescaped(text))} |")
    if rows:
        lines += ["| argument or option | what it does |", "|---|---|", *rows, ""]
    examples = examples_of(command)
    if examples:
        lines += ["Examples:", "", "```sh", *examples, "```", ""]
    for sub_name, sub in getattr(command, "commands", {}).items():  # a group's own commands (db upgrade)
        lines += _command_markdown(sub_name, sub, ctx)
    return lines


def cli_markdown() -> str:
    """The command-line reference, read from the Typer app's command: every command in the order
    ``battleship --help`` lists them, its usage, help and options (Typer 0.29 and later builds its
    commands on its own copy of click, which sphinx-click cannot read, so this page is written here)."""
    import typer._click as click
    import typer.main

    from battleship.cli import app

    group = typer.main.get_command(app)
    top = click.Context(group, info_name="battleship")
    lines = ["```text", _usage(group, top), "```", "", (group.help or "").strip(), ""]
    rows = [
        f"| `{p.get_help_record(top)[0]}` | {_cell(p.get_help_record(top)[1])} |"
        for p in group.get_params(top)
    ]
    lines += ["| option | what it does |", "|---|---|", *rows, ""]
    for name, command in group.commands.items():
        lines += _command_markdown(name, command, top)
    return "\n".join(lines) + "\n"
