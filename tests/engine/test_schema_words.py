"""`engine.core.schema_words.explained`: a msgspec refusal completed with what its place takes."""

from __future__ import annotations

import enum
from typing import Annotated, Literal

import msgspec
import pytest

from engine.core.schema_words import explained


class Speed(enum.Enum):
    SLOW = "slow"
    FAST = "fast"


class Inner(msgspec.Struct, forbid_unknown_fields=True, tag="inner"):
    mode: Literal["", "auto", "never"] = ""
    speed: Speed = Speed.SLOW


class Other(msgspec.Struct, forbid_unknown_fields=True, tag="other"):
    size: int = 0


class Empty(msgspec.Struct, forbid_unknown_fields=True, tag="empty"):
    pass


class Outer(msgspec.Struct, forbid_unknown_fields=True, tag="outer"):
    items: list[Inner] = []
    named: dict[str, Inner] = {}
    maybe: Inner | None = None
    either: Inner | Other | None = None
    kept: Annotated[tuple[Inner, ...], msgspec.Meta(max_length=3)] = ()
    to: str = msgspec.field(default="", name="to-hex")


def refusal(value: object) -> str:
    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.convert(value, type=Outer)
    return explained(str(caught.value), Outer)


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        (
            {"type": "outer", "items": [{}, {"mode": "sometimes"}]},
            "Invalid enum value 'sometimes' - at `$.items[1].mode`: "
            'it takes "", "auto" or "never"',
        ),
        (
            {"type": "outer", "named": {"a": {"speed": "warp"}}},
            'Invalid enum value \'warp\' - at `$.named[...].speed`: it takes "slow" or "fast"',
        ),
        (
            {"type": "outer", "kept": [{"mode": "x"}]},
            'Invalid enum value \'x\' - at `$.kept[0].mode`: it takes "", "auto" or "never"',
        ),
        (
            {"type": "outer", "itmes": []},
            "Object contains unknown field `itmes`; the fields there are "
            "items, named, maybe, either, kept, to-hex",
        ),
        (
            {"type": "outer", "maybe": {"mod": "auto"}},
            "Object contains unknown field `mod` - at `$.maybe`; the fields there are mode, speed",
        ),
    ],
)
def test_it_adds_what_the_place_takes(value: object, wanted: str) -> None:
    assert refusal(value) == wanted


def test_a_table_without_fields_says_so() -> None:
    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.convert({"type": "empty", "moves": []}, type=Empty)
    assert explained(str(caught.value), Empty) == (
        "Object contains unknown field `moves`; no field is taken there"
    )


def test_a_place_it_cannot_tell_keeps_the_message_as_it_came() -> None:
    # Two tables may stand there: which one the writer meant is not known.
    message = "Object contains unknown field `mod` - at `$.either`"
    assert explained(message, Outer) == message
    # A path through a field the schema does not have, or one it cannot read.
    for path in ("$.nothing.mode", "$.items.mode", "$.items[0]mode", "items[0].mode"):
        message = f"Invalid enum value 'x' - at `{path}`"
        assert explained(message, Outer) == message


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        # TOML and JSON writers often give a hex or a name as a bare number, a number in
        # quotes, or one item where a list is taken: the refusal says how to write it.
        (
            {"type": "outer", "to-hex": 1307},
            "Expected `str`, got `int` - at `$.to-hex`: write it in quotes (it is text)",
        ),
        (
            {"type": "outer", "items": [{"mode": 3.5}]},
            "Expected `str`, got `float` - at `$.items[0].mode`: write it in quotes (it is text)",
        ),
        (
            {"type": "other", "size": "3"},
            "Expected `int`, got `str` - at `$.size`: write it without quotes (it is a number)",
        ),
        (
            {"type": "outer", "items": {"mode": "auto"}},
            "Expected `array`, got `object` - at `$.items`: write a list, in square brackets",
        ),
    ],
)
def test_a_value_of_the_wrong_kind_says_how_to_write_it(
    value: dict[str, object], wanted: str
) -> None:
    root: type = Other if value["type"] == "other" else Outer
    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.convert(value, type=root)
    assert explained(str(caught.value), root) == wanted


def test_other_messages_pass_unchanged() -> None:
    message = refusal({"type": "outer", "maybe": "x"})
    assert message == "Expected `object | null`, got `str` - at `$.maybe`"
