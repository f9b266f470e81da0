"""Build wires by hand, independently of the encoders, so tests can write exactly
the malformed or non-canonical bytes they want to see rejected; and the verdict
helpers (rejected, refused, bounded, ...) the hostile, rejection and limit tests
share.

Metadata values (``profile``, ``root``, ``revision``, ``digest``) may be given as
``str`` (UTF-8 encoded here) or as raw ``bytes`` (written as they are, valid UTF-8
or not). ``digest`` defaults to the digest of the document the wire stands for."""

from __future__ import annotations

import hashlib
import json
import tracemalloc
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import strategies as st

import codec
import codec.projection
from codec import CODES, CompactError

V2_HEADER = b"SEMAPRAX-MODEL-TEXT 2\n"
V1_HEADER = b"SEMAPRAX-TEXT 1\n"
MAGIC = b"SPXB\x01"
FIELD_NAMES = (b"profile", b"root", b"source_revision", b"source_digest")
DIGEST_TAG = b"semaprax/compact-projection/source-digest/v1\x00"

REVISION = "sha256:" + "0" * 64
PAD = b'"' + b"p" * 16400 + b'"'


def as_bytes(value: str | bytes) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value


def digest_of(doc: bytes) -> str:
    """docs/wire-format.md §2, hashed piecewise so a 16 MiB document is not copied."""
    h = hashlib.sha256(DIGEST_TAG)
    h.update(len(doc).to_bytes(8, "big"))
    h.update(doc)
    return "sha256:" + h.hexdigest()


def _digest(doc: bytes | None, digest: str | bytes | None) -> bytes:
    if digest is not None:
        return as_bytes(digest)
    if doc is None:
        raise TypeError("give the document the digest is of, or the digest itself")
    return digest_of(doc).encode()


def field_line(name: str | bytes, value: str | bytes) -> bytes:
    """One text-envelope field of docs/wire-format.md §3: ``name SP len SP value LF``."""
    value = as_bytes(value)
    return as_bytes(name) + b" %d " % len(value) + value + b"\n"


def fields(doc: bytes | None = None, *, profile: str | bytes = b"graph", root: str | bytes = b"a.py",
           revision: str | bytes = REVISION.encode(), digest: str | bytes | None = None) -> bytes:
    """The four text-envelope fields; ``doc`` may be left out when ``digest`` is given."""
    values = (profile, root, revision, _digest(doc, digest))
    return b"".join(field_line(n, v) for n, v in zip(FIELD_NAMES, values))


def v2(doc: bytes, entries: Sequence[bytes] = (), body: bytes | None = None, **kw) -> bytes:
    """A v2 wire whose digest matches ``doc``; ``body`` defaults to ``doc``."""
    body = doc if body is None else body
    dictionary = b"dict %d\n" % len(entries) + b"".join(e + b"\n" for e in entries)
    return V2_HEADER + fields(doc, **kw) + dictionary + b"body\n" + body


def v1(doc: bytes, body: bytes | None = None, **kw) -> bytes:
    body = doc if body is None else body
    return V1_HEADER + fields(doc, **kw) + b"body\n" + body


def leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def binary_field(value: str | bytes) -> bytes:
    """One binary-envelope field of docs/wire-format.md §7: LEB128 length, then the bytes."""
    value = as_bytes(value)
    return leb128(len(value)) + value


def binary(doc: bytes | None, cbor: bytes, *, profile: str | bytes = b"graph", root: str | bytes = b"a.py",
           revision: str | bytes = REVISION.encode(), digest: str | bytes | None = None) -> bytes:
    """A binary wire; ``doc`` (the JSON ``cbor`` stands for) may be None when
    ``digest`` is given."""
    values = (profile, root, revision, _digest(doc, digest))
    return MAGIC + b"".join(binary_field(v) for v in values) + cbor


# --- verdicts: what the hostile, rejection and limit tests assert -----------------------
#
# Shared so that "rejected", "bounded" and the offset rule mean the same thing in
# every file. Decoding goes through the codec; building the wires above does not.

#: The codes docs/wire-format.md §10 names, by their last word (a KeyError here means the
#: codec lost or renamed one).
CODE = {code.removeprefix("compact."): code for code in CODES}
ENVELOPE, METADATA, LIMIT, DICTIONARY, REFERENCE, DIGEST, JSON, NONCANONICAL = (
    CODE[name]
    for name in ("envelope", "metadata", "limit", "dictionary", "reference", "digest", "json", "noncanonical")
)

DECODERS = {
    "json": codec.decode_json,
    "text": codec.decode_text,
    "binary": codec.decode_binary,
    "model-text": codec.decode_model_text,
}

#: The metadata the hostile and limit tests frame their wires with.
META = {"profile": "graph", "root": "pkg/mod.py", "revision": "sha256:" + "5a" * 32}


def check_diagnostic(exc: CompactError, wire: bytes | bytearray) -> None:
    """§10: a known code, and an offset that is None or a byte of the input."""
    assert isinstance(exc, CompactError)
    assert exc.code in CODES, f"unknown code {exc.code!r}"
    assert exc.offset is None or (
        type(exc.offset) is int and 0 <= exc.offset <= len(wire)
    ), f"offset {exc.offset!r} outside 0..{len(wire)}: {exc!r}"


def _name(call) -> str:
    return getattr(call, "__name__", repr(call))


def outcome(decode, wire: bytes):
    """The decoder's result, or the CompactError it raised (checked); any other
    exception fails the test."""
    try:
        return decode(wire)
    except CompactError as exc:
        check_diagnostic(exc, wire)
        return exc
    except Exception as exc:  # noqa: BLE001 - this is exactly what must not happen
        pytest.fail(f"{type(exc).__name__} escaped {_name(decode)} instead of CompactError: {exc!r}"[:2000])


