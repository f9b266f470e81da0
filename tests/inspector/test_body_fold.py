"""Folding in the expanded document, ``%``, the cursor's path (``y``), ``c`` copying
the whole JSON value and "why is this inline?" (``i``): the pure functions
(inspector/structure.py, inspector/inline.py, views/lines.py fold_layout) and the
body pane driven by Pilot."""

from __future__ import annotations

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st
from pilotkit import press, step
from test_inspector import opened, run, settle, text_of

import codec
from codec import limits
from codec.layout import json_values
from inspector.app import InspectorApp
from inspector.inline import explain_literal, literal_rule
from inspector.model import load_bytes
from inspector.structure import Structure
from inspector.views.lines import Fold, Layout, fold_layout, reading_layout, wrapped_layout

PAD = "p" * 16_500
ENTRY = "alpha.beta.gamma.delta"  # 24 bytes quoted, used twice: a dictionary entry
ONCE = "once.only.literal.here"  # 24 bytes quoted, used once
VALUE = {"defs": {"rows": [[ENTRY, "kind", 1], [ENTRY, "x", [2, 3]], [ONCE, {}, []]]}, "pad": PAD}
DOC = codec.canonical_json(VALUE)


def _wire(value=VALUE, form: str = "model-text") -> bytes:
    p = codec.CompactProjection("graph", "t.py", "sha256:" + "0" * 64, codec.canonical_json(value))
    return codec.ENCODERS[form](p)


def _loaded(value=VALUE, form: str = "model-text"):
    return load_bytes(_wire(value, form), f"test.{form}").prepare()


def _structure(doc: bytes) -> Structure:
    return Structure(doc, json_values(doc))


def _text(view, line: int) -> str:
    return "".join(segment.text for segment in view._render_full_line(line))


def _messages(app) -> list[str]:
    return [n.message for n in app._notifications]


# --- the structure of a document, without a UI --------------------------------------------


def test_paths_name_every_place_as_jq_does():
    s = _structure(DOC)
    assert s.path(DOC.index(b'"rows"')) == ".defs.rows"  # a key names its member
    assert s.path(DOC.index(b'"kind"') + 2) == ".defs.rows[0][1]"
    assert s.path(DOC.index(b"[2,3]") + 3) == ".defs.rows[1][2][1]"
    assert s.path(DOC.index(b"[2,3]")) == ".defs.rows[1][2]"
    assert s.path(0) == "."
    odd = b'{"a b":[{"\\u0001":[7]}]}'
    assert _structure(odd).path(odd.index(b"7")) == '.["a b"][0]["\\u0001"][0]'
    assert _structure(b"[[1],[2,3]]").path(8) == ".[1][1]"


def test_matching_bracket_both_ways_and_off_a_bracket():
    s = _structure(DOC)
    rows = DOC.index(b"[[")
    close = s.matching_bracket(rows)
    assert DOC[close:close + 1] == b"]" and s.matching_bracket(close) == rows
    assert DOC[rows:close + 1] == codec.canonical_json(VALUE["defs"]["rows"])
    # off a bracket: the opening bracket of the innermost container holding the byte
    assert s.matching_bracket(DOC.index(b'"x"')) == DOC.index(b'"x"') - len(ENTRY) - 4
    # a bracket inside a string is not a bracket
    t = b'["{",[1]]'
    assert _structure(t).matching_bracket(2) == 0


def test_summaries_count_keys_items_and_bytes():
    s = _structure(DOC)
    assert s.summary(0) == f"2 keys, {len(DOC):,} bytes"
    rows = s.container_at(DOC.index(b'"rows"'))
    assert s.summary(rows) == f"3 items, {len(codec.canonical_json(VALUE['defs']['rows'])):,} bytes"
    assert s.summary(s.container_at(DOC.index(b"[2,3]") + 1)) == "2 items, 5 bytes"
    assert s.children(s.container_at(DOC.index(b"{}"))) == 0


