"""Frame types and their payload layouts."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum, IntFlag
from typing import ClassVar

from .errors import PayloadError


class FrameType(IntEnum):
    DATA = 0x01
    HEADERS = 0x02
    PING = 0x03
    CLOSE = 0x04


class Flags(IntFlag):
    NONE = 0
    END_STREAM = 0x01
    COMPRESSED = 0x02
    ACK = 0x04


FRAME_CLASSES: dict[FrameType, type[Frame]] = {}


@dataclass(frozen=True)
class Frame:
    """Common fields of every frame; subclasses define the payload layout."""

    frame_type: ClassVar[FrameType]
    stream_id: int

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        FRAME_CLASSES[cls.frame_type] = cls

    @property
    def flags(self) -> Flags:
        return Flags.NONE

    def encode_payload(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def decode_payload(cls, stream_id: int, flags: Flags, payload: bytes) -> Frame:
        raise NotImplementedError

    def describe(self) -> str:
        return f"{self.frame_type.name:<7} stream={self.stream_id}"


@dataclass(frozen=True)
class DataFrame(Frame):
    frame_type = FrameType.DATA
    data: bytes = b""
    end_stream: bool = False

    @property
    def flags(self) -> Flags:
        return Flags.END_STREAM if self.end_stream else Flags.NONE

    def encode_payload(self) -> bytes:
        return self.data

    @classmethod
    def decode_payload(cls, stream_id: int, flags: Flags, payload: bytes) -> DataFrame:
        return cls(stream_id, payload, bool(flags & Flags.END_STREAM))

    def describe(self) -> str:
        end = " END" if self.end_stream else ""
        return f"{super().describe()} {len(self.data)} bytes{end}"


_LENGTH = struct.Struct(">H")


def pack_string(text: str) -> bytes:
    raw = text.encode("utf-8")
    if len(raw) > 0xFFFF:
        raise PayloadError("string longer than 65535 bytes")
    return _LENGTH.pack(len(raw)) + raw


def unpack_string(payload: bytes, offset: int) -> tuple[str, int]:
    if offset + _LENGTH.size > len(payload):
        raise PayloadError("string length runs past the payload")
    (length,) = _LENGTH.unpack_from(payload, offset)
    start = offset + _LENGTH.size
    if start + length > len(payload):
        raise PayloadError("string runs past the payload")
    return payload[start:start + length].decode("utf-8"), start + length


@dataclass(frozen=True)
class HeadersFrame(Frame):
    frame_type = FrameType.HEADERS
    headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def encode_payload(self) -> bytes:
        parts = [_LENGTH.pack(len(self.headers))]
        for name, value in self.headers:
            parts += [pack_string(name), pack_string(value)]
        return b"".join(parts)

    @classmethod
    def decode_payload(cls, stream_id: int, flags: Flags, payload: bytes) -> HeadersFrame:
        (count,), offset = _LENGTH.unpack_from(payload, 0), _LENGTH.size
        headers = []
        for _ in range(count):
            name, offset = unpack_string(payload, offset)
            value, offset = unpack_string(payload, offset)
            headers.append((name, value))
        if offset != len(payload):
            raise PayloadError(f"{len(payload) - offset} trailing byte(s) after headers")
        return cls(stream_id, tuple(headers))

    def describe(self) -> str:
        pairs = ", ".join(f"{k}={v}" for k, v in self.headers)
        return f"{super().describe()} {{{pairs}}}"


@dataclass(frozen=True)
class PingFrame(Frame):
    frame_type = FrameType.PING
    opaque: int = 0
    ack: bool = False
    _layout: ClassVar[struct.Struct] = struct.Struct(">Q")

    @property
    def flags(self) -> Flags:
        return Flags.ACK if self.ack else Flags.NONE

    def encode_payload(self) -> bytes:
        return self._layout.pack(self.opaque)

    @classmethod
    def decode_payload(cls, stream_id: int, flags: Flags, payload: bytes) -> PingFrame:
        if len(payload) != cls._layout.size:
            raise PayloadError(f"PING payload must be 8 bytes, got {len(payload)}")
        (opaque,) = cls._layout.unpack(payload)
        return cls(stream_id, opaque, bool(flags & Flags.ACK))

    def reply(self) -> PingFrame:
        return PingFrame(self.stream_id, self.opaque, ack=True)

    def describe(self) -> str:
        return f"{super().describe()} opaque={self.opaque:#x}{' ACK' if self.ack else ''}"


@dataclass(frozen=True)
class CloseFrame(Frame):
    frame_type = FrameType.CLOSE
    code: int = 0
    reason: str = ""

    def encode_payload(self) -> bytes:
        return _LENGTH.pack(self.code) + pack_string(self.reason)

    @classmethod
    def decode_payload(cls, stream_id: int, flags: Flags, payload: bytes) -> CloseFrame:
        if len(payload) < _LENGTH.size:
            raise PayloadError("CLOSE payload too short")
        (code,) = _LENGTH.unpack_from(payload, 0)
        reason, _ = unpack_string(payload, _LENGTH.size)
        return cls(stream_id, code, reason)

    def describe(self) -> str:
        return f"{super().describe()} code={self.code} reason={self.reason!r}"
