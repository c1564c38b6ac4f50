"""The shortcuts the game screen's first paint takes (issue 16, item 5) give the answers of
the general code they skip: the columns a map window reads, a hex read as one number, and
the unsafe-text classes compiled only when a string needs them."""

from __future__ import annotations

import random

import pytest

from tui import safe_text as safe_text_module
from tui.mapgeom import LABEL_WIDTH, Frame, shape_for
from tui.mapstacks import board_hex
from tui.safe_text import safe_lines, safe_text


@pytest.mark.parametrize("detail", ["compact", "detailed"])
def test_columns_reaching_a_window_are_those_whose_box_or_brackets_reach_it(detail: str) -> None:
    shape = shape_for(detail)
    frame = Frame(3, 41, 1, 5, shape)
    reach = shape.width + 1  # the box and the bracket after it
    for start in range(frame.width + 2):
        for end in range(start, frame.width + 3):
            wanted = [
                c
                for c in frame.columns
                if not (frame.column_x(c) + reach <= start or frame.column_x(c) - 1 >= end)
            ]
            assert list(frame.columns_reaching(start, end)) == wanted, (start, end)
    assert frame.column_x(frame.col0) == LABEL_WIDTH


def _board_hex_by_parts(text: str | None, digits: int) -> int | None:
    """`board_hex` as it read every hex before its two-digit shortcut."""
    if text is None or len(text) != 2 * digits or not text.isdigit():
        return None
    col, row = int(text[:digits]), int(text[digits:])
    return col * 100 + row if col <= 99 and row <= 99 else None


def test_a_two_digit_hex_read_as_one_number_is_its_column_and_row() -> None:
    draw = random.Random(16)
    texts: list[str | None] = [None, "", "0000", "9999", "0101", "1411", "6119", "141", "14111"]
    texts += ["\u0661\u0664\u0661\u0661", "14a1", " 141", "-141", "+141"]  # Arabic-Indic digits
    texts += [f"{draw.randrange(10_000):04d}" for _ in range(500)]
    for text in texts:
        assert board_hex(text, 2) == _board_hex_by_parts(text, 2), text
    for text in ("010203", "099099", "100100", "001001"):
        assert board_hex(text, 3) == _board_hex_by_parts(text, 3), text


def test_printable_text_compiles_no_class_and_unsafe_text_is_still_escaped() -> None:
    one_line, lines = safe_text_module._UNSAFE, safe_text_module._UNSAFE_BUT_NEWLINE
    saved = (one_line._compiled, lines._compiled)
    try:
        one_line._compiled = lines._compiled = None
        assert safe_text("Klingon fleet \u00e9\u4e2d") == "Klingon fleet \u00e9\u4e2d"
        assert safe_lines("Hex 1411\nowner KLI") == "Hex 1411\nowner KLI"
        assert (one_line._compiled, lines._compiled) == (None, None)
        assert safe_lines("a\nb\x1b[2J\u202e") == "a\nb\\x1b[2J\\u202e"
        assert lines._compiled is not None
        assert safe_text("a\nb") == "a\\nb"  # one line: the newline is escaped
        assert safe_text("a\nb\u00a0c") == "a\\nb\u00a0c"  # unprintable but safe: kept
        assert safe_lines("a\u00a0\nb") == "a\u00a0\nb"
    finally:
        one_line._compiled, lines._compiled = saved
