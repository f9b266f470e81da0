"""The held-out families of issue 23 at small sizes: each is rejected (or accepted)
with the code and the byte a reader needs, placed without a second parse, and the
binary fast path's memory bound holds. Their full-size time and memory ratios are
semaprax bench hostile's (docs/robustness.md), not pass/fail tests here."""

from __future__ import annotations

import json
import struct
import tracemalloc
from typing import Any

import cbor2
import pytest
import wirekit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wirekit import JSON, LIMIT, NONCANONICAL, rejected_both

import codec
from codec import binary_v1

N = 2_000  # objects in a family: big enough for the dictionary of v2, small enough to be fast


def small_objects(n: int = N) -> bytes:
    return b"[" + b",".join([b'{"a":0}'] * n) + b"]"


def framed(form: str, doc: bytes) -> tuple[bytes, int]:
    """``doc`` as a ``form`` wire with a matching digest, and where ``doc`` starts
    in it (no dictionary, so a document offset maps one to one)."""
    if form == "json":
        return doc, 0
    wire = wirekit.v2(doc) if form == "model-text" else wirekit.v1(doc)
    return wire, wire.index(b"body\n") + 5


FORMS = ("json", "model-text", "text")


@pytest.mark.parametrize("form", FORMS)
def test_small_objects_with_a_trailing_space_are_noncanonical_at_the_space(form: str) -> None:
    doc = small_objects() + b" "
    wire, at = framed(form, doc)
    exc = rejected_both(form, wire, NONCANONICAL)
    assert exc.offset == at + len(doc) - 1


@pytest.mark.parametrize("form", FORMS)
def test_a_duplicate_key_in_the_last_object_is_placed_at_the_key(form: str) -> None:
    doc = small_objects()[:-2] + b',"a":1}]'
    wire, at = framed(form, doc)
    exc = rejected_both(form, wire, JSON)
    assert exc.offset == at + doc.rindex(b'"a"')
    assert "duplicate object key" in exc.message


@pytest.mark.parametrize("form", FORMS)
def test_a_float_out_of_range_at_the_end_is_placed(form: str) -> None:
    doc = small_objects()[:-1] + b",1e400]"
    wire, at = framed(form, doc)
    exc = rejected_both(form, wire, JSON)
    assert exc.offset == at + doc.rindex(b"1e400")


@pytest.mark.parametrize("form", ("json", "model-text"))
def test_a_duplicate_among_many_keys_is_placed(form: str) -> None:
    keys = [b'"k%07d":0' % i for i in range(20_000)]
    doc = b"{" + b",".join(keys + [b'"k0000007":0']) + b"}"
    wire, at = framed(form, doc)
    exc = rejected_both(form, wire, JSON)
    assert exc.offset == at + doc.rindex(b'"k0000007"')


def test_the_first_fault_in_document_order_wins_over_a_later_duplicate() -> None:
    # the duplicate's value replaces the one out of range, so the parse and the
    # encoding succeed: the placement still reports the earlier fault
    doc = b'{"a":1e400,"b":[{"c":1,"c":2}],"a":1}'
    exc = rejected_both("json", doc, JSON)
    assert exc.offset == doc.index(b"1e400")


@pytest.mark.parametrize(
    ("doc", "fault"),
    [
        (b'[1,"\\ud83d\\ude00",{"x":"\\ud800"}]', b'"\\ud800"'),  # a pair is text, a lone one is not
        (b'[1.5e99,1' + b"0" * 300 + b'.5e99]', b"1" + b"0" * 300),  # 10^399: out of range
        (b'[1,2,{"a":[NaN]}]', b"NaN"),
        (b'[-Infinity]', b"-Infinity"),
    ],
)
def test_token_faults_are_placed_at_their_token(doc: bytes, fault: bytes) -> None:
    exc = rejected_both("json", doc, JSON)
    assert exc.offset == doc.index(fault)


def test_an_escaped_key_repeats_its_plain_spelling() -> None:
    doc = b'{"a":1,"b":2,"\\u0061":3}'
    exc = rejected_both("json", doc, JSON)
    assert exc.offset == doc.index(b'"\\u0061"')


def test_a_colon_inside_a_string_is_no_pair() -> None:
    # a key repeats exactly when the document has more colons outside strings
    # than its encoding; colons in strings must not count
    doc = b'{"a:b":"c:d" ,"e":1}'
    exc = rejected_both("json", doc, NONCANONICAL)
    assert exc.offset == doc.index(b" ,")


