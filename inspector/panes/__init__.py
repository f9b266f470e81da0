"""One widget per tab. Each pane owns its compose, handlers, keys (from the
command table in ``inspector/actions.py``) and state; it is fed the loaded model
and its token counts through reactives bound from the app (``data_bind``)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from codec.visible import visible

from ..actions import pane_bindings
from ..messages import Counts, Selected, Selection
from ..model import Loaded


class Pane(Vertical):
    """Base of the six panes."""

    NAME = ""
    loaded: reactive[Loaded | None] = reactive(None, init=False, always_update=True)
    counts: reactive[Counts | None] = reactive(None, init=False)
    selection: reactive[Selection | None] = reactive(None, init=False, repaint=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rows: dict[str | None, int] = {}  # rows each status line took when last laid out

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if cls.__dict__.get("NAME"):  # before Textual merges the class's bindings
            cls.BINDINGS = pane_bindings(cls.NAME)
        super().__init_subclass__(**kwargs)

    def watch_loaded(self, loaded: Loaded | None) -> None:
        if loaded is not None:
            self.show(loaded)

    def watch_counts(self, counts: Counts | None) -> None:
        if counts is not None and counts.source is self.loaded:
            self.show_counts(counts)

    def watch_selection(self, selection: Selection | None) -> None:
        if selection is not None and selection.source is self.loaded and selection.origin != self.NAME:
            self.follow(selection)

    def show(self, loaded: Loaded) -> None:
        """Fill the pane for a newly loaded model."""

    def follow(self, selection: Selection) -> None:
        """Another pane moved the linked cursor: show the same bytes here,
        without announcing anything back."""

    def announce(self, start: int, end: int, doc: tuple[int, int] | None = None, at: int | None = None) -> None:
        """The user moved this pane's cursor to wire bytes ``start:end``: make it
        the linked cursor of every pane."""
        if self.loaded is not None:
            self.post_message(Selected(Selection(self.loaded, start, max(end, start + 1), self.NAME, doc, at)))

    def update_line(self, widget: Static, text: Text) -> None:
        """Show ``text`` in a status line that changes on every cursor move. A layout of
        the whole screen costs tens of milliseconds on a large wire, so one is asked
        for only when the text needs another number of rows than it had."""
        widget.update(text, layout=False)
        width = widget.content_region.width
        if width <= 0:  # not laid out yet (or in a tab never shown): its first layout measures it
            return
        rows = widget.get_content_height(widget.container_size, self.app.size, width)  # as the layout measures
        if rows != self._rows.get(widget.id):
            widget.refresh(layout=True)
        self._rows[widget.id] = rows

    def show_counts(self, counts: Counts) -> None:
        """Token counts arrived (or grew) for the loaded model."""

    @property
    def focus_target(self) -> Widget | None:
        """What gets focus when the tab is shown."""
        return None

    def copy_value(self) -> str:
        """The value under the cursor, for ``c``."""
        return ""

    def action_copy(self) -> None:
        value = self.copy_value()
        if not value:
            self.notify("nothing under the cursor to copy", severity="warning")
            return
        self.copy_text(value)

    def copy_text(self, value: str, what: str = "") -> None:
        """Put ``value`` on the clipboard (OSC 52) and say what was copied, shown by
        codec.visible's rule (a copied control character must not reach the screen)."""
        self.app.copy_to_clipboard(value)
        shown = visible(value if len(value) <= 200 else value[:200] + "…")
        label = f"{what} " if what else ""
        self.notify(f"copied {label}{len(value):,} characters (OSC 52): {shown}", timeout=6)
