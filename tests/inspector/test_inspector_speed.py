"""The inspector's work done apart from the interface: a large wire's layout made
in a child process (``inspector.worker layout``), counting in one
(``inspector.worker count``), and results nobody wants any more ended. Behaviour
only: each result from a child equals the one made in this process. The speed
and memory figures are semaprax bench inspector's (docs/performance.md)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from pilotkit import press, step, until

import codec
from inspector import child, counting
from inspector.layout_child import layout_in_child
from inspector.model import Loaded, load_bytes

ROOT = Path(__file__).resolve().parents[2]
LEDGER_WIRES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledger-wires"  # a graph wire with a dictionary, fixed
WIRES = ROOT / "examples" / "wires"
REJECTED = ROOT / "examples" / "rejected"
LEDGER = LEDGER_WIRES / "banking_ledger.graph.model-text"


def _same_layout(a: codec.WireLayout, b: codec.WireLayout) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "error":  # an exception equals only itself: compare what it says
            x, y = repr(x), repr(y)
        assert x == y, f.name


def _truncated_binary() -> bytes:
    wire = (LEDGER_WIRES / "banking_ledger.graph.binary").read_bytes()
    return wire[: len(wire) - 7]


CASES = {
    "model-text": LEDGER.read_bytes(),
    "v1 text": (LEDGER_WIRES / "banking_ledger.graph.text").read_bytes(),
    "full JSON": (LEDGER_WIRES / "banking_ledger.graph.json").read_bytes(),
    "binary, truncated": _truncated_binary(),
    "rejected at the digest": (REJECTED / "compact.digest.model-text").read_bytes(),
    "rejected as noncanonical": (REJECTED / "compact.noncanonical.model-text").read_bytes(),
    "not a wire": b"hello\n",
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_layout_made_in_the_child_equals_the_one_made_here(name):
    wire = CASES[name]
    _same_layout(layout_in_child(wire), codec.layout_wire(wire))


def test_full_json_from_the_child_keeps_one_copy_of_the_bytes():
    wire = CASES["full JSON"]
    layout = layout_in_child(wire)
    assert layout.document is wire  # the document is the wire: not a second copy sent back


def test_a_model_built_from_the_childs_layout_equals_one_built_here():
    for wire in (CASES["model-text"], CASES["rejected as noncanonical"]):
        here = load_bytes(wire, "w").prepare()
        apart = load_bytes(wire, "w", layout=layout_in_child(wire)).prepare()
        for f in dataclasses.fields(Loaded):
            x, y = getattr(here, f.name), getattr(apart, f.name)
            if f.name == "error":
                x, y = repr(x), repr(y)
            if f.name == "layout":  # the parse itself, kept for the tree: equal but for its error's identity
                x, y = (dataclasses.replace(v, error=repr(v.error)) for v in (x, y))
            assert x == y, f.name
        assert apart.body_marks() == here.body_marks() and apart.document_marks() == here.document_marks()


def test_a_layout_nobody_waits_for_ends_its_child():
    wire = CASES["model-text"]
    assert layout_in_child(wire, lambda: True) is None
    assert not child._CHILDREN  # killed and waited for, not left running


def test_a_child_that_fails_is_an_error_that_says_so():
    with pytest.raises(RuntimeError, match="inspector.no_such_module process failed"):
        list(child.results("inspector.no_such_module", b""))
    assert not child._CHILDREN


@pytest.mark.parametrize("name", ["model-text", "rejected at the digest"])
def test_counts_from_the_child_equal_those_counted_here(monkeypatch, name):
    """The counting process is handed the decoded parts, not the wire: its
    figures are still those of the wire (and a rejected wire is counted as given)."""
    loaded = load_bytes(CASES[name], name).prepare()
    here = list(counting.count_all(loaded, here=True))[-1]
    monkeypatch.setattr(counting, "PROCESS_FROM", 0)
    steps = list(counting.count_all(loaded))
    apart = steps[-1]
    assert all(step.source is loaded for step in steps)
    assert apart.done and apart.error is None
    assert (apart.sizes, apart.tokens, apart.saved, apart.note) == (here.sizes, here.tokens, here.saved, here.note)


def test_a_large_file_opened_while_another_is_decoded_apart_shows_the_second(monkeypatch, tmp_path):
    """Both files take the child-process path; the first one's layout, if it
    arrives at all, is dropped, and its child is ended."""
    import inspector.app as app_module
    from inspector.app import InspectorApp

    monkeypatch.setattr(app_module, "PREVIEW_FROM", 0)
    first, second = tmp_path / "first.model-text", tmp_path / "second.text"
    first.write_bytes(CASES["model-text"])
    second.write_bytes(CASES["v1 text"])

    async def scenario():
        app = InspectorApp(count_tokens=False)
        async with app.run_test(size=(100, 30)) as pilot:
            app.load_file(str(first))
            app.load_file(str(second))
            await until(pilot, lambda: app.loaded is not None and not app.loaded.pending
                        and all(w.is_finished for w in app.workers), what="the second file")
            assert app.loaded.path == str(second) and app.loaded.form == "text" and app.loaded.ok
            assert not child._CHILDREN
    asyncio.run(scenario())


def test_the_byte_view_redraws_only_the_rows_the_cursor_touched_and_they_match_a_full_redraw():
    from inspector.app import InspectorApp

    async def scenario():
        app = InspectorApp(load_bytes(CASES["model-text"], "ledger").prepare(), count_tokens=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await step(pilot)
            app.action_tab("bytes")
            await step(pilot)
            hexview = app.bytes_pane.hex
            for key in ("right", "right", "down", "right", "down", "left", "up"):
                await press(pilot, key)
                await step(pilot)
            assert hexview.cursor_offset == 2 + hexview.row_bytes

            def drawn() -> list[list]:
                return [list(hexview.render_line(y)) for y in range(8)]  # text and style of each cell run

            kept = drawn()
            before = set(hexview._cache.keys())
            hexview.action_byte(hexview.row_bytes)  # a row down, and back
            hexview.action_byte(-hexview.row_bytes)
            row, version = hexview.cursor_row, hexview._version
            assert set(hexview._cache.keys()) == before - {(row, version), (row + 1, version)}  # the rest kept
            hexview._changed()  # forget every strip: a full redraw
            assert drawn() == kept
            cursor = hexview.cursor_offset
            assert f"byte {cursor:,} (0x{cursor:x})" in str(app.query_one("#hex-status").render())
    asyncio.run(scenario())


def test_the_byte_status_line_grows_and_shrinks_with_its_text():
    """The status line is repainted without a screen layout on each key, but
    laid out again when its text needs another number of lines."""
    from inspector.app import InspectorApp

    wire = CASES["rejected at the digest"]

    async def scenario():
        app = InspectorApp(load_bytes(wire, "digest").prepare(), count_tokens=False)
        async with app.run_test(size=(64, 30)) as pilot:
            await step(pilot)
            app.action_tab("bytes")
            await step(pilot)
            status = app.query_one("#hex-status")
            app.bytes_pane.go_to_offset(0)
            await step(pilot)
            assert status.size.height == 1
            app.bytes_pane.go_to_offset(app.loaded.error.offset)  # "...: the diagnostic's byte (compact.digest)"
            await step(pilot)
            assert status.size.height >= 2
            app.bytes_pane.go_to_offset(0)
            await step(pilot)
            assert status.size.height == 1
    asyncio.run(scenario())


@pytest.mark.parametrize("name", ["model-text", "v1 text"])
def test_forms_encoded_by_the_layout_process_are_counted_as_those_encoded_here(monkeypatch, name):
    """The layout process encodes the other forms in the memory its decode let
    go; the counts made from them (here, and in the counting process) are the
    counts of forms encoded here, and the forms are handed over once."""
    from inspector.layout_child import lay_out_and_encode

    wire = CASES[name]
    here = list(counting.count_all(load_bytes(wire, "w").prepare(), here=True))[-1]
    layout, encoded = list(lay_out_and_encode(wire))  # the layout first, then the forms
    assert isinstance(layout, codec.WireLayout) and encoded is not None
    own = {"model-text": "model-text", "v1 text": "text"}[name]
    assert set(encoded.sizes) == set(codec.ENCODERS) - {own, "json"}
    assert set(encoded.forms) == {"text", "model-text"} - {own}

    def boom(projection):
        raise AssertionError("encoded again")

    for form in encoded.sizes:  # counting must take the handed forms, not encode them
        monkeypatch.setitem(codec.ENCODERS, form, boom)
    loaded = load_bytes(wire, "w", layout=layout).prepare()
    loaded.encoded = encoded
    in_thread = list(counting.count_all(counting._counted_parts(loaded), here=True))[-1]
    assert loaded.encoded is None  # handed over once
    loaded.encoded = encoded
    monkeypatch.setattr(counting, "PROCESS_FROM", 0)
    apart = list(counting.count_all(loaded))[-1]
    for got in (in_thread, apart):
        assert got.done and got.error is None
        assert list(got.sizes.items()) == list(here.sizes.items())
        assert (got.tokens, got.saved, got.note) == (here.tokens, here.saved, here.note)


def test_no_forms_come_back_for_a_wire_without_a_projection():
    from inspector.layout_child import lay_out_and_encode

    for name in ("rejected at the digest", "full JSON", "not a wire"):
        layout, encoded = list(lay_out_and_encode(CASES[name]))
        assert isinstance(layout, codec.WireLayout) and encoded is None


def test_a_wire_laid_out_apart_is_shown_first_and_counted_from_the_forms_its_layout_process_encoded(
        monkeypatch, tmp_path):
    """The layout process sends the layout, then the other forms: the model is
    shown from the first, and the counting process waits for the second and
    counts those forms (the counts are those counted here)."""
    import inspector.app as app_module
    from inspector.app import InspectorApp

    monkeypatch.setattr(app_module, "PREVIEW_FROM", 0)
    monkeypatch.setattr(counting, "PROCESS_FROM", 0)
    path = tmp_path / "w.model-text"
    path.write_bytes(CASES["model-text"])
    handed = []
    real = counting._counted_parts

    def spy(loaded):
        parts = real(loaded)
        handed.append(parts.encoded)
        return parts

    monkeypatch.setattr(counting, "_counted_parts", spy)
    here = list(counting.count_all(load_bytes(CASES["model-text"], "w").prepare(), here=True))[-1]

    async def scenario():
        app = InspectorApp(None, path=str(path), count_tokens=True)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.counts is not None and app.counts.done, what="the counts")
            assert app.loaded.encoded_ready is not None and app.loaded.encoded_ready.is_set()
            assert app.loaded.encoded is None  # handed over to the counting process
            assert len(handed) == 1 and handed[0] is not None and set(handed[0].forms) == {"text"}
            got = app.counts
            assert got.error is None
            assert (list(got.sizes.items()), got.tokens, got.saved) == (list(here.sizes.items()), here.tokens,
                                                                        here.saved)
    asyncio.run(scenario())


def test_a_form_counted_in_one_encoding_shows_that_count_and_counting_for_the_other():
    """The counting process counts with o200k_base, then cl100k_base (one
    vocabulary at a time): between the two, the first screen shows each
    figure as soon as it is made and says the others are being counted."""
    from rich.console import Console

    from inspector.panes.overview import savings_table
    from inspector.values import Counts

    loaded = load_bytes(CASES["model-text"], "w").prepare()
    counts = Counts(loaded, sizes={"json": 100, "model-text": 90},
                    tokens={"json": {"o200k_base": 1234}, "model-text": {"o200k_base": 1111}})
    console = Console(width=160, record=True)
    console.print(savings_table(counts, loaded))
    rows = {line.split()[0]: line for line in console.export_text().splitlines() if line.strip()}
    assert "1,234" in rows["full"] and "counting…" in rows["full"]
    assert "1,111" in rows["v2"] and "-123 (-10.0%)" in rows["v2"] and "counting…" in rows["v2"]
