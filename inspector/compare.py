"""Compare two wires, with no Textual in it: the envelopes side by side, the
dictionaries as entries added, removed and kept, the expanded documents as a
structural diff (changed JSON paths, not bytes), and the byte and token totals.

Either side may be rejected: what its decoder read is compared, and the notes
say what could not be. The structural diff is a generator, so a worker can show
the first differences of two 16 MiB documents while it is still counting the
rest, with its progress; only the first ``shown`` changes are kept."""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

import codec

from .model import Loaded, canonical_wire, display_value, field_rows, load_bytes, read_wire

# --- what is compared with what ------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """The other side of a comparison: a file, the left wire's canonical
    re-encoding, its replay from a workspace's sources, or bytes in hand (a
    repaired copy)."""

    kind: str  # "file" | "canonical" | "replay" | "bytes"
    path: str = ""  # the file (kind file), the workspace folder (kind replay)
    data: bytes = b""  # kind bytes
    name: str = ""  # kind bytes: what to call it

    @property
    def label(self) -> str:
        if self.kind == "canonical":
            return "canonical re-encoding"
        if self.kind == "replay":
            return f"replay from {self.path}"
        return self.name or self.path


class NothingToCompare(ValueError):
    """The left wire does not hold what the target is made from (a document to
    re-encode, a profile and root to replay)."""


def resolve(left: Loaded, target: Target) -> Loaded:
    """The right side's model. Raises NothingToCompare, OSError (a file),
    CompactError (a producer's refusal) or the workspace's error (a replay
    whose root is not in the workspace)."""
    if target.kind == "file":
        return load_bytes(read_wire(target.path), target.path, path=target.path)
    if target.kind == "bytes":
        return load_bytes(target.data, target.name)
    if target.kind == "canonical":
        data = canonical_wire(left)
        if data is None:
            if left.document is None:
                why = "no document was rebuilt"
            elif left.form != "json" and left.metadata is None:
                why = "its metadata was not read"
            else:
                why = "its document is not JSON"
            raise NothingToCompare(f"nothing to re-encode canonically: {why}")
        return load_bytes(data, target.label)
    if target.kind == "replay":
        return load_bytes(replay_wire(left, target.path), target.label)
    raise ValueError(f"unknown comparison target {target.kind!r}")


def replay_wire(left: Loaded, workspace: str) -> bytes:
    """The wire the workspace's current sources give for the left wire's
    profile and root, in the left wire's form: what ``semaprax replay``
    regenerates. The profile and root are read as far as the framing allows,
    so a wire rejected for its digest can still be replayed."""
    values = {row.name: row.value for row in field_rows(left) if row.complete}
    if left.form == "json" or "profile" not in values or "root" not in values:
        raise NothingToCompare("nothing to replay: the wire's profile and root were not read"
                               + (" (full JSON carries none)" if left.form == "json" else ""))
    from servers.route import make_projection
    from views.budget import budget_of

    profile, root = values["profile"].decode("utf-8", "replace"), values["root"].decode("utf-8", "replace")
    try:  # a fitted view is fitted again to the budget its document names (docs/wire-format.md §2.1)
        budget = budget_of(json.loads(left.document)) if left.document is not None else None
    except ValueError:
        budget = None
    projection = make_projection(profile, root, workspace, budget=budget)
    return codec.ENCODERS[left.form](projection)


# --- envelope and dictionary ----------------------------------------------------------


@dataclass(frozen=True)
class FieldDiff:
    """One line of the side-by-side envelope: a property of each wire as text
    (empty: not read)."""

    name: str
    left: str
    right: str

    @property
    def same(self) -> bool:
        return self.left == self.right


def _status(loaded: Loaded) -> str:
    if loaded.error is None:
        return "valid"
    e = loaded.error
    return f"rejected: {e.code}" + ("" if e.offset is None else f" at byte {e.offset:,}")


def _envelope(loaded: Loaded) -> dict[str, str]:
    out = {"form": loaded.title, "status": _status(loaded)}
    for row in field_rows(loaded):
        out[row.name] = display_value(row.value) + ("" if row.complete else " (length does not end at an LF)")
    if loaded.form == "model-text":
        out["dict"] = "" if loaded.declared_entries is None else f"{loaded.declared_entries:,} entries"
    out["wire bytes"] = f"{len(loaded.wire):,}"
    out["document bytes"] = "" if loaded.document is None else f"{len(loaded.document):,}"
    return out


FIELD_ORDER = ("form", "status", "profile", "root", "source_revision", "source_digest", "dict", "wire bytes",
               "document bytes")


def envelope_diff(left: Loaded, right: Loaded) -> tuple[FieldDiff, ...]:
    """The two envelopes side by side, in wire order, with the form, the
    verdict and the sizes; a field one side does not have (or did not read) is
    empty there."""
    a, b = _envelope(left), _envelope(right)
    return tuple(FieldDiff(name, a.get(name, ""), b.get(name, "")) for name in FIELD_ORDER
                 if name in a or name in b)


@dataclass(frozen=True)
class EntryDiff:
    """A dictionary literal and where it stands in each wire: its index and
    how many references name it (None: not in that dictionary)."""

    literal: bytes
    left_index: int | None
    right_index: int | None
    left_uses: int
    right_uses: int

    @property
    def status(self) -> str:
        if self.left_index is None:
            return "added"
        return "removed" if self.right_index is None else "kept"


def dictionary_diff(left: Loaded, right: Loaded) -> tuple[tuple[EntryDiff, ...], str]:
    """Entries removed (only on the left), added (only on the right), kept
    with a different index or number of uses, and kept alike, in that order,
    each group in its wire's entry order; and a note when a side has no
    dictionary, true of its bytes."""
    notes = []
    for side, loaded in (("left", left), ("right", right)):
        if loaded.form != "model-text":
            notes.append(f"the {side} wire is {loaded.title}, which has no dictionary")
        elif not loaded.entries and loaded.declared_entries is None:
            notes.append(f"the {side} wire's dictionary was not read")
    a = {e: i for i, e in enumerate(left.entries)}
    b = {e: i for i, e in enumerate(right.entries)}

    def uses(loaded: Loaded, i: int | None) -> int:
        return loaded.reference_counts[i] if i is not None and i < len(loaded.reference_counts) else 0

    removed = [EntryDiff(e, i, None, uses(left, i), 0) for e, i in a.items() if e not in b]
    added = [EntryDiff(e, None, j, 0, uses(right, j)) for e, j in b.items() if e not in a]
    kept = [EntryDiff(e, a[e], j, uses(left, a[e]), uses(right, j)) for e, j in b.items() if e in a]
    moved = [e for e in kept if e.left_index != e.right_index or e.left_uses != e.right_uses]
    alike = [e for e in kept if e.left_index == e.right_index and e.left_uses == e.right_uses]
    return (*removed, *added, *moved, *alike), "; ".join(notes)


# --- the structural diff --------------------------------------------------------------


class _Object(tuple):
    """A JSON object as its (key, value) pairs in wire order: equality is then
    order-sensitive and keeps duplicate keys, as the selected bytes do."""

    __slots__ = ()


def _number(text: str) -> bytes:
    # Numbers as their spelling, tagged so that 1, 1.0 and true stay three
    # different values (Python's == says 1 == 1.0 == True).
    return b"#" + text.encode()


def parse(document: bytes) -> object:
    """A document as values whose == is JSON's: objects keep their key order,
    numbers their spelling. Raises ValueError when it is not JSON."""
    return json.loads(document, object_pairs_hook=_Object, parse_int=_number, parse_float=_number,
                      parse_constant=_number)


@dataclass(frozen=True)
class PathChange:
    """One structural difference: at ``path`` (jq-style, ``.rows[3][0]``; ``.``
    is the whole document) a value was changed, added or removed, or an
    object's keys were reordered. ``old`` and ``new`` are short JSON previews
    (empty where the side has no value). A ``shifted`` change is an array's row
    whose numbers all moved by one amount (``by``): its line numbers after an
    insertion above it, which a person counts as no change of its own."""

    kind: str  # "changed" | "added" | "removed" | "reordered" | "shifted"
    path: str
    old: str = ""
    new: str = ""
    by: int = 0  # "shifted": the amount every number of the row moved by (its line numbers)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: Arrays whose differing middles together hold more items than this are
#: aligned by their unique items (patience) instead of SequenceMatcher, whose
#: cost grows faster.
ALIGN_LIMIT = 2_000


def key_path(path: str, key: str) -> str:
    """``path`` followed by an object key, as jq writes it."""
    if _NAME.match(key):
        return f"{path}.{key}"
    return f"{path or '.'}[{json.dumps(key, ensure_ascii=False)}]"


def index_path(path: str, index: int | str) -> str:
    """``path`` followed by an array index (``.[0]`` at the top)."""
    return f"{path or '.'}[{index}]"


def preview(value: object, limit: int = 60) -> str:
    """A value as short JSON text, cut with … past ``limit`` characters."""
    out: list[str] = []
    budget = [limit + 1]

    def put(text: str) -> bool:
        out.append(text)
        budget[0] -= len(text)
        return budget[0] > 0

    def walk(v: object) -> bool:
        if isinstance(v, _Object):
            if not put("{"):
                return False
            for n, (k, item) in enumerate(v):
                if not put(("," if n else "") + json.dumps(k, ensure_ascii=False) + ":") or not walk(item):
                    return False
            return put("}")
        if isinstance(v, list):
            if not put("["):
                return False
            for n, item in enumerate(v):
                if (n and not put(",")) or not walk(item):
                    return False
            return put("]")
        if isinstance(v, bytes):
            return put(v[1:].decode())
        return put(json.dumps(v, ensure_ascii=False))

    walk(value)
    text = "".join(out)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _at(path: str) -> str:
    return path or "."


def _equal(a: object, b: object) -> bool:
    """JSON equality of two parsed values: Python's ``==`` (in C), or for values
    nested deeper than its recursion allows, the same comparison walked with a
    stack of its own (a valid document may be 512 levels deep, docs/wire-format.md §1)."""
    try:
        return a == b
    except RecursionError:
        pass
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, (list, tuple)):
            if len(x) != len(y):  # type: ignore[arg-type]
                return False
            stack.extend(zip(x, y))  # type: ignore[call-overload]
        elif x != y:
            return False
    return True


def _key(value: object) -> str:
    """A value as a string equal exactly when the values are (``repr``, or for a
    deeply nested one, the same spelled out with a stack)."""
    try:
        return repr(value)
    except RecursionError:
        pass
    out: list[str] = []
    stack: list[object] = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, _Close):
            out.append(x.text)
        elif isinstance(x, (list, tuple)):
            out.append("{" if isinstance(x, _Object) else "(")
            stack.append(_Close("}" if isinstance(x, _Object) else ")"))
            stack.extend(reversed(x))
        else:
            out.append(repr(x))
    return ",".join(out)


@dataclass(frozen=True)
class _Close:
    """A closing bracket on ``_key``'s stack (never a value of the document)."""

    text: str


#: Keys naming what an object is, in the order they are tried, for aligning arrays of objects.
IDENTITY_KEYS = ("name", "path", "id", "qualname", "symbol", "module", "file", "uri")


def identity(item: object) -> str | None:
    """What an array item is, where it says so: a table row's first cell when it
    is a string (a definition's name, a path), or its second when the first is
    its lines (a graph row, ``[[3,9],"f(x)",…]``), an object's ``name``/``path``/…
    when it is a string. None when it does not say."""
    if isinstance(item, _Object):
        for name in IDENTITY_KEYS:
            for k, v in item:
                if k == name and isinstance(v, str):
                    return f"{name}={v}"
        return None
    if isinstance(item, list) and item and isinstance(item[0], str):
        return f"row={item[0]}"
    if isinstance(item, list) and len(item) > 1 and isinstance(item[1], str) and _is_lines(item[0]):
        return f"row={item[1]}"
    return None


def _is_lines(cell: object) -> bool:
    """A line number or a ``[first, last]`` span, as parsed (numbers are their bytes)."""
    return isinstance(cell, bytes) or (isinstance(cell, list) and len(cell) == 2
                                       and all(isinstance(x, bytes) for x in cell))


def _identities(a: list[object], b: list[object]) -> tuple[list[str], list[str]] | None:
    """Each item's identity on both sides, when every item has one, unique on its side."""
    ka, kb = [identity(x) for x in a], [identity(x) for x in b]
    if None in ka or None in kb or len(set(ka)) != len(ka) or len(set(kb)) != len(kb):
        return None
    return ka, kb  # type: ignore[return-value]


def shift(a: object, b: object) -> int | None:
    """The one amount every number moved by, when two values differ only in
    integer numbers and all by the same amount (a row whose line numbers moved
    after an insertion above it); None otherwise."""
    moved: int | None = None
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, bytes) and isinstance(y, bytes):  # numbers, as spelled
            if x == y:
                continue
            try:
                d = int(y[1:]) - int(x[1:])
            except ValueError:
                return None
            if moved is None:
                moved = d
            elif d != moved:
                return None
        elif type(x) is not type(y):
            return None
        elif isinstance(x, (list, tuple)):
            if len(x) != len(y):  # type: ignore[arg-type]
                return None
            stack.extend(zip(x, y))  # type: ignore[call-overload]
        elif x != y:
            return None
    return moved


