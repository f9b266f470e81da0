"""Version 1 text: the same framed envelope as v2, and a body whose repeated
string literals become ``~k`` back-references into a table built while reading
(docs/wire-format.md §6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import accumulate, chain, repeat

from . import errors as E
from . import limits, stages
from .errors import CompactError
from .projection import CompactProjection, metadata_bytes, normalize
from .scan import (
    Span,
    check_encoded_size,
    expect,
    frame_fields,
    iter_v1_body,
    join_parts,
    quote_split,
    reference_index,
    split_body,
    split_references,
    split_strings,
    trace_document_offset,
    wire_bytes,
)

HEADER = b"SEMAPRAX-TEXT 1\n"
FORMAT_VERSION = 1


def encode_text(p: CompactProjection) -> bytes:
    """The complete v1 text wire of ``p``."""
    fields = frame_fields(metadata_bytes(p))
    return check_encoded_size(b"".join([HEADER, fields, b"body\n", text_body(p.selected)]), "v1 text")


def text_body(document: bytes) -> bytes:
    """The v1 text body of a canonical document (docs/wire-format.md §6): every
    string spelling enters the table the first time it is seen, and a later one
    at table index k is written ``~k`` when that is shorter.

    Done in bulk rather than token by token: the table is the contents in order of
    first appearance (``dict.fromkeys``); each string becomes its token (quoted,
    or ``~k``) through two dictionary lookups in C, and one join writes the body."""
    quoted = quote_split(document)
    if quoted is None or b"\x00" in document:  # not a canonical document: token by token
        return _text_body_slowly(document)
    contents = quoted[1::2]
    if len(contents) <= _FEW_STRINGS:
        return _text_body_of_few(quoted)
    order = dict.fromkeys(contents)
    if len(order) == len(contents):
        return document  # no spelling repeats: nothing to refer back to
    # ``inline`` maps each content to its quoted string; ``later`` to what a later
    # occurrence is written as: ``~k``, or the quoted string when ``~k`` would not
    # be shorter (only a content of at most 6 bytes can be such).
    table = list(order)
    inline = dict(zip(table, map(b'"%s"'.__mod__, table)))
    later = dict(zip(table, _references(len(table))))
    for k in [k for k, n in enumerate(map(len, table)) if n < _LONGEST_INDEX_DIGITS]:
        if len(later[table[k]]) >= len(table[k]) + 2:
            later[table[k]] = inline[table[k]]
    # The first occurrence pops its quoted string from ``inline``; a later one finds
    # it gone and takes what ``later`` holds. One pass in C.
    quoted[1::2] = map(inline.pop, contents, map(later.__getitem__, contents))
    return join_parts(quoted)


#: Digits of the largest table index a 16 MiB body can have (a literal is at least
#: two bytes): only a content shorter than this can be no longer than its ``~k``.
_LONGEST_INDEX_DIGITS = len(str(limits.MAX_SELECTED_BYTES // 2))

#: ``~0``, ``~1``, ... as far as encoders have needed them, up to 65,536 of them.
#: Never changed once published: a longer list replaces it, so encoders on several
#: threads each read a consistent one.
_REFERENCES: list[bytes] = []


def _references(n: int) -> list[bytes] | Iterator[bytes]:
    """The spellings ``~0`` to ``~{n-1}`` (kept between calls up to 65,536)."""
    global _REFERENCES
    known = _REFERENCES
    if len(known) < min(n, 1 << 16):
        known = known + list(map(b"~%d".__mod__, range(len(known), min(n, 1 << 16))))
        _REFERENCES = known
    if n <= len(known):
        return known[:n]
    return chain(known, map(b"~%d".__mod__, range(len(known), n)))


#: Up to this many strings, ``text_body`` writes the body in one loop and one join:
#: for a few long strings, the bulk path's quoted copy of each one costs more than
#: the loop.
_FEW_STRINGS = 1024


def _text_body_of_few(quoted: list[bytes]) -> bytes:
    """``text_body`` from ``quote_split``'s parts, string by string."""
    table: dict[bytes, int] = {}
    out = [quoted[0]]
    for i in range(1, len(quoted), 2):
        content = quoted[i]
        k = table.get(content)
        if k is None:
            table[content] = len(table)
        elif len(b"~%d" % k) < len(content) + 2:
            out += (b"~%d" % k, quoted[i + 1])
            continue
        out += (b'"', content, b'"', quoted[i + 1])
    return b"".join(out)


def _text_body_slowly(document: bytes) -> bytes:
    parts = split_strings(document)
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
    return b"".join(parts)


