"""How every command's ``--help`` reads: prose the terminal wraps, plain flags, examples at the end.

A command's help is its function's docstring. Its paragraphs are written wrapped in the source; here
each becomes one line, so that Rich wraps it to the terminal's width (a line break kept from the source
would break a sentence in the middle on any other width). The commands given to :func:`examples`
above the function end the help, under ``Examples:``, and the reference page lists the same
(docs/_ext/battleship_docs.py). Texts are escaped for Rich, whose markup would otherwise eat a
``[table]`` in them, and a flag shows no value placeholder (``--percent``, never ``--percent <bool>``:
it takes none).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from rich.markup import escape
from typer import _click as click
from typer.core import TyperCommand, TyperGroup

EXAMPLES = "Examples:"
F = TypeVar("F", bound=Callable[..., Any])
_EXAMPLES: dict[Callable[..., Any], tuple[str, ...]] = {}


def examples(*commands: str) -> Callable[[F], F]:
    """Decorator: the one or two commands, each a whole command line, that a command's help ends with."""

    def keep(function: F) -> F:
        _EXAMPLES[function] = commands
        return function

    return keep


def reflow(text: str) -> str:
    """Each paragraph of ``text`` on one line (paragraphs stay apart), escaped for Rich's markup."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(escape(p) for p in paragraphs if p)


def epilog(examples: tuple[str, ...] | list[str]) -> str:
    """The help's last section: the examples, one a line, indented under their heading."""
    # the blank first line keeps the indentation through Typer's inspect.cleandoc
    return "\n" + "\n".join([EXAMPLES, *(f"  {escape(e)}" for e in examples)]) if examples else ""


def examples_of(command: click.Command) -> list[str]:
    """The examples a command's help ends with (none for a command without)."""
    _, _, tail = (command.epilog or "").partition(f"{EXAMPLES}\n")
    return [unescaped(line.strip()) for line in tail.splitlines() if line.strip()]


def unescaped(text: str) -> str:
    """Help text as written, without the escapes Rich needs (for the reference page)."""
    return text.replace("\\[", "[")


def _plain(params: list[click.Parameter]) -> list[click.Parameter]:
    """The parameters, their help escaped for Rich and flags without a value placeholder."""
    for param in params:
        if getattr(param, "is_flag", False) and not getattr(param, "count", False):
            param.metavar = ""  # Typer's help shows the metavar in place of "<bool>"
        helped = getattr(param, "help", None)
        if helped and not getattr(param, "_escaped", False):
            param.help = escape(" ".join(helped.split()))  # type: ignore[attr-defined]
            param._escaped = True  # type: ignore[attr-defined]
    return params


class Command(TyperCommand):
    """A command whose help reads as the module docstring says."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        return _plain(super().get_params(ctx))


class Group(TyperGroup):
    """The ``battleship`` program itself: its own options shown the same way."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        return _plain(super().get_params(ctx))


def command_options(function: Callable[..., Any]) -> dict[str, Any]:
    """What ``app.command`` takes for ``function``: its help, examples and the command class."""
    help_text = reflow(inspect.cleandoc(function.__doc__ or ""))
    return {"help": help_text, "epilog": epilog(_EXAMPLES.get(function, ())), "cls": Command}
