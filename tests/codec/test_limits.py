"""Every limit of docs/wire-format.md §9, at the boundary.

"Exactly at a limit is accepted; one past it is rejected." For each limit a wire
exactly at it decodes (and, where the spec says encoders check, the encoder writes
it), and a wire one past it, valid in every other respect (right digest, canonical
spelling), is rejected with ``compact.limit`` by the decoders and refused by the
encoders. Big inputs are built by bytes multiplication, once per module.
"""

from __future__ import annotations

import functools
import json

import cbor2
import pytest
import wirekit
from wirekit import (
    DECODERS,
    DICTIONARY,
    ENVELOPE,
    LIMIT,
    MAGIC,
    META,
    METADATA,
    V1_HEADER,
    V2_HEADER,
    as_bytes,
    bounded,
    field_line,
    leb128,
    rejected_both,
)

import codec
from codec import CompactError

MiB = 1 << 20
MAX_WIRE = 16 * MiB  # 16,777,216
MAX_DOCUMENT = 16 * MiB
MAX_ENTRIES = 65_536
MAX_ENTRY = MiB  # 1,048,576, quotes included
MAX_METADATA = 4_096
MAX_DEPTH = 512
MAX_DIGITS = 4_300

PROFILE = META["profile"]
ROOT = META["root"]
REVISION = META["revision"]
ENVELOPED = ("text", "binary", "model-text")


# --- framing by hand: tests/wirekit.py with the shared test metadata ------------------------

text_fields = functools.partial(wirekit.fields, **META)  # (document | digest=…)
model_text_wire = functools.partial(wirekit.v2, **META)  # (document, entries, body, digest=…)
text_wire = functools.partial(wirekit.v1, **META)  # (document, body, digest=…)
binary_wire = functools.partial(wirekit.binary, **META)  # (document, cbor, digest=…)


def hand_framed(form: str, document: bytes) -> bytes:
    """``document`` in ``form`` with no references: what the encoders write for a
    document with nothing to share."""
    if form == "json":
        return document
    if form == "text":
        return text_wire(document)
    if form == "model-text":
        return model_text_wire(document)
    return binary_wire(document, cbor2.dumps(json.loads(document)))


def projection(document: bytes, **meta) -> codec.CompactProjection:
    return codec.CompactProjection(
        meta.get("profile", PROFILE), meta.get("root", ROOT), meta.get("source_revision", REVISION), document
    )


# --- assertions: tests/wirekit.py, with compact.limit as the expected code ------------------


def decodes(form: str, wire: bytes):
    """Decode with the form's decoder and decode_wire; both must accept."""
    try:
        result = DECODERS[form](wire)
        via = codec.decode_wire(wire)
    except CompactError as exc:
        pytest.fail(f"{form}: a wire within the limits was rejected: {exc!r}"[:1500])
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"{form}: {type(exc).__name__} escaped instead of CompactError: {exc!r}"[:1500])
    assert via.form == form
    return result


#: An encoder or constructor refuses with compact.limit.
refused = functools.partial(wirekit.refused, code=LIMIT)


def rejected(form: str, wire: bytes, code: str | set = LIMIT) -> CompactError:
    """The form's decoder and decode_wire both reject ``wire`` with ``code``."""
    return rejected_both(form, wire, code)


# --- 1. the whole wire: 16 MiB -------------------------------------------------------------


def _overhead(form: str) -> int:
    """Bytes a wire of ``["x…x"]`` spends outside the document (json, text,
    model-text) or outside the string's bytes (binary)."""
    digest = "sha256:" + "0" * 64
    if form == "json":
        return 0
    if form == "text":
        return len(text_wire(b"", digest=digest))
    if form == "model-text":
        return len(model_text_wire(b"", digest=digest))
    # magic, fields, then CBOR 0x81 0x7a <4-byte length> <n bytes>; the JSON is n + 4
    return len(binary_wire(None, b"", digest=digest)) + 6 - 4


def document_for_wire(form: str, size: int) -> bytes:
    """A document of one long string whose ``form`` wire is exactly ``size`` bytes."""
    n = size - _overhead(form) - 4
    return b'["' + b"x" * n + b'"]'


