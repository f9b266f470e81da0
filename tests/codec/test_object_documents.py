"""Documents whose objects hold containers (``{"a":[[…]]}``, objects at any
depth) are proved canonical without their value (issue 23:
``projection._canonical_objects``), in every text form: every token canonical
(``scan.CANONICAL_TOKENS``), brackets and braces matched by kind, keys only in
objects and bare commas only in arrays, no object repeating a key
(docs/wire-format.md §1).

These tests hold the proof to the reading that parses every document and
encodes it again (``lexical=False``): the same verdict, code, message and
offset on random and mutated documents; and the 511-deep documents under
objects are accepted, or rejected at their first repeated key, while
``json.loads`` may not read them."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from wirekit import deep, nested, prove_every_document, v1, v2, windows_only
from wirekit import normalize_verdict as verdict

import codec
from codec import projection
from codec.projection import _skeleton_of


@pytest.fixture(autouse=True)
def every_document(monkeypatch):
    prove_every_document(monkeypatch)


def proved(doc: bytes) -> bool:
    """Whether the proof without a value accepts ``doc``."""
    try:
        return projection._canonical_without_value(doc, _skeleton_of(doc))
    except codec.CompactError:
        return False


#: Keys, some of them one key spelled two ways (docs/wire-format.md §1:
#: ``\u0061`` is ``a``, and not canonical), one with an escape that is.
KEYS = [b'"a"', b'"b"', b'"c"', b'""', b'"\\u0061"', b'"\\n"', b'"{:"']
SCALARS = [b"1", b"0", b"-7", b'"a"', b'"]}"', b'"\\""', b"true", b"null", b"[]", b"{}", b'{"x":1}', b'{"x":1,"x":2}']


def documents(keys: list[bytes] = KEYS) -> st.SearchStrategy[bytes]:
    """Documents of arrays and objects nested a few levels, objects holding
    containers, keys drawn from a few (so some repeat)."""

    def containers(inner: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
        arrays = st.lists(inner, max_size=3).map(lambda items: b"[" + b",".join(items) + b"]")
        pairs = st.lists(st.tuples(st.sampled_from(keys), inner), max_size=3)
        objects = pairs.map(lambda ps: b"{" + b",".join(k + b":" + v for k, v in ps) + b"}")
        deep = st.tuples(st.integers(1, 12), inner).map(lambda d: nested(*d))
        return arrays | objects | deep

    return st.recursive(st.sampled_from(SCALARS), containers, max_leaves=10).filter(
        lambda doc: doc[:1] in (b"[", b"{")
    )


#: Bytes a mutation inserts: structure of the wrong kind, a key where none
#: may stand, a stray byte, a departure from the canonical spelling.
INSERTS = [b"]", b"}", b"[", b"{", b",", b":", b'"a":', b',"a":1', b'"a"', b"x", b" ", b"1.5", b"NaN", b"-0", b'"\\u0041"']


@st.composite
def mutated(draw) -> bytes:
    """A document, maybe with a byte or token inserted, a byte dropped, a
    bracket turned into a brace (or back), or cut short."""
    doc = bytearray(draw(documents()))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(doc)))
        kind = draw(st.integers(0, 2))
        if kind == 0:
            doc[at:at] = draw(st.sampled_from(INSERTS))
        elif kind == 1 and at < len(doc):
            del doc[at]
        elif at < len(doc) and doc[at] in b"[]{}":
            doc[at] = {0x5B: 0x7B, 0x7B: 0x5B, 0x5D: 0x7D, 0x7D: 0x5D}[doc[at]]
    if doc and draw(st.integers(0, 5)) == 0:
        doc = doc[: draw(st.integers(1, len(doc)))]
    return bytes(doc) or b"{"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents() | mutated())
@example(b'{"a":[[1]]}')
@example(b'{"a":[[1]],"a":2}')
@example(b'{"a":[[1]],"b":{"c":[1],"c":2}}')
@example(b'[{"a":[1]},{"a":[1],"b":{"x":1,"x":2}}]')
@example(b'{"a":[1],"b":{"c":1,"c":2},"a":1}')  # a flat object's repeat comes first
@example(b'{"b":{"c":1,"c":2},"a":[1],"a":1}')
@example(b'{"a":[1],"\\u0061":2}')  # one key spelled two ways: the repeat wins over the spelling
@example(b'{"a":[1}')
@example(b'{"a":[1],2}')  # a bare comma in an object
@example(b'["a":[1]]')  # a key in an array
@example(b'[1,{"a":[1]},"a":1]')
@example(b'{"a":[1]}]')
@example(b'{"a":[1]},1')
@example(b'{"a":[1]}{}')
@example(b'{"a":{}}')
@example(b'{"a":[{}],"b":[[],{"c":[]}]}')
@example(b'{"a":[1],"b":{"c":[{"d":1,"d":2}]}}')
@example(b'{"a":[[1]]')  # never closed
@example(b'{"a":[[1]] }')  # a space: the spelling
@example(b'{"a":[[1]], "a":1}')  # a space and a repeat
@example(b'{"a":[{"b":1,"b":2}], "c":1}')  # a repeat in a flat object and a space after it
@example(b'{"a" :[1]}')
@example(b'{"a":[1],}')
@example(b'{,"a":[1]}')
@example(b'{"a":[1]:1}')
@example(b'{"a"[1]}')
@example(b'[{"a":[1]}')  # cut: closing it takes a brace
@example(b'[[1],{"a":[2]},[3')  # cut inside an array after an object that holds one
@example(b'[{"a":[1]},')
@example(b'{"{:":[1],"]}":2}')  # structure inside keys and strings
@example(b'{"a":[1.5]}')
@example(b'{"a":[-0]}')
@example(b'{"a":[NaN]}')
def test_the_proof_agrees_with_parsing(doc):
    if proved(doc):
        assert doc == codec.canonical_json(json.loads(doc))
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)


#: Leaves spelled any way, canonical or not, valid or not (docs/wire-format.md §1).
LEAVES = [
    b"1", b"1.5", b"1.50", b"1E2", b"-0", b"1e400", b"01", b"-", b"NaN", b"-Infinity", b"tru", b'"\\u0041"',
    b'"\\ud800"', b'"a', b"x", b"}", b"]", b"[", b",", b":", b'{"a":0,"a":1}', b'{"a":[1],"a":1}', b'{"a" :[1]}',
    b'{"a":[1], "b":2}', b'{"a":[NaN]}', b'{"a":', b'{"a":[1]', b'{"a":[1],', b"{", b" 1", b"1 ", b'{"\\u0061":[1],"a":2}',
]
SPACES = [b" ", b"\n", b"\r\n "]


@st.composite
def departing(draw) -> bytes:
    """Deep arrays under objects, some leaves spelled otherwise, maybe
    whitespace or a departure somewhere, maybe cut anywhere."""
    count = draw(st.integers(1, 4))
    items = [nested(draw(st.integers(0, 12)), draw(st.sampled_from(LEAVES)) if draw(st.booleans()) else b"1")
             for _ in range(count)]
    keys = draw(st.lists(st.sampled_from(KEYS[:3]), min_size=count, max_size=count))
    if draw(st.booleans()):
        doc = bytearray(b"{" + b",".join(k + b":" + item for k, item in zip(keys, items)) + b"}")
    else:
        doc = bytearray(b"[" + b",".join(b"{" + k + b":" + item + b"}" for k, item in zip(keys, items)) + b"]")
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(doc)))
        doc[at:at] = draw(st.sampled_from(SPACES + LEAVES))
    if draw(st.integers(0, 3)) == 0:
        doc = doc[: draw(st.integers(1, len(doc)))]
    return bytes(doc)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(departing())
@example(b'{"a":[[1.50]]}')
@example(b'{"a":[[1]], "b":1}')
@example(b'{"a":[["\\u0041"]]}')
@example(b'{"a":[[1]],"b":[[1e400]]}')
@example(b'{"a":[[1]],"b":[["\\ud800"]],"a":1}')
@example(b'{"a":[[1]],"a":[[1.50]]}')
@example(b'{"a":[[1.50]],"a":1}')
@example(b'{"a":[[1]x]}')
@example(b'{"a":[[1]]x}')
@example(b'{"a":[[1]]}x')
@example(b'{"a":[[1]]} ')
@example(b'{"a":[[1]}}')
@example(b'{"a":[[1]],2}')
@example(b'{"a":[[1],"b":2]}')
@example(b'{"a":[[1]]]')
@example(b'{"a":[[1]]},[1]')
@example(b'{"a":[[12')
@example(b'{"a":[["ab')
@example(b'{"a":[[1]],"b":')
@example(b'{"a":[[1]],"b"')
@example(b'{"a":[[1]],')
@example(b'{"a":[[1]]')
@example(b'{"a":[[NaN]]}')
@example(b'{"a":[[1]],"b":NaN}')
@example(b'{"a":[[1]],"a":NaN}')
@example(b'{"a":[[Infinity]],"b":[1.50}')
@example(b'{"a":[[1]],"b":[NaN}')
@example(b'{"a":[[1]],"b":{"c":NaN}}')
@example(b'[{"a":[1]},{"b":[2]} ]')
@example(b'[{"a":[1]},{"b":[2]},]')
@example(b'{"a" : [[1]] , "b" : {"c" : [2]}}')
def test_a_departure_under_an_object_is_the_parsers_verdict(doc):
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)


@pytest.mark.parametrize("doc", [
    b'{"a":[[1.50]]}', b'{"a":[[1]], "b":1}', b'{"a":[["\\u0041"]]}', b'{"a":[[1]],"b":[[1e400]]}', b'{"a":[[1.50]],"a":1}',
    b'{"a":[[1]x]}', b'{"a":[[1]]}x', b'{"a":[[1]}}', b'{"a":[[1]],2}', b'{"a":[[1],"b":2]}', b'{"a":[[1]]},[1]',
    b'{"a":[[12', b'{"a":[[1]],"b":', b'{"a":[[1]],"b"', b'{"a":[[NaN]]}', b'{"a":[[1]],"a":NaN}', b'{"a":{"b":[1]x}}',
    b'[{"a":[1]},{"b":[2]},]', b'{"a":[1],"b":{"c":[2],"c":3}} ',
    # a constant after an object that holds a container (left to the parser before)
    b'[[{"a":[1]}],[NaN]]', b'[[{"a":[1]}],{"a":0,"a":1},NaN]', b'[{"a":NaN}]', b'[{"a":[1]},NaN x]', b'[{"a":[1]},NaNx]',
    b'{"a":[1],"b":NaN', b'{"a":[1],"a":NaN', b'{"a":[1],"b":[1e400,{"c":1,"c":2}],"d":NaN}x',
    b'{"a":[1],"b":[{"c":1,"c":2}, NaN}',
])
def test_departures_under_objects_are_named_by_the_reading(doc):
    # named here, not left to the parser (None)
    found = projection._object_departure(doc, _skeleton_of(doc))
    assert isinstance(found, codec.CompactError)
    assert (found.code, found.message, found.offset) == verdict(doc, lexical=False)


values = st.recursive(
    st.one_of(st.integers(-(10**20), 10**20), st.booleans(), st.none(), st.text(max_size=4)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=16,
).filter(lambda value: isinstance(value, (list, dict)))


@settings(max_examples=50, deadline=None)
@given(values, st.integers(0, 20))
def test_every_canonical_document_of_containers_is_proved(value, depth):
    # keys and strings of any text (brackets, colons, quotes and escapes in
    # them included), objects holding containers at any depth
    doc = codec.canonical_json({"k": [value] if depth % 2 else value, "d": nested(depth)[:0].decode() or [value]})
    assert projection._canonical_without_value(doc, _skeleton_of(doc)) is True
    inner = codec.canonical_json(value)
    assert projection._canonical_without_value(inner, _skeleton_of(inner)) is True


@pytest.mark.parametrize("doc", [
    b'{"a":[1]}', b'[{"a":{"b":1}}]', b'{"a":{"b":{"c":[[]]}}}', b'[[{"a":[{"b":[1]}]}],{}]', b'{"":{"":{}}}',
])
def test_objects_that_hold_containers_are_proved(doc):
    assert projection._canonical_without_value(doc, _skeleton_of(doc)) is True


@pytest.mark.parametrize("doc", [
    b'{"a":[1}', b'{"a":{"b":1]}', b'["a":1]', b'{"a":[1],2}', b'{"a":[1]},{}', b'{"a":[1]}]', b'{"a":[[1]]',
    b'{"a":[1],"b":[2]', b'[{"a":[1]]', b'{"a":[1] }', b'{"a":[1.0]}', b'{"a":[1],}', b'{"a":[1]:1}', b"[]]",
])
def test_what_the_proof_does_not_take(doc):
    assert projection._canonical_without_value(doc, _skeleton_of(doc)) is False


def test_the_first_repeated_key_in_document_order_is_named_without_parsing(monkeypatch):
    cases = {
        b'{"a":[1],"b":{"c":[2],"d":1,"c":3},"a":1}': (b'"c"', 28),  # inner before outer
        b'{"a":[1],"b":[{"x":1,"x":2}],"a":1}': (b'"x"', 21),  # a flat object's, first
        b'{"a":[1],"a":{"x":1,"x":2}}': (b'"a"', 9),  # the deep object's, first
        b'[{"a":[1]},{"a":[2]},{"b":[3],"b":4}]': (b'"b"', 30),  # keys of sibling objects are apart
    }
    expected = {doc: ("compact.json", f"duplicate object key {key.decode()}", offset)
                for doc, (key, offset) in cases.items()}
    assert {doc: verdict(doc, lexical=False) for doc in cases} == expected
    monkeypatch.setattr(projection.json, "loads", lambda *a, **k: pytest.fail("parsed"))
    for doc in cases:
        with pytest.raises(codec.CompactError) as caught:
            projection._canonical_without_value(doc, _skeleton_of(doc))
        assert (caught.value.code, caught.value.message, caught.value.offset) == expected[doc]


# --- the 511-deep documents of the bench family, under objects -------------------------------------

ITEM = nested(510)
ITEMS = 40


def deep_array(middle: bytes | None = None) -> bytes:
    items = [ITEM] * ITEMS
    if middle is not None:
        items[ITEMS // 2] = middle
    return b"[" + b",".join(items) + b"]"


DEEP = {
    # accepted
    "under a top-level object": (b'{"a":' + deep_array() + b"}", "ok"),
    "under two objects": (b'{"a":{"b":' + nested(509, b"1") + b',"c":' + nested(300) + b"}}", "ok"),
    "objects at every few levels": (
        b'{"a":' + nested(100, b'{"b":' + nested(100, b'{"c":' + nested(100) + b',"d":[1]}') + b"}") + b',"e":{}}',
        "ok",
    ),
    "in an array of objects": (b"[" + b",".join([b'{"a":' + ITEM + b',"b":{"x":1}}'] * 20) + b"]", "ok"),
    "flat objects inside": (b'{"a":' + deep_array(nested(507, b'{"x":1,"y":[]}')) + b"}", "ok"),
    # a repeated key, named by the proof
    "a repeated key at the end": (b'{"a":' + deep_array() + b',"a":1}', "compact.json"),
    "a repeated key in the middle": (
        b'{"a":' + deep_array(nested(508, b'{"k":[1],"k":2}')) + b"}", "compact.json"
    ),
    "a repeated key in a flat object": (b'{"a":' + deep_array(nested(509, b'{"k":1,"k":2}')) + b"}", "compact.json"),
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_nested_511_deep_under_objects_without_parsing(monkeypatch, name):
    doc, code = DEEP[name]
    expected = verdict(doc, lexical=False)
    assert expected[0] == code
    loads = json.loads

    def small_only(text, *args, **kwargs):  # nothing near the document's size is parsed
        assert len(text) < len(doc) // 4, "parsed in full"
        return loads(text, *args, **kwargs)

    monkeypatch.setattr("codec.projection.json.loads", small_only)
    assert verdict(doc, lexical=True) == expected
    if code == "ok":
        for form in ("json", "text", "model-text"):
            wire = doc if form == "json" else codec.ENCODERS[form](codec.CompactProjection("graph", "r", "v", doc))
            assert codec.decode_wire(wire).selected == doc


@pytest.mark.parametrize("form", ["json", "text", "model-text"])
def test_a_repeated_key_under_an_object_is_placed_in_every_text_form(monkeypatch, form):
    # the offset mapped into the wire is the one decoding gives with the proof stepping aside
    doc = b'{"a":' + deep_array() + b',"b":{"c":' + nested(20) + b',"c":1}}'
    wire = {"json": doc, "text": v1(doc), "model-text": v2(doc)}[form]
    proof = projection._canonical_objects
    verdicts = []
    for reading in (proof, lambda selected, skeleton: False):
        monkeypatch.setattr(projection, "_canonical_objects", reading)
        with pytest.raises(codec.CompactError) as caught:
            codec.decode_wire(wire)
        verdicts.append((caught.value.code, caught.value.message, caught.value.offset))
    assert verdicts[0] == verdicts[1]
    assert verdicts[0][:2] == ("compact.json", 'duplicate object key "c"')


def under_object(middle: bytes | None = None, end: bytes | None = None) -> bytes:
    """``deep_array`` under a top-level object: ``middle`` replaces the leaf of
    item 20, ``end`` that of the last item."""
    return b'{"a":' + deep(middle, end) + b"}"


def stray(byte: bytes) -> bytes:
    doc = under_object()
    at = doc.index(b"],[", len(doc) // 2) + 2
    return doc[:at] + byte + doc[at:]


DEEP_DEPARTURES = {
    "float 1.50 in the middle": under_object(middle=b"1.50"),
    "float 1E2 at the end": under_object(end=b"1E2"),
    "float 1e400 in the middle": under_object(middle=b"1e400"),
    "escape in the middle": under_object(middle=b'"\\u0041"'),
    "lone surrogate at the end": under_object(end=b'"\\udc00"'),
    "stray x in the middle": stray(b"x"),
    "stray } in the middle": stray(b"}"),
    "stray ] in the middle": stray(b"]"),
    "cut inside a number": under_object(end=b"123")[:-513],
    "cut inside a string": under_object(end=b'"abc"')[:-514],
    "cut after the array": under_object()[:-1],
    "a space at the end": under_object() + b" ",
    "a space after the key": under_object().replace(b'"a":', b'"a": ', 1),
    "repeated key at the end and a space": under_object()[:-1] + b', "a":1}',
    "repeated key after a float": under_object(middle=b"1.50")[:-1] + b',"a":1}',
    "NaN in the middle": under_object(middle=b"NaN"),
    "Infinity at the end": under_object(end=b"Infinity"),
    "a key in the array": stray(b'"k":'),
    "extra data after the object": under_object() + b",1",
}


@pytest.mark.parametrize("name", sorted(DEEP_DEPARTURES))
def test_nested_511_deep_under_an_object_with_a_departure_is_rejected_without_parsing(monkeypatch, name):
    doc = DEEP_DEPARTURES[name]
    expected = verdict(doc, lexical=False)
    assert expected[0] != "ok"
    read = windows_only(monkeypatch, doc)
    assert verdict(doc, lexical=True) == expected
    assert sum(read) < len(doc) // 4


@pytest.mark.parametrize("form", ["json", "text", "model-text"])
def test_the_bench_families_under_an_object_get_the_parsing_verdict_in_every_text_form(monkeypatch, form):
    # the families of `semaprax bench hostile` (branch obj23t) at 24 KiB: the
    # verdict, with the offset mapped into the wire, is the one decoding gives
    # when the reading steps aside
    from semaprax.bench import hostile

    monkeypatch.setattr(projection, "_MIN_BYTES_PER_OBJECT", 256)  # the gates as shipped
    monkeypatch.setattr(projection, "_MOST_ITEMS_PER_CONTAINER", 4)
    reading = projection._object_departure
    for name, build in hostile._OBJ23T.items():
        wire = build(form, 24 << 10)
        verdicts = []
        for departure in (reading, lambda selected, skeleton: None):
            monkeypatch.setattr(projection, "_object_departure", departure)
            with pytest.raises(codec.CompactError) as caught:
                codec.decode_wire(wire)
            verdicts.append((caught.value.code, caught.value.message, caught.value.offset))
        assert verdicts[0] == verdicts[1], name
    valid = hostile.fam_nested_511_under_object(form, 24 << 10)
    monkeypatch.setattr(projection.json, "loads", lambda *a, **k: pytest.fail("parsed"))
    assert codec.decode_wire(valid).form == form


# --- an error far past where the tokens stop ---------------------------------------------------------

LONG = 300 << 10  # past the largest window (256 KiB)


@pytest.mark.parametrize("name, middle", [pytest.param(name, middle, id=name) for name, middle in [
    ("a control byte deep in a long string", b"[" * 500 + b'"' + b"a" * LONG + b'\x01b"' + b"]" * 500),
    ("a bad escape deep in a long string", b"[" * 500 + b'"' + b"a" * LONG + b'\\xb"' + b"]" * 500),
    ("a stray byte after a long run of spaces", b"[" * 500 + b"1," + b" " * LONG + b"x" + b"]" * 500),
]])
@pytest.mark.parametrize("shape", ["array", "object"])
def test_an_error_far_past_where_the_tokens_stop_is_named(name, middle, shape):
    # the window takes a string or a run of whitespace it cuts whole, instead
    # of giving up at 256 KiB and leaving the document to the parser
    items = b",".join([ITEM] * 10 + [middle] + [ITEM] * 10)
    doc = b"[" + items + b"]" if shape == "array" else b'{"a":[' + items + b"]}"
    skeleton = _skeleton_of(doc)
    found = projection._departure(doc, skeleton) or projection._object_departure(doc, skeleton)
    assert isinstance(found, codec.CompactError), name
    assert (found.code, found.message, found.offset) == verdict(doc, lexical=False)
    assert verdict(doc, lexical=True) == verdict(doc, lexical=False)
