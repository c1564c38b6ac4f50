"""The seats of a game before its rules begin: the genesis that creates it, each invited
seat's join (or decline), and the creator's acceptance of the keys that joined.

`engine.core.game` hands a packet here while the protocol's own decisions are owed (the
step `engine.core.owed.JOIN_STEP`); once every seat has joined, the ruleset's first state is
made here too, at the ruleset version the game is played at. Every function raises before it
returns a state, so a refused packet changes nothing.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core import entropy
from engine.core.errors import ChainError, PacketError, VersionError
from engine.core.owed import JOIN_STEP
from engine.core.packets import PROTOCOL_VERSION, Genesis, Join, VerifiedPacket, fingerprint
from engine.core.ruleset import AnyRuleset, Event, Seat, version_numbers
from engine.core.state import AnyState, CoreState, GameState, SeatState


def check_genesis(ruleset: AnyRuleset, genesis: Genesis) -> None:
    """Refuse a game this client cannot play faithfully, saying what is missing (P8)."""
    if genesis.protocol != PROTOCOL_VERSION:
        raise VersionError(f"game needs protocol version {genesis.protocol}")
    if genesis.ruleset_id != ruleset.id:
        raise VersionError(f"game needs ruleset {genesis.ruleset_id!r}")
    theirs = version_numbers(genesis.ruleset_version)
    ours = version_numbers(ruleset.version)
    if theirs[0] != ours[0] or theirs[1] > ours[1]:
        raise VersionError(
            f"game needs ruleset {genesis.ruleset_id} {genesis.ruleset_version}; "
            f"this hexpost has {ruleset.version}"
        )
    scenario = next((s for s in ruleset.scenarios() if s.id == genesis.scenario_id), None)
    if scenario is None:
        raise VersionError(f"game needs scenario {genesis.scenario_id!r}, which this hexpost lacks")
    if scenario.data_hash != genesis.scenario_hash:
        raise VersionError(
            f"scenario {genesis.scenario_id!r} differs: the game's data hash is "
            f"{genesis.scenario_hash.hex()[:16]}, this hexpost's is {scenario.data_hash.hex()[:16]}"
        )
    known = {option.id for option in scenario.options}
    for option, _ in genesis.options:
        if option not in known:
            raise VersionError(f"game uses optional rule {option!r}, which this hexpost lacks")
    wanted = [spec.seat for spec in scenario.seats]
    named = [binding.seat for binding in genesis.seats]
    if sorted(named) != sorted(wanted) or len(set(named)) != len(named):
        raise PacketError(f"genesis seats {named} do not match the scenario's seats {wanted}")
    if genesis.creator not in named:
        raise PacketError(f"genesis creator {genesis.creator!r} is not one of its seats")


def start(ruleset: AnyRuleset, packet: VerifiedPacket) -> tuple[AnyState, list[Event]]:
    """The state a genesis packet makes: the game's seats, its creator's key and entropy
    anchor bound, nobody else's yet, and no rules state until every seat has joined."""
    body = packet.body
    genesis = body.kind
    assert isinstance(genesis, Genesis)
    check_genesis(ruleset, genesis)
    if body.seq != 0 or body.prev != bytes(32):
        raise ChainError("a genesis packet must be packet 0 with no previous packet")
    if body.seat != genesis.creator:
        raise PacketError("a genesis packet must be written by its creator's seat")
    seats: list[SeatState] = []
    for binding in genesis.seats:
        is_creator = binding.seat == genesis.creator
        if is_creator and binding.public_key != packet.public_key:
            raise PacketError(
                "the genesis names a different key for its creator than it is signed with"
            )
        if not is_creator and binding.public_key:
            raise PacketError("the genesis may bind only its creator's key")
        seats.append(SeatState(binding.seat, binding.name, binding.address))
    core = CoreState(
        game_id=body.game_id,
        name=genesis.name,
        ruleset_id=genesis.ruleset_id,
        ruleset_version=genesis.ruleset_version,
        scenario_id=genesis.scenario_id,
        scenario_hash=genesis.scenario_hash,
        options=tuple(sorted(genesis.options)),
        reply_window_hours=genesis.reply_window_hours,
        creator=genesis.creator,
        seats=tuple(seats),
        seq=0,
    )
    core = bind_seat(core, genesis.creator, packet.public_key, genesis.anchor, body.entropy)
    state: AnyState = GameState(core=core, head=bytes(32), genesis_id=bytes(32))
    event = Event(
        "genesis", f"{genesis.creator} created the game ({genesis.scenario_id})", genesis.creator
    )
    return state, [event]


