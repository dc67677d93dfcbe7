"""A run saved under an old spelling of a shooter's options carries on with --resume."""

import dataclasses

from battleship.lab.shots_file import _with_new_keys
from battleship.shooters import registry


def test_an_old_spelling_reads_as_todays_label_and_options():
    old = {"endgame": 12, "tie": "first"}  # a run.json written before optimal's endgame became exact
    saved = _with_new_keys({"seed": 1, "options": {"optimal:endgame=12": old}})
    name, options = registry.resolve("optimal:exact=12")
    assert saved["options"] == {"optimal:exact=12": dataclasses.asdict(options)}
    assert options.exact == 12 and name == "optimal"


def test_a_label_no_longer_known_stays_as_saved_with_new_keys_filled_in():
    saved = _with_new_keys({"options": {"gone:key=1": {"tie": "first"}}})
    values = saved["options"]["gone:key=1"]
    assert values["tie"] == "first" and "lastship" in values
