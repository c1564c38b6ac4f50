"""Ship designs saved by name in a home, as small TOML files a player may edit by hand.

Layout: ``HOME/designs/NAME.toml``, one design a file, holding the calculator's inputs (one
``field = integer`` line each, in the order of `engine.design.INPUT_FIELDS`) and an optional
free-text ``notes``. Only the inputs are kept: every derived figure is worked out again from
them (`engine.design.derive`) whenever a design is shown, so a file never disagrees with the
formulas of the program reading it.

Why the care below. A design file is the one place in a home a player is invited to edit with
a text editor, and a folder of designs may be copied from someone else, so:

- names are checked before they become paths (letters, digits, ``-`` and ``_``, at most
  `MAX_NAME_LENGTH`), so no name can reach outside the folder or collide with a device name;
- a file is read through a size bound (`MAX_FILE_BYTES`), never whole, and only if it is a
  regular file (a FIFO or device named ``*.toml`` is refused instead of blocking the reader);
- a file edited into an invalid state is refused with a `DesignFileError` naming the file, the
  field and its allowed range (the range checks are `engine.design.make_inputs`'s), and
  nothing writes over it on the way;
- a write goes to a temporary file in the same folder first and is moved into place in one
  step, so a crash leaves the old file or the new one, never half of one; an existing design
  is replaced only when the caller says ``replace=True``.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from engine.core.errors import HexpostError
from engine.design import DesignInputError, DesignInputs, inputs_as_dict, make_inputs

DESIGNS_FOLDER = "designs"
SUFFIX = ".toml"
MAX_NAME_LENGTH = 40
MAX_NOTES_CHARS = 2000
MAX_FILE_BYTES = 16 * 1024
"""A saved design is a dozen short lines and the notes; anything near this bound is not one."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{digit}" for digit in range(1, 10)]
    + [f"LPT{digit}" for digit in range(1, 10)]
)
"""Names Windows keeps for devices: a design so named could not be opened there."""

_HEADER = (
    "# A hexpost ship design. Edit the numbers and run `hexpost design show {name}`:\n"
    "# every figure is derived again from these inputs (`hexpost design calc --help` lists\n"
    "# each field's range).\n"
)


class DesignStoreError(HexpostError):
    """A saved design could not be read, written or found; the message says which and why."""


class DesignNameError(DesignStoreError):
    """A design name that cannot be a file name here (the user's mistake, not the file's)."""


class DesignNotFoundError(DesignStoreError):
    """No design of that name in this home."""


class DesignExistsError(DesignStoreError):
    """A design of that name exists and the caller did not ask to replace it."""


class DesignFileError(DesignStoreError):
    """A design file that is not a valid design: too big, not TOML, or a bad field.

    ``path`` is the file; ``field`` the input (or ``notes``) at fault, "" when the file as a
    whole is (its size, its syntax)."""

    def __init__(self, path: Path, message: str, *, field: str = "") -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.field = field


@dataclass(frozen=True, slots=True)
class SavedDesign:
    """One design as it stands in its file: the inputs, checked, and the notes."""

    name: str
    path: Path
    inputs: DesignInputs
    notes: str = ""


@dataclass(frozen=True, slots=True)
class DesignEntry:
    """One file of the designs folder in a listing: the design, or why it cannot be read.

    A listing shows a broken file beside the good ones instead of failing whole, so a player
    sees which file to mend."""

    name: str
    path: Path
    design: SavedDesign | None
    error: str = ""


# --- names and paths -------------------------------------------------------------------------