class StructuralDiff:
    """Iterate the differences between two parsed documents in document order
    (an array's removed and added items before the changes inside its members).
    ``progress`` (0 to 1) is how far through the documents the walk has got:
    each container's share is split evenly between its members."""

    def __init__(self, old: object, new: object) -> None:
        self.progress = 0.0
        # LIFO work: (path, old, new, share start, share end, the amount an array's row was only shifted by)
        self._stack: list[tuple[str, object, object, float, float, int | None]] = [("", old, new, 0.0, 1.0, None)]

    def __iter__(self) -> Iterator[PathChange]:
        stack = self._stack
        while stack:
            path, a, b, lo, hi, moved = stack.pop()
            self.progress = lo
            if _equal(a, b):
                self.progress = hi
                continue
            if moved is not None:  # a row whose numbers all moved by one amount: one change, as a person sees it
                self.progress = hi
                yield PathChange("shifted", _at(path), preview(a), preview(b), moved)
                continue
            if isinstance(a, _Object) and isinstance(b, _Object):
                yield from self._objects(path, a, b, lo, hi)  # its members advance the progress
            elif isinstance(a, list) and isinstance(b, list):
                yield from self._lists(path, a, b, lo, hi)
            else:
                self.progress = hi
                yield PathChange("changed", _at(path), preview(a), preview(b))

    def _push(self, pairs: list[tuple[int, str, object, object]], size: int, lo: float, hi: float,
              shifted: dict[int, int] | None = None) -> None:
        """Queue members to compare; member at position ``n`` of ``size`` gets
        that share of the container's progress. ``shifted``: an array's items
        known to be only shifted, and by how much."""
        step = (hi - lo) / max(size, 1)
        shifted = shifted or {}
        for n, p, a, b in reversed(pairs):  # reversed: the first is popped first
            self._stack.append((p, a, b, lo + n * step, lo + (n + 1) * step, shifted.get(n)))

    def _objects(self, path: str, a: _Object, b: _Object, lo: float, hi: float) -> Iterator[PathChange]:
        left, right = dict(a), dict(b)
        common_a = [k for k, _ in a if k in right]
        common_b = [k for k, _ in b if k in left]
        if common_a != common_b:
            yield PathChange("reordered", _at(path), preview(common_a), preview(common_b))
        for k, v in a:
            if k not in right:
                yield PathChange("removed", key_path(path, k), preview(v), "")
        for k, v in b:
            if k not in left:
                yield PathChange("added", key_path(path, k), "", preview(v))
        self._push([(n, key_path(path, k), left[k], right[k]) for n, k in enumerate(common_b)], len(common_b),
                   lo, hi)

    def _lists(self, path: str, a: list, b: list, lo: float, hi: float) -> Iterator[PathChange]:
        pairs: list[tuple[int, str, object, object]] = []
        changes: list[PathChange] = []
        ids = _identities(a, b)
        shifted: dict[int, int] = {}  # item of a -> the amount all its numbers moved by
        if ids is not None:  # rows that say what they are: the same name is the same row, wherever it moved
            ops = _anchored(_unique_anchors(ids[0], ids[1], 0, len(a), 0, len(b)), len(a), len(b))
            moves = {i: shift(a[i], b[j]) for tag, i, _, j, _ in ops if tag == "equal" and not _equal(a[i], b[j])}
            often: dict[int, int] = {}
            for d in moves.values():
                if d is not None:
                    often[d] = often.get(d, 0) + 1
            # a row whose numbers all moved by an amount other rows moved by too: shifted by an insertion
            shifted = {i: d for i, d in moves.items() if d is not None and often[d] >= 2}
        else:
            ops = align(a, b)
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                if ids is not None:  # the same row by its name: compared in place
                    pairs += [(i, index_path(path, i if i == j else f"{i}→{j}"), a[i], b[j])
                              for i, j in zip(range(i1, i2), range(j1, j2))]
                continue
            for k in range(min(i2 - i1, j2 - j1)):  # replaced items are compared in place
                i, j = i1 + k, j1 + k
                pairs.append((i, index_path(path, i if i == j else f"{i}→{j}"), a[i], b[j]))
            for i in range(i1 + (j2 - j1), i2) if i2 - i1 > j2 - j1 else ():
                changes.append(PathChange("removed", index_path(path, i), preview(a[i]), ""))
            for j in range(j1 + (i2 - i1), j2) if j2 - j1 > i2 - i1 else ():
                changes.append(PathChange("added", index_path(path, j), "", preview(b[j])))
        # removals and additions are reported where the walk meets them: before the
        # members compared in place, which the stack yields in order after this
        yield from changes
        self._push(pairs, len(a), lo, hi, shifted)


