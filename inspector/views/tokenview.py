"""The token view and the ledger table, both virtualised.

``TokenView`` is a ``LineView`` whose bytes are painted token by token, each
token on one of four alternating backgrounds as tiktokenizer does, so every
boundary shows. It tokenizes only the lines on screen plus a margin
(``token_spans.window``: exact, cut at restart points), again only when the
view scrolls past that window; a new window keeps the colours of the tokens it
shares with the old one. Left and right move the cursor a token at a time;
shift with them extends a selection of tokens.

``LedgerView`` shows a ``Ledger``'s rows, one encoding at a time."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ..ledger import Ledger, LedgerRow
from ..token_spans import TokenRun, window
from .lines import LineView, _visible
from .rows import RowCursorView

#: Token backgrounds (white text on each has a contrast ratio above 7:1), in turn.
PALETTE = ("#1f4e79", "#6b3a1f", "#245c38", "#5b2a66")
MARGIN = 2048  # bytes tokenized beyond the screen on each side


class TokenView(LineView):
    BINDINGS = [
        Binding("shift+right", "extend(1)", "Select token", show=False),
        Binding("shift+left", "extend(-1)", "Select token", show=False),
        Binding("escape", "clear_selection", "Clear selection", show=False),
    ]

    class Viewed(Message):
        """The visible lines, the cursor or the selection changed."""

        def __init__(self, view: TokenView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> TokenView:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.encoding = "cl100k_base"
        self.run: TokenRun | None = None
        self._parity = 0
        self.selected: tuple[int, int] | None = None  # a byte span of the data
        self._select_from: int | None = None  # the token a shift-selection started at

    # --- content ----------------------------------------------------------------------

    def show_text(self, data: bytes, encoding: str, layout=None) -> None:
        self.encoding = encoding
        self.run = None
        self.selected, self._select_from = None, None
        self.set_content(data, layout=layout)
        self.post_message(self.Viewed(self))

    def visible_span(self) -> tuple[int, int]:
        """The bytes of the lines on screen."""
        if not len(self.lines):
            return 0, 0
        top = min(int(self.scroll_offset.y), len(self.lines) - 1)
        height = max(self.scrollable_content_region.height, 1)
        bottom = min(top + height, len(self.lines)) - 1
        end = self.lines.ends[bottom]
        if end < len(self.data) and self.data[end:end + 1] == b"\n":
            end += 1  # the line's LF is shown (as ⏎) and is part of a token
        return self.lines.starts[top], end

    def tokens(self, start: int, end: int) -> TokenRun:
        """The current window, widened to hold ``start:end`` when it does not."""
        run = self.run
        if run is None or not run.covers(start, end):
            lo, hi = self.visible_span()
            if start > hi + 4 * MARGIN or end < lo - 4 * MARGIN:  # far from the screen (a cursor sent
                lo, hi = start, end  # elsewhere before the view has scrolled): not all the bytes between
            new = window(self.data, self.encoding, min(lo, start), max(hi, end), MARGIN)
            shared = False
            if run is not None and len(run):
                for i in range(len(new)):  # the first token both windows have keeps its colour
                    s = new.offsets[i]
                    if run.start <= s < run.end:
                        j = run.index_of_start(s)
                        if j is not None:
                            self._parity = (self._parity + j - i) % len(PALETTE)
                            shared = True
                        break
            if not shared:
                self._cache.clear()  # lines drawn from an unrelated window would not match these colours
            self.run = run = new
        return run

    def colour(self, run: TokenRun, index: int) -> str:
        return PALETTE[(self._parity + index) % len(PALETTE)]

    def cursor_token(self) -> tuple[int, int, int] | None:
        """(id, start, end) of the token under the cursor."""
        if not self.data:
            return None
        at = self.cursor_offset
        run = self.tokens(at, at + 1)
        i = run.index_at(at)
        return run.ids[i], *run.span(i)

    def count_visible(self) -> int:
        start, end = self.visible_span()
        return self.tokens(start, end).touching(start, end)

    def count_selected(self) -> int | None:
        """Tokens sharing a byte with the selection; None for a selection too
        long to tokenize here (the ledger counts those)."""
        if self.selected is None:
            return None
        start, end = self.selected
        if end - start > 1 << 20:
            return None
        return self.tokens(start, end).touching(start, end)

    def select_span(self, span: tuple[int, int] | None) -> None:
        self.selected = span
        self._select_from = None
        self._changed()
        self.post_message(self.Viewed(self))

    # --- moves ------------------------------------------------------------------------

    def go_to_offset(self, offset: int, *, center: bool = True) -> None:
        super().go_to_offset(offset, center=center)
        self.post_message(self.Viewed(self))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.post_message(self.Viewed(self))

    def watch_cursor_line(self, old: int, new: int) -> None:
        super().watch_cursor_line(old, new)
        self.post_message(self.Viewed(self))

    def _step(self, delta: int) -> int | None:
        """The start of the token ``delta`` tokens from the cursor's."""
        if not self.data:
            return None
        at = self.cursor_offset
        run = self.tokens(at, at + 1)
        i = run.index_at(at) + delta
        if not 0 <= i < len(run):
            if (delta < 0 and run.start == 0) or (delta > 0 and run.end >= len(self.data)):
                return None
            run = self.tokens(max(at - MARGIN, 0), min(at + MARGIN, len(self.data)))
            i = run.index_at(at) + delta
        i = max(0, min(i, len(run) - 1))
        return run.offsets[i]

    def action_column(self, delta: int) -> None:
        """Left and right by one token."""
        target = self._step(delta)
        if target is not None:
            self.go_to_offset(target, center=False)
            self.moved_by_user()

    def action_extend(self, delta: int) -> None:
        """Shift+left/right: grow the selection from the token it started at."""
        if self._select_from is None:
            token = self.cursor_token()
            if token is None:
                return
            self._select_from = token[1]
        target = self._step(delta)
        if target is None:
            return
        super().go_to_offset(target, center=False)
        run = self.tokens(min(self._select_from, target), max(self._select_from, target) + 1)
        first = run.span(run.index_at(min(self._select_from, target)))[0]
        last = run.span(run.index_at(max(self._select_from, target)))[1]
        keep = self._select_from
        self.select_span((first, last))
        self._select_from = keep
        self.moved_by_user()

    def action_clear_selection(self) -> None:
        self.select_span(None)

    # --- rendering --------------------------------------------------------------------

    def _render_full_line(self, line: int) -> Strip:
        start, end = self.lines.starts[line], self.lines.ends[line]
        shown_end = end + 1 if end < len(self.data) and self.data[end:end + 1] == b"\n" else end
        indent = self.lines.indents[line]
        base = self.rich_style
        if line == self.cursor_line:
            base = base + self._style("cursor")
        segments: list[Segment] = []
        if indent:
            segments.append(Segment(" " * indent, base))
        if shown_end <= start:
            return Strip(segments)
        run = self.tokens(start, shown_end)
        cursor = self.cursor_offset if line == self.cursor_line else -1
        i = run.index_at(start)
        pos = start
        while pos < shown_end and i < len(run):
            s, e = run.span(i)
            e = min(e, shown_end)
            while e < shown_end and (self.data[e] & 0xC0) == 0x80:  # a character split by tokens: keep it whole
                e += 1
            if e > pos:
                style = Style(bgcolor=self.colour(run, i), color="#ffffff")
                if s <= cursor < run.offsets[i + 1]:
                    style += Style(reverse=True, bold=True) if self.has_focus else Style(bold=True, underline=True)
                elif self.selected is not None and s < self.selected[1] and run.offsets[i + 1] > self.selected[0]:
                    style += Style(bold=True, underline=True)
                segments.append(Segment(_visible(self.data[pos:e]), style))
                pos = e
            i += 1
        return Strip(segments).simplify()


