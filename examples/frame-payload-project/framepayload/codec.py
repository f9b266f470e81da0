"""Binary encoding of frames.

Wire layout (big-endian)::

    magic     2 bytes  b"FP"
    version   1 byte
    type      1 byte   FrameType
    flags     1 byte   Flags
    stream    2 bytes
    length    4 bytes  payload length
    payload   length bytes (zlib-compressed when Flags.COMPRESSED is set)
    crc32     4 bytes  over header and payload
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

from . import frames
from .errors import (BadMagicError, ChecksumError, FrameTooLargeError, PayloadError,
                     TruncatedFrameError, UnsupportedVersionError)
from .frames import Flags, Frame, FrameType

MAGIC = b"FP"
VERSION = 1
HEADER = struct.Struct(">2sBBBHI")
TRAILER = struct.Struct(">I")
MAX_PAYLOAD = 1 << 20
COMPRESS_THRESHOLD = 256


def encode_frame(frame: Frame, *, compress: bool = True) -> bytes:
    """Serialise ``frame``; payloads above the threshold may be compressed."""
    payload = frame.encode_payload()
    flags = frame.flags
    if compress and len(payload) >= COMPRESS_THRESHOLD:
        packed = zlib.compress(payload, 9)
        if len(packed) < len(payload):
            payload, flags = packed, flags | Flags.COMPRESSED
    if len(payload) > MAX_PAYLOAD:
        raise FrameTooLargeError(len(payload), MAX_PAYLOAD)
    header = HEADER.pack(MAGIC, VERSION, frame.frame_type, flags, frame.stream_id,
                         len(payload))
    return header + payload + TRAILER.pack(zlib.crc32(payload, zlib.crc32(header)))


def encode_frames(items: Iterable[Frame], *, compress: bool = True) -> bytes:
    return b"".join(encode_frame(frame, compress=compress) for frame in items)


def frame_size(buffer: bytes | bytearray, offset: int = 0) -> int:
    """Total size of the frame starting at ``offset``, validating only its header."""
    available = len(buffer) - offset
    if available < HEADER.size:
        raise TruncatedFrameError(HEADER.size - available)
    magic, version, _type, _flags, _stream, length = HEADER.unpack_from(buffer, offset)
    if magic != MAGIC:
        raise BadMagicError(bytes(magic))
    if version != VERSION:
        raise UnsupportedVersionError(version)
    if length > MAX_PAYLOAD:
        raise FrameTooLargeError(length, MAX_PAYLOAD)
    return HEADER.size + length + TRAILER.size


def decode_frame(buffer: bytes | bytearray, offset: int = 0) -> tuple[Frame, int]:
    """Decode one frame at ``offset``; return it with the number of bytes consumed."""
    size = frame_size(buffer, offset)
    if len(buffer) - offset < size:
        raise TruncatedFrameError(size - (len(buffer) - offset))
    view = memoryview(buffer)[offset:offset + size]
    _magic, _version, type_code, flag_bits, stream_id, length = HEADER.unpack_from(view)
    payload = bytes(view[HEADER.size:HEADER.size + length])
    (expected,) = TRAILER.unpack_from(view, HEADER.size + length)
    actual = zlib.crc32(payload, zlib.crc32(view[:HEADER.size]))
    if expected != actual:
        raise ChecksumError(expected, actual)
    try:
        frame_class = frames.FRAME_CLASSES[FrameType(type_code)]
    except ValueError:
        raise PayloadError(f"unknown frame type {type_code:#04x}") from None
    flags = Flags(flag_bits)
    if flags & Flags.COMPRESSED:
        try:
            payload = zlib.decompress(payload)
        except zlib.error as exc:
            raise PayloadError(f"cannot decompress payload: {exc}") from None
    return frame_class.decode_payload(stream_id, flags, payload), size