def test_a_whole_token_is_counted_not_bytes_inside_a_longer_string():
    doc = b'["abcdefghijklmnop","x\\"abcdefghijklmnop",{"abcdefghijklmnop":1}]'
    s = _structure(doc)
    assert doc.count(b'"abcdefghijklmnop"') == 3
    assert s.occurrences(b'"abcdefghijklmnop"', 10) == 2  # the value and the key, not the escaped one
    assert s.occurrences(b'"abcdefghijklmnop"', 1) == 1


def test_fold_layout_reading_view_one_line_per_fold_and_outermost_wins():
    base = reading_layout(DOC)
    s = _structure(DOC)
    rows = s.container_at(DOC.index(b'"rows"'))
    inner = s.container_at(DOC.index(b"[2,3]") + 1)
    start, end = s.span(rows)
    folded = fold_layout(base, [Fold(start, end, "rows"), Fold(*s.span(inner), "inner")], split=False)
    a, b = base.line_of(start), base.line_of(end - 1)
    assert len(folded) == len(base) - (b - a)
    assert folded.folds == (Fold(start, end, "rows"),)  # the inner fold is inside the outer one
    line = folded.fold_lines[0]
    assert (folded.starts[line], folded.ends[line]) == (base.starts[a], base.ends[b])
    assert folded.line_of(start + 5) == line  # a hidden byte belongs to its fold line
    assert folded.starts[line + 1] == base.starts[b + 1]
    assert fold_layout(base, [], split=False) is base


def test_fold_layout_exact_view_cuts_the_wrapped_lines_around_the_fold():
    doc = b'{"a":[1,2,3],"b":[4,5],"c":6}'
    first, second = (doc.index(b"[1"), doc.index(b"]") + 1), (doc.index(b"[4"), doc.index(b"5]") + 2)
    folds = [Fold(*first, "3 items"), Fold(*second, "2 items")]
    # both folds start on the first wrapped line of 20 bytes; the second ends on the next
    folded = fold_layout(wrapped_layout(doc, 20), folds, split=True)
    lines = [doc[s:e] for s, e in zip(folded.starts, folded.ends)]
    assert lines == [b'{"a":', b"[1,2,3]", b',"b":', b"[4,5]", b',"c":6}']
    assert list(folded.fold_lines) == [1, 3]
    # at 16 bytes a line ends between the folds: that wrap stays
    folded = fold_layout(wrapped_layout(doc, 16), folds, split=True)
    lines = [doc[s:e] for s, e in zip(folded.starts, folded.ends)]
    assert lines == [b'{"a":', b"[1,2,3]", b',"b"', b":", b"[4,5]", b',"c":6}']
    assert b"".join(lines) == doc  # every byte on exactly one line, in order


def test_layout_defaults_have_no_folds():
    layout = Layout(array("q", [0]), array("q", [3]), array("q", [0]), 3)
    assert layout.fold_on(0) is None


# --- why is this inline, without a UI -------------------------------------------------------


def test_literal_rule_reads_the_encoder_thresholds_in_order():
    big, long_ = limits.DICTIONARY_THRESHOLD, limits.MIN_ENTRY_BYTES
    assert "under 16,384" in literal_rule(big - 1, long_, 5)
    assert f"{long_ - 1} bytes" in literal_rule(big, long_ - 1, 5) and "16-byte minimum" in literal_rule(big, 1, 5)
    assert "occurs once" in literal_rule(big, long_, 1)
    assert literal_rule(big, long_, limits.MIN_ENTRY_OCCURRENCES) == ""


