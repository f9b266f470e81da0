"""Hostile input never escapes as anything but ``codec.CompactError``.

Every decoder (v2 model-text, v1 text, v1 binary, full JSON, and ``decode_wire``
in front of them) is fed truncated, bit-flipped and hand-crafted wires. Whatever
happens, the only exception allowed out is a ``CompactError`` whose ``code`` is one
of ``codec.CODES`` and whose ``offset`` is None or a byte position within the wire
(docs/wire-format.md §10). Where docs/wire-format.md (§1-§9 and §10) names the code,
the code is asserted too.

Wires that must get past the digest step (§5.2 step 4) are framed by hand
(``tests/wirekit.py``), with the digest of the document they reconstruct to
computed independently of the codec, so the failure under test is the one reported.
"""

from __future__ import annotations

import functools
import json
import re

import cbor2
import pytest
import wirekit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wirekit import (
    DECODERS,
    DICTIONARY,
    DIGEST,
    ENVELOPE,
    FIELD_NAMES,
    JSON,
    LIMIT,
    MAGIC,
    META,
    METADATA,
    NONCANONICAL,
    REFERENCE,
    V1_HEADER,
    V2_HEADER,
    as_bytes,
    bounded,
    check_diagnostic,
    field_line,
    outcome,
    rejected,
    rejected_both,
)

import codec
from codec import CompactError

PROFILE = META["profile"]
ROOT = META["root"]
REVISION = META["revision"]
UNRELATED_DIGEST = "sha256:" + "0" * 64


# --- framing by hand: tests/wirekit.py with the shared test metadata ------------------------

text_fields = functools.partial(wirekit.fields, **META)  # (document | digest=…)
model_text_wire = functools.partial(wirekit.v2, **META)  # (document, entries, body, digest=…)
text_wire = functools.partial(wirekit.v1, **META)  # (document, body, digest=…)


def binary_wire(cbor_body: bytes, document: bytes | None = None) -> bytes:
    """A v1 binary wire; the digest is that of ``document`` (the JSON the CBOR item
    stands for) when given, else an unrelated one."""
    digest = UNRELATED_DIGEST if document is None else None
    return wirekit.binary(document, cbor_body, digest=digest, **META)


def frame(form: str, document: bytes) -> bytes:
    """``document`` as the whole JSON wire, or as a reference-free v2 / v1 body."""
    if form == "json":
        return document
    if form == "model-text":
        return model_text_wire(document)
    if form == "text":
        return text_wire(document)
    raise ValueError(form)


def body_start(wire: bytes) -> int:
    return wire.index(b"\nbody\n") + len(b"\nbody\n")


def reencode(form: str, decoded) -> bytes:
    if form == "json":
        return decoded
    return codec.ENCODERS[form](decoded)


def accepted_wire_is_canonical(form: str, wire: bytes, result) -> None:
    """§5.2 step 6, §6 and §7: a wire that decodes is the one its value encodes to."""
    if isinstance(result, codec.DecodedWire):
        assert result.form == form
        result = result.selected if form == "json" else result.projection
    again = reencode(form, result)
    assert again == wire, f"{form}: accepted a wire that does not re-encode to itself"


# --- base wires ---------------------------------------------------------------------

SMALL_VALUE = {
    "module": "pkg/mod.py",
    "defs": [
        {"name": "helper_function", "calls": ["helper_function", "g", "g"], "line": 12},
        {"name": "main", "calls": ["helper_function"], "line": -3, "ratio": 1.5},
    ],
    "flags": [True, False, None, 0.0001, 1e16],
    "text": "@0 ~1 \"q\" \\ é \u2028 \U0001F600",
}


def large_value():
    defs = [
        {
            "qualified_name": f"pkg.mod.func_{i:03d}",
            "kind": "function",
            "signature": f"def func_{i:03d}(value: int) -> int",
            "calls": ["pkg.mod.helper_function", "pkg.mod.other_helper"],
            "tag": f"@{i}~{i}",
            "note": '@0 ~1 "quoted" é',
        }
        for i in range(90)
    ]
    return {"module": "pkg/mod.py", "definitions": defs}


@functools.cache
def small_projection() -> codec.CompactProjection:
    return codec.CompactProjection.from_value(PROFILE, ROOT, REVISION, SMALL_VALUE)


@functools.cache
def large_projection() -> codec.CompactProjection:
    p = codec.CompactProjection.from_value(PROFILE, ROOT, REVISION, large_value())
    assert len(p.selected) >= 16_384
    return p


@functools.cache
def base_wires() -> dict[str, tuple[str, bytes]]:
    """name -> (form, valid wire)."""
    small = small_projection()
    wires = {form: (form, codec.ENCODERS[form](small)) for form in DECODERS}
    wires["model-text-large"] = ("model-text", codec.encode_model_text(large_projection()))
    return wires


def test_base_wires_are_valid_and_the_large_one_has_a_dictionary():
    for name, (form, wire) in base_wires().items():
        result = outcome(DECODERS[form], wire)
        assert not isinstance(result, CompactError), f"{name}: {result!r}"
        accepted_wire_is_canonical(form, wire, result)
    large = base_wires()["model-text-large"][1]
    assert not large.split(b"\n")[5].endswith(b" 0"), "the large wire should have a dictionary"
    assert b"@0" in large[body_start(large):]
    assert b"~" in base_wires()["text"][1][body_start(base_wires()["text"][1]):]


# --- truncation -----------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _markers_outside_strings(body: bytes, marker: bytes) -> frozenset[int]:
    """Body offsets where ``marker`` starts outside every string token."""
    pattern = rb'"(?:[^"\\]|\\.)*"|(' + re.escape(marker) + rb")"
    return frozenset(m.start() for m in re.finditer(pattern, body, re.DOTALL) if m.group(1) is not None)


def _truncation_codes(form: str, wire: bytes, cut: int) -> set[str]:
    """The code §5.2, §6, §7 and §10 give a wire cut to ``wire[:cut]``."""
    if form == "json":
        return {JSON}
    if form == "binary":
        return {ENVELOPE}  # §10: truncation is compact.envelope
    start = body_start(wire)
    if cut < start:
        if form == "model-text":
            dict_line_end = wire.index(b"\ndict ") + 1
            dict_line_end = wire.index(b"\n", dict_line_end) + 1
            if dict_line_end <= cut < start - len(b"body\n"):
                # ends inside a dictionary entry: not one literal followed by LF
                return {DICTIONARY, ENVELOPE}
        return {ENVELOPE}
    marker = b"@" if form == "model-text" else b"~"
    if cut > start and (cut - 1 - start) in _markers_outside_strings(wire[start:], marker):
        return {REFERENCE}  # '@' / '~' with no digit at all (step 3 before step 4)
    return {DIGEST}


def _check_truncations(form: str, wire: bytes, cuts) -> None:
    problems = []
    for cut in cuts:
        piece = wire[:cut]
        for decode in (DECODERS[form], codec.decode_wire):
            try:
                decode(piece)
            except CompactError as exc:
                try:
                    check_diagnostic(exc, piece)
                except AssertionError as bad:
                    problems.append(f"cut {cut}, {decode.__name__}: {bad}")
                    continue
                expected = _truncation_codes(form, wire, cut)
                if decode is DECODERS[form] and exc.code not in expected:
                    problems.append(f"cut {cut}, {decode.__name__}: expected {sorted(expected)}, got {exc!r}")
            except Exception as exc:  # noqa: BLE001
                problems.append(f"cut {cut}, {decode.__name__}: {type(exc).__name__} escaped: {exc!r}"[:300])
            else:
                problems.append(f"cut {cut}, {decode.__name__}: a truncated wire was accepted")
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:15])


