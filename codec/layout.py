"""The structured parse of a wire of any form, for tools that show one.

``layout_wire`` runs the decoder's own stages (each decoder module's ``Reader``
and ``STAGES``), not a second parser, and describes what they read, up to the
stage and byte where decoding stopped: so what a tool shows is what a decoder
read. Every offset is a wire offset unless a field says it is a document offset.
"""

from __future__ import annotations

from array import array
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import accumulate, count, islice, repeat
from operator import add
from typing import Any

from . import binary_v1, limits, model_text, text_v1
from .binary_v1 import CborItems
from .errors import CompactError
from .projection import CompactProjection
from .scan import (
    Field,
    Span,
    is_reference,
    iter_v1_body,
    join_parts,
    quote_split,
    reference_index,
    skeleton_token_end,
    split_references,
    split_strings,
    v2_references,
    wire_bytes,
)
from .stages import Reader
from .wire import BINARY_FORM, JSON_FORM, MODEL_TEXT_FORM, TEXT_FORM, JsonReader, detect_form

#: The stages that run after the digest was verified, in any form.
_AFTER_DIGEST = ("normalize", "check_canonical")

#: What the header is called in each form, and its bytes.
HEADERS = {
    MODEL_TEXT_FORM: model_text.HEADER,
    TEXT_FORM: text_v1.HEADER,
    BINARY_FORM: binary_v1.MAGIC,
}


@dataclass(frozen=True)
class Reference:
    """One ``@N`` (v2) or ``~k`` (v1 text) in the body: the wire span of its
    token, the entry or table index it names, and the document span its
    expansion fills."""

    wire: Span
    index: int
    document: Span


@dataclass(frozen=True)
class JsonValues:
    """Every JSON value of a document in document order (a container before its
    members), as parallel arrays: start and end offsets in the document, its kind
    (one byte: ``o`` object, ``a`` array, ``s`` string, ``n`` number, ``t`` true,
    ``f`` false, ``z`` null; a key is a string) and the index of the container
    holding it (-1 at the top). ``end`` is -1 for a container left open where
    the document stopped making sense."""

    start: array[int]
    end: array[int]
    kind: bytes
    parent: array[int]

    def __len__(self) -> int:
        return len(self.start)


