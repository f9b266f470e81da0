"""Version 2, model-text: dictionary selection, encode, decode, verify
(docs/wire-format.md §5).

The decoder is a sequence of stages (``STAGES``) over one ``Reader``;
``codec.layout_wire`` runs the same stages and keeps whatever they found before a
failure, so a tool shows exactly what the decoder read, up to where it stopped.
"""

from __future__ import annotations

from collections import Counter
from itertools import accumulate, compress, repeat
from operator import ge

from . import errors as E
from . import limits, stages
from .errors import CompactError, excerpt, over_limit
from .projection import CompactProjection, metadata_bytes, normalize
from .scan import (
    V2_MARKER,
    Span,
    check_encoded_size,
    digit_run,
    expect,
    find_references,
    first_bad_reference,
    frame_fields,
    is_reference,
    is_string_literal,
    join_parts,
    quote_split,
    read_decimal,
    reference_index,
    split_body,
    split_references,
    split_strings,
    string_lines,
    string_token_end,
    trace_document_offset,
    v2_references,
    wire_bytes,
)

HEADER = b"SEMAPRAX-MODEL-TEXT 2\n"
FORMAT_VERSION = 2


# --- encoding ---------------------------------------------------------------------


def select_entries(content_counts: Counter[bytes], size: int) -> list[bytes]:
    """The fixed heuristic of docs/wire-format.md §5.1, from the occurrence count of each
    string's content (its spelling between the quotes): below the threshold
    nothing; else every literal of 16 bytes or more, quotes included, that occurs
    twice or more, sorted bytewise as whole literals."""
    if size < limits.DICTIONARY_THRESHOLD:
        return []
    shortest = limits.MIN_ENTRY_BYTES - 2
    twice = limits.MIN_ENTRY_OCCURRENCES
    chosen = [c for c, n in content_counts.items() if n >= twice and len(c) >= shortest]
    return sorted([b'"%s"' % c for c in chosen])


def encode_model_text(p: CompactProjection) -> bytes:
    """The complete v2 wire of ``p``; refuses (compact.limit) to write a wire that
    no decoder would accept."""
    fields = frame_fields(metadata_bytes(p))
    selected = body = p.selected
    entries: list[bytes] = []
    if len(selected) >= limits.DICTIONARY_THRESHOLD:
        quoted = quote_split(selected)
        if quoted is not None:  # parts are [outside, content, outside, ...]
            contents = quoted[1::2]
            entries = select_entries(Counter(contents), len(selected))
            _check_entry_limits(entries)
            if entries:
                # NUL never stands raw in canonical JSON: mark each entry's content,
                # join with the quotes, then turn each marked pair of quotes into @N.
                marks = [b"\x00%d\x00" % i for i in range(len(entries))]
                marked = dict(zip([e[1:-1] for e in entries], marks))
                quoted[1::2] = map(marked.get, contents, contents)
                body = b'"'.join(quoted).replace(b'"\x00', b"@").replace(b'\x00"', b"")
        else:  # parts are [outside, string token, outside, ...]
            tokens = split_strings(selected)
            literals = tokens[1::2]
            counts = Counter(literals)
            entries = select_entries(Counter({t[1:-1]: n for t, n in counts.items()}), len(selected))
            _check_entry_limits(entries)
            if entries:
                refs = dict(zip(entries, [b"@%d" % i for i in range(len(entries))]))
                tokens[1::2] = map(refs.get, literals, literals)
                body = b"".join(tokens)
    dictionary = b"".join([b"dict %d\n" % len(entries), *[e + b"\n" for e in entries], b"body\n"])
    return check_encoded_size(b"".join([HEADER, fields, dictionary, body]), "model-text")


def _check_entry_limits(entries: list[bytes]) -> None:
    if len(entries) > limits.MAX_DICTIONARY_ENTRIES:
        raise over_limit(f"document needs {len(entries):,} dictionary entries", limits.MAX_DICTIONARY_ENTRIES)
    longest = max(map(len, entries), default=0)
    if longest > limits.MAX_ENTRY_BYTES:
        raise over_limit(f"a repeated literal is {longest:,} bytes, too long for a dictionary entry",
                         limits.MAX_ENTRY_BYTES)


# --- decoding ---------------------------------------------------------------------


