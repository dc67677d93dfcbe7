"""Writing result files: whole or untouched, no link followed, devices and pipes written through."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from battleship.errors import BattleshipError
from battleship.files import read_text, write_atomically


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


def test_missing_folders_are_created_and_a_file_in_the_way_is_a_clear_error(tmp_path):
    write_atomically(tmp_path / "new" / "deeper" / "x.json", "x")
    assert (tmp_path / "new" / "deeper" / "x.json").read_text() == "x"
    (tmp_path / "a-file").write_text("mine")
    with pytest.raises(BattleshipError, match="a-file is a file, not a folder"):
        write_atomically(tmp_path / "a-file" / "x.json", "x")
    with pytest.raises(BattleshipError, match="is a folder, not a file"):
        write_atomically(tmp_path / "new", "x")
    assert (tmp_path / "a-file").read_text() == "mine"


def test_a_file_read_is_text_or_one_line_naming_it(tmp_path):
    (tmp_path / "latin1.txt").write_bytes("¡".encode("latin-1"))
    for path, message in (
        (tmp_path / "latin1.txt", "board file .*latin1.txt is not UTF-8 text"),
        (tmp_path, "cannot read board file .*: Is a directory"),
        (tmp_path / "missing", "cannot read board file .*missing: No such file or directory"),
    ):
        with pytest.raises(BattleshipError, match=message):
            read_text(path, "board file")
    (tmp_path / "fine.txt").write_text("é")
    assert read_text(tmp_path / "fine.txt", "board file") == "é"
