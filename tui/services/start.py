"""Starting, joining and ending games: the scenarios on offer, a new game, an invitation
accepted, the creator's acceptance (or refusal) of the key that joined, and a resignation.

The creator must accept the joined key by its fingerprint before signing anything else in
the game (`saves.joins`); these are the only ways to do it, for the command line and the
app alike.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.errors import HexpostError
from engine.core.ruleset import OptionSpec, OptionValue
from saves import joins, resigning
from saves.registry import rulesets
from saves.replica import Replica
from tui.services.ports import Clock


class ScenarioRow(msgspec.Struct, frozen=True):
    """One scenario a new game can start from (``hexpost scenarios --json``)."""

    id: str
    ruleset: str
    title: str
    start: Any
    """Where the scenario starts, as its ruleset words it."""
    seats: tuple[str, ...]
    options: dict[str, OptionValue]
    """Each optional rule with its default."""


class NewGame(msgspec.Struct, frozen=True):
    """A game just created: its id and the rule options it was made with."""

    game: str
    options: dict[str, OptionValue]


class Joined(msgspec.Struct, frozen=True):
    """What accepting did: joined an invitation (``joined``), or, as the creator, accepted the
    key that joined (``text`` says so; ``packet`` is the acceptance packet if one was signed)."""

    joined: bool
    text: str
    packet: int | None = None


class ScenarioChoice(msgspec.Struct, frozen=True):
    """A scenario as a new-game form offers it: its seats and its optional rules, each with
    its help, its rule and the values it takes (`engine.core.ruleset.OptionSpec`)."""

    id: str
    ruleset: str
    title: str
    seats: tuple[str, ...]
    options: tuple[OptionSpec, ...]


class NewGameRequest(msgspec.Struct, frozen=True):
    """What a new-game form asks for: ``hexpost new``'s arguments. ``options`` holds only the
    rules changed from their defaults."""

    scenario: str
    seat: str
    opponent: str
    name: str = ""
    reply_window_hours: int = 72
    options: dict[str, OptionValue] = {}


class Invitation(msgspec.Struct, frozen=True):
    """An invitation as the player reads it before joining: the game, the seat offered, who
    invited them from which address, and the rules the inviter changed from the defaults."""

    name: str
    scenario: str
    my_seat: str
    inviter: str
    reply_window_hours: int
    changed: tuple[tuple[str, OptionValue], ...]


def known_scenarios() -> str:
    """Every scenario id the installed rulesets offer, for a refusal to list."""
    return ", ".join(s.id for r in rulesets() for s in r.scenarios())


def scenarios() -> list[ScenarioRow]:
    return [
        ScenarioRow(
            id=info.id,
            ruleset=ruleset.id,
            title=info.title,
            start=info.start,
            seats=tuple(spec.seat for spec in info.seats),
            options={option.id: option.default for option in info.options},
        )
        for ruleset in rulesets()
        for info in ruleset.scenarios()
    ]


def scenario_choices() -> list[ScenarioChoice]:
    """Every scenario of the installed rulesets with its optional rules explained: what a
    new-game form needs, whatever the ruleset."""
    return [
        ScenarioChoice(
            id=info.id,
            ruleset=ruleset.id,
            title=info.title,
            seats=tuple(spec.seat for spec in info.seats),
            options=tuple(info.options),
        )
        for ruleset in rulesets()
        for info in ruleset.scenarios()
    ]


def scenario_rules(scenario_id: str) -> list[OptionSpec]:
    """The optional rules of ``scenario_id`` (``hexpost scenario rules``)."""
    for choice in scenario_choices():
        if choice.id == scenario_id:
            return list(choice.options)
    raise HexpostError(f"no scenario {scenario_id!r} (known: {known_scenarios()})")


def parse_options(items: list[str], scenario_id: str | None = None) -> dict[str, OptionValue]:
    """``ID=VALUE`` texts as option values, each read as its rule takes it when the scenario
    names that rule (a text stays a text, so ``economy-fractions=off`` is 'off', not false);
    otherwise guessed: true/false (yes/no, on/off), whole numbers, else text. The ruleset
    checks ids and values when the game is made."""
    kinds = {} if scenario_id is None else {s.id: s.default for s in scenario_rules(scenario_id)}
    options: dict[str, OptionValue] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise HexpostError(f"--option {item!r}: expected ID=VALUE")
        default = kinds.get(key)
        options[key] = raw if isinstance(default, str) else _guessed(raw)
    return options


def _guessed(raw: str) -> OptionValue:
    """A value whose rule is not known (or a switch, or a number), read from its text."""
    if raw.lower() in ("true", "yes", "on"):
        return True
    if raw.lower() in ("false", "no", "off"):
        return False
    if raw.lstrip("-").isdigit():
        return int(raw)
    return raw


def ruleset_of_scenario(scenario_id: str) -> Any:
    """The ruleset that offers ``scenario_id``; refused by name with the known ones."""
    ruleset = next((r for r in rulesets() if any(s.id == scenario_id for s in r.scenarios())), None)
    if ruleset is None:
        raise HexpostError(f"no scenario {scenario_id!r} (known: {known_scenarios()})")
    return ruleset


def new_game(
    signer: Replica,
    scenario_id: str,
    seat: str,
    opponent: str,
    *,
    clock: Clock,
    opponent_seat: str | None = None,
    name: str = "",
    options: dict[str, OptionValue] | None = None,
    reply_window_hours: int = 72,
) -> NewGame:
    """Create a game of ``scenario_id`` with this home at ``seat`` and invite ``opponent``."""
    ruleset = ruleset_of_scenario(scenario_id)
    game_id = signer.create(
        ruleset,
        scenario_id,
        seat,
        opponent,
        opponent_seat=opponent_seat,
        name=name,
        options=options or {},
        reply_window_hours=reply_window_hours,
        now=clock(),
    )
    return NewGame(game_id.hex(), dict(signer.state(game_id).core.options))


def invitation(replica: Replica, game_id: bytes) -> Invitation:
    """What the invitation ``game_id`` offers, from its genesis as this home stored it."""
    row = replica.game(game_id)
    core = replica.state(game_id).core
    creator = core.seat_state(core.creator)
    defaults = _defaults(core.scenario_id)
    changed = tuple((k, v) for k, v in core.options if k not in defaults or defaults[k] != v)
    return Invitation(
        name=row.name,
        scenario=row.scenario,
        my_seat=row.my_seat,
        inviter=f"{creator.name} <{creator.address}>",
        reply_window_hours=core.reply_window_hours,
        changed=changed,
    )


def _defaults(scenario_id: str) -> dict[str, OptionValue]:
    """Each optional rule's default (none for a scenario no installed ruleset offers)."""
    try:
        return {option.id: option.default for option in scenario_rules(scenario_id)}
    except HexpostError:
        return {}


