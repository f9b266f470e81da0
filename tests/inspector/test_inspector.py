"""The inspector driven as a person would, through Textual's Pilot: loading each
form, a rejected wire, stepping through an entry's uses, synchronized panes,
verify, export, search, history and the token table."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path

import pilotkit
import pytest
from pilotkit import press, step
from textual.widgets import DataTable, Static

import codec
from inspector.app import InspectorApp
from inspector.model import load_bytes, load_path
from inspector.views.dictionary import DictionaryView
from inspector.views.hexview import HexView
from inspector.views.lines import LineView, reading_layout, wrapped_layout

ROOT = Path(__file__).resolve().parents[2]
LEDGER_WIRES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledger-wires"  # a graph wire with a dictionary, fixed
WIRES = ROOT / "examples" / "wires"
REJECTED = ROOT / "examples" / "rejected"
LEDGER = LEDGER_WIRES / "banking_ledger.graph.model-text"
SIZE = (120, 36)


def run(coro):
    return asyncio.run(coro)


async def settle(app, pilot):
    """Every worker done and what it posted handled (``pilotkit.settle``)."""
    await pilotkit.settle(app, pilot)


@asynccontextmanager
async def opened(source, *, count_tokens: bool = False, size=SIZE):
    """The app on a wire (a path, or an already loaded model), settled."""
    loaded = load_path(str(source)) if isinstance(source, Path) else source
    app = InspectorApp(loaded, count_tokens=count_tokens)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        yield app, pilot


def text_of(app, selector: str) -> str:
    """What a Static shows, as plain text (tables included)."""
    import io

    from rich.console import Console

    content = app.query_one(selector, Static).content
    if isinstance(content, str):
        return content
    console = Console(width=240, file=io.StringIO(), color_system=None)
    with console.capture() as capture:
        console.print(content)
    return capture.get()


# --- the model, without a UI ---------------------------------------------------------


def test_model_maps_body_and_document_offsets_both_ways():
    loaded = load_path(str(LEDGER))
    assert loaded.ok and loaded.entries
    for k in range(0, len(loaded.ref_wire), 7):
        body = loaded.ref_wire[k] - loaded.body_start
        doc = loaded.ref_doc[k]
        assert loaded.body_to_doc(body) == doc
        assert loaded.doc_to_body(doc) == body
        # a byte just after the reference maps to just after the literal
        entry = loaded.entries[loaded.ref_index[k]]
        token = len(loaded.entry_token(loaded.ref_index[k]))
        assert loaded.body_to_doc(body + token) == doc + len(entry)
    assert loaded.region_at(loaded.ref_wire[0]).kind == "reference"
    assert loaded.region_at(0).kind == "header"


def test_model_of_a_rejected_wire_keeps_what_was_read():
    loaded = load_path(str(REJECTED / "compact.reference.model-text"))
    assert not loaded.ok and loaded.error.code == "compact.reference"
    assert loaded.metadata[0] == "graph" and loaded.entries
    assert loaded.wire[loaded.error.offset:loaded.error.offset + 2] == b"@1"


def test_layouts_cover_every_byte_once():
    data = (WIRES / "http_app_routing.graph.json").read_bytes()
    for layout in (wrapped_layout(data, 77), reading_layout(data)):
        pieces = b"".join(data[s:e] for s, e in zip(layout.starts, layout.ends))
        assert pieces == data
    text = "é" * 100
    layout = wrapped_layout(text.encode(), 7)
    assert all(text.encode()[s:e].decode() for s, e in zip(layout.starts, layout.ends))


# --- loading each form -----------------------------------------------------------------


@pytest.mark.parametrize("form, title", [("model-text", "v2 model-text"), ("text", "v1 text"),
                                         ("binary", "v1 binary (CBOR)"), ("json", "full JSON")])
def test_loads_each_form(form, title):
    async def scenario():
        async with opened(LEDGER_WIRES / f"banking_ledger.graph.{form}") as (app, _pilot):
            summary = text_of(app, "#summary")
            assert f"form: {title}" in summary
            assert "status: valid" in summary
            fields = app.query_one("#fields", DataTable)
            assert fields.row_count == (0 if form == "json" else 4)
            expanded = app.query_one("#expanded", LineView)
            assert expanded.data == (LEDGER_WIRES / "banking_ledger.graph.json").read_bytes()
            assert not app.query_one("#diagnostic").has_class("shown")
    run(scenario())


def test_rejected_wire_opens_with_its_diagnostic_and_jumps_to_the_byte():
    async def scenario():
        wire = (REJECTED / "compact.reference.model-text").read_bytes()
        async with opened(load_bytes(wire, "rejected")) as (app, pilot):
            banner = app.query_one("#diagnostic", Static)
            assert banner.has_class("shown")
            shown = str(banner.render())
            offset = wire.index(b"@1")
            assert "compact.reference" in shown and f"at byte {offset:,}" in shown
            await press(pilot, "exclamation_mark")
            await step(pilot)
            assert app.tabbed.active == "body"
            compact = app.query_one("#compact", LineView)
            body_start = app.loaded.body_start
            assert compact.focus_marks[0].start == offset - body_start
            assert compact.lines.line_of(offset - body_start) == compact.cursor_line
            assert app.query_one("#hex", HexView).cursor_row == offset // 16
    run(scenario())


def test_unknown_bytes_open_without_traceback():
    async def scenario():
        async with opened(load_bytes(b"\x00\x01garbage", "junk")) as (app, _pilot):
            assert app.query_one("#diagnostic").has_class("shown")
            assert "compact.json" in str(app.query_one("#diagnostic", Static).render())
    run(scenario())


# --- dictionary, references and history ------------------------------------------------


def test_entry_selection_steps_through_its_references():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "d", "down", "down")
            view = app.query_one("#dict", DictionaryView)
            index = view.current_index
            assert index == 2
            uses = app.loaded.references_of(index)
            await press(pilot, "enter")
            await pilotkit.step(pilot)
            assert app.tabbed.active == "body"
            compact = app.query_one("#compact", LineView)
            expanded = app.query_one("#expanded", LineView)
            for step in range(len(uses) + 1):
                k = uses[step % len(uses)]
                rel = app.loaded.ref_wire[k] - app.loaded.body_start
                assert compact.focus_marks[0].start == rel
                assert compact.data[rel:rel + 2] == b"@2"
                assert expanded.focus_marks[0].start == app.loaded.ref_doc[k]
                assert expanded.data.startswith(app.loaded.entries[index], app.loaded.ref_doc[k])
                assert compact.cursor_line == compact.lines.line_of(rel)
                await press(pilot, "right_square_bracket")
                await pilotkit.step(pilot)
            await press(pilot, "left_square_bracket", "left_square_bracket")
            await pilotkit.step(pilot)
            assert compact.focus_marks[0].start == app.loaded.ref_wire[uses[-1]] - app.loaded.body_start
    run(scenario())


def test_enter_on_a_reference_follows_it_and_back_returns():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "b")
            compact = app.query_one("#compact", LineView)
            first = app.loaded.ref_wire[0] - app.loaded.body_start
            compact.go_to_offset(first)
            await press(pilot, "enter")
            await step(pilot)
            assert app.tabbed.active == "dictionary"
            assert app.query_one("#dict", DictionaryView).current_index == app.loaded.ref_index[0]
            await press(pilot, "less_than_sign")
            await step(pilot)
            assert app.tabbed.active == "body"
            assert compact.cursor_line == compact.lines.line_of(first)
            await press(pilot, "greater_than_sign")
            await step(pilot)
            assert app.tabbed.active == "dictionary"
    run(scenario())


def test_dictionary_sorts_and_filters():
    async def scenario():
        async with opened(WIRES / "http_app_routing.graph.model-text") as (app, pilot):
            await press(pilot, "d")
            view = app.query_one("#dict", DictionaryView)
            await press(pilot, "4")  # refs, biggest first
            counts = [app.loaded.reference_counts[i] for i in view.order]
            assert counts == sorted(counts, reverse=True)
            await press(pilot, "4")
            counts = [app.loaded.reference_counts[i] for i in view.order]
            assert counts == sorted(counts)
            app.query_one("#dict-filter").focus()
            await press(pilot, *"Request")
            await step(pilot)
            assert view.order and all(b"request" in app.loaded.entries[i].lower() for i in view.order)
            assert len(view.order) < len(app.loaded.entries)
    run(scenario())


def test_panes_scroll_together():
    async def scenario():
        async with opened(WIRES / "http_app_routing.graph.model-text") as (app, pilot):
            await press(pilot, "b")
            compact = app.query_one("#compact", LineView)
            expanded = app.query_one("#expanded", LineView)
            for _ in range(3):
                await press(pilot, "pagedown")
            await step(pilot)
            mapped = app.loaded.body_to_doc(compact.cursor_offset)
            assert expanded.cursor_line == expanded.lines.line_of(mapped)
            assert expanded.scroll_offset.y > 0
            expanded.focus()
            await press(pilot, "down", "down", "down")
            await step(pilot)
            assert compact.cursor_line == compact.lines.line_of(app.loaded.doc_to_body(expanded.cursor_offset))
            await press(pilot, "m")  # reading view keeps the same place
            await step(pilot)
            assert expanded.layout_mode == "reading" and len(expanded.lines) > 100
    run(scenario())


def test_search_and_goto():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "b", "slash")
            await step(pilot)
            await press(pilot, *"function", "enter")
            await step(pilot)
            compact = app.query_one("#compact", LineView)
            expected = [i for i in range(len(compact.data)) if compact.data.startswith(b"function", i)]
            assert app.body.search.matches == expected
            assert compact.focus_marks[0].start == expected[0]
            await press(pilot, "n")
            await step(pilot)
            assert compact.focus_marks[0].start == expected[1]
            await press(pilot, "g")
            await step(pilot)
            await press(pilot, *"0x10", "enter")
            await step(pilot)
            assert app.tabbed.active == "bytes"
            assert app.query_one("#hex", HexView).cursor_row == 1
            assert "field profile" not in text_of(app, "#hex-status")  # offset 16 is in the header
    run(scenario())


# --- verify and export ----------------------------------------------------------------------


def test_verify_with_and_without_expectations():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "v")
            app.action_verify()
            await step(pilot)
            assert "PASS" in text_of(app, "#verify-result")
            app.query_one("#expect-root").value = "other.py"
            await pilot.click("#run-verify")
            await step(pilot)
            result = text_of(app, "#verify-result")
            assert "FAIL" in result and "compact.binding" in result and "'other.py'" in result
            app.query_one("#expect-root").value = "banking_ledger.py"
            app.query_one("#expect-profile").value = "graph"
            app.action_verify()
            await step(pilot)
            assert "PASS" in text_of(app, "#verify-result")
    run(scenario())


def test_verify_noncanonical_shows_the_canonical_reencoding():
    async def scenario():
        async with opened(REJECTED / "compact.noncanonical.model-text") as (app, pilot):
            app.action_verify()
            await step(pilot)
            assert app.query_one("#canon-panes").display
            given = app.query_one("#canon-given", LineView)
            canonical = app.query_one("#canon-expected", LineView)
            at = given.focus_marks[0].start
            assert given.data[:at] == canonical.data[:at]
            assert given.data[at:at + 1] == b'"' and canonical.data[at:at + 2] == b"@0"
    run(scenario())


def test_export_writes_new_files_and_asks_before_overwriting(tmp_path):
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            target = tmp_path / "out.text"
            app._export_chosen(("text", str(target)))
            await step(pilot)
            assert target.read_bytes() == (LEDGER_WIRES / "banking_ledger.graph.text").read_bytes()
            target.write_bytes(b"keep me")
            app._export_chosen(("binary", str(target)))
            await step(pilot)
            await press(pilot, "n")
            await step(pilot)
            assert target.read_bytes() == b"keep me"
            app._export_chosen(("binary", str(target)))
            await step(pilot)
            await press(pilot, "y")
            await step(pilot)
            assert target.read_bytes() == (LEDGER_WIRES / "banking_ledger.graph.binary").read_bytes()
    run(scenario())


def test_export_dialog_from_the_key(tmp_path):
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "ctrl+e")
            await step(pilot)
            path_input = app.screen.query_one("#export-path")
            path_input.value = str(tmp_path / "ledger.model-text")
            path_input.focus()
            await press(pilot, "enter")
            await step(pilot)
            assert (tmp_path / "ledger.model-text").read_bytes() == LEDGER.read_bytes()
    run(scenario())


# --- tokens -------------------------------------------------------------------------------


def test_token_table_fills_in_from_a_worker():
    async def scenario():
        async with opened(LEDGER, count_tokens=True) as (app, _pilot):
            table = app.query_one("#token-table", DataTable)
            assert table.row_count == 4
            from views import tokens

            json_row = table.get_row("json")
            expected = tokens.count_tokens((LEDGER_WIRES / "banking_ledger.graph.json").read_bytes())
            assert json_row[2] == f"{expected['cl100k_base']:,}" and json_row[3] == f"{expected['o200k_base']:,}"
            mt_row = table.get_row("model-text")
            mt = tokens.count_tokens(LEDGER.read_bytes())
            assert mt_row[2] == f"{mt['cl100k_base']:,}"
            assert table.get_row("binary")[2] == "bytes only"
            info = text_of(app, "#token-info")
            assert "tiktoken" in info and "cl100k_base vocabulary sha256:" in info
            view = app.query_one("#dict", DictionaryView)
            assert set(view.tokens_saved) == {"cl100k_base", "o200k_base"}
            assert len(view.tokens_saved["o200k_base"]) == len(app.loaded.entries)
    run(scenario())


def test_help_and_palette_open():
    async def scenario():
        async with opened(LEDGER, size=(100, 30)) as (app, pilot):
            await press(pilot, "question_mark")
            await step(pilot)
            assert app.screen.__class__.__name__ == "HelpScreen"
            await press(pilot, "escape")
            await step(pilot)
            assert app.screen.__class__.__name__ != "HelpScreen"
    run(scenario())


def test_loading_a_path_in_a_worker_and_reload(tmp_path):
    async def scenario():
        wire = tmp_path / "w.model-text"
        wire.write_bytes(LEDGER.read_bytes())
        app = InspectorApp(path=str(wire), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert app.loaded is not None and app.loaded.ok
            wire.write_bytes(LEDGER.read_bytes() + b"\n")
            await press(pilot, "ctrl+r")
            await settle(app, pilot)
            assert app.loaded.error.code == "compact.digest"
    run(scenario())


def test_produced_live_from_source():
    async def scenario():
        app = InspectorApp(path="banking_ledger.py", profile="graph", workspace=str(ROOT / "examples"),
                           count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert app.loaded.ok
            # today's view, as the example wire holds it (LEDGER is a fixed older copy)
            today = (WIRES / "banking_ledger.graph.model-text").read_bytes()
            assert app.loaded.projection == codec.decode_wire(today).projection
            assert "produced live" in text_of(app, "#summary")
    run(scenario())


def test_watch_reloads_when_the_file_changes(tmp_path):
    async def scenario():
        import os

        wire = tmp_path / "w.model-text"
        wire.write_bytes(LEDGER.read_bytes())
        app = InspectorApp(path=str(wire), watch=True, count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert app.loaded.ok
            app._check_file()  # remember the current modification time
            wire.write_bytes((REJECTED / "compact.digest.model-text").read_bytes())
            stat = wire.stat()
            os.utime(wire, (stat.st_atime + 5, stat.st_mtime + 5))
            app._check_file()
            await settle(app, pilot)
            assert app.loaded.error is not None and app.loaded.error.code == "compact.digest"
    run(scenario())


def test_escape_leaves_a_text_field_so_keys_work_again():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "v")
            app.query_one("#expect-root").focus()
            await press(pilot, "x", "escape", "d")
            await step(pilot)
            assert app.query_one("#expect-root").value == "x"
            assert app.tabbed.active == "dictionary"
    run(scenario())


# --- untrusted text ---------------------------------------------------------------------


@pytest.mark.parametrize("ch", ["\u202a", "\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\u2060", "\ufeff",
                                "\x00", "\x1b", "\x7f", "\x85", "\x9f", "\u2028"])
def test_visible_escapes_bidi_zero_width_and_controls(ch):
    from codec.visible import visible, visible_bytes

    shown = visible(f"a{ch}gnp.py")
    assert ch not in shown and shown.isprintable() and shown.endswith("gnp.py")
    assert visible_bytes(f"a{ch}b".encode()) == shown.replace("gnp.py", "b")
    assert visible_bytes(b"ok\xffx") == "ok\\xffx"


def test_a_root_with_a_bidi_override_is_shown_escaped():
    async def scenario():
        p = codec.CompactProjection("graph", "evil\u202egnp.py", "r1", b'{"a":1}')
        async with opened(load_bytes(codec.encode_model_text(p), "bidi")) as (app, _pilot):
            fields = app.query_one("#fields", DataTable)
            shown = str(fields.get_row("root")[2])
            assert shown == "evil\\u202egnp.py"
    run(scenario())


# --- workers hand results back for the model they were computed for -------------------


def test_counts_of_a_file_no_longer_loaded_are_dropped(monkeypatch):
    """Opening a second file while the first is still being counted must never
    show the first file's counts (or its per-entry savings) for the second."""
    import threading

    from inspector import counting

    first = load_path(str(LEDGER))
    second = load_path(str(WIRES / "http_app_routing.graph.model-text"))
    first_forms = {codec.ENCODERS[f](first.projection) for f in codec.ENCODERS}
    gate = threading.Event()
    real = counting.count_one

    def slow_for_the_first(data: bytes, name: str) -> int:
        if data in first_forms:
            gate.wait(30)
        return real(data, name)

    monkeypatch.setattr(counting, "count_one", slow_for_the_first)
    first_ended = threading.Event()  # the first file's counting has posted all it will post
    count_all = counting.count_all

    def watched(loaded, *args, **kwargs):
        try:
            yield from count_all(loaded, *args, **kwargs)
        finally:
            if loaded is first:
                first_ended.set()

    monkeypatch.setattr(counting, "count_all", watched)

    async def scenario():
        app = InspectorApp(first, count_tokens=True)
        async with app.run_test(size=SIZE) as pilot:
            await step(pilot)
            app.loaded = second  # the first is still being counted
            await pilotkit.until(pilot, lambda: app.counts is not None and app.counts.done, what="the counts")
            gate.set()  # now the first file's counts arrive, late
            await pilotkit.until(pilot, first_ended.is_set, what="the first file's counting to end")
            await settle(app, pilot)
            assert app.counts.source is second
            table = app.query_one("#token-table", DataTable)
            expected = counting.count_bytes(codec.ENCODERS["json"](second.projection))
            assert table.get_row("json")[2] == f"{expected['cl100k_base']:,}"
            view = app.query_one("#dict", DictionaryView)
            assert len(view.tokens_saved["cl100k_base"]) == len(second.entries)
    run(scenario())


