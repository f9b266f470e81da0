"""The Body tab: the compact body and the expanded document side by side, one
cursor mapped between them, references and substituted literals marked, an
exact-bytes or indented reading layout, search, and stepping through an entry's
uses; folding of the document's objects and arrays, ``%`` to the matching
bracket, the cursor's path, and why a literal is inline.

Folding applies to the document pane only, in the exact and the reading layout
alike: the compact pane shows the exact bytes of the wire and never hides one.
A linked cursor that lands inside a folded container (a move in the compact
pane, the byte view, a dictionary entry's use, a search hit) does not unfold
it: it lands on the fold's summary line, the hidden byte under the cursor
(shown as a reversed ``…``), and the status still gives that byte and its path.
Folds are the person's; only ``f`` and ``F`` change them."""

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

from codec.visible import visible

from ..inline import explain_literal
from ..messages import LayoutReady, Selection, ValuesReady
from ..model import Loaded
from ..structure import Structure
from ..views.lines import Fold, LineView, Mark, MarkSet, reading_layout, wrapped_layout
from . import Pane
from .search import MatchSteps, Search

BIG = 1 << 20  # above this, a reading layout is computed in a worker


def hex_lines(data: bytes) -> bytes:
    """The CBOR body as hex, 32 bytes to a line, for the compact pane."""
    return b"\n".join(data[i:i + 32].hex(" ").encode() for i in range(0, len(data), 32))


