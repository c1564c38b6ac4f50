"""Every cache the engine keeps, declared in one place.

The engine must give every player the same state hash for the same packets, so a cache may
only ever save time: whatever it returns on a hit must be exactly what a miss would have
computed. Each kind below states why that holds for it, and what its callers must promise in
return. A process-wide registry knows every cache made here, so a test can empty them all
(`clear_all`) and replay a game cold, and a curious reader can see what is held (`describe`).

The kinds:

- `static`: a zero-argument loader of data shipped with the code (a map, unit tables);
- `derived`: a pure function of hashable values, bounded, least recently used out first;
- `by_identity`: a function of immutable objects too big to hash, keyed by which objects they
  are, holding a reference to each key object, bounded.

A `derived` or `by_identity` cache whose arguments are all shipped data or the code's own (a
unit class, the map, a scenario) is declared ``shipped``: the benches empty every cache but
those and the `static` loaders between two timings of the same packets (`clear_all`).

No other module of the engine may use ``functools.cache``, ``functools.lru_cache`` or a
module-level container as a cache (``tests/engine/test_caches.py`` reads the source to keep
it so). The one declared exception is a per-object memo on an immutable object, which lives
and dies with that object and is computed from its frozen fields only, so it can neither go
stale nor be shared with another object:

- ``functools.cached_property`` ``FeState.board`` (engine/fe/model.py),
  ``Board._by_id``, ``Board._by_hex`` and ``Board._id_sorted`` (engine/fe/forces.py),
  ``UnitTables._index`` (engine/fe/units.py). A board made from another by one change
  (`Board.with_units`, `engine.fe.board_update`) derives its indexes from the other's and the
  changed units, at once or when first asked (a chain of unread boards is merged in one pass):
  the values a build from its own fields would give.

They stay where they are: moving them here would add a bound that could evict an index a
state still uses, and a global key for something that is only ever asked of its own object.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import Any, Literal, NamedTuple, ParamSpec, TypeVar, cast

import msgspec

P = ParamSpec("P")
R = TypeVar("R")

Kind = Literal["static", "derived", "by_identity"]


class CacheInfo(msgspec.Struct, frozen=True):
    """One registered cache: its name (module and function), kind, entries held now, bound."""

    name: str
    kind: Kind
    size: int
    maxsize: int | None


class _Registered(NamedTuple):
    kind: Kind
    maxsize: int | None
    size: Callable[[], int]
    clear: Callable[[], None]
    shipped: bool = False
    """Its answers depend on the shipped data and the code alone (see `derived`)."""


_REGISTRY: dict[str, _Registered] = {}
"""Every cache made by this module, by name. Not a cache itself: it only grows at import."""


def _register(name: str, entry: _Registered) -> None:
    # A name made twice (a module imported again under test) replaces the older entry: the
    # newest function is the one callers reach.
    _REGISTRY[name] = entry


def _name_of(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def clear_all(*, keep_shipped: bool = False) -> None:
    """Empty every registered cache; the next call of each computes afresh. With
    ``keep_shipped`` the loaders of shipped data and the caches declared ``shipped`` keep
    what they hold: a bench empties the rest between two timings of the same packets, so
    that the second is not served what the first worked out about those very states (a
    replica receiving a turn has seen none of them), while what any process that read the
    map and tables once holds stays at hand."""
    for entry in list(_REGISTRY.values()):
        if not (keep_shipped and (entry.kind == "static" or entry.shipped)):
            entry.clear()


def describe() -> tuple[CacheInfo, ...]:
    """Every registered cache with its kind and how many entries it holds now, by name."""
    return tuple(
        CacheInfo(name, entry.kind, entry.size(), entry.maxsize)
        for name, entry in sorted(_REGISTRY.items())
    )


def static(fn: Callable[[], R]) -> Callable[[], R]:
    """Decorate a loader of data shipped with the code: it runs once per process.

    Safe because the loader takes no argument and reads only the package's own files, which
    do not change while the process runs: a second load decodes the same bytes into an
    equal, immutable value. Callers must not mutate what it returns (frozen structs and
    tuples make that hard to do by accident) and must not rely on it being the same object
    as before (after `clear_all` it is an equal copy).
    """
    wrapped = functools.cache(fn)
    _register(
        _name_of(fn),
        _Registered("static", 1, lambda: wrapped.cache_info().currsize, wrapped.cache_clear),
    )
    return wrapped


def derived(
    maxsize: int, *, name: str = "", shipped: bool = False
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a pure function of hashable values with a bounded least-recently-used cache.

    Safe because the function reads nothing but its arguments and `static` data, so equal
    arguments give equal results, and a hit returns what a miss would compute. Arguments
    are told apart by type as well as value (``1`` and ``True`` are different keys), so a
    function that treats them differently is still answered correctly; inside a tuple
    argument equality alone decides, so pass values whose equality means "same answer"
    (str, int, bool, bytes, tuples of them, frozen structs). The bound keeps keys that come
    from other players (public keys, unit classes named in orders) from growing memory
    without limit: eviction costs only the time to compute the value again. Results must
    not be mutated.

    ``shipped`` declares that every argument is shipped data or the code's own (a unit
    class and its tables, the map, a scenario's id, a constant), never something a game's
    state or packets make: `clear_all` then keeps its entries when told to keep the shipped
    data. It changes no answer, only what a bench's timing is charged with.
    """
    if maxsize < 1:
        raise ValueError(f"a derived cache needs a positive bound, not {maxsize}")

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        wrapped = functools.lru_cache(maxsize=maxsize, typed=True)(fn)
        _register(
            name or _name_of(fn),
            _Registered(
                "derived",
                maxsize,
                lambda: wrapped.cache_info().currsize,
                wrapped.cache_clear,
                shipped,
            ),
        )
        return cast("Callable[P, R]", wrapped)

    return decorate