def _anchored(anchors: list[tuple[int, int]], n: int, m: int) -> list[tuple[str, int, int, int, int]]:
    """Opcodes from matched positions: each anchor an equal pair, each gap between them a replacement."""
    ops: list[tuple[str, int, int, int, int]] = []
    x = y = 0
    for i, j in [*anchors, (n, m)]:
        if x < i or y < j:
            ops.append(("replace", x, i, y, j))
        if i < n:
            ops.append(("equal", i, i + 1, j, j + 1))
        x, y = i + 1, j + 1
    return ops


def align(a: list, b: list) -> list[tuple[str, int, int, int, int]]:
    """difflib-style opcodes aligning two arrays: the common ends are matched
    item by item, the middle by each item's repr (exact for parsed values):
    with ``SequenceMatcher`` up to ``ALIGN_LIMIT`` items, past that by the
    items that occur once on each side (patience alignment, n log n), each gap
    between them aligned again the same way."""
    ops: list[tuple[str, int, int, int, int]] = []
    _align_span(a, b, 0, len(a), 0, len(b), ops, None)
    return _merged(ops)


def _align_span(a: list, b: list, i1: int, i2: int, j1: int, j2: int, ops: list,
                keys: tuple[list[str], list[str]] | None) -> None:
    p = 0
    while i1 + p < i2 and j1 + p < j2 and _equal(a[i1 + p], b[j1 + p]):
        p += 1
    s = 0
    while s < i2 - i1 - p and s < j2 - j1 - p and _equal(a[i2 - 1 - s], b[j2 - 1 - s]):
        s += 1
    if p:
        ops.append(("equal", i1, i1 + p, j1, j1 + p))
    mi1, mi2, mj1, mj2 = i1 + p, i2 - s, j1 + p, j2 - s
    if mi1 == mi2 or mj1 == mj2:
        if mi1 < mi2 or mj1 < mj2:
            ops.append(("replace", mi1, mi2, mj1, mj2))
    elif (mi2 - mi1) + (mj2 - mj1) <= ALIGN_LIMIT:
        ka = keys[0][mi1:mi2] if keys else [_key(x) for x in a[mi1:mi2]]
        kb = keys[1][mj1:mj2] if keys else [_key(x) for x in b[mj1:mj2]]
        matcher = SequenceMatcher(None, ka, kb)
        ops += [(tag, x1 + mi1, x2 + mi1, y1 + mj1, y2 + mj1) for tag, x1, x2, y1, y2 in matcher.get_opcodes()]
    else:
        if keys is None:
            keys = ([_key(x) for x in a], [_key(x) for x in b])
        anchors = _unique_anchors(keys[0], keys[1], mi1, mi2, mj1, mj2)
        if not anchors:
            ops.append(("replace", mi1, mi2, mj1, mj2))
        else:
            x, y = mi1, mj1
            for i, j in anchors:
                if (x, y) != (i, j):
                    _align_span(a, b, x, i, y, j, ops, keys)
                ops.append(("equal", i, i + 1, j, j + 1))
                x, y = i + 1, j + 1
            if x < mi2 or y < mj2:
                _align_span(a, b, x, mi2, y, mj2, ops, keys)
    if s:
        ops.append(("equal", i2 - s, i2, j2 - s, j2))