def test_a_reading_layout_for_a_file_no_longer_loaded_is_dropped(monkeypatch):
    import threading

    from inspector.panes import body as body_module

    doc = b'{"rows":[' + b",".join(b'"row %07d of a body over one MiB"' % i for i in range(40_000)) + b"]}"
    big = load_bytes(codec.encode_model_text(codec.CompactProjection("graph", "big.py", "r", doc)), "big")
    assert len(big.body) > body_module.BIG
    small = load_path(str(LEDGER))
    gate = threading.Event()
    real = body_module.reading_layout

    def slow(data, *args):
        gate.wait(30)
        return real(data, *args)

    monkeypatch.setattr(body_module, "reading_layout", slow)

    async def scenario():
        app = InspectorApp(big, count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await step(pilot)
            await press(pilot, "b", "m")  # the reading layout of the big body starts in a worker
            await step(pilot)
            app.loaded = small
            await step(pilot)
            gate.set()
            await settle(app, pilot)
            compact = app.query_one("#compact", LineView)
            assert compact.data == small.body and compact.layout_mode == "wrap"
            assert compact.lines.ends[-1] == len(small.body)
    run(scenario())


# --- the first screen -------------------------------------------------------------------


def test_first_screen_of_a_valid_wire_sells_it():
    async def scenario():
        from dataclasses import replace

        from views import tokens

        async with opened(LEDGER, count_tokens=True, size=(160, 48)) as (app, pilot):
            assert app.focused is not None and app.tabbed.active == "overview"
            assert "VALID" in text_of(app, "#badge") and "v2 model-text" in text_of(app, "#badge")
            savings = text_of(app, "#savings")
            json_counts = tokens.count_tokens((LEDGER_WIRES / "banking_ledger.graph.json").read_bytes())
            mt_counts = tokens.count_tokens(LEDGER.read_bytes())
            assert f"{json_counts['cl100k_base']:,}" in savings
            delta = mt_counts["cl100k_base"] - json_counts["cl100k_base"]
            assert f"{delta:+,} ({delta * 100 / json_counts['cl100k_base']:+.1f}%)" in savings
            assert "★" in savings and "counting…" not in savings
            checklist = text_of(app, "#checklist")
            for step in ("envelope", "dictionary", "references", "digest", "normalised", "re-encoded"):
                assert f"✓{step}" in checklist
            entries = text_of(app, "#entries")
            saved = app.counts.saved["cl100k_base"]
            assert f"@{saved.index(max(saved))} " in entries.split("worst")[0]
            assert f"@{saved.index(min(saved))} " in entries.split("worst")[1]
            # an entry that costs tokens is shown with its negative figure, never clamped at 0
            costly = [-3] + [1] * (len(saved) - 1)
            app.counts = replace(app.counts, saved={"cl100k_base": costly, "o200k_base": costly})
            await pilotkit.step(pilot)
            assert "@0 " in text_of(app, "#entries").split("worst")[1] and "-3" in text_of(app, "#entries")
            fields = app.query_one("#fields", DataTable)
            assert fields.row_count == 4
    run(scenario())


def test_savings_cells_say_counting_until_counted_and_not_counted_when_off():
    async def scenario():
        async with opened(LEDGER, count_tokens=False) as (app, pilot):
            assert "not counted" in text_of(app, "#savings") and "counting…" not in text_of(app, "#savings")
            view = app.query_one("#dict", DictionaryView)
            assert view.row_text(0, 100).endswith(" -") and "…" not in view.row_text(0, 100)
            await press(pilot, "ctrl+t")
            await settle(app, pilot)
            assert "not counted" not in text_of(app, "#savings")
            saved = app.counts.saved["o200k_base"][0]
            assert view.row_text(0, 100).endswith(f" {saved:,}")
    run(scenario())


def test_tab_labels_carry_their_keys_and_the_footer_the_focused_panes():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            from textual.widgets import Tab

            labels = [str(t.label) for t in app.query(Tab)]
            assert labels == ["o Overview", "d Dictionary", "b Body", "x Bytes", "p Tree", "v Verify", "t Tokens"]

            def footer_keys() -> set[str]:
                return {b.binding.key for b in app.screen.active_bindings.values() if b.binding.show}

            assert "m" not in footer_keys()
            await press(pilot, "b")
            await step(pilot)
            assert {"m", "s", "slash"} <= footer_keys()
            await press(pilot, "d")
            await step(pilot)
            assert "m" not in footer_keys() and "enter" in footer_keys()
            app.query_one("#dict-filter").focus()
            await step(pilot)
            shown = {b.binding.key: b.binding.description for b in app.screen.active_bindings.values()
                     if b.binding.show}
            assert shown.get("escape") == "Leave field (Esc)"
            await press(pilot, "r", "e", "escape")
            await step(pilot)
            assert app.query_one("#dict-filter").value == "re"
            assert isinstance(app.focused, DictionaryView)
    run(scenario())


def test_palette_lists_every_command_with_its_key_on_an_empty_query():
    async def scenario():
        from textual.command import CommandList

        from inspector.actions import COMMANDS

        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "ctrl+p")
            await pilotkit.until(pilot, lambda: app.screen.query(CommandList)
                                 and app.screen.query_one(CommandList).option_count >= len(COMMANDS),
                                 what="the palette's commands")
            options = app.screen.query_one(CommandList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            for command in COMMANDS:
                assert any(f"{command.title}  [{command.keys_label}]" in p for p in prompts), command.title
    run(scenario())


def test_help_lists_every_command():
    from inspector.actions import COMMANDS, help_markdown

    text = help_markdown()
    for command in COMMANDS:
        assert f"| `{command.keys_label}` | {command.title} |" in text


# --- rejected payloads ------------------------------------------------------------------------


def _problems_of(wire: bytes) -> list[str]:
    from inspector.model import problems

    return [p.text for p in problems(load_bytes(wire, "w"))]


def test_hints_name_the_likely_cause():
    wire = LEDGER.read_bytes()
    assert any("ends with an LF at byte" in t for t in _problems_of(wire + b"\n"))
    assert any(t.startswith("CRLF line ending at byte 21") for t in _problems_of(wire.replace(b"\n", b"\r\n")))
    inside_last_string = wire.rindex(b'"') - 2  # a few bytes into the body's last string literal
    assert any("ends inside a string" in t for t in _problems_of(wire[:inside_last_string]))
    assert any("open: the wire looks truncated" in t for t in _problems_of(wire[:-2]))
    assert any(t == "invalid UTF-8 at byte 300" for t in _problems_of(wire[:300] + b"\xff" + wire[301:]))
    long_root = wire.replace(b"root 17 ", b"root 5000 ", 1)
    assert any(t.startswith("the root's length says 5,000 but an LF follows at byte 65") for t in _problems_of(long_root))
    assert _problems_of(b"")[-1] == "not a wire: the file is empty"
    assert _problems_of(b"\x00\x01garbage")[-1] == "not a wire: it has no known header and is not JSON"
    assert load_bytes(b"\x00\x01garbage", "junk").title == "not a wire"
    assert _problems_of(wire) == []


def test_rejected_first_screen_keeps_what_parsed_and_jumps_from_its_problems():
    async def scenario():
        wire = LEDGER.read_bytes().replace(b"root 17 ", b"root 5000 ", 1)
        async with opened(load_bytes(wire, "long root")) as (app, pilot):
            from textual.widgets import OptionList

            assert "REJECTED compact.limit" in text_of(app, "#badge")
            fields = app.query_one("#fields", DataTable)
            assert fields.get_row("profile")[2].plain == "graph"
            root = fields.get_row("root")
            assert root[1].plain == "5,000 declared" and "17 bytes but an LF at byte 65" in root[2].plain
            assert "✗envelope" in text_of(app, "#checklist") and "·dictionary" in text_of(app, "#checklist")
            problems_list = app.query_one("#problems", OptionList)
            assert app.focused is problems_list and problems_list.option_count == 2
            await press(pilot, "down", "enter")
            await step(pilot)
            assert app.tabbed.active == "bytes"
            assert app.bytes_pane.hex.cursor_offset == 65
    run(scenario())


def test_dictionary_tab_says_why_there_is_none_truthfully():
    async def scenario():
        doc = b'{"rows":[' + b",".join(b'"unique literal number %06d"' % i for i in range(1200)) + b"]}"
        assert len(doc) > 16_384
        wire = codec.encode_model_text(codec.CompactProjection("graph", "w.py", "r", doc))
        async with opened(load_bytes(wire, "no dict")) as (app, _pilot):
            detail = text_of(app, "#dict-detail")
            assert "under" not in detail
            assert f"{len(doc):,}-byte document" in detail and "occurs 2 times or more" in detail
        small = load_bytes(codec.encode_model_text(codec.CompactProjection("graph", "w.py", "r", b"[1]")), "s")
        async with opened(small) as (app, _pilot):
            assert "3 bytes, under the 16,384 bytes" in text_of(app, "#dict-detail")
    run(scenario())


def test_tokens_of_a_rejected_wire_count_it_as_given_and_say_why():
    async def scenario():
        from views import tokens

        wire = (REJECTED / "compact.digest.model-text").read_bytes()
        async with opened(load_bytes(wire, "digest"), count_tokens=True) as (app, _pilot):
            table = app.query_one("#token-table", DataTable)
            assert table.row_count == 1
            row = table.get_row("given")
            assert row[0] == "the wire as given" and row[2] == f"{tokens.count_tokens(wire)['cl100k_base']:,}"
            info = text_of(app, "#token-info")
            assert "only the wire as given is counted" in info and "compact.digest" in info
    run(scenario())


# --- the byte view ------------------------------------------------------------------------


def test_byte_view_has_a_byte_cursor_that_names_the_exact_part():
    async def scenario():
        async with opened(LEDGER, size=(160, 48)) as (app, pilot):
            loaded = app.loaded
            n = len(loaded.entry_spans) // 2 + 1  # an entry in the middle, its predecessor before it
            span = loaded.entry_spans[n]
            await press(pilot, "g")
            await step(pilot)
            await press(pilot, *str(span.start), "enter")
            await step(pilot)
            assert app.tabbed.active == "bytes"
            hexview = app.bytes_pane.hex
            assert hexview.cursor_offset == span.start
            assert f"entry {n} (@{n})" in text_of(app, "#hex-status")
            await press(pilot, "left")
            await step(pilot)
            assert hexview.cursor_offset == span.start - 1
            assert f"entry {n - 1} (@{n - 1})" in text_of(app, "#hex-status")  # the LF ending entry n - 1
            await press(pilot, "right", "right")
            await step(pilot)
            assert hexview.cursor_offset == span.start + 1
            await press(pilot, "down")
            await step(pilot)
            assert hexview.cursor_offset == span.start + 1 + hexview.row_bytes
            assert hexview.row_bytes == 32  # a wide terminal shows more bytes a row
    run(scenario())


def test_jump_to_the_diagnostic_lands_on_its_byte_in_the_byte_view():
    async def scenario():
        wire = LEDGER.read_bytes()
        broken = wire[:300] + b"\xff" + wire[301:]
        async with opened(load_bytes(broken, "broken")) as (app, pilot):
            await press(pilot, "exclamation_mark")
            await step(pilot)
            assert app.tabbed.active == "bytes"
            assert app.bytes_pane.hex.cursor_offset == 300 == app.loaded.error.offset
            assert "the diagnostic's byte (compact.dictionary)" in text_of(app, "#hex-status")
    run(scenario())


def _luminance(colour) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = colour.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def test_byte_view_colours_have_contrast_and_adjacent_entries_alternate():
    async def scenario():
        from rich.color import Color

        from inspector.views.hexview import ERROR_BACKGROUND, PALETTE

        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "x")
            await step(pilot)
            hexview = app.bytes_pane.hex
            background = _luminance(hexview.rich_style.bgcolor)
            for kind, (_label, colour, _bold) in PALETTE.items():
                back = _luminance(Color.parse(ERROR_BACKGROUND)) if kind == "error" else background
                fore = _luminance(Color.parse(colour))
                ratio = (max(fore, back) + 0.05) / (min(fore, back) + 0.05)
                assert ratio >= 4.5, (kind, ratio)
            spans = app.loaded.entry_spans
            kinds = [hexview._kind_at(spans[i].start) for i in range(4)]
            assert kinds == ["entry", "entry-alt", "entry", "entry-alt"]
            assert "dictionary entry" in text_of(app, "#hex-legend")
    run(scenario())


