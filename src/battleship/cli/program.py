"""Whether this process is the ``battleship`` program, or Python code calling the app (such as tests).

Standard library only: the command line reads it before loading anything slow.
"""

from __future__ import annotations

import os
import sys

AS_PROGRAM = os.path.basename(sys.argv[0]) == "battleship" or sys.argv[0].endswith(
    (os.path.join("battleship", "__main__.py"), os.path.join("battleship", "cli", "__main__.py"))
)
