"""`engine.core.pace`: which packets an automatic reply writes, and hand-offs counted human or
machine (what ``bench/handoffs.py`` and ``bench/golden_handoffs.py`` print)."""

from __future__ import annotations

import msgspec
import pytest

from engine.core import pace
from engine.core.packets import Body, Chat, Commit, EntropyOnly, Kind, Reveal, Turn
from engine.core.text import counted, numbered

KEY = "T1/coalition/5-3C/1"
REVEAL = Reveal(key=KEY, salt=bytes(32), choice=msgspec.msgpack.encode([]))
COMMIT = Commit(key=KEY, digest=bytes(32))
ORDERS = msgspec.msgpack.encode([{"type": "done"}])


def body(kind: Kind, *, commits: list[Commit] = [], reveals: list[Reveal] = []) -> Body:  # noqa: B006
    return Body(
        game_id=bytes(32), seq=9, prev=bytes(32), seat="coalition", ruleset="fe",
        kind=kind, entropy=bytes(32), commits=commits, reveals=reveals,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("packet", "automatic"),
    [
        (body(EntropyOnly()), True),
        (body(Turn(), reveals=[REVEAL]), True),
        (body(Turn()), False),  # nothing at all is not what a reply writes
        (body(Turn(ORDERS), reveals=[REVEAL]), False),  # orders: the player decided
        (body(Turn(), commits=[COMMIT], reveals=[REVEAL]), False),  # last to commit
        (body(Turn(), commits=[COMMIT]), False),
        (body(EntropyOnly(), commits=[COMMIT]), False),
        (body(Chat("hello")), False),
    ],
)
def test_only_what_needs_no_decision_is_automatic(packet: Body, automatic: bool) -> None:
    assert pace.automatic(packet) is automatic


def test_a_run_of_one_seat_is_one_hand_off_machine_only_when_every_packet_is_automatic() -> None:
    packets = [
        ("a", False),  # a's own packet after a: no hand-off
        ("b", True),  # b's hexpost answers alone: machine
        ("a", False),
        ("a", False),  # one run of a: one human hand-off
        ("b", True),
        ("b", False),  # b's reply, then b decides: the wait was b's player's
    ]
    assert pace.count(packets, before="a") == pace.HandOffs(6, human=2, machine=1)
    assert str(pace.count(packets, before="a")) == "6 packets, 3 hand-offs (2 human, 1 machine)"
    assert str(pace.HandOffs(1, human=1, machine=0)) == "1 packet, 1 hand-off (1 human, 0 machine)"


def test_counted_words_are_singular_for_one() -> None:
    assert [counted(n, "packet") for n in (0, 1, 2)] == ["0 packets", "1 packet", "2 packets"]
    assert [counted(n, "hex") for n in (1, 6)] == ["1 hex", "6 hexes"]
    assert counted(1, "hand-off") == "1 hand-off"
    assert numbered("packet", [3]) == "packet 3"
    assert numbered("packet", [0, 1]) == "packets 0, 1"


def test_the_first_run_is_a_hand_off_only_after_another_seat() -> None:
    packets = [("a", True), ("b", False)]
    assert pace.count(packets) == pace.HandOffs(2, human=1, machine=0)
    assert pace.count(packets, before="b") == pace.HandOffs(2, human=1, machine=1)
    assert pace.count([]) == pace.HandOffs(0, 0, 0)


def test_a_run_that_goes_on_past_the_window_is_classed_whole() -> None:
    """b's automatic reply ends one player turn, and b's own turn follows: that wait was
    for b's player, so the hand-off is human, though the window holds only the reply."""
    turn = [("a", False), ("b", True)]
    assert pace.count(turn) == pace.HandOffs(2, human=0, machine=1)
    assert pace.count(turn, after=[("b", False), ("a", True)]) == pace.HandOffs(2, 1, 0)
    assert pace.count(turn, after=[("a", False)]) == pace.HandOffs(2, 0, 1)
    assert pace.count([], after=[("b", False)]) == pace.HandOffs(0, 0, 0)


def test_each_hand_off_names_where_its_run_begins_and_whose_it_is() -> None:
    packets = [("a", False), ("b", True), ("b", True), ("a", False), ("b", True), ("b", False)]
    assert pace.hand_offs(packets) == [
        pace.HandOff(1, "b", machine=True),
        pace.HandOff(3, "a", machine=False),
        pace.HandOff(4, "b", machine=False),
    ]
    assert pace.hand_offs(packets, before="b")[0] == pace.HandOff(0, "a", machine=False)
    assert pace.hand_offs([]) == []
