"""SVG snapshot tests of the inspector's main screens at a fixed size, with the
cursor blink off and workers finished, so they are stable across runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilotkit import until
from textual.widgets import Input

from inspector.app import InspectorApp
from inspector.model import load_bytes

ROOT = Path(__file__).resolve().parents[2]
SIZE = (120, 36)


def app_for(relative: str, count_tokens: bool = False) -> InspectorApp:
    data = (ROOT / relative).read_bytes()
    return InspectorApp(load_bytes(data, relative), count_tokens=count_tokens)


def steady(*keys: str, tab: str | None = None):
    """Pilot's own keys and idle waits: a snapshot is about looks, and waiting
    only for the messages (tests/pilotkit.py) left the tree's snapshot taken
    before its last drawing now and then."""
    async def run_before(pilot) -> None:
        app = pilot.app
        for widget in app.query(Input):
            widget.cursor_blink = False
        await pilot.pause()
        await app.workers.wait_for_complete()
        if tab:
            app.action_tab(tab)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await app.workers.wait_for_complete()
        if app.count_tokens_enabled:  # the counts' last message handled, not only posted (a busy machine)
            await until(pilot, lambda: app.counts is not None and app.counts.done, what="the counts")
        await pilot.pause()
    return run_before


LEDGER = "tests/fixtures/ledger-wires/banking_ledger.graph.model-text"


CASES = {
    "overview": (LEDGER, (), None, False),
    "dictionary": ("examples/wires/http_app_routing.graph.model-text", ("down", "down"), "dictionary", False),
    "body": (LEDGER, ("d", "down", "down", "enter", "right_square_bracket"), None, False),
    "rejected": ("examples/rejected/compact.reference.model-text", (), None, False),
    "tokens": (LEDGER, (), "tokens", True),
    # the body opened to an object with @N members, the cursor on one: its bytes marked in the hex view below
    "tree": (LEDGER, ("end", "space", "down", "space", *("down",) * 5, "space", "down", "down", "down", "down"),
             "tree", False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_screen_snapshot(snap_compare, name):
    wire, keys, tab, tokens = CASES[name]
    assert snap_compare(app_for(wire, count_tokens=tokens), terminal_size=SIZE, run_before=steady(*keys, tab=tab))


def test_verify_noncanonical_snapshot(snap_compare):
    async def before(pilot):
        await steady()(pilot)
        pilot.app.action_verify()
        await pilot.pause()

    app = app_for("examples/rejected/compact.noncanonical.model-text")
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def edited_ledger() -> bytes:
    """The ledger's graph with a definition renamed, an import gone and one
    added, re-encoded with the same metadata: a fixed edited copy."""
    import json

    import codec

    p = codec.decode_wire((ROOT / LEDGER).read_bytes()).projection
    value = json.loads(p.selected)
    value["definitions"]["rows"][3][0] = "UnbalancedPostingError"
    del value["imports"]["csv"]
    value["imports"]["Fraction"] = "fractions.Fraction"
    return codec.encode_model_text(codec.CompactProjection.from_value(p.profile, p.root, p.source_revision, value))


def test_compare_snapshot(snap_compare):
    from inspector.compare import Target
    from inspector.compare_screen import CompareScreen

    async def before(pilot):
        await steady()(pilot)
        pilot.app.open_compare(Target("bytes", data=edited_ledger(), name="banking_ledger.graph.edited.model-text"))
        await until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                    and pilot.app.screen.comparison is not None and pilot.app.screen.comparison.done,
                    what="the comparison")
        await pilot.pause()

    assert snap_compare(app_for(LEDGER, count_tokens=True), terminal_size=SIZE, run_before=before)


def test_token_view_snapshot(snap_compare):
    """The token view of the wire as given, with the counts (a worker, waited for),
    the cursor three tokens in, a selection of two tokens and the ids shown."""
    keys = ("right", "right", "right", "shift+right", "shift+right", "I")
    assert snap_compare(app_for(LEDGER, count_tokens=True), terminal_size=SIZE, run_before=steady(*keys, tab="tokens"))
