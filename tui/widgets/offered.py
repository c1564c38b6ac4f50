"""What the step owed offers, read the way the orders panel's keys and hint line need it.

The orders panel (`tui.widgets.orders.OrdersPanel`) is handed a `StepOffer` each time the game
is read; `Offered` keeps the part that decides what its keys do and what its hint line says:
which choice ``m`` writes (a stack order, a placement or a hex pick), which choices ``1`` to
``4`` reach, and the quick keys worth naming at this step. Plain data and text, no widget, so
the hint is checked without an app and the panel's module keeps to its keys and drafts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.widgets.order_text import hex_pick, is_placement, param_named

if TYPE_CHECKING:
    from tui.widgets.order_forms import ChoiceData
    from tui.widgets.step_offer import StepOffer

NAMED_KEYS: Mapping[str, str] = {
    "d": "done",
    "n": "note",
    "x": "roll",
    "A": "adjust",
    "O": "standing",
    "P": "policy",
}
"""Quick keys for orders known by a shared name; each acts only when the step offers it."""

OWN_KEYS = ("1", "2", "3", "4")
"""Quick keys for the step's own orders (not offered at every step), in the order offered."""

NAMED_IN_HINT = frozenset(NAMED_KEYS) - {"d", "n", "O"}
"""The named keys the hint line lists when the step offers them: ``d`` and ``n`` are in the
footer, and ``O`` (offered at every step) only in ``?`` and the README, since 80x24 leaves
the side column no line to spare."""

AHEAD_OF_STANDING = frozenset({"policy"})
"""Orders that only record what a seat wants done later (a combat policy), drafted ahead of
a standing order even when written after it: a standing order takes effect at once and may
end the seat's part of the step, after which no order of the same packet is the seat's to
give (O then P, as the send dialog suggests them, was refused at a step the standing order
covered)."""


def draft_position(items: Sequence[Mapping[str, Any]], item: Mapping[str, Any]) -> int:
    """Where ``item`` goes among the drafted ``items``: at the end, or for an order of
    `AHEAD_OF_STANDING`, just before the first standing order."""
    if item.get("type") in AHEAD_OF_STANDING:
        for at, drafted in enumerate(items):
            if drafted.get("type") == "standing":
                return at
    return len(items)


@dataclass(frozen=True)
class Offered:
    """The step owed (``""``: none) and the choices its orders are written from."""

    step: str = ""
    choices: tuple[ChoiceData, ...] = ()
    """The face's choices at the step, in its order (empty when nothing is owed)."""
    own: tuple[ChoiceData, ...] = ()
    """The choices ``1`` to ``4`` reach: the step's own, but a named one or its stack order."""
    secret: bool = False
    """A secret step (``p`` writes its hidden choice)."""

    @classmethod
    def of(cls, offer: StepOffer) -> Offered:
        step = offer.step or ""
        choices = tuple(offer.choices) if step else ()
        stack = _stack_of(choices)
        named = set(NAMED_KEYS.values())  # a policy offered everywhere keeps its P, not a 1-4
        own = tuple(
            c for c in choices if c.order in offer.own and c.order not in named and c is not stack
        )
        return cls(step, choices, own, offer.secret and bool(step))

    @property
    def orders(self) -> list[str]:
        """The order types offered (their forms), in the face's order."""
        return [c.order for c in self.choices]

    @property
    def stack(self) -> ChoiceData | None:
        """The stack order ``m`` writes at this step: the first choice naming pieces."""
        return _stack_of(self.choices)

    @property
    def placement(self) -> ChoiceData | None:
        """The placement ``m`` writes at this step (`is_placement`), when it has no stack."""
        return next((c for c in self.choices if is_placement(c)), None)

    @property
    def pick(self) -> ChoiceData | None:
        """The hex pick ``m`` writes at this step (`hex_pick`), when it has no stack and no
        placement."""
        return next((c for c in self.choices if hex_pick(c) is not None), None)

    @property
    def stack_kind(self) -> str:
        """The type of the stack order ``m`` writes at this step ("" when it has none)."""
        stack = self.stack
        return stack.order if stack is not None else ""

    def choice(self, order: str) -> ChoiceData | None:
        """The offered choice of type ``order``, if the step offers it."""
        return next((c for c in self.choices if c.order == order), None)

    def key_text(self) -> str:
        """The quick keys of this step's orders: ``b: build, 2: convert, A: adjust...``."""
        own = ("b", *OWN_KEYS[1:])  # b, the first's old key, reads better than 1
        keys = [f"{key}: {c.order}" for key, c in zip(own, self.own, strict=False)]
        keys += [
            f"{key}: {order}"
            for key, order in NAMED_KEYS.items()
            if key in NAMED_IN_HINT
            and self.choice(order) is not None
            and all(c.order != order for c in self.own)
        ]
        return ", ".join([*keys, "f: forms"])

    def hint(self, *, secret_drafted: bool, chosen: tuple[int, Sequence[str]] | None) -> str:
        """The hint line when nothing is being built on the map: what the step takes and the
        keys that write it, and what ``m`` would do with the hex ``chosen`` on the map (with
        the player's units there). ``secret_drafted``: the hidden choice is among the drafts."""
        if not self.step:
            return "nothing owed now"
        if self.secret and secret_drafted:
            return f"{self.step} is secret: S sends your hidden choice (u takes it back)"
        if self.secret:
            return f"{self.step} is secret: p writes your hidden choice"
        takes = ", ".join(dict.fromkeys(self.orders)) or "nothing you can write here"
        text = f"{self.step} takes: {takes}\n{self.key_text()}"
        if self.stack is not None and chosen is not None and chosen[1]:
            text += f"\nm: {self.stack_kind} of {len(chosen[1])} in {chosen[0]:04d}"
        elif self.stack is not None:
            text += f"\nm: {self.stack_kind} from the cursor"
        elif self.placement is not None:
            text += f"\nm: {self.placement.order}, then its hex on the map"
        elif self.pick is not None:
            text += f"\nm: {self.pick.order}, its hex on the map"
        return text


def _stack_of(choices: Sequence[ChoiceData]) -> ChoiceData | None:
    """The first of ``choices`` that names the pieces it moves (`Offered.stack`)."""
    return next((c for c in choices if param_named(c, "pieces", required=True)), None)