@pytest.mark.parametrize("name", ["json", "text", "binary", "model-text"])
def test_truncation_at_every_byte_of_a_small_wire(name):
    form, wire = base_wires()[name]
    _check_truncations(form, wire, range(len(wire)))


def test_truncation_of_a_model_text_wire_with_a_dictionary():
    form, wire = base_wires()["model-text-large"]
    start = body_start(wire)
    body = wire[start:]
    cuts = set(range(start + 1))  # the whole envelope and dictionary, byte by byte
    cuts.update(range(start, len(wire), max(1, len(body) // 200)))
    for spot in sorted(_markers_outside_strings(body, b"@"))[:60]:
        cuts.update(start + spot + d for d in (0, 1, 2, 3))
    cuts.update(len(wire) - d for d in range(1, 6))
    _check_truncations(form, wire, sorted(c for c in cuts if c < len(wire)))


# --- random damage ---------------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_byte_flips(data):
    name = data.draw(st.sampled_from(sorted(base_wires())), label="wire")
    form, wire = base_wires()[name]
    damaged = bytearray(wire)
    edits = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(wire) - 1), st.integers(1, 255)), min_size=1, max_size=4
        ),
        label="flips",
    )
    for at, mask in edits:
        damaged[at] ^= mask
    if data.draw(st.booleans(), label="also cut or insert"):
        at = data.draw(st.integers(0, len(damaged)), label="at")
        insert = data.draw(st.binary(max_size=6), label="insert")
        damaged[at:at] = insert
    damaged = bytes(damaged)
    for decode in (DECODERS[form], codec.decode_wire):
        result = outcome(decode, damaged)
        if not isinstance(result, CompactError):
            # a damaged wire may still be valid (a byte of `root` changed, say), but
            # then it must be exactly the canonical wire of what it decodes to
            detected = codec.detect_form(damaged)
            accepted_wire_is_canonical(detected if decode is codec.decode_wire else form, damaged, result)


@settings(max_examples=200, deadline=None)
@given(tail=st.binary(max_size=64), name=st.sampled_from(["json", "text", "binary", "model-text"]))
def test_random_bytes_after_a_valid_envelope_prefix(tail, name):
    form, wire = base_wires()[name]
    cut = {"json": 0, "binary": len(MAGIC)}[form] if form in ("json", "binary") else body_start(wire)
    for keep in (cut // 2, cut):
        damaged = wire[:keep] + tail
        for decode in (DECODERS[form], codec.decode_wire):
            result = outcome(decode, damaged)
            if not isinstance(result, CompactError):
                detected = codec.detect_form(damaged)
                accepted_wire_is_canonical(detected if decode is codec.decode_wire else form, damaged, result)


_JSONISH = [
    b"[", b"]", b"{", b"}", b'"', b",", b":", b"0", b"1", b"9", b"-", b".", b"e", b"E+",
    b"true", b"null", b"NaN", b"Infinity", b"\\", b"\\u", b"d800", b"dc00", b"0041",
    b" ", b"\n", b"\x01", b"\xff", b"\xc3\xa9", b"\xed\xa0\x80", b"\xef\xbb\xbf",
    b'"a"', b'"key"', b'"x"', b"1.5", b"1e400", b"-0",
]


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.sampled_from(_JSONISH), max_size=24))
def test_random_documents_behave_alike_in_every_text_form(pieces):
    """A reference-free body with the right digest reaches normalization (§5.2
    step 5; §6), which is the same check full JSON gets: same verdict, same
    code, and the offset mapped into wire coordinates."""
    document = b"".join(pieces)
    as_json = outcome(codec.decode_json, document)
    if not isinstance(as_json, CompactError):
        assert as_json == document
        assert json.dumps(json.loads(document), ensure_ascii=False, separators=(",", ":")).encode() == document
    wire = model_text_wire(document)
    as_v2 = outcome(codec.decode_model_text, wire)
    if isinstance(as_json, CompactError):
        assert isinstance(as_v2, CompactError), "v2 accepted a body full JSON rejects"
        assert as_v2.code == as_json.code, f"json said {as_json!r}, v2 said {as_v2!r}"
        if as_json.offset is not None and as_v2.offset is not None:
            assert as_v2.offset == body_start(wire) + as_json.offset
        as_v1 = outcome(codec.decode_text, text_wire(document))
        assert isinstance(as_v1, CompactError), "v1 text accepted a body full JSON rejects"
        assert as_v1.code == as_json.code, f"json said {as_json!r}, v1 text said {as_v1!r}"
    else:
        assert not isinstance(as_v2, CompactError), f"v2 rejected canonical JSON: {as_v2!r}"
        assert as_v2.selected == document


# --- full-JSON-level faults, in every form that carries JSON ----------------------------

DEEP = 100_000
BIG_INT = b"1" + b"0" * 4_300  # 4,301 digits


def _span(document: bytes, needle: bytes, nth: int = 0) -> tuple[int, int]:
    at = -1
    for _ in range(nth + 1):
        at = document.index(needle, at + 1)
    return at, at + len(needle)


# (id, document, code, (lo, hi) range the offset must fall in, in document bytes, or None)
JSON_REJECTS = [
    ("bom", b"\xef\xbb\xbf{}", JSON, (0, 0)),
    ("bom-only", b"\xef\xbb\xbf", JSON, (0, 0)),
    ("invalid-utf8-ff", b'["\xff"]', JSON, (2, 2)),
    ("invalid-utf8-continuation-alone", b'["a\x80"]', JSON, (3, 3)),
    ("invalid-utf8-overlong-slash", b'["\xc0\xaf"]', JSON, (2, 2)),
    ("invalid-utf8-truncated-sequence", b'["\xe2\x82"]', JSON, (2, 3)),
    ("invalid-utf8-outside-string", b"[1,\xfe]", JSON, (3, 3)),
    ("lone-high-surrogate-escaped", b'["\\ud800"]', JSON, (1, 9)),
    ("lone-low-surrogate-escaped", b'["a\\udc00b"]', JSON, (1, 11)),
    ("reversed-surrogate-pair-escaped", b'["\\udc00\\ud800"]', JSON, (1, 15)),
    ("lone-surrogate-escaped-as-key", b'{"\\ud800":1}', JSON, (1, 9)),
    ("lone-surrogate-raw", b'["\xed\xa0\x80"]', JSON, (2, 2)),
    ("duplicate-key", b'{"a":1,"a":2}', JSON, (7, 10)),
    ("duplicate-key-same-value", b'{"a":1,"a":1}', JSON, (7, 10)),
    ("duplicate-key-escaped-spelling", b'{"a":1,"\\u0061":2}', JSON, (7, 15)),
    ("duplicate-key-nested", b'[{"k":{"x":1,"x":2}}]', JSON, (13, 16)),
    ("nan", b"[NaN]", JSON, (1, 4)),
    ("infinity", b"[Infinity]", JSON, (1, 9)),
    ("minus-infinity", b"[-Infinity]", JSON, (1, 10)),
    ("nan-as-value", b'{"a":NaN}', JSON, (5, 8)),
    ("1e400", b"[1e400]", JSON, None),
    ("minus-1e400", b"[-1e400]", JSON, None),
    ("empty", b"", JSON, None),
    ("whitespace-only", b" ", JSON, None),
    ("trailing-comma", b"[1,]", JSON, None),
    ("unclosed-array", b"[1", JSON, None),
    ("extra-close", b"[]]", JSON, None),
    ("two-values", b"[][]", JSON, None),
    ("leading-zero-number", b"[01]", JSON, None),
    ("single-quotes", b"['a']", JSON, None),
    ("raw-control-char-in-string", b'["a\x01"]', JSON, None),
    ("raw-lf-in-string", b'["a\nb"]', JSON, None),
    ("bad-escape", b'["\\x41"]', JSON, None),
    ("short-unicode-escape", b'["\\u12"]', JSON, None),
    ("unterminated-string", b'["abc', JSON, None),
    ("bare-word", b"[nul]", JSON, None),
    ("integer-4301-digits", b"[" + BIG_INT + b"]", LIMIT, (1, 1 + len(BIG_INT))),
    ("negative-integer-4301-digits", b"[-" + BIG_INT + b"]", LIMIT, (1, 2 + len(BIG_INT))),
    ("integer-100000-digits", b'{"n":' + b"7" * 100_000 + b"}", LIMIT, (5, 100_005)),
    ("depth-513", b"[" * 513 + b"]" * 513, LIMIT, None),
    ("depth-600-arrays", b"[" * 600 + b"]" * 600, LIMIT, (512, 513)),
    ("depth-600-objects", b'{"a":' * 600 + b"1" + b"}" * 600, LIMIT, None),
    ("depth-100000", b"[" * DEEP + b"]" * DEEP, LIMIT, (512, 513)),
    ("depth-100000-objects", b'{"":' * DEEP + b"0" + b"}" * DEEP, LIMIT, None),
    ("whitespace-between-tokens", b'{"a": 1}', NONCANONICAL, None),
    ("leading-space", b" []", NONCANONICAL, None),
    ("trailing-lf", b"[]\n", NONCANONICAL, None),
    ("float-trailing-zero", b"[1.50]", NONCANONICAL, None),
    ("float-exponent-spelling", b"[1E5]", NONCANONICAL, None),
    ("float-positional-large", b"[10000000000000000.0]", NONCANONICAL, None),
    ("minus-zero-integer", b"[-0]", NONCANONICAL, None),
    ("escaped-ascii", b'["\\u0041"]', NONCANONICAL, None),
    ("escaped-slash", b'["\\/"]', NONCANONICAL, None),
    ("uppercase-hex-escape", b'["\\u001F"]', NONCANONICAL, None),
    ("escaped-non-ascii", b'["\\u00e9"]', NONCANONICAL, None),
    ("escaped-surrogate-pair", b'["\\ud83d\\ude00"]', NONCANONICAL, None),
]