@dataclass(frozen=True)
class WireLayout:
    """Everything a wire says and where, as far as decoding got; the same kind of
    value for every form. Parts a form does not have are empty or None.

    - ``header``: the header line (v2, v1 text) or magic (binary); None for full JSON.
    - ``fields``: each metadata field's line, length and value spans.
    - ``dict_line``, ``entries``, ``entry_spans``: v2's dictionary; for v1 text,
      the back-reference table (each literal in order of first appearance, with
      the span of that first appearance).
    - ``body_marker``: the ``body`` line; ``body``: from the body's first byte to
      the end of the wire (the CBOR item for binary, the whole wire for JSON).
    - ``ref_wire``, ``ref_index``, ``ref_doc``: one item per reference in body
      order: the wire offset of its marker, its index, where its expansion starts
      in the document (``references`` gives them as values).
    - ``cbor``: binary's items, with wire offsets.
    - ``document``: the selected bytes, when they could be built.
    - ``stage`` and ``error``: the decoder stage that failed and its diagnostic;
      both None for a valid wire.
    - ``partial``: the layout was asked to stop early (``layout_wire(through=…)``)
      and stopped there without a failure: it says nothing of the later stages.
    """

    form: str
    wire_size: int
    header: Span | None
    fields: tuple[Field, ...]
    metadata: tuple[str, str, str, str] | None
    dict_line: Span | None
    entries: tuple[bytes, ...]
    entry_spans: tuple[Span, ...]
    body_marker: Span | None
    body: Span | None
    marker: bytes
    ref_wire: array[int]
    ref_index: array[int]
    ref_doc: array[int]
    reference_counts: tuple[int, ...]
    cbor: CborItems | None
    document: bytes | None
    stage: str | None
    error: CompactError | None
    partial: bool = False
    declared_entries: int | None = None  # v2: the N of the ``dict N`` line, once it was read

    @property
    def valid(self) -> bool:
        """Every stage ran and passed (a partial layout is not yet known valid)."""
        return self.error is None and not self.partial

    @property
    def stopped_at(self) -> int:
        """The byte where decoding stopped: the diagnostic's offset, the end of the
        wire for a valid one (or for a diagnostic with no place)."""
        if self.error is not None and self.error.offset is not None:
            return self.error.offset
        return self.wire_size

    @property
    def projection(self) -> CompactProjection | None:
        """The decoded projection of a valid wire with metadata (None for full
        JSON, which has none, and for a rejected wire)."""
        if not self.valid or self.metadata is None or self.document is None:
            return None
        profile, root, revision, digest = self.metadata
        return CompactProjection._checked(profile, root, revision, self.document, digest)

    @property
    def digest_verified(self) -> bool | None:
        """True when the digest step ran and passed, False when it failed, None
        when decoding stopped before it (or the form has no digest)."""
        if self.form not in HEADERS:
            return None
        if self.partial:
            return None
        if self.error is None or self.stage in _AFTER_DIGEST:
            return True
        return False if self.stage == "verify_digest" else None

    def reference_token(self, index: int) -> bytes:
        """How a reference to ``index`` is spelled in this form."""
        return self.marker + b"%d" % index

    @property
    def references(self) -> list[Reference]:
        """Each reference as a value (built on demand: a large wire has hundreds
        of thousands, which the parallel arrays hold compactly)."""
        out = []
        for at, i, doc in zip(self.ref_wire, self.ref_index, self.ref_doc):
            width = len(self.reference_token(i))
            out.append(Reference(Span(at, at + width), i, Span(doc, doc + len(self.entries[i]))))
        return out

    @cached_property
    def values(self) -> JsonValues | None:
        """The document's JSON values with their spans (document offsets; for full
        JSON these are wire offsets too). Built on first use."""
        return None if self.document is None else json_values(self.document)


def layout_wire(wire: bytes, *, through: str | None = None) -> WireLayout:
    """Run the decoder of ``wire``'s form (as ``decode_wire`` picks it), stage by
    stage, and describe what it read, failure included. Never raises for any
    bytes-like input.

    ``through`` names the last stage to run, for a tool that paints the envelope
    of a large wire before verifying it: ``"envelope"`` reads the header and the
    metadata (and v1 text's body line), ``"dictionary"`` also v2's dictionary and
    body line. A stage the form does not have runs its envelope only. Such a
    layout says nothing of the stages it skipped: ``valid`` is true of what ran.

    A ``bytearray`` or ``memoryview`` over 16 MiB is not copied: its layout is
    the size limit's diagnostic at the envelope, with its real size."""
    try:
        wire = wire_bytes(wire)
    except CompactError as exc:  # over the size limit, before any copy
        size = wire.nbytes if isinstance(wire, memoryview) else len(wire)
        try:
            form = detect_form(wire)
        except CompactError:
            form = "unknown"
        return replace(_layout(b"", form, None, "envelope", exc), wire_size=size)
    try:
        form = detect_form(wire)
    except CompactError as exc:
        return _layout(wire, "unknown", None, "envelope", exc)
    return _run(wire, form, through)


def layout_model_text(wire: bytes) -> WireLayout:
    """The layout of ``wire`` read as v2 model-text, whatever it starts with, as
    ``decode_model_text`` reads it (kept for callers of the first structured
    parse, which only read v2)."""
    return _run(wire_bytes(wire), MODEL_TEXT_FORM)


