"""A v1 binary body of arrays with anything else in it: an item of another kind
(a string, a float, a map, a wider integer, a bignum) or a departure from the
profile (trailing bytes, a head cut short, a non-shortest head, an indefinite
length, a half float, a tag, nesting past the limit, a duplicate key).
``binary_v1.read_arrays_or_fault`` resumes the profile walker at that item
(``_walk``), so its verdict must be the walker's own: the document, or code,
message and offset (issue 23: a deep body with one such item went to cbor2,
which built 8 M lists, or to the walker, about 100x slower). These tests hold
it to the slow path on random and mutated bodies, and on bodies nested 511 deep
with the slow paths patched to fail."""

from __future__ import annotations

import functools
from typing import Any

import cbor2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from wirekit import binary_slow_verdict, chain, edited
from wirekit import diagnostic as verdict

import codec
from codec import CompactError, binary_v1

slow = binary_slow_verdict


@pytest.fixture(autouse=True)
def every_body(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 0)  # small bodies take the direct reading
    monkeypatch.setattr(binary_v1, "_ITEMS_AT_A_TIME", 5)


#: Items of the profile read_arrays does not take itself (the walker reads them).
other_items = st.one_of(
    st.text(max_size=6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(24, 2**70) | st.integers(-(2**70), -25),
    st.dictionaries(st.text(max_size=3), st.integers(-30, 30) | st.text(max_size=2), max_size=3),
)
one_byte_items = st.one_of(st.integers(-24, 23), st.booleans(), st.none())
mixed = st.recursive(
    st.one_of(one_byte_items, other_items),
    lambda inner: st.lists(inner, max_size=5) | st.lists(inner, min_size=24, max_size=30),
    max_leaves=60,
).map(lambda v: [v])


#: Whole items and heads to insert: valid ones of other kinds, and departures.
PIECES = [
    b"\x61a", b"\x60", b"\x78\x01a", b"\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00", b"\x18\x18", b"\x19\x01\x00",
    b"\xa1\x61a\x00", b"\xa0", b"\xc2\x49\x01" + b"\x00" * 8,  # valid items of other kinds
    b"\x98\x01", b"\x18\x01", b"\x98", b"\x99\x00", b"\x9f", b"\xff", b"\xf9\x3c\x00", b"\xfa\x00\x00\x00\x00",
    b"\xc1", b"\xc2\x41\x01", b"\xa2\x61a\x00\x61a\x00", b"\x40", b"\xf7", b"\xf8\x20", b"\x1c", b"\x9b",
    b"\xfb\x7f\xf8\x00\x00\x00\x00\x00\x00", b"\x62\xff\xfe", b"\xa1\x01\x01", b"\x81\x81\x81\x81",
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        body = bytearray(cbor2.dumps(draw(mixed)))
    else:  # a chain near the depth limit, or a few short ones
        depth = draw(st.sampled_from([1, 5, 30, 510, 511, 512]))
        body = bytearray(cbor2.dumps([chain(depth - 1)] * draw(st.integers(1, 3))))
    return edited(draw, body, PIECES)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
@example(b"\x82\x01\x61a")  # a string among the items
@example(b"\x81\x01\x00")  # a trailing byte
@example(b"\x82\x01\x98")  # a wide head cut short
@example(b"\x81\x98\x01\x01")  # a non-shortest head
@example(b"\x81\x9f\x01\xff")  # indefinite
@example(b"\x82\xf9\x3c\x00\x01")  # a half float
@example(b"\x82\xc1\x01\x01")  # a tag
@example(b"\x81\xa2\x61a\x00\x61a\x00")  # a duplicate key
@example(b"\x9f\x01\xff")  # indefinite at the top
@example(b"\x82\x81" + b"\x81" * 511 + b"\x01\x01")  # 513 levels
@example(b"\x82" + b"\x81" * 511 + b"\x01\x01")  # 512 levels, valid
def test_every_verdict_is_the_walkers(body: bytes) -> None:
    read = binary_v1.read_arrays_or_fault(body)
    if read is not None:
        assert verdict(read) == verdict(slow(body))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mixed)
def test_valid_bodies_of_mixed_items_are_read_to_the_walkers_document(value: object) -> None:
    body = cbor2.dumps(value)
    assert binary_v1.read_arrays_or_fault(body) == slow(body)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated(), st.sampled_from([30, 60, 150]))
def test_near_the_size_limit_the_verdict_is_the_walkers(body: bytes, limit: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codec.limits, "MAX_SELECTED_BYTES", limit)  # the walker's size error may come first
        read = binary_v1.read_arrays_or_fault(body)
        if read is not None:
            assert verdict(read) == verdict(slow(body))


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"\x82\x01\x61a", None),
        (b"\x82\x01\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00", None),
        (b"\x81\x01\x00", "compact.noncanonical"),
        (b"\x82\x01\x98", "compact.envelope"),
        (b"\x81\x98\x01\x01", "compact.noncanonical"),
        (b"\x81\x9f\x01\xff", "compact.noncanonical"),
        (b"\x82\xf9\x3c\x00\x01", "compact.noncanonical"),
        (b"\x82\xc1\x01\x01", "compact.json"),
        (b"\x81\xa2\x61a\x00\x61a\x00", "compact.noncanonical"),
        (b"\x82\x81" + b"\x81" * 511 + b"\x01\x01", "compact.limit"),
        (b"\x83\x01\x01", "compact.envelope"),
    ],
)
def test_each_departure_is_named_here(body: bytes, code: str | None) -> None:
    """Not None: the direct reading gives each verdict itself (the differential
    tests above would pass if it gave none)."""
    read = binary_v1.read_arrays_or_fault(body)
    assert read is not None
    assert verdict(read) == verdict(slow(body))
    if code is not None:
        assert isinstance(read, CompactError) and read.code == code


