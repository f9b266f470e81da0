"""The first screen, with no key pressed: the status badge, the savings strip of
every form against full JSON, the envelope, the dictionary's best and worst
entries, and the verify checklist (or, for a rejected wire, its problems)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from ..messages import Counts
from ..model import Loaded, display_value, field_rows, no_dictionary_reason, problems, verify_steps
from ..sources import SourceCosts, ratio
from . import Pane

FORM_NAMES = {"json": "full JSON", "text": "v1 text", "model-text": "v2 model-text", "binary": "v1 binary",
              "given": "the wire as given"}
ENCODINGS = ("cl100k_base", "o200k_base")


def change(new: int, old: int | None) -> str:
    """Absolute and relative change against full JSON: ``-1,234 (-12.3%)``."""
    if not old:
        return ""
    delta = new - old
    return f"{delta:+,} ({delta * 100 / old:+.1f}%)"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _entries(n: int) -> str:
    return f"{n:,} entr" + ("y" if n == 1 else "ies")


def savings_table(counts: Counts | None, loaded: Loaded, counting: bool = True, width: int = 160) -> Table:
    """Bytes and tokens of each form, each figure in its own right-aligned column
    with its change against full JSON beside it; the cheapest of each column
    marked ★. Cells not yet counted say so. Under 100 columns the change is its
    share alone, so every figure fits whole."""
    narrow = width < 100
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold", expand=False)
    table.add_column("form", no_wrap=True)
    for name in ("bytes", "cl100k_base" if not narrow else "cl100k", "o200k_base" if not narrow else "o200k"):
        table.add_column(name, justify="right", no_wrap=True)
        table.add_column("vs JSON", justify="right", no_wrap=True)
    if counts is None:
        sizes = {loaded.form if loaded.ok and loaded.form in FORM_NAMES else "given": len(loaded.wire)}
        tokens: dict[str, dict[str, int]] = {}
    else:
        sizes, tokens = counts.sizes, counts.tokens
    cheapest_bytes = min(sizes, key=sizes.__getitem__) if len(sizes) > 1 else None
    cheapest = {e: min((f for f in tokens if e in tokens[f]), key=lambda f: tokens[f][e], default=None)
                for e in ENCODINGS} if counts is not None and counts.done and len(tokens) > 1 else {}
    for form in (*FORM_NAMES,):
        if form not in sizes:
            continue
        cells = [Text(FORM_NAMES[form], style="bold" if form == loaded.form else "")]
        size = sizes[form]
        cells += _cells(size, sizes.get("json") if form != "json" else None, form == cheapest_bytes, narrow)
        for e in ENCODINGS:
            if form == "binary":
                cells += [Text("bytes only", style="dim"), Text("")]
            elif e in tokens.get(form, {}):  # one encoding is counted after the other
                n = tokens[form][e]
                base = tokens.get("json", {}).get(e) if form != "json" else None
                cells += _cells(n, base, cheapest.get(e) == form, narrow)
            else:
                pending = counting and (counts is None or not counts.done)
                cells += [Text("after decoding" if loaded.pending and pending else
                               "counting…" if pending else "not counted", style="dim italic"), Text("")]
        table.add_row(*cells)
    return table


def _cells(value: int, base: int | None, best: bool, narrow: bool) -> list[Text]:
    """A figure and its change against full JSON (★ after the cheapest), as two cells."""
    number = Text(f"{value:,}", style="bold green" if best else "")
    delta = change(value, base) if base else ""
    if narrow and delta:
        delta = delta.split(" ", 1)[1].strip("()")
    text = Text(delta, style="green" if delta.startswith("-") else "red" if delta else "")
    text.append(" ★" if best else "  ", style="bold green")
    return [number, text]


def _fit(value: str, width: int) -> str:
    """A value cut in the middle with … to ``width`` (a digest differs early and
    late alike): never cut silently at the screen's edge."""
    if len(value) <= width:
        return value
    half = (width - 1) // 2
    return value[:half] + "…" + value[len(value) - (width - 1 - half):]


