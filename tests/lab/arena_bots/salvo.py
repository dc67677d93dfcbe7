"""A bot speaking version 2 of the arena protocol: salvos of cells in reading order.

Usage: salvo.py MODE [GAME] -- MODE misbehaves in game GAME (default 1, counted from 1), on its second
salvo, and only there: fine; short (one cell too few), repeat (a cell named twice in the salvo),
again (a cell fired at before), offboard, junk; v1 (never says 'protocol 2': a version 1 bot).
It checks what the referee answers: a salvo answered whole must name the cells it fired.
"""

import sys

mode = sys.argv[1]
bad_game = int(sys.argv[2]) if len(sys.argv) > 2 else 1
rows = cols = 0
game = turn = fired = 0
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def name(cell):
    return LETTERS[cell // cols] + str(cell % cols + 1)


last = []
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "board":
        rows, cols = int(words[1]), int(words[2])
    elif words[0] == "isready":
        say("name salvo in reading order")
        if mode != "v1":
            say("protocol 2")
        say("readyok")
    elif words[0] == "newgame":
        game, turn, fired = int(words[1]), 0, 0
    elif words[0] == "shoot":
        k = int(words[1]) if len(words) > 1 else 1
        turn += 1
        cells = [name(c) for c in range(fired, min(fired + k, rows * cols))]
        fired += len(cells)
        bad = game == bad_game and turn == 2
        if bad and mode == "short":
            cells = cells[:-1]
        elif bad and mode == "repeat":
            cells[-1] = cells[0]
        elif bad and mode == "again":
            cells[-1] = "A1"
        elif bad and mode == "offboard":
            cells[-1] = "Z99"
        elif bad and mode == "junk":
            cells[-1] = "fire!"
        last = cells
        say(" ".join(cells))
    elif words[0] == "salvo" and len(words) > 2 and words[2] == "hits":
        if words[1].split(",") != last:
            print(f"the referee answered {words[1]} to my salvo {last}", file=sys.stderr)
            sys.exit(5)
    elif words[0] == "quit":
        break
