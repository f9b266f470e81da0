"""The cost ledger: where a wire's tokens go, region by region, and what each
dictionary entry saves or costs against full JSON. No Textual in it.

One rule everywhere: a token counts for the region holding its first byte.
The wire is tokenized once, whole, so the rows (header, each metadata field,
the ``dict`` line, each entry's line, the ``body`` line, the body's ``@N``
references, the body's other bytes, and whatever was not parsed) add up to the
wire's token count exactly.

The difference to full JSON is split the same way over both texts. At each
use, an entry's region is its ``@N`` in the wire and its literal in full JSON
(the expanded document, byte for byte), each with the separator byte on either
side of it (one of ``, : [ ] { }``; a separator between two uses goes to the
first), since tokens such as ``","`` fuse a literal's quote with its
neighbours. An entry's difference is its dictionary line plus its use regions
in the wire, minus its use regions in full JSON; an "everything else" row
holds the rest, so the entries and that row add up to the whole difference."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .model import Loaded, display_value
from .token_spans import StartMarks, count_and_place, start_marks

#: The bytes that may sit next to a JSON value and are counted with a use.
SEPARATORS = frozenset(b",:[]{}")

RULE = "each token counts for the region holding its first byte"


@dataclass(frozen=True)
class LedgerRow:
    label: str
    kind: str  # header | field | dict | entry | marker | references | body | unparsed | rest
    start: int  # the wire span announced when the row is selected
    end: int
    size: int  # bytes of the region (all uses together for the references row)
    tokens: dict[str, int] = field(default_factory=dict)  # encoding -> tokens attributed
    index: int = -1  # the entry, for entry rows
    uses: int = 0
    use_tokens: dict[str, int] = field(default_factory=dict)  # its @N uses with their separators, in the wire
    inline_tokens: dict[str, int] = field(default_factory=dict)  # the same uses as literals, in full JSON

    def delta(self, name: str) -> int | None:
        """Entries: tokens the entry costs (positive) or saves (negative) against full JSON."""
        if self.kind == "entry" and name in self.inline_tokens:
            return self.tokens[name] + self.use_tokens[name] - self.inline_tokens[name]
        if self.kind == "rest":
            return self.tokens.get(name)
        return None


@dataclass(frozen=True)
class Ledger:
    source: Loaded
    rows: tuple[LedgerRow, ...]
    wire_total: dict[str, int]
    json_total: dict[str, int] = field(default_factory=dict)  # empty: no full JSON to compare with
    note: str = ""  # why the difference (or the ledger) is absent

    def region_rows(self) -> tuple[LedgerRow, ...]:
        return tuple(r for r in self.rows if r.kind != "rest")

    def difference(self, name: str) -> int | None:
        """The wire's tokens minus full JSON's."""
        if name not in self.json_total:
            return None
        return self.wire_total[name] - self.json_total[name]


@dataclass(frozen=True)
class LedgerProgress:
    fraction: float
    step: str


def _use_regions(loaded: Loaded) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Each reference's region in the wire and in the document (see the module docstring)."""
    wire = loaded.wire
    widths = [len(loaded.entry_token(i)) for i in range(len(loaded.entries))]
    lengths = [len(e) for e in loaded.entries]
    body_start = loaded.body_start or 0
    in_wire, in_doc = [], []
    taken = -1
    for ws, i, ds in zip(loaded.ref_wire, loaded.ref_index, loaded.ref_doc):
        we, de = ws + widths[i], ds + lengths[i]
        lead = 1 if ws - 1 >= body_start and ws - 1 >= taken and wire[ws - 1] in SEPARATORS else 0
        trail = 1 if we < len(wire) and wire[we] in SEPARATORS else 0
        in_wire.append((ws - lead, we + trail))
        in_doc.append((ds - lead, de + trail))
        taken = we + trail
    return in_wire, in_doc


def entry_queries(loaded: Loaded) -> tuple[array, array]:
    """The positions ``token_spans.count_and_place`` is asked about to find
    every entry's saving while the wire and full JSON are counted, as flat
    arrays of (start, end) pairs: in the wire, each entry's line (with its LF)
    then each use region; in full JSON, each use region (``_use_regions``, one
    pair per reference, without its lists of tuples: 260,000 references made
    60 MB of them)."""
    wire = loaded.wire
    widths = array("q", [len(loaded.entry_token(i)) for i in range(len(loaded.entries))])
    lengths = array("q", [len(e) for e in loaded.entries])
    body_start = loaded.body_start or 0
    # offsets fit in 32 bits (a wire is at most 16 MiB, docs/wire-format.md §9): half the memory of "q"
    in_wire = array("i")
    for span in loaded.entry_spans[:len(loaded.entries)]:
        in_wire.extend((span.start, span.end + 1))
    in_doc = array("i")
    taken = -1
    for ws, i, ds in zip(loaded.ref_wire, loaded.ref_index, loaded.ref_doc):
        we, de = ws + widths[i], ds + lengths[i]
        lead = 1 if ws - 1 >= body_start and ws - 1 >= taken and wire[ws - 1] in SEPARATORS else 0
        trail = 1 if we < len(wire) and wire[we] in SEPARATORS else 0
        in_wire.extend((ws - lead, we + trail))
        in_doc.extend((ds - lead, de + trail))
        taken = we + trail
    return in_wire, in_doc


