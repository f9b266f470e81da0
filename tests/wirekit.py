"""Build wires by hand, independently of the encoders, so tests can write exactly
the malformed or non-canonical bytes they want to see rejected.

Metadata values (``profile``, ``root``, ``revision``, ``digest``) may be given as
``str`` (UTF-8 encoded here) or as raw ``bytes`` (written as they are, valid UTF-8
or not). ``digest`` defaults to the digest of the document the wire stands for."""

from __future__ import annotations

import hashlib

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
    """Spec section 2, hashed piecewise so a 16 MiB document is not copied."""
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
    """One text-envelope field of spec section 3: ``name SP len SP value LF``."""
    value = as_bytes(value)
    return as_bytes(name) + b" %d " % len(value) + value + b"\n"


def fields(doc: bytes | None = None, *, profile: str | bytes = b"graph", root: str | bytes = b"a.py",
           revision: str | bytes = REVISION.encode(), digest: str | bytes | None = None) -> bytes:
    """The four text-envelope fields; ``doc`` may be left out when ``digest`` is given."""
    values = (profile, root, revision, _digest(doc, digest))
    return b"".join(field_line(n, v) for n, v in zip(FIELD_NAMES, values))


def v2(doc: bytes, entries: list[bytes] = (), body: bytes | None = None, **kw) -> bytes:
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
    """One binary-envelope field of spec section 6: LEB128 length, then the bytes."""
    value = as_bytes(value)
    return leb128(len(value)) + value


def binary(doc: bytes | None, cbor: bytes, *, profile: str | bytes = b"graph", root: str | bytes = b"a.py",
           revision: str | bytes = REVISION.encode(), digest: str | bytes | None = None) -> bytes:
    """A binary wire; ``doc`` (the JSON ``cbor`` stands for) may be None when
    ``digest`` is given."""
    values = (profile, root, revision, _digest(doc, digest))
    return MAGIC + b"".join(binary_field(v) for v in values) + cbor
