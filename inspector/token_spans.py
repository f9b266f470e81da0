"""Where each token of a text starts, for the token view and the cost ledger,
with no Textual in it: a text tokenized whole (in chunks) or only around the
lines on screen, both giving exactly the tokens the whole text has there.

Tokens come from the project's one tokens loader (``views.tokens``: the
real cl100k_base and o200k_base, offline) with ``encode_ordinary`` on the text
decoded as ``views.tokens.count_tokens`` decodes it, so the counts here are
the counts everywhere else. A token's bytes are found from a table of each
rank's byte length (``decode_single_token_bytes`` once per rank), so offsets
are running sums, not one ``bytes`` object per token.

Why a window is exact (``restart_before``/``restart_after``). tiktoken splits
a text with its pre-tokenizer regex into pieces, then merges bytes only inside a
piece; the regex has no look-behind, so the pieces from a piece boundary on do
not depend on anything before it. A position ``p`` is a *restart point* when it
is a piece boundary whatever the text around it is:

* ``p`` follows an LF and holds a printable ASCII character other than ``/``:
  the only pieces that take in an LF are a whitespace run (which ends at its
  last line break, and ``p`` is not whitespace) and punctuation followed by
  line breaks (cl100k ``[\\r\\n]*``, o200k ``[\\r\\n/]*``, which stop at a
  character that is neither, hence not ``/``);
* ``p`` follows an ASCII letter and holds ASCII punctuation other than ``'``:
  a letter belongs to a letter piece, which ends at the first character that
  is not a letter or mark unless it is o200k's ``'s``/``'t``/… suffix (hence
  not ``'``); digits are excluded because digit runs split in threes from
  their start.

Cut at restart points on both sides, a segment tokenizes to the same pieces:
at the right edge the piece before ends at the cut in the whole text too (the
look-aheads ``(?!\\S)`` and cl100k's ``\\s++$`` only decide whitespace runs,
and the one before an LF cut ends at that LF either way). Canonical JSON has
such points every few bytes (``name"``), the envelope at every line;
tests/test_token_view.py checks windows against the whole tokenization."""

from __future__ import annotations

import bisect
import re
import threading
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise, repeat

#: A restart point is where this matches (the byte before is looked at, not taken).
_RESTART = re.compile(rb"(?<=[A-Za-z])[!-&(-/:-@\[-`{-~]|(?<=\n)[!-.0-~]")

_LENGTHS: dict[str, array] = {}
_LOCK = threading.Lock()


def token_lengths(name: str) -> array:
    """The byte length of every rank of encoding ``name`` (0 for unused ranks),
    as ``views.tokens`` read it from the vocabulary; kept here once asked for,
    so a released encoding's lengths need no new load."""
    hit = _LENGTHS.get(name)
    if hit is None:
        from views import tokens

        with _LOCK:
            hit = _LENGTHS.setdefault(name, tokens.token_lengths(name))
    return hit


def is_restart(data: bytes, p: int) -> bool:
    """Whether ``p`` is a restart point of ``data`` (the text's two ends are)."""
    return p <= 0 or p >= len(data) or _RESTART.match(data, p) is not None


def restart_before(data: bytes, p: int) -> int:
    """The last restart point at or before ``p``."""
    p = max(0, min(p, len(data)))
    step = 1024
    while True:
        lo = max(0, p - step)
        last = None
        for m in _RESTART.finditer(data, lo, p + 1):  # the look-behind sees the byte before lo
            last = m.start()
        if last is not None and last <= p:
            return last
        if lo == 0:
            return 0
        step *= 4


def restart_after(data: bytes, p: int) -> int:
    """The first restart point at or after ``p``."""
    if p >= len(data):
        return len(data)
    m = _RESTART.search(data, max(p, 0))
    return len(data) if m is None else m.start()


@dataclass(frozen=True)
class TokenRun:
    """The tokens of ``data[start:end]`` of one encoding: token ``i`` has id
    ``ids[i]`` and covers bytes ``offsets[i]`` to ``offsets[i + 1]`` of the data."""

    name: str
    ids: array
    offsets: array  # len(ids) + 1 absolute byte offsets

    @property
    def start(self) -> int:
        return self.offsets[0]

    @property
    def end(self) -> int:
        return self.offsets[-1]

    def __len__(self) -> int:
        return len(self.ids)

    def covers(self, start: int, end: int) -> bool:
        return self.start <= start and end <= self.end

    def index_at(self, offset: int) -> int:
        """The token holding byte ``offset`` (clamped to the run)."""
        return max(0, min(bisect.bisect_right(self.offsets, offset) - 1, len(self.ids) - 1))

    def index_of_start(self, offset: int) -> int | None:
        """The token that starts exactly at ``offset``, if one does."""
        i = bisect.bisect_left(self.offsets, offset, 0, len(self.ids))
        return i if i < len(self.ids) and self.offsets[i] == offset else None

    def touching(self, start: int, end: int) -> int:
        """How many tokens share a byte with ``start:end``."""
        if end <= start or not self.ids:
            return 0
        return bisect.bisect_left(self.offsets, end, 0, len(self.ids)) - self.index_at(start)

    def starting(self, start: int, end: int) -> int:
        """How many tokens have their first byte in ``start:end`` (the ledger's rule)."""
        n = len(self.ids)
        return bisect.bisect_left(self.offsets, end, 0, n) - bisect.bisect_left(self.offsets, start, 0, n)

    def span(self, index: int) -> tuple[int, int]:
        return self.offsets[index], self.offsets[index + 1]


