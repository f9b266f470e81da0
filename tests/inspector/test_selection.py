"""The linked cursor: a move in one pane is one selection of wire bytes that
every other pane shows in its own terms (the byte, the body and document
cursors, the dictionary row)."""

from __future__ import annotations

from pilotkit import press, step
from test_inspector import LEDGER, opened, run, text_of

from inspector.model import load_path


def _reference(loaded, min_uses: int = 2) -> int:
    """A reference (its position in body order) to an entry used at least ``min_uses`` times."""
    return next(k for k, i in enumerate(loaded.ref_index) if loaded.reference_counts[i] >= min_uses and k > 3)


def test_model_spans_cover_a_whole_reference_and_its_literal():
    loaded = load_path(str(LEDGER)).prepare()
    k = _reference(loaded)
    i, at = loaded.ref_index[k], loaded.ref_wire[k]
    token = b"@%d" % i
    for byte in range(at, at + len(token)):
        start, end, doc = loaded.span_at(byte)
        assert loaded.wire[start:end] == token
        assert loaded.document[doc[0]:doc[1]] == loaded.entries[i]
        assert loaded.entry_at(byte) == i
    # a document byte inside the literal selects the same @N
    assert loaded.doc_span_at(loaded.ref_doc[k] + 1)[:2] == (at, at + len(token))
    # a body byte outside any reference is itself, at the same document byte
    plain = loaded.body_start + 1
    start, end, doc = loaded.span_at(plain)
    assert (start, end) == (plain, plain + 1)
    assert loaded.document[doc[0]:doc[1]] == loaded.wire[plain:plain + 1]
    # an entry's line belongs to that entry; the header to none
    assert loaded.entry_at(loaded.entry_spans[i].start) == i
    assert loaded.entry_at(0) is None


def test_body_cursor_moves_the_byte_cursor_and_the_dictionary_row():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            k = _reference(loaded)
            i, at = loaded.ref_index[k], loaded.ref_wire[k]
            await press(pilot, "b")
            compact = app.body.compact
            compact.go_to_offset(at - loaded.body_start - 1)  # just before the @N
            await press(pilot, "right")
            await step(pilot)
            selection = app.selection
            assert (selection.start, selection.end, selection.origin) == (at, at + len(b"@%d" % i), "body")
            assert app.bytes_pane.hex.cursor_offset == at
            assert app.bytes_pane.hex.selected == (selection.start, selection.end)
            assert app.dictionary.view.current_index == i
            assert app.dictionary.selected_entry == i
            assert f"reference @{i}" in text_of(app, "#hex-status")
            # the document pane's cursor is on the literal the @N stands for
            assert app.body.expanded.cursor_offset == loaded.ref_doc[k]
    run(scenario())


def test_byte_cursor_moves_both_body_panes():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            k = _reference(loaded)
            at = loaded.ref_wire[k]
            await press(pilot, "x")
            hexview = app.bytes_pane.hex
            hexview.go_to_offset(at + len(b"@%d" % loaded.ref_index[k]) - 1)
            await press(pilot, "right")  # the byte after the @N: plain body
            await step(pilot)
            after = at + len(b"@%d" % loaded.ref_index[k])
            assert app.selection.origin == "bytes" and app.selection.cursor == after
            assert app.body.compact.cursor_offset == after - loaded.body_start
            assert app.body.expanded.cursor_offset == loaded.body_to_doc(after - loaded.body_start)
            assert loaded.document[app.body.expanded.cursor_offset] == loaded.wire[after]
    run(scenario())


def test_dictionary_row_moves_the_byte_cursor_to_its_line_and_back_from_bytes():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            await press(pilot, "d")
            view = app.dictionary.view
            first = view.current_index
            await press(pilot, "down")
            await step(pilot)
            index = view.current_index
            assert index != first
            span = loaded.entry_spans[index]
            assert (app.selection.start, app.selection.end) == (span.start, span.end + 1)
            assert app.bytes_pane.hex.cursor_offset == span.start
            # a byte of another entry's line, chosen in the byte view, selects that row
            other = loaded.entry_spans[first]
            await press(pilot, "x")
            app.bytes_pane.hex.go_to_offset(other.start + 1)
            await press(pilot, "left")
            await step(pilot)
            assert app.dictionary.view.current_index == first
    run(scenario())


def test_a_selection_of_a_model_no_longer_loaded_is_dropped():
    async def scenario():
        from inspector.messages import Selected, Selection

        async with opened(LEDGER) as (app, pilot):
            old = app.loaded
            app.loaded = load_path(str(LEDGER)).prepare()
            await step(pilot)
            app.post_message(Selected(Selection(old, 10, 11, "bytes")))
            await step(pilot)
            assert app.selection is None
    run(scenario())
