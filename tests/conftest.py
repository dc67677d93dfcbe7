"""What every test process shares.

``make test`` runs the suite on every core (pytest-xdist, a file to a worker). Its workers set
``COLUMNS=80``, which the commands read as a terminal's width, so their messages would wrap at 80
columns as they never do in a pipe; the tests see the program as a pipe does.
"""

from __future__ import annotations

import os

os.environ.pop("COLUMNS", None)