def _run(wire: bytes, form: str, through: str | None = None) -> WireLayout:
    reader = _READERS[form](wire)
    stages = reader.STAGES
    if through is not None:
        last = stages.index(through) if through in stages else 0
        stages = stages[: last + 1]
    if isinstance(reader, text_v1.Reader):
        reader.keep_parts = True
    failed = error = None
    for stage in stages:
        try:
            getattr(reader, stage)()
        except CompactError as exc:
            failed, error = stage, exc
            break
    layout = _layout(wire, form, reader, failed, error)
    if error is None and len(stages) < len(reader.STAGES):
        layout = replace(layout, partial=True)
    return layout


_READERS = {
    MODEL_TEXT_FORM: model_text.Reader,
    TEXT_FORM: text_v1.Reader,
    BINARY_FORM: binary_v1.Reader,
    JSON_FORM: JsonReader,
}


#: The earlier name of the layout of a v2 wire; every form now has the same kind.
ModelTextLayout = WireLayout


def _layout(
    wire: bytes, form: str, reader: Reader | None, stage: str | None, error: CompactError | None
) -> WireLayout:
    parts: dict[str, Any] = {  # WireLayout's fields by name
        "form": form,
        "wire_size": len(wire),
        "header": None,
        "fields": (),
        "metadata": None,
        "dict_line": None,
        "entries": (),
        "entry_spans": (),
        "body_marker": None,
        "body": None,
        "marker": b"",
        "ref_wire": array("q"),
        "ref_index": array("q"),
        "ref_doc": array("q"),
        "reference_counts": (),
        "cbor": None,
        "document": None,
        "stage": stage,
        "error": error,
    }
    if reader is None:
        return WireLayout(**parts)
    if form in HEADERS:
        parts["header"] = Span(0, min(len(HEADERS[form]), len(wire)))
        parts["fields"] = reader.fields
        parts["metadata"] = reader.metadata
    parts["document"] = reader.document
    if isinstance(reader, model_text.Reader):
        _model_text_parts(reader, parts)
    elif isinstance(reader, text_v1.Reader):
        _text_parts(reader, parts)
    elif isinstance(reader, binary_v1.Reader):
        _binary_parts(reader, parts)
    else:
        parts["body"] = Span(0, len(wire))
    return WireLayout(**parts)


def _model_text_parts(reader: model_text.Reader, parts: dict[str, Any]) -> None:
    entries = reader.entries
    parts.update(
        dict_line=reader.dict_line,
        declared_entries=reader.declared_entries,
        entries=tuple(entries),
        entry_spans=tuple(Span(a, a + len(e)) for a, e in zip(reader.entry_starts, entries)),
        body_marker=reader.body_marker,
        marker=b"@",
    )
    if reader.body_start is not None:
        parts["body"] = Span(reader.body_start, len(reader.wire))
    counts = [0] * len(entries)
    if reader.body is not None:
        _collect_v2_references(reader, parts["error"], parts["ref_wire"], parts["ref_index"], parts["ref_doc"], counts)
    parts["reference_counts"] = tuple(counts)


def _collect_v2_references(
    reader: model_text.Reader,
    error: CompactError | None,
    ref_wire: array[int],
    ref_index: array[int],
    ref_doc: array[int],
    counts: list[int],
) -> None:
    """Every reference's wire offset, entry index and document offset. When no
    string holds '@' (the decoder's own fast-path condition) every '@' run is a
    reference, and the positions come from cumulative part lengths in C; else
    the references are found one by one, stopping where the decoder stopped (a
    bad reference, or the append that crossed 16 MiB)."""
    n = len(reader.entries)
    assert reader.body is not None and reader.body_start is not None  # the caller checked: expand ran
    if reader.document is not None and not reader.at_in_strings:
        pieces = split_references(reader.body)
        ends = list(accumulate(map(len, pieces), initial=reader.body_start))
        index_of = {b"@%d" % i: i for i in range(n)}
        indices = list(map(index_of.__getitem__, pieces[1::2]))
        wires = ends[1::2][: len(indices)]
        growth = [len(reader.entries[i]) - len(t) for i, t in zip(indices, pieces[1::2])]
        docs = [w - reader.body_start + g for w, g in zip(wires, accumulate(growth, initial=0))]
        ref_wire.extend(wires)
        ref_index.extend(indices)
        ref_doc.extend(docs)
        for i, c in Counter(indices).items():
            counts[i] = c
        return
    body = reader.body
    stop = len(body)
    if reader.document is None and error is not None and error.offset is not None:
        stop = min(max(error.offset - reader.body_start, 0), stop)  # where expansion stopped
    doc = done = 0
    for at, token in v2_references(body, stop):
        try:
            i = reference_index(token, n, at, max_digits=limits.MAX_REFERENCE_DIGITS)
        except CompactError:
            return  # the decoder stopped here; nothing after it was read
        doc += at - done
        ref_wire.append(reader.body_start + at)
        ref_index.append(i)
        ref_doc.append(doc)
        counts[i] += 1
        doc += len(reader.entries[i])
        done = at + len(token)


