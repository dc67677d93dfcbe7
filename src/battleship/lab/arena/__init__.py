"""The arena: bring your own bot, play it on the same battlefields as the others, rank them.

- :mod:`~battleship.lab.arena.protocol`: the line protocol (version 3: version 1, salvos, answers that lie and a cheating hider) a program speaks, both sides;
- :mod:`~battleship.lab.arena.keys`: the run's secret key, the battlefields it gives, its commitment;
- :mod:`~battleship.lab.arena.sandbox`: where programs run (bubblewrap), or unconfined if trusted;
- :mod:`~battleship.lab.arena.seccomp`: the system calls a sandboxed bot is refused (libseccomp);
- :mod:`~battleship.lab.arena.cgroup`: a control group per bot (memory, processes, CPU over all it starts);
- :mod:`~battleship.lab.arena.caches`: the kernel's caches dropped between bots (no channel through them);
- :mod:`~battleship.lab.arena.budgets`: wall-clock budgets for a game and for a bot's whole run;
- :mod:`~battleship.lab.arena.names`: names are data (control characters escaped wherever shown);
- :mod:`~battleship.lab.arena.channel`: a bot's process, with deadlines, CPU, memory and process limits;
- :mod:`~battleship.lab.arena.bots`: the three kinds of bot and the referee of their games;
- :mod:`~battleship.lab.arena.entries`: a contest from a folder of entries;
- :mod:`~battleship.lab.arena.snapshots`: each entry run from a private, checked copy of its own files;
- :mod:`~battleship.lab.arena.roster`: who entered which bot, as the organiser says (what ratings merge on);
- :mod:`~battleship.lab.arena.host`: a Python Shooter class served as a program;
- :mod:`~battleship.lab.arena.contest`: the run (battlefields, then matches);
- :mod:`~battleship.lab.arena.results`: the leaderboard, the head-to-head table, saved runs;
- :mod:`~battleship.lab.arena.ratings`: ratings that carry across runs (OpenSkill);
- :mod:`~battleship.lab.arena.verify`: checking a finished run from its revealed key.

``battleship arena`` is the command; docs/arena.md the guide and docs/arena-protocol.md the protocol.
"""

from battleship.lab.arena.bots import Bot, GameResult, ProgramBot, ShooterBot, parse_bot
from battleship.lab.arena.contest import run
from battleship.lab.arena.entries import load_entries
from battleship.lab.arena.keys import Key
from battleship.lab.arena.protocol import CAUSES, VERSION, BotFault
from battleship.lab.arena.results import ArenaResult, load, save
from battleship.lab.arena.sandbox import Limits, Sandbox, SandboxUnavailable, Unconfined, choose

__all__ = [
    "CAUSES",
    "VERSION",
    "ArenaResult",
    "Bot",
    "BotFault",
    "GameResult",
    "Key",
    "Limits",
    "ProgramBot",
    "Sandbox",
    "SandboxUnavailable",
    "ShooterBot",
    "Unconfined",
    "choose",
    "load",
    "load_entries",
    "parse_bot",
    "run",
    "save",
]
