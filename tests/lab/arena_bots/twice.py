"""A bot speaking version 3 of the arena protocol: cells in reading order, each fired at twice under noise.

Usage: twice.py MODE [GAME] -- MODE: fine (says 'protocol 3'; under a 'noise' line fires A1, A1, A2,
A2, ..., each cell twice, else each once); v2 (says 'protocol 2': a version 2 bot); again (in game GAME,
default 1, counted from 1, fires at A1 a second time on its second shot, whatever the rules).
It checks that the referee answers the cell it named.
"""

import sys

mode = sys.argv[1]
bad_game = int(sys.argv[2]) if len(sys.argv) > 2 else 1
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
cols = shots = game = 0
noise = False
last = ""


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "board":
        cols = int(words[2])
    elif words[0] == "noise":
        noise = True
    elif words[0] == "isready":
        say("name twice")
        say("protocol 2" if mode == "v2" else "protocol 3")
        say("readyok")
    elif words[0] == "newgame":
        game, shots = int(words[1]), 0
    elif words[0] == "shoot":
        cell = shots // 2 if noise else shots
        if mode == "again" and game == bad_game and shots == 1:
            cell = 0
        shots += 1
        last = LETTERS[cell // cols] + str(cell % cols + 1)
        say(last)
    elif words[0] == "result" and words[1] != last:
        print(f"the referee answered {words[1]} to my shot {last}", file=sys.stderr)
        sys.exit(5)
    elif words[0] == "place":
        say("layout random")
    elif words[0] == "quit":
        break
