"""The compare view: two wires side by side (``inspector/compare.py`` does the
comparing). ``CompareWithScreen`` asks what to compare the loaded wire with (a
file, its canonical re-encoding, its replay from a workspace); ``CompareScreen``
shows the envelopes with differences marked, the byte and token totals with
the delta, the structural changes of the documents and the dictionary entries
removed, added and kept. The comparison runs in a thread worker of the screen,
which posts snapshots naming the request they answer; stale ones are dropped."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Input, Label, ProgressBar, Static
from textual.worker import get_current_worker

from codec import CompactError

from .compare import Comparison, Target, compare, delta, resolve
from .model import Loaded, display_value

#: Dictionary rows shown at most (a 16 MiB wire has tens of thousands of entries).
ENTRY_ROWS = 500
#: Characters of an envelope value shown in each column (a digest is 71).
VALUE_WIDTH = 33


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


KIND_STYLES = {"changed": "yellow", "added": "green", "removed": "red", "reordered": "magenta"}
STATUS_SIGNS = {"removed": ("−", "red"), "added": ("+", "green"), "kept": ("=", "")}


class CompareScreen(Screen[None]):
    """Two wires compared; Esc or q goes back to the inspector."""

    BINDINGS = [Binding("escape,q", "close", "Close compare")]
    DEFAULT_CSS = """
    CompareScreen { layout: vertical; }
    #compare-heading { height: auto; padding: 0 1; background: $boost; }
    #compare-top { height: auto; max-height: 13; }
    #compare-fields { width: 3fr; height: auto; max-height: 13; }
    #compare-totals { width: 2fr; height: auto; padding: 0 1; }
    #compare-state { height: 1; }
    #compare-status { width: 1fr; padding: 0 1; }
    #compare-progress { width: 30; }
    #compare-bottom { height: 1fr; }
    #compare-bottom > Vertical { height: 1fr; }
    #compare-bottom > Vertical#compare-changes-box { width: 3fr; }
    #compare-bottom > Vertical#compare-entries-box { width: 2fr; }
    #compare-bottom DataTable { height: 1fr; }
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

    def compose(self) -> ComposeResult:
        yield Static("", id="compare-heading")
        with Horizontal(id="compare-top"):
            yield DataTable(id="compare-fields", cursor_type="row", zebra_stripes=True)
            yield Static("", id="compare-totals")
        with Horizontal(id="compare-state"):
            yield Static("", id="compare-status")
            yield ProgressBar(id="compare-progress", show_eta=False)
        with Horizontal(id="compare-bottom"):
            with Vertical(id="compare-changes-box"):
                yield Label("document: structural changes (JSON paths)", classes="pane-title", id="changes-title")
                yield DataTable(id="compare-changes", cursor_type="row")
            with Vertical(id="compare-entries-box"):
                yield Label("dictionary", classes="pane-title", id="entries-title")
                yield DataTable(id="compare-entries", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#compare-fields", DataTable).add_columns("", "left", "right")
        self.query_one("#compare-changes", DataTable).add_columns("change", "path", "left", "right")
        self.query_one("#compare-entries", DataTable).add_columns("", "literal", "left uses", "right uses")
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
        from workspace.sources import WorkspaceError

        worker = get_current_worker()
        try:
            right = resolve(left, target).prepare()
            for comparison in compare(left, right, left_label=self.left_label, right_label=target.label,
                                      cancelled=lambda: worker.is_cancelled, count_tokens=self.count_tokens):
                self.post_message(CompareProgress(serial, comparison))
        except (CompactError, OSError, ValueError, WorkspaceError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            self.post_message(CompareFailed(serial, reason))

    @on(CompareFailed)
    def _failed(self, message: CompareFailed) -> None:
        if message.serial != self.serial:
            return
        text = f"could not compare with {self.target.label}: {message.reason}"
        self.query_one("#compare-status", Static).update(Text(display_value(text.encode()), style="bold red"))
        self.query_one("#compare-progress", ProgressBar).update(total=1, progress=1)
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
        self._fill_totals(c)
        self._fill_changes(c)
        self._fill_status(c)

    def _fill_fields(self, c: Comparison) -> None:
        table = self.query_one("#compare-fields", DataTable)
        for f in c.fields:
            mark = "" if f.same else " ≠"
            table.add_row(Text(f.name + mark, style="" if f.same else "bold yellow"),
                          _marked(f.same, self._value(f.name, f.left)), _marked(f.same, self._value(f.name, f.right)),
                          key=f.name)

    @staticmethod
    def _value(name: str, value: str) -> str:
        """A metadata value cut to fit its column (the verdict and sizes whole)."""
        if not value:
            return "—"
        return shortened(value, VALUE_WIDTH) if name in ("root", "source_revision", "source_digest") else value

    def _fill_entries(self, c: Comparison) -> None:
        table = self.query_one("#compare-entries", DataTable)
        counts = {k: sum(1 for e in c.entries if e.status == k) for k in STATUS_SIGNS}
        for e in c.entries[:ENTRY_ROWS]:
            sign, style = STATUS_SIGNS[e.status]
            left = "" if e.left_index is None else f"@{e.left_index} ×{e.left_uses:,}"
            right = "" if e.right_index is None else f"@{e.right_index} ×{e.right_uses:,}"
            differs = e.status != "kept" or e.left_uses != e.right_uses or e.left_index != e.right_index
            table.add_row(Text(sign, style=style), Text(shortened(display_value(e.literal), 34), style=style),
                          _marked(not differs, left), _marked(not differs, right))
        title = (f"dictionary: {counts['removed']:,} removed, {counts['added']:,} added, {counts['kept']:,} kept"
                 + (f" (the first {ENTRY_ROWS:,} shown)" if len(c.entries) > ENTRY_ROWS else ""))
        if c.entries_note:
            title += f"; {c.entries_note}"
        self.query_one("#entries-title", Label).update(Text(title))

    def _fill_totals(self, c: Comparison) -> None:
        table = Table(box=None, padding=(0, 1), show_edge=False)
        for name, justify in (("", "left"), ("left", "right"), ("right", "right"), ("delta", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        rows = [("wire bytes", len(c.left.wire), len(c.right.wire))]
        if c.left.document is not None and c.right.document is not None:
            rows.append(("document bytes", len(c.left.document), len(c.right.document)))
        for label, a, b in rows:
            table.add_row(label, f"{a:,}", f"{b:,}", _marked(a == b, delta(a, b)))
        left_tokens, right_tokens = c.tokens
        for name in ("cl100k_base", "o200k_base"):
            if left_tokens == {} or right_tokens == {}:
                table.add_row(f"{name} tokens", "bytes only: v1 binary is never shown to a model", "", "")
            elif left_tokens is None or right_tokens is None:
                table.add_row(f"{name} tokens", "counting…" if not c.done else "not counted (ctrl+t counts)", "",
                              "")
            else:
                a, b = left_tokens[name], right_tokens[name]
                table.add_row(f"{name} tokens", f"{a:,}", f"{b:,}", _marked(a == b, delta(a, b)))
        self.query_one("#compare-totals", Static).update(table)

    def _fill_changes(self, c: Comparison) -> None:
        table = self.query_one("#compare-changes", DataTable)
        for change in c.changes[self._changes_shown:]:
            style = KIND_STYLES.get(change.kind, "")
            table.add_row(Text(change.kind, style=style), Text(shortened(display_value(change.path.encode()), 60)),
                          Text(shortened(display_value(change.old.encode()), 36), style="red" if change.old else ""),
                          Text(shortened(display_value(change.new.encode()), 36), style="green" if change.new else ""))
        self._changes_shown = len(c.changes)

    def _fill_status(self, c: Comparison) -> None:
        counts = dict(c.counts)
        total = c.total_changes
        parts = [f"{counts[k]:,} {k}" for k in ("changed", "added", "removed", "reordered") if counts.get(k)]
        if c.diff_note and not total:
            text = c.diff_note
        else:
            text = f"{total:,} structural difference{'s' if total != 1 else ''}"
            if parts:
                text += " (" + ", ".join(parts) + ")"
            if total > len(c.changes):
                text += f"; the first {len(c.changes):,} listed"
        if c.progress < 1.0:
            text = f"comparing the documents… {c.progress:.0%}; {text} so far"
        elif not c.done:
            text += "; counting tokens…"
        for note in c.notes:
            text += f"\n{note}"
        status = self.query_one("#compare-status", Static)
        status.update(Text(text))
        self.query_one("#compare-state").styles.height = 1 + len(c.notes)
        self.query_one("#compare-progress", ProgressBar).update(total=100, progress=round(c.progress * 100))
        self.query_one("#changes-title", Label).update(Text(
            f"document: structural changes (JSON paths): {total:,}" if total else
            "document: structural changes (JSON paths)"))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "compare")
        self.dismiss(None)


__all__ = ["CompareFailed", "CompareProgress", "CompareScreen", "CompareWithScreen"]