def savings_from_places(loaded: Loaded, wire_placed: Sequence[int], doc_placed: Sequence[int]) -> list[int]:
    """Per entry, the tokens it saves against full JSON (``-entry_differences``),
    from ``count_and_place``'s answers to ``entry_queries``: how many tokens start
    before each position, so a region's tokens are the difference at its ends."""
    n = len(loaded.entries)
    lines = 2 * n
    out = [wire_placed[2 * i] - wire_placed[2 * i + 1] for i in range(n)]  # minus the line's tokens
    for k, i in enumerate(loaded.ref_index):
        s = lines + 2 * k
        out[i] += (doc_placed[2 * k + 1] - doc_placed[2 * k]) - (wire_placed[s + 1] - wire_placed[s])
    return out


def _use_counts(loaded: Loaded, run: StartMarks, regions: list[tuple[int, int]]) -> list[int]:
    """Per entry: the tokens starting in its use regions of one text."""
    per = [0] * len(loaded.entries)
    marks = run.marks
    for (s, e), i in zip(regions, loaded.ref_index):
        per[i] += marks.count(1, s, e)
    return per


def entry_differences(loaded: Loaded, wire_run: StartMarks, json_run: StartMarks,
                      uses: tuple[list[tuple[int, int]], list[tuple[int, int]]] | None = None) -> list[int]:
    """Per entry, in one encoding: its tokens against full JSON (its line plus its
    ``@N`` uses in the wire, minus the same uses inline in full JSON); negative
    when the entry saves. The one computation behind every per-entry figure
    (the ledger's Δ column, the Dictionary tab, the first screen)."""
    if uses is None:
        uses = _use_regions(loaded) if loaded.ref_wire else ([], [])
    wire_uses = _use_counts(loaded, wire_run, uses[0])
    inline = _use_counts(loaded, json_run, uses[1])
    return [wire_run.starting(span.start, span.end + 1) + wire_uses[i] - inline[i]
            for i, span in enumerate(loaded.entry_spans[:len(loaded.entries)])]


def entry_savings(loaded: Loaded, full_json: bytes, names: tuple[str, ...],
                  cancelled: Callable[[], bool] = lambda: False) -> dict[str, list[int]] | None:
    """Per encoding, the tokens each dictionary entry saves against full JSON
    (``-entry_differences``): with the ledger's "everything else" row they sum
    to full JSON's count minus the wire's, exactly. Each encoding's texts are
    tokenized a piece at a time (``token_spans.count_and_place``), so only a
    piece's tokens are held. None when cancelled or
    when the wire is not UTF-8 (its tokens cannot be placed on its bytes)."""
    if not loaded.entries or not is_utf8(loaded.wire):
        return None
    wire_queries, doc_queries = entry_queries(loaded)
    out: dict[str, list[int]] = {}
    for name in names:
        wire = count_and_place(loaded.wire, name, wire_queries, cancelled=cancelled)
        doc = count_and_place(full_json, name, doc_queries, cancelled=cancelled) if wire is not None else None
        if wire is None or doc is None:
            return None
        out[name] = savings_from_places(loaded, wire[1], doc[1])
    return out


