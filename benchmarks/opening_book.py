"""Build an opening book: the first positions of a deterministic shooter's games, each given the cell
that long rollouts over exact posterior samples find best (battleship.lab.book).

Run: .venv/bin/python benchmarks/opening_book.py [--rules standard] [--positions 20] [--samples 20000]
     [--width 4] [--z 2.5] [--seed 1] [--out src/battleship/shooters/books/standard.json]
     .venv/bin/python benchmarks/opening_book.py --verify 60000 [--seed 2] (the shipped book)

Prints one line a position (its reach, its board text, the shooter's cell and the book's when they
differ, with the measured gain) and writes the book. Its seeds draw posterior samples only: measure
the book with ``battleship compare`` on other seeds. ``--verify N`` builds nothing: for each position
where the shipped book leaves the shooter's cell it measures the gain again on N fresh layouts, and
prints what each position is worth a game (gain times reach), and the share of the measuring runs'
games that meet a move.
"""

from __future__ import annotations

import argparse
import sys

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Game
from battleship.lab.book import BookSettings, build_book, verify_book
from battleship.layout import Layout
from battleship.rules import preset
from battleship.shooters.book import Book, book_for

SHOOTER = "density:skew=20,lattice=1,lastship=8"  # best on standard rules
# the look-ahead for the last ship acts only once four ships are sunk, never in the opening: the
# rollouts play on without it (about 60 ms a game with it, a fraction of a millisecond without)
ROLLOUT = "density:skew=20,lattice=1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--z", type=float, default=2.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="src/battleship/shooters/books/standard.json")
    parser.add_argument("--verify", type=int, default=0, help="measure the shipped book's moves again")
    args = parser.parse_args()
    if args.verify:
        return verify(args.rules, args.verify, args.seed)
    settings = BookSettings(
        SHOOTER, ROLLOUT, args.positions, args.samples, args.width, args.z, 0.0, args.seed
    )
    try:
        book = build_book(
            preset(args.rules), settings, (SHOOTER, ROLLOUT), lambda line: print(line, flush=True)
        )
    except BattleshipError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    book.save(args.out)
    moved = sum(e.cell != e.base for e in book.entries.values())
    print(
        f"{len(book.entries)} positions, {moved} where the book leaves the shooter's cell; wrote {args.out}"
    )
    return 0


def verify(rules_name: str, samples: int, seed: int) -> int:
    """Each move of the shipped book measured again on fresh layouts; its worth a game, summed."""
    rules = preset(rules_name)
    total = variance = 0.0
    for key, entry, gain, error in verify_book(rules, book_for(rules, SHOOTER), ROLLOUT, samples, seed):
        total += entry.reach * gain
        variance += (entry.reach * error) ** 2
        print(
            f"{key} reach {entry.reach:.4f}: {entry.base} -> {entry.cell}, built {entry.gain:+.3f} "
            f"+- {entry.error:.3f}, again {gain:+.3f} +- {error:.3f} over {samples:,} fresh layouts",
            flush=True,
        )
    print(f"worth a game (gain times reach, summed): {total:.4f} +- {variance**0.5:.4f}")
    book = book_for(rules, SHOOTER)
    for generator, held_out in (("uniform", 45111), ("sequential", 45112)):
        rows = generators.draw(rules, generator, held_out, 20_000, threads=False)
        moved = sum(_meets_a_move(book, generators.to_layout(rules, row)) for row in rows)
        print(f"{generator} layouts of seed {held_out}: {moved / len(rows):.3f} of 20,000 games meet a move")
    return 0


def _meets_a_move(book: Book, layout: Layout) -> bool:
    """True when the book's game on ``layout`` reaches a position where the book moves density's cell."""
    game = Game(layout)
    while (entry := book.entries.get(game.observation.text())) is not None:
        if entry.cell != entry.base:
            return True
        game.fire(entry.cell)
    return False


if __name__ == "__main__":
    sys.exit(main())
