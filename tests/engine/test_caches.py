"""The engine's caches live in `engine.core.caches` and never change a result.

Three things are checked here: the source of engine/ keeps no cache anywhere else (read with
`ast`, and the reader is itself tried on code that breaks each rule); a golden game replayed
with every cache emptied, and its state decoded afresh from its canonical bytes, many times
along the way gives exactly the recorded state hashes; and the registry holds the caches the
engine is known to have, each bounded unless it holds shipped data.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.core import caches
from engine.core.game import apply_packet
from engine.core.packets import key_id, open_packet
from engine.core.state import decode_state, encode_state
from engine.fe import RULESET
from tests.golden.companion import read_golden

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
GOLDEN = ROOT / "tests" / "golden"

# --- nothing caches outside engine/core/caches.py ------------------------------------------

ALLOWED_CACHED_PROPERTIES = {
    ("engine/fe/model.py", "FeState.board"),
    ("engine/fe/forces.py", "Board._by_id"),
    ("engine/fe/forces.py", "Board._by_hex"),
    ("engine/fe/forces.py", "Board._id_sorted"),
    ("engine/fe/units.py", "UnitTables._index"),
}
"""The declared exception (see the docstring of `engine.core.caches`): per-object memos on
immutable objects."""

ALLOWED_NAMES: set[tuple[str, str]] = set()
"""Names that say "cache" outside caches.py (none: a `Blocking`'s answers are the remembered
`engine.fe.blocking.blocking_hexes`)."""

FUNCTOOLS_CACHES = {"cache", "lru_cache", "cached_property"}
MUTATORS = {
    "append", "appendleft", "extend", "insert", "pop", "popitem", "popleft", "clear",
    "update", "setdefault", "add", "discard", "remove", "__setitem__", "__delitem__",
}  # fmt: skip
CONTAINER_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter"}


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str


def _is_container(node: ast.expr | None) -> bool:
    if isinstance(node, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp):
        return True
    if isinstance(node, ast.SetComp):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in CONTAINER_CALLS
    return False


def _module_containers(tree: ast.Module) -> set[str]:
    """Names bound at module level to a mutable container."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and _is_container(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names |= {node.target.id} if _is_container(node.value) else set()
    return names


