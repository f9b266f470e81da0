"""What the workers hand back: small dataclass messages, each naming the model it
was computed for, so a receiver drops a result whose source is no longer the one
loaded (opening a second file while the first is still being counted must never
show the first file's counts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from .model import Loaded
from .values import Counts  # its home is values.py, which a child process imports without Textual


@dataclass
class FileLoaded(Message):
    """The load worker finished. ``serial`` is the load request it answers."""

    serial: int
    loaded: Loaded


@dataclass
class LoadFailed(Message):
    serial: int
    path: str
    reason: str


@dataclass
class CountsProgress(Message):
    counts: Counts


@dataclass
class LayoutReady(Message):
    """A reading layout computed in a worker for one body pane."""

    source: Loaded
    name: str
    layout: Any
    offset: int


@dataclass
class ValuesReady(Message):
    """The JSON value spans of a model's document were read in a worker
    (``Loaded.json_values``): folding, ``%`` and the path can start."""

    source: Loaded


@dataclass(frozen=True)
class Selection:
    """The one linked cursor: a span of wire bytes (``start`` to ``end``, end
    exclusive) of the model ``source``, with the span of the expanded document it
    stands for when there is one (``doc``). Every pane shows it in its own terms
    (a byte, a tree node, a body line, an entry, a token) and a pane that moves it
    announces a new one; ``origin`` names that pane, so it does not follow itself."""

    source: Loaded
    start: int
    end: int
    origin: str
    doc: tuple[int, int] | None = None
    at: int | None = None  # the exact byte the user is on, when inside the span

    @property
    def cursor(self) -> int:
        """Where a pane's cursor goes: the exact byte, else the span's start."""
        return self.start if self.at is None else self.at


@dataclass
class Selected(Message):
    """A pane's user moved the linked cursor; the app makes it everyone's."""

    selection: Selection


@dataclass
class TokenForms(Message):
    """The texts the token view can show for ``source``: form -> bytes (the wire
    as given under its own form), and why the others are absent."""

    source: Loaded
    forms: dict[str, bytes]
    note: str = ""


@dataclass
class LedgerProgressed(Message):
    """The ledger worker's progress for ``source`` (``ledger`` set when done)."""

    source: Loaded
    fraction: float
    step: str
    ledger: Any = None

