"""Every inspector command, once: its key, action, title, help text and the pane
that owns it. The app's and each pane's ``BINDINGS``, the command palette and
the help screen are all generated from this table, so they cannot disagree.

``panes`` empty means an app-wide command (tabs, open, go to byte…), shown in
the footer only when ``footer`` says so; a pane command is bound on the pane,
so the footer shows it only while that pane has focus."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content


@dataclass(frozen=True)
class Command:
    key: str  # Textual key spec; several keys separated by commas
    action: str  # the action's name on the pane (or the app), with arguments
    title: str
    help: str
    panes: tuple[str, ...] = ()  # () : app-wide
    footer: bool = True
    shown_key: str = ""  # how help and the palette spell the key (default: from ``key``)

    @property
    def keys_label(self) -> str:
        if self.shown_key:
            return self.shown_key
        names = {"question_mark": "?", "slash": "/", "exclamation_mark": "!", "right_square_bracket": "]",
                 "left_square_bracket": "[", "less_than_sign": "<", "greater_than_sign": ">", "enter": "Enter",
                 "escape": "Esc"}
        return " / ".join(names.get(k, k) for k in self.key.split(","))


TABS = (("o", "overview"), ("d", "dictionary"), ("b", "body"), ("x", "bytes"), ("p", "tree"), ("v", "verify"),
        ("t", "tokens"))

COMMANDS: tuple[Command, ...] = (
    *(Command(key, f"tab('{name}')", f"Show {name.title()}", f"Switch to the {name.title()} tab", footer=False)
      for key, name in TABS),
    Command("question_mark", "help", "Help", "List every key"),
    Command("q", "quit", "Quit", "Leave the inspector"),
    Command("ctrl+o", "open", "Open file…", "Open another wire or JSON file", footer=False),
    Command("ctrl+r", "reload", "Reload file", "Read the file again from disk (--watch reloads on change)",
            footer=False),
    Command("ctrl+e", "export", "Export…", "Write the projection in any encoding to a new file (never "
            "overwrites without asking)", footer=False),
    Command("g", "goto", "Go to byte…", "Go to a byte offset of the wire (decimal, or hex with 0x)", footer=False),
    Command("exclamation_mark", "jump_error", "Jump to diagnostic", "Go to the byte the diagnostic names",
            footer=False),
    Command("right_square_bracket", "next_use", "Next use of entry",
            "Step to the next reference of the selected dictionary entry", footer=False),
    Command("left_square_bracket", "prev_use", "Previous use of entry",
            "Step to the previous reference of the selected dictionary entry", footer=False),
    Command("alt+left,less_than_sign", "back", "Back", "Go back to where you were", footer=False),
    Command("alt+right,greater_than_sign", "forward", "Forward", "Go forward again", footer=False),
    Command("V", "verify", "Verify", "Run decode-and-verify again, with the expectations typed in the Verify tab",
            footer=False),
    Command("ctrl+t", "count_tokens", "Count tokens", "Count tokens for every form again", footer=False),
    Command("C", "compare", "Compare with…", "Compare this wire with another file, its canonical re-encoding or "
            "its replay from a workspace: envelopes, dictionary, changed JSON paths, bytes and tokens",
            footer=False),
    Command("R", "repair", "Repair…", "Write a repaired copy of a rejected wire to a new file (never the "
            "original), show what changed, and open it; only a repair that verifies is written", footer=False),
    Command("A", "calls", "Agent calls", "Show the tool calls of the tap session this inspector opened "
            "(semaprax tap): what each result cost and what the model read", footer=False),
    # pane commands
    Command("slash", "search", "Search…", "Search this pane: the body's bytes (the linked cursor follows), the "
            "bytes as text or hex (de ad), the tree (the node holding the text), the tokens (text, or #id)",
            panes=("body", "bytes", "tree", "tokens")),
    Command("slash", "filter", "Filter entries", "Filter the dictionary by text", panes=("dictionary",)),
    Command("n", "next_match", "Next match", "Next search match", panes=("body", "bytes", "tree", "tokens")),
    Command("N", "prev_match", "Previous match", "Previous search match", panes=("body", "bytes", "tree", "tokens")),
    Command("m", "toggle_reading", "Reading view", "Switch the body between exact bytes and indented JSON",
            panes=("body",)),
    Command("s", "toggle_sync", "Sync panes", "Make the other body pane follow this one (on by default)",
            panes=("body",)),
    Command("T", "cycle_view", "Next token view",
            "Tokens: cycle full JSON / v1 text / model-text and cl100k_base / o200k_base (the ledger: its encoding)",
            panes=("tokens",)),
    Command("I", "toggle_ids", "Token ids", "Tokens: show the ids of the cursor line's tokens", panes=("tokens",)),
    Command("E", "type_text", "Tokenize text…", "Tokens: type or paste any text and see how it tokenizes, "
            "beside the wire's own tokens (semaprax-inspect --text TEXT opens on it)", panes=("tokens",)),
    Command("L", "toggle_ledger", "Cost ledger",
            "Tokens: the wire's tokens by region and each entry's difference to full JSON (computed once)",
            panes=("tokens",)),
    Command("c", "copy", "Copy", "Copy the value under the cursor (OSC 52; also shown in a notification); in the "
            "body, the whole JSON value at the cursor", panes=("overview", "dictionary", "body", "bytes")),
    Command("f", "fold", "Fold", "Fold the object or array under the cursor into one summary line in the document "
            "pane, or unfold the fold the cursor is on", panes=("body",)),
    Command("F", "unfold_all", "Unfold all", "Unfold every folded object and array", panes=("body",), footer=False),
    Command("percent_sign", "match_bracket", "Matching bracket", "Jump to the other bracket of the object or array "
            "(off a bracket: to the opening bracket of the one holding the cursor), in either body pane",
            panes=("body",), footer=False, shown_key="%"),
    Command("y", "copy_path", "Copy path", "Copy the cursor's path, as jq spells it (.definitions.rows[3][0]; OSC 52)",
            panes=("body",), footer=False),
    Command("i", "why_inline", "Why inline?", "Say why the string literal under the cursor is not a dictionary "
            "entry (the encoder's rule that kept it inline), or which entry it is and its uses",
            panes=("body",), footer=False),
    Command("c", "copy", "Copy node", "Copy the selected node: a JSON value's document text, else its wire bytes "
            "(OSC 52)", panes=("tree",)),
)

#: Keys of the views inside the panes, for the help screen (their bindings live on the views).
VIEW_KEYS = (
    ("Enter", ("on a body line: follow the @N under the cursor to its entry; on a dictionary row: step through "
              "its uses")),
    ("1 … 7", "in the dictionary: sort by that column (again: reverse)"),
    ("← / →", "in the byte view: move one byte; in the token view: one token"),
    ("shift+← / →", "in the token view: select tokens (their count is shown)"),
    ("Esc", "leave a text field and give the keys back"),
    ("Esc / q", "in the compare view: back to the inspector (a tab's key: back to that tab)"),
    ("ctrl+p", "command palette: every command by name"),
    ("Space / shift+←", "in the tree: open or close the node / go to its parent"),
)


def app_bindings() -> list[Binding]:
    return [Binding(c.key, c.action, c.title, show=c.footer) for c in COMMANDS if not c.panes]


def pane_bindings(pane: str) -> list[Binding]:
    return [Binding(c.key, c.action, c.title, show=c.footer) for c in COMMANDS if pane in c.panes]


def help_markdown() -> str:
    rows = ["# semaprax inspector: keys", "", "| key | command | what it does | where |", "|---|---|---|---|"]
    for c in COMMANDS:
        where = ", ".join(p.title() for p in c.panes) or "everywhere"
        rows.append(f"| `{c.keys_label}` | {c.title} | {c.help} | {where} |")
    for key, text in VIEW_KEYS:
        rows.append(f"| `{key}` | | {text} | |")
    rows += ["", "Mouse: click tabs, rows and lines; double-click follows; the wheel scrolls."]
    return "\n".join(rows)


class InspectorCommands(Provider):
    """Every command of the table in Textual's palette, with its key; all of
    them on an empty query."""

    def _run(self, command: Command) -> None:
        self.app.run_command(command)  # type: ignore[attr-defined]

    def _label(self, command: Command) -> str:
        return f"{command.title}  [{command.keys_label}]"

    async def discover(self) -> Hits:
        for c in COMMANDS:
            label = self._label(c)  # a Text: "[o]" must not be read as markup
            yield DiscoveryHit(Text(label), lambda c=c: self._run(c), text=label, help=c.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for c in COMMANDS:
            label = self._label(c)
            score = matcher.match(label)
            if score > 0:
                # highlight() reads its text as markup, so "[t]" would vanish: only the title is
                # highlighted, and the key is appended as plain content
                shown = matcher.highlight(c.title) + Content(f"  [{c.keys_label}]")
                yield Hit(score, shown, lambda c=c: self._run(c), text=label, help=c.help)
