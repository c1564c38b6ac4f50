"""Every order from the app's keys and forms, without JSON (issue 15, item 9).

Each test drives the real game screen at 80x24 with the pilot, writes one order by its key or
form, and checks the draft the panel holds and that the engine's dry run took it (the panel
shows "legal..."), so a key that drafts the wrong order, or one the engine refuses, fails.
The tutorial game is the one `tests.tui.test_app` builds. The set-up placement, written from
the map before the first turn, is tested in `tests.tui.test_placement_keys`; what it needs
(`setup_homes`, which stops the game before its set-up, the `in_setup` fixture, `pick` and
`place_border_guard`) stays here, where `tests.tui.test_kept_drafts` imports it too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Static

from engine.core.face import Choice, Param, ParamKind
from engine.core.owed import pending
from engine.core.through import THROUGH_END
from engine.fe import RULESET
from engine.fe.face import FACE
from mail.loopback import LoopbackNetwork
from tests.engine.fe.steps.tutorial_states import after_setup
from tests.saves.conftest import Player, exchange, join_tutorial, now
from tests.tui.test_app import (
    GAME,
    SIZE,
    TUTORIAL_ATTACK,
    Tutorial,
    app_for,
    open_game,
    settle,
    tutorial_at,
    walk_to,
)  # fmt: skip
from tests.tui.test_orders_forms import select_option
from tests.tui.test_orders_panel import STRIKE_FORCE, TOO_FAR
from tests.tui.test_panel_text import shown
from tui.screens.base import HexpostScreen
from tui.screens.game import PANEL_KEYS, GameScreen
from tui.screens.help import HelpScreen
from tui.widgets import step_picks
from tui.widgets.hexmap import HexMap
from tui.widgets.order_forms import (
    PRESET_FIELD,
    TYPE_IT,
    OrderForm,
    choice_form,
    order_values,
)
from tui.widgets.order_text import describe, hex_pick, with_options
from tui.widgets.orders import OrdersPanel
from tui.widgets.ticklist import TICKED, UNTICKED, PickDialog
from tui.widgets.unitpick import UnitPick


def keys_of(*classes: type[object]) -> set[str]:
    """Every key hexpost's classes bind, bases included (Textual's own list keys, arrows
    and pages, move in a list as on the map)."""
    keys: set[str] = set()
    for cls in classes:
        for base in cls.__mro__:
            if not base.__module__.startswith("tui."):
                continue
            for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", [])):
                keys.add(binding.key)
    return keys


def test_no_key_means_one_thing_on_the_map_and_another_in_the_orders_panel() -> None:
    panel = keys_of(OrdersPanel)
    # Escape is the panel's only while a move or a typed line is open (check_action), and
    # there it ends that move as the screen's escape would first.
    assert panel & keys_of(HexMap) == set()
    # Where the map has the keys the screen hands the panel its keys (m for the hex under
    # the cursor, chosen first): each still means one thing, wherever the focus is.
    assert panel - {"escape", "m"} == set(PANEL_KEYS)
    assert panel & keys_of(GameScreen, HexpostScreen) == {"escape", "m", *PANEL_KEYS}
    assert {"A", "O", "P", "D", "left_curly_bracket", "1", "2"} <= panel
    assert not panel & {"a", "j", "k"}  # the old collisions: accept key, map south/north
    # The unit list inside the panel: Enter takes the units as it chooses a hex on the map.
    assert keys_of(UnitPick) & keys_of(GameScreen, HexpostScreen) == {"escape"}
    assert keys_of(UnitPick) & keys_of(HexMap) == {"enter"}


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path) as tutorial:
        yield tutorial


@pytest.fixture
def at_3b2(game: Tutorial) -> Tutorial:
    walk_to(game, "3B2")
    return game


@pytest.fixture
def in_setup(tmp_path: Path) -> Iterator[Tutorial]:
    """The tutorial before its set-up: the alliance (Bob) places first."""
    game = setup_homes(tmp_path)
    yield game
    game.alice.close()
    game.bob.close()


def setup_homes(tmp_path: Path) -> Tutorial:
    """The tutorial joined and accepted, before anyone set up (the alliance places first)."""
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    game_id = join_tutorial(alice, bob, GAME)
    exchange(alice, bob)
    return Tutorial(alice, bob, network, game_id)


async def pick(pilot: Pilot[None], value: str, *, tick: bool = False) -> None:
    """In the open `PickDialog`, go down to ``value``'s line and take it (or tick it)."""
    dialog = pilot.app.screen
    assert isinstance(dialog, PickDialog)
    index = dialog.values.index(value)
    await pilot.press(*(["down"] * index))
    await pilot.press("space" if tick else "enter")
    await pilot.pause()