class Reader(stages.Reader):
    """The decoding stages of docs/wire-format.md §6, in their order; each leaves
    what it found on the reader, so a failure still leaves a partial parse."""

    STAGES = ("envelope", "expand", "verify_digest", "normalize", "check_canonical")

    def __init__(self, wire: bytes) -> None:
        super().__init__(wire)
        self.body_marker: Span | None = None
        self._tokens: list[bytes] | None = None  # the body as split, references unexpanded
        self._walked = False
        #: Whether ``walk`` keeps its pieces after the document is built (the
        #: structured parse reads them; a decoder frees them before parsing).
        self.keep_parts = False
        self.parts: list[bytes] = []  # the body's parts with each reference expanded, as far as read
        self.table: list[bytes] = []
        self.problem: CompactError | None = None  # a canonical-form fault, raised last
        self._skeleton: bytes | None = None

    def envelope(self) -> None:
        self.read_header_and_fields(HEADER, "v1 text")
        at = self.fields[-1].line.end
        self.body_start = expect(self.wire, at, b"body\n", "the body line")
        self.body_marker = Span(at, self.body_start)

    def expand(self) -> None:
        bulk = _expand_in_bulk(self.wire[self.body_start :])
        if bulk is not None:
            self.document, self._skeleton = bulk
        else:
            self.walk()

    def walk(self) -> None:
        """The reading of §6 token by token: the table rebuilt while reading, each
        ``~k`` replaced, the first reference fault raised where it stands. What
        the bulk expansion skips for a canonical body; the structured parse and
        the mapping of a document offset back to the wire use it."""
        if self._walked:
            return
        self._walked = True
        assert self.body_start is not None  # the envelope stage ran
        body = self.wire[self.body_start :]
        # Dense '~' (a flood of back-references): read lazily, so the first bad one
        # stops the reading before the rest of the body is split.
        dense = body.count(b"~") > len(body) >> 3
        tokens = iter_v1_body(body) if dense else split_body(body, b"~")
        self._tokens = tokens if isinstance(tokens, list) else None  # None when dense
        _, self.table, self.problem = _expand(tokens, self.body_start, self.parts)
        self.document = join_parts(self.parts)
        self._skeleton = join_parts(self.parts[0::2])
        if not self.keep_parts:  # millions of pieces for a body of tiny back-references: free them
            self.parts = []
            self._tokens = None

    @property
    def walked(self) -> bool:
        """Whether ``walk`` ran (the body was read token by token)."""
        return self._walked

    @property
    def tokens(self) -> list[bytes]:
        """The body as split, references unexpanded (split again on first use
        after a lazy reading; only a failure or the structured parse asks)."""
        if self._tokens is None:
            self._tokens = split_body(self.wire[self.body_start :], b"~") if self.body_start is not None else []
        return self._tokens

    def normalize(self) -> None:
        def locate(doc_offset: int) -> int:
            self.walk()
            table = self.table
            assert self.body_start is not None  # the envelope stage ran
            return trace_document_offset(
                self.tokens, lambda ref: table[int(ref[1:])], self.body_start, doc_offset
            )[0]

        assert self.document is not None  # the expand stage built it
        normalize(self.document, skeleton=self._skeleton, locate=locate)

    def check_canonical(self) -> None:
        if self.problem is not None:
            raise self.problem

#: The decoder's stages in order; ``codec.layout_wire`` runs the same ones.
STAGES = Reader.STAGES


def decode_text(wire: bytes) -> CompactProjection:
    """Decode and fully check a v1 text wire; any failure is a CompactError."""
    return stages.run(Reader(wire_bytes(wire))).projection()


#: Bytes between strings that the bulk decoder splits at a time, from the first
#: chunk's size doubling up to the largest: a body dense in ``~k`` is expanded in
#: bounded memory, and a flood of bad references is refused after its first small
#: chunk (about a hundred bytes of list and objects per reference split).
_FIRST_CHUNK = 1 << 14
_CHUNK = 1 << 20


