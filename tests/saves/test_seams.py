"""The seams of the saves layer stay where they were put: SQL only in the store's modules, no
import cycle (not even one hidden in a function or behind ``TYPE_CHECKING``), small modules.

These read the source, so they fail the moment someone writes a query in a module above the
store, or lets two modules of saves import each other again.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
SQL = re.compile(
    r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|PRAGMA|SAVEPOINT|RELEASE|ROLLBACK|"
    r"BEGIN|COMMIT|REPLACE|WITH\s+\w+\s+AS)\b"
)
"""A string that starts like an SQL statement (keywords in capitals, as this project writes)."""
CURSOR_CALLS = {"execute", "executemany", "executescript"}
MAX_LINES = 600


def _is_store_module(path: Path) -> bool:
    return path.parent.name == "saves" and (path.stem == "store" or path.stem.startswith("store_"))


def _sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def _sql_in(source: str, label: str) -> list[tuple[int, str]]:
    """``(line, what)`` of every query string, cursor call and ``Store.one``/``all`` call with
    a query in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source, label)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if SQL.match(node.value):
                found.append((node.lineno, repr(node.value[:40])))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in CURSOR_CALLS:
                found.append((node.lineno, f".{node.func.attr}(...)"))
            elif (
                node.func.attr in ("one", "all")
                and node.args
                and isinstance(node.args[0], ast.Constant | ast.JoinedStr)
            ):
                found.append((node.lineno, f".{node.func.attr}(<query>)"))
    return found


def test_sql_lives_in_the_store_modules_only() -> None:
    """Every query is a function of saves/store.py or a saves/store_*.py module."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in _sources("saves", "mail", "tui")
        if not _is_store_module(path)
        for line, what in _sql_in(path.read_text(encoding="utf-8"), str(path))
    ]
    assert found == [], "SQL outside the store's modules:\n" + "\n".join(found)


def test_the_sql_check_finds_a_query() -> None:
    """The check above can fail: a query written the ways this project writes them is found."""
    sample = (
        'store.one("SELECT 1 FROM games")\n'
        "db.execute(query, (h,))\n"
        'store.all(f"{head} FROM outbox")\n'
        'QUERY = "INSERT OR IGNORE INTO transport_seen (transport, ref) VALUES (?, ?)"\n'
        'TEXT = "Select a game, then delete nothing"\n'
    )
    assert sorted({line for line, _ in _sql_in(sample, "sample")}) == [1, 2, 3, 4]


def test_saves_has_no_import_cycle() -> None:
    """No two modules of saves reach each other, counting imports inside functions and those
    only type checkers read: each job sits on the modules below it, never beside or above."""
    graph = grimp.build_graph("saves", include_external_packages=False)
    cycles = sorted(
        f"{module} <-> {imported}"
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if graph.chain_exists(importer=imported, imported=module)
    )
    assert cycles == []


def test_saves_imports_at_the_top_of_its_modules() -> None:
    """Imports inside functions hide cycles; the ones left are for start-up time, each of a
    module nothing it imports reaches back to (the cycle check above counts them too):
    `saves.home.Home.replica`, which loads every ruleset only when a game is opened; the
    jobs `saves.replica.Replica` hands over to besides reading (taking items in, creating and
    joining, automatic replies), which a client opening a game to read it never runs;
    `importlib.metadata`, imported by `saves.registry.load` only for the full entry-point scan;
    and cryptography's cipher and key derivations, imported by `saves.keys` and `saves.vault`
    only to seal or open a key or a blob (issue 16: a game is read without them); and the
    TOML reader and writer, which `saves.home.Home` loads only where a config file exists or
    is written (a start-up to the game screen has neither: about 8M instructions); and
    `subprocess`, `select` and `fcntl`, which `saves.signature_helper` loads only to start and
    talk to a helper for a long replay (and `fcntl` is POSIX's only), with `importlib.util`
    to find where this process would import `cryptography` from; and the `cryptography`
    that `saves.signature_child` imports only once the replay has told it where to look."""
    allowed = {
        ("saves/home.py", "saves.replica"),
        ("saves/home.py", "tomllib"),
        ("saves/home.py", "tomli_w"),
        ("saves/replica.py", "saves.inbox"),
        ("saves/replica.py", "saves.creating"),
        ("saves/replica.py", "saves.replies"),
        ("saves/registry.py", "importlib"),
        ("saves/keys.py", "cryptography.hazmat.primitives.ciphers.aead"),
        ("saves/keys.py", "cryptography.hazmat.primitives.kdf.scrypt"),
        ("saves/vault.py", "cryptography.hazmat.primitives"),
        ("saves/vault.py", "cryptography.hazmat.primitives.ciphers.aead"),
        ("saves/vault.py", "cryptography.hazmat.primitives.kdf.hkdf"),
        ("saves/signature_helper.py", "subprocess"),
        ("saves/signature_helper.py", "select"),
        ("saves/signature_helper.py", "fcntl"),
        ("saves/signature_helper.py", "importlib.util"),
        ("saves/signature_child.py", "cryptography"),
        ("saves/signature_child.py", "cryptography.exceptions"),
        ("saves/signature_child.py", "cryptography.hazmat.primitives.asymmetric.ed25519"),
    }
    found = []
    for path in _sources("saves"):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom | ast.Import):
                        names = (
                            [inner.module or ""]
                            if isinstance(inner, ast.ImportFrom)
                            else [a.name for a in inner.names]
                        )
                        for name in names:
                            where = (str(path.relative_to(ROOT)), name)
                            if where not in allowed:
                                found.append(f"{where[0]}:{inner.lineno}: {name}")
    assert found == []


def test_no_saves_module_passes_600_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _sources("saves")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
