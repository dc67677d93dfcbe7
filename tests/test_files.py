"""Writing result files: whole or untouched, no link followed, devices and pipes written through."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from battleship.errors import BattleshipError
from battleship.files import write_atomically


def test_a_file_is_replaced_whole(tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old")
    write_atomically(target, "new")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no part file left


def test_a_planted_link_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "results.json"
    link.symlink_to(victim)
    write_atomically(link, "new")
    assert victim.read_text() == "precious"
    assert not link.is_symlink() and link.read_text() == "new"


def test_a_named_pipe_is_written_through_and_stays_a_pipe(tmp_path):
    # as /dev/null would be: renaming over it would leave a plain file where the device was
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_text()))
    reader.start()
    write_atomically(pipe, "through")
    reader.join(10)
    assert got == ["through"]
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_an_unwritable_place_is_a_clear_error(tmp_path):
    with pytest.raises(BattleshipError, match="cannot write"):
        write_atomically(tmp_path / "no-such-folder" / "x.json", "x")
