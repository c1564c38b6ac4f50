"""A game's client code is found without the entry-point scan, and is the scan's own."""

from __future__ import annotations

from tui import rulesets


def test_the_fe_client_is_found_without_the_full_scan() -> None:
    rulesets.installed.cache_clear()
    rulesets._QUICK.clear()
    quick = rulesets.client_for("fe")
    assert rulesets.installed.cache_info().currsize == 0
    assert quick.id == "fe"
    assert rulesets.installed().found["fe"] is quick


def test_a_ruleset_without_a_client_falls_to_the_scan_and_the_generic_client() -> None:
    rulesets.installed.cache_clear()
    rulesets._QUICK.clear()
    client = rulesets.client_for("chess")
    assert isinstance(client, rulesets.GenericClient)
    assert rulesets.installed.cache_info().currsize == 1
