"""A hexyl-style byte view of the raw wire with a byte cursor, coloured by the
part of the envelope each byte belongs to (adjacent dictionary entries in
alternating shades), as wide as the terminal allows (16 or 32 bytes a row).

The colours are one table, ``PALETTE``, used for the bytes and for the legend;
each has a contrast of at least 4.5:1 against the view's background in the
default theme (tests/test_inspector.py checks it)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..model import Loaded
from .rows import RowCursorView

#: kind -> (legend label, foreground colour, bold)
PALETTE: dict[str, tuple[str, str, bool]] = {
    "header": ("header", "#ffb86c", True),
    "field": ("metadata field", "#8be9fd", False),
    "dict": ("dict line", "#bd93f9", True),
    "entry": ("dictionary entry", "#50fa7b", False),
    "entry-alt": ("next entry", "#b8f5a0", False),
    "marker": ("body line", "#bd93f9", True),
    "body": ("body", "#e6e6e6", False),
    "reference": ("@N reference", "#ff79c6", True),
    "error": ("diagnostic byte", "#ffffff", True),
}
ERROR_BACKGROUND = "#b00020"
OFFSET_COLOUR = "#9a9a9a"
SELECTED_BACKGROUND = "#3a3a5a"  # the linked cursor's span


def bytes_per_row(width: int) -> int:
    """32 bytes a row when the terminal is wide enough for them, else 16."""
    return 32 if width >= 10 + 32 * 3 + 2 + 32 else 16


def legend() -> Text:
    text = Text("colours: ")
    for kind, (label, colour, bold) in PALETTE.items():
        style = Style(color=colour, bold=bold, bgcolor=ERROR_BACKGROUND if kind == "error" else None)
        text.append("██" if kind != "error" else " ! ", style=style)
        text.append(f" {label}  ")
    return text


class HexView(RowCursorView):
    COMPONENT_CLASSES = {"hexview--cursor"}
    DEFAULT_CSS = """
    HexView { background: $surface; }
    HexView > .hexview--cursor { background: $primary-muted; }
    """
    BINDINGS = [
        Binding("left,h", "byte(-1)", "Byte left", show=False),
        Binding("right,l", "byte(1)", "Byte right", show=False),
    ]

    class Moved(Message):
        """The cursor is on ``offset``; ``by_user`` when a key or click put it there."""

        def __init__(self, offset: int, by_user: bool = False) -> None:
            super().__init__()
            self.offset = offset
            self.by_user = by_user

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.loaded: Loaded | None = None
        self.cursor_offset = 0
        self.row_bytes = 16
        self.selected: tuple[int, int] = (0, 0)  # the linked cursor's span, underlined
        self._by_user = False
        self._cache: LRUCache[tuple, Strip] = LRUCache(512)
        self._version = 0

    def set_loaded(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.cursor_offset = 0
        self.selected = (0, 0)
        self._relayout()
        self.cursor_row = 0

    def _relayout(self) -> None:
        if self.loaded is None:
            return
        width = self.scrollable_content_region.width if self.is_mounted else 0
        self.row_bytes = bytes_per_row(width or 80)
        rows = (len(self.loaded.wire) + self.row_bytes - 1) // self.row_bytes or 1
        self.virtual_size = Size(10 + self.row_bytes * 4 + 2, rows)
        self._changed()

    def on_resize(self, event: events.Resize) -> None:
        before = self.row_bytes
        self._relayout()
        if self.row_bytes != before:
            self.go_to_offset(self.cursor_offset)

    def _changed(self) -> None:
        self._version += 1
        self._cache.clear()
        self.refresh()

    # --- the byte cursor -------------------------------------------------------------

    def go_to_offset(self, offset: int, *, center: bool = True) -> None:
        size = len(self.loaded.wire) if self.loaded is not None else 0
        self.cursor_offset = max(0, min(offset, size - 1)) if size else 0
        self.cursor_row = self.cursor_offset // self.row_bytes
        self.scroll_to_cursor(center=center)

    def select_span(self, start: int, end: int) -> None:
        """Underline the linked cursor's bytes (a tree node, an entry, an @N)."""
        self.selected = (start, end)
        self._changed()

    def _user_move(self, offset: int) -> None:
        self._by_user = True
        try:
            self.go_to_offset(offset, center=False)
        finally:
            self._by_user = False

    def action_byte(self, delta: int) -> None:
        self._user_move(self.cursor_offset + delta)

    def action_move(self, delta: int) -> None:
        """Up and down keep the column; paging and the ends come through here too."""
        self._user_move(self.cursor_offset + delta * self.row_bytes)

    def watch_cursor_row(self, old: int, new: int) -> None:
        # Only the row the cursor left and the one it holds now look different: the other rows keep
        # their rendered strips (re-rendering every visible row was half of a key's CPU).
        for row in {old, new}:
            self._cache.discard((row, self._version))
        self.refresh()
        self.post_message(self.Moved(self.cursor_offset, self._by_user))

    def on_click(self, event: events.Click) -> None:
        row = int(self.scroll_offset.y) + event.y
        x = int(self.scroll_offset.x) + event.x
        n = self.row_bytes
        hex_start, text_start = 10, 10 + n * 3 + 1 + 1
        if hex_start <= x < hex_start + n * 3 + 1:
            column = min((x - hex_start - (1 if x - hex_start > (n // 2) * 3 else 0)) // 3, n - 1)
        elif text_start <= x < text_start + n:
            column = x - text_start
        else:
            column = 0
        if 0 <= row < self.row_count:
            self._user_move(row * n + max(column, 0))

    # --- rendering -------------------------------------------------------------------

    def _kind_at(self, offset: int) -> str:
        loaded = self.loaded
        if loaded is None:
            return "body"
        if loaded.error is not None and loaded.error.offset == offset:
            return "error"
        region = loaded.region_at(offset)  # a reference, entry, field, header or the body
        if region is None:
            return "body"
        if region.kind == "entry" and region.index % 2:
            return "entry-alt"
        return region.kind

    def _style(self, kind: str, base: Style) -> Style:
        _label, colour, bold = PALETTE.get(kind, PALETTE["body"])
        style = base + Style(color=colour, bold=bold)
        if kind == "error":
            style += Style(bgcolor=ERROR_BACKGROUND)
        return style

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
        n = self.row_bytes
        base = self.rich_style
        cursor = self.get_component_rich_style("hexview--cursor", partial=True)
        if row == self.cursor_row:
            base = base + cursor
        start = row * n
        chunk = data[start:start + n]
        segments = [Segment(f"{start:08x}  ", base + Style(color=OFFSET_COLOUR))]
        text = []
        for i in range(n):
            if i < len(chunk):
                style = self._style(self._kind_at(start + i), base)
                if start + i == self.cursor_offset:
                    style += Style(reverse=True)
                elif self.selected[0] <= start + i < self.selected[1]:
                    style += Style(underline=True, bgcolor=SELECTED_BACKGROUND)
                segments.append(Segment(f"{chunk[i]:02x}", style))
                segments.append(Segment(" ", base))
                ch = chr(chunk[i])
                text.append(Segment(ch if 0x20 <= chunk[i] < 0x7F else "·", style))
            else:
                segments.append(Segment("   ", base))
            if i == n // 2 - 1:
                segments.append(Segment(" ", base))
        segments.append(Segment(" ", base))
        segments.extend(text)
        return Strip(segments).simplify()