def _text_parts(reader: text_v1.Reader, parts: dict[str, Any]) -> None:
    """v1 text: the table and every ``~k``, from the decoder's tokens before and
    after its expansion (``parts`` keeps each reference it could not expand, so
    the walk stops where the decoder stopped)."""
    parts["body_marker"] = reader.body_marker
    parts["marker"] = b"~"
    if reader.body_start is None:
        return
    parts["body"] = Span(reader.body_start, len(reader.wire))
    if reader.document is not None and not reader.walked and _text_parts_in_bulk(reader, parts):
        return
    _text_parts_by_walk(reader, parts)


def _text_parts_by_walk(reader: text_v1.Reader, parts: dict[str, Any]) -> None:
    """``_text_parts`` token by token: the only way for a body the bulk expansion
    did not accept (its parts stop where the decoder stopped)."""
    assert reader.body_start is not None  # the caller checked
    if reader.document is not None or reader.problem is not None:
        reader.walk()  # the bulk expansion kept no tokens; read them one by one
    first: dict[bytes, int] = {}  # each literal's first wire offset, in table order
    ref_wire, ref_index, ref_doc = parts["ref_wire"], parts["ref_index"], parts["ref_doc"]
    wire, doc = reader.body_start, 0
    # lazily split: a flood of '~' is not split past where the reading stopped
    for k, (token, piece) in enumerate(zip(iter_v1_body(reader.wire[reader.body_start :]), reader.parts)):
        if k % 2:
            if is_reference(token):
                if not piece.startswith(b'"'):  # not expanded: the decoder stopped here
                    break
                ref_wire.append(wire)
                ref_index.append(int(token[1:]))
                ref_doc.append(doc)
            elif token not in first:
                first[token] = wire
        wire += len(token)
        doc += len(piece)
    table = list(first)
    counts = [0] * len(table)
    for i in ref_index:
        counts[i] += 1
    parts["entries"] = tuple(table)
    parts["entry_spans"] = tuple(Span(first[t], first[t] + len(t)) for t in table)
    parts["reference_counts"] = tuple(counts)


#: Bytes of the outside parts that ``_text_parts_in_bulk`` splits at a time (a
#: body of tiny back-references is read in bounded memory).
_OUTSIDE_CHUNK = 1 << 18