# --- fixes found by trying it -------------------------------------------------------------


def _visible_line(view: LineView, line: int) -> bool:
    top = int(view.scroll_offset.y)
    return top <= line < top + view.scrollable_content_region.height


def test_goto_into_a_body_not_yet_shown_scrolls_both_panes_and_the_status():
    async def scenario():
        async with opened(WIRES / "http_app_routing.graph.model-text") as (app, pilot):
            loaded = app.loaded
            target = loaded.body_start + len(loaded.body) * 3 // 4
            await press(pilot, "g")
            await step(pilot)
            await press(pilot, *str(target), "enter")
            await step(pilot)
            await step(pilot)
            compact, expanded = app.body.compact, app.body.expanded
            rel = target - loaded.body_start
            assert compact.cursor_line == compact.lines.line_of(rel) and _visible_line(compact, compact.cursor_line)
            assert expanded.cursor_line == expanded.lines.line_of(loaded.body_to_doc(rel))
            assert _visible_line(expanded, expanded.cursor_line)
            assert f"compact byte {rel:,}" in text_of(app, "#body-status")
    run(scenario())


def test_search_and_the_diagnostic_jump_move_both_panes():
    async def scenario():
        async with opened(WIRES / "http_app_routing.graph.model-text") as (app, pilot):
            await press(pilot, "b", "slash")
            await step(pilot)
            await press(pilot, *"NotFound", "enter")
            await step(pilot)
            await press(pilot, "n")
            await step(pilot)
            compact, expanded = app.body.compact, app.body.expanded
            hit = app.body.search.current
            assert compact.cursor_offset == hit
            assert expanded.cursor_line == expanded.lines.line_of(app.loaded.body_to_doc(hit))
            assert f"compact byte {hit:,}" in text_of(app, "#body-status")
        wire = (REJECTED / "compact.reference.model-text").read_bytes()
        async with opened(load_bytes(wire, "rejected")) as (app, pilot):
            await press(pilot, "exclamation_mark")
            await step(pilot)
            rel = app.loaded.error.offset - app.loaded.body_start
            assert app.body.compact.cursor_offset == rel
            assert _visible_line(app.body.compact, app.body.compact.cursor_line)
    run(scenario())


