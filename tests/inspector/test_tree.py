"""The dissection tree: its shape for each form (exact labels), the malformed
node of a rejected wire, laziness, and each link of the cursor through it
(tree to bytes, bytes to tree, body to tree)."""

from __future__ import annotations

import json
import re

import pytest
from pilotkit import press, step
from test_inspector import LEDGER, LEDGER_WIRES, REJECTED, opened, run

import codec
from codec.projection import source_digest
from inspector.dissect import Dissection, cut
from inspector.model import load_bytes, load_path

SMALL_DOC = (b'{"calls":["acme.http.Response","acme.http.Response"],"n":[1,-2,3.5,true,false,null],'
             b'"ret":"acme.http.Response"}')
SMALL = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, SMALL_DOC)


def labels(d: Dissection, node=None, level: int = 0) -> list[str]:
    """Every label of the tree, opened all the way, indented by depth."""
    node = node or d.root()
    out = ["  " * level + node.text]
    if node.expandable:
        for child in d.children(node):
            out += labels(d, child, level + 1)
    return out


def node_at(d: Dissection, keys):
    """The node the keys name, reached by building each level's children."""
    node = d.root()
    for key in keys[1:]:
        node = next(c for c in d.children(node) if c.key == key)
    return node


ENVELOPE = [
    "  profile: graph", "    name: profile", "    length: 5 bytes", "    value: graph",
    "  root: acme/service.py", "    name: root", "    length: 15 bytes", "    value: acme/service.py",
    "  source_revision: sha256:00000000000000000000000000000000000000000… (71 bytes)",
    "    name: source_revision", "    length: 71 bytes",
    "    value: sha256:00000000000000000000000000000000000000000… (71 bytes)",
]
STRUCTURE = [
    "    {…} 3 members", "      \"calls\": […] 2 items", "        [0] \"acme.http.Response\"", None,
    "      \"n\": […] 6 items", "        [0] 1", "        [1] -2", "        [2] 3.5", "        [3] true",
    "        [4] false", "        [5] null", None,
]


def _expected(form: str, wire: bytes) -> list[str]:
    digest = source_digest(SMALL_DOC)
    envelope = ENVELOPE + [f"  source_digest: {digest[:48]}… (71 bytes)", "    name: source_digest",
                           "    length: 71 bytes", f"    value: {digest[:48]}… (71 bytes)"]
    later = '"acme.http.Response"'
    if form == "text":
        first = wire.index(b'"acme.http.Response"')
        later = f'~1 "acme.http.Response" (as at byte {first:,})'
    structure = [s if s is not None else None for s in STRUCTURE]
    structure[3] = f"        [1] {later}"
    structure[11] = f"      \"ret\": {later}"
    if form == "json":
        return ["full JSON wire, 111 bytes", "  document: 111 bytes", *structure]
    if form == "binary":
        envelope = [line.replace("    name: ", "") for line in envelope if "    name: " not in line]
        envelope = [line.replace("length: 5 bytes", "length: 0x05 = 5 bytes (LEB128)")
                    .replace("length: 15 bytes", "length: 0x0f = 15 bytes (LEB128)")
                    .replace("length: 71 bytes", "length: 0x47 = 71 bytes (LEB128)") for line in envelope]
        body = len(wire) - wire.index(b"\xa3")
        return [f"v1 binary (CBOR) wire, {len(wire)} bytes", "  magic SPXB\\x01", *envelope,
                f"  body: CBOR, {body} bytes", *structure]
    if form == "text":
        return [f"v1 text wire, {len(wire)} bytes", "  header SEMAPRAX-TEXT 1", *envelope, "  body line",
                "  body: 75 bytes, 2 references (~k), 111 bytes expanded", *structure]
    return [f"v2 model-text wire, {len(wire)} bytes", "  header SEMAPRAX-MODEL-TEXT 2", *envelope, "  dict 0",
            "  body line", "  body: 111 bytes, 0 references (@N), 111 bytes expanded", *structure]


