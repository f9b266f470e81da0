"""Every rejection of docs/wire-format.md §5.2 (each decoding step, and each case of the
re-encode step), of v1 text and of v1 binary: its code, the byte it names, and a
message that says what was wrong."""

from __future__ import annotations

import pytest
from wirekit import PAD, REVISION, binary, digest_of, leb128, rejected, v1, v2

import codec
from codec import CompactError

OK_DOC = b'{"a":[1,"x"]}'
BIG = b"[" + PAD + b',"abcdefghijklmnop","abcdefghijklmnop","qqqqqqqqqqqqqqqqqq","qqqqqqqqqqqqqqqqqq"]'
BIG_ENTRIES = [b'"abcdefghijklmnop"', b'"qqqqqqqqqqqqqqqqqq"']
BIG_BODY = b"[" + PAD + b",@0,@0,@1,@1]"


def test_valid_handmade_wires_decode():
    assert codec.decode_model_text(v2(OK_DOC)).selected == OK_DOC
    assert codec.decode_model_text(v2(BIG, BIG_ENTRIES, BIG_BODY)).selected == BIG
    assert codec.decode_text(v1(OK_DOC)).selected == OK_DOC


# --- step 1: envelope and metadata -------------------------------------------------

HEADER_LEN = len(b"SEMAPRAX-MODEL-TEXT 2\n")


@pytest.mark.parametrize(
    "mutate, code, offset, words",
    [
        (lambda w: b"SEMAPRAX-MODEL-TEXT 2 \n" + w[HEADER_LEN:], "compact.envelope", 21, "header"),
        (lambda w: b"SEMAPRAX-MODEL-TEXT 3\n" + w[HEADER_LEN:], "compact.envelope", 20, "version"),
        (lambda w: w.replace(b"profile 5", b"profile 05", 1), "compact.envelope", HEADER_LEN + 8, "leading zero"),
        (lambda w: w.replace(b"profile 5", b"profile  5", 1), "compact.envelope", HEADER_LEN + 8, "digits"),
        (lambda w: w.replace(b"profile 5", b"profile 4097", 1), "compact.limit", HEADER_LEN + 8, "4,096"),
        (lambda w: w.replace(b"profile 5", b"profile 12345", 1), "compact.limit", HEADER_LEN + 12, "more than 4 digits"),
        (lambda w: w.replace(b"profile 5 graph", b"profile 4 graph", 1), "compact.envelope", HEADER_LEN + 14, "LF"),
        (lambda w: w.replace(b"root 4 a.py\n", b"", 1), "compact.envelope", None, "order"),
        (lambda w: w.replace(b"profile", b"Profile", 1), "compact.envelope", HEADER_LEN, "field"),
    ],
)
def test_envelope_rejections(mutate, code, offset, words):
    error = rejected(codec.decode_model_text, mutate(v2(OK_DOC)))
    assert error.code == code
    if offset is not None:
        assert error.offset == offset
    assert words in error.message


def test_fields_out_of_order_named():
    wire = v2(OK_DOC)
    start = wire.index(b"root ")
    root_line = b"root 4 a.py\n"
    rev_end = wire.index(b"source_digest ")
    swapped = wire[:start] + wire[start + len(root_line):rev_end] + root_line + wire[rev_end:]
    error = rejected(codec.decode_model_text, swapped)
    assert error.code == "compact.envelope"
    assert "expected root, found source_revision" in error.message
    assert error.offset == start


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"profile": b"callgraph"}, "unknown profile"),
        ({"profile": b""}, "profile is empty"),
        ({"root": b""}, "root is empty"),
        ({"revision": b"\xff\xfe"}, "not valid UTF-8"),
        ({"digest": b"sha256:" + b"A" * 64}, "lowercase hex"),
        ({"digest": b"sha1:abc"}, "lowercase hex"),
    ],
)
def test_metadata_rejections(kw, words):
    wire = v2(OK_DOC, **kw)
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.metadata"
    assert words in error.message
    assert wire[error.offset - 1:error.offset] == b" "  # points at the value


def test_root_and_revision_may_hold_lf_and_spaces():
    wire = v2(OK_DOC, root=b"odd\nroot name", revision=b"rev with spaces")
    p = codec.decode_model_text(wire)
    assert (p.root, p.source_revision) == ("odd\nroot name", "rev with spaces")


# --- step 2: dictionary ------------------------------------------------------------


