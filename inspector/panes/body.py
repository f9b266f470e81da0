"""The Body tab: the compact body and the expanded document side by side, one
cursor mapped between them, references and substituted literals marked, an
exact-bytes or indented reading layout, search, and stepping through an entry's
uses."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Label, Static

from ..messages import LayoutReady, Selection
from ..model import Loaded
from ..views.lines import LineView, Mark, MarkSet, reading_layout, wrapped_layout
from . import Pane
from .search import Search

BIG = 1 << 20  # above this, a reading layout is computed in a worker


def hex_lines(data: bytes) -> bytes:
    """The CBOR body as hex, 32 bytes to a line, for the compact pane."""
    return b"\n".join(data[i:i + 32].hex(" ").encode() for i in range(0, len(data), 32))


class BodyPane(Pane):
    NAME = "body"

    @dataclass
    class ReferenceFollowed(Message):
        """Enter on an @N: the app shows entry ``index`` in the dictionary."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.reading = False
        self.sync_panes = True
        self.search = Search()
        self.status_message = ""
        self.use_entry: int | None = None
        self.use_position = -1

    def compose(self) -> ComposeResult:
        with Horizontal(id="body-panes"):
            with Vertical():
                yield Label("compact body", classes="pane-title", id="compact-title")
                yield LineView(id="compact")
            with Vertical():
                yield Label("expanded document", classes="pane-title", id="expanded-title")
                yield LineView(id="expanded")
        yield Static("", id="body-status")

    @property
    def compact(self) -> LineView:
        return self.query_one("#compact", LineView)

    @property
    def expanded(self) -> LineView:
        return self.query_one("#expanded", LineView)

    @property
    def focus_target(self) -> Widget:
        return self.compact

    def show(self, loaded: Loaded) -> None:
        body = loaded.body
        marks = MarkSet(*loaded.body_marks())
        if loaded.form == "binary":
            body, marks = hex_lines(body), MarkSet((), ())
        self.reading = False
        self.use_entry, self.use_position = None, -1
        self.search = Search()
        self.status_message = ""
        self.compact.set_content(body, marks)
        self.expanded.set_content(loaded.document or b"", MarkSet(*loaded.document_marks()))
        title = {"model-text": "compact body (@N marked)", "text": "compact body (v1 ~k back-references)",
                 "binary": "CBOR body (hex)", "json": "full JSON", "unknown": "the bytes as given"}.get(loaded.form, "body")
        self.query_one("#compact-title", Label).update(title)
        self.query_one("#expanded-title", Label).update(
            "expanded document (substituted literals marked)" if loaded.document is not None
            else "expanded document: reconstructing…" if loaded.pending
            else "expanded document: could not be reconstructed")
        self.update_status()

    def update_status(self) -> None:
        parts = [f"compact byte {self.compact.cursor_offset:,}", f"document byte {self.expanded.cursor_offset:,}",
                 "reading view" if self.reading else "exact bytes",
                 "panes synced" if self.sync_panes else "panes independent"]
        if self.status_message:
            parts.append(self.status_message)
        self.query_one("#body-status", Static).update(Text(" · ".join(parts)))

    # --- places ---------------------------------------------------------------------

    def go_to_body_offset(self, offset: int) -> None:
        """Put the compact cursor on a body byte; the document and the status follow."""
        self.compact.go_to_offset(offset)
        self._follow(self.compact, offset)
        self.update_status()

    def mark_error(self, offset: int) -> None:
        self.compact.set_focus_marks([Mark(offset, offset + 1, "error")])
        self.go_to_body_offset(offset)

    def show_use(self, index: int, position: int) -> bool:
        """Show use ``position`` (wrapping) of entry ``index`` in both panes."""
        loaded = self.loaded
        uses = loaded.references_of(index) if loaded is not None else []
        if loaded is None or not uses:
            return False
        if index != self.use_entry:
            self.use_entry, self.use_position = index, -1
        self.use_position = position % len(uses)
        k = uses[self.use_position]
        rel = loaded.ref_wire[k] - loaded.body_start
        token = len(loaded.entry_token(index))
        self.compact.set_focus_marks([Mark(rel, rel + token, "current")])
        self.expanded.set_focus_marks([Mark(loaded.ref_doc[k], loaded.ref_doc[k] + len(loaded.entries[index]),
                                            "current")])
        self.compact.go_to_offset(rel)
        self.expanded.go_to_offset(loaded.ref_doc[k])
        self.status_message = f"use {self.use_position + 1} of {len(uses)} of @{index}"
        self.update_status()
        return True

    def step_use(self, index: int, delta: int) -> bool:
        start = self.use_position if index == self.use_entry else (-1 if delta > 0 else 0)
        return self.show_use(index, start + delta)

    def follow(self, selection: Selection) -> None:
        """Show the linked cursor: the compact cursor on its body byte and the
        document cursor on the document bytes it stands for, both marked."""
        loaded = self.loaded
        if loaded is None or loaded.body_start is None or loaded.form == "binary":
            return
        if selection.cursor < loaded.body_start:
            return
        rel = selection.cursor - loaded.body_start
        self.compact.set_focus_marks([Mark(selection.start - loaded.body_start, selection.end - loaded.body_start,
                                           "current")] if selection.end - selection.start > 1 else [])
        self.compact.go_to_offset(rel)
        if selection.doc is not None:
            self.expanded.set_focus_marks([Mark(*selection.doc, "current")] if selection.doc[1] - selection.doc[0] > 1
                                          else [])
            self.expanded.go_to_offset(selection.doc[0] if selection.at is None else loaded.body_to_doc(rel))
        elif self.sync_panes:
            self.expanded.go_to_offset(loaded.body_to_doc(rel))
        self.update_status()

    # --- handlers -------------------------------------------------------------------

    def _follow(self, source: LineView, offset: int) -> None:
        loaded = self.loaded
        if loaded is None or not self.sync_panes or loaded.form == "binary":
            return
        if source is self.compact:
            self.expanded.go_to_offset(loaded.body_to_doc(offset), center=False)
        else:
            self.compact.go_to_offset(loaded.doc_to_body(offset), center=False)

    @on(LineView.CursorMoved)
    def _moved(self, event: LineView.CursorMoved) -> None:
        self._follow(event.view, event.offset)
        self.update_status()
        loaded = self.loaded
        if loaded is None or loaded.body_start is None or loaded.form == "binary":
            return
        if event.view is self.compact:
            at = loaded.body_start + event.offset
            self.announce(*loaded.span_at(at), at=at)
        else:
            start, end, doc = loaded.doc_span_at(event.offset)
            self.announce(start, end, doc)

    @on(LineView.Activated, "#compact")
    def _activated(self, event: LineView.Activated) -> None:
        loaded = self.loaded
        if loaded is None or loaded.body_start is None or not loaded.ref_wire:
            return
        at = loaded.body_start + event.offset
        k = bisect.bisect_right(loaded.ref_wire, at) - 1
        if k >= 0 and at < loaded.ref_wire[k] + len(loaded.entry_token(loaded.ref_index[k])):
            self.post_message(self.ReferenceFollowed(loaded.ref_index[k]))  # the @N under the cursor
            return
        lo = bisect.bisect_left(loaded.ref_wire, loaded.body_start + event.start)
        hi = bisect.bisect_left(loaded.ref_wire, loaded.body_start + event.end)
        if lo >= hi:
            self.notify("no @N reference on this line", severity="warning")
            return
        k = lo
        uses = loaded.references_of(self.use_entry) if self.use_entry is not None else []
        if self.use_position >= 0 and uses and lo <= uses[self.use_position] < hi:
            k = uses[self.use_position]
        self.post_message(self.ReferenceFollowed(loaded.ref_index[k]))

    # --- actions --------------------------------------------------------------------

    def action_toggle_reading(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.form == "binary":
            return
        self.reading = not self.reading
        for view, data in ((self.compact, self.compact.data), (self.expanded, self.expanded.data)):
            offset = view.cursor_offset
            if not self.reading:
                view.set_layout(wrapped_layout(data, view._content_width()), "wrap")
                view.go_to_offset(offset)
            elif len(data) > BIG:
                self._reading_worker(loaded, view.id or "", data, offset)
            else:
                view.set_layout(reading_layout(data), "reading")
                view.go_to_offset(offset)
        self.update_status()

    @work(thread=True, exclusive=True, group="layout", exit_on_error=False, description="reading layout")
    def _reading_worker(self, source: Loaded, name: str, data: bytes, offset: int) -> None:
        self.post_message(LayoutReady(source, name, reading_layout(data), offset))

    def on_layout_ready(self, message: LayoutReady) -> None:
        """A reading layout is used only for the model it was made for, and only
        while the reading view is still asked for."""
        if message.source is not self.loaded or not self.reading:
            return
        view = self.query_one(f"#{message.name}", LineView)
        view.set_layout(message.layout, "reading")
        view.go_to_offset(message.offset)

    def action_toggle_sync(self) -> None:
        self.sync_panes = not self.sync_panes
        self.update_status()

    def _search_view(self) -> LineView:
        focused = self.app.focused
        return focused if focused in (self.compact, self.expanded) else self.compact  # type: ignore[return-value]

    def action_search(self) -> None:
        view = self._search_view()

        def found(search: Search) -> None:
            self.search = search
            self.action_next_match()

        Search.ask(self, view.id or "compact", view.data, found)

    def _show_match(self) -> None:
        offset = self.search.current
        view = self.query_one(f"#{self.search.pane}", LineView)
        view.set_focus_marks([Mark(offset, offset + self.search.length, "match")])
        view.go_to_offset(offset)
        view.focus()
        self._follow(view, offset)
        self.status_message = f"match {self.search.position + 1} of {len(self.search.matches):,}"
        self.update_status()

    def action_next_match(self) -> None:
        if self.search.step(1):
            self._show_match()

    def action_prev_match(self) -> None:
        if self.search.step(-1):
            self._show_match()

    def copy_value(self) -> str:
        focused = self.app.focused
        view = focused if isinstance(focused, LineView) and focused in (self.compact, self.expanded) else self.compact
        if not len(view.lines):
            return ""
        line = min(view.cursor_line, len(view.lines) - 1)
        return view.data[view.lines.starts[line]:view.lines.ends[line]].decode("utf-8", "replace")