def test_explain_each_kind_of_literal_of_a_model_text_wire():
    loaded = _loaded()
    s = _structure(loaded.document)
    doc = loaded.document
    assert loaded.entries == (b'"%s"' % ENTRY.encode(),)
    entry = explain_literal(loaded, s, doc.index(ENTRY.encode()))
    assert entry.startswith(f'"{ENTRY}" is dictionary entry @0') and "2 uses" in entry
    short = explain_literal(loaded, s, doc.index(b'"kind"'))
    assert short == ('"kind" is inline: it is 6 bytes, quotes and escapes included, under the 16-byte minimum of '
                     "a dictionary entry (docs/wire-format.md §5.1 rule 3)")
    once = explain_literal(loaded, s, doc.index(ONCE.encode()))
    assert once.startswith(f'"{ONCE}" is inline: it occurs once as a whole string token')
    assert explain_literal(loaded, s, doc.index(b"[2,3]") + 1) == "the cursor is not on a string literal"
    small = _loaded({"a": ENTRY, "b": ENTRY})
    answer = explain_literal(small, _structure(small.document), small.document.index(ENTRY.encode()))
    assert f"the whole document is {len(small.document):,} bytes, under 16,384" in answer


def test_explain_in_the_other_forms():
    json_form = _loaded(form="json")
    s = _structure(json_form.document)
    answer = explain_literal(json_form, s, json_form.document.index(ENTRY.encode()))
    assert "full JSON has no dictionary; as model-text it would not stay inline" in answer
    text = _loaded(form="text")
    s = _structure(text.document)
    first = explain_literal(text, s, text.document.index(ENTRY.encode()))
    assert "first occurrence" in first
    later = explain_literal(text, s, text.document.rindex(ENTRY.encode()))
    # the table: "defs" 0, "rows" 1, the entry 2
    assert later.startswith(f'"{ENTRY}": not inline: a later occurrence of table entry 2, which the body writes ~2')
    assert text.body.count(b"~2") == 1
    bad = load_bytes(b'{"kkkkkkkkkkkkkkkkkk":1,"kkkkkkkkkkkkkkkkkk":2}', "duplicate.json")
    assert bad.form == "json" and bad.error is not None
    assert explain_literal(bad, _structure(bad.document), 2) == (
        '"kkkkkkkkkkkkkkkkkk": full JSON has no dictionary, and this file was rejected (compact.json): '
        "no encoder takes it")
    binary = _loaded(form="binary")
    answer = explain_literal(binary, _structure(binary.document), binary.document.index(b'"kind"'))
    assert "v1 binary has no dictionary" in answer


# --- the body pane ---------------------------------------------------------------------------


def _at(view, offset: int) -> None:
    view.focus()
    view.go_to_offset(offset)


def test_fold_and_unfold_in_the_reading_view_with_the_summary_line():
    async def scenario():
        async with opened(_loaded()) as (app, pilot):
            await press(pilot, "b", "m")
            await step(pilot)
            body, expanded = app.body, app.body.expanded
            doc = app.loaded.document
            before = len(expanded.lines)
            _at(expanded, doc.index(b'"rows"'))
            await press(pilot, "f")
            await step(pilot)
            rows = body.structure.container_at(doc.index(b'"rows"'))
            start, end = body.structure.span(rows)
            base = reading_layout(doc)
            assert len(expanded.lines) == before - (base.line_of(end - 1) - base.line_of(start))
            line = expanded.lines.line_of(start)
            size = end - start
            assert _text(expanded, line) == f'    "rows":[…]  3 items, {size:,} bytes'
            assert expanded.cursor_offset == start  # on the opening bracket
            assert "1 folded" in text_of(app, "#body-status")
            # the compact pane hides nothing and followed to the same bracket
            assert len(body.compact.lines) == before
            assert app.loaded.body_to_doc(body.compact.cursor_offset) == start
            # down then up: a column inside the fold settles on its bracket
            await press(pilot, "down", "up")
            assert expanded.cursor_offset == start
            await press(pilot, "f")  # on the fold line: unfold
            await step(pilot)
            assert len(expanded.lines) == before and not body.folded
    run(scenario())


