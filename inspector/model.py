"""What the inspector has loaded: a plain object built from codec's own parse,
with no Textual in it, so every fact the screens show is testable without a UI.

A wire that fails to decode still yields a ``Loaded``: whatever the decoder read
before it stopped, and the diagnostic."""

from __future__ import annotations

import bisect
import hashlib
import re
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import codec
from codec import CompactError, CompactProjection, Field, JsonValues, Span, WireLayout, limits, split_strings
from codec.layout import json_values
from codec.visible import visible_bytes

FORM_TITLES = {
    "model-text": "v2 model-text",
    "text": "v1 text",
    "binary": "v1 binary (CBOR)",
    "json": "full JSON",
    "unknown": "not a wire",
}


@dataclass(frozen=True)
class Region:
    """A named byte range of the wire, for the byte view and for 'where am I'."""

    start: int
    end: int
    kind: str  # header | field | dict | entry | marker | body | reference | error
    label: str
    index: int = -1  # the entry's index, for entries and references


@dataclass(frozen=True)
class Encoded:
    """The decoded projection's other forms, encoded where the wire was decoded
    (``inspector.layout_child``), for the counting process: the bytes of those
    whose tokens are counted, the size of every one."""

    forms: dict[str, bytes]
    sizes: dict[str, int]


@dataclass
class Loaded:
    name: str  # what the user opened, for titles
    wire: bytes
    form: str
    projection: CompactProjection | None = None
    error: CompactError | None = None
    fields: tuple[Field, ...] = ()
    metadata: tuple[str, ...] | None = None
    entries: tuple[bytes, ...] = ()
    declared_entries: int | None = None  # the N of the `dict N` line, when it was read
    dict_span: Span | None = None  # the `dict N` line
    marker_span: Span | None = None  # the `body` line
    entry_spans: tuple[Span, ...] = ()
    reference_counts: tuple[int, ...] = ()
    # Parallel arrays, one item per reference in body order (codec's own, not
    # copied into lists: 260,000 references are 6 MB here instead of 28 MB).
    ref_wire: Sequence[int] = ()  # wire offset of each @N
    ref_index: Sequence[int] = ()
    ref_doc: Sequence[int] = ()  # where its expansion starts in the document
    body_start: int | None = None
    header: Span | None = None  # the header line (v2, v1 text) or magic (binary), as codec laid it out
    document: bytes | None = None  # the reconstructed selected bytes, when they could be built
    digest_ok: bool | None = None
    path: str | None = None  # the file on disk, for reload and watch
    pending: bool = False  # a preview: the envelope only, painted while the full decode runs
    produced_from: tuple[str, str] | None = None  # (profile, root) when made live from sources
    layout: WireLayout | None = field(default=None, repr=False, compare=False)  # codec's parse, for the tree
    # the other forms, when the layout process encoded them: handed to the counting process once (and let go)
    encoded: Encoded | None = field(default=None, repr=False, compare=False)
    # set once ``encoded`` is what it will be (the layout process sends the forms after the layout)
    encoded_ready: threading.Event | None = field(default=None, repr=False, compare=False)
    _regions: list[Region] | None = field(default=None, repr=False, compare=False)
    _marks: tuple[Sequence[int], Sequence[int]] | None = field(default=None, repr=False, compare=False)
    _uses: dict[int, list[int]] | None = field(default=None, repr=False, compare=False)
    _doc_marks: tuple[Sequence[int], Sequence[int]] | None = field(default=None, repr=False, compare=False)
    _region_starts: list[int] = field(default_factory=list, repr=False, compare=False)
    _entry_starts: array | None = field(default=None, repr=False, compare=False)
    _values: JsonValues | None = field(default=None, repr=False, compare=False)

    # --- derived views ---------------------------------------------------------------

    @property
    def title(self) -> str:
        return FORM_TITLES.get(self.form, self.form)

    @property
    def version(self) -> int:
        return codec.FORMAT_VERSIONS.get(self.form, 1)

    @property
    def body(self) -> bytes:
        """The compact body: after ``body\\n`` for text forms, the CBOR item for
        binary, the whole wire for full JSON."""
        return b"" if self.body_start is None else self.wire[self.body_start :]

    @property
    def ok(self) -> bool:
        return self.error is None

    def body_marks(self) -> tuple[Sequence[int], Sequence[int]]:
        """Where every reference stands in the compact body: (starts, ends), as
        arrays. Computed once (the loader calls it in its worker thread)."""
        if self._marks is not None:
            return self._marks
        if self.body_start is None or not self.ref_wire:
            return (), ()
        widths = [len(self.entry_token(i)) for i in range(len(self.entries))]
        base = self.body_start
        starts = array("q", [w - base for w in self.ref_wire])
        self._marks = starts, array("q", map(int.__add__, starts, map(widths.__getitem__, self.ref_index)))
        return self._marks

    def document_marks(self) -> tuple[Sequence[int], Sequence[int]]:
        """Where every substituted literal stands in the document: (starts, ends)."""
        if self._doc_marks is None:
            lengths = [len(e) for e in self.entries]
            ends = array("q", map(int.__add__, self.ref_doc, map(lengths.__getitem__, self.ref_index)))
            self._doc_marks = self.ref_doc, ends
        return self._doc_marks

    def prepare(self) -> Loaded:
        """Do the derived work a screen needs up front, in the caller's thread
        (the loader's worker), so the interface thread only draws."""
        self.regions()
        self.entry_starts()
        self.body_marks()
        self.document_marks()
        return self

    def entry_token(self, index: int) -> bytes:
        return b"@%d" % index

    def references_of(self, index: int) -> list[int]:
        """Positions (in body order) of every reference to entry ``index``;
        grouped once, since stepping through uses asks on every key."""
        if self._uses is None:
            self._uses = {}
            for k, i in enumerate(self.ref_index):
                self._uses.setdefault(i, []).append(k)
        return self._uses.get(index, [])

    def bytes_saved(self, index: int) -> int:
        """What entry ``index`` saves: each reference is shorter than its literal,
        minus the entry's own line in the dictionary."""
        literal = len(self.entries[index])
        token = len(self.entry_token(index))
        return self.reference_counts[index] * (literal - token) - (literal + 1)

    def body_to_doc(self, body_offset: int) -> int:
        """Map an offset in the compact body to the same place in the document."""
        if not self.ref_wire or self.body_start is None:
            return body_offset
        wire = self.body_start + body_offset
        k = bisect.bisect_right(self.ref_wire, wire) - 1
        if k < 0:
            return body_offset
        i = self.ref_index[k]
        token_end = self.ref_wire[k] + len(self.entry_token(i))
        if wire < token_end:
            return self.ref_doc[k]
        return self.ref_doc[k] + len(self.entries[i]) + (wire - token_end)

    def doc_to_body(self, doc_offset: int) -> int:
        """Map an offset in the document back to the compact body."""
        if not self.ref_doc or self.body_start is None:
            return doc_offset
        k = bisect.bisect_right(self.ref_doc, doc_offset) - 1
        if k < 0:
            return doc_offset
        i = self.ref_index[k]
        body_ref = self.ref_wire[k] - self.body_start
        end = self.ref_doc[k] + len(self.entries[i])
        if doc_offset < end:
            return body_ref
        return body_ref + len(self.entry_token(i)) + (doc_offset - end)

    def entry_at(self, offset: int) -> int | None:
        """The dictionary entry a wire byte belongs to: its line in the
        dictionary, or a reference to it in the body; None elsewhere."""
        region = self.region_at(offset)
        return region.index if region is not None and region.kind in ("entry", "reference") else None

    def span_at(self, offset: int) -> tuple[int, int, tuple[int, int] | None]:
        """The linked cursor's span for a wire byte: a whole ``@N`` when the byte
        is inside one, else the byte itself; with the document span it stands
        for when the byte is in a body that maps into the document."""
        start, end = offset, offset + 1
        doc = None
        region = self.region_at(offset)
        reference = region is not None and region.kind == "reference"
        if reference and region is not None:
            start, end = region.start, region.end
        if self.document is not None and self.body_start is not None and offset >= self.body_start \
                and self.form != "binary":
            d = self.body_to_doc(start - self.body_start)
            doc = (d, d + (len(self.entries[region.index]) if reference and region is not None else 1))
        return start, end, doc

    def doc_span_at(self, doc_offset: int) -> tuple[int, int, tuple[int, int] | None]:
        """The linked cursor's span for a document byte: the ``@N`` whose
        expansion holds it (with the whole literal), else the body byte it came from."""
        if self.body_start is None:
            return doc_offset, doc_offset + 1, (doc_offset, doc_offset + 1)
        wire = self.body_start + self.doc_to_body(doc_offset)
        start, end, doc = self.span_at(wire)
        if doc is None or not doc[0] <= doc_offset < doc[1]:
            doc = (doc_offset, doc_offset + 1)
        return start, end, doc

    def regions(self) -> list[Region]:
        """The wire's parts in order, for the byte view (built once)."""
        if self._regions is None:
            self._regions = self._build_regions()
            self._region_starts = [r.start for r in self._regions]
        return self._regions

    def _build_regions(self) -> list[Region]:
        out: list[Region] = []
        if self.form == "model-text":
            out.append(Region(0, min(22, len(self.wire)), "header", "header"))
        elif self.form == "text":
            out.append(Region(0, min(16, len(self.wire)), "header", "header"))
        elif self.form == "binary":
            out.append(Region(0, min(5, len(self.wire)), "header", "magic"))
        for f in self.fields:
            out.append(Region(f.line.start, f.line.end, "field", f.name))
        if self.dict_span is not None:
            out.append(Region(self.dict_span.start, self.dict_span.end, "dict", f"dict {self.declared_entries:,} line"))
        # entries are found by region_at from entry_spans: 40,000 Region objects cost a second
        if self.marker_span is not None:
            out.append(Region(self.marker_span.start, self.marker_span.end, "marker", "body line"))
        if self.body_start is not None:
            out.append(Region(self.body_start, len(self.wire), "body", "body"))
        return out

    def entry_starts(self) -> array:
        """Where each dictionary entry starts in the wire (built once)."""
        if self._entry_starts is None:
            self._entry_starts = array("q", [span.start for span in self.entry_spans])
        return self._entry_starts

    def region_at(self, offset: int) -> Region | None:
        """The innermost named part of the wire at ``offset``: a reference, an
        entry, a field, the header or the body."""
        if self.body_start is not None and offset >= self.body_start and self.ref_wire:
            k = bisect.bisect_right(self.ref_wire, offset) - 1
            if k >= 0:
                i = self.ref_index[k]
                if offset < self.ref_wire[k] + len(self.entry_token(i)):
                    return Region(self.ref_wire[k], self.ref_wire[k] + len(self.entry_token(i)), "reference",
                                  f"reference @{i} ({k + 1} of {len(self.ref_wire)})", i)
        if self.entry_spans:
            k = bisect.bisect_right(self.entry_starts(), offset) - 1
            span = self.entry_spans[k] if k >= 0 else None
            if span is not None and span.start <= offset < span.end + 1:  # the literal and its LF
                return Region(span.start, span.end + 1, "entry", f"entry {k} (@{k}) of {len(self.entry_spans):,}", k)
        regions = self.regions()
        i = bisect.bisect_right(self._region_starts, offset) - 1
        while i >= 0:
            if regions[i].start <= offset < regions[i].end:
                return regions[i]
            i -= 1
        return None

    def json_values(self) -> JsonValues | None:
        """The document's JSON values with their spans (codec's ``json_values``, the
        parse behind ``WireLayout.values``), built once on first use: a 16 MiB
        document takes most of a second, so a screen asks for it in a worker."""
        if self._values is None and self.document is not None:
            self._values = json_values(self.document)
        return self._values

    def content_hash(self) -> str:
        return hashlib.sha256(self.wire).hexdigest()


