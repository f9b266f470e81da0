"""A binary wire's layout runs the decoder's stages as they are (its fast paths
included) and reads the CBOR items when they are first used
(``codec.layout.LazyCborItems``, issue 23): the same items, verdict and offset
as when the layout walked the profile itself, for valid and rejected wires."""

from __future__ import annotations

import pickle
from array import array

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import codec
from codec import binary_v1
from codec.binary_v1 import CborItems, check_cbor
from codec.layout import LazyCborItems


def walked(wire: bytes, base: int) -> tuple[CborItems, tuple | None]:
    """The items and diagnostic of the profile walker run on the body (what the
    layout recorded before)."""
    items = CborItems()
    error = None
    try:
        check_cbor(wire[base:], items)
    except codec.CompactError as exc:
        error = (exc.code, exc.offset + base if exc.offset is not None else None)
    shifted = CborItems(
        array("q", [s + base for s in items.start]),
        array("q", [s + base for s in items.head_end]),
        array("q", [-1 if e < 0 else e + base for e in items.end]),
        items.major,
        items.parent,
    )
    return shifted, error


def json_chain(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


def wire_of(value: object) -> bytes:
    return codec.encode_binary(codec.CompactProjection.from_value("graph", "m.py", "rev", value))


values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=15,
)


@st.composite
def wires(draw) -> bytes:
    wire = bytearray(wire_of(draw(values)))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(len(wire) - 8 if len(wire) > 8 else 0, len(wire)))
        byte = draw(st.sampled_from([0x00, 0x18, 0x5F, 0x7F, 0x81, 0x9F, 0xA1, 0xF7, 0xF9, 0xFF]))
        if at == len(wire) or draw(st.booleans()):
            wire.insert(at, byte)
        else:
            wire[at] = byte
    return bytes(wire)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wires())
def test_lazy_items_are_the_walkers_items(wire):
    layout = codec.layout_wire(wire)
    if layout.body is None or layout.stage == "envelope":
        return
    items, error = walked(wire, layout.body.start)
    assert layout.cbor == items
    if error is not None:  # the walker rejects: the layout stopped where it does, with its code
        assert layout.error is not None and (layout.error.code, layout.error.offset) == error
    assert pickle.loads(pickle.dumps(layout.cbor)) == items


def test_a_valid_layout_walks_only_when_its_items_are_used(monkeypatch):
    wire = wire_of([{"a": [1, 2.5, "x"]}] * 50)
    calls = []
    real = binary_v1.check_cbor
    monkeypatch.setattr(binary_v1, "check_cbor", lambda *a, **k: calls.append(1) or real(*a, **k))
    layout = codec.layout_wire(wire)
    assert layout.valid and layout.document == codec.decode_binary(wire).selected
    assert isinstance(layout.cbor, LazyCborItems) and calls == []
    assert len(layout.cbor) == 1 + 50 * 6 and calls == [1]
    assert layout.cbor.major[0] == 4 and calls == [1]  # read once


def test_a_nested_binary_layout_is_the_decoders_reading():
    wire = wire_of([[[[1]]]] * 3 + [json_chain(510)] * 30)
    layout = codec.layout_wire(wire)
    assert layout.valid and layout.document == codec.decode_wire(wire).selected


def test_a_layout_stopped_before_the_walk_has_no_items():
    wire = wire_of([1, 2])
    layout = codec.layout_wire(wire, through="envelope")
    assert layout.partial and len(layout.cbor) == 0
