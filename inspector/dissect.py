"""The dissection tree of a wire (Wireshark's packet details for a compact
projection), as plain values with no Textual in them: the header, each metadata
field (name, length, value), ``dict N`` and each entry, the body line, the body
and inside it the JSON structure (v2's ``@N`` and v1 text's ``~k`` naming their
literal) or binary's CBOR items in diagnostic notation (RFC 8949 §8), and a
"malformed" node at the byte where decoding stopped.

Everything comes from codec's one structured parse (``Loaded.layout``, and the
document's ``json_values``); nothing is parsed again here. The tree is built on
demand, a node's children when it is opened, and long child lists are grouped
in ranges of ``CHUNK`` (of ``CHUNK``, …), so a 16 MiB wire never builds more
than the few hundred nodes a person has opened; ``path`` finds the deepest node
holding a byte by bisecting the parse's arrays, without building the tree."""

from __future__ import annotations

import bisect
import json
import math
import struct
from array import array
from dataclasses import dataclass, replace
from itertools import compress

from .model import Loaded, display_value

#: The most children a node shows; more are grouped in ranges.
CHUNK = 100
#: Visible characters of a value in a label before it is cut (with its byte count).
LABEL_CHARS = 48
#: Children found by jumping from sibling to sibling before scanning the parent array instead.
_JUMPS = 4096

Key = tuple


@dataclass(frozen=True)
class Node:
    """One line of the tree: what it is (``kind``), its label, the wire bytes it
    covers (``start`` to ``end``) and, for a JSON value of the body, the document
    bytes (``doc``). ``key`` names it uniquely, so a path found by ``path`` can be
    matched against the nodes a view has built."""

    key: Key
    text: str
    start: int
    end: int
    doc: tuple[int, int] | None = None
    expandable: bool = False
    kind: str = "part"  # part | value | reference | range | malformed | pending


def cut(raw: bytes) -> str:
    """A value made visible (codec.visible's rule), cut to ``LABEL_CHARS``
    characters with its byte count when it is longer."""
    text = display_value(raw[: LABEL_CHARS * 4])
    if len(text) <= LABEL_CHARS and len(raw) <= LABEL_CHARS * 4:
        return text
    return f"{text[:LABEL_CHARS]}… ({len(raw):,} bytes)"


def plural(n: int, word: str, words: str = "") -> str:
    return f"{n:,} {word if n == 1 else words or word + 's'}"


class _Items:
    """A parse's values as a tree of indices: parallel ``start``/``end``/``parent``
    arrays in document order, a container before its members (codec's
    ``JsonValues`` and ``CborItems`` both have that shape). ``end`` is -1 for an
    item left open where reading stopped: it runs to ``limit``."""

    def __init__(self, start: array, end: array, parent: array, limit: int, *, nested: bool = True) -> None:
        self.start, self.end, self.parent, self.limit = start, end, parent, limit
        self.nested = nested  # every item ends inside its container (a well-formed document)
        self._children: dict[int, array] = {}

    def end_of(self, i: int) -> int:
        e = self.end[i]
        return self.limit if e < 0 else e

    def children(self, i: int) -> array:
        """The indices of ``i``'s members (-1: the top-level items), in order, cached.
        Jumping over each member's subtree costs one bisection per member; for a
        container with very many members the rest are read off the parent array,
        and so are all of them when the document is not known to be well formed
        (a bracket closing the wrong container leaves spans a jump cannot trust)."""
        found = self._children.get(i)
        if found is not None:
            return found
        start, n = self.start, len(self.start)
        last = n if i < 0 else bisect.bisect_left(start, self.end_of(i), i + 1)
        out = array("q")
        j = i + 1
        while j < last and len(out) < (_JUMPS if self.nested else 0):
            out.append(j)
            e = self.end[j]
            j = last if e < 0 else bisect.bisect_left(start, e, j + 1, last)
        if j < last:
            out.extend(compress(range(j, last), map(i.__eq__, self.parent[j:last])))
        self._children[i] = out
        return out

    def deepest(self, offset: int) -> int:
        """The innermost item holding ``offset``, or -1."""
        j = bisect.bisect_right(self.start, offset) - 1
        while j >= 0 and offset >= self.end_of(j):
            j = self.parent[j]
        return j

    def chain(self, j: int) -> list[int]:
        """``j`` and its containers, outermost first."""
        out = []
        while j >= 0:
            out.append(j)
            j = self.parent[j]
        return out[::-1]


