"""The rulesets this hexpost can play, found through their packages' entry points.

Every installed distribution may name plug-ins in the entry point group ``hexpost.rulesets``
(`engine.core.plugin`); each names a `Plugin` object (``package.module:NAME``). They are
loaded once per process, on first use. A plug-in that fails to import, is not a `Plugin`,
lacks an id or a ``MAJOR.MINOR`` version, or declares an id another one already took is
left out and recorded as a `PluginProblem` (``hexpost scenarios`` and ``hexpost data check``
show them); the others keep working. A game whose ruleset is missing is refused by name
and version (protocol property P8).

Opening a game needs only its own ruleset, and the full scan costs a start-up dearly: importing
`importlib.metadata` (tens of milliseconds) and reading every distribution's metadata. So
`plugin_for`, until the full scan has been made, first reads the ``entry_points.txt`` files
of the ``.dist-info`` / ``.egg-info`` directories on ``sys.path`` itself and loads only the
entry points *named* like the wanted ruleset (in ``(name, value)`` order, the scan's order),
taking the first that loads and declares that id. Whatever that quick look cannot settle (no
such entry point, one that fails to load or declares another id) goes to the full scan, which
names the problems; listing rulesets (`rulesets`, `installed`) always scans.

Nothing else in hexpost imports a ruleset package: which games exist is installation data.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from typing import TYPE_CHECKING, Any

import msgspec

from engine.core.errors import VersionError
from engine.core.face import Face
from engine.core.plugin import ENTRY_POINT_GROUP, Plugin
from engine.core.ruleset import Ruleset

if TYPE_CHECKING:
    from importlib import metadata

_VERSION = re.compile(r"[0-9]{1,4}\.[0-9]{1,4}")
_ID = re.compile(r"[a-z][a-z0-9-]{0,31}")


class PluginProblem(msgspec.Struct, frozen=True):
    """A plug-in left out: the entry point's name and value, and what was wrong."""

    name: str
    value: str
    problem: str


class Registry(msgspec.Struct, frozen=True):
    """The plug-ins found, by id in name order, and the ones refused."""

    plugins: tuple[Plugin, ...]
    problems: tuple[PluginProblem, ...]

    def get(self, ruleset_id: str) -> Plugin | None:
        return _index(self).get(ruleset_id)

    def ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.plugins)


_INDEXED: list[tuple[Registry, dict[str, Plugin]]] = []
"""The last registry looked up in, with its plug-ins by id (every packet taken in names its
game's ruleset: a dict look-up instead of a walk over the plug-ins)."""


def _index(registry: Registry) -> dict[str, Plugin]:
    if not _INDEXED or _INDEXED[0][0] is not registry:
        _INDEXED[:] = [(registry, {p.id: p for p in registry.plugins})]
    return _INDEXED[0][1]


def load(entry_points: list[metadata.EntryPoint] | None = None) -> Registry:
    """Load the plug-ins of ``entry_points`` (default: every installed one of the group)."""
    from importlib import metadata  # here: its import alone costs a start-up tens of ms

    found = (
        list(metadata.entry_points(group=ENTRY_POINT_GROUP))
        if entry_points is None
        else entry_points
    )
    plugins: dict[str, Plugin] = {}
    problems: list[PluginProblem] = []
    for point in sorted(found, key=lambda p: (p.name, p.value)):
        plugin, problem = _load_one(point)
        if plugin is not None and plugin.id in plugins:
            problem = f"declares ruleset id {plugin.id!r}, which another plug-in already took"
            plugin = None
        if plugin is None:
            problems.append(PluginProblem(point.name, point.value, problem))
            continue
        plugins[plugin.id] = plugin
    ordered = tuple(plugins[key] for key in sorted(plugins))
    return Registry(ordered, tuple(problems))


def _load_one(point: metadata.EntryPoint) -> tuple[Plugin | None, str]:
    try:
        loaded: Any = point.load()
    except Exception as exc:  # a broken package must not stop the others
        return None, f"does not import: {type(exc).__name__}: {exc}"
    return _checked(loaded)


def _checked(loaded: Any) -> tuple[Plugin | None, str]:
    """``loaded`` as a plug-in, or why it is not one."""
    if not isinstance(loaded, Plugin):
        return None, f"names a {type(loaded).__name__}, not a hexpost Plugin"
    ruleset_id = getattr(loaded.rules, "id", None)
    version = getattr(loaded.rules, "version", None)
    if not isinstance(ruleset_id, str) or not _ID.fullmatch(ruleset_id):
        return None, f"has no usable ruleset id (got {ruleset_id!r})"
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        return None, f"ruleset {ruleset_id!r} has no MAJOR.MINOR version (got {version!r})"
    for attribute, what in _SINCE.items():
        since = getattr(loaded.rules, attribute, "")  # (a plug-in without it: never)
        if not isinstance(since, str) or not (since == "" or _VERSION.fullmatch(since)):
            return None, (
                f'ruleset {ruleset_id!r} names no MAJOR.MINOR version (or "") as the one its '
                f"games {what} from ({attribute}: got {since!r})"
            )
    return loaded, ""