def bind_seat(
    core: CoreState, seat: Seat, public_key: bytes, anchor: bytes, value: bytes
) -> CoreState:
    """``core`` with ``seat``'s key and entropy anchor bound, once and for good; ``value`` is
    the seat's first entropy value, which must follow the anchor."""
    if len(anchor) != entropy.VALUE_SIZE:
        raise PacketError("an entropy anchor is 32 bytes")
    if not entropy.follows(anchor, value):
        raise PacketError(f"{seat}'s first entropy value does not follow its anchor")
    current = core.seat_state(seat)
    if current.joined:
        raise PacketError(f"{seat}'s key and entropy anchor are bound already and never change")
    return core.with_seat(
        msgspec.structs.replace(
            current, public_key=public_key, anchor=anchor, entropy=value, entropy_index=1
        )
    )


def accept_joins(
    state: AnyState, creator: Seat, *, declined: bool, events: list[Event]
) -> AnyState:
    """The creator's first packet after the joins: it accepts the joined keys, or (a
    resignation) declines them, which ends the game before it began."""
    core = state.core
    for seat in core.unaccepted:
        joined = core.seat_state(seat)
        verb = "declined" if declined else "accepted"
        events.append(
            Event(
                "key-declined" if declined else "key-accepted",
                f"{creator} {verb} the key of {joined.name or seat} <{joined.address}> for the "
                f"{seat} seat (fingerprint {fingerprint(joined.public_key)})",
                creator,
                JOIN_STEP,
                {"seat": seat, "fingerprint": fingerprint(joined.public_key)},
            )
        )
    return msgspec.structs.replace(state, core=msgspec.structs.replace(core, unaccepted=()))


def take_join(
    ruleset: AnyRuleset, state: AnyState, packet: VerifiedPacket
) -> tuple[AnyState, list[Event]]:
    """A seat's join packet: its key and entropy anchor bound, waiting for the creator's
    acceptance; the last join begins the game (the ruleset's first state). A join that
    declines ends the game instead (`take_decline`)."""
    body = packet.body
    join = body.kind
    assert isinstance(join, Join)
    core = state.core
    if join.genesis_id != state.genesis_id:
        raise ChainError("the join packet accepts another game's genesis")
    if join.public_key != packet.public_key:
        raise PacketError("the join packet names a different key than it is signed with")
    if body.commits or body.reveals:
        raise PacketError("a join packet may not commit or reveal")
    if join.reason and not join.declines:
        raise PacketError("only a join that declines carries a reason")
    core = bind_seat(core, body.seat, packet.public_key, join.anchor, body.entropy)
    current = core.seat_state(body.seat)
    core = core.with_seat(msgspec.structs.replace(current, name=join.name, address=join.address))
    if join.declines:
        return take_decline(state, core, body.seat, join)
    core = msgspec.structs.replace(core, unaccepted=(*core.unaccepted, body.seat))
    state = msgspec.structs.replace(state, core=core)
    invited = current.address
    text = (
        f"{join.name} <{join.address}> took the {body.seat} seat with key "
        f"{fingerprint(packet.public_key)}"
    )
    if join.address.casefold() != invited.casefold():
        text += f" (WARNING: the invitation went to {invited}, not {join.address})"
    data = {
        "invited": invited,
        "address": join.address,
        "fingerprint": fingerprint(join.public_key),
    }
    events = [Event("join", text, body.seat, JOIN_STEP, data)]
    if all(seat.joined for seat in core.seats):
        rules = ruleset.initial_state(
            core.scenario_id, [seat.seat for seat in core.seats], dict(core.options)
        )
        state = msgspec.structs.replace(state, rules=played_at(ruleset, rules, core))
        events.append(Event("start", "every seat has joined: the game begins"))
    return state, events


def played_at(ruleset: AnyRuleset, rules: Any, core: CoreState) -> Any:
    """The first rules state of a game, told the ruleset version the game is played at by a
    ruleset that changes rules in a minor version (its optional ``at_version(state,
    version)``): the newer rules then apply to that version's games only, and older games
    replay as recorded. A plug-in without it plays every version of its games alike."""
    at_version = getattr(ruleset, "at_version", None)
    return rules if at_version is None else at_version(rules, core.ruleset_version)


def take_decline(
    state: AnyState, core: CoreState, seat: Seat, join: Join
) -> tuple[AnyState, list[Event]]:
    """The invitee refused its seat: the game ends before it began. Its key stays bound, so
    the log says whose key answered; there is nothing for the creator to accept."""
    core = msgspec.structs.replace(core, resigned=seat)
    reason = f": {join.reason}" if join.reason else ""
    text = (
        f"{join.name} <{join.address}> declined the invitation to the {seat} seat "
        f"(key {fingerprint(join.public_key)}){reason}"
    )
    data = {"address": join.address, "fingerprint": fingerprint(join.public_key)}
    event = Event("declined", text, seat, JOIN_STEP, data)
    return msgspec.structs.replace(state, core=core), [event]
