"""Writing a packet: apply it to a copy, put the resulting state hash in it, sign it.

The author applies its own packet through exactly the code a receiver runs, so a packet that
the author's engine accepts is one every honest receiver accepts, with the same state hash.
Drafts are the same computation without the signature: undo before signing is free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from engine.core.game import Result, apply_packet, game_tag, ruleset_tag
from engine.core.packets import (
    Body,
    Commit,
    Envelope,
    Genesis,
    Join,
    Kind,
    Reveal,
    VerifiedPacket,
    key_id,
    open_packet,
    raw_public_key,
    sign_body,
)
from engine.core.ruleset import AnyRuleset, Seat
from engine.core.state import AnyState

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def draft(
    ruleset: AnyRuleset,
    state: AnyState | None,
    body: Body,
    public_key: bytes,
) -> Result:
    """What ``body`` would do to ``state``, without signing (raises what a receiver raises)."""
    provisional = VerifiedPacket(
        data=b"",
        envelope=Envelope(1, key_id(public_key), bytes(64), b""),
        body=body,
        packet_id=bytes(32),
        public_key=public_key,
    )
    return apply_packet(ruleset, state, provisional, check_hash=False)


def new_body(
    ruleset: AnyRuleset,
    state: AnyState | None,
    *,
    game_id: bytes,
    seat: Seat,
    kind: Kind,
    entropy_value: bytes,
    commits: Sequence[Commit] = (),
    reveals: Sequence[Reveal] = (),
    written_at: str = "",
) -> Body:
    """The unsigned body of this seat's next packet (without its state hash yet)."""
    return Body(
        game_id=game_id,
        seq=0 if state is None else state.core.seq + 1,
        prev=bytes(32) if state is None else state.head,
        seat=seat,
        ruleset=ruleset_tag(ruleset) if state is None else game_tag(state.core),
        kind=kind,
        entropy=entropy_value,
        commits=list(commits),
        reveals=list(reveals),
        written_at=written_at,
    )


def write(
    ruleset: AnyRuleset, state: AnyState | None, body: Body, private_key: Ed25519PrivateKey
) -> tuple[VerifiedPacket, Result]:
    """Sign ``body`` with the hash of the state it produces; return the packet and result."""
    public = raw_public_key(private_key)
    provisional = draft(ruleset, state, body, public)
    body = msgspec.structs.replace(body, state_hash=provisional.state_hash)
    data = sign_body(body, private_key, include_key=isinstance(body.kind, Genesis | Join))
    packet = open_packet(data, lambda _kid: [public])
    return packet, apply_packet(ruleset, state, packet)