def test_fold_in_the_exact_view_and_unfold_all():
    async def scenario():
        async with opened(_loaded()) as (app, pilot):
            await press(pilot, "b")
            body, expanded = app.body, app.body.expanded
            doc = app.loaded.document
            before = len(expanded.lines)
            _at(expanded, doc.index(b"[2,3]"))
            await press(pilot, "f")
            await step(pilot)
            _at(expanded, doc.index(b'"defs"') + 2)
            await press(pilot, "f")  # the key's member, the whole defs object (holding the first fold)
            await step(pilot)
            defs = body.structure.container_at(doc.index(b'"defs"'))
            start, end = body.structure.span(defs)
            line = expanded.lines.fold_lines[0]
            assert len(body.folded) == 2 and len(expanded.lines.folds) == 1
            assert _text(expanded, line) == f"{{…}}  1 key, {end - start:,} bytes"
            assert _text(expanded, line - 1) == '{"defs":'
            assert _text(expanded, line + 1).startswith(',"pad":"ppp')
            lines = expanded.lines  # every byte still on exactly one line, in order
            assert b"".join(doc[a:b] for a, b in zip(lines.starts, lines.ends)) == doc
            await press(pilot, "f")  # unfold defs: the inner fold is still folded
            await step(pilot)
            assert len(body.folded) == 1 and _text(expanded, expanded.lines.fold_lines[0]) == "[…]  2 items, 5 bytes"
            await press(pilot, "F")
            await step(pilot)
            assert not body.folded and len(expanded.lines) == before
            await press(pilot, "f", "m")  # a fold survives switching layouts
            await step(pilot)
            assert len(expanded.lines.folds) == 1 and expanded.layout_mode == "reading"
    run(scenario())


def test_a_linked_cursor_inside_a_fold_lands_on_its_summary_line():
    async def scenario():
        async with opened(_loaded()) as (app, pilot):
            loaded = app.loaded
            await press(pilot, "b", "m")
            await step(pilot)
            expanded = app.body.expanded
            _at(expanded, loaded.document.index(b'"rows"'))
            await press(pilot, "f")
            await step(pilot)
            fold_line = expanded.lines.fold_lines[0]
            at = loaded.ref_wire[1]  # the second @0, inside the rows array
            await press(pilot, "x")
            app.bytes_pane.hex.go_to_offset(at - 1)
            await press(pilot, "right")
            await step(pilot)
            assert app.selection.cursor == at
            assert expanded.cursor_line == fold_line
            assert expanded.cursor_offset == loaded.ref_doc[1]  # the hidden byte itself
            assert expanded.hidden(expanded.cursor_offset) is not None
            assert len(app.body.folded) == 1  # the fold stays
            assert "path .defs.rows[1][0] (folded)" in text_of(app, "#body-status")
    run(scenario())


def test_percent_jumps_between_brackets_in_both_panes():
    async def scenario():
        async with opened(_loaded()) as (app, pilot):
            loaded = app.loaded
            doc = loaded.document
            await press(pilot, "b")
            expanded, compact = app.body.expanded, app.body.compact
            rows = doc.index(b"[[")
            close = app.body.structure.matching_bracket(rows)
            _at(expanded, rows)
            await press(pilot, "percent_sign")
            assert expanded.cursor_offset == close
            await press(pilot, "percent_sign")
            assert expanded.cursor_offset == rows
            _at(compact, loaded.doc_to_body(close))
            await press(pilot, "percent_sign")
            await step(pilot)
            assert compact.cursor_offset == loaded.doc_to_body(rows) and loaded.body[compact.cursor_offset] == ord("[")
            assert expanded.cursor_offset == rows  # the document followed the compact move
            assert app.selection.origin == "body"
    run(scenario())


def test_breadcrumb_at_several_places_in_both_panes():
    async def scenario():
        async with opened(_loaded()) as (app, pilot):
            loaded = app.loaded
            doc = loaded.document
            await press(pilot, "b")
            places = {doc.index(b'"kind"') + 1: ".defs.rows[0][1]", doc.index(b"[2,3]") + 3: ".defs.rows[1][2][1]",
                      doc.index(b'"pad"'): ".pad", 0: ".", doc.rindex(ENTRY.encode()): ".defs.rows[1][0]"}
            for view in (app.body.expanded, app.body.compact):
                for offset, path in places.items():
                    _at(view, offset if view is app.body.expanded else loaded.doc_to_body(offset))
                    await press(pilot, "right", "left")
                    await step(pilot)
                    assert f"path {path}" in text_of(app, "#body-status"), (view.id, offset, path)
    run(scenario())


