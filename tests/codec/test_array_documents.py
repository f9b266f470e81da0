"""A document of arrays and scalars is proved canonical without building its
value (issue 23: 8 M one-item lists nested 511 deep are 840 MiB as a value):
``projection._array_document_is_canonical`` checks each token's spelling and
what follows it in one pass (``scan.canonical_array_tokens``) and the bracket
depths from their runs. It only ever accepts; any other document is read as it
stands.

These tests hold it to the reading that parses every document and encodes it
again (``lexical=False``): the same verdict, code, message and offset on random
and mutated documents, and no acceptance the parser would not give."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import codec
from codec import projection
from codec.scan import canonical_array_tokens


def verdict(doc: bytes, lexical: bool) -> tuple:
    try:
        projection._normalize(doc, None, lexical=lexical)
    except codec.CompactError as exc:
        return (exc.code, exc.message, exc.offset)
    return ("ok",)


def proved(doc: bytes) -> bool:
    """The proof, on a document that passed the checks before it (UTF-8, depth)."""
    try:
        doc.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return projection._array_document_is_canonical(doc, projection._skeleton_of(doc))


scalars = st.one_of(
    st.integers(-(10**30), 10**30), st.booleans(), st.none(),
    st.text(max_size=6),
)
arrays = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=24).map(lambda v: [v])


def nested(depth: int, leaf: bytes = b"1") -> bytes:
    return b"[" * depth + leaf + b"]" * depth


#: The bytes that make and break tokens, strings and structure in an array document.
NOISE = list(b'-0123456789.eE+"\\,:[]{} \x00\x1fatu/') + [0xC3]


@st.composite
def mutated(draw) -> bytes:
    if draw(st.booleans()):
        doc = bytearray(codec.canonical_json(draw(arrays)))
    else:  # long runs of brackets: the depths come from runs
        doc = bytearray(b"[" + b",".join([nested(draw(st.integers(1, 40)))] * draw(st.integers(1, 12))) + b"]")
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(doc)))
        what = draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = draw(st.sampled_from(NOISE))
        if what == "insert" or at == len(doc):
            doc.insert(at, byte)
        elif what == "delete":
            del doc[at]
        else:
            doc[at] = byte
    return bytes(doc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays)
def test_every_canonical_array_document_is_proved(value):
    doc = codec.canonical_json(value)
    assert proved(doc)
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False) == ("ok",)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
@example(b"[1],[2]")
@example(b"[1][2]")
@example(b"[[1]]]")
@example(b"[[[1]]")
@example(b"]1[")
@example(b'["\\u001F"]')
@example(b'["\\/"]')
@example(b"[-0]")
@example(b"[1.0]")
@example(b"[01]")
@example(b"[1,]")
@example(b"[,1]")
@example(b"[\x00]")
@example(b'["\x1f"]')
@example(b'["\xc3"]')
@example(b"[truefalse]")
@example(b"[1,[2,[3]]]")
def test_the_proof_agrees_with_parsing(doc):
    if proved(doc):
        assert doc == codec.canonical_json(json.loads(doc))
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)


@pytest.mark.parametrize("doc", [
    b"[1],[2]", b"[1][2]", b"[[1]]]", b"[[[1]]", b"]1[", b"[1,]", b"[,1]", b"[01]", b"[-0]",
    b"[1.0]", b"[ 1]", b'["\\/"]', b'["\\u0041"]', b'["\\u001F"]', b'["a""b"]', b"[1\"a\"]",
    b"[truefalse]", b"[" + b"7" * 4301 + b"]", b'{"a":[1]}', b"1", b'"x"',
])
def test_what_is_not_proved(doc):
    assert not proved(doc)


def test_nested_511_deep_is_proved_from_runs_without_parsing(monkeypatch):
    doc = b"[" + b",".join([nested(510)] * 300) + b"]"
    runs = projection._depth_after_runs(projection._skeleton_of(doc))
    assert runs is not None and max(runs) == 511  # read as runs, not one bracket at a time

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(projection.json, "loads", no_parse)
    assert codec.decode_json(doc) == doc


def test_dense_brackets_are_read_one_at_a_time_and_still_proved():
    doc = b"[" + b",".join([b"[[1],[2]]"] * 100) + b"]"
    assert projection._depth_after_runs(projection._skeleton_of(doc)) is None
    assert proved(doc)
    assert not proved(doc[:-1] + b",[]]]")  # a ``]`` that closes the top level early


def test_depth_from_runs_is_the_depth():
    for doc in (nested(512), b"[" + nested(300) + b"," + nested(511) + b"]", b"[]", b"[[],[[]]]"):
        skeleton = projection._skeleton_of(doc)
        deepest = 0
        depth = 0
        for byte in skeleton:
            depth += (byte in b"[{") - (byte in b"]}")
            deepest = max(deepest, depth)
        assert projection.document_depth(skeleton) == deepest


def test_the_token_grammar_is_one_possessive_pass():
    assert canonical_array_tokens(b"[" + b'"' + b"\\n" * 100_000 + b'"]')
    assert not canonical_array_tokens(b"[" + b'"' + b"\\n" * 100_000 + b'"] ')
