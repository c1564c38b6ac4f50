"""Export and import of a whole game as one file.

An archive is the game's log (its packets, in chain order) plus, unless it is exported as
public, this seat's private material: the entropy seed and the secret choices not yet
revealed, so the game can move to another machine and go on. Importing replays and checks
the whole chain exactly as `verify` does; nothing from the file is trusted without that.

A private archive also carries the game's chat messages; each is verified on import as if it
had come by mail, and a forged one refuses the whole archive.

The private material goes into the archive exactly as the store keeps it: sealed under the
identity key (`saves.vault`), so a copied or mislaid archive tells nobody the seed, and
neither exporting nor importing needs the passphrase. It opens again wherever the same
identity key is unlocked, which is the only place it is of use (a seat signs with its bound
key). An archive holding sealed material is version 2, which older versions refuse rather
than take a sealed blob for a seed; seeds an older home still kept plain are exported plain
(version 1) and sealed by the importing home when it next signs.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from engine.core.chats import MAX_CHAT_SIZE
from engine.core.errors import HexpostError, newer_version
from engine.core.game import apply_packet
from engine.core.packets import (
    MAX_PACKET_SIZE,
    MAX_SEQ,
    DecisionKey,
    Genesis,
    SeatName,
    SmallInt,
    VerifiedPacket,
)
from engine.core.ruleset import AnyRuleset
from engine.core.state import AnyState, encode_state
from engine.core.text import SAFE_PATTERN, Name
from saves import (
    chat_messages,
    claims,
    evidence,
    faults,
    holes,
    ledger,
    replay,
    signature_helper,
    store_games,
    store_keys,
)
from saves.claims import ArchivedClaim
from saves.evidence import ArchivedEvidence, PacketBytes
from saves.reading import Reader
from saves.registry import ruleset_for
from saves.signature_helper import SignatureHelper
from saves.store_games import GameRow
from saves.vault import is_sealed

FORMAT = "hexpost-game-archive"
VERSION = 1
SEALED_VERSION = 2
"""The version of an archive whose seed or secret choices are `saves.vault` blobs."""


MAX_ARCHIVE_SIZE = 256 << 20
"""The largest archive file `tui.services.chain.import_game` reads (256 MiB): a game of fifty
thousand packets is about 20 MiB."""
MAX_SEED_LENGTH = 1 << 22
"""The longest entropy chain an archive may give its seed (16 times the default): a plain
seed's chain is hashed out again when its seat next signs, so the length bounds that work."""
ARCHIVE_PACKET = "archive packet"
"""How a refusal names the archive's packet at fault (its position in the archive)."""
MAX_ITEMS = 100_000
"""The most secrets, claims or chat messages an archive may carry."""

SmallText = Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]
Blob = Annotated[bytes, msgspec.Meta(max_length=MAX_PACKET_SIZE)]
ChatBytes = Annotated[bytes, msgspec.Meta(max_length=MAX_CHAT_SIZE)]


class ArchivedSecret(msgspec.Struct, frozen=True):
    key: DecisionKey
    seat: SeatName
    salt: Blob
    """The salt, or the sealed blob of salt and choice (then ``choice`` is empty)."""
    choice: Blob


class Archive(msgspec.Struct, frozen=True):
    """A whole game as one file. An archive comes from elsewhere (a public one is made to be
    shared), so every field is bounded as it is decoded, and a value out of bounds refuses the
    file, naming the field, before anything is stored; the packets are checked by replaying
    them, the rest as each is taken in."""

    format: SmallText
    version: SmallInt
    name: Name
    my_seat: SeatName
    status: Literal["active", "invited"]
    packets: Annotated[list[PacketBytes], msgspec.Meta(max_length=MAX_SEQ)]
    seed: Blob = b""
    """The seed, or the sealed blob of seed and checkpoints."""
    seed_length: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED_LENGTH)] = 0
    secrets: Annotated[list[ArchivedSecret], msgspec.Meta(max_length=MAX_ITEMS)] = []
    evidence: Annotated[list[ArchivedEvidence], msgspec.Meta(max_length=MAX_ITEMS)] = []
    """What froze the game (both packets of an equivocation): public, checked on import."""
    claims: Annotated[list[ArchivedClaim], msgspec.Meta(max_length=MAX_ITEMS)] = []
    """Late claims kept with the game: public, checked on import."""
    chats: Annotated[list[ChatBytes], msgspec.Meta(max_length=MAX_ITEMS)] = []
    """The signed chat messages kept with the game (private archives only: they are words
    between the players, not part of the game record); each is checked on import."""


def export_game(replica: Reader, game_id: bytes, *, public: bool = False) -> bytes:
    row = replica.game(game_id)
    store = replica.store
    status: Literal["active", "invited"] = "invited" if row.status == "invited" else "active"
    packets = replica.packets(game_id)
    for index, (seq, _) in enumerate(packets):
        if seq != index:  # an archive with a gap would not import (`saves.holes`)
            upto = faults.last_fault(store, game_id, index)
            raise holes.lost_with_advice(row.name, index, seq - 1, upto)
    archive = Archive(FORMAT, VERSION, row.name, row.my_seat, status, [d for _, d in packets])
    archive = msgspec.structs.replace(
        archive,
        evidence=evidence.for_archive(store, game_id),
        claims=claims.for_archive(store, game_id),
    )
    if not public:
        seed = store_keys.seed_row(store, game_id, row.my_seat)
        kept = [ArchivedSecret(*secret) for secret in store_keys.secrets_of(store, game_id)]
        seed_bytes = seed[0] if seed else b""
        sealed = is_sealed(seed_bytes) or any(is_sealed(s.salt) for s in kept)
        archive = msgspec.structs.replace(
            archive,
            version=SEALED_VERSION if sealed else VERSION,
            seed=seed_bytes,
            seed_length=seed[1] if seed else 0,
            secrets=kept,
            chats=[row.data for row in chat_messages.messages_of(store, game_id)],
        )
    return msgspec.msgpack.encode(archive)


