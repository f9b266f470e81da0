"""What the workers hand back: small dataclass messages, each naming the model it
was computed for, so a receiver drops a result whose source is no longer the one
loaded (opening a second file while the first is still being counted must never
show the first file's counts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from .model import Loaded


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
