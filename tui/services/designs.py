"""The ship design calculator for a face: typed values in, figures and complaints out.

The designer screen (`tui.screens.designer`) sends what is in its fields as typed, at every
keystroke; `work` turns that into what the screen shows, so the screen decides nothing about
designs. Each field is checked on its own (`engine.design.make_inputs` stops at the first bad
value, and a form should mark every bad field at once, each under itself); when all are good
the design procedure runs (`engine.design.derive`, pure and quick: no worker needed) and the
rules an impossible design breaks come back on the field that causes each.

Saving and loading go to the home's named designs (`saves.designs`, the TOML file
``hexpost design`` uses too): those functions read and write files, so a face calls them off
its event loop (the app through its session's store thread).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from engine.core.text import counted
from engine.design import (
    FIELDS_BY_NAME,
    INPUT_FIELDS,
    DesignInputError,
    DesignInputs,
    InputField,
    derive,
    display,
    inputs_as_dict,
    make_inputs,
)
from saves import designs as store

if TYPE_CHECKING:
    from saves.home import Home

__all__ = [
    "DesignView",
    "FieldTrouble",
    "FigureLine",
    "SaveOutcome",
    "fields",
    "load_design",
    "save_design",
    "saved_names",
    "work",
]


class FigureLine(msgspec.Struct, frozen=True):
    """One derived figure as a face shows it: its value rounded for display only."""

    key: str
    label: str
    formula: str
    value: str
    unit: str
    note: str


class FieldTrouble(msgspec.Struct, frozen=True):
    """What is wrong, and which field it is about. ``rule`` is empty for a bad value (the
    text names the allowed range) and names the broken rule for an impossible design."""

    field: str
    text: str
    rule: str = ""


class DesignView(msgspec.Struct, frozen=True):
    """What the designer shows for the values typed.

    ``inputs`` is None while a value is bad (then there are no figures: the design cannot be
    worked); otherwise the checked inputs, the figures in procedure order, and ``possible``
    says whether the design breaks no rule (``troubles`` then lists the rules it breaks).
    """

    inputs: dict[str, int] | None
    figures: tuple[FigureLine, ...]
    troubles: tuple[FieldTrouble, ...]
    possible: bool

    @property
    def verdict(self) -> str:
        """One line over the figures: whether the design stands, and where to look if not."""
        if self.inputs is None:
            count = len({trouble.field for trouble in self.troubles})
            return f"no figures: {counted(count, 'bad value')} (marked)"
        if self.possible:
            return "a possible design"
        count = len(self.troubles)
        return f"impossible design: {counted(count, 'rule')} broken (marked)"

    def errors(self) -> dict[str, list[str]]:
        """The troubles as lines by field name, a broken rule quoted after its message."""
        found: dict[str, list[str]] = {}
        for trouble in self.troubles:
            line = f"{trouble.text} [rule: {trouble.rule}]" if trouble.rule else trouble.text
            found.setdefault(trouble.field, []).append(line)
        return found


def fields() -> tuple[InputField, ...]:
    """The design's inputs in form order, each with its label, range, default and help."""
    return INPUT_FIELDS


def _defaults() -> dict[str, object]:
    return {field.name: field.default for field in INPUT_FIELDS}


def _bad_value(name: str, text: str) -> FieldTrouble | None:
    """Field ``name`` holding ``text`` checked alone (the others at their defaults)."""
    try:
        make_inputs({**_defaults(), name: text})
    except DesignInputError as exc:
        return FieldTrouble(getattr(exc, "field", "") or name, str(exc))
    return None


def work(values: Mapping[str, str]) -> DesignView:
    """The design the form's ``values`` (text by field name) describe, or every bad value.

    A field missing from ``values`` takes its default; a blank one is a bad value like any
    other (the form shows the default, so a blank was emptied on purpose)."""
    typed = {field.name: values.get(field.name, str(field.default)) for field in INPUT_FIELDS}
    bad = [trouble for name, text in typed.items() if (trouble := _bad_value(name, text))]
    if bad:
        return DesignView(None, (), tuple(bad), False)
    try:
        inputs = make_inputs(typed)
    except DesignInputError as exc:  # a check across fields, should the engine add one
        field = getattr(exc, "field", "")
        return DesignView(None, (), (FieldTrouble(field, str(exc)),), False)
    return view_of(inputs)


def view_of(inputs: DesignInputs) -> DesignView:
    """The figures and broken rules of checked ``inputs``."""
    design = derive(inputs)
    figures = tuple(
        FigureLine(f.key, f.label, f.formula, display(f.value), f.unit, f.note)
        for f in design.figures
    )
    troubles = tuple(
        FieldTrouble(
            problem.field if problem.field in FIELDS_BY_NAME else "", problem.message, problem.rule
        )
        for problem in design.problems
    )
    return DesignView(inputs_as_dict(inputs), figures, troubles, design.possible)


# --- the home's saved designs (file I/O: call off the event loop) ----------------------------


class SaveOutcome(msgspec.Struct, frozen=True):
    """What a save did. ``taken``: the name is in use and nothing was written (ask before
    replacing); ``bad_name``: the name cannot be a design's (``text`` says what can)."""

    text: str
    taken: bool = False
    bad_name: bool = False


def saved_names(home: Home) -> list[str]:
    """The names of the home's saved designs, sorted."""
    return store.design_names(home.path)


def load_design(home: Home, name: str) -> dict[str, int]:
    """The inputs saved as ``name``; a missing design or a file edited into a bad state is a
    `saves.designs.DesignStoreError` (a `HexpostError`) naming the file, field and range."""
    try:
        return inputs_as_dict(store.load_design(home.path, name).inputs)
    except store.DesignFileError as exc:
        # The file by its name alone: the home's path would push the field and its range
        # off an 80-column status line.
        reason = str(exc).removeprefix(f"{exc.path}: ")
        raise store.DesignFileError(Path(exc.path.name), reason, field=exc.field) from None


def save_design(home: Home, name: str, inputs: Mapping[str, int], replace: bool) -> SaveOutcome:
    """Save ``inputs`` as design ``name``; a name in use is written over only with ``replace``
    (the notes a player wrote in the old file are kept). Other refusals raise, as
    `saves.designs.save_design` does."""
    notes = ""
    if replace:
        with contextlib.suppress(store.DesignStoreError):  # a broken old file has no notes
            notes = store.load_design(home.path, name).notes
    try:
        saved = store.save_design(home.path, name, inputs, notes=notes, replace=replace)
    except store.DesignNameError as exc:
        return SaveOutcome(str(exc), bad_name=True)
    except store.DesignExistsError as exc:
        return SaveOutcome(str(exc), taken=True)
    where = saved.path
    with contextlib.suppress(ValueError):
        where = saved.path.relative_to(Path(home.path))
    return SaveOutcome(f"saved design {name} ({where} in the home)")
