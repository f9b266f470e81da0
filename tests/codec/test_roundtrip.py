"""Property tests: every form round-trips generated JSON values, the forms decode
each other's outputs back to one projection, and the v2 decoder's token-level
canonical check rejects exactly what a full re-encode rejects."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import codec
from codec import CompactError, CompactProjection
from codec.model_text import STAGES, Reader
from codec.scan import is_reference, split_body

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=24)
scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | text
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(text, inner, max_size=6),
    max_leaves=40,
)

#: Long strings that repeat, and the characters that are hard to spell: quotes,
#: backslashes, controls, '@' and '~', non-ASCII, U+2028.
tricky = st.sampled_from(
    ["@0", "~1", '"quoted"', "back\\slash", "\x01\x1f", "é", "\u2028", "😀", "/", "\x7f", "abc"]
)
long_strings = st.lists(tricky, min_size=1, max_size=6).map(lambda parts: "q" * 14 + "".join(parts))


@st.composite
def big_documents(draw):
    """Values over 16 KiB whose long strings repeat, as keys and as values, so the
    dictionary path is exercised."""
    pool = draw(st.lists(long_strings, min_size=1, max_size=12, unique=True))
    picks = draw(st.lists(st.sampled_from(pool), max_size=40)) + [pool[0], pool[0]]
    keys = draw(st.lists(st.sampled_from(pool), max_size=6, unique=True))
    filler = "f" * draw(st.integers(16_400, 17_000))
    value = {"filler": filler, "items": picks, "map": {k: draw(st.sampled_from(pool)) for k in keys}}
    value["extra"] = draw(json_values)
    return value


def _projection(value) -> CompactProjection:
    return CompactProjection.from_value("graph", "pkg/mod.py", "sha256:" + "1" * 64, value)


def _round_trip_all(p: CompactProjection) -> None:
    assert codec.decode_json(codec.encode_json(p)) == p.selected
    for decode, encode in (
        (codec.decode_text, codec.encode_text),
        (codec.decode_binary, codec.encode_binary),
        (codec.decode_model_text, codec.encode_model_text),
    ):
        wire = encode(p)
        assert decode(wire) == p
        assert encode(decode(wire)) == wire
        found = codec.decode_wire(wire)
        assert found.projection == p


@SETTINGS
@given(json_values)
def test_all_forms_round_trip(value):
    _round_trip_all(_projection(value))


@SETTINGS
@given(big_documents())
def test_all_forms_round_trip_with_dictionary(value):
    p = _projection(value)
    assert len(p.selected) >= 16_384
    layout = codec.layout_model_text(codec.encode_model_text(p))
    assert layout.error is None and layout.entries
    assert all(n >= 2 for n in layout.reference_counts)
    _round_trip_all(p)


@SETTINGS
@given(big_documents())
def test_forms_decode_each_others_outputs(value):
    p = _projection(value)
    from_v2 = codec.decode_model_text(codec.encode_model_text(p))
    via_text = codec.decode_text(codec.encode_text(from_v2))
    via_binary = codec.decode_binary(codec.encode_binary(via_text))
    assert via_binary == p
    assert codec.encode_model_text(via_binary) == codec.encode_model_text(p)


@SETTINGS
@given(json_values)
def test_canonical_json_matches_python_json(value):
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    assert codec.canonical_json(value) == expected


# --- the fast canonical check against the definition ---------------------------------


def accepted_by_definition(wire: bytes) -> bool:
    """Spec step 6 as written: decode (steps 1-5), re-encode, compare."""
    reader = Reader(wire)
    try:
        for stage in STAGES[:-1]:
            getattr(reader, stage)()
    except CompactError:
        return False
    return codec.encode_model_text(reader.projection()) == wire


def accepted_by_decoder(wire: bytes) -> bool:
    try:
        codec.decode_model_text(wire)
        return True
    except CompactError:
        return False


def _rebuild(wire: bytes, entries: list[bytes], parts: list[bytes]) -> bytes:
    head = wire[: wire.index(b"\ndict ") + 1]
    return head + b"dict %d\n" % len(entries) + b"".join(e + b"\n" for e in entries) + b"body\n" + b"".join(parts)


@st.composite
def mutated_wires(draw):
    """A canonical v2 wire changed in a way that keeps its document (and so its
    digest) the same: reordered, duplicated, extra or missing entries, references
    inlined, literals turned into references, a dictionary on a small document."""
    value = draw(big_documents() | json_values)
    p = _projection(value)
    wire = codec.encode_model_text(p)
    layout = codec.layout_model_text(wire)
    entries = list(layout.entries)
    parts = split_body(wire[layout.body.start:], b"@")
    refs = [k for k in range(1, len(parts), 2) if is_reference(parts[k])]
    strings = [k for k in range(1, len(parts), 2) if not is_reference(parts[k])]
    kind = draw(st.sampled_from(["swap", "duplicate", "extra", "inline", "promote", "none"]))

    def renumber(mapping):
        for k in refs:
            parts[k] = b"@%d" % mapping(int(parts[k][1:]))

    if kind == "swap" and len(entries) >= 2:
        i, j = draw(st.sampled_from([(a, b) for a in range(len(entries)) for b in range(a + 1, len(entries))]))
        entries[i], entries[j] = entries[j], entries[i]
        renumber(lambda n: j if n == i else i if n == j else n)
    elif kind == "duplicate" and entries:
        i = draw(st.integers(0, len(entries) - 1))
        entries.insert(i + 1, entries[i])
        renumber(lambda n: n + 1 if n > i else n)
        mine = [k for k in refs if parts[k] == b"@%d" % i]
        for k in draw(st.lists(st.sampled_from(mine), max_size=len(mine), unique=True)) if mine else []:
            parts[k] = b"@%d" % (i + 1)
    elif kind == "extra":
        literal = draw(st.sampled_from([b'"zzzzzzzzzzzzzzzzzz"', b'"a"', b'"\\u00e9tranger_xxxxxxx"']))
        entries.append(literal)
        entries.sort()
        at = entries.index(literal)
        renumber(lambda n: n + 1 if n >= at else n)
    elif kind == "inline" and refs:
        k = draw(st.sampled_from(refs))
        parts[k] = entries[int(parts[k][1:])]
    elif kind == "promote" and strings:
        k = draw(st.sampled_from(strings))
        literal = parts[k]
        if literal in entries:
            parts[k] = b"@%d" % entries.index(literal)
        else:
            entries.append(literal)
            entries.sort()
            at = entries.index(literal)
            renumber(lambda n: n + 1 if n >= at else n)
            parts[k] = b"@%d" % at
    return _rebuild(wire, entries, parts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_wires())
def test_token_check_rejects_exactly_what_reencoding_rejects(wire):
    assert accepted_by_decoder(wire) == accepted_by_definition(wire)


def test_mutations_do_produce_rejections():
    """Guard against the property test passing vacuously."""
    value = {"filler": "f" * 16_500, "items": ["qqqqqqqqqqqqqqqqqq@0"] * 3 + ["qqqqqqqqqqqqqq~1~1"] * 2}
    wire = codec.encode_model_text(_projection(value))
    layout = codec.layout_model_text(wire)
    entries = list(layout.entries)
    parts = split_body(wire[layout.body.start:], b"@")
    swapped = _rebuild(wire, entries[::-1], [
        b"@%d" % (1 - int(t[1:])) if i % 2 and is_reference(t) else t for i, t in enumerate(parts)
    ])
    assert not accepted_by_definition(swapped) and not accepted_by_decoder(swapped)
    assert accepted_by_definition(wire) and accepted_by_decoder(wire)
