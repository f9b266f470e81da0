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
LEDGER_WIRES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledger-wires"  # a graph wire with a dictionary, fixed
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


def wire_verdict(saving: int) -> str:
    """How the first screen words the wire's saving: a cost is said as a cost."""
    return (f"the wire saves {saving:,} tokens against full JSON" if saving >= 0
            else f"the wire costs {-saving:,} tokens more than full JSON")


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
            assert f"entries save {sum(cl):+,}, the rest {saving - sum(cl):+,}: {wire_verdict(saving)}" in text
            o2 = ledger.difference("o200k_base")
            assert wire_verdict(-o2) in text.split("o200k:")[1]
    run(scenario())


# --- a view that cannot be produced ends the load -----------------------------------


@pytest.mark.parametrize("root, workspace, says", [
    ("banking_ledger.py", "missing-folder", "is not a folder"),
    ("no_such_module.py", str(ROOT / "examples"), "does not exist"),
    ("../pyproject.toml", str(ROOT / "examples"), "leaves the workspace"),
])
def test_a_view_that_cannot_be_produced_ends_the_load_with_its_error(root, workspace, says, tmp_path):
    workspace = workspace if workspace.startswith("/") else str(tmp_path / workspace)

    async def scenario():
        app = InspectorApp(None, path=root, profile="graph", workspace=workspace, count_tokens=False)
        async with app.run_test(size=(120, 36)) as pilot:
            for _ in range(100):
                await pilot.pause(0.05)
                if "NOT LOADED" in str(app.query_one("#badge", Static).render()):
                    break
            badge = str(app.query_one("#badge", Static).render())
            assert "Loading" not in badge and "NOT LOADED" in badge and says in badge
            assert "--workspace" in badge  # names what to fix
            assert app.query_one("#diagnostic").has_class("shown")
    run(scenario())


# --- hints true of their cause -------------------------------------------------------


def test_a_rejected_binary_wire_gets_no_utf8_hint():
    from inspector.model import problems

    wire = bytearray((LEDGER_WIRES / "banking_ledger.graph.binary").read_bytes())
    wire[-3] ^= 0x01  # a changed body byte: the digest no longer matches, the CBOR still reads
    loaded = load_bytes(bytes(wire), "flipped.binary")
    assert not loaded.ok
    assert not any("UTF-8" in p.text for p in problems(loaded))


def test_a_flipped_digit_in_the_digest_says_the_digest_was_edited():
    from inspector.model import problems

    wire = (LEDGER_WIRES / "banking_ledger.graph.model-text").read_bytes()
    at = wire.index(b"source_digest ") + len(b"source_digest 71 sha256:") + 10
    flipped = wire[:at] + (b"0" if wire[at:at + 1] != b"0" else b"1") + wire[at + 1:]
    loaded = load_bytes(flipped, "flipped.model-text")
    assert loaded.error is not None and loaded.error.code == "compact.digest"
    hints = [p for p in problems(loaded) if "digest itself was edited" in p.text]
    assert len(hints) == 1 and hints[0].offset == at and "1 hex digit " in hints[0].text
    # a changed body is not mistaken for an edited digest
    body = wire.rindex(b"Account")
    changed = load_bytes(wire[:body] + b"Acount" + wire[body + 7:], "body.model-text")
    if changed.error is not None and changed.error.code == "compact.digest":
        assert not any("digest itself" in p.text for p in problems(changed))


# --- keys pressed while a wire loads ----------------------------------------------------


def test_keys_pressed_while_a_wire_loads_act_once_it_is_loaded(monkeypatch):
    """The envelope preview of a large wire is up while the rest decodes: the
    keys pressed then (a tab, moves in its table) act on the loaded wire."""
    import threading

    import inspector.app as app_module
    from inspector.layout_child import lay_out_and_encode

    release = threading.Event()

    def slow_layout(data, cancelled):
        release.wait(10)
        return lay_out_and_encode(data, cancelled)

    monkeypatch.setattr(app_module, "PREVIEW_FROM", 0)
    monkeypatch.setattr(app_module, "lay_out_and_encode", slow_layout)
    path = WIRES / "http_app_routing.graph.model-text"

    async def scenario():
        app = InspectorApp(None, path=str(path), count_tokens=False)
        async with app.run_test(size=(120, 36)) as pilot:
            for _ in range(100):
                await pilot.pause(0.02)
                if app.loaded is not None:
                    break
            assert app.loaded is not None and app.loaded.pending
            await pilot.press("d", "down", "down", "down")
            release.set()
            for _ in range(100):
                await pilot.pause(0.02)
                if app.loaded is not None and not app.loaded.pending:
                    break
            await app.workers.wait_for_complete()
            for _ in range(5):
                await pilot.pause(0.02)
            assert app.tabbed.active == "dictionary"
            assert app.query_one("#dict", DictionaryView).cursor_row == 3
    run(scenario())


