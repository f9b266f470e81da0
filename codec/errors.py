"""The one exception type of the compact diagnostic family (docs/wire-format.md §10),
and the helpers that spell its messages.

Every decoder, verifier, negotiator and replay failure is a ``CompactError``, so a
caller needs one ``except`` clause and can rely on ``code`` staying stable across
versions while ``message`` is free to get better. How a message shows bytes and
states a limit lives here, next to the error, as tomli keeps position formatting
in its error type, so every diagnostic reads the same way.
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


def over_limit(subject: str, limit: int, offset: int | None = None) -> CompactError:
    """compact.limit with the one sentence every limit uses: ``<subject>; the
    limit is <N>`` (docs/wire-format.md §9)."""
    return CompactError(LIMIT, f"{subject}; the limit is {limit:,}", offset)


def excerpt(data: bytes, at: int = 0, width: int = 24) -> str:
    """A short, printable, quoted view of ``data`` from ``at`` for messages, with
    ``…`` when more follows, or ``end of input`` when nothing is left."""
    piece = bytes(data[at : at + width])
    if not piece:
        return "end of input"
    more = "…" if at + width < len(data) else ""
    return "'" + repr(piece)[2:-1] + more + "'"