def is_invitation(replica: Replica, game_id: bytes) -> bool:
    return replica.game(game_id).status == "invited"


def join(signer: Replica, game_id: bytes, clock: Clock) -> Joined:
    """Join an invitation: binds this home's key and entropy anchor to its seat."""
    row = signer.game(game_id)
    signer.accept(game_id, now=clock())
    return Joined(True, f"joined {row.name} as {row.my_seat}")


def decline_invitation(signer: Replica, game_id: bytes, clock: Clock, *, reason: str = "") -> str:
    """Refuse an invitation: a join that declines, signed and queued; what was done."""
    row = signer.game(game_id)
    signer.decline_invitation(game_id, now=clock(), reason=reason)
    return f"declined the invitation to {row.name}: the game ends before it began"


def accept_key(signer: Replica, game_id: bytes, clock: Clock, *, expected: str = "") -> Joined:
    """As the game's creator, accept the key that joined (refused when ``expected``, a
    fingerprint the invited player gave, differs from it)."""
    done = joins.accept(signer, game_id, now=clock(), expected=expected)
    return Joined(False, done.text, done.packet_seq)


def decline_key(signer: Replica, game_id: bytes, clock: Clock, *, reason: str = "") -> int:
    """As the creator, refuse the key that joined: a resignation, signed and queued; its seq."""
    return joins.decline(signer, game_id, now=clock(), reason=reason).seq


def resign_check(reader: Replica, game_id: bytes, reason: str = "") -> bool:
    """Whether this seat can resign now (False: only on its next decision, `resign` then
    asks for it); raises why it cannot resign at all (`saves.resigning.check`). Asked
    before the player confirms, so a refusal does not follow a yes."""
    return resigning.check(reader, game_id, reason).now


def resign(signer: Replica, game_id: bytes, clock: Clock, *, reason: str = "") -> str:
    """Concede the game: on our move a resignation, signed and queued; off it, asked for on
    our next decision (`saves.resigning.queue`). What was done."""
    row = signer.game(game_id)
    if not resigning.check(signer, game_id, reason).now:
        return ask_resignation(signer, game_id, clock, reason=reason)
    done = signer.resign(game_id, now=clock(), reason=reason)
    declined = any(event.kind == "key-declined" for event in done.events)
    what = "declined the key that joined and resigned" if declined else "resigned"
    return f"{what} {row.name} (packet {done.seq}): the game is over"


def ask_resignation(reader: Replica, game_id: bytes, clock: Clock, *, reason: str = "") -> str:
    """Off our move: resign on our next decision (`saves.resigning.queue`; no key needed
    until then). What was done."""
    resigning.queue(reader, game_id, now=clock(), reason=reason)
    name = reader.game(game_id).name
    return f"you will resign {name} on your next move: the sync that brings it signs it"


def keep_playing(reader: Replica, game_id: bytes) -> str:
    """Take back a resignation asked for off our move (`saves.resigning.cancel`)."""
    row = reader.game(game_id)
    if resigning.cancel(reader, game_id):
        return f"took back your resignation of {row.name}: it goes on"
    return f"no resignation of {row.name} waits: nothing to take back"
