"""Records and plain-text views of games for the command line (`--json` and human output).

The JSON records are the contract later issues and tests build on; the text views print the
same records for people, within 80 columns.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from typing import Any

from engine.core.game import pending
from engine.core.packets import fingerprint, kind_name, open_packet
from engine.core.ruleset import Decision, DecisionKind
from engine.core.state import state_hash
from saves import claims, joins, outbox, quarantine
from saves.outcome import Outcome
from saves.replica import GameRow, Replica
from tui.safe_text import safe_record, safe_text
from tui.when import age, turn_text


def emit(record: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    """Print ``record`` as JSON or through its text view. Either way no character a terminal
    would obey gets out: JSON with ``ensure_ascii`` writes every control and non-ASCII
    character as ``\\uXXXX``, and the text views see the record with every string made one
    safe line (`tui.safe_text`), so a name from another player cannot move the cursor, clear
    the screen or start a line of its own."""
    if as_json:
        print(json.dumps(record, indent=2, sort_keys=False, ensure_ascii=True))
    else:
        print(text(safe_record(record)))


def decision_record(decision: Decision) -> dict[str, Any]:
    return {
        "seats": list(decision.seats),
        "step": decision.step,
        "kind": decision.kind.value,
        "key": decision.key,
        "title": decision.title,
        "rules": list(decision.rules),
    }


def outcome_text(names: dict[bytes, str], outcome: Outcome) -> str:
    """One received item as `hexpost sync` prints it: what became of it, the game, position
    and seat it was for (as far as anything tells), where it came from, and why."""
    parts = []
    if outcome.game_id is not None:
        parts.append(names.get(outcome.game_id) or f"game {outcome.game_id.hex()[:8]}")
    if outcome.seq is not None:
        parts.append(f"packet {outcome.seq}")
    if outcome.seat:
        parts.append(f"from {outcome.seat}")
    where = "" if outcome.status == "claim" else " ".join(parts)  # a claim names its game
    source = f" [{outcome.source}]" if outcome.source and outcome.status != "applied" else ""
    head = f"{outcome.status}: {where}{source}" if where or source else outcome.status
    return safe_text(f"{head}: {outcome.detail}")


def game_summary(replica: Replica, row: GameRow) -> dict[str, Any]:
    ruleset = replica.ruleset(row.game_id)
    state = replica.state(row.game_id)
    decisions = pending(ruleset, state)
    summary = ruleset.summary(state.rules) if state.rules is not None else {}
    return {
        "game": row.game_id.hex(),
        "name": row.name,
        "scenario": row.scenario,
        "my_seat": row.my_seat,
        "status": row.status,
        "seq": row.head_seq,
        "turn": summary.get("turn"),
        "step": decisions[0].step if decisions else None,
        "waiting_for": list(decisions[0].seats) if decisions else [],
        "since": row.waiting_since,
        "unread": row.unread,
        "frozen": row.frozen,
        "unsent": len(outbox.waiting(replica.store, row.game_id)),
        "claim": claims.open_claim_line(replica.store, row.game_id, state),
        "notes": attention_notes(replica, row, state, decisions),
    }


def attention_notes(
    replica: Replica, row: GameRow, state: Any, decisions: list[Decision]
) -> list[str]:
    """What this game needs from the player beyond its next move, one line each: a joined key
    to accept (`saves.joins`), a packet whose last copy came damaged (`saves.quarantine`)."""
    notes: list[str] = []
    damage = quarantine.damage_ahead(replica.store, row.game_id, row.head_seq)
    if damage is not None:  # first: it says what to ask for, where "waiting" alone would not
        owing = decisions[0].seats[0] if decisions and damage.seq == row.head_seq + 1 else ""
        notes.append(quarantine.damage_text(damage, row.name, damage.seat or owing))
    if decisions and decisions[0].kind == DecisionKind.ACCEPT:
        if row.my_seat in decisions[0].seats:
            who = "; ".join(joins.describe(s) for s in joins.awaiting_any(state))
            notes.append(
                f"{who} joined: compare the fingerprint with them, then "
                f"`hexpost accept {row.name}` (or `hexpost decline {row.name}`)"
            )
        else:
            notes.append(f"waiting for {decisions[0].seats[0]} to accept your key")
    return notes


def unsent_records(replica: Replica, game_id: bytes) -> list[dict[str, Any]]:
    """The game's packets still in the outbox: attempts, last error, next try, in words."""
    return [
        {
            "seq": entry.seq,
            "attempts": entry.attempts,
            "last_error": entry.last_error,
            "next_attempt": entry.next_attempt,
            "text": outbox.waiting_text(entry),
        }
        for entry in outbox.waiting(replica.store, game_id)
    ]


