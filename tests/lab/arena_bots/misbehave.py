"""A bot that plays by the arena protocol (firing at cells in reading order) until its MODE misbehaves.

Usage: misbehave.py MODE [GAME]  -- MODE misbehaves in game GAME (default 1, counted from 1), and
only there, so the games before and after show the arena recovering:
crash, hang, spin, late, nonsense, blank, offboard, double, flood, deaf, memory, nostart, badstart, badlayout, fine;
chatty, which says debug, info and author lines before every answer (the referee skips them);
orphan, which leaves a child holding its output and exits (code 4) instead of answering;
and burn, which from the start spins a thread between its turns (only a CPU-time limit stops it),
and burn-deaf, which does so ignoring SIGXCPU (the referee's own reading of its CPU time stops it);
weird, which says ``protocol ²`` and a name full of control characters before ``readyok``, and in game
G (counted from 1) answers its third ``shoot`` with WEIRD[G - 1] (bytes, not always UTF-8), then plays on.
"""

import signal
import subprocess
import sys
import threading
import time

# what the weird bot answers to its third shot, game by game: a digit Python calls a digit but cannot
# read, an Arabic-Indic digit, bytes that are not UTF-8, a NUL, a huge number, a sign, a vertical tab
WEIRD = [b"A\xc2\xb2", b"A\xd9\xa3", b"\xff\xfeA1", b"A1\x00", b"A" + b"9" * 400, b"-A1", b"A\x0b1"]
mode = sys.argv[1]
bad_game = int(sys.argv[2]) if len(sys.argv) > 2 else 1
if mode == "nostart":
    sys.exit(3)
rows = cols = 0
game = shots = 0


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def spin():
    while True:
        pass


def name(cell):
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[cell // cols] + str(cell % cols + 1)


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "board":
        rows, cols = int(words[1]), int(words[2])
    elif words[0] == "isready":
        if mode == "weird":
            say("protocol \u00b2")
            say("name \x1b[31mred\u202e\x07")
        say("readyok" if mode != "badstart" else "hello")
        if mode.startswith("burn"):
            if mode == "burn-deaf":
                signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            threading.Thread(target=spin, daemon=True).start()
    elif words[0] == "newgame":
        game, shots = int(words[1]), 0
    elif words[0] == "place":
        say("layout " + ("nonsense" if mode == "badlayout" and game == bad_game else "random"))
    elif words[0] == "shoot":
        bad = game == bad_game and shots == 2
        if bad and mode == "crash":
            raise RuntimeError("the bot fell over")
        if bad and mode == "orphan":
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # inherits stdout
            sys.exit(4)
        if bad and mode == "hang":
            time.sleep(3600)
        if bad and mode == "late":
            time.sleep(1.0)
        if bad and mode == "nonsense":
            say("hello there")
            continue
        if bad and mode == "blank":
            say("")
            continue
        if mode == "chatty":
            for chatter in ("debug thinking hard", "debug", "info depth 3", "author a tester"):
                say(chatter)
        if bad and mode == "offboard":
            say("Z99")
            continue
        if bad and mode == "double":
            shots -= 1
        if bad and mode == "flood":
            say("A" * 100_000)
            continue
        if bad and mode == "deaf":
            say(name(shots))
            time.sleep(3600)  # answers once, then never reads its input again
        if mode.startswith("burn"):
            time.sleep(0.05)  # slow enough that its spinning thread burns a second of CPU in a game
        if bad and mode == "spin":
            spin()
        if bad and mode == "memory":
            hog = bytearray(4 << 30)
        if mode == "weird" and shots == 2 and game <= len(WEIRD):
            sys.stdout.flush()
            sys.stdout.buffer.write(WEIRD[game - 1] + b"\n")
            sys.stdout.buffer.flush()
            shots += 1
            continue
        say(name(shots))
        shots += 1
    elif words[0] == "quit":
        break