def _step(size: int) -> int:
    """How many units each range holds when ``size`` units are grouped."""
    step = CHUNK
    while step * CHUNK < size:
        step *= CHUNK
    return step


def range_path(parent: Key, unit: int, size: int) -> list[Key]:
    """The keys of the nested ranges holding unit ``unit`` of ``size``."""
    out: list[Key] = []
    lo, hi = 0, size
    while hi - lo > CHUNK:
        step = _step(hi - lo)
        glo = lo + (unit - lo) // step * step
        lo, hi = glo, min(glo + step, hi)
        out.append(("range", parent, lo, hi))
    return out


class Dissection:
    """The tree of one loaded wire. ``children`` builds a node's children;
    ``path`` gives the keys from the root to the deepest node holding a byte.
    The body's JSON structure needs ``Loaded.json_values``: ``structure_ready``
    says whether it is there (a large document's is built in a worker)."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.layout = loaded.layout
        layout = self.layout
        self.form = loaded.form
        self.text_form = self.form in ("model-text", "text")
        self.body = None if layout is None else layout.body
        self.ref_wire = layout.ref_wire if layout is not None else array("q")
        self.ref_index = layout.ref_index if layout is not None else array("q")
        self.ref_doc = layout.ref_doc if layout is not None else array("q")
        self.entries = layout.entries if layout is not None else ()
        self.marker = layout.marker if layout is not None else b""
        self._json: _Items | None = None
        self._kind = b""  # each JSON value's kind letter (codec.JsonValues.kind)
        self._cbor: _Items | None = None
        if layout is not None and layout.cbor is not None and len(layout.cbor):
            c = layout.cbor
            self._cbor = _Items(c.start, c.end, c.parent, len(loaded.wire), nested=loaded.error is None)
        self._entry_starts = loaded.entry_starts()  # v2's dictionary lines (empty for the other forms)
        error = loaded.error
        self.error_at = None if error is None else error.offset

    # --- the body's structure ------------------------------------------------------------

    @property
    def has_structure(self) -> bool:
        """The body has a JSON structure to show (a document was rebuilt)."""
        return self.form != "binary" and self.body is not None and self.loaded.document is not None

    @property
    def structure_ready(self) -> bool:
        return self._json is not None or not self.has_structure

    def build_structure(self) -> None:
        """Read the document's JSON values (a second for 16 MiB: call it in a worker)."""
        if self._json is None and self.has_structure:
            assert self.loaded.document is not None  # has_structure
            values = self.loaded.json_values()
            if values is not None:
                self._kind = values.kind  # before _json: the interface thread reads _json as "ready"
                self._json = _Items(values.start, values.end, values.parent, len(self.loaded.document),
                                    nested=self.loaded.error is None)

    # --- wire and document offsets of the body (v2's @N, v1 text's ~k) ------------------
    # Loaded.body_to_doc and doc_to_body map v2's references only (Loaded keeps no v1 text
    # table); these read the layout's reference arrays, which both text forms have.

    def _token_end(self, k: int) -> int:
        return self.ref_wire[k] + len(self.marker) + len(b"%d" % self.ref_index[k])

    def _literal_end(self, k: int) -> int:
        return self.ref_doc[k] + len(self.entries[self.ref_index[k]])

    def wire_to_doc(self, wire: int) -> int:
        """The document byte a body byte stands for (a reference: its literal's first)."""
        k = bisect.bisect_right(self.ref_wire, wire) - 1
        assert self.body is not None  # only a wire with a body has body offsets
        if k < 0:
            return wire - self.body.start
        if wire < self._token_end(k):
            return self.ref_doc[k]
        return self._literal_end(k) + wire - self._token_end(k)

    def doc_to_wire(self, doc: int) -> tuple[int, int]:
        """The wire bytes a document byte comes from: the whole reference for a
        byte of a substituted literal, else the one body byte."""
        k = bisect.bisect_right(self.ref_doc, doc) - 1
        assert self.body is not None  # only a wire with a body has a document
        if k < 0:
            w = self.body.start + doc
        elif doc < self._literal_end(k):
            return self.ref_wire[k], self._token_end(k)
        else:
            w = self._token_end(k) + doc - self._literal_end(k)
        return w, w + 1

    def _reference_at(self, doc: int, size: int) -> int | None:
        """The reference whose literal is exactly the document bytes ``doc:doc+size``."""
        k = bisect.bisect_right(self.ref_doc, doc) - 1
        if k >= 0 and self.ref_doc[k] == doc and len(self.entries[self.ref_index[k]]) == size:
            return k
        return None

    # --- nodes -------------------------------------------------------------------------

    def root(self) -> Node:
        loaded = self.loaded
        text = f"{loaded.title} wire, {len(loaded.wire):,} bytes"
        if loaded.error is not None:
            text += f", rejected ({loaded.error.code})"
        return Node(("wire",), text, 0, len(loaded.wire), expandable=True)

    def children(self, node: Node) -> list[Node]:
        """The node's children, built now; the malformed node is the last child
        of the deepest node holding the diagnostic's byte."""
        key = node.key
        head = key[0]
        if head == "wire":
            out = self._tops()
        elif head == "field" and len(key) == 2:
            out = self._field_parts(key[1])
        elif head == "range":
            out = self._units(key[1], key[2], key[3])
        elif head == "body":
            out = self._body_children()
        elif head in ("dict", "v", "c") and node.expandable:
            out = self._units(key, 0, self._size(key))
        else:
            out = []
        holder = self.malformed_parent()
        if holder is None:
            return out
        if key == holder:
            out.append(self._malformed())
        return [replace(c, expandable=True) if c.key == holder and not c.expandable else c for c in out]

    def malformed_parent(self) -> Key | None:
        """The key of the node the malformed node hangs under: the deepest node
        holding the diagnostic's byte (the body, while its structure is read)."""
        if self.loaded.error is None:
            return None
        if self.error_at is None:
            return ("wire",)
        if self._in_body(self.error_at) and not self.structure_ready and len(self.loaded.document or b"") > BUILD_IN_WORKER:
            return ("body",)
        return self._structural(self.error_at)[-1]

    def _malformed(self) -> Node:
        error = self.loaded.error
        assert error is not None  # malformed_parent: only a rejected wire has the node
        at = self.error_at
        where = "" if at is None else f" at byte {at:,}"
        text = f"malformed{where}: {error.code}: {display_value(error.message.encode())}"
        start = len(self.loaded.wire) if at is None else at
        return Node(("malformed",), text, start, start + 1, kind="malformed")

    def _in_body(self, offset: int | None) -> bool:
        return self.body is not None and offset is not None and offset >= self.body.start

    def _tops(self) -> list[Node]:
        loaded, layout = self.loaded, self.layout
        out: list[Node] = []
        wire = loaded.wire
        if layout is not None and layout.header is not None:
            h = layout.header
            line = wire[h.start:h.end].rstrip(b"\n")
            what = "magic" if self.form == "binary" else "header"
            out.append(Node(("header",), f"{what} {cut(line)}", h.start, h.end))
        for i, f in enumerate(loaded.fields):
            out.append(Node(("field", i), f"{f.name}: {cut(f.raw)}", f.line.start, f.line.end, expandable=True))
        if loaded.dict_span is not None:
            d = loaded.dict_span
            n = len(loaded.entries)
            read = "" if n == loaded.declared_entries else f", {plural(n, 'entry', 'entries')} read"
            out.append(Node(("dict",), f"dict {loaded.declared_entries:,}{read}", d.start, d.end,
                            expandable=n > 0))
        if layout is not None and layout.body_marker is not None:
            m = layout.body_marker
            out.append(Node(("marker",), "body line", m.start, m.end))
        if self.body is not None:
            out.append(self._body_node())
        return out

    def _body_node(self) -> Node:
        b = self.body
        assert b is not None  # _tops adds the node only then
        size = b.end - b.start
        if self.form == "binary":
            text = f"body: CBOR, {size:,} bytes"
        elif self.form == "json":
            text = f"document: {size:,} bytes"
        elif not self.text_form:
            text = f"the bytes: {size:,} (not a wire)"
        else:
            refs = len(self.ref_wire)
            what = "@N" if self.form == "model-text" else "~k"
            text = f"body: {size:,} bytes, {plural(refs, 'reference')} ({what})"
            if self.loaded.document is not None:
                text += f", {len(self.loaded.document):,} bytes expanded"
        return Node(("body",), text, b.start, b.end, expandable=True)

    def _body_children(self) -> list[Node]:
        assert self.body is not None  # _tops adds the body node only then
        out: list[Node] = []
        if self.form == "binary":
            if self._cbor is not None:
                out = self._units(("c", -1), 0, self._size(("c", -1)))
        elif self.has_structure:
            if self._json is None:
                assert self.loaded.document is not None  # has_structure
                if len(self.loaded.document) > BUILD_IN_WORKER:
                    return [Node(("pending",), "reading the JSON structure…", self.body.start, self.body.end,
                                 kind="pending")]
                self.build_structure()
            out = self._units(("v", -1), 0, self._size(("v", -1)))
        else:
            out.append(Node(("nodoc",), "the document could not be rebuilt from this body", self.body.start,
                            self.body.end))
        return out

    def _field_parts(self, i: int) -> list[Node]:
        f = self.loaded.fields[i]
        out = []
        if f.length.start > f.line.start:  # text forms spell the name; binary's is implied by the order
            out.append(Node(("field", i, "name"), f"name: {f.name}", f.line.start, f.line.start + len(f.name)))
        digits = self.loaded.wire[f.length.start:f.length.end]
        shown = f"{len(f.raw):,} bytes" if f.length.start > f.line.start \
            else f"0x{digits.hex()} = {len(f.raw):,} bytes (LEB128)"
        out.append(Node(("field", i, "length"), f"length: {shown}", f.length.start, f.length.end))
        out.append(Node(("field", i, "value"), f"value: {cut(f.raw)}", f.value.start, f.value.end))
        return out

    # --- units: entries, JSON members and items, CBOR items --------------------------------

    def _items(self, key: Key) -> _Items:
        return self._json if key[0] == "v" else self._cbor  # type: ignore[return-value]

    def _is_map(self, key: Key) -> bool:
        j = key[1]
        if j < 0:
            return False
        if key[0] == "v":
            return self._kind[j] == ord("o")
        assert self.layout is not None and self.layout.cbor is not None  # a "c" key: a binary wire's items
        return self.layout.cbor.major[j] == 5

    def _size(self, key: Key) -> int:
        """How many units ``key`` holds: entries, members (a key and its value) or items."""
        if key[0] == "dict":
            return len(self.loaded.entries)
        n = len(self._items(key).children(key[1]))
        return (n + 1) // 2 if self._is_map(key) else n

    def _units(self, key: Key, lo: int, hi: int) -> list[Node]:
        if hi - lo > CHUNK:
            step = _step(hi - lo)
            return [self._range(key, a, min(a + step, hi)) for a in range(lo, hi, step)]
        return [self._unit(key, u) for u in range(lo, hi)]

    def _range(self, key: Key, lo: int, hi: int) -> Node:
        first, last = self._unit_span(key, lo), self._unit_span(key, hi - 1)
        what = "entries" if key[0] == "dict" else "members" if self._is_map(key) else "items"
        doc = None if first[2] is None or last[2] is None else (first[2][0], last[2][1])
        return Node(("range", key, lo, hi), f"{what} {lo:,} … {hi - 1:,}", first[0], last[1], doc,
                    expandable=True, kind="range")

    def _unit_span(self, key: Key, u: int) -> tuple[int, int, tuple[int, int] | None]:
        if key[0] == "dict":
            span = self.loaded.entry_spans[u]
            return span.start, span.end + 1, None
        members = self._items(key).children(key[1])
        if self._is_map(key):
            first, last = members[2 * u], members[min(2 * u + 1, len(members) - 1)]
        else:
            first = last = members[u]
        return self._span(key[0], first, last)

    def _span(self, kind: str, first: int, last: int) -> tuple[int, int, tuple[int, int] | None]:
        """Wire span (and document span, for JSON) from item ``first``'s start to ``last``'s end."""
        items = self._json if kind == "v" else self._cbor
        assert items is not None  # a unit of a structure that was built
        s, e = items.start[first], items.end_of(last)
        if kind == "c":
            return s, e, None
        if self.form == "json":
            return s, e, (s, e)
        return self.doc_to_wire(s)[0], self.doc_to_wire(max(e - 1, s))[1], (s, e)

    def _unit(self, key: Key, u: int) -> Node:
        if key[0] == "dict":
            return self._entry(u)
        members = self._items(key).children(key[1])
        if not self._is_map(key):
            node = self._item(key[0], members[u])
            return node if key[1] < 0 else replace(node, text=f"[{u}] {node.text}")  # an array's item
        k = members[2 * u]
        if 2 * u + 1 >= len(members):  # a key whose value was never read
            s, e, doc = self._span(key[0], k, k)
            return Node((key[0], k), f"{self._leaf(key[0], k)}: (no value)", s, e, doc, kind="value")
        v = members[2 * u + 1]
        node = self._item(key[0], v)
        s, _e, doc = self._span(key[0], k, v)
        return Node(node.key, f"{self._leaf(key[0], k)}: {node.text}", s, node.end,
                    None if doc is None or node.doc is None else (doc[0], node.doc[1]), node.expandable, node.kind)

    def _entry(self, i: int) -> Node:
        span = self.loaded.entry_spans[i]
        uses = self.loaded.reference_counts[i] if i < len(self.loaded.reference_counts) else 0
        text = f"@{i} {cut(self.loaded.entries[i])} ({plural(uses, 'use')})"
        return Node(("entry", i), text, span.start, span.end + 1, kind="reference")

    def _item(self, kind: str, j: int) -> Node:
        s, e, doc = self._span(kind, j, j)
        if kind == "v":
            container = self._kind[j] in b"oa"
        else:
            assert self.layout is not None and self.layout.cbor is not None  # a binary wire's items
            container = self.layout.cbor.major[j] in (4, 5)
        if container:
            n = self._size((kind, j))
            is_map = self._is_map((kind, j))
            text = ("{…} " if is_map else "[…] ") + plural(n, "member" if is_map else "item")
            return Node((kind, j), text, s, e, doc, expandable=n > 0, kind="value")
        text = self._leaf(kind, j)
        return Node((kind, j), text, s, e, doc, kind="reference" if text[:1] in "@~" else "value")

    def _leaf(self, kind: str, j: int) -> str:
        if kind == "c":
            return self._diagnostic(j)
        items = self._json
        assert items is not None and self.loaded.document is not None  # the structure was built
        s, e = items.start[j], items.end_of(j)
        raw = self.loaded.document[s:e]
        k = self._reference_at(s, e - s) if self.text_form else None
        if k is None:
            return cut(raw)
        if self.form == "model-text":
            return f"@{self.ref_index[k]} {cut(raw)}"
        assert self.layout is not None  # a reference was read
        first = self.layout.entry_spans[self.ref_index[k]].start
        return f"~{self.ref_index[k]} {cut(raw)} (as at byte {first:,})"

    # --- CBOR in diagnostic notation (RFC 8949 §8) -------------------------------------------

    def _argument(self, j: int) -> int:
        assert self.layout is not None and self.layout.cbor is not None  # a binary wire's items
        c, wire = self.layout.cbor, self.loaded.wire
        head = wire[c.start[j]:c.head_end[j]]
        return head[0] & 31 if len(head) == 1 else int.from_bytes(head[1:], "big")

    def _diagnostic(self, j: int) -> str:
        assert self.layout is not None and self.layout.cbor is not None and self._cbor is not None  # binary
        c, wire = self.layout.cbor, self.loaded.wire
        major, s, h, e = c.major[j], c.start[j], c.head_end[j], self._cbor.end_of(j)
        arg = self._argument(j)
        if major == 0:
            return str(arg)
        if major == 1:
            return str(-1 - arg)
        if major == 2:
            return cut(b"h'" + wire[h:e].hex().encode() + b"'")
        if major == 3:
            text = wire[h:e].decode("utf-8", "replace")
            return cut(json.dumps(text, ensure_ascii=False).encode())
        if major == 7:
            ai = wire[s] & 31
            simple = {20: "false", 21: "true", 22: "null", 23: "undefined"}
            if ai in simple:
                return simple[ai]
            if ai in (25, 26, 27):
                return _float(wire[s + 1:h], ai)
            return f"simple({arg})"
        if major == 6:
            inner = self._cbor.children(j)
            return f"{arg}({self._diagnostic(inner[0]) if inner else '…'})"
        return "?"

    # --- the deepest node holding a byte -------------------------------------------------

    def path(self, offset: int) -> list[Key]:
        """The keys from the root to the deepest node holding wire byte ``offset``
        (the malformed node for the diagnostic's byte), found without building
        the tree."""
        out = self._structural(offset)
        if offset == self.error_at:
            out.append(("malformed",))
        return out

    def _structural(self, offset: int) -> list[Key]:
        loaded, layout = self.loaded, self.layout
        out: list[Key] = [("wire",)]
        if layout is None:
            return out
        if layout.header is not None and layout.header.start <= offset < layout.header.end:
            return out + [("header",)]
        for i, f in enumerate(loaded.fields):
            if f.line.start <= offset < f.line.end:
                out.append(("field", i))
                for part, span in (("length", f.length), ("value", f.value)):
                    if span.start <= offset < span.end:
                        return out + [("field", i, part)]
                if f.length.start > f.line.start and offset < f.line.start + len(f.name):
                    out.append(("field", i, "name"))
                return out
        if loaded.dict_span is not None and loaded.dict_span.start <= offset < loaded.dict_span.end:
            return out + [("dict",)]
        k = bisect.bisect_right(self._entry_starts, offset) - 1
        if k >= 0 and offset <= loaded.entry_spans[k].end:  # the literal and its LF
            return out + [("dict",), *range_path(("dict",), k, len(loaded.entries)), ("entry", k)]
        if layout.body_marker is not None and layout.body_marker.start <= offset < layout.body_marker.end:
            return out + [("marker",)]
        if not self._in_body(offset):
            return out
        out.append(("body",))
        if offset >= len(loaded.wire):  # past the end: where a truncated body stopped
            return out
        if self.form == "binary":
            if self._cbor is not None:
                out += self._item_path("c", self._cbor, self._cbor.deepest(offset))
            return out
        if self._json is None:
            if self.has_structure and len(loaded.document or b"") <= BUILD_IN_WORKER:
                self.build_structure()
            if self._json is None:
                return out
        doc = offset if self.form == "json" else self.wire_to_doc(offset)
        return out + self._item_path("v", self._json, self._json.deepest(doc))

    def _item_path(self, kind: str, items: _Items, j: int) -> list[Key]:
        if j < 0:
            return []
        out: list[Key] = []
        chain = items.chain(j)
        parent: Key = (kind, -1)
        for a in chain:
            members = items.children(parent[1])
            pos = bisect.bisect_left(members, a)
            if pos == len(members) or members[pos] != a:
                break  # a document that stopped making sense: the deepest node found so far
            is_map = self._is_map(parent)
            unit = pos // 2 if is_map else pos
            size = (len(members) + 1) // 2 if is_map else len(members)
            out += range_path(parent, unit, size)
            if is_map and pos % 2 == 0:  # a key: its member (named by the value, if any) is the deepest
                out.append((kind, members[pos + 1] if pos + 1 < len(members) else a))
                break
            out.append((kind, a))
            parent = (kind, a)
        return out


#: Documents larger than this have their JSON structure read in a worker.
BUILD_IN_WORKER = 1 << 20


def _float(payload: bytes, ai: int) -> str:
    """A CBOR float in diagnostic notation (RFC 8949 §8: ``Infinity``, ``NaN``)."""
    fmt = {25: ">e", 26: ">f", 27: ">d"}[ai]
    try:
        (value,) = struct.unpack(fmt, payload)
    except struct.error:
        return "?"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


__all__ = ["CHUNK", "Dissection", "Node", "cut", "plural", "range_path"]
