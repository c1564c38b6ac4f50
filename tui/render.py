"""How the command line prints the services' records: JSON for ``--json``, text for people.

The records themselves are built by `tui.services` (typed structs); their JSON is what
msgspec's encoder makes of them (`tui.services.jsonform`; a game's ``views`` spliced in by
`tui.services.show.show_builtins`), the contract later issues and tests build on. The text
views below print the same records for people, within 80 columns. `game_summary`,
`show_record` and `log_records` give the JSON form straight from a replica, for callers that
want the printed record.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from engine.core.text import counted
from saves.replica import GameRow, Replica
from tui.columns import columns, cut, pad, wrap
from tui.safe_text import safe_record
from tui.services import games, log, show
from tui.services.jsonform import json_form
from tui.services.show import ShowRecord
from tui.when import age, turn_text

__all__ = [
    "builtins",
    "emit",
    "game_summary",
    "games_text",
    "identity_text",
    "log_records",
    "log_text",
    "scenarios_text",
    "show_record",
    "show_text",
]


def builtins(record: Any) -> Any:
    """A service record (or a list of them) as the JSON the command line prints."""
    if isinstance(record, ShowRecord):
        return show.show_builtins(record)
    if isinstance(record, list):
        return [builtins(item) for item in record]
    return json_form(record)


def emit(record: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    """Print ``record`` (a service record, or its JSON form) as JSON or through its text view.
    Either way no character a terminal would obey gets out: JSON with ``ensure_ascii``
    writes every control and non-ASCII character as ``\\uXXXX``, and the text views see the
    record with every string made one safe line (`tui.safe_text`), so a name from another
    player cannot move the cursor, clear the screen or start a line of its own."""
    data = builtins(record)
    if as_json:
        # The C encoder writes the compact text (``indent`` would send `json.dumps` to its
        # pure-Python encoder, 18 ms of `show`'s 480 KB on The Wind), and msgspec indents
        # it, copying each string's escapes as written: the same text, a quarter the time.
        compact = json.dumps(data, ensure_ascii=True).encode()
        print(msgspec.json.format(compact, indent=2).decode())
    else:
        print(text(safe_record(data)))


def game_summary(replica: Replica, row: GameRow) -> dict[str, Any]:
    """`tui.services.games.summary` as ``hexpost games --json`` prints it."""
    return dict(json_form(games.summary(replica, row)))


def show_record(
    replica: Replica, row: GameRow, *, at: int | None, checklist: bool
) -> dict[str, Any]:
    """`tui.services.show.show` as ``hexpost show --json`` prints it."""
    return show.show_builtins(show.show(replica, row, at=at, checklist=checklist))


def log_records(replica: Replica, row: GameRow) -> list[dict[str, Any]]:
    """`tui.services.log.log_records` as ``hexpost log --json`` prints them."""
    return list(json_form(log.log_records(replica, row)))


# --- text views ----------------------------------------------------------------------------


def identity_text(record: dict[str, Any]) -> str:
    lock = "encrypted" if record["encrypted"] else "NOT encrypted"
    lines = [
        f"{record['name']} <{record['address']}>",
        f"fingerprint: {record['fingerprint']}",
        f"key:         {lock}",
        f"key file:    {record['key_file']}",
        f"entropy seeds and secret choices: {record['seeds_and_secrets']}",
    ]
    return "\n".join(fit_lines(lines))


def scenarios_text(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        lines.append(f"{row['id']:<12} {row['title']}  [{row['ruleset']}]")
        lines.append(f"{'':<12} start {row['start']}; seats: {', '.join(row['seats'])}")
        if row["options"]:
            options = ", ".join(f"{k}={_option_text(v)}" for k, v in row["options"].items())
            lines.extend(
                textwrap.wrap(
                    f"options: {options}",
                    78,
                    initial_indent=" " * 13,
                    subsequent_indent=" " * 15,
                    break_on_hyphens=False,
                )
            )
    if any(row["options"] for row in rows):
        lines.append("(hexpost scenario rules ID: what each option means and the values it takes)")
    return "\n".join(lines)


def _option_text(value: Any) -> str:
    """An option's value as ``--option ID=VALUE`` takes it (true/false in lower case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def option_lines(options: Mapping[str, Any], suffix: str = "") -> list[str]:
    """``rule options: id=value, ...`` as ``--option`` takes them, wrapped at 80 columns
    between options (never at a hyphen inside an option's id)."""
    chosen = ", ".join(f"{key}={_option_text(value)}" for key, value in sorted(options.items()))
    return textwrap.wrap(
        f"rule options: {chosen}{suffix}", 78, subsequent_indent="  ", break_on_hyphens=False
    )