def test_reading_view_twice_drops_no_byte():
    async def scenario():
        async with opened(WIRES / "http_app_routing.graph.model-text") as (app, pilot):
            await press(pilot, "b", "m")
            await step(pilot)
            for view in (app.body.compact, app.body.expanded):
                view.scroll_to(x=3, animate=False)  # a long indented line scrolled into view
            await step(pilot)
            await press(pilot, "m")
            await step(pilot)
            await step(pilot)
            for view in (app.body.compact, app.body.expanded):
                assert view.scroll_offset.x == 0
                width = view.scrollable_content_region.width
                assert view.layout_mode == "wrap"
                assert max(e - s for s, e in zip(view.lines.starts, view.lines.ends)) <= width
    run(scenario())


def test_enter_on_a_dictionary_row_steps_through_its_uses():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            index = next(i for i, n in enumerate(app.loaded.reference_counts) if n >= 3)
            await press(pilot, "d")
            app.dictionary.select(index)
            await pilotkit.step(pilot)
            uses = app.loaded.references_of(index)
            for step in range(3):
                await press(pilot, "enter")
                await pilotkit.step(pilot)
                assert app.tabbed.active == "body"
                rel = app.loaded.ref_wire[uses[step]] - app.loaded.body_start
                assert app.body.compact.focus_marks[0].start == rel
                assert f"use {step + 1} of {len(uses)} of @{index}" in text_of(app, "#body-status")
                await press(pilot, "d")
                await pilotkit.step(pilot)
                assert app.dictionary.view.current_index == index
    run(scenario())


