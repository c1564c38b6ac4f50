"""Files named on the command line are read with a bound on their size.

An orders file (`tui.commands.read_orders`) far larger than any packet is refused at once by
name, instead of being parsed, encoded and refused as a packet over its limit (a 100 MB file
took 21 s and 800 MB). An evidence file (`tui.services.trust.read_evidence_file`) is read no
further than its limit even when its size says nothing (a device or a pipe: before,
``verify-evidence /dev/zero`` read for ever)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine.core.errors import HexpostError
from saves import evidence
from tui import commands
from tui.services import trust

NOTE = '{"orders": [{"type": "note", "text": "hello"}]}'


def test_an_orders_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "turn.json"
    path.write_text(NOTE, encoding="utf-8")
    assert len(commands.read_orders(str(path))) == 1


def test_an_orders_file_larger_than_any_packet_is_refused_unparsed(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (commands.MAX_ORDERS_TEXT + 1))
    with pytest.raises(HexpostError) as raised:
        commands.read_orders(str(path))
    assert str(raised.value) == (
        f"orders file {path} is larger than 8 MiB of text: a packet carries at most 1 MiB of orders"
    )


def test_orders_on_standard_input_are_bounded_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(" " * (commands.MAX_ORDERS_TEXT + 1)))
    said = r"^orders on standard input are larger than 8 MiB of text"
    with pytest.raises(HexpostError, match=said):
        commands.read_orders("-")


def test_a_file_written_on_windows_reads_as_it_did(tmp_path: Path) -> None:
    """Lines ended by CR LF are read as `Path.read_text` reads them: a multi-line note keeps
    plain newlines, as before the size bound."""
    path = tmp_path / "turn.toml"
    path.write_bytes(b'[[orders]]\r\ntype = "note"\r\ntext = """two\r\nlines"""\r\n')
    (order,) = commands.read_orders(str(path))
    assert order["text"] == "two\nlines"


def test_an_endless_evidence_file_is_read_no_further_than_its_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(evidence, "MAX_FILE_BYTES", 1000)
    with pytest.raises(HexpostError) as raised:
        trust.read_evidence_file("/dev/zero")
    assert str(raised.value) == "/dev/zero: NOT PROVEN: the file has more than 1000 bytes"


def test_a_file_of_neither_kind_is_said_to_be_neither(tmp_path: Path) -> None:
    """Without a .json or .toml suffix the text is read as TOML unless it starts as JSON: a
    file of something else was said to be "not valid TOML" alone, as if TOML were asked."""
    path = tmp_path / "turn.bin"
    path.write_bytes(b"\x00\x01garbage")
    with pytest.raises(HexpostError) as raised:
        commands.read_orders(str(path))
    said = str(raised.value)
    assert said.startswith(f"{path}: neither JSON nor TOML (read as TOML: "), said
    assert said.endswith("): orders are a .json or .toml file"), said
    toml = tmp_path / "turn.toml"
    toml.write_text("orders = [", encoding="utf-8")
    with pytest.raises(HexpostError, match=r"turn\.toml: not valid TOML: "):
        commands.read_orders(str(toml))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_orders_typed_at_a_terminal_are_asked_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hexpost orders GAME -`` at a terminal waited in silence, as if hung."""
    monkeypatch.setattr("sys.stdin", _Terminal(NOTE))
    assert len(commands.read_orders("-")) == 1
    assert capsys.readouterr().err == (
        "type the orders (JSON or TOML), then ctrl+d on a line of its own (ctrl+c gives up)\n"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(NOTE))  # a pipe: nothing said
    assert len(commands.read_orders("-")) == 1
    assert capsys.readouterr().err == ""
