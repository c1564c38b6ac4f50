"""`tui.render.fit_lines`: the text views (`show`, `log`) fit 80 columns, as over SSH."""

from __future__ import annotations

from engine.core.packets import fingerprint
from tui.render import fit_lines

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
