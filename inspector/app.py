"""The inspector app: loading, the workers, and navigation between the panes.

Each tab is one pane widget (``inspector/panes/``) owning its widgets, keys and
state; the app feeds them the loaded model and its token counts through reactives
bound with ``data_bind``. Heavy work (loading and parsing a wire, counting tokens,
the reading layout of a large body) runs in thread workers, exclusive per group,
that never touch a widget: they post small dataclass messages naming the model
they were computed for, and a result for a model no longer loaded is dropped."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.reactive import reactive
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

import codec
from codec import CompactError, WireLayout

from . import counting
from .actions import TABS, Command, InspectorCommands, app_bindings
from .compare import Target
from .layout_child import lay_out_and_encode
from .messages import Counts, CountsProgress, FileLoaded, LoadFailed, Selected, Selection
from .model import (
    PREVIEW_FROM,
    Encoded,
    Loaded,
    display_value,
    load_bytes,
    load_path,
    preview_bytes,
    problems,
    read_wire,
)
from .panes import Pane
from .panes.body import BodyPane
from .panes.bytes import BytesPane
from .panes.dictionary import DictionaryPane
from .panes.overview import OverviewPane
from .panes.tokens import TokensPane
from .panes.tree import TreePane
from .panes.verify import VerifyPane
from .repair import TITLES, Plan, applicable
from .screens import ConfirmScreen, ExportScreen, HelpScreen, OpenScreen, PromptScreen

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: The example opened with no PATH: a view whose first screen shows model-text saving tokens.
DEFAULT_EXAMPLE = EXAMPLES / "wires" / "http_app_routing.graph.model-text"

PANES: dict[str, type[Pane]] = {"overview": OverviewPane, "dictionary": DictionaryPane, "body": BodyPane,
                                "bytes": BytesPane, "verify": VerifyPane, "tokens": TokensPane,
                                "tree": TreePane}


def load_failure(exc: BaseException, path: str, profile: str | None, workspace: str | None) -> str:
    """Why a load failed, naming what to fix."""
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None and str(exc.filename) not in reason:
        reason = f"{exc.filename}: {reason}"
    if profile is None:
        return reason
    ws = workspace if workspace is not None else (str(Path(path).parent) or ".")
    if isinstance(exc, CompactError):
        return f"{reason} (the producer rejected it)"
    if type(exc).__name__ == "WorkspaceError" or isinstance(exc, OSError):
        return (f"{reason}; the workspace is {display_value(ws.encode())}: give --workspace DIR, the folder "
                "holding the sources (with semaprax.toml or pyproject.toml for a package), and PATH inside it")
    return f"the producer failed: {type(exc).__name__}: {reason}"


@dataclass(frozen=True)
class Place:
    """Where the user was, for back/forward history."""

    tab: str
    entry: int | None
    compact_offset: int
    expanded_offset: int


class InspectorApp(App[None]):
    TITLE = "semaprax inspector"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    BINDINGS = app_bindings()

    loaded: reactive[Loaded | None] = reactive(None, init=False, always_update=True)
    counts: reactive[Counts | None] = reactive(None, init=False)
    #: The one linked cursor every pane shows (wire byte, body, document, entry, …).
    selection: reactive[Selection | None] = reactive(None, init=False, repaint=False)

    def __init__(self, loaded: Loaded | None = None, *, path: str | None = None, profile: str | None = None,
                 workspace: str | None = None, watch: bool = False, count_tokens: bool = True,
                 compare: Target | None = None, session: str | None = None, text: str | None = None) -> None:
        super().__init__()
        self._text = text  # `semaprax-inspect --text`: shown in the token view once the wire is loaded
        self.session_path = session  # a tap session (semaprax tap): opened on its Calls view
        self._compare_on_load = compare  # `semaprax-inspect A B`: opened once A is loaded
        self._initial = loaded
        self._path = path
        self._profile = profile
        self._workspace = workspace
        self.watch_file = watch
        self.count_tokens_enabled = count_tokens
        self.history: list[Place] = []
        self.future: list[Place] = []
        self._mtime: float | None = None
        self._seen: tuple[int, float, int] | None = None  # --watch: the file as last seen
        self._gone_said = False
        self._watch_started = False
        self._load_serial = 0
        self._preview_painted = threading.Event()
        self._loading = False  # a load is under way
        self._held_keys: list[events.Key] = []  # pressed before the wire was there to act on

    # --- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="diagnostic")
        with TabbedContent(initial="overview", id="tabs"):
            for key, name in TABS:
                with TabPane(f"{key} {name.title()}", id=name):
                    yield PANES[name](id=f"{name}-pane").data_bind(InspectorApp.loaded, InspectorApp.counts,
                                                                 InspectorApp.selection)
        yield Footer()

    def on_mount(self) -> None:
        if self.session_path is not None:
            self.action_calls()
        if self._initial is not None:
            self.loaded = self._initial
        elif self._path is not None:
            self.load_file(self._path)
        if self.watch_file:
            self.set_interval(1.0, self._check_file)
        self.call_after_refresh(self._focus_pane, "overview")

    def pane(self, name: str) -> Pane:
        return self.query_one(f"#{name}-pane", Pane)

    @property
    def body(self) -> BodyPane:
        return self.query_one("#body-pane", BodyPane)

    @property
    def dictionary(self) -> DictionaryPane:
        return self.query_one("#dictionary-pane", DictionaryPane)

    @property
    def bytes_pane(self) -> BytesPane:
        return self.query_one("#bytes-pane", BytesPane)

    @property
    def tabbed(self) -> TabbedContent:
        return self.query_one("#tabs", TabbedContent)

    # --- loading ------------------------------------------------------------------------

    #: Keys that act at once even while a wire loads (quit, help, the palette).
    IMMEDIATE_KEYS = frozenset({"ctrl+q", "ctrl+c", "q", "question_mark", "ctrl+p", "escape"})

    async def on_event(self, event: events.Event) -> None:
        """Keys pressed while the wire is not yet there to act on (nothing shown, or
        the envelope preview of a large one) are kept, and pressed again in order
        once it is loaded, instead of acting on an empty pane and being lost."""
        if (isinstance(event, events.Key) and not event.is_forwarded and self._loading
                and (self.loaded is None or self.loaded.pending) and event.key not in self.IMMEDIATE_KEYS
                and len(self.screen_stack) == 1):
            self._held_keys.append(event)
            return
        await super().on_event(event)

    def _release_keys(self) -> None:
        """Press the kept keys again, one per refresh (a tab key moves the focus,
        and the next key must reach the pane it moved to)."""
        if self._held_keys and not self._loading:
            key = self._held_keys.pop(0)
            self.post_message(events.Key(key.key, key.character))
            if self._held_keys:
                self.call_after_refresh(self._release_keys)

    def load_file(self, path: str) -> None:
        gc.unfreeze()  # the model shown so far may be let go: its objects are the collector's again
        self._load_serial += 1
        self._loading = True
        self._load_worker(self._load_serial, path, self._profile, self._workspace)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False, description="load")
    def _load_worker(self, serial: int, path: str, profile: str | None, workspace: str | None) -> None:
        try:
            if profile is None:
                data = read_wire(path)
                layout = None
                if len(data) >= PREVIEW_FROM:  # paint the envelope first; verify and lay out behind it
                    # the header and metadata alone: instant, where the dictionary takes tenths of a second
                    preview = preview_bytes(data, path, path=path, through="envelope")
                    if preview is not None:
                        self._preview_painted.clear()
                        self.post_message(FileLoaded(serial, preview.prepare()))
                        # the decode below must not take the CPU from that paint on two busy cores
                        self._preview_painted.wait(3.0)
                    # Decoding holds the interpreter lock for seconds and builds transient values 15x the
                    # wire: a child process does it, and this process keeps what the layout holds.
                    worker = get_current_worker()
                    # ... and encodes the other forms for the counting process, in the memory the decode let go
                    made = lay_out_and_encode(data, lambda: worker.is_cancelled)
                    first = next(made, None)
                    if worker.is_cancelled:  # another file was opened meanwhile
                        made.close()
                        return
                    if isinstance(first, WireLayout):
                        self._show_then_hand_forms(serial, load_bytes(data, path, path=path, layout=first), made)
                        return
                loaded = load_bytes(data, path, path=path, layout=layout).prepare()  # layout None: here
            else:
                loaded = load_path(path, profile=profile, workspace=workspace).prepare()
        except Exception as exc:  # noqa: BLE001 - every failure ends the load, on screen
            self.post_message(LoadFailed(serial, path, load_failure(exc, path, profile, workspace)))
            return
        self.post_message(FileLoaded(serial, loaded))

    def _show_then_hand_forms(self, serial: int, loaded: Loaded, made: Iterator[object]) -> None:
        """Show the model laid out by the layout process; then take, in this
        worker's thread (the child is bound to it), the other forms the same
        process encoded, and hand them to the counting (which waits for them:
        ``loaded.encoded_ready``)."""
        loaded.encoded_ready = threading.Event()
        try:
            self.post_message(FileLoaded(serial, loaded.prepare()))
            encoded = next(made, None)
            loaded.encoded = encoded if isinstance(encoded, Encoded) else None
        finally:
            loaded.encoded_ready.set()
            close = getattr(made, "close", None)
            if close is not None:
                close()

    def on_file_loaded(self, message: FileLoaded) -> None:
        if message.serial == self._load_serial:  # an older request answered late: dropped
            self.loaded = message.loaded
            if not message.loaded.pending:
                self._loading = False
                self.call_after_refresh(self._release_keys)
                # What is shown now lives until the next load: a full collection that walks it (and the
                # app's own widgets) stalls the keys for 50-200 ms on a large wire, so it is left out
                # of collections until load_file unfreezes it.
                gc.freeze()
        if message.loaded.pending:
            self.call_after_refresh(self._preview_painted.set)

    def on_load_failed(self, message: LoadFailed) -> None:
        if message.serial == self._load_serial:
            self._loading = False
            self.call_after_refresh(self._release_keys)
            what = (f"could not produce the {self._profile} view of" if self._profile is not None
                    else "could not open")
            text = f"{what} {display_value(message.path.encode())}: {message.reason}"
            self._show_failure(text + ("" if self.loaded is None else " (still showing the previous file)"))
            if self.loaded is None:  # nothing else to show: the first screen says it instead of "Loading…"
                badge = Text(" NOT LOADED ", style="bold white on red")
                self.query_one("#badge", Static).update(badge.append(f" {text}", style="bold"))

    def _show_failure(self, message: str) -> None:
        banner = self.query_one("#diagnostic", Static)
        banner.update(Text(message))
        banner.add_class("shown")
        self.notify(message, severity="error", timeout=8)

    def _stat(self, path: str) -> tuple[int, float, int] | None:
        """What --watch compares: the file's inode (a replacement by rename is a new
        one), its modification time and size; None when it is gone."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_ino, st.st_mtime, st.st_size

    def _check_file(self) -> None:
        """--watch: reload when the file changes or is replaced; say when it is
        deleted (the wire shown stays), and pick it up again when it comes back."""
        path = self.loaded.path if self.loaded is not None else None
        if not path:
            return
        now = self._stat(path)
        seen, self._seen = self._seen, now
        shown = display_value(path.encode())
        if now is None:
            if seen is not None or not self._gone_said:
                self._gone_said = True
                self._show_failure(f"{shown} was deleted from disk: still showing the wire as it was; "
                                   "watching for a new file there")
            return
        self._gone_said = False
        if seen is None and self._watch_started:
            self.notify(f"{shown} is back on disk: loaded the new file")
            self.action_reload()
        elif seen is not None and now[0] != seen[0]:
            self.notify(f"{shown} was replaced on disk: loaded the new file")
            self.action_reload()
        elif seen is not None and now != seen:
            self.notify(f"{shown} changed on disk: reloaded")
            self.action_reload()
        self._watch_started = True

    def watch_loaded(self, loaded: Loaded | None) -> None:
        if loaded is None:
            return
        self.sub_title = display_value(loaded.name.encode())
        self.counts = None
        self.selection = None
        self._fill_banner(loaded)
        if loaded.path and os.path.exists(loaded.path):
            self._mtime = os.path.getmtime(loaded.path)
            if self.watch_file:
                self._seen = self._stat(loaded.path)
        if loaded.pending:  # a preview: the full model follows
            return
        if self._compare_on_load is not None:
            target, self._compare_on_load = self._compare_on_load, None
            self.call_after_refresh(self.open_compare, target)
        if self._text is not None:
            text, self._text = self._text, None
            self.call_after_refresh(self.show_text_tokens, text)
        if self.count_tokens_enabled:  # after the first paint, so drawing comes first
            self.call_after_refresh(self.action_count_tokens)
            self.call_after_refresh(self._sources_worker, loaded, self._workspace)
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
        text = Text.assemble(("REJECTED ", "bold"), (e.code, "bold"), f"{where}: {display_value(e.message.encode())}")
        if e.offset is not None:
            lo = max(e.offset - 24, 0)
            text.append("\n  …" + display_value(loaded.wire[lo:e.offset]))
            text.append(display_value(loaded.wire[e.offset:e.offset + 1]) or "(end)", "reverse bold")
            text.append(display_value(loaded.wire[e.offset + 1:e.offset + 24]) + "…   (press ! to jump there)")
        fixes = applicable(loaded)
        if fixes:
            text.append(f"\n  R: {', '.join(TITLES[f][0].lower() + TITLES[f][1:] for f in fixes)} into a new file (never this one)",
                        "bold")
        for hint in problems(loaded)[1:3]:
            text.append(f"\n  hint: {hint.text}", "italic")
        banner.update(text)
        banner.add_class("shown")

    def _position_at_error(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.error is None or loaded.error.offset is None:
            return
        offset = loaded.error.offset
        self.bytes_pane.go_to_offset(offset)
        if loaded.body_start is not None and offset >= loaded.body_start and loaded.form != "binary":
            self.body.mark_error(offset - loaded.body_start)

    # --- tokens ---------------------------------------------------------------------------

    def action_count_tokens(self) -> None:
        self.count_tokens_enabled = True  # asked for once, counted for every file from now on
        if self.loaded is not None:
            self._count_worker(self.loaded)

    def on_unmount(self) -> None:
        counting.stop_children()
        gc.unfreeze()  # the app's objects are the collector's again (a test process runs many apps)

    @work(thread=True, exclusive=True, group="tokens", exit_on_error=False, description="count tokens")
    def _count_worker(self, loaded: Loaded) -> None:
        counts = Counts(loaded)
        worker = get_current_worker()
        try:
            for counts in counting.count_all(loaded, lambda: worker.is_cancelled or not self.is_running):
                self.post_message(CountsProgress(counts))
        except (RuntimeError, OSError, ValueError) as exc:  # e.g. a missing vocabulary
            self.post_message(CountsProgress(replace(counts, done=True, error=str(exc))))

    @work(thread=True, exclusive=True, group="sources", exit_on_error=False, description="count the sources")
    def _sources_worker(self, loaded: Loaded, workspace: str | None) -> None:
        """The source files the view covers and their tokens (inspector/sources.py)."""
        from .sources import SourcesCounted, source_costs

        try:
            costs, why = source_costs(loaded, workspace)
        except (RuntimeError, OSError, ValueError) as exc:  # e.g. a missing vocabulary
            costs, why = None, f"the sources could not be counted: {exc}"
        self.post_message(SourcesCounted(loaded, costs, why))

    def on_sources_counted(self, message: object) -> None:
        from .sources import SourcesCounted

        if isinstance(message, SourcesCounted) and message.source is self.loaded:
            # the panes live on the first screen: a screen pushed over it (the calls of a
            # session, help) must not lose the figures, and a closing app has no panes
            panes = self.screen_stack[0].query("#overview-pane").results(OverviewPane) if self.screen_stack else ()
            for pane in panes:
                pane.show_sources(message.costs)

    def on_counts_progress(self, message: CountsProgress) -> None:
        if message.counts.source is self.loaded:  # counts of a model no longer loaded are dropped
            self.counts = message.counts

    # --- navigation -----------------------------------------------------------------------

    def on_selected(self, message: Selected) -> None:
        if message.selection.source is self.loaded:  # a move in a model no longer loaded is dropped
            self.selection = message.selection

    def select_wire(self, offset: int) -> None:
        """Make wire byte ``offset`` the linked cursor of every pane."""
        loaded = self.loaded
        if loaded is not None:
            start, end, doc = loaded.span_at(offset)
            self.selection = Selection(loaded, start, end, "app", doc, offset)

    def _focus_pane(self, name: str) -> None:
        target = self.pane(name).focus_target
        if target is not None:
            target.focus()

    def action_tab(self, name: str) -> None:
        self.tabbed.active = name
        self._focus_pane(name)

    def run_command(self, command: Command) -> None:
        """Run a command of the table from the palette: a pane command in the
        current pane when it has it, else in the first pane that does."""
        if not command.panes:
            self.call_later(self.run_action, command.action)
            return
        name = self.tabbed.active if self.tabbed.active in command.panes else command.panes[0]
        self.action_tab(name)
        self.call_later(self.pane(name).run_action, command.action)

    def _place(self) -> Place:
        return Place(self.tabbed.active, self.dictionary.selected_entry, self.body.compact.cursor_offset,
                     self.body.expanded.cursor_offset)

    def _remember(self) -> None:
        self.history.append(self._place())
        self.future.clear()

    def _restore(self, place: Place) -> None:
        self.action_tab(place.tab)
        if place.entry is not None:
            self.dictionary.select(place.entry)
        self.body.compact.go_to_offset(place.compact_offset)
        self.body.expanded.go_to_offset(place.expanded_offset)

    def action_back(self) -> None:  # type: ignore[override]  # replaces App's async one; Textual runs either kind
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

    @on(DictionaryPane.EntryChosen)
    def _entry_chosen(self, event: DictionaryPane.EntryChosen) -> None:
        self._remember()
        self.action_tab("body")
        self.body.step_use(event.index, 1)

    @on(BodyPane.ReferenceFollowed)
    def _reference_followed(self, event: BodyPane.ReferenceFollowed) -> None:
        self._remember()
        self.action_tab("dictionary")
        self.dictionary.select(event.index)

    def _step_use(self, delta: int) -> None:
        entry = self.dictionary.selected_entry
        if entry is None:
            self.notify("select a dictionary entry first (d, then arrows)", severity="warning")
            return
        if self.tabbed.active != "body":
            self.action_tab("body")
        if not self.body.step_use(entry, delta):
            self.notify(f"entry @{entry} has no uses in the body", severity="warning")

    def action_next_use(self) -> None:
        self._step_use(1)

    def action_prev_use(self) -> None:
        self._step_use(-1)

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
        else:
            self.action_tab("bytes")
        self.select_wire(offset)

    def show_text_tokens(self, text: str) -> None:
        """The Tokens tab on how ``text`` tokenizes (beside the wire's own forms)."""
        self.action_tab("tokens")
        self.query_one("#tokens-pane", TokensPane).set_typed(text)

    def show_document_offset(self, loaded: Loaded, offset: int) -> None:
        """The Body pane on document byte ``offset`` of ``loaded`` (made the wire
        shown first when it is another one, e.g. compare's right side)."""
        def go() -> None:
            current = self.loaded
            if current is None:
                return
            self._remember()
            self.action_tab("body")
            start, end, doc = current.doc_span_at(offset)
            self.selection = Selection(current, start, end, "compare", doc)
            self.body.expanded.go_to_offset(offset)

        if loaded is not self.loaded:
            self.loaded = loaded.prepare()
            self.notify(f"now showing {display_value(loaded.name.encode())}")
        self.call_after_refresh(go)

    def action_jump_error(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.error is None or loaded.error.offset is None:
            self.notify("no diagnostic with a byte offset")
            return
        self.go_to_wire_offset(loaded.error.offset)
        self._position_at_error()

    # --- files ----------------------------------------------------------------------------

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
        beside = Path(loaded.path).parent if loaded.path else Path(".")  # default: beside the wire
        self.push_screen(ExportScreen(str(beside / f"{stem}.export.model-text")), self._export_chosen)

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

    def action_verify(self) -> None:
        self.action_tab("verify")
        self.query_one("#verify-pane", VerifyPane).verify()

    def action_calls(self) -> None:
        """The Calls view of the tap session given on the command line."""
        if self.session_path is None:
            self.notify("no tap session is open (semaprax-inspect SESSION.jsonl opens one)", severity="warning")
            return
        from .session_screen import SessionScreen

        self.push_screen(SessionScreen(self.session_path, follow=True, workspace=self._workspace or "."))

    # --- compare and repair (inspector/compare_screen.py, inspector/repair_screen.py) -----

    def action_compare(self) -> None:
        from .compare_screen import CompareWithScreen

        loaded = self.loaded
        if loaded is None or loaded.pending:
            self.notify("nothing loaded to compare yet", severity="warning")
            return

        def chosen(target: Target | None) -> None:
            if target is not None:
                self.open_compare(target)

        self.push_screen(CompareWithScreen(workspace=self._workspace or "."), chosen)

    def open_compare(self, target: Target, left: Loaded | None = None, left_label: str = "",
                     explain: str = "") -> None:
        """Show the loaded wire (or ``left``) compared with ``target``."""
        from .compare_screen import CompareScreen

        left = left or self.loaded
        if left is not None:
            self.push_screen(CompareScreen(left, target, left_label=left_label, explain=explain,
                                           count_tokens=self.count_tokens_enabled))

    def action_repair(self) -> None:
        from .repair import repaired_name
        from .repair_screen import RepairScreen

        loaded = self.loaded
        if loaded is None or loaded.pending:
            self.notify("nothing loaded to repair yet", severity="warning")
            return
        if loaded.ok:
            self.notify("nothing to repair: the wire decodes and verifies")
            return
        suggested = repaired_name(loaded.path) if loaded.path else f"repaired.{loaded.form}"
        self.push_screen(RepairScreen(loaded, suggested), lambda done: self._repaired(loaded, done))

    def _repaired(self, original: Loaded, done: tuple[str, Plan] | None) -> None:
        """A repaired copy was written: open it, and show what changed."""
        if done is None:
            return
        path, plan = done
        self.notify(f"wrote the repaired copy to {display_value(path.encode())}; the original is unchanged")
        self._path, self._profile = path, None
        self.load_file(path)
        steps = "; ".join(f"{n}. {s.title}: {s.what}" for n, s in enumerate(plan.steps, 1))
        self.open_compare(Target("file", path), original, left_label=f"{original.name} (original)",
                          explain=display_value(f"repaired: {steps}".encode()))