def _expand_in_bulk(body: bytes) -> tuple[bytes, bytes] | None:
    """``(document, skeleton)`` when ``body`` is exactly the v1 text body that
    ``text_body`` writes for its document, else None (the token-by-token reading
    then says what is wrong, and where).

    The table is the inline contents in order of first appearance; the references
    stand outside the strings, so the NUL-joined outside parts are expanded by
    splits and maps, a chunk at a time, each checked against the 16 MiB limit
    before it is built. Canonical form (docs/wire-format.md §6) is proved from
    the body's structure rather than by encoding the document again: each
    reference is a canonical index read after its literal's first inline
    occurrence and shorter than it, and a literal is repeated inline only where
    its reference would not be shorter."""
    if b"\x00" in body:
        return None
    quoted = quote_split(body)
    if quoted is None:
        return None
    contents = quoted[1::2]
    order = dict.fromkeys(contents)
    if len(order) != len(contents) and not _inline_repeats_are_longer(contents, order):
        return None
    outside = join_parts(quoted[0::2], b"\x00")
    if b"~" not in outside:
        return body, outside
    table = list(order)
    width = len(str(len(table)))
    #: each content -> the number of strings before its first inline occurrence
    inline_first = dict(zip(reversed(contents), range(len(contents) - 1, -1, -1)))
    #: refs_before[j]: the references in the outside parts before string j
    refs_before = list(accumulate(map(bytes.count, quoted[0::2], repeat(b"~")), initial=0))
    #: each reference spelling checked so far -> its expansion, and the fewest
    #: references that must stand before its first use
    expansion: dict[bytes, bytes] = {}
    earliest: dict[bytes, int] = {}
    size = len(body)
    expanded: list[bytes] = []
    skeleton: list[bytes] = []
    seen = 0  # references in the chunks before this one
    for chunk in _chunks(outside):
        pieces = split_references(chunk, b"~")
        refs = pieces[1::2]
        first = dict(zip(reversed(refs), range(seen + len(refs) - 1, seen - 1, -1)))
        seen += len(refs)
        growth = 0
        for r, m in first.items():
            if r not in expansion:
                if not 1 < len(r) <= width + 1 or int(r[1:]) >= len(table) or b"~%d" % int(r[1:]) != r:
                    return None
                literal = table[int(r[1:])]
                if len(r) >= len(literal) + 2:
                    return None  # an unnecessary reference
                expansion[r] = b'"%s"' % literal
                earliest[r] = refs_before[inline_first[literal] + 1]
            if m < earliest[r]:
                return None  # used before its literal was read
            growth = max(growth, len(expansion[r]) - len(r))
        if size + len(refs) * growth > limits.MAX_SELECTED_BYTES:
            exact = sum(n * (len(expansion[r]) - len(r)) for r, n in Counter(refs).items())
            if size + exact > limits.MAX_SELECTED_BYTES:
                return None
        skeleton.append(join_parts(pieces[0::2]))
        pieces[1::2] = map(expansion.__getitem__, refs)
        expanded.append(join_parts(pieces))
        size += len(expanded[-1]) - len(chunk)
    quoted[0::2] = join_parts(expanded).split(b"\x00")
    return join_parts(quoted, b'"'), join_parts(skeleton)


def _chunks(outside: bytes) -> Iterator[bytes]:
    """``outside`` in pieces of ``_FIRST_CHUNK`` bytes and more, doubling up to
    ``_CHUNK``, each cut just before a ``~`` (where a reference token starts, so
    no token is cut)."""
    start = 0
    size = min(_FIRST_CHUNK, _CHUNK)
    while start < len(outside):
        end = outside.find(b"~", start + size)
        if end < 0:
            end = len(outside)
        yield outside[start:end] if start or end < len(outside) else outside
        start = end
        size = min(2 * size, _CHUNK)


def _inline_repeats_are_longer(contents: list[bytes], order: dict[bytes, None]) -> bool:
    """Whether every content written inline more than once is one whose ``~k``
    would not be shorter (docs/wire-format.md §6: a later occurrence stays inline
    only then); ``order`` holds the contents in order of first appearance."""
    repeated = [c for c, n in Counter(contents).items() if n > 1]
    index = dict(zip(order, range(len(order))))
    return all(len(b"~%d" % index[c]) >= len(c) + 2 for c in repeated)


def _expand(
    tokens: Iterable[bytes], body_start: int, parts: list[bytes] | None = None
) -> tuple[list[bytes], list[bytes], CompactError | None]:
    """Rebuild the back-reference table while reading, as an encoder built it,
    with each ``~k`` of ``tokens`` replaced by its literal; returns the expanded
    parts (appended to ``parts`` when given, so a caller keeps what was read
    before a failure) and the table.

    Reference errors stop at once (step 3); a spelling the encoder would not have
    written (a reference that saves nothing, a literal that should have been a
    reference) is kept and raised after normalization (step 6)."""
    parts = [] if parts is None else parts
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
                literal = resolved[token] = table[reference_index(token, len(table), at)]
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


def _too_large(at: int) -> CompactError:
    return CompactError(
        E.LIMIT, f"reconstructed document would exceed {limits.MAX_SELECTED_BYTES:,} bytes", at
    )
