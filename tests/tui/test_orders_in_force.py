"""Orders signed in advance, written from what is in force and what saves most emails.

`O` lists, above the sequence, the names the face offers (F&E: ``manual``, every step the
engine does not play; `engine.core.standing`). A seat without a standing order finds it
ticked, so ``O`` then Enter drafts it (pace.md: a battle-free F&E player turn goes from 23
hand-offs to one). A seat with one finds it ticked as it stands, to change a line or two.
A policy's form (``P``) starts from the policy in force (`engine.core.face.Param.value`):
a new policy replaces the old one whole, so a BIR changed alone must keep the rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual.pilot import Pilot

from engine.core import sequence
from engine.core.face import Choice, Param, ParamKind, Preset
from engine.core.owed import pending
from engine.core.turn_orders import Standing
from engine.fe import FACE, RULESET
from tests.engine.fe.steps.tutorial_states import after_setup
from tests.saves.conftest import now
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, tutorial_at
from tests.tui.test_orders_forms import select_option
from tui.screens.order_data import policy_note, standing_note
from tui.widgets import step_picks
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.order_forms import PRESET_FIELD, OrderForm
from tui.widgets.orders import OrdersPanel
from tui.widgets.step_picks import standing_items
from tui.widgets.ticklist import PickDialog

OFFERED = [("manual (recommended): ...", "manual")]


@dataclass(frozen=True)
class Row:
    step: str
    kind: str
    standing: tuple[str, ...] = ()
    title: str = "a step"
    phase: str = "1"
    phase_title: str = "First"
    headings: tuple[tuple[str, str], ...] = ()
    status: str = "todo"
    obsolete: bool = False


def ticked(items: Sequence[tuple[str, str, bool]]) -> list[str]:
    return [value for _, value, on in items if on]


def test_a_seat_without_a_standing_order_finds_the_offer_ticked() -> None:
    rows = [Row("a", "manual"), Row("b", "decision"), Row("c", "manual", ("south",))]
    items = standing_items(rows, OFFERED, "north")
    assert [value for _, value, _ in items] == ["manual", "1", "a", "b", "c"]
    assert ticked(items) == ["manual"], "another seat's order is not this one's"


def test_an_order_covering_every_manual_step_shows_as_manual() -> None:
    """Its manual steps as the one line ``manual``; an obsolete step, which no order
    covers, neither stops that nor is listed."""
    rows = [Row("a", "manual", ("north",)), Row("b", "decision", ("north",)), Row("c", "manual")]
    rows.append(Row("z", "manual", obsolete=True))
    assert ticked(standing_items(rows, OFFERED, "north")) == ["a", "b"]
    rows[2] = Row("c", "manual", ("north", "south"))
    items = standing_items(rows, OFFERED, "north")
    assert ticked(items) == ["manual", "b"]
    assert "z" not in [value for _, value, _ in items]


def test_the_panels_word_for_manual_is_the_cores() -> None:
    assert step_picks.MANUAL_NAME == sequence.MANUAL_NAME


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path) as tutorial:
        yield tutorial


async def test_o_then_enter_drafts_manual_and_the_dialog_then_shows_it(game: Tutorial) -> None:
    """Alice at 1A1: ``O``, Enter drafts ``manual``, which the engine takes. Once signed,
    ``O`` shows it ticked as ``manual`` and none of the steps it covers ticked one by one."""
    async with app_for(game.alice).run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "O")
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, PickDialog)
        assert dialog.items[0][1:] == ("manual", True)
        assert dialog.items[0][0] == "manual (recommended): the 138 steps the engine does not play"
        assert ticked(dialog.items) == ["manual"]
        await pilot.press("enter")
        await settle(pilot)
        assert panel.items == [{"type": "standing", "steps": ["manual"]}]
        assert panel.check_text.startswith("legal"), panel.check_text
    game.alice.replica.submit(
        game.game_id, [{"type": "standing", "steps": ["manual", "2B3"]}], now=now()
    )
    state = game.alice.replica.state(game.game_id)
    assert pending(RULESET, state)[0].step != "1A1", "1A1 is manual: done for Alice at once"
    async with app_for(game.alice).run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("o", "O")
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, PickDialog)
        # (the two decisions manual covers besides the manual steps show on their own lines)
        assert ticked(dialog.items) == ["manual", "2B3", "5-3B", "5-8G"]


def test_the_send_confirmation_says_when_no_standing_order_is_signed() -> None:
    rows = [Row("a", "manual", ("south",)), Row("b", "decision")]
    note = standing_note(rows, "north", [{"type": "done"}])
    assert note is not None and "no standing order" in note and "O offers" in note
    assert standing_note(rows, "south", [{"type": "done"}]) is None
    assert standing_note(rows, "north", [{"type": "standing", "steps": ["manual"]}]) is None
    assert standing_note((), "north", [{"type": "done"}]) is None


def test_the_policy_note_needs_an_offer_and_nothing_in_force() -> None:
    picks = Preset("the engine's picks", (("ew", "default"),))
    offered = Choice("policy", "Sign a policy", (Param("ew", ParamKind.TEXT, False),), "", (picks,))
    note = policy_note([offered], [{"type": "done"}])
    assert note is not None and note.endswith("P, then ctrl+s, signs the engine's picks.")
    in_force = Choice("policy", "Sign a policy", (Param("ew", ParamKind.TEXT, False, value="x"),))
    assert policy_note([in_force], [{"type": "done"}]) is None
    assert policy_note([offered], [{"type": "policy", "ew": "default"}]) is None
    assert policy_note([], [{"type": "done"}]) is None  # (a ruleset without policies)


async def test_send_asks_with_the_notes_until_the_offers_are_signed(game: Tutorial) -> None:
    """The send confirmation reminds of the two orders the app offers first while neither
    is signed nor drafted: the standing order (O) and the policy (P)."""
    async with app_for(game.alice).run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("o", "d", "S")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        # (the done leads to 1A3A, the coalition's again: the confirmation says so first)
        assert dialog.lines[:2] == ["1. done", ""] and dialog.lines[3] == ""
        assert dialog.lines[2].startswith("The game then waits for you at 1A3A")
        standing, policy = dialog.lines[4:]
        assert "no standing order" in standing and "O offers one" in standing
        assert policy.startswith("You have no policy: each choice it would make waits")
        assert "P, then ctrl+s, signs the engine's picks (recommended)" in policy
        await pilot.press("n", "O", "enter", "S")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert dialog.lines[:3] == ["1. done", "2. standing: manual", ""]
        assert dialog.lines[3].startswith("The game then waits for you at 1B")
        assert dialog.lines[4:] == ["", policy]
        await pilot.press("n", "P", "ctrl+s")
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        # (the policy is drafted ahead of the standing order: `draft_position`)
        assert len(dialog.lines) == 5 and dialog.lines[1].startswith("2. policy")
        assert dialog.lines[2] == "3. standing: manual"
        assert dialog.lines[4].startswith("The game then waits for you at 1B")  # (no notes)


async def policy_form(pilot: Pilot[None]) -> tuple[OrdersPanel, OrderForm]:
    """The game open, its orders panel, and the policy's form opened with ``P``."""
    screen = await open_game(pilot)
    await pilot.press("o", "P")
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, OrderForm) and form.order == "policy"
    return screen.query_one(OrdersPanel), form


