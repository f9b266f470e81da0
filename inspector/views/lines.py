"""A Line-API view of large byte content (the technique of Textualize's toolong):
lines are byte ranges of the content computed up front (wrapped to a width, or
indented for reading), only visible lines are rendered, and rendered strips are
kept in an LRU cache. A 16 MiB single-line JSON body paints as fast as a small one.

Positions are byte offsets into the content everywhere, so highlights, the
cursor and the other pane's position map without re-reading anything."""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from codec import STRING as STRING_TOKEN
from codec.visible import visible_bytes

_STRUCTURE = re.compile(b"(" + STRING_TOKEN + rb")|([\[\]{},])")


@dataclass(frozen=True)
class Fold:
    """A folded container: the bytes ``start:end`` (its brackets included) are
    drawn as ``{…}`` or ``[…]`` and ``label`` on one line. The bytes stay where
    they are: a fold changes which lines are shown, never an offset."""

    start: int
    end: int
    label: str


@dataclass(frozen=True)
class Layout:
    """Line ``i`` shows ``content[starts[i]:ends[i]]`` after ``indents[i]`` spaces;
    line ``fold_lines[j]`` holds the folded container ``folds[j]``, and draws the
    bytes of that range outside the container's inside only."""

    starts: array
    ends: array
    indents: array
    width: int  # widest line, for the horizontal scrollbar
    folds: tuple[Fold, ...] = ()
    fold_lines: array = field(default_factory=lambda: array("q"))

    def __len__(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        i = bisect.bisect_right(self.starts, offset) - 1
        return max(0, min(i, len(self.starts) - 1))

    def fold_on(self, line: int) -> Fold | None:
        """The fold line ``line`` draws, if it is one."""
        j = bisect.bisect_left(self.fold_lines, line)
        return self.folds[j] if j < len(self.fold_lines) and self.fold_lines[j] == line else None


def outermost(folds: Sequence[Fold]) -> list[Fold]:
    """The folds in byte order, each one inside an earlier fold dropped (it is hidden anyway)."""
    kept: list[Fold] = []
    for f in sorted(folds, key=lambda f: (f.start, -f.end)):
        if f.end - f.start >= 2 and (not kept or f.start >= kept[-1].end):
            kept.append(f)
    return kept


def fold_layout(base: Layout, folds: Sequence[Fold], *, split: bool) -> Layout:
    """``base`` with each folded container drawn on one line. The lines between are
    copied as array slices, so folding a 16 MiB document costs a few copies of its
    line arrays and nothing per line.

    Reading view (``split`` false): the fold line runs from the start of the line
    holding the opening bracket to the end of the line holding the closing one
    (``"rows":[…],``). Exact view (``split`` true): lines are cut at byte widths,
    not at the structure, so the fold gets its own line from its opening bracket
    to its closing one, and the bytes before and after it on their wrapped lines
    stay lines of their own. In the reading view a fold that would share its line
    with the previous one is left unfolded (the reading layout starts a line
    after every bracket that opens a non-empty container, so only an odd document
    has one)."""
    kept = outermost(folds)
    if not kept or not len(base):
        return base
    starts, ends, indents = array("q"), array("q"), array("q")
    shown: list[Fold] = []
    fold_lines = array("q")
    width = base.width
    i = 0  # the next base line to copy
    tail: tuple[int, int, int] | None = None  # exact view: the rest of a wrapped line after a fold

    def copy(upto: int) -> None:
        starts.extend(base.starts[i:upto])
        ends.extend(base.ends[i:upto])
        indents.extend(base.indents[i:upto])

    def emit(start: int, end: int, indent: int) -> None:
        starts.append(start)
        ends.append(end)
        indents.append(indent)

    for f in kept:
        a, b = base.line_of(f.start), base.line_of(f.end - 1)
        if split:
            if tail is not None and a == i - 1:
                line_start = tail[0]
            else:
                if tail is not None:
                    emit(*tail)
                copy(a)
                line_start = base.starts[a]
            tail = None
            if line_start < f.start:
                emit(line_start, f.start, base.indents[a])
            line_start, line_end = f.start, f.end
            if f.end < base.ends[b]:
                tail = (f.end, base.ends[b], base.indents[b])
        else:
            if a < i:
                continue
            copy(a)
            line_start, line_end = base.starts[a], base.ends[b]
        fold_lines.append(len(starts))
        shown.append(f)
        emit(line_start, line_end, base.indents[a])
        width = max(width, base.indents[a] + (f.start + 1 - line_start) + 1 + (line_end - f.end + 1) + 2 + len(f.label))
        i = b + 1
    if tail is not None:
        emit(*tail)
    copy(len(base))
    return Layout(starts, ends, indents, width, tuple(shown), fold_lines)


def wrapped_layout(data: bytes, width: int) -> Layout:
    """Fixed-width lines, never splitting a UTF-8 character, breaking at LF."""
    width = max(width, 8)
    n = len(data)
    if data.isascii() and b"\n" not in data:  # the common case, computed in C
        starts = array("q", range(0, max(n, 1), width))
        ends = array("q", range(width, n + width, width)) if n else array("q", [0])
        ends[-1] = n
        return Layout(starts, ends, array("q", bytes(8 * len(starts))), width)
    starts, ends = array("q"), array("q")
    pos = 0
    while pos < n or not starts:
        nl = data.find(b"\n", pos, pos + width)
        if nl >= 0:
            end, nxt = nl, nl + 1
        else:
            end = min(pos + width, n)
            while end < n and (data[end] & 0xC0) == 0x80:
                end += 1
            nxt = end
        starts.append(pos)
        ends.append(end)
        pos = nxt
        if pos >= n:
            break
    return Layout(starts, ends, array("q", bytes(8 * len(starts))), width)


def reading_layout(data: bytes, indent: int = 2) -> Layout:
    """An indented reading view of JSON-like bytes (references and all): a line
    break after ``{``, ``[`` and ``,`` and before ``}`` and ``]``, outside
    strings; each line is still one contiguous byte range of the content."""
    starts, ends, indents = array("q"), array("q"), array("q")
    depth = 0
    line_start = 0
    widest = 0

    def emit(end: int, next_start: int, level: int) -> None:
        nonlocal line_start, widest
        if end > line_start:
            starts.append(line_start)
            ends.append(end)
            indents.append(level * indent)
            widest = max(widest, level * indent + end - line_start)
        line_start = next_start

    level_of_line = 0
    for m in _STRUCTURE.finditer(data):
        if m.group(1) is not None:
            continue
        c = data[m.start()]
        p = m.start()
        if c in b"[{":
            if p + 1 < len(data) and data[p + 1] in b"]}":
                continue  # an empty container stays on its line
            emit(p + 1, p + 1, level_of_line)
            depth += 1
            level_of_line = depth
        elif c in b"]}":
            if p > 0 and data[p - 1] in b"[{":
                continue
            emit(p, p, level_of_line)
            depth = max(depth - 1, 0)
            level_of_line = depth
        else:  # comma
            emit(p + 1, p + 1, level_of_line)
    emit(len(data), len(data), level_of_line)
    if not starts:
        starts.append(0)
        ends.append(0)
        indents.append(0)
    return Layout(starts, ends, indents, widest)


@dataclass(frozen=True)
class Mark:
    """One highlighted span (a search hit, the current reference, an error)."""

    start: int
    end: int
    style: str  # a component class name suffix: "ref", "current", "match", "error"


@dataclass(frozen=True)
class MarkSet:
    """Many spans of one style, as parallel sorted sequences, so 260,000
    references cost two arrays instead of 260,000 objects."""

    starts: Sequence[int]
    ends: Sequence[int]
    style: str = "ref"


NO_MARKS = MarkSet((), ())


class LineView(ScrollView, can_focus=True):
    """Scrollable, virtualised view of bytes with marked spans and a line cursor."""

    COMPONENT_CLASSES = {
        "lineview--ref",
        "lineview--current",
        "lineview--match",
        "lineview--error",
        "lineview--cursor",
        "lineview--cell",
        "lineview--dim",
        "lineview--fold",
    }

    DEFAULT_CSS = """
    LineView { background: $surface; }
    LineView > .lineview--ref { color: $accent; text-style: bold; }
    LineView > .lineview--current { background: $warning; color: $background; text-style: bold; }
    LineView > .lineview--match { background: $success; color: $background; }
    LineView > .lineview--error { background: $error; color: $background; text-style: bold; }
    LineView > .lineview--cursor { background: $primary-muted; }
    LineView > .lineview--cell { text-style: reverse bold; }
    LineView > .lineview--dim { color: $text-muted; }
    LineView > .lineview--fold { color: $text-muted; text-style: italic; }
    """

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "Top", show=False),
        Binding("end", "edge(1)", "Bottom", show=False),
        Binding("left", "column(-1)", "Left", show=False),
        Binding("right", "column(1)", "Right", show=False),
        Binding("enter", "activate", "Follow @N", show=False),
    ]

    cursor_line = reactive(0, always_update=True, repaint=False)  # watch_cursor_line repaints

    class CursorMoved(Message):
        """The cursor moved to the line starting at ``offset`` (a content offset)."""

        def __init__(self, view: LineView, offset: int) -> None:
            super().__init__()
            self.view = view
            self.offset = offset

        @property
        def control(self) -> LineView:
            return self.view

    class Activated(Message):
        """Enter was pressed with the cursor at ``offset``, on the line spanning
        ``start`` to ``end``."""

        def __init__(self, view: LineView, start: int, end: int, offset: int) -> None:
            super().__init__()
            self.view = view
            self.start = start
            self.end = end
            self.offset = offset

        @property
        def control(self) -> LineView:
            return self.view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.data = b""
        self.layout_mode = "wrap"
        self.lines: Layout = wrapped_layout(b"", 80)
        self._base: Layout = self.lines  # the layout before folding
        self.folds: tuple[Fold, ...] = ()  # folded containers, drawn one line each
        self.marks: MarkSet = NO_MARKS
        self._max_mark = 0
        self.focus_marks: list[Mark] = []  # current reference, search hit, error
        self._cache: LRUCache[tuple, Strip] = LRUCache(1024)
        self._version = 0
        self._wrap_width = 0
        self._anchor = 0
        self._column = 0  # bytes from the start of the cursor's line

    # --- content --------------------------------------------------------------------

    def set_content(self, data: bytes, marks: MarkSet | None = None, layout: Layout | None = None,
                    mode: str = "wrap") -> None:
        self.data = data
        self.layout_mode = mode
        self.set_marks(marks or NO_MARKS)
        self.focus_marks = []
        self._wrap_width = self._content_width()
        self.folds = ()
        self._base = self.lines = layout or wrapped_layout(data, self._wrap_width)
        self._changed()
        self._column = 0
        self.cursor_line = 0
        self.scroll_to(0, 0, animate=False)

    def set_layout(self, layout: Layout, mode: str) -> None:
        offset = self.anchor
        self.layout_mode = mode
        self._base = layout
        self.lines = fold_layout(layout, self.folds, split=mode == "wrap")
        if mode == "wrap":  # wrapped lines fit the width: a horizontal scroll left over would hide bytes
            self._wrap_width = self._content_width()
            self.scroll_to(x=0, animate=False)
        self._changed()
        self.go_to_offset(offset)

    def set_folds(self, folds: Sequence[Fold], *, offset: int | None = None) -> None:
        """Fold these containers (every other unfolded), in the exact and the
        reading layout alike; the cursor stays on ``offset`` (default: its byte),
        on the fold line when a fold hides that byte."""
        offset = self.anchor if offset is None else offset
        self.folds = tuple(folds)
        self.lines = fold_layout(self._base, self.folds, split=self.layout_mode == "wrap")
        self._changed()
        self.go_to_offset(offset, center=False)

    def hidden(self, offset: int) -> Fold | None:
        """The fold hiding byte ``offset`` (inside its brackets), if any."""
        fold = self.lines.fold_on(self.lines.line_of(offset))
        return fold if fold is not None and fold.start < offset < fold.end - 1 else None

    def set_marks(self, marks: MarkSet) -> None:
        self.marks = marks
        self._max_mark = max(map(int.__sub__, marks.ends, marks.starts), default=0)
        self._changed()

    def set_focus_marks(self, marks: list[Mark]) -> None:
        self.focus_marks = marks
        self._changed()

    def _changed(self) -> None:
        self._version += 1
        self._cache.clear()
        self.virtual_size = Size(self.lines.width + 1, len(self.lines))
        self.refresh()

    def _content_width(self) -> int:
        width = self.scrollable_content_region.width if self.is_mounted else 0
        return max((width or 80) - 1, 16)

    def on_resize(self, event: events.Resize) -> None:
        self._rewrap()

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        """A scrollbar that appears takes columns without a Resize: the lines were wrapped
        for the wider view and their last character would sit under the edge."""
        self.call_after_refresh(self._rewrap)

    def _rewrap(self) -> None:
        if self.layout_mode == "wrap" and self.data is not None:
            width = self._content_width()
            if width != self._wrap_width:
                offset = self.anchor
                self._wrap_width = width
                self._base = wrapped_layout(self.data, width)
                self.lines = fold_layout(self._base, self.folds, split=True)
                self._changed()
                self.go_to_offset(offset)

    # --- positions ------------------------------------------------------------------

    @property
    def cursor_offset(self) -> int:
        """The byte under the cursor: its line's start plus its column."""
        if not len(self.lines):
            return 0
        line = min(self.cursor_line, len(self.lines) - 1)
        start, end = self.lines.starts[line], self.lines.ends[line]
        return start + max(0, min(self._column, end - start - 1 if end > start else 0))

    @property
    def anchor(self) -> int:  # type: ignore[override]  # shadows Textual's Widget.anchor(), never called on this view
        """The exact offset the cursor was last sent to, while it is still on
        that line; re-wrapping keeps it in view rather than the line's start."""
        line = min(self.cursor_line, len(self.lines) - 1)
        if len(self.lines) and self.lines.starts[line] <= self._anchor < max(self.lines.ends[line], self.lines.starts[line] + 1):
            return self._anchor
        return self.cursor_offset

    def go_to_offset(self, offset: int, *, center: bool = True) -> None:
        line = self.lines.line_of(offset)
        self._column = max(offset - self.lines.starts[line], 0)
        self.cursor_line = line
        self._anchor = offset
        self.scroll_to_line(line, center=center)
        self._scroll_to_column()

    def _scroll_to_column(self) -> None:
        if self.layout_mode == "wrap":
            return
        line = min(self.cursor_line, len(self.lines) - 1)
        x = self.lines.indents[line] + self._column_of(line, self.cursor_offset)
        width = max(self.scrollable_content_region.width, 1)
        if not self.scroll_offset.x <= x < self.scroll_offset.x + width:
            self.scroll_to(x=max(x - width // 2, 0), animate=False)

    def _column_of(self, line: int, offset: int) -> int:
        """The screen column of byte ``offset`` on ``line`` (indent excluded): on a
        fold line the inside of the container is one ``…`` cell."""
        start = self.lines.starts[line]
        fold = self.lines.fold_on(line)
        if fold is None or offset <= fold.start:
            return offset - start
        if offset < fold.end - 1:
            return fold.start + 1 - start
        return fold.start + 2 - start + offset - (fold.end - 1)

    def _settle_column(self) -> None:
        """After an up/down move onto a fold line, a column inside the hidden bytes
        is put on the opening bracket, so the cursor stands on a byte it shows."""
        line = min(self.cursor_line, len(self.lines) - 1)
        fold = self.lines.fold_on(line) if len(self.lines) else None
        if fold is not None and fold.start < self.lines.starts[line] + self._column < fold.end - 1:
            self._column = fold.start - self.lines.starts[line]

    def scroll_to_line(self, line: int, *, center: bool = True) -> None:
        height = max(self.scrollable_content_region.height, 1)
        top = line - height // 2 if center else line
        if not center and self.scroll_offset.y <= line < self.scroll_offset.y + height:
            return
        self.scroll_to(y=max(top, 0), animate=False)
        # A view just shown or re-sized has not been laid out yet, and its old
        # size would clamp the scroll: scroll again once the layout is done.
        self.call_after_refresh(self._scroll_after_layout, line, center)

    def _scroll_after_layout(self, line: int, center: bool) -> None:
        height = max(self.scrollable_content_region.height, 1)
        if self.scroll_offset.y <= line < self.scroll_offset.y + height:
            return
        top = line - height // 2 if center else line
        self.scroll_to(y=max(top, 0), animate=False)

    def top_offset(self) -> int:
        """Content offset of the first visible line, for syncing another pane."""
        if not len(self.lines):
            return 0
        return self.lines.starts[min(int(self.scroll_offset.y), len(self.lines) - 1)]

    def watch_cursor_line(self, old: int, new: int) -> None:
        # cached strips are keyed by whether they hold the cursor: repaint the two lines
        # that changed, not the whole view (a scroll repaints everything anyway)
        self.refresh_line(old)
        self.refresh_line(new)

    def moved_by_user(self) -> None:
        """Only moves the user makes are announced, so a pane that follows another
        never echoes back a stale position."""
        if len(self.lines):
            self.post_message(self.CursorMoved(self, self.cursor_offset))

    # --- actions --------------------------------------------------------------------

    def action_cursor(self, delta: int) -> None:
        self.cursor_line = max(0, min(self.cursor_line + delta, len(self.lines) - 1))
        self._settle_column()
        self.scroll_to_line(self.cursor_line, center=False)
        self.moved_by_user()

    def action_page(self, direction: int) -> None:
        height = max(self.scrollable_content_region.height - 1, 1)
        self.action_cursor(direction * height)

    def action_edge(self, end: int) -> None:
        self.cursor_line = len(self.lines) - 1 if end else 0
        self._settle_column()
        self.scroll_to_line(self.cursor_line, center=False)
        self.moved_by_user()

    def action_column(self, delta: int) -> None:
        """Left and right by one character (a whole UTF-8 sequence), across lines."""
        if not len(self.lines):
            return
        offset = self.cursor_offset
        line = min(self.cursor_line, len(self.lines) - 1)
        start, end = self.lines.starts[line], self.lines.ends[line]
        if delta > 0:
            step = offset + 1
            while step < end and (self.data[step] & 0xC0) == 0x80:
                step += 1
            if step >= end:
                if line + 1 >= len(self.lines):
                    return
                step = self.lines.starts[line + 1]
        else:
            step = offset - 1
            while step > start and (self.data[step] & 0xC0) == 0x80:
                step -= 1
            if step < start:
                if line == 0:
                    return
                step = max(self.lines.ends[line - 1] - 1, self.lines.starts[line - 1])
        fold = self.hidden(step)
        if fold is not None:  # a fold's inside is one cell: step over it
            step = fold.end - 1 if delta > 0 else fold.start
        self.go_to_offset(step, center=False)
        self.moved_by_user()

    def action_activate(self) -> None:
        line = min(self.cursor_line, len(self.lines) - 1)
        self.post_message(self.Activated(self, self.lines.starts[line], self.lines.ends[line], self.cursor_offset))

    def on_click(self, event: events.Click) -> None:
        line = int(self.scroll_offset.y) + event.y
        if 0 <= line < len(self.lines):
            self.cursor_line = line
            self._settle_column()
            self.moved_by_user()
            if event.chain >= 2:
                self.action_activate()

    # --- rendering ------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.scrollable_content_region.width
        if line >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        key = (line, self._version, self.cursor_line == line and (1 + self.has_focus, self.cursor_offset))
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_full_line(line)
            self._cache[key] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"lineview--{name}", partial=True)

    def _render_full_line(self, line: int) -> Strip:
        start, end = self.lines.starts[line], self.lines.ends[line]
        indent = self.lines.indents[line]
        base = self.rich_style
        if line == self.cursor_line and self.has_focus:
            base = base + self._style("cursor")
        elif line == self.cursor_line:
            base = base + self._style("dim") + self._style("cursor")
        segments: list[Segment] = []
        if indent:
            segments.append(Segment(" " * indent, base))
        fold = self.lines.fold_on(line)
        if fold is None:
            self._byte_segments(segments, start, end, base)
            return Strip(segments).simplify()
        # a fold line: the bytes up to the opening bracket, one cell for the inside, the rest
        self._byte_segments(segments, start, fold.start + 1, base)
        inside = self.has_focus and line == self.cursor_line and fold.start < self.cursor_offset < fold.end - 1
        segments.append(Segment("…", base + self._style("fold") + (self._style("cell") if inside else Style())))
        self._byte_segments(segments, fold.end - 1, end, base)
        segments.append(Segment("  " + fold.label, base + self._style("fold")))
        return Strip(segments).simplify()

    def _byte_segments(self, segments: list[Segment], start: int, end: int, base: Style) -> None:
        """The bytes ``start:end`` as segments, styled where marks fall."""
        pos = start
        for s, e, style in self._spans(start, end):  # boundaries where the style changes
            if s > pos:
                segments.append(Segment(_visible(self.data[pos:s]), base))
            segments.append(Segment(_visible(self.data[max(s, start):e]), base + style))
            pos = e
        if pos < end:
            segments.append(Segment(_visible(self.data[pos:end]), base))

    def _spans(self, start: int, end: int) -> list[tuple[int, int, Style]]:
        """Non-overlapping styled spans within [start, end); focus marks win."""
        found: list[tuple[int, int, Style]] = []
        starts, ends = self.marks.starts, self.marks.ends
        style = self._style(self.marks.style)
        i = bisect.bisect_left(starts, start - self._max_mark)
        while i < len(starts) and starts[i] < end:
            if ends[i] > start:
                found.append((max(starts[i], start), min(ends[i], end), style))
            i += 1
        marks = self.focus_marks
        if self.has_focus and start <= self.cursor_offset < max(end, start + 1):
            cell = self.cursor_offset
            cell_end = cell + 1
            while cell_end < end and (self.data[cell_end] & 0xC0) == 0x80:
                cell_end += 1
            marks = [*marks, Mark(cell, cell_end, "cell")]
        for m in marks:
            if m.start < end and m.end > start:
                s, e = max(m.start, start), min(m.end, end)
                found = [f for f in found if f[1] <= s or f[0] >= e] + [(s, e, self._style(m.style))]
        found.sort(key=lambda f: f[0])
        out: list[tuple[int, int, Style]] = []
        last = start
        for s, e, style in found:
            s = max(s, last)
            if e > s:
                out.append((s, e, style))
                last = e
        return out


def _visible(data: bytes) -> str:
    """Bytes as text that never breaks the screen (the shared rule of codec.visible)."""
    return visible_bytes(data, newline="⏎")