def test_dictionary_count_spelling_and_limit():
    wire = v2(BIG, BIG_ENTRIES, BIG_BODY)
    assert rejected(codec.decode_model_text, wire.replace(b"dict 2\n", b"dict 02\n")).code == "compact.envelope"
    assert rejected(codec.decode_model_text, wire.replace(b"dict 2\n", b"dict x\n")).code == "compact.envelope"
    error = rejected(codec.decode_model_text, wire.replace(b"dict 2\n", b"dict 65537\n"))
    assert (error.code, "65,536" in error.message) == ("compact.limit", True)
    assert rejected(codec.decode_model_text, wire.replace(b"dict 2\n", b"dict 123456\n")).code == "compact.limit"


@pytest.mark.parametrize(
    "entry, words",
    [
        (b'"abcdefghijklmnop" ', "not exactly one JSON string literal"),
        (b"abcdefghijklmnop", "not exactly one JSON string literal"),
        (b'"abc\tdefghijklmnop"', "not exactly one"),
        (b'"abcdefghij\\xklmnop"', "not exactly one"),
        (b'"abcdefghijklmnop\xff"', "not exactly one"),
        (b'"abcdefghijklmnop', "not exactly one"),
    ],
)
def test_dictionary_entry_must_be_one_string_literal(entry, words):
    wire = v2(BIG, [entry, BIG_ENTRIES[1]], BIG_BODY)
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.dictionary"
    assert words in error.message and "entry 0" in error.message


def test_dictionary_fewer_or_more_entries_than_declared():
    wire = v2(BIG, BIG_ENTRIES, BIG_BODY)
    fewer = wire.replace(b"dict 2\n", b"dict 3\n")
    error = rejected(codec.decode_model_text, fewer)
    assert error.code == "compact.dictionary" and "declares 3 entries but body starts after 2" in error.message
    more = wire.replace(b"dict 2\n", b"dict 1\n")
    error = rejected(codec.decode_model_text, more)
    assert error.code == "compact.dictionary" and "more dictionary entries" in error.message


# --- step 3: references ------------------------------------------------------------


@pytest.mark.parametrize(
    "ref, words",
    [
        (b"@", "must be followed by a dictionary index"),
        (b"@00", "leading zero"),
        (b"@01", "leading zero"),
        (b"@123456", "more than five digits"),
        (b"@2", "out of range"),
        (b"@65536", "out of range"),
    ],
)
def test_reference_rejections(ref, words):
    body = b"[" + PAD + b",@0,@0,@1,@1," + ref + b"]"
    wire = v2(BIG, BIG_ENTRIES, body)
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.reference"
    assert words in error.message
    assert wire[error.offset:error.offset + len(ref)] == ref


def test_reference_error_wins_over_later_faults():
    body = b"[" + PAD + b",@0,@9,@1,@1,@0]"
    wire = v2(BIG, BIG_ENTRIES, body)  # digest also wrong, but the reference comes first
    assert rejected(codec.decode_model_text, wire).code == "compact.reference"


@pytest.mark.parametrize(
    "frame, decoder, document",
    [(v2, codec.decode_model_text, b'{"a":[1,~0]}'), (v1, codec.decode_text, b'{"a":[1,@0]}')],
    ids=["tilde-in-v2", "at-in-v1"],
)
def test_tilde_has_no_meaning_in_v2_and_at_none_in_v1(frame, decoder, document):
    """The other form's marker is plain body bytes: the wire's digest is that of
    the body as it stands, so decoding gets past steps 3 and 4 and the marker is
    the first byte that is not JSON (step 5)."""
    wire = frame(document)
    error = rejected(decoder, wire)
    assert error.code == "compact.json"
    assert error.offset == wire.index(document) + document.index(b"0]") - 1


# --- step 4: digest ----------------------------------------------------------------


def test_digest_mismatch_names_both_digests():
    wire = v2(OK_DOC, digest=digest_of(b"other").encode())
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.digest"
    assert digest_of(OK_DOC) in error.message and digest_of(b"other") in error.message
    assert wire[error.offset:error.offset + 7] == b"sha256:"


def test_trailing_lf_is_explained():
    error = rejected(codec.decode_model_text, v2(OK_DOC) + b"\n")
    assert error.code == "compact.digest"
    assert "LF" in error.message and "editor" in error.message


# --- step 5: normalization ---------------------------------------------------------


