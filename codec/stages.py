"""What every form's decoder is: a reader whose stages run in a fixed order.

Each form's ``Reader`` (model_text, text_v1, binary_v1, and wire's ``JsonReader``)
lists its ``STAGES``; each stage leaves what it found on the reader, so a failure
still leaves a partial parse. The decoders run the stages through ``decode``;
``codec.layout_wire`` runs the same ones and keeps what they read."""

from __future__ import annotations

from typing import ClassVar

from . import errors as E
from .errors import CompactError
from .projection import CompactProjection, check_digest, metadata_values
from .scan import Field, check_wire_size, expect, read_fields


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

    def read_header_and_fields(self, header: bytes, form: str) -> None:
        """The start the two framed text forms share (docs/wire-format.md §3, §5.2
        step 1, §6): the wire's size, the exact header line (another version of
        the same header is compact.envelope at its version digits, naming what
        was found), the four framed fields and their values."""
        wire = self.wire
        check_wire_size(wire)
        if not wire.startswith(header):
            prefix = header[: header.rindex(b" ") + 1]
            version = header[len(prefix) : -1]
            if wire.startswith(prefix) and not wire.startswith(prefix + version) and len(wire) > len(prefix):
                end = wire.find(b"\n", 0, 64)
                found = wire[len(prefix) : end if end >= 0 else len(prefix) + 8]
                raise CompactError(
                    E.ENVELOPE,
                    f"unsupported {form} version {found.decode('utf-8', 'replace')!r}; "
                    f"this decoder reads {version.decode()}",
                    len(prefix),
                )
            expect(wire, 0, header, "header")
        self.fields = read_fields(wire, len(header))
        self.metadata = metadata_values(self.fields)

    def verify_digest(self) -> None:
        assert self.document is not None and self.metadata is not None  # set by the stages before this one
        check_digest(self.document, self.metadata[3], self.fields[3].value.start)

    def projection(self) -> CompactProjection:
        """For a reader whose stages all passed: the digest was verified and the
        document normalized, so the value is built without doing that again."""
        assert self.document is not None and self.metadata is not None  # every stage passed
        profile, root, revision, digest = self.metadata
        return CompactProjection._checked(profile, root, revision, self.document, digest)


def run(reader: Reader) -> Reader:
    """Every stage of ``reader``, in order; the first failure propagates."""
    for stage in reader.STAGES:
        getattr(reader, stage)()
    return reader
