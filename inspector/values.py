"""Plain values the inspector's parts exchange, with no Textual in them, so a
child process (``inspector.worker``) can build them without loading the
interface framework. ``messages`` re-exports them beside the Textual messages
that carry them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Loaded


@dataclass(frozen=True)
class Counts:
    """Token counts of one loaded model, as far as counting has got."""

    source: Loaded
    sizes: dict[str, int] = field(default_factory=dict)  # form -> bytes, every form that exists
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)  # form -> encoding -> count
    saved: dict[str, list[int]] = field(default_factory=dict)  # encoding -> net tokens saved per entry
    infos: tuple[Any, ...] = ()
    done: bool = False
    error: str | None = None
    note: str = ""  # why some forms are absent