# --- export and --watch ----------------------------------------------------------------


def test_export_suggests_beside_the_wire_and_asks_before_overwriting(tmp_path):
    from inspector.screens import ConfirmScreen, ExportScreen

    wire = tmp_path / "w.model-text"
    wire.write_bytes((LEDGER_WIRES / "banking_ledger.graph.model-text").read_bytes())
    existing = tmp_path / "w.export.model-text"
    existing.write_bytes(b"keep me")

    async def scenario():
        app = InspectorApp(None, path=str(wire), count_tokens=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("ctrl+e")
            await pilot.pause()
            assert isinstance(app.screen, ExportScreen)
            path = app.screen.query_one("#export-path")
            assert path.value == str(existing)
            path.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("n")
            await pilot.pause()
            assert existing.read_bytes() == b"keep me"
    run(scenario())


def test_watch_says_when_the_file_is_deleted_and_picks_up_its_replacement(tmp_path):
    import os

    wire = tmp_path / "w.model-text"
    wire.write_bytes((LEDGER_WIRES / "banking_ledger.graph.model-text").read_bytes())

    async def scenario():
        app = InspectorApp(None, path=str(wire), watch=True, count_tokens=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            app._check_file()
            wire.unlink()
            app._check_file()
            await pilot.pause()
            banner = str(app.query_one("#diagnostic", Static).render())
            assert "was deleted" in banner and app.loaded.ok  # the wire shown stays
            new = tmp_path / "new.model-text"
            new.write_bytes((WIRES / "http_app_routing.graph.model-text").read_bytes())
            os.replace(new, wire)  # a new file in its place, as editors and producers write
            app._check_file()
            for _ in range(50):
                await pilot.pause(0.02)
                await app.workers.wait_for_complete()
                if app.loaded.wire == wire.read_bytes():
                    break
            assert app.loaded.wire == wire.read_bytes()
            # replaced while shown (a rename over it): picked up too
            other = tmp_path / "other.model-text"
            other.write_bytes((WIRES / "warehouse_inventory.graph.model-text").read_bytes())
            os.replace(other, wire)
            app._check_file()
            for _ in range(50):
                await pilot.pause(0.02)
                await app.workers.wait_for_complete()
                if app.loaded.wire == wire.read_bytes():
                    break
            assert app.loaded.wire == wire.read_bytes()
    run(scenario())


# --- savings against reading the code -----------------------------------------------------


async def _counted(app, pilot):
    for _ in range(200):
        await pilot.pause(0.05)
        if app.counts is not None and app.counts.done and app.query_one("#sources", Static).display \
                and "x cl100k" in str(app.query_one("#sources", Static).render()):
            break
    await app.workers.wait_for_complete()
    await pilot.pause()
    return str(app.query_one("#sources", Static).render())


def test_the_first_screen_sets_every_form_against_the_source_files(tmp_path):
    from views import tokens

    source = (ROOT / "examples" / "banking_ledger.py").read_bytes()
    (tmp_path / "banking_ledger.py").write_bytes(source)
    per_file = tokens.count_tokens(source)

    async def scenario():
        app = InspectorApp(None, path="banking_ledger.py", profile="graph", workspace=str(tmp_path))
        async with app.run_test(size=(160, 48)) as pilot:
            text = await _counted(app, pilot)
            assert "the 1 source file the view covers (banking_ledger.py)" in text
            assert f"{per_file['cl100k_base']:,} cl100k / {per_file['o200k_base']:,} o200k tokens" in text
            mt = app.counts.tokens["model-text"]
            assert f"v2 model-text: {mt['cl100k_base'] / per_file['cl100k_base']:.2f}x cl100k / " \
                   f"{mt['o200k_base'] / per_file['o200k_base']:.2f}x o200k" in text
            assert "changed since" not in text
    run(scenario())


def test_a_wire_whose_sources_changed_says_so(tmp_path):
    import codec
    from servers.route import make_projection

    (tmp_path / "banking_ledger.py").write_bytes((ROOT / "examples" / "banking_ledger.py").read_bytes())
    wire = tmp_path / "ledger.model-text"
    wire.write_bytes(codec.encode_model_text(make_projection("graph", "banking_ledger.py", str(tmp_path))))
    with (tmp_path / "banking_ledger.py").open("a") as f:
        f.write("\n\ndef added_later() -> None:\n    pass\n")

    async def scenario():
        app = InspectorApp(None, path=str(wire), workspace=str(tmp_path))
        async with app.run_test(size=(160, 48)) as pilot:
            text = await _counted(app, pilot)
            assert "the sources changed since the wire was made" in text
    run(scenario())


def test_no_sources_row_without_sources_at_hand():
    async def scenario():
        app = InspectorApp(None, path=str(LEDGER_WIRES / "banking_ledger.graph.model-text"))
        async with app.run_test(size=(160, 48)) as pilot:
            for _ in range(100):
                await pilot.pause(0.05)
                if app.counts is not None and app.counts.done:
                    break
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert not app.query_one("#sources", Static).display
    run(scenario())


# --- figures shown whole, columns that line up --------------------------------------------


def test_the_cost_table_columns_line_up():
    """Every figure of a column ends at the same place, at 160 and at 80 columns."""
    import io

    from rich.console import Console

    for width in (160, 80):
        async def scenario(width=width):
            app = InspectorApp(None, path=str(WIRES / "http_app_routing.graph.model-text"))
            async with app.run_test(size=(width, 40)) as pilot:
                for _ in range(200):
                    await pilot.pause(0.05)
                    if app.counts is not None and app.counts.done:
                        break
                await pilot.pause()
                console = Console(width=width, file=io.StringIO(), color_system=None)
                with console.capture() as capture:
                    console.print(app.query_one("#savings", Static).content)
                lines = [line for line in capture.get().splitlines() if line.strip().startswith(("full JSON", "v1 text", "v2 model-text"))]
                assert len(lines) == 3
                figures = [f"{app.counts.tokens[f]['cl100k_base']:,}" for f in ("json", "text", "model-text")]
                ends = {line.index(fig) + len(fig) for line, fig in zip(lines, figures)}
                assert len(ends) == 1, lines  # right-aligned in one column
                assert all(len(line) <= width for line in lines)
        run(scenario())


def test_no_dictionary_figure_is_cut_however_large():
    from inspector.views.dictionary import header_text

    loaded = load_bytes((WIRES / "http_app_routing.graph.model-text").read_bytes(), "x")
    loaded.reference_counts = tuple(260_000 + i for i in range(len(loaded.entries)))  # a 16 MiB wire's counts
    view = DictionaryView()
    view.set_loaded(loaded)
    saved = {"cl100k_base": [1_234_567] * len(loaded.entries), "o200k_base": [-7_654_321] * len(loaded.entries)}
    view.tokens_saved = saved
    from inspector.views.dictionary import column_widths

    view.widths = column_widths(loaded, saved)
    row = view.row_text(0, 80)
    assert len(row) <= 80
    assert row.split()[-3:] == [f"{loaded.bytes_saved(0):,}", "1,234,567", "-7,654,321"]
    assert f"{loaded.reference_counts[0]:,}" in row.split()
    header = header_text(80, 0, False, view.widths)
    assert header.index("o200k") + len("o200k") == len(row)  # the header stands over its column


def test_at_80_columns_the_trees_labels_keep_their_figures_whole():
    async def scenario():
        app = InspectorApp(None, path=str(WIRES / "http_app_routing.graph.model-text"), count_tokens=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.press("p")
            await pilot.pause()
            tree = app.query_one("#dissection")
            labels = [str(n.label) for n in tree.root.children]
            revision = next(label for label in labels if label.startswith("source_revision"))
            assert revision.endswith("(71 bytes)") and "…" in revision
            assert all(len(label) + 3 + tree.guide_depth <= 80 for label in labels)
    run(scenario())


def test_source_figures_that_arrive_as_the_app_closes_are_dropped(tmp_path):
    # the sources worker may answer while the app closes and its panes are gone
    # (a Pilot test that ended right after a load failed so): the figures are
    # dropped, not a NoMatches out of the message handler
    from inspector.sources import SourcesCounted

    (tmp_path / "banking_ledger.py").write_bytes((ROOT / "examples" / "banking_ledger.py").read_bytes())

    async def scenario():
        app = InspectorApp(None, path="banking_ledger.py", profile="graph", workspace=str(tmp_path))
        async with app.run_test(size=(160, 48)) as pilot:
            await _counted(app, pilot)
            await app.query_one("#overview-pane").remove()
            app.on_sources_counted(SourcesCounted(app.loaded, None, "no sources at hand"))
    run(scenario())
