"""A v1 text layout of a body the bulk expansion accepted is computed in bulk
(``codec.layout._text_parts_in_bulk``, issue 23) and is the same value as the
token-by-token reading gives (``_text_parts_by_walk``), for valid wires with
back-references; a wire the bulk expansion refuses still goes token by token."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import codec
from codec import layout as layout_module


def walked_layout(wire: bytes, monkeypatch) -> codec.WireLayout:
    """The layout as it was computed before: token by token, always."""
    with monkeypatch.context() as m:
        m.setattr(layout_module, "_text_parts_in_bulk", lambda reader, parts: False)
        return codec.layout_wire(wire)


def wire_of(value: object) -> bytes:
    return codec.encode_text(codec.CompactProjection.from_value("graph", "m.py", "rev", value))


# few distinct strings, many repeats: back-references of every width, and short
# strings written inline again (where ~k would not be shorter); '~', '"' and '\\'
# inside strings
strings = st.text(alphabet='ab~"\\\u00e9 ', max_size=6)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | strings,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(strings, inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(values, st.integers(0, 40), st.sampled_from([1, 5, 64, layout_module._OUTSIDE_CHUNK]))
def test_bulk_layout_is_the_walked_layout(monkeypatch, value, wide, chunk):
    # ``wide`` distinct strings first push later table indices to two digits;
    # small chunks cut the outside parts at many references
    wire = wire_of([[f"s{i}" for i in range(wide)] * 2, value, value])
    calls = []
    real = layout_module._text_parts_in_bulk
    with monkeypatch.context() as m:
        m.setattr(layout_module, "_OUTSIDE_CHUNK", chunk)
        m.setattr(layout_module, "_text_parts_in_bulk", lambda r, p: calls.append(1) or real(r, p))
        new = codec.layout_wire(wire)
    assert new.valid and calls == [1]
    assert new == walked_layout(wire, monkeypatch)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(values, st.data())
def test_a_refused_body_goes_token_by_token(monkeypatch, value, data):
    wire = bytearray(wire_of([value, value, "abcdefgh", "abcdefgh"]))
    body = wire.index(b"body\n") + 5
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(body, len(wire)))
        wire[at:at] = data.draw(st.sampled_from([b"~0", b"~9", b"~00", b'"abcdefgh"', b"~", b'"', b"\x00", b"~1"]))
    wire = bytes(wire)
    calls = []
    real = layout_module._text_parts_in_bulk
    with monkeypatch.context() as m:
        m.setattr(layout_module, "_text_parts_in_bulk", lambda r, p: calls.append(1) or real(r, p))
        new = codec.layout_wire(wire)
    old = walked_layout(wire, monkeypatch)
    assert (new.stage, new.error and (new.error.code, new.error.offset)) == (
        old.stage, old.error and (old.error.code, old.error.offset))
    assert new.entries == old.entries and new.entry_spans == old.entry_spans
    assert (new.ref_wire, new.ref_index, new.ref_doc) == (old.ref_wire, old.ref_index, old.ref_doc)
    assert new.reference_counts == old.reference_counts and new.document == old.document
    if new.stage == "expand":  # the bulk expansion refused it: read token by token
        assert calls == []


def test_a_body_of_tiny_back_references(monkeypatch):
    wire = wire_of(["abcd"] * 3000 + [f"x{i}" for i in range(200)] * 3)
    new = codec.layout_wire(wire)
    assert new.valid and len(new.ref_wire) == 2999 + 200 * 2
    assert new.reference_counts[0] == 2999
    assert new == walked_layout(wire, monkeypatch)