@functools.cache
def wire_limit_document(form: str, extra: int) -> bytes:
    return document_for_wire(form, MAX_WIRE + extra)


@pytest.mark.parametrize("form", ENVELOPED)
def test_wire_of_exactly_16_mib_is_written_and_read(form):
    document = wire_limit_document(form, 0)
    p = projection(document)
    wire = codec.ENCODERS[form](p)
    assert len(wire) == MAX_WIRE
    assert wire == hand_framed(form, document)
    assert decodes(form, wire) == p


def test_json_wire_of_exactly_16_mib_is_read():
    document = wire_limit_document("json", 0)
    assert len(document) == MAX_WIRE
    assert decodes("json", document) == document
    assert codec.encode_json(projection(document)) == document


@pytest.mark.parametrize("form", ENVELOPED)
def test_encoder_refuses_a_wire_of_16_mib_plus_one(form):
    document = wire_limit_document(form, 1)
    assert len(document) < MAX_DOCUMENT  # only the wire is too large
    refused(codec.ENCODERS[form], projection(document))


@pytest.mark.parametrize("form", ["json", *ENVELOPED])
def test_decoder_rejects_a_wire_of_16_mib_plus_one(form):
    wire = hand_framed(form, wire_limit_document(form, 1))
    assert len(wire) == MAX_WIRE + 1
    rejected(form, wire)


# --- 2. the reconstructed document: 16 MiB -----------------------------------------------------

ENTRY_A = b'"' + b"a" * (MAX_ENTRY - 2) + b'"'  # exactly 1 MiB, quotes included
FILLER_LEN = MAX_DOCUMENT - 1 - 15 * (MAX_ENTRY + 1) - 1  # so that 15 entries + filler = 16 MiB


def _filler(extra: int) -> bytes:
    return b'"' + b"b" * (FILLER_LEN - 2 + extra) + b'"'


@functools.cache
def shared_document(extra: int) -> bytes:
    """``[A,A,…(15 times),F]``: 16 MiB + ``extra`` once the references expand."""
    document = b"[" + (ENTRY_A + b",") * 15 + _filler(extra) + b"]"
    assert len(document) == MAX_DOCUMENT + extra
    return document


def test_model_text_document_of_exactly_16_mib_from_references():
    p = projection(shared_document(0))
    wire = codec.encode_model_text(p)
    body = b"[" + b"@0," * 15 + _filler(0) + b"]"
    assert wire == model_text_wire(p.selected, [ENTRY_A], body)
    assert len(wire) < 3 * MiB
    assert decodes("model-text", wire) == p


def test_model_text_document_of_16_mib_plus_one_from_references():
    """§5.2 step 3: before every append the decoder checks the reconstructed size
    stays within 16 MiB; the wire itself is about 2 MiB and otherwise valid."""
    document = shared_document(1)
    wire = model_text_wire(document, [ENTRY_A], b"[" + b"@0," * 15 + _filler(1) + b"]")
    exc = rejected("model-text", wire)
    assert exc.offset is None or exc.offset >= wire.index(b"\nbody\n"), exc


def test_model_text_reference_bomb_fails_fast_without_allocating_it():
    """A 1 MiB entry referenced 2,000 times would be 2 GB: rejected long before."""
    body = b"[" + b"@0," * 1999 + b"@0]"
    wire = model_text_wire(b"[]", [ENTRY_A], body)
    bounded(codec.decode_model_text, wire)
    bounded(codec.decode_wire, wire)


def test_text_document_of_exactly_16_mib_from_back_references():
    p = projection(shared_document(0))
    wire = codec.encode_text(p)
    assert wire == text_wire(p.selected, b"[" + ENTRY_A + b",~0" * 14 + b"," + _filler(0) + b"]")
    assert decodes("text", wire) == p


def test_text_document_of_16_mib_plus_one_from_back_references():
    """§6: the same limit rules as §5.2 apply to v1 text."""
    document = shared_document(1)
    wire = text_wire(document, b"[" + ENTRY_A + b",~0" * 14 + b"," + _filler(1) + b"]")
    rejected("text", wire)


def test_text_back_reference_bomb_fails_fast_without_allocating_it():
    wire = text_wire(b"[]", b"[" + ENTRY_A + b",~0" * 2000 + b"]")
    bounded(codec.decode_text, wire)


