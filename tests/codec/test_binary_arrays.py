"""A v1 binary body of arrays and one-byte items becomes its JSON document
without a value (codec/binary_v1.py ``read_arrays``, issue 23: cbor2 built 840
MiB of lists for valid arrays nested 511 deep). It only ever accepts; what it
declines is read as before. These tests hold it to the slow path (the profile
walker, then cbor2, then the canonical checks) on random and mutated bodies,
with its density gate off so that small bodies take it."""

from __future__ import annotations

import cbor2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from wirekit import binary_slow_verdict, chain
from wirekit import diagnostic as verdict

import codec
from codec import CompactError, binary_v1
from codec.binary_v1 import read_arrays

slow = binary_slow_verdict  # the slow path's verdict: its document, or its diagnostic


@pytest.fixture(autouse=True)
def every_body(monkeypatch):
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 0)
    monkeypatch.setattr(binary_v1, "_ITEMS_AT_A_TIME", 5)  # long runs are spelled a slice at a time


one_byte_items = st.one_of(st.integers(-24, 23), st.booleans(), st.none())
arrays = st.recursive(
    one_byte_items,
    lambda inner: st.lists(inner, max_size=6) | st.lists(inner, min_size=24, max_size=40),
    max_leaves=120,
).map(lambda v: [v])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(arrays)
def test_every_array_body_is_read_to_the_walkers_document(value):
    body = cbor2.dumps(value)
    assert read_arrays(body) == slow(body)


#: Bytes that make and break heads and items of this shape.
NOISE = [0x00, 0x17, 0x18, 0x20, 0x37, 0x38, 0x80, 0x81, 0x82, 0x97, 0x98, 0x99, 0x9A, 0x9F, 0xF4, 0xF6, 0xF7, 0xFF]


@st.composite
def mutated(draw) -> bytes:
    if draw(st.booleans()):
        body = bytearray(cbor2.dumps(draw(arrays)))
    else:
        body = bytearray(cbor2.dumps([chain(draw(st.integers(1, 30)))] * draw(st.integers(1, 30))))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(body)))
        what = draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = draw(st.sampled_from(NOISE))
        if what == "insert" or at == len(body):
            body.insert(at, byte)
        elif what == "delete":
            del body[at]
        else:
            body[at] = byte
    return bytes(body)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
@example(b"\x81\x01\x01")  # an item after the top-level one
@example(b"\x82\x01")  # ends inside
@example(b"\x98\x01\x01")  # a length not in its shortest head
@example(b"\x99\x00\x18" + b"\x01" * 24)
@example(b"\x81\x81\x80")
@example(b"\x81\x18\x20")  # a two-byte integer: not this reader's
@example(b"\x01")
@example(b"\x81\x98")
@example(b"\x99\x00\x18" + b"\x00" * 24)
def test_what_is_read_is_what_the_walker_reads(body):
    document = read_arrays(body)
    if document is not None:
        assert slow(body) == document


def test_depth_511_is_read_and_deeper_is_the_walkers_reading():
    assert read_arrays(cbor2.dumps(chain(511))) == b"[" * 511 + b"1" + b"]" * 511
    # the heads past level 511 are read by the walker, resumed there (test_binary_departures.py)
    assert read_arrays(cbor2.dumps(chain(512))) == slow(cbor2.dumps(chain(512))) == b"[" * 512 + b"1" + b"]" * 512
    too_deep = binary_v1.read_arrays_or_fault(cbor2.dumps(chain(513)))
    assert verdict(too_deep) == verdict(slow(cbor2.dumps(chain(513))))
    assert too_deep.code == "compact.limit"


def test_nested_511_decodes_without_cbor2(monkeypatch):
    doc = b"[" + b",".join([b"[" * 510 + b"1" + b"]" * 510] * 60) + b"]"
    wire = codec.encode_binary(codec.CompactProjection("graph", "r", "v", doc))
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)  # the gate as shipped

    def no_cbor2(*args, **kwargs):
        raise AssertionError("cbor2 ran")

    monkeypatch.setattr(cbor2, "loads", no_cbor2)
    decoded = codec.decode_wire(wire)
    assert decoded.form == "binary"
    assert decoded.selected.startswith(b"[" * 511 + b"1" + b"]" * 510 + b",[")


