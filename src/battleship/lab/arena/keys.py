"""An arena run's secret key: the battlefields no bot can derive, and a commitment that makes them checkable.

Everything random in a run comes from one 32-byte key through HMAC-SHA256, under labels that keep
the streams apart: each battlefield and each generator-drawn match fleet has a layout seed of its
own (``layout_seed``), the bots' seeds come from other labels (``bot_seed``), and so do the referee's
coins under noise and a cheating hider's ties (``referee_seed``). A bot sees its
seeds and, game by game, the battlefields it has sunk; recovering the key or another game's layout
from those means breaking HMAC-SHA256, and every game's layout is drawn from a seed of its own, so
one battlefield says nothing about the next.

Without ``--seed`` the key comes from the operating system (``secrets``). The run prints its
commitment (SHA-256 of the key) before the first game and reveals the key in its results, so anyone
can check, after the fact, that the battlefields are the ones the key gives and that the key is the
one committed to before the bots played (``battleship arena --verify results.json``).

With ``--seed S`` the key is SHA-256 of a fixed text and ``S``: a reproducible run, and a guessable
one. Whoever knows the seed can draw every battlefield, so a contest passes none, or one chosen
only after the entries are in.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

import numpy as np

from battleship import generators
from battleship.errors import BattleshipError
from battleship.rules import Rules

KEY_BYTES = 32
_SEED_TEXT = "battleship arena seed {}"  # a public seed's key: SHA-256 of this text


@dataclass(frozen=True)
class Key:
    """A run's key (``secret``) and the public seed it was made from, if any."""

    secret: bytes
    seed: int | None = None

    @classmethod
    def new(cls) -> Key:
        """A fresh key from the operating system's random source."""
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def from_seed(cls, seed: int) -> Key:
        """The key of a run seeded ``seed``: reproducible, and guessable by whoever knows the seed."""
        return cls(hashlib.sha256(_SEED_TEXT.format(int(seed)).encode()).digest(), int(seed))

    @classmethod
    def from_hex(cls, text: str, seed: int | None = None) -> Key:
        """A revealed key (its 64 hexadecimal digits), checked against ``seed`` when one is given."""
        try:
            secret = bytes.fromhex(text)
        except (ValueError, TypeError):
            raise BattleshipError(f"key {str(text)[:80]!r} is not hexadecimal") from None
        if len(secret) != KEY_BYTES:
            raise BattleshipError(f"a key has {KEY_BYTES * 2} hexadecimal digits, not {len(secret) * 2}")
        key = cls(secret, seed)
        if seed is not None and cls.from_seed(seed).secret != secret:
            raise BattleshipError(f"the key is not the one seed {seed} gives")
        return key

    @property
    def hex(self) -> str:
        """The key as 64 hexadecimal digits (what the results reveal)."""
        return self.secret.hex()

    @property
    def commitment(self) -> str:
        """SHA-256 of the key, in hexadecimal: printed before the run, it binds the organiser to the key."""
        return hashlib.sha256(self.secret).hexdigest()

    def _word(self, label: str, path: tuple[int, ...]) -> int:
        message = "/".join([label, *(str(int(p)) for p in path)]).encode()
        return int.from_bytes(hmac.new(self.secret, message, hashlib.sha256).digest()[:8], "little")

    def layout_seed(self, label: str, *path: int) -> int:
        """The 64-bit seed of one hidden fleet: ``("battlefield", game)`` or ``("fleet", bot, game)``."""
        return self._word("layouts:" + label, path)

    def bot_seed(self, label: str, *path: int) -> int:
        """A seed of 63 bits (any language holds it) for the bots, from a stream apart from the layouts'."""
        return self._word("bots:" + label, path) >> 1

    def referee_seed(self, label: str, *path: int) -> int:
        """The 64-bit seed of a game's referee under ``[noise]`` (its coins) or ``[hider]`` (its ties):
        ``("battlefield", game)`` or ``("match", bot, game)`` (the coins of the fleet bot ``bot`` hides).
        A stream apart from the layouts' and the bots': a bot's seeds say nothing of which answers lie."""
        return self._word("referee:" + label, path)

    def battlefields(self, rules: Rules, generator: str, games: int, first: int = 0) -> np.ndarray:
        """Battlefields ``first`` .. ``first + games - 1`` as rows of placement indices; each from its own seed."""
        return _draw(rules, generator, [self.layout_seed("battlefield", first + g) for g in range(games)])

    def fleets(self, rules: Rules, generator: str, bot: int, games: int) -> np.ndarray:
        """The fleets the generator hides for bot ``bot`` in its match games (when it lets the arena draw)."""
        return _draw(rules, generator, [self.layout_seed("fleet", bot, g) for g in range(games)])


def _draw(rules: Rules, generator: str, seeds: list[int]) -> np.ndarray:
    """One layout from each seed (stream 0 of it), as rows of placement indices."""
    rows = np.empty((len(seeds), len(rules.fleet)), dtype=np.int64)
    for i, seed in enumerate(seeds):
        rows[i] = generators.draw(rules, generator, seed, 1, threads=False)[0]
    return rows


def fingerprint(rules: Rules, rows: np.ndarray) -> str:
    """SHA-256 of battlefields in the layout text, one a line (what ``--battlefields`` writes)."""
    return hashlib.sha256(generators.format_lines(rules, rows)).hexdigest()
