"""Email addresses as typed and as delivered (`saves.addresses`)."""

from __future__ import annotations

import pytest

from saves.addresses import address_problem, same_address


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("Bob <bob@example.org>", "holds a name besides the address"),
        ("<bob@example.org>", "holds a name besides the address"),
        ("bob@example.org, carol@example.org", "is more than one address"),
        ("bob@example.org; carol@example.org", "is more than one address"),
        ("bob@@example.org", "is more than one address"),
        ("bob@", "is not an email address"),
        ("@example.org", "is not an email address"),
        ("bob", "is not an email address"),
        ("bob smith@example.org", "is not an email address"),
        ("mailto:bob@example.org", "is not an email address"),
        ("bob@example..org", "is not an email address"),
        ("bob@.example.org", "is not an email address"),
        ("bob@example.org.", "is not an email address"),
    ],
)
def test_what_is_not_one_plain_address_is_named(typed: str, said: str) -> None:
    assert address_problem(typed) == (
        f"{typed!r} {said}: give the address alone, such as bob@example.org"
    )


@pytest.mark.parametrize(
    "typed",
    [
        "bob@example.org",
        "Bob.Smith+games@Example.ORG",
        "bob@localhost",
        "o'brien@example.ie",
        "bob@bücher.de",
        "bob_smith-1@mail.example.co.uk",
    ],
)
def test_a_plain_address_is_taken(typed: str) -> None:
    assert address_problem(typed) is None


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("bob@example.org", "bob@example.org", True),
        ("Bob@Example.ORG", "bob@example.org", True),
        ("bob+hexpost@example.org", "bob@example.org", True),
        ("bob+a@example.org", "bob+b@example.org", True),
        ("b.o.b@gmail.com", "bob@googlemail.com", True),
        ("Bob.Smith+games@GMail.com", "bobsmith@gmail.com", True),
        ("b.o.b@example.org", "bob@example.org", False),  # dots count outside Gmail
        ("bob@example.org", "bob@example.com", False),
        ("bob@example.org", "rob@example.org", False),
        ("+bob@example.org", "@example.org", False),  # no name before the '+': no tag
        ("carol", "carol", True),
    ],
)
def test_same_address_follows_delivery(first: str, second: str, same: bool) -> None:
    """Addresses that reach one mailbox: case, a subaddress (``+tag``), Gmail's dots and
    googlemail.com do not tell two players apart."""
    assert same_address(first, second) is same
    assert same_address(second, first) is same