def _unique_anchors(ka: list[str], kb: list[str], i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int]]:
    """The longest run, in order on both sides, of items that occur exactly
    once in each span (patience sorting over their positions)."""
    seen_a: dict[str, int] = {}
    for i in range(i1, i2):
        seen_a[ka[i]] = -1 if ka[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(j1, j2):
        seen_b[kb[j]] = -1 if kb[j] in seen_b else j
    pairs = [(i, seen_b[k]) for k, i in seen_a.items() if i >= 0 and seen_b.get(k, -1) >= 0]
    pairs.sort()
    tails: list[int] = []  # the j ending the best run of each length
    tail_at: list[int] = []  # index into pairs of that end
    back = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k] = j
            tail_at[k] = n
        back[n] = tail_at[k - 1] if k else -1
    out = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        out.append(pairs[n])
        n = back[n]
    return out[::-1]


def _merged(ops: list[tuple[str, int, int, int, int]]) -> list[tuple[str, int, int, int, int]]:
    """Adjacent equal runs joined, empty runs dropped."""
    out: list[tuple[str, int, int, int, int]] = []
    for op in ops:
        tag, i1, i2, j1, j2 = op
        if i1 == i2 and j1 == j2:
            continue
        if tag == "equal" and out and out[-1][0] == "equal" and out[-1][2] == i1 and out[-1][4] == j1:
            out[-1] = ("equal", out[-1][1], i2, out[-1][3], j2)
        else:
            out.append(op)
    return out


