"""Commands loaded when they are used: ``battleship calc`` imports the calculator's module, not the arena's.

The program's group knows each command by name and by where it is defined (``"calc:calc_cmd"``: the
function ``calc_cmd`` in :mod:`battleship.cli.calc`), in the order ``battleship --help`` lists them. A
command's module is imported, and its Click command built by Typer exactly as ``app.command`` would,
the first time the group is asked for it: to run it, to show its help, or to list it under
``battleship --help`` (which asks for every one). A whole process's ``calc`` so pays for one command
module, not for all of them with their help texts.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import Any

import typer
from typer import _click as click

from battleship.cli import helptext


def build(name: str, where: str) -> click.Command:
    """The Click command ``name`` from ``where`` (``"module:attribute"`` in :mod:`battleship.cli`): a
    command function, or a Typer app of its own (``db``) that becomes a group."""
    module_name, _, attribute = where.partition(":")
    found = getattr(importlib.import_module(f"battleship.cli.{module_name}"), attribute)
    wrapper = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    if isinstance(found, typer.Typer):
        wrapper.add_typer(found, name=name)
        wrapper.callback()(lambda: None)  # a group around it, from which the sub-group is taken
        group = typer.main.get_command(wrapper)
        return group.commands[name]  # type: ignore[attr-defined]
    wrapper.command(name, **helptext.command_options(found))(found)
    return typer.main.get_command(wrapper)


class Commands(MutableMapping[str, click.Command]):
    """A group's commands by name, each built on first use (:func:`build`); listed in the given order."""

    def __init__(self, where: dict[str, str], built: MutableMapping[str, click.Command]) -> None:
        self._where = dict(where)
        self._built = dict(built)

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._built:
            if name not in self._where:
                raise KeyError(name)
            self._built[name] = build(name, self._where[name])
        return self._built[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._where.pop(name, None)
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self._where
        yield from (name for name in self._built if name not in self._where)

    def __len__(self) -> int:
        return len(self._where.keys() | self._built.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._where or name in self._built


def group_class(where: dict[str, str]) -> type[helptext.Group]:
    """The program's group class, its commands found in ``where`` (name to ``"module:attribute"``)."""

    class Lazy(helptext.Group):
        def __init__(self, **attrs: Any) -> None:
            super().__init__(**attrs)
            self.commands = Commands(where, self.commands)

    return Lazy
