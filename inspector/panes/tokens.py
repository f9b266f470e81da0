"""The Tokens tab: what every form costs (bytes and cl100k_base / o200k_base
tokens, filled in live from the counting worker, with the tokenizers'
identities), then the tokens themselves and where they go.

* The token view (``T`` cycles full JSON / v1 text / model-text and the two
  encodings): every token on its own background, its id under the cursor and
  with ``I`` the ids of the cursor's line, the tokens of the visible lines and
  of the selection. Only the lines on screen are tokenized (plus a margin).
  The wire as given is linked to the other panes' cursor; full JSON is linked
  through the document's offsets; a form that is neither is shown unlinked.
* The cost ledger (``L``): the wire's tokens by region and each entry's
  difference to full JSON (``inspector/ledger.py``), computed in a worker."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, ProgressBar, Static
from textual.worker import get_current_worker

from views.tokens import ENCODING_NAMES

from ..ledger import RULE, Ledger, LedgerRow, build
from ..messages import Counts, LedgerProgressed, Selection, TokenForms
from ..model import Loaded, encodings_of
from ..screens import PromptScreen
from ..token_spans import token_lengths, whole
from ..views.lines import Layout, LineView, wrapped_layout
from ..views.tokenview import PALETTE, LedgerView, TokenView, ledger_header
from . import Pane
from .overview import FORM_NAMES, change, plural
from .search import MatchSteps, Search

#: The forms the token view shows, in ``T`` order (v1 binary is CBOR, not text).
TEXT_FORMS = ("json", "text", "model-text")
#: The token view's names of its texts: the forms, and text typed in (``E``, ``--text``).
TITLES = {**FORM_NAMES, "typed": "typed text"}
#: Texts up to this size are tokenized whole to find a token id (``/`` then ``#id``).
ID_SEARCH_LIMIT = 8 << 20


def linked_form(loaded: Loaded) -> str:
    """The token view's key for the wire as given: its form when it decoded
    (a verified wire is the encoder's own bytes), else ``given``."""
    return loaded.form if loaded.ok and loaded.form in TEXT_FORMS else "given"


def absent_note(loaded: Loaded, forms: dict[str, bytes]) -> str:
    """Why the token view lacks some of the three forms, true of the bytes."""
    if loaded.form == "binary" and loaded.ok:
        return "the v1 binary wire itself is CBOR, not text, so it has no tokens; its text forms are shown"
    if loaded.projection is None and loaded.form == "json" and loaded.ok:
        return "full JSON carries no metadata, so v1 text and model-text cannot be encoded from it"
    if loaded.projection is None:
        why = f"the wire was rejected ({loaded.error.code})" if loaded.error else "it holds no projection"
        return ("only the wire as given: the other forms are encoded from the decoded projection, and " + why)
    missing = [FORM_NAMES[f] for f in TEXT_FORMS if f not in forms]
    return f"{', '.join(missing)} could not be encoded from this projection" if missing else ""


def byte_range(start: int, end: int) -> str:
    """A half-open span as the Tree tab spells it: first and last byte, both included
    ("3,350–3,361"; one byte: "3,350"), so no number names a byte outside the span."""
    return f"{start:,}" if end - start <= 1 else f"{start:,}–{end - 1:,}"


def ledger_row_story(row: LedgerRow, name: str) -> str:
    """The selected ledger row in words: where its bytes are and, for an entry,
    the sum that makes its difference to full JSON."""
    where = f"bytes {byte_range(row.start, row.end)}" if row.kind not in ("rest", "unparsed", "references") else ""
    if row.kind == "references":
        where = f"first at bytes {byte_range(row.start, row.end)}"
    head = f"{row.label}: {row.tokens.get(name, 0):,} tokens" + (f", {where}" if where else "")
    delta = row.delta(name)
    if row.kind == "entry" and delta is not None:
        verdict = "saves" if delta < 0 else "costs" if delta > 0 else "breaks even:"
        return (head + f"\nits line {row.tokens[name]:,} + its {row.uses:,} uses {row.use_tokens[name]:,} − the "
                f"same {row.uses:,} inline in full JSON {row.inline_tokens[name]:,}: it {verdict} "
                f"{abs(delta):,} tokens" if delta else head + "\n" + verdict + " its line and uses cost what the "
                "literals inline would")
    if row.kind == "rest":
        return (f"{row.label}: {delta:+,} tokens\nthe header, fields, dict and body lines, and the body's other "
                "bytes, against the same bytes of full JSON")
    return head


class StatusLine(Widget):
    """A line of text whose updates repaint only itself (a ``Static`` update
    lays out the whole screen again, which cost more than the key it answers)."""

    DEFAULT_CSS = "StatusLine { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.content = Text("")

    def update(self, text: Text | str) -> None:
        """Each line of ``text`` on one row, cut with … where the width ends."""
        self.content = text if isinstance(text, Text) else Text(text)
        self.content.no_wrap, self.content.overflow = True, "ellipsis"
        self.refresh()

    def render(self) -> Text:
        return self.content


class TokensPane(MatchSteps, Pane):
    NAME = "tokens"

    DEFAULT_CSS = """
    TokensPane #token-counts { height: auto; max-height: 45%; }
    TokensPane #token-progress { margin: 0 1; }
    TokensPane #token-info { padding: 0 1; }
    TokensPane #tv-title { padding: 0 1; background: $boost; height: 2; }
    TokensPane #token-view, TokensPane #ledger { height: 1fr; min-height: 4; }
    TokensPane #tv-ids { height: auto; padding: 0 1; }
    TokensPane #ledger-head { height: auto; padding: 0 0; }
    TokensPane #tv-status { height: 2; padding: 0 1; background: $boost; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.forms: dict[str, bytes] = {}
        self.forms_note = ""
        self.states: list[tuple[str, str]] = []
        self.state = 0
        self.show_ids = False
        self.show_ledger = False
        self.ledger: Ledger | None = None
        self.ledger_step = ""
        self._layouts: dict[tuple[str, int], Layout] = {}
        self._status_due = False
        self._forms_for: Loaded | None = None
        self.typed: bytes | None = None  # text typed or pasted in (E, --text), shown beside the wire's forms
        self.search = Search()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="token-counts"):
            yield ProgressBar(id="token-progress", show_eta=False)
            yield DataTable(id="token-table", cursor_type="row")
            yield Static("", id="token-info")
        yield StatusLine(id="tv-title")
        yield TokenView(id="token-view")
        yield Static("", id="ledger-head")
        yield LedgerView(id="ledger")
        yield Static("", id="tv-ids")
        yield StatusLine(id="tv-status")

    def on_mount(self) -> None:
        self.query_one("#token-table", DataTable).add_columns(
            "encoding", "bytes", "cl100k_base", "o200k_base", "vs full JSON (cl100k / o200k)")
        self._arrange()

    @property
    def view(self) -> TokenView:
        return self.query_one("#token-view", TokenView)

    @property
    def ledger_view(self) -> LedgerView:
        return self.query_one("#ledger", LedgerView)

    @property
    def focus_target(self) -> Widget:
        return self.ledger_view if self.show_ledger else self.view

    # --- a new model ----------------------------------------------------------------------

    def show(self, loaded: Loaded) -> None:
        self.query_one("#token-table", DataTable).clear()
        bar = self.query_one("#token-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = False  # until counting starts: an idle pulsing bar repaints the screen for nothing
        self.query_one("#token-info", Static).update("")
        self.ledger, self.ledger_step = None, ""
        self.ledger_view.set_ledger(None, ENCODING_NAMES[0])
        self._layouts = {}
        forms = {} if loaded.form == "binary" and loaded.ok else {linked_form(loaded): loaded.wire}
        self._set_forms(loaded, forms, "encoding the other forms…" if loaded.projection is not None else
                        absent_note(loaded, forms), keep_state=False)
        self._forms_for = None
        if self._displayed():
            self._request_forms()
        if self.show_ledger:
            self._start_ledger()

    def _displayed(self) -> bool:
        return all(node.display for node in self.ancestors_with_self)

    def _request_forms(self) -> None:
        """Encode the other forms (once per model, when the tab is first shown:
        a 16 MiB projection takes a second to encode, for nothing if the tab stays shut)."""
        loaded = self.loaded
        if loaded is not None and loaded.projection is not None and not loaded.pending \
                and self._forms_for is not loaded:
            self._forms_for = loaded
            self._forms_worker(loaded)

    @work(thread=True, exclusive=True, group="token-forms", exit_on_error=False, description="token forms")
    def _forms_worker(self, loaded: Loaded) -> None:
        for name in ENCODING_NAMES:  # loaded here, so the first T does not wait for a vocabulary
            token_lengths(name)
        forms = encodings_of(loaded, TEXT_FORMS)
        if loaded.ok and loaded.form in forms:
            forms[loaded.form] = loaded.wire
        self.post_message(TokenForms(loaded, forms, absent_note(loaded, forms)))

    def on_token_forms(self, message: TokenForms) -> None:
        if message.source is self.loaded:  # forms of a model no longer loaded are dropped
            self._set_forms(message.source, message.forms, message.note, keep_state=True)

    def _set_forms(self, loaded: Loaded, forms: dict[str, bytes], note: str, keep_state: bool) -> None:
        current = self.states[self.state] if keep_state and self.states else None
        self.forms = dict(forms)
        if self.typed is not None:
            self.forms["typed"] = self.typed
        self.forms_note = note
        order = [f for f in (*TEXT_FORMS, "given", "typed") if f in self.forms]
        self.states = [(f, e) for f in order for e in ENCODING_NAMES]
        start = current if current in self.states else (linked_form(loaded), ENCODING_NAMES[0])
        self.state = self.states.index(start) if start in self.states else 0
        if current is None or current not in self.states:
            self._show_state()
        else:
            self._update_title()

    # --- the token view -------------------------------------------------------------------

    @property
    def shown(self) -> tuple[str, str] | None:
        return self.states[self.state] if self.states else None

    def _link(self) -> str:
        """How the shown form relates to the other panes' cursor: linked, doc, or none."""
        loaded, shown = self.loaded, self.shown
        if loaded is None or shown is None:
            return "none"
        if shown[0] == linked_form(loaded):
            return "linked"
        if shown[0] == "json" and loaded.document is not None and self.forms.get("json") == loaded.document:
            return "doc"
        return "none"

    def _layout(self, form: str) -> Layout:
        width = self.view._content_width()
        key = (form, width)
        if key not in self._layouts:
            self._layouts[key] = wrapped_layout(self.forms[form], width)
        return self._layouts[key]

    def _show_state(self) -> None:
        shown = self.shown
        if shown is None:
            self.view.show_text(b"", ENCODING_NAMES[0])
        else:
            form, encoding = shown
            self.view.show_text(self.forms[form], encoding, self._layout(form))
            if self.selection is not None and self.selection.source is self.loaded:
                self.follow(self.selection)
        if self.ledger is not None:
            self.ledger_view.set_ledger(self.ledger, self._encoding())
        self._update_title()
        self._update_ledger_head()

    def _encoding(self) -> str:
        return self.shown[1] if self.shown else ENCODING_NAMES[0]

    def _update_title(self) -> None:
        shown = self.shown
        if shown is None:
            text = "token view: " + (self.forms_note or "nothing to tokenize")
        else:
            form, encoding = shown
            what = TITLES[form] + (" (the wire as given)" if self._link() == "linked" and form != "given" else "")
            link = {"linked": "linked to the other panes' cursor",
                    "doc": "linked to the other panes' cursor through the document's offsets",
                    "none": "not linked: the other panes' cursor is in the wire's bytes, not this form's"}[self._link()]
            text = f"{what} · {encoding} · view {self.state + 1}/{len(self.states)} (T: next)\n{link}"
            if self.show_ledger:
                text = f"cost ledger of the wire as given · {encoding} (T: other encoding)"
            if self.forms_note:
                text += f" · {self.forms_note}"
        self.query_one("#tv-title", StatusLine).update(Text(text))

    def action_cycle_view(self) -> None:
        if not self.states:
            self.notify("nothing to tokenize: " + self.forms_note, severity="warning")
            return
        if self.show_ledger:  # the ledger is of the wire as given: T changes its encoding only
            form, encoding = self.states[self.state]
            other = ENCODING_NAMES[(ENCODING_NAMES.index(encoding) + 1) % len(ENCODING_NAMES)]
            self.state = self.states.index((form, other))
        else:
            self.state = (self.state + 1) % len(self.states)
        self._show_state()

    def action_toggle_ids(self) -> None:
        self.show_ids = not self.show_ids
        self._arrange()
        self._update_status()

    @on(TokenView.Viewed)
    def _viewed(self, event: TokenView.Viewed) -> None:
        """A key can move the view several ways at once: the status is redone once for them all."""
        event.stop()
        if not self._status_due:
            self._status_due = True
            self.call_later(self._update_status)

    @on(LineView.CursorMoved, "#token-view")
    def _token_moved(self, event: LineView.CursorMoved) -> None:
        """The user moved the token cursor: in a linked form, announce its token."""
        event.stop()
        token = self.view.cursor_token()
        loaded = self.loaded
        if token is None or loaded is None:
            return
        _, start, end = token
        if self._link() == "linked":
            self.announce(start, end, loaded.span_at(start)[2], start)
        elif self._link() == "doc":
            wire_start, wire_end, _ = loaded.doc_span_at(start)
            self.announce(wire_start, wire_end, (start, end), wire_start)

    def follow(self, selection: Selection) -> None:
        """Another pane moved the linked cursor: the token holding its byte
        (or, in full JSON, its document byte) becomes the token cursor, and
        its span the selection."""
        view, link = self.view, self._link()
        if link == "linked":
            view.go_to_offset(selection.cursor)
            view.select_span((selection.start, selection.end))
        elif link == "doc" and selection.doc is not None:
            view.go_to_offset(selection.doc[0])
            view.select_span(selection.doc)

    def on_show(self) -> None:
        self._request_forms()
        self._update_status()

    def _update_status(self) -> None:
        """The cursor token and the counts, when the tab is shown (counting
        tokens for a hidden tab would load a vocabulary at start-up for nothing)."""
        self._status_due = False
        if not self._displayed():
            return
        view = self.view
        if not view.data:
            self.query_one("#tv-status", StatusLine).update("")
            self.query_one("#tv-ids", Static).update("")
            return
        token = view.cursor_token()
        parts = []
        if token is not None:
            shown = repr(view.data[token[1]:token[2]])[1:]
            parts.append(f"cursor token id {token[0]} {shown if len(shown) <= 24 else shown[:23] + '…'} "
                         f"at {'byte' if token[2] - token[1] <= 1 else 'bytes'} {byte_range(token[1], token[2])}")
        parts.append(f"visible lines: {view.count_visible():,} tokens")
        if view.selected is not None:
            n = view.count_selected()
            s, e = view.selected
            parts.append(f"selection: {plural(n, 'token')} ({plural(e - s, 'byte')})" if n is not None
                         else f"selection: {e - s:,} bytes, too long to count here (see L)")
        else:
            parts.append("selection: none (shift+←/→)")
        parts.append("I: ids · L: ledger")
        first = parts.pop(0) if token is not None else ""
        self.query_one("#tv-status", StatusLine).update(Text(first + "\n" + " · ".join(parts)))
        if self.show_ids:
            self.query_one("#tv-ids", Static).update(self._ids_text())

    def _ids_text(self) -> Text:
        """The ids of the tokens on the cursor's line, on their tokens' backgrounds."""
        view = self.view
        line = min(view.cursor_line, len(view.lines) - 1)
        start, end = view.lines.starts[line], view.lines.ends[line]
        if view.data[end:end + 1] == b"\n":
            end += 1  # shown as ⏎, and part of a token
        run = view.tokens(start, max(end, start + 1))
        text = Text(f"ids on line {line + 1:,}: ")
        token = view.cursor_token()
        i = run.index_at(start)
        while i < len(run) and run.offsets[i] < max(end, start + 1):
            style = f"#ffffff on {view.colour(run, i)}"
            if token is not None and run.offsets[i] == token[1]:
                style += " reverse bold"
            text.append(str(run.ids[i]), style)
            text.append(" ")
            i += 1
        return text

    # --- typed text and search --------------------------------------------------------------

    def set_typed(self, text: str) -> None:
        """Show how ``text`` tokenizes, as one more view beside the wire's forms (T cycles)."""
        self.typed = text.encode("utf-8")
        self._layouts = {k: v for k, v in self._layouts.items() if k[0] != "typed"}
        loaded = self.loaded
        forms = {k: v for k, v in self.forms.items() if k != "typed"}
        if loaded is not None:
            self._set_forms(loaded, forms, self.forms_note, keep_state=False)
        else:
            self.forms = {"typed": self.typed}
            self.states = [("typed", e) for e in ENCODING_NAMES]
        self.state = self.states.index(("typed", ENCODING_NAMES[0]))
        if self.show_ledger:
            self.show_ledger = False
            self._arrange()
        self._show_state()

    def action_type_text(self) -> None:
        def typed(text: str | None) -> None:
            if text:
                self.set_typed(text)
                self.view.focus()

        current = self.typed.decode("utf-8", "replace") if self.typed else ""
        self.app.push_screen(PromptScreen("Tokenize text (type or paste; shown beside the wire's forms)",
                                          "any text", current), typed)

    def action_search(self) -> None:
        """Find text in the shown form, or a token id (``#1234``), token by token."""
        shown = self.shown
        if shown is None or self.show_ledger:
            self.notify("search the token view (L leaves the ledger)", severity="warning")
            return
        form, encoding = shown
        data = self.forms[form]

        def run(query: str | None) -> None:
            if not query:
                return
            query = query.strip()
            if query.startswith("#") and query[1:].isdigit():
                if len(data) > ID_SEARCH_LIMIT:
                    self.notify(f"too long to find a token id in ({len(data):,} bytes)", severity="warning")
                    return
                wanted = int(query[1:])
                tokens = whole(data, encoding)
                matches = [tokens.offsets[i] for i, t in enumerate(tokens.ids) if t == wanted]
                ends = {tokens.offsets[i]: tokens.offsets[i + 1] for i, t in enumerate(tokens.ids) if t == wanted}
                search = Search("tokens", max((ends[m] - m for m in matches), default=0), matches)
            else:
                search = Search.find("tokens", data, query)
            if not search.matches:
                self.notify(f"{query!r} not found in {TITLES[form]} ({encoding})", severity="warning")
                return
            self.notify(f"{len(search.matches):,} matches of {query!r}")
            self.search = search
            self.action_next_match()

        self.app.push_screen(PromptScreen("Search the token view", "text, or a token id: #1234"), run)

    def _show_match(self) -> None:
        offset = self.search.current
        view = self.view
        view.go_to_offset(offset)
        view.select_span((offset, offset + max(self.search.length, 1)))
        view.focus()
        loaded = self.loaded
        if loaded is not None and self._link() == "linked":
            self.announce(offset, offset + max(self.search.length, 1), loaded.span_at(offset)[2], offset)
        elif loaded is not None and self._link() == "doc":
            wire_start, wire_end, _ = loaded.doc_span_at(offset)
            self.announce(wire_start, wire_end, (offset, offset + self.search.length), wire_start)
        self.query_one("#tv-title", StatusLine).update(Text(
            f"match {self.search.position + 1} of {len(self.search.matches):,} at byte {offset:,} (n/N)"))

    # --- the ledger -----------------------------------------------------------------------

    def action_toggle_ledger(self) -> None:
        self.show_ledger = not self.show_ledger
        self._arrange()
        if self.show_ledger and self.ledger is None:
            self._start_ledger()
        self._update_title()
        self.focus_target.focus()

    def _start_ledger(self) -> None:
        loaded = self.loaded
        if loaded is None or loaded.pending:
            return
        if loaded.form == "binary":
            self.ledger_step = "no ledger: a v1 binary wire is CBOR, not text, so it has no tokens to attribute"
            self._update_ledger_head()
            return
        self.ledger_step = "starting…"
        self._update_ledger_head()
        self._ledger_worker(loaded)

    @work(thread=True, exclusive=True, group="ledger", exit_on_error=False, description="cost ledger")
    def _ledger_worker(self, loaded: Loaded) -> None:
        worker = get_current_worker()
        try:
            full_json = encodings_of(loaded, ("json",)).get("json")

            def progress(p) -> bool:
                self.post_message(LedgerProgressed(loaded, p.fraction, p.step))
                return worker.is_cancelled

            ledger = build(loaded, full_json, ENCODING_NAMES, progress)
        except (RuntimeError, OSError, ValueError) as exc:  # e.g. a missing vocabulary
            self.post_message(LedgerProgressed(loaded, 1.0, f"the ledger failed: {exc}"))
            return
        if ledger is not None:
            self.post_message(LedgerProgressed(loaded, 1.0, "done", ledger))

    def on_ledger_progressed(self, message: LedgerProgressed) -> None:
        if message.source is not self.loaded:  # progress of a model no longer loaded is dropped
            return
        if message.ledger is not None:
            self.ledger = message.ledger
            self.ledger_step = ""
            self.ledger_view.set_ledger(self.ledger, self._encoding())
        else:
            self.ledger_step = f"computing the ledger: {message.fraction:.0%} ({message.step})"
        self._update_ledger_head()

    def _update_ledger_head(self) -> None:
        head = self.query_one("#ledger-head", Static)
        ledger, name = self.ledger, self._encoding()
        if ledger is None:
            head.update(Text(self.ledger_step or "L: compute the ledger"))
            return
        lines = [self.ledger_step] if self.ledger_step else []
        if not ledger.rows:
            head.update(Text(ledger.note))
            return
        total = ledger.wire_total[name]
        lines.append(f"{RULE}: the rows sum to {total:,}, the wire's {name} count")
        diff = ledger.difference(name)
        if diff is None:
            lines.append(ledger.note)
        else:
            lines.append(f"Δ vs JSON: an entry's line + its @N uses (a separator each side) − those uses inline in "
                         f"full JSON; the Δ column sums to {diff:+,} = {total:,} − {ledger.json_total[name]:,}")
        lines.append(ledger_header(self.ledger_view.scrollable_content_region.width or 100))
        head.update(Text("\n".join(lines)))

    @on(LedgerView.Highlighted)
    def _ledger_row(self, event: LedgerView.Highlighted) -> None:
        event.stop()
        row = event.row
        if row.kind not in ("rest", "unparsed"):
            self.announce(row.start, row.end)
        self.query_one("#tv-status", StatusLine).update(Text(ledger_row_story(row, self._encoding())))

    def _arrange(self) -> None:
        self.view.display = not self.show_ledger
        self.query_one("#tv-ids", Static).display = self.show_ids and not self.show_ledger
        self.ledger_view.display = self.show_ledger
        self.query_one("#ledger-head", Static).display = self.show_ledger

    # --- the counts -----------------------------------------------------------------------

    def show_counts(self, counts: Counts) -> None:
        table = self.query_one("#token-table", DataTable)
        table.clear()
        base = counts.tokens.get("json")
        for form, size in counts.sizes.items():
            if form == "binary":
                cells = ["bytes only", "bytes only",
                         change(size, counts.sizes.get("json")) + " bytes" if "json" in counts.sizes else ""]
            else:  # one encoding is counted after the other: a cell not yet counted says so
                n = counts.tokens.get(form, {})
                names = ("cl100k_base", "o200k_base")
                cells = [f"{n[k]:,}" if k in n else "counting…" for k in names]
                cells.append(" / ".join(change(n[k], base[k]) for k in names)
                             if base and form != "json" and all(k in n and k in base for k in names) else "")
            table.add_row(FORM_NAMES[form], f"{size:,}", *cells, key=form)
        counted = sum(len(counts.tokens.get(f, ())) if f != "binary" else 2 for f in counts.sizes)
        bar = self.query_one("#token-progress", ProgressBar)
        bar.display = True
        bar.update(total=2 * len(counts.sizes) + 1, progress=counted + (1 if counts.done else 0))
        info = []
        if counts.note:
            info.append(counts.note)
        if counts.error:
            info.append(f"token counting failed: {counts.error}")
        if counts.infos:
            info.append(f"tiktoken {counts.infos[0].tiktoken_version}; counts of the complete wire, "
                        "local measurements only.")
            info += [f"{i.name} vocabulary sha256:{i.vocabulary_sha256}" for i in counts.infos]
        self.query_one("#token-info", Static).update(Text("\n".join(info)))


__all__ = ["PALETTE", "TokensPane", "absent_note", "linked_form"]