def display_value(raw: bytes) -> str:
    """A metadata value or literal as visible text (codec.visible's one rule)."""
    return visible_bytes(raw, newline="⏎")


# --- verification, as a checklist -----------------------------------------------------

#: The decode-and-verify steps of each form, in order (docs/wire-format.md §4, §5.2, §6, §7).
VERIFY_STEPS = {
    "model-text": ("envelope", "dictionary", "references", "digest", "normalised", "re-encoded"),
    "text": ("envelope", "references", "digest", "normalised", "re-encoded"),
    "binary": ("envelope", "CBOR body", "digest", "normalised", "re-encoded"),
    "json": ("JSON", "normalised"),
}


@dataclass(frozen=True)
class Step:
    name: str
    state: str  # "pass" | "fail" | "not reached"


def verify_steps(loaded: Loaded) -> tuple[Step, ...]:
    """Which steps of decode-and-verify the loaded wire passed, and where it
    stopped: every step before the failing one passed (the decoders run them in
    order), none after it ran."""
    names = VERIFY_STEPS.get(loaded.form)
    if names is None:  # not a wire at all
        return (Step("envelope", "fail"),)
    if loaded.error is None:
        return tuple(Step(n, "pass") for n in names)
    failed = names.index(_failing_step(loaded, names))
    return tuple(Step(n, "pass" if i < failed else "fail" if i == failed else "not reached")
                 for i, n in enumerate(names))