LEDGER_COLUMNS = ("region", "bytes", "tokens", "uses", "use tok", "inline tok", "Δ vs JSON")
LEDGER_WIDTHS = (0, 10, 9, 7, 8, 10, 10)


def ledger_header(width: int) -> str:
    rw = _region_width(width)
    return " ".join(c.ljust(rw) if i == 0 else c.rjust(w) for i, (c, w) in
                    enumerate(zip(LEDGER_COLUMNS, LEDGER_WIDTHS)))


def _region_width(width: int) -> int:
    return max(width - sum(LEDGER_WIDTHS) - len(LEDGER_WIDTHS), 16)


class LedgerView(RowCursorView):
    """A ``Ledger``'s rows for one encoding; the cursor row is announced."""

    COMPONENT_CLASSES = {"ledger--cursor", "ledger--total"}
    DEFAULT_CSS = """
    LedgerView { background: $surface; }
    LedgerView > .ledger--cursor { background: $primary-muted; text-style: bold; }
    LedgerView > .ledger--total { text-style: bold; }
    """

    class Highlighted(Message):
        def __init__(self, row: LedgerRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ledger: Ledger | None = None
        self.encoding = "cl100k_base"
        self._cache: LRUCache[tuple, Strip] = LRUCache(512)
        self._version = 0

    def set_ledger(self, ledger: Ledger | None, encoding: str) -> None:
        self.ledger = ledger
        self.encoding = encoding
        self.virtual_size = Size(0, len(ledger.rows) if ledger is not None else 0)
        self._version += 1
        self._cache.clear()
        self.refresh()

    @property
    def current(self) -> LedgerRow | None:
        if self.ledger is None or not self.ledger.rows:
            return None
        return self.ledger.rows[min(self.cursor_row, len(self.ledger.rows) - 1)]

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._version += 1
        self.refresh()
        if self.current is not None:
            self.post_message(self.Highlighted(self.current))

    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        if self.ledger is None or row >= len(self.ledger.rows):
            return Strip.blank(width, self.rich_style)
        key = (row, width, self._version, row == self.cursor_row)
        strip = self._cache.get(key)
        if strip is None:
            style = self.rich_style
            if row == self.cursor_row:
                style += self.get_component_rich_style("ledger--cursor", partial=True)
            elif self.ledger.rows[row].kind == "rest":
                style += self.get_component_rich_style("ledger--total", partial=True)
            strip = Strip([Segment(self.row_text(self.ledger.rows[row], width), style)])
            self._cache[key] = strip
        return strip.crop_extend(0, width, self.rich_style)

    def row_text(self, row: LedgerRow, width: int) -> str:
        name = self.encoding
        rw = _region_width(width)
        label = row.label if len(row.label) <= rw else row.label[:rw - 1] + "…"
        delta = row.delta(name)

        def num(value: int | None, signed: bool = False) -> str:
            return "" if value is None else (f"{value:+,}" if signed else f"{value:,}")

        entry = row.kind == "entry"
        cells = [label.ljust(rw),
                 num(row.size if row.kind != "rest" else None).rjust(LEDGER_WIDTHS[1]),
                 num(row.tokens.get(name) if row.kind != "rest" else None).rjust(LEDGER_WIDTHS[2]),
                 num(row.uses if entry else None).rjust(LEDGER_WIDTHS[3]),
                 num(row.use_tokens.get(name) if entry else None).rjust(LEDGER_WIDTHS[4]),
                 num(row.inline_tokens.get(name) if entry else None).rjust(LEDGER_WIDTHS[5]),
                 num(delta, signed=True).rjust(LEDGER_WIDTHS[6])]
        return " ".join(cells)
