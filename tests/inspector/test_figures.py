"""Figures true of the bytes (issue 24): each dictionary entry's token saving
from the cost ledger's attribution, summing with the rest to the wire's saving
exactly, per tokenizer, on every example wire and a held-out one; a view that
cannot be produced ends the load with its error; hints true of the cause."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from heldout import held_out_wire
from textual.widgets import Static

from inspector.app import InspectorApp
from inspector.counting import count_bytes, entries_saved
from inspector.ledger import build
from inspector.model import encodings_of, load_bytes
from inspector.token_spans import start_marks
from inspector.views.dictionary import DictionaryView

ROOT = Path(__file__).resolve().parents[2]
WIRES = ROOT / "examples" / "wires"
NAMES = ("cl100k_base", "o200k_base")
WITH_ENTRIES = sorted(p for p in WIRES.glob("*.model-text") if load_bytes(p.read_bytes(), p.name).entries)


def run(coro):
    return asyncio.run(coro)


def _outside(marks: bytes, regions: list[tuple[int, int]]) -> int:
    """Tokens starting outside every region (an independent sum of the rest)."""
    inside = bytearray(len(marks))
    for s, e in regions:
        inside[s:e] = b"\x01" * (e - s)
    return sum(1 for k, m in enumerate(marks) if m and not inside[k])


def _check_sums(loaded, saved) -> None:
    from inspector.ledger import _use_regions

    full_json = encodings_of(loaded, ("json",))["json"]
    wire_regions, doc_regions = _use_regions(loaded)
    lines = [(span.start, span.end + 1) for span in loaded.entry_spans]
    for name in NAMES:
        saving = count_bytes(full_json)[name] - count_bytes(loaded.wire)[name]  # both counted whole
        wire, doc = start_marks(loaded.wire, name).marks, start_marks(full_json, name).marks
        rest = _outside(doc, doc_regions) - _outside(wire, wire_regions + lines)
        assert sum(saved[name]) + rest == saving, name
    assert saved["cl100k_base"] != saved["o200k_base"]  # each tokenizer its own figures


@pytest.mark.parametrize("path", WITH_ENTRIES, ids=lambda p: p.name)
def test_entry_savings_and_the_rest_sum_to_the_wires_saving(path):
    loaded = load_bytes(path.read_bytes(), path.name).prepare()
    saved = entries_saved(loaded, encodings_of(loaded, ("json",))["json"])
    _check_sums(loaded, saved)
    # the ledger's Δ column is the same computation
    ledger = build(loaded, encodings_of(loaded, ("json",))["json"], NAMES)
    for row in ledger.rows:
        if row.kind == "entry":
            assert [-row.delta(n) for n in NAMES] == [saved[n][row.index] for n in NAMES]


def test_entry_savings_sum_on_a_held_out_wire(tmp_path):
    loaded = load_bytes(held_out_wire(tmp_path), "held-out").prepare()
    assert loaded.ok and loaded.entries
    _check_sums(loaded, entries_saved(loaded, loaded.document))


def test_dictionary_tab_and_first_screen_show_the_ledgers_figures():
    """Pilot: the Dictionary tab's columns and the first screen's best/worst
    entries are the ledger's, and the first screen says what they add up to."""
    path = WIRES / "http_app_routing.graph.model-text"

    async def scenario():
        loaded = load_bytes(path.read_bytes(), str(path))
        app = InspectorApp(loaded, count_tokens=True)
        async with app.run_test(size=(160, 48)) as pilot:
            for _ in range(200):
                await pilot.pause(0.05)
                if app.counts is not None and app.counts.done:
                    break
            await pilot.pause()
            full_json = encodings_of(loaded, ("json",))["json"]
            ledger = build(loaded, full_json, NAMES)
            rows = {r.index: r for r in ledger.rows if r.kind == "entry"}
            view = app.query_one("#dict", DictionaryView)
            for i, row in rows.items():
                assert view.tokens_saved["cl100k_base"][i] == -row.delta("cl100k_base")
                assert view.tokens_saved["o200k_base"][i] == -row.delta("o200k_base")
            assert view.row_text(0, 100).split()[-2:] == [f"{-rows[0].delta(n):,}" for n in NAMES]
            text = str(app.query_one("#entries", Static).render())
            cl = [-r.delta("cl100k_base") for r in rows.values()]
            best = max(range(len(cl)), key=lambda i: (cl[i], -i))
            assert f"@{best} " in text.split("worst")[0]
            saving = count_bytes(full_json)["cl100k_base"] - count_bytes(loaded.wire)["cl100k_base"]
            assert f"entries save {sum(cl):+,}, the rest {saving - sum(cl):+,}: the wire saves {saving:+,}" in text
            o2 = ledger.difference("o200k_base")
            assert f"the wire saves {-o2:+,}" in text.split("o200k:")[1]
    run(scenario())
