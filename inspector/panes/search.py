"""Search state shared by the body and byte panes: the byte offsets of every
match of a query in one pane's bytes, and which one is shown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from textual.widget import Widget

from ..screens import PromptScreen

MAX_MATCHES = 100_000


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
    def find(pane: str, data: bytes, query: str) -> Search:
        needle = query.encode("utf-8")
        matches = []
        start = data.find(needle)
        while start >= 0 and len(matches) < MAX_MATCHES:
            matches.append(start)
            start = data.find(needle, start + 1)
        return Search(pane, len(needle), matches)

    @staticmethod
    def ask(owner: Widget, pane: str, data: bytes, found: Callable[[Search], None]) -> None:
        """Prompt for a query; call ``found`` with the matches, if any."""

        def run(query: str | None) -> None:
            if not query:
                return
            search = Search.find(pane, data, query)
            if not search.matches:
                owner.notify(f"{query!r} not found", severity="warning")
                return
            owner.notify(f"{len(search.matches):,} matches of {query!r}")
            found(search)

        owner.app.push_screen(PromptScreen("Search (bytes of the focused pane)", "text to find"), run)
