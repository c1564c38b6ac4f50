"""`saves.registry.plugin_for` tries a quick look for one ruleset's plug-in until the full scan
of installed plug-ins has been made, and reads the scan after that: each answer here is
compared with a fresh scan's (`registry.load`) as plug-ins are installed and removed and the
scan is forgotten (``cache_clear``, `reload`), and the quick look is checked to be taken
exactly while no scan has been made."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from engine.core.errors import VersionError
from engine.core.plugin import Plugin
from saves import registry
from tests.toy_plugin import PLUGINS

IDS = ("fe", "toy", "chess")


def answer(ruleset_id: str) -> Plugin | None:
    """What `plugin_for` gives, None where it refuses the ruleset."""
    try:
        return registry.plugin_for(ruleset_id)
    except VersionError:
        return None


def fresh(ruleset_id: str) -> Plugin | None:
    """What a full scan made now gives."""
    return registry.load().get(ruleset_id)


def scanned() -> bool:
    return registry.installed.cache_info().currsize == 1


def forget() -> None:
    """Forget both the scan and the quick look's finds, as the registry's tests do."""
    registry.installed.cache_clear()
    registry._QUICK.clear()


@pytest.fixture(autouse=True)
def rescan_after() -> Iterator[None]:
    yield
    if str(PLUGINS) in sys.path:
        sys.path.remove(str(PLUGINS))
    registry.reload()


def test_before_a_scan_the_quick_look_answers_as_the_scan_would() -> None:
    forget()
    assert answer("fe") == fresh("fe") and answer("fe") is not None
    assert not scanned()  # found by the quick look
    assert answer("chess") is None and fresh("chess") is None
    assert scanned()  # what the quick look cannot settle is scanned for


def test_after_a_scan_the_quick_look_is_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    forget()
    registry.installed()

    def no_quick_look(ruleset_id: str) -> Plugin | None:
        raise AssertionError(f"quick look for {ruleset_id} after the full scan")

    monkeypatch.setattr(registry, "_quick", no_quick_look)
    for ruleset_id in IDS:
        assert answer(ruleset_id) == fresh(ruleset_id)


def test_a_forgotten_scan_is_made_again_and_its_answers_follow_the_plugins() -> None:
    sys.path.append(str(PLUGINS))
    registry.reload()  # the toy installed, and scanned
    assert [answer(i) == fresh(i) for i in IDS] == [True, True, True]
    assert answer("toy") is not None
    sys.path.remove(str(PLUGINS))
    forget()  # the toy removed: a scan forgotten must not answer for it
    assert answer("toy") is None and fresh("toy") is None
    assert answer("fe") == fresh("fe")
    sys.path.append(str(PLUGINS))
    forget()
    assert answer("toy") == fresh("toy") and answer("toy") is not None
    assert not scanned()  # the toy found by the quick look, as before any scan
