"""The one exception type of the compact diagnostic family (spec section 11).

Every decoder, verifier, negotiator and replay failure is a ``CompactError``, so a
caller needs one ``except`` clause and can rely on ``code`` staying stable across
versions while ``message`` is free to get better.
"""

from __future__ import annotations

ENVELOPE = "compact.envelope"
METADATA = "compact.metadata"
LIMIT = "compact.limit"
DICTIONARY = "compact.dictionary"
REFERENCE = "compact.reference"
DIGEST = "compact.digest"
JSON = "compact.json"
NONCANONICAL = "compact.noncanonical"
BINDING = "compact.binding"
NEGOTIATION = "compact.negotiation"
REPLAY = "compact.replay"

CODES: tuple[str, ...] = (
    ENVELOPE,
    METADATA,
    LIMIT,
    DICTIONARY,
    REFERENCE,
    DIGEST,
    JSON,
    NONCANONICAL,
    BINDING,
    NEGOTIATION,
    REPLAY,
)


class CompactError(Exception):
    """A compact diagnostic: a stable code, a message a person can act on, and the
    byte offset in the input where the problem was found (None when it has no place,
    such as a binding mismatch)."""

    def __init__(self, code: str, message: str, offset: int | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unknown compact diagnostic code {code!r}")
        super().__init__(code, message, offset)
        self.code = code
        self.message = message
        self.offset = offset

    def __str__(self) -> str:
        where = "" if self.offset is None else f" at byte {self.offset}"
        return f"{self.code}{where}: {self.message}"

    def __repr__(self) -> str:
        return f"CompactError({self.code!r}, {self.message!r}, {self.offset!r})"

    def shifted(self, delta: int) -> CompactError:
        """The same diagnostic with its offset moved, for errors found in a slice
        of the wire (a body, a field) that must be reported in wire coordinates."""
        offset = None if self.offset is None else self.offset + delta
        return CompactError(self.code, self.message, offset)
