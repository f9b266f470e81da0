"""Findings of issue 13 (an audit under atheris) and of the project's own fuzzing
(fuzz/), each pinned by its minimal input: the outcome is a projection or the
named ``CompactError``, never another exception."""

from __future__ import annotations

import pytest
from wirekit import V2_HEADER, bounded, digest_of, fields, rejected, v1, v2

import codec

ZERO_DIGEST = b"sha256:" + b"0" * 64
#: The envelope of the issue's minimal inputs: metadata r / v, an unrelated digest.
V2_PREFIX = (
    V2_HEADER + b"profile 5 graph\nroot 1 r\nsource_revision 1 v\nsource_digest 71 " + ZERO_DIGEST + b"\n"
)


def layout_error(wire: bytes) -> codec.CompactError:
    layout = codec.layout_model_text(wire)
    assert layout.error is not None
    return layout.error


# --- an '@' as the last byte of an unterminated string ---------------------------------------


@pytest.mark.parametrize(
    "rest",
    [
        b'dict 1\n"aaaaaaaaaaaaaaaa"\nbody\n@0"@',  # the smallest case
        b'dict 0\nbody\n"@',  # layout alone crashed on this one
        b'dict 1\n"aaaaaaaaaaaaaaaa"\nbody\n@0"\\@',  # '@' after a backslash, also the last byte
    ],
)
def test_unterminated_string_ending_in_at_is_copied_not_split(rest):
    wire = V2_PREFIX + rest
    assert rejected(codec.decode_model_text, wire).code == "compact.digest"
    assert rejected(codec.decode_wire, wire).code == "compact.digest"
    assert layout_error(wire).code == "compact.digest"


@pytest.mark.parametrize("body", [b'@0"@', b'@0"\\@'])
def test_unterminated_string_ending_in_at_with_a_right_digest_is_not_json(body):
    entry = b'"aaaaaaaaaaaaaaaa"'
    document = entry + body[2:]
    wire = v2(document, [entry], body)
    assert rejected(codec.decode_model_text, wire).code == "compact.json"
    assert layout_error(wire).code == "compact.json"
    assert list(codec.layout_model_text(wire).ref_wire) == [wire.index(b"\nbody\n") + 6]


def test_wirekit_prefix_is_what_wirekit_frames():
    assert V2_PREFIX == V2_HEADER + fields(digest=ZERO_DIGEST, root=b"r", revision=b"v")
    assert digest_of(b"") != ZERO_DIGEST.decode()


# --- verdicts that must depend on the bytes alone -----------------------------------------------

DEPTH_512 = b"[" * 512 + b"]" * 512


def _from_frames_deep(frames: int, call):
    return call() if frames == 0 else _from_frames_deep(frames - 1, call)


@pytest.mark.parametrize("form", codec.FORMS)
def test_depth_512_decodes_whatever_the_callers_stack_depth(form):
    p = codec.CompactProjection("graph", "r", "v", DEPTH_512)
    wire = codec.ENCODERS[form](p)
    for frames in (0, 480, 900):
        assert _from_frames_deep(frames, lambda: codec.decode_wire(wire)).selected == DEPTH_512


def test_depth_512_value_encodes_whatever_the_callers_stack_depth():
    value = []
    for _ in range(511):
        value = [value]
    assert _from_frames_deep(900, lambda: codec.canonical_json(value)) == DEPTH_512


LONG = b"1" * 4301


@pytest.mark.parametrize(
    "document, code",
    [
        (b"[1,,2," + LONG + b"]", "compact.json"),  # the syntax error comes first
        (b"[x," + LONG + b"]", "compact.json"),
        (b"[" + LONG + b",,2]", "compact.limit"),  # the integer comes first
        (b'{"a":1,"a":' + LONG + b"}", "compact.json"),  # a duplicate key, then the integer
        (b"[1.5" + b"0" * 4301 + b"]", "compact.noncanonical"),  # a long run that is no integer
    ],
)
def test_long_digit_run_does_not_change_an_earlier_verdict(document, code):
    """docs/wire-format.md §1: the first fault in document order decides, as the parser meets it;
    an unrelated run of digits does not turn compact.json into compact.limit."""
    for wire in (document, v2(document)):
        assert rejected(codec.decode_wire, wire).code == code


