"""The text companion of a golden game: what each recorded packet says and does, in words.

A golden file is msgpack, so a regenerated one shows up in ``git diff`` as "binary files
differ". Its companion (``fe_wind.msgpack`` -> ``fe_wind.txt``) is replayed from the same
bytes and lists, per packet, a block that starts with its seq::

    7 coalition turn  state 4c0a1f9d22e8b761
      order   done (x19)
      event   coalition completed 1A1 Bases and PDUs begun last player turn become active

The header line gives the seq, the seat that signed the packet, the packet's kind as it
travels (`kind_name`: genesis, join, turn, entropy, chat, resign) and the first 16 hex digits
of the state hash after it. The lines below say what the packet carried (the genesis's game,
a join's key, each order, each commitment and reveal of a secret choice, a chat line) and then
every event it caused, by its ``text``. A change of the rules therefore shows in the diff as
the first block whose orders or events differ, followed by the state hashes that moved with it.

Orders are said through the ruleset's own `order_to_json`, rendered compactly as
``type key=value ...`` (strings quoted only when they hold spaces or punctuation), so the
same code reads any ruleset's games; consecutive identical orders are counted, not repeated.
Long lines are wrapped onto deeper-indented continuation lines.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from engine.core.game import Result, apply_packet
from engine.core.packets import (
    Chat,
    Genesis,
    Join,
    Resign,
    Turn,
    VerifiedPacket,
    fingerprint,
    key_id,
    kind_name,
    open_packet,
)
from engine.core.ruleset import AnyRuleset, Event
from engine.core.state import AnyState
from saves.registry import ruleset_for

HASH_DIGITS = 16
"""Hex digits of each state hash shown: enough to tell any two states of a golden apart."""
WIDTH = 100
LABEL = 8
"""Width of the label column (``order``, ``event``...) under a header line."""


class GoldenGame(msgspec.Struct):
    """A recorded chain with the state hash expected after each packet (the golden file)."""

    ruleset: str
    description: str
    packets: list[bytes]
    hashes: list[bytes]


class CompanionError(Exception):
    """The golden file does not replay to its own recorded hashes, so no text is written."""


def read_golden(path: Path) -> GoldenGame:
    """A committed golden file, decoded (not yet replayed)."""
    return msgspec.msgpack.decode(path.read_bytes(), type=GoldenGame)


def companion_path(golden_path: Path) -> Path:
    """``fe_wind.msgpack`` -> ``fe_wind.txt``, beside it."""
    return golden_path.with_suffix(".txt")


def companion_text(name: str, golden: GoldenGame, ruleset: AnyRuleset | None = None) -> str:
    """The whole companion of the golden file ``name`` (the ruleset is looked up by its id
    unless given, as a test's own ruleset is registered nowhere)."""
    ruleset = ruleset or ruleset_for(golden.ruleset.split("/")[0])
    about = (
        f"{name}: {golden.description}. Ruleset {golden.ruleset}, {len(golden.packets)}"
        " packets. Written by `python -m tests.golden.regen`; do not edit by hand. Per packet:"
        " seq, seat, kind and the state hash after it; then what it carried and its events."
    )
    lines = textwrap.wrap(about, WIDTH, initial_indent="# ", subsequent_indent="# ")
    for seq, packet, events, digest in _replay(name, golden, ruleset):
        lines.append("")
        lines.append(f"{seq} {packet.body.seat} {kind_name(packet.body.kind)}  state {digest}")
        for label, text in [*_carried(ruleset, packet), *(("event", e.text) for e in events)]:
            lines.extend(_wrapped(label, text))
    return "\n".join(lines) + "\n"


def _replay(
    name: str, golden: GoldenGame, ruleset: AnyRuleset
) -> Iterator[tuple[int, VerifiedPacket, list[Event], str]]:
    """Each packet opened from its bytes (signatures checked) and applied in turn."""
    if len(golden.packets) != len(golden.hashes):
        raise CompanionError(
            f"{name}: {len(golden.packets)} packets but {len(golden.hashes)} state hashes"
        )
    for seq, packet, result in replay_golden(golden, ruleset):
        expected = golden.hashes[seq]
        if result.state_hash != expected:
            raise CompanionError(
                f"{name}: packet {seq} replays to state hash {result.state_hash.hex()}, "
                f"but the file recorded {expected.hex()}"
            )
        yield seq, packet, result.events, expected.hex()[:HASH_DIGITS]


def replay_golden(
    golden: GoldenGame, ruleset: AnyRuleset
) -> Iterator[tuple[int, VerifiedPacket, Result]]:
    """Each packet of a golden game opened from its bytes (its signature checked under the
    key its genesis or a join bound) and applied in turn; what to check is the caller's."""
    keys: dict[bytes, bytes] = {}
    state: AnyState | None = None
    for seq, data in enumerate(golden.packets):
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        result = apply_packet(ruleset, state, packet)
        state = result.state
        yield seq, packet, result


def _carried(ruleset: AnyRuleset, packet: VerifiedPacket) -> list[tuple[str, str]]:
    """What the packet itself says, as (label, text) lines, before the events it caused."""
    kind = packet.body.kind
    lines: list[tuple[str, str]] = []
    if isinstance(kind, Genesis):
        lines.append(("game", _genesis(kind)))
        options = " ".join(f"{key}={plain(value)}" for key, value in kind.options)
        lines.append(("options", options or "none"))
        for seat in kind.seats:
            key = f", key {fingerprint(seat.public_key)}" if seat.public_key else ""
            lines.append(("seat", f"{seat.seat}: {seat.name} <{seat.address}>{key}"))
    elif isinstance(kind, Join):
        lines.append(("join", f"{kind.name} <{kind.address}>, key {fingerprint(kind.public_key)}"))
    elif isinstance(kind, Chat):
        lines.append(("chat", plain(kind.text)))
    elif isinstance(kind, Resign):
        lines.append(("resign", plain(kind.reason) if kind.reason else "(no reason given)"))
    elif isinstance(kind, Turn):
        orders = [plain(ruleset.order_to_json(o)) for o in ruleset.decode_orders(kind.orders)]
        lines.extend(("order", text) for text in counted(orders))
    for commit in packet.body.commits:
        lines.append(("commit", commit.key))
    for reveal in packet.body.reveals:
        lines.append(("reveal", f"{reveal.key}: {plain(msgspec.msgpack.decode(reveal.choice))}"))
    return lines


def _genesis(genesis: Genesis) -> str:
    name = f" {plain(genesis.name)}" if genesis.name else ""
    return (
        f"new game{name}: {genesis.ruleset_id}/{genesis.ruleset_version} scenario"
        f" {genesis.scenario_id} ({genesis.scenario_hash.hex()[:HASH_DIGITS]}), protocol"
        f" {genesis.protocol}, created by {genesis.creator}, replies within"
        f" {genesis.reply_window_hours} h"
    )


def counted(texts: Sequence[str]) -> list[str]:
    """Runs of the same text said once with their count: ``done (x19)``."""
    runs: list[list[Any]] = []
    for text in texts:
        if runs and runs[-1][0] == text:
            runs[-1][1] += 1
        else:
            runs.append([text, 1])
    return [text if count == 1 else f"{text} (x{count})" for text, count in runs]


_BARE = re.compile(r"[^\s\"'=,:;\[\]{}()\\]+")
"""A string shown without quotes: no blanks, quotes or the punctuation the rendering uses."""


def plain(value: Any) -> str:
    """A JSON-like value in few characters: ``place hex=0408 unit=LYR-0043``.

    A dict's ``type`` comes first, bare, as the order's verb; other keys follow as
    ``key=value``. Strings are quoted (JSON style, so nothing unprintable gets through) only
    when they would otherwise be ambiguous.
    """
    if isinstance(value, dict):
        verb = [plain(value["type"])] if "type" in value else []
        rest = [f"{key}={_nested(item)}" for key, item in value.items() if key != "type"]
        return " ".join(verb + rest) or "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_nested(item) for item in value) + "]"
    if isinstance(value, str):
        return value if value.isprintable() and _BARE.fullmatch(value) else _quoted(value)
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def _quoted(text: str) -> str:
    """JSON quoting; fully escaped (ASCII only) when the text holds anything unprintable, as
    JSON leaves the Unicode line separators and NEL as they are, and those break lines too."""
    return json.dumps(text, ensure_ascii=not text.isprintable())


def _nested(value: Any) -> str:
    """A dict inside a list or dict keeps braces, so where it ends stays clear."""
    return "{" + plain(value) + "}" if isinstance(value, dict) and value else plain(value)


def _wrapped(label: str, text: str) -> list[str]:
    """One labelled line, wrapped at `WIDTH` onto lines indented under the text and deeper."""
    if not text.isprintable():
        text = _quoted(text)  # so no line break or control code can fake a packet's block
    first = f"  {label:<{LABEL}}"
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=" " * (len(first) + 4),
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]
