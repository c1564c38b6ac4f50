"""Order structs: reading them from files, and from packets (where only PacketError escapes)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.errors import IllegalOrder, PacketError
from engine.core.text import SAFE_PATTERN
from engine.core.turn_orders import Back, Done, Note, Roll, parse_dice
from engine.fe import RULESET
from engine.fe import orders as fe_orders

ALL_KINDS = [
    Done(),
    Done(note="income 142", adjustments=["+3 EP from planet 0617"], through="1H"),
    Note("waiting for the Kzinti response"),
    Roll("2d6", "capture attempt"),
    Back("5-2A1"),
]


def test_round_trip_through_packets_and_json() -> None:
    data = RULESET.encode_orders(ALL_KINDS)
    assert RULESET.decode_orders(data) == ALL_KINDS
    as_json = [RULESET.order_to_json(o) for o in ALL_KINDS]
    assert as_json[0] == {"type": "done"}
    assert as_json[3] == {"type": "roll", "dice": "2d6", "purpose": "capture attempt"}
    assert RULESET.parse_orders(as_json) == ALL_KINDS


def test_empty_order_list() -> None:
    assert RULESET.decode_orders(RULESET.encode_orders([])) == []


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (
            [{"type": "attack"}],
            "order 1: unknown type 'attack'; the known types are adjust, allocate, approach, back",
        ),
        ([{"note": "x"}], "order 1: no type"),
        ([{"type": "done"}, "done"], "order 2: expected a table"),
        ([{"type": "roll", "dice": "2d6"}], "order 1 (roll): Object missing required field"),
        ([{"type": "roll", "dice": "2d6", "purpose": ""}], "order 1 (roll)"),
        ([{"type": "roll", "dice": "21d6", "purpose": "x"}], "must look like 2d6"),
        ([{"type": "roll", "dice": "1d1", "purpose": "x"}], "must look like 2d6"),
        ([{"type": "roll", "dice": "d6", "purpose": "x"}], "must look like 2d6"),
        ([{"type": "done", "notes": "x"}], "order 1 (done): Object contains unknown field"),
        ([{"type": "done", "adjustments": "x"}], "order 1 (done): Expected `array`"),
        ([{"type": "note"}], "order 1 (note)"),
        ([{"type": "back", "step": 5}], "order 1 (back): Expected `str`"),
        (
            [{"type": "note", "text": "hi\x1b[2J"}],
            "order 1 (note): Expected one line of text without control or formatting "
            "characters - at `$.text`",
        ),
        (
            [{"type": "move", "units": ["KZI-0001"], "path": ["1307", "13a6"]}],
            "order 1 (move): Expected a hex as four digits, column then row (like 1307) - at "
            "`$.path[1]`",
        ),
        (
            [{"type": "adjust", "change": "steal", "reason": "r"}],
            "order 1 (adjust): Expected one of treasury, cripple, repair, destroy, move, place, "
            "convert, capture, devastate, recover - at `$.change`",
        ),
        (
            [{"type": "adjust", "change": "treasury", "reason": "r", "ep": "1.25"}],
            "order 1 (adjust): Expected an amount of EP in halves at most (like 12 or -3.5)",
        ),
        (
            [{"type": "allocate", "losses": ["sink KZI-0001"]}],
            "order 1 (allocate): Expected a loss: 'cripple ID', 'destroy ID', 'fighters ID N' "
            "or 'sids ID' - at `$.losses[0]`",
        ),
    ],
)
def test_parse_orders_errors(items: list[object], message: str) -> None:
    """Each refusal names the order and what was wrong, every text pattern in words."""
    with pytest.raises(IllegalOrder) as caught:
        RULESET.parse_orders(items)  # type: ignore[arg-type]
    assert message in str(caught.value)
    assert "regex" not in str(caught.value)


@pytest.mark.parametrize(
    ("dice", "parsed"),
    [("2d6", (2, 6)), ("1d100", (1, 100)), ("20d2", (20, 2)), ("0d6", None), ("2d101", None)],
)
def test_parse_dice(dice: str, parsed: tuple[int, int] | None) -> None:
    assert parse_dice(dice) == parsed


def test_decode_refuses_non_canonical_bytes() -> None:
    explicit = msgspec.msgpack.encode([{"type": "done", "note": ""}])
    with pytest.raises(PacketError, match="canonical"):
        RULESET.decode_orders(explicit)
    reordered = msgspec.msgpack.encode([{"purpose": "x", "type": "roll", "dice": "2d6"}])
    with pytest.raises(PacketError, match="canonical"):
        RULESET.decode_orders(reordered)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xc1",
        msgspec.msgpack.encode({"type": "done"}),
        msgspec.msgpack.encode([{"type": "secret", "choice": "x"}]),
        msgspec.msgpack.encode([{"type": "done", "extra": 1}]),
        msgspec.msgpack.encode([{"type": "note", "text": "x" * 2001}]),
        msgspec.msgpack.encode([[[[[]]]]]),
    ],
)
def test_decode_bad_bytes(data: bytes) -> None:
    with pytest.raises(PacketError):
        RULESET.decode_orders(data)


@given(st.binary(max_size=512))
def test_decode_fuzz_raises_only_packet_error(data: bytes) -> None:
    try:
        orders = RULESET.decode_orders(data)
    except PacketError:
        return
    assert RULESET.encode_orders(orders) == data


ORDER_DICT = st.fixed_dictionaries(
    {"type": st.sampled_from(["done", "note", "roll", "back", "other"])},
    optional={
        "note": st.text(max_size=5),
        "text": st.text(max_size=5),
        "dice": st.sampled_from(["2d6", "x", "1d6"]),
        "purpose": st.text(max_size=5),
        "step": st.text(max_size=5),
        "through": st.one_of(st.text(max_size=5), st.integers()),
    },
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ORDER_DICT, max_size=4))
def test_parse_fuzz_raises_only_illegal_order(items: list[dict[str, object]]) -> None:
    try:
        orders = RULESET.parse_orders(items)
    except IllegalOrder as exc:
        assert str(exc).startswith("order ")
        return
    assert RULESET.decode_orders(RULESET.encode_orders(orders)) == orders


def test_every_text_pattern_of_the_orders_has_words() -> None:
    """A field added later with a pattern of its own must be worded too (`worded`), or its
    refusal would show the regular expression."""
    patterns: set[str] = set()

    def walk(info: msgspec.inspect.Type, seen: set[int]) -> None:
        if id(info) in seen:
            return
        seen.add(id(info))
        if isinstance(info, msgspec.inspect.StrType) and info.pattern is not None:
            patterns.add(info.pattern)
        for name in ("types", "fields"):
            for item in getattr(info, name, ()) or ():
                walk(getattr(item, "type", item), seen)
        for name in ("item_type", "key_type", "value_type", "type"):
            inner = getattr(info, name, None)
            if isinstance(inner, msgspec.inspect.Type):
                walk(inner, seen)

    walk(msgspec.inspect.type_info(fe_orders.Order), set())
    assert patterns, "the walk found the orders' patterns"
    assert SAFE_PATTERN in patterns and fe_orders.HEX_PATTERN in patterns
    assert patterns <= set(fe_orders.ORDER_PATTERN_WORDS), patterns - set(
        fe_orders.ORDER_PATTERN_WORDS
    )


def test_every_text_field_of_the_orders_is_one_safe_line_or_narrower() -> None:
    """Unit ids, class names, fleet names and step ids are checked against the board when
    applied, but a refusal quotes them: no string of an order may carry a control character
    or a line break past decoding (`engine.core.text`; the client escapes again anyway)."""
    unguarded: list[str] = []

    def walk(info: msgspec.inspect.Type, where: str, seen: set[int]) -> None:
        if isinstance(info, msgspec.inspect.StrType) and info.pattern is None:
            unguarded.append(where)
        if id(info) in seen:
            return
        seen.add(id(info))
        for item in getattr(info, "types", ()) or ():
            walk(item, where, seen)
        owner = getattr(getattr(info, "cls", None), "__name__", where)
        for field in getattr(info, "fields", ()) or ():
            walk(field.type, f"{owner}.{field.name}", seen)
        for name in ("item_type", "key_type", "value_type", "type"):
            inner = getattr(info, name, None)
            if isinstance(inner, msgspec.inspect.Type):
                walk(inner, where, seen)

    walk(msgspec.inspect.type_info(fe_orders.Order), "Order", set())
    assert unguarded == [], unguarded


@pytest.mark.parametrize(
    "order",
    [
        {"type": "move", "units": ["LYR-0001\n"], "path": ["0101", "0102"]},
        {"type": "build", "cls": "CA\x1b[2J", "hex": "0101"},
        {"type": "done", "through": "3B2\u202e"},
    ],
)
def test_an_orders_packet_with_a_control_character_in_an_id_is_refused(
    order: dict[str, object],
) -> None:
    """As a modified client would write it, past the honest client's own checks."""
    with pytest.raises(PacketError, match="orders are not readable"):
        RULESET.decode_orders(msgspec.msgpack.encode([order]))
    with pytest.raises(IllegalOrder, match="one line of text without control"):
        RULESET.parse_orders([order])