def test_past_its_step_budget_the_walk_steps_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    # 40 floats (under maps, which are read directly): a turn each, and 4 for the spelling
    body = cbor2.dumps([[{"a": i + 0.5}] for i in range(40)])
    monkeypatch.setattr(binary_v1, "_BYTES_PER_WALK_STEP", 1 << 30)
    monkeypatch.setattr(binary_v1, "_WALK_STEPS", 150)
    assert binary_v1.read_arrays_or_fault(body) is None
    monkeypatch.setattr(binary_v1, "_WALK_STEPS", 250)
    assert binary_v1.read_arrays_or_fault(body) == slow(body)
    monkeypatch.setattr(binary_v1, "_BYTES_PER_WALK_STEP", 1)  # the budget grows with the bytes read before
    monkeypatch.setattr(binary_v1, "_WALK_STEPS", 10)
    assert binary_v1.read_arrays_or_fault(body) is None
    after_60 = cbor2.dumps([0] * 60 + [[{"a": i + 0.5}] for i in range(40)])
    assert binary_v1.read_arrays_or_fault(after_60) == slow(after_60)


# --- arrays nested 511 deep with one change: no cbor2 on the body, no full walk -----------------

ITEM = b"\x81" * 510 + b"\x01"  # [[...[1]...]], 511 levels with the outer array
ITEMS = 60


@functools.cache
def _valid_nested_511() -> tuple[bytes, int, bytes]:
    doc = b"[" + b",".join([b"[" * 510 + b"1" + b"]" * 510] * ITEMS) + b"]"
    wire = codec.encode_binary(codec.CompactProjection("graph", "r", "v", doc))
    return wire, binary_v1.read_binary_fields(wire)[-1].value.end, doc


def nested_511(change: str) -> tuple[bytes, bytes]:
    """The binary wire of 60 items nested 511 deep with ``change``, and the
    document of the unchanged body."""
    wire, start, doc = _valid_nested_511()
    body = wire[start:]
    middle = 2 + 30 * len(ITEM)  # the outer head is 0x98 0x3c
    assert body[:2] == b"\x98\x3c" and body[middle : middle + len(ITEM)] == ITEM
    changes = {
        "trailing-bytes": body + b"\x00",
        "cut-in-wide-head": body[:-1] + b"\x98",
        "non-shortest-head": body[: middle + 255] + b"\x98\x01" + body[middle + 256 :],
        "indefinite": body[: middle + 255] + b"\x9f" + b"\x81" * 254 + b"\x01\xff" + body[middle + 511 :],
        "half-float": body[: middle + 510] + b"\xf9\x3c\x00" + body[middle + 511 :],
        "tag": body[: middle + 510] + b"\xc1\x01" + body[middle + 511 :],
        "too-deep": body[:middle] + b"\x81\x81" + body[middle:],
        "duplicate-key": body[: middle + 510] + b"\xa2\x61a\x00\x61a\x01" + body[middle + 511 :],
        "other-items": body[: middle + 510] + b"\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00" + body[middle + 511 :],
    }
    return wire[:start] + changes[change], doc


def _fails(*args: object, **kwargs: object) -> None:
    raise AssertionError("the slow path ran")


@pytest.mark.parametrize(
    "change",
    ["trailing-bytes", "cut-in-wide-head", "non-shortest-head", "indefinite", "half-float", "tag",
     "too-deep", "duplicate-key"],
)
def test_nested_511_with_a_departure_is_placed_without_cbor2_or_the_full_walk(
    monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    wire, _ = nested_511(change)
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


def test_nested_511_with_a_float_inside_decodes_without_cbor2_on_the_body(monkeypatch: pytest.MonkeyPatch) -> None:
    wire, doc = nested_511("other-items")
    at = 1 + 30 * 1022 + 510  # the middle item's innermost place in the document
    expected = doc[:at] + b"1.5" + doc[at + 1 :]
    wire = wire.replace(codec.source_digest(doc).encode(), codec.source_digest(expected).encode())
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)
    real_loads = cbor2.loads

    def small_loads(data: bytes, **kwargs: Any) -> object:
        assert len(data) < 64, "cbor2 read more than an item"
        return real_loads(data, **kwargs)

    monkeypatch.setattr(binary_v1, "check_cbor", _fails)
    monkeypatch.setattr(cbor2, "loads", small_loads)
    decoded = codec.decode_wire(wire)
    assert decoded.selected == expected


def test_long_integers_cost_their_digits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bignum's decimal digits cost the walker far more than a head: it is
    charged a step per 4 bytes of magnitude, so a body of long integers steps
    aside to cbor2 (one conversion) instead of converting each twice."""
    body = cbor2.dumps([[10**600 + i] for i in range(30)])  # 250 bytes of magnitude each
    monkeypatch.setattr(binary_v1, "_WALK_STEPS", 30 * (62 + 2 + 4) + 10)
    assert binary_v1.read_arrays_or_fault(body) == slow(body)
    monkeypatch.setattr(binary_v1, "_WALK_STEPS", 30 * (2 + 4) + 10)  # enough without the digits' charge
    assert binary_v1.read_arrays_or_fault(body) is None