# --- the whole comparison -------------------------------------------------------------

#: How many structural changes a comparison keeps to show (all are counted).
SHOWN = 1000


@dataclass(frozen=True)
class Comparison:
    """Two wires compared, as far as the work has got (``done``)."""

    left: Loaded
    right: Loaded
    left_label: str
    right_label: str
    fields: tuple[FieldDiff, ...]
    entries: tuple[EntryDiff, ...]
    entries_note: str
    changes: tuple[PathChange, ...] = ()  # the first SHOWN, in document order
    counts: tuple[tuple[str, int], ...] = ()  # kind -> how many, all of them
    diff_note: str = ""  # why there is no structural diff, or what it means
    progress: float = 0.0
    done: bool = False
    # each side's cl100k_base / o200k_base counts: None until counted, {} for v1 binary
    tokens: tuple[dict[str, int] | None, dict[str, int] | None] = (None, None)
    notes: tuple[str, ...] = field(default=())

    @property
    def total_changes(self) -> int:
        """The differences a person counts: rows only shifted (their numbers moved
        by one amount, ``PathChange.by``) are counted apart (``shifted``)."""
        return sum(n for k, n in self.counts if k != "shifted")

    @property
    def shifted(self) -> int:
        return dict(self.counts).get("shifted", 0)

    def summary(self) -> str:
        """The structural differences in words, as a person counts them."""
        counts = dict(self.counts)
        total = self.total_changes
        parts = [f"{counts[k]:,} {k}" for k in ("changed", "added", "removed", "reordered") if counts.get(k)]
        text = f"{total:,} structural difference{'s' if total != 1 else ''}"
        if parts:
            text += " (" + ", ".join(parts) + ")"
        if self.shifted:
            amounts = sorted({c.by for c in self.changes if c.kind == "shifted"})
            by = ", ".join(f"{a:+,}" for a in amounts[:3]) + ("…" if len(amounts) > 3 else "")
            text += (f"; {self.shifted:,} row{'s' if self.shifted != 1 else ''} only shifted "
                     f"(every number moved by {by}: line numbers after an insertion)")
        return text


