"""The structured parse that tools (the inspector) show: every span and every
reference must point at exactly the bytes it names, and a rejected wire still
yields everything read before the failure."""

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
