"""Codec's structured parse of one wire (``codec.layout_wire``, every stage,
verification included) in a process of its own (``python -m inspector.worker
layout``), for the inspector's loader (see ``inspector.child``).

On a 16 MiB document the decode's transient values (the body's token lists,
the parsed JSON tree of the normalised step) reach 120-130 MB over an 8 MB
wire; here they are the child's, and the interface process receives only what
the layout keeps: the document, the entries and the reference arrays."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import replace

import codec
from codec import WireLayout

from . import child


def layout_in_child(wire: bytes, cancelled: Callable[[], bool] = lambda: False) -> WireLayout | None:
    """``codec.layout_wire(wire)``, made in a child process. None when
    ``cancelled`` became true first, or when no child could make it (it could
    not start, or failed): the caller then lays the wire out itself, with the
    same result."""
    try:
        items = child.results("layout", wire, cancelled)
    except OSError:
        return None
    with closing(items):
        try:
            for item in items:
                layout: WireLayout = item[0]
                document_is_wire: bool = item[1]
                # full JSON: the document is the wire; keep one copy, not two
                return replace(layout, document=wire) if document_is_wire else layout
        except RuntimeError:
            return None
    return None


def layouts(wire: bytes) -> Iterator[tuple[WireLayout, bool]]:
    """The child's side: the layout, without the document when it is the wire
    itself (the parent has that already)."""
    layout = codec.layout_wire(wire)
    same = layout.document is wire
    yield (replace(layout, document=None) if same else layout), same

