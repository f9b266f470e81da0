"""The repair dialog: what ``inspector/repair.py`` would change in the loaded
rejected wire, whether the result verifies, and where to write it (a new file
beside the original; an existing file is replaced only when the person says
so, the original never). The plan is worked out in a thread worker; the
dialog answers with the path written and the plan, or None."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static
from textual.worker import Worker, WorkerState

from .model import Loaded, display_value
from .repair import Plan, is_original, plan, write_new
from .screens import ConfirmScreen


@dataclass
class RepairPlanned(Message):
    """The plan worked out for ``source``."""

    source: Loaded
    plan: Plan


class RepairScreen(ModalScreen[tuple[str, Plan] | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    RepairScreen { align: center middle; }
    RepairScreen > Vertical { width: 100; max-width: 95%; height: auto; max-height: 90%; border: thick $accent;
                              background: $panel; padding: 1 2; }
    RepairScreen #repair-steps, RepairScreen #repair-verdict { height: auto; margin-bottom: 1; }
    RepairScreen Horizontal { height: auto; margin-top: 1; }
    """

    def __init__(self, loaded: Loaded, suggested: str) -> None:
        super().__init__()
        self.loaded = loaded
        self.suggested = suggested
        self.plan: Plan | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text.assemble(("Repair ", "bold"), display_value(self.loaded.name.encode())))
            yield Static(Text("working out the repair…", style="italic"), id="repair-steps")
            yield Static("", id="repair-verdict")
            yield Input(value=self.suggested, id="repair-path")
            with Horizontal():
                yield Button("Write the repaired copy and compare (Enter)", id="repair-write", variant="primary")
                yield Button("Cancel (Esc)", id="repair-cancel")

    def on_mount(self) -> None:
        self.query_one("#repair-path").display = False
        self.query_one("#repair-write").display = False
        self._plan_worker(self.loaded)

    @work(thread=True, exclusive=True, group="repair", exit_on_error=False, description="repair")
    def _plan_worker(self, loaded: Loaded) -> None:
        self.post_message(RepairPlanned(loaded, plan(loaded)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A bug in working out the repair is said, and nothing is offered to write."""
        if event.worker.group == "repair" and event.state == WorkerState.ERROR:
            self.query_one("#repair-steps", Static).update(
                Text(f"working out the repair failed ({event.worker.error!r}); nothing is written", style="bold red"))

    @on(RepairPlanned)
    def _planned(self, message: RepairPlanned) -> None:
        if message.source is not self.loaded:
            return
        p = self.plan = message.plan
        steps = self.query_one("#repair-steps", Static)
        verdict = self.query_one("#repair-verdict", Static)
        if not p.steps:
            steps.update(Text("No mechanical repair applies to this wire: its problems (the diagnostic and "
                              "hints on the Overview) have no fix that can be made from its bytes alone."))
        else:
            text = Text()
            for n, step in enumerate(p.steps, 1):
                text.append(f"{n}. {step.title}: ", "bold")
                text.append(display_value(step.what.encode()) + ("\n" if n < len(p.steps) else ""))
            steps.update(text)
        if p.verifies:
            verdict.update(Text.assemble(("the repaired wire decodes and verifies", "bold green"),
                                         f" ({len(p.repaired):,} bytes). Write it to:"))
            path = self.query_one("#repair-path", Input)
            path.display = True
            self.query_one("#repair-write").display = True
            path.focus()
        else:
            e = p.error
            why = "" if e is None else f"{e.code}" + ("" if e.offset is None else f" at byte {e.offset:,}") + \
                f": {display_value(e.message.encode())}"
            if p.steps:
                verdict.update(Text.assemble(("cannot make it verify", "bold red"),
                                             f": after {'this step' if len(p.steps) == 1 else 'these steps'} "
                                             f"it still fails with {why}. Nothing is written."))
            else:
                verdict.update(Text.assemble(("nothing to write", "bold"), f": it fails with {why}"))
            self.query_one("#repair-cancel", Button).label = "Close (Esc)"
            self.query_one("#repair-cancel", Button).focus()

    @on(Input.Submitted, "#repair-path")
    @on(Button.Pressed, "#repair-write")
    def write(self) -> None:
        p = self.plan
        if p is None or not p.verifies:
            return
        path = self.query_one("#repair-path", Input).value.strip()
        if not path:
            return
        if is_original(path, self.loaded.path):
            self.notify("not written: that is the original file, which a repair never touches", severity="error")
            return
        if os.path.exists(path):
            def answered(yes: bool | None) -> None:
                if yes:
                    self._write(path, p, replace=True)
                else:
                    self.notify(f"not written: {path} already exists")
            self.app.push_screen(ConfirmScreen(f"{path} exists. Replace it?"), answered)
            return
        self._write(path, p, replace=False)

    def _write(self, path: str, p: Plan, *, replace: bool) -> None:
        try:
            write_new(path, p.repaired, replace=replace)
        except OSError as exc:
            self.notify(f"not written: {path}: {exc.strerror or exc}", severity="error")
            return
        self.dismiss((path, p))

    @on(Button.Pressed, "#repair-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["RepairPlanned", "RepairScreen"]
