"""Fixes found by using the inspector as a new user would (issue 11's features):
each test fails without its fix."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path

from pilotkit import press, step, until

from inspector.app import InspectorApp
from inspector.model import load_path

ROOT = Path(__file__).resolve().parents[2]
LEDGER_WIRES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledger-wires"  # a graph wire with a dictionary, fixed
LEDGER = LEDGER_WIRES / "banking_ledger.graph.model-text"


@asynccontextmanager
async def opened(source: Path, size=(120, 36)):
    app = InspectorApp(load_path(str(source)), count_tokens=False)
    async with app.run_test(size=size) as pilot:
        await step(pilot)
        await app.workers.wait_for_complete()
        await step(pilot)
        yield app, pilot


def test_palette_search_keeps_a_one_letter_key_in_brackets():
    """A typed query highlights the label; '[t]' must not be read as markup and vanish."""
    async def scenario():
        from textual.command import CommandList

        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "ctrl+p")
            await until(pilot, lambda: app.screen.query(CommandList), what="the palette")
            await press(pilot, "T", "o", "k")

            def prompts_of_the_query() -> list[str]:
                options = app.screen.query_one(CommandList)
                return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]

            await until(pilot, lambda: any("Next token view" in p for p in prompts_of_the_query()),
                        what="the commands matching 'Tok'")
            options = app.screen.query_one(CommandList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert any("Show Tokens  [t]" in p for p in prompts), prompts
            assert any("Next token view  [T]" in p for p in prompts), prompts
    asyncio.run(scenario())


def test_token_status_names_only_bytes_of_the_token_and_counts_in_the_singular():
    """The cursor token's bytes are named first and last, as the Tree tab does: its end
    (exclusive) named a byte past the token, at the wire's end a byte that does not exist."""
    async def scenario():
        from inspector import token_spans

        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "t")
            await step(pilot)
            wire = LEDGER.read_bytes()
            full = token_spans.whole(wire, "cl100k_base")
            app.select_wire(len(wire) - 1)
            await step(pilot)
            status = str(app.query_one("#tv-status").content)
            s, e = full.span(len(full.ids) - 1)
            assert e == len(wire) and e - s >= 2
            assert f"at bytes {s:,}–{e - 1:,}" in status, status
            assert f"{len(wire):,}" not in status, status
            assert "selection: 1 token (1 byte)" in status, status
    asyncio.run(scenario())


def test_ledger_row_story_names_the_rows_last_byte():
    from inspector.ledger import LedgerRow
    from inspector.panes.tokens import ledger_row_story

    row = LedgerRow("header", "header", 0, 22, 22, {"cl100k_base": 12})
    assert ledger_row_story(row, "cl100k_base") == "header: 12 tokens, bytes 0–21"


def test_compare_envelope_table_shows_the_delta_column_whole_at_160_columns():
    """A small wire against a large one: '+17,053 (+4914.0%)' was cut at the screen's edge
    (the digests' columns took the width without the cells' padding)."""
    async def scenario():
        from textual.widgets import DataTable

        from inspector.compare import Target
        from inspector.compare_screen import CompareScreen

        small = ROOT / "examples" / "wires" / "calculator.diagnostics.model-text"
        app = InspectorApp(load_path(str(small)), count_tokens=False, compare=Target("file", str(LEDGER)))
        async with app.run_test(size=(160, 48)) as pilot:
            for _ in range(100):
                await step(pilot)
                await app.workers.wait_for_complete()
                if isinstance(app.screen, CompareScreen) and app.screen.comparison is not None \
                        and app.screen.comparison.done:
                    break
            await step(pilot)
            table = app.screen.query_one("#compare-fields", DataTable)
            assert str(table.get_cell("wire bytes", "delta")).startswith("+")
            assert table.max_scroll_x == 0, (table.virtual_size.width, table.size.width)
    asyncio.run(scenario())


def test_compare_at_80_columns_keeps_a_19_character_root_whole():
    """Narrow, the values keep the width they had: a root of 19 characters is not cut."""
    async def scenario():
        from textual.widgets import DataTable

        from inspector.compare import Target
        from inspector.compare_screen import CompareScreen

        wire = ROOT / "examples" / "wires" / "http_app_routing.graph.model-text"
        app = InspectorApp(load_path(str(wire)), count_tokens=False, compare=Target("canonical"))
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(100):
                await step(pilot)
                await app.workers.wait_for_complete()
                if isinstance(app.screen, CompareScreen) and app.screen.comparison is not None \
                        and app.screen.comparison.done:
                    break
            table = app.screen.query_one("#compare-fields", DataTable)
            assert str(table.get_cell("root", "left")) == "http_app_routing.py"
    asyncio.run(scenario())