def test_y_copies_the_path_and_c_the_whole_value():
    async def scenario():
        async with opened(_loaded()) as (app, pilot):
            loaded = app.loaded
            doc = loaded.document
            await press(pilot, "b")
            expanded, compact = app.body.expanded, app.body.compact
            _at(expanded, doc.index(b"[2,3]") + 1)
            await press(pilot, "y")
            assert app.clipboard == ".defs.rows[1][2][0]"
            await press(pilot, "c")
            assert app.clipboard == "2"
            _at(expanded, doc.index(b"[2,3]"))
            await press(pilot, "c")
            assert app.clipboard == "[2,3]"
            assert "copied 5 characters (OSC 52): [2,3]" in _messages(app)
            _at(compact, loaded.doc_to_body(doc.index(b'"rows"')))  # on a key: its member's value
            await press(pilot, "c")
            assert app.clipboard == codec.canonical_json(VALUE["defs"]["rows"]).decode()
            _at(compact, loaded.ref_wire[0] - loaded.body_start)  # an @0: the literal it stands for
            await press(pilot, "c", "y")
            assert app.clipboard == ".defs.rows[0][0]"
            assert f'copied 24 characters (OSC 52): "{ENTRY}"' in _messages(app)
            assert "copied path 16 characters (OSC 52): .defs.rows[0][0]" in _messages(app)
    run(scenario())


def test_i_says_why_a_literal_is_inline_or_which_entry_it_is():
    async def scenario():
        async with opened(_loaded()) as (app, pilot):
            loaded = app.loaded
            doc = loaded.document
            await press(pilot, "b")
            expanded, compact = app.body.expanded, app.body.compact
            _at(compact, loaded.ref_wire[0] - loaded.body_start + 1)  # on the @0 in the compact body
            await press(pilot, "i")
            assert app.body.status_message.startswith(f'"{ENTRY}" is dictionary entry @0')
            _at(expanded, doc.index(b'"kind"') + 2)
            await press(pilot, "i")
            assert "under the 16-byte minimum" in app.body.status_message
            _at(expanded, doc.index(ONCE.encode()))
            await press(pilot, "i")
            assert "occurs once as a whole string token" in app.body.status_message
            assert app.body.status_message in _messages(app)
            await press(pilot, "right")  # the answer was about the literal the cursor left
            assert "occurs once" not in text_of(app, "#body-status")
        async with opened(_loaded({"a": ENTRY, "b": ENTRY})) as (app, pilot):
            await press(pilot, "b")
            _at(app.body.expanded, app.loaded.document.index(ENTRY.encode()))
            await press(pilot, "i")
            assert "under 16,384: below that the encoder writes no dictionary" in app.body.status_message
    run(scenario())