def test_a_noncanonical_document_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault is placed without parsing the document again (the second parse
    used to run while the first value was held: MemoryError at 16 MiB under a
    1 GiB cap)."""
    sizes: list[int] = []
    loads = json.loads

    def counting(s: str | bytes, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(s))
        return loads(s, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)  # the module projection parses with
    for doc in (small_objects() + b" ", small_objects()[:-2] + b',"a":1}]', small_objects()[:-1] + b",1e400]"):
        sizes.clear()
        with pytest.raises(codec.CompactError):
            codec.decode_json(doc)
        assert [s for s in sizes if s > 100] == [len(doc)], sizes


def test_depth_error_after_a_stray_byte_has_an_offset() -> None:
    doc = b"x" + b"[" * 513
    exc = rejected_both("json", doc, LIMIT)
    assert exc.offset == 513  # the bracket that opens level 513


def test_depth_error_offset_skips_brackets_in_strings() -> None:
    doc = b'["[[[",' + b"{" * 512 + b"}" * 512 + b"]"
    exc = rejected_both("json", doc, LIMIT)
    assert exc.offset == doc.index(b"{") + 511


@pytest.mark.parametrize("form", ("json", "binary", "model-text", "text"))
def test_arrays_nested_511_deep_are_valid(form: str) -> None:
    doc = b"[" + b",".join([b"[" * 510 + b"1" + b"]" * 510] * 8) + b"]"
    p = codec.CompactProjection("graph", "r", "v", doc)
    wire = doc if form == "json" else codec.ENCODERS[form](p)
    assert codec.decode_wire(wire).selected == doc


def test_binary_nested_511_deep_takes_the_fast_path() -> None:
    body = cbor2.dumps([[[1]]] * 3)
    deep = b"\x82" + (b"\x81" * 509 + b"\x01") * 2
    for b in (body, deep):
        assert binary_v1.read_fast(b) is not None


def test_binary_indefinite_item_at_the_end_is_placed() -> None:
    value: list[object] = [{"a": i} for i in range(N)] + [[]]
    body = cbor2.dumps(value)
    assert body.endswith(b"\x80")
    bad = body[:-1] + b"\x9f\xff"
    doc = codec.canonical_json(value)
    wire = wirekit.binary(doc, bad)
    exc = rejected_both("binary", wire, NONCANONICAL)
    assert exc.offset == len(wire) - 2


@pytest.mark.parametrize(
    "value",
    [
        [[]] * 3000,
        [{}] * 3000,
        [{"ab": 1}] * 2000,
        [-7] * 5000,
        ["ab"] * 3000,
        ["\u0100"] * 3000,
        ["\u0800"] * 3000,
        ["\U00010000"] * 3000,
        [1.5] * 3000,
        [[[[1]]]] * 1000,
        [{f"k{i}": [i, -i, "x" * (i % 40)] for i in range(50)}] * 40,
    ],
    ids=lambda v: repr(v)[:24],
)
def test_the_memory_bound_bounds_what_cbor2_builds(value: object) -> None:
    """``most_value_memory`` lets cbor2 read a body whose document bound is loose:
    what cbor2 then allocates must stay under it, for the costliest shapes."""
    body = cbor2.dumps(value)
    cbor2.loads(body)  # warm up whatever cbor2 caches on first use
    tracemalloc.start()
    try:
        built = cbor2.loads(body)
        allocated, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert built == value
    assert allocated <= binary_v1.most_value_memory(body), (allocated, binary_v1.most_value_memory(body))


@pytest.mark.parametrize("cls", [bytearray, memoryview])
def test_layout_wire_of_a_large_bytes_like_wire_is_the_limit(cls: type) -> None:
    wire = cls(b"SEMAPRAX-MODEL-TEXT 2\n" + bytes(16 << 20))
    layout = codec.layout_wire(wire)
    assert layout.error is not None and layout.error.code == LIMIT
    assert layout.wire_size == (16 << 20) + 22


# --- binary: the walker's diagnostic without the walk ------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(width=64, allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=30,
)


def _walker(body: bytes) -> tuple[str, int | None, str] | None:
    try:
        binary_v1.check_cbor(body)
    except codec.CompactError as exc:
        return exc.code, exc.offset, exc.message
    return None


def _departures(body: bytes, data: st.DataObject) -> bytes:
    """``body`` with one head spelled another way the lenient read accepts, or
    one byte changed, or bytes appended."""
    kind = data.draw(st.sampled_from(["indefinite", "wide", "float32", "trailing", "byte"]))
    at = data.draw(st.integers(0, len(body) - 1))
    ib = body[at]
    major, ai = ib >> 5, ib & 31
    if kind == "indefinite" and body[0] >> 5 in (4, 5) and body[0] & 31 < 24:
        # the top array or map with an indefinite length: the same items, then a break
        return bytes([body[0] | 31]) + body[1:] + b"\xff"
    if kind == "wide" and major in (0, 1, 3, 4, 5) and ai < 24:
        return body[:at] + bytes([(major << 5) | 24, ai]) + body[at + 1 :]
    if kind == "float32" and ib == 0xFB and at + 9 <= len(body):
        # (a 0xFB among a double's own last 8 bytes has no 8 bytes after it: no float head there)
        x = struct.unpack(">d", body[at + 1 : at + 9])[0]
        try:
            short = struct.pack(">f", x)
        except OverflowError:  # beyond float32's range (3.4028235677973366e+38 rounds up past it): no short form
            short = None
        if short is not None and struct.unpack(">f", short)[0] == x:
            return body[:at] + b"\xfa" + short + body[at + 9 :]
        return body
    if kind == "trailing":
        return body + data.draw(st.binary(min_size=1, max_size=3))
    if kind == "byte":
        return body[:at] + bytes([data.draw(st.integers(0, 255))]) + body[at + 1 :]
    return body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, data=st.data())
def test_an_encoding_fault_is_the_walkers_verdict(value: object, data: st.DataObject) -> None:
    body = _departures(cbor2.dumps(value), data)
    fault = binary_v1.encoding_fault(body)
    if fault is not None:
        assert (fault.code, fault.offset, fault.message) == _walker(body)


def test_an_indefinite_array_at_the_top_is_placed_without_the_walk() -> None:
    body = b"\x9f" + cbor2.dumps([1, "a"])[1:] + b"\xff"
    fault = binary_v1.encoding_fault(body)
    assert fault is not None and (fault.code, fault.offset, fault.message) == _walker(body)


@pytest.mark.parametrize(
    ("doc", "duplicate"),
    [
        # the encoding diverges early (the outer "a" takes its last value), the
        # first repeated key in document order is the inner "c"
        (b'{"a":[1],"b":{"c":1,"c":2},"a":[2]}', b'"c":2'),
        (b'[{"x":1},{"y":[1,{"z":0}]},{"a":1,"b":{"a":0},"a":2}]', b'"a":2'),
        (b'[{"x":1} ,{"a":1,"a":1}]', b'"a":1}]'),  # a space before: the duplicate still wins
        (b'{"k":{"a":{"b":1}},"j":[{"a":1,"b":2,"a":3}]}', b'"a":3'),
    ],
)
def test_the_first_repeated_key_in_document_order_is_placed(doc: bytes, duplicate: bytes) -> None:
    exc = rejected_both("json", doc, JSON)
    assert exc.offset == doc.index(duplicate)


# --- valid but slow (issue 23, round 3): decoded without building the value ---------------

ALL_FORMS = ("json", "binary", "model-text", "text")


def _no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the document is parsed (json) or built from CBOR (cbor2)."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the value was built")

    monkeypatch.setattr(json, "loads", refuse)
    monkeypatch.setattr(cbor2, "loads", refuse)


def _wire(form: str, doc: bytes) -> bytes:
    if form == "json":
        return doc
    wire: bytes = codec.ENCODERS[form](codec.CompactProjection("graph", "r", "v", doc))
    return wire


@pytest.mark.parametrize("form", ALL_FORMS)
def test_arrays_nested_511_deep_decode_and_lay_out_without_their_value(
    form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = b"[" + b",".join([b"[" * 510 + b"1" + b"]" * 510] * 40) + b"]"
    wire = _wire(form, doc)
    _no_value(monkeypatch)
    assert codec.decode_wire(wire).selected == doc
    layout = codec.layout_wire(wire)
    assert layout.valid and layout.document == doc


@pytest.mark.parametrize("form", ("json", "model-text", "text"))
def test_one_object_of_many_keys_decodes_without_its_value(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = [b'"k%07d":%d' % (i, i % 3) for i in range(20_000)]
    doc = b"{" + b",".join(keys) + b"}"
    wire = _wire(form, doc)
    _no_value(monkeypatch)
    assert codec.decode_wire(wire).selected == doc
    duplicate = b"{" + b",".join(keys + [b'"k0000007":0']) + b"}"
    wire, at = framed(form, duplicate)
    exc = rejected_both(form, wire, JSON)  # the code and offset of the parsing reading, without a parse
    assert exc.offset == at + duplicate.rindex(b'"k0000007"')
    assert exc.message == 'duplicate object key "k0000007"'
