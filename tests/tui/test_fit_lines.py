"""`tui.render.fit_lines`: the text views (`show`, `log`) fit 80 columns, as over SSH."""

from __future__ import annotations

from engine.core.packets import fingerprint
from tui.columns import columns
from tui.render import chat_text, fit_lines

KEY = fingerprint(bytes(32))


def test_a_short_line_is_left_as_it_is() -> None:
    lines = ["  KLI coalition  treasury 0 EP", "x" * 80, ""]
    assert fit_lines(lines) == lines


def test_a_long_line_wraps_under_its_own_indent_plus_four() -> None:
    line = "       " + " ".join(f"word{n}" for n in range(30))
    fitted = fit_lines([line])
    assert len(fitted) > 1 and max(len(part) for part in fitted) <= 80
    assert fitted[0].startswith("       word0 ")
    assert all(part.startswith(" " * 11) and part[11] != " " for part in fitted[1:])
    assert " ".join(" ".join(fitted).split()) == line.strip()


def test_a_fingerprint_is_never_cut_and_a_long_word_is_kept_whole() -> None:
    line = f"       Bob <bob@example.org> took the alliance seat with key {KEY}"
    fitted = fit_lines([line])
    assert fitted == [
        "       Bob <bob@example.org> took the alliance seat with key",
        f"           {KEY}",
    ]
    word = "x" * 90
    assert fit_lines([f"a {word} b"]) == ["a", f"    {word}", "    b"]


def test_wide_characters_are_wrapped_by_the_columns_they_take() -> None:
    # A name in Japanese takes two terminal columns a character: 50 characters of it and the
    # words around it are 120 columns, which a terminal of 80 would break at its first column.
    line = "  waiting for " + "山田" * 25 + " to answer the combat step"
    fitted = fit_lines([line])
    assert len(fitted) > 1
    assert fitted[0] == "  waiting for"
    assert fitted[1] == "      " + "山田" * 25
    assert fitted[2] == "      to answer the combat step"
    assert " ".join(" ".join(fitted).split()) == line.strip()


def test_a_line_of_wide_characters_within_80_columns_is_left_whole() -> None:
    line = "  " + "山" * 39
    assert columns(line) == 80 and fit_lines([line]) == [line]
    assert fit_lines([line + "山"]) == [line + "山"]  # one word: kept whole, never cut


def test_a_long_chat_message_is_listed_within_80_columns() -> None:
    text = " ".join(["ready when you are, the Klingons move first"] * 5)
    lines = [{"written_at": "2026-12-07T21:56:55Z", "seat": "coalition", "seq": 1,
              "after_packet": 5, "text": text}]  # fmt: skip
    shown = chat_text(lines).splitlines()
    assert max(columns(line) for line in shown) <= 80, shown
    assert shown[1].startswith("2026-12-07T21:56:55Z  coalition  #1   (after packet 5): ready")
    assert all(line.startswith("    ") for line in shown[2:])
    assert " ".join(" ".join(shown[1:]).split()).endswith(text)
