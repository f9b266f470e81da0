"""`/` in every pane (issue 24): the body (a hit moves the linked cursor, so the
other panes stand on it), the bytes (text or hex), the tree (the node holding
the hit), the tokens (text or a token id), the compare list; and text typed
into the token view (E, ``semaprax-inspect --text``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable, Input

from inspector.app import InspectorApp
from inspector.model import load_bytes
from inspector.panes.search import Search
from inspector.token_spans import whole

ROOT = Path(__file__).resolve().parents[2]
WIRE = ROOT / "examples" / "wires" / "http_app_routing.graph.model-text"
SIZE = (120, 36)


def run(coro):
    return asyncio.run(coro)


async def settle(app, pilot):
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def ask(pilot, app, key: str, query: str) -> None:
    """Press ``key``, type ``query`` into the prompt and submit it."""
    await pilot.press(key)
    await pilot.pause()
    app.screen.query_one(Input).value = query
    await pilot.press("enter")
    await pilot.pause()


def test_hex_queries_are_bytes_and_others_text():
    assert Search.needle("de ad be ef", hex_ok=True) == b"\xde\xad\xbe\xef"
    assert Search.needle("0x0a62", hex_ok=True) == b"\nb"
    assert Search.needle("dead", hex_ok=True) == b"dead"  # one word: text
    assert Search.needle("de ad", hex_ok=False) == b"de ad"


def test_a_body_hit_moves_the_linked_cursor_of_every_pane():
    loaded = load_bytes(WIRE.read_bytes(), str(WIRE))
    needle = b"url_for"
    doc_at = loaded.document.index(needle)

    async def scenario():
        app = InspectorApp(loaded, count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("b")
            await pilot.pause()
            app.body.expanded.focus()
            await pilot.pause()
            await ask(pilot, app, "slash", needle.decode())
            await settle(app, pilot)
            selection = app.selection
            assert selection is not None and selection.origin == "body"
            assert selection.doc is not None and selection.doc[0] <= doc_at < selection.doc[1]
            # the compact pane stands on the same place
            assert app.body.compact.cursor_offset == loaded.doc_to_body(doc_at)
    run(scenario())


def test_bytes_tree_and_tokens_find_their_hits():
    loaded = load_bytes(WIRE.read_bytes(), str(WIRE))
    wire = loaded.wire

    async def scenario():
        app = InspectorApp(loaded, count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            # bytes: hex
            await pilot.press("x")
            await pilot.pause()
            await ask(pilot, app, "slash", "62 6f 64 79 0a")  # "body\n"
            await settle(app, pilot)
            at = wire.index(b"body\n")
            assert app.bytes_pane.hex.cursor_offset == at and app.selection.cursor == at
            # tree: the deepest node holding the hit
            await pilot.press("p")
            await settle(app, pilot)
            await ask(pilot, app, "slash", "source_digest")
            await settle(app, pilot)
            tree = app.query_one("#dissection")
            node = tree.cursor_node.data
            at = wire.index(b"source_digest")
            assert node.start <= at < node.end and "source_digest" in node.text
            assert app.selection.cursor == at
            # tokens: a token id, then text
            await pilot.press("t")
            await settle(app, pilot)
            tokens = whole(wire, "cl100k_base")
            wanted = tokens.ids[len(tokens.ids) // 2]
            first = tokens.offsets[list(tokens.ids).index(wanted)]
            await ask(pilot, app, "slash", f"#{wanted}")
            await settle(app, pilot)
            view = app.query_one("#token-view")
            assert view.cursor_token()[1] == first and view.cursor_token()[0] == wanted
            await ask(pilot, app, "slash", "HTTPException")
            await settle(app, pilot)
            assert view.cursor_token()[1] <= wire.index(b"HTTPException") < view.cursor_token()[2]
    run(scenario())


def test_typed_text_is_tokenized_beside_the_wire():
    from views import tokens

    async def scenario():
        app = InspectorApp(None, path=str(WIRE), count_tokens=False, text="hello wire tokens")
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(50):
                await settle(app, pilot)
                if app.tabbed.active == "tokens":
                    break
            pane = app.query_one("#tokens-pane")
            assert app.tabbed.active == "tokens" and pane.shown == ("typed", "cl100k_base")
            view = app.query_one("#token-view")
            assert view.data == b"hello wire tokens"
            assert view.count_visible() == tokens.count_tokens(b"hello wire tokens")["cl100k_base"]
            await ask(pilot, app, "E", "another text")
            await settle(app, pilot)
            assert view.data == b"another text"
            assert ("model-text", "cl100k_base") in pane.states  # the wire's forms stay beside it
    run(scenario())


def test_the_compare_list_is_searched(tmp_path):
    from heldout import held_out_wire

    from inspector.compare import Target
    from inspector.compare_screen import CompareScreen

    left, right = tmp_path / "a.model-text", tmp_path / "b.model-text"
    left.write_bytes(held_out_wire(tmp_path / "a"))
    right.write_bytes(held_out_wire(tmp_path / "b", insert_at=35))

    async def scenario():
        app = InspectorApp(load_bytes(left.read_bytes(), str(left)), count_tokens=False,
                           compare=Target("file", str(right)))
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(100):
                await settle(app, pilot)
                screen = app.screen
                if isinstance(screen, CompareScreen) and screen.comparison is not None and screen.comparison.done:
                    break
            changes = screen.comparison.changes
            await ask(pilot, app, "slash", "reconcile_transfer_40")
            table = screen.query_one("#compare-changes", DataTable)
            assert "reconcile_transfer_40" in changes[table.cursor_row].old
            await pilot.press("n")
            assert "reconcile_transfer_40" in changes[table.cursor_row].old + changes[table.cursor_row].new
    run(scenario())


def test_the_command_line_takes_text_for_the_token_view(monkeypatch):
    import semaprax.inspect as cli

    seen = {}

    class FakeApp:
        def __init__(self, loaded, **kwargs):
            seen.update(kwargs)

        def run(self):
            return None

    monkeypatch.setattr("inspector.app.InspectorApp", FakeApp)
    assert cli.main([str(WIRE), "--text", "how does this tokenize?"]) == 0
    assert seen["text"] == "how does this tokenize?" and seen["path"] == str(WIRE)
