"""The Dictionary tab: every entry with its size, references and savings in bytes
and tokens, sortable and filterable. Choosing an entry asks the app to step
through its uses in the body."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from ..messages import Counts, Selection
from ..model import Loaded, display_value, no_dictionary_reason
from ..views.dictionary import DictionaryView, header_text
from . import Pane
from .fields import FieldInput


class DictionaryPane(Pane):
    NAME = "dictionary"

    @dataclass
    class EntryChosen(Message):
        """Enter on a row: show this entry's uses, one after another."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.selected_entry: int | None = None
        self._followed: int | None = None  # a row moved to by follow(): not announced back

    def compose(self) -> ComposeResult:
        yield FieldInput(placeholder="filter entries (text)…", id="dict-filter")
        yield Static("", id="dict-header")
        yield DictionaryView(id="dict")
        yield Static("", id="dict-detail")

    @property
    def view(self) -> DictionaryView:
        return self.query_one("#dict", DictionaryView)

    @property
    def focus_target(self) -> Widget:
        return self.view

    def show(self, loaded: Loaded) -> None:
        self.selected_entry = None
        self.view.tokens_pending = getattr(self.app, "count_tokens_enabled", True)
        self.view.set_loaded(loaded)
        self.query_one("#dict-filter", FieldInput).value = ""
        self.update_header()
        self.query_one("#dict-detail", Static).update(Text(
            "reading the dictionary… (decoding and verifying)" if loaded.pending
            else "no dictionary: " + no_dictionary_reason(loaded) if not loaded.entries
            else "select an entry: Enter steps through its uses in the body, ] and [ too"))

    def show_counts(self, counts: Counts) -> None:
        self.view.tokens_pending = not counts.done
        if counts.saved:
            self.view.set_tokens_saved(counts.saved)
            if self.selected_entry is not None:
                self._select(self.selected_entry)

    def on_show(self) -> None:
        self.call_after_refresh(self.update_header)

    def update_header(self) -> None:
        view = self.view
        width = view.scrollable_content_region.width or 100
        self.query_one("#dict-header", Static).update(header_text(width, view.sort_column, view.reverse, view.widths))

    def select(self, index: int) -> None:
        """Put the cursor on entry ``index`` (from the body or history)."""
        self.view.select_index(index)
        self._select(index)

    def _select(self, index: int | None) -> None:
        loaded = self.loaded
        if loaded is None or index is None or index >= len(loaded.entries):
            return
        self.selected_entry = index
        uses = loaded.reference_counts[index]
        self.query_one("#dict-detail", Static).update(Text.assemble(
            (f"@{index}", "bold"), f" = {display_value(loaded.entries[index])}\n",
            f"{len(loaded.entries[index]):,} bytes, {uses:,} uses, saves {loaded.bytes_saved(index):,} bytes"
            f"{self._tokens_story(index)} — Enter or ] steps through its uses in the body"))

    def _tokens_story(self, index: int) -> str:
        """The entry's tokens against full JSON, per encoding (the ledger's attribution)."""
        saved = self.view.tokens_saved
        parts = [f"{saved[n][index]:+,} {n.split('_')[0]}" for n in ("cl100k_base", "o200k_base")
                 if n in saved and index < len(saved[n])]
        return f", tokens saved against full JSON {' / '.join(parts)}" if parts else ""

    def follow(self, selection: Selection) -> None:
        """The linked cursor is on an entry's line or one of its @N: select its row."""
        loaded = self.loaded
        index = loaded.entry_at(selection.start) if loaded is not None else None
        if index is not None and index != self.view.current_index:
            self._followed = index
            self.select(index)

    # --- handlers ------------------------------------------------------------------

    @on(FieldInput.Changed, "#dict-filter")
    def _filter_changed(self, event: FieldInput.Changed) -> None:
        self.view.set_filter(event.value)

    @on(DictionaryView.Sorted)
    def _sorted(self) -> None:
        self.update_header()

    @on(DictionaryView.Highlighted)
    def _highlighted(self, event: DictionaryView.Highlighted) -> None:
        self._select(event.index)
        followed, self._followed = self._followed, None
        loaded = self.loaded
        if (event.index is None or event.index == followed or not self.view.has_focus or loaded is None
                or event.index >= len(loaded.entry_spans)):
            return  # moved by a load, a follow or another pane: only the user's moves are announced
        span = loaded.entry_spans[event.index]
        self.announce(span.start, span.end + 1)  # the literal and its LF

    @on(DictionaryView.Chosen)
    def _chosen(self, event: DictionaryView.Chosen) -> None:
        self._select(event.index)
        self.post_message(self.EntryChosen(event.index))

    def action_filter(self) -> None:
        self.query_one("#dict-filter", FieldInput).focus()

    def copy_value(self) -> str:
        if self.loaded is None or self.selected_entry is None:
            return ""
        return self.loaded.entries[self.selected_entry].decode("utf-8", "replace")