JSON_ACCEPTS = [
    ("same-key-in-different-objects", b'{"a":{"a":1},"b":[{"a":2}],"c":{"b":3}}'),
    ("markers-inside-strings", b'["@0","~0","@","~","@123456","x\\\\","\\"@0","@@~~"]'),
    ("raw-non-ascii-and-u2028", '["/\u007f é \u2028 \U0001F600"]'.encode()),
    ("bom-inside-a-string", b'["\xef\xbb\xbf"]'),
    ("canonical-escapes", b'["\\u0000\\u001f\\b\\t\\n\\f\\r\\"\\\\"]'),
    ("integer-4300-digits", b"[" + b"9" * 4_300 + b"]"),
    ("negative-integer-4300-digits", b"[-" + b"9" * 4_300 + b"]"),
    ("floats", b"[1.0,-0.0,1e+16,1e-05,1.5e-07,0.0001,123456789012345.6]"),
    ("depth-512", b"[" * 512 + b"]" * 512),
    ("empty-key", b'{"":""}'),
]


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("form", ["json", "model-text", "text"])
@pytest.mark.parametrize("case_id, document, code, window", JSON_REJECTS, ids=_ids(JSON_REJECTS))
def test_json_level_fault(form, case_id, document, code, window):
    """§1: parse failure compact.json, depth compact.limit, anything else
    compact.noncanonical; in a v2 / v1 body only after the digest matched."""
    wire = frame(form, document)
    exc = rejected_both(form, wire, code)
    if window is not None:
        shift = 0 if form == "json" else body_start(wire)
        lo, hi = window
        assert exc.offset is not None, f"{exc!r} should say where"
        assert shift + lo <= exc.offset <= shift + hi, f"offset {exc.offset}, expected {shift + lo}..{shift + hi}"


@pytest.mark.parametrize("form", ["json", "text", "binary", "model-text"])
@pytest.mark.parametrize("case_id, document", JSON_ACCEPTS, ids=_ids(JSON_ACCEPTS))
def test_json_level_edge_accepted(case_id, document, form):
    p = codec.CompactProjection(PROFILE, ROOT, REVISION, document)
    wire = codec.ENCODERS[form](p)
    back = outcome(DECODERS[form], wire)
    assert back == (document if form == "json" else p), f"{form}: {back!r}"
    assert outcome(codec.decode_wire, wire).selected == document


def test_model_text_body_with_at_inside_strings_is_content():
    """§5.1 rule 5: '@' and '~' inside a quoted string are plain content."""
    document = b'["@0","a@1b","@123456","@","\\"@0","x\\\\","~0",{"@7":"~~"}]'
    wire = model_text_wire(document)
    assert outcome(codec.decode_model_text, wire).selected == document


def test_text_body_with_tilde_inside_strings_is_content():
    document = b'["~0","a~1b","~123456","~","\\"~0","@0"]'
    p = codec.CompactProjection(PROFILE, ROOT, REVISION, document)
    wire = codec.encode_text(p)
    assert wire[body_start(wire):] == document  # every literal is distinct: nothing to refer to
    assert outcome(codec.decode_text, wire) == p


# --- v2 references ------------------------------------------------------------------------

ENTRY = b'"abcdefghijklmnop"'  # 18 bytes: a dictionary-worthy literal

# (id, entries, body, the marker's index in the body)
V2_BAD_REFERENCES = [
    ("at-without-digit", [], b"[@]", 1),
    ("at-followed-by-comma", [], b"[@,1]", 1),
    ("at-at-end-of-body", [], b"[1,@", 3),
    ("at-followed-by-letter", [], b"[@a]", 1),
    ("at-followed-by-minus", [ENTRY], b"[@0,@0,@-1]", 7),
    ("at-00", [ENTRY], b"[@0,@00]", 4),
    ("at-01", [ENTRY], b"[@0,@01]", 4),
    ("at-123456", [ENTRY], b"[@0,@123456]", 4),
    ("at-six-digits-000000", [ENTRY], b"[@0,@000000]", 4),
    ("index-equals-n", [ENTRY], b"[@0,@0,@1]", 7),
    ("index-zero-with-empty-dictionary", [], b"[@0]", 1),
    ("index-99999", [ENTRY], b"[@0,@99999]", 4),
    ("index-65536", [ENTRY], b"[@65536,@0]", 1),
    ("at-after-escaped-backslash-string", [], b'["x\\\\",@0]', 7),
    ("at-as-object-key", [ENTRY], b'{@1:@0}', 1),
]


@pytest.mark.parametrize(
    "case_id, entries, body, at", V2_BAD_REFERENCES, ids=_ids(V2_BAD_REFERENCES)
)
def test_model_text_bad_reference(case_id, entries, body, at):
    """§5.2 step 3: no digit, a leading zero, a sixth digit or an index >= N is
    compact.reference, found at the reference."""
    wire = model_text_wire(b"[]", entries, body, digest=UNRELATED_DIGEST)
    exc = rejected_both("model-text", wire, REFERENCE)
    marker = body_start(wire) + at
    assert exc.offset is not None and marker <= exc.offset <= marker + 7, (exc, marker)


def test_model_text_reference_error_wins_over_the_digest():
    """Step 3 comes before step 4: a matching digest is not needed to see it."""
    wire = model_text_wire(b"[1]", [], b"[@]")
    rejected_both("model-text", wire, REFERENCE)


@pytest.mark.parametrize("body", [b"[~0]", b"[~]", b'{"a":~1}', b"~"])
def test_tilde_in_model_text_is_not_a_reference(body):
    """§5.2 step 3: '~' has no meaning in v2; normalization catches it."""
    wire = model_text_wire(body)
    rejected_both("model-text", wire, JSON)


