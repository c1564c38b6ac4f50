"""Email addresses as players type them and as mail delivers them.

An address is only a way to reach a player: no check of trust rests on it (the creator
accepts the key that joined by its fingerprint). So this module answers two practical
questions: is a typed text an address at all (`address_problem`: a display name, a list or a
``mailto:`` pasted from a mail client would send the invitation nowhere), and do two
addresses reach one mailbox (`same_address`: an invitation to ``Bob@Example.ORG`` or
``bob+games@example.org`` is bob@example.org's).
"""

from __future__ import annotations

ADDRESS_HINT = "give the address alone, such as bob@example.org"
"""What each refusal of `address_problem` ends with."""

_NOT_IN_ADDRESS = frozenset('<>,;:()[]"\\')
"""Characters no plain address holds: those of a display name, a list or a URL (quoted local
parts and address literals may hold some, but no mail client offers them to type)."""


def address_problem(address: str) -> str | None:
    """Why ``address`` is not a plain ``name@domain`` address, or None when it is one."""
    local, at, domain = address.rpartition("@")
    if "<" in address or ">" in address:
        return f"{address!r} holds a name besides the address: {ADDRESS_HINT}"
    if "," in address or ";" in address or address.count("@") > 1:
        return f"{address!r} is more than one address: {ADDRESS_HINT}"
    if (
        not at
        or not local
        or not domain
        or any(ch.isspace() or ch in _NOT_IN_ADDRESS for ch in address)
        or domain.startswith(".")
        or domain.endswith(".")
        or ".." in address
    ):
        return f"{address!r} is not an email address: {ADDRESS_HINT}"
    return None


GMAIL_DOMAINS = ("gmail.com", "googlemail.com")
"""Gmail's domains: one mailbox, whatever dots its name is written with."""


def mailbox_of(address: str) -> str:
    """The mailbox ``address`` is delivered to, as the big providers deliver: regardless of
    case, of a subaddress (``bob+games@...``: RFC 5233, Gmail, Fastmail, Outlook, iCloud),
    and at Gmail of dots in the name."""
    local, at, domain = address.casefold().rpartition("@")
    if not at:
        return address.casefold()
    name, plus, _tag = local.partition("+")
    if plus and name:
        local = name
    if domain in GMAIL_DOMAINS:
        local, domain = local.replace(".", ""), GMAIL_DOMAINS[0]
    return f"{local}@{domain}"


def same_address(first: str, second: str) -> bool:
    """Whether two email addresses reach one mailbox (`mailbox_of`): an invitation to
    ``Bob@Example.ORG`` or ``bob+hexpost@example.org`` is bob@example.org's."""
    return mailbox_of(first) == mailbox_of(second)
