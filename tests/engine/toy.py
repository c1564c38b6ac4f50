"""A tiny ruleset for testing the protocol core without any F&E rules.

Two seats, ``north`` and ``south``, take turns through a cycle of three steps: ``talk``
(north says something), ``answer`` (south says something) and ``pick`` (both choose a secret
number 1..6). Orders: ``say`` (completes the step), ``roll`` (asks for dice, does not advance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engine.core.errors import IllegalOrder, PacketError
from engine.core.face import (
    Board,
    ChecklistItem,
    Choice,
    Fact,
    Landmarks,
    MapSheet,
    Param,
    ParamKind,
    Summary,
    order_words,
    params_of,
)
from engine.core.plugin import Plugin
from engine.core.ruleset import (
    Actor,
    Applied,
    Decision,
    DecisionKind,
    Event,
    OptionSpec,
    OptionValue,
    RollRequest,
    ScenarioInfo,
    Seat,
    SeatSpec,
    StepKind,
    Violation,
)


class Say(msgspec.Struct, frozen=True, tag="say"):
    text: str


class Roll(msgspec.Struct, frozen=True, tag="roll"):
    count: int
    sides: int
    purpose: str


Order = Say | Roll


class ToyState(msgspec.Struct, frozen=True):
    seats: tuple[str, ...]
    step: int = 0
    round: int = 1
    last_pick_total: int = 0
    last_roll: tuple[int, ...] = ()


STEPS = ("talk", "answer", "pick")


class Toy:
    id = "toy"
    version = "1.2"
    follow_on_dice_from = ""  # (its rolls ask for none: `tests/engine/test_follow_on_dice.py`)
    reveal_dice_in_order_from = ""  # (it asks every seat: `tests/engine/test_reveal_dice_order.py`)
    state_type = ToyState

    def scenarios(self) -> Sequence[ScenarioInfo]:
        return [
            ScenarioInfo(
                "duel",
                "A duel",
                (SeatSpec("north", "North"), SeatSpec("south", "South")),
                (OptionSpec("fast", False, "play faster"),),
                b"\x01" * 32,
            )
        ]

    def initial_state(
        self, scenario_id: str, seats: Sequence[Seat], options: Mapping[str, OptionValue]
    ) -> ToyState:
        return ToyState(tuple(seats))

    def decode_orders(self, data: bytes) -> list[Any]:
        try:
            return list(msgspec.msgpack.decode(data, type=list[Order]))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise PacketError(f"bad orders: {exc}") from None

    def encode_orders(self, orders: Sequence[Any]) -> bytes:
        return msgspec.msgpack.encode(list(orders))

    def parse_orders(self, items: Sequence[Mapping[str, Any]]) -> list[Any]:
        try:
            return [msgspec.convert(dict(item), type=Order) for item in items]
        except msgspec.ValidationError as exc:
            raise IllegalOrder(str(exc)) from None

    def order_to_json(self, order: Any) -> dict[str, Any]:
        result: dict[str, Any] = msgspec.to_builtins(order)
        return result

    def _key(self, state: ToyState) -> str:
        return f"R{state.round}/{STEPS[state.step]}"

    def pending(self, state: ToyState) -> list[Decision]:
        north, south = state.seats
        step = STEPS[state.step]
        if step == "pick":
            return [Decision((north, south), step, DecisionKind.SECRET, self._key(state))]
        seat = north if step == "talk" else south
        return [Decision((seat,), step, DecisionKind.ORDERS, self._key(state))]

    def validate(self, state: ToyState, seat: Seat, order: Any) -> list[Violation]:
        if isinstance(order, Say) and not order.text:
            return [Violation("say something", "T1")]
        return []

    def apply(self, state: ToyState, seat: Seat, order: Any) -> Applied[ToyState]:
        if isinstance(order, Roll):
            request = RollRequest(order.count, order.sides, order.purpose, STEPS[state.step])
            return Applied(state, [], [request])
        return Applied(self._advance(state), [Event("say", order.text, seat)])

    def _advance(self, state: ToyState) -> ToyState:
        step = (state.step + 1) % len(STEPS)
        rnd = state.round + (1 if step == 0 else 0)
        return msgspec.structs.replace(state, step=step, round=rnd)

    def apply_roll(
        self, state: ToyState, request: RollRequest, dice: tuple[int, ...]
    ) -> Applied[ToyState]:
        return Applied(msgspec.structs.replace(state, last_roll=dice))

    def validate_secret(
        self, state: ToyState, decision: Decision, seat: Seat, choice: Any
    ) -> list[Violation]:
        if not isinstance(choice, int) or not 1 <= choice <= 6:
            return [Violation("pick a number from 1 to 6", "T2")]
        return []

    def apply_secret(
        self, state: ToyState, decision: Decision, choices: Mapping[Seat, Any]
    ) -> Applied[ToyState]:
        total = sum(int(v) for v in choices.values())
        state = msgspec.structs.replace(self._advance(state), last_pick_total=total)
        return Applied(state, [Event("picked", f"picks {dict(choices)}")])


class ToyFace:
    """The toy's client face: no board, a three-step checklist, ``say`` and ``roll`` menus."""

    def summary(self, state: ToyState) -> Summary:
        step = STEPS[state.step]
        seats = TOY.pending(state)[0].seats
        facts = (Fact("last roll", " ".join(map(str, state.last_roll)) or "none"),)
        label, tag = f"Round {state.round}", f"R{state.round}"
        return Summary(
            state.round, label, tag, step=step, step_title=step.title(), waiting_for=seats,
            facts=facts,
        )  # fmt: skip

    def board(self, state: ToyState) -> Board | None:
        return None

    def map_sheet(self, scenario: str) -> MapSheet | None:
        return None

    def choices(self, state: ToyState, seat: Seat) -> tuple[Choice, ...]:
        decision = TOY.pending(state)[0]
        if seat in decision.seats and decision.kind == DecisionKind.SECRET:
            pick = Param("choice", ParamKind.INTEGER, True, ("1", "2", "3", "4", "5", "6"))
            return (Choice("secret", "Pick a number", (pick,), "T2"),)
        if seat not in decision.seats or decision.kind != DecisionKind.ORDERS:
            return ()
        say = Choice("say", "Say something", params_of(Say, {}), "T1")
        sides = Param("sides", ParamKind.INTEGER, True, ("6", "10"))
        roll = Choice("roll", "Roll dice", tuple(
            sides if p.name == "sides" else p for p in params_of(Roll, {})
        ))  # fmt: skip
        return (say, roll)

    def checklist(self, state: ToyState) -> tuple[ChecklistItem, ...]:
        return tuple(
            ChecklistItem(
                step,
                step,
                "1",
                Actor.BOTH,
                StepKind.MANUAL,
                (),
                "current" if i == state.step else "todo",
            )
            for i, step in enumerate(STEPS)
        )

    def order_text(self, order: Any) -> str:
        return order_words(TOY.order_to_json(order))

    def landmarks(self) -> Landmarks:
        return Landmarks(("say",), ())


TOY = Toy()
PLUGIN = Plugin(TOY, ToyFace(), "Toy duel")
"""Registered only by the test plug-in (tests/plugins/), never by hexpost itself."""