def check_name(name: str) -> str:
    """``name`` if it can be a design's file name, else `DesignNameError` saying what is allowed."""
    if not 1 <= len(name) <= MAX_NAME_LENGTH or _NAME.fullmatch(name) is None:
        shown = name if len(name) <= MAX_NAME_LENGTH + 10 else name[: MAX_NAME_LENGTH + 10] + "..."
        raise DesignNameError(
            f"design name {shown!r}: use 1 to {MAX_NAME_LENGTH} letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    if name.upper() in _RESERVED:
        raise DesignNameError(f"design name {name!r}: a device name on Windows, choose another")
    return name


def designs_folder(home_path: Path) -> Path:
    """Where a home keeps its designs (it may not exist yet)."""
    return Path(home_path).expanduser() / DESIGNS_FOLDER


def design_path(home_path: Path, name: str) -> Path:
    """The file of design ``name`` (checked) in the home at ``home_path``."""
    return designs_folder(home_path) / f"{check_name(name)}{SUFFIX}"


# --- reading ----------------------------------------------------------------------------------


def _read_bounded(path: Path) -> bytes:
    """The file's bytes, refused if it is not a regular file or larger than `MAX_FILE_BYTES`.

    Opened without blocking (a FIFO would otherwise wait for a writer) and read one byte past
    the bound, so a huge or endless file costs no more than a small one."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise _not_found(path) from None
    except OSError as exc:
        raise DesignFileError(path, f"cannot be opened: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise DesignFileError(path, "is not a regular file")
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise DesignFileError(
            path, f"is larger than {MAX_FILE_BYTES} bytes, too large for a design: not read"
        )
    return data


def parse_design(path: Path, data: bytes, name: str | None = None) -> SavedDesign:
    """A design from a file's bytes; any fault is a `DesignFileError` naming ``path``."""
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise DesignFileError(path, "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise DesignFileError(path, f"is not valid TOML: {exc}") from None
    except RecursionError:  # (the parser recurses per level: a file made to crash us)
        raise DesignFileError(path, "is not valid TOML: nested too deeply") from None
    notes = table.pop("notes", "")
    if not isinstance(notes, str):
        raise DesignFileError(path, "notes: must be a text in quotes", field="notes")
    if len(notes) > MAX_NOTES_CHARS:
        raise DesignFileError(
            path, f"notes: {len(notes)} characters, at most {MAX_NOTES_CHARS}", field="notes"
        )
    try:
        inputs = make_inputs(table)
    except DesignInputError as exc:
        raise DesignFileError(path, str(exc), field=exc.field) from None
    return SavedDesign(name or path.stem, path, inputs, notes)


def load_design(home_path: Path, name: str) -> SavedDesign:
    """The design saved as ``name``: `DesignNotFoundError` if there is none, `DesignFileError`
    if its file is not a valid design (nothing is changed either way)."""
    path = design_path(home_path, name)
    return parse_design(path, _read_bounded(path), name)


def design_names(home_path: Path) -> list[str]:
    """The names of the saved designs, sorted; files whose names are not design names (a
    temporary file, a backup an editor left) are left out."""
    folder = designs_folder(home_path)
    try:
        paths = list(folder.iterdir())
    except FileNotFoundError:
        return []
    names = []
    for path in paths:
        if path.suffix != SUFFIX:
            continue
        with contextlib.suppress(DesignNameError):
            names.append(check_name(path.stem))
    return sorted(names, key=lambda text: (text.casefold(), text))


def list_designs(home_path: Path) -> list[DesignEntry]:
    """Every saved design in name order, each read and checked; a broken file is an entry with
    its error instead of failing the whole listing."""
    entries = []
    for name in design_names(home_path):
        path = design_path(home_path, name)
        try:
            entries.append(DesignEntry(name, path, load_design(home_path, name)))
        except DesignStoreError as exc:
            entries.append(DesignEntry(name, path, None, str(exc)))
    return entries


# --- writing ----------------------------------------------------------------------------------


def design_text(name: str, inputs: DesignInputs, notes: str = "") -> str:
    """The TOML a design is saved as: a comment saying how to use it, the inputs in field
    order, then the notes (if any)."""
    table: dict[str, object] = dict(inputs_as_dict(inputs))
    if notes:
        table["notes"] = notes
    return _HEADER.format(name=name) + tomli_w.dumps(table, multiline_strings=True)


def save_design(
    home_path: Path,
    name: str,
    inputs: DesignInputs | Mapping[str, object],
    *,
    notes: str = "",
    replace: bool = False,
) -> SavedDesign:
    """Save ``inputs`` as design ``name`` and return it as saved.

    ``inputs`` may be loose values (a form's strings): they are checked by
    `engine.design.make_inputs`, whose `DesignInputError` names the field and its range. An
    impossible design (one `engine.design.derive` lists problems for) may be saved: it is a
    draft a player is still working on. An existing design is kept, and `DesignExistsError`
    raised, unless ``replace``."""
    path = design_path(home_path, name)
    checked = inputs if isinstance(inputs, DesignInputs) else make_inputs(inputs)
    checked = make_inputs(inputs_as_dict(checked))  # a DesignInputs built by hand is checked too
    if len(notes) > MAX_NOTES_CHARS:
        raise DesignStoreError(f"notes: {len(notes)} characters, at most {MAX_NOTES_CHARS}")
    # The longest notes, in 4-byte characters or escaped control characters, stay well under
    # MAX_FILE_BYTES (tests/saves/test_designs.py checks), so a saved design can be loaded.
    data = design_text(name, checked, notes).encode("utf-8")
    Path(home_path).expanduser().mkdir(parents=True, exist_ok=True, mode=0o700)
    path.parent.mkdir(exist_ok=True, mode=0o700)
    _write_atomically(path, data, replace=replace)
    return SavedDesign(name, path, checked, notes)


def _write_atomically(path: Path, data: bytes, *, replace: bool) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, moved into place
    in one step: a crash or a full disk leaves the old file (or none), never part of the new.

    Without ``replace`` the move is a hard link, which fails if the name is taken even when
    another process saved it a moment ago; where links are not supported, the name is checked
    just before the move instead."""
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temp, path)
            return
        try:
            os.link(temp, path)
        except FileExistsError:
            raise _exists(path) from None
        except OSError:
            if path.exists():
                raise _exists(path) from None
            os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def _not_found(path: Path) -> DesignNotFoundError:
    """No file at ``path``; the designs saved under the name in other capitals are named (a
    name is a file's name, matched exactly where the file system tells case apart)."""
    wanted = path.stem.casefold()
    with contextlib.suppress(OSError):
        like = sorted(
            other.stem
            for other in path.parent.iterdir()
            if other.suffix == SUFFIX and other.stem.casefold() == wanted
        )
        if like:
            saved = "saved is" if len(like) == 1 else "saved are"
            shown = ", ".join(repr(name) for name in like)
            return DesignNotFoundError(
                f"no design named {path.stem!r} ({path}); names are matched exactly: "
                f"{saved} {shown}"
            )
    return DesignNotFoundError(f"no design named {path.stem!r} ({path})")


def _exists(path: Path) -> DesignExistsError:
    return DesignExistsError(
        f"a design named {path.stem!r} exists ({path}); replace it explicitly or choose "
        "another name"
    )


def delete_design(home_path: Path, name: str) -> Path:
    """Remove design ``name``'s file and return its path; `DesignNotFoundError` if none."""
    path = design_path(home_path, name)
    try:
        path.unlink()
    except FileNotFoundError:
        raise _not_found(path) from None
    return path
