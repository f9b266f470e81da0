"""Codec's structured parse of one wire (``codec.layout_wire``, every stage,
verification included) in a process of its own (``python -m inspector.worker
layout``), for the inspector's loader (see ``inspector.child``).

On a 16 MiB document the decode's transient values (the body's token lists,
the parsed JSON tree of the normalised step) reach 120-130 MB over an 8 MB
wire; here they are the child's, and the interface process receives only what
the layout keeps: the document, the entries and the reference arrays.

Asked to (``lay_out_and_encode``), the same process also encodes the decoded
projection's other forms, whose encoders build transient values as large
(v1 text splits the document into its strings: 88 MB over a 16 MiB
document), in the memory the decode has just let go: the v1 text form comes
back to be counted (``model.Encoded``), the binary form as its size, so the
counting process encodes nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import replace

import codec
from codec import CompactError, WireLayout

from . import child
from .model import Encoded

#: The forms encoded beside the layout: their bytes come back (``Encoded.forms``)
#: to be counted; the others' sizes alone (binary's tokens are not counted).
SENT_BACK = ("text", "model-text")


def layout_in_child(wire: bytes, cancelled: Callable[[], bool] = lambda: False) -> WireLayout | None:
    """``codec.layout_wire(wire)``, made in a child process. None when
    ``cancelled`` became true first, or when no child could make it (it could
    not start, or failed): the caller then lays the wire out itself, with the
    same result."""
    made = lay_out_and_encode(wire, cancelled, encode=False)
    return None if made is None else made[0]


def lay_out_and_encode(wire: bytes, cancelled: Callable[[], bool] = lambda: False, *,
                       encode: bool = True) -> tuple[WireLayout, Encoded | None] | None:
    """``layout_in_child``, and (``encode``) the projection's other forms
    encoded by the same child when the wire decodes to one (else None)."""
    try:
        items = child.results("layout", (wire, encode), cancelled)
    except OSError:
        return None
    with closing(items):
        try:
            for item in items:
                layout: WireLayout = item[0]
                document_is_wire: bool = item[1]
                encoded: Encoded | None = item[2]
                # full JSON: the document is the wire; keep one copy, not two
                return (replace(layout, document=wire) if document_is_wire else layout), encoded
        except RuntimeError:
            return None
    return None


def encode_others(layout: WireLayout) -> Encoded | None:
    """Every other form of the layout's projection: v1 text's bytes, every
    form's size. None when it decoded to no projection."""
    projection = layout.projection
    if projection is None:
        return None
    forms: dict[str, bytes] = {}
    sizes: dict[str, int] = {}
    for form, encoder in codec.ENCODERS.items():
        if form in (layout.form, "json"):  # the wire itself; the document
            continue
        try:
            data = encoder(projection)
        except CompactError:
            continue
        sizes[form] = len(data)
        if form in SENT_BACK:
            forms[form] = data
        del data
    return Encoded(forms, sizes)


def layouts(payload: bytes | tuple[bytes, bool]) -> Iterator[tuple[WireLayout, bool, Encoded | None]]:
    """The child's side: the layout, without the document when it is the wire
    itself (the parent has that already), and the other forms when asked."""
    wire, encode = payload if isinstance(payload, tuple) else (payload, False)
    layout = codec.layout_wire(wire)
    same = layout.document is wire
    encoded = encode_others(layout) if encode else None
    yield (replace(layout, document=None) if same else layout), same, encoded