def _failing_step(loaded: Loaded, names: tuple[str, ...]) -> str:
    code = loaded.error.code if loaded.error else ""
    if loaded.form == "json":
        return "normalised" if code == "compact.noncanonical" else "JSON"
    by_code = {"compact.envelope": "envelope", "compact.metadata": "envelope", "compact.dictionary": "dictionary",
               "compact.reference": "references", "compact.digest": "digest", "compact.json": "normalised",
               "compact.noncanonical": "re-encoded"}
    step = by_code.get(code)
    if code == "compact.limit":  # the size limits are checked at the step that reads the part
        if loaded.body_start is None:
            step = "dictionary" if loaded.form == "model-text" and loaded.fields else "envelope"
        else:
            step = names[2] if loaded.document is None else "normalised"
    if loaded.form == "binary" and step in (None, "references", "dictionary"):
        step = "CBOR body" if loaded.body_start is not None else "envelope"
    return step if step in names else names[0]


# --- problems of a rejected wire ------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One line of the problems list: the diagnostic itself, or a hint naming a
    likely cause, each with the wire byte it is about (None: the whole wire)."""

    text: str
    offset: int | None
    kind: str  # "diagnostic" | "hint"
    fix: str = ""  # the mechanical repair that removes this cause (inspector/repair.py), if any


_FIELD_HEAD = re.compile(rb"(profile|root|source_revision|source_digest) ([0-9]{1,9}) ")


def problems(loaded: Loaded) -> list[Problem]:
    """The diagnostic, then every heuristic hint that applies. Empty for a valid wire."""
    e = loaded.error
    if e is None:
        return []
    where = "" if e.offset is None else f" at byte {e.offset:,}"
    out = [Problem(f"{e.code}{where}: {display_value(e.message.encode())}", e.offset, "diagnostic")]
    wire = loaded.wire
    if loaded.form == "unknown" and not wire.startswith(b"SEMAPRAX"):
        what = "the file is empty" if not wire else "it has no known header and is not JSON"
        out.append(Problem(f"not a wire: {what}", 0 if wire else None, "hint"))
        return out
    if wire.endswith(b"\n") and loaded.form in ("model-text", "text", "json"):
        out.append(Problem(f"the wire ends with an LF at byte {len(wire) - 1:,}: there is no LF after the body "
                           "(docs/wire-format.md §5); an editor or echo adds one; remove that byte",
                           len(wire) - 1, "hint", "trailing-lf"))
    crlf = wire.find(b"\r\n", 0, loaded.body_start if loaded.body_start is not None else 1 << 16)
    if crlf >= 0:
        out.append(Problem(f"CRLF line ending at byte {crlf:,}: the wire's lines end with LF alone "
                           "(docs/wire-format.md §3)", crlf, "hint", "crlf"))
    if loaded.form != "binary":  # a CBOR body is not text: its bytes need not be UTF-8
        try:
            wire.decode("utf-8")
        except UnicodeDecodeError as bad:
            out.append(Problem(f"invalid UTF-8 at byte {bad.start:,}", bad.start, "hint"))
    out.extend(_digest_hints(loaded))
    out.extend(_length_hints(loaded))
    out.extend(_truncation_hints(loaded))
    return out


@dataclass(frozen=True)
class FieldRow:
    """One metadata field as far as its framing could be read, for the envelope
    table of a rejected wire: what parsed stays visible."""

    name: str
    declared: int
    value: bytes
    offset: int  # of the value
    complete: bool  # the declared length ends at an LF
    lf_at: int | None  # for an incomplete one, where the next LF really is


def field_rows(loaded: Loaded) -> list[FieldRow]:
    """The metadata fields of the loaded wire: the decoder's own when it read
    all four, else a lenient re-reading of the framing up to the first field
    whose declared length does not end at an LF (that one included)."""
    if loaded.fields:
        return [FieldRow(f.name, len(f.raw), f.raw, f.value.start, True, None) for f in loaded.fields]
    wire, rows = loaded.wire, list[FieldRow]()
    if loaded.form not in ("model-text", "text") or loaded.header is None or not wire.startswith(b"SEMAPRAX"):
        return rows
    pos = loaded.header.end
    for _ in range(4):
        m = _FIELD_HEAD.match(wire, pos)
        if m is None:
            break
        name, declared, value = m.group(1).decode(), int(m.group(2)), m.end()
        end = value + declared
        if end < len(wire) and wire[end] == 0x0A:
            rows.append(FieldRow(name, declared, wire[value:end], value, True, None))
            pos = end + 1
            continue
        nl = wire.find(b"\n", value)
        rows.append(FieldRow(name, declared, wire[value:nl if nl >= 0 else len(wire)], value, False,
                             nl if nl >= 0 else None))
        break
    return rows


def _digest_hints(loaded: Loaded) -> list[Problem]:
    """A declared digest a few hex digits away from the body's own: the digest
    line was edited, not the body (a changed body changes about every digit)."""
    if loaded.error is None or loaded.error.code != "compact.digest" or loaded.document is None:
        return []
    declared = next((f for f in loaded.fields if f.name == "source_digest"), None)
    if declared is None:
        return []
    actual = codec.source_digest(loaded.document).encode()
    if len(actual) != len(declared.raw):
        return []
    differ = [k for k, (a, b) in enumerate(zip(actual, declared.raw)) if a != b]
    if not 0 < len(differ) <= 4:
        return []
    at = declared.value.start + differ[0]
    digits = "digit" if len(differ) == 1 else "digits"
    return [Problem(f"the declared source_digest differs from the body's digest in {len(differ)} hex {digits} "
                    f"(first at byte {at:,}): the digest itself was edited, the body is likely as produced "
                    f"(docs/wire-format.md §2); the body's digest is {actual.decode()}", at, "hint")]


def _length_hints(loaded: Loaded) -> list[Problem]:
    """A metadata length whose value does not end at an LF: say what the length
    claims and where the LF actually is."""
    bad = [r for r in field_rows(loaded) if not r.complete]
    if not bad:
        return []
    r = bad[0]
    if r.lf_at is None:
        return [Problem(f"the {r.name}'s length says {r.declared:,} but the wire ends after "
                        f"{len(r.value):,} bytes of value", r.offset, "hint")]
    return [Problem(f"the {r.name}'s length says {r.declared:,} but an LF follows at byte {r.lf_at:,} "
                    f"(a value of {len(r.value):,} bytes)", r.lf_at, "hint", "length")]


def _truncation_hints(loaded: Loaded) -> list[Problem]:
    """A body that ends inside a string or with brackets open looks truncated."""
    if loaded.body_start is None or loaded.form not in ("model-text", "text", "json"):
        return []
    body = loaded.body.rstrip(b"\n")
    if not body:
        return []
    parts = split_strings(body)
    last = parts[-2] if len(parts) >= 3 and parts[-1] == b"" else b""
    if last and (len(last) < 2 or not last.endswith(b'"') or last.endswith(b'\\"') and _odd_backslashes(last)):
        return [Problem("the body ends inside a string: the wire looks truncated", len(loaded.wire), "hint")]
    outside = b"".join(parts[0::2])
    depth = outside.count(b"{") + outside.count(b"[") - outside.count(b"}") - outside.count(b"]")
    if depth > 0:
        return [Problem(f"the body ends with {depth:,} bracket{'s' if depth > 1 else ''} open: the wire looks "
                        "truncated", len(loaded.wire), "hint")]
    return []


def _odd_backslashes(token: bytes) -> bool:
    run = len(token) - 1 - len(token[:-1].rstrip(b"\\"))
    return run % 2 == 1


def no_dictionary_reason(loaded: Loaded) -> str:
    """Why the loaded wire has no dictionary entries, true of its bytes."""
    if loaded.form != "model-text":
        return f"{loaded.title} has no dictionary"
    if loaded.entries:
        return ""
    if loaded.pending:
        return "the dictionary is being read"
    if loaded.declared_entries is None:
        return "decoding stopped before the dictionary line"
    if loaded.declared_entries:
        return f"the wire declares dict {loaded.declared_entries:,} but no entry could be read"
    if loaded.document is None:
        return "the wire declares dict 0"
    size = len(loaded.document)
    if size < limits.DICTIONARY_THRESHOLD:
        return (f"the wire declares dict 0: its document is {size:,} bytes, under the "
                f"{limits.DICTIONARY_THRESHOLD:,} bytes below which the encoder uses none (docs/wire-format.md §5.1)")
    return (f"the wire declares dict 0: no literal of {limits.MIN_ENTRY_BYTES} bytes or more occurs "
            f"{limits.MIN_ENTRY_OCCURRENCES} times or more in its {size:,}-byte document")


# --- loading --------------------------------------------------------------------------


def load_bytes(data: bytes, name: str, *, path: str | None = None, layout: WireLayout | None = None) -> Loaded:
    """Build the inspector's model of any wire, valid or not, from codec's
    structured parse (``codec.layout_wire``): what the decoder read, as far as
    it got, and its diagnostic. ``layout`` is that parse of ``data`` when it was
    made elsewhere (the loader has a child process make it for a large wire,
    ``inspector.layout_child``)."""
    data = bytes(data)
    if layout is None:
        layout = codec.layout_wire(data)
    if layout.form == "unknown":
        return Loaded(name, data, "unknown", error=layout.error, path=path, layout=layout)
    loaded = _from_layout(layout, Loaded(name, data, layout.form, path=path, layout=layout))
    loaded.error = layout.error
    loaded.projection = layout.projection
    loaded.document = layout.document
    loaded.digest_ok = layout.digest_verified
    if layout.form == "model-text":
        loaded.entries = layout.entries
        loaded.entry_spans = layout.entry_spans
        loaded.reference_counts = layout.reference_counts
        loaded.ref_wire = layout.ref_wire
        loaded.ref_index = layout.ref_index
        loaded.ref_doc = layout.ref_doc
    elif layout.form == "json":
        if layout.error is not None and not _looks_like_json(data):
            loaded.form = "unknown"  # no known header and not JSON: not a wire at all
            loaded.body_start = 0
            return loaded
        if loaded.document is None:
            loaded.document = data
    return loaded


def _from_layout(layout: WireLayout, loaded: Loaded) -> Loaded:
    """The envelope part of a layout: header, fields, metadata, the dictionary
    and body lines, where the body starts."""
    loaded.header = layout.header
    loaded.fields = layout.fields
    loaded.body_start = layout.body.start if layout.body is not None else None
    if layout.form == "model-text":
        loaded.metadata = layout.metadata
        loaded.dict_span = layout.dict_line
        loaded.marker_span = layout.body_marker
        loaded.declared_entries = layout.declared_entries
    elif loaded.fields:
        loaded.metadata = tuple(f.raw.decode("utf-8", "replace") for f in loaded.fields)
    return loaded


def _looks_like_json(data: bytes) -> bool:
    """Whether the bytes start as JSON could, so a rejection can be called
    'full JSON' rather than 'not a wire'."""
    head = data.lstrip(b" \t\r\n")[:1]
    return bool(head) and head in b'{["-0123456789tfn'


#: Wires at least this large are previewed (envelope first) while they are decoded.
PREVIEW_FROM = 1 << 20


def preview_bytes(data: bytes, name: str, *, path: str | None = None,
                  through: str = "dictionary") -> Loaded | None:
    """The envelope of a large wire, read by the decoder's first stages without
    verifying anything (``layout_wire(through="dictionary")``), so the first
    screen paints while the full decode runs: the metadata fields, the declared
    dictionary size and where the body starts. ``through="envelope"`` stops
    after the header and metadata (instant; reading 40,000 dictionary entries
    takes a few tenths of a second). None when even that does not read cleanly
    (the full decode then says why)."""
    layout = codec.layout_wire(data, through=through)
    if layout.error is not None or layout.form == "unknown":
        return None
    return _from_layout(layout, Loaded(name, data, layout.form, path=path, pending=True))


def read_wire(path: str) -> bytes:
    """A wire file's bytes, at most one past the wire limit (a larger one is
    rejected by the decoder's size check instead of filling memory)."""
    with open(path, "rb") as f:
        return f.read(limits.MAX_WIRE_BYTES + 1)