class BodyPane(MatchSteps, Pane):
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
        self.structure: Structure | None = None  # the document's JSON values, once read
        self.folded: dict[int, Fold] = {}  # value index -> its fold, every container folded
        self._answer = ""  # the last answer of ``i``, shown until the cursor moves
        self._structure_for: Loaded | None = None  # the model whose structure is read or being read

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
        self.structure, self.folded, self._structure_for = None, {}, None
        if loaded.document is not None and (len(loaded.document) <= BIG or self.is_on_screen):
            self._want_structure()  # a large one waits for the tab to be shown (on_show)
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
        parts = [f"compact byte {self.compact.cursor_offset:,}", f"document byte {self.expanded.cursor_offset:,}"]
        path = self._path_status()
        if path:
            parts.append(path)
        parts += ["reading view" if self.reading else "exact bytes",
                  "panes synced" if self.sync_panes else "panes independent"]
        if self.folded:
            parts.append(f"{len(self.folded):,} folded (F unfolds all)")
        if self.status_message:
            parts.append(self.status_message)
        self.update_line(self.query_one("#body-status", Static), Text(" · ".join(parts)))

    def _path_status(self) -> str:
        """The path of the focused pane's cursor (the compact pane's through the
        document byte it maps to), escaped by codec.visible's rule."""
        loaded = self.loaded
        if loaded is None or loaded.document is None:
            return ""
        if self.structure is None:
            return "path: reading the structure…" if not loaded.pending else ""
        view = self._search_view()
        doc = self._doc_offset(view)
        if doc is None:
            return f"path: in the document pane ({self._unmapped()})"
        path = self.structure.path(doc)
        where = " (folded)" if self.expanded.hidden(doc) is not None else ""
        return f"path {visible(path)}{where}" if path else ""

    def _doc_offset(self, view: LineView) -> int | None:
        """The document byte the cursor of ``view`` stands for: its own in the
        document pane; in the compact pane the one ``Loaded.body_to_doc`` maps it to,
        where the model maps the body (v2 references, full JSON)."""
        loaded = self.loaded
        if loaded is None or loaded.document is None:
            return None
        if view is self.expanded:
            return view.cursor_offset
        if loaded.form not in ("model-text", "json"):
            return None
        return loaded.body_to_doc(view.cursor_offset)

    def _unmapped(self) -> str:
        title = self.loaded.title if self.loaded is not None else "this"
        return f"the inspector maps no {title} body offset to the document"

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
        assert loaded.body_start is not None  # a wire with references has a body
        rel = loaded.ref_wire[k] - loaded.body_start
        token = len(loaded.entry_token(index))
        self.compact.set_focus_marks([Mark(rel, rel + token, "current")])
        self.expanded.set_focus_marks([Mark(loaded.ref_doc[k], loaded.ref_doc[k] + len(loaded.entries[index]),
                                            "current")])
        self.compact.go_to_offset(rel)
        self.expanded.go_to_offset(loaded.ref_doc[k])
        # the use is the linked cursor now: the bytes, tree and token panes stand on it too
        wire = loaded.ref_wire[k]
        self.announce(wire, wire + token, (loaded.ref_doc[k], loaded.ref_doc[k] + len(loaded.entries[index])), wire)
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
        if self.status_message and self.status_message == self._answer:
            self.status_message = ""  # the answer of ``i`` was about the literal the cursor left
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

    def on_show(self) -> None:
        self._want_structure()

    def _want_structure(self) -> None:
        """Read the document's structure once per model: at once for a small one; for
        a large one (most of a second of Python for 16 MiB) in a worker, started when
        the tab is first shown, so loading a wire never waits for it."""
        loaded = self.loaded
        if loaded is None or loaded.document is None or loaded.pending or self._structure_for is loaded:
            return
        self._structure_for = loaded
        if len(loaded.document) > BIG:
            self._values_worker(loaded)
        else:
            values = loaded.json_values()
            assert values is not None  # there is a document
            self.structure = Structure(loaded.document, values)

    @work(thread=True, exclusive=True, group="values", exit_on_error=False, description="document structure")
    def _values_worker(self, source: Loaded) -> None:
        source.json_values()
        self.post_message(ValuesReady(source))

    def on_values_ready(self, message: ValuesReady) -> None:
        """The structure is used only for the model it was read from."""
        loaded = self.loaded
        if message.source is not loaded or loaded is None or loaded.document is None:
            return
        values = loaded.json_values()
        assert values is not None  # there is a document
        self.structure = Structure(loaded.document, values)
        self.update_status()

    def on_descendant_focus(self) -> None:
        self.update_status()  # the path is the focused pane's

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
        return focused if focused in (self.compact, self.expanded) else self.compact

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
        self._announce_match(view, offset)
        self.status_message = f"match {self.search.position + 1} of {len(self.search.matches):,}"
        self.update_status()

    def _announce_match(self, view: LineView, offset: int) -> None:
        """A hit is the linked cursor: the other body pane and every other pane stand on it."""
        loaded = self.loaded
        if loaded is None or loaded.body_start is None or loaded.form == "binary":
            return
        if view is self.compact:
            start, end, doc = loaded.span_at(loaded.body_start + offset)
            self.announce(start, end, doc, at=loaded.body_start + offset)
            if doc is not None:
                self.expanded.go_to_offset(doc[0])
        elif loaded.document is not None:
            start, end, doc = loaded.doc_span_at(offset)
            self.announce(start, end, doc)
            self.compact.go_to_offset(loaded.doc_to_body(offset))

    # --- structure: folds, brackets, paths, values ----------------------------------

    def _structure(self) -> Structure | None:
        """The document's structure, or None with a warning saying why not."""
        loaded = self.loaded
        if loaded is None or loaded.document is None:
            self.notify("there is no expanded document", severity="warning")
        elif self.structure is None:
            self.notify("the document's structure is still being read…", severity="warning")
        return self.structure

    def _cursor_doc(self) -> tuple[LineView, int] | None:
        view = self._search_view()
        doc = self._doc_offset(view)
        if doc is None:
            self.notify(f"use the document pane: {self._unmapped()}", severity="warning")
            return None
        return view, doc

    def action_fold(self) -> None:
        """``f``: unfold the fold the cursor is on, else fold the object or array
        under it (a key's member's value, else the innermost container)."""
        structure = self._structure()
        place = self._cursor_doc() if structure is not None else None
        if structure is None or place is None:
            return
        view, doc = place
        lines = self.expanded.lines
        fold = lines.fold_on(lines.line_of(doc))
        if fold is not None:
            i = structure.innermost(fold.start)
            self.folded.pop(i, None)
            self._apply_folds(fold.start if view is self.expanded else None)
            return
        i = structure.container_at(doc)
        if i < 0:
            self.notify("no object or array holds this byte", severity="warning")
            return
        if structure.values.end[i] < 0:
            self.notify("this container is not closed in the document: nothing to fold", severity="warning")
            return
        if structure.children(i) == 0:
            self.notify("this container is empty: nothing to fold", severity="warning")
            return
        self.folded[i] = Fold(*structure.span(i), structure.summary(i))
        self._apply_folds(structure.values.start[i] if view is self.expanded else None)

    def action_unfold_all(self) -> None:
        if self.folded:
            self.folded = {}
            self._apply_folds(None)

    def _apply_folds(self, offset: int | None) -> None:
        """Show the folds; a fold made from the document pane puts its cursor on the
        opening bracket, a move the other panes follow."""
        self.expanded.set_folds(list(self.folded.values()), offset=offset)
        if offset is not None:
            self.expanded.moved_by_user()
        self.update_status()

    def action_match_bracket(self) -> None:
        """``%``: to the other bracket of the container whose bracket is under the
        cursor (off a bracket: to the innermost container's opening one), in
        either pane."""
        structure = self._structure()
        place = self._cursor_doc() if structure is not None else None
        if structure is None or place is None or self.loaded is None:
            return
        view, doc = place
        target = structure.matching_bracket(doc)
        if target is None:
            self.notify("no bracket to match here", severity="warning")
            return
        view.go_to_offset(target if view is self.expanded else self.loaded.doc_to_body(target))
        view.moved_by_user()

    def action_copy_path(self) -> None:
        structure = self._structure()
        place = self._cursor_doc() if structure is not None else None
        if structure is None or place is None:
            return
        path = structure.path(place[1])
        if not path:
            self.notify("no JSON value holds this byte", severity="warning")
            return
        self.copy_text(path, "path")

    def action_copy(self) -> None:
        if self.loaded is not None and self.loaded.document is not None and self.structure is None:
            self.notify("the document's structure is still being read…", severity="warning")
            return
        super().action_copy()

    def copy_value(self) -> str:
        """The whole JSON value under the cursor (a key stands for its member's
        value), from the document; the line only where no document maps (the hex
        of a CBOR body)."""
        view = self._search_view()
        doc = self._doc_offset(view)
        structure = self.structure
        if structure is not None and doc is not None:
            i = structure.value_at(doc)
            if i < 0:
                return ""
            start, end = structure.span(i)
            return structure.document[start:end].decode("utf-8", "replace")
        if not len(view.lines):
            return ""
        line = min(view.cursor_line, len(view.lines) - 1)
        return view.data[view.lines.starts[line]:view.lines.ends[line]].decode("utf-8", "replace")

    def action_why_inline(self) -> None:
        """``i``: why the string literal under the cursor is inline, or which
        dictionary entry it is."""
        loaded = self.loaded
        if loaded is None:
            return
        if loaded.document is not None and self.structure is None:
            self.notify("the document's structure is still being read…", severity="warning")
            return
        view = self._search_view()
        answer = explain_literal(loaded, self.structure, self._doc_offset(view))
        self.status_message = self._answer = answer
        self.notify(answer, title="why is this inline?", timeout=12)
        self.update_status()
