"""The token view and the cost ledger: windows tokenize exactly as the whole
text does, the ledger adds up exactly, and the Tokens tab's keys and linked
cursor do what they say."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pilotkit import press, step
from test_inspector import LEDGER, REJECTED, WIRES, opened, run

from inspector import token_spans
from inspector.ledger import build
from inspector.model import encodings_of, load_path
from inspector.panes.tokens import TokensPane
from views import tokens

ENCODINGS = tokens.ENCODING_NAMES
SAMPLES = ["banking_ledger.graph.model-text", "http_app_routing.graph.model-text",
           "warehouse_inventory.symbols.model-text", "calculator.project-graph.text", "banking_ledger.graph.json"]


def encode(data: bytes, name: str) -> list[int]:
    return tokens.get_encoding(name).encode_ordinary(data.decode("utf-8", "replace"))


def _pane(app) -> TokensPane:
    return app.query_one("#tokens-pane", TokensPane)


# --- the ledger ---------------------------------------------------------------------------


@pytest.mark.parametrize("sample", [*SAMPLES, "rejected/compact.reference.model-text"])
def test_ledger_rows_sum_to_the_wire_and_entries_to_the_difference(sample):
    path = REJECTED.parent / sample if sample.startswith("rejected/") else WIRES / sample
    loaded = load_path(str(path)).prepare()
    full_json = encodings_of(loaded, ("json",)).get("json")
    ledger = build(loaded, full_json, ENCODINGS)
    wire_counts = tokens.count_tokens(loaded.wire)
    for name in ENCODINGS:
        assert sum(r.tokens[name] for r in ledger.region_rows()) == wire_counts[name] == ledger.wire_total[name]
        if full_json is None:
            assert loaded.error is not None and ledger.difference(name) is None and "rejected" in ledger.note
            continue
        json_count = tokens.count_tokens(full_json)[name]
        assert sum(r.delta(name) or 0 for r in ledger.rows) == wire_counts[name] - json_count
    if loaded.entries and full_json is not None:
        entries = [r for r in ledger.rows if r.kind == "entry"]
        assert len(entries) == len(loaded.entries)
        assert [r.uses for r in entries] == list(loaded.reference_counts)
        # each entry's line row holds exactly the tokens that start in its line
        marks = token_spans.start_marks(loaded.wire, ENCODINGS[0])
        span = loaded.entry_spans[0]
        assert entries[0].tokens[ENCODINGS[0]] == marks.starting(span.start, span.end + 1)


def test_an_entry_used_twice_with_a_short_literal_costs_tokens():
    loaded = load_path(str(WIRES / "http_app_routing.graph.model-text")).prepare()
    ledger = build(loaded, loaded.document, ENCODINGS)
    name = ENCODINGS[0]
    costly = [r for r in ledger.rows if r.kind == "entry" and r.delta(name) > 0]
    assert costly, "the example has entries that lose tokens"
    r = min(costly, key=lambda r: r.uses)
    assert r.delta(name) == r.tokens[name] + r.use_tokens[name] - r.inline_tokens[name]
    assert r.inline_tokens[name] < r.tokens[name] + r.use_tokens[name]


# --- windows ------------------------------------------------------------------------------


TEXTS = {p.name: p.read_bytes() for p in sorted(WIRES.iterdir()) if not p.name.endswith(".binary")}
WHOLE: dict[tuple[str, str], token_spans.TokenRun] = {}


def _whole(name: str, encoding: str) -> token_spans.TokenRun:
    key = (name, encoding)
    if key not in WHOLE:
        WHOLE[key] = token_spans.whole(TEXTS[name], encoding)
    return WHOLE[key]


def test_whole_tokenization_in_pieces_is_tiktokens_own():
    for name in ("banking_ledger.graph.model-text", "banking_ledger.graph.json"):
        data = TEXTS[name]
        for encoding in ENCODINGS:
            run_ = token_spans.whole(data, encoding, chunk=200)  # many restart-point cuts
            assert list(run_.ids) == encode(data, encoding)
            assert run_.end == len(data)
            marks = token_spans.start_marks(data, encoding, chunk=300)
            assert [i for i, b in enumerate(marks.marks) if b] == list(run_.offsets[:-1])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(TEXTS)), st.sampled_from(ENCODINGS), st.floats(0, 1), st.integers(0, 600),
       st.integers(0, 300))
def test_a_window_has_exactly_the_whole_texts_tokens(name, encoding, where, length, margin):
    data = TEXTS[name]
    start = int(where * len(data))
    end = min(start + length, len(data))
    win = token_spans.window(data, encoding, start, end, margin)
    assert win.start <= start and end <= win.end
    full = _whole(name, encoding)
    i = full.index_of_start(win.start)
    j = len(full) if win.end == len(data) else full.index_of_start(win.end)
    assert i is not None and j is not None, "a window edge that is not a token boundary"
    assert list(win.ids) == list(full.ids[i:j])
    assert list(win.offsets) == list(full.offsets[i:j + 1])


def test_every_restart_point_is_a_token_start():
    for name in ("warehouse_inventory.graph.model-text", "calculator.project-graph.text"):
        data = TEXTS[name]
        for encoding in ENCODINGS:
            starts = set(_whole(name, encoding).offsets)
            points = [m.start() for m in token_spans._RESTART.finditer(data)]
            assert points and all(p in starts for p in points)


# --- the Tokens tab -----------------------------------------------------------------------


def _title(app) -> str:
    return str(app.query_one("#tv-title").content)


def _status(app) -> str:
    return str(app.query_one("#tv-status").content)


def test_T_cycles_forms_and_encodings_and_shows_their_first_tokens():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "t")
            await app.workers.wait_for_complete()
            await step(pilot)
            pane, view = _pane(app), _pane(app).view
            forms = encodings_of(app.loaded)
            assert "v2 model-text (the wire as given) · cl100k_base · view 5/6" in _title(app)
            assert "linked to the other panes' cursor" in _title(app)
            assert list(view.tokens(0, 1).ids[:8]) == encode(LEDGER.read_bytes(), "cl100k_base")[:8]
            expected = [("model-text", "o200k_base"), ("json", "cl100k_base"), ("json", "o200k_base"),
                        ("text", "cl100k_base"), ("text", "o200k_base"), ("model-text", "cl100k_base")]
            titles = {"model-text": "v2 model-text", "json": "full JSON", "text": "v1 text"}
            for k, (form, encoding) in enumerate(expected):
                await press(pilot, "T")
                await step(pilot)
                assert pane.shown == (form, encoding)
                assert _title(app).startswith(f"{titles[form]}") and f"· {encoding} · view" in _title(app)
                assert f"view {(k + 5) % 6 + 1}/6" in _title(app)
                assert view.data == forms[form]
                assert list(view.tokens(0, 1).ids[:8]) == encode(forms[form], encoding)[:8]
            assert "through the document's offsets" not in _title(app)
    run(scenario())


def test_ids_visible_count_and_selection_count():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "t")
            await step(pilot)
            view = _pane(app).view
            wire = LEDGER.read_bytes()
            full = token_spans.whole(wire, "cl100k_base")
            start, end = view.visible_span()
            assert end > start
            assert f"visible lines: {full.touching(start, end):,} tokens" in _status(app)
            assert "selection: none" in _status(app)
            await press(pilot, "I")
            await step(pilot)
            line_end = wire.index(b"\n") + 1
            first_line = [str(full.ids[i]) for i in range(full.touching(0, line_end))]
            assert str(app.query_one("#tv-ids").content) == "ids on line 1: " + " ".join(first_line) + " "
            await press(pilot, "right", "shift+right", "shift+right")
            await step(pilot)
            assert view.selected == (full.offsets[1], full.offsets[4])
            assert "selection: 3 tokens" in _status(app)
            assert f"cursor token id {full.ids[3]}" in _status(app)
    run(scenario())


def test_token_cursor_and_the_other_panes_are_linked_both_ways():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            await press(pilot, "t")
            await step(pilot)
            view = _pane(app).view
            full = token_spans.whole(loaded.wire, "cl100k_base")
            await press(pilot, "right", "right")
            await step(pilot)
            s, e = full.span(2)
            assert (app.selection.start, app.selection.end, app.selection.origin) == (s, e, "tokens")
            assert app.bytes_pane.hex.cursor_offset == s
            # a byte chosen elsewhere puts the token cursor on the token holding it
            k = next(k for k, i in enumerate(loaded.ref_index) if k > 3)
            target = loaded.ref_wire[k] + 1
            app.select_wire(target)
            await step(pilot)
            token = view.cursor_token()
            i = full.index_at(target)
            assert token == (full.ids[i], *full.span(i))
            assert view.selected == (app.selection.start, app.selection.end)
            # full JSON follows through the document's offsets
            while _pane(app).shown != ("json", "cl100k_base"):
                await press(pilot, "T")
            await step(pilot)
            assert "through the document's offsets" in _title(app)
            doc = app.selection.doc
            assert view.cursor_offset == doc[0]
            await press(pilot, "right")
            await step(pilot)
            at = view.cursor_token()[1]
            assert app.selection.origin == "tokens" and app.selection.doc[0] == at
            assert app.selection.start == loaded.doc_span_at(at)[0]
    run(scenario())


def test_ledger_key_computes_it_in_a_worker_and_rows_announce_their_span():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            await press(pilot, "t", "L")
            await app.workers.wait_for_complete()
            await step(pilot)
            pane = _pane(app)
            ledger = pane.ledger
            assert ledger is not None and ledger.source is app.loaded
            assert pane.ledger_view.display and not pane.view.display
            head = str(app.query_one("#ledger-head").content)
            counts = tokens.count_tokens(LEDGER.read_bytes())
            assert f"the rows sum to {counts['cl100k_base']:,}" in head
            assert "region holding its first byte" in head
            await press(pilot, "down", "down")
            await step(pilot)
            row = ledger.rows[2]
            assert (app.selection.start, app.selection.end) == (row.start, row.end) and row.kind == "field"
            assert _status(app).startswith(f"{row.label}: {row.tokens['cl100k_base']:,} tokens")
            entry = next(k for k, r in enumerate(ledger.rows) if r.kind == "entry")
            await press(pilot, *["down"] * (entry - 2))
            await step(pilot)
            r = ledger.rows[entry]
            d = r.delta("cl100k_base")
            assert (f"its line {r.tokens['cl100k_base']:,} + its {r.uses:,} uses {r.use_tokens['cl100k_base']:,} − "
                    f"the same {r.uses:,} inline in full JSON {r.inline_tokens['cl100k_base']:,}") in _status(app) \
                or (d == 0 and "breaks even" in _status(app))
            await press(pilot, "T")  # the ledger's other encoding
            await step(pilot)
            assert pane.ledger_view.encoding == "o200k_base"
            assert f"the rows sum to {counts['o200k_base']:,}" in str(app.query_one("#ledger-head").content)
    run(scenario())


def test_a_rejected_wire_shows_only_the_wire_as_given_and_says_why():
    async def scenario():
        path: Path = REJECTED / "compact.digest.model-text"
        async with opened(path) as (app, pilot):
            await press(pilot, "t")
            await step(pilot)
            pane = _pane(app)
            assert pane.states == [("given", "cl100k_base"), ("given", "o200k_base")]
            assert "only the wire as given" in _title(app) and "compact.digest" in _title(app)
            assert list(pane.view.tokens(0, 1).ids[:5]) == encode(path.read_bytes(), "cl100k_base")[:5]
    run(scenario())


def test_a_cursor_sent_far_away_tokenizes_only_around_it():
    async def scenario():
        path = WIRES / "warehouse_inventory.graph.model-text"
        async with opened(path) as (app, pilot):
            await press(pilot, "t")
            await step(pilot)
            view = _pane(app).view
            near_end = len(app.loaded.wire) - 10
            app.select_wire(near_end)
            await step(pilot)
            full = token_spans.whole(app.loaded.wire, "cl100k_base")
            i = full.index_at(near_end)
            assert view.cursor_token() == (full.ids[i], *full.span(i))
            assert view.run.end - view.run.start < 16 * 1024 < len(app.loaded.wire)
    run(scenario())