PLACED = {"type": "place", "fleet": "Border Guard", "hex": "1105"}


async def place_border_guard(pilot: Pilot[None], screen: GameScreen) -> OrdersPanel:
    """Draft the Kzinti Border Guard's placement at 1105 with ``m`` and the map."""
    panel = screen.query_one(OrdersPanel)
    await pilot.press("o", "m")
    await pilot.pause()
    await pick(pilot, "g:Border Guard")
    await settle(pilot)
    await pilot.press("g", *"1105", "enter")
    await pilot.press("enter")
    await settle(pilot)
    assert panel.items == [PLACED]
    return panel


async def test_a_standing_order_is_ticked_in_the_sequence_with_titles(game: Tutorial) -> None:
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "O")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PickDialog) and dialog.multiple
        labels = {value: label for label, value, _ in dialog.items}
        assert "Operational movement" in labels["3B2"]
        assert labels["3"].startswith("phase 3: ")  # a phase stands for all its steps
        # A heading (a group of steps) too, indented under its parent, before its first step.
        assert labels["1A"] == "  1A: Planet and system checks (its steps)"
        assert labels["1A3"] == "    1A3: Count turns toward ongoing effects (its steps)"
        values = dialog.values
        assert values.index("1A") < values.index("1A3") < values.index("1A3A")
        assert values[0] == "manual"  # (tests/tui/test_orders_in_force.py)
        await pilot.press("space")  # unticked: the steps alone
        await pick(pilot, "1A3A", tick=True)
        await pilot.press(*(["down"] * (values.index("2A") - values.index("1A3A"))), "space")
        await pilot.press("enter")
        await settle(pilot)
        assert panel.items == [{"type": "standing", "steps": ["1A3A", "2A"]}]
        assert panel.check_text.startswith("legal"), panel.check_text


async def test_done_through_a_step_picked_from_the_rest_of_the_turn(game: Tutorial) -> None:
    """D plays on to the step picked, which stays the player's: found in the game by mail,
    picking 2B3 to build there drafted a done through 2B3, which completed the builds
    unbuilt. The draft runs through the step before the one picked."""
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "D")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, PickDialog) and not dialog.multiple
        assert "1A1" not in dialog.values  # the step owed now is a plain d
        assert dialog.values[0] == "end"  # on until the other side decides
        assert "stays yours" in dialog.title_text
        # Only the steps the rules say it stays the player's at: not 1A2 (the engine's),
        # nothing past 2B11, which the alliance answers after (a done through 2B11 or
        # beyond would hand the game over, or be refused).
        assert "1A2" not in dialog.values and dialog.values[-1] == "2B11", dialog.values
        await pick(pilot, "1B")
        await settle(pilot)
        assert panel.items == [{"type": "done", "through": "1A3D"}]  # the step before 1B
        assert panel.check_text.startswith("legal"), panel.check_text
        assert panel.check_text.splitlines()[1] == "then 1B is yours too"
        await pilot.press("u", "D")
        await settle(pilot)
        await pick(pilot, "1A3A")  # the next step of the player's: a plain done
        await settle(pilot)
        assert panel.items == [{"type": "done"}]
        await pilot.press("D")
        await settle(pilot)
        await pick(pilot, "end")
        await settle(pilot)
        assert panel.items[1:] == [{"type": "done", "through": "end"}]


async def test_one_key_ends_a_movement_batch(at_3b2: Tutorial) -> None:
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        # A batch needs a move first (205.0): the Strike Force one hex north, by the keys.
        await pilot.press("enter", "o", "m", "enter", "up", "enter", "enter")
        await settle(pilot)
        assert panel.items == [{"type": "move", "units": STRIKE_FORCE, "path": ["1307", "1306"]}]
        assert "b: batch" in panel.hint_text
        await pilot.press("1")  # b, too: the step's first own order
        await settle(pilot)
        assert panel.items[1:] == [{"type": "batch"}]
        assert panel.check_text.startswith("legal"), panel.check_text