def rules_text(rows: list[dict[str, Any]]) -> str:
    """Each optional rule: its id and default, what it takes, its rule, then its help."""
    lines = []
    for row in rows:
        value = row["default"]
        if isinstance(value, bool):
            takes = "true or false"
        elif row.get("choices"):
            takes = ", ".join(row["choices"])
        elif row.get("bounds"):
            takes = f"{row['bounds'][0]} to {row['bounds'][1]}"
        else:
            takes = "a whole number" if isinstance(value, int) else "a text"
        rule = f" (rule {row['rule']})" if row.get("rule") else ""
        # (its wrapped part indented past the help under it)
        lines += fit_lines([f"{row['id']}={_option_text(value)}  takes {takes}{rule}"], hang=8)
        lines.extend(
            textwrap.wrap(row["help"], 76, initial_indent="    ", subsequent_indent="    ")
        )
    return "\n".join(lines)


def games_text(rows: list[dict[str, Any]], width: int = 80) -> str:
    """The games as a table: each column as wide as its widest cell (a name cut at 15
    characters, a wait at 17), two spaces between, so a long turn tag or step id never runs
    into the next column. When a row with its note would pass ``width`` columns, every note
    goes on lines of its own under its row instead (`_notes_under`): a terminal wrapping a
    long line to its first column would break the table."""
    if not rows:
        return "no games yet: `hexpost new` starts one, `hexpost sync` picks up invitations"
    table = [("GAME", "NAME", "TURN", "STEP", "WAITING FOR", "NOTE")]
    for row in rows:
        waits = row.get("waits") or {}
        waiting = ",".join(row["waiting_for"]) or "-"
        if waiting == row["my_seat"] and waits.get("mine"):  # (`saves.seat_key`: a copy may not)
            waiting = "you"
        elif waits.get("who"):  # the player's name, as the game binds it
            waiting = waits["who"]
        if row["waiting_for"]:
            waiting = f"{waiting} {age(row['since'])}"
        unread = f"{row['unread']} new" if row["unread"] else ""
        owed = "; ".join(part for part in (waits.get("what", ""), unread) if part)
        note = (
            (row["frozen"] and f"FROZEN: {row['frozen']}")
            or (row.get("notes") or [""])[0]
            or row.get("claim")
            or (row.get("drafts") and f"{counted(row['drafts'], 'draft order')} not signed (app)")
            or ("invitation" if row["status"] == "invited" else "")
            or row.get("ended")
            or owed
        )
        if row.get("archived") and not row["frozen"]:
            note = f"archived: {note}" if note else "archived"
        table.append(
            (
                row["game"][:8],
                cut(row["name"], 15),
                turn_text(row["turn"]),
                row["step"] or "-",
                cut(waiting.strip(), 17),
                str(note),
            )
        )
    widths = [max(columns(cells[i]) for cells in table) for i in range(len(table[0]) - 1)]
    lines = [
        "  ".join([*(pad(c, w) for c, w in zip(cells, widths, strict=False)), cells[-1]]).rstrip()
        for cells in table
    ]
    if all(columns(line) <= width for line in lines):
        return "\n".join(lines)
    return _notes_under(table, widths, width)


