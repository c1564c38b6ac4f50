"""Creating a game and joining one: the packets that bind a seat's key and entropy anchor.

The creator signs the genesis (scenario, options, seats, its own key and anchor) and the game
row is stored with it; an invited player signs a join that binds their key and anchor to the
seat the invitation names (P10, P6), or a join that declines the seat and ends the game. Each
seat's entropy seed is drawn here from the operating system and kept sealed (`saves.vault`) in
the same transaction as the packet that commits to it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from engine.core import author, entropy
from engine.core.errors import HexpostError
from engine.core.packets import (
    MAX_CHAT,
    MAX_REPLY_WINDOW_HOURS,
    PROTOCOL_VERSION,
    Genesis,
    Join,
    SeatBinding,
)
from engine.core.ruleset import AnyRuleset, OptionSpec, OptionValue, Seat
from engine.core.text import MAX_NAME, text_problem
from saves import store_games
from saves.addresses import address_problem, same_address
from saves.registry import ruleset_for
from saves.signing import Signer


def create(
    signer: Signer,
    ruleset: AnyRuleset,
    scenario_id: str,
    my_seat: Seat,
    opponent_address: str,
    *,
    opponent_seat: Seat | None = None,
    name: str = "",
    options: Mapping[str, OptionValue] | None = None,
    reply_window_hours: int = 72,
    now: str,
    chain_length: int = entropy.DEFAULT_CHAIN_LENGTH,
) -> bytes:
    """Start a game as its creator; returns the new game id."""
    me = signer.me()
    scenario = next((s for s in ruleset.scenarios() if s.id == scenario_id), None)
    if scenario is None:
        known = ", ".join(s.id for s in ruleset.scenarios())
        raise HexpostError(f"no scenario {scenario_id!r} (known: {known})")
    seats = [spec.seat for spec in scenario.seats]
    if my_seat not in seats:
        raise HexpostError(
            f"scenario {scenario_id} has no seat {my_seat!r} (seats: {', '.join(seats)})"
        )
    others = [seat for seat in seats if seat != my_seat]
    opponent_seat = opponent_seat or others[0]
    if opponent_seat not in others or len(others) != 1:
        raise HexpostError(f"the opponent's seat must be one of: {', '.join(others)}")
    _check_identity(me.name, me.address)
    _check_texts((name, "the game's name"), (opponent_address, "the opponent's address"))
    problem = address_problem(opponent_address)
    if problem is not None:
        raise HexpostError(f"the opponent's address {problem}")
    if same_address(opponent_address, me.address):
        raise HexpostError(f"{opponent_address!r} is your own address: invite the other player's")
    if not 1 <= reply_window_hours <= MAX_REPLY_WINDOW_HOURS:
        raise HexpostError(
            f"the reply window is 1 to {MAX_REPLY_WINDOW_HOURS} hours, not {reply_window_hours}"
        )
    chosen = _options(scenario_id, scenario.options, options or {})
    game_id, seed = os.urandom(16), os.urandom(32)
    chain = signer.new_chain(game_id, my_seat, seed, chain_length)
    genesis = Genesis(
        protocol=PROTOCOL_VERSION,
        ruleset_id=ruleset.id,
        ruleset_version=ruleset.version,
        scenario_id=scenario_id,
        scenario_hash=scenario.data_hash,
        options=sorted(chosen.items()),
        seats=[
            SeatBinding(my_seat, me.name, me.address, me.public_key)
            if seat == my_seat
            else SeatBinding(seat, "", opponent_address)
            for seat in seats
        ],
        creator=my_seat,
        anchor=chain.anchor,
        reply_window_hours=reply_window_hours,
        name=name or f"{scenario_id}-{game_id.hex()[:6]}",
    )
    body = author.new_body(
        ruleset,
        None,
        game_id=game_id,
        seat=my_seat,
        kind=genesis,
        entropy_value=chain.value(1),
        written_at=now,
    )

    def setup() -> None:
        store_games.insert_game(
            signer.store,
            game_id,
            name=genesis.name,
            ruleset=ruleset.id,
            scenario=scenario_id,
            my_seat=my_seat,
            status="active",
            now=now,
        )
        signer.keep_seed(game_id, my_seat, seed, chain)

    signer.sign_and_store(ruleset, None, body, automatic=False, now=now, extra=setup)
    return game_id


def accept(
    signer: Signer, game_id: bytes, *, now: str, chain_length: int = entropy.DEFAULT_CHAIN_LENGTH
) -> None:
    """Join a game we were invited to: binds our key and entropy anchor (P10, P6)."""
    _answer(signer, game_id, now=now, chain_length=chain_length)


def decline(
    signer: Signer,
    game_id: bytes,
    *,
    now: str,
    reason: str = "",
    chain_length: int = entropy.DEFAULT_CHAIN_LENGTH,
) -> None:
    """Refuse a game we were invited to: a join that declines, which ends the game before it
    began, so the creator hears no at once instead of waiting for a join that never comes.

    It binds our key and an anchor like any join (the creator's log says whose key answered);
    the seed is kept all the same, though no die will ever need it.
    """
    text = " ".join(reason.split())
    problem = text_problem(text, "the reason", MAX_CHAT)
    if problem is not None:
        raise HexpostError(problem)
    _answer(signer, game_id, now=now, chain_length=chain_length, declines=True, reason=text)


def _answer(
    signer: Signer,
    game_id: bytes,
    *,
    now: str,
    chain_length: int,
    declines: bool = False,
    reason: str = "",
) -> None:
    """Sign this home's join for the invitation ``game_id``, taking or declining its seat."""
    me = signer.me()
    _check_identity(me.name, me.address)
    row = signer.game(game_id)
    if row.status != "invited":
        raise HexpostError(f"game {row.name} is not an open invitation (it is {row.status})")
    ruleset = ruleset_for(row.ruleset)
    state = signer.state(game_id)
    seed = os.urandom(32)
    chain = signer.new_chain(game_id, row.my_seat, seed, chain_length)
    kind = Join(
        state.genesis_id,
        me.name,
        me.address,
        me.public_key,
        chain.anchor,
        declines=declines,
        reason=reason,
    )
    body = author.new_body(
        ruleset,
        state,
        game_id=game_id,
        seat=row.my_seat,
        kind=kind,
        entropy_value=chain.value(1),
        written_at=now,
    )

    def setup() -> None:
        signer.keep_seed(game_id, row.my_seat, seed, chain)
        store_games.set_status(signer.store, game_id, "active")

    signer.sign_and_store(ruleset, state, body, automatic=False, now=now, extra=setup)


def _check_texts(*texts: tuple[str, str], then: str = "") -> None:
    """Refuse, in words, the first (text, what it is) a packet could not carry (`text_problem`),
    followed by ``then``: the engine would refuse the packet with a schema message instead."""
    for text, what in texts:
        problem = text_problem(text, what, MAX_NAME)
        if problem is not None:
            raise HexpostError(problem + then)


def _check_identity(name: str, address: str) -> None:
    """This home's name and address as every genesis and join carries them (an identity
    made before `saves.home` checked them may hold what no packet can carry)."""
    _check_texts(
        (name, "your identity's name"),
        (address, "your identity's address"),
        then="; no packet can carry it, so this identity cannot start or join a game "
        "(make a new one in another home: hexpost --home DIR identity create)",
    )


def _options(
    scenario_id: str, specs: Sequence[OptionSpec], wanted: Mapping[str, OptionValue]
) -> dict[str, OptionValue]:
    """Every optional rule of the scenario at its default, but for those ``wanted``, each
    checked against what its rule takes (`OptionSpec.problem`)."""
    known = {spec.id: spec for spec in specs}
    chosen = {spec.id: spec.default for spec in specs}
    for option, value in wanted.items():
        spec = known.get(option)
        if spec is None:
            raise HexpostError(f"scenario {scenario_id} has no optional rule {option!r}")
        problem = spec.problem(value)
        if problem is not None:
            raise HexpostError(problem)
        chosen[option] = value
    return chosen
