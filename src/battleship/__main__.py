"""``python -m battleship``: the same as the ``battleship`` command."""

from battleship.cli import main

main()