def load_path(path: str, *, profile: str | None = None, workspace: str | None = None) -> Loaded:
    """Open a file: a wire of any form, or (with ``profile``) a Python source
    file, package or manifest whose view is produced live."""
    if profile is not None:
        from servers.route import make_projection

        ws = workspace or "."
        root = path
        if workspace is None:
            p = Path(path)
            ws = str(p.parent) if p.parent != Path("") else "."
            root = p.name
        projection = make_projection(profile, root, ws)
        wire = codec.encode_model_text(projection)
        loaded = load_bytes(wire, f"{path} ({profile}, produced)")
        loaded.produced_from = (profile, path)
        loaded.path = path
        return loaded
    return load_bytes(read_wire(path), path, path=path)


def encodings_of(loaded: Loaded, forms: tuple[str, ...] | None = None) -> dict[str, bytes]:
    """Every wire form of the loaded projection (full JSON alone when it has no
    metadata); empty when nothing could be decoded. ``forms``: only those."""
    if loaded.projection is not None:
        out = {}
        for form, encode in codec.ENCODERS.items():
            if forms is not None and form not in forms:
                continue
            if form == loaded.form and loaded.ok:
                out[form] = loaded.wire  # verified, so canonical: the encoder would write these bytes
                continue
            try:
                out[form] = encode(loaded.projection)
            except CompactError:
                continue
        return out
    if loaded.form == "json" and loaded.ok:
        return {"json": loaded.wire}
    return {}