def test_model_text_reference_to_an_escaped_lone_surrogate_entry():
    """A '\\ud800' escape is a well-formed RFC 8259 string token, so the entry is
    fine (step 2); the reconstructed document is not Unicode text (step 5)."""
    entry = b'"\\ud800bbbbbbbbbbbbbbbbb"'
    document = b"[" + entry + b"," + entry + b"]"
    wire = model_text_wire(document, [entry], b"[@0,@0]")
    rejected_both("model-text", wire, JSON)


# --- v1 text references ---------------------------------------------------------------------

# (id, body, the marker's index in the body)
V1_BAD_REFERENCES = [
    ("tilde-without-digit", b'["abc",~]', 7),
    ("tilde-at-end", b'["abc",~', 7),
    ("tilde-00", b'["abc",~00]', 7),
    ("tilde-leading-zero", b'["abc",~01]', 7),
    ("tilde-equals-table-size", b'["abc",~1]', 7),
    ("tilde-forward", b'["abc",~5,"def"]', 7),
    ("tilde-empty-table", b"[~0]", 1),
    ("tilde-123456", b'["abc",~123456]', 7),
    ("tilde-huge", b'["abc",~' + b"9" * 5_000 + b"]", 7),
    ("tilde-as-key-before-table", b"{~0:1}", 1),
]


@pytest.mark.parametrize("case_id, body, at", V1_BAD_REFERENCES, ids=_ids(V1_BAD_REFERENCES))
def test_text_bad_back_reference(case_id, body, at):
    """§6: each ~k needs a canonical k below the table's current size."""
    wire = text_wire(b"[]", body, digest=UNRELATED_DIGEST)
    exc = rejected_both("text", wire, REFERENCE)
    marker = body_start(wire) + at
    assert exc.offset is not None and marker <= exc.offset <= marker + 7, (exc, marker)


def test_at_in_text_body_is_not_a_reference():
    rejected_both("text", text_wire(b"[@0]"), JSON)


@pytest.mark.parametrize(
    "document, body",
    [
        (b'["abcdef","abcdef"]', None),  # a literal left inline that must be ~0
        (b'["",""]', b'["",~0]'),  # ~0 is not shorter than ""
    ],
    ids=["missing-back-reference", "unnecessary-back-reference"],
)
def test_text_noncanonical_back_references(document, body):
    rejected_both("text", text_wire(document, body), NONCANONICAL)


# --- the text envelope (§3, shared by v1 text and v2 model-text) -------------------------

GOOD_DOC = b'{"a":[1,2]}'


def _lines(**override) -> list[bytes]:
    values = (PROFILE, ROOT, REVISION, wirekit.digest_of(GOOD_DOC))
    lines = [field_line(n, v) for n, v in zip(FIELD_NAMES, values)]
    for name, line in override.items():
        lines[FIELD_NAMES.index(name.encode())] = line
    return lines


def _hdr(form: str) -> bytes:
    return V2_HEADER if form == "model-text" else V1_HEADER


def _envelope_wire(form: str, lines=None, header=None, rest=None) -> bytes:
    header = _hdr(form) if header is None else header
    if rest is None:
        rest = (b"dict 0\n" if form == "model-text" else b"") + b"body\n" + GOOD_DOC
    return header + b"".join(_lines() if lines is None else lines) + rest


def _swap(lines, i, j):
    lines = list(lines)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


DIGEST_LINE = _lines()[3]

# (id, function form -> wire, code)
TEXT_ENVELOPE_CASES = [
    ("header-unknown-version", lambda f: _envelope_wire(f, header=_hdr(f)[:-2] + b"7\n"), ENVELOPE),
    ("header-crlf", lambda f: _envelope_wire(f, header=_hdr(f)[:-1] + b"\r\n"), ENVELOPE),
    ("header-lowercase", lambda f: _envelope_wire(f, header=_hdr(f).lower()), ENVELOPE),
    ("header-missing", lambda f: _envelope_wire(f, header=b""), ENVELOPE),
    ("header-version-leading-zero", lambda f: _envelope_wire(f, header=_hdr(f)[:-2] + b"0" + _hdr(f)[-2:]), ENVELOPE),
    ("header-after-bom", lambda f: _envelope_wire(f, header=b"\xef\xbb\xbf" + _hdr(f)), ENVELOPE),
    ("fields-out-of-order", lambda f: _envelope_wire(f, _swap(_lines(), 0, 1)), ENVELOPE),
    ("field-missing", lambda f: _envelope_wire(f, [l for i, l in enumerate(_lines()) if i != 2]), ENVELOPE),
    ("field-name-misspelled", lambda f: _envelope_wire(f, _lines(profile=b"profle 5 graph\n")), ENVELOPE),
    ("field-name-uppercase", lambda f: _envelope_wire(f, _lines(profile=b"PROFILE 5 graph\n")), ENVELOPE),
    ("length-leading-zero", lambda f: _envelope_wire(f, _lines(root=b"root 010 pkg/mod.py\n")), ENVELOPE),
    ("length-double-zero", lambda f: _envelope_wire(f, _lines(root=b"root 00 \n")), ENVELOPE),
    ("length-plus-sign", lambda f: _envelope_wire(f, _lines(root=b"root +10 pkg/mod.py\n")), ENVELOPE),
    ("length-two-spaces", lambda f: _envelope_wire(f, _lines(root=b"root  10 pkg/mod.py\n")), ENVELOPE),
    ("length-missing", lambda f: _envelope_wire(f, _lines(root=b"root pkg/mod.py\n")), ENVELOPE),
    ("length-hex", lambda f: _envelope_wire(f, _lines(root=b"root 0xa pkg/mod.py\n")), ENVELOPE),
    ("length-too-small", lambda f: _envelope_wire(f, _lines(root=b"root 9 pkg/mod.py\n")), ENVELOPE),
    ("length-too-large", lambda f: _envelope_wire(f, _lines(root=b"root 11 pkg/mod.py\n")), ENVELOPE),
    ("value-tab-separator", lambda f: _envelope_wire(f, _lines(root=b"root 10\tpkg/mod.py\n")), ENVELOPE),
    ("value-crlf", lambda f: _envelope_wire(f, _lines(root=b"root 10 pkg/mod.py\r\n")), ENVELOPE),
    ("length-4097", lambda f: _envelope_wire(f, _lines(root=b"root 4097 " + b"r" * 4097 + b"\n")), LIMIT),
    ("length-4097-wire-ends", lambda f: _hdr(f) + _lines()[0] + b"root 4097 ", LIMIT),
    ("length-99999999999", lambda f: _envelope_wire(f, _lines(root=b"root 99999999999 pkg/mod.py\n")), LIMIT),
    ("length-99999999999-wire-ends", lambda f: _hdr(f) + _lines()[0] + b"root 99999999999", LIMIT),
    ("length-10000", lambda f: _envelope_wire(f, _lines(root=b"root 10000 " + b"r" * 10000 + b"\n")), LIMIT),
    ("length-a-million-digits", lambda f: _hdr(f) + _lines()[0] + b"root " + b"9" * 1_000_000 + b" x\n", LIMIT),
    ("profile-length-4097", lambda f: _envelope_wire(f, _lines(profile=b"profile 4097 " + b"g" * 4097 + b"\n")), LIMIT),
    ("digest-length-4097", lambda f: _envelope_wire(f, _lines(source_digest=b"source_digest 4097 " + b"0" * 4097 + b"\n")), LIMIT),
    ("revision-length-4097", lambda f: _envelope_wire(f, _lines(source_revision=b"source_revision 4097 " + b"s" * 4097 + b"\n")), LIMIT),
    ("profile-unknown", lambda f: _envelope_wire(f, _lines(profile=b"profile 5 Graph\n")), METADATA),
    ("profile-empty", lambda f: _envelope_wire(f, _lines(profile=b"profile 0 \n")), METADATA),
    ("profile-with-trailing-space", lambda f: _envelope_wire(f, _lines(profile=b"profile 6 graph \n")), METADATA),
    ("root-empty", lambda f: _envelope_wire(f, _lines(root=b"root 0 \n")), METADATA),
    ("revision-empty", lambda f: _envelope_wire(f, _lines(source_revision=b"source_revision 0 \n")), METADATA),
    ("root-invalid-utf8", lambda f: _envelope_wire(f, _lines(root=b"root 3 a\xffb\n")), METADATA),
    ("root-raw-lone-surrogate", lambda f: _envelope_wire(f, _lines(root=b"root 3 \xed\xa0\x80\n")), METADATA),
    ("revision-truncated-utf8", lambda f: _envelope_wire(f, _lines(source_revision=b"source_revision 2 \xc3\n\n")), METADATA),
    ("digest-uppercase-hex", lambda f: _envelope_wire(f, _lines(source_digest=DIGEST_LINE.upper().replace(b"SOURCE_DIGEST 71 SHA256:", b"source_digest 71 sha256:"))), METADATA),
    ("digest-63-hex", lambda f: _envelope_wire(f, _lines(source_digest=b"source_digest 70 " + DIGEST_LINE[17:-2] + b"\n")), METADATA),
    ("digest-wrong-algorithm", lambda f: _envelope_wire(f, _lines(source_digest=DIGEST_LINE.replace(b"sha256:", b"sha512:"))), METADATA),
    ("digest-empty", lambda f: _envelope_wire(f, _lines(source_digest=b"source_digest 0 \n")), METADATA),
    ("digest-mismatch", lambda f: _envelope_wire(f, _lines(source_digest=field_line(b"source_digest", UNRELATED_DIGEST))), DIGEST),
    ("trailing-lf-after-body", lambda f: _envelope_wire(f) + b"\n", DIGEST),
    ("body-line-missing", lambda f: _envelope_wire(f, rest=(b"dict 0\n" if f == "model-text" else b"") + GOOD_DOC), ENVELOPE),
    ("body-line-misspelled", lambda f: _envelope_wire(f, rest=(b"dict 0\n" if f == "model-text" else b"") + b"Body\n" + GOOD_DOC), ENVELOPE),
    ("body-line-crlf", lambda f: _envelope_wire(f, rest=(b"dict 0\n" if f == "model-text" else b"") + b"body\r\n" + GOOD_DOC), ENVELOPE),
]