async def test_m_on_the_map_moves_the_stack_under_the_cursor(at_3b2: Tutorial) -> None:
    """Found in the game by mail: g to a hex, then m, did nothing (m was the orders
    panel's, and the hex was not chosen); it took Enter, o, m. From the map, m chooses the
    hex under the cursor, shows the panel and starts the step's stack order there."""
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        hexmap = screen.query_one(HexMap)
        assert hexmap.has_focus and hexmap.cursor == 1307  # the Strike Force's hex
        await pilot.press("m")
        await settle(pilot)
        panel = screen.query_one(OrdersPanel)
        assert panel.display and panel.chosen is not None and panel.chosen[0] == 1307
        await pilot.press("enter", "up", "enter", "enter")  # every unit, one hex north
        await settle(pilot)
        assert panel.items == [{"type": "move", "units": STRIKE_FORCE, "path": ["1307", "1306"]}]


async def test_m_in_the_panel_with_no_hex_chosen_takes_the_map_s_cursor(at_3b2: Tutorial) -> None:
    """Found by trying it: o showed the panel with the keys (its hint read "Enter on a hex,
    then m: move"), so Enter never reached the map, and m said "choose a hex with your ships
    first". With no hex chosen, m in the panel chooses the hex under the map's cursor, as m
    on the map does."""
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o")
        await settle(pilot)
        panel = screen.query_one(OrdersPanel)
        assert panel.has_focus and panel.chosen is None
        await pilot.press("m")
        await settle(pilot)
        assert panel.chosen is not None and panel.chosen[0] == 1307
        await pilot.press("enter", "up", "enter", "enter")  # every unit, one hex north
        await settle(pilot)
        assert panel.items == [{"type": "move", "units": STRIKE_FORCE, "path": ["1307", "1306"]}]


async def test_the_panel_s_keys_do_the_same_where_the_map_has_the_keys(at_3b2: Tutorial) -> None:
    """Found in the game by mail: with a move drafted, o (meant to show the panel, which had
    the keys) hid it; b and S then did nothing at all, and the move was never signed. The
    orders panel's keys pressed where the map has the keys show the panel and act there."""
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        hexmap = screen.query_one(HexMap)
        assert hexmap.has_focus
        await pilot.press("d")
        await settle(pilot)
        panel = screen.query_one(OrdersPanel)
        assert panel.display and panel.has_focus and panel.items == [{"type": "done"}]
        await pilot.press("o")  # the panel had the keys: o gives them back to the map
        await settle(pilot)
        assert hexmap.has_focus and not panel.display
        await pilot.press("u")
        await settle(pilot)
        assert panel.display and panel.items == []
        await pilot.press("o", "S")  # nothing to send: said, not silent
        await settle(pilot)
        assert "no draft orders" in screen.status.text


@pytest.fixture
def in_battle(game: Tutorial) -> Tutorial:
    """The battle at the Kzinti battle station in 1205 at 5-3B, the coalition's (Alice's)
    part owed: from F&E 5.7 the approach steps pass with the station alone there, and the
    alliance, which ended the step before, answers 5-3B first."""
    walk_to(game, "5-3B", TUTORIAL_ATTACK)
    if pending(RULESET, game.alice.replica.state(game.game_id))[0].seats == ("alliance",):
        game.bob.replica.submit(game.game_id, [{"type": "done"}], now=now())
        exchange(game.bob, game.alice)
    assert pending(RULESET, game.alice.replica.state(game.game_id))[0].seats == ("coalition",)
    return game