def _notes_under(table: Sequence[tuple[str, ...]], widths: list[int], width: int) -> str:
    """`games_text` with each row's note on lines of its own (`fit_lines`), indented past
    the game's id."""
    indent = " " * (widths[0] + 2)
    lines = []
    for cells in table:
        lines.append("  ".join(pad(c, w) for c, w in zip(cells, widths, strict=False)).rstrip())
        if cells is not table[0] and cells[-1]:
            lines += fit_lines([indent + cells[-1]], width, hang=0)
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
        lines.extend(option_lines(record["options"]))
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
        lines.append(f"the game is {record['ended'] or 'over'}")
    for side in (record.get("board") or {}).get("sides", []):
        facts = ", ".join(f"{fact['label']} {fact['value']}" for fact in side["facts"])
        lines.append(f"  {side['id']:<4}{side['seat']:<11}{facts}".rstrip())
    for roll in record["rolls"][-5:]:
        who = roll["seat"] or "(the rules)"  # (a roll no seat asked for: a variable BIR)
        lines.append(f"  roll #{roll['seq']} {who}: {roll['purpose']}: {roll['dice']}")
    lines.extend(checklist_line(item) for item in record.get("checklist", []))
    return "\n".join(fit_lines(lines))


def checklist_line(item: dict[str, Any]) -> str:
    """One step of ``show --checklist``: its status, id, title, who acts and its kind, then
    the seats whose standing order covers it and whose signed policy answers it."""
    mark = {"done": "[x]", "current": "[>]", "skipped": "[-]"}.get(item["status"], "[ ]")
    covered = item.get("standing") or []
    answered = item.get("policy") or []
    return (
        f"{mark} {item['step']:<8}{item['title'][:47]:<48}"
        f"{item['actor'][:11]:<12}{item['kind']}"
        + (f"  (standing: {', '.join(covered)})" if covered else "")
        + (f"  (policy: {', '.join(answered)})" if answered else "")
    )


def chat_text(lines: list[dict[str, Any]]) -> str:
    """``hexpost chat GAME``: one message a line, by the writers' clocks."""
    if not lines:
        return "no chat messages (chat is not part of the game record)"
    shown = ["chat messages (not part of the game record; times are the writers' clocks):"]
    for line in lines:
        shown.append(
            f"{line['written_at']}  {line['seat']:<10} #{line['seq']:<3} "
            f"(after packet {line['after_packet']}): {line['text']}"
        )
    return "\n".join(fit_lines(shown))


def log_text(records: list[dict[str, Any]]) -> str:
    lines = []
    for record in records:
        lines.append(
            f"#{record['seq']:<4} {record['seat']:<10} {record['kind']:<8} "
            f"{record['packet'][:12]}  {record['written_at']}"
        )
        lines.extend(f"       {text}" for text in record["events"])
    return "\n".join(fit_lines(lines))


def fit_lines(lines: Sequence[str], width: int = 80, hang: int = 4) -> list[str]:
    """``lines`` with each one wider than ``width`` wrapped at spaces, its continuation
    indented ``hang`` columns past the line's own indent, so that a terminal of ``width``
    columns does not wrap it to its first column. A word longer than a line is kept whole,
    and so is a key's fingerprint (its eight groups are read as one)."""
    fitted: list[str] = []
    for line in lines:
        if columns(line) <= width:
            fitted.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip(" ")) + hang)
        kept = _FINGERPRINT.sub(lambda found: found[0].replace(" ", _GLUE), line)
        fitted += [part.replace(_GLUE, " ") for part in wrap(kept, width, indent)]
    return fitted


_FINGERPRINT = re.compile(r"\b[0-9a-f]{4}(?: [0-9a-f]{4}){7}\b")
"""A key's fingerprint as `engine.core.packets.fingerprint` writes it: eight groups."""
_GLUE = "\x00"
"""Holds a fingerprint's groups together while `fit_lines` wraps (no text shown holds it:
the store's text is escaped before it is drawn)."""
