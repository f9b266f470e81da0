"""A v1 binary body with maps: at the top (every projection's body), and under
arrays and maps at any depth, holding containers, strings and one-byte items.
``binary_v1.read_arrays_or_fault`` reads maps directly like arrays (a key in
its shortest head, valid UTF-8 and new in its map) and hands any other key or
item to the profile walker resumed there, a key with its map's keys so far
(``_walk(keys=...)``), so its verdict must be the walker's own: the document,
or code, message and offset (docs/wire-format.md §7). Issue 23: arrays nested
511 deep under a top-level map (``{"a":[[[…]]]}``) went to the walker or cbor2,
22-50x a valid decode. These tests hold the direct reading to the slow path on
random and mutated bodies, and decode a deep body under a map with the slow
paths patched to fail."""

from __future__ import annotations

import functools

import cbor2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from wirekit import binary_slow_verdict, chain, edited
from wirekit import diagnostic as verdict

import codec
from codec import CompactError, binary_v1, limits

slow = binary_slow_verdict

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(autouse=True)
def every_body(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 0)  # small bodies take the direct reading
    monkeypatch.setattr(binary_v1, "_ITEMS_AT_A_TIME", 5)


keys = st.text(max_size=4) | st.sampled_from(["a", "b", "é", "\u2028", '"', "\\", "\x01", "k" * 30])
scalars = st.one_of(
    st.integers(-24, 23), st.booleans(), st.none(),  # one-byte items
    st.text(max_size=6), st.sampled_from(["x" * 24, "é" * 200, "\x00\x1f"]),  # strings, read directly too
    st.floats(allow_nan=False, allow_infinity=False), st.integers(24, 2**70) | st.integers(-(2**70), -25),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(keys, inner, max_size=4)
    | st.dictionaries(keys, inner, min_size=24, max_size=26),
    max_leaves=50,
)
#: A map at the top, as every projection's body is.
objects = st.dictionaries(keys, values, max_size=4)


#: Whole items and heads to put in a body: valid ones, and departures of keys
#: and items (a non-text key, a key not in its shortest head, an indefinite map
#: or text, a key that is not UTF-8, a duplicate key, a map declaring more pairs
#: than bytes are left, a wide head cut short, a half float, a tag...).
PIECES = [
    b"\x61a", b"\x61b", b"\x60", b"\x78\x18" + b"k" * 24, b"\xa0", b"\xa1\x61a\x00", b"\xa1\x61b\x81\x81\x01",
    b"\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00", b"\x18\x18", b"\xc2\x49\x01" + b"\x00" * 8,  # valid items
    b"\x01", b"\x81", b"\x78\x01a", b"\x7f\x61a\xff", b"\xbf\x61a\x00\xff", b"\xb8\x01", b"\x62\xff\xfe",
    b"\x62\xc3", b"\x78", b"\xa2\x61a\x00\x61a\x00", b"\xa1\x01\x01", b"\xa1\x81\x01\x01", b"\xb9\x01\x00",
    b"\x98\x01", b"\x9f", b"\xff", b"\xf9\x3c\x00", b"\xc1\x01", b"\x40", b"\xf7", b"\x1c", b"\x81\x81\x81\x81",
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["random", "deep", "keys"]))
    if kind == "random":
        body = bytearray(cbor2.dumps(draw(objects)))
    elif kind == "deep":  # deep arrays under a map, near the depth limit
        depth = draw(st.sampled_from([1, 5, 509, 510, 511, 512]))
        body = bytearray(cbor2.dumps({"a": [chain(depth - 2)] * draw(st.integers(1, 3)), "b": 0}))
    else:  # many keys, some repeated further in
        names = draw(st.lists(st.sampled_from(["a", "b", "c", "é", ""]), min_size=1, max_size=8))
        body = bytearray(b"\xa0" if not names else bytes([0xA0 + len(names)]))
        for name in names:
            body += cbor2.dumps(name) + draw(st.sampled_from([b"\x00", b"\x81\x81\x01", b"\xa1\x61a\x00"]))
    return edited(draw, body, PIECES)


@settings(SETTINGS, max_examples=80)
@given(objects)
def test_valid_bodies_with_maps_are_read_to_the_walkers_document(value: object) -> None:
    body = cbor2.dumps(value)
    read = binary_v1.read_arrays_or_fault(body)
    assert read is None or read == slow(body)


