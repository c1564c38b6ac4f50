"""`engine.core.owed.last_to_commit`: when a seat committing to a secret step may reveal in
the same packet (everyone else asked is bound), which the app's commit (`saves.secrets`)
and the pace bench both ask. The bench once kept its own copy, which read "nobody has
committed" as "not last" and so sent a reveal packet of its own for a step that asked one
seat alone (a choice the rules or a policy made for the other): a packet the app never
sends.
"""

from __future__ import annotations

from engine.core.owed import last_to_commit
from engine.core.ruleset import Decision, DecisionKind
from tests.engine.table import Table
from tests.engine.toy import STEPS, Say, Toy, ToyState


class NorthAlone(Toy):
    """The toy whose ``pick`` asks north alone (south's choice is made for it)."""

    def pending(self, state: ToyState) -> list[Decision]:
        if STEPS[state.step] == "pick":
            return [Decision(state.seats[:1], "pick", DecisionKind.SECRET, self._key(state))]
        return super().pending(state)


def at_pick(ruleset: Toy) -> Table:
    table = Table(ruleset, "duel", ["north", "south"], label="last-to-commit")
    table.orders("north", Say("hello"))
    table.orders("south", Say("hi"))
    assert table.owed() == ("north", DecisionKind.SECRET, "pick")
    return table


def test_the_first_of_two_seats_is_not_last_and_the_second_is() -> None:
    table = at_pick(Toy())
    assert table.state is not None
    assert not last_to_commit(table.ruleset, table.state, "north")
    table.commit("north", 3)
    assert last_to_commit(table.ruleset, table.state, "south")


def test_the_only_seat_asked_is_last_before_anyone_has_committed() -> None:
    table = at_pick(NorthAlone())
    assert table.state is not None and table.state.core.secret is None
    assert last_to_commit(table.ruleset, table.state, "north")
    table.commit("north", 3, reveal_now=True)  # the core takes the reveal in the same packet
    assert table.owed()[2] != "pick"


def test_no_secret_step_owed_is_never_last() -> None:
    table = Table(Toy(), "duel", ["north", "south"], label="last-to-commit")
    table.orders("north", Say("hello"))
    assert table.state is not None
    assert table.owed()[:2] == ("south", DecisionKind.ORDERS)
    assert not last_to_commit(table.ruleset, table.state, "south")