class _Scanner(ast.NodeVisitor):
    """Walks one module, knowing the class and function it is in."""

    def __init__(self, path: str, containers: set[str]) -> None:
        self.path = path
        self.containers = containers
        self.scope: list[str] = []
        self.classes: list[str] = []
        self.depth = 0  # functions entered
        self.found: list[Finding] = []

    def _add(self, node: ast.AST, what: str) -> None:
        self.found.append(Finding(self.path, getattr(node, "lineno", 0), what))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()
        self.classes.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in FUNCTOOLS_CACHES:
                where = ".".join([*self.scope, node.name])
                if name != "cached_property" or (self.path, where) not in ALLOWED_CACHED_PROPERTIES:
                    self._add(node, f"@{name} on {where}")
        self.scope.append(node.name)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "functools":
            for alias in node.names:
                if alias.name in FUNCTOOLS_CACHES:
                    self._add(node, f"from functools import {alias.name}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        value = node.value
        functools_cache = node.attr in {"cache", "lru_cache"}
        if functools_cache and isinstance(value, ast.Name) and value.id == "functools":
            self._add(node, f"functools.{node.attr}")
        self._name(node, node.attr)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._name(node, node.id)

    def _name(self, node: ast.AST, name: str) -> None:
        lowered = name.lower()
        if name == "caches" or name in FUNCTOOLS_CACHES:
            return  # the declared module itself; decorators are judged above
        if "cache" in lowered or "memo" in lowered or name.startswith("_LAST"):
            owner = self.classes[-1] + "." if self.classes else ""
            if (self.path, owner + name) not in ALLOWED_NAMES:
                self._add(node, f"a cache-like name {owner + name}")

    def visit_Global(self, node: ast.Global) -> None:
        self._add(node, f"global {', '.join(node.names)}")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        target = node.value
        written = self.depth and isinstance(node.ctx, ast.Store | ast.Del)
        if written and isinstance(target, ast.Name) and target.id in self.containers:
            self._add(node, f"writes the module-level {target.id}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        mutates = self.depth and isinstance(func, ast.Attribute) and func.attr in MUTATORS
        if mutates and isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id in self.containers:
                self._add(node, f"{owner.id}.{func.attr}() on a module-level container")
        self.generic_visit(node)


def scan(path: str, source: str) -> list[Finding]:
    """Every cache outside `engine.core.caches` in one module's source."""
    tree = ast.parse(source)
    scanner = _Scanner(path, _module_containers(tree))
    scanner.visit(tree)
    return scanner.found


def _engine_sources() -> dict[str, str]:
    return {
        p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(ENGINE.rglob("*.py"))
        if p != ENGINE / "core" / "caches.py"
    }


def test_no_module_of_the_engine_caches_outside_the_declared_place() -> None:
    sources = _engine_sources()
    assert "engine/fe/model.py" in sources and "engine/core/game.py" in sources
    found = [f for path, source in sources.items() for f in scan(path, source)]
    assert not found, "caches outside engine/core/caches.py:\n" + "\n".join(
        f"  {f.path}:{f.line}: {f.what}" for f in found
    )


def test_the_allowed_exceptions_exist_and_are_declared() -> None:
    """The allow-lists name real code (they cannot rot into a blanket pass) and each is named
    in the docstring of `engine.core.caches`, the one place a reader looks."""
    sources = _engine_sources()
    doc = caches.__doc__ or ""
    for path, where in ALLOWED_CACHED_PROPERTIES:
        name = where.split(".")[-1]
        assert f"def {name}(" in sources[path], f"{path} has no {where}"
        assert where in doc, f"{where} is allowed but not declared in engine.core.caches"
    for path, where in ALLOWED_NAMES:
        assert where.split(".")[-1] in sources[path], f"{path} has no {where}"
        assert where.split(".")[0] in doc, f"{where} is allowed but not declared"


BAD_SOURCES = {
    "functools.cache": "import functools\n@functools.cache\ndef f(x): return x\n",
    "lru_cache": "import functools\n@functools.lru_cache(maxsize=8)\ndef f(x): return x\n",
    "imported": "from functools import cache\n@cache\ndef f(x): return x\n",
    "wrapped by call": "import functools\ndef g(x): return x\nf = functools.cache(g)\n",
    "cached_property": (
        "import functools\nclass C:\n    @functools.cached_property\n    def v(self): return 1\n"
    ),
    "dict memo": "_SEEN: dict[int, int] = {}\ndef f(x):\n    _SEEN[x] = x * 2\n    return x\n",
    "last list": "_PREV = []\ndef f(x):\n    _PREV[:] = [x]\n    return x\n",
    "setdefault": "_T = dict()\ndef f(x):\n    return _T.setdefault(x, x)\n",
    "global": "_V = None\ndef f(x):\n    global _V\n    _V = x\n",
    "memo attribute": "class C:\n    def f(self, x):\n        self._memo = x\n",
}


@pytest.mark.parametrize("case", sorted(BAD_SOURCES))
def test_the_source_reader_catches_each_kind_of_hidden_cache(case: str) -> None:
    assert scan("engine/fe/hidden.py", BAD_SOURCES[case]), f"missed: {case}"


def test_the_source_reader_passes_constant_tables_and_the_declared_module() -> None:
    fine = (
        "from engine.core import caches\n"
        "RULES = {'a': 1}\nORDER = [1, 2]\n"
        "@caches.derived(maxsize=4)\ndef f(x):\n    local = {}\n    local[x] = RULES['a']\n"
        "    return local\n"
    )
    assert scan("engine/fe/fine.py", fine) == []


# --- the same packets give the same hashes cold and warm -----------------------------------

COLD_REPLAYS = {"fe_wind": 1, "fe_battle": 1, "fe_campaign": 3}
"""Each golden game replayed cold, and the packets between clearings: before every one of
The Wind's 190 packets and the battle's 96, before every third of the campaign's 737 (its
builds, moves, strategic moves, battles and captures; about a second and a half so). Raise
a count if a game grows and the test gets slow, keeping 20 clearings or more."""


@pytest.mark.parametrize(("name", "every"), sorted(COLD_REPLAYS.items()))
def test_golden_game_replayed_with_caches_emptied_gives_the_recorded_hashes(
    name: str, every: int
) -> None:
    golden = read_golden(GOLDEN / f"{name}.msgpack")
    assert golden.ruleset.split("/")[0] == RULESET.id
    assert len(golden.packets) == len(golden.hashes) > 20 * every
    keys: dict[bytes, bytes] = {}
    state = None
    cleared = filled = 0
    for seq, (data, expected) in enumerate(zip(golden.packets, golden.hashes, strict=True)):
        if seq % every == 0:
            filled += any(info.size for info in caches.describe() if _engine(info.name))
            caches.clear_all()
            assert all(info.size == 0 for info in caches.describe())
            cleared += 1
            if state is not None:  # per-object memos go cold with a freshly decoded state
                state = decode_state(encode_state(state), RULESET.state_type)
        packet = open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        if packet.envelope.public_key:
            keys[key_id(packet.envelope.public_key)] = packet.envelope.public_key
        result = apply_packet(RULESET, state, packet)
        assert result.state_hash == expected, f"state hash moved at packet {seq} (cold caches)"
        state = result.state
    assert cleared >= 20
    assert filled >= cleared - 1, "the caches were never filled between clearings"


# --- the registry --------------------------------------------------------------------------

EXPECTED = {
    "engine.core.owed._pending_of": "by_identity",
    "engine.core.through.walked": "by_identity",
    "engine.core.turns._position": "by_identity",
    "engine.core.packets._public_key": "derived",
    "engine.fe.applies.has_kind": "by_identity",
    "engine.fe.applies._classes_have": "by_identity",
    "engine.fe.applies._class_is": "derived",
    "engine.fe.applies._table_sides": "derived",
    "engine.fe.applies._empires_of_seats": "derived",
    "engine.fe.blocking._alike": "by_identity",
    "engine.fe.flow._phase_hooks": "static",
    "engine.fe.unit_kinds.base_class_ids": "static",
    "engine.fe.blocking._blocked_by": "by_identity",
    "engine.fe.occupancy._map_bases": "by_identity",
    "engine.fe.occupancy._map_bases_by_hex": "by_identity",
    "engine.fe.occupancy._map_occupancy": "by_identity",
    "engine.fe.unit_kinds._is_ship": "derived",
    "engine.fe.blocking._table": "derived",
    "engine.fe.occupancy.board_index": "by_identity",
    "engine.fe.blocking.blocking_hexes": "by_identity",
    "engine.fe.occupancy._side_bits": "derived",
    "engine.fe.occupancy._traits": "derived",
    "engine.fe.occupancy.feature_hexes": "by_identity",
    "engine.fe.blocking.presence_set": "by_identity",
    "engine.fe.economics.planet_hexes": "by_identity",
    "engine.fe.planets.planet_hexes": "by_identity",
    "engine.fe.economics._given": "by_identity",
    "engine.fe.economics._income": "by_identity",
    "engine.fe.face._sheet": "static",
    "engine.fe.signed_choices._manual_count": "static",
    "engine.fe.forces._class_info": "derived",
    "engine.fe.movement._steps_from": "derived",
    "engine.fe.forces.units_by_hex": "by_identity",
    "engine.fe.galaxy.load_galaxy": "static",
    "engine.fe.board_update.board_of": "by_identity",
    "engine.fe.state_digest._field_defaults": "derived",
    "engine.fe.state_digest._forces_digest": "by_identity",
    "engine.fe.state_digest._forces_digests": "by_identity",
    "engine.fe.state_digest._form_layout": "derived",
    "engine.fe.state_digest._encoded": "by_identity",
    "engine.fe.neutral._flanking": "derived",
    "engine.fe.board_views.highest_number": "by_identity",
    "engine.fe.production._planned": "by_identity",
    "engine.fe.production._held_capitals": "by_identity",
    "engine.fe.provinces.main_hexes": "by_identity",
    "engine.fe.production.slots_of": "by_identity",
    "engine.fe.rule_options._values": "by_identity",
    "engine.fe.scenario.load_scenarios": "static",
    "engine.fe.strategic._leg_reach": "by_identity",
    "engine.fe.strategic.nodes": "by_identity",
    "engine.fe.strategic.strategic_route": "by_identity",
    "engine.fe.supply._bases_by_empire": "by_identity",
    "engine.fe.supply._grids": "by_identity",
    "engine.fe.supply._neighbour_table": "by_identity",
    "engine.fe.supply._points": "by_identity",
    "engine.fe.supply._points_of_bases": "by_identity",
    "engine.fe.sequence.load_sequence": "static",
    "engine.fe.board_views.class_can_move": "derived",
    "engine.fe.board_views.lookup_of": "by_identity",
    "engine.fe.steps.replacements._fighter_carriers": "by_identity",
    "engine.fe.steps.replacements._buyers": "by_identity",
    "engine.fe.steps.replacements._carried": "derived",
    "engine.fe.steps.replacements._table_carriers": "static",
    "engine.fe.steps.replacements._table_buyers": "derived",
    "engine.fe.steps.reactors._reactors": "by_identity",
    "engine.fe.steps.releases._plan": "by_identity",
    "engine.fe.steps.releases._watchers": "by_identity",
    "engine.fe.steps.releases.hot_hexes": "by_identity",
    "engine.fe.steps.releases._placed": "by_identity",
    "engine.fe.steps.releases._bases": "by_identity",
    "engine.fe.steps.releases._watched": "by_identity",
    "engine.fe.steps.releases._space": "static",
    "engine.fe.steps.economy._entry_watchers": "by_identity",
    "engine.fe.steps.reactors._offsets": "derived",
    "engine.fe.board_views.empires_by_hex": "by_identity",
    "engine.fe.board_views.unit_classes": "by_identity",
    "engine.fe.board_views.kinds_of": "by_identity",
    "engine.fe.board_views.placed_kinds": "by_identity",
    "engine.fe.steps.setup_stage.setup_steps": "derived",
    "engine.fe.steps.shipyard._conversion_targets": "derived",
    "engine.fe.steps.yard._schedule": "derived",
    "engine.fe.steps._areas": "static",
    "engine.fe.steps._order_areas": "static",
    "engine.fe.steps.area": "derived",
    "engine.fe.steps.supply._by_status": "by_identity",
    "engine.fe.steps.supply._checked": "by_identity",
    "engine.fe.steps.supply._on_map": "by_identity",
    "engine.fe.steps.supply._held_hexes": "by_identity",
    "engine.fe.steps.supply._checked_on_board": "by_identity",
    "engine.fe.steps.supply._one_empire_each": "by_identity",
    "engine.fe.steps.supply._grid": "by_identity",
    "engine.fe.units.load_units": "static",
    "engine.fe.orders._order_decoder": "static",
    "engine.fe.production.build_terms": "derived",
    "engine.fe.scenario._scenarios_by_id": "static",
    "engine.fe.steps.yard._production_options": "by_identity",
    "engine.fe.steps.yard._repair_options": "by_identity",
    "engine.fe.views.shared_views": "by_identity",
}


def _engine(name: str) -> bool:
    return name.startswith("engine.")


def test_the_registry_lists_every_cache_of_the_engine() -> None:
    for module in pkgutil.walk_packages(engine.__path__, prefix="engine."):
        importlib.import_module(module.name)
    listed = {info.name: info.kind for info in caches.describe() if _engine(info.name)}
    assert listed == EXPECTED
    for info in caches.describe():
        if _engine(info.name) and info.kind != "static":
            assert info.maxsize is not None and info.maxsize > 0, f"{info.name} is unbounded"


# --- the kinds themselves ------------------------------------------------------------------


class Box:
    """A fresh object per call, freed right after: CPython hands its id to the next one."""

    def __init__(self, value: int) -> None:
        self.value = value


def test_an_identity_cache_never_answers_for_another_object_with_the_same_id() -> None:
    @caches.by_identity(maxsize=1, name="tests.caches.box")
    def value_of(box: Box) -> int:
        return box.value

    # A cache keyed by bare ids (not holding its key objects) fails this at once.
    assert [value_of(Box(i)) for i in range(500)] == list(range(500))


def test_an_identity_cache_keys_its_other_arguments_by_value() -> None:
    calls: list[tuple[int, str]] = []

    @caches.by_identity(maxsize=8, identity=1, name="tests.caches.mixed")
    def tagged(box: Box, tag: str) -> str:
        calls.append((box.value, tag))
        return f"{tag}{box.value}"

    box = Box(3)
    assert tagged(box, "a") == "a3" and tagged(box, "b") == "b3"
    assert tagged(box, "".join(["a"])) == "a3"  # an equal string, another object: a hit
    assert calls == [(3, "a"), (3, "b")]
    assert tagged(Box(3), "a") == "a3"  # an equal object is not the same one: a miss
    assert len(calls) == 3


class Twin:
    """Equal to any twin of the same number: a key that reads it by value, not by identity,
    takes a twin for it."""

    def __init__(self, number: int) -> None:
        self.number = number

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Twin) and other.number == self.number

    def __hash__(self) -> int:
        return self.number


@pytest.mark.parametrize(
    ("arity", "by_id"), [(2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (5, 2), (4, 3)]
)
def test_every_shape_of_key_tells_ids_and_values_apart(arity: int, by_id: int) -> None:
    """Each shape of key (`_key_maker`: some made without a loop) keys the first ``by_id``
    arguments by identity and every other one by value, each in its place: a key that drops
    an argument, or reads one the wrong way, answers for the wrong call."""
    calls: list[tuple[object, ...]] = []
    names = [f"a{n}" for n in range(arity)]
    source = f"def shaped({', '.join(names)}):\n    calls.append(({', '.join(names)},))\n"
    source += f"    return ({', '.join(names)},)\n"
    scope: dict[str, Any] = {"calls": calls}
    exec(source, scope)  # a function of exactly ``arity`` positional parameters
    remember = caches.by_identity(maxsize=64, identity=by_id, name=f"tests.caches.k{arity}{by_id}")
    shaped: Callable[..., tuple[object, ...]] = remember(scope["shaped"])
    boxes = [Twin(n) for n in range(by_id)]
    values = ["".join(["v", str(n)]) for n in range(arity - by_id)]
    shaped(*boxes, *values)
    shaped(*boxes, *["".join(list(v)) for v in values])  # equal values, other objects: a hit
    assert len(calls) == 1
    for n in range(by_id):  # an equal object, not the same, in an identity place: a miss
        shaped(*boxes[:n], Twin(n), *boxes[n + 1 :], *values)
    for n in range(arity - by_id):  # another value in a value place: a miss
        shaped(*boxes, *values[:n], "other", *values[n + 1 :])
    assert len(calls) == 1 + by_id + (arity - by_id)
    first = caches.peek(shaped, *boxes, *values)
    assert first is not None and first[:by_id] == tuple(boxes)  # peek reads the same key


def test_caches_stay_within_their_bounds_and_clear() -> None:
    @caches.derived(maxsize=4, name="tests.caches.square")
    def square(x: int) -> int:
        return x * x

    @caches.by_identity(maxsize=3, name="tests.caches.held")
    def held(box: Box) -> int:
        return box.value

    boxes = [Box(i) for i in range(10)]
    assert [square(i) for i in range(10)] == [i * i for i in range(10)]
    assert [held(b) for b in boxes] == list(range(10))
    sizes = {i.name: i.size for i in caches.describe()}
    assert sizes["tests.caches.square"] == 4 and sizes["tests.caches.held"] == 3
    caches.clear_all()
    sizes = {i.name: i.size for i in caches.describe()}
    assert sizes["tests.caches.square"] == 0 and sizes["tests.caches.held"] == 0


def test_a_derived_cache_tells_true_from_one() -> None:
    @caches.derived(maxsize=4, name="tests.caches.kind")
    def kind(x: object) -> str:
        return type(x).__name__

    assert (kind(1), kind(True), kind(1.0)) == ("int", "bool", "float")


def test_a_static_loader_runs_once_until_cleared() -> None:
    loads: list[int] = []

    def load() -> tuple[int, ...]:
        loads.append(1)
        return (1, 2, 3)

    loader = caches.static(load)
    assert loader() == loader() == (1, 2, 3) and len(loads) == 1
    caches.clear_all()
    assert loader() == (1, 2, 3) and len(loads) == 2


def test_an_unbounded_cache_is_refused() -> None:
    with pytest.raises(ValueError, match="positive bound"):
        caches.derived(maxsize=0)
    with pytest.raises(ValueError, match="positive bound"):
        caches.by_identity(maxsize=0)


def test_an_identity_cache_answers_threads_correctly() -> None:
    """Threads filling and evicting one small cache at once each get their own answers."""

    @caches.by_identity(maxsize=2, name="tests.caches.threads")
    def value_of(box: Box) -> int:
        return box.value

    wrong: list[tuple[int, int]] = []

    def work(offset: int) -> None:
        for i in range(2000):
            got = value_of(Box(offset + i))
            if got != offset + i:
                wrong.append((offset + i, got))

    threads = [threading.Thread(target=work, args=(n * 10_000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_threads_storing_peeking_and_priming_at_once_keep_answers_right_and_bounded() -> None:
    """The store is written without a lock (each step one dict operation): threads that
    call, prime, peek and ask for the newest entry of one small cache at once raise nothing,
    get only right answers, and once they are done the next store leaves it within bounds."""

    @caches.by_identity(maxsize=3, identity=1, name="tests.caches.racing")
    def scaled(box: Box, factor: int) -> int:
        return box.value * factor

    wrong: list[str] = []
    failed: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(3000):
                box = Box(offset + i)
                if scaled(box, 2) != box.value * 2:
                    wrong.append(f"call {box.value}")
                caches.prime(scaled, box.value * 3, box, 3)
                held = caches.peek(scaled, box, 3)
                if held is not None and held != box.value * 3:
                    wrong.append(f"peek {box.value}")
                newest = caches.newest(scaled)
                if newest is not None:
                    owner = newest[0][0]  # (the key objects: the box alone)
                    assert isinstance(owner, Box)
                    if newest[1] not in (owner.value * 2, owner.value * 3):
                        wrong.append(f"newest {newest}")
        except BaseException as error:  # (raised in a thread: kept for the assertion)
            failed.append(error)

    threads = [threading.Thread(target=work, args=(n * 100_000,)) for n in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns as often as the interpreter can
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failed == [] and wrong == []
    scaled(Box(-1), 2)
    (info,) = [c for c in caches.describe() if c.name == "tests.caches.racing"]
    assert info.size <= 3