def _unreadable(exc: msgspec.MsgspecError) -> str:
    """Why ``data`` is no archive, in the player's words: another kind of file (its outermost
    value is not an archive's map: msgspec names no place in it), one cut short (a copy or a
    download that stopped), or an archive damaged inside (msgspec's place kept: it says where)."""
    text = str(exc)
    if isinstance(exc, msgspec.DecodeError) and "truncated" in text:
        return "a game file cut short (it ends too soon: copied in part?)"
    if isinstance(exc, msgspec.ValidationError) and " - at `$" not in text:
        return "not a game file `hexpost export` writes: another kind of file"
    return f"a damaged game file: {text}"


def import_game(replica: Reader, data: bytes, *, now: str) -> GameRow:
    """Check an archive by replaying it, and store it as a game of this home: all of it, in
    one transaction, or nothing."""
    try:
        archive = msgspec.msgpack.decode(data, type=Archive)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise HexpostError(_unreadable(exc)) from None
    if archive.format != FORMAT or archive.version not in (VERSION, SEALED_VERSION):
        raise HexpostError(
            f"unsupported archive {archive.format} version {archive.version}"
            + (newer_version(archive.version, SEALED_VERSION) if archive.format == FORMAT else "")
        )
    if not archive.packets:
        raise HexpostError("the archive holds no packets")
    with (
        signature_helper.helper_for(len(archive.packets)) as helper,
        replica.store.transaction(),
    ):
        state = _replay_into(replica, archive, helper, now)
        game_id = state.core.game_id
        evidence.restore(replica.store, game_id, archive.packets, archive.evidence)
        claims.restore(replica, game_id, archive.claims)
        if archive.seed:
            store_keys.insert_seed(
                replica.store, game_id, archive.my_seat, archive.seed, archive.seed_length
            )
        for secret in archive.secrets:
            store_keys.insert_secret(
                replica.store, game_id, secret.key, secret.seat, secret.salt, secret.choice
            )
        for index, chat in enumerate(archive.chats):
            try:
                chat_messages.restore(replica, chat, now, my_seat=archive.my_seat)
            except HexpostError as exc:
                raise HexpostError(f"archive chat message {index}: {exc}") from None
    if encode_state(replica.state(game_id)) != encode_state(state):
        raise HexpostError("internal error: imported state differs from its replay")
    return replica.game(game_id)


def _replay_into(
    replica: Reader, archive: Archive, helper: SignatureHelper | None, now: str
) -> AnyState:
    """Replay the archive's packets, checked as `saves.replay` checks a stored game (a page
    opened at a time, the signatures by ``helper`` when there is one), storing each packet
    as it applies (in the caller's transaction: a later failure takes them all back), so
    memory does not grow with the game's length; the final state."""
    state: AnyState | None = None
    ruleset: AnyRuleset | None = None
    keys: dict[bytes, list[bytes]] = {}
    packets = archive.packets
    for start in range(0, len(packets), store_games.PAGE):
        page = packets[start : start + store_games.PAGE]
        rows = [(index, data, b"") for index, data in enumerate(page, start)]
        for index, _, packet, error in replay.open_page(rows, keys, helper):
            try:
                if packet is None:
                    assert error is not None
                    raise error
                if ruleset is None:
                    ruleset = _genesis_ruleset(replica, archive, packet, now)
                result = apply_packet(ruleset, state, packet)
            except HexpostError as exc:
                replay.bad_signature_before(helper, index, label=ARCHIVE_PACKET)
                if isinstance(exc, _NotForThisHome):
                    raise
                raise HexpostError(f"{ARCHIVE_PACKET} {index}: {exc}") from None
            ledger.store_applied(
                replica.store, packet, result, now, mine=packet.body.seat == archive.my_seat
            )
            state = result.state
    replay.bad_signature_before(helper, None, label=ARCHIVE_PACKET)
    assert state is not None  # the archive holds packets
    return state


def _genesis_ruleset(
    replica: Reader, archive: Archive, packet: VerifiedPacket, now: str
) -> AnyRuleset:
    """The ruleset the archive's first packet, its genesis, names, once the game it creates
    is one this home can take in: the game's row is stored with it."""
    genesis = packet.body.kind
    if not isinstance(genesis, Genesis):
        raise HexpostError("the archive does not start with a genesis packet")
    seats = [binding.seat for binding in genesis.seats]
    if archive.my_seat not in seats:
        raise _NotForThisHome(
            f"the archive's seat {archive.my_seat!r} is not one of the game's ({', '.join(seats)})"
        )
    game_id = packet.body.game_id
    if store_games.game(replica.store, game_id) is not None:
        raise _NotForThisHome(f"game {game_id.hex()[:12]} is already in this home")
    ruleset = ruleset_for(genesis.ruleset_id)
    store_games.insert_game(
        replica.store,
        game_id,
        name=archive.name,
        ruleset=genesis.ruleset_id,
        scenario=genesis.scenario_id,
        my_seat=archive.my_seat,
        status=archive.status,
        now=now,
    )
    return ruleset


class _NotForThisHome(HexpostError):
    """A refusal of the archive as a whole (the game is here already, the seat is not the
    game's), said as it is rather than as a fault of its first packet."""
