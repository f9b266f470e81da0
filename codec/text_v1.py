"""Version 1 text: the same framed envelope as v2, and a body whose repeated
string literals become ``~k`` back-references into a table built while reading
(docs/wire-format.md §6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

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
    first appearance (``dict.fromkeys``), every occurrence but the first whose
    reference is shorter is marked (NUL never stands raw in a document), and two
    replaces turn each marked quoted string into ``~k``."""
    quoted = quote_split(document)
    if quoted is None or b"\x00" in document:  # not a canonical document: token by token
        return _text_body_slowly(document)
    contents = quoted[1::2]
    order = dict.fromkeys(contents)
    marks = {c: b"\x00%d\x00" % k for k, c in enumerate(order) if len(b"~%d" % k) < len(c) + 2}
    if not marks:
        return document
    # The first occurrence of a marked content pops it from ``pending`` and stays
    # itself; a later one finds it gone and takes its mark; an unmarked content is
    # never pending and stays itself. One pass in C.
    pending = dict(zip(marks, marks))
    quoted[1::2] = map(pending.pop, contents, map(marks.get, contents, contents))
    return join_parts(quoted, b'"').replace(b'"\x00', b"~").replace(b'\x00"', b"")


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
        body = self.wire[self.body_start :]
        # Dense '~' (a flood of back-references): read lazily, so the first bad one
        # stops the reading before the rest of the body is split.
        dense = body.count(b"~") > len(body) >> 3
        tokens = iter_v1_body(body) if dense else split_body(body, b"~")
        self._tokens = None if dense else tokens
        _, self.table, self.problem = _expand(tokens, self.body_start, self.parts)
        self.document = join_parts(self.parts)
        self._skeleton = join_parts(self.parts[0::2])
        if not self.keep_parts:  # millions of pieces for a body of tiny back-references: free them
            self.parts = []
            self._tokens = None

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
            return trace_document_offset(
                self.tokens, lambda ref: table[int(ref[1:])], self.body_start, doc_offset
            )[0]

        normalize(self.document, skeleton=self._skeleton, locate=locate)

    def check_canonical(self) -> None:
        if self.problem is not None:
            raise self.problem

#: The decoder's stages in order; ``codec.layout_wire`` runs the same ones.
STAGES = Reader.STAGES


def decode_text(wire: bytes) -> CompactProjection:
    """Decode and fully check a v1 text wire; any failure is a CompactError."""
    return stages.run(Reader(wire_bytes(wire))).projection()


def _expand_in_bulk(body: bytes) -> tuple[bytes, bytes] | None:
    """``(document, skeleton)`` when ``body`` is exactly the v1 text body that
    ``text_body`` writes for its document, else None (the token-by-token reading
    then says what is wrong, and where).

    The table is the inline contents in order of first appearance; the references
    stand outside the strings, so the NUL-joined outside parts are expanded in one
    split and map; the 16 MiB limit is checked from the reference counts before
    anything is built; and the body must equal the encoder's own body for the
    document, which also proves every reference named a literal already read."""
    if body.count(b"~") > len(body) >> 3 or b"\x00" in body:
        return None  # a flood of '~' is read lazily, token by token, to stop at its first fault
    quoted = quote_split(body)
    if quoted is None:
        return None
    outside = join_parts(quoted[0::2], b"\x00")
    if b"~" not in outside:
        document, skeleton = body, outside
    else:
        table = list(dict.fromkeys(quoted[1::2]))
        pieces = split_references(outside, b"~")
        uses = Counter(pieces[1::2])
        expansion = {}
        width = len(str(len(table)))
        for r in uses:  # each distinct reference once: a canonical index below the table's size
            if not 1 < len(r) <= width + 1 or int(r[1:]) >= len(table) or b"~%d" % int(r[1:]) != r:
                return None
            expansion[r] = b'"%s"' % table[int(r[1:])]
        if len(body) + sum(n * (len(expansion[r]) - len(r)) for r, n in uses.items()) > limits.MAX_SELECTED_BYTES:
            return None
        pieces[1::2] = map(expansion.__getitem__, pieces[1::2])
        quoted[0::2] = join_parts(pieces).split(b"\x00")
        document, skeleton = join_parts(quoted, b'"'), join_parts(pieces[0::2])
    if text_body(document) != body:
        return None
    return document, skeleton


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