def savings_sums(counts: Counts, loaded: Loaded) -> list[str]:
    """Per encoding: the entries' savings, the rest (envelope, dictionary and
    body lines, and the body around the uses), and their sum, the wire's saving
    against full JSON (both counted whole)."""
    out = []
    wire = counts.tokens.get(loaded.form if loaded.ok else "", {})
    full = counts.tokens.get("json", {})
    for e in ENCODINGS:
        saved = counts.saved.get(e)
        if not saved or e not in wire or e not in full:
            continue
        total = full[e] - wire[e]
        entries = sum(saved)
        verdict = (f"the wire saves {total:,} tokens against full JSON" if total >= 0
                   else f"the wire costs {-total:,} tokens more than full JSON")
        out.append(f"{e.split('_')[0]}: entries save {entries:+,}, the rest {total - entries:+,}: {verdict}")
    return out


class OverviewPane(Pane):
    NAME = "overview"

    def compose(self) -> ComposeResult:
        yield Static("Loading…", id="badge")
        yield Static("", id="checklist")
        yield OptionList(id="problems")
        with VerticalScroll(id="overview-scroll"):
            yield Static("", id="savings")
            yield Static("", id="savings-note")
            yield Static("", id="sources")
            yield DataTable(id="fields", cursor_type="row", zebra_stripes=True)
            yield Static("", id="entries")
            yield Static("", id="summary")

    sources: SourceCosts | None = None  # the source files the view covers, when at hand

    def on_mount(self) -> None:
        self.query_one("#fields", DataTable).add_columns("field", "bytes", "value")

    @property
    def focus_target(self) -> Widget:
        problems_list = self.query_one("#problems", OptionList)
        return problems_list if problems_list.display else self.query_one("#overview-scroll")

    def show(self, loaded: Loaded) -> None:
        e = loaded.error
        badge = Text()
        if loaded.pending:
            badge.append(" CHECKING… ", style="bold black on yellow")
        elif e is None:
            badge.append(" VALID ", style="bold white on dark_green")
        else:
            badge.append(f" REJECTED {e.code} ", style="bold white on red")
            if e.offset is not None:
                badge.append(f" at byte {e.offset:,}", style="bold")
        narrow = (self.app.size.width or 160) < 100  # 80x24: the badge stays on one line
        badge.append(f" {loaded.title}" + (f" (format {loaded.version})" if loaded.form != "unknown"
                                            and not narrow else ""))
        badge.append(f" · {len(loaded.wire):,} bytes")
        if loaded.document is not None and loaded.form != "json":
            badge.append(f" → {len(loaded.document):,} expanded" if narrow
                         else f" → a {len(loaded.document):,}-byte document")
        if loaded.form == "model-text" and loaded.declared_entries is not None:
            badge.append(f" · dict {loaded.declared_entries:,}")
            if loaded.declared_entries != len(loaded.entries):
                badge.append(f" declared, {len(loaded.entries):,} read", style="bold red")
        if loaded.digest_ok is not None:
            badge.append(" · digest " + (("ok" if narrow else "matches") if loaded.digest_ok else "does not match"),
                         style="" if loaded.digest_ok else "bold red")
        self.query_one("#badge", Static).update(badge)
        self.query_one("#summary", Static).update(self._summary(loaded))
        found = problems(loaded)
        plist = self.query_one("#problems", OptionList)
        plist.clear_options()
        plist.add_options([Option(Text.assemble((p.text, "bold" if p.kind == "diagnostic" else ""),
                                                (f"  → byte {p.offset:,}" if p.offset is not None else "", "dim")),
                                  id=str(i)) for i, p in enumerate(found)])
        plist.display = bool(found)
        plist.highlighted = 0 if found else None
        self._problems = found
        table = self.query_one("#fields", DataTable)
        table.clear()
        rows = field_rows(loaded)
        room = max((self.app.size.width or 160) - 30, 24)  # what is left of the screen beside name and bytes
        for r in rows:
            if r.complete:
                table.add_row(r.name, f"{r.declared:,}", Text(_fit(display_value(r.value), room)), key=r.name)
            else:
                where = f"but an LF at byte {r.lf_at:,}" if r.lf_at is not None else "but the wire ends"
                table.add_row(Text(r.name, style="bold red"), Text(f"{r.declared:,} declared", style="bold red"),
                              Text.assemble(display_value(r.value), (f"  ← {len(r.value):,} bytes {where}",
                                                                     "bold red")), key=r.name)
        table.display = bool(rows)
        self.query_one("#checklist", Static).update(self._checklist(loaded))
        self._show_savings(None)
        self._show_entries(None)
        self.show_sources(None)

    def show_counts(self, counts: Counts) -> None:
        self._show_savings(counts)
        self._show_entries(counts)
        self._show_sources()

    def show_sources(self, costs: SourceCosts | None) -> None:
        """The source files the view covers, and each form against them (inspector/sources.py)."""
        self.sources = costs
        self._show_sources()

    def _show_sources(self) -> None:
        widget = self.query_one("#sources", Static)
        costs, loaded = self.sources, self.loaded
        widget.display = costs is not None
        if costs is None or loaded is None:
            return
        n = len(costs.files)
        names = ", ".join(costs.files[:3]) + (f" and {n - 3:,} more" if n > 3 else "")
        text = Text("against reading the code: ", style="bold")
        text.append(f"the {plural(n, 'source file')} the view covers ({display_value(names.encode())}) "
                    f"{'cost' if n != 1 else 'costs'} {costs.size:,} bytes, "
                    + " / ".join(f"{costs.tokens[e]:,} {e.split('_')[0]}" for e in ENCODINGS) + " tokens")
        counts = self.counts if self.counts is not None and self.counts.source is loaded else None
        if counts is not None:
            for form, title in FORM_NAMES.items():
                if all(e in counts.tokens.get(form, {}) for e in ENCODINGS):
                    text.append(f"\n  {title}: " + " / ".join(
                        f"{ratio(counts.tokens[form][e], costs.tokens[e])} {e.split('_')[0]}" for e in ENCODINGS)
                        + " of the sources' tokens")
        if costs.changed:
            text.append("\n  the sources changed since the wire was made: its source_revision is not theirs "
                        f"(now {costs.revision[:19]}…)", style="bold yellow")
        widget.update(text)

    def on_resize(self) -> None:
        counts = self.counts if self.counts is not None and self.counts.source is self.loaded else None
        self._show_savings(counts)  # the table's columns follow the width

    # --- parts ------------------------------------------------------------------------

    def _summary(self, loaded: Loaded) -> Text:
        parts = [f"form: {loaded.title}", f"wire: {len(loaded.wire):,} bytes"]
        if loaded.document is not None:
            parts.append(f"selected document: {len(loaded.document):,} bytes")
        if loaded.form == "model-text" and (loaded.declared_entries is not None or loaded.entries):
            declared = loaded.declared_entries
            read = len(loaded.entries)
            if declared is not None and declared != read:
                parts.append(f"dictionary: dict {declared:,} declared, {read:,} read")
            else:
                parts.append(f"dictionary: {_entries(read)}, {plural(len(loaded.ref_wire), 'reference')}")
        if loaded.form != "json" and loaded.form != "unknown":
            parts.append("digest: " + {True: "matches", False: "does not match", None: "not checked"}[loaded.digest_ok])
        parts.append("status: " + ("not yet known (decoding and verifying)" if loaded.pending
                                   else "valid" if loaded.error is None else f"rejected: {loaded.error.code}"))
        text = Text(" · ".join(parts))
        if loaded.produced_from:
            text.append(f"\nproduced live: profile {loaded.produced_from[0]} of "
                        f"{display_value(loaded.produced_from[1].encode())}")
        return text

    def _checklist(self, loaded: Loaded) -> Text:
        text = Text("verify: ", style="bold")
        if loaded.pending:
            return text.append("decoding and verifying… (the envelope above is read, not yet checked)",
                               style="italic")
        marks = {"pass": ("✓ ", "green"), "fail": ("✗ ", "bold red"), "not reached": ("· ", "dim")}
        for step in verify_steps(loaded):
            mark, style = marks[step.state]
            text.append(mark.strip() + step.name, style=style)
            text.append(" ")
        return text

    def _show_savings(self, counts: Counts | None) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        title = Text("what each form costs (change against full JSON; ★ cheapest)", style="bold")
        counting = getattr(self.app, "count_tokens_enabled", True)
        width = self.size.width or self.app.size.width
        self.query_one("#savings", Static).update(_stack(title, savings_table(counts, loaded, counting, width)))
        note = counts.note if counts is not None else ""
        if counts is None and not counting:
            note = "tokens are not counted (--no-tokens); ctrl+t counts them"
        if counts is not None and counts.error:
            note = f"token counting failed: {counts.error}"
        self.query_one("#savings-note", Static).update(Text(note, style="italic"))
        self.query_one("#savings-note", Static).display = bool(note)

    def _show_entries(self, counts: Counts | None) -> None:
        loaded = self.loaded
        widget = self.query_one("#entries", Static)
        if loaded is not None and loaded.pending:
            declared = loaded.declared_entries
            widget.update(Text("dictionary: " + (f"dict {declared:,} declared, reading…" if declared is not None
                                                 else "reading…"), style="italic"))
            return
        if loaded is None or not loaded.entries:
            widget.update(Text("dictionary: none: " + no_dictionary_reason(loaded) if loaded else ""))
            return
        text = Text(f"dictionary: {_entries(len(loaded.entries))}, "
                    f"{plural(len(loaded.ref_wire), 'reference')}", style="bold")
        saved = counts.saved.get("cl100k_base") if counts is not None else None
        if not saved or counts is None:
            if counts is not None and counts.done:
                why = counts.error or "no full JSON to compare with"
                text.append(f"  tokens each entry saves: not known ({why})", style="dim italic")
            else:
                pending = "counting…" if getattr(self.app, "count_tokens_enabled", True) or counts else "not counted"
                text.append(f"  tokens each entry saves: {pending}", style="dim italic")
            widget.update(text)
            return
        other = counts.saved.get("o200k_base") or [0] * len(saved)
        best = sorted(range(len(saved)), key=lambda i: (-saved[i], i))[:3]
        worst = [i for i in sorted(range(len(saved)), key=lambda i: (saved[i], i)) if i not in best][:3]
        narrow = (self.app.size.width or 160) < 100  # 80x24: each line fits
        text.append("\n  tokens each entry saves vs full JSON (cl100k/o200k, from the ledger):" if narrow
                    else "  tokens each entry saves against full JSON, cl100k/o200k (the cost ledger's attribution):",
                    style="dim")
        room = 10 if narrow else 24
        for label, picks in (("best ", best), ("worst", worst)):
            text.append(f"\n  {label} ")
            for i in picks:
                text.append(f"@{i} ", style="bold")
                literal = display_value(loaded.entries[i])
                text.append(literal if len(literal) <= room else literal[:room - 1] + "…")
                text.append(f" {saved[i]:+,}/{other[i]:+,}" + (" " if narrow else "  "),
                            style="green" if saved[i] > 0 else "red")
        for line in savings_sums(counts, loaded):
            if narrow:
                line = line.replace(" tokens against full JSON", "")
            text.append("\n  " + line, style="dim")
        widget.update(text)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        problem = self._problems[int(event.option.id or 0)]
        if problem.offset is not None:
            self.app.go_to_wire_offset(problem.offset)  # type: ignore[attr-defined]

    def copy_value(self) -> str:
        loaded = self.loaded
        table = self.query_one("#fields", DataTable)
        rows = field_rows(loaded) if loaded is not None else []
        if not rows or not table.row_count:
            return ""
        return rows[min(table.cursor_row, len(rows) - 1)].value.decode("utf-8", "replace")


def _stack(title: Text, table: Table) -> Table:
    outer = Table.grid()
    outer.add_row(title)
    outer.add_row(table)
    return outer
