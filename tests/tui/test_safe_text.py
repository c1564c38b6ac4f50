"""`tui.safe_text`: other people's text reaches the terminal as something to read, never as
something the terminal obeys (escape sequences, other controls, bidi overrides, zero-width and
separator characters), and never as Rich markup."""

from __future__ import annotations

import io
import json
import sys
import unicodedata

import pytest
from rich.text import Text
from textual.content import Content

from tui import render
from tui.safe_text import (
    ELLIPSIS,
    SafeStream,
    markup_escaped,
    plain,
    safe_lines,
    safe_output,
    safe_record,
    safe_text,
)

UNSAFE_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")

ATTACKS = {
    "\x1b[2J\x1b[H": "\\x1b[2J\\x1b[H",  # clear the screen, cursor home
    "\x1b]0;pwned\x07": "\\x1b]0;pwned\\x07",  # set the window title (OSC ... BEL)
    "\x1b]8;;http://evil\x1b\\x": "\\x1b]8;;http://evil\\x1b\\x",  # a hidden hyperlink
    "\x9b2J": "\\x9b2J",  # C1 CSI: the same clear in one byte
    "a\x00b\x7fc\x08d": "a\\x00b\\x7fc\\x08d",  # NUL, DEL, backspace
    "tab\there\rover": "tab\\there\\rover",  # a carriage return overwrites the line
    "pay \u202e01$ 99": "pay \\u202e01$ 99",  # right-to-left override
    "\u2066iso\u2069\u2067x\u2068": "\\u2066iso\\u2069\\u2067x\\u2068",  # bidi isolates
    "\u202a\u202b\u202c\u202d": "\\u202a\\u202b\\u202c\\u202d",  # embeddings, pop
    "zero\u200bwidth\ufeff": "zero\\u200bwidth\\ufeff",
    "line\u2028para\u2029": "line\\u2028para\\u2029",
    "one\ntwo": "one\\ntwo",
    "tag\U000e0041": "tag\\U000e0041",
}


@pytest.mark.parametrize(("hostile", "shown"), ATTACKS.items())
def test_unsafe_characters_become_visible_escapes(hostile: str, shown: str) -> None:
    out = safe_text(hostile)
    assert out == shown
    assert out.isprintable()
    assert "\x1b" not in out and "\n" not in out


def test_printable_text_of_any_script_passes_unchanged() -> None:
    for text in (
        "Zoë Ångström",
        "東京の艦隊",
        "🎲 6+6",
        "Ñandú [x] {y} \\path",
        "a  b",
        "\u00a0nbsp",
    ):
        assert safe_text(text) == text


def test_multiline_keeps_newlines_only() -> None:
    assert safe_lines("one\ntwo\x1b[2J\r\n") == "one\ntwo\\x1b[2J\\r\n"
    assert safe_text("a\u2028b", multiline=True) == "a\\u2028b"  # a separator is no newline


def test_it_is_idempotent_and_takes_anything() -> None:
    once = safe_text("x\x1b[31m\u202ey\nz")
    assert safe_text(once) == once
    assert safe_text(ValueError("bad \x1b[2J")) == "bad \\x1b[2J"
    assert safe_text(12) == "12"


def test_a_lone_surrogate_is_escaped_so_the_output_can_be_encoded() -> None:
    out = safe_text("a\ud800b")
    assert out == "a\\ud800b"
    out.encode("utf-8")


def test_the_cap_cuts_with_an_ellipsis_and_never_halves_an_escape() -> None:
    assert safe_text("abcdefghij", limit=5) == "abcd" + ELLIPSIS
    assert safe_text("abcd", limit=4) == "abcd"
    assert safe_text("ab\x1bcdef", limit=5) == "ab" + ELLIPSIS  # not "ab\x" + ...
    assert safe_text("ab\x1bcdef", limit=7) == "ab\\x1b" + ELLIPSIS
    assert safe_text("abcdef", limit=3, ellipsis="...") == "..."
    huge = "\x1b" * 1_000_000
    assert safe_text(huge, limit=20) == "\\x1b" * 4 + ELLIPSIS
    for limit in range(1, 12):
        assert len(safe_text("x\u202ey\x1bz" * 3, limit=limit)) <= limit


def test_every_control_format_and_separator_character_is_escaped() -> None:
    """The list of ranges in `tui.safe_text` against this Python's Unicode database: a newer
    Unicode that adds a format character fails here until the list has it."""
    unsafe = "".join(
        ch
        for ch in map(chr, range(sys.maxunicode + 1))
        if unicodedata.category(ch) in UNSAFE_CATEGORIES
    )
    assert len(unsafe) > 2000
    out = safe_text(unsafe)
    assert out.isascii() and out.isprintable()
    assert safe_lines(unsafe).replace("\n", "").isprintable()


