"""Follow-on dice (`engine.core.rolls.follows_on`): the dice the rules ask for as their
sequence runs on from a roll are read from the values that completed that roll.

A toy whose roll is a volley (each die's result asks for the next, as a battle fought by
policies asks for its next round's dice) shows the packets this saves, that a game begun at
a version before keeps arming each die for the next packets (so it replays as recorded),
that a packet's work stays bounded, and, attacking as a modified client would, that the seat
completing the roll can change none of those dice with what else its packet carries.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.rolls import MAX_FOLLOW_ON, follows_on
from engine.core.ruleset import Applied, DecisionKind, RollRequest
from tests.engine.table import Table
from tests.engine.toy import Roll, Say, Toy, ToyState

VOLLEY = "volley"


class Volley(Toy):
    """The toy, with a roll that goes on one die at a time until ``size`` dice are rolled,
    then moves on to the next step (south's ``answer``). Its games read follow-on dice from
    version ``since`` ("" never)."""

    def __init__(self, *, version: str = "1.3", since: str = "1.3", size: int = 4) -> None:
        self.version = version
        self.follow_on_dice_from = since
        self.size = size

    def apply_roll(
        self, state: ToyState, request: RollRequest, dice: tuple[int, ...]
    ) -> Applied[ToyState]:
        state = msgspec.structs.replace(state, last_roll=(*state.last_roll, *dice))
        if len(state.last_roll) < self.size:
            again = RollRequest(1, 6, VOLLEY, request.step, again=True)
            return Applied(state, [], [again])
        return Applied(self._advance(state))


def volley_table(ruleset: Volley, label: str = "volley") -> Table:
    """North fires the volley at its ``talk`` step; south owes the value that rolls it."""
    table = Table(ruleset, "duel", ["north", "south"], label=label)
    table.orders("north", Roll(1, 6, VOLLEY))
    assert table.owed()[:2] == ("south", DecisionKind.ENTROPY)
    return table


def rolled(table: Table, packet: int = -1) -> list[int]:
    return [die for e in table.results[packet].events if e.kind == "roll" for die in e.data["dice"]]


def test_the_whole_volley_is_rolled_by_the_one_packet_that_completes_its_first_die() -> None:
    table = volley_table(Volley())
    table.entropy_only("south")
    assert len(rolled(table)) == 4
    assert table.state is not None and table.state.rules.last_roll == tuple(rolled(table))  # type: ignore[union-attr]
    assert table.owed() == ("south", DecisionKind.ORDERS, "answer")  # no entropy owed
    texts = [e.text for e in table.results[-1].events if e.kind == "roll"]
    assert texts[0].startswith("north rolled 1d6 for volley: ")
    assert all(text.startswith("then rolled 1d6 for volley: ") for text in texts[1:])
    events = [e.data["event"] for e in table.results[-1].events if e.kind == "roll"]
    assert len(set(events)) == 4  # each die its own event: different dice from one set of values


@pytest.mark.parametrize(("version", "since"), [("1.3", ""), ("1.3", "1.4")])
def test_a_game_begun_before_the_version_arms_each_die_for_the_next_packet(
    version: str, since: str
) -> None:
    ruleset = Volley(version=version, since=since)
    assert not follows_on(ruleset, version)
    table = volley_table(ruleset)
    writers = []
    while table.owed()[1] == DecisionKind.ENTROPY:
        seat = table.owed()[0]
        writers.append(seat)
        table.entropy_only(seat)
        assert len(rolled(table)) == 1
    assert writers == ["south", "north", "south", "north"]
    assert table.owed() == ("south", DecisionKind.ORDERS, "answer")


def test_the_first_die_is_the_same_either_way_and_the_later_ones_come_from_other_values() -> None:
    """Same keys and chains (the same label): the first die is read from the same values
    both ways; the later ones from the completing packet's values, not later packets'."""
    now, before = volley_table(Volley()), volley_table(Volley(since="1.4"))
    now.entropy_only("south")
    before.entropy_only("south")
    assert rolled(now)[0] == rolled(before)[0]
    while before.owed()[1] == DecisionKind.ENTROPY:
        before.entropy_only(before.owed()[0])
    assert len(before.packets) == len(now.packets) + 3


def test_a_packet_reads_at_most_the_bound_and_arms_the_rest() -> None:
    """Rules that always ask for one more die: the completing packet reads the first die and
    `MAX_FOLLOW_ON` more, then arms the next one for the other seat, and the game goes on."""
    table = volley_table(Volley(size=10 * MAX_FOLLOW_ON))
    table.entropy_only("south")
    assert len(rolled(table)) == 1 + MAX_FOLLOW_ON
    assert table.owed()[:2] == ("north", DecisionKind.ENTROPY)
    table.entropy_only("north")
    assert len(rolled(table)) == 1 + MAX_FOLLOW_ON
    assert table.owed()[:2] == ("south", DecisionKind.ENTROPY)


def test_what_else_the_completing_packet_carries_changes_none_of_the_dice() -> None:
    """Attack: south, which completes the roll, knows every die before it sends (its value
    is the next link of its chain, north's is in north's packet) and adds an order to the
    same packet. The packet's value is applied first and the volley is over before the
    order is: the dice are those of the packet without the order, and the order counts
    only for the step after the volley."""
    plain, loaded = volley_table(Volley(), "same"), volley_table(Volley(), "same")
    plain.entropy_only("south")
    loaded.orders("south", Say("after the volley"))
    assert rolled(loaded) == rolled(plain) and len(rolled(plain)) == 4
    kinds = [e.kind for e in loaded.results[-1].events]
    assert kinds.index("say") > max(i for i, kind in enumerate(kinds) if kind == "roll")
    assert loaded.owed()[0] == "north"  # the answer was given after the volley