def attribute(loaded: Loaded, wire_runs: dict[str, StartMarks], json_runs: dict[str, StartMarks]) -> Ledger:
    """The ledger from whole tokenizations of the wire and (when there is one) full JSON."""
    names = tuple(wire_runs)
    wire = loaded.wire

    def count(start: int, end: int) -> dict[str, int]:
        return {n: wire_runs[n].starting(start, end) for n in names}

    rows: list[LedgerRow] = []
    for region in loaded.regions():
        if region.kind == "body":
            continue
        label = {"header": "header", "marker": "body line"}.get(region.kind, region.label)
        if region.kind == "field":
            label = f"field {region.label}"
        rows.append(LedgerRow(label, region.kind, region.start, region.end, region.end - region.start,
                              count(region.start, region.end)))
    marker = next((i for i, r in enumerate(rows) if r.kind == "marker"), len(rows))
    entry_rows: list[LedgerRow] = []
    uses = _use_regions(loaded) if loaded.ref_wire else ([], [])
    use_tokens = {n: _use_counts(loaded, wire_runs[n], uses[0]) for n in names}
    inline = {n: _use_counts(loaded, run, uses[1]) for n, run in json_runs.items()}
    for i, span in enumerate(loaded.entry_spans):
        entry_rows.append(LedgerRow(
            f"entry @{i} {display_value(loaded.entries[i])}" if i < len(loaded.entries) else f"entry @{i}",
            "entry", span.start, span.end + 1, span.end + 1 - span.start, count(span.start, span.end + 1), i,
            loaded.reference_counts[i] if i < len(loaded.reference_counts) else 0,
            {n: use_tokens[n][i] for n in names} if i < len(loaded.entries) else {},
            {n: inline[n][i] for n in inline} if i < len(loaded.entries) else {}))
    rows[marker:marker] = entry_rows
    if loaded.body_start is not None:
        body_end = len(wire)
        ref_tokens = {n: 0 for n in names}
        widths = [len(loaded.entry_token(i)) for i in range(len(loaded.entries))]
        ref_bytes = sum(map(widths.__getitem__, loaded.ref_index))
        for n in names:
            count_in = wire_runs[n].marks.count
            ref_tokens[n] = sum(count_in(1, ws, ws + widths[i]) for ws, i in zip(loaded.ref_wire, loaded.ref_index))
        if loaded.ref_wire:
            first = loaded.ref_wire[0]
            rows.append(LedgerRow(f"body references ({len(loaded.ref_wire):,} @N)", "references", first,
                                  first + len(loaded.entry_token(loaded.ref_index[0])), ref_bytes, ref_tokens))
        body = count(loaded.body_start, body_end)
        rows.append(LedgerRow("body, other bytes" if loaded.ref_wire else "body", "body", loaded.body_start,
                              body_end, body_end - loaded.body_start - ref_bytes,
                              {n: body[n] - ref_tokens[n] for n in names}))
    totals = {n: len(wire_runs[n]) for n in names}
    counted = {n: sum(r.tokens[n] for r in rows) for n in names}
    if any(counted[n] != totals[n] for n in names):
        covered = sum(r.size for r in rows)
        rows.append(LedgerRow("not parsed (after where decoding stopped)", "unparsed", 0, len(wire),
                              len(wire) - covered, {n: totals[n] - counted[n] for n in names}))
    json_total: dict[str, int] = {}
    if json_runs:
        json_total = {n: len(run) for n, run in json_runs.items()}
        rest = {n: totals[n] - json_total[n] - sum(r.delta(n) or 0 for r in entry_rows) for n in json_runs}
        rows.append(LedgerRow("everything else (not an entry's line or uses)", "rest", 0, len(wire), 0, rest))
    return Ledger(loaded, tuple(rows), totals, json_total)


def is_utf8(data: bytes) -> bool:
    """Whether the wire is UTF-8 text: only then are its entries' lines and
    uses placed in it (a binary wire has no text to attribute)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def why_no_comparison(loaded: Loaded) -> str:
    if loaded.error is not None:
        return (f"no full JSON to compare with: the wire was rejected ({loaded.error.code}), and full JSON "
                "is encoded from the decoded projection")
    return "no full JSON to compare with: it is encoded from the decoded projection, and there is none"


def build(loaded: Loaded, full_json: bytes | None, names: tuple[str, ...],
          progress: Callable[[LedgerProgress], bool] = lambda p: False) -> Ledger | None:
    """Tokenize the wire and full JSON whole, for each encoding, then attribute.
    ``progress`` hears each step and returns True to stop (None is returned)."""
    if not is_utf8(loaded.wire):
        return Ledger(loaded, (), {}, {}, "the wire is not valid UTF-8: its tokens are those of the text with "
                      "U+FFFD for each invalid sequence, which cannot be attributed to the wire's bytes")
    texts = [("wire", loaded.wire)] + ([("full JSON", full_json)] if full_json is not None else [])
    total = sum(len(t) for _, t in texts) * len(names) or 1
    done = 0
    runs: dict[str, dict[str, StartMarks]] = {"wire": {}, "full JSON": {}}
    for name in names:
        for what, data in texts:
            step = f"tokenizing {what} ({name})"

            def tick(fraction: float, base: int = done, size: int = len(data), step: str = step) -> bool:
                return progress(LedgerProgress((base + fraction * size) / total, step))

            run = start_marks(data, name, tick)
            if run is None:
                return None
            runs[what][name] = run
            done += len(data)
    if progress(LedgerProgress(1.0, "attributing tokens to regions")):
        return None
    ledger = attribute(loaded, runs["wire"], runs["full JSON"])
    if full_json is None:
        ledger = Ledger(ledger.source, ledger.rows, ledger.wire_total, {}, why_no_comparison(loaded))
    return ledger