CONTROL = 2_000_000  # U+0001: 1 byte in CBOR, 6 (\u0001) in JSON


def _control_document(extra: int) -> tuple[bytes, bytes]:
    """(JSON, CBOR) of one string whose JSON is 16 MiB + ``extra`` and whose CBOR is
    well under the wire limit."""
    plain = MAX_DOCUMENT - 4 - 6 * CONTROL + extra
    document = b'["' + b"\\u0001" * CONTROL + b"x" * plain + b'"]'
    body = cbor2.dumps(["\x01" * CONTROL + "x" * plain])
    return document, body


def test_binary_document_of_exactly_16_mib_as_json():
    document, body = _control_document(0)
    assert len(document) == MAX_DOCUMENT
    p = projection(document)
    wire = codec.encode_binary(p)
    assert wire == binary_wire(document, body)
    assert decodes("binary", wire) == p


def test_binary_document_of_16_mib_plus_one_as_json():
    """A 6.8 MB CBOR item whose selected bytes are 16 MiB + 1."""
    document, body = _control_document(1)
    wire = binary_wire(document, body)
    assert len(wire) < MAX_WIRE
    rejected("binary", wire)


def test_projection_refuses_a_document_of_16_mib_plus_one():
    document = b'["' + b"x" * (MAX_DOCUMENT - 3) + b'"]'
    refused(projection, document)


# --- 3. dictionary entries: 65,536 ----------------------------------------------------------


@functools.cache
def literals(n: int) -> tuple[bytes, ...]:
    """``n`` distinct 16-byte literals, in bytewise order."""
    return tuple(b'"%014d"' % i for i in range(n))


@functools.cache
def many_entries_document(n: int) -> bytes:
    lits = literals(n)
    return b"[" + b",".join(lits + lits) + b"]"


def _many_entries_body(n: int) -> bytes:
    refs = [b"@%d" % i for i in range(n)]
    return b"[" + b",".join(refs + refs) + b"]"


def test_dictionary_of_exactly_65536_entries():
    p = projection(many_entries_document(MAX_ENTRIES))
    wire = codec.encode_model_text(p)
    assert b"\ndict 65536\n" in wire
    assert wire == model_text_wire(p.selected, literals(MAX_ENTRIES), _many_entries_body(MAX_ENTRIES))
    assert decodes("model-text", wire) == p


def test_encoder_refuses_a_dictionary_of_65537_entries():
    refused(codec.encode_model_text, projection(many_entries_document(MAX_ENTRIES + 1)))


def test_decoder_rejects_a_dictionary_of_65537_entries():
    n = MAX_ENTRIES + 1
    wire = model_text_wire(many_entries_document(n), literals(n), _many_entries_body(n))
    exc = rejected("model-text", wire)
    # checked before reading any entry: the fault is on the dict line
    dict_at = wire.index(b"\ndict ") + 1
    first_entry = wire.index(b"\n", dict_at) + 1
    assert exc.offset is None or dict_at <= exc.offset < first_entry, exc


@pytest.mark.parametrize(
    "after", [b"", b"not an entry\n", b"body\n[]"], ids=["wire-ends", "garbage", "body-at-once"]
)
def test_entry_count_is_checked_before_reading_any_entry(after):
    """65,537 is compact.limit whatever follows; 65,536 with the same bytes after it
    is a dictionary fault (fewer entries than declared), not a limit."""
    prefix = V2_HEADER + text_fields(b"[]")
    rejected("model-text", prefix + b"dict 65537\n" + after, LIMIT)
    rejected("model-text", prefix + b"dict 65536\n" + after, {DICTIONARY, ENVELOPE})


# --- 4. one dictionary entry: 1 MiB, quotes included ---------------------------------------------


def _entry(length: int) -> bytes:
    return b'"' + b"e" * (length - 2) + b'"'


def test_dictionary_entry_of_exactly_1_mib():
    entry = _entry(MAX_ENTRY)
    p = projection(b"[" + entry + b"," + entry + b"]")
    wire = codec.encode_model_text(p)
    assert wire == model_text_wire(p.selected, [entry], b"[@0,@0]")
    assert decodes("model-text", wire) == p