def _text_parts_in_bulk(reader: text_v1.Reader, parts: dict[str, Any]) -> bool:
    """``_text_parts`` for a body the bulk expansion accepted (canonical, every
    reference in range and after its literal), without reading it token by token
    (issue 23: the walk and a Python step per token made the layout of a body of
    tiny back-references 5.6x its decode). The same values, by splits, maps and
    cumulative sums in C: the strings from ``quote_split`` (the table is their
    contents in order of first appearance), the references from the NUL-joined
    parts outside them, a chunk at a time; a reference's wire offset is its
    offset there plus what each string before it adds (its length and two
    quotes, less the NUL), its document offset that less what the references
    before it grew by. False, with nothing written, when the body does not split
    as the bulk expansion split it."""
    assert reader.body_start is not None
    base = reader.body_start
    quoted = quote_split(reader.wire[base:])
    if quoted is None:
        return False
    contents = quoted[1::2]
    first: dict[bytes, int] = {}  # each content -> its first string's number, in table order
    deque(map(first.setdefault, contents, count()), maxlen=0)
    table = list(first)
    #: what the strings before each point add to an offset in the outside parts
    added = array("q", accumulate(map(add, map(len, contents), repeat(1)), initial=0))
    #: where each part of ``quoted`` starts in the body, less the quotes before it
    part_at = array("q", accumulate(map(len, quoted), initial=0))
    outside = join_parts(quoted[0::2], b"\x00")
    del quoted, contents
    index_of: dict[bytes, int] = {}  # each reference spelling -> its table index
    growth_of: dict[bytes, int] = {}  # ... -> how much longer its expansion is
    uses: Counter[bytes] = Counter()
    ref_wire, ref_index, ref_doc = array("q"), array("q"), array("q")
    at = strings = grown = 0  # offset in ``outside``, strings and growth before the chunk
    for chunk in _outside_chunks(outside):
        pieces = split_references(chunk, b"~")
        refs = pieces[1::2]
        if refs:
            for r in dict.fromkeys(refs):
                if r not in index_of:
                    i = int(r[1:])
                    if not 0 <= i < len(table):
                        return False
                    index_of[r] = i
                    growth_of[r] = len(table[i]) + 2 - len(r)
            # each reference's wire offset: where it starts in ``outside``, plus what
            # the strings before it add (one step for a chunk with no string)
            if b"\x00" in chunk:
                starts = islice(accumulate(map(len, pieces), initial=at + base), 1, 2 * len(refs), 2)
                before = list(accumulate(map(bytes.count, pieces[0::2], repeat(b"\x00")), initial=strings))
                wires = list(map(add, starts, map(added.__getitem__, before[1:])))
                strings = before[-1]
            else:
                offsets = accumulate(map(len, pieces), initial=at + base + added[strings])
                wires = list(islice(offsets, 1, 2 * len(refs), 2))
            growth = list(accumulate(map(growth_of.__getitem__, refs), initial=grown - base))
            ref_wire.fromlist(wires)
            ref_index.extend(map(index_of.__getitem__, refs))
            ref_doc.fromlist(list(map(add, wires, growth)))
            uses.update(refs)
            grown = growth[-1] + base
        else:
            strings += chunk.count(b"\x00")
        at += len(chunk)
    counts = [0] * len(table)
    for r, n in uses.items():
        counts[index_of[r]] += n
    parts.update(ref_wire=ref_wire, ref_index=ref_index, ref_doc=ref_doc)
    parts["entries"] = tuple(map(b'"%s"'.__mod__, table))
    spans = []
    for c in table:
        j = first[c]  # the string's opening quote: its part's start, and 2j quotes before it
        start = base + part_at[2 * j + 1] + 2 * j
        spans.append(Span(start, start + len(c) + 2))
    parts["entry_spans"] = tuple(spans)
    parts["reference_counts"] = tuple(counts)
    return True


def _outside_chunks(outside: bytes) -> Iterator[bytes]:
    """``outside`` in pieces of about ``_OUTSIDE_CHUNK`` bytes, each cut just
    before a ``~`` (so no reference is cut)."""
    start = 0
    while start < len(outside):
        end = outside.find(b"~", start + _OUTSIDE_CHUNK)
        if end < 0:
            end = len(outside)
        yield outside[start:end]
        start = end


def _binary_parts(reader: binary_v1.Reader, parts: dict[str, Any]) -> None:
    """Binary: the CBOR items the profile walker reads, at wire offsets, read
    when first used (``LazyCborItems``); none when the walk did not run."""
    if reader.body_start is None:
        return
    base = reader.body_start
    parts["body"] = Span(base, len(reader.wire))
    parts["cbor"] = LazyCborItems(reader.wire[base:], base) if reader.walked else CborItems()


