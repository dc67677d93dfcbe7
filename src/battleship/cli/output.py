"""Where the program's output goes: the two consoles every command prints through.

Its own module so that the command helpers and the interrupt handling can both print without
importing each other.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

# Piped output is never cut or squeezed: tables keep their natural width, as in a very wide terminal.
PIPE_WIDTH = 10_000
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH)
err = Console(stderr=True, width=None if sys.stderr.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH)