_SINCE = {
    "follow_on_dice_from": "read follow-on dice",
    "reveal_dice_in_order_from": "roll a reveal's waiting dice in the order asked",
}
"""The versions a ruleset names for the core's behaviours that changed (`engine.core.rolls`)."""


@functools.cache
def installed() -> Registry:
    """Every installed plug-in, loaded once per process."""
    return load()


def reload() -> Registry:
    """Forget the loaded plug-ins and look again (after installing one, and in tests)."""
    installed.cache_clear()
    _QUICK.clear()
    return installed()


_QUICK: dict[str, Plugin] = {}
"""The plug-ins the quick look (`_quick`) found, by ruleset id, before any full scan."""


def _quick(ruleset_id: str) -> Plugin | None:
    """The plug-in of ``ruleset_id`` found without the full scan, or None to scan."""
    plugin = _QUICK.get(ruleset_id)
    if plugin is None:
        for value in sorted(named_entry_points(ENTRY_POINT_GROUP, ruleset_id)):
            loaded = load_entry_point(value)
            found, _problem = _checked(loaded) if loaded is not None else (None, "")
            if found is None or found.id != ruleset_id:
                return None
            plugin = _QUICK[ruleset_id] = found
            break
    return plugin


def load_entry_point(value: str) -> Any:
    """The object an entry point's ``module:attr`` value names, or None when it does not
    load (the full scan says why)."""
    try:
        module, _, attrs = value.partition(":")
        loaded: Any = importlib.import_module(module.strip())
        for attr in attrs.strip().split(".") if attrs.strip() else ():
            loaded = getattr(loaded, attr)
    except Exception:  # a broken package: left to the full scan, which reports it
        return None
    return loaded


def named_entry_points(group: str, name: str) -> list[str]:
    """The values of the entry points of ``group`` called ``name``, read from the
    ``entry_points.txt`` of every distribution directory on ``sys.path`` (without
    `importlib.metadata`; the client plug-ins, `tui.rulesets`, are looked up the same way)."""
    header = f"[{group}]"
    values: list[str] = []
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                dirs = [d.path for d in found if d.name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for directory in dirs:
            try:
                with open(os.path.join(directory, "entry_points.txt"), encoding="utf-8") as text:
                    lines = text.read().splitlines()
            except OSError:
                continue
            in_group = False
            for raw in lines:
                line = raw.strip()
                if line.startswith("["):
                    in_group = line == header
                elif in_group and "=" in line:
                    key, _, value = line.partition("=")
                    if key.strip() == name:
                        values.append(value.strip())
    return values


def ruleset_for(ruleset_id: str) -> Ruleset[Any]:
    """The ruleset named in a genesis; refuses (P8) when this hexpost lacks it."""
    return plugin_for(ruleset_id).rules


def has_ruleset(ruleset_id: str) -> bool:
    """Whether this hexpost has the ruleset (a plug-in may have been uninstalled since a game
    of it began)."""
    try:
        plugin_for(ruleset_id)
    except VersionError:
        return False
    return True


def face_for(ruleset_id: str) -> Face[Any]:
    """What a client reads of games of ``ruleset_id``."""
    return plugin_for(ruleset_id).face


def plugin_for(ruleset_id: str) -> Plugin:
    if installed.cache_info().currsize == 0:  # not scanned yet: try the quick look
        quick = _quick(ruleset_id)
        if quick is not None:
            return quick
    registry = installed()
    plugin = registry.get(ruleset_id)
    if plugin is None:
        broken = [found.problem for found in registry.problems if found.name == ruleset_id]
        if broken:  # installed, but an upgrade (say) left it unable to load: repair, not find
            raise VersionError(f"ruleset {ruleset_id!r} is installed, but its plug-in {broken[0]}")
        known = ", ".join(registry.ids()) or "none"
        raise VersionError(f"ruleset {ruleset_id!r} is not part of this hexpost (it has {known})")
    return plugin


def rulesets() -> tuple[Ruleset[Any], ...]:
    """Every installed ruleset's protocol half, by id."""
    return tuple(p.rules for p in installed().plugins)
