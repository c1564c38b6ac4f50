"""Draft orders: read them, check them against the engine, sign and queue them.

`check` is a dry run on a reading replica (no key needed), `sign` a real submit on a signing
one; both return an `OrdersVerdict`, so the command line and the app's orders panel hear the
same verdict and word only its presentation. A refusal keeps the engine's words whole and
also says where it applies (which order of the list, at which step) when the words name it.
Nothing is stored when orders are refused, and nothing is signed before the player accepted
a joined key (`saves.joins.check`, run by `Replica.submit` when signing).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engine.core.errors import HexpostError
from engine.core.ruleset import Decision, Event
from saves.replica import Replica
from tui.services.ports import Clock

Orders = list[dict[str, Any]]
"""Orders as written in a JSON or TOML file: one table per order, ``type`` first."""
Items = Sequence[Mapping[str, Any]]

JSON_START = re.compile(r"\s*(\{|\[\s*[{\]])")
"""How a JSON orders document starts (an object, or a list of objects), where no TOML one
does."""

_WHERE = re.compile(r"\border (\d+)(?: at step (\S+?))?:")
"""How the engine and the replica name the order a refusal is about (``order 2 at step
3B2: ...``, ``order 1: ...``): `engine.core.game` and `saves.replica` word it so."""


class Violation(msgspec.Struct, frozen=True):
    """Why the orders were not taken, and where: ``order`` counts from 1 in the list given
    (None when the refusal is about the whole packet, or the game)."""

    text: str
    """The refusal whole, as the engine words it (with its rule in parentheses)."""
    message: str
    rule: str
    order: int | None = None
    step: str | None = None


class OrdersVerdict(msgspec.Struct, frozen=True):
    """What became of a list of orders.

    ``legal`` and not ``signed``: a dry run found them legal; ``seq`` and ``state_hash`` are
    those of the packet they would make and ``after`` the state it would reach (for a
    what-if on the map). ``signed``: the packet was signed and queued. Not ``legal``:
    ``violations`` says why (its first entry is the engine's first refusal).
    """

    legal: bool
    signed: bool = False
    seq: int | None = None
    state_hash: str | None = None
    events: tuple[Event, ...] = ()
    violations: tuple[Violation, ...] = ()
    after: Any = None
    left_open: str = ""
    """The step (id and title) the orders leave owed by their own seat, as it was before
    them: sent alone they hand the other player nothing (`saves.submitting.left_open`)."""
    then: str = ""
    """The id of the seat's own next step the orders run into (`saves.submitting.then_owed`):
    the player goes on there."""
    hands_to: str = ""
    """Where the game goes after the orders when it leaves this seat's hands, as the games
    list says it ("waits for Alice (coalition): 5-6A ..."); "" when ``left_open`` or ``then``
    says the game stays with the player."""

    @property
    def refusal(self) -> str:
        """The first violation's text ("" for legal orders)."""
        return self.violations[0].text if self.violations else ""


def violation(exc: HexpostError) -> Violation:
    """A refusal as a `Violation`, its place in the list read from the engine's words."""
    where = _WHERE.search(exc.message)
    return Violation(
        text=str(exc),
        message=exc.message,
        rule=exc.rule,
        order=int(where.group(1)) if where else None,
        step=where.group(2) if where and where.group(2) else None,
    )


def check(
    replica: Replica, game_id: bytes, items: Sequence[Mapping[str, Any]], clock: Clock
) -> OrdersVerdict:
    """Check ``items`` without signing (the reading replica holds all a draft needs)."""
    return _submit(replica, game_id, items, clock, dry_run=True)


def sign(
    signer: Replica, game_id: bytes, items: Sequence[Mapping[str, Any]], clock: Clock
) -> OrdersVerdict:
    """Check ``items`` again, then sign and queue them (``signer`` holds the unlocked key)."""
    return _submit(signer, game_id, items, clock, dry_run=False)


def _submit(
    replica: Replica,
    game_id: bytes,
    items: Items,
    clock: Clock,
    *,
    dry_run: bool,
) -> OrdersVerdict:
    try:
        result = replica.submit(game_id, items, now=clock(), dry_run=dry_run)
    except HexpostError as exc:  # IllegalOrder, OutOfTurn, GameFrozen... all say why
        return OrdersVerdict(legal=False, violations=(violation(exc),))
    return OrdersVerdict(
        legal=True,
        signed=not dry_run,
        seq=result.seq,
        state_hash=result.state_hash.hex(),
        events=tuple(result.events),
        after=result.state if dry_run else None,
        left_open=_owed_words(result.left_open),
        then=result.then_owed.step if result.then_owed is not None else "",
        hands_to=_hands_to(replica, game_id, result.owed_after)
        if result.left_open is None and result.then_owed is None
        else "",
    )


def _hands_to(replica: Replica, game_id: bytes, decision: Decision | None) -> str:
    """Whose move the game is after the orders, in the games list's words."""
    from saves.news import seat_names, waits, waits_words  # (only when orders are checked)

    row = replica.game(game_id)
    names = seat_names(replica.state(game_id))
    return waits_words(waits([decision] if decision is not None else [], row.my_seat, names))


def _owed_words(decision: Decision | None) -> str:
    """The decision in a player's words (`saves.news.what_is_owed`), "" for none."""
    from saves.news import what_is_owed  # (only when orders are checked)

    return what_is_owed(decision) if decision is not None else ""


def left_open_note(verdict: OrdersVerdict) -> str:
    """For the command line: the orders do not end the step their seat owes, so the game
    still waits for this player, and the packet alone would hand the other nothing."""
    if not verdict.left_open:
        return ""
    done = json.dumps({"type": "done"})
    return (
        f"note: after these orders the game still waits for you at {verdict.left_open}: "
        f"they do not end that step ({done} ends most), so sent alone this packet gives "
        "the other player nothing to do"
    )


def then_note(verdict: OrdersVerdict) -> str:
    """For the command line: the orders end the step, but the next decision is this
    player's again, so the packet alone hands the other nothing; that step's orders could
    have gone in it (`hexpost choices` lists them once it is signed; a ``done through``
    plays on)."""
    if not verdict.then:
        return ""
    return (
        f"note: after these orders the game waits for you again, at {verdict.then}: sent "
        "alone this packet gives the other player nothing to do; its orders can go in the "
        "same packet (`hexpost choices` lists where a done through may play on to)"
    )


_TOML_AT = re.compile(r"\(at line (\d+), column \d+\)$")
_BARE_VALUE = re.compile(r"^\s*(?P<key>[A-Za-z0-9_-]+)\s*=\s*(?P<value>[^\s\"'\[{].*?)\s*$")


def _unquoted(text: str, exc: tomllib.TOMLDecodeError) -> str:
    """What to add to TOML's refusal of a line whose value is text left out of quotes
    (``type = done``, ``hex = 0408``): TOML's own words for it, "Invalid value" or "Expected
    newline or end of document", do not say what to mend. Empty for any other refusal."""
    at = _TOML_AT.search(str(exc))
    lines = text.splitlines()
    if at is None or not 0 < int(at.group(1)) <= len(lines):
        return ""
    line = lines[int(at.group(1)) - 1]
    bare = _BARE_VALUE.match(line)
    if bare is None or len(line) > 200:
        return ""
    try:
        tomllib.loads(f"v = {bare['value']}")
    except tomllib.TOMLDecodeError:
        quoted = json.dumps(bare["value"], ensure_ascii=False)
        return (
            f"; line {at.group(1)} reads {line.strip()!r}: text goes in double quotes, as in "
            f"{bare['key']} = {quoted}"
        )
    return ""  # (a value TOML takes: the refusal is about something else)


def parse_orders(text: str, where: str, suffix: str = "") -> Orders:
    """Orders from the text of a JSON or TOML document; ``where`` names it in errors and
    ``suffix`` (``.json``, ``.toml`` or empty) says which it is, else it is sniffed."""
    # A TOML file may well start with "[" (a table header such as [[orders]]); a JSON orders
    # document is an object, or a list of objects ("[{", or "[]"), which no TOML file starts
    # with: that decides when the suffix does not.
    suffix = suffix.lower()
    is_json = suffix == ".json" or (suffix != ".toml" and JSON_START.match(text) is not None)
    document: Any
    kind = "JSON" if is_json else "TOML"
    try:
        document = json.loads(text) if is_json else tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise HexpostError(
            f"{where}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        if suffix == ".toml":
            raise HexpostError(f"{where}: not valid TOML: {exc}{_unquoted(text, exc)}") from None
        raise HexpostError(  # (only sniffed as TOML: say so, and what orders are)
            f"{where}: neither JSON nor TOML (read as TOML: {exc}): orders are a .json or "
            ".toml file"
        ) from None
    except RecursionError:  # (both parsers recurse per level: a file made to crash us)
        raise HexpostError(f"{where}: not valid {kind}: nested too deeply") from None
    if isinstance(document, dict) and "type" in document and "orders" not in document:
        document = [document]  # one order alone (the engine's pick, as `choices` prints it)
    if isinstance(document, dict):
        # Anything beside the orders would be left out unseen: "[[order]]" for "[[orders]]"
        # dropped the orders under it without a word.
        beside = next((key for key in document if key != "orders"), None)
        if beside is not None:
            raise HexpostError(
                f"{where}: {beside!r} is not part of an orders document: the orders go in a "
                "list named 'orders' ([[orders]] tables in TOML), and nothing else goes beside it"
            )
    orders = document.get("orders") if isinstance(document, dict) else document
    if not isinstance(orders, list) or not all(isinstance(item, dict) for item in orders):
        raise HexpostError(
            f'{where}: expected a list of orders [{{"type": ...}}, ...], or '
            f'{{"orders": [{{"type": ...}}, ...]}}, or one order {{"type": ...}}'
        )
    return orders
