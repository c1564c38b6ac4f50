"""The campaign ledger: a golden campaign's books, per player turn and empire, from its events.

`tests/golden/fe_campaign_ledger.txt` is written by `python -m tests.golden.regen` from the
events the engine raises while it replays `fe_campaign.msgpack`. The companion
(``fe_campaign.txt``) says what every packet did; the ledger says only what a campaign player
checks turn by turn: income collected (with the economy's share), builds (class, hex, cost),
pre-war deliveries and off-map arrivals, fleet releases and war declarations, economy changes,
and the treasury each empire ends its player turn with. A rules change that moves money shows
up in its diff as the first player turn whose books differ.

`ledger` reads the events into `PlayerTurn` records (the figures
`tests/engine/fe/test_campaign.py` checks against its hand-worked numbers); `ledger_text`
renders them.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from engine.core.game import apply_packet
from engine.core.packets import key_id, open_packet
from engine.core.ruleset import Event
from engine.core.state import AnyState
from engine.fe.economics import fmt_ep
from saves.registry import ruleset_for
from tests.golden.companion import GoldenGame

WIDTH = 100


class Build(msgspec.Struct, frozen=True):
    cls: str
    hex: str
    cost2: int
    instead_of: str = ""


class Books(msgspec.Struct):
    """One empire's money and forces in one player turn."""

    empire: str
    income2: int | None = None
    gross2: int = 0
    permille: int = 1000
    disrupted: int = 0
    builds: list[Build] = msgspec.field(default_factory=list)
    deliveries: list[str] = msgspec.field(default_factory=list)
    """Pre-war construction received: ``"Third Fleet: DN in 2211"``, or what was withheld."""
    delivered: int = 0
    """How many units the deliveries brought."""
    arrivals: list[str] = msgspec.field(default_factory=list)
    arrived: int = 0
    """Units that came onto the map from the off-map area (204.0)."""
    strategic2: int = 0
    """EP (in halves) paid for strategic moves beyond the free ones."""
    economy: str = ""
    treasury2: int | None = None


class PlayerTurn(msgspec.Struct):
    turn: int
    seat: str
    title: str
    news: list[str] = msgspec.field(default_factory=list)
    """War declarations and fleet releases, as the events say them."""
    books: dict[str, Books] = msgspec.field(default_factory=dict)
    paid: list[str] = msgspec.field(default_factory=list)
    """The empires that collected income, in the order they did (the seats' order)."""

    def of(self, empire: str) -> Books:
        if empire not in self.books:
            self.books[empire] = Books(empire)
        return self.books[empire]


def replay_events(golden: GoldenGame) -> Iterator[Event]:
    """Every event of the recorded chain, in order, from the current engine."""
    ruleset = ruleset_for(golden.ruleset.split("/")[0])
    keys: dict[bytes, bytes] = {}
    state: AnyState | None = None
    for data in golden.packets:
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        result = apply_packet(ruleset, state, packet)
        state = result.state
        yield from result.events


def ledger(events: Iterable[Any]) -> list[PlayerTurn]:
    """The books of each player turn (events before the first player turn are the set-up's)."""
    turns: list[PlayerTurn] = []
    for event in events:
        data: dict[str, Any] = event.data if isinstance(event.data, dict) else {}
        if event.kind == "player-turn":
            turns.append(PlayerTurn(data["turn"], data["phasing"], event.text))
            continue
        if not turns:
            continue
        _record(turns[-1], event.kind, event.text, data)
    return turns


def _record(current: PlayerTurn, kind: str, text: str, data: dict[str, Any]) -> None:
    empire = data.get("empire", "")
    if kind in ("war", "release"):
        current.news.append(text)
        return
    if not empire:
        return
    books = current.of(empire) if kind in _KINDS or "treasury2" in data else None
    if books is None:
        return
    if kind == "income":
        current.paid.append(empire)
        books.income2 = data["ep2"]
        books.gross2 = data.get("gross2", data["ep2"])
        books.permille = data.get("permille", 1000)
        books.disrupted = data.get("disrupted", 0)
    elif kind == "build":
        books.builds.append(Build(data["cls"], data["hex"], data["cost2"], data["instead_of"]))
    elif kind == "reinforcement":
        units = data.get("units", [])
        books.delivered += len(units)
        where = f" in {data['hex']}" if units else ""
        shown = f"{_classes(text, len(units))}{where}" if units else "nothing (withheld)"
        books.deliveries.append(f"{data['fleet']}: {shown} ({data['source']})")
    elif kind == "strategic":
        books.strategic2 += data.get("ep2", 0)
        if "from the off-map area" not in text:
            return _treasury(books, data)
        books.arrived += len(data["units"])
        paid = f", {fmt_ep(data['ep2'])} EP" if data.get("ep2") else ""
        books.arrivals.append(
            f"{len(data['units'])} units from the off-map area to {data['to']} by strategic "
            f"movement{paid}"
        )
    elif kind == "economy":
        books.economy = f"{data['economy']} ({data['reason']})"
    _treasury(books, data)