def test_a_document_over_the_limit_is_left_to_the_walker(monkeypatch):
    monkeypatch.setattr(codec.limits, "MAX_SELECTED_BYTES", 1001)
    items = 501  # "[1,...,1]" is 1,003 bytes
    assert read_arrays(b"\x99" + items.to_bytes(2, "big") + b"\x01" * items) is None
    items = 500  # 1,001 bytes: exactly at the limit
    assert len(read_arrays(b"\x99" + items.to_bytes(2, "big") + b"\x01" * items)) == 1001


# --- a body cut short: the walker's error without the walk (issue 23) ---------------------------


@st.composite
def cut(draw) -> bytes:
    """A body of arrays (or a mutated one), cut anywhere."""
    body = draw(mutated())
    return body[: draw(st.integers(0, len(body)))]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut())
@example(b"\x81")
@example(b"\x81\x81")
@example(b"\x82\x01")
@example(b"\x83\x81\x81")
@example(b"\x98\x18\x01")  # declares 24 items, two bytes left
@example(b"\x99\x00")  # a wide head cut short: the walker's
@example(b"\x82\x81\x01\x81")
@example(b"\x85\x01\x01")  # ends inside a run of one-byte items
@example(b"\x81\x01\x01")  # bytes after the item: not a cut
def test_a_cut_body_is_the_walkers_verdict(body):
    read = binary_v1.read_arrays_or_fault(body)
    if isinstance(read, CompactError):
        assert verdict(read) == verdict(slow(body))
    elif read is not None:
        assert slow(body) == read


def test_a_cut_body_over_the_limit_as_declared_is_left_to_the_walker(monkeypatch):
    monkeypatch.setattr(codec.limits, "MAX_SELECTED_BYTES", 1001)
    items = 600  # 600 items of [1,1] declared, 234 there (enough bytes for the head), cut inside the last
    body = b"\x99" + items.to_bytes(2, "big") + b"\x82\x01\x01" * 233 + b"\x82\x01"
    assert binary_v1.read_arrays_or_fault(body) is None
    assert verdict(slow(body))[0] == "compact.limit"


@pytest.mark.parametrize("cut_at", [-1, -2, -511, -600])
def test_nested_511_cut_short_is_placed_without_cbor2_or_the_walker(monkeypatch, cut_at):
    doc = b"[" + b",".join([b"[" * 510 + b"1" + b"]" * 510] * 60) + b"]"
    wire = codec.encode_binary(codec.CompactProjection("graph", "r", "v", doc))[:cut_at]
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)  # the gate as shipped
    with pytest.raises(CompactError) as slow_caught:
        check = codec.decode_wire  # the verdict as the walker gives it, the fast reading off
        monkeypatch.setattr(binary_v1, "read_arrays_or_fault", lambda body: None)
        check(wire)
    monkeypatch.undo()
    monkeypatch.setattr(binary_v1, "_MIN_BYTES_PER_TOKEN", 8)

    def no_walk(*args, **kwargs):
        raise AssertionError("walked")

    monkeypatch.setattr(binary_v1, "check_cbor", no_walk)
    monkeypatch.setattr(cbor2, "loads", no_walk)
    with pytest.raises(CompactError) as caught:
        codec.decode_wire(wire)
    expected = slow_caught.value
    assert (caught.value.code, caught.value.message, caught.value.offset) == (expected.code, expected.message, expected.offset)
    assert caught.value.offset == len(wire) and caught.value.code == "compact.envelope"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut(), st.sampled_from([40, 120]))
def test_a_cut_body_near_the_size_limit_is_the_walkers_verdict(body, limit):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codec.limits, "MAX_SELECTED_BYTES", limit)  # the walker's size error may come first
        read = binary_v1.read_arrays_or_fault(body)
        if isinstance(read, CompactError):
            assert verdict(read) == verdict(slow(body))
        elif read is not None:
            assert slow(body) == read