def test_a_large_document_is_read_in_a_worker_and_a_stale_answer_is_dropped(monkeypatch):
    from inspector.messages import ValuesReady
    from inspector.panes import body as body_module

    monkeypatch.setattr(body_module, "BIG", 1000)
    old = _loaded()

    async def scenario():
        app = InspectorApp(old, count_tokens=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            assert app.body.structure is None  # not read until the Body tab is shown
            await press(pilot, "b")
            await settle(app, pilot)
            assert app.body.structure is not None and app.body.structure.document is old.document
            app.loaded = _loaded({"a": [1, 2]} | {"pad": PAD})  # shown: read at once, in a worker
            await step(pilot)
            assert app.body.structure is None or app.body.structure.document is app.loaded.document
            app.body.post_message(ValuesReady(old))  # an answer for the file no longer loaded
            await settle(app, pilot)
            assert app.body.structure.document is app.loaded.document
    run(scenario())


def test_folded_reading_view_snapshot(snap_compare):
    """How folds look: the imports object and one row folded in the reading view,
    the cursor on the second fold's line, its path in the status."""
    from pathlib import Path

    wire = Path(__file__).resolve().parents[2] / "tests/fixtures/ledger-wires/banking_ledger.graph.model-text"
    loaded = load_bytes(wire.read_bytes(), "tests/fixtures/ledger-wires/banking_ledger.graph.model-text")

    async def before(pilot):
        app = pilot.app
        await step(pilot)
        await app.workers.wait_for_complete()
        app.action_tab("body")
        await press(pilot, "m")
        doc = app.loaded.document
        for needle in (b'"imports"', b'["LedgerError"'):
            _at(app.body.expanded, doc.index(needle))
            await press(pilot, "f")
            await step(pilot)
        await step(pilot)

    assert snap_compare(InspectorApp(loaded, count_tokens=False), terminal_size=(120, 36), run_before=before)


def test_a_body_the_inspector_does_not_map_says_so_and_the_document_pane_still_answers():
    async def scenario():
        async with opened(_loaded(form="text")) as (app, pilot):
            await press(pilot, "b")
            _at(app.body.compact, 3)
            await press(pilot, "right")
            await step(pilot)
            assert ("path: in the document pane (the inspector maps no v1 text body offset to the document)"
                    in text_of(app, "#body-status"))
            await press(pilot, "percent_sign")
            assert "use the document pane: the inspector maps no v1 text body offset to the document" in _messages(app)
            _at(app.body.expanded, app.loaded.document.index(b'"rows"'))
            await press(pilot, "y")
            assert app.clipboard == ".defs.rows"
    run(scenario())


def test_a_document_that_stops_making_sense_keeps_its_open_containers_unfoldable():
    doc = b'{"a":[1,2'
    s = _structure(doc)
    assert s.path(8) == ".a[1]"
    i = s.container_at(7)
    assert s.values.end[i] == -1 and s.span(i) == (5, len(doc))
    assert s.summary(i) == "2 items, 4 bytes (not closed)"
    assert s.matching_bracket(5) is None
    assert explain_literal(_loaded(), None, 3) == "no expanded document maps to this place"


_json = st.recursive(st.none() | st.booleans() | st.integers(-99, 99) | st.text("ab\"", max_size=3),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("kz", max_size=2), inner,
                                                                                  max_size=3),
                     max_leaves=12)


@settings(max_examples=80, deadline=None)
@given(_json, st.data(), st.integers(8, 24))
def test_folding_any_containers_keeps_every_byte_on_one_line_in_order(value, data, width):
    doc = codec.canonical_json(value)
    s = _structure(doc)
    containers = [i for i in range(len(s.values)) if s.is_container(i) and s.children(i)]
    chosen = data.draw(st.lists(st.sampled_from(containers), unique=True) if containers else st.just([]))
    folds = [Fold(*s.span(i), s.summary(i)) for i in chosen]
    for split, base in ((True, wrapped_layout(doc, width)), (False, reading_layout(doc))):
        folded = fold_layout(base, folds, split=split)
        assert b"".join(doc[a:b] for a, b in zip(folded.starts, folded.ends)) == doc
        for line, fold in zip(folded.fold_lines, folded.folds):
            assert folded.line_of(fold.start) == line == folded.line_of(fold.end - 1)
        shown = {f.start for f in folded.folds}
        for f in folds:  # a fold not shown is inside one that is (or shares a reading line with one)
            assert f.start in shown or folded.fold_on(folded.line_of(f.start)) is not None or not split


def test_the_status_grows_and_shrinks_with_its_text_at_80x24():
    async def scenario():
        async with opened(_loaded(), size=(80, 24)) as (app, pilot):
            await press(pilot, "b")
            status = app.query_one("#body-status")
            rows = status.size.height
            _at(app.body.expanded, app.loaded.document.index(ONCE.encode()))
            await press(pilot, "i")
            await step(pilot)
            assert status.size.height > rows  # the answer is laid out whole, not clipped
            _at(app.body.expanded, 0)
            await press(pilot, "right", "left")  # back where the status was one row, the answer gone
            await step(pilot)
            assert status.size.height == rows == 1
    run(scenario())
