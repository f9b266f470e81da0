"""Search state shared by the body and byte panes: the byte offsets of every
match of a query in one pane's bytes, and which one is shown."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from textual.widget import Widget

from ..screens import PromptScreen

MAX_MATCHES = 100_000
#: Two or more bytes in hex, separated by spaces: ``de ad``.
_HEX_PAIRS = re.compile(r"[0-9A-Fa-f]{2}(?:\s+[0-9A-Fa-f]{2})+")


@dataclass
class Search:
    pane: str = ""
    length: int = 0
    matches: list[int] = field(default_factory=list)
    position: int = -1

    @property
    def current(self) -> int:
        return self.matches[self.position]

    def step(self, delta: int) -> bool:
        if not self.matches:
            return False
        self.position = (self.position + delta) % len(self.matches)
        return True

    @staticmethod
    def needle(query: str, hex_ok: bool = False) -> bytes:
        """The bytes a query looks for: with ``hex_ok``, bytes written in hex
        (``de ad be ef``, ``0xdeadbeef``, ``hex:dead``), else the text as UTF-8."""
        if hex_ok:
            text = query.strip()
            spelled = None
            if _HEX_PAIRS.fullmatch(text):
                spelled = text
            elif text.lower().startswith(("0x", "hex:")):
                spelled = text.split(":", 1)[1] if ":" in text else text[2:]
            if spelled is not None:
                try:
                    return bytes.fromhex(spelled)
                except ValueError:
                    pass
        return query.encode("utf-8")

    @staticmethod
    def find(pane: str, data: bytes, query: str, hex_ok: bool = False) -> Search:
        needle = Search.needle(query, hex_ok)
        matches: list[int] = []
        start = data.find(needle)
        while start >= 0 and len(matches) < MAX_MATCHES:
            matches.append(start)
            start = data.find(needle, start + 1)
        return Search(pane, len(needle), matches)

    @staticmethod
    def ask(owner: Widget, pane: str, data: bytes, found: Callable[[Search], None], hex_ok: bool = False) -> None:
        """Prompt for a query; call ``found`` with the matches, if any."""

        def run(query: str | None) -> None:
            if not query:
                return
            search = Search.find(pane, data, query, hex_ok)
            if not search.matches:
                owner.notify(f"{query!r} not found", severity="warning")
                return
            owner.notify(f"{len(search.matches):,} matches of {query!r}")
            found(search)

        hint = "text, or bytes in hex: de ad be ef / 0xdead" if hex_ok else "text to find"
        owner.app.push_screen(PromptScreen("Search (bytes of the focused pane)", hint), run)


class MatchSteps:
    """The ``n``/``N`` actions of a pane that searches: step the pane's ``search``
    attribute (a Search, or None before the first search in some panes) and show
    the match it lands on with the pane's own ``_show_match``."""

    def _show_match(self) -> None:
        raise NotImplementedError

    def _step_match(self, by: int) -> None:
        search: Search | None = getattr(self, "search", None)
        if search is not None and search.step(by):
            self._show_match()

    def action_next_match(self) -> None:
        self._step_match(1)

    def action_prev_match(self) -> None:
        self._step_match(-1)