@pytest.mark.parametrize("form", ["model-text", "text"])
@pytest.mark.parametrize("case_id, build, code", TEXT_ENVELOPE_CASES, ids=_ids(TEXT_ENVELOPE_CASES))
def test_text_envelope(form, case_id, build, code):
    wire = build(form)
    if wire.startswith(_hdr(form)[:-3]):
        rejected_both(form, wire, code)
    else:  # the header is gone: decode_wire cannot know the form, any diagnostic will do
        rejected(DECODERS[form], wire, code)
        rejected(codec.decode_wire, wire)


@pytest.mark.parametrize("form", ["model-text", "text"])
def test_envelope_reference_wire_is_valid(form):
    """The unmodified wire the envelope cases start from decodes (so every case
    above fails for the reason it names)."""
    assert outcome(DECODERS[form], _envelope_wire(form)).selected == GOOD_DOC


@pytest.mark.parametrize("form", ["model-text", "text", "binary"])
@pytest.mark.parametrize(
    "root", ["a\nb", "root with spaces", "dotted.symbol.name", "é" * 10, "x\n\n"], ids=repr
)
def test_opaque_root_values_round_trip(form, root):
    """§5.2 step 1: root and source_revision are opaque, an LF allowed inside."""
    p = codec.CompactProjection(PROFILE, root, root, GOOD_DOC)
    wire = codec.ENCODERS[form](p)
    assert outcome(DECODERS[form], wire) == p


@pytest.mark.parametrize("form", ["model-text", "text"])
@pytest.mark.parametrize(
    "name, declared", [("root", b"99999999999"), ("source_revision", b"4097"), ("root", b"9" * 100_000)]
)
def test_huge_metadata_length_fails_fast_without_reading_further(form, name, declared):
    """§5.2 step 1: more than four digits or a value over 4,096 is compact.limit,
    reading no further digits than that; nothing is allocated for the value."""
    lines = _lines()
    index = FIELD_NAMES.index(name.encode())
    wire = _hdr(form) + b"".join(lines[:index]) + name.encode() + b" " + declared
    exc = bounded(DECODERS[form], wire, LIMIT)
    digits_at = len(wire) - len(declared)
    assert exc.offset is None or digits_at <= exc.offset <= digits_at + 5, exc


# --- the v2 dictionary (§5.2 step 2) --------------------------------------------------------


def _dict_wire(dict_part: bytes, body: bytes = b"[]") -> bytes:
    return V2_HEADER + text_fields(b"[]") + dict_part + body


# (id, bytes from "dict" up to and including "body\n", code)
DICTIONARY_CASES = [
    ("count-99999", b"dict 99999\n" + ENTRY + b"\nbody\n", LIMIT),
    ("count-65537", b"dict 65537\nbody\n", LIMIT),
    ("count-65537-then-garbage", b"dict 65537\nnot an entry\n", LIMIT),
    ("count-100000", b"dict 100000\n", LIMIT),
    ("count-a-hundred-thousand-digits", b"dict " + b"9" * 100_000 + b"\n", LIMIT),
    ("count-leading-zero", b"dict 01\n" + ENTRY + b"\nbody\n", ENVELOPE),
    ("count-double-zero", b"dict 00\nbody\n", ENVELOPE),
    ("count-negative", b"dict -1\nbody\n", ENVELOPE),
    ("count-missing", b"dict \nbody\n", ENVELOPE),
    ("count-hex", b"dict 0x1\nbody\n", ENVELOPE),
    ("count-crlf", b"dict 0\r\nbody\n", ENVELOPE),
    ("dict-line-missing", b"body\n", ENVELOPE),
    ("dict-line-uppercase", b"DICT 0\nbody\n", ENVELOPE),
    ("entry-not-a-literal", b"dict 1\nabcdefghijklmnopq\nbody\n", DICTIONARY),
    ("entry-unterminated", b'dict 1\n"abcdefghijklmnop\nbody\n', DICTIONARY),
    ("entry-two-literals", b'dict 1\n"abcdefgh""ijklmnop"\nbody\n', DICTIONARY),
    ("entry-trailing-space", b"dict 1\n" + ENTRY + b" \nbody\n", DICTIONARY),
    ("entry-leading-space", b"dict 1\n " + ENTRY + b"\nbody\n", DICTIONARY),
    ("entry-crlf", b"dict 1\n" + ENTRY + b"\r\nbody\n", DICTIONARY),
    ("entry-raw-control-char", b'dict 1\n"abcdefgh\x01ijklmnop"\nbody\n', DICTIONARY),
    ("entry-raw-tab", b'dict 1\n"abcdefgh\tijklmnop"\nbody\n', DICTIONARY),
    ("entry-bad-escape", b'dict 1\n"abcdefgh\\xijklmnop"\nbody\n', DICTIONARY),
    ("entry-short-unicode-escape", b'dict 1\n"abcdefgh\\u12ijklmnop"\nbody\n', DICTIONARY),
    ("entry-invalid-utf8", b'dict 1\n"abcdefgh\xffijklmnop"\nbody\n', DICTIONARY),
    ("entry-raw-lone-surrogate", b'dict 1\n"abcdefgh\xed\xa0\x80ijklmnop"\nbody\n', DICTIONARY),
    ("entry-number", b"dict 1\n12345678901234567\nbody\n", DICTIONARY),
    ("entry-empty-line", b"dict 1\n\nbody\n", DICTIONARY),
    ("entry-object", b'dict 1\n{"abcdefghijklmn":1}\nbody\n', DICTIONARY),
    ("fewer-entries-than-declared", b"dict 2\n" + ENTRY + b"\nbody\n", DICTIONARY),
    ("no-entries-of-three", b"dict 3\nbody\n", DICTIONARY),
    ("entry-runs-to-end-of-wire", b"dict 1\n" + ENTRY, {DICTIONARY, ENVELOPE}),
    ("more-entries-than-declared", b"dict 1\n" + ENTRY + b"\n" + ENTRY + b"\nbody\n", {DICTIONARY, ENVELOPE}),
]


