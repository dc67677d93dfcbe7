#!/usr/bin/env python3
"""An external arena bot in plain Python (standard library only): hunt on a checkerboard, then target.

Run it:  battleship arena "exec:python3 examples/bots/hunt_target.py" density:skew=20 --games 200

It speaks the arena protocol, version 3 (docs/arena-protocol.md), on stdin and stdout: it reads the
board from the rules block, seeds its random numbers from each ``newgame``, answers ``shoot`` with a
cell name (``shoot K``, under salvo rules, with K of them) and reads each ``result``. Everything else
it is sent, it ignores, as the protocol asks: a salvo answered whole (``salvo ... hits H``) tells it
nothing it uses, and under answers that lie (``noise``) or a cheating hider (``hider``) it plays as
ever, taking every answer at its word and never firing at a cell twice, so it fires at every cell
before it runs out and every game ends.
"""

import random
import sys

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()  # the referee is waiting for this line


def name(cell, cols):
    return LETTERS[cell // cols] + str(cell % cols + 1)


def parse(text, cols):
    return LETTERS.index(text[0]) * cols + int(text[1:]) - 1


def neighbours(cell, rows, cols):
    r, c = divmod(cell, cols)
    for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= y < rows and 0 <= x < cols:
            yield y * cols + x


def main():
    rows = cols = 0
    rng, fired, hits = random.Random(0), set(), set()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "battleship" and words[1] not in ("1", "2", "3"):
            print(f"speaks protocol 1 to 3, not {words[1]}", file=sys.stderr)
            return 1
        if command == "board":
            rows, cols = int(words[1]), int(words[2])
        elif command == "isready":
            say("name hunt-target (python)")
            say("protocol 3")
            say("readyok")
        elif command == "newgame":
            rng, fired, hits = random.Random(int(words[2])), set(), set()
        elif command == "shoot":
            cells = []
            for _ in range(int(words[1]) if len(words) > 1 else 1):  # a salvo: K cells, each chosen so
                targets = sorted({n for h in hits for n in neighbours(h, rows, cols)} - fired)
                free = [c for c in range(rows * cols) if c not in fired]
                parity = [c for c in free if (c // cols + c % cols) % 2 == 0]
                cell = rng.choice(targets or parity or free)
                fired.add(cell)
                cells.append(name(cell, cols))
            say(" ".join(cells))
        elif command == "result":
            cell = parse(words[1], cols)
            if words[2] == "hit" or words[2] == "sunk":
                hits.add(cell)
            if len(words) > 4:  # revealed rules: the sunk ship's cells need no more targeting
                hits -= {parse(c, cols) for c in words[4].split(",")}
        elif command == "place":
            say("layout random")
        elif command == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
