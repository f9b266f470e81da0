"""v1 text's bulk paths against docs/wire-format.md §6 read token by token
(issue 14): the encoder's two bulk writers (many strings, few strings) write the
token-by-token body, and the bulk decoder, which proves a body canonical from its
structure instead of encoding the document again, accepts exactly the bodies the
token-by-token reading accepts with no problem, with the same document. Whatever
it does not accept goes to that reading, which alone decides codes and offsets."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import codec
from codec import text_v1
from codec.scan import split_body

words = st.sampled_from(["", "a", "ab", "abc", "abcd", "x\"y", "~1", "é", "back\\slash", "pkg.mod.Handler.get", "\n"])
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 500) | words,
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(words, inner, max_size=4),
    max_leaves=60,
)
#: many distinct short strings, so table indices reach two and three digits and
#: short repeated strings stay inline because their reference would not be shorter
many = st.lists(st.integers(0, 400), min_size=1, max_size=300).map(
    lambda ks: [f"s{k}" if k % 3 else "ab" for k in ks]
)


def reading(body: bytes) -> bytes | None:
    """The document the token-by-token reading of §6 builds, or None when it
    finds any fault (a bad reference, or a noncanonical spelling)."""
    try:
        parts, _, problem = text_v1._expand(split_body(body, b"~"), 0)
    except codec.CompactError:
        return None
    return None if problem is not None else b"".join(parts)


@pytest.fixture(params=[0, 10**9], ids=["bulk writer", "few-strings writer"])
def writer(request, monkeypatch):
    monkeypatch.setattr(text_v1, "_FEW_STRINGS", request.param)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(values, many))
def test_both_writers_write_the_token_by_token_body(writer, value):
    doc = codec.canonical_json(value)
    assert text_v1.text_body(doc) == text_v1._text_body_slowly(doc)


@st.composite
def bodies(draw) -> bytes:
    body = bytearray(text_v1._text_body_slowly(codec.canonical_json(draw(st.one_of(values, many)))))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(body)))
        piece = draw(st.sampled_from([b"~0", b"~1", b"~2", b"~01", b"~", b"~12", b'"ab"', b'"a"', b'"abcd"',
                                      b'"s1"', b"~9", b"\\", b'"', b",", b"1"]))
        if draw(st.booleans()):
            body[at:at] = piece
        else:
            del body[at:at + len(piece)]
    return bytes(body)


@pytest.fixture(params=[1 << 20, 4], ids=["one chunk", "chunks of 4 bytes"])
def chunk(request, monkeypatch):
    monkeypatch.setattr(text_v1, "_CHUNK", request.param)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies())
@example(b'[~0,"abcd"]')  # a reference to the next entry, before it is read
@example(b'["abcd",~1,"efgh"]')
@example(b'["abcd","abcd"]')  # a literal that should have been ~0
@example(b'["ab",~0]')  # ~0 is not shorter than "ab"
@example(b'["","",""]')
@example(b'["abcd",~00]')
@example(b'["abcd",~0,~0]')
def test_the_bulk_decoder_accepts_exactly_what_the_reading_accepts(chunk, body):
    bulk = text_v1._expand_in_bulk(body)
    if bulk is None:
        # refused: the reading finds a fault, or the body is one the bulk path leaves alone
        assert reading(body) is None or b"\x00" in body or codec.scan.quote_split(body) is None
    else:
        assert bulk[0] == reading(body)
        assert text_v1._text_body_slowly(bulk[0]) == body


def test_premature_references_are_refused_where_they_stand():
    # a reference to entry 1 before "efgh" is read, though "efgh" comes later
    wire = codec.encode_text(codec.CompactProjection("graph", "r", "v", b'["abcd","efgh","efgh"]'))
    body_at = wire.index(b"body\n") + 5
    bad = wire[:body_at] + b'["abcd",~1,"efgh"]'
    with pytest.raises(codec.CompactError) as err:
        codec.decode_text(bad)
    assert err.value.code == "compact.reference"
    assert err.value.offset == body_at + 8


def test_table_indices_past_the_kept_spellings():
    # more than 65,536 table entries: spellings past the kept ones are made on the spot
    names = [f"n{k:06d}" for k in range(70_000)]
    doc = codec.canonical_json(names + names[::-1])
    body = text_v1.text_body(doc)
    assert body == text_v1._text_body_slowly(doc)
    assert b"~69999" in body
    assert text_v1._expand_in_bulk(body)[0] == doc