_ITEM_ARRAYS = frozenset(("start", "head_end", "end", "major", "parent"))


class LazyCborItems(CborItems):
    """The items the profile walker reads from ``body`` (``binary_v1.check_cbor``,
    up to where it stops), moved to wire offsets by ``base``, read when one of
    them is first used, as ``WireLayout.values`` is for the text forms.

    The layout runs the decoder's stages as they are, so a valid body is read
    by the decoder's fast paths (cbor2, or ``read_arrays``) and the layout costs
    what decoding does (issue 23: the walk, one Python step per item, made
    every binary layout slow, 2.7 s for a 2 MiB wire of small maps); a tool
    that shows the items pays for the walk when it asks for them. The walk
    decides nothing here: the reader's own stages gave the verdict, which the
    walker's is (tests/codec/test_binary_fast.py)."""

    def __init__(self, body: bytes, base: int) -> None:  # the arrays come later
        object.__setattr__(self, "_body", body)
        object.__setattr__(self, "_base", base)

    def __getattr__(self, name: str) -> Any:
        if name not in _ITEM_ARRAYS:
            raise AttributeError(name)
        self._read()
        return object.__getattribute__(self, name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CborItems):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in ("start", "head_end", "end", "major", "parent"))

    __hash__ = None  # type: ignore[assignment]  # as CborItems: arrays are not hashable

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the items themselves, read first (the inspector's layout
        child sends its layout to the interface process, which must not walk)."""
        return (CborItems, (self.start, self.head_end, self.end, self.major, self.parent))

    def _read(self) -> None:
        items = CborItems()
        try:
            binary_v1.check_cbor(self._body, items)
        except CompactError:
            pass  # the items up to where the walk stopped, as the decoder stopped there too
        base = self._base
        object.__setattr__(self, "start", array("q", [s + base for s in items.start]))
        object.__setattr__(self, "head_end", array("q", [s + base for s in items.head_end]))
        object.__setattr__(self, "end", array("q", [-1 if e < 0 else e + base for e in items.end]))
        object.__setattr__(self, "major", items.major)
        object.__setattr__(self, "parent", items.parent)
        object.__setattr__(self, "_body", b"")


# --- JSON value spans -----------------------------------------------------------------

_KIND = {ord("["): b"a", ord("{"): b"o", ord("-"): b"n", ord("t"): b"t", ord("f"): b"f", ord("n"): b"z"}


def json_values(document: bytes) -> JsonValues:
    """The spans of every value of ``document``, from the decoders' own string
    tokenization (``scan.split_strings``) and the bytes between the strings; the
    walk stops at the first byte that cannot start a token."""
    start, end, parent = array("q"), array("q"), array("q")
    kind = bytearray()
    open_: list[int] = []
    at = 0
    pieces = split_strings(document)
    for k, piece in enumerate(pieces):
        if k % 2:  # a string token: a key or a string value
            start.append(at)
            end.append(at + len(piece))
            kind += b"s"
            parent.append(open_[-1] if open_ else -1)
            at += len(piece)
            continue
        pos = 0
        while pos < len(piece):
            token_end = skeleton_token_end(piece, pos)
            if token_end is None:
                return JsonValues(start, end, bytes(kind), parent)
            first = piece[pos]
            if first in b"]}":
                if open_:
                    end[open_.pop()] = at + token_end
            elif first in b"[{" or first in b"-0123456789tfn":
                start.append(at + pos)
                end.append(-1 if first in b"[{" else at + token_end)
                kind += _KIND.get(first, b"n")
                parent.append(open_[-1] if open_ else -1)
                if first in b"[{":
                    open_.append(len(start) - 1)
            pos = token_end
        at += len(piece)
    return JsonValues(start, end, bytes(kind), parent)


__all__ = ["JsonValues", "ModelTextLayout", "Reference", "WireLayout", "json_values", "layout_model_text", "layout_wire"]
