"""A text field that gives the keys back on Esc and says so in the footer while
it has focus (letters typed there never trigger a command)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class FieldInput(Input):
    BINDINGS = [Binding("escape", "leave", "Leave field (Esc)")]

    def action_leave(self) -> None:
        pane = next((a for a in self.ancestors if hasattr(a, "focus_target")), None)
        target = getattr(pane, "focus_target", None)
        if target is not None and target is not self:
            target.focus()
        else:
            self.screen.set_focus(None)
