"""The compact-projection route: one function from (profile, root, workspace) to
a projection and its wire, shared by the CLI, the service and the MCP tool."""

from __future__ import annotations

import os

import codec
from codec import CompactError, CompactProjection
from codec import errors as E

from .profiles import PRODUCERS
from .sources import Workspace


def make_projection(profile: str, root: str, workspace: str | os.PathLike[str] = ".") -> CompactProjection:
    """Produce the view of ``root`` for ``profile``; the revision covers exactly
    the files the producer read."""
    if profile not in PRODUCERS:
        raise CompactError(E.METADATA, f"unknown profile {profile!r}; expected one of {', '.join(PRODUCERS)}")
    ws = Workspace(workspace)
    normalized, value = PRODUCERS[profile](ws, root)
    return CompactProjection.from_value(profile, normalized, ws.revision(), value)


def encode(p: CompactProjection, encoding: str) -> bytes:
    return codec.ENCODERS[encoding](p)