def test_encoder_refuses_a_dictionary_entry_of_1_mib_plus_one():
    entry = _entry(MAX_ENTRY + 1)
    refused(codec.encode_model_text, projection(b"[" + entry + b"," + entry + b"]"))


def test_decoder_rejects_a_dictionary_entry_of_1_mib_plus_one():
    entry = _entry(MAX_ENTRY + 1)
    wire = model_text_wire(b"[" + entry + b"," + entry + b"]", [entry], b"[@0,@0]")
    rejected("model-text", wire)


def test_decoder_rejects_an_endless_dictionary_entry_as_a_limit():
    """No LF within 1 MiB + 1 bytes: past the limit, whatever comes later."""
    prefix = V2_HEADER + text_fields(b"[]") + b"dict 1\n"
    bounded(codec.decode_model_text, prefix + b'"' + b"e" * (2 * MiB))
    bounded(codec.decode_model_text, prefix + b"e" * (MAX_ENTRY + 1))


def test_entry_of_exactly_1_mib_at_the_end_of_the_wire_is_not_a_limit():
    """At the limit but with no LF after it: a dictionary fault, not compact.limit."""
    prefix = V2_HEADER + text_fields(b"[]") + b"dict 1\n"
    rejected("model-text", prefix + _entry(MAX_ENTRY), {DICTIONARY, ENVELOPE})


# --- 5. one metadata value: 4,096 bytes ----------------------------------------------------------

