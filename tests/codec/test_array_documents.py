"""A document of arrays, scalars and flat objects is proved canonical without
building its value (issue 23: 8 M one-item lists nested 511 deep are 840 MiB as
a value; one object of 1.2 M keys is a dict whose building grows faster than
its size): ``projection._canonical_without_value`` checks each token's spelling
and what follows it in one pass (``scan.canonical_array_tokens``), the bracket
depths from their runs, and each object's keys. It accepts, or names the first
repeated key; any other document is read as it stands.

These tests hold it to the reading that parses every document and encodes it
again (``lexical=False``): the same verdict, code, message and offset on random
and mutated documents, and no acceptance the parser would not give."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from wirekit import normalize_verdict as verdict
from wirekit import prove_every_document

import codec
from codec import projection
from codec.scan import canonical_array_tokens


@pytest.fixture(autouse=True)
def every_object(monkeypatch):
    prove_every_document(monkeypatch)


def proved(doc: bytes) -> bool:
    """The proof, on a document that passed the checks before it (UTF-8, depth);
    False when it names a repeated key."""
    try:
        doc.decode("utf-8")
        return projection._canonical_without_value(doc, projection._skeleton_of(doc))
    except (UnicodeDecodeError, codec.CompactError):
        return False


scalars = st.one_of(
    st.integers(-(10**30), 10**30), st.booleans(), st.none(),
    st.text(max_size=6),
)
flat_objects = st.dictionaries(st.text(max_size=3), scalars, max_size=4)
arrays = st.recursive(
    scalars | flat_objects, lambda inner: st.lists(inner, max_size=4), max_leaves=24
).map(lambda v: [v]) | flat_objects


def nested(depth: int, leaf: bytes = b"1") -> bytes:
    return b"[" * depth + leaf + b"]" * depth


#: The bytes that make and break tokens, strings and structure in an array document.
NOISE = list(b'-0123456789.eE+"\\,:[]{} \x00\x1fatu/') + [0xC3]
#: Pieces that make a repeated key, or an object that is not flat.
PIECES = [b'"a":1,', b',"a":1', b'"":0,', b'{"a":[1]}', b'{"a":{}}', b'{"a":1,"a":2}']


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
        if draw(st.integers(0, 3)) == 0:
            doc[at:at] = draw(st.sampled_from(PIECES))
        elif what == "insert" or at == len(doc):
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
@example(b'[{"a":1,"a":2}]')
@example(b'{"a":1,"b":2,"a":3}')
@example(b'[{"a":1},{"a":1}]')
@example(b'[{"a":1,"b":2,"b":3},{"c":1,"c":1}]')
@example(b'[{"c":1,"c":1},[{"a":1,"a":1}]]')
@example(b'{"a":{"b":1},"a":1}')
@example(b'[{"a":1,"a":2},1.5]')
@example(b'[{"a":1,"a":2} ]')
@example(b'["{}",{"x":"{\\"a\\":1}","y":1,"y":2}]')
def test_the_proof_agrees_with_parsing(doc):
    if proved(doc):
        assert doc == codec.canonical_json(json.loads(doc))
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)


@pytest.mark.parametrize("doc", [
    b"[1],[2]", b"[1][2]", b"[[1]]]", b"[[[1]]", b"]1[", b"[1,]", b"[,1]", b"[01]", b"[-0]",
    b"[1.0]", b"[ 1]", b'["\\/"]', b'["\\u0041"]', b'["\\u001F"]', b'["a""b"]', b"[1\"a\"]",
    b"[truefalse]", b"[" + b"7" * 4301 + b"]", b"1", b'"x"', b'{"a":1,"a":1}',
    b'{"a":1,}', b'{"a" :1}', b'{"a":1}]', b'[{"a":1]', b'[{1:1}]',
])
def test_what_is_not_proved(doc):
    assert not proved(doc)


def test_the_first_repeated_key_is_named_without_parsing(monkeypatch):
    doc = b'[{"a":1},{"k":0,"b":2,"k":1,"b":3},{"c":1,"c":1}]'
    monkeypatch.setattr(projection.json, "loads", lambda *a, **k: pytest.fail("parsed"))
    with pytest.raises(codec.CompactError) as caught:
        codec.decode_json(doc)
    assert (caught.value.code, caught.value.offset) == ("compact.json", doc.index(b'"k":1'))
    assert caught.value.message == 'duplicate object key "k"'


def test_one_object_of_many_keys_is_proved_and_a_repeat_named(monkeypatch):
    monkeypatch.setattr(projection, "_MIN_BYTES_PER_OBJECT", 256)  # the gate as shipped
    keys = [b'"k%06d":%d' % (i, i % 7) for i in range(5000)]
    doc = b"{" + b",".join(keys) + b"}"
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False) == ("ok",)
    assert proved(doc)
    bad = b"{" + b",".join(keys + [b'"k002500":1']) + b"}"
    assert verdict(bad, lexical=True) == verdict(bad, lexical=False)
    assert verdict(bad, lexical=True)[0] == "compact.json"


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


def test_mostly_scalars_are_left_to_the_parser(monkeypatch):
    monkeypatch.setattr(projection, "_MOST_ITEMS_PER_CONTAINER", 4)  # the gate as shipped
    scalars = b"[" + b",".join([b"1"] * 1000) + b"]"
    assert not proved(scalars)  # parsing 8 M small integers is faster than the token pass
    assert verdict(scalars, lexical=True) == ("ok",)
    lists = b"[" + b",".join([b"[1]"] * 1000) + b"]"
    assert proved(lists)


# --- whitespace between tokens: rejected without the value (issue 23) ----------------------------

SPACES = [b" ", b"\t", b"\n", b"\r", b"  ", b" \n "]


@st.composite
def spaced(draw) -> bytes:
    """A canonical document, or a mutated one, with runs of whitespace inserted
    anywhere (between tokens, inside strings and numbers, at either end)."""
    if draw(st.booleans()):
        doc = bytearray(codec.canonical_json(draw(arrays)))
    elif draw(st.booleans()):
        doc = bytearray(b"[" + b",".join([nested(draw(st.integers(1, 40)))] * draw(st.integers(1, 6))) + b"]")
    else:
        doc = bytearray(draw(mutated()))
    if draw(st.booleans()):  # integers 0 spelled -0, or a -0 put anywhere
        doc = bytearray(re.sub(rb"(?<=[\[,:])0(?=[,\]}])", b"-0", bytes(doc)))
        at = draw(st.integers(0, len(doc)))
        doc[at:at] = draw(st.sampled_from([b"-0", b"-0,", b",-0", b"[-0]"]))
    for _ in range(draw(st.integers(0 if b"-0" in doc else 1, 4))):
        at = draw(st.integers(0, len(doc)))
        doc[at:at] = draw(st.sampled_from(SPACES))
    return bytes(doc)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spaced())
@example(b"[1 ]")
@example(b" [1]")
@example(b"[1] ")
@example(b"[1, 2]")
@example(b"[1 0]")
@example(b"[- 1]")
@example(b"[tr ue]")
@example(b"[1 ,[2] ]")
@example(b'["a" "b"]')
@example(b'["a b" ]')
@example(b'{"a" :1}')
@example(b'{"a":1, "a":2}')
@example(b'[{"a":1,"a":2} ]')
@example(b'[{"a":1},{"a":1} ]')
@example(b'["\\u0041" ]')
@example(b"[-0 ]")
@example(b"[-0]")
@example(b'{"a":-0,"b":[-0]}')
@example(b"[-0,-01]")
@example(b"[-0.0]")
@example(b'["-0",-0]')
@example(b"[1.0 ]")
@example(b"[[1]] ]")
@example(b"[[1] ")
def test_a_spelling_departure_is_the_parsers_verdict(doc):
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)


@pytest.mark.parametrize("doc", [
    b"[1 0]", b"[- 1]", b"[tr ue]", b'["a" "b"]', b"[-01 ]", b"[-0.0]", b"[-0e1]", b"[1.0 ]",
    b"[[1]] ]", b"[--0]", b'["-0"]',
    b"[1]", b'["\\u0041" ]',
])
def test_what_the_whitespace_reading_leaves_to_the_parser(doc):
    doc.decode("utf-8")
    assert projection._spelling_departure(doc, projection._skeleton_of(doc)) is None


@pytest.mark.parametrize("doc", [b'{"a":1, "a":2}', b'[{"a":1},{"b":1 ,"b":2}] ', b'[ {"a":1,"a":-0}]'])
def test_whitespace_and_a_repeated_key_is_the_repeated_key(doc):
    found = projection._spelling_departure(doc, projection._skeleton_of(doc))
    assert found is not None and found.code == "compact.json"
    assert (found.code, found.message, found.offset) == verdict(doc, lexical=False)


@pytest.mark.parametrize("where", ["end", "start", "middle", "inside a string"])
def test_nested_511_deep_with_whitespace_is_rejected_without_parsing(monkeypatch, where):
    items = [nested(510)] * 40 + [b'["a b",' + nested(505) + b"]"]
    doc = b"[" + b",".join(items) + b"]"
    spaced_doc = {
        "end": doc + b" ",
        "start": b"\n" + doc,
        "middle": b",\r\n".join(items[:20]).join([b"[", b","]) + b",".join(items[20:]) + b"]",
        "inside a string": doc[:-1] + b',"x y"]',
    }[where]
    expected = verdict(spaced_doc, lexical=False)

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(projection.json, "loads", no_parse)
    if where == "inside a string":  # whitespace inside a string is no departure
        assert expected == ("ok",) and codec.decode_json(spaced_doc) == spaced_doc
        return
    with pytest.raises(codec.CompactError) as caught:
        codec.decode_json(spaced_doc)
    assert (caught.value.code, caught.value.message, caught.value.offset) == expected
    assert expected[0] == "compact.noncanonical"


# --- a canonical array document cut short: the parser's syntax error without the value -----------


@st.composite
def cut(draw) -> bytes:
    """A canonical document, or a mutated or spaced one, cut anywhere."""
    doc = draw(st.one_of(arrays.map(codec.canonical_json), mutated(), spaced()))
    if draw(st.booleans()):
        doc = b"[" + b",".join([nested(draw(st.integers(1, 40)))] * draw(st.integers(1, 6))) + b"]"
    return doc[: draw(st.integers(1, max(len(doc), 1)))]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut())
@example(b"[")
@example(b"[[")
@example(b"[1")
@example(b"[[1]")
@example(b"[1,")
@example(b"[[1],")
@example(b'["a"')
@example(b'["a')
@example(b'["')
@example(b"[true")
@example(b"[tru")
@example(b"[-")
@example(b"[-0")
@example(b"[01")
@example(b"[1.")
@example(b'[{"a":1}')
@example(b'[{"a":1')
@example(b'[{"a":1,"a":2}')
@example(b'[{"a":1},{"a":1},')
@example(b"[[]")
@example(b"[1,[")
@example(b"[,")
@example(b"[[1],[,")
@example(b"[1 ")
@example(b"[[1]]]")
@example(b'["\xc3\xa9",[1]')
def test_a_cut_document_is_the_parsers_verdict(doc):
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)


@pytest.mark.parametrize("doc", [
    b"[tru", b"[-", b"[-0", b"[01", b"[1.", b'["a', b'[{"a":1', b'[{"a":1,"a":2}', b"[1 ", b"[[1]]", b"{",
    b"[,", b"[[1],[,",
])
def test_what_the_cut_reading_leaves_to_the_parser(doc):
    assert projection._truncation(doc, projection._skeleton_of(doc)) is None


@pytest.mark.parametrize("cut_at", [-1, -300, -511, -1022])
def test_nested_511_deep_cut_short_is_rejected_without_parsing(monkeypatch, cut_at):
    doc = b"[" + b",".join([nested(510)] * 40) + b"]"
    short = doc[:cut_at]
    expected = verdict(short, lexical=False)

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(projection.json, "loads", no_parse)
    with pytest.raises(codec.CompactError) as caught:
        codec.decode_json(short)
    assert (caught.value.code, caught.value.message, caught.value.offset) == expected
    assert expected[0] == "compact.json" and expected[2] == len(short)
