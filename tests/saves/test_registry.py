"""Rulesets found through entry points: the good ones load, a bad one is named and left out."""

from __future__ import annotations

import functools
from importlib import metadata

import pytest

from engine.core.errors import VersionError
from engine.core.face import Summary
from engine.core.rolls import follows_on, in_asked_order
from saves import registry
from tests.engine.toy import TOY, ToyState
from tests.toy_plugin import toy_plugin  # noqa: F401  (a fixture)

GROUP = "hexpost.rulesets"


def point(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name, value, GROUP)


def test_the_installed_hexpost_offers_fe_and_nothing_else() -> None:
    found = registry.installed()
    assert found.ids() == ("fe",)
    assert found.problems == ()
    assert registry.ruleset_for("fe").id == "fe"


def test_a_missing_ruleset_is_refused_by_name_with_the_known_ones() -> None:
    with pytest.raises(VersionError, match=r"'chess' is not part of this hexpost \(it has fe\)"):
        registry.ruleset_for("chess")


def test_bad_plugins_are_named_and_the_good_ones_still_load() -> None:
    found = registry.load(
        [
            point("fe", "engine.fe:PLUGIN"),
            point("broken", "tests.engine.no_such_module:PLUGIN"),
            point("notaplugin", "engine.fe:FE"),
            point("twin", "engine.fe:PLUGIN"),
            point("toy", "tests.engine.toy:PLUGIN"),
        ]
    )
    assert found.ids() == ("fe", "toy")
    problems = {p.name: p.problem for p in found.problems}
    assert set(problems) == {"broken", "notaplugin", "twin"}
    assert "does not import" in problems["broken"]
    assert "no_such_module" in problems["broken"]
    assert "not a hexpost Plugin" in problems["notaplugin"]
    assert "'fe'" in problems["twin"] and "already took" in problems["twin"]


def test_a_plugin_without_a_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(TOY), "version", "")
    found = registry.load([point("toy", "tests.engine.toy:PLUGIN")])
    assert found.ids() == ()
    assert "no MAJOR.MINOR version" in found.problems[0].problem


@pytest.mark.parametrize("attribute", ["follow_on_dice_from", "reveal_dice_in_order_from"])
@pytest.mark.parametrize("since", ["soon", "5", 51, None])
def test_a_plugin_with_an_unreadable_version_of_a_core_change_is_refused(
    monkeypatch: pytest.MonkeyPatch, since: object, attribute: str
) -> None:
    monkeypatch.setattr(type(TOY), attribute, since)
    found = registry.load([point("toy", "tests.engine.toy:PLUGIN")])
    assert found.ids() == ()
    assert f"{attribute}: got" in found.problems[0].problem


def test_a_plugin_written_before_the_core_changes_is_loaded_and_keeps_the_old_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(type(TOY), "follow_on_dice_from")
    monkeypatch.delattr(type(TOY), "reveal_dice_in_order_from")
    found = registry.load([point("toy", "tests.engine.toy:PLUGIN")])
    assert found.ids() == ("toy",) and not found.problems
    assert not follows_on(TOY, "1.2") and not in_asked_order(TOY, "1.2")


def test_the_toy_is_found_through_its_dist_info_entry_point(toy_plugin: dict[str, str]) -> None:  # noqa: F811
    assert registry.installed().ids() == ("fe", "toy")
    face = registry.face_for("toy")
    summary = face.summary(ToyState(("north", "south")))
    assert summary == Summary(
        1, "Round 1", "R1", step="talk", step_title="Talk", waiting_for=("north",),
        facts=summary.facts,
    )  # fmt: skip
    assert [c.order for c in face.choices(ToyState(("north", "south")), "north")] == [
        "say",
        "roll",
    ]
    assert face.choices(ToyState(("north", "south")), "south") == ()


def test_opening_a_game_finds_its_ruleset_without_the_full_scan(toy_plugin: dict[str, str]) -> None:  # noqa: F811
    """The quick look reads the toy's ``entry_points.txt`` itself: no scan is made (nor
    `importlib.metadata` asked), and the plug-in is the one the full scan finds later."""
    registry.installed.cache_clear()
    registry._QUICK.clear()
    quick = registry.plugin_for("toy")
    assert registry.installed.cache_info().currsize == 0
    assert quick.id == "toy"
    assert registry.installed().get("toy") is quick


def test_what_the_quick_look_cannot_settle_goes_to_the_full_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A missing ruleset, or an entry point named like it that does not load, is left to
    the full scan, which refuses by name or reports the problem."""
    registry.installed.cache_clear()
    registry._QUICK.clear()
    with pytest.raises(VersionError, match=r"'chess' is not part of this hexpost \(it has fe\)"):
        registry.plugin_for("chess")
    assert registry.installed.cache_info().currsize == 1
    registry.installed.cache_clear()
    monkeypatch.setattr(
        registry, "named_entry_points", lambda group, name: ["tests.engine.no_such_module:PLUGIN"]
    )
    assert registry._quick("fe") is None
    assert registry.plugin_for("fe").id == "fe"  # found by the scan
    assert registry.installed.cache_info().currsize == 1
    registry.reload()


def test_a_ruleset_whose_plugin_does_not_load_is_named_as_broken_not_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game's ruleset installed but broken (an upgrade left it unable to import): the
    refusal says so, so the player repairs the plug-in rather than looks for it."""
    found = registry.load([point("fe", "engine.fe:PLUGIN"), point("toy", "no_such_toy:PLUGIN")])
    monkeypatch.setattr(registry, "installed", functools.cache(lambda: found))
    monkeypatch.setattr(registry, "_quick", lambda ruleset_id: None)
    with pytest.raises(VersionError) as refused:
        registry.plugin_for("toy")
    assert str(refused.value).startswith(
        "ruleset 'toy' is installed, but its plug-in does not import: ModuleNotFoundError"
    )
    assert not registry.has_ruleset("toy") and registry.has_ruleset("fe")
    with pytest.raises(VersionError, match=r"'chess' is not part of this hexpost \(it has fe\)"):
        registry.plugin_for("chess")