@pytest.mark.parametrize("form", ["model-text", "text", "binary", "json"])
def test_each_form_has_its_tree(form):
    wire = codec.ENCODERS[form](SMALL)
    assert labels(Dissection(load_bytes(wire, "small"))) == _expected(form, wire)


def test_v2_references_name_their_entry_and_span_their_token():
    loaded = load_path(str(LEDGER))
    d = Dissection(loaded)
    seen = 0
    for k in range(0, len(loaded.ref_wire), 5):
        at, i = loaded.ref_wire[k], loaded.ref_index[k]
        node = node_at(d, d.path(at + 1))
        literal = json.loads(loaded.entries[i])
        assert f"@{i} \"{literal[:20]}" in node.text
        assert node.start <= at and at + len(f"@{i}") <= node.end
        assert node.doc[0] <= loaded.ref_doc[k] and loaded.ref_doc[k] + len(loaded.entries[i]) <= node.doc[1]
        if node.text.startswith("["):  # an array's item: the node is the @N itself
            assert loaded.wire[node.start:node.end] == b"@%d" % i
            seen += 1
    assert seen


def test_v1_text_back_references_name_their_first_appearance():
    loaded = load_path(str(LEDGER_WIRES / "banking_ledger.graph.text"))
    d = Dissection(loaded)
    layout = loaded.layout
    k = next(k for k in range(len(layout.ref_wire)) if layout.ref_index[k] > 3)
    i, at = layout.ref_index[k], layout.ref_wire[k]
    node = node_at(d, d.path(at))
    assert f"~{i} " in node.text and f"(as at byte {layout.entry_spans[i].start:,})" in node.text
    # the node's document span holds the literal the ~k stands for
    assert loaded.document[node.doc[0]:node.doc[1]].endswith(layout.entries[i])


def test_every_byte_has_a_deepest_node_that_holds_it():
    for path in (LEDGER, LEDGER_WIRES / "banking_ledger.graph.text", LEDGER_WIRES / "banking_ledger.graph.binary",
                 LEDGER_WIRES / "banking_ledger.graph.json"):
        loaded = load_path(str(path))
        d = Dissection(loaded)
        built: dict = {}  # each node's children built once, by key, not again for every byte
        for offset in range(0, len(loaded.wire), 13):
            node = d.root()
            for key in d.path(offset)[1:]:
                if node.key not in built:
                    built[node.key] = {c.key: c for c in d.children(node)}
                node = built[node.key][key]
            assert node.start <= offset < node.end, (path.name, offset, node)


@pytest.mark.parametrize("name", sorted(p.name for p in REJECTED.iterdir()))
def test_a_rejected_wire_has_a_malformed_node_at_the_failing_byte(name):
    loaded = load_path(str(REJECTED / name))
    d = Dissection(loaded)
    keys = d.path(loaded.error.offset)
    assert keys[-1] == ("malformed",)
    node = node_at(d, keys)
    assert node.kind == "malformed" and node.start == loaded.error.offset
    assert node.text.startswith(f"malformed at byte {loaded.error.offset:,}: {loaded.error.code}: ")
    # it hangs under the deepest part holding that byte: that part holds the byte too
    holder = node_at(d, keys[:-1])
    assert holder.start <= loaded.error.offset < max(holder.end, holder.start + 1) or holder.key == ("wire",)


def _small_wire() -> bytes:
    return codec.encode_model_text(SMALL)


def test_a_truncated_body_stops_at_its_malformed_node():
    wire = _small_wire()
    body = wire.index(b"body\n") + 5
    doc = wire[body:-8]  # cut inside the last string, the digest made to match
    wire = wire[:body].replace(source_digest(SMALL_DOC).encode(), source_digest(doc).encode()) + doc
    loaded = load_bytes(wire, "truncated")
    assert loaded.error.code == "compact.json"
    d = Dissection(loaded)
    assert labels(d)[-2:] == ['      "ret": "acme.http.Re',
                              f"        malformed at byte {loaded.error.offset:,}: compact.json: {loaded.error.message}"]
    assert loaded.wire[loaded.error.offset:] == b'"acme.http.Re'  # the string that never ends
    assert d.path(loaded.error.offset)[-1] == ("malformed",)


