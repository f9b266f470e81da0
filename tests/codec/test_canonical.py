"""The canonical encoder is json.dumps with the options of docs/wire-format.md §1;
msgspec's encoder stands in for it on values without floats (codec/projection.py),
so these tests hold it to the same bytes: every code point, random documents,
and the values where the two could part (lone surrogates, big integers, floats)."""

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import codec
from codec import projection

msgspec = pytest.importorskip("msgspec")
FAST = msgspec.json.Encoder().encode


def reference(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def test_the_fast_path_is_in_use():
    assert projection._fast_encode() is not None


def test_every_code_point_is_spelled_alike():
    # every scalar value, one string each, in one document: equal documents mean
    # equal strings, since each string's spelling ends at its unescaped quote
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    runs = ["".join(chars[i:i + 256]) for i in range(0, len(chars), 256)]
    value = {"one by one": chars[:512], "in runs": runs, **{c: c for c in chars[:512]}}
    assert FAST(value) == reference(value)
    assert codec.canonical_json(value, floats=False) == reference(value)


@pytest.mark.parametrize("c", [0xD800, 0xDBFF, 0xDC00, 0xDFFF])
def test_lone_surrogates_are_refused_by_both(c):
    value = ["x" + chr(c)]
    with pytest.raises(UnicodeEncodeError):
        reference(value)
    with pytest.raises(codec.CompactError) as err:
        codec.canonical_json(value, floats=False)
    assert err.value.code == "compact.json"


def test_integers_of_every_size_are_spelled_alike():
    values = [0, -1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**64), -(2**64) - 1, 10**4299, -(10**4299)]
    assert FAST(values) == reference(values)


def test_floats_never_take_the_fast_path():
    # msgspec writes 1e16 where the canonical encoding is 1e+16
    assert FAST(1e16) != reference(1e16)
    assert codec.canonical_json([1e16]) == b"[1e+16]"
    assert codec.decode_json(b"[1e+16]") == b"[1e+16]"
    with pytest.raises(codec.CompactError) as err:
        codec.decode_json(b"[1e16]")
    assert err.value.code == "compact.noncanonical"


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-(10**40), max_value=10**40)
    | st.text(st.characters(exclude_categories=["Cs"])),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"])),
                                                                 inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(plain)
def test_random_float_free_documents_are_spelled_alike(value):
    assert FAST(value) == reference(value)
    doc = reference(value)
    assert codec.decode_json(doc) == doc


@settings(max_examples=300, deadline=None)
@given(plain, st.sampled_from([b" ", b"\\u0041", b"1E5", b"-0", b"\\/", b'"', b"}"]))
def test_a_changed_document_gets_the_same_verdict_as_json_dumps_gives(value, insert):
    doc = reference(value)
    for at in {0, len(doc) // 2, len(doc)}:
        mutated = doc[:at] + insert + doc[at:]
        try:
            got = codec.decode_json(mutated)
        except codec.CompactError as exc:
            got = exc.code
        try:
            again = reference(json.loads(mutated))
            expected = mutated if again == mutated else "other"
        except (ValueError, UnicodeEncodeError):
            expected = "other"
        assert (got == mutated) == (expected == mutated)
