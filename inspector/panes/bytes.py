"""The Bytes tab: the raw wire, coloured by the part each byte belongs to, with
a status line naming the part under the cursor."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from ..messages import Selection
from ..model import Loaded
from ..views.hexview import HexView, legend
from . import Pane
from .search import MatchSteps, Search


class BytesPane(MatchSteps, Pane):
    NAME = "bytes"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.search = Search()

    def compose(self) -> ComposeResult:
        yield HexView(id="hex")
        yield Static(legend(), id="hex-legend")
        yield Static("", id="hex-status")

    @property
    def hex(self) -> HexView:
        return self.query_one("#hex", HexView)

    @property
    def focus_target(self) -> Widget:
        return self.hex

    def show(self, loaded: Loaded) -> None:
        self.search = Search()
        self.hex.set_loaded(loaded)

    def go_to_offset(self, offset: int) -> None:
        self.hex.go_to_offset(offset)

    def follow(self, selection: Selection) -> None:
        self.hex.select_span(selection.start, selection.end)
        self.hex.go_to_offset(selection.cursor)

    @on(HexView.Moved)
    def _moved(self, event: HexView.Moved) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        region = loaded.region_at(event.offset)
        where = region.label if region else "outside any part"
        if loaded.error is not None and loaded.error.offset == event.offset:
            where += f" · the diagnostic's byte ({loaded.error.code})"
        value = loaded.wire[event.offset:event.offset + 1]
        shown = f" = 0x{value[0]:02x}" if value else ""
        self.update_line(self.query_one("#hex-status", Static),
                         Text(f"byte {event.offset:,} (0x{event.offset:x}){shown}: {where}"))
        if event.by_user:
            start, end, doc = loaded.span_at(event.offset)
            self.hex.select_span(start, end)
            self.announce(start, end, doc, at=event.offset)

    def action_search(self) -> None:
        if self.loaded is None:
            return

        def found(search: Search) -> None:
            self.search = search
            self.action_next_match()

        Search.ask(self, "hex", self.loaded.wire, found, hex_ok=True)

    def _show_match(self) -> None:
        """The match under the cursor, and the linked cursor of every pane on it."""
        offset = self.search.current
        self.hex.go_to_offset(offset)
        if self.loaded is not None:
            start, end, doc = self.loaded.span_at(offset)
            self.hex.select_span(start, end)
            self.announce(start, end, doc, at=offset)
        self.notify(f"match {self.search.position + 1} of {len(self.search.matches):,} at byte {offset:,}",
                    timeout=3)

    def copy_value(self) -> str:
        if self.loaded is None:
            return ""
        return self.loaded.wire[self.hex.cursor_offset:self.hex.cursor_offset + 16].hex(" ")
