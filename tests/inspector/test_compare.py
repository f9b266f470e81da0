"""Comparing two wires: the pure diff (inspector/compare.py) and the compare
view driven through Pilot in the three cases it is for: a wire against the
same view after a source edit, a wire rejected for its digest against its
replay from the workspace, and a noncanonical wire against its canonical
re-encoding."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pilotkit import press, step
from textual.widgets import DataTable, Static

from inspector.app import InspectorApp
from inspector.compare import (
    NothingToCompare,
    StructuralDiff,
    Target,
    align,
    compare,
    delta,
    dictionary_diff,
    envelope_diff,
    parse,
    preview,
    resolve,
)
from inspector.compare_screen import CompareScreen, CompareWithScreen
from inspector.model import load_bytes
from semaprax.cli import main as semaprax
from semaprax.inspect import build_parser, compare_target

ROOT = Path(__file__).resolve().parents[2]
LEDGER_WIRES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledger-wires"  # a graph wire with a dictionary, fixed
LEDGER = LEDGER_WIRES / "banking_ledger.graph.model-text"
NONCANONICAL = ROOT / "examples" / "rejected" / "compact.noncanonical.model-text"
SIZE = (120, 36)

MODULE = '''"""A tiny module for compare tests."""


def tally(rows):
    return sum(rows)


def report(rows):
    return f"total {tally(rows)}"
'''


def changes(old, new) -> list[tuple[str, str, str, str]]:
    a, b = parse(json.dumps(old).encode()), parse(json.dumps(new).encode())
    return [(c.kind, c.path, c.old, c.new) for c in StructuralDiff(a, b)]


# --- the structural diff --------------------------------------------------------------


def test_a_changed_value_is_named_by_its_json_path():
    assert changes({"definitions": {"rows": [[1, 2], [3, 4]]}}, {"definitions": {"rows": [[1, 2], [5, 4]]}}) == [
        ("changed", ".definitions.rows[1][0]", "3", "5")]


def test_added_and_removed_keys_and_keys_that_need_quoting():
    assert changes({"a b": 1, "x": [1]}, {"a b": 1, "y": None}) == [
        ("removed", ".x", "[1]", ""), ("added", ".y", "", "null")]
    assert changes({"a b": [1]}, {"a b": [2]}) == [("changed", '.["a b"][0]', "1", "2")]


def test_an_item_inserted_into_an_array_is_one_addition_not_a_shifted_tail():
    assert changes(list(range(50)), [*range(20), "new", *range(20, 50)]) == [("added", ".[20]", "", '"new"')]
    assert changes(list(range(50)), [*range(20), *range(21, 50)]) == [("removed", ".[20]", "20", "")]


def test_items_compared_at_moved_positions_say_both_indices():
    old = [{"k": i} for i in range(10)]
    new = [{"k": "first"}] + [{"k": i} for i in range(10) if i != 5] + [{"k": 55}]
    found = changes(old, new)
    assert ("added", ".[0]", "", '{"k":"first"}') in found
    assert all(kind != "changed" or "→" in path or path == ".[10].k" for kind, path, _, _ in found)


def test_json_types_stay_apart_where_python_equality_does_not():
    # Python says 1 == 1.0 == True; the documents' bytes do not
    assert changes([1, 1.0, True], [True, 1, 1.0]) != []
    assert changes({"n": 1}, {"n": 1.0}) == [("changed", ".n", "1", "1.0")]
    assert changes({"n": True}, {"n": 1}) == [("changed", ".n", "true", "1")]


def test_key_order_is_a_difference_the_digest_sees():
    assert changes({"a": 1, "b": 2}, {"b": 2, "a": 1}) == [("reordered", ".", '["a","b"]', '["b","a"]')]


def test_progress_rises_to_one():
    diff = StructuralDiff(parse(b"[[1],[2],[3],[4]]"), parse(b"[[1],[9],[3],[8]]"))
    seen = []
    for _ in diff:
        seen.append(diff.progress)
    assert seen == [0.5, 1.0]  # each item is a quarter of the walk: the 2nd and the 4th differ


def test_align_matches_common_ends_and_the_middle():
    assert align([1, 2, 3], [1, 2, 3]) == [("equal", 0, 3, 0, 3)]
    assert align([1, 2, 3], [1, 9, 3]) == [("equal", 0, 1, 0, 1), ("replace", 1, 2, 1, 2), ("equal", 2, 3, 2, 3)]


def test_preview_is_short_json():
    assert preview(parse(b'{"a":[1,2.5,"x",null,true]}')) == '{"a":[1,2.5,"x",null,true]}'
    long = preview(parse(json.dumps(["y" * 100]).encode()), limit=20)
    assert len(long) == 20 and long.endswith("…")


def test_output_is_bounded_but_every_change_is_counted():
    old = {"rows": list(range(3000))}
    new = {"rows": [-i for i in range(3000)]}
    left = load_bytes(json.dumps(old, separators=(",", ":")).encode(), "old")
    right = load_bytes(json.dumps(new, separators=(",", ":")).encode(), "new")
    *_, last = compare(left, right, shown=100, count_tokens=False)
    assert len(last.changes) == 100 and last.total_changes == 2999  # 0 == -0
    assert dict(last.counts) == {"changed": 2999} and last.progress == 1.0


# --- envelope, dictionary, rejected sides ------------------------------------------------------


def test_envelope_rows_mark_what_differs():
    left = load_bytes(LEDGER.read_bytes(), "ledger")
    right = load_bytes((LEDGER_WIRES / "banking_ledger.graph.text").read_bytes(), "text")
    rows = {f.name: f for f in envelope_diff(left, right)}
    assert not rows["form"].same and rows["form"].right == "v1 text"
    assert rows["profile"].same and rows["source_digest"].same and rows["document bytes"].same
    assert rows["dict"].left == "60 entries" and rows["dict"].right == ""


def test_dictionary_entries_added_removed_and_kept_with_their_uses():
    left = load_bytes(LEDGER.read_bytes(), "ledger")
    entries, note = dictionary_diff(left, left)
    assert note == "" and {e.status for e in entries} == {"kept"}
    assert [(e.left_uses, e.right_uses) for e in entries] == [(n, n) for n in left.reference_counts]
    text = load_bytes((LEDGER_WIRES / "banking_ledger.graph.text").read_bytes(), "text")
    entries, note = dictionary_diff(left, text)
    assert {e.status for e in entries} == {"removed"} and "v1 text, which has no dictionary" in note


def test_a_side_with_no_document_is_compared_as_far_as_it_was_read():
    left = load_bytes(LEDGER.read_bytes(), "ledger")
    broken = load_bytes(LEDGER.read_bytes().replace(b"SEMAPRAX-MODEL-TEXT 2\n", b"SEMAPRAX-MODEL-TEXT 2\r\n"), "b")
    *_, last = compare(left, broken, count_tokens=False)
    assert "the right wire's document could not be rebuilt: no structural diff" == last.diff_note
    assert any("right wire is rejected (compact.envelope at byte 21)" in n for n in last.notes)
    assert {f.name: f.right for f in last.fields}["status"] == "rejected: compact.envelope at byte 21"


def test_nothing_to_replay_or_re_encode_says_why():
    json_wire = load_bytes((LEDGER_WIRES / "banking_ledger.graph.json").read_bytes(), "j")
    with pytest.raises(NothingToCompare, match="full JSON carries none"):
        resolve(json_wire, Target("replay", "."))
    nothing = load_bytes(b"SEMAPRAX-MODEL-TEXT 2\nprofile 5 graph\n", "cut")
    with pytest.raises(NothingToCompare, match="no document was rebuilt"):
        resolve(nothing, Target("canonical"))


def test_command_line_targets():
    parser = build_parser()
    assert compare_target(parser.parse_args([str(LEDGER), str(NONCANONICAL)]), parser) == Target(
        "file", str(NONCANONICAL))
    assert compare_target(parser.parse_args([str(LEDGER), "--replay", "--workspace", "ws"]), parser) == Target(
        "replay", "ws")
    assert compare_target(parser.parse_args([str(LEDGER), "--canonical"]), parser) == Target("canonical")
    assert compare_target(parser.parse_args([str(LEDGER)]), parser) is None
    with pytest.raises(SystemExit):
        compare_target(parser.parse_args([str(LEDGER), "--canonical", "--replay"]), parser)


# --- the compare view, through Pilot -----------------------------------------------------------


def run(coro):
    return asyncio.run(coro)


def produce(workspace: Path, out: Path, encoding: str = "model-text") -> bytes:
    assert semaprax(["project", "tally.py", "--profile", "graph", "--encoding", encoding,
                     "--workspace", str(workspace), "-o", str(out)]) == 0
    return out.read_bytes()


async def compared(app: InspectorApp, pilot) -> CompareScreen:
    for _ in range(200):
        await step(pilot)
        await app.workers.wait_for_complete()
        screen = app.screen
        if isinstance(screen, CompareScreen):
            await screen.workers.wait_for_complete()
            await step(pilot)
            if screen.comparison is not None and screen.comparison.done:
                return screen
    raise AssertionError("the compare view did not finish")


def rows(screen: CompareScreen, table_id: str) -> list[list[str]]:
    table = screen.query_one(table_id, DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def status(screen: CompareScreen) -> str:
    return str(screen.query_one("#compare-status", Static).content)


def test_a_wire_against_the_same_view_after_a_source_edit(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "tally.py").write_text(MODULE)
    before = produce(ws, tmp_path / "before.model-text")
    (ws / "tally.py").write_text(MODULE.replace("def report(rows):", "def summary(rows):"))
    produce(ws, tmp_path / "after.model-text")

    async def scenario():
        app = InspectorApp(load_bytes(before, "before.model-text"), count_tokens=False,
                           compare=Target("file", str(tmp_path / "after.model-text")))
        async with app.run_test(size=SIZE) as pilot:
            screen = await compared(app, pilot)
            c = screen.comparison
            fields = {f.name: f.same for f in c.fields}
            assert fields["profile"] and fields["root"] and not fields["source_revision"]
            assert not fields["source_digest"]
            found = [(ch.kind, ch.path, ch.old, ch.new) for ch in c.changes]
            assert found == [("changed", ".definitions.rows[1][1]", '"report(rows)"', '"summary(rows)"')]
            assert [r[1] for r in rows(screen, "#compare-changes")] == [ch.path for ch in c.changes]
            assert c.tokens == (None, None)  # not counted: the app was told not to
            assert f"{len(found)} structural difference" in status(screen)
            await press(pilot, "escape")
            await step(pilot)
            assert not isinstance(app.screen, CompareScreen)
    run(scenario())


def test_a_digest_failure_against_its_replay_names_the_edited_path(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "tally.py").write_text(MODULE)
    wire = produce(ws, tmp_path / "view.model-text")
    assert wire.count(b'[[8,9],"report(rows)"') == 1
    tampered = tmp_path / "tampered.model-text"
    # an edit by hand: the digest no longer matches
    tampered.write_bytes(wire.replace(b'[[8,9],"report(rows)"', b'[[8,7],"report(rows)"'))

    async def scenario():
        app = InspectorApp(path=str(tampered), count_tokens=False, compare=Target("replay", str(ws)))
        async with app.run_test(size=SIZE) as pilot:
            screen = await compared(app, pilot)
            c = screen.comparison
            assert c.left.error.code == "compact.digest"
            assert any("left wire is rejected (compact.digest" in n for n in c.notes)
            assert [(ch.kind, ch.path, ch.old, ch.new) for ch in c.changes] == [
                ("changed", ".definitions.rows[1][0][1]", "7", "9")]
            assert "the left wire is rejected (compact.digest" in str(screen.query_one("#compare-notes", Static).content)
            assert screen.query_one("#compare-heading", Static).content.plain.endswith(f"replay from {ws}")
    run(scenario())


def test_a_noncanonical_wire_against_its_canonical_re_encoding_from_the_verify_tab():
    async def scenario():
        app = InspectorApp(load_bytes(NONCANONICAL.read_bytes(), "noncanonical"), count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await step(pilot)
            await app.workers.wait_for_complete()
            app.action_verify()
            await step(pilot)
            button = app.query_one("#compare-canonical-button")
            assert button.display and app.query_one("#canon-panes").display  # the side-by-side view stays
            button.press()
            screen = await compared(app, pilot)
            c = screen.comparison
            assert c.changes == () and c.diff_note == "the documents are the same bytes"
            (entry,) = c.entries  # the literal the producer left inline should have been @0
            assert entry.status == "kept" and entry.right_uses == entry.left_uses + 1
            fields = {f.name: f for f in c.fields}
            assert fields["status"].left.startswith("rejected: compact.noncanonical") and fields["status"].right == "valid"
            assert fields["source_digest"].same and not fields["wire bytes"].same
            assert "the documents are the same bytes" in status(screen)
    run(scenario())


def test_the_compare_command_asks_for_the_other_file():
    async def scenario():
        app = InspectorApp(load_bytes(LEDGER.read_bytes(), "ledger"), count_tokens=True)
        async with app.run_test(size=SIZE) as pilot:
            await step(pilot)
            await press(pilot, "C")
            await step(pilot)
            assert isinstance(app.screen, CompareWithScreen)
            path = app.screen.query_one("#compare-path")
            path.value = str(LEDGER_WIRES / "banking_ledger.graph.text")
            path.focus()
            await press(pilot, "enter")
            screen = await compared(app, pilot)
            c = screen.comparison
            assert c.diff_note == "the documents are the same bytes"
            left, right = c.tokens
            assert left == codec_tokens(LEDGER.read_bytes())
            assert right == codec_tokens((LEDGER_WIRES / "banking_ledger.graph.text").read_bytes())
            a, b = left["cl100k_base"], right["cl100k_base"]
            table = screen.query_one("#compare-fields", DataTable)
            assert [str(c) for c in table.get_row("cl100k_base tokens")] == [
                "cl100k_base tokens", f"{a:,}", f"{b:,}", delta(a, b)]
            a, b = len(LEDGER.read_bytes()), len((LEDGER_WIRES / "banking_ledger.graph.text").read_bytes())
            assert [str(c) for c in table.get_row("wire bytes")] == ["wire bytes ≠", f"{a:,}", f"{b:,}", delta(a, b)]
    run(scenario())


def codec_tokens(data: bytes) -> dict[str, int]:
    from views import tokens

    return tokens.count_tokens(data)


def test_a_file_that_cannot_be_read_is_said_so(tmp_path):
    async def scenario():
        app = InspectorApp(load_bytes(LEDGER.read_bytes(), "ledger"), count_tokens=False,
                           compare=Target("file", str(tmp_path / "missing.model-text")))
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(50):
                await step(pilot)
                if isinstance(app.screen, CompareScreen):
                    await app.screen.workers.wait_for_complete()
                    await step(pilot)
                    break
            assert "could not compare with" in status(app.screen)
            assert app.screen.comparison is None
    run(scenario())


def test_long_arrays_are_aligned_by_their_unique_items(monkeypatch):
    import inspector.compare as compare_module

    monkeypatch.setattr(compare_module, "ALIGN_LIMIT", 10)  # the patience path, on a small input
    old = [{"n": i} for i in range(100)]
    new = [{"n": i} for i in range(100) if i != 10]
    new.insert(50, {"n": "new"})
    new[70] = {"n": -70}
    assert changes(old, new) == [("removed", ".[10]", '{"n":10}', ""), ("added", ".[50]", "", '{"n":"new"}'),
                                 ("changed", ".[70].n", "70", "-70")]
    # repeated items are no anchors, but the gaps between anchors are aligned again
    assert changes([0, 1, 1, 1, 2, 3], [0, 1, 1, 2, 3]) == [("removed", ".[3]", "1", "")]


def test_snapshots_grow_and_cancelling_stops_them():
    old = {"rows": list(range(500))}
    new = {"rows": [-i - 1 for i in range(500)]}
    left = load_bytes(json.dumps(old, separators=(",", ":")).encode(), "old")
    right = load_bytes(json.dumps(new, separators=(",", ":")).encode(), "new")
    snapshots = list(compare(left, right, every=100, count_tokens=False))
    progress = [s.progress for s in snapshots]
    assert progress == sorted(progress) and progress[-1] == 1.0 and snapshots[-1].done
    assert [s.total_changes for s in snapshots] == [0, 1, 101, 201, 301, 401, 500, 500]
    walk = compare(left, right, every=100, count_tokens=False, cancelled=lambda: asked.append(1) or len(asked) > 2)
    asked: list[int] = []
    seen = list(walk)  # cancelled at its third check, in the diff
    assert [s.total_changes for s in seen] == [0, 1, 101] and not seen[-1].done


def test_a_tab_key_leaves_the_compare_view_for_that_tab():
    async def scenario():
        app = InspectorApp(load_bytes(LEDGER.read_bytes(), "ledger"), count_tokens=False,
                           compare=Target("canonical"))
        async with app.run_test(size=SIZE) as pilot:
            await compared(app, pilot)
            await press(pilot, "d")
            await step(pilot)
            await step(pilot)
            assert not isinstance(app.screen, CompareScreen) and app.tabbed.active == "dictionary"
    run(scenario())


def test_a_failure_inside_the_comparison_is_said_on_screen(monkeypatch):
    import inspector.compare_screen as screen_module

    def broken(*args, **kwargs):
        raise KeyError("a bug")
        yield

    monkeypatch.setattr(screen_module, "compare", broken)

    async def scenario():
        app = InspectorApp(load_bytes(LEDGER.read_bytes(), "ledger"), count_tokens=False, compare=Target("canonical"))
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(50):
                await step(pilot)
                if isinstance(app.screen, CompareScreen) and "failed" in status(app.screen):
                    break
            assert "could not compare with canonical re-encoding: the comparison failed (KeyError('a bug'))" in status(
                app.screen)
            assert not app.screen.query_one("#compare-progress").display  # no full bar for work never done
    run(scenario())


def test_semaprax_inspect_with_two_wires_opens_the_compare_view(monkeypatch):
    opened = []
    monkeypatch.setattr(InspectorApp, "run", lambda self: opened.append((self._path, self._compare_on_load)))
    other = LEDGER_WIRES / "banking_ledger.graph.text"
    assert semaprax(["inspect", str(LEDGER), str(other)]) == 0
    assert opened == [(str(LEDGER), Target("file", str(other)))]


# --- compare that aligns (issue 24) -----------------------------------------------------


def test_one_function_inserted_in_the_middle_is_one_row_added(tmp_path):
    """Rows with a name are aligned by it: the inserted function is one row
    added, nothing removed, and the rows below it are counted as shifted (their
    line numbers moved), not changed."""
    from heldout import held_out_wire

    before = load_bytes(held_out_wire(tmp_path / "a"), "before")
    after = load_bytes(held_out_wire(tmp_path / "b", insert_at=35), "after")
    *_, c = compare(before, after, count_tokens=False)
    counts = dict(c.counts)
    added = [x for x in c.changes if x.kind == "added"]
    assert len(added) == 1 and added[0].path.startswith(".definitions.rows[") and "inserted_audit_step" in added[0].new
    assert counts.get("removed", 0) == 0
    assert counts == {"changed": 1, "added": 1, "shifted": 35}  # .lines, the row, the 35 rows after it
    assert {x.by for x in c.changes if x.kind == "shifted"} == {3}
    assert c.total_changes == 2
    assert c.summary().startswith("2 structural differences (1 changed, 1 added); 35 rows only shifted")


def test_rows_without_identity_are_aligned_by_lcs():
    old = {"xs": [[1, 2], [3, 4], [5, 6]]}
    new = {"xs": [[1, 2], [9, 9], [3, 4], [5, 6]]}
    assert changes(old, new) == [("added", ".xs[1]", "", "[9,9]")]
    objs_old = {"defs": [{"name": "a", "line": 1}, {"name": "b", "line": 5}]}
    objs_new = {"defs": [{"name": "z", "line": 1}, {"name": "a", "line": 3}, {"name": "b", "line": 7}]}
    assert [k for k, *_ in changes(objs_old, objs_new)] == ["added", "shifted", "shifted"]


def test_a_valid_document_500_deep_compares_without_recursion_error():
    old = b'{"k":' * 500 + b"[1]" + b"}" * 500
    new = b'{"k":' * 500 + b"[2]" + b"}" * 500
    (change,) = StructuralDiff(parse(old), parse(new))
    assert change.kind == "changed" and change.path.endswith(".k[0]") and change.path.count(".k") == 500


def test_n_steps_through_changes_and_enter_opens_the_path_in_the_body(tmp_path):
    from heldout import held_out_wire

    left = tmp_path / "before.model-text"
    right = tmp_path / "after.model-text"
    left.write_bytes(held_out_wire(tmp_path / "a"))
    right.write_bytes(held_out_wire(tmp_path / "b", insert_at=35))

    async def scenario():
        app = InspectorApp(load_bytes(left.read_bytes(), str(left), path=str(left)), count_tokens=False,
                           compare=Target("file", str(right)))
        async with app.run_test(size=SIZE) as pilot:
            screen = await compared(app, pilot)
            assert "2 structural differences (1 changed, 1 added); 35 rows only shifted" in status(screen)
            table = screen.query_one("#compare-changes", DataTable)
            kinds = [c.kind for c in screen.comparison.changes]
            await pilot.press("n")
            assert kinds[table.cursor_row] == "added"
            await pilot.press("n")  # past the shifted rows, round to the first change
            assert table.cursor_row == 0 and kinds[0] == "changed"
            await pilot.press("N")
            assert kinds[table.cursor_row] == "added"
            await pilot.press("o")  # the added row is on the right side only
            await pilot.pause()
            await settle(app, pilot)
            assert not isinstance(app.screen, CompareScreen) and app.tabbed.active == "body"
            loaded = app.loaded
            assert loaded.name == str(right)
            doc = app.selection.doc
            assert loaded.document[doc[0]:doc[0] + 32] == b'[[220,221],"inserted_audit_step('
            # Enter opens a change in the left side
            app.open_compare(Target("file", str(right)), load_bytes(left.read_bytes(), str(left)))
            screen = await compared(app, pilot)
            table = screen.query_one("#compare-changes", DataTable)
            table.focus()
            await pilot.press("enter")  # the first change: .lines
            await settle(app, pilot)
            assert app.tabbed.active == "body" and app.loaded.name == str(left)
            doc = app.selection.doc
            assert app.loaded.document[doc[0]:doc[0] + 3] == b"428"
    run(scenario())


async def settle(app, pilot):
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
