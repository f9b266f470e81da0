"""A token budget, and the budget a fitted view names (docs/profiles.md, "Fitted
views"; docs/wire-format.md §2.1). Kept apart from views/fit.py, which brings the
tokenizers: replaying or comparing a whole view reads its budget (none) without
loading them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codec.wire import FORMS

#: The key of the partial marker; a view without it is whole.
PARTIAL = "partial"


@dataclass(frozen=True)
class Budget:
    """``max_tokens`` of the wire of form ``counted``, in each tokenizer."""

    max_tokens: int
    counted: str = "json"

    def __post_init__(self) -> None:
        if self.counted not in FORMS:
            raise ValueError(f"unknown wire form {self.counted!r}")


def budget_of(value: Any) -> Budget | None:
    """The budget a view was fitted to, read from its ``partial`` marker; None for a whole view."""
    if not isinstance(value, dict):
        return None
    marker = value.get(PARTIAL)
    if not isinstance(marker, dict):
        return None
    limit, counted = marker.get("max_tokens"), marker.get("counted")
    if type(limit) is not int or limit < 1 or counted not in FORMS:
        return None
    return Budget(limit, counted)
