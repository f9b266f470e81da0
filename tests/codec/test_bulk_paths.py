"""The bulk paths of the codec (v1 text encoding and decoding, v2 expansion outside
strings) against the token-by-token readings of docs/wire-format.md §5 and §6: the
same bytes, the same verdicts."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import codec
from codec import text_v1
from codec.scan import split_body

words = st.sampled_from(["", "a", "ab", "x\"y", "p@q", "~1", "é", "back\\slash", "pkg.mod.Handler.get", "\n"])
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 500) | words,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(words, inner, max_size=4),
    max_leaves=40,
)


def canonical(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@settings(max_examples=200, deadline=None)
@given(values)
def test_v1_text_body_in_bulk_is_the_token_by_token_body(value):
    doc = canonical(value)
    body = text_v1.text_body(doc)
    assert body == text_v1._text_body_slowly(doc)
    assert text_v1._expand_in_bulk(body)[0] == doc  # dense in ~k or not: expanded a chunk at a time
    assert codec.decode_text(codec.encode_text(codec.CompactProjection("graph", "m", "r", doc))).selected == doc


def slow_reading(body: bytes):
    try:
        parts, _, problem = text_v1._expand(split_body(body, b"~"), 0)
    except codec.CompactError:
        return None
    return None if problem is not None else b"".join(parts)


@settings(max_examples=300, deadline=None)
@given(values, st.data())
def test_v1_bulk_decoding_accepts_only_what_the_reading_accepts(value, data):
    body = bytearray(text_v1.text_body(canonical(value)))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(body)))
        piece = data.draw(st.sampled_from([b"~0", b"~1", b"~01", b"~", b'"ab"', b'"a"', b"~9", b"\\", b'"']))
        if data.draw(st.booleans()):
            body[at:at] = piece
        else:
            del body[at:at + len(piece)]
    body = bytes(body)
    bulk = text_v1._expand_in_bulk(body)
    if bulk is not None:  # whatever the bulk path accepts, the reading accepts with the same bytes
        assert slow_reading(body) == bulk[0]


@settings(max_examples=60, deadline=None)
@given(values)
def test_v2_expansion_with_at_in_strings_matches_the_tokens(value):
    pad = "p" * 16400
    doc = canonical({"pad": pad, "v": value, "w": value, "k": ["a@b is not a reference", "a@b is not a reference"]})
    p = codec.CompactProjection("graph", "m.py", "rev", doc)
    wire = codec.encode_model_text(p)
    assert codec.decode_model_text(wire) == p
    assert codec.layout_wire(wire).document == doc
