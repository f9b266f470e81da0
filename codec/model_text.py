"""Version 2, model-text: dictionary selection, encode, decode, verify (spec 4).

The decoder is a sequence of stages over one ``_Reader``; ``layout_model_text``
runs the same stages and keeps whatever they found before a failure, so the
inspector shows exactly what the decoder read, up to the byte where it stopped.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Any

from . import errors as E
from . import limits
from .errors import CompactError
from .projection import CompactProjection, metadata_values, normalize, source_digest
from .scan import (
    STRING,
    Field,
    Span,
    canonical_index,
    check_wire_size,
    expect,
    frame_fields,
    is_string_literal,
    read_decimal,
    read_fields,
    split_body,
    split_strings,
    trace_document_offset,
)

HEADER = b"SEMAPRAX-MODEL-TEXT 2\n"
_STRING_TOKEN = re.compile(STRING).match
FORMAT_VERSION = 2


# --- encoding ---------------------------------------------------------------------


def select_entries(strings: list[bytes], size: int) -> list[bytes]:
    """The fixed heuristic of spec section 4: below the threshold nothing; else
    every literal of 16 bytes or more that occurs twice or more, sorted bytewise."""
    if size < limits.DICTIONARY_THRESHOLD:
        return []
    counts = Counter([s for s in strings if len(s) >= limits.MIN_ENTRY_BYTES])
    return sorted(s for s, n in counts.items() if n >= limits.MIN_ENTRY_OCCURRENCES)


def encode_model_text(p: CompactProjection) -> bytes:
    """The complete v2 wire of ``p``; refuses (compact.limit) to write a wire that
    no decoder would accept."""
    fields = frame_fields(_metadata_bytes(p))
    selected = p.selected
    parts = split_strings(selected)
    strings = parts[1::2]
    entries = select_entries(strings, len(selected))
    if len(entries) > limits.MAX_DICTIONARY_ENTRIES:
        raise CompactError(
            E.LIMIT,
            f"document needs {len(entries):,} dictionary entries; the limit is {limits.MAX_DICTIONARY_ENTRIES:,}",
        )
    for entry in entries:
        if len(entry) > limits.MAX_ENTRY_BYTES:
            raise CompactError(
                E.LIMIT,
                f"a repeated literal is {len(entry):,} bytes; a dictionary entry may be at most {limits.MAX_ENTRY_BYTES:,}",
            )
    if entries:
        refs = {e: b"@%d" % i for i, e in enumerate(entries)}
        parts[1::2] = [refs.get(s, s) for s in strings]
        body = b"".join(parts)
    else:
        body = selected
    dictionary = b"".join([b"dict %d\n" % len(entries), *[e + b"\n" for e in entries], b"body\n"])
    wire = b"".join([HEADER, fields, dictionary, body])
    if len(wire) > limits.MAX_WIRE_BYTES:
        raise CompactError(
            E.LIMIT, f"the model-text wire would be {len(wire):,} bytes; the limit is {limits.MAX_WIRE_BYTES:,}"
        )
    return wire


def _metadata_bytes(p: CompactProjection) -> tuple[bytes, bytes, bytes, bytes]:
    return (
        p.profile.encode(),
        p.root.encode(),
        p.source_revision.encode(),
        p.source_digest.encode(),
    )


# --- decoding ---------------------------------------------------------------------


class _Reader:
    """The decoding stages of spec section 4, in their order; each stage leaves
    what it found on the reader, so a failure still leaves a partial parse."""

    def __init__(self, wire: bytes) -> None:
        self.wire = wire
        self.fields: tuple[Field, ...] = ()
        self.metadata: tuple[str, str, str, str] | None = None
        self.dict_line: Span | None = None
        self.declared_entries: int | None = None
        self.entries: list[bytes] = []
        self.entry_spans: list[Span] = []
        self.body_marker: Span | None = None
        self.body_start: int | None = None
        self.tokens: list[bytes | None] | None = None
        self.document: bytes | None = None
        self.value: Any = None

    # step 1
    def envelope(self) -> None:
        wire = self.wire
        check_wire_size(wire)
        if not wire.startswith(HEADER):
            prefix = b"SEMAPRAX-MODEL-TEXT "
            if wire.startswith(prefix) and not HEADER.startswith(wire):
                end = wire.find(b"\n", 0, 64)
                version = wire[len(prefix) : end if end >= 0 else len(prefix) + 8]
                raise CompactError(
                    E.ENVELOPE,
                    f"unsupported model-text version {version.decode('utf-8', 'replace')!r}; this decoder reads 2",
                    len(prefix),
                )
            expect(wire, 0, HEADER, "header")
        self.fields = read_fields(wire, len(HEADER))
        self.metadata = metadata_values(self.fields)

    # step 2
    def dictionary(self) -> None:
        wire = self.wire
        pos = self.fields[-1].line.end
        at = expect(wire, pos, b"dict ", "the dictionary line")
        n, at = read_decimal(
            wire, at, max_digits=5, maximum=limits.MAX_DICTIONARY_ENTRIES, what="dictionary entry count"
        )
        at = expect(wire, at, b"\n", "LF after the dictionary entry count")
        self.dict_line = Span(pos, at)
        self.declared_entries = n
        entries, spans = self.entries, self.entry_spans
        for i in range(n):
            if wire.startswith(b"body\n", at):
                raise CompactError(
                    E.DICTIONARY, f"dictionary declares {n} entries but body starts after {i}", at
                )
            nl = wire.find(b"\n", at, at + limits.MAX_ENTRY_BYTES + 1)
            if nl < 0:
                if len(wire) - at > limits.MAX_ENTRY_BYTES:
                    raise CompactError(
                        E.LIMIT,
                        f"dictionary entry {i} is longer than {limits.MAX_ENTRY_BYTES:,} bytes",
                        at,
                    )
                raise CompactError(
                    E.DICTIONARY, f"dictionary entry {i} is not followed by LF (wire ends)", len(wire)
                )
            entry = wire[at:nl]
            if not is_string_literal(entry):
                raise CompactError(
                    E.DICTIONARY,
                    f"dictionary entry {i} is not exactly one JSON string literal: {_show(entry)}",
                    at + _literal_fault(entry),
                )
            entries.append(entry)
            spans.append(Span(at, nl))
            at = nl + 1
        if wire.startswith(b'"', at):
            raise CompactError(E.DICTIONARY, f"more dictionary entries than the {n} declared", at)
        self.body_start = expect(wire, at, b"body\n", "the body line")
        self.body_marker = Span(at, self.body_start)

    # step 3
    def expand(self) -> None:
        body = self.wire[self.body_start :]
        tokens = self.tokens = split_body(body, b"@")
        raws = tokens[0::3]
        strings = tokens[1::3]
        digits = tokens[2::3]
        table = {b"%d" % i: e for i, e in enumerate(self.entries)}
        try:
            middle = [s if d is None else table[d] for s, d in zip(strings, digits)]
        except KeyError:
            self._fail_expansion()
            raise AssertionError("unreachable")  # pragma: no cover
        self.middle = middle
        size = sum(map(len, raws)) + sum(map(len, middle))
        if size > limits.MAX_SELECTED_BYTES:
            self._fail_expansion()
        pieces: list[bytes] = [b""] * (len(raws) + len(middle))
        pieces[0::2] = raws
        pieces[1::2] = middle
        self.document = b"".join(pieces)
        self._skeleton = b"".join(raws)

    def _fail_expansion(self) -> None:
        """Walk the body in order to report the first failing reference or append."""
        n = len(self.entries)
        size = 0
        at = self.body_start
        tokens = self.tokens
        for k, token in enumerate(tokens):
            kind = k % 3
            if token is None:
                continue
            if kind == 2:
                if not canonical_index(token) or int(token) >= n:
                    raise CompactError(E.REFERENCE, _reference_problem(token, n), at)
                piece = len(self.entries[int(token)])
                width = len(token) + 1
            else:
                piece = width = len(token)
            if size + piece > limits.MAX_SELECTED_BYTES:
                raise CompactError(
                    E.LIMIT,
                    f"reconstructed document would exceed {limits.MAX_SELECTED_BYTES:,} bytes",
                    at,
                )
            size += piece
            at += width
        raise AssertionError("expansion failed without a reason")  # pragma: no cover

    # step 4
    def verify_digest(self) -> None:
        digest = source_digest(self.document)
        declared = self.metadata[3]
        if digest != declared:
            hint = ""
            if self.document.endswith(b"\n"):
                hint = " The body ends with LF: an editor or echo may have appended it; tools must not."
            raise CompactError(
                E.DIGEST,
                f"the {len(self.document):,} reconstructed bytes have digest {digest}, "
                f"but the wire declares {declared}.{hint}",
                self.fields[3].value.start,
            )

    # step 5
    def normalize(self) -> None:
        self.value = normalize(self.document, skeleton=self._skeleton, locate=self.wire_offset)

    # step 6
    def check_canonical(self) -> None:
        """Verify, on the tokens already in hand, every fact a full re-encode would
        check: entries sorted and unique, each selected by the heuristic and used
        at least twice, no qualifying literal left inline."""
        entries = self.entries
        counts = Counter(self.tokens[2::3])
        counts.pop(None, None)
        if entries and len(self.document) < limits.DICTIONARY_THRESHOLD:
            raise CompactError(
                E.NONCANONICAL,
                f"unnecessary dictionary: the document is {len(self.document):,} bytes, under "
                f"{limits.DICTIONARY_THRESHOLD:,}, so its dictionary must be empty",
                self.dict_line.start,
            )
        previous = None
        for i, entry in enumerate(entries):
            at = self.entry_spans[i].start
            if previous is not None and entry <= previous:
                what = "duplicate dictionary entry" if entry == previous else "dictionary out of bytewise order"
                raise CompactError(E.NONCANONICAL, f"{what}: entry {i} {_show(entry)}", at)
            if len(entry) < limits.MIN_ENTRY_BYTES:
                raise CompactError(
                    E.NONCANONICAL,
                    f"unnecessary entry {i}: {len(entry)} bytes is under the {limits.MIN_ENTRY_BYTES}-byte minimum",
                    at,
                )
            uses = counts.get(b"%d" % i, 0)
            if uses < limits.MIN_ENTRY_OCCURRENCES:
                raise CompactError(
                    E.NONCANONICAL,
                    f"unnecessary entry {i}: referenced {uses} time(s); an entry must occur at least twice",
                    at,
                )
            previous = entry
        if len(self.document) < limits.DICTIONARY_THRESHOLD:
            return
        inline = [s for s in self.tokens[1::3] if s is not None and len(s) >= limits.MIN_ENTRY_BYTES]
        known = set(entries)
        repeated = {s for s, n in Counter(inline).items() if n >= limits.MIN_ENTRY_OCCURRENCES}
        if repeated or not known.isdisjoint(inline):
            self._fail_inline(known, repeated)

    def _fail_inline(self, known: set[bytes], repeated: set[bytes]) -> None:
        at = self.body_start
        index = {e: i for i, e in enumerate(self.entries)}
        for k, token in enumerate(self.tokens):
            if token is None:
                continue
            if k % 3 == 1:
                if token in known:
                    raise CompactError(
                        E.NONCANONICAL,
                        f"missing reference: literal {_show(token)} is dictionary entry {index[token]} "
                        f"and must be written @{index[token]}",
                        at,
                    )
                if token in repeated:
                    raise CompactError(
                        E.NONCANONICAL,
                        f"missing dictionary entry: literal {_show(token)} occurs more than once, "
                        f"is {len(token)} bytes, and so must be in the dictionary",
                        at,
                    )
            at += len(token) + (1 if k % 3 == 2 else 0)
        raise AssertionError("inline check failed without a reason")  # pragma: no cover

    # mapping offsets back to the wire

    def wire_offset(self, doc_offset: int) -> int:
        """Where byte ``doc_offset`` of the reconstructed document came from: the
        body byte, or the dictionary entry byte that a reference expanded to."""
        wire, delta, digits = trace_document_offset(self.tokens, self.middle, self.body_start, doc_offset)
        if digits is None:
            return wire
        return self.entry_spans[int(digits)].start + delta

    def projection(self) -> CompactProjection:
        profile, root, revision, digest = self.metadata
        return CompactProjection._checked(profile, root, revision, self.document, digest)


_STAGES = ("envelope", "dictionary", "expand", "verify_digest", "normalize", "check_canonical")


def decode_model_text(wire: bytes) -> CompactProjection:
    """Decode and fully check a v2 wire; any failure is a CompactError."""
    reader = _Reader(bytes(wire))
    for stage in _STAGES:
        getattr(reader, stage)()
    return reader.projection()


def decode_model_text_and_verify(
    wire: bytes, *, profile: str, root: str, source_revision: str
) -> CompactProjection:
    """Decode, then bind the projection to what the caller expected to receive."""
    p = decode_model_text(wire)
    check_binding(p, profile=profile, root=root, source_revision=source_revision)
    return p


def check_binding(
    p: CompactProjection, *, profile: str | None, root: str | None, source_revision: str | None
) -> None:
    """compact.binding, naming the field, the value expected and the value found."""
    for name, expected in (("profile", profile), ("root", root), ("source_revision", source_revision)):
        found = getattr(p, name)
        if expected is not None and expected != found:
            raise CompactError(
                E.BINDING, f"{name} mismatch: expected {expected!r}, found {found!r}", None
            )


# --- the structured parse, for tools that show a wire ------------------------------


@dataclass(frozen=True)
class ModelTextLayout:
    """Everything a v2 wire says and where, as far as decoding got.

    ``ref_wire``, ``ref_index`` and ``ref_doc`` are parallel arrays, one item per
    ``@N`` occurrence in body order: its wire offset (of the ``@``), its entry
    index, and where its expansion starts in the reconstructed document.
    ``error`` is the diagnostic that stopped decoding, or None for a valid wire."""

    wire_size: int
    header: Span
    fields: tuple[Field, ...]
    metadata: tuple[str, str, str, str] | None
    dict_line: Span | None
    entries: tuple[bytes, ...]
    entry_spans: tuple[Span, ...]
    body_marker: Span | None
    body: Span | None
    ref_wire: array
    ref_index: array
    ref_doc: array
    reference_counts: tuple[int, ...]
    document: bytes | None
    error: CompactError | None

    @property
    def valid(self) -> bool:
        return self.error is None


def layout_model_text(wire: bytes) -> ModelTextLayout:
    """Run the decoder's own stages and describe what they read, failure included."""
    reader = _Reader(bytes(wire))
    error = None
    try:
        for stage in _STAGES:
            getattr(reader, stage)()
    except CompactError as exc:
        error = exc
    ref_wire, ref_index, ref_doc = array("q"), array("q"), array("q")
    counts = [0] * len(reader.entries)
    if reader.tokens is not None and (reader.document is not None or error is not None):
        _collect_references(reader, ref_wire, ref_index, ref_doc, counts)
    body = None if reader.body_start is None else Span(reader.body_start, len(reader.wire))
    return ModelTextLayout(
        wire_size=len(reader.wire),
        header=Span(0, min(len(HEADER), len(reader.wire))),
        fields=reader.fields,
        metadata=reader.metadata,
        dict_line=reader.dict_line,
        entries=tuple(reader.entries),
        entry_spans=tuple(reader.entry_spans),
        body_marker=reader.body_marker,
        body=body,
        ref_wire=ref_wire,
        ref_index=ref_index,
        ref_doc=ref_doc,
        reference_counts=tuple(counts),
        document=reader.document,
        error=error,
    )


