"""Where a byte of the expanded document sits in its JSON structure: the value
under it, its path (``.definitions.rows[3][0]``), the matching bracket, and what
a folded container holds.

Every answer comes from codec's value spans (``JsonValues``: start, end, kind and
parent of every value in document order, the parse behind
``WireLayout.values``), read with bisection and array slices, so a 16 MiB
document costs no Python object per value or per line. No Textual here: the
body pane asks, tests ask the same questions without a UI."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from codec import JsonValues

_CONTAINERS = b"oa"
_WHITESPACE = b" \t\r\n"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Structure:
    """The JSON values of one document with the queries the body pane asks."""

    document: bytes
    values: JsonValues
    _ordinals: dict[tuple[int, int], int] = field(default_factory=dict, repr=False, compare=False)
    _children: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    # --- values at a byte --------------------------------------------------------

    def end_of(self, i: int) -> int:
        """Where value ``i`` ends; a container left open where the document stopped
        making sense runs to the end of the document."""
        end = self.values.end[i]
        return len(self.document) if end < 0 else end

    def innermost(self, offset: int) -> int:
        """The innermost value holding document byte ``offset``, -1 for none. The
        last value starting at or before it holds it, or one of its containers does."""
        v = self.values
        i = bisect.bisect_right(v.start, offset) - 1
        while i >= 0 and self.end_of(i) <= offset:
            i = v.parent[i]
        return i

    def is_key(self, i: int) -> bool:
        """Whether string ``i`` is an object's key: a string in an object followed by ``:``."""
        v = self.values
        p = v.parent[i]
        if v.kind[i] != ord("s") or p < 0 or v.kind[p] != ord("o"):
            return False
        at = self.end_of(i)
        while at < len(self.document) and self.document[at] in _WHITESPACE:
            at += 1
        return self.document[at:at + 1] == b":"

    def value_at(self, offset: int) -> int:
        """The value a person means at ``offset``: the innermost one, except that a
        key stands for its member's value (which follows it in document order)."""
        i = self.innermost(offset)
        if i >= 0 and self.is_key(i) and i + 1 < len(self.values) and self.values.parent[i + 1] == self.values.parent[i]:
            return i + 1
        return i

    def span(self, i: int) -> tuple[int, int]:
        return self.values.start[i], self.end_of(i)

    # --- containers --------------------------------------------------------------

    def is_container(self, i: int) -> bool:
        return i >= 0 and self.values.kind[i] in _CONTAINERS

    def container_at(self, offset: int) -> int:
        """The container ``f`` folds at ``offset``: the value a person means there when
        it is an object or array (a key names its member's), else the innermost
        container holding the byte; -1 for none."""
        i = self.value_at(offset)
        while i >= 0 and not self.is_container(i):
            i = self.values.parent[i]
        return i

    def last_descendant(self, i: int) -> int:
        """The index of the last value inside ``i`` (``i`` itself when it has none):
        descendants follow their container in document order."""
        return max(bisect.bisect_left(self.values.start, self.end_of(i)) - 1, i)

    def children(self, i: int) -> int:
        """How many values container ``i`` holds directly (keys included), counted
        by C over an array slice (40 ms for the top of 900,000 values on a busy
        machine), remembered: folding and unfolding it again asks again."""
        n = self._children.get(i)
        if n is None:
            n = self._children[i] = self.values.parent[i + 1:self.last_descendant(i) + 1].count(i)
        return n

    def summary(self, i: int) -> str:
        """What a folded container holds: ``12 keys, 3,402 bytes`` / ``40 items, 812 bytes``."""
        start, end = self.span(i)
        n = self.children(i)
        if self.values.kind[i] == ord("o"):
            n = n // 2
            count = f"{n:,} key{'' if n == 1 else 's'}"
        else:
            count = f"{n:,} item{'' if n == 1 else 's'}"
        tail = "" if self.values.end[i] >= 0 else " (not closed)"
        return f"{count}, {end - start:,} bytes{tail}"

    def matching_bracket(self, offset: int) -> int | None:
        """The other bracket of the container whose bracket is at ``offset``; off a
        bracket, the opening bracket of the innermost container holding the byte
        (so ``%`` twice goes from anywhere to both ends). None when there is none."""
        v = self.values
        i = self.innermost(offset)
        if i < 0:
            return None
        if self.is_container(i):
            start, end = v.start[i], v.end[i]
            if offset == start:
                return None if end < 0 else end - 1
            if offset == end - 1:
                return start
        while i >= 0 and not self.is_container(i):
            i = v.parent[i]
        return None if i < 0 else v.start[i]

    # --- string literals ------------------------------------------------------------

    def _token_positions(self, literal: bytes) -> Iterator[int]:
        """Where ``literal`` stands as a whole string token (not as bytes inside a
        longer string, which ``bytes.find`` also meets), in document order."""
        v, n = self.values, len(literal)
        at = self.document.find(literal)
        while at >= 0:
            i = bisect.bisect_left(v.start, at)
            if i < len(v.start) and v.start[i] == at and v.kind[i] == ord("s") and self.end_of(i) == at + n:
                yield at
            at = self.document.find(literal, at + 1)

    def occurrences(self, literal: bytes, cap: int) -> int:
        """How often ``literal`` occurs as a whole string token, counted up to ``cap``."""
        n = 0
        for _ in self._token_positions(literal):
            n += 1
            if n >= cap:
                break
        return n

    def first_occurrence(self, literal: bytes) -> int | None:
        return next(iter(self._token_positions(literal)), None)

    # --- paths -------------------------------------------------------------------

    def steps(self, i: int) -> list[str]:
        """The path steps from the top to value ``i``: ``.name`` or ``["odd key"]``
        for an object's member, ``[n]`` for an array's item."""
        v = self.values
        out: list[str] = []
        while i >= 0:
            p = v.parent[i]
            if p < 0:
                break
            if v.kind[p] == ord("o"):
                key = i if self.is_key(i) else i - 1
                out.append(_key_step(self.document[v.start[key]:self.end_of(key)]))
            else:
                out.append(f"[{self.ordinal(p, i)}]")
            i = p
        return out[::-1]

    def ordinal(self, p: int, i: int) -> int:
        """Which item of array ``p`` value ``i`` is: its siblings before it, counted by C
        over the array slice between them (15 ms across 900,000 values), remembered,
        since a cursor moving inside one item asks again on every key."""
        key = (p, i)
        n = self._ordinals.get(key)
        if n is None:
            if len(self._ordinals) > 4096:
                self._ordinals.clear()
            n = self._ordinals[key] = self.values.parent[p + 1:i].count(p)
        return n

    def path(self, offset: int) -> str:
        """The path of the value at document byte ``offset``, as jq spells it
        (``.`` is the whole document); empty when no value holds the byte."""
        i = self.value_at(offset)
        if i < 0:
            return ""
        text = "".join(self.steps(i))
        return text if text.startswith(".") else "." + text


    def find(self, steps: list[str | int]) -> int:
        """The value at a path given as steps (an object key, an array index), -1
        when the document has none there."""
        v = self.values
        if not len(v):
            return -1
        i = 0
        for step in steps:
            kind = v.kind[i]
            if kind not in _CONTAINERS:
                return -1
            j, n, last = i + 1, 0, self.last_descendant(i)
            found = -1
            while j <= last:
                if kind == ord("o"):
                    if isinstance(step, str) and self._key(j) == step:
                        found = j + 1
                        break
                    j = self.last_descendant(j) + 1  # the key
                    if j > last:
                        break
                elif n == step:
                    found = j
                    break
                else:
                    n += 1
                j = self.last_descendant(j) + 1
            if found < 0 or found > last:
                return -1
            i = found
        return i

    def _key(self, i: int) -> str | None:
        try:
            key = json.loads(self.document[self.values.start[i]:self.end_of(i)])
        except (ValueError, UnicodeDecodeError):
            return None
        return key if isinstance(key, str) else None


_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\]|\\.)*")\]|\[(\d+)(?:→(\d+))?\]')


def path_steps(path: str, side: str = "left") -> list[str | int] | None:
    """A path as compare spells it (``.rows[3→4][0]``, ``.["odd key"]``) as steps,
    on the ``left`` or ``right`` side of a moved index; None when it does not read."""
    steps: list[str | int] = []
    pos = 1 if path.startswith(".") and (len(path) == 1 or path[1] == "[") else 0
    while pos < len(path):
        m = _STEP.match(path, pos)
        if m is None:
            return None
        name, quoted, index, moved = m.groups()
        if name is not None:
            steps.append(name)
        elif quoted is not None:
            steps.append(json.loads(quoted))
        else:
            steps.append(int(moved if side == "right" and moved is not None else index))
        pos = m.end()
    return steps


def _key_step(token: bytes) -> str:
    """A key as a path step: ``.name`` for a plain name, else ``["…"]`` with the
    key spelled as the JSON has it (jq reads JSON string syntax)."""
    try:
        name = json.loads(token)
    except (ValueError, UnicodeDecodeError):
        name = None
    if isinstance(name, str) and _NAME.fullmatch(name):
        return "." + name
    return "[" + token.decode("utf-8", "replace") + "]"