async def test_the_combat_policy_form_offers_the_allowed_values(in_battle: Tutorial) -> None:
    app = app_for(in_battle.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "P")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OrderForm) and form.order == "policy", (
            panel.hint_text,
            panel.check_text,
        )
        bir = next(f for f in form.fields if f.name == "bir")
        assert [value for _, value in bir.choices] == ["-1", "1", "2", "3", "4"]
        flagship = next(f for f in form.fields if f.name == "flagship")
        assert flagship.choices == (("(none)", ""), ("auto", "auto"))  # none: keep asking
        # (first offered: the engine's picks, tests/tui/test_orders_in_force.py)
        await select_option(pilot, form, PRESET_FIELD, TYPE_IT)
        await select_option(pilot, form, "bir", "3")
        await select_option(pilot, form, "allocate", "suggested")
        approach = next(f for f in form.fields if f.name == "approach")  # from fe 5.4
        assert approach.choices == (("(none)", ""), ("accept", "accept"), ("refuse", "refuse"))
        await select_option(pilot, form, "approach", "refuse")
        capture = next(f for f in form.fields if f.name == "capture")  # from fe 5.5
        assert capture.choices == (("(none)", ""), ("never", "never"))
        direct = next(f for f in form.fields if f.name == "direct")  # from fe 5.7
        assert direct.choices == (("(none)", ""), ("never", "never"))
        planet = next(f for f in form.fields if f.name == "planet")  # from fe 5.11
        assert planet.choices == (
            ("(none)", ""), ("capture", "capture"), ("devastate", "devastate"),
        )  # fmt: skip
        # Twelve fields are taller than 24 lines: the box scrolls to the one focused.
        last = form.query_one("#field-planet")
        last.focus()
        await settle(pilot)
        await pilot.wait_for_scheduled_animations()  # (focus scrolls the box smoothly)
        assert last.region.height and last.region.bottom <= app.size.height - 1, last.region
        await select_option(pilot, form, "capture", "never")
        await select_option(pilot, form, "direct", "never")
        await select_option(pilot, form, "planet", "capture")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert panel.items == [
            {
                "type": "policy",
                "bir": 3,
                "allocate": "suggested",
                "approach": "refuse",
                "capture": "never",
                "direct": "never",
                "planet": "capture",
            }
        ]
        assert panel.check_text.startswith("legal"), panel.check_text


def test_an_adjustment_names_one_of_the_seats_empires_from_a_menu() -> None:
    """The face marks ``empire`` as a side; the panel gives it the seat's sides as a menu
    when the seat plays several (`with_options`), left blank when not chosen."""
    adjust = next(c for c in FACE.choices(after_setup(), "coalition") if c.order == "adjust")
    empire = next(p for p in adjust.params if p.name == "empire")
    assert empire.kind == ParamKind.SIDE and not empire.required
    choice = with_options(adjust, "side", ("KLI", "LYR"))
    form = choice_form(choice, {"change": "treasury"})
    field = next(f for f in form.fields if f.name == "empire")
    assert field.choices == (("KLI", "KLI"), ("LYR", "LYR")) and field.blank
    values = {"change": "treasury", "ep": "5", "empire": "LYR", "reason": "a gift"}
    assert order_values(choice, values) == {"type": "adjust", **values}
    note = Choice("note", "Note", (Param("text", ParamKind.TEXT),))
    assert with_options(note, "side", ("KLI",)) is note  # nothing to give a menu


def test_a_hex_pick_is_a_listed_hex_asking_for_no_pieces() -> None:
    """A retreat (a hex the face lists, nothing else to choose) is picked on the map; a
    placement (it names what it places) and a free hex are not; its draft reads short."""
    hexes = ("0601", "0702")
    retreat = Choice("retreat", "Retreat", (Param("to", ParamKind.HEX, options=hexes),))
    to = hex_pick(retreat)
    assert to is not None and to.name == "to"
    free = Choice("retreat", "Retreat", (Param("to", ParamKind.HEX),))
    assert hex_pick(free) is None
    grouped = (Param("fleet", ParamKind.GROUP), Param("hex", ParamKind.HEX, options=hexes))
    assert hex_pick(Choice("place", "Place", grouped)) is None
    assert describe({"type": "retreat", "to": "0601"}) == "retreat to 0601"
    assert describe({"type": "adjust", "to": 3}) == "adjust to 3"
    assert describe({"type": "approach", "accept": False}) == "approach accept no"
    assert describe({"type": "adjust", "units": []}) == 'adjust {"units": []}'
    losses = {"type": "allocate", "losses": ["cripple KZI-0002", "destroy KZI-0005"]}
    assert describe(losses) == "allocate losses: cripple KZI-0002, destroy KZI-0005"
    force = {"type": "secret", "choice": {"flagship": "KZI-0001", "units": ["KZI-0001"]}}
    assert describe(force) == 'secret {"choice": {"flagship": "KZI-0001", "units": ["KZI-0001"]}}'
    assert describe({"type": "standing", "steps": ["manual", "2B3"]}) == "standing: manual, 2B3"
    assert describe({"type": "standing", "steps": []}) == "standing: none (cancels it)"


class TickApp(App[None]):
    def compose(self) -> ComposeResult:
        yield UnitPick(id="units", compact=True)