def show_record(
    replica: Replica, row: GameRow, *, at: int | None, checklist: bool
) -> dict[str, Any]:
    ruleset = replica.ruleset(row.game_id)
    state = replica.state(row.game_id, at)
    core = state.core
    decisions = pending(ruleset, state)
    summary = ruleset.summary(state.rules) if state.rules is not None else {}
    rolls = [
        {"seq": seq, "seat": event.seat, "step": event.step, **event.data}
        for seq, event in replica.events(row.game_id, core.seq)
        if event.kind == "roll"
    ]
    record: dict[str, Any] = {
        "game": row.game_id.hex(),
        "name": row.name,
        "ruleset": f"{core.ruleset_id}/{core.ruleset_version}",
        "scenario": core.scenario_id,
        "options": dict(core.options),
        "my_seat": row.my_seat,
        "status": row.status,
        "seq": core.seq,
        "state_hash": state_hash(state).hex(),
        "seats": [
            {
                "seat": seat.seat,
                "name": seat.name,
                "address": seat.address,
                "fingerprint": fingerprint(seat.public_key) if seat.joined else None,
            }
            for seat in core.seats
        ],
        "turn": summary.get("turn"),
        "phasing": summary.get("phasing"),
        "step": summary.get("step"),
        "step_title": summary.get("step_title"),
        "waiting_for": list(decisions[0].seats) if decisions else [],
        "pending": [decision_record(d) for d in decisions],
        "frozen": row.frozen,
        "over": bool(core.resigned) or bool(summary.get("over")),
        "rolls": rolls,
        "unsent": unsent_records(replica, row.game_id),
        "claim": claims.open_claim_line(replica.store, row.game_id, state) if at is None else None,
        "notes": attention_notes(replica, row, state, decisions) if at is None else [],
    }
    record.update(game_views(ruleset, state.rules))
    if checklist and state.rules is not None:
        record["checklist"] = [
            {
                "step": item.step,
                "title": item.title,
                "phase": item.phase,
                "actor": item.actor.value,
                "kind": item.kind.value,
                "rules": list(item.rules),
                "status": item.status,
            }
            for item in ruleset.checklist(state.rules)
        ]
    return record


def game_views(ruleset: Any, rules: Any) -> dict[str, Any]:
    """The ruleset's ``views`` (``empires``, ``units``, ``hexes``: `engine.fe.views`) when it
    offers them; a ruleset without a board (or a game not started) adds nothing."""
    views = getattr(ruleset, "views", None)
    if rules is None or not callable(views):
        return {}
    record = views(rules)
    return dict(record) if isinstance(record, dict) else {}


def log_records(replica: Replica, row: GameRow) -> list[dict[str, Any]]:
    events: dict[int, list[str]] = {}
    for seq, event in replica.events(row.game_id):
        events.setdefault(seq, []).append(event.text)
    keys: dict[bytes, bytes] = {}
    records = []
    for seq, data in replica.packets(row.game_id):
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[packet.envelope.key_id] = packet.envelope.public_key
        body = packet.body
        records.append(
            {
                "seq": seq,
                "seat": body.seat,
                "kind": kind_name(body.kind),
                "packet": packet.packet_id.hex(),
                "written_at": body.written_at,
                "bytes": len(data),
                "events": events.get(seq, []),
            }
        )
    for claim in claims.claims_of(replica.store, row.game_id):  # after the packet it waits at
        records.append(
            {
                "seq": claim.body.head_seq,
                "seat": claim.body.seat,
                "kind": "claim",
                "packet": claim.claim_id.hex(),
                "written_at": claim.body.claimed_at,
                "bytes": len(claim.data),
                "events": [f"late claim: {claims.claim_text(claim.body)}"],
            }
        )
    return sorted(records, key=lambda record: int(record["seq"]))


# --- text views ----------------------------------------------------------------------------


def identity_text(record: dict[str, Any]) -> str:
    lock = "encrypted" if record["encrypted"] else "NOT encrypted"
    return (
        f"{record['name']} <{record['address']}>\n"
        f"fingerprint: {record['fingerprint']}\n"
        f"key file:    {record['key_file']} ({lock})\n"
        f"entropy seeds and secret choices: {record['seeds_and_secrets']}"
    )


