"""The Tokens tab: bytes and cl100k_base / o200k_base tokens of every form,
filled in live from the counting worker, with the tokenizers' identities."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable, ProgressBar, Static

from ..messages import Counts
from ..model import Loaded
from . import Pane
from .overview import FORM_NAMES, change


class TokensPane(Pane):
    NAME = "tokens"

    def compose(self) -> ComposeResult:
        yield ProgressBar(id="token-progress", show_eta=False)
        yield DataTable(id="token-table", cursor_type="row")
        yield Static("", id="token-info")

    def on_mount(self) -> None:
        self.query_one("#token-table", DataTable).add_columns(
            "encoding", "bytes", "cl100k_base", "o200k_base", "vs full JSON (cl100k / o200k)")

    @property
    def focus_target(self) -> Widget:
        return self.query_one("#token-table", DataTable)

    def show(self, loaded: Loaded) -> None:
        self.query_one("#token-table", DataTable).clear()
        self.query_one("#token-progress", ProgressBar).update(total=None, progress=0)
        self.query_one("#token-info", Static).update("")

    def show_counts(self, counts: Counts) -> None:
        table = self.query_one("#token-table", DataTable)
        table.clear()
        base = counts.tokens.get("json")
        for form, size in counts.sizes.items():
            if form == "binary":
                cells = ["bytes only", "bytes only",
                         change(size, counts.sizes.get("json")) + " bytes" if "json" in counts.sizes else ""]
            elif form in counts.tokens:
                n = counts.tokens[form]
                cells = [f"{n['cl100k_base']:,}", f"{n['o200k_base']:,}",
                         " / ".join(change(n[k], base[k]) for k in ("cl100k_base", "o200k_base"))
                         if base and form != "json" else ""]
            else:
                cells = ["counting…", "counting…", ""]
            table.add_row(FORM_NAMES[form], f"{size:,}", *cells, key=form)
        counted = [f for f in counts.sizes if f in counts.tokens or f == "binary"]
        bar = self.query_one("#token-progress", ProgressBar)
        bar.update(total=len(counts.sizes) + 1, progress=len(counted) + (1 if counts.done else 0))
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
