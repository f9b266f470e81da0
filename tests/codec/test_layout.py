"""The structured parse that tools (the inspector) show: every span and every
reference must point at exactly the bytes it names, and a rejected wire still
yields everything read before the failure."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wirekit import PAD, v2

import codec


def big_projection():
    doc = (b'{"pad":' + PAD + b',"abcdefghijklmnopqr":"abcdefghijklmnopqr",'
           b'"list":["abcdefghijklmn","abcdefghijklmn","@1 is text","abcdefghijklmn"]}')
    return codec.CompactProjection("graph", "pkg/a.py", "rev", doc)


def test_spans_name_their_bytes():
    p = big_projection()
    wire = codec.encode_model_text(p)
    layout = codec.layout_model_text(wire)
    assert layout.valid and layout.wire_size == len(wire)
    assert wire[layout.header.start:layout.header.end] == b"SEMAPRAX-MODEL-TEXT 2\n"
    assert [f.name for f in layout.fields] == ["profile", "root", "source_revision", "source_digest"]
    for f, value in zip(layout.fields, ("graph", "pkg/a.py", "rev", p.source_digest)):
        assert wire[f.value.start:f.value.end] == value.encode() == f.raw
        assert wire[f.length.start:f.length.end] == b"%d" % len(value)
        assert wire[f.line.start:f.line.end] == f.name.encode() + b" %d " % len(value) + value.encode() + b"\n"
    assert wire[layout.dict_line.start:layout.dict_line.end] == b"dict 2\n"
    for span, entry in zip(layout.entry_spans, layout.entries):
        assert wire[span.start:span.end] == entry
    assert wire[layout.body_marker.start:layout.body_marker.end] == b"body\n"
    assert wire[layout.body.start:] == wire[layout.body.start:layout.body.end]
    assert layout.metadata == ("graph", "pkg/a.py", "rev", p.source_digest)
    assert layout.document == p.selected


def test_references_with_wire_and_document_positions():
    p = big_projection()
    wire = codec.encode_model_text(p)
    layout = codec.layout_model_text(wire)
    assert layout.entries == (b'"abcdefghijklmn"', b'"abcdefghijklmnopqr"')
    assert layout.reference_counts == (3, 2)
    assert list(layout.ref_index) == [1, 1, 0, 0, 0]
    for at, index, doc_at in zip(layout.ref_wire, layout.ref_index, layout.ref_doc):
        token = b"@%d" % index
        assert wire[at:at + len(token)] == token
        entry = layout.entries[index]
        assert p.selected[doc_at:doc_at + len(entry)] == entry
    # "@1 is text" is content, not a reference
    assert len(layout.ref_wire) == 5


def test_rejected_wire_keeps_what_was_read():
    doc = b"[" + PAD + b',"abcdefghijklmnop","abcdefghijklmnop"]'
    wire = v2(doc, [b'"abcdefghijklmnop"'], b"[" + PAD + b",@0,@7]")
    layout = codec.layout_model_text(wire)
    assert not layout.valid
    assert layout.error.code == "compact.reference"
    assert wire[layout.error.offset:layout.error.offset + 2] == b"@7"
    assert layout.metadata[0] == "graph"
    assert layout.entries == (b'"abcdefghijklmnop"',)
    assert list(layout.ref_index) == [0]  # the reference before the bad one
    assert layout.document is None


def test_envelope_failure_layout():
    layout = codec.layout_model_text(b"SEMAPRAX-MODEL-TEXT 2\nprofile 5 gra")
    assert layout.error.code == "compact.envelope"
    assert layout.fields == () and layout.entries == () and layout.body is None


def test_digest_failure_still_has_document():
    wire = codec.encode_model_text(big_projection()) + b"\n"
    layout = codec.layout_model_text(wire)
    assert layout.error.code == "compact.digest"
    assert layout.document.endswith(b"}\n")
    assert layout.reference_counts == (3, 2)


# --- layout_wire: the same kind of layout for every form --------------------------------

FORMS = ("json", "text", "binary", "model-text")
WIRES = Path(__file__).resolve().parents[2] / "examples" / "wires"


def nested_projection():
    value = {"defs": [{"name": "pkg.mod.Handler.get", "kind": "method", "n": i, "f": 1.5, "ok": i % 2 == 0,
                       "doc": None, "calls": ["pkg.mod.Handler.post", "é\"@~", 18446744073709551616]}
                      for i in range(200)], "pad": PAD.decode()[1:-1]}
    return codec.CompactProjection.from_value("graph", "pkg/mod.py", "rev", value)


@pytest.mark.parametrize("form", FORMS)
def test_every_form_has_a_layout_whose_spans_name_their_bytes(form):
    p = nested_projection()
    wire = codec.ENCODERS[form](p)
    layout = codec.layout_wire(wire)
    assert layout.valid and layout.form == form and layout.stage is None
    assert layout.document == p.selected and layout.stopped_at == len(wire)
    assert wire[layout.body.start:layout.body.end] == wire[layout.body.start:] and layout.body.end == len(wire)
    if form == "json":
        assert layout.header is None and layout.fields == () and layout.body.start == 0
        return
    header = {"text": b"SEMAPRAX-TEXT 1\n", "binary": b"SPXB\x01", "model-text": b"SEMAPRAX-MODEL-TEXT 2\n"}[form]
    assert wire[layout.header.start:layout.header.end] == header
    assert layout.metadata == ("graph", "pkg/mod.py", "rev", p.source_digest)
    for f, value in zip(layout.fields, layout.metadata):
        assert wire[f.value.start:f.value.end] == value.encode() == f.raw
        if form == "binary":  # the LEB128 length
            assert wire[f.length.start] == len(value)
        else:
            assert wire[f.length.start:f.length.end] == b"%d" % len(value)


@pytest.mark.parametrize("form", ["text", "model-text"])
def test_every_reference_points_at_its_token_and_its_expansion(form):
    p = nested_projection()
    wire = codec.ENCODERS[form](p)
    layout = codec.layout_wire(wire)
    refs = layout.references
    assert len(refs) == len(layout.ref_wire) > 200
    assert sum(layout.reference_counts) == len(refs)
    for ref in refs:
        assert wire[ref.wire.start:ref.wire.end] == layout.reference_token(ref.index)
        assert p.selected[ref.document.start:ref.document.end] == layout.entries[ref.index]
    for span, entry in zip(layout.entry_spans, layout.entries):
        assert wire[span.start:span.end] == entry
    # the document is the body with each reference replaced by its entry
    body, at, out = wire[layout.body.start:], layout.body.start, []
    for ref in refs:
        out += [wire[at:ref.wire.start], layout.entries[ref.index]]
        at = ref.wire.end
    assert b"".join(out) + wire[at:] == p.selected
    del body


def test_v1_text_table_is_the_literals_in_order_of_first_appearance():
    p = codec.CompactProjection.from_value("graph", "m.py", "rev", ["", "", "xyz", "xyz", {"xyz": "a"}])
    wire = codec.encode_text(p)
    layout = codec.layout_wire(wire)
    assert layout.entries == (b'""', b'"xyz"', b'"a"')
    assert [(r.index, wire[r.wire.start:r.wire.end]) for r in layout.references] == [(1, b"~1"), (1, b"~1")]
    assert layout.reference_counts == (0, 2, 0)


def test_cbor_items_nest_and_cover_the_body():
    p = nested_projection()
    wire = codec.encode_binary(p)
    layout = codec.layout_wire(wire)
    items = layout.cbor
    assert items.start[0] == layout.body.start and items.end[0] == len(wire) and items.parent[0] == -1
    assert items.major[0] == 5
    for k in range(1, len(items)):
        parent = items.parent[k]
        assert items.start[parent] < items.start[k] < items.end[k] <= items.end[parent]
        assert items.start[k] < items.head_end[k] <= items.end[k]
    # every text string's payload is its UTF-8 text
    texts = [wire[items.head_end[k]:items.end[k]].decode() for k in range(len(items)) if items.major[k] == 3]
    assert "pkg.mod.Handler.get" in texts and 'é"@~' in texts
    # one CBOR item per JSON value (keys included), as the JSON layout counts them
    assert len(items) == len(codec.layout_wire(p.selected).values)


def test_json_values_span_each_value():
    p = nested_projection()
    layout = codec.layout_wire(p.selected)
    values = layout.values
    assert values.start[0] == 0 and values.end[0] == len(p.selected) and values.kind[:1] == b"o"
    for k in range(len(values)):
        piece = p.selected[values.start[k]:values.end[k]]
        json.loads(piece)  # each span is exactly one JSON value
    assert set(values.kind) == set(b"oasntfz")


def test_unknown_header_has_a_layout_too():
    layout = codec.layout_wire(b"SEMAPRAX-OTHER 1\n")
    assert layout.form == "unknown" and layout.error.code == "compact.envelope" and layout.stage == "envelope"


def _decoder_verdict(wire):
    try:
        codec.decode_wire(wire)
    except codec.CompactError as exc:
        return exc.code, exc.offset
    return None


def _check_agrees(wire):
    layout = codec.layout_wire(wire)
    expected = _decoder_verdict(wire)
    found = None if layout.error is None else (layout.error.code, layout.error.offset)
    assert found == expected
    assert 0 <= layout.stopped_at <= len(wire)
    # references are listed only as far as expansion read (a later stage's error,
    # such as the digest's, stands before the body but comes after expansion)
    reading = layout.stage in ("envelope", "dictionary", "expand")
    for at in layout.ref_wire:
        assert at < len(wire) and (not reading or at < layout.stopped_at)
    for span in (*layout.entry_spans, *(f.line for f in layout.fields)):
        assert 0 <= span.start <= span.end <= len(wire)
    if layout.cbor is not None:
        assert all(0 <= s <= len(wire) for s in layout.cbor.start)


def test_layout_agrees_with_the_decoder_on_every_example_wire():
    for path in sorted(WIRES.iterdir()):
        _check_agrees(path.read_bytes())


_SMALL = codec.CompactProjection.from_value(
    "graph", "m.py", "rev", {"a": ["xyzxyzxyz", "xyzxyzxyz", 1, -2.5, True, None], "b": {"c": "é@~"}})


@settings(max_examples=300, deadline=None)
@given(form=st.sampled_from(FORMS), data=st.data())
def test_layout_agrees_with_the_decoder_on_mutated_wires(form, data):
    wire = bytearray(codec.ENCODERS[form](_SMALL))
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        at = data.draw(st.integers(0, max(len(wire) - 1, 0)))
        if op == "flip" and wire:
            wire[at] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del wire[at:]
        else:
            wire[at:at] = data.draw(st.sampled_from([b"~0", b"@0", b'"', b"\\", b"~", b"@", b"\x00", b"[", b"}"]))
    _check_agrees(bytes(wire))


@pytest.mark.parametrize("form", ["text", "binary", "model-text"])
def test_the_layout_says_whether_the_digest_was_verified(form):
    p = nested_projection()
    wire = codec.ENCODERS[form](p)
    layout = codec.layout_wire(wire)
    assert layout.projection == p and layout.digest_verified is True
    digest = layout.fields[3].value
    tampered = wire[:digest.start + 10] + (b"0" if wire[digest.start + 10] != 0x30 else b"1") + wire[digest.start + 11:]
    bad = codec.layout_wire(tampered)
    assert bad.stage == "verify_digest" and bad.digest_verified is False and bad.projection is None
    assert codec.layout_wire(wire[:10]).digest_verified is None
    assert codec.layout_wire(p.selected).digest_verified is None


@pytest.mark.parametrize("form", ["model-text", "text", "binary", "json"])
def test_a_layout_through_the_envelope_reads_the_envelope_only(form):
    wire = (WIRES / f"http_app_routing.graph.{form}").read_bytes()
    full = codec.layout_wire(wire)
    early = codec.layout_wire(wire, through="dictionary")
    assert full.valid and full.digest_verified in (True, None)
    assert early.error is None and early.fields == full.fields and early.body == full.body
    assert early.dict_line == full.dict_line and early.body_marker == full.body_marker
    assert early.declared_entries == full.declared_entries == (len(full.entries) if form == "model-text" else None)
    if form != "json":  # full JSON has no stage before its normalization
        assert early.partial and not early.valid
        assert early.projection is None and early.digest_verified is None
        assert len(early.ref_wire) == 0


def test_a_layout_through_the_envelope_still_reports_a_broken_envelope():
    wire = (WIRES / "http_app_routing.graph.model-text").read_bytes()
    early = codec.layout_wire(wire.replace(b"root 19 ", b"root 5000 ", 1), through="envelope")
    assert early.error is not None and early.error.code == "compact.limit" and not early.partial
