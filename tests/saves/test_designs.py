"""Saved ship designs (`saves.designs`): round trips, names, hand-edited and hostile files,
and the write that never leaves half a file nor overwrites unasked."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from engine.design import FIELDS_BY_NAME, DesignInputError, DesignInputs, inputs_as_dict
from saves import designs
from saves.designs import (
    DesignExistsError,
    DesignFileError,
    DesignNameError,
    DesignNotFoundError,
    DesignStoreError,
    delete_design,
    design_names,
    design_path,
    list_designs,
    load_design,
    save_design,
)

SCOUT = DesignInputs(size=2, tl=12, speed=3, maneuver=1, sensors=2)


def file_of(home: Path, name: str) -> Path:
    return home / "designs" / f"{name}.toml"


def test_round_trip_keeps_inputs_and_notes(tmp_path: Path) -> None:
    saved = save_design(tmp_path, "scout", SCOUT, notes='fast "eyes"\nsecond line')
    assert saved.path == file_of(tmp_path, "scout")
    loaded = load_design(tmp_path, "scout")
    assert loaded.inputs == SCOUT
    assert loaded.notes == 'fast "eyes"\nsecond line'
    assert loaded.name == "scout"


def test_file_is_human_editable_one_field_a_line(tmp_path: Path) -> None:
    save_design(tmp_path, "scout", SCOUT)
    text = file_of(tmp_path, "scout").read_text(encoding="utf-8")
    assert text.startswith("# A hexpost ship design.")
    for key, value in inputs_as_dict(SCOUT).items():
        assert f"\n{key} = {value}\n" in text
    assert "notes =" not in text  # no notes, no empty notes line


def test_loose_form_values_are_checked_on_save(tmp_path: Path) -> None:
    saved = save_design(tmp_path, "form", {"size": "+2", "tl": "12"})
    assert (saved.inputs.size, saved.inputs.tl) == (2, 12)
    with pytest.raises(DesignInputError) as caught:
        save_design(tmp_path, "bad", {"size": "huge", "tl": "12"})
    assert caught.value.field == "size"
    assert not file_of(tmp_path, "bad").exists()


def test_hand_built_out_of_range_inputs_are_refused(tmp_path: Path) -> None:
    tl = FIELDS_BY_NAME["tl"]
    with pytest.raises(DesignInputError) as caught:
        save_design(tmp_path, "bad", DesignInputs(size=2, tl=tl.maximum + 1))
    assert caught.value.field == "tl"
    assert not file_of(tmp_path, "bad").exists()


def test_hand_edited_file_is_read(tmp_path: Path) -> None:
    save_design(tmp_path, "scout", SCOUT)
    path = file_of(tmp_path, "scout")
    path.write_text("size = 3\ntl = 14\n# a comment\nnotes = 'mine'\n", encoding="utf-8")
    loaded = load_design(tmp_path, "scout")
    assert (loaded.inputs.size, loaded.inputs.tl, loaded.notes) == (3, 14, "mine")
    assert loaded.inputs.speed == DesignInputs(size=3, tl=14).speed


@pytest.mark.parametrize(
    "name", ["", "a" * 41, "../escape", "a/b", ".hidden", "-dash", "sp ace", "é", "NUL", "com1"]
)
def test_bad_names_are_refused_before_any_path(tmp_path: Path, name: str) -> None:
    with pytest.raises(DesignNameError, match="design name"):
        save_design(tmp_path, name, SCOUT)
    with pytest.raises(DesignNameError):
        load_design(tmp_path, name)
    with pytest.raises(DesignNameError):
        delete_design(tmp_path, name)
    assert not (tmp_path / "designs").exists() or list((tmp_path / "designs").iterdir()) == []


def test_longest_name_is_allowed(tmp_path: Path) -> None:
    name = "A" + "b_-9" * 9 + "z" * 3
    assert len(name) == designs.MAX_NAME_LENGTH
    save_design(tmp_path, name, SCOUT)
    assert load_design(tmp_path, name).inputs == SCOUT


@pytest.mark.parametrize(
    ("text", "field", "needle"),
    [
        ("size = 2\ntl = 12\nspeed = 11\n", "speed", "out of range"),
        ("size = 2\ntl = 12\nsensors = 1.5\n", "sensors", "not a whole number"),
        ("size = 2\ntl = 12\narmor = true\n", "armor", "not a whole number"),
        ("size = 2\ntl = 12\nmaneuver = 'lots'\n", "maneuver", "maneuver"),
        ("size = 2\ntl = 12\nwarp = 9\n", "warp", "warp"),
        ("tl = 12\n", "size", "size"),
        ("size = 2\ntl = 12\nnotes = 5\n", "notes", "notes"),
    ],
)
def test_edited_invalid_field_names_file_field_and_range(
    tmp_path: Path, text: str, field: str, needle: str
) -> None:
    save_design(tmp_path, "scout", SCOUT)
    path = file_of(tmp_path, "scout")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DesignFileError) as caught:
        load_design(tmp_path, "scout")
    assert caught.value.field == field
    assert caught.value.path == path
    message = str(caught.value)
    assert message.startswith(str(path)) and needle in message
    if field in FIELDS_BY_NAME:
        assert FIELDS_BY_NAME[field].range_text() in message
    assert path.read_text(encoding="utf-8") == text  # nothing was rewritten


def test_speed_out_of_range_message_gives_the_range(tmp_path: Path) -> None:
    speed = FIELDS_BY_NAME["speed"]
    (tmp_path / "designs").mkdir()
    file_of(tmp_path, "s").write_text(f"size = 2\ntl = 12\nspeed = {speed.maximum + 1}\n")
    with pytest.raises(DesignFileError, match=re.escape(speed.range_text())):
        load_design(tmp_path, "s")


def test_broken_toml_and_bad_bytes_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "designs").mkdir()
    file_of(tmp_path, "broken").write_text("size = = 2\n")
    with pytest.raises(DesignFileError, match=r"broken\.toml: is not valid TOML"):
        load_design(tmp_path, "broken")
    file_of(tmp_path, "binary").write_bytes(b"size = 2\n\xff\xfe")
    with pytest.raises(DesignFileError, match="not UTF-8"):
        load_design(tmp_path, "binary")
    # A design file may come from anyone: nested past the parser's stack, it is refused too.
    file_of(tmp_path, "deep").write_text("size = " + "[" * 5_000)
    with pytest.raises(DesignFileError, match=r"deep\.toml: is not valid TOML: nested too deeply"):
        load_design(tmp_path, "deep")


def test_oversized_file_is_refused_without_reading_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "designs").mkdir()
    path = file_of(tmp_path, "huge")
    path.write_bytes(b"size = 2\ntl = 12\n" + b"#" * (designs.MAX_FILE_BYTES * 4))
    sizes: list[int] = []
    real_fdopen = os.fdopen

    class Spy:
        def __init__(self, handle: object) -> None:
            self.handle = handle

        def __enter__(self) -> Spy:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()  # type: ignore[attr-defined]

        def fileno(self) -> int:
            return int(self.handle.fileno())  # type: ignore[attr-defined]

        def read(self, size: int = -1) -> bytes:
            sizes.append(size)
            data: bytes = self.handle.read(size)  # type: ignore[attr-defined]
            return data

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: Spy(real_fdopen(fd, mode)))
    with pytest.raises(DesignFileError, match="larger than 16384 bytes"):
        load_design(tmp_path, "huge")
    assert sizes == [designs.MAX_FILE_BYTES + 1]


def test_file_just_under_the_bound_is_read(tmp_path: Path) -> None:
    (tmp_path / "designs").mkdir()
    body = b"size = 2\ntl = 12\n"
    padding = designs.MAX_FILE_BYTES - len(body) - 1
    file_of(tmp_path, "big").write_bytes(body + b"#" * padding + b"\n")
    assert load_design(tmp_path, "big").inputs.size == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    (tmp_path / "designs").mkdir()
    os.mkfifo(file_of(tmp_path, "pipe"))
    with pytest.raises(DesignFileError, match="not a regular file"):
        load_design(tmp_path, "pipe")


def test_no_overwrite_unless_replace(tmp_path: Path) -> None:
    save_design(tmp_path, "scout", SCOUT, notes="first")
    before = file_of(tmp_path, "scout").read_bytes()
    with pytest.raises(DesignExistsError, match="'scout' exists"):
        save_design(tmp_path, "scout", DesignInputs(size=5, tl=15))
    assert file_of(tmp_path, "scout").read_bytes() == before
    save_design(tmp_path, "scout", DesignInputs(size=5, tl=15), replace=True)
    assert load_design(tmp_path, "scout").inputs == DesignInputs(size=5, tl=15)
    assert load_design(tmp_path, "scout").notes == ""
    assert os.listdir(tmp_path / "designs") == ["scout.toml"]  # no temporary file left


def test_no_overwrite_even_without_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(_source: object, _target: object) -> None:
        raise OSError("links not supported")

    monkeypatch.setattr(os, "link", no_links)
    save_design(tmp_path, "scout", SCOUT)
    with pytest.raises(DesignExistsError):
        save_design(tmp_path, "scout", DesignInputs(size=5, tl=15))
    assert load_design(tmp_path, "scout").inputs == SCOUT
    assert os.listdir(tmp_path / "designs") == ["scout.toml"]


def test_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_design(tmp_path, "scout", SCOUT, notes="keep me")
    before = file_of(tmp_path, "scout").read_bytes()

    def disk_full(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        save_design(tmp_path, "scout", DesignInputs(size=5, tl=15), replace=True)
    assert file_of(tmp_path, "scout").read_bytes() == before
    assert os.listdir(tmp_path / "designs") == ["scout.toml"]


def test_failed_move_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save_design(tmp_path, "scout", SCOUT)
    before = file_of(tmp_path, "scout").read_bytes()

    def crash(_source: object, _target: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        save_design(tmp_path, "scout", DesignInputs(size=5, tl=15), replace=True)
    assert file_of(tmp_path, "scout").read_bytes() == before
    assert os.listdir(tmp_path / "designs") == ["scout.toml"]


def test_notes_are_bounded(tmp_path: Path) -> None:
    with pytest.raises(DesignStoreError, match="notes: 2001 characters, at most 2000"):
        save_design(tmp_path, "n", SCOUT, notes="x" * 2001)
    assert not file_of(tmp_path, "n").exists()
    for widest in ("\U0001f680" * 2000, "\x01" * 2000, '"\\' * 1000):
        save_design(tmp_path, "n", SCOUT, notes=widest, replace=True)
        assert load_design(tmp_path, "n").notes == widest  # the longest notes still load


def test_list_show_broken_files_beside_good_ones(tmp_path: Path) -> None:
    assert list_designs(tmp_path) == []
    assert design_names(tmp_path) == []
    save_design(tmp_path, "beta", SCOUT)
    save_design(tmp_path, "Alpha", DesignInputs(size=0, tl=10))
    file_of(tmp_path, "broken").write_text("size = 'x'\ntl = 12\n")
    (tmp_path / "designs" / ".scout.abc.tmp").write_text("junk")
    (tmp_path / "designs" / "bad name.toml").write_text("junk")
    (tmp_path / "designs" / "readme.txt").write_text("junk")
    entries = list_designs(tmp_path)
    assert [entry.name for entry in entries] == ["Alpha", "beta", "broken"]
    assert entries[0].design is not None and entries[0].design.inputs.size == 0
    assert entries[2].design is None and "broken.toml: " in entries[2].error
    assert "size" in entries[2].error


def test_delete(tmp_path: Path) -> None:
    save_design(tmp_path, "scout", SCOUT)
    assert delete_design(tmp_path, "scout") == file_of(tmp_path, "scout")
    assert design_names(tmp_path) == []
    with pytest.raises(DesignNotFoundError, match="no design named 'scout'"):
        delete_design(tmp_path, "scout")
    with pytest.raises(DesignNotFoundError, match="no design named 'scout'"):
        load_design(tmp_path, "scout")


def test_a_name_in_other_capitals_is_refused_with_the_names_saved(tmp_path: Path) -> None:
    save_design(tmp_path, "Scout", SCOUT)
    with pytest.raises(DesignNotFoundError) as missing:
        load_design(tmp_path, "SCOUT")
    assert str(missing.value) == (
        f"no design named 'SCOUT' ({file_of(tmp_path, 'SCOUT')}); "
        "names are matched exactly: saved is 'Scout'"
    )
    with pytest.raises(DesignNotFoundError, match=r"saved is 'Scout'$"):
        delete_design(tmp_path, "scout")
    with pytest.raises(DesignNotFoundError, match=r"\.toml\)$"):
        load_design(tmp_path, "frigate")  # (no name like it: nothing added)


def test_design_path_stays_in_the_folder(tmp_path: Path) -> None:
    assert design_path(tmp_path, "x-1_y").parent == tmp_path / "designs"
