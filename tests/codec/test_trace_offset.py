"""``scan.trace_document_offset`` maps a document offset back to the wire with
sums and a bisection in C (issue 23: one Python step per token made placing a
v2 or v1 text fault cost 1.5 s at 16 MiB). It must give what the token-by-token
walk it replaced gave, for every offset."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from codec.scan import is_reference, split_body, trace_document_offset


def walked(
    tokens: list[bytes], resolve: Callable[[bytes], bytes], body_start: int, doc_offset: int
) -> tuple[int, int, bytes | None]:
    """The walk ``trace_document_offset`` replaced."""
    doc = 0
    wire = body_start
    for k, token in enumerate(tokens):
        reference = k % 2 == 1 and is_reference(token)
        piece = resolve(token) if reference else token
        if doc_offset < doc + len(piece):
            if reference:
                return wire, doc_offset - doc, token
            return wire + doc_offset - doc, 0, None
        doc += len(piece)
        wire += len(token)
    return wire + doc_offset - doc, 0, None


ENTRIES = [b'"entry zero, long enough"', b'""', b'"x"']
pieces = st.lists(st.sampled_from([b"[", b"1,", b'"ab",', b"@0,", b"@1", b"@2,", b'"@"', b"{", b"}", b":"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(pieces, st.integers(0, 40), st.integers(0, 200))
def test_the_offset_is_the_walks(parts: list[bytes], body_start: int, doc_offset: int) -> None:
    tokens = split_body(b"".join(parts), b"@")

    def resolve(token: bytes) -> bytes:
        return ENTRIES[int(token[1:]) % len(ENTRIES)]

    assert trace_document_offset(tokens, resolve, body_start, doc_offset) == walked(
        tokens, resolve, body_start, doc_offset
    )
