"""Mutations that reach past the digest.

A random change to a wire's body almost always fails at the digest (step 4), so
the steps after it (normalization, the canonical checks) would see only the seeds.
``fix_digest`` recomputes the digest of whatever the mutated wire reconstructs to
and writes it into the ``source_digest`` field, the way an adversary who controls
the whole wire would. Both mutators below use it: ``atheris_mutate`` for libFuzzer
campaigns and ``random_mutate`` for the bounded campaign in the test suite.
"""

from __future__ import annotations

import random
from pathlib import Path

import cbor2

import codec
from codec import CompactError, binary_v1, model_text, text_v1
from codec.projection import canonical_json, source_digest
from codec.scan import expect, read_fields, split_body

DICTIONARY = Path(__file__).with_name("semaprax.dict")


def _tokens() -> list[bytes]:
    """The dictionary's tokens (libFuzzer's format: one quoted, escaped token a line)."""
    out = []
    for line in DICTIONARY.read_text().splitlines():
        line = line.strip()
        if line.startswith('"') and line.endswith('"'):
            out.append(line[1:-1].encode("latin-1").decode("unicode_escape").encode("latin-1"))
    return out


TOKENS = _tokens()
_SYNTAX = b'"\\@~0123456789[]{},:\n -.eE'


def body_start(wire: bytes) -> int | None:
    """Where the part that the digest covers begins: after ``body`` LF in the
    text forms, after the four fields in binary, 0 for full JSON."""
    try:
        form = codec.detect_form(wire)
        if form == "json":
            return 0
        if form == "binary":
            return binary_v1.read_binary_fields(wire)[-1].value.end
        header = model_text.HEADER if form == "model-text" else text_v1.HEADER
        layout = codec.layout_model_text(wire) if form == "model-text" else None
        if layout is not None:
            return None if layout.body is None else layout.body.start
        fields = read_fields(wire, len(header))
        return expect(wire, fields[-1].line.end, b"body\n", "body")
    except CompactError:
        return None


def _document_and_field(wire: bytes):
    """The reconstructed document and the span of the digest's value, or None."""
    form = codec.detect_form(wire)
    if form == "model-text":
        layout = codec.layout_model_text(wire)
        if layout.document is None:
            return None
        return layout.document, layout.fields[3].value
    if form == "text":
        fields = read_fields(wire, len(text_v1.HEADER))
        start = expect(wire, fields[-1].line.end, b"body\n", "body")
        parts, _, _ = text_v1._expand(split_body(wire[start:], b"~"), start)
        return b"".join(parts), fields[3].value
    if form == "binary":
        fields = binary_v1.read_binary_fields(wire)
        try:
            value = cbor2.loads(wire[fields[-1].value.end :])
        except Exception:  # noqa: BLE001 - cbor2 is lenient and its failures vary
            return None
        return canonical_json(value), fields[3].value
    return None


def fix_digest(wire: bytes) -> bytes:
    """``wire`` with its declared digest replaced by the digest of what it
    reconstructs to, when that can be found and the field has the usual length."""
    try:
        found = _document_and_field(wire)
    except (CompactError, RecursionError, ValueError, TypeError, OverflowError, MemoryError):
        return wire
    if found is None:
        return wire
    document, span = found
    digest = source_digest(document).encode()
    if len(span) != len(digest):
        return wire
    return wire[: span.start] + digest + wire[span.end :]


def atheris_mutate(data: bytes, max_size: int, seed: int) -> bytes:
    """libFuzzer's own mutation (with the dictionary), of the body most of the
    time, then usually the digest made right again."""
    import atheris

    rng = random.Random(seed)
    start = body_start(data) if rng.random() < 0.7 else None
    if start is not None and start < max_size:
        out = data[:start] + atheris.Mutate(data[start:], max_size - start)
    else:
        out = atheris.Mutate(data, max_size)
    if rng.random() < 0.8:
        out = fix_digest(out)
    return out[:max_size]


def random_mutate(data: bytes, rng: random.Random, edits: int = 3) -> bytes:
    """A pure-Python stand-in for libFuzzer's mutator, for the test suite: a few
    byte flips, insertions, deletions, dictionary tokens and duplicated slices,
    mostly in the body, then usually the digest made right again."""
    start = body_start(data) or 0
    out = bytearray(data)
    for _ in range(edits):
        lo = start if rng.random() < 0.8 else 0
        at = rng.randint(lo, max(len(out), lo))
        kind = rng.randrange(6)
        if kind == 0 and at < len(out):
            out[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            out[at:at] = bytes([rng.randrange(256)])
        elif kind == 2 and at < len(out):
            del out[at : at + rng.randint(1, 8)]
        elif kind == 3:
            out[at:at] = rng.choice(TOKENS)
        elif kind == 4 and len(out) > lo:
            a = rng.randint(lo, len(out) - 1)
            out[at:at] = out[a : a + rng.randint(1, 32)]
        else:
            out[at : at + 1] = bytes([rng.choice(_SYNTAX)])
    wire = bytes(out)
    return fix_digest(wire) if rng.random() < 0.8 else wire