def test_enter_in_the_body_follows_the_reference_under_the_cursor():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            await press(pilot, "b")
            compact = app.body.compact
            # a line with two references of different entries: go to the second
            for k in range(1, len(loaded.ref_wire)):
                a, b = loaded.ref_wire[k - 1] - loaded.body_start, loaded.ref_wire[k] - loaded.body_start
                if compact.lines.line_of(a) == compact.lines.line_of(b) and loaded.ref_index[k - 1] != loaded.ref_index[k]:
                    break
            compact.go_to_offset(b + 1)  # on the digits of the second
            await step(pilot)
            assert compact.cursor_offset == b + 1
            await press(pilot, "enter")
            await step(pilot)
            assert app.tabbed.active == "dictionary"
            assert app.dictionary.view.current_index == loaded.ref_index[k]
            await press(pilot, "b")
            await step(pilot)
            compact.go_to_offset(b)
            await press(pilot, "left")
            await step(pilot)
            assert compact.cursor_offset == b - 1
    run(scenario())


def test_body_panes_stay_aligned_at_80x24():
    async def scenario():
        async with opened(LEDGER, size=(80, 24)) as (app, pilot):
            await press(pilot, "b")
            await step(pilot)
            compact, expanded = app.body.compact, app.body.expanded
            assert compact.region.y == expanded.region.y
            assert compact.region.height == expanded.region.height
    run(scenario())