def side_notes(left: Loaded, right: Loaded) -> tuple[str, ...]:
    """What a rejected side means for the comparison, true of its bytes."""
    out = []
    for side, loaded in (("left", left), ("right", right)):
        if loaded.error is None:
            continue
        e = loaded.error
        at = "" if e.offset is None else f" at byte {e.offset:,}"
        read = "its document was rebuilt" if loaded.document is not None else "no document was rebuilt"
        out.append(f"the {side} wire is rejected ({e.code}{at}): compared as far as it was read; {read}")
    return tuple(out)


def _document_value(side: str, loaded: Loaded) -> tuple[object, str]:
    if loaded.document is None:
        return None, f"the {side} wire's document could not be rebuilt"
    try:
        return parse(loaded.document), ""
    except (ValueError, RecursionError) as exc:
        return None, f"the {side} wire's document is not JSON ({exc})"


def compare(left: Loaded, right: Loaded, *, left_label: str = "", right_label: str = "",
            cancelled: Callable[[], bool] = lambda: False, shown: int = SHOWN, every: int = 2000,
            count_tokens: bool = True) -> Iterator[Comparison]:
    """The comparison as it grows: first the envelopes, dictionaries and sizes,
    then the structural diff (a snapshot each ``every`` changes and at the
    end), then the token totals. ``cancelled`` stops between snapshots."""
    entries, note = dictionary_diff(left, right)
    result = Comparison(left, right, left_label or left.name, right_label or right.name,
                        envelope_diff(left, right), entries, note, notes=side_notes(left, right))
    yield result
    old, why_old = _document_value("left", left)
    new, why_new = _document_value("right", right)
    if why_old or why_new:
        result = replace(result, diff_note="; ".join(w for w in (why_old, why_new) if w) + ": no structural diff",
                         progress=1.0)
    else:
        kept: list[PathChange] = []
        counts: dict[str, int] = {}
        walk = StructuralDiff(old, new)
        since = 0
        for change in walk:
            counts[change.kind] = counts.get(change.kind, 0) + 1
            if len(kept) < shown:
                kept.append(change)
            since += 1
            if since >= every or len(kept) == 1:
                since = 0
                if cancelled():
                    return
                yield replace(result, changes=tuple(kept), counts=tuple(counts.items()), progress=walk.progress)
        note = ""
        if not counts:
            note = ("the documents are the same bytes" if left.document == right.document else
                    "the documents are the same JSON value, spelled differently")
        result = replace(result, changes=tuple(kept), counts=tuple(counts.items()), progress=1.0, diff_note=note)
    yield result
    if count_tokens and not cancelled():
        from .counting import count_bytes

        # v1 binary is stored and replayed, never shown to a model: bytes only ({})
        left_tokens, right_tokens = ({} if side.form == "binary" else count_bytes(side.wire) for side in (left, right))
        result = replace(result, tokens=(left_tokens, right_tokens))
    yield replace(result, done=True)


def delta(old: int, new: int) -> str:
    """``new - old`` with its sign and its share of ``old`` ("same" when equal)."""
    d = new - old
    if not d:
        return "same"
    share = f" ({d / old:+.1%})" if old else ""
    return f"{d:+,}{share}"


__all__ = [
    "ALIGN_LIMIT",
    "SHOWN",
    "Comparison",
    "EntryDiff",
    "FieldDiff",
    "NothingToCompare",
    "PathChange",
    "StructuralDiff",
    "Target",
    "align",
    "compare",
    "delta",
    "dictionary_diff",
    "envelope_diff",
    "index_path",
    "key_path",
    "parse",
    "preview",
    "replay_wire",
    "resolve",
    "side_notes",
]
