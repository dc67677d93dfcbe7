"""A shooter written as a class in its own file, named ``tests/cli/plodding.py:Plodding`` on the command line:
it fires in reading order, taking a moment over each shot, so that a run of it is long enough to interrupt."""

import time


class Plodding:
    """Reading order, one millisecond a shot: a game lasts until the last ship cell in reading order."""

    name = "plodding"

    def reset(self, rules, rng):
        self.next = 0

    def next_shot(self, observation):
        time.sleep(0.001)
        self.next += 1
        return self.next - 1
