"""The inspector app: bindings, tabs, workers and the glue between the views.

Heavy work (loading and parsing a wire, the reading layout of a large body,
token counting) runs in thread workers, exclusive per group, with their errors
shown in the app; the interface keeps answering keys while they run."""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import (
    Button,
    DataTable,
    Footer,
    Header,
    Input,
    Label,
    ProgressBar,
    Static,
    TabbedContent,
    TabPane,
)
from textual.worker import Worker, WorkerState

import codec
from codec import CompactError, check_binding

from .model import Loaded, canonical_comparison, display_value, encodings_of, load_path
from .screens import ConfirmScreen, ExportScreen, HelpScreen, OpenScreen, PromptScreen
from .views.dictionary import DictionaryView, header_text
from .views.hexview import HexView
from .views.lines import LineView, Mark, MarkSet, reading_layout, wrapped_layout

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEFAULT_EXAMPLE = EXAMPLES / "wires" / "banking_ledger.graph.model-text"
BIG = 1 << 20  # above this, layouts are computed in a worker

TAB_KEYS = {"o": "overview", "d": "dictionary", "b": "body", "x": "bytes", "v": "verify", "t": "tokens"}


@dataclass(frozen=True)
class Place:
    """Where the user was, for back/forward history."""

    tab: str
    entry: int | None
    compact_offset: int
    expanded_offset: int


class InspectorCommands(Provider):
    """Every action, by name, in Textual's command palette."""

    COMMANDS = [
        ("Open file…", "open", "Open another wire or JSON file"),
        ("Reload file", "reload", "Read the file again from disk"),
        ("Export…", "export", "Write the projection in any encoding to a new file"),
        ("Verify", "verify", "Run decode-and-verify"),
        ("Count tokens", "count_tokens", "Count tokens for every encoding again"),
        ("Toggle reading view", "toggle_reading", "Exact bytes or indented JSON in the body panes"),
        ("Go to byte offset…", "goto", "Jump to a byte of the wire"),
        ("Jump to diagnostic", "jump_error", "Go to the byte a diagnostic names"),
        ("Search…", "search", "Search the focused pane"),
        ("Next use of entry", "next_use", "Step to the next reference of the selected entry"),
        ("Previous use of entry", "prev_use", "Step to the previous reference of the selected entry"),
        ("Back", "back", "Go back to where you were"),
        ("Forward", "forward", "Go forward again"),
        ("Copy value under cursor", "copy", "Copy to the clipboard (OSC 52)"),
        ("Help", "help", "List every key"),
    ] + [(f"Show {name.title()} tab", f"tab('{name}')", f"Switch to the {name} tab") for name in TAB_KEYS.values()]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        app = self.app
        assert isinstance(app, InspectorApp)
        for title, action, help_text in self.COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), lambda a=action: app.run_action(a), help=help_text)


