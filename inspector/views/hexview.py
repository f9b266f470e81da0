"""A hexyl-style byte view of the raw wire, coloured by the part of the envelope
each byte belongs to, with a cursor whose region (field, entry, reference) the
app names in its status line."""

from __future__ import annotations

from rich.segment import Segment
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..model import Loaded
from .rows import RowCursorView

ROW = 16


class HexView(RowCursorView):
    COMPONENT_CLASSES = {
        "hexview--header", "hexview--field", "hexview--entry", "hexview--body", "hexview--reference",
        "hexview--error", "hexview--cursor", "hexview--offset",
    }
    DEFAULT_CSS = """
    HexView { background: $surface; }
    HexView > .hexview--header { color: $secondary; text-style: bold; }
    HexView > .hexview--field { color: $primary; }
    HexView > .hexview--entry { color: $success; }
    HexView > .hexview--body { color: $text; }
    HexView > .hexview--reference { color: $accent; text-style: bold; }
    HexView > .hexview--error { background: $error; color: $text; }
    HexView > .hexview--cursor { background: $primary-muted; }
    HexView > .hexview--offset { color: $text-muted; }
    """
    class Moved(Message):
        def __init__(self, offset: int) -> None:
            super().__init__()
            self.offset = offset

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.loaded: Loaded | None = None
        self._cache: LRUCache[tuple, Strip] = LRUCache(512)
        self._version = 0

    def set_loaded(self, loaded: Loaded) -> None:
        self.loaded = loaded
        rows = (len(loaded.wire) + ROW - 1) // ROW or 1
        self.virtual_size = Size(10 + ROW * 3 + 2 + ROW, rows)
        self._version += 1
        self._cache.clear()
        self.cursor_row = 0
        self.refresh()

    @property
    def cursor_offset(self) -> int:
        return self.cursor_row * ROW

    def go_to_offset(self, offset: int) -> None:
        self.cursor_row = max(0, min(offset // ROW, self.row_count - 1))
        self.scroll_to_cursor(center=True)

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._version += 1
        self._cache.clear()
        self.refresh()
        self.post_message(self.Moved(self.cursor_offset))

    def _kind_at(self, offset: int) -> str:
        loaded = self.loaded
        if loaded is None:
            return "body"
        if loaded.error is not None and loaded.error.offset == offset:
            return "error"
        region = loaded.region_at(offset)  # a reference, entry, field, header or the body
        return region.kind if region is not None else "body"

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        if self.loaded is None or row >= self.virtual_size.height:
            return Strip.blank(width, self.rich_style)
        key = (row, self._version)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_row(row)
            self._cache[key] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)

    def _render_row(self, row: int) -> Strip:
        assert self.loaded is not None
        data = self.loaded.wire
        base = self.rich_style
        if row == self.cursor_row:
            base = base + self.get_component_rich_style("hexview--cursor", partial=True)
        start = row * ROW
        chunk = data[start:start + ROW]
        segments = [Segment(f"{start:08x}  ", base + self.get_component_rich_style("hexview--offset", partial=True))]
        text = []
        for i in range(ROW):
            if i < len(chunk):
                style = base + self.get_component_rich_style(f"hexview--{self._kind_at(start + i)}", partial=True)
                segments.append(Segment(f"{chunk[i]:02x} ", style))
                ch = chr(chunk[i])
                text.append(Segment(ch if 0x20 <= chunk[i] < 0x7F else "·", style))
            else:
                segments.append(Segment("   ", base))
            if i == 7:
                segments.append(Segment(" ", base))
        segments.append(Segment(" ", base))
        segments.extend(text)
        return Strip(segments).simplify()
