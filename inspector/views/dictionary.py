"""The dictionary as a virtualised table: 65,536 entries sort, filter and scroll
without building a widget per row (the stock DataTable froze for ~10 s here)."""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..model import Loaded, display_value
from .rows import RowCursorView

COLUMNS = ("#", "literal", "bytes", "refs", "saved B", "cl100k", "o200k")
WIDTHS = (6, 0, 8, 6, 9, 8, 8)  # 0: takes what is left


def header_text(width: int, sort_column: int, reverse: bool, widths: tuple[int, ...] = WIDTHS) -> str:
    cells = []
    literal_width = _literal_width(width, widths)
    for i, (name, w) in enumerate(zip(COLUMNS, widths)):
        label = name + ((" ▼" if reverse else " ▲") if i == sort_column else "")
        w = w or literal_width
        cells.append(label.ljust(w) if i == 1 else label.rjust(w))
    return " ".join(cells)


def _literal_width(width: int, widths: tuple[int, ...] = WIDTHS) -> int:
    return max(width - sum(widths) - len(widths), 12)


def column_widths(loaded: Loaded, saved: dict[str, list[int]]) -> tuple[int, ...]:
    """Each number column wide enough for its widest figure (a 16 MiB wire's
    260,000 references, a seven-digit saving), so no figure is cut; the
    literal column gives up the room."""
    def widest(values: list[str], least: int) -> int:
        return max([least, *map(len, values)])

    n = len(loaded.entries)
    if not n:
        return WIDTHS
    sizes = [f"{len(e):,}" for e in (max(loaded.entries, key=len),)]
    refs = [f"{max(loaded.reference_counts, default=0):,}"]
    saved_b = [f"{loaded.bytes_saved(i):,}" for i in range(n)]
    tokens = [[f"{v:,}" for v in saved.get(name, [])] for name in ("cl100k_base", "o200k_base")]
    return (widest([str(n - 1)], WIDTHS[0]), 0, widest(sizes, WIDTHS[2]), widest(refs, WIDTHS[3]),
            widest([min(saved_b, key=len), max(saved_b, key=len)], WIDTHS[4]),
            widest(tokens[0], WIDTHS[5]), widest(tokens[1], WIDTHS[6]))