class InspectorApp(App[None]):
    TITLE = "semaprax inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    CSS = """
    #tabs { height: 1fr; }
    #tabs > ContentSwitcher { height: 1fr; }
    #tabs TabPane { height: 1fr; padding: 0; }
    #diagnostic { background: $error 30%; color: $text; padding: 0 1; height: auto; max-height: 6; display: none; }
    #diagnostic.shown { display: block; }
    #summary { padding: 0 1; height: auto; }
    #fields { height: auto; max-height: 12; }
    .pane-title { background: $boost; padding: 0 1; width: 1fr; }
    #body-panes { height: 1fr; }
    #body-panes > Vertical { width: 1fr; }
    LineView { height: 1fr; border: round $panel-lighten-2; }
    LineView:focus { border: round $accent; }
    #body-status, #hex-status, #dict-detail { height: auto; max-height: 5; padding: 0 1; background: $boost; }
    #dict-header { padding: 0 0 0 0; text-style: bold; background: $boost; }
    DictionaryView { height: 1fr; }
    HexView { height: 1fr; }
    #verify-inputs { height: auto; }
    #verify-inputs Input { width: 1fr; }
    #verify-result { padding: 0 1; height: auto; }
    #canon-panes { height: 1fr; }
    #canon-panes > Vertical { width: 1fr; }
    #token-table { height: auto; }
    #token-info { padding: 1 1; height: auto; }
    #token-progress { margin: 1 1; }
    """
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        *[Binding(key, f"tab('{name}')", name.title(), show=False) for key, name in TAB_KEYS.items()],
        Binding("ctrl+o", "open", "Open"),
        Binding("r", "reload", "Reload"),
        Binding("e", "export", "Export"),
        Binding("slash", "search", "Search"),
        Binding("n", "next_match", "Next match", show=False),
        Binding("N", "prev_match", "Prev match", show=False),
        Binding("right_square_bracket", "next_use", "Next use"),
        Binding("left_square_bracket", "prev_use", "Prev use", show=False),
        Binding("alt+left,less_than_sign", "back", "Back", show=False),
        Binding("alt+right,greater_than_sign", "forward", "Forward", show=False),
        Binding("g", "goto", "Go to byte"),
        Binding("exclamation_mark", "jump_error", "Diagnostic", show=False),
        Binding("m", "toggle_reading", "Reading view"),
        Binding("s", "toggle_sync", "Sync panes", show=False),
        Binding("c", "copy", "Copy"),
        Binding("escape", "leave_input", "Leave field", show=False),
    ]

    loaded: reactive[Loaded | None] = reactive(None, init=False)

    def __init__(self, loaded: Loaded | None = None, *, path: str | None = None, profile: str | None = None,
                 workspace: str | None = None, watch: bool = False, count_tokens: bool = True) -> None:
        super().__init__()
        self._initial = loaded
        self._path = path
        self._profile = profile
        self._workspace = workspace
        self.watch_file = watch
        self.count_tokens_enabled = count_tokens
        self.selected_entry: int | None = None
        self.use_position = -1
        self.history: list[Place] = []
        self.future: list[Place] = []
        self.matches: list[int] = []
        self.match_pane: str = "compact"
        self.match_length = 0
        self.match_position = -1
        self.sync_panes = True
        self.reading = False
        self.token_counts: dict[tuple[str, str], dict[str, int]] = {}
        self._mtime: float | None = None
        self.status_message = ""

    # --- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="diagnostic")
        with TabbedContent(initial="overview", id="tabs"):
            with TabPane("Overview", id="overview"):
                yield Static("Loading…", id="summary")
                yield DataTable(id="fields", cursor_type="row", zebra_stripes=True)
            with TabPane("Dictionary", id="dictionary"):
                yield Input(placeholder="filter entries (text)…", id="dict-filter")
                yield Static("", id="dict-header")
                yield DictionaryView(id="dict")
                yield Static("", id="dict-detail")
            with TabPane("Body", id="body"):
                with Horizontal(id="body-panes"):
                    with Vertical():
                        yield Label("compact body", classes="pane-title", id="compact-title")
                        yield LineView(id="compact")
                    with Vertical():
                        yield Label("expanded document", classes="pane-title", id="expanded-title")
                        yield LineView(id="expanded")
                yield Static("", id="body-status")
            with TabPane("Bytes", id="bytes"):
                yield HexView(id="hex")
                yield Static("", id="hex-status")
            with TabPane("Verify", id="verify"):
                with Horizontal(id="verify-inputs"):
                    yield Input(placeholder="expected profile", id="expect-profile")
                    yield Input(placeholder="expected root", id="expect-root")
                    yield Input(placeholder="expected source_revision", id="expect-revision")
                    yield Button("Verify", id="run-verify", variant="primary")
                yield Static("Press Verify (or Enter in a field) to run decode-and-verify.", id="verify-result")
                with Horizontal(id="canon-panes"):
                    with Vertical():
                        yield Label("given bytes", classes="pane-title")
                        yield LineView(id="canon-given")
                    with Vertical():
                        yield Label("canonical re-encoding", classes="pane-title")
                        yield LineView(id="canon-expected")
            with TabPane("Tokens", id="tokens"):
                yield ProgressBar(id="token-progress", show_eta=False)
                yield DataTable(id="token-table", cursor_type="row")
                yield Static("", id="token-info")
        yield Footer()

    def on_mount(self) -> None:
        fields = self.query_one("#fields", DataTable)
        fields.add_columns("field", "bytes", "value")
        table = self.query_one("#token-table", DataTable)
        table.add_columns("encoding", "bytes", "cl100k_base", "o200k_base", "vs full JSON (cl100k / o200k)")
        self.query_one("#canon-panes").display = False
        if self._initial is not None:
            self.loaded = self._initial
        elif self._path is not None:
            self.load_file(self._path)
        if self.watch_file:
            self.set_interval(1.0, self._check_file)

    # --- loading ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_file(self, path: str) -> Loaded:
        return load_path(path, profile=self._profile, workspace=self._workspace).prepare()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "load":
            if event.state == WorkerState.SUCCESS:
                self.loaded = worker.result
            elif event.state == WorkerState.ERROR:
                error = worker.error
                reason = getattr(error, "strerror", None) or str(error)
                self._show_failure(f"could not open {self._path}: {reason}"
                                   + ("" if self.loaded is None else " (still showing the previous file)"))
        elif worker.group == "tokens" and event.state == WorkerState.ERROR:
            self.query_one("#token-info", Static).update(_rich(f"[b red]token counting failed:[/] {_escape(str(worker.error))}"))
        elif worker.group == "layout" and event.state == WorkerState.SUCCESS and worker.result is not None:
            name, layout, offset = worker.result
            view = self.query_one(f"#{name}", LineView)
            view.set_layout(layout, "reading")
            view.go_to_offset(offset)

    def _show_failure(self, message: str) -> None:
        banner = self.query_one("#diagnostic", Static)
        banner.update(Text(message))
        banner.add_class("shown")
        self.notify(message, severity="error", timeout=8)

    def _check_file(self) -> None:
        path = self.loaded.path if self.loaded is not None else None
        if not path or not os.path.exists(path):
            return
        mtime = os.path.getmtime(path)
        if self._mtime is None:
            self._mtime = mtime
        elif mtime != self._mtime:
            self._mtime = mtime
            self.notify(f"{path} changed on disk: reloaded")
            self.action_reload()

    def watch_loaded(self, loaded: Loaded | None) -> None:
        if loaded is None:
            return
        self.sub_title = loaded.name
        self.selected_entry = None
        self.use_position = -1
        self.matches = []
        self._fill_banner(loaded)
        self._fill_overview(loaded)
        self._fill_dictionary(loaded)
        self._fill_body(loaded)
        self.query_one("#hex", HexView).set_loaded(loaded)
        self._fill_verify(loaded)
        if loaded.path and os.path.exists(loaded.path):
            self._mtime = os.path.getmtime(loaded.path)
        if self.count_tokens_enabled:  # after the first paint, so drawing comes first
            self.call_after_refresh(self.count_tokens, loaded)
        if loaded.error is not None and loaded.error.offset is not None:
            self.call_after_refresh(self._position_at_error)

    def _fill_banner(self, loaded: Loaded) -> None:
        banner = self.query_one("#diagnostic", Static)
        if loaded.error is None:
            banner.remove_class("shown")
            banner.update("")
            return
        e = loaded.error
        where = "" if e.offset is None else f" at byte {e.offset:,}"
        text = Text.assemble(("REJECTED ", "bold"), (e.code, "bold"), f"{where}: {e.message}")
        if e.offset is not None:
            lo = max(e.offset - 24, 0)
            text.append("\n  …" + display_value(loaded.wire[lo:e.offset]))
            text.append(display_value(loaded.wire[e.offset:e.offset + 1]) or "(end)", "reverse bold")
            text.append(display_value(loaded.wire[e.offset + 1:e.offset + 24]) + "…   (press ! to jump there)")
        banner.update(text)
        banner.add_class("shown")

    def _fill_overview(self, loaded: Loaded) -> None:
        lines = [f"[b]{_escape(loaded.name)}[/]", f"form: [b]{loaded.title}[/], format version {loaded.version}"]
        lines.append(f"wire: {len(loaded.wire):,} bytes")
        if loaded.document is not None:
            lines.append(f"selected document: {len(loaded.document):,} bytes")
        if loaded.form == "model-text":
            refs = len(loaded.ref_wire)
            lines.append(f"dictionary: {len(loaded.entries):,} entries, {refs:,} references in the body")
        if loaded.produced_from:
            lines.append(f"produced live: profile {loaded.produced_from[0]} of {loaded.produced_from[1]}")
        digest = {True: "[green]matches[/]", False: "[red]does not match[/]", None: "not checked"}[loaded.digest_ok]
        if loaded.form != "json":
            lines.append(f"digest: {digest}")
        status = "[green b]valid[/]" if loaded.ok else f"[red b]rejected: {loaded.error.code}[/]"
        lines.append(f"status: {status}")
        self.query_one("#summary", Static).update(_rich("\n".join(lines)))
        table = self.query_one("#fields", DataTable)
        table.clear()
        for f in loaded.fields:
            table.add_row(f.name, f"{len(f.raw):,}", Text(display_value(f.raw)), key=f.name)

    def _fill_dictionary(self, loaded: Loaded) -> None:
        view = self.query_one("#dict", DictionaryView)
        view.set_loaded(loaded)
        self.query_one("#dict-filter", Input).value = ""
        self._update_dict_header()
        empty = "no dictionary: " + ("the document is under 16,384 bytes" if loaded.form == "model-text"
                                     else f"{loaded.title} has none")
        self.query_one("#dict-detail", Static).update(Text(
            empty if not loaded.entries else "select an entry: Enter shows its uses, ] steps through them"))

    def _update_dict_header(self) -> None:
        view = self.query_one("#dict", DictionaryView)
        width = view.scrollable_content_region.width or 100
        self.query_one("#dict-header", Static).update(header_text(width, view.sort_column, view.reverse))

    def _fill_body(self, loaded: Loaded) -> None:
        compact = self.query_one("#compact", LineView)
        expanded = self.query_one("#expanded", LineView)
        body = loaded.body
        marks = MarkSet(*loaded.body_marks())
        doc = loaded.document or b""
        doc_marks = MarkSet(*loaded.document_marks())
        if loaded.form == "binary":
            body = _hex_lines(body)
            marks = MarkSet((), ())
        self.reading = False
        compact.set_content(body, marks)
        expanded.set_content(doc, doc_marks)
        title = {"model-text": "compact body (@N marked)", "text": "compact body (v1 ~k back-references)",
                 "binary": "CBOR body (hex)", "json": "full JSON"}.get(loaded.form, "body")
        self.query_one("#compact-title", Label).update(title)
        self.query_one("#expanded-title", Label).update(
            "expanded document (substituted literals marked)" if loaded.document is not None
            else "expanded document: could not be reconstructed")
        self._update_body_status()

    def _fill_verify(self, loaded: Loaded) -> None:
        self.query_one("#canon-panes").display = False
        self.query_one("#verify-result", Static).update(
            "Press Verify (or Enter in a field) to run decode-and-verify."
            if loaded.projection is not None or loaded.error is not None else "")

    def _position_at_error(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.error is None or loaded.error.offset is None:
            return
        offset = loaded.error.offset
        self.query_one("#hex", HexView).go_to_offset(offset)
        if loaded.body_start is not None and offset >= loaded.body_start and loaded.form != "binary":
            compact = self.query_one("#compact", LineView)
            rel = offset - loaded.body_start
            compact.set_focus_marks([Mark(rel, rel + 1, "error")])
            compact.go_to_offset(rel)

    # --- tokens ---------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="tokens", exit_on_error=False)
    def count_tokens(self, loaded: Loaded) -> None:
        from workspace import tokens

        bar = self.query_one("#token-progress", ProgressBar)
        wires = encodings_of(loaded)
        steps = len(wires) + (1 if loaded.entries else 0) + 1
        self.call_from_thread(bar.update, total=steps, progress=0)
        infos = tokens.tokenizer_info()
        self.call_from_thread(bar.advance, 1)
        rows: dict[str, dict[str, int]] = {}
        for form, wire in wires.items():
            key = (loaded.content_hash(), form)
            if form == "binary":
                rows[form] = {}
            elif key in self.token_counts:
                rows[form] = self.token_counts[key]
            else:
                rows[form] = self.token_counts[key] = tokens.count_tokens(wire)
            self.call_from_thread(bar.advance, 1)
            self.call_from_thread(self._show_token_rows, wires, dict(rows), infos)
        if loaded.entries:
            saved = {}
            for name in tokens.ENCODING_NAMES:
                enc = tokens.get_encoding(name)
                literals = [e.decode("utf-8", "replace") for e in loaded.entries]
                refs = [f"@{i}" for i in range(len(loaded.entries))]
                lit_counts = [len(t) for t in enc.encode_ordinary_batch(literals)]
                ref_counts = [len(t) for t in enc.encode_ordinary_batch(refs)]
                saved[name] = [loaded.reference_counts[i] * (lit_counts[i] - ref_counts[i]) - lit_counts[i] - 1
                               for i in range(len(loaded.entries))]
            self.call_from_thread(self.query_one("#dict", DictionaryView).set_tokens_saved, saved)
            self.call_from_thread(bar.advance, 1)

    def _show_token_rows(self, wires: dict[str, bytes], rows: dict[str, dict[str, int]], infos: Any) -> None:
        table = self.query_one("#token-table", DataTable)
        table.clear()
        base = rows.get("json")
        names = {"json": "full JSON", "text": "v1 text", "model-text": "v2 model-text", "binary": "v1 binary"}
        for form in ("json", "text", "model-text", "binary"):
            if form not in wires:
                continue
            counts = rows.get(form)
            if form == "binary":
                cells = ["bytes only", "bytes only", _change(len(wires[form]), len(wires["json"]), "bytes")
                         if "json" in wires else ""]
            elif counts:
                cells = [f"{counts['cl100k_base']:,}", f"{counts['o200k_base']:,}",
                         " / ".join(_change(counts[k], base[k]) for k in ("cl100k_base", "o200k_base"))
                         if base else ""]
            else:
                cells = ["counting…", "counting…", ""]
            table.add_row(names[form], f"{len(wires[form]):,}", *cells, key=form)
        info = [f"tiktoken {infos[0].tiktoken_version}; counts of the complete wire, local measurements only."]
        info += [f"{i.name} vocabulary sha256:{i.vocabulary_sha256}" for i in infos]
        if not wires:
            info.insert(0, "nothing to count: the wire could not be decoded")
        self.query_one("#token-info", Static).update(Text("\n".join(info)))

    # --- dictionary and body navigation ------------------------------------------------------

    @on(Input.Changed, "#dict-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one("#dict", DictionaryView).set_filter(event.value)

    @on(DictionaryView.Sorted)
    def _sorted(self) -> None:
        self._update_dict_header()

    @on(DictionaryView.Highlighted)
    def _entry_highlighted(self, event: DictionaryView.Highlighted) -> None:
        self._select_entry(event.index)

    @on(DictionaryView.Chosen)
    def _entry_chosen(self, event: DictionaryView.Chosen) -> None:
        self._remember()
        self._select_entry(event.index)
        self.use_position = -1
        self.action_tab("body")
        self.action_next_use()

    def _select_entry(self, index: int | None) -> None:
        loaded = self.loaded
        if loaded is None or index is None or index >= len(loaded.entries):
            return
        if index != self.selected_entry:
            self.use_position = -1
        self.selected_entry = index
        literal = display_value(loaded.entries[index])
        uses = loaded.reference_counts[index]
        self.query_one("#dict-detail", Static).update(_rich(
            f"[b]@{index}[/] = {_escape(literal)}\n{len(loaded.entries[index]):,} bytes, {uses:,} uses, "
            f"saves {loaded.bytes_saved(index):,} bytes — Enter or ] steps through its uses in the body"))

    def _uses(self) -> list[int]:
        if self.loaded is None or self.selected_entry is None:
            return []
        return self.loaded.references_of(self.selected_entry)

    def _show_use(self, position: int) -> None:
        loaded = self.loaded
        uses = self._uses()
        if loaded is None or not uses:
            self.notify("select a dictionary entry first (d, then arrows)", severity="warning")
            return
        self.use_position = position % len(uses)
        k = uses[self.use_position]
        index = loaded.ref_index[k]
        rel = loaded.ref_wire[k] - loaded.body_start
        token = len(loaded.entry_token(index))
        compact = self.query_one("#compact", LineView)
        expanded = self.query_one("#expanded", LineView)
        compact.set_focus_marks([Mark(rel, rel + token, "current")])
        expanded.set_focus_marks([Mark(loaded.ref_doc[k], loaded.ref_doc[k] + len(loaded.entries[index]), "current")])
        compact.go_to_offset(rel)
        expanded.go_to_offset(loaded.ref_doc[k])
        self.status_message = f"use {self.use_position + 1} of {len(uses)} of @{index}"
        self._update_body_status()

    def action_next_use(self) -> None:
        if self.tabbed.active != "body":
            self.action_tab("body")
        self._show_use(self.use_position + 1)

    def action_prev_use(self) -> None:
        if self.tabbed.active != "body":
            self.action_tab("body")
        self._show_use(self.use_position - 1)

    @on(LineView.Activated, "#compact")
    def _follow_reference(self, event: LineView.Activated) -> None:
        loaded = self.loaded
        if loaded is None or loaded.body_start is None or not loaded.ref_wire:
            return
        lo = bisect.bisect_left(loaded.ref_wire, loaded.body_start + event.start)
        hi = bisect.bisect_left(loaded.ref_wire, loaded.body_start + event.end)
        if lo >= hi:
            self.notify("no @N reference on this line", severity="warning")
            return
        k = lo
        uses = self._uses()
        if self.use_position >= 0 and uses and lo <= uses[self.use_position] < hi:
            k = uses[self.use_position]
        self._remember()
        index = loaded.ref_index[k]
        self.action_tab("dictionary")
        view = self.query_one("#dict", DictionaryView)
        view.select_index(index)
        view.focus()
        self._select_entry(index)

    @on(LineView.CursorMoved, "#compact")
    def _compact_moved(self, event: LineView.CursorMoved) -> None:
        if self.loaded is not None and self.sync_panes and self.loaded.form != "binary":
            self.query_one("#expanded", LineView).go_to_offset(self.loaded.body_to_doc(event.offset), center=False)
        self._update_body_status()

    @on(LineView.CursorMoved, "#expanded")
    def _expanded_moved(self, event: LineView.CursorMoved) -> None:
        if self.loaded is not None and self.sync_panes and self.loaded.form != "binary":
            self.query_one("#compact", LineView).go_to_offset(self.loaded.doc_to_body(event.offset), center=False)
        self._update_body_status()

    @on(HexView.Moved)
    def _hex_moved(self, event: HexView.Moved) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        region = loaded.region_at(event.offset)
        where = region.label if region else "outside any part"
        self.query_one("#hex-status", Static).update(Text(f"byte {event.offset:,} (0x{event.offset:x}): {where}"))

    def _update_body_status(self) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        compact = self.query_one("#compact", LineView)
        expanded = self.query_one("#expanded", LineView)
        parts = [f"compact byte {compact.cursor_offset:,}", f"document byte {expanded.cursor_offset:,}",
                 "reading view" if self.reading else "exact bytes",
                 "panes synced" if self.sync_panes else "panes independent"]
        if self.status_message:
            parts.append(self.status_message)
        self.query_one("#body-status", Static).update(Text(" · ".join(parts)))

    # --- history -----------------------------------------------------------------------------

    def _place(self) -> Place:
        return Place(self.tabbed.active, self.selected_entry, self.query_one("#compact", LineView).cursor_offset,
                     self.query_one("#expanded", LineView).cursor_offset)

    def _remember(self) -> None:
        self.history.append(self._place())
        self.future.clear()

    def _restore(self, place: Place) -> None:
        self.action_tab(place.tab)
        if place.entry is not None:
            self.query_one("#dict", DictionaryView).select_index(place.entry)
            self._select_entry(place.entry)
        self.query_one("#compact", LineView).go_to_offset(place.compact_offset)
        self.query_one("#expanded", LineView).go_to_offset(place.expanded_offset)

    def action_back(self) -> None:
        if not self.history:
            self.notify("nothing to go back to")
            return
        self.future.append(self._place())
        self._restore(self.history.pop())

    def action_forward(self) -> None:
        if not self.future:
            self.notify("nothing to go forward to")
            return
        self.history.append(self._place())
        self._restore(self.future.pop())

    # --- actions -----------------------------------------------------------------------------

    @property
    def tabbed(self) -> TabbedContent:
        return self.query_one("#tabs", TabbedContent)

    def action_tab(self, name: str) -> None:
        self.tabbed.active = name
        target = {"dictionary": "#dict", "body": "#compact", "bytes": "#hex"}.get(name)
        if target:
            self.query_one(target).focus()
        if name == "dictionary":
            self.call_after_refresh(self._update_dict_header)

    def action_leave_input(self) -> None:
        """Escape from a text field gives the keys back to the tab's view."""
        if isinstance(self.focused, Input):
            target = {"dictionary": "#dict", "body": "#compact", "bytes": "#hex"}.get(self.tabbed.active)
            if target:
                self.query_one(target).focus()
            else:
                self.set_focus(None)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_open(self) -> None:
        def opened(path: str | None) -> None:
            if path:
                self._path = path
                self._profile = None
                self.load_file(path)

        start = str(Path(self.loaded.path).parent) if self.loaded and self.loaded.path else "."
        self.push_screen(OpenScreen(start), opened)

    def action_reload(self) -> None:
        loaded = self.loaded
        if loaded is None or not loaded.path:
            self.notify("nothing on disk to reload", severity="warning")
            return
        self._path = loaded.path
        if loaded.produced_from:
            self._profile = loaded.produced_from[0]
        self.load_file(loaded.path)

    def action_export(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.projection is None:
            self.notify("nothing to export: the wire has no decodable projection", severity="error")
            return
        stem = Path(loaded.path or "projection").stem
        self.push_screen(ExportScreen(f"{stem}.export.model-text"), self._export_chosen)

    def _export_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is None:
            return
        encoding, path = choice
        if os.path.exists(path):
            def answered(yes: bool | None) -> None:
                if yes:
                    self._write_export(encoding, path)
                else:
                    self.notify(f"not written: {path} already exists")
            self.push_screen(ConfirmScreen(f"{path} exists. Overwrite it?"), answered)
        else:
            self._write_export(encoding, path)

    def _write_export(self, encoding: str, path: str) -> None:
        assert self.loaded is not None and self.loaded.projection is not None
        try:
            data = codec.ENCODERS[encoding](self.loaded.projection)
            Path(path).write_bytes(data)
        except (CompactError, OSError) as exc:
            self.notify(f"export failed: {exc}", severity="error")
            return
        self.notify(f"wrote {len(data):,} bytes of {encoding} to {path}")

    @on(Button.Pressed, "#run-verify")
    @on(Input.Submitted, "#verify-inputs Input")
    def action_verify(self) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        self.action_tab("verify")
        result = self.query_one("#verify-result", Static)
        expected = {k: (self.query_one(f"#expect-{w}", Input).value.strip() or None)
                    for k, w in (("profile", "profile"), ("root", "root"), ("source_revision", "revision"))}
        canon = self.query_one("#canon-panes")
        canon.display = False
        try:
            found = codec.decode_wire(loaded.wire)
            if found.projection is not None:
                check_binding(found.projection, **expected)
            elif any(expected.values()):
                raise CompactError("compact.binding", "full JSON carries no metadata to compare with", None)
        except CompactError as exc:
            where = "" if exc.offset is None else f" at byte {exc.offset:,}"
            result.update(_rich(f"[b red]FAIL[/] [b]{exc.code}[/]{where}: {_escape(exc.message)}"))
            comparison = canonical_comparison(loaded) if exc.code == "compact.noncanonical" else None
            if comparison is not None:
                given, canonical, at = comparison
                canon.display = True
                lo = max(at - 2000, 0)
                for view_id, data in (("#canon-given", given), ("#canon-expected", canonical)):
                    view = self.query_one(view_id, LineView)
                    view.set_content(data[lo:at + 2000], [])
                    view.set_focus_marks([Mark(at - lo, at - lo + 1, "error")])
                    view.go_to_offset(at - lo)
                result.update(_rich(f"[b red]FAIL[/] [b]{exc.code}[/]{where}: {_escape(exc.message)}\n"
                                    f"first difference at byte {at:,} of the compared bytes, marked below"))
            return
        bound = ", ".join(f"{k} = {v!r}" for k, v in expected.items() if v) or "no expectations given"
        result.update(_rich(f"[b green]PASS[/]: {loaded.title} decodes and verifies ({_escape(bound)})"))

    def action_toggle_reading(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.form == "binary":
            return
        self.reading = not self.reading
        for name, data in (("compact", loaded.body), ("expanded", loaded.document or b"")):
            view = self.query_one(f"#{name}", LineView)
            offset = view.cursor_offset
            if not self.reading:
                view.set_layout(wrapped_layout(data, view._content_width()), "wrap")
                view.go_to_offset(offset)
            elif len(data) > BIG:
                self._reading_worker(name, data, offset)
            else:
                view.set_layout(reading_layout(data), "reading")
                view.go_to_offset(offset)
        self._update_body_status()

    @work(thread=True, group="layout", exit_on_error=False)
    def _reading_worker(self, name: str, data: bytes, offset: int) -> tuple[str, Any, int]:
        return name, reading_layout(data), offset

    def action_toggle_sync(self) -> None:
        self.sync_panes = not self.sync_panes
        self._update_body_status()

    def _focused_pane(self) -> tuple[str, bytes, Any] | None:
        loaded = self.loaded
        if loaded is None:
            return None
        focused = self.focused
        if isinstance(focused, LineView) and focused.id in ("compact", "expanded"):
            return focused.id, focused.data, focused
        if self.tabbed.active == "bytes":
            return "hex", loaded.wire, self.query_one("#hex", HexView)
        view = self.query_one("#compact", LineView)
        return "compact", view.data, view

    def action_search(self) -> None:
        if self.tabbed.active == "dictionary":
            self.query_one("#dict-filter", Input).focus()
            return

        def run(query: str | None) -> None:
            if not query:
                return
            pane = self._focused_pane()
            if pane is None:
                return
            name, data, _view = pane
            needle = query.encode("utf-8")
            self.matches = []
            start = data.find(needle)
            while start >= 0 and len(self.matches) < 100_000:
                self.matches.append(start)
                start = data.find(needle, start + 1)
            self.match_pane, self.match_length, self.match_position = name, len(needle), -1
            if not self.matches:
                self.notify(f"{query!r} not found", severity="warning")
                return
            self.notify(f"{len(self.matches):,} matches of {query!r}")
            self.action_next_match()

        self.push_screen(PromptScreen("Search (bytes of the focused pane)", "text to find"), run)

    def _show_match(self) -> None:
        offset = self.matches[self.match_position]
        if self.match_pane == "hex":
            self.query_one("#hex", HexView).go_to_offset(offset)
        else:
            view = self.query_one(f"#{self.match_pane}", LineView)
            view.set_focus_marks([Mark(offset, offset + self.match_length, "match")])
            view.go_to_offset(offset)
            self.status_message = f"match {self.match_position + 1} of {len(self.matches):,}"
            self._update_body_status()

    def action_next_match(self) -> None:
        if self.matches:
            self.match_position = (self.match_position + 1) % len(self.matches)
            self._show_match()

    def action_prev_match(self) -> None:
        if self.matches:
            self.match_position = (self.match_position - 1) % len(self.matches)
            self._show_match()

    def action_goto(self) -> None:
        def run(text: str | None) -> None:
            if not text:
                return
            try:
                offset = int(text.strip().replace(",", "").replace("_", ""), 0)
            except ValueError:
                self.notify(f"not a byte offset: {text!r}", severity="error")
                return
            self.go_to_wire_offset(offset)

        self.push_screen(PromptScreen("Go to byte offset of the wire", "e.g. 1234 or 0x4d2"), run)

    def go_to_wire_offset(self, offset: int) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        offset = max(0, min(offset, max(len(loaded.wire) - 1, 0)))
        self._remember()
        if loaded.body_start is not None and offset >= loaded.body_start and loaded.form != "binary":
            self.action_tab("body")
            self.query_one("#compact", LineView).go_to_offset(offset - loaded.body_start)
        else:
            self.action_tab("bytes")
        self.query_one("#hex", HexView).go_to_offset(offset)

    def action_jump_error(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.error is None or loaded.error.offset is None:
            self.notify("no diagnostic with a byte offset")
            return
        self.go_to_wire_offset(loaded.error.offset)
        self._position_at_error()

    def action_copy(self) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        tab = self.tabbed.active
        value = ""
        if tab == "dictionary" and self.selected_entry is not None:
            value = loaded.entries[self.selected_entry].decode("utf-8", "replace")
        elif tab == "body":
            focused = self.focused if isinstance(self.focused, LineView) else self.query_one("#compact", LineView)
            line = min(focused.cursor_line, len(focused.lines) - 1)
            value = focused.data[focused.lines.starts[line]:focused.lines.ends[line]].decode("utf-8", "replace")
        elif tab == "bytes":
            hexview = self.query_one("#hex", HexView)
            value = loaded.wire[hexview.cursor_offset:hexview.cursor_offset + 16].hex(" ")
        elif tab == "overview":
            table = self.query_one("#fields", DataTable)
            if table.row_count:
                value = loaded.fields[table.cursor_row].raw.decode("utf-8", "replace")
        if not value:
            self.notify("nothing under the cursor to copy", severity="warning")
            return
        self.copy_to_clipboard(value)
        shown = value if len(value) <= 200 else value[:200] + "…"
        self.notify(f"copied {len(value):,} characters (OSC 52): {shown}", timeout=6)


def _escape(text: str) -> str:
    """Escape user data for Rich markup (Rich's escape also covers '[@')."""
    from rich.markup import escape

    return escape(text)


def _rich(markup: str) -> Text:
    """Rich markup to a Text, so Textual never parses user data as its markup."""
    return Text.from_markup(markup)


def _change(new: int, old: int, unit: str = "") -> str:
    if not old:
        return ""
    pct = (new - old) * 100 / old
    return f"{pct:+.1f}%" + (f" {unit}" if unit else "")


def _hex_lines(data: bytes) -> bytes:
    """The CBOR body as hex, 32 bytes to a line, for the compact pane."""
    return b"\n".join(data[i:i + 32].hex(" ").encode() for i in range(0, len(data), 32))