@pytest.mark.parametrize(
    ("item", "wanted"),
    [
        (
            {"type": "reaction", "react": "never"},
            "order 1 (reaction): Object contains unknown field `react`; "
            "the fields there are mode, units, hexes, otherwise",
        ),
        (
            {"type": "reaction", "mode": "sometimes"},
            "order 1 (reaction): Invalid enum value 'sometimes' - at `$.mode`: "
            'it takes "ask", "never" or "react"',
        ),
        (
            {"type": "policy", "allocate": "largest"},
            "order 1 (policy): Invalid enum value 'largest' - at `$.allocate`: "
            'it takes "" or "suggested"',
        ),
        (
            {"type": "build", "cls": "F5", "hex": "0101", "insteadof": "E4"},
            "order 1 (build): Object contains unknown field `insteadof`; "
            "the fields there are cls, hex, instead_of, empire",
        ),
        (
            {"type": "batch", "moves": []},
            "order 1 (batch): Object contains unknown field `moves`; no field is taken there",
        ),
    ],
)
def test_a_misspelt_field_or_word_is_refused_with_what_the_order_takes(
    item: dict[str, object], wanted: str
) -> None:
    """A hand-written orders file: the refusal says how to mend it, without the schema."""
    with pytest.raises(IllegalOrder) as refused:
        fe_orders.parse_orders([item])
    assert str(refused.value) == wanted


def test_every_order_type_has_its_schema_for_refusals() -> None:
    assert sorted(fe_orders._ORDER_CLASSES) == sorted(fe_orders.ORDER_TYPES)
