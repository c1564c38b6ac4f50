"""Scenario records, their canonical hash, the calendar, and game creation."""

from __future__ import annotations

import json
from importlib import resources

import msgspec
import pytest

from engine.core.errors import PacketError, VersionError
from engine.fe import RULESET
from engine.fe.scenario import (
    Scenario,
    data_hash,
    decode_scenario,
    find_scenario,
    turn_date,
    turn_label,
)

THE_WIND_HASH = "6452aa5cdc1066776e842ce740fc6daae589b5e0057945b0afcd46ce548148b8"
"""Pinned: a change here means every running game of The Wind is refused (P8). On purpose?"""


def _raw() -> bytes:
    return resources.files("engine.fe.data.scenarios").joinpath("the-wind.json").read_bytes()


@pytest.mark.parametrize(
    ("turn", "year", "season"),
    [
        (1, 168, "Fall"),
        (2, 169, "Spring"),
        (3, 169, "Fall"),
        (6, 171, "Spring"),
        (20, 178, "Spring"),
        (21, 178, "Fall"),
        (22, 179, "Spring"),
    ],
)
def test_turn_arithmetic(turn: int, year: int, season: str) -> None:
    assert turn_date(turn) == (year, season)


def test_turn_label() -> None:
    assert turn_label(1) == "Fall Y168 (turn 1)"


def test_the_wind_info() -> None:
    (info,) = RULESET.scenarios()
    assert info.id == "the-wind"
    assert info.title == "The Wind (601)"
    assert [(s.seat, s.side, s.empires) for s in info.seats] == [
        ("coalition", "Coalition", ("LYR", "KLI")),
        ("alliance", "Alliance", ("KZI", "HYD", "FED")),
    ]
    assert [(o.id, o.default, o.rule) for o in info.options] == [("orion", False, "504.0")]
    assert info.start == "Fall Y168 (turn 1)"
    assert len(info.data_hash) == 32


def test_hash_is_pinned() -> None:
    assert RULESET.scenarios()[0].data_hash.hex() == THE_WIND_HASH


def test_hash_ignores_json_layout_but_not_facts() -> None:
    original = decode_scenario(_raw())
    relaid = json.dumps(json.loads(_raw()), indent=None, separators=(",", ":"), sort_keys=True)
    assert data_hash(decode_scenario(relaid.encode())) == data_hash(original)
    longer = msgspec.structs.replace(original, last_turn=7)
    assert data_hash(longer) != data_hash(original)


def test_scenario_file_rejects_unknown_fields() -> None:
    data = json.loads(_raw())
    data["surprise"] = 1
    with pytest.raises(msgspec.ValidationError):
        decode_scenario(json.dumps(data).encode())


def test_find_scenario() -> None:
    found = find_scenario("the-wind")
    assert isinstance(found, Scenario)
    assert found.turn_order == ("coalition", "alliance")
    assert (found.first_turn, found.last_turn) == (1, 6)
    assert find_scenario("nope") is None


def test_initial_state_orders_seats_and_fills_options() -> None:
    state = RULESET.initial_state("the-wind", ["alliance", "coalition"], {})
    assert state.seats == ("coalition", "alliance")
    assert state.options == (("orion", False),)
    assert (state.turn, state.player_turn, state.step, state.over) == (1, 0, 0, False)
    on = RULESET.initial_state("the-wind", ["alliance", "coalition"], {"orion": True})
    assert on.options == (("orion", True),)


def test_initial_state_refusals() -> None:
    with pytest.raises(VersionError, match="scenario 'nope'"):
        RULESET.initial_state("nope", ["coalition", "alliance"], {})
    with pytest.raises(VersionError, match="option 'fog'"):
        RULESET.initial_state("the-wind", ["coalition", "alliance"], {"fog": True})
    with pytest.raises(PacketError, match="bool"):
        RULESET.initial_state("the-wind", ["coalition", "alliance"], {"orion": 1})
    with pytest.raises(PacketError, match="seats"):
        RULESET.initial_state("the-wind", ["coalition", "romulans"], {})