async def test_the_policy_form_starts_from_the_policy_in_force(game: Tutorial) -> None:
    signed = {"type": "policy", "flagship": "auto", "allocate": "suggested", "retreat": 2}
    game.alice.replica.submit(game.game_id, [signed], now=now())
    async with app_for(game.alice).run_test(size=SIZE) as pilot:
        panel, form = await policy_form(pilot)
        assert {k: v for k, v in form.values.items() if v} == {
            "flagship": "auto", "allocate": "suggested", "retreat": "2",
        }  # fmt: skip
        await select_option(pilot, form, "bir", "3")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert panel.items == [{**signed, "bir": 3}]
        assert panel.check_text.startswith("legal"), panel.check_text


async def test_without_a_policy_p_offers_the_engines_picks_first(game: Tutorial) -> None:
    """``P`` then ctrl+s signs the offer: the choices that only optimise are the engine's,
    the BIR, retreat and pursuit still asked (a battle round 9 hand-offs, not 15:
    `bench/handoffs.py`)."""
    async with app_for(game.alice).run_test(size=SIZE) as pilot:
        panel, form = await policy_form(pilot)
        assert form.values[PRESET_FIELD] == "0"
        await pilot.press("ctrl+s")
        await settle(pilot)
        picks = {"flagship": "auto", "force": "auto", "ew": "default", "allocate": "suggested"}
        assert panel.items == [{"type": "policy", **picks}]
        assert panel.check_text.startswith("legal"), panel.check_text


def test_every_line_of_the_standing_list_is_a_name_the_engine_takes() -> None:
    """Each line `O` lists (the offer, phases, headings, steps) makes, alone, a standing
    order the engine accepts at the first step of the game."""
    state = after_setup()
    (standing,) = [c for c in FACE.choices(state, "coalition") if c.order == "standing"]
    offered = [(p.label, v) for p in standing.presets for _, v in p.values]
    items = standing_items(FACE.checklist(state), offered, "coalition")
    assert len(items) > 200 and items[0][1] == "manual"
    refused = {
        value: RULESET.validate(state, "coalition", Standing([value]))
        for _, value, _ in items
        if RULESET.validate(state, "coalition", Standing([value]))
    }
    assert refused == {}
