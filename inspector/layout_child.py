"""Codec's structured parse of one wire (``codec.layout_wire``, every stage,
verification included) in a process of its own (``python -m inspector.worker
layout``), for the inspector's loader (see ``inspector.child``).

On a 16 MiB document the decode's transient values (the body's token lists,
the parsed JSON tree of the normalised step) reach 120-130 MB over an 8 MB
wire; here they are the child's, and the interface process receives only what
the layout keeps: the document, the entries and the reference arrays.

Asked to (``lay_out_and_encode``), the same process also encodes the decoded
projection's other forms, whose encoders build transient values as large
(v1 text splits the document into its strings: 88-150 MB over a 16 MiB
document), in the memory the decode has just let go and before the interface
process builds its model: the v1 text form comes back to be counted
(``model.Encoded``), the binary form as its size, so the counting process
encodes nothing."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
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
    with closing(lay_out_and_encode(wire, cancelled, encode=False)) as made:
        layout = next(made, None)
    return layout if isinstance(layout, WireLayout) else None


def lay_out_and_encode(wire: bytes, cancelled: Callable[[], bool] = lambda: False, *,
                       encode: bool = True) -> Generator[WireLayout | Encoded | None, None, None]:
    """``layout_in_child`` as the first item (nothing when no child made it),
    then (``encode``) the projection's other forms, encoded by the same child
    (``Encoded``, or None when the wire decodes to no projection or the child
    failed). The child encodes them before it sends the layout (see
    ``layouts``), so asking for them delays the layout by the encoding (about
    1 s of CPU at 16 MiB). Iterate in one thread; closing the iterator ends
    the child."""
    try:
        items = child.results("layout", (wire, encode), cancelled)
    except OSError:
        return
    with closing(items):
        try:
            first = next(items, None)
            if first is None:
                return
            layout: WireLayout = first[0]
            # full JSON: the document is the wire; keep one copy, not two
            yield replace(layout, document=wire) if first[1] else layout
            if encode:
                second = next(items, None)
                yield second if isinstance(second, Encoded) else None
        except RuntimeError:  # the child failed: the caller lays out (or encodes) itself
            return


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


def layouts(payload: bytes | tuple[bytes, bool]) -> Iterator[tuple[WireLayout, bool] | Encoded | None]:
    """The child's side: the layout, without the document when it is the wire
    itself (the parent has that already); then, when asked, the other forms."""
    wire, encode = payload if isinstance(payload, tuple) else (payload, False)
    layout = codec.layout_wire(wire)
    same = layout.document is wire
    # Encoded before the layout is sent, not after: the encoders' transient values (150 MB over a
    # 16 MiB document with few repeats) then overlap the interface process before it builds its model,
    # not after (sending the layout first made the process tree's peak 370 MB instead of 313).
    encoded = encode_others(layout) if encode else None
    yield (replace(layout, document=None) if same else layout), same
    if encode:
        yield encoded