def refused(call, *args, code: str | set | None = None) -> CompactError:
    """``call(*args)`` raises a CompactError (with ``code``, if given: one code or
    a set); nothing else escapes, and it must not succeed."""
    try:
        call(*args)
    except CompactError as exc:
        if args and isinstance(args[0], (bytes, bytearray)):
            check_diagnostic(exc, args[0])
        if code is not None:
            allowed = {code} if isinstance(code, str) else code
            assert exc.code in allowed, f"{_name(call)}: expected {sorted(allowed)}, got {exc!r}"
        return exc
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"{type(exc).__name__} escaped {_name(call)}: {exc!r}"[:2000])
    pytest.fail(f"{_name(call)} accepted what it must refuse: {args[0]!r:.120}…" if args else _name(call))


def rejected(decode, wire: bytes, code: str | set | None = None) -> CompactError:
    return refused(decode, wire, code=code)


def rejected_both(form: str, wire: bytes, code: str | set | None = None) -> CompactError:
    """The form's own decoder and ``decode_wire`` reject with the same code."""
    exc = rejected(DECODERS[form], wire, code)
    via = rejected(codec.decode_wire, wire, code)
    assert via.code == exc.code, f"decode_wire said {via!r}, {form} decoder said {exc!r}"
    return exc


def bounded(call, wire: bytes, code: str | set | None = LIMIT, *, extra: int = 8 << 20) -> CompactError:
    """Rejected having allocated at most ``extra`` bytes beyond two copies of the
    wire: work measured as allocation (tracemalloc), not wall-clock time, which
    belongs in semaprax bench hostile."""
    tracemalloc.start()
    try:
        exc = refused(call, wire, code=code)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < extra + 2 * len(wire), f"allocated {peak:,} bytes for a {len(wire):,}-byte wire"
    return exc


def binary_slow_verdict(body: bytes) -> bytes | CompactError:
    """The v1 binary slow path's verdict on ``body`` (the profile walker, then
    cbor2, then the canonical checks): its document, or its diagnostic. The
    fast paths (``read_fast``, ``read_arrays``) are held to it."""
    import cbor2

    from codec.binary_v1 import check_cbor
    from codec.limits import MAX_DEPTH
    from codec.projection import canonical_json, with_stack

    try:
        check_cbor(body)
        value = with_stack(cbor2.loads, body, max_depth=MAX_DEPTH + 1)
        document = canonical_json(value)
        if with_stack(cbor2.dumps, value) != body:
            return CompactError("compact.noncanonical", "re-encoding differs", 0)
        return document
    except CompactError as exc:
        return exc


def diagnostic(read: object) -> object:
    """A verdict to compare: a diagnostic as (code, message, offset), anything
    else (a document, None) as it is."""
    return (read.code, read.message, read.offset) if isinstance(read, CompactError) else read


def normalize_verdict(doc: bytes, lexical: bool) -> tuple:
    """What ``projection._normalize`` says of ``doc``: ("ok",) or the diagnostic
    as (code, message, offset); ``lexical=False`` is the parsing reading alone."""
    from codec import projection

    try:
        projection._normalize(doc, None, lexical=lexical)
    except CompactError as exc:
        return (exc.code, exc.message, exc.offset)
    return ("ok",)


def prove_every_document(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let small documents and documents of mostly scalars take the proof
    without a value and its readings of departures (its size gates opened)."""
    from codec import projection

    monkeypatch.setattr(projection, "_MIN_BYTES_PER_OBJECT", 1)
    monkeypatch.setattr(projection, "_MOST_ITEMS_PER_CONTAINER", 10**9)


def chain(depth: int, leaf: object = 1) -> object:
    """``leaf`` in ``depth`` one-item lists."""
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def windows_only(monkeypatch: pytest.MonkeyPatch, doc: bytes) -> list[int]:
    """Let the projection's ``json.loads`` read only windows smaller than a
    quarter of ``doc`` (a reading without a value parses a stand-in and a window,
    never the document); returns the sizes it read, for the caller to sum."""
    loads = json.loads  # the module codec.projection reads it from
    read: list[int] = []

    def window_only(text, *args, **kwargs):
        read.append(len(text))
        assert len(text) < len(doc) // 4, "parsed in full"
        return loads(text, *args, **kwargs)

    monkeypatch.setattr("codec.projection.json.loads", window_only)
    return read


def edited(draw: Any, body: bytearray, pieces: list[bytes]) -> bytes:
    """``body`` after up to three edits a hypothesis ``draw`` chooses: a piece of
    ``pieces`` inserted or put in place of one byte, a byte deleted, or the body
    cut there (the binary departure tests' mutations)."""
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(body)))
        piece = draw(st.sampled_from(pieces))
        what = draw(st.sampled_from(["insert", "replace", "delete", "cut"]))
        if what == "insert":
            body[at:at] = piece
        elif what == "replace":
            body[at : at + 1] = piece
        elif what == "delete":
            del body[at : at + 1]
        else:
            del body[at:]
    return bytes(body)


def nested(depth: int, leaf: bytes = b"1") -> bytes:
    """``leaf`` inside ``depth`` arrays."""
    return b"[" * depth + leaf + b"]" * depth


def deep(middle: bytes | None = None, end: bytes | None = None) -> bytes:
    """40 items nested 511 deep (the deep departure tests' document); ``middle``
    replaces the leaf of item 20, ``end`` that of the last item."""
    items = [nested(510)] * 40
    if middle is not None:
        items[20] = nested(510, middle)
    if end is not None:
        items[-1] = nested(510, end)
    return b"[" + b",".join(items) + b"]"
