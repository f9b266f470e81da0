"""The Verify tab: decode-and-verify with expected profile, root and revision,
and for a noncanonical wire the given bytes beside the canonical re-encoding."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Label, Static

from codec import CompactError, check_binding

from ..model import Loaded, canonical_comparison, display_value
from ..views.lines import LineView, Mark
from . import Pane
from .fields import FieldInput

EXPECTATIONS = (("profile", "profile"), ("root", "root"), ("source_revision", "revision"))


class VerifyPane(Pane):
    NAME = "verify"

    def compose(self) -> ComposeResult:
        with Horizontal(id="verify-inputs"):
            yield FieldInput(placeholder="expected profile", id="expect-profile")
            yield FieldInput(placeholder="expected root", id="expect-root")
            yield FieldInput(placeholder="expected source_revision", id="expect-revision")
            yield Button("Verify", id="run-verify", variant="primary")
        yield Static("", id="verify-result")
        yield Button("Compare with the canonical re-encoding", id="compare-canonical-button")
        with Horizontal(id="canon-panes"):
            with Vertical():
                yield Label("given bytes", classes="pane-title")
                yield LineView(id="canon-given")
            with Vertical():
                yield Label("canonical re-encoding", classes="pane-title")
                yield LineView(id="canon-expected")

    def on_mount(self) -> None:
        self.query_one("#canon-panes").display = False
        self.query_one("#compare-canonical-button").display = False

    @on(Button.Pressed, "#compare-canonical-button")
    def compare_canonical(self) -> None:
        """The whole comparison (envelopes, dictionary, JSON paths, tokens) of
        the given wire and its canonical re-encoding."""
        from ..compare import Target

        self.app.open_compare(Target("canonical"))  # type: ignore[attr-defined]

    @property
    def focus_target(self) -> Widget:
        return self.query_one("#run-verify", Button)

    def show(self, loaded: Loaded) -> None:
        self.verify()

    @on(Button.Pressed, "#run-verify")
    @on(FieldInput.Submitted, "#verify-inputs FieldInput")
    def verify(self) -> None:
        """Decode-and-verify the wire, checking whatever expectations are typed."""
        loaded = self.loaded
        if loaded is None:
            return
        result = self.query_one("#verify-result", Static)
        if loaded.pending:
            result.update(Text("decoding and verifying…", style="italic"))
            return
        expected = {k: (self.query_one(f"#expect-{w}", FieldInput).value.strip() or None) for k, w in EXPECTATIONS}
        canon = self.query_one("#canon-panes")
        canon.display = False
        self.query_one("#compare-canonical-button").display = False
        error = loaded.error
        if error is None:
            try:
                if loaded.projection is not None:
                    check_binding(loaded.projection, **expected)
                elif any(expected.values()):
                    raise CompactError("compact.binding", "full JSON carries no metadata to compare with", None)
            except CompactError as exc:
                error = exc
        if error is None:
            bound = ", ".join(f"{k} = {v!r}" for k, v in expected.items() if v) or "no expectations given"
            result.update(Text.assemble(("PASS", "bold green"), f": {loaded.title} decodes and verifies ",
                                        f"({display_value(bound.encode())})"))
            return
        where = "" if error.offset is None else f" at byte {error.offset:,}"
        text = Text.assemble(("FAIL", "bold red"), " ", (error.code, "bold"),
                             f"{where}: {display_value(error.message.encode())}")
        comparison = canonical_comparison(loaded) if error.code == "compact.noncanonical" else None
        if comparison is not None:
            given, canonical, at = comparison
            canon.display = True
            lo = max(at - 2000, 0)
            for view_id, data in (("#canon-given", given), ("#canon-expected", canonical)):
                view = self.query_one(view_id, LineView)
                view.set_content(data[lo:at + 2000], None)
                view.set_focus_marks([Mark(at - lo, at - lo + 1, "error")])
                view.go_to_offset(at - lo)
            text.append(f"\nfirst difference at byte {at:,} of the compared bytes, marked below")
            self.query_one("#compare-canonical-button").display = True
        result.update(text)

