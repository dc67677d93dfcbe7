"""Importing this module runs the kernels the web's heavy work uses once, so each is loaded (from the
package's compiled kernels, :mod:`battleship.jit`) before the first request needs it.

The worker pool (:mod:`battleship.web.workers`) preloads it into its forkserver when the server warms
up, so every worker process, a replacement for a killed one included, is forked warm. The presets'
state graphs (Sea Battle's takes seconds and 291 MB) are compiled after the port opens, by
:func:`battleship.web.graphs.warm_presets`, and mapped by the workers from files.
"""

from __future__ import annotations

import logging

from battleship.web.computer import warm_up

try:
    warm_up()
except Exception:  # a failed warm-up must not take the forkserver with it: the work is then only slower
    logging.getLogger("battleship.web").exception("warming up the heavy work failed")