@settings(SETTINGS, max_examples=40)
@given(st.dictionaries(keys, st.lists(st.integers(-24, 23) | st.booleans() | st.text(max_size=3), max_size=4)
                       | st.dictionaries(keys, st.none() | st.text(max_size=3), max_size=3), max_size=5))
def test_maps_of_containers_and_strings_are_read_here(value: object) -> None:
    """Not None: maps, their keys, strings and one-byte items are all this
    reading's own (the differential test above would pass if it gave none)."""
    body = cbor2.dumps(value)
    assert binary_v1.read_arrays_or_fault(body) == slow(body)


@settings(SETTINGS, max_examples=150)
@given(mutated())
@example(b"\xa2\x61a\x00\x61a\x00")  # a duplicate key at the top
@example(b"\xa2\x61a\x81\x81\x01\x61a\x00")  # the same, the first key's value deep
@example(b"\xa1\x01\x00")  # a key that is not a text string
@example(b"\xa1\x81\x01\x00")  # an array as a key
@example(b"\xa1\x78\x01a\x00")  # a key not in its shortest head
@example(b"\xa1\x7f\x61a\xff\x00")  # an indefinite key
@example(b"\xa1\x62\xff\xfe\x00")  # a key that is not UTF-8
@example(b"\xa1\x63ab")  # a key cut short
@example(b"\xa1\x78")  # a key's head cut short
@example(b"\xa1\x61a")  # ends where the value is due
@example(b"\xa2\x61a\x00")  # ends where a key is due
@example(b"\xa1\x61a\x00\x00")  # a trailing byte
@example(b"\xb8\x01\x61a\x00")  # a map head not in its shortest form
@example(b"\xbf\x61a\x00\xff")  # an indefinite map
@example(b"\xa3\x61a\x00")  # more pairs declared than bytes are left
@example(b"\xa1\x61a\x62\xff\xfe")  # a string value that is not UTF-8
@example(b"\xa1\x61a\x78\x01a")  # a string value not in its shortest head
@example(b"\xa1\x61a\xf9\x3c\x00")  # a half float as a value
@example(b"\xa1\x61a" + b"\x81" * 511 + b"\x01")  # 512 levels, valid
@example(b"\xa1\x61a" + b"\x81" * 512 + b"\x01")  # 513 levels
@example(b"\xa1\x61a" + b"\x81" * 510 + b"\xa1\x61b\x00")  # a map at level 512
@example(b"\xa1\x61a" + b"\x81" * 511 + b"\xa0")  # an empty map at level 513
def test_every_verdict_is_the_walkers(body: bytes) -> None:
    read = binary_v1.read_arrays_or_fault(body)
    if read is not None:
        assert verdict(read) == verdict(slow(body))


@settings(SETTINGS, max_examples=80)
@given(mutated(), st.sampled_from([12, 30, 60, 150]))
def test_near_the_size_limit_the_verdict_is_the_walkers(body: bytes, limit: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "MAX_SELECTED_BYTES", limit)  # the walker's size error may come first
        read = binary_v1.read_arrays_or_fault(body)
        if read is not None:
            assert verdict(read) == verdict(slow(body))


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"\xa2\x61a\x00\x61b\x81\x81\x01", None),
        (b"\xa2\x61a\x63x@y\x61b\xa1\x61c\x82\xf6\x00", None),
        (b"\xa0", None),
        (b"\xa1\x60\xa0", None),
        (b"\xa1\x61a" + b"\x81" * 511 + b"\x01", None),
        (b"\xa2\x61a\x00\x61a\x00", "compact.noncanonical"),
        (b"\xa2\x61a\x81\x81\x01\x61a\x00", "compact.noncanonical"),
        (b"\xa1\x01\x00", "compact.json"),
        (b"\xa1\x78\x01a\x00", "compact.noncanonical"),
        (b"\xa1\x7f\x61a\xff\x00", "compact.noncanonical"),
        (b"\xa1\x62\xff\xfe\x00", "compact.json"),
        (b"\xa1\x63ab", "compact.envelope"),
        (b"\xa1\x61a", "compact.envelope"),
        (b"\xa1\x61a\x00\x00", "compact.noncanonical"),
        (b"\xb8\x01\x61a\x00", "compact.noncanonical"),
        (b"\xbf\x61a\x00\xff", "compact.noncanonical"),
        (b"\xa3\x61a\x00", "compact.envelope"),
        (b"\xa1\x61a\x62\xff\xfe", "compact.json"),
        (b"\xa1\x61a" + b"\x81" * 512 + b"\x01", "compact.limit"),
        (b"\xa1\x61a" + b"\x81" * 511 + b"\xa0", "compact.limit"),
    ],
)
def test_each_departure_under_a_map_is_named_here(body: bytes, code: str | None) -> None:
    read = binary_v1.read_arrays_or_fault(body)
    assert read is not None
    assert verdict(read) == verdict(slow(body))
    if code is not None:
        assert isinstance(read, CompactError) and read.code == code


