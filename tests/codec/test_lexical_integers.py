"""Long integers are checked by their spelling, not converted (issue 13): every
JSON integer but ``-0`` is already canonical (docs/wire-format.md §1), so
``projection.normalize`` checks a document whose integers of 160 digits or more
are replaced by one-digit stand-ins (``scan.stand_in_integers``), and reads the
document as it stands whenever that check does not accept.

These tests hold the lexical path to the old reading (``lexical=False``: every
integer converted) on random and mutated documents, with the threshold lowered
to two digits so that small documents exercise it: the same verdict, code,
message and offset, or the same acceptance."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from wirekit import normalize_verdict as verdict

import codec
from codec import projection
from codec.scan import stand_in_integers


@pytest.fixture
def short_threshold(monkeypatch):
    monkeypatch.setattr(projection, "LEXICAL_INTEGER_DIGITS", 2)


integers = st.one_of(
    st.integers(-(10**30), 10**30),
    st.integers(min_value=0, max_value=40).map(lambda n: int("9" * n + "1") if n else 0),
)
scalars = st.one_of(integers, st.booleans(), st.none(), st.text(max_size=6),
                    st.floats(allow_nan=False, allow_infinity=False))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=20,
)
#: The bytes that make and break numbers, strings and structure.
NOISE = list(b'-0123456789.eE+"\\,:[]{} \x00a') + [0xC3]


@st.composite
def mutated(draw) -> bytes:
    doc = bytearray(codec.canonical_json(draw(values)))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(doc)))
        what = draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = draw(st.sampled_from(NOISE))
        if what == "insert" or at == len(doc):
            doc[at:at] = bytes([byte])
        elif what == "delete":
            del doc[at]
        else:
            doc[at] = byte
    return bytes(doc)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated())
@example(b"[-0,123]")
@example(b"[123,-0]")
@example(b"[0123,45]")
@example(b"[12.345,678]")
@example(b"[1e123,45]")
@example(b"[1-123]")
@example(b"[--123]")
@example(b'["a"123]')
@example(b'[123"a"]')
@example(b"[123 ]")
@example(b'{"a":123,"a":456}')
@example(b"[123,NaN]")
@example(b"[123,1e400]")
@example(b'[123,"\\ud800"]')
def test_the_lexical_path_keeps_every_verdict(short_threshold, doc):
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values)
def test_canonical_documents_are_accepted_by_the_stand_ins(short_threshold, value):
    doc = codec.canonical_json(value)
    skeleton = b"".join(codec.scan.split_strings(doc)[0::2])
    stood_in = stand_in_integers(skeleton, 2)[1]
    # accepted on the lexical path itself whenever it has an integer to stand in for
    assert projection._canonical_with_stand_ins(doc, skeleton) == (stood_in > 0)
    assert verdict(doc, lexical=True) == ("ok",)


def test_stand_ins_take_whole_integer_tokens_only():
    data = b"[1234567,-1234567,0.1234567,1e1234567,01234567,--1234567,1-1234567,\x00-1234567\x00,12345678901]"
    out, n = stand_in_integers(data, 5)
    assert out == b"[1,-1,0.1234567,1e1234567,01234567,--1234567,1-1234567,\x00-1\x00,1]"
    assert n == 4
    assert stand_in_integers(b"[" + b"7" * 4301 + b"]", 5) == (b"[" + b"7" * 4301 + b"]", 0)
    assert stand_in_integers(b"[" + b"7" * 4300 + b"]", 5) == (b"[1]", 1)


def test_a_long_valid_integer_is_not_converted():
    # Under an interpreter limit of 640 digits, converting the 1,000-digit integer
    # raises; the lexical path accepts the document without converting it (so its
    # verdict no longer depends on that setting either).
    doc = b"[" + b"7" * 1000 + b',"x",-' + b"8" * 4300 + b"]"
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert verdict(doc, lexical=False)[0] == "compact.json"
        assert verdict(doc, lexical=True) == ("ok",)
    finally:
        sys.set_int_max_str_digits(before)
    assert codec.decode_json(doc) == doc


@pytest.mark.parametrize("doc, code, offset", [
    (b"[" + b"1" * 200 + b",-0]", "compact.noncanonical", 202),
    (b"[" + b"1" * 200 + b", 2]", "compact.noncanonical", 202),
    (b"[" + b"1" * 200 + b"," + b"2" * 4301 + b"]", "compact.limit", 202),
    (b"[" + b"1" * 200 + b',"a":1]', "compact.json", 205),
    (b"[0" + b"1" * 200 + b"]", "compact.json", 2),
])
def test_long_integers_beside_a_fault_keep_its_code_and_offset(doc, code, offset):
    for lexical in (True, False):
        with pytest.raises(codec.CompactError) as err:
            projection._normalize(doc, None, lexical=lexical)
        assert (err.value.code, err.value.offset) == (code, offset)


def test_every_form_accepts_long_integers_through_the_lexical_path():
    doc = b"[" + b",".join([b"9" * 4300, b'"' + b"k" * 20 + b'"'] * 8) + b"]"
    p = codec.CompactProjection("graph", "r", "sha256:" + "0" * 64, doc)
    for form, encode in codec.ENCODERS.items():
        assert codec.decode_wire(encode(p)).selected == doc, form