def test_the_overwrite_question_is_shown_whole_at_80_columns():
    """A long path made 'x exists. Replace it?' lose its end at 80 columns: the label
    was one line, cut at the dialog's edge, so the question was never asked in full."""
    async def scenario():
        from textual.widgets import Label

        from inspector.screens import ConfirmScreen

        question = "/tmp/userpass/compact.limit.repaired.model-text exists. Replace it?"
        async with opened(LEDGER, size=(80, 24)) as (app, pilot):
            app.push_screen(ConfirmScreen(question))
            await step(pilot)
            label = app.screen.query_one(Label)
            box = label.parent.content_region
            assert label.region.x >= box.x and label.region.right <= box.right, (label.region, box)
            lines = [strip.text for strip in label.render_lines(label.content_region.reset_offset)]
            assert "".join(line.strip() for line in lines).replace(" ", "") == question.replace(" ", "")
    asyncio.run(scenario())


def test_token_view_rewraps_when_its_scrollbar_appears_at_80_columns():
    """The first token view was wrapped before its vertical scrollbar took two columns:
    one character a line (the 't' of "path") sat under the edge, out of sight."""
    async def scenario():
        wire = ROOT / "examples" / "wires" / "calculator.project-graph.binary"
        async with opened(wire, size=(80, 24)) as (app, pilot):
            await press(pilot, "t")
            await step(pilot)
            await app.workers.wait_for_complete()
            view = app.query_one("#token-view")
            await until(pilot, lambda: view.show_vertical_scrollbar
                        and view.lines.width < view.scrollable_content_region.width,
                        what="the token view rewrapped beside its scrollbar")
            assert view.show_vertical_scrollbar
            assert view.lines.width < view.scrollable_content_region.width
            assert view.max_scroll_x == 0
    asyncio.run(scenario())


def test_a_failed_replay_shows_its_whole_reason_in_the_compare_view(tmp_path):
    """'…does not exist in the workspace; did you mean' stopped there: the status row was
    one line high, so the close matches were cut off."""
    async def scenario():
        from textual.widgets import Static

        from inspector.compare import Target

        (tmp_path / "banking_ledger_old.py").write_text("x = 1\n")
        app = InspectorApp(load_path(str(LEDGER)), count_tokens=False,
                           compare=Target("replay", str(tmp_path)))
        async with app.run_test(size=(80, 24)) as pilot:
            status = None
            for _ in range(100):
                await step(pilot)
                await app.workers.wait_for_complete()
                found = app.screen.query("#compare-status")
                if found and "could not compare" in str(found.first(Static).content):
                    status = found.first(Static)
                    break
            assert status is not None
            text = str(status.content)
            assert "did you mean" in text and text.rstrip().endswith("?"), text
            width = status.content_region.width
            assert status.content_region.height * width >= len(text), (status.content_region, len(text))
            assert status.parent.region.height >= status.region.height, (status.parent.region, status.region)
    asyncio.run(scenario())


def test_stepping_through_an_entrys_uses_moves_the_linked_cursor_to_each_use():
    """Enter on a dictionary row put the body on use 1, but the bytes and the tree stayed
    on the entry's line: one selection showed two places."""
    async def scenario():
        async with opened(LEDGER, size=(120, 36)) as (app, pilot):
            loaded = app.loaded
            await press(pilot, "d", "down", "enter")
            await until(pilot, lambda: app.selection is not None and app.selection.origin == "body",
                        what="the body on the entry's first use")
            entry = app.dictionary.selected_entry
            uses = loaded.references_of(entry)
            first = loaded.ref_wire[uses[0]]
            assert (app.selection.start, app.selection.origin) == (first, "body")
            assert app.bytes_pane.hex.cursor_offset == first
            await press(pilot, "right_square_bracket")
            await until(pilot, lambda: app.selection.start != first, what="the next use")
            assert app.selection.start == loaded.ref_wire[uses[1]]
            assert app.bytes_pane.hex.cursor_offset == loaded.ref_wire[uses[1]]
    asyncio.run(scenario())


def test_out_of_range_messages_count_in_the_singular_when_one():
    import pytest

    import codec
    from codec import CompactError

    wire = (ROOT / "examples" / "rejected" / "compact.reference.model-text").read_bytes()
    with pytest.raises(CompactError) as caught:
        codec.decode_wire(wire)
    assert caught.value.message.endswith("the dictionary has 1 entry")