# --- a large wire paints its envelope first --------------------------------------------------


def _big_wire() -> bytes:
    doc = b'{"rows":[' + b",".join(b'["module.Function%05d","calls","module.Target%03d"]' % (i, i % 400)
                                  for i in range(30_000)) + b"]}"
    return codec.encode_model_text(codec.CompactProjection("graph", "big.py", "r", doc))


def test_a_preview_reads_the_envelope_the_decoder_reads():
    from inspector.model import PREVIEW_FROM, preview_bytes

    wire = _big_wire()
    assert len(wire) >= PREVIEW_FROM
    preview = preview_bytes(wire, "big")
    full = load_bytes(wire, "big")
    assert preview.pending and not full.pending
    assert preview.fields == full.fields and preview.body_start == full.body_start
    assert preview.declared_entries == len(full.entries) > 0
    assert preview_bytes(wire[:30], "cut") is None


def test_the_first_paint_preview_reads_the_header_and_metadata_only():
    from inspector.model import preview_bytes

    wire = _big_wire()
    preview = preview_bytes(wire, "big", through="envelope")
    full = load_bytes(wire, "big")
    assert preview.pending and preview.fields == full.fields and preview.metadata == full.metadata
    assert preview.declared_entries is None and preview.body_start is None and not preview.entries


