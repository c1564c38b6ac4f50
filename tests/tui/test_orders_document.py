"""An orders document's top level (`tui.services.orders.parse_orders`): nothing in it is
dropped unseen.

``[[order]]`` for ``[[orders]]`` in TOML (or ``"Orders"`` in JSON) made a table the reader
did not look at: the orders under it were left out of the packet without a word, and a file
of only such tables was refused as "no orders given", which sent the player looking in the
wrong place."""

from __future__ import annotations

import pytest

from engine.core.errors import HexpostError
from tui.services import orders


@pytest.mark.parametrize(
    ("text", "suffix", "key"),
    [
        ('[[orders]]\ntype = "done"\n\n[[order]]\ntype = "note"\ntext = "x"\n', ".toml", "order"),
        ('[[order]]\ntype = "done"\n', ".toml", "order"),
        ('{"orders": [{"type": "done"}], "Orders": []}', ".json", "Orders"),
        ('type = "done"\n\n[[orders]]\ntype = "note"\ntext = "x"\n', ".toml", "type"),
    ],
)
def test_a_key_beside_orders_is_refused_by_name(text: str, suffix: str, key: str) -> None:
    with pytest.raises(HexpostError) as refused:
        orders.parse_orders(text, f"turn{suffix}", suffix)
    assert str(refused.value) == (
        f"turn{suffix}: {key!r} is not part of an orders document: the orders go in a "
        "list named 'orders' ([[orders]] tables in TOML), and nothing else goes beside it"
    )


def test_the_orders_alone_are_read() -> None:
    assert orders.parse_orders('[[orders]]\ntype = "done"\n', "t.toml", ".toml") == [
        {"type": "done"}
    ]
    assert orders.parse_orders('{"orders": []}', "t.json", ".json") == []


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ("type = done", 'type = "done"'),
        ("hex = 0408", 'hex = "0408"'),
        ("fleet = Home Fleet", 'fleet = "Home Fleet"'),
    ],
)
def test_a_toml_value_left_unquoted_is_shown_quoted(line: str, hint: str) -> None:
    """TOML's own words for a bare word or a hex with its leading zero ("Invalid value",
    "Expected newline or end of document after a statement") do not say what to mend."""
    text = f'[[orders]]\ntype = "place"\n\n[[orders]]\n{line}\n'
    with pytest.raises(HexpostError) as refused:
        orders.parse_orders(text, "turn.toml", ".toml")
    said = str(refused.value)
    assert said.startswith("turn.toml: not valid TOML: "), said
    assert said.endswith(f"line 5 reads {line!r}: text goes in double quotes, as in {hint}")


def test_other_toml_errors_keep_tomls_words() -> None:
    with pytest.raises(HexpostError) as refused:
        orders.parse_orders('[[orders]]\ntype = "done\n', "turn.toml", ".toml")
    assert str(refused.value) == (
        "turn.toml: not valid TOML: Illegal character '\\n' (at line 2, column 13)"
    )


@pytest.mark.parametrize(
    ("text", "suffix"),
    [
        ('{"type": "note", "text": "x"}', ".json"),
        ('{"type": "note", "text": "x"}', ""),
        ('type = "note"\ntext = "x"\n', ".toml"),
    ],
)
def test_one_order_alone_is_a_list_of_one(text: str, suffix: str) -> None:
    """One order, as `hexpost choices` prints the engine's pick ready to send, is read as
    the app's orders box reads it: a list of one (it was refused, "'type' is not part of an
    orders document")."""
    assert orders.parse_orders(text, f"t{suffix}", suffix) == [{"type": "note", "text": "x"}]
