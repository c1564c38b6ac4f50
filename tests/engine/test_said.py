"""`engine.core.text.said`: a revealed or engine-made secret choice as a log line says it.

The events printed Python's own ``repr`` ("{'flagship': 'KZI-0001', 'units': [...]}") into
the log a player reads; they now read as words, and the same choice always reads alike."""

from __future__ import annotations

import pytest

from engine.core.text import said


@pytest.mark.parametrize(
    ("choice", "words"),
    [
        (3, "3"),
        ("default", "default"),
        ("", "none"),
        ([], "none"),
        ({}, "none"),
        (["KLI-0001", "KLI-0002"], "KLI-0001 KLI-0002"),
        (
            {"flagship": "KZI-0016", "units": ["KZI-0016", "KZI-0017"], "groups": []},
            "flagship KZI-0016, units KZI-0016 KZI-0017, groups none",
        ),
        (
            {"flagship": "KZI-0016", "groups": [{"carrier": "KZI-0016", "escorts": ["KZI-0017"]}]},
            "flagship KZI-0016, groups (carrier KZI-0016, escorts KZI-0017)",
        ),
        ({"KZI-0001": 2, "cloak": True}, "KZI-0001 2, cloak yes"),
    ],
)
def test_a_choice_reads_as_words(choice: object, words: str) -> None:
    assert said(choice) == words