def _encode(data: bytes, name: str, start: int, end: int, ids: array, offsets: array) -> None:
    """Append the tokens of ``data[start:end]`` (restart points both) to ``ids``/``offsets``."""
    from views import tokens

    text = data[start:end].decode("utf-8", errors="replace")
    found = tokens.get_encoding(name).encode_ordinary(text)
    lengths = token_lengths(name)
    base = offsets[-1] if offsets else start
    if not offsets:
        offsets.append(start)
    step = 1 << 16  # running sums in slices, so no single C call holds the interpreter for long
    for i in range(0, len(found), step):
        chunk = found[i:i + step]
        ids.extend(chunk)
        sums = accumulate(map(lengths.__getitem__, chunk), initial=base)
        next(sums)
        offsets.extend(sums)
        base = offsets[-1]


def window(data: bytes, name: str, start: int, end: int, margin: int = 256) -> TokenRun:
    """The tokens around ``data[start:end]``: from the restart point before
    ``start - margin`` to the one after ``end + margin`` (see the module's
    docstring for why they are the whole text's tokens there)."""
    lo = restart_before(data, start - margin)
    hi = restart_after(data, end + margin)
    ids, offsets = array("I"), array("q")
    _encode(data, name, lo, hi, ids, offsets)
    if not offsets:
        offsets.append(lo)
    return TokenRun(name, ids, offsets)


def _pieces(data: bytes, chunk: int) -> list[tuple[int, int]]:
    """``data`` cut at restart points into pieces of about ``chunk`` bytes."""
    out, pos = [], 0
    while pos < len(data):
        cut = restart_after(data, pos + chunk) if pos + chunk < len(data) else len(data)
        out.append((pos, cut))
        pos = cut
    return out


def whole(data: bytes, name: str, chunk: int = 1 << 20) -> TokenRun:
    """Every token of ``data`` with its offsets, tokenized in pieces cut at restart points."""
    ids, offsets = array("I"), array("q", [0])
    for start, end in _pieces(data, chunk):
        _encode(data, name, start, end, ids, offsets)
    return TokenRun(name, ids, offsets)


@dataclass(frozen=True)
class StartMarks:
    """Where every token of a text starts, as one byte per text byte (1 where
    a token starts): counting the tokens that start in a span is one C call
    (``bytes.count``), where 800,000 bisections of an array took seconds."""

    name: str
    marks: bytes

    def __len__(self) -> int:
        return self.marks.count(1)

    def starting(self, start: int, end: int) -> int:
        return self.marks.count(1, start, end) if end > start else 0


def start_marks(data: bytes, name: str, progress: Callable[[float], bool] | None = None,
                chunk: int = 1 << 20) -> StartMarks | None:
    """The start marks of every token of ``data``, tokenized in pieces of about
    ``chunk`` bytes cut at restart points (exact, and each piece's token list
    stays small). ``progress(fraction)`` is called after each piece and returns
    True to stop (then the result is None)."""
    from views import tokens

    encode = tokens.get_encoding(name).encode_ordinary
    lengths = token_lengths(name)
    shapes: dict[int, bytes] = {}
    parts: list[bytes] = []
    for start, end in _pieces(data, chunk):
        found = encode(data[start:end].decode("utf-8", errors="replace"))
        for n in set(map(lengths.__getitem__, set(found))) - shapes.keys():
            shapes[n] = b"\x01" + bytes(n - 1)
        parts.append(b"".join(map(shapes.__getitem__, map(lengths.__getitem__, found))))
        if progress is not None and progress(end / len(data)):
            return None
    return StartMarks(name, b"".join(parts))


def count_and_place(data: bytes, name: str, queries: Sequence[int] = (), chunk: int = 1 << 18,
                    cancelled: Callable[[], bool] | None = None) -> tuple[int, array] | None:
    """The number of tokens of ``data`` in encoding ``name`` and, for each
    position in ``queries``, how many tokens start before it (the ledger's
    rule: a token counts where its first byte is), tokenized a piece of about
    ``chunk`` bytes at a time, cut at restart points. Only a piece's tokens are
    held at once, never the whole text's (``start_marks`` keeps a byte per
    byte of text). The count is ``views.tokens.count_tokens``'s for any bytes;
    the positions are byte offsets only when ``data`` is UTF-8 (tokens are
    placed by their bytes' lengths). ``queries`` in any order. None when
    ``cancelled`` became true."""
    from views import tokens

    encode = tokens.get_encoding(name).encode_ordinary
    order: list[int] | None = None  # the positions in increasing order, when they are not already
    if any(a > b for a, b in pairwise(queries)):
        order = sorted(range(len(queries)), key=queries.__getitem__)
    if order is None and isinstance(queries, array):
        wanted = queries  # already in order: not copied
    else:
        wanted = array("q", queries if order is None else map(queries.__getitem__, order))
    placed = array("i" if len(data) < 1 << 31 else "q")  # a count is at most the text's length
    lengths = token_lengths(name) if wanted else None
    total = 0
    for start, end in _pieces(data, chunk):
        found = encode(data[start:end].decode("utf-8", errors="replace"))
        q = len(placed)
        upto = bisect.bisect_left(wanted, end, q)  # the positions inside this piece
        if lengths is not None and upto > q:
            # where each token starts (and the piece's end): a position's answer is how many are before it
            starts = array("q", accumulate(map(lengths.__getitem__, found), initial=start))
            placed.extend(map(total.__add__, map(bisect.bisect_left, repeat(starts), wanted[q:upto])))
        total += len(found)
        if cancelled is not None and cancelled():
            return None
    placed.extend(repeat(total, len(wanted) - len(placed)))  # at or past the end: every token starts before
    if order is not None:
        unsorted = array(placed.typecode, bytes(placed.itemsize * len(placed)))
        for k, value in zip(order, placed):
            unsorted[k] = value
        placed = unsorted
    return total, placed