def test_a_bad_length_shows_what_parsed_and_the_malformed_node():
    wire = _small_wire().replace(b"profile 5 graph", b"profile 6 graph", 1)
    loaded = load_bytes(wire, "bad length")
    assert loaded.error.code == "compact.envelope"
    tree = labels(Dissection(loaded))
    assert tree[:2] == [f"v2 model-text wire, {len(wire)} bytes, rejected (compact.envelope)",
                        "  header SEMAPRAX-MODEL-TEXT 2"]
    assert tree[2] == f"  malformed at byte {loaded.error.offset:,}: compact.envelope: {loaded.error.message}"
    assert len(tree) == 3  # nothing after the field that could not be framed was read


def test_long_child_lists_are_grouped_so_little_is_built():
    doc = json.dumps({"rows": [[i, f"name {i}"] for i in range(25_000)]}, separators=(",", ":")).encode()
    d = Dissection(load_bytes(doc, "big.json"))
    body = node_at(d, [("wire",), ("body",)])
    (top,) = d.children(body)
    (rows,) = d.children(top)
    assert rows.text == '"rows": […] 25,000 items'
    groups = d.children(rows)
    assert [g.text for g in groups[:2]] == ["items 0 … 9,999", "items 10,000 … 19,999"] and len(groups) == 3
    inner = d.children(groups[2])
    assert len(inner) == 50 and inner[0].text == "items 20,000 … 20,099"
    assert [n.text for n in d.children(inner[0])[:2]] == ["[20000] […] 2 items", "[20001] […] 2 items"]
    # the path to a byte goes through the groups, bisected, not built
    at = doc.index(b'"name 23456"')
    keys = d.path(at)
    assert keys[3:6] == [rows.key, ("range", rows.key, 20_000, 25_000), ("range", rows.key, 23_400, 23_500)]
    assert len(keys) == 8  # then the item and its string
    assert node_at(d, d.path(at)).text == '[1] "name 23456"'


# --- the tree tab and the linked cursor --------------------------------------------------


def _tree_nodes(tree) -> int:
    count, todo = 0, [tree.root]
    while todo:
        node = todo.pop()
        count += 1
        todo.extend(node.children)
    return count


def test_a_big_wire_builds_few_tree_nodes_until_opened():
    doc = json.dumps({"rows": [[i, f"name {i}"] for i in range(25_000)]}, separators=(",", ":")).encode()

    async def scenario():
        async with opened(load_bytes(doc, "big.json")) as (app, pilot):
            await press(pilot, "p")
            await step(pilot)
            tree = app.pane("tree").tree
            assert _tree_nodes(tree) == 2  # the wire and its document
            app.select_wire(doc.index(b'"name 23456"'))
            await step(pilot)
            assert tree.cursor_node.data.text == '[1] "name 23456"'
            assert _tree_nodes(tree) < 300  # one path of groups, each level at most CHUNK wide
    run(scenario())


def test_selecting_a_node_selects_its_bytes_in_the_hex_view():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            await press(pilot, "p")
            await step(pilot)
            await press(pilot, "down", "down")  # the root, then the header, then the profile field
            await step(pilot)
            field = loaded.fields[0]
            assert (app.selection.start, app.selection.end, app.selection.origin) == \
                (field.line.start, field.line.end, "tree")
            hexview = app.bytes_pane.hex
            assert hexview.cursor_offset == field.line.start
            assert hexview.selected == (field.line.start, field.line.end)
            # a JSON value of the body: its wire bytes, and its document text in the body panes
            for key in ("down",) * 6 + ("space", "down", "space", "down"):
                await press(pilot, key)
            await step(pilot)
            node = app.pane("tree").tree.cursor_node.data
            assert node.text == '"module": "banking_ledger"'
            assert loaded.wire[node.start:node.end] == b'"module":"banking_ledger"'
            assert hexview.selected == (node.start, node.end) and hexview.cursor_offset == node.start
            assert app.selection.doc == node.doc
            assert loaded.document[node.doc[0]:node.doc[1]] == b'"module":"banking_ledger"'
            assert app.body.expanded.cursor_offset == node.doc[0]
    run(scenario())