@pytest.mark.parametrize(
    "doc, code, words",
    [
        (b'{"a":1,"a":2}', "compact.json", "duplicate object key"),
        (b"[NaN]", "compact.json", "NaN"),
        (b"[-Infinity]", "compact.json", "Infinity"),
        (b'["\\ud800"]', "compact.json", "surrogate"),
        (b'["\xed\xa0\x80"]', "compact.json", "UTF-8"),
        (b"\xef\xbb\xbf[1]", "compact.json", "byte-order mark"),
        (b"[1,]", "compact.json", "invalid JSON"),
        (b"", "compact.json", "empty"),
        (b"[1e400]", "compact.json", ""),
        (b"[1.0E5]", "compact.noncanonical", "canonical"),
        (b"[1, 2]", "compact.noncanonical", "canonical"),
        (b'{"b":1, "a":2}', "compact.noncanonical", "canonical"),
        (b'["\\u0041"]', "compact.noncanonical", "canonical"),
        (b'["\\/"]', "compact.noncanonical", "canonical"),
        (b"[-0]", "compact.noncanonical", "canonical"),
        (b"[1.50]", "compact.noncanonical", "canonical"),
        (b"[" * 513 + b"]" * 513, "compact.limit", "512"),
        (b"[" + b"9" * 4301 + b"]", "compact.limit", "4,300"),
    ],
)
def test_normalization_rejections(doc, code, words):
    for decoder, wire in ((codec.decode_model_text, v2(doc)), (codec.decode_text, v1(doc))):
        error = rejected(decoder, wire)
        assert error.code == code, (decoder.__name__, error)
        assert words in error.message


def test_normalization_accepts_the_limits_exactly():
    deep = b"[" * 512 + b"]" * 512
    assert codec.decode_model_text(v2(deep)).selected == deep
    digits = b"[" + b"9" * 4300 + b"]"
    assert codec.decode_model_text(v2(digits)).selected == digits


def test_noncanonical_json_names_found_and_canonical_bytes():
    wire = v2(b'{"a": 1}')
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.noncanonical"
    assert wire[error.offset:error.offset + 2] == b" 1"
    assert "found ' 1}'" in error.message and "canonical is '1}'" in error.message


def test_json_error_in_v2_body_is_reported_at_its_wire_byte():
    doc = b"[" + PAD + b',"abcdefghijklmnop","abcdefghijklmnop",tru]'
    body = b"[" + PAD + b",@0,@0,tru]"
    wire = v2(doc, [b'"abcdefghijklmnop"'], body)
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.json"
    assert wire[error.offset:error.offset + 3] == b"tru"
    # In the expanded document the same byte lies 2 * (18 - 2) bytes further on.
    assert doc.index(b"tru") - body.index(b"tru") == 32


def test_noncanonical_byte_inside_an_entry_points_into_the_dictionary():
    entry = b'"\\u0041bcdefghijklmnop"'  # \u0041 is 'A': valid, not canonical
    doc = b"[" + PAD + b"," + entry + b"," + entry + b"]"
    wire = v2(doc, [entry], b"[" + PAD + b",@0,@0]")
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.noncanonical"
    dict_at = wire.index(b"dict 1\n") + len(b"dict 1\n")
    assert dict_at <= error.offset < dict_at + len(entry)
    assert wire[error.offset:error.offset + 6] == b"\\u0041"


# --- step 6: the re-encode check ---------------------------------------------------


def _case(entries, body, doc=BIG):
    return v2(doc, entries, body)


@pytest.mark.parametrize(
    "wire, words",
    [
        (_case(BIG_ENTRIES[::-1], b"[" + PAD + b",@1,@1,@0,@0]"), "out of bytewise order"),
        (_case([BIG_ENTRIES[0], BIG_ENTRIES[0], BIG_ENTRIES[1]], b"[" + PAD + b",@0,@1,@2,@2]"), "duplicate"),
        (_case(BIG_ENTRIES + [b'"zzzzzzzzzzzzzzzzzz"'], BIG_BODY), "referenced 0 time"),
        (_case(BIG_ENTRIES, b"[" + PAD + b',@0,"abcdefghijklmnop",@1,@1]'), "referenced 1 time"),
        (_case([BIG_ENTRIES[1]], b"[" + PAD + b',"abcdefghijklmnop","abcdefghijklmnop",@0,@0]'),
         "missing dictionary entry"),
        (_case(BIG_ENTRIES, b"[" + PAD + b',@0,@0,@1,@1,"abcdefghijklmnop"]',
               doc=BIG[:-1] + b',"abcdefghijklmnop"]'), "missing reference"),
        (_case([b'"p"'], b"[" + PAD + b",@0,@0]", doc=b"[" + PAD + b',"p","p"]'), "under the 16-byte"),
        (v2(b'["abcdefghijklmnop","abcdefghijklmnop"]', [b'"abcdefghijklmnop"'], b"[@0,@0]"),
         "unnecessary dictionary"),
    ],
)
def test_reencode_rejections(wire, words):
    error = rejected(codec.decode_model_text, wire)
    assert error.code == "compact.noncanonical"
    assert words in error.message
    assert error.offset is not None and 0 <= error.offset < len(wire)