def canonical_comparison(loaded: Loaded) -> tuple[bytes, bytes, int] | None:
    """For a compact.noncanonical wire: (given bytes, canonical bytes, offset of
    the first difference), so a person sees what the producer should have
    written. The JSON is compared when the JSON spelling was wrong; the whole
    wire when the dictionary or references were."""
    error = loaded.error
    if error is None or error.code != "compact.noncanonical" or loaded.document is None:
        return None
    doc = loaded.document
    try:
        canonical_doc = codec.canonicalize(doc)
    except CompactError:
        return None
    if canonical_doc != doc:
        return doc, canonical_doc, codec.first_difference(doc, canonical_doc)
    canonical = canonical_wire(loaded)
    if canonical is None:
        return None
    return loaded.wire, canonical, codec.first_difference(loaded.wire, canonical)


def canonical_wire(loaded: Loaded) -> bytes | None:
    """The wire the encoder writes for what the loaded wire decodes to: its
    document in canonical JSON (docs/wire-format.md §1), under its own metadata,
    in its own form (the source_digest is the canonical bytes' digest). None
    when no document or metadata was read, or the document is not JSON. For a
    noncanonical wire this is what its producer should have written; repair and
    compare use it."""
    if loaded.document is None:
        return None
    try:
        doc = codec.canonicalize(loaded.document)
        if loaded.form == "json":
            return doc
        if loaded.metadata is None or loaded.form not in codec.ENCODERS:
            return None
        profile, root, revision, _ = loaded.metadata
        return codec.ENCODERS[loaded.form](CompactProjection(profile, root, revision, doc))
    except CompactError:
        return None


__all__ = [
    "Encoded",
    "FieldRow",
    "Loaded",
    "Problem",
    "Region",
    "Step",
    "canonical_comparison",
    "canonical_wire",
    "display_value",
    "encodings_of",
    "field_rows",
    "load_bytes",
    "load_path",
    "no_dictionary_reason",
    "preview_bytes",
    "problems",
    "read_wire",
    "verify_steps",
]