def _arity(fn: Callable[..., Any]) -> int | None:
    """How many positional arguments ``fn`` always takes, or None when that may vary (it has
    defaults, ``*args`` or keyword-only parameters)."""
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "__defaults__", None) or code.co_kwonlyargcount:
        return None
    return None if code.co_flags & inspect.CO_VARARGS else int(code.co_argcount)


def _id_of_first(args: tuple[Any, ...]) -> object:
    return id(args[0])


def _ids_of_pair(args: tuple[Any, ...]) -> object:
    return (id(args[0]), id(args[1]))


def _id_and_value(args: tuple[Any, ...]) -> object:
    return (id(args[0]), args[1])


def _id_and_two_values(args: tuple[Any, ...]) -> object:
    return (id(args[0]), args[1], args[2])


def _ids_of_pair_and_value(args: tuple[Any, ...]) -> object:
    return (id(args[0]), id(args[1]), args[2])


def _id_and_values(args: tuple[Any, ...]) -> object:
    return (id(args[0]), *args[1:])


def _ids_of_pair_and_values(args: tuple[Any, ...]) -> object:
    return (id(args[0]), id(args[1]), *args[2:])


def _ids_of_all(args: tuple[Any, ...]) -> object:
    return tuple(map(id, args))


def _key_maker(arity: int | None, by_id: int | None) -> Callable[[tuple[Any, ...]], object]:
    """How an identity cache makes the key of its arguments: the ids of the first ``by_id``
    (all when None), then the others by value. For one or two arguments, the key is made
    without a loop: the id alone for one argument, a pair for two; so is it for three
    arguments and for one or two ids first (a board's grid for an empire, its blocking
    hexes: asked many times a packet), a slice of the values added, where the general key
    reads the ids from a slice through ``map`` and costs twice as much."""
    if by_id is None or by_id == arity:
        if arity == 1:
            return _id_of_first
        if arity == 2:
            return _ids_of_pair
        return _ids_of_all
    if (arity, by_id) == (2, 1):
        return _id_and_value
    if (arity, by_id) == (3, 1):
        return _id_and_two_values
    if (arity, by_id) == (3, 2):
        return _ids_of_pair_and_value
    if by_id == 1:
        return _id_and_values
    if by_id == 2:
        return _ids_of_pair_and_values
    return lambda args: (*map(id, args[:by_id]), *args[by_id:])