def test_missing_reference_points_at_inline_literal():
    doc = BIG[:-1] + b',"abcdefghijklmnop"]'
    wire = _case(BIG_ENTRIES, b"[" + PAD + b',@0,@0,@1,@1,"abcdefghijklmnop"]', doc=doc)
    error = rejected(codec.decode_model_text, wire)
    assert wire[error.offset:].startswith(b'"abcdefghijklmnop"]')
    assert "must be written @0" in error.message


# --- v1 text specifics -------------------------------------------------------------


@pytest.mark.parametrize(
    "doc, body, code, words",
    [
        (b'["abcd","abcd"]', b'["abcd",~1]', "compact.reference", "out of range"),
        (b'["abcd","abcd"]', b'["abcd",~]', "compact.reference", "followed by a table index"),
        (b'["abcd","abcd"]', b'["abcd",~00]', "compact.reference", "leading zero"),
        (b'["abcd","abcd"]', b'["abcd","abcd"]', "compact.noncanonical", "missing back-reference"),
        (b'["",""]', b'["",~0]', "compact.noncanonical", "unnecessary back-reference"),
    ],
)
def test_v1_text_rejections(doc, body, code, words):
    wire = v1(doc, body=body)
    error = rejected(codec.decode_text, wire)
    assert error.code == code
    assert words in error.message
    culprit = body[body.index(b"~"):] if b"~" in body else body[body.rindex(b'"abcd"'):]
    assert wire[error.offset:].startswith(culprit)


def test_v1_text_header_and_body_line():
    wire = v1(OK_DOC)
    assert rejected(codec.decode_text, b"SEMAPRAX-TEXT 2\n" + wire[16:]).code == "compact.envelope"
    assert rejected(codec.decode_text, wire.replace(b"body\n", b"bodY\n")).code == "compact.envelope"


# --- v1 binary specifics -----------------------------------------------------------

CBOR_OK = bytes.fromhex("a16161820161 78".replace(" ", ""))[:0] + bytes.fromhex("a1616182016178")


@pytest.mark.parametrize(
    "cbor, code, words",
    [
        (bytes.fromhex("a1616182016178") + b"\x00", "compact.noncanonical", "trailing"),
        (bytes.fromhex("a161618218016178"), "compact.noncanonical", "wider"),
        (bytes.fromhex("a161619f016178ff"), "compact.noncanonical", "indefinite"),
        (bytes.fromhex("a1616182f93c006178"), "compact.noncanonical", "float64"),
        (bytes.fromhex("a1616182fa3f8000006178"), "compact.noncanonical", "float64"),
        (bytes.fromhex("a1616182fb7ff80000000000006178"), "compact.json", "not a JSON number"),
        (bytes.fromhex("a16161824101 6178".replace(" ", "")), "compact.json", "byte string"),
        (bytes.fromhex("a1616182f76178"), "compact.json", "undefined"),
        (bytes.fromhex("a1616182f06178"), "compact.json", "simple value"),
        (bytes.fromhex("a1616182c1016178"), "compact.json", "tag 1"),
        (bytes.fromhex("a1018201 6178".replace(" ", "")), "compact.json", "not a text string"),
        (bytes.fromhex("a2616101616102"), "compact.noncanonical", "duplicate map key"),
        (bytes.fromhex("a16161826178"), "compact.envelope", "ends inside"),
        (bytes.fromhex("c24101"), "compact.noncanonical", "fits major type"),
        (bytes.fromhex("c249000100000000000000"), "compact.noncanonical", "leading zero"),
        (bytes.fromhex("a1616182ff6178"), "compact.noncanonical", "break"),
        (bytes.fromhex("a1616182fc6178"), "compact.noncanonical", "reserved"),
    ],
)
def test_binary_rejections(cbor, code, words):
    error = rejected(codec.decode_binary, binary(OK_DOC, cbor))
    assert error.code == code, error
    assert words in error.message


