"""The campaign rules refuse a modified client's packet whole (issue 13's bad input).

A player's own hexpost never signs an illegal order (it drafts the packet first), so each
test here plays the other player's modified client: it signs a packet of orders whose last
one breaks a rule, with whatever state hash it likes, and hands it to the real protocol core.
The core must refuse the whole packet, naming the order, the rule and the numbers, and the
game must stay exactly as it was: no build of the legal orders before it is kept.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from engine.core.errors import IllegalOrder
from engine.core.game import apply_packet
from engine.core.packets import Turn, open_packet, raw_public_key, sign_body
from engine.core.state import encode_state, state_hash
from engine.core.turn_orders import Done
from engine.fe import RULESET
from engine.fe.conversions import primary_capital
from engine.fe.galaxy import load_galaxy
from engine.fe.orders import BuildOrder
from tests.engine.fe_play import set_up
from tests.engine.fe_wind import walk_to
from tests.engine.table import Table


@cache
def at_builds() -> Table:
    """The Wind, turn 1, the coalition at 2B3 (builds)."""
    table = Table(RULESET, "the-wind", ["coalition", "alliance"], label="refusals")
    set_up(table)
    walk_to(table, "2B3")
    return table


def capital(empire: str) -> str:
    found = primary_capital(load_galaxy(), empire)
    assert found is not None
    return f"{found:04d}"


def forged(table: Table, seat: str, *orders: Any) -> Exception:
    """Sign ``orders`` as ``seat`` without drafting them (a modified client's packet) and
    apply it; the refusal the core raised."""
    assert table.state is not None
    body = table.body(seat, Turn(RULESET.encode_orders(list(orders))))
    key = table.players[seat].key
    data = sign_body(body, key)
    packet = open_packet(data, lambda _kid: [raw_public_key(key)])
    before = encode_state(table.state)
    with pytest.raises(IllegalOrder) as caught:
        apply_packet(RULESET, table.state, packet)
    assert encode_state(table.state) == before, "nothing of the packet is kept"
    return caught.value


def test_a_build_off_the_schedule_refuses_the_whole_packet() -> None:
    """KLI's Fall Y168 schedule (431.0) has no C8; the F5 before it is legal alone."""
    table = at_builds()
    assert table.state is not None
    hash_before = state_hash(table.state)
    legal = BuildOrder(cls="F5", hex=capital("KLI"), empire="KLI")
    assert table.state.rules is not None
    assert not RULESET.validate(table.state.rules, "coalition", legal)
    off = BuildOrder(cls="C8", hex=capital("KLI"), empire="KLI")
    refusal = forged(table, "coalition", legal, off, Done())
    text = str(refusal)
    assert "order 2" in text and "C8" in text
    assert "431.0" in text and "Fall Y168" in text
    assert state_hash(table.state) == hash_before


def test_a_third_limited_substitution_refuses_the_whole_packet() -> None:
    """450.4: at most 2 limited substitutions a turn; E4 for F5 is one (no dagger), and the
    D6D drone variant in a D6 slot counts too."""
    table = at_builds()
    where = capital("KLI")
    subs = [
        BuildOrder(cls="E4", hex=where, instead_of="F5", empire="KLI"),
        BuildOrder(cls="E4", hex=where, instead_of="F5", empire="KLI"),
        BuildOrder(cls="D6D", hex=where, instead_of="D6", empire="KLI"),
    ]
    refusal = forged(table, "coalition", *subs, Done())
    text = str(refusal)
    assert "order 3" in text
    assert "450.4" in text and "at most 2" in text


def test_dagger_substitutions_pass_where_limited_ones_would_not() -> None:
    """The same slots filled by 450.4 dagger entries (F5 for F5L, D6 for D7) are not counted:
    an honest client signs four of them with two limited ones in one packet."""
    table = at_builds()
    where = capital("KLI")
    orders = [
        BuildOrder(cls="F5", hex=where, instead_of="F5L", empire="KLI"),
        BuildOrder(cls="F5", hex=where, instead_of="F5L", empire="KLI"),
        BuildOrder(cls="D6", hex=where, instead_of="D7", empire="KLI"),
        BuildOrder(cls="E4", hex=where, instead_of="F5", empire="KLI"),
    ]
    assert table.state is not None and table.state.rules is not None
    state = table.state.rules
    for order in orders:
        assert not RULESET.validate(state, "coalition", order), order
        state = RULESET.apply(state, "coalition", order).state