def _identity_memo(
    fn: Callable[..., R], maxsize: int, identity: int | None
) -> tuple[Callable[..., R], _Registered]:
    """The cache behind `by_identity`: a dict in insertion order, written without a lock
    (`store_entry`); the calling function and its registry entry. A closure, as calls cost
    less than a method's.

    Every key of one cache is made by one `_key_maker` function, so that `peek` and `prime`
    find what a call stored; a function of one or two positional arguments (most of them),
    or keyed by the ids of all its arguments, is called through a `call` that makes the same
    key inline. A cache of one entry keyed by all its arguments is a slot (`_single_memo`).
    """
    arity = _arity(fn)
    by_id = identity if identity is None or arity is None else min(identity, arity)
    if maxsize == 1 and arity is not None and (by_id is None or by_id == arity):
        return _single_memo(fn, arity)
    store: dict[object, tuple[tuple[object, ...], R]] = {}
    key_of = _key_maker(arity, by_id)

    def store_entry(key: object, held: tuple[object, ...], value: R) -> None:
        # Each step is one dict operation, atomic under the interpreter's lock, so none is
        # taken here (it cost 0.8% of a warm player turn's instructions). A thread storing
        # at the same moment may take the oldest entry first, or change the dict while the
        # oldest is looked up: this one then stops trimming, and the next store trims the
        # cache back to its size.
        if maxsize == 1:
            store.clear()  # the one entry held goes
        else:
            store.pop(key, None)  # a primed entry is the newest
        store[key] = (held, value)
        while len(store) > maxsize:  # one entry too many: the oldest goes
            try:
                del store[next(iter(store))]
            except (KeyError, RuntimeError, StopIteration):
                break

    def keep(args: tuple[Any, ...], value: R) -> None:
        store_entry(key_of(args), args if by_id is None else args[:by_id], value)

    def held(args: tuple[Any, ...]) -> tuple[tuple[object, ...], R] | None:
        return store.get(key_of(args))

    # An entry holds its key objects, so while it is stored no other live object can have
    # their ids: a stored key made of the ids of the caller's (live) arguments was made from
    # these very objects. One dict read, no lock: it is atomic.

    def call(*args: Any) -> R:
        key = key_of(args)
        entry = store.get(key)
        if entry is not None:
            return entry[1]
        value = fn(*args)
        store_entry(key, args if by_id is None else args[:by_id], value)
        return value

    def call_ids(*args: Any) -> R:  # key: `_ids_of_all`
        key = tuple(map(id, args))
        entry = store.get(key)
        if entry is not None:
            return entry[1]
        value = fn(*args)
        store_entry(key, args, value)
        return value

    def call_one(arg: Any) -> R:  # key: `_id_of_first`
        key = id(arg)
        entry = store.get(key)
        if entry is not None:
            return entry[1]
        value = fn(arg)
        store_entry(key, (arg,), value)
        return value

    def call_pair(first: Any, second: Any) -> R:  # key: `_ids_of_pair`
        key = (id(first), id(second))
        entry = store.get(key)
        if entry is not None:
            return entry[1]
        value = fn(first, second)
        store_entry(key, (first, second), value)
        return value

    def call_keyed(first: Any, second: Any) -> R:  # key: `_id_and_value`
        key = (id(first), second)
        entry = store.get(key)
        if entry is not None:
            return entry[1]
        value = fn(first, second)
        store_entry(key, (first,), value)
        return value

    def clear() -> None:
        store.clear()

    def newest() -> tuple[tuple[object, ...], R] | None:
        try:
            return store[next(reversed(store))] if store else None
        except (KeyError, RuntimeError, StopIteration):  # (changed by a thread meanwhile)
            return None

    chosen: Callable[..., R] = call
    if key_of is _id_of_first:
        chosen = call_one
    elif key_of is _ids_of_pair:
        chosen = call_pair
    elif key_of is _id_and_value:
        chosen = call_keyed
    elif key_of is _ids_of_all:
        chosen = call_ids
    functools.update_wrapper(chosen, fn)
    chosen._keep = keep  # type: ignore[attr-defined]  # read by `prime`
    chosen._held = held  # type: ignore[attr-defined]  # read by `peek`
    chosen._newest = newest  # type: ignore[attr-defined]  # read by `newest`
    return chosen, _Registered("by_identity", maxsize, store.__len__, clear)


