"""A modified client's packets made by editing real ones, a field at a time.

`test_hostile_orders.py` writes hostile orders from scratch. Here the orders of the golden
games are the starting point: each packet's orders, at the state they were sent at, with one
to three changes of the kind a modified client makes:

- an id, hex or class swapped for another one the game used, emptied, cut or misspelt;
- a number moved by one or two, or pushed to zero, a negative or 2**63 - 1;
- a flag flipped;
- a list emptied, cut, repeated, reversed or changed inside;
- an order moved in from another step, or one left out.

The changed orders are encoded as a client would sign them and decoded as a receiver reads
them (changes the decoder refuses never reach the rules), then applied as a received packet is
applied. Each packet must either apply or be refused with one of the project's errors, in one
line: never another exception. A crash would stop the game for both players.

The same holds for the rest of what a packet's body says: its seat, its kind, the
commitments and reveals of secret steps, its entropy (`test_edited_bodies_...`). Such a packet
is applied at the state its original was applied to, with one to three of these changes:

- the seat of the other side, or of none;
- the kind of another packet of the game (its orders, a chat, entropy alone);
- a commitment or reveal added from another packet, repeated, left out, or with its key,
  digest, salt or choice changed;
- other entropy.

The mutations are seeded, so every run makes the same ones. On 2026-12-05 longer runs of
the same kinds (scratch scripts, on each of the six golden games: 100 seconds of edited orders,
1.59 million packets that decoded; 60 seconds of edited bodies, 3.34 million) found no other
exception either.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine.core.errors import HexpostError, IllegalOrder
from engine.core.game import apply_packet
from engine.core.packets import Body, Turn, VerifiedPacket
from engine.core.state import AnyState
from engine.fe import RULESET
from tests.golden.companion import read_golden, replay_golden

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
GAMES = ("fe_campaign", "fe_wander", "fe_battle")
BODY_GAMES = ("fe_battle", "fe_checklist")
"""Golden games with secret steps in few packets (10 and 30 packets of commitments)."""
MUTATIONS = 4000
"""Packets sent per golden game."""
SEED = 16

EXTREMES = (0, 1, -1, 2, 7, 99, 2**31, -(2**31), 2**63 - 1, -(2**63), 10**6)


class OrderEditor:
    """Changes to orders, drawn from the values a golden game's orders hold."""

    def __init__(self, rng: random.Random, orders: list[Any]) -> None:
        self.rng = rng
        texts: set[str] = set()
        numbers: set[int] = set()
        for order in orders:
            _harvest(order, texts, numbers)
        self.texts = sorted(texts)
        self.numbers = sorted(numbers)

    def order(self, value: Any) -> Any:
        """``value`` (an order, or any value inside one) with one change somewhere in it."""
        rng = self.rng
        if isinstance(value, msgspec.Struct):
            fields = value.__struct_fields__
            if not fields:
                return value
            name = rng.choice(fields)
            try:
                return msgspec.structs.replace(value, **{name: self.order(getattr(value, name))})
            except (TypeError, ValueError):  # (a struct's own check of its fields)
                return value
        if isinstance(value, bool):
            return not value
        if isinstance(value, int):
            roll = rng.random()
            if roll < 0.4:
                return rng.choice(EXTREMES)
            if roll < 0.7:
                return value + rng.choice((-2, -1, 1, 2))
            return rng.choice(self.numbers) if self.numbers else value
        if isinstance(value, str):
            return self._text(value)
        if isinstance(value, (list, tuple)):
            changed = self._items(list(value))
            return tuple(changed) if isinstance(value, tuple) else changed
        if value is None and self.texts and rng.random() < 0.5:
            return rng.choice(self.texts)
        return value

    def _text(self, value: str) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.5 and self.texts:
            return rng.choice(self.texts)
        if roll < 0.6:
            return ""
        if roll < 0.7:
            return value + rng.choice(("x", "0", " ", "-"))
        if roll < 0.8:
            return value[:-1]
        if roll < 0.9:
            return f"{rng.randint(0, 9999):04d}"
        return value.swapcase()

    def _items(self, items: list[Any]) -> list[Any]:
        rng = self.rng
        roll = rng.random()
        if not items:
            return items
        if roll < 0.3:
            items[rng.randrange(len(items))] = self.order(rng.choice(items))
        elif roll < 0.45:
            del items[rng.randrange(len(items))]
        elif roll < 0.6:
            items.insert(rng.randrange(len(items) + 1), rng.choice(items))
        elif roll < 0.7:
            items = []
        elif roll < 0.8:
            items.reverse()
        else:
            items = [self.order(item) for item in items]
        return items


def _harvest(value: Any, texts: set[str], numbers: set[int]) -> None:
    if isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            _harvest(getattr(value, name), texts, numbers)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _harvest(item, texts, numbers)
    elif isinstance(value, bool):
        pass
    elif isinstance(value, int):
        numbers.add(value)
    elif isinstance(value, str):
        texts.add(value)


def _sent(name: str) -> list[tuple[AnyState, VerifiedPacket, list[Any]]]:
    """The golden game's orders packets that carry more than `done` and notes, each with the
    state it was applied to and its orders."""
    sent = []
    state: AnyState | None = None
    for _, packet, result in replay_golden(read_golden(GOLDEN / f"{name}.msgpack"), RULESET):
        kind = packet.body.kind
        if state is not None and isinstance(kind, Turn):
            orders = RULESET.decode_orders(kind.orders)
            if any(type(o).__name__ not in ("Done", "Note") for o in orders):
                sent.append((state, packet, orders))
        state = result.state
    return sent