async def test_ticked_and_unticked_units_differ_without_colour() -> None:
    app = TickApp()
    async with app.run_test(size=(40, 6)) as pilot:
        pick_list = app.query_one(UnitPick)
        pick_list.offer(["KLI-0001", "KLI-0002"], {"KLI-0001": "D7C"})
        await pilot.pause()
        pick_list.focus()
        await pilot.press("down", "space")
        await pilot.pause()
        lines = shown(pick_list)
        assert lines[0].startswith(f"{TICKED} KLI-0001 D7C"), lines
        assert lines[1].startswith(f"{UNTICKED} KLI-0002"), lines
        assert pick_list.picked == ["KLI-0001"]
        await pilot.press("*")  # some ticked: none; then all
        assert pick_list.picked == []
        await pilot.press("*")
        assert pick_list.picked == ["KLI-0001", "KLI-0002"]


async def test_question_mark_lists_the_order_keys_from_the_map(game: Tutorial) -> None:
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(app.screen.keys)
        assert "Orders panel (o), when it has the focus:" in text
        for key, what in (("A", "Adjust"), ("O", "Standing"), ("D", "Done through"), ("{", "JSON")):
            assert any(
                line.split()[:1] == [key] and f" {what}: " in line for line in text.splitlines()
            ), key


async def test_a_refusal_wraps_in_the_side_column_at_80x24(at_3b2: Tutorial) -> None:
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "{", *json.dumps(TOO_FAR), "enter")
        await settle(pilot)
        check = panel.query_one("#orders-check", Static)
        lines = [line for line in shown(check) if line]
        assert lines[0].startswith("REFUSED") and len(lines) > 1
        assert "(203.1)" in " ".join(lines)  # the rule, not cut off at the column's edge
        assert all(len(line) <= check.size.width for line in lines)
        assert check.region.width <= panel.region.width
        assert panel.region.y + panel.region.height <= SIZE[1]


async def test_a_seat_of_several_empires_picks_the_adjustments_empire(wind: Player) -> None:
    """The Wind's coalition plays the Klingons and the Lyrans: the adjustment's empire is a
    menu of the two, and the engine checks the order written with it."""
    app = app_for(wind)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "A")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OrderForm) and form.order == "adjust", panel.check_text
        empire = next(f for f in form.fields if f.name == "empire")
        assert sorted(value for _, value in empire.choices) == ["KLI", "LYR"]
        await select_option(pilot, form, "empire", "LYR")
        form.query_one("#field-ep").focus()
        await pilot.press("ctrl+a", "backspace", "1")
        form.query_one("#field-reason").focus()
        await pilot.press(*"found in the archive", "enter")
        await settle(pilot)
        assert panel.items == [
            {
                "type": "adjust",
                "change": "treasury",
                "ep": "1",
                "empire": "LYR",
                "reason": "found in the archive",
            }
        ]
        assert panel.check_text.startswith("legal"), panel.check_text


def test_the_panels_word_for_the_end_is_the_cores() -> None:
    assert step_picks.THROUGH_END == THROUGH_END


async def test_the_combat_policy_is_offered_before_the_combat_phase(game: Tutorial) -> None:
    """Signed early, a policy lets the turn's battles run without a hand-off (pace.md)."""
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        assert "policy" in panel.orders
        await pilot.press("o", "P")
        await pilot.pause()
        assert not isinstance(app.screen, type(screen)), "P opens the policy form at 1A1"


async def test_a_key_the_step_has_no_use_for_says_why(game: Tutorial) -> None:
    """The footer hides the keys the step cannot use, but pressed (as ? lists them) each says
    why it did nothing rather than nothing at all; the drafts stay as they were."""
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o")
        said: dict[str, str] = {}
        for key in ("m", "u", "S", "p"):
            screen.status.say("")
            await pilot.press(key)
            await settle(pilot)
            said[key] = screen.status.text
        assert said["m"] == "1A1 has nothing for m to move or place: f lists what it takes"
        assert said["u"] == said["S"] == "no draft orders yet"
        assert said["p"] == "1A1 has no hidden choice: f lists what it takes"
        assert panel.items == []
        await pilot.press("d", "m")  # a done drafted: the keys offer the next step's orders
        await settle(pilot)
        assert (
            screen.status.text == "1A3A has nothing for m to move or place: f lists what it takes"
        )
    async with app_for(game.bob).run_test(size=SIZE) as pilot:  # Alice's move
        screen = await open_game(pilot)
        await pilot.press("o", "d")
        await settle(pilot)
        assert screen.status.text == "nothing owed now"
