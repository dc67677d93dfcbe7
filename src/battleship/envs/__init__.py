"""Environments for learning agents, beside the lab: they read only the game and the generators.

- :mod:`battleship.envs.hunt`: a Gymnasium environment, ``battleship/Battleship-v0``: one player hunts
  a hidden fleet, a shot a step. Importing this package registers it::

      import gymnasium
      import battleship.envs

      env = gymnasium.make("battleship/Battleship-v0", rules="standard", generator="uniform", seed=7)

  (``gymnasium.make("battleship.envs:battleship/Battleship-v0")`` imports it for you.)
- :mod:`battleship.envs.match`: a two-player PettingZoo AEC environment, each side racing to sink the
  other's fleet (``battleship.envs.match.env(rules=..., seed=...)``).

The environments load only when first made: importing this package costs Gymnasium's import alone.
"""

from __future__ import annotations

from battleship.extras import require

require("rl")  # Gymnasium and PettingZoo, refused in one line with the install command when missing
import gymnasium  # noqa: E402

ENV_ID = "battleship/Battleship-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="battleship.envs.hunt:BattleshipEnv")
