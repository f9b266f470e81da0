"""Exceptions raised while encoding or decoding frames."""

from __future__ import annotations


class FrameError(Exception):
    """Base class for every framing error."""


class BadMagicError(FrameError):
    def __init__(self, found: bytes) -> None:
        super().__init__(f"bad magic {found!r}; not a frame boundary")
        self.found = found


class UnsupportedVersionError(FrameError):
    def __init__(self, version: int) -> None:
        super().__init__(f"unsupported protocol version {version}")
        self.version = version


class TruncatedFrameError(FrameError):
    """The buffer ends before the frame does; ``needed`` more bytes are required."""

    def __init__(self, needed: int) -> None:
        super().__init__(f"frame truncated: {needed} more byte(s) needed")
        self.needed = needed


class ChecksumError(FrameError):
    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"CRC32 mismatch: trailer has {expected:#010x}, "
                         f"computed {actual:#010x}")
        self.expected = expected
        self.actual = actual


class FrameTooLargeError(FrameError):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"payload of {size} bytes exceeds the {limit}-byte limit")
        self.size = size
        self.limit = limit


class PayloadError(FrameError):
    """A frame's payload does not match the layout its type requires."""