@pytest.mark.parametrize(
    "value",
    [{"a": {"b": [0, 1.5]}, "c": 100}, {"a": [{"b": 2**64}], "cd": {"e": [[1.5]]}}, [{"a": 1.5, "b": {}}, 300]],
)
def test_the_size_the_walker_is_resumed_with_is_its_own(monkeypatch: pytest.MonkeyPatch, value: object) -> None:
    """Every limit from 1 byte to past the document: each open map's colons,
    commas and brace counted as the walker counts them at its head (one too
    many or too few is a wrong verdict at some limit)."""
    body = cbor2.dumps(value)
    document = slow(body)
    assert isinstance(document, bytes)
    for limit in range(1, len(document) + 2):
        monkeypatch.setattr(limits, "MAX_SELECTED_BYTES", limit)
        read = binary_v1.read_arrays_or_fault(body)
        assert read is None or verdict(read) == verdict(slow(body)), limit
    assert read == document  # within the limit, read here


def test_a_duplicate_key_is_found_with_the_keys_read_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first ``"a"`` is read here, the second by the walker resumed with
    the map's keys: without them it would take the second for a new key."""
    body = b"\xa3\x61a\x00\x61b\x81\x81\x01\x61a\x00"
    read = binary_v1.read_arrays_or_fault(body)
    assert verdict(read) == ("compact.noncanonical", "duplicate map key b'a'", 9)
    real_walk = binary_v1._walk

    def forgetful(*args: object, **kwargs: object) -> object:
        return real_walk(*args[:6])  # type: ignore[arg-type]  # the map's keys left out

    monkeypatch.setattr(binary_v1, "_walk", forgetful)
    assert binary_v1.read_arrays_or_fault(body) is None  # a key the walker accepts is a doubt here