def test_each_dictionary_entry_is_its_own_region_with_its_lf():
    loaded = load_bytes(_big_wire(), "big")
    for i in (0, 1, len(loaded.entry_spans) - 1):
        span = loaded.entry_spans[i]
        for at in (span.start, span.end - 1, span.end):  # the literal's first and last byte, then its LF
            region = loaded.region_at(at)
            assert (region.kind, region.index, region.start, region.end) == ("entry", i, span.start, span.end + 1)
    assert loaded.region_at(loaded.dict_span.start).kind == "dict"
    assert loaded.region_at(loaded.marker_span.start).kind == "marker"


def test_a_preview_says_only_what_is_known_and_the_full_model_follows(tmp_path):
    async def scenario():
        from inspector.model import preview_bytes

        wire = _big_wire()
        app = InspectorApp(preview_bytes(wire, "big"), count_tokens=True)
        async with app.run_test(size=SIZE) as pilot:
            await step(pilot)
            assert "CHECKING" in text_of(app, "#badge") and "VALID" not in text_of(app, "#badge")
            assert "decoding and verifying" in text_of(app, "#checklist")
            assert "status: not yet known" in text_of(app, "#summary")  # a preview has not been verified
            assert "status: valid" not in text_of(app, "#summary")
            assert "decoding and verifying" in text_of(app, "#verify-result")
            assert str(app.query_one("#expanded-title").render()) == "expanded document: reconstructing…"
            assert "reading" in text_of(app, "#dict-detail")
            assert app.counts is None and not list(app.workers)  # nothing is counted from a preview
            path = tmp_path / "big.model-text"
            path.write_bytes(wire)
            app.load_file(str(path))
            await settle(app, pilot)
            await settle(app, pilot)
            assert not app.loaded.pending and app.loaded.ok
            assert "VALID" in text_of(app, "#badge")
            assert app.counts is not None and app.counts.source is app.loaded
    run(scenario())


def test_a_large_wire_is_counted_in_a_child_process(monkeypatch):
    """Large wires are counted in a child process (the interpreter lock stays
    free for the keys); the figures are those counted in the thread."""
    from inspector import counting

    monkeypatch.setattr(counting, "PROCESS_FROM", 0)

    async def scenario():
        async with opened(LEDGER, count_tokens=True) as (app, pilot):
            await pilotkit.until(pilot, lambda: app.counts is not None and app.counts.done, timeout=60,
                                 what="the counts")
            assert app.counts.done and app.counts.error is None
            monkeypatch.setattr(counting, "PROCESS_FROM", 1 << 40)
            local = list(counting.count_all(app.loaded))[-1]
            assert app.counts.tokens == local.tokens and app.counts.saved == local.saved
            assert app.counts.sizes == local.sizes
    run(scenario())
