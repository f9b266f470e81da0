"""Repairs of a rejected wire: the pure plans (inspector/repair.py), exact
bytes for each fix, and the Repair dialog through Pilot: a verified copy is
written to a new file beside the original (never over it, and over another
file only when the person says yes), opened, and compared with the original;
a repair that cannot make the wire verify writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pilotkit import press, step
from textual.widgets import Static

import codec
from inspector.app import InspectorApp
from inspector.compare_screen import CompareScreen
from inspector.model import load_bytes, problems
from inspector.repair import applicable, apply_fix, is_original, plan, repaired_name, verify
from inspector.repair_screen import RepairScreen
from inspector.screens import ConfirmScreen

ROOT = Path(__file__).resolve().parents[2]
LEDGER_WIRES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledger-wires"  # a graph wire with a dictionary, fixed
WIRES = ROOT / "examples" / "wires"
LEDGER = (LEDGER_WIRES / "banking_ledger.graph.model-text").read_bytes()
TEXT = (LEDGER_WIRES / "banking_ledger.graph.text").read_bytes()
JSON = (LEDGER_WIRES / "banking_ledger.graph.json").read_bytes()
NONCANONICAL = (ROOT / "examples" / "rejected" / "compact.noncanonical.model-text").read_bytes()
SIZE = (120, 36)

BROKEN = {
    "trailing LF": LEDGER + b"\n",
    "CRLF": LEDGER.replace(b"\n", b"\r\n"),
    "CRLF and a trailing CRLF": LEDGER.replace(b"\n", b"\r\n") + b"\r\n",
    "length too short": LEDGER.replace(b"\nroot 17 ", b"\nroot 15 "),
    "length too long": LEDGER.replace(b"\nroot 17 ", b"\nroot 19 "),
    "v1 text with CRLF": TEXT.replace(b"\n", b"\r\n"),
    "full JSON with a trailing LF": JSON + b"\n",
}
EXPECTED = {"v1 text with CRLF": TEXT, "full JSON with a trailing LF": JSON}


def canonical_ledger_noncanonical() -> bytes:
    layout = codec.layout_wire(NONCANONICAL)
    profile, root, revision, _ = layout.metadata
    return codec.encode_model_text(codec.CompactProjection(profile, root, revision, layout.document))


# --- the pure plans -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_repair_gives_back_the_exact_wire(name):
    loaded = load_bytes(BROKEN[name], name)
    assert not loaded.ok
    p = plan(loaded)
    assert p.verifies and p.error is None
    assert p.repaired == EXPECTED.get(name, LEDGER)
    assert verify(p.repaired) is None


def test_fixes_are_named_by_the_problems_they_remove():
    crlf = load_bytes(BROKEN["CRLF and a trailing CRLF"], "x")
    assert {p.fix for p in problems(crlf) if p.fix} == {"crlf", "trailing-lf"}
    assert applicable(crlf) == ("crlf", "trailing-lf")  # line endings first: they move every later byte
    assert [s.fix for s in plan(crlf).steps] == ["crlf", "trailing-lf"]
    assert applicable(load_bytes(BROKEN["length too short"], "x")) == ("length",)
    assert applicable(load_bytes(LEDGER, "valid")) == ()


def test_what_each_fix_says_is_true_of_the_bytes():
    data, what = apply_fix("trailing-lf", load_bytes(LEDGER + b"\n", "x"))
    assert data == LEDGER and what == f"removed the LF at byte {len(LEDGER):,}, the last byte"
    data, what = apply_fix("crlf", load_bytes(LEDGER.replace(b"\n", b"\r\n"), "x"))
    n = LEDGER.count(b"\n")
    assert what == f"replaced {n:,} CRLF line endings with LF (the first at byte 21); {n:,} bytes fewer"
    at = LEDGER.index(b"\nroot 17 ") + 6
    data, what = apply_fix("length", load_bytes(BROKEN["length too short"], "x"))
    assert data == LEDGER
    assert what == (f"the root's length 15 → 17 at byte {at:,}: its value runs 17 bytes to the LF at byte "
                    f"{at + 3 + 17:,}")


def test_a_noncanonical_wire_is_re_encoded_canonically():
    loaded = load_bytes(NONCANONICAL, "noncanonical")
    assert applicable(loaded) == ("canonical",)
    p = plan(loaded)
    assert p.verifies and p.repaired == canonical_ledger_noncanonical()
    assert p.steps[0].what.startswith(f"re-encoded as v2 model-text by the canonical encoder: {len(NONCANONICAL):,}")


def test_a_noncanonical_json_spelling_is_respelled_and_says_its_digest_follows():
    from wirekit import REVISION, v2  # hand-built, so the spacing survives

    wire = codec.encode_model_text(codec.CompactProjection("graph", "a.py", REVISION, b'{"a":1}'))
    loaded = load_bytes(v2(b'{"a": 1}'), "spaced")
    assert loaded.error.code == "compact.noncanonical"
    p = plan(loaded)
    assert p.verifies and p.repaired == wire
    assert "the document's JSON was respelled canonically (8 → 7 bytes, the same value)" in p.steps[0].what


def test_a_repair_that_cannot_make_it_verify_says_so():
    tampered = LEDGER.replace(b'"kind"', b'"kinD"', 1) + b"\n"  # a trailing LF and an edited body
    p = plan(load_bytes(tampered, "tampered"))
    assert [s.fix for s in p.steps] == ["trailing-lf"]
    assert not p.verifies and p.error.code == "compact.digest"


def test_no_repair_applies_to_a_bad_reference():
    wire = (ROOT / "examples" / "rejected" / "compact.reference.model-text").read_bytes()
    p = plan(load_bytes(wire, "reference"))
    assert p.steps == () and not p.verifies and p.error.code == "compact.reference"


def test_names_and_the_original():
    assert repaired_name("dir/x.model-text") == "dir/x.repaired.model-text"
    assert repaired_name("dir/wire") == "dir/wire.repaired"
    assert is_original("a/../x.model-text", "x.model-text")
    assert not is_original("x.repaired.model-text", "x.model-text")


# --- the Repair dialog, through Pilot --------------------------------------------------------


def run(coro):
    return asyncio.run(coro)


async def settle(app, pilot, screen_type=None):
    for _ in range(100):
        await step(pilot)
        await app.workers.wait_for_complete()
        await app.screen.workers.wait_for_complete()
        await step(pilot)
        if screen_type is None or isinstance(app.screen, screen_type):
            return app.screen
    raise AssertionError(f"no {screen_type.__name__} came")


async def open_repair(app, pilot) -> RepairScreen:
    await settle(app, pilot)
    await press(pilot, "R")
    screen = await settle(app, pilot, RepairScreen)
    assert screen.plan is not None
    return screen


@pytest.mark.parametrize("name", ["trailing LF", "CRLF", "length too short", "noncanonical"])
def test_repair_writes_a_new_file_opens_it_and_shows_what_changed(tmp_path, name):
    data = NONCANONICAL if name == "noncanonical" else BROKEN[name]
    original = tmp_path / "wire.model-text"
    original.write_bytes(data)

    async def scenario():
        app = InspectorApp(path=str(original), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_repair(app, pilot)
            assert screen.query_one("#repair-path").value == str(tmp_path / "wire.repaired.model-text")
            await press(pilot, "enter")
            compare = await settle(app, pilot, CompareScreen)
            await settle(app, pilot)
            repaired = (tmp_path / "wire.repaired.model-text").read_bytes()
            assert original.read_bytes() == data  # never touched
            assert verify(repaired) is None
            assert repaired == (canonical_ledger_noncanonical() if name == "noncanonical" else LEDGER)
            assert compare.comparison.right.wire == repaired and compare.comparison.left.wire == data
            heading = compare.query_one("#compare-heading", Static).content.plain
            assert "repaired: 1. " in heading
            await press(pilot, "escape")
            await settle(app, pilot)
            assert app.loaded.path == str(tmp_path / "wire.repaired.model-text") and app.loaded.ok
    run(scenario())


def test_a_repair_that_cannot_verify_writes_nothing(tmp_path):
    original = tmp_path / "tampered.model-text"
    original.write_bytes(LEDGER.replace(b'"kind"', b'"kinD"', 1) + b"\n")

    async def scenario():
        app = InspectorApp(path=str(original), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_repair(app, pilot)
            verdict = screen.query_one("#repair-verdict", Static).content.plain
            assert verdict.startswith("cannot make it verify: after this step it still fails with compact.digest")
            assert verdict.endswith("Nothing is written.")
            assert not screen.query_one("#repair-path").display and not screen.query_one("#repair-write").display
            await press(pilot, "enter")  # the focused Close button
            await settle(app, pilot)
            assert not isinstance(app.screen, RepairScreen)
            assert sorted(p.name for p in tmp_path.iterdir()) == ["tampered.model-text"]
    run(scenario())


def test_repair_asks_before_replacing_a_file_and_never_writes_the_original(tmp_path):
    original = tmp_path / "wire.model-text"
    original.write_bytes(LEDGER + b"\n")
    existing = tmp_path / "wire.repaired.model-text"
    existing.write_bytes(b"keep me")

    async def scenario():
        app = InspectorApp(path=str(original), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_repair(app, pilot)
            path = screen.query_one("#repair-path")
            path.value = str(original)
            await press(pilot, "enter")
            await step(pilot)
            assert isinstance(app.screen, RepairScreen) and original.read_bytes() == LEDGER + b"\n"
            path.value = str(existing)
            await press(pilot, "enter")
            await settle(app, pilot, ConfirmScreen)
            await press(pilot, "n")
            await settle(app, pilot, RepairScreen)
            assert existing.read_bytes() == b"keep me"
            await press(pilot, "enter")
            await settle(app, pilot, ConfirmScreen)
            await press(pilot, "y")
            await settle(app, pilot, CompareScreen)
            assert existing.read_bytes() == LEDGER and original.read_bytes() == LEDGER + b"\n"
    run(scenario())


def test_a_valid_wire_has_nothing_to_repair(tmp_path):
    async def scenario():
        app = InspectorApp(load_bytes(LEDGER, "ledger"), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await press(pilot, "R")
            await step(pilot)
            assert not isinstance(app.screen, RepairScreen)
            assert any("nothing to repair" in str(n.message) for n in app._notifications)
    run(scenario())


def test_the_banner_of_a_repairable_wire_names_the_repairs():
    async def scenario():
        app = InspectorApp(load_bytes(BROKEN["CRLF and a trailing CRLF"], "crlf"), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            banner = app.query_one("#diagnostic", Static).content.plain
            assert "\n  R: convert CRLF to LF, strip the trailing LF into a new file (never this one)\n" in banner
        app = InspectorApp(load_bytes((ROOT / "examples" / "rejected" / "compact.reference.model-text").read_bytes(),
                                      "reference"), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert "R:" not in app.query_one("#diagnostic", Static).content.plain
    run(scenario())