def _single_memo(fn: Callable[..., R], arity: int) -> tuple[Callable[..., R], _Registered]:
    """The cache behind a `by_identity` of one entry keyed by all of its ``arity`` arguments
    (every single-entry cache of the engine): a slot holding (the key objects, the value),
    compared by identity, with no key to build and no dict to hash it into.

    The slot is read once and replaced whole (each one step under the interpreter's lock), so
    a thread reads either the old entry or the new one, both consistent; an entry holds its
    key objects, so an identity match is the very objects it was made from.
    """
    slot: list[tuple[tuple[Any, ...], R] | None] = [None]

    def call_one(arg: Any) -> R:
        entry = slot[0]
        if entry is not None and entry[0][0] is arg:
            return entry[1]
        value = fn(arg)
        slot[0] = ((arg,), value)
        return value

    def call_pair(first: Any, second: Any) -> R:
        entry = slot[0]
        if entry is not None:
            held = entry[0]
            if held[0] is first and held[1] is second:
                return entry[1]
        value = fn(first, second)
        slot[0] = ((first, second), value)
        return value

    def call(*args: Any) -> R:
        entry = slot[0]
        if entry is not None and len(args) == arity and all(map(operator.is_, entry[0], args)):
            return entry[1]
        value = fn(*args)
        slot[0] = (args, value)
        return value

    def keep(args: tuple[Any, ...], value: R) -> None:
        slot[0] = (args, value)

    def held(args: tuple[Any, ...]) -> tuple[tuple[object, ...], R] | None:
        entry = slot[0]
        if entry is None or len(args) != arity:
            return None
        return entry if all(map(operator.is_, entry[0], args)) else None

    def clear() -> None:
        slot[0] = None

    def size() -> int:
        return 0 if slot[0] is None else 1

    chosen: Callable[..., R] = call_one if arity == 1 else call_pair if arity == 2 else call
    functools.update_wrapper(chosen, fn)
    chosen._keep = keep  # type: ignore[attr-defined]  # read by `prime`
    chosen._held = held  # type: ignore[attr-defined]  # read by `peek`
    chosen._newest = lambda: slot[0]  # type: ignore[attr-defined]  # read by `newest`
    return chosen, _Registered("by_identity", 1, size, clear)


def peek(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R | None:
    """What a `by_identity` cache holds for ``args`` now, or None (nothing is computed):
    for a caller that can derive a new answer from an old one if, and only if, it is at
    hand (`prime` then hands the new one in)."""
    if kwargs:
        raise TypeError("identity caches take positional arguments only")
    held = getattr(fn, "_held", None)
    if held is None:
        raise TypeError(f"{_name_of(fn)} is not an identity cache")
    entry: tuple[tuple[object, ...], R] | None = held(args)
    return None if entry is None else entry[1]


def newest(fn: Callable[..., R]) -> tuple[tuple[object, ...], R] | None:
    """The newest entry of a `by_identity` cache, as (the key objects it holds, its
    value), or None when it holds none: for a caller about to compute an answer for new
    objects that may share parts with the last ones asked about (a board of the same units
    as the last state's), so that what was worked out for those can be handed on."""
    read = getattr(fn, "_newest", None)
    if read is None:
        raise TypeError(f"{_name_of(fn)} is not an identity cache")
    entry: tuple[tuple[object, ...], R] | None = read()
    return entry


def prime(fn: Callable[P, R], value: R, *args: P.args, **kwargs: P.kwargs) -> None:
    """Hand a `by_identity` cache the answer for ``args`` that the caller worked out another
    way, as if ``fn(*args)`` had just computed it (it becomes the newest entry).

    For a caller that derives the answer for new objects cheaply from the answer for their
    predecessors (a board after one move from the board before it), so that whoever asks
    ``fn`` next about the same objects gets that answer, and the same object. Safe only if
    ``value`` is equal to what ``fn(*args)`` would compute: every caller needs a test that
    compares its primed answers with fresh computations.
    """
    if kwargs:
        raise TypeError("identity caches take positional arguments only")
    keep = getattr(fn, "_keep", None)
    if keep is None:
        raise TypeError(f"{_name_of(fn)} is not an identity cache")
    keep(args, value)


def by_identity(
    maxsize: int, *, identity: int | None = None, name: str = "", shipped: bool = False
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function of immutable objects, keyed by which objects it is given.

    For values too big to hash on every call (an empire's thousand units, a whole board),
    the object's identity stands for its value. The first ``identity`` positional arguments
    (all of them by default) are keyed by identity, the rest by value like `derived`; only
    positional arguments are accepted. Safe because:

    - the key objects are immutable (frozen structs, tuples of them), so the same object
      always gives the same result;
    - each entry holds a reference to its key objects, so while the entry lives no new object
      can be given their ids, and an id can never answer for a different object;
    - the bound (oldest entry out first) keeps memory flat, and an evicted entry only
      costs the time to compute it again, as does an equal but distinct object.

    Results must not be mutated (return tuples, not lists). ``shipped``: as for `derived`
    (the map, a scenario's set-ups, by identity).
    """
    if maxsize < 1:
        raise ValueError(f"an identity cache needs a positive bound, not {maxsize}")

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        call, entry = _identity_memo(fn, maxsize, identity)
        _register(name or _name_of(fn), entry._replace(shipped=shipped))
        return cast("Callable[P, R]", call)

    return decorate