@pytest.mark.parametrize("case_id, dict_part, code", DICTIONARY_CASES, ids=_ids(DICTIONARY_CASES))
def test_model_text_dictionary(case_id, dict_part, code):
    rejected_both("model-text", _dict_wire(dict_part), code)


@pytest.mark.parametrize("count", [b"99999", b"65537", b"100000"])
def test_huge_dictionary_count_fails_fast_before_reading_entries(count):
    """§5.2 step 2: N over 65,536 is compact.limit, checked before reading any
    entry; the wire holds none, and nothing is allocated for them."""
    wire = _dict_wire(b"dict " + count + b"\n", b"")
    exc = bounded(codec.decode_model_text, wire, LIMIT)
    dict_at = wire.index(b"dict ")
    assert exc.offset is None or dict_at <= exc.offset <= len(wire), exc


# --- v2 canonical form (§5.2 step 6) on a wire with a dictionary ----------------------------


def _v2_parts(wire: bytes):
    """(prefix up to and including the dict line, entries, body)."""
    dict_at = wire.index(b"\ndict ") + 1
    line_end = wire.index(b"\n", dict_at) + 1
    n = int(wire[dict_at + 5 : line_end - 1])
    entries = wire[line_end:].split(b"\n", n)[:n]
    start = body_start(wire)
    return wire[:dict_at], entries, wire[start:]


def _renumber(body: bytes, mapping) -> bytes:
    def replace(m):
        if m.group(1) is None:
            return m.group(0)
        return b"@%d" % mapping(int(m.group(1)))

    return re.sub(rb'"(?:[^"\\]|\\.)*"|@([0-9]+)', replace, body, flags=re.DOTALL)


def _reframe(prefix: bytes, entries, body: bytes) -> bytes:
    return prefix + b"dict %d\n" % len(entries) + b"".join(e + b"\n" for e in entries) + b"body\n" + body


def test_v2_parts_helper_rebuilds_the_wire():
    wire = base_wires()["model-text-large"][1]
    prefix, entries, body = _v2_parts(wire)
    assert len(entries) >= 3
    assert _reframe(prefix, entries, _renumber(body, lambda i: i)) == wire


def _alternate_order(prefix, entries, body):
    swapped = [entries[1], entries[0], *entries[2:]]
    return _reframe(prefix, swapped, _renumber(body, lambda i: {0: 1, 1: 0}.get(i, i)))


def _duplicate_entry(prefix, entries, body):
    # entry 0 twice; the second copy takes every other use of it
    state = {"n": 0}

    def mapping(i):
        if i == 0:
            state["n"] += 1
            return 0 if state["n"] % 2 else 1
        return i + 1

    return _reframe(prefix, [entries[0], *entries], _renumber(body, mapping))


def _unused_entry(prefix, entries, body):
    extra = b'"zzzzzzzzzzzzzzzzzzzz never used"'
    return _reframe(prefix, [*entries, extra], body)


def _inline_literal(prefix, entries, body):
    spots = sorted(_markers_outside_strings(body, b"@0"))
    at = spots[0]
    return _reframe(prefix, entries, body[:at] + entries[0] + body[at + 2 :])


def _dictionary_on_small_document(prefix, entries, body):
    document = b"[" + ENTRY + b"," + ENTRY + b"]"
    return model_text_wire(document, [ENTRY], b"[@0,@0]")


@pytest.mark.parametrize(
    "damage",
    [_alternate_order, _duplicate_entry, _unused_entry, _inline_literal, _dictionary_on_small_document],
    ids=lambda f: f.__name__.strip("_"),
)
def test_model_text_noncanonical_dictionary(damage):
    """§5.2 step 6: an alternate dictionary order, duplicate entries, unnecessary
    entries, a literal left inline or a dictionary under 16 KiB are rejected, even
    though the reconstructed document (and so the digest) is right."""
    wire = base_wires()["model-text-large"][1]
    bad = damage(*_v2_parts(wire))
    assert bad != wire
    rejected_both("model-text", bad, NONCANONICAL)


# --- v1 binary: envelope and LEB128 -----------------------------------------------------------

GOOD_CBOR = cbor2.dumps(json.loads(GOOD_DOC))
_P, _R, _S = as_bytes(PROFILE), as_bytes(ROOT), as_bytes(REVISION)
_D = as_bytes(wirekit.digest_of(GOOD_DOC))
_f = wirekit.binary_field  # LEB128 length, then the value


def _bin(*fields: bytes, body: bytes = GOOD_CBOR, magic: bytes = MAGIC) -> bytes:
    return magic + b"".join(fields) + body


# (id, wire, code)
BINARY_ENVELOPE_CASES = [
    ("empty-wire", b"", ENVELOPE),
    ("magic-only-4-bytes", b"SPXB", ENVELOPE),
    ("magic-only", MAGIC, ENVELOPE),
    ("magic-version-2", _bin(_f(_P), _f(_R), _f(_S), _f(_D), magic=b"SPXB\x02"), ENVELOPE),
    ("magic-version-0", _bin(_f(_P), _f(_R), _f(_S), _f(_D), magic=b"SPXB\x00"), ENVELOPE),
    ("magic-wrong-letter", _bin(_f(_P), _f(_R), _f(_S), _f(_D), magic=b"SPXC\x01"), ENVELOPE),
    ("leb128-non-minimal-zero", _bin(b"\x80\x00", _f(_R), _f(_S), _f(_D)), ENVELOPE),
    ("leb128-non-minimal-five", _bin(b"\x85\x00" + _P, _f(_R), _f(_S), _f(_D)), ENVELOPE),
    ("leb128-non-minimal-three-bytes", _bin(b"\x85\x80\x00" + _P, _f(_R), _f(_S), _f(_D)), {ENVELOPE, LIMIT}),
    ("leb128-4097", _bin(_f(_P), b"\x81\x20" + b"r" * 4097, _f(_S), _f(_D)), LIMIT),
    ("leb128-4097-wire-ends", MAGIC + _f(_P) + b"\x81\x20", LIMIT),
    ("leb128-16383", MAGIC + _f(_P) + b"\xff\x7f", LIMIT),
    ("leb128-2-pow-63", MAGIC + _f(_P) + b"\x80" * 9 + b"\x01", LIMIT),
    ("leb128-max-ten-bytes", MAGIC + _f(_P) + b"\xff" * 9 + b"\x01", LIMIT),
    ("leb128-endless-continuation", MAGIC + _f(_P) + b"\xff" * 100_000, {LIMIT, ENVELOPE}),
    ("leb128-endless-continuation-then-end", MAGIC + _f(_P) + b"\xff" * 100_000 + b"\x01", LIMIT),
    ("leb128-ends-mid-length", MAGIC + _f(_P) + b"\x81", ENVELOPE),
    ("value-truncated", MAGIC + _f(_P) + b"\x0a" + b"pkg/", ENVELOPE),
    ("profile-length-4097", _bin(b"\x81\x20" + b"g" * 4097, _f(_R), _f(_S), _f(_D)), LIMIT),
    ("digest-length-4097", _bin(_f(_P), _f(_R), _f(_S), b"\x81\x20" + b"0" * 4097), LIMIT),
    ("profile-unknown", _bin(_f(b"GRAPH"), _f(_R), _f(_S), _f(_D)), METADATA),
    ("profile-empty", _bin(_f(b""), _f(_R), _f(_S), _f(_D)), METADATA),
    ("root-empty", _bin(_f(_P), _f(b""), _f(_S), _f(_D)), METADATA),
    ("root-invalid-utf8", _bin(_f(_P), _f(b"a\xffb"), _f(_S), _f(_D)), METADATA),
    ("revision-raw-lone-surrogate", _bin(_f(_P), _f(_R), _f(b"\xed\xa0\x80"), _f(_D)), METADATA),
    ("digest-uppercase", _bin(_f(_P), _f(_R), _f(_S), _f(_D.upper().replace(b"SHA256", b"sha256"))), METADATA),
    ("digest-63-hex", _bin(_f(_P), _f(_R), _f(_S), _f(_D[:-1])), METADATA),
    ("digest-mismatch", _bin(_f(_P), _f(_R), _f(_S), _f(UNRELATED_DIGEST)), DIGEST),
    ("body-empty", _bin(_f(_P), _f(_R), _f(_S), _f(_D), body=b""), ENVELOPE),
]


