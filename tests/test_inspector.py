"""The inspector driven as a person would, through Textual's Pilot: loading each
form, a rejected wire, stepping through an entry's uses, synchronized panes,
verify, export, search, history and the token table."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

import codec
from inspector.app import InspectorApp
from inspector.model import load_bytes, load_path
from inspector.views.dictionary import DictionaryView
from inspector.views.hexview import HexView
from inspector.views.lines import LineView, reading_layout, wrapped_layout

ROOT = Path(__file__).resolve().parent.parent
WIRES = ROOT / "examples" / "wires"
REJECTED = ROOT / "examples" / "rejected"
LEDGER = WIRES / "banking_ledger.graph.model-text"
SIZE = (120, 36)


def run(coro):
    return asyncio.run(coro)


async def settle(app, pilot):
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


@asynccontextmanager
async def opened(source, *, count_tokens: bool = False, size=SIZE):
    """The app on a wire (a path, or an already loaded model), settled."""
    loaded = load_path(str(source)) if isinstance(source, Path) else source
    app = InspectorApp(loaded, count_tokens=count_tokens)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        yield app, pilot


def text_of(app, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


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
        async with opened(WIRES / f"banking_ledger.graph.{form}") as (app, _pilot):
            summary = text_of(app, "#summary")
            assert f"form: {title}" in summary
            assert "status: valid" in summary
            fields = app.query_one("#fields", DataTable)
            assert fields.row_count == (0 if form == "json" else 4)
            expanded = app.query_one("#expanded", LineView)
            assert expanded.data == (WIRES / "banking_ledger.graph.json").read_bytes()
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
            await pilot.press("exclamation_mark")
            await pilot.pause()
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
            await pilot.press("d", "down", "down")
            view = app.query_one("#dict", DictionaryView)
            index = view.current_index
            assert index == 2
            uses = app.loaded.references_of(index)
            await pilot.press("enter")
            await pilot.pause()
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
                await pilot.press("right_square_bracket")
                await pilot.pause()
            await pilot.press("left_square_bracket", "left_square_bracket")
            await pilot.pause()
            assert compact.focus_marks[0].start == app.loaded.ref_wire[uses[-1]] - app.loaded.body_start
    run(scenario())


def test_enter_on_a_reference_follows_it_and_back_returns():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await pilot.press("b")
            compact = app.query_one("#compact", LineView)
            first = app.loaded.ref_wire[0] - app.loaded.body_start
            compact.go_to_offset(first)
            await pilot.press("enter")
            await pilot.pause()
            assert app.tabbed.active == "dictionary"
            assert app.query_one("#dict", DictionaryView).current_index == app.loaded.ref_index[0]
            await pilot.press("less_than_sign")
            await pilot.pause()
            assert app.tabbed.active == "body"
            assert compact.cursor_line == compact.lines.line_of(first)
            await pilot.press("greater_than_sign")
            await pilot.pause()
            assert app.tabbed.active == "dictionary"
    run(scenario())


def test_dictionary_sorts_and_filters():
    async def scenario():
        async with opened(WIRES / "http_app_routing.graph.model-text") as (app, pilot):
            await pilot.press("d")
            view = app.query_one("#dict", DictionaryView)
            await pilot.press("4")  # refs, biggest first
            counts = [app.loaded.reference_counts[i] for i in view.order]
            assert counts == sorted(counts, reverse=True)
            await pilot.press("4")
            counts = [app.loaded.reference_counts[i] for i in view.order]
            assert counts == sorted(counts)
            app.query_one("#dict-filter").focus()
            await pilot.press(*"Request")
            await pilot.pause()
            assert view.order and all(b"request" in app.loaded.entries[i].lower() for i in view.order)
            assert len(view.order) < len(app.loaded.entries)
    run(scenario())


def test_panes_scroll_together():
    async def scenario():
        async with opened(WIRES / "http_app_routing.graph.model-text") as (app, pilot):
            await pilot.press("b")
            compact = app.query_one("#compact", LineView)
            expanded = app.query_one("#expanded", LineView)
            for _ in range(3):
                await pilot.press("pagedown")
            await pilot.pause()
            mapped = app.loaded.body_to_doc(compact.cursor_offset)
            assert expanded.cursor_line == expanded.lines.line_of(mapped)
            assert expanded.scroll_offset.y > 0
            expanded.focus()
            await pilot.press("down", "down", "down")
            await pilot.pause()
            assert compact.cursor_line == compact.lines.line_of(app.loaded.doc_to_body(expanded.cursor_offset))
            await pilot.press("m")  # reading view keeps the same place
            await pilot.pause()
            assert expanded.layout_mode == "reading" and len(expanded.lines) > 100
    run(scenario())


def test_search_and_goto():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await pilot.press("b", "slash")
            await pilot.pause()
            await pilot.press(*"function", "enter")
            await pilot.pause()
            compact = app.query_one("#compact", LineView)
            expected = [i for i in range(len(compact.data)) if compact.data.startswith(b"function", i)]
            assert app.body.search.matches == expected
            assert compact.focus_marks[0].start == expected[0]
            await pilot.press("n")
            await pilot.pause()
            assert compact.focus_marks[0].start == expected[1]
            await pilot.press("g")
            await pilot.pause()
            await pilot.press(*"0x10", "enter")
            await pilot.pause()
            assert app.tabbed.active == "bytes"
            assert app.query_one("#hex", HexView).cursor_row == 1
            assert "field profile" not in text_of(app, "#hex-status")  # offset 16 is in the header
    run(scenario())


# --- verify and export ----------------------------------------------------------------------


def test_verify_with_and_without_expectations():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await pilot.press("v")
            app.action_verify()
            await pilot.pause()
            assert "PASS" in text_of(app, "#verify-result")
            app.query_one("#expect-root").value = "other.py"
            await pilot.click("#run-verify")
            await pilot.pause()
            result = text_of(app, "#verify-result")
            assert "FAIL" in result and "compact.binding" in result and "'other.py'" in result
            app.query_one("#expect-root").value = "banking_ledger.py"
            app.query_one("#expect-profile").value = "graph"
            app.action_verify()
            await pilot.pause()
            assert "PASS" in text_of(app, "#verify-result")
    run(scenario())


def test_verify_noncanonical_shows_the_canonical_reencoding():
    async def scenario():
        async with opened(REJECTED / "compact.noncanonical.model-text") as (app, pilot):
            app.action_verify()
            await pilot.pause()
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
            await pilot.pause()
            assert target.read_bytes() == (WIRES / "banking_ledger.graph.text").read_bytes()
            target.write_bytes(b"keep me")
            app._export_chosen(("binary", str(target)))
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            assert target.read_bytes() == b"keep me"
            app._export_chosen(("binary", str(target)))
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
            assert target.read_bytes() == (WIRES / "banking_ledger.graph.binary").read_bytes()
    run(scenario())


def test_export_dialog_from_the_key(tmp_path):
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await pilot.press("ctrl+e")
            await pilot.pause()
            path_input = app.screen.query_one("#export-path")
            path_input.value = str(tmp_path / "ledger.model-text")
            path_input.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert (tmp_path / "ledger.model-text").read_bytes() == LEDGER.read_bytes()
    run(scenario())


# --- tokens -------------------------------------------------------------------------------


def test_token_table_fills_in_from_a_worker():
    async def scenario():
        async with opened(LEDGER, count_tokens=True) as (app, _pilot):
            table = app.query_one("#token-table", DataTable)
            assert table.row_count == 4
            from workspace import tokens

            json_row = table.get_row("json")
            expected = tokens.count_tokens((WIRES / "banking_ledger.graph.json").read_bytes())
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
            await pilot.press("question_mark")
            await pilot.pause()
            assert app.screen.__class__.__name__ == "HelpScreen"
            await pilot.press("escape")
            await pilot.pause()
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
            await pilot.press("ctrl+r")
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
            assert app.loaded.projection == codec.decode_wire(LEDGER.read_bytes()).projection
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
            await pilot.press("v")
            app.query_one("#expect-root").focus()
            await pilot.press("x", "escape", "d")
            await pilot.pause()
            assert app.query_one("#expect-root").value == "x"
            assert app.tabbed.active == "dictionary"
    run(scenario())


# --- untrusted text ---------------------------------------------------------------------


@pytest.mark.parametrize("ch", ["\u202a", "\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\u2060", "\ufeff",
                                "\x00", "\x1b", "\x7f", "\x85", "\x9f", "\u2028"])
def test_visible_escapes_bidi_zero_width_and_controls(ch):
    from workspace.visible import visible, visible_bytes

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
    real = counting.count_bytes

    def slow_for_the_first(data: bytes) -> dict[str, int]:
        if data in first_forms:
            gate.wait(30)
        return real(data)

    monkeypatch.setattr(counting, "count_bytes", slow_for_the_first)

    async def scenario():
        app = InspectorApp(first, count_tokens=True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.loaded = second  # the first is still being counted
            for _ in range(200):
                await pilot.pause(0.05)
                if app.counts is not None and app.counts.done:
                    break
            gate.set()  # now the first file's counts arrive, late
            await settle(app, pilot)
            await pilot.pause(0.2)
            assert app.counts.source is second
            table = app.query_one("#token-table", DataTable)
            expected = real(codec.ENCODERS["json"](second.projection))
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
            await pilot.pause()
            await pilot.press("b", "m")  # the reading layout of the big body starts in a worker
            await pilot.pause()
            app.loaded = small
            await pilot.pause()
            gate.set()
            await settle(app, pilot)
            compact = app.query_one("#compact", LineView)
            assert compact.data == small.body and compact.layout_mode == "wrap"
            assert compact.lines.ends[-1] == len(small.body)
    run(scenario())