def _collect_references(reader: _Reader, ref_wire: array, ref_index: array, ref_doc: array, counts: list[int]) -> None:
    n = len(reader.entries)
    wire = reader.body_start
    doc = 0
    for k, token in enumerate(reader.tokens):
        if token is None:
            continue
        if k % 3 == 2:
            if not canonical_index(token) or int(token) >= n:
                return  # the decoder stopped here; nothing after it was read
            i = int(token)
            ref_wire.append(wire)
            ref_index.append(i)
            ref_doc.append(doc)
            counts[i] += 1
            wire += len(token) + 1
            doc += len(reader.entries[i])
        else:
            wire += len(token)
            doc += len(token)


# --- message helpers ----------------------------------------------------------------


def _reference_problem(digits: bytes, n: int) -> str:
    if not digits:
        return "'@' outside a string must be followed by a dictionary index"
    if len(digits) > 5:
        return f"reference '@{digits[:8].decode()}…' has more than five digits"
    if digits[0] == 0x30 and len(digits) > 1:
        return f"reference '@{digits.decode()}' has a leading zero"
    return f"reference '@{digits.decode()}' is out of range: the dictionary has {n} entries"


def _literal_fault(entry: bytes) -> int:
    """Offset inside ``entry`` of the first byte that keeps it from being a string
    literal, for pointing at it."""
    if not entry.startswith(b'"'):
        return 0
    m = _STRING_TOKEN(entry)
    if m is not None and m.end() < len(entry):
        return m.end()
    for i, b in enumerate(entry):
        if b < 0x20:
            return i
    try:
        entry.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return max(len(entry) - 1, 0)


def _show(data: bytes, width: int = 48) -> str:
    shown = repr(bytes(data[:width]))[2:-1]
    return "'" + shown + ("…'" if len(data) > width else "'")