@pytest.mark.parametrize("case_id, wire, code", BINARY_ENVELOPE_CASES, ids=_ids(BINARY_ENVELOPE_CASES))
def test_binary_envelope(case_id, wire, code):
    rejected(codec.decode_binary, wire, code)
    if wire.startswith(b"SPXB"):
        rejected(codec.decode_wire, wire, code)
    else:
        rejected(codec.decode_wire, wire)


def test_binary_envelope_reference_wire_is_valid():
    wire = _bin(_f(_P), _f(_R), _f(_S), _f(_D))
    assert outcome(codec.decode_binary, wire).selected == GOOD_DOC


# --- v1 binary: the CBOR profile (§7) ---------------------------------------------------------

BIG = 10**4300  # 4,301 digits


def _bignum(tag: int, n: int) -> bytes:
    magnitude = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0xC0 | tag]) + cbor2.dumps(magnitude)


# (id, CBOR body, JSON document it stands for (for the digest) or None, code)
CBOR_CASES = [
    # values JSON cannot hold: compact.json
    ("float64-nan", b"\xfb\x7f\xf8\x00\x00\x00\x00\x00\x00", None, JSON),
    ("float64-infinity", b"\xfb\x7f\xf0\x00\x00\x00\x00\x00\x00", None, JSON),
    ("float64-minus-infinity", b"\xfb\xff\xf0\x00\x00\x00\x00\x00\x00", None, JSON),
    ("nan-in-array", b"\x81\xfb\x7f\xf8\x00\x00\x00\x00\x00\x01", None, JSON),
    ("tag-0-date-string", b"\xc0\x74" + b"2013-03-21T20:04:00Z", None, JSON),
    ("tag-1-epoch", b"\xc1\x01", None, JSON),
    ("tag-4-decimal-fraction", b"\xc4\x82\x21\x19\x6a\xb3", None, JSON),
    ("tag-32-uri", b"\xd8\x20\x63abc", None, JSON),
    ("tag-55799-self-describe", b"\xd9\xd9\xf7\xf6", None, JSON),
    ("tag-in-array", b"\x82\x01\xc1\x01", None, JSON),
    ("byte-string", b"\x41\x00", None, JSON),
    ("empty-byte-string", b"\x40", None, JSON),
    ("byte-string-in-map", b"\xa1\x61a\x42\x00\x01", None, JSON),
    ("undefined", b"\xf7", None, JSON),
    ("undefined-in-array", b"\x81\xf7", None, JSON),
    ("simple-0", b"\xe0", None, JSON),
    ("simple-19", b"\xf3", None, JSON),
    ("simple-32", b"\xf8\x20", None, JSON),
    ("simple-255", b"\xf8\xff", None, JSON),
    ("map-key-integer", b"\xa1\x01\x01", None, JSON),
    ("map-key-null", b"\xa1\xf6\x01", None, JSON),
    ("map-key-true", b"\xa1\xf5\x01", None, JSON),
    ("map-key-array", b"\xa1\x80\x01", None, JSON),
    ("map-key-map", b"\xa1\xa0\x01", None, JSON),
    ("map-key-bytes", b"\xa1\x41a\x01", None, JSON),
    ("map-key-float", b"\xa1\xfb\x3f\xf0\x00\x00\x00\x00\x00\x00\x01", None, JSON),
    ("map-key-bignum", b"\xa1" + _bignum(2, 2**64) + b"\x01", None, JSON),
    ("text-invalid-utf8", b"\x61\xff", None, JSON),
    ("text-raw-lone-surrogate", b"\x63\xed\xa0\x80", None, JSON),
    ("text-overlong-utf8", b"\x62\xc0\xaf", None, JSON),
    ("map-key-invalid-utf8", b"\xa1\x61\xff\x01", None, JSON),
    # any other departure from the deterministic encoding: compact.noncanonical
    ("uint-head-1-byte-for-5", b"\x18\x05", b"5", NONCANONICAL),
    ("uint-head-1-byte-for-23", b"\x18\x17", b"23", NONCANONICAL),
    ("uint-head-2-bytes-for-24", b"\x19\x00\x18", b"24", NONCANONICAL),
    ("uint-head-4-bytes-for-255", b"\x1a\x00\x00\x00\xff", b"255", NONCANONICAL),
    ("uint-head-8-bytes-for-65536", b"\x1b\x00\x00\x00\x00\x00\x01\x00\x00", b"65536", NONCANONICAL),
    ("negint-head-1-byte", b"\x38\x00", b"-1", NONCANONICAL),
    ("text-head-wide", b"\x78\x01a", b'"a"', NONCANONICAL),
    ("array-head-wide", b"\x98\x01\xf6", b"[null]", NONCANONICAL),
    ("map-head-wide", b"\xb8\x01\x61a\x01", b'{"a":1}', NONCANONICAL),
    ("map-key-head-wide", b"\xa1\x78\x01a\x01", b'{"a":1}', NONCANONICAL),
    ("indefinite-array", b"\x9f\xf6\xff", b"[null]", NONCANONICAL),
    ("indefinite-empty-array", b"\x9f\xff", b"[]", NONCANONICAL),
    ("indefinite-map", b"\xbf\x61a\x01\xff", b'{"a":1}', NONCANONICAL),
    ("indefinite-text", b"\x7f\x61a\x61b\xff", b'"ab"', NONCANONICAL),
    ("half-float", b"\xf9\x3c\x00", b"1.0", NONCANONICAL),
    ("half-float-in-array", b"\x81\xf9\x3e\x00", b"[1.5]", NONCANONICAL),
    ("single-float", b"\xfa\x3f\x80\x00\x00", b"1.0", NONCANONICAL),
    ("single-float-minus-zero", b"\xfa\x80\x00\x00\x00", b"-0.0", NONCANONICAL),
    ("trailing-byte", b"\xf6\x00", b"null", NONCANONICAL),
    ("trailing-item", b"\x80\x80", b"[]", NONCANONICAL),
    ("trailing-break", b"\xf6\xff", b"null", NONCANONICAL),
    ("trailing-lf", GOOD_CBOR + b"\n", GOOD_DOC, NONCANONICAL),
    ("duplicate-map-key", b"\xa2\x61a\x01\x61a\x02", b'{"a":2}', NONCANONICAL),
    ("bignum-for-small-value", b"\xc2\x41\x05", b"5", NONCANONICAL),
    ("bignum-for-2-pow-64-minus-1", _bignum(2, 2**64 - 1), b"18446744073709551615", NONCANONICAL),
    ("negative-bignum-for-small-value", b"\xc3\x41\x05", b"-6", NONCANONICAL),
    ("bignum-leading-zero-byte", b"\xc2\x4a\x00\x01" + b"\x00" * 8, b"18446744073709551616", NONCANONICAL),
    ("bignum-tag-head-wide", b"\xd8\x02\x49\x01" + b"\x00" * 8, b"18446744073709551616", NONCANONICAL),
    # limits
    ("bignum-4301-digits", _bignum(2, BIG), b"1" + b"0" * 4300, LIMIT),
    ("negative-bignum-4301-digits", _bignum(3, BIG - 1), b"-1" + b"0" * 4300, LIMIT),
    ("bignum-100000-bytes", b"\xc2\x5a\x00\x01\x86\xa0" + b"\x01" * 100_000, None, LIMIT),
    ("depth-513", b"\x81" * 512 + b"\x80", b"[" * 513 + b"]" * 513, LIMIT),
    ("depth-600", b"\x81" * 599 + b"\xf6", b"[" * 599 + b"null" + b"]" * 599, LIMIT),
    ("depth-600-maps", b"\xa1\x61a" * 600 + b"\xf6", b'{"a":' * 600 + b"null" + b"}" * 600, LIMIT),
    ("depth-100000", b"\x81" * DEEP + b"\x80", b"[" * (DEEP + 1) + b"]" * (DEEP + 1), LIMIT),
    ("depth-100000-unfinished", b"\x81" * DEEP, None, {LIMIT, ENVELOPE}),
    # truncation
    ("truncated-array", b"\x82\x01", None, ENVELOPE),
    ("truncated-text", b"\x65ab", None, ENVELOPE),
    ("truncated-float", b"\xfb\x3f\xf0", None, ENVELOPE),
    ("truncated-head", b"\x19\x01", None, ENVELOPE),
    ("truncated-map-value", b"\xa1\x61a", None, ENVELOPE),
]