class DictionaryView(RowCursorView):
    COMPONENT_CLASSES = {"dictview--cursor", "dictview--dim"}
    DEFAULT_CSS = """
    DictionaryView { background: $surface; }
    DictionaryView > .dictview--cursor { background: $primary-muted; text-style: bold; }
    DictionaryView > .dictview--dim { color: $text-muted; }
    """
    BINDINGS = [Binding("enter", "choose", "Show uses")]

    class Highlighted(Message):
        def __init__(self, index: int | None) -> None:
            super().__init__()
            self.index = index

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class Sorted(Message):
        pass

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.loaded: Loaded | None = None
        self.order: list[int] = []
        self.sort_column = 0
        self.reverse = False
        self.filter_text = ""
        self.tokens_saved: dict[str, list[int]] = {}  # encoding -> per entry
        self.tokens_pending = True  # "…" while counting; "-" when tokens are not counted
        self._cache: LRUCache[tuple, Strip] = LRUCache(512)
        self._version = 0
        self.widths: tuple[int, ...] = WIDTHS  # the columns' widths for this wire's figures

    def set_loaded(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.tokens_saved = {}
        self.widths = column_widths(loaded, {})
        self.sort_column, self.reverse, self.filter_text = 0, False, ""
        self._reorder()
        self.cursor_row = 0

    def set_tokens_saved(self, saved: dict[str, list[int]]) -> None:
        self.tokens_saved = saved
        if self.loaded is not None:
            self.widths = column_widths(self.loaded, saved)
            self.post_message(self.Sorted())  # the header above follows the widths
        if self.sort_column >= 5:
            self._reorder()
        self._refresh_all()

    # --- order ---------------------------------------------------------------------

    def sort_by(self, column: int) -> None:
        if column == self.sort_column:
            self.reverse = not self.reverse
        else:
            self.sort_column, self.reverse = column, column >= 2  # numbers: biggest first
        current = self.current_index
        self._reorder()
        if current is not None and current in self.order:
            self.cursor_row = self.order.index(current)
        self.post_message(self.Sorted())

    def set_filter(self, text: str) -> None:
        self.filter_text = text
        self._reorder()
        self.cursor_row = 0

    def _key(self) -> Callable[[int], object]:
        loaded = self.loaded
        assert loaded is not None
        column = self.sort_column
        if column == 1:
            return lambda i: loaded.entries[i]
        if column == 2:
            return lambda i: len(loaded.entries[i])
        if column == 3:
            return lambda i: loaded.reference_counts[i]
        if column == 4:
            return loaded.bytes_saved
        if column in (5, 6):
            values = self.tokens_saved.get(("cl100k_base", "o200k_base")[column - 5])
            if values:
                return lambda i: values[i]
        return lambda i: i

    def _reorder(self) -> None:
        if self.loaded is None:
            self.order = []
        else:
            indices = range(len(self.loaded.entries))
            if self.filter_text:
                needle = self.filter_text.encode("utf-8", "replace").lower()
                indices = [i for i in indices if needle in self.loaded.entries[i].lower()]
            self.order = sorted(indices, key=self._key(), reverse=self.reverse)
        self.virtual_size = Size(0, len(self.order))  # rows fit the width: no horizontal scroll
        self._refresh_all()

    def _refresh_all(self) -> None:
        self._version += 1
        self._cache.clear()
        self.refresh()

    @property
    def current_index(self) -> int | None:
        if not self.order:
            return None
        return self.order[min(self.cursor_row, len(self.order) - 1)]

    def select_index(self, index: int) -> None:
        if index not in self.order:
            self.filter_text = ""
            self._reorder()
        self.cursor_row = self.order.index(index)
        self.scroll_to_cursor(center=True)

    # --- actions -------------------------------------------------------------------

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._refresh_all()
        self.post_message(self.Highlighted(self.current_index))

    def action_choose(self) -> None:
        if self.current_index is not None:
            self.post_message(self.Chosen(self.current_index))

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character in "1234567" and len(event.character) == 1:
            self.sort_by(int(event.character) - 1)
            event.stop()

    def on_resize(self, event: events.Resize) -> None:
        self._refresh_all()
        self.post_message(self.Sorted())  # the header above follows the new width

    def double_clicked(self) -> None:
        self.action_choose()

    # --- rendering -----------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        if row >= len(self.order) or self.loaded is None:
            return Strip.blank(width, self.rich_style)
        key = (row, width, self._version)
        strip = self._cache.get(key)
        if strip is None:
            strip = Strip([Segment(self.row_text(self.order[row], width), self._row_style(row))])
            self._cache[key] = strip
        return strip.crop_extend(0, width, self.rich_style)

    def _row_style(self, row: int) -> Style:
        if row == self.cursor_row:
            return self.rich_style + self.get_component_rich_style("dictview--cursor", partial=True)
        return self.rich_style

    def row_text(self, index: int, width: int) -> str:
        loaded = self.loaded
        assert loaded is not None
        literal = display_value(loaded.entries[index])
        widths = self.widths
        lw = _literal_width(width, widths)
        if len(literal) > lw:
            literal = literal[: lw - 1] + "…"
        saved = [self.tokens_saved.get(name) for name in ("cl100k_base", "o200k_base")]
        cells = [
            str(index).rjust(widths[0]),
            literal.ljust(lw),
            f"{len(loaded.entries[index]):,}".rjust(widths[2]),
            f"{loaded.reference_counts[index]:,}".rjust(widths[3]),
            f"{loaded.bytes_saved(index):,}".rjust(widths[4]),
            *[(f"{s[index]:,}" if s else "…" if self.tokens_pending else "-").rjust(w)
              for s, w in zip(saved, widths[5:])],
        ]
        return " ".join(cells)
