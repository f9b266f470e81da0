"""v1 binary's fast path (codec/binary_v1.py ``read_fast``: cbor2 reads the body
first, under bounds checked in bulk) against the slow path it stands in for (the
profile walker, then cbor2, then the canonical checks): whatever the fast path
accepts, the walker accepts with the same document, and where the fast path
steps aside the decoder's verdict is the walker's."""

from __future__ import annotations

import sys
from pathlib import Path

import cbor2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wirekit import binary_slow_verdict

import codec
from codec import CompactError, limits
from codec.binary_v1 import most_json_bytes, read_fast
from codec.projection import canonical_json

slow = binary_slow_verdict  # the slow path's verdict: its document, or its diagnostic


def agree(body: bytes) -> None:
    fast = read_fast(body)
    if fast is not None:
        assert slow(body) == fast[1]
        assert canonical_json(fast[0]) == fast[1]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(width=64) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_valid_bodies_are_read_fast_to_the_walkers_document(value):
    body = cbor2.dumps(value)
    agree(body)
    expected = slow(body)
    if isinstance(expected, bytes):  # what the walker accepts is read fast too
        assert read_fast(body) is not None and read_fast(body)[1] == expected


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, data=st.data())
def test_mutated_bodies_get_the_walkers_verdict(value, data):
    body = bytearray(cbor2.dumps(value))
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        at = data.draw(st.integers(0, len(body)), label="at")
        what = data.draw(st.sampled_from(["flip", "insert", "delete"]), label="what")
        if what == "flip" and at < len(body):
            body[at] = data.draw(st.integers(0, 255), label="byte")
        elif what == "insert":
            body[at:at] = data.draw(st.binary(min_size=1, max_size=9), label="bytes")
        elif at < len(body):
            del body[at]
    agree(bytes(body))


@pytest.mark.parametrize(
    "body",
    [
        cbor2.dumps({"a": 1}) + b"\x00",  # trailing byte
        b"\xa2\x61a\x01\x61a\x02",  # duplicate key
        b"\x9f\x01\xff",  # indefinite array
        b"\x18\x01",  # wider head than needed
        b"\xf9\x3c\x00",  # half float
        b"\xfb\x7f\xf8\x00\x00\x00\x00\x00\x00",  # NaN
        b"\x41\x00",  # byte string
        b"\xa1\x41a\x01",  # byte-string key
        b"\xa1\x01\x01",  # integer key
        b"\xf7",  # undefined
        b"\xf8\x20",  # simple value
        b"\xd8\x1c\x81\x00",  # shareable (tag 28)
        b"\xd9\x01\x00\x80",  # string-reference namespace (tag 256)
        b"\xc2\x48" + b"\x01" * 8,  # bignum that fits major type 0
        b"\xc2\x49\x00" + b"\x01" * 8,  # bignum with a leading zero
        b"\x62\xed\xa0",  # invalid UTF-8
    ],
)
def test_departures_from_the_profile_are_left_to_the_walker(body):
    assert read_fast(body) is None
    assert isinstance(slow(body), CompactError)


def _nested(levels: int, inner: bytes = b"\x80") -> bytes:
    return b"\x81" * levels + inner


def test_depth_at_the_limit_is_the_walkers_call():
    # 511 non-empty arrays and an empty one: 512 levels, read fast
    at_limit = _nested(limits.MAX_DEPTH - 1)
    assert read_fast(at_limit)[1] == slow(at_limit) == b"[" * limits.MAX_DEPTH + b"]" * limits.MAX_DEPTH
    # one more level: the walker rejects it, so the fast path must not accept it
    over = _nested(limits.MAX_DEPTH)
    assert read_fast(over) is None
    assert isinstance(slow(over), CompactError)


def test_long_integers_are_refused_whatever_the_interpreters_digit_limit():
    big = 10**limits.MAX_INTEGER_DIGITS  # 4,301 digits
    body = cbor2.dumps([big])
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert read_fast(body) is None
        assert slow(body).code == "compact.limit"
    finally:
        sys.set_int_max_str_digits(before)


@settings(max_examples=200, deadline=None)
@given(value=json_values)
def test_the_bulk_bound_is_never_under_the_document(value):
    body = cbor2.dumps(value)
    document = slow(body)
    if isinstance(document, bytes) and not any(
        isinstance(x, int) and abs(x) >= 2**64 for x in _leaves(value)
    ):
        assert most_json_bytes(body) >= len(document)


def _leaves(value):
    if isinstance(value, list):
        for x in value:
            yield from _leaves(x)
    elif isinstance(value, dict):
        for x in value.values():
            yield from _leaves(x)
    else:
        yield value


def test_bodies_that_could_cross_the_size_limit_go_to_the_walker():
    # 0xf4 (false) is six JSON bytes each: the bound is over the limit long
    # before cbor2 could build the list, so the walker rejects it unallocated
    n = limits.MAX_SELECTED_BYTES // 6 + 1
    body = b"\x9a" + n.to_bytes(4, "big") + b"\xf4" * n
    assert most_json_bytes(body) > limits.MAX_SELECTED_BYTES
    assert read_fast(body) is None


def test_the_fast_path_takes_a_valid_example_body():
    """A broken fast path falls back to the walker silently (its verdicts are the
    same), so only this shows it still runs: a valid body is read by cbor2 first."""
    wire = (Path(__file__).resolve().parents[2] / "examples" / "wires" / "http_app_routing.graph.binary").read_bytes()
    layout = codec.layout_wire(wire)
    found = read_fast(wire[layout.body.start:])
    assert found is not None and found[1] == layout.document
