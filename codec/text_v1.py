"""Version 1 text: the same framed envelope as v2, and a body whose repeated
string literals become ``~k`` back-references into a table built while reading
(spec section 5)."""

from __future__ import annotations

from collections.abc import Iterable

from . import errors as E
from . import limits
from .errors import CompactError
from .projection import CompactProjection, check_digest, metadata_values, normalize
from .scan import (
    check_wire_size,
    expect,
    frame_fields,
    iter_v1_body,
    join_parts,
    read_fields,
    split_body,
    split_strings,
    trace_document_offset,
    wire_bytes,
)

HEADER = b"SEMAPRAX-TEXT 1\n"
FORMAT_VERSION = 1


def encode_text(p: CompactProjection) -> bytes:
    """The complete v1 text wire of ``p``."""
    fields = frame_fields(
        (p.profile.encode(), p.root.encode(), p.source_revision.encode(), p.source_digest.encode())
    )
    parts = split_strings(p.selected)
    table: dict[bytes, int] = {}
    for i in range(1, len(parts), 2):
        literal = parts[i]
        k = table.get(literal)
        if k is None:
            table[literal] = len(table)
        else:
            ref = b"~%d" % k
            if len(ref) < len(literal):
                parts[i] = ref
    wire = b"".join([HEADER, fields, b"body\n", *parts])
    if len(wire) > limits.MAX_WIRE_BYTES:
        raise CompactError(
            E.LIMIT, f"the v1 text wire would be {len(wire):,} bytes; the limit is {limits.MAX_WIRE_BYTES:,}"
        )
    return wire


def decode_text(wire: bytes) -> CompactProjection:
    """Decode and fully check a v1 text wire; any failure is a CompactError."""
    wire = wire_bytes(wire)
    check_wire_size(wire)
    if not wire.startswith(HEADER):
        prefix = b"SEMAPRAX-TEXT "
        if wire.startswith(prefix) and not wire.startswith(prefix + b"1") and len(wire) > len(prefix):
            raise CompactError(E.ENVELOPE, "unsupported v1 text version; this decoder reads 1", len(prefix))
        expect(wire, 0, HEADER, "header")
    fields = read_fields(wire, len(HEADER))
    profile, root, revision, digest = metadata_values(fields)
    body_start = expect(wire, fields[-1].line.end, b"body\n", "the body line")
    body = wire[body_start:]
    # Dense '~' (a flood of back-references): read lazily, so the first bad one
    # stops the reading before the rest of the body is split.
    tokens = iter_v1_body(body) if body.count(b"~") > len(body) >> 3 else split_body(body, b"~")
    parts, table, first_problem = _expand(tokens, body_start)
    del tokens  # the split body is not needed again unless a fault must be placed
    document = join_parts(parts)
    check_digest(document, digest, fields[3].value.start)
    skeleton = join_parts(parts[0::2])
    del parts  # millions of pieces for a body of tiny back-references: free them before parsing

    def locate(doc_offset: int) -> int:
        tokens = split_body(body, b"~")  # only on failure
        return trace_document_offset(tokens, lambda ref: table[int(ref[1:])], body_start, doc_offset)[0]

    normalize(document, skeleton=skeleton, locate=locate)
    if first_problem is not None:
        raise first_problem
    return CompactProjection._checked(profile, root, revision, document, digest)


def _expand(
    tokens: Iterable[bytes], body_start: int
) -> tuple[list[bytes], list[bytes], CompactError | None]:
    """Rebuild the back-reference table while reading, as an encoder built it,
    with each ``~k`` of ``tokens`` replaced by its literal; returns the expanded
    parts and the table.

    Reference errors stop at once (step 3); a spelling the encoder would not have
    written (a reference that saves nothing, a literal that should have been a
    reference) is kept and raised after normalization (step 6)."""
    parts: list[bytes] = []
    table: list[bytes] = []
    index: dict[bytes, int] = {}
    #: Each reference spelling already resolved: once ``~k`` is in range it stays
    #: so (the table only grows) and stands for the same literal.
    resolved: dict[bytes, bytes] = {}
    problem: CompactError | None = None
    size = 0
    at = body_start
    for k, token in enumerate(tokens):
        width = len(token)
        if k % 2 == 0:
            pass
        elif token[0] == 0x22:  # a string literal
            i = index.get(token)
            if i is None:
                index[token] = len(table)
                table.append(token)
            elif problem is None and width > 2 and len(b"~%d" % i) < width:
                problem = CompactError(
                    E.NONCANONICAL,
                    f"missing back-reference: this literal is table entry {i} and must be written ~{i}",
                    at,
                )
        else:
            literal = resolved.get(token)
            if literal is None:
                literal = resolved[token] = _resolve(token, table, at)
            if problem is None and width >= len(literal):
                problem = CompactError(
                    E.NONCANONICAL,
                    f"unnecessary back-reference {token.decode()}: it is not shorter than the literal it stands for",
                    at,
                )
            token = literal
        if size + len(token) > limits.MAX_SELECTED_BYTES:
            raise _too_large(at)
        size += len(token)
        at += width
        parts.append(token)
    return parts, table, problem


def _resolve(token: bytes, table: list[bytes], at: int) -> bytes:
    """The literal ``~k`` stands for at this point of the body, or compact.reference."""
    digits = token[1:]
    if not digits or (digits[0] == 0x30 and len(digits) > 1):
        what = "'~' outside a string must be followed by a table index" if not digits else (
            f"back-reference '~{digits[:12].decode()}' has a leading zero"
        )
        raise CompactError(E.REFERENCE, what, at)
    if len(digits) > len(str(len(table))) or int(digits) >= len(table):
        raise CompactError(
            E.REFERENCE,
            f"back-reference '~{digits[:12].decode()}' is out of range: the table has {len(table)} literals here",
            at,
        )
    return table[int(digits)]


def _too_large(at: int) -> CompactError:
    return CompactError(
        E.LIMIT, f"reconstructed document would exceed {limits.MAX_SELECTED_BYTES:,} bytes", at
    )
