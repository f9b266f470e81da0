"""What every form's decoder is: a reader whose stages run in a fixed order.

Each form's ``Reader`` (model_text, text_v1, binary_v1, and wire's ``JsonReader``)
lists its ``STAGES``; each stage leaves what it found on the reader, so a failure
still leaves a partial parse. The decoders run the stages through ``decode``;
``codec.layout_wire`` runs the same ones and keeps what they read."""

from __future__ import annotations

from typing import ClassVar

from .projection import CompactProjection, check_digest
from .scan import Field


class Reader:
    """The state every form's reader shares, and the stages that are the same for
    all: verifying the digest (docs/wire-format.md §2) and handing back the
    projection."""

    STAGES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, wire: bytes) -> None:
        self.wire = wire
        self.fields: tuple[Field, ...] = ()
        self.metadata: tuple[str, str, str, str] | None = None
        self.body_start: int | None = None
        self.document: bytes | None = None

    def verify_digest(self) -> None:
        check_digest(self.document, self.metadata[3], self.fields[3].value.start)

    def projection(self) -> CompactProjection:
        """For a reader whose stages all passed: the digest was verified and the
        document normalized, so the value is built without doing that again."""
        profile, root, revision, digest = self.metadata
        return CompactProjection._checked(profile, root, revision, self.document, digest)


def run(reader: Reader) -> Reader:
    """Every stage of ``reader``, in order; the first failure propagates."""
    for stage in reader.STAGES:
        getattr(reader, stage)()
    return reader
