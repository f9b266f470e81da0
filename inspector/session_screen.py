"""The Calls view of a tap session (``semaprax tap``; servers/session.py).

One row per ``tools/call``: when it was made, the tool, its arguments in short,
latency, the result's bytes on the transport, and what the model reads under
each client convention with its cost in both tokenizers. Below the table: the
highlighted call's readings side by side, and the totals per tool and per
session as a share of a 200,000-token context. Enter on a call whose text is a
semaprax wire opens it in the usual panes (verified, with its dictionary and
savings); any other result opens as JSON. With the tap still running the view
follows the file: new lines are read once a second.

The file is read and counted in a thread worker; its results come back as a
message and are dropped when a newer read has started (the serial)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from codec.visible import visible
from servers.session import CONTEXT_TOKENS, CONVENTIONS, Call, Replayed, Session, read_session, replay_session
from views.tokens import ENCODING_NAMES

#: How much of each reading the detail shows.
DETAIL_CHARS = 600
SHORT = {"cl100k_base": "cl100k", "o200k_base": "o200k"}
#: What each convention is, in the words of the column headings and the detail.
CONVENTION_TITLES = {"structured": "structured-first clients (Claude Code, Codex, VS Code…)",
                     "text": "text-block clients"}


@dataclass
class SessionReplayed(Message):
    serial: int
    results: list[Replayed]


@dataclass
class SessionRead(Message):
    serial: int
    session: Session | None
    error: str = ""


#: How much of a call's arguments and tool name its row shows (the detail has the rest).
ARGUMENTS_SHOWN = 48
TOOL_SHOWN = 20
#: Below this many columns the table leaves the time and the arguments to the detail.
NARROW = 120


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def share(tokens: int) -> str:
    return f"{tokens / CONTEXT_TOKENS:.1%}"


def _tokens(call: Call, convention: str) -> str:
    reading = call.readings.get(convention)
    if reading is None:
        return "…"
    return " / ".join(f"{reading.tokens[name]:,}" for name in ENCODING_NAMES)


class SessionScreen(Screen[None]):
    """A recorded (or live) agent session: its tool calls and what each cost."""

    BINDINGS = [Binding("escape,q", "close", "Close calls"),
                Binding("enter", "open_call", "Open result"),
                Binding("r", "replay", "Replay against the sources"),
                Binding("ctrl+r", "reload", "Read again", show=False)]
    DEFAULT_CSS = """
    SessionScreen { layout: vertical; }
    #session-heading { height: auto; padding: 0 1; background: $boost; }
    #session-calls { height: auto; max-height: 45%; }
    #session-bottom { height: 1fr; }
    #session-detail { width: 3fr; height: 1fr; padding: 0 1; overflow-y: auto; }
    #session-totals { width: 2fr; height: 1fr; padding: 0 1; overflow-y: auto; }
    """

    def __init__(self, path: str, *, follow: bool = True, workspace: str = ".") -> None:
        super().__init__()
        self.path = path
        self.workspace = workspace
        self.replayed: dict[int, Replayed] = {}
        self.narrow = False
        self.follow = follow
        self.session: Session | None = None
        self.serial = 0
        self._stamp: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Reading {visible(self.path)}…"), id="session-heading")
        table: DataTable[str | Text] = DataTable(id="session-calls", cursor_type="row", zebra_stripes=True)
        yield table
        with Horizontal(id="session-bottom"):
            yield Static("", id="session-detail")
            yield Static("", id="session-totals")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#session-calls", DataTable)
        # under NARROW columns the time and arguments stay in the detail, so the costs fit on the screen
        self.narrow = self.app.size.width < NARROW
        table.add_columns(*(c for c in ("#", "time s", "tool", "arguments", "ms", "bytes",
                                        "structured", "text", "error", "replay")
                            if not (self.narrow and c in ("time s", "arguments"))))
        self.action_reload()
        if self.follow:
            self.set_interval(1.0, self._check_file)

    # --- reading ------------------------------------------------------------------

    def action_reload(self) -> None:
        self.serial += 1
        self._stamp = self._file_stamp()  # taken before the read: a line written during it is read next time
        self._read(self.serial)

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    @work(thread=True, exclusive=True, group="session", exit_on_error=False, description="read session")
    def _read(self, serial: int) -> None:
        try:
            session = read_session(self.path)
        except OSError as exc:
            self.post_message(SessionRead(serial, None, exc.strerror or str(exc)))
            return
        self.post_message(SessionRead(serial, session))

    def _check_file(self) -> None:
        stamp = self._file_stamp()
        if stamp is not None and stamp != self._stamp:
            self.action_reload()

    def on_session_read(self, message: SessionRead) -> None:
        if message.serial != self.serial:  # a newer read is under way
            return
        heading = self.query_one("#session-heading", Static)
        if message.session is None:
            heading.update(Text(f"could not read {visible(self.path)}: {message.error}", style="bold red"))
            return
        self.session = message.session
        self._fill(message.session)

    # --- showing ------------------------------------------------------------------

    def _fill(self, session: Session) -> None:
        table = self.query_one("#session-calls", DataTable)
        row = table.cursor_row
        table.clear()
        for call in session.calls:
            latency = "waiting" if call.latency is None else f"{call.latency * 1000:,.1f}"
            size = "" if call.response_bytes is None else f"{call.response_bytes:,}"
            error = Text("error", style="bold red") if call.is_error else ""
            wide = [] if self.narrow else [f"{call.t:,.3f}"]
            arguments = [] if self.narrow else [visible(_cut(call.short_arguments, ARGUMENTS_SHOWN))]
            table.add_row(str(call.number), *wide, visible(_cut(call.tool, TOOL_SHOWN)), *arguments,
                          latency, size, _tokens(call, "structured"), _tokens(call, "text"), error,
                          self._replay_cell(call.number), key=str(call.number))
        if session.calls:
            table.move_cursor(row=min(max(row, 0), len(session.calls) - 1))
        command = " ".join(session.header.get("command", [])) or "?"
        started = session.header.get("started", "?")
        notes = f"; {session.unreadable_lines} unreadable lines" if session.unreadable_lines else ""
        self.query_one("#session-heading", Static).update(Text.assemble(
            ("Calls ", "bold"), f"{visible(self.path)}: {len(session.calls)} tool calls of {session.messages} "
            f"messages, server {visible(command)}, started {started}{notes}. Tokens are cl100k / o200k of what "
            "the model reads: structured = clients that hand it the structured content when there is one, "
            "text = the text blocks"))
        self._show_totals(session)
        self._show_detail()

    def _show_totals(self, session: Session) -> None:
        text = Text()
        text.append(f"Totals, as a share of a {CONTEXT_TOKENS:,}-token context\n", style="bold")
        for total in [*session.totals(), session.total()]:
            text.append(f"{visible(total.tool)}: {total.calls} call{'s' * (total.calls != 1)}"
                        f"{f', {total.errors} failed' if total.errors else ''}, {total.result_bytes:,} bytes\n",
                        style="bold" if total.tool == "(all)" else "")
            for convention in CONVENTIONS:
                counted = total.tokens[convention]
                figures = ", ".join(f"{counted.get(n, 0):,} {SHORT[n]} ({share(counted.get(n, 0))})"
                                    for n in ENCODING_NAMES)
                text.append(f"  {convention}: {figures}\n")
        self.query_one("#session-totals", Static).update(text)

    def current_call(self) -> Call | None:
        if self.session is None or not self.session.calls:
            return None
        row = self.query_one("#session-calls", DataTable).cursor_row
        return self.session.calls[row] if 0 <= row < len(self.session.calls) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row (the table takes the key before the screen's binding)."""
        event.stop()
        self.action_open_call()

    def _show_detail(self) -> None:
        call = self.current_call()
        detail = self.query_one("#session-detail", Static)
        if call is None:
            detail.update("no tool calls yet" + (" (following the file)" if self.follow else ""))
            return
        text = Text()
        text.append(f"Call {call.number}: {visible(call.tool)} {visible(call.short_arguments)}", style="bold")
        done = self.replayed.get(call.number)
        if done is not None and done.detail:
            text.append(f"\nreplay: {done.status}: {visible(done.detail)}", style="red")
        wire = call.wire()
        text.append("  (a semaprax wire: Enter opens it)\n" if wire else "  (Enter opens it as JSON)\n"
                    if call.response is not None else "  (no answer yet)\n")
        same = len({r.text for r in call.readings.values()}) == 1
        for convention in CONVENTIONS:
            reading = call.readings.get(convention)
            if reading is None:
                continue
            costs = ", ".join(f"{reading.tokens[n]:,} {SHORT[n]}" for n in ENCODING_NAMES)
            text.append(f"{CONVENTION_TITLES[convention]}: {costs}, {len(reading.text):,} characters\n",
                        style="bold")
            if convention == "text" and same:
                text.append("  the same text\n")
                continue
            shown = reading.text[:DETAIL_CHARS] + ("…" if len(reading.text) > DETAIL_CHARS else "")
            text.append(visible(shown, newline="⏎") + "\n")
        detail.update(text)

    def _replay_cell(self, number: int) -> str | Text:
        done = self.replayed.get(number)
        if done is None:
            return ""
        styles = {"same": "green", "stale": "bold red", "failed": "yellow", "not a view": "dim"}
        return Text(done.status, style=styles[done.status])

    # --- actions ------------------------------------------------------------------

    def action_replay(self) -> None:
        """Produce every view of the session again from the workspace's sources
        and mark each call same, stale or failed (servers.session.replay_session)."""
        if self.session is None:
            return
        self.notify(f"replaying {len(self.session.calls)} calls against {visible(self.workspace)}…")
        self._replay(self.serial, self.session)

    @work(thread=True, exclusive=True, group="session-replay", exit_on_error=False, description="replay")
    def _replay(self, serial: int, session: Session) -> None:
        self.post_message(SessionReplayed(serial, replay_session(session, self.workspace)))

    def on_session_replayed(self, message: SessionReplayed) -> None:
        if message.serial != self.serial or self.session is None:
            return
        self.replayed = {r.number: r for r in message.results}
        self._fill(self.session)
        stale = [r for r in message.results if r.status == "stale"]
        self.notify(f"{len(stale)} stale of {sum(r.status != 'not a view' for r in message.results)} views"
                    + (f"; call {stale[0].number} {stale[0].detail}" if stale else ""),
                    severity="warning" if stale else "information")

    def action_open_call(self) -> None:
        call = self.current_call()
        if call is None or call.response is None:
            self.notify("this call has no answer yet", severity="warning")
            return
        from .model import load_bytes

        wire = call.wire()
        if wire is not None:
            name = f"call {call.number} ({call.tool})"
            data = wire
        else:
            reading = call.readings.get("text") or call.readings.get("structured")
            data = (reading.text if reading is not None else "").encode("utf-8")
            name = f"call {call.number} ({call.tool}, not a wire: JSON)"
        loaded = load_bytes(data, name).prepare()
        self.app.pop_screen()
        self.app.loaded = loaded  # type: ignore[attr-defined]
        self.app.notify(f"opened {name}; A shows the calls again")

    def action_close(self) -> None:
        self.app.pop_screen()