def _applies(state: AnyState, packet: VerifiedPacket, body: Body) -> bool:
    """Whether ``packet`` with the edited ``body`` applies to ``state`` as a received packet
    is applied (its state hash aside: the editor would sign the one it computed). A refusal
    must be one of the project's errors, in one line that names the order when one was
    wrong."""
    try:
        apply_packet(RULESET, state, msgspec.structs.replace(packet, body=body), check_hash=False)
    except HexpostError as refusal:
        message = str(refusal)
        assert message and "\n" not in message, (body, message)
        if isinstance(refusal, IllegalOrder):
            assert message.startswith("order "), (body, message)
        return False
    return True


@pytest.mark.parametrize("name", GAMES)
def test_edited_orders_are_applied_or_refused_with_a_clear_error(name: str) -> None:
    sent = _sent(name)
    every_order = [order for _, _, orders in sent for order in orders]
    rng = random.Random(f"{SEED}-{name}")
    edit = OrderEditor(rng, every_order)
    applied = refused = 0
    for _ in range(MUTATIONS):
        state, packet, orders = rng.choice(sent)
        changed = list(orders)
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            roll = rng.random()
            if changed and roll < 0.8:
                at = rng.randrange(len(changed))
                changed[at] = edit.order(changed[at])
            elif roll < 0.9:
                changed.insert(rng.randrange(len(changed) + 1), rng.choice(every_order))
            elif changed:
                del changed[rng.randrange(len(changed))]
        try:
            data = RULESET.encode_orders(changed)
            RULESET.decode_orders(data)
        except (HexpostError, TypeError, ValueError, msgspec.MsgspecError):
            continue  # (a client cannot send what does not encode, nor get it read)
        body = msgspec.structs.replace(packet.body, kind=Turn(data))
        if _applies(state, packet, body):
            applied += 1
        else:
            refused += 1
    # Both outcomes are common: the changes reach the rules, and not only their refusals.
    assert applied > MUTATIONS // 10 and refused > MUTATIONS // 10, (applied, refused)


# --- the rest of the body ---------------------------------------------------------------------


class BodyEditor:
    """Changes to a packet's body, drawn from the other packets of its game."""

    def __init__(self, rng: random.Random, packets: list[VerifiedPacket]) -> None:
        self.rng = rng
        self.seats = [*sorted({p.body.seat for p in packets}), "", "nobody"]
        self.kinds = [p.body.kind for p in packets[1:]]
        self.commits = [c for p in packets for c in p.body.commits]
        self.reveals = [r for p in packets for r in p.body.reveals]
        self.keys = [*sorted({c.key for c in self.commits}), "", "5-3C"]

    def body(self, body: Body) -> Body:
        rng = self.rng
        roll = rng.random()
        if roll < 0.15:
            return msgspec.structs.replace(body, seat=rng.choice(self.seats))
        if roll < 0.3:
            return msgspec.structs.replace(body, kind=rng.choice(self.kinds))
        if roll < 0.4:
            return msgspec.structs.replace(body, entropy=self._bytes(body.entropy))
        if roll < 0.7:
            return msgspec.structs.replace(body, commits=self._edited(body.commits, self.commits))
        return msgspec.structs.replace(body, reveals=self._edited(body.reveals, self.reveals))

    def _edited(self, items: list[Any], others: list[Any]) -> list[Any]:
        rng = self.rng
        items = list(items)
        roll = rng.random()
        if roll < 0.3 and others:
            items.append(rng.choice(others))
        elif roll < 0.45:
            items = items + items
        elif roll < 0.85 and items:
            at = rng.randrange(len(items))
            name = rng.choice(items[at].__struct_fields__)
            value = getattr(items[at], name)
            value = self._bytes(value) if isinstance(value, bytes) else rng.choice(self.keys)
            items[at] = msgspec.structs.replace(items[at], **{name: value})
        else:
            items = []
        return items

    def _bytes(self, value: bytes) -> bytes:
        rng = self.rng
        roll = rng.random()
        if roll < 0.3:
            return b""
        if roll < 0.6:
            return rng.randbytes(len(value) or 32)
        if roll < 0.8:
            return value[:-1]
        return value[:-1] + bytes((value[-1] ^ 1,)) if value else b"\x01"


@pytest.mark.parametrize("name", BODY_GAMES)
def test_edited_bodies_are_applied_or_refused_with_a_clear_error(name: str) -> None:
    played = list(replay_golden(read_golden(GOLDEN / f"{name}.msgpack"), RULESET))
    packets = [packet for _, packet, _ in played]
    rng = random.Random(f"{SEED}-body-{name}")
    edit = BodyEditor(rng, packets)
    # The packets that carry commitments or reveals are sent three times as often.
    secret = [i for i, p in enumerate(packets) if i and (p.body.commits or p.body.reveals)]
    indexes = list(range(1, len(packets))) + secret * 3
    applied = refused = 0
    for _ in range(MUTATIONS):
        at = rng.choice(indexes)
        packet, state = packets[at], played[at - 1][2].state
        body = packet.body
        for _ in range(rng.choice((1, 1, 2, 3))):
            body = edit.body(body)
        try:  # (a client cannot send what does not encode, nor get it read)
            body = msgspec.msgpack.decode(msgspec.msgpack.encode(body), type=Body)
        except msgspec.MsgspecError:
            continue
        if _applies(state, packet, body):
            applied += 1
        else:
            refused += 1
    assert applied > MUTATIONS // 10 and refused > MUTATIONS // 10, (applied, refused)
