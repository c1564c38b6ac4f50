"""Replaying a stored game from its genesis: what `hexpost verify` checks.

Every stored packet is verified again with only the keys the chain itself binds (its genesis
and joins), linked, applied by the engine, and its state hash compared with the stored one;
last, the replayed state must equal the snapshot the home keeps, and the keys the home keeps
for the seats (what it verifies received packets with) those the state binds: damaged ones
are rebuilt from it, and the home says so. The log is the truth, and
this is how a player checks that the home's caches still agree with it.

The packets are read a page at a time (`saves.store_games.packet_pages`), and each page is
opened (signatures checked, bodies decoded) before any of its packets is applied. It runs the
same instructions as opening and applying packet by packet (callgrind: +0.3%) but took about 7%
less CPU time on the golden campaign (in-process A/B, three runs of 20-30 pairs, on a shared
machine): the gain is the processor's, presumably its caches and predictors no longer switched
between the two kinds of work every packet (callgrind's L1 model does not show it). Opening
ahead changes no verdict: a packet that does not open
keeps its error until its turn, so the first packet that fails, in chain order, is the one
named, with the same message, whether it fails opening, linking, applying or its hash.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from engine.core.errors import (
    ChainError,
    DesyncError,
    HexpostError,
    PacketError,
    VersionError,
)
from engine.core.game import apply_packet
from engine.core.packets import BAD_SIGNATURE, VerifiedPacket, open_packet, open_signed_later
from engine.core.ruleset import AnyRuleset
from engine.core.state import AnyState, encode_state
from saves import faults, holes, signature_helper, store_games, store_repairs
from saves.reading import Reader
from saves.registry import ruleset_for
from saves.signature_helper import Item, SignatureHelper


class Opened(NamedTuple):
    """A stored packet opened ahead of its turn: the packet, or what opening it raised."""

    seq: int
    stored_hash: bytes
    packet: VerifiedPacket | None
    error: Exception | None


def verify(replica: Reader, game_id: bytes) -> bytes:
    """Replay the whole chain from genesis: every signature, link and state hash.

    Returns the final state hash; raises the first error found, naming its packet. The
    packets are read and opened a page at a time, so memory does not grow with the game's
    length; where it pays, a helper process checks the signatures meanwhile
    (`saves.signature_helper`), with the same verdicts.
    """
    row = replica.game(game_id)
    try:
        with signature_helper.helper_for(row.head_seq + 1) as helper:
            return _replay(replica, game_id, ruleset_for(row.ruleset), helper)
    except holes.LostPacket as exc:  # a row lost since: the other side's copy fills it
        upto = faults.last_fault(replica.store, game_id, exc.first)
        raise holes.with_advice(exc, row.name, upto) from None
    except PacketError as exc:
        at = _AT.match(exc.message)
        if at is None or isinstance(exc, VersionError):
            raise
        # A stored packet that no longer opens: it was checked when it came, so the bytes
        # kept here were damaged since; a copy from the other side takes their place.
        seq = int(at[1])
        upto = faults.last_fault(replica.store, game_id, seq)
        advice = (
            f"ask the other player to run `{holes.resend_command(row.name, seq, upto)}`: their "
            "copy takes the place of the one kept here"
        )
        raise PacketError(f"{exc.message}; {advice}", rule=exc.rule) from None


_AT = re.compile(r"packet ([0-9]+): ")
"""How `_replay` names the packet an error is about."""


def _replay(
    replica: Reader, game_id: bytes, ruleset: AnyRuleset, helper: SignatureHelper | None
) -> bytes:
    state: AnyState | None = None
    digest = b""
    keys: dict[bytes, list[bytes]] = {}  # bound by Genesis and Join packets as they come
    mended: list[tuple[int, bytes]] = []  # kept state hashes found damaged, and the right ones
    expected = 0
    for page in store_games.packet_pages(replica.store, game_id):
        for seq, stored, packet, error in open_page(page, keys, helper):
            if seq != expected:  # a row lost from the middle (the last one moves the head)
                bad_signature_before(helper, expected - 1)
                raise holes.lost(expected, seq - 1)
            expected += 1
            try:
                if packet is None:
                    assert error is not None
                    raise error
                if packet.body.seq != seq:
                    raise ChainError(f"stored at {seq} but says it is packet {packet.body.seq}")
                result = apply_packet(ruleset, state, packet)  # checks the packet's own hash
                if stored != result.state_hash:  # so only the copy kept beside it differs
                    mended.append((seq, result.state_hash))
            except Exception as exc:
                bad_signature_before(helper, seq)
                if isinstance(exc, HexpostError) and not isinstance(exc, DesyncError):
                    raise type(exc)(f"packet {seq}: {exc.message}", rule=exc.rule) from None
                raise
            state, digest = result.state, result.state_hash
    bad_signature_before(helper, None)
    if state is None:
        raise HexpostError("the game has no packets")
    if encode_state(state) != encode_state(replica.state(game_id)):
        raise HexpostError("the stored snapshot differs from the replayed state")
    if mended:
        with replica.store.transaction():
            for seq, right in mended:
                store_repairs.set_packet_hash(replica.store, game_id, seq, right)
        for seq, _ in mended:
            replica.note_repair(
                game_id, f"the state hash kept with packet {seq} was damaged; rebuilt it"
            )
    replica.check_keys(game_id)  # the kept keys, rebuilt from that state if damaged
    return digest


def bad_signature_before(
    helper: SignatureHelper | None, upto: int | None, *, label: str = "packet"
) -> None:
    """Raise, as a replay that checks signatures itself would, the first packet up to
    ``upto`` (None: all) whose signature the helper found bad (``label``: how the message
    names a packet, ``archive packet`` for an import)."""
    bad = None if helper is None else helper.first_bad(upto)
    if bad is not None:
        raise PacketError(f"{label} {bad}: {BAD_SIGNATURE}")


def open_page(
    rows: Sequence[tuple[int, bytes, bytes]],
    keys: dict[bytes, list[bytes]],
    helper: SignatureHelper | None = None,
) -> list[Opened]:
    """Each row's packet opened in chain order, under the keys bound so far and by the Genesis
    and Join packets before it; ``keys`` learns those packets' keys. With ``helper``, the
    signatures are sent to it to check instead (but for a packet whose key id names more than
    one key, checked here), and the replay asks it for its verdict before its own.

    Opening stops at the first packet that does not open, whose error is kept for its turn
    (any exception: the packets before it are applied first, as if each were opened in its
    turn, and one of them may fail first). A key is bound before its packet is applied: if
    that packet then fails, the replay stops there, so no packet after it is ever applied
    under a key its chain did not bind."""
    opened: list[Opened] = []
    lookup = keys.get
    checks: list[Item] = []
    for seq, data, stored in rows:
        try:
            deferred = None if helper is None else open_signed_later(data, lambda k: lookup(k, []))
            if deferred is None:
                packet = open_packet(data, lambda kid: lookup(kid, []))
            else:
                packet, message = deferred
                checks.append((seq, packet.public_key, packet.envelope.signature, message))
        except Exception as exc:  # raised in its turn (`verify`)
            opened.append(Opened(seq, stored, None, exc))
            break
        if packet.envelope.public_key:
            keys[packet.envelope.key_id] = [packet.envelope.public_key]
        opened.append(Opened(seq, stored, packet, None))
    if helper is not None and checks:
        helper.send(checks)
    return opened
