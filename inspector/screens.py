"""Modal screens: help, open, export (never overwriting without asking), go to
offset, search, and a yes/no confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

import codec

from .actions import help_markdown

if TYPE_CHECKING:
    from textual.widgets import DirectoryTree


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 130; max-width: 95%; height: 80%; border: thick $accent; background: $panel; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            from textual.widgets import Markdown  # imported when first shown: not needed for the first paint

            yield Markdown(help_markdown())


class PromptScreen(ModalScreen[str | None]):
    """One line of input: go to offset, search."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical { width: 70; max-width: 95%; height: auto; border: thick $accent; background: $panel; padding: 1 2; }
    """

    def __init__(self, title: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text)
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [Binding("escape,n", "answer(False)", "No"), Binding("y", "answer(True)", "Yes")]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 70; max-width: 95%; height: auto; border: thick $warning; background: $panel; padding: 1 2; }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; }
    ConfirmScreen Label { width: 100%; }  /* wraps: a long path must not cut the question off */
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)
            with Horizontal():
                yield Button("Yes, overwrite (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class OpenScreen(ModalScreen[str | None]):
    """Pick a file from a tree, or type a path."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    OpenScreen { align: center middle; }
    OpenScreen > Vertical { width: 90; max-width: 95%; height: 80%; border: thick $accent; background: $panel; padding: 0 1; }
    OpenScreen DirectoryTree { height: 1fr; }
    """

    def __init__(self, start: str = ".") -> None:
        super().__init__()
        self.start = start

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Open a wire (any form) or full JSON; enter a path or pick a file")
            yield Input(placeholder="path/to/file", id="open-path")
            from textual.widgets import DirectoryTree  # imported when first shown

            yield DirectoryTree(self.start, id="open-tree")

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        self.dismiss(str(event.path))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportScreen(ModalScreen[tuple[str, str] | None]):
    """Choose an encoding and a new file name; the app asks before overwriting."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > Vertical { width: 70; max-width: 95%; height: auto; border: thick $accent; background: $panel; padding: 1 2; }
    ExportScreen RadioSet { width: 100%; }
    """

    def __init__(self, suggested: str) -> None:
        super().__init__()
        self.suggested = suggested

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Export the loaded projection")
            with RadioSet(id="export-encoding"):
                for i, form in enumerate(codec.FORMS):
                    yield RadioButton(form, value=form == "model-text", id=f"export-{form}")
            yield Input(value=self.suggested, id="export-path")
            yield Static("Enter writes the file; an existing file is never overwritten without asking.")

    def _encoding(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return str(pressed.label) if pressed is not None else "model-text"

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        path = self.query_one("#export-path", Input)
        stem = Path(path.value).with_suffix("")
        path.value = f"{stem}.{event.pressed.label}"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss((self._encoding(), event.value.strip()))

    def action_cancel(self) -> None:
        self.dismiss(None)
