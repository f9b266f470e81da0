"""A row cursor for Line-API views whose rows are their lines (the dictionary
table and the byte view): moving, paging and keeping the cursor in sight."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.reactive import reactive
from textual.scroll_view import ScrollView


class RowCursorView(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "Top", show=False),
        Binding("end", "edge(1)", "Bottom", show=False),
    ]

    cursor_row = reactive(0, always_update=True)

    @property
    def row_count(self) -> int:
        return self.virtual_size.height

    def action_move(self, delta: int) -> None:
        if self.row_count:
            self.cursor_row = max(0, min(self.cursor_row + delta, self.row_count - 1))
            self.scroll_to_cursor()

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(self.scrollable_content_region.height - 1, 1))

    def action_edge(self, end: int) -> None:
        self.action_move(self.row_count if end else -self.row_count)

    def scroll_to_cursor(self, center: bool = False) -> None:
        height = max(self.scrollable_content_region.height, 1)
        top = int(self.scroll_offset.y)
        if center:
            self.scroll_to(y=max(self.cursor_row - height // 2, 0), animate=False)
        elif self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + height:
            self.scroll_to(y=self.cursor_row - height + 1, animate=False)

    def on_click(self, event: events.Click) -> None:
        row = int(self.scroll_offset.y) + event.y
        if 0 <= row < self.row_count:
            self.cursor_row = row
            if event.chain >= 2:
                self.double_clicked()

    def double_clicked(self) -> None:
        """What a double click on a row does; nothing by default."""