def test_long_integer_is_placed_at_its_byte():
    document = b"[0," + LONG + b"]"
    assert rejected(codec.decode_json, document).offset == 3


# --- floods and bombs: rejected at their first bad reference, allocating little ------------------

MiB = 1 << 20


def test_v2_flood_of_bad_references_stops_at_the_first():
    body = b"@0," * (15 * MiB // 3)
    wire = v2(b"[]", [], body, digest=ZERO_DIGEST)
    start = wire.index(b"\nbody\n") + 6
    for call in (codec.decode_model_text, codec.decode_wire):
        # allocating no more than a copy of the body: no per-reference objects
        error = bounded(call, wire, "compact.reference", extra=MiB)
        assert error.offset == start
    layout = codec.layout_model_text(wire)
    assert (layout.error.code, len(layout.ref_wire)) == ("compact.reference", 0)


def test_v1_flood_of_bad_back_references_stops_at_the_first():
    wire = v1(b"[]", b"~0," * (15 * MiB // 3), digest=ZERO_DIGEST)
    error = bounded(codec.decode_text, wire, "compact.reference", extra=MiB)
    assert error.offset == wire.index(b"\nbody\n") + 6


def test_v2_reference_bomb_stops_at_the_crossing_and_layout_lists_nothing_past_it():
    entry = b'"' + b"b" * (MiB - 2) + b'"'
    body = b"[" + b"@0," * (14 * MiB // 3) + b"@0]"
    wire = v2(b"[]", [entry], body, digest=ZERO_DIGEST)
    start = wire.index(b"\nbody\n") + 6
    error = bounded(codec.decode_model_text, wire, "compact.limit", extra=MiB)
    # '[' and 15 x (1 MiB + ',') fit; the 16th entry would take it past 16 MiB
    assert error.offset == start + 1 + 15 * 3
    layout = codec.layout_model_text(wire)
    assert layout.error.offset == error.offset
    assert list(layout.ref_wire) == [start + 1 + 3 * k for k in range(15)]
    assert max(layout.ref_doc) + len(entry) <= 16 * MiB


def test_v2_bad_reference_after_a_bomb_is_not_reached():
    entry = b'"' + b"b" * (MiB - 2) + b'"'
    body = b"[" + b"@0," * 20 + b"@7]"
    wire = v2(b"[]", [entry], body, digest=ZERO_DIGEST)
    assert rejected(codec.decode_model_text, wire).code == "compact.limit"


def test_v2_bad_reference_among_strings_holding_at_and_escaped_quotes():
    entry = b'"abcdefghijklmnop"'
    body = b'["@9 \\" @1",@0,"\\"@",@1]'
    wire = v2(b"[]", [entry], body, digest=ZERO_DIGEST)
    error = rejected(codec.decode_model_text, wire)
    assert (error.code, wire[error.offset : error.offset + 3]) == ("compact.reference", b"@1]")


# --- decoders take bytes-like wires only ---------------------------------------------------------

ENTRY_POINTS = [
    codec.decode_wire, codec.decode_model_text, codec.decode_text, codec.decode_binary,
    codec.decode_json, codec.layout_model_text, codec.detect_form,
]


@pytest.mark.parametrize("call", ENTRY_POINTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", [10**12, "[1]", None, [0x5B, 0x5D]], ids=["int", "str", "none", "list"])
def test_a_wire_that_is_not_bytes_like_is_a_type_error_naming_the_type(call, value):
    """``bytes(10**12)`` would allocate a terabyte: the type is refused first."""
    with pytest.raises(TypeError, match=f"bytes, bytearray or memoryview, not {type(value).__name__}"):
        call(value)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_like_wires_decode_alike(kind):
    p = codec.CompactProjection("graph", "r", "v", b'{"a":[1,"x"]}')
    for form, encode in codec.ENCODERS.items():
        wire = encode(p)
        assert codec.decode_wire(kind(wire)).selected == p.selected
        assert codec.detect_form(kind(wire)) == form
    assert codec.layout_model_text(kind(codec.encode_model_text(p))).valid


def test_an_oversized_bytearray_is_refused_before_it_is_copied():
    wire = bytearray(16 * MiB + 1)
    for call in (codec.decode_wire, codec.decode_model_text, codec.decode_text, codec.decode_binary):
        assert rejected(call, wire).code == "compact.limit"