METADATA_VALUES = {
    "ascii": (b"r" * MAX_METADATA, b"r" * (MAX_METADATA + 1)),
    "two-byte-utf8": ("é" * (MAX_METADATA // 2), "é" * (MAX_METADATA // 2) + "r"),
    "four-byte-utf8": ("\U0001F600" * (MAX_METADATA // 4), "r" + "\U0001F600" * (MAX_METADATA // 4)),
}


def _meta_kwargs(field: str, value) -> dict:
    value = value.decode() if isinstance(value, bytes) else value
    return {field: value}


@pytest.mark.parametrize("form", ENVELOPED)
@pytest.mark.parametrize("field", ["root", "source_revision"])
@pytest.mark.parametrize("kind", sorted(METADATA_VALUES))
def test_metadata_value_of_exactly_4096_bytes(form, field, kind):
    value = METADATA_VALUES[kind][0]
    assert len(as_bytes(value)) == MAX_METADATA
    p = projection(b"[]", **_meta_kwargs(field, value))
    wire = codec.ENCODERS[form](p)
    assert decodes(form, wire) == p


@pytest.mark.parametrize("form", ENVELOPED)
@pytest.mark.parametrize("field", ["root", "source_revision"])
@pytest.mark.parametrize("kind", sorted(METADATA_VALUES))
def test_encoder_refuses_a_metadata_value_of_4097_bytes(form, field, kind):
    value = METADATA_VALUES[kind][1]
    assert len(as_bytes(value)) == MAX_METADATA + 1
    refused(codec.ENCODERS[form], projection(b"[]", **_meta_kwargs(field, value)))


def _framed_with(form: str, field: str, value: bytes) -> bytes:
    """The document ``[]`` in ``form`` with ``field`` set to ``value``."""
    key = {"source_revision": "revision", "source_digest": "digest"}.get(field, field)
    if form == "binary":
        return binary_wire(b"[]", cbor2.dumps([]), **{key: value})
    if form == "text":
        return text_wire(b"[]", **{key: value})
    return model_text_wire(b"[]", **{key: value})


@pytest.mark.parametrize("form", ENVELOPED)
@pytest.mark.parametrize("field", ["profile", "root", "source_revision", "source_digest"])
def test_decoder_rejects_a_metadata_value_of_4097_bytes(form, field):
    """§5.2 step 1 (text framing: the length over 4,096) and §7 (LEB128)."""
    wire = _framed_with(form, field, b"r" * (MAX_METADATA + 1))
    if form == "binary":
        assert b"\x81\x20" + b"r" * 4097 in wire  # 4,097 in LEB128
    else:
        assert b"%s 4097 " % field.encode() in wire
    rejected(form, wire)


@pytest.mark.parametrize("form", ENVELOPED)
@pytest.mark.parametrize("field", ["profile", "source_digest"])
def test_metadata_value_of_4096_bytes_passes_framing(form, field):
    """At the limit the framing accepts the value; it then fails only as an unknown
    profile or a malformed digest (compact.metadata), not as a limit."""
    wire = _framed_with(form, field, b"r" * MAX_METADATA)
    if form == "binary":
        assert b"\x80\x20" + b"r" * 4096 in wire  # 4,096 in LEB128
    rejected(form, wire, METADATA)


@pytest.mark.parametrize("form", ENVELOPED)
def test_metadata_limit_is_checked_on_the_declared_length(form):
    """The declared length alone breaks the limit: nothing after it is needed."""
    if form == "binary":
        wire = MAGIC + wirekit.binary_field(PROFILE) + leb128(MAX_METADATA + 1)
    else:
        header = V1_HEADER if form == "text" else V2_HEADER
        wire = header + field_line(b"profile", PROFILE) + b"root 4097 "
    rejected(form, wire)


# --- 6. nesting depth: 512 ------------------------------------------------------------------------


def _arrays(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _objects(depth: int) -> bytes:
    return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)


def _mixed(depth: int) -> bytes:
    half = depth // 2
    inner = b"[]" if depth % 2 else b"0"
    return b'[{"k":' * half + inner + b"}]" * half


def _with_bracket_strings(depth: int) -> bytes:
    # brackets and escaped quotes inside strings do not nest
    return b"[" * (depth - 1) + b'["]]]]\\"[[[[","{{{{"]' + b"]" * (depth - 1)


SHAPES = {"arrays": _arrays, "objects": _objects, "mixed": _mixed, "bracket-strings": _with_bracket_strings}


def _head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    for ai, width in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * width):
            return bytes([major << 5 | ai]) + n.to_bytes(width, "big")
    raise ValueError(n)


def _cbor_of(document: bytes) -> bytes:
    """Deterministic CBOR for a JSON document of any depth, without recursion."""
    out = bytearray()
    stack = [json.loads(document)]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            out += _head(4, len(item))
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            out += _head(5, len(item))
            for key, value in reversed(list(item.items())):
                stack.append(value)
                stack.append(_Key(key))
        elif isinstance(item, _Key):
            out += cbor2.dumps(item.key)
        else:
            out += cbor2.dumps(item)
    return bytes(out)


class _Key:
    def __init__(self, key: str) -> None:
        self.key = key


def test_shapes_have_the_depth_they_claim():
    for shape in SHAPES.values():
        for depth in (MAX_DEPTH, MAX_DEPTH + 1):
            deepest = level = 0
            in_string = escaped = False
            for byte in shape(depth):
                if in_string:
                    if escaped:
                        escaped = False
                    elif byte == 0x5C:
                        escaped = True
                    elif byte == 0x22:
                        in_string = False
                elif byte == 0x22:
                    in_string = True
                elif byte in b"[{":
                    level += 1
                    deepest = max(deepest, level)
                elif byte in b"]}":
                    level -= 1
            assert deepest == depth, (shape.__name__, depth, deepest)
    sample = [{"a": [1, "x", list(range(30))], "b": {}}, -5, 1.5, None, True]
    assert _cbor_of(json.dumps(sample, separators=(",", ":")).encode()) == cbor2.dumps(sample)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_depth_512_is_accepted_as_full_json(shape):
    document = SHAPES[shape](MAX_DEPTH)
    assert decodes("json", document) == document


@pytest.mark.parametrize("form", ENVELOPED)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_depth_512_is_written_and_read(shape, form):
    p = projection(SHAPES[shape](MAX_DEPTH))
    wire = codec.ENCODERS[form](p)
    if form == "binary":
        assert wire == binary_wire(p.selected, _cbor_of(p.selected))
    elif form == "model-text":  # under 16 KiB: no dictionary, the body is the document
        assert wire == hand_framed(form, p.selected)
    assert decodes(form, wire) == p


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("form", ["json", *ENVELOPED])
def test_depth_513_is_rejected_by_every_decoder(shape, form):
    document = SHAPES[shape](MAX_DEPTH + 1)
    if form == "binary":
        wire = binary_wire(document, _cbor_of(document))
    else:
        wire = hand_framed(form, document)
    rejected(form, wire)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_depth_513_cannot_become_a_projection(shape):
    """So no encoder can be handed a document that breaks the depth limit."""
    refused(projection, SHAPES[shape](MAX_DEPTH + 1))


def test_depth_513_from_a_value_is_a_limit():
    value: list = []
    for _ in range(MAX_DEPTH):
        value = [value]
    refused(codec.CompactProjection.from_value, PROFILE, ROOT, REVISION, value)
    assert projection(codec.canonical_json(value[0])).selected == _arrays(MAX_DEPTH)


# --- 7. integer digits: 4,300 ----------------------------------------------------------------------

NINES = b"9" * MAX_DIGITS
POWER = b"1" + b"0" * MAX_DIGITS  # 10**4300: 4,301 digits

INTEGERS_AT = {
    "positive": b"[" + NINES + b"]",
    "negative": b"[-" + NINES + b"]",
    "power-of-ten": b'{"n":1' + b"0" * (MAX_DIGITS - 1) + b"}",
    "fits-uint64-boundary": b"[18446744073709551615,-18446744073709551616,18446744073709551616]",
}
INTEGERS_PAST = {
    "positive": b"[" + POWER + b"]",
    "negative": b"[-" + POWER + b"]",
    "nines": b'{"n":9' + NINES + b"}",
}


@pytest.mark.parametrize("case", sorted(INTEGERS_AT))
def test_integer_of_4300_digits_is_accepted_as_full_json(case):
    document = INTEGERS_AT[case]
    assert decodes("json", document) == document


@pytest.mark.parametrize("form", ENVELOPED)
@pytest.mark.parametrize("case", sorted(INTEGERS_AT))
def test_integer_of_4300_digits_is_written_and_read(case, form):
    p = projection(INTEGERS_AT[case])
    wire = codec.ENCODERS[form](p)
    assert decodes(form, wire) == p


def _big_cbor(document: bytes) -> bytes:
    """CBOR of a document holding one huge integer, built without int-to-str."""
    digits = document.strip(b'[]{}"n:')
    negative = digits.startswith(b"-")
    n = _int_of(digits.lstrip(b"-"))
    tag, magnitude = (3, n - 1) if negative else (2, n)
    raw = magnitude.to_bytes((magnitude.bit_length() + 7) // 8, "big")
    item = bytes([0xC0 | tag]) + cbor2.dumps(raw)
    if document.startswith(b"{"):
        return b"\xa1" + cbor2.dumps("n") + item
    return b"\x81" + item


def _int_of(digits: bytes) -> int:
    value = 0
    for chunk_start in range(0, len(digits), 1000):
        chunk = digits[chunk_start : chunk_start + 1000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


@pytest.mark.parametrize("case", sorted(INTEGERS_PAST))
@pytest.mark.parametrize("form", ["json", *ENVELOPED])
def test_integer_of_4301_digits_is_rejected_by_every_decoder(case, form):
    document = INTEGERS_PAST[case]
    if form == "binary":
        wire = binary_wire(document, _big_cbor(document))
    else:
        wire = hand_framed(form, document)
    rejected(form, wire)


@pytest.mark.parametrize("case", sorted(INTEGERS_PAST))
def test_integer_of_4301_digits_cannot_become_a_projection(case):
    refused(projection, INTEGERS_PAST[case])


def test_integer_of_4301_digits_from_a_value_is_a_limit():
    refused(codec.CompactProjection.from_value, PROFILE, ROOT, REVISION, [10**MAX_DIGITS])
    p = codec.CompactProjection.from_value(PROFILE, ROOT, REVISION, [10**MAX_DIGITS - 1])
    assert p.selected == b"[" + NINES + b"]"


def test_big_cbor_helper_matches_cbor2():
    assert _big_cbor(INTEGERS_AT["positive"]) == cbor2.dumps([10**MAX_DIGITS - 1])
    assert _big_cbor(INTEGERS_AT["negative"]) == cbor2.dumps([-(10**MAX_DIGITS - 1)])