def scenarios_text(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        lines.append(f"{row['id']:<12} {row['title']}  [{row['ruleset']}]")
        lines.append(f"{'':<12} start {row['start']}; seats: {', '.join(row['seats'])}")
        if row["options"]:
            options = ", ".join(f"{k}={v}" for k, v in row["options"].items())
            lines.append(f"{'':<12} options: {options}")
    return "\n".join(lines)


def holdings_text(record: dict[str, Any]) -> str:
    lines = [
        f"{'EMPIRE':<8}{'SEAT':<11}{'PROV':>5}{'HEXES':>6}{'MINOR':>6}{'MAJOR':>6}"
        f"{'BASES':>6}{'EP':>5}  CAPITAL"
    ]
    for empire in record["empires"]:
        planets = empire["planets"]
        minors = sum(1 for p in planets if p["kind"] == "minor") + empire["offmap_minor_planets"]
        majors = sum(1 for p in planets if p["kind"] == "major") + empire["offmap_major_planets"]
        provinces = len(empire["provinces"]) + empire["offmap_provinces"]
        capitals = " ".join(f"{h:04d}" for h in empire["capitals"]) or "-"
        lines.append(
            f"{empire['empire']:<8}{empire['seat']:<11}{provinces:>5}{empire['hexes']:>6}"
            f"{minors:>6}{majors:>6}{len(empire['bases']):>6}{empire['income']:>5}  {capitals}"
        )
    lines.append("(provinces and planets include off-map possessions; EP by the chart 753.0)")
    return "\n".join(lines)


def games_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no games yet: `hexpost new` starts one, `hexpost sync` picks up invitations"
    lines = [f"{'GAME':<10}{'NAME':<16}{'TURN':<14}{'STEP':<7}{'WAITING FOR':<18}NOTE"]
    for row in rows:
        waiting = ",".join(row["waiting_for"]) or "-"
        if waiting == row["my_seat"]:
            waiting = "you"
        if row["waiting_for"]:
            waiting = f"{waiting} {age(row['since'])}"
        note = (
            (row["frozen"] and f"FROZEN: {row['frozen']}")
            or (row.get("notes") or [""])[0]
            or row.get("claim")
            or (
                "invitation"
                if row["status"] == "invited"
                else (f"{row['unread']} new" if row["unread"] else "")
            )
        )
        lines.append(
            f"{row['game'][:8]:<10}{row['name'][:15]:<16}{turn_text(row['turn']):<14}"
            f"{(row['step'] or '-'):<7}{waiting[:17]:<18}{note}"
        )
    return "\n".join(lines)


def show_text(record: dict[str, Any]) -> str:
    lines = [
        f"{record['name']} ({record['game'][:12]})  {record['scenario']}  [{record['ruleset']}]",
        f"packet {record['seq']}  state {record['state_hash'][:16]}",
    ]
    for seat in record["seats"]:
        you = " (you)" if seat["seat"] == record["my_seat"] else ""
        fp = seat["fingerprint"] or "not joined yet"
        lines.append(f"  {seat['seat']:<10}{seat['name'] or '?'} <{seat['address']}>{you}  {fp}")
    if record["frozen"]:
        lines.append(f"FROZEN: {record['frozen']}")
    if record.get("claim"):
        lines.append(record["claim"])
    lines.extend(record.get("notes") or [])
    for entry in record.get("unsent", []):
        lines.append(entry["text"])
    if record["options"]:
        chosen = ", ".join(f"{key}={value}" for key, value in sorted(record["options"].items()))
        lines.extend(textwrap.wrap(f"rule options: {chosen}", 78, subsequent_indent="  "))
    turn = turn_text(record["turn"])
    lines.append(
        f"{turn}, phasing {record['phasing'] or '-'}, step {record['step'] or '-'} "
        f"{record['step_title'] or ''}".rstrip()
    )
    for decision in record["pending"][:1]:
        lines.append(
            f"waiting for {', '.join(decision['seats'])}: {decision['kind']} at "
            f"{decision['step']} {decision['title']}".rstrip()
        )
    if record["over"]:
        lines.append("the game is over")
    for empire in record.get("empires", []):
        lines.append(
            f"  {empire['empire']:<4}{empire['seat']:<11}treasury {empire['treasury']} EP, "
            f"income {empire['income']} EP, {empire['units_on_map']} units on the map"
            + _supply_text(empire.get("supply"))
        )
    for roll in record["rolls"][-5:]:
        lines.append(f"  roll #{roll['seq']} {roll['seat']}: {roll['purpose']}: {roll['dice']}")
    for item in record.get("checklist", []):
        mark = {"done": "[x]", "current": "[>]", "skipped": "[-]"}.get(item["status"], "[ ]")
        lines.append(
            f"{mark} {item['step']:<8}{item['title'][:47]:<48}"
            f"{item['actor'][:11]:<12}{item['kind']}"
        )
    return "\n".join(lines)


def _supply_text(supply: Any) -> str:
    """``", 2 out of supply"`` when some units are cut off (partial grids are in supply)."""
    units = supply.get("units") if isinstance(supply, dict) else None
    cut_off = units.get("none", 0) if isinstance(units, dict) else 0
    return f", {cut_off} out of supply" if cut_off else ""


def log_text(records: list[dict[str, Any]]) -> str:
    lines = []
    for record in records:
        lines.append(
            f"#{record['seq']:<4} {record['seat']:<10} {record['kind']:<8} "
            f"{record['packet'][:12]}  {record['written_at']}"
        )
        lines.extend(f"       {text}" for text in record["events"])
    return "\n".join(lines)