def test_strings_are_charged_as_the_walkers_items(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body of many strings (every projection's kind) steps aside to cbor2
    early: each is charged as an item the walker reads (a turn and 4), and the
    60th is read while the budget has a step left."""
    body = cbor2.dumps({"k": ["abc"] * 60})
    monkeypatch.setattr(binary_v1, "_BYTES_PER_WALK_STEP", 1 << 30)
    monkeypatch.setattr(binary_v1, "_WALK_STEPS", 5 * 59)
    assert binary_v1.read_arrays_or_fault(body) is None
    monkeypatch.setattr(binary_v1, "_WALK_STEPS", 5 * 59 + 1)
    assert binary_v1.read_arrays_or_fault(body) == slow(body)


def test_a_graph_shaped_body_steps_aside_in_its_first_kib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Maps of strings, as a graph projection: the direct reading gives up
    within its step budget and cbor2 reads the body (``read_fast``)."""
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)  # the gate as shipped
    node = {"name": "pkg.mod.f", "kind": "function", "span": [1, 2], "calls": ["pkg.mod.g", "pkg.mod.h"]}
    body = cbor2.dumps({"module": "pkg.mod", "nodes": [node] * 2000})
    assert binary_v1.read_arrays_or_fault(body) is None
    assert binary_v1.read_fast(body) is not None


# --- arrays nested 511 deep under a map: no cbor2 on the body, no walk ---------------------------

ITEM = b"\x81" * 510 + b"\x01"  # [[...[1]...]]: 512 levels with the map and the outer array
ITEMS = 60


@functools.cache
def _valid_under_object() -> tuple[bytes, int, bytes]:
    doc = b'{"a":[' + b",".join([b"[" * 510 + b"1" + b"]" * 510] * ITEMS) + b"]}"
    wire = codec.encode_binary(codec.CompactProjection("graph", "r", "v", doc))
    return wire, binary_v1.read_binary_fields(wire)[-1].value.end, doc


def under_object(change: str) -> bytes:
    """The binary wire of ``{"a":[…]}`` holding 60 items nested 511 deep, with ``change``."""
    wire, start, _ = _valid_under_object()
    body = wire[start:]
    middle = 5 + 30 * len(ITEM)  # after a1 61 61 98 3c
    assert body[:5] == b"\xa1\x61a\x98\x3c" and body[middle : middle + len(ITEM)] == ITEM
    changes = {
        "trailing-bytes": body + b"\x00",
        "cut-in-wide-head": body[:-1] + b"\x98",
        "cut": body[:-300],
        "non-shortest-head": body[: middle + 255] + b"\x98\x01" + body[middle + 256 :],
        "indefinite": body[: middle + 255] + b"\x9f" + b"\x81" * 254 + b"\x01\xff" + body[middle + 511 :],
        "half-float": body[: middle + 510] + b"\xf9\x3c\x00" + body[middle + 511 :],
        "tag": body[: middle + 510] + b"\xc1\x01" + body[middle + 511 :],
        "too-deep": body[:middle] + b"\x81" + body[middle:],
        "duplicate-key-deep": body[: middle + 509] + b"\xa2\x61a\x00\x61a\x01" + body[middle + 511 :],
        "duplicate-key-at-the-top": b"\xa2" + body[1:] + b"\x61a\x00",
        "key-not-text": b"\xa2" + body[1:] + b"\x01\x00",
        "key-not-utf8": b"\xa2" + body[1:] + b"\x62\xff\xfe\x00",
        "map-too-deep": body[: middle + 510] + b"\xa1\x61b\x01" + body[middle + 511 :],
    }
    return wire[:start] + changes[change]


def _fails(*args: object, **kwargs: object) -> None:
    raise AssertionError("the slow path ran")


@pytest.mark.parametrize(
    "change",
    ["trailing-bytes", "cut-in-wide-head", "cut", "non-shortest-head", "indefinite", "half-float", "tag",
     "too-deep", "duplicate-key-deep", "duplicate-key-at-the-top", "key-not-text", "key-not-utf8",
     "map-too-deep"],
)
def test_nested_511_under_a_map_with_a_departure_is_placed_without_cbor2_or_the_full_walk(
    monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    wire = under_object(change)
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)  # the gate as shipped
    with monkeypatch.context() as patch:  # the slow path's verdict: the direct reading off
        patch.setattr(binary_v1, "read_arrays_or_fault", lambda body: None)
        with pytest.raises(CompactError) as slow_caught:
            codec.decode_wire(wire)
    monkeypatch.setattr(binary_v1, "check_cbor", _fails)
    monkeypatch.setattr(cbor2, "loads", _fails)
    with pytest.raises(CompactError) as caught:
        codec.decode_wire(wire)
    assert verdict(caught.value) == verdict(slow_caught.value)
    layout = codec.layout_wire(wire)  # the layout runs the same stages
    assert layout.error is not None and verdict(layout.error) == verdict(slow_caught.value)


def test_nested_511_under_a_map_decodes_and_lays_out_without_cbor2_or_the_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wire, _, doc = _valid_under_object()
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)  # the gate as shipped
    monkeypatch.setattr(binary_v1, "check_cbor", _fails)
    monkeypatch.setattr(binary_v1, "_walk", _fails)
    monkeypatch.setattr(cbor2, "loads", _fails)
    decoded = codec.decode_wire(wire)
    assert decoded.form == "binary" and decoded.selected == doc
    layout = codec.layout_wire(wire)
    assert layout.error is None and layout.document == doc


def test_maps_holding_maps_of_deep_arrays_decode_without_cbor2(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = b"[" * 500 + b"true" + b"]" * 500
    doc = b'{"m":"pkg","t":{"x":[' + b",".join([inner] * 20) + b'],"y":{"z":' + inner + b',"":null}},"n":[]}'
    wire = codec.encode_binary(codec.CompactProjection("graph", "r", "v", doc))
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)
    monkeypatch.setattr(binary_v1, "check_cbor", _fails)
    monkeypatch.setattr(cbor2, "loads", _fails)
    assert codec.decode_wire(wire).selected == doc