def test_binary_valid_handmade_and_leb128_rules():
    assert codec.decode_binary(binary(OK_DOC, CBOR_OK)).selected == OK_DOC
    wire = binary(OK_DOC, CBOR_OK)
    non_minimal = wire[:5] + b"\x85\x00" + wire[6:]
    error = rejected(codec.decode_binary, non_minimal)
    assert error.code == "compact.envelope" and "minimal" in error.message
    too_long = wire[:5] + leb128(4097) + b"g" * 4097 + wire[11:]
    assert rejected(codec.decode_binary, too_long).code == "compact.limit"
    three_bytes = wire[:5] + b"\x80\x80\x01" + wire[6:]
    assert rejected(codec.decode_binary, three_bytes).code == "compact.limit"
    assert rejected(codec.decode_binary, b"SPXB\x02" + wire[5:]).code == "compact.envelope"
    assert rejected(codec.decode_binary, binary(OK_DOC, b"")).code == "compact.envelope"


def test_binary_digest_is_over_the_selected_json():
    error = rejected(codec.decode_binary, binary(b'{"a":[1,"y"]}', CBOR_OK))
    assert error.code == "compact.digest"


# --- binding -------------------------------------------------------------------------


def test_binding_names_field_expected_and_found():
    wire = v2(OK_DOC)
    p = codec.decode_model_text_and_verify(wire, profile="graph", root="a.py", source_revision=REVISION)
    assert p.root == "a.py"
    with pytest.raises(CompactError) as info:
        codec.decode_model_text_and_verify(wire, profile="graph", root="b.py", source_revision=REVISION)
    assert info.value.code == "compact.binding"
    assert "root" in info.value.message and "'b.py'" in info.value.message and "'a.py'" in info.value.message
    assert info.value.offset is None


def test_decode_wire_recognises_forms():
    p = codec.CompactProjection("graph", "a.py", "r", OK_DOC)
    for form, encode in codec.ENCODERS.items():
        found = codec.decode_wire(encode(p))
        assert found.form == form
        assert found.selected == OK_DOC
        assert found.projection == (None if form == "json" else p)
    assert codec.decode_wire(encode(p)).format_version == 2
    assert rejected(codec.decode_wire, b"SEMAPRAX-OTHER 1\n").code == "compact.envelope"
    assert rejected(codec.decode_wire, b'{"a": 1}').code == "compact.noncanonical"


def test_constructor_rejections():
    with pytest.raises(CompactError) as info:
        codec.CompactProjection("callgraph", "a.py", "r", OK_DOC)
    assert info.value.code == "compact.metadata"
    for root, rev in (("", "r"), ("a.py", "")):
        with pytest.raises(CompactError):
            codec.CompactProjection("graph", root, rev, OK_DOC)
    with pytest.raises(CompactError) as info:
        codec.CompactProjection("graph", "a.py", "r", b'{"a": 1}')
    assert info.value.code == "compact.noncanonical"
    with pytest.raises(CompactError) as info:
        codec.CompactProjection.from_value("graph", "a.py", "r", [float("nan")])
    assert info.value.code == "compact.json"


def test_binary_document_size_is_checked_before_building_it():
    import cbor2

    text = "\x01" * (3 * 1024 * 1024)  # 3 MiB of CBOR, 18 MiB as JSON ("\u0001" each)
    body = cbor2.dumps([text])
    doc_digest = b"sha256:" + b"0" * 64
    error = rejected(codec.decode_binary, binary(None, body, digest=doc_digest))
    assert error.code == "compact.limit" and "as JSON" in error.message


def test_binary_json_length_accounting_is_exact(monkeypatch):
    import cbor2
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from codec import binary_v1

    values = st.recursive(
        st.none() | st.booleans() | st.integers(-(2**80), 2**80)
        | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
        max_leaves=30,
    )

    @settings(max_examples=300, deadline=None)
    @given(values)
    def check(value):
        body = cbor2.dumps(value)
        size = len(codec.canonical_json(value))
        monkeypatch.setattr(binary_v1.limits, "MAX_SELECTED_BYTES", size)
        binary_v1.check_cbor(body)  # exactly at the limit: accepted
        monkeypatch.setattr(binary_v1.limits, "MAX_SELECTED_BYTES", size - 1)
        with pytest.raises(CompactError) as info:
            binary_v1.check_cbor(body)
        assert info.value.code == "compact.limit"

    check()
