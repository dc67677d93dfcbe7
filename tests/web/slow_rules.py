"""Rules under which exact play and counting take minutes: what the web must bound, refuse or stop."""

# the stall: a T-shaped ship that may be mirrored, no shared edges; one hit at A1 took minutes
T_SHAPES = """
rows = 10
cols = 10
spacing = "no-edge"
sinks = "named"
reflections = true

[[ship]]
name = "Tee"
symbol = "T"
shape = "###/.#."

[[ship]]
name = "Carrier"
symbol = "C"
length = 5

[[ship]]
name = "Battleship"
symbol = "B"
length = 4

[[ship]]
name = "Cruiser"
symbol = "R"
length = 3

[[ship]]
name = "Submarine"
symbol = "S"
length = 3

[[ship]]
name = "Destroyer"
symbol = "D"
length = 2
"""
ONE_HIT = "x........./" + "/".join(["." * 10] * 9)