class Reader(stages.Reader):
    """The decoding stages of docs/wire-format.md §5.2, in their order."""

    STAGES = ("envelope", "dictionary", "expand", "verify_digest", "normalize", "check_canonical")

    def __init__(self, wire: bytes) -> None:
        super().__init__(wire)
        self.dict_line: Span | None = None
        self.declared_entries: int | None = None
        self.entries: list[bytes] = []
        self.entry_starts: list[int] = []
        self.table: dict[bytes, bytes] = {}
        self.body_marker: Span | None = None
        self.body: bytes | None = None
        self._tokens: list[bytes] | None = None
        #: Each string's content that is long enough to be an entry, counted.
        self.string_counts: Counter[bytes] = Counter()
        self.ref_counts: Counter[bytes] = Counter()
        #: Some string token holds '@' (then not every '@' run is a reference).
        self.at_in_strings = False

    # step 1
    def envelope(self) -> None:
        self.read_header_and_fields(HEADER, "model-text")

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
        bulk = string_lines(wire, at, n) if n else []
        if bulk is not None and all(len(e) <= limits.MAX_ENTRY_BYTES for e in bulk):
            self.entries = bulk
            self.entry_starts = list(accumulate([len(e) + 1 for e in bulk], initial=at))
            at = self.entry_starts.pop()
        else:
            at = self._read_entries_one_by_one(at, n)
        if wire.startswith(b'"', at):
            raise CompactError(E.DICTIONARY, f"more dictionary entries than the {n} declared", at)
        self.body_start = expect(wire, at, b"body\n", "the body line")
        self.body_marker = Span(at, self.body_start)

    def _read_entries_one_by_one(self, at: int, n: int) -> int:
        """The exact reading of docs/wire-format.md §5.2 step 2, entry by entry, so a failure names
        the entry and its byte. Reached only when the bulk read found a fault."""
        wire = self.wire
        entries, starts = self.entries, self.entry_starts
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
                    f"dictionary entry {i} is not exactly one JSON string literal: {excerpt(entry, 0, 48)}",
                    at + _literal_fault(entry),
                )
            entries.append(entry)
            starts.append(at)
            at = nl + 1
        return at

    # step 3
    def expand(self) -> None:
        body = self.body = self.wire[self.body_start :]
        table = self.table = {b"@%d" % i: e for i, e in enumerate(self.entries)}
        if body.count(b"@") > len(body) >> 3:
            # Dense '@' (a flood of references, good or bad): look for the failure
            # streaming, before anything below counts or splits them all.
            self._check_references(body)
        quoted = quote_split(body)
        if quoted is not None:
            # Contents of strings, and what lies outside them (refs included).
            contents = quoted[1::2]
            # Only a literal long enough to be an entry is counted (check_canonical
            # asks nothing of the others, and rejects a shorter entry first): a
            # million distinct short keys are no hash table to build. In C.
            shortest = limits.MIN_ENTRY_BYTES - 2  # quotes excluded
            self.string_counts = Counter(compress(contents, map(ge, map(len, contents), repeat(shortest))))
            self.at_in_strings = any(map(bytes.__contains__, contents, repeat(b"@")))
            del contents
            # NUL (never valid outside a string) keeps the parts apart, so an '@'
            # before a string and digits after it do not join into a reference.
            outside = join_parts(quoted[0::2], b"\x00")
            self.ref_counts = Counter(find_references(outside)) if b"@" in outside else Counter()
            self._skeleton = outside  # '@N' and NUL hold no bracket and break digit runs
        else:
            tokens = self.tokens
            counts = Counter(tokens[1::2])
            self.string_counts = Counter({t[1:-1]: n for t, n in counts.items() if not is_reference(t)})
            # Whole tokens, not contents: an unterminated string at the end of the
            # body has no closing quote, and t[1:-1] would drop its last byte.
            self.at_in_strings = any(b"@" in t for t in counts if not is_reference(t))
            self.ref_counts = Counter({t: n for t, n in counts.items() if is_reference(t)})
            self._skeleton = join_parts(tokens[0::2])
        references = self.ref_counts
        growth = sum(n * (len(table.get(r, r)) - len(r)) for r, n in references.items())
        if not all(map(table.__contains__, references)) or len(body) + growth > limits.MAX_SELECTED_BYTES:
            self._check_references(body)
            raise AssertionError("expansion failed without a reason")  # pragma: no cover
        if not references:
            self.document = body
        elif self.at_in_strings and quoted is not None and b"\x00" not in body:
            # Expand outside the strings only: the NUL-joined outside parts hold
            # every reference, entries hold no NUL, so splitting at NUL again gives
            # the outside parts back, expanded, to put between the strings.
            pieces = split_references(outside)
            pieces[1::2] = map(table.__getitem__, pieces[1::2])
            quoted[0::2] = join_parts(pieces).split(b"\x00")
            self.document = join_parts(quoted, b'"')
        elif self.at_in_strings:
            parts = self.tokens.copy()
            parts[1::2] = map(table.get, parts[1::2], parts[1::2])
            self.document = join_parts(parts)
        else:  # every '@' is a reference: expand fewer, larger pieces
            parts = split_references(body)
            parts[1::2] = map(table.__getitem__, parts[1::2])
            self.document = join_parts(parts)

    @property
    def tokens(self) -> list[bytes]:
        """The body split into raw bytes, string tokens and references; built on
        first use, since the common path never needs it."""
        if self._tokens is None:
            assert self.body is not None  # the expand stage set it
            self._tokens = split_body(self.body, b"@")
        return self._tokens

    def _check_references(self, body: bytes) -> None:
        """Step 3's two failures, found streaming and before anything is counted
        or split: the first reference that is no canonical index below N, and the
        first append that takes the document past 16 MiB, whichever comes first
        in the body. A flood of bad references stops at its first; a reference
        bomb at the append that crosses the limit."""
        n = len(self.entries)
        bad = first_bad_reference(body, n)
        stop = len(body) if bad is None else bad
        growth = max(map(len, self.entries), default=2) - 2  # the most one reference can add
        if stop + body.count(b"@", 0, stop) * max(growth, 0) > limits.MAX_SELECTED_BYTES:
            self._check_size(body, stop)
        if bad is not None:
            assert self.body_start is not None  # the envelope stage ran
            token = V2_MARKER + digit_run(body, bad + 1)
            reference_index(token, n, self.body_start + bad, max_digits=limits.MAX_REFERENCE_DIGITS)
            raise AssertionError("a bad reference passed the index check")  # pragma: no cover

    def _check_size(self, body: bytes, stop: int) -> None:
        """compact.limit at the first token of ``body[:stop]`` whose append takes
        the reconstructed document past 16 MiB, if one does."""
        size = 0
        done = 0  # body bytes accounted for
        end = stop
        for at, token in v2_references(body, stop):
            if size + (at - done) > limits.MAX_SELECTED_BYTES:
                end = at
                break
            size += at - done
            piece = len(self.table[token])
            if size + piece > limits.MAX_SELECTED_BYTES:
                self._over_limit(at)
            size += piece
            done = at + len(token)
        if size + (end - done) <= limits.MAX_SELECTED_BYTES:
            return
        # The crossing is among the raw bytes and strings of ``body[done:end]``
        # (no reference there): the token that crosses is where it is reported.
        for token in split_body(body[done:end], b"@"):
            if size + len(token) > limits.MAX_SELECTED_BYTES:
                self._over_limit(done)
            size += len(token)
            done += len(token)

    def _over_limit(self, at: int) -> None:
        assert self.body_start is not None  # the envelope stage ran
        raise CompactError(
            E.LIMIT,
            f"reconstructed document would exceed {limits.MAX_SELECTED_BYTES:,} bytes",
            self.body_start + at,
        )

    # step 4 is stages.Reader.verify_digest

    # step 5
    def normalize(self) -> None:
        assert self.document is not None  # the expand stage built it
        normalize(self.document, skeleton=self._skeleton, locate=self.wire_offset)

    # step 6
    def check_canonical(self) -> None:
        """Verify, on the tokens already in hand, every fact a full re-encode would
        check: entries sorted and unique, each selected by the heuristic and used
        at least twice, no qualifying literal left inline."""
        entries = self.entries
        assert self.document is not None and self.dict_line is not None  # the earlier stages passed
        if entries and len(self.document) < limits.DICTIONARY_THRESHOLD:
            raise CompactError(
                E.NONCANONICAL,
                f"unnecessary dictionary: the document is {len(self.document):,} bytes, under "
                f"{limits.DICTIONARY_THRESHOLD:,}, so its dictionary must be empty",
                self.dict_line.start,
            )
        for i in range(1, len(entries)):
            if entries[i] <= entries[i - 1]:
                what = "duplicate dictionary entry" if entries[i] == entries[i - 1] else "dictionary out of bytewise order"
                raise CompactError(E.NONCANONICAL, f"{what}: entry {i} {excerpt(entries[i], 0, 48)}", self.entry_starts[i])
        for i, entry in enumerate(entries):
            at = self.entry_starts[i]
            if len(entry) < limits.MIN_ENTRY_BYTES:
                raise CompactError(
                    E.NONCANONICAL,
                    f"unnecessary entry {i}: {len(entry)} bytes is under the {limits.MIN_ENTRY_BYTES}-byte minimum",
                    at,
                )
            uses = self.ref_counts.get(b"@%d" % i, 0)
            if uses < limits.MIN_ENTRY_OCCURRENCES:
                raise CompactError(
                    E.NONCANONICAL,
                    f"unnecessary entry {i}: referenced {uses} time(s); an entry must occur at least twice",
                    at,
                )
        if len(self.document) < limits.DICTIONARY_THRESHOLD:
            return
        shortest = limits.MIN_ENTRY_BYTES - 2  # quotes excluded
        counts = self.string_counts  # filtered in C: a document may hold a million distinct strings
        often = compress(counts.keys(), map(ge, counts.values(), repeat(limits.MIN_ENTRY_OCCURRENCES)))
        repeated = [c for c in often if len(c) >= shortest]
        known = {e[1:-1] for e in entries}
        if repeated or not known.isdisjoint(self.string_counts):
            self._fail_inline(set(entries), {b'"' + c + b'"' for c in repeated})

    def _fail_inline(self, known: set[bytes], repeated: set[bytes]) -> None:
        at = self.body_start
        assert at is not None  # the envelope stage ran
        index = {e: i for i, e in enumerate(self.entries)}
        for k, token in enumerate(self.tokens):
            if k % 2:
                if token in known:
                    raise CompactError(
                        E.NONCANONICAL,
                        f"missing reference: literal {excerpt(token, 0, 48)} is dictionary entry {index[token]} "
                        f"and must be written @{index[token]}",
                        at,
                    )
                if token in repeated:
                    raise CompactError(
                        E.NONCANONICAL,
                        f"missing dictionary entry: literal {excerpt(token, 0, 48)} occurs more than once, "
                        f"is {len(token)} bytes, and so must be in the dictionary",
                        at,
                    )
            at += len(token)
        raise AssertionError("inline check failed without a reason")  # pragma: no cover

    # mapping offsets back to the wire

    def wire_offset(self, doc_offset: int) -> int:
        """Where byte ``doc_offset`` of the reconstructed document came from: the
        body byte, or the dictionary entry byte that a reference expanded to."""
        assert self.body_start is not None  # the envelope stage ran
        if not self.ref_counts and self.document is self.body:  # no reference: the document is the body
            return self.body_start + doc_offset
        wire, delta, reference = trace_document_offset(
            self.tokens, self.table.__getitem__, self.body_start, doc_offset
        )
        if reference is None:
            return wire
        return self.entry_starts[int(reference[1:])] + delta

#: The decoder's stages in order; ``codec.layout_wire`` runs the same ones.
STAGES = Reader.STAGES


def decode_model_text(wire: bytes) -> CompactProjection:
    """Decode and fully check a v2 wire; any failure is a CompactError."""
    return stages.run(Reader(wire_bytes(wire))).projection()


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


# --- message helpers ----------------------------------------------------------------


def _literal_fault(entry: bytes) -> int:
    """Offset inside ``entry`` of the first byte that keeps it from being a string
    literal, for pointing at it."""
    if not entry.startswith(b'"'):
        return 0
    end = string_token_end(entry)
    if end is not None and end < len(entry):
        return end
    for i, b in enumerate(entry):
        if b < 0x20:
            return i
    try:
        entry.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return max(len(entry) - 1, 0)
