"""Build wires by hand, independently of the encoders, so tests can write exactly
the malformed or non-canonical bytes they want to see rejected."""

from __future__ import annotations

import hashlib

REVISION = "sha256:" + "0" * 64
PAD = b'"' + b"p" * 16400 + b'"'


def digest_of(doc: bytes) -> str:
    tag = b"semaprax/compact-projection/source-digest/v1\x00"
    return "sha256:" + hashlib.sha256(tag + len(doc).to_bytes(8, "big") + doc).hexdigest()


def fields(doc: bytes, *, profile: bytes = b"graph", root: bytes = b"a.py",
           revision: bytes = REVISION.encode(), digest: bytes | None = None) -> bytes:
    digest = digest_of(doc).encode() if digest is None else digest
    out = b""
    for name, value in ((b"profile", profile), (b"root", root), (b"source_revision", revision),
                        (b"source_digest", digest)):
        out += name + b" %d " % len(value) + value + b"\n"
    return out


def v2(doc: bytes, entries: list[bytes] = (), body: bytes | None = None, **kw) -> bytes:
    """A v2 wire whose digest matches ``doc``; ``body`` defaults to ``doc``."""
    body = doc if body is None else body
    dictionary = b"dict %d\n" % len(entries) + b"".join(e + b"\n" for e in entries)
    return b"SEMAPRAX-MODEL-TEXT 2\n" + fields(doc, **kw) + dictionary + b"body\n" + body


def v1(doc: bytes, body: bytes | None = None, **kw) -> bytes:
    body = doc if body is None else body
    return b"SEMAPRAX-TEXT 1\n" + fields(doc, **kw) + b"body\n" + body


def leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def binary(doc: bytes, cbor: bytes, *, profile: bytes = b"graph", root: bytes = b"a.py",
           revision: bytes = REVISION.encode(), digest: bytes | None = None) -> bytes:
    digest = digest_of(doc).encode() if digest is None else digest
    out = b"SPXB\x01"
    for value in (profile, root, revision, digest):
        out += leb128(len(value)) + value
    return out + cbor