def test_a_byte_selects_its_deepest_node():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            k = next(k for k, i in enumerate(loaded.ref_index) if k > 3)
            at = loaded.ref_wire[k]
            await press(pilot, "x")
            app.bytes_pane.hex.go_to_offset(at - 1)
            await press(pilot, "right")  # onto the @N, in the byte view
            await step(pilot)
            await press(pilot, "p")  # the tree follows when it is shown
            await step(pilot)
            d = app.pane("tree").dissection
            node = app.pane("tree").tree.cursor_node.data
            assert node.key == d.path(at)[-1] and f"@{loaded.ref_index[k]} " in node.text
            # the tab's own hex view: a byte of the header selects the header node, announced
            pane = app.pane("tree")
            pane.hex.focus()
            pane.hex.go_to_offset(3)
            await press(pilot, "right")
            await step(pilot)
            assert pane.tree.cursor_node.data.key == ("header",)
            assert (app.selection.start, app.selection.end, app.selection.at) == (0, 22, 4)
            assert app.bytes_pane.hex.selected == (0, 22)
    run(scenario())


def test_the_body_cursor_on_an_at_n_selects_the_node_naming_its_entry():
    async def scenario():
        async with opened(LEDGER) as (app, pilot):
            loaded = app.loaded
            d = Dissection(loaded)
            k = next(k for k in range(len(loaded.ref_wire))
                     if node_at(d, d.path(loaded.ref_wire[k])).text.startswith("["))  # an item, not a member
            i, at = loaded.ref_index[k], loaded.ref_wire[k]
            await press(pilot, "p")
            await press(pilot, "b")
            app.body.compact.go_to_offset(at - loaded.body_start - 1)
            await press(pilot, "right")
            await step(pilot)
            await press(pilot, "p")
            await step(pilot)
            node = app.pane("tree").tree.cursor_node.data
            assert re.fullmatch(rf"\[\d+\] @{i} " + re.escape(cut(loaded.entries[i])), node.text)
            assert loaded.wire[node.start:node.end] == b"@%d" % i
            # and the tree did not announce it back: the body's selection stands
            assert app.selection.origin == "body"
    run(scenario())


def test_the_diagnostic_selects_the_malformed_node():
    async def scenario():
        async with opened(REJECTED / "compact.reference.model-text") as (app, pilot):
            await press(pilot, "p")
            await press(pilot, "exclamation_mark")
            await step(pilot)
            node = app.pane("tree").tree.cursor_node
            assert node.data.kind == "malformed"
            assert node.data.text.startswith(f"malformed at byte {app.loaded.error.offset:,}: compact.reference")
            assert node.parent.data.key == ("body",)
    run(scenario())



@pytest.mark.parametrize("form", ["model-text", "text", "binary", "json"])
def test_broken_wires_give_a_tree_whose_paths_exist(form):
    """Truncated and bit-flipped copies of a small wire (brackets closing the
    wrong container among them): the tree builds, every byte's path names
    nodes that exist, and the diagnostic's byte is the malformed node."""
    wire = codec.ENCODERS[form](SMALL)
    broken = [wire[:cut] for cut in range(0, len(wire), 3)]
    broken += [wire[:at] + bytes([b]) + wire[at + 1:] for at in range(0, len(wire), 5) for b in b'}],"\xff']
    for data in broken:
        loaded = load_bytes(data, "broken")
        d = Dissection(loaded)
        labels(d)
        for offset in range(0, len(data) + 1, 11):
            node_at(d, d.path(offset))
        if loaded.error is not None and loaded.error.offset is not None:
            assert node_at(d, d.path(loaded.error.offset)).kind == "malformed"