def _treasury(books: Books, data: dict[str, Any]) -> None:
    if "treasury2" in data:
        books.treasury2 = data["treasury2"]


def _classes(text: str, count: int) -> str:
    """The classes a delivery event names (``receives DN FED-0108, HN HYD-0062 in``), counted:
    ``DN``, ``RN, HR, 3x HN``; the count alone if the text says them otherwise."""
    found = re.search(r"receives (.+?) in ", text)
    pairs = [item.split(" ") for item in found.group(1).split(", ")] if found else []
    if len(pairs) != count or any(len(p) != 2 for p in pairs):
        return f"{count} units"
    return counted([cls for cls, _ in pairs])


_KINDS = ("income", "build", "reinforcement", "strategic", "economy")


def ledger_text(name: str, turns: list[PlayerTurn]) -> str:
    about = (
        f"{name}: the books of the golden campaign, per player turn and empire: income "
        "collected (gross, economy share, provinces disrupted), builds (class, hex, EP), "
        "pre-war deliveries, off-map arrivals, releases, economy changes, treasury after the "
        "player turn. Written by `python -m tests.golden.regen` from the events of the "
        "recorded game; do not edit by hand."
    )
    lines = textwrap.wrap(about, WIDTH, initial_indent="# ", subsequent_indent="# ")
    for part in turns:
        lines += ["", part.title]
        for news in part.news:
            lines.extend(_wrapped("news", news))
        for empire in sorted(part.books, key=_empire_order(part)):
            lines.extend(_books_lines(part.books[empire]))
    return "\n".join(lines) + "\n"


def _empire_order(part: PlayerTurn) -> Any:
    """Empires in the order they collected income (the seats' order), the others after."""
    order = part.paid + [e for e in part.books if e not in part.paid]
    return order.index


def _books_lines(books: Books) -> list[str]:
    out: list[str] = []
    tag = books.empire
    if books.economy:
        out += _wrapped(f"{tag} economy", books.economy)
    if books.income2 is not None:
        tenths = f".{books.permille % 10}" if books.permille % 10 else ""
        share = f"{books.permille // 10}{tenths}%"
        disrupted = f", {books.disrupted} provinces disrupted" if books.disrupted else ""
        out += _wrapped(
            f"{tag} income",
            f"{fmt_ep(books.income2)} EP ({share} of {fmt_ep(books.gross2)}{disrupted})",
        )
    for delivery in books.deliveries:
        out += _wrapped(f"{tag} delivery", delivery)
    if books.builds:
        cost2 = sum(b.cost2 for b in books.builds)
        items = counted(
            [
                f"{b.cls}{' for ' + b.instead_of if b.instead_of else ''} at {b.hex} "
                f"{fmt_ep(b.cost2)} EP"
                for b in books.builds
            ]
        )
        out += _wrapped(f"{tag} builds", f"{len(books.builds)} for {fmt_ep(cost2)} EP: {items}")
    for arrival in books.arrivals:
        out += _wrapped(f"{tag} arrival", arrival)
    if books.treasury2 is not None:
        out += _wrapped(f"{tag} treasury", f"{fmt_ep(books.treasury2)} EP")
    return out


def counted(items: list[str]) -> str:
    """Repeats said once with their count: ``3x D5 at 1411 5 EP``."""
    runs: list[list[Any]] = []
    for item in items:
        if runs and runs[-1][0] == item:
            runs[-1][1] += 1
        else:
            runs.append([item, 1])
    return ", ".join(item if n == 1 else f"{n}x {item}" for item, n in runs)


def _wrapped(label: str, text: str) -> list[str]:
    head = f"  {label:<14} "
    return textwrap.wrap(
        text, WIDTH, initial_indent=head, subsequent_indent=" " * (len(head) + 2)
    ) or [head.rstrip()]