def test_nothing_printable_is_escaped() -> None:
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    from tui.safe_text import _UNSAFE

    touched = {m.group() for m in _UNSAFE.finditer(everything)}
    assert {unicodedata.category(ch) for ch in touched} <= {*UNSAFE_CATEGORIES, "Cn"}


MARKUP = [
    "[bold red]Mallory[/]",
    "[link=http://evil.example]click[/link]",
    "[/link] closes nothing",
    "[@click=app.quit]quit[/]",
    "ends with a backslash [b]\\",
]


@pytest.mark.parametrize("text", MARKUP)
def test_markup_shows_as_typed(text: str) -> None:
    assert plain(text).plain == text
    assert not plain(text).spans
    assert isinstance(plain(text), Text)
    escaped = markup_escaped(text)
    assert Text.from_markup(escaped).plain.rstrip("\\") == text.rstrip("\\")
    assert Content.from_markup(escaped).plain.rstrip("\\") == text.rstrip("\\")
    assert not Text.from_markup(escaped).spans


def test_markup_helpers_escape_controls_too() -> None:
    assert plain("[b]\x1b[2J").plain == "[b]\\x1b[2J"
    assert "\x1b" not in markup_escaped("\x1b[2J")


def test_a_record_is_cleaned_string_by_string() -> None:
    record = {
        "name": "war\x1b[2J",
        "seats": [{"name": "M\nFAKE", "n": 3, "joined": True, "none": None}],
        "pair": ("\u202e", 1.5),
        "opt\x07": "v",
    }
    assert safe_record(record) == {
        "name": "war\\x1b[2J",
        "seats": [{"name": "M\\nFAKE", "n": 3, "joined": True, "none": None}],
        "pair": ("\\u202e", 1.5),
        "opt\\x07": "v",
    }
    assert record["name"] == "war\x1b[2J"  # a copy: the caller's record is untouched


def test_the_safe_stream_escapes_what_is_printed_and_is_taken_away_after() -> None:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        with pytest.raises(RuntimeError), safe_output():
            assert isinstance(sys.stdout, SafeStream)
            print("one\x1b[2J\ntwo\u202e")
            print("bad\x07", file=sys.stderr)
            sys.stdout.writelines(["\x9b", "\n"])
            raise RuntimeError
        assert sys.stdout is out and sys.stderr is err
    finally:
        sys.stdout, sys.stderr = saved
    assert out.getvalue() == "one\\x1b[2J\ntwo\\u202e\n\\x9b\n"
    assert err.getvalue() == "bad\\x07\n"


def test_json_output_carries_no_raw_control_character(capsys: pytest.CaptureFixture[str]) -> None:
    record = {"name": "war\x1b[2J\u202e\x9b", "events": ["a\nb\u2028"]}
    render.emit(record, True, render.log_text)
    out = capsys.readouterr().out
    assert out.isascii()
    assert "\x1b" not in out and "\x9b" not in out
    assert json.loads(out) == record  # still exactly what the packet said


def test_json_output_is_laid_out_as_json_dumps_with_an_indent_of_two(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`render.emit` indents with msgspec for speed; scripts reading ``--json`` see the text
    `json.dumps(indent=2)` writes, byte for byte: empty containers, nesting, escapes."""
    record = {
        "a": [],
        "b": {},
        "c": [1, {"d": None, "e": [True, False, 'x\u00e9\x7f"q\\']}],
        "f": {"g": {"h": -3}},
        "": "",
    }
    render.emit(record, True, render.log_text)
    assert capsys.readouterr().out == json.dumps(record, indent=2, ensure_ascii=True) + "\n"


def test_text_views_print_each_field_as_one_safe_line(capsys: pytest.CaptureFixture[str]) -> None:
    records = [
        {
            "seq": 4,
            "seat": "coalition",
            "kind": "chat",
            "packet": "ab" * 16,
            "written_at": "2030-01-01T00:00:00Z\x1b[2J",
            "events": ["hi\x1b]0;pwned\x07\nFAKE: alliance resigned", "\u202edesrever"],
        }
    ]
    render.emit(records, False, render.log_text)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[1].strip() == "hi\\x1b]0;pwned\\x07\\nFAKE: alliance resigned"
    assert lines[2].strip() == "\\u202edesrever"
    assert lines[0].endswith("\\x1b[2J")
