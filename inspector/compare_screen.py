"""The compare view: two wires side by side (``inspector/compare.py`` does the
comparing). ``CompareWithScreen`` asks what to compare the loaded wire with (a
file, its canonical re-encoding, its replay from a workspace); ``CompareScreen``
shows the envelopes with differences marked, the byte and token totals with
the delta, the structural changes of the documents and the dictionary entries
removed, added and kept. The comparison runs in a thread worker of the screen,
which posts snapshots naming the request they answer; stale ones are dropped."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Input, Label, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from codec import CompactError

from .actions import TABS
from .compare import Comparison, Target, compare, delta, resolve
from .model import Loaded, display_value

#: Dictionary rows shown at most (a 16 MiB wire has tens of thousands of entries).
ENTRY_ROWS = 500
#: The envelope table's token rows and their encodings.
TOKEN_ROWS = {"cl100k_base tokens": "cl100k_base", "o200k_base tokens": "o200k_base"}
#: Narrower terminals stack the changes and the dictionary.
NARROW = 110


@dataclass
class CompareProgress(Message):
    """A snapshot of the comparison for request ``serial``."""

    serial: int
    comparison: Comparison


@dataclass
class CompareFailed(Message):
    serial: int
    reason: str


class CompareWithScreen(ModalScreen[Target | None]):
    """What to compare the loaded wire with."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    CompareWithScreen { align: center middle; }
    CompareWithScreen > Vertical { width: 80; max-width: 95%; height: auto; border: thick $accent;
                                   background: $panel; padding: 1 2; }
    CompareWithScreen Horizontal { height: auto; margin-top: 1; }
    CompareWithScreen Horizontal Input { width: 1fr; }
    """

    def __init__(self, suggested: str = "", workspace: str = ".") -> None:
        super().__init__()
        self.suggested = suggested
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Compare the loaded wire with another file (Enter), or with:")
            yield Input(value=self.suggested, placeholder="path/to/other.model-text", id="compare-path")
            with Horizontal():
                yield Button("its canonical re-encoding", id="compare-canonical")
            with Horizontal():
                yield Input(value=self.workspace, placeholder="workspace folder", id="compare-workspace")
                yield Button("its replay from this workspace", id="compare-replay")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if not value:
            return
        if event.input.id == "compare-workspace":
            self.dismiss(Target("replay", value))
        else:
            self.dismiss(Target("file", value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "compare-canonical":
            self.dismiss(Target("canonical"))
        elif event.button.id == "compare-replay":
            self.dismiss(Target("replay", self.query_one("#compare-workspace", Input).value.strip() or "."))

    def action_cancel(self) -> None:
        self.dismiss(None)


def shortened(text: str, width: int) -> str:
    """``text`` cut in the middle to ``width`` characters (digests differ
    early and late alike, so both ends stay)."""
    if len(text) <= width:
        return text
    half = (width - 1) // 2
    return text[:half] + "…" + text[len(text) - (width - 1 - half):]


def _marked(same: bool, text: str) -> Text:
    return Text(text) if same else Text(text, style="bold yellow")


KIND_STYLES = {"changed": "yellow", "added": "green", "removed": "red", "reordered": "magenta", "shifted": "dim"}
STATUS_SIGNS = {"removed": ("−", "red"), "added": ("+", "green"), "kept": ("=", "")}


class CompareScreen(Screen[None]):
    """Two wires compared; Esc or q goes back to the inspector."""

    BINDINGS = [Binding("escape,q", "close", "Close compare"),
                Binding("slash", "search", "Search"),
                Binding("n", "next_change(1)", "Next change"),
                Binding("N", "next_change(-1)", "Previous change"),
                Binding("enter", "open_change('left')", "Open left", show=False),
                Binding("o", "open_change('right')", "Open right"),
                # a tab's key leaves the compare view for that tab, rather than switching it unseen beneath
                *(Binding(key, f"leave('{name}')", show=False) for key, name in TABS)]
    DEFAULT_CSS = """
    CompareScreen { layout: vertical; }
    #compare-heading { height: auto; padding: 0 1; background: $boost; }
    #compare-fields { height: auto; max-height: 14; overflow-x: hidden; }
    CompareScreen.-narrow #compare-fields { max-height: 7; }
    CompareScreen.-narrow #compare-progress { width: 12; }
    CompareScreen.-narrow #compare-bottom { layout: vertical; }
    CompareScreen.-narrow #compare-bottom > Vertical { width: 1fr; }
    #compare-state { height: auto; }  /* a long reason (a failed replay's close matches) wraps */
    #compare-notes { height: auto; padding: 0 1; display: none; }
    #compare-status { width: 1fr; padding: 0 1; }
    #compare-progress { width: 30; }
    #compare-bottom { height: 1fr; }
    #compare-bottom > Vertical { height: 1fr; }
    #compare-bottom > Vertical#compare-changes-box { width: 3fr; }
    #compare-bottom > Vertical#compare-entries-box { width: 2fr; }
    #compare-bottom DataTable { height: 1fr; overflow-x: hidden; }
    #compare-detail { height: auto; max-height: 4; padding: 0 1; background: $boost; }
    """

    def __init__(self, left: Loaded, target: Target, *, left_label: str = "", explain: str = "",
                 count_tokens: bool = True) -> None:
        super().__init__()
        self.count_tokens = count_tokens
        self.explain = explain  # e.g. what a repair did, shown under the heading
        self.left = left
        self.target = target
        self.left_label = left_label or left.name
        self.serial = 0
        self.comparison: Comparison | None = None
        self._changes_shown = 0
        self._filled = False
        self.query_text = ""  # the text searched for with /; n/N step through the changes holding it

    def compose(self) -> ComposeResult:
        yield Static("", id="compare-heading")
        yield DataTable(id="compare-fields", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="compare-state"):
            yield Static("", id="compare-status")
            yield ProgressBar(id="compare-progress", show_eta=False)
        yield Static("", id="compare-notes")
        with Horizontal(id="compare-bottom"):
            with Vertical(id="compare-changes-box"):
                yield Label("document: structural changes (JSON paths)", classes="pane-title", id="changes-title")
                yield DataTable(id="compare-changes", cursor_type="row")
                yield Static("", id="compare-detail")
            with Vertical(id="compare-entries-box"):
                yield Label("dictionary (@index×uses)", classes="pane-title", id="entries-title")
                yield DataTable(id="compare-entries", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.set_class(self.narrow, "-narrow")
        fields = self.query_one("#compare-fields", DataTable)
        for label, key in (("", "name"), ("left", "left"), ("right", "right"), ("delta", "delta")):
            fields.add_column(label, key=key)
        # fixed widths, from the terminal's: rows arrive in batches and must not be cut to the first's
        changes = self.query_one("#compare-changes", DataTable)
        path_width, value_width = self._change_widths()
        for label, width in (("change", 9), ("path", path_width), ("left", value_width), ("right", value_width)):
            changes.add_column(label, width=width)
        entries = self.query_one("#compare-entries", DataTable)
        for label, width in (("", 1), ("literal", self._literal_width()), ("left", 9), ("right", 9)):
            entries.add_column(label, width=width)
        heading = Text.assemble(("compare  ", "bold"), ("left ", "bold"), display_value(self.left_label.encode()),
                                ("   ⇄   right ", "bold"), display_value(self.target.label.encode()))
        if self.explain:
            heading.append("\n" + self.explain)
        self.query_one("#compare-heading", Static).update(heading)
        self.query_one("#compare-status", Static).update(Text("reading the right side…", style="italic"))
        self.query_one("#compare-changes", DataTable).focus()
        self.start()

    def start(self) -> None:
        self.serial += 1
        self._compare_worker(self.serial, self.left, self.target)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False, description="compare")
    def _compare_worker(self, serial: int, left: Loaded, target: Target) -> None:
        from analysis.sources import WorkspaceError

        worker = get_current_worker()
        try:
            right = resolve(left, target)
            for comparison in compare(left, right, left_label=self.left_label, right_label=target.label,
                                      cancelled=lambda: worker.is_cancelled, count_tokens=self.count_tokens):
                self.post_message(CompareProgress(serial, comparison))
        except (CompactError, OSError, ValueError, WorkspaceError) as exc:  # NothingToCompare is a ValueError
            reason = getattr(exc, "strerror", None) or str(exc)
            self.post_message(CompareFailed(serial, reason))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A bug in the comparison is said on screen, not left as "reading…"."""
        if event.worker.group == "compare" and event.state == WorkerState.ERROR:
            self.post_message(CompareFailed(self.serial, f"the comparison failed ({event.worker.error!r})"))

    @on(CompareFailed)
    def _failed(self, message: CompareFailed) -> None:
        if message.serial != self.serial:
            return
        text = f"could not compare with {self.target.label}: {message.reason}"
        self.query_one("#compare-status", Static).update(Text(display_value(text.encode()), style="bold red"))
        self.query_one("#compare-progress", ProgressBar).display = False  # nothing was compared: no full bar
        self.notify(display_value(text.encode()), severity="error", timeout=8)

    @on(CompareProgress)
    def _progress(self, message: CompareProgress) -> None:
        if message.serial != self.serial:  # an earlier request answered late: dropped
            return
        c = self.comparison = message.comparison
        if not self._filled:
            self._filled = True
            self._fill_fields(c)
            self._fill_entries(c)
        self._fill_tokens(c)
        self._fill_changes(c)
        self._fill_status(c)

    def _fill_fields(self, c: Comparison) -> None:
        table = self.query_one("#compare-fields", DataTable)
        sizes = {"wire bytes": (len(c.left.wire), len(c.right.wire))}
        if c.left.document is not None and c.right.document is not None:
            sizes["document bytes"] = (len(c.left.document), len(c.right.document))
        for f in c.fields:
            change = _marked(f.same, delta(*sizes[f.name])) if f.name in sizes else ""
            table.add_row(Text(f.name + ("" if f.same else " ≠"), style="" if f.same else "bold yellow"),
                          _marked(f.same, self._value(f.name, f.left)), _marked(f.same, self._value(f.name, f.right)),
                          change, key=f.name)
        for name in TOKEN_ROWS:
            table.add_row(name, "", "", "", key=name)

    def _fill_tokens(self, c: Comparison) -> None:
        """The token rows of the envelope table: counting, counted, or why not."""
        table = self.query_one("#compare-fields", DataTable)
        left, right = c.tokens
        for name, encoding in TOKEN_ROWS.items():
            if left == {} or right == {}:
                cells = ("bytes only", "bytes only", "v1 binary is never shown to a model")
            elif left is None or right is None:
                cells = ("counting…" if not c.done else "not counted", "", "" if not c.done else "ctrl+t counts")
            else:
                a, b = left[encoding], right[encoding]
                cells = (f"{a:,}", f"{b:,}", _marked(a == b, delta(a, b)))
            for column, cell in zip(("left", "right", "delta"), cells):
                table.update_cell(name, column, cell)

    @property
    def narrow(self) -> bool:
        """Under 110 columns the bottom tables are stacked, not side by side."""
        return self.app.size.width < NARROW

    def on_resize(self) -> None:
        self.set_class(self.narrow, "-narrow")

    def _width(self, share: float, taken: int, columns: int) -> int:
        """Characters for each of ``columns`` cells in a table given ``share``
        of the terminal's width, ``taken`` of it by the other columns."""
        return max(10, (int(self.app.size.width * share) - taken) // columns)

    def _change_widths(self) -> tuple[int, int]:
        """The changes table's path and value columns."""
        share = 1 if self.narrow else 3 / 5
        path_width = self._width(share * 0.33, 0, 1)
        return path_width, self._width(share, 21 + path_width, 2)

    def _literal_width(self) -> int:
        return self._width(1 if self.narrow else 2 / 5, 29, 1)  # the other columns, padding, scrollbar

    def _value(self, name: str, value: str) -> str:
        """A metadata value cut to fit its column (the verdict and sizes whole)."""
        if not value:
            return "—"
        if name in ("root", "source_revision", "source_digest"):
            # the name and delta columns (20 each), and where the terminal is wide enough for all of
            # it, each cell's padding (2 × 4) and a scrollbar (2); narrow, the values come first
            return shortened(value, self._width(1, 20 + 20 + (0 if self.narrow else 10), 2))
        return value

    def _fill_entries(self, c: Comparison) -> None:
        table = self.query_one("#compare-entries", DataTable)
        counts = {k: sum(1 for e in c.entries if e.status == k) for k in STATUS_SIGNS}
        width = self._literal_width()
        for e in c.entries[:ENTRY_ROWS]:
            sign, style = STATUS_SIGNS[e.status]
            left = "" if e.left_index is None else f"@{e.left_index}×{e.left_uses:,}"
            right = "" if e.right_index is None else f"@{e.right_index}×{e.right_uses:,}"
            differs = e.status != "kept" or e.left_uses != e.right_uses or e.left_index != e.right_index
            table.add_row(Text(sign, style=style), Text(shortened(display_value(e.literal), width), style=style),
                          _marked(not differs, left), _marked(not differs, right))
        title = (f"dictionary (@index×uses): {counts['removed']:,} removed, {counts['added']:,} added, "
                 f"{counts['kept']:,} kept" + (f" (the first {ENTRY_ROWS:,} shown)" if len(c.entries) > ENTRY_ROWS
                                                else ""))
        if c.entries_note:
            title += f"; {c.entries_note}"
        self.query_one("#entries-title", Label).update(Text(title))

    def _fill_changes(self, c: Comparison) -> None:
        table = self.query_one("#compare-changes", DataTable)
        path_width, value_width = self._change_widths()
        for change in c.changes[self._changes_shown:]:
            style = KIND_STYLES.get(change.kind, "")
            old, new = (shortened(display_value(v.encode()), value_width) for v in (change.old, change.new))
            table.add_row(Text(change.kind, style=style), Text(shortened(display_value(change.path.encode()), path_width)),
                          Text(old, style="red" if old else ""), Text(new, style="green" if new else ""))
        self._changes_shown = len(c.changes)

    def _fill_status(self, c: Comparison) -> None:
        total = c.total_changes
        if c.diff_note and not total and not c.shifted:
            text = c.diff_note
        else:
            text = c.summary()
            if total + c.shifted > len(c.changes):
                text += f"; the first {len(c.changes):,} listed"
        if c.progress < 1.0:
            text = f"comparing the documents… {c.progress:.0%}; {text} so far"
        elif not c.done:
            text += "; counting tokens…"
        self.query_one("#compare-notes", Static).update(Text("\n".join(c.notes), style="italic"))
        self.query_one("#compare-notes").display = bool(c.notes)
        status = self.query_one("#compare-status", Static)
        status.update(Text(text))
        bar = self.query_one("#compare-progress", ProgressBar)
        bar.update(total=100, progress=round(c.progress * 100))
        bar.display = not c.done  # a finished comparison says so in words; the bar only shows work under way
        self.query_one("#changes-title", Label).update(Text(
            f"document: structural changes (JSON paths): {total:,}" if total else
            "document: structural changes (JSON paths)"))

    @on(DataTable.RowHighlighted, "#compare-changes")
    def _change_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted change in full: its path and both values (the
        table's cells are cut to fit)."""
        c = self.comparison
        if c is None or not 0 <= event.cursor_row < len(c.changes):
            return
        change = c.changes[event.cursor_row]
        text = Text.assemble((change.kind, KIND_STYLES.get(change.kind, "")), " ",
                             (display_value(change.path.encode()), "bold"))
        if change.old:
            text.append("\n  left:  ")
            text.append(display_value(change.old.encode()), "red")
        if change.new:
            text.append("\n  right: ")
            text.append(display_value(change.new.encode()), "green")
        self.query_one("#compare-detail", Static).update(text)

    def action_search(self) -> None:
        """Find text in the changes' paths and values: n/N then step through the
        changes that hold it (an empty search steps through every change again)."""
        from .screens import PromptScreen

        def run(query: str | None) -> None:
            if query is None:
                return
            self.query_text = query.strip()
            if not self.query_text:
                self.notify("n/N step through every change again")
                return
            c = self.comparison
            hits = [i for i, ch in enumerate(c.changes) if self._holds(ch)] if c is not None else []
            if not hits:
                self.notify(f"{self.query_text!r} is in no change's path or values", severity="warning")
                return
            self.notify(f"{len(hits):,} changes hold {self.query_text!r} (n/N: next/previous)")
            table = self.query_one("#compare-changes", DataTable)
            table.move_cursor(row=hits[0])
            table.focus()

        self.app.push_screen(PromptScreen("Search the changes (paths and values)", "text", self.query_text), run)

    def _holds(self, change: object) -> bool:
        needle = self.query_text.lower()
        return any(needle in str(getattr(change, name)).lower() for name in ("path", "old", "new"))

    def action_next_change(self, step: int) -> None:
        """The next (or previous) change a person counts (rows only shifted are
        passed over), or holding the searched text after a search."""
        c = self.comparison
        table = self.query_one("#compare-changes", DataTable)
        if c is None or not c.changes:
            self.notify("no changes to step through")
            return
        n = len(c.changes)
        row = table.cursor_row
        for k in range(1, n + 1):
            r = (row + step * k) % n
            change = c.changes[r]
            if (self._holds(change) if self.query_text else change.kind != "shifted"):
                table.move_cursor(row=r)
                table.focus()
                return
        self.notify("no other change holds the searched text" if self.query_text
                    else "every change is a row only shifted")

    def action_open_change(self, side: str) -> None:
        """Open the highlighted change's path in the Body pane of one side (Enter:
        the left, o: the right, which then becomes the wire shown)."""
        from .structure import Structure, path_steps

        c = self.comparison
        table = self.query_one("#compare-changes", DataTable)
        if c is None or not 0 <= table.cursor_row < len(c.changes):
            return
        change = c.changes[table.cursor_row]
        loaded = c.left if side == "left" else c.right
        steps = path_steps(change.path, side)
        document = loaded.document
        values = loaded.json_values() if document is not None else None
        at = -1
        if document is not None and values is not None and steps is not None:
            at = Structure(document, values).find(steps)
        if at < 0 or values is None:
            other = "o opens the right side" if side == "left" else "Enter opens the left side"
            self.notify(f"{display_value(change.path.encode())} is not in the {side} document ({other})",
                        severity="warning")
            return
        self.workers.cancel_group(self, "compare")
        self.dismiss(None)
        self.app.show_document_offset(loaded, values.start[at])  # type: ignore[attr-defined]

    @on(DataTable.RowSelected, "#compare-changes")
    def _change_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_change("left")

    def action_close(self) -> None:
        self.workers.cancel_group(self, "compare")
        self.dismiss(None)

    def action_leave(self, tab: str) -> None:
        self.action_close()
        self.app.call_later(self.app.run_action, f"tab('{tab}')")


__all__ = ["CompareFailed", "CompareProgress", "CompareScreen", "CompareWithScreen"]