@pytest.mark.parametrize("case_id, body, document, code", CBOR_CASES, ids=_ids(CBOR_CASES))
def test_binary_cbor_profile(case_id, body, document, code):
    rejected_both("binary", binary_wire(body, document), code)


@pytest.mark.parametrize(
    "value",
    [2**64, -(2**64) - 1, 2**64 - 1, -(2**64), BIG - 1, -(BIG - 1), -0.0, 1e16, "\u2028é\U0001F600", {"": []}],
    ids=["2^64", "-2^64-1", "2^64-1", "-2^64", "4300-nines", "minus-4300-nines", "-0.0", "1e16", "unicode", "empty-key"],
)
def test_binary_boundary_values_round_trip(value):
    """§7: integers in [-2^64, 2^64-1] as major 0/1, others as tags 2/3; every
    float as float64."""
    p = codec.CompactProjection.from_value(PROFILE, ROOT, REVISION, [value])
    wire = codec.encode_binary(p)
    assert outcome(codec.decode_binary, wire) == p


# --- hostile sizes: fail fast, allocate nothing -------------------------------------------------


HUGE_HEADS = [
    ("array-2-pow-63-items", b"\x9b\x80" + b"\x00" * 7, {ENVELOPE, LIMIT}),
    ("array-2-pow-64-minus-1-items", b"\x9b" + b"\xff" * 8, {ENVELOPE, LIMIT}),
    ("map-2-pow-63-pairs", b"\xbb\x80" + b"\x00" * 7, {ENVELOPE, LIMIT}),
    ("map-2-pow-62-pairs", b"\xbb\x40" + b"\x00" * 7, {ENVELOPE, LIMIT}),
    ("text-2-pow-63-bytes", b"\x7b\x80" + b"\x00" * 7, {ENVELOPE, LIMIT}),
    ("text-2-pow-32-bytes", b"\x7b\x00\x00\x00\x01\x00\x00\x00\x00", {ENVELOPE, LIMIT}),
    ("text-4-gib-minus-1", b"\x7a\xff\xff\xff\xff", {ENVELOPE, LIMIT}),
    ("array-4-g-items-in-array", b"\x81\x9a\xff\xff\xff\xff", {ENVELOPE, LIMIT}),
    ("map-key-2-pow-63-bytes", b"\xa1\x7b\x80" + b"\x00" * 7, {ENVELOPE, LIMIT}),
    ("bytes-2-pow-63", b"\x5b\x80" + b"\x00" * 7, {JSON, ENVELOPE, LIMIT}),
    ("bignum-2-pow-63-bytes", b"\xc2\x5b\x80" + b"\x00" * 7, {ENVELOPE, LIMIT}),
    ("tag-2-pow-63", b"\xdb\x80" + b"\x00" * 7 + b"\x01", {JSON}),
    ("indefinite-text-with-huge-chunk", b"\x7f\x7b\x80" + b"\x00" * 7, {NONCANONICAL}),
]


@pytest.mark.parametrize("case_id, body, code", HUGE_HEADS, ids=_ids(HUGE_HEADS))
def test_huge_cbor_heads_fail_fast_without_allocating(case_id, body, code):
    """Hostile lengths are never trusted before the bytes exist (a declared size
    past the wire's end is truncation, compact.envelope)."""
    bounded(codec.decode_binary, binary_wire(body), code)
    bounded(codec.decode_wire, binary_wire(body), code)


@pytest.mark.parametrize(
    "case_id, wire",
    [
        ("v2-metadata-99999999999", V2_HEADER + b"profile 99999999999 graph\n"),
        ("v1-metadata-99999999999", V1_HEADER + b"profile 99999999999 graph\n"),
        ("binary-leb128-2-pow-63", MAGIC + b"\x80" * 9 + b"\x01"),
        ("v2-dict-99999", V2_HEADER + text_fields(digest=UNRELATED_DIGEST) + b"dict 99999\n"),
    ],
)
def test_huge_declared_sizes_fail_fast(case_id, wire):
    bounded(codec.decode_wire, wire, LIMIT)


# --- decode_wire's own dispatch ------------------------------------------------------------------


@pytest.mark.parametrize(
    "wire",
    [
        b"SEMAPRAX",
        b"SEMAPRAX-BINARY 1\n",
        b"SEMAPRAX-MODEL-TEXT 1\n" + text_fields(digest=UNRELATED_DIGEST),
        b"SEMAPRAX-MODEL-TEXT 02\n" + text_fields(digest=UNRELATED_DIGEST),
        b"SEMAPRAX-TEXT 2\n" + text_fields(digest=UNRELATED_DIGEST),
        b"SPXB\x02" + b"\x00" * 8,
    ],
    ids=["bare-semaprax", "unknown-form", "model-text-v1", "model-text-v02", "text-v2", "binary-v2"],
)
def test_decode_wire_unknown_or_wrong_version_header(wire):
    rejected(codec.decode_wire, wire, ENVELOPE)


@pytest.mark.parametrize("form", ["model-text", "text", "binary", "json"])
@pytest.mark.parametrize(
    "junk",
    [b"\x00" * 64, b"\xff" * 64, b"\n" * 64, b"@" * 64, b"~" * 64, b'"' * 64, b"\\" * 64, bytes(range(256))],
    ids=["nul", "ff", "lf", "at", "tilde", "quote", "backslash", "all-bytes"],
)
def test_junk_is_rejected(form, junk):
    rejected(DECODERS[form], junk)
    rejected(codec.decode_wire, junk)
