"""Length-prefixed, CRC-checked binary frames, with an incremental decoder."""

from .codec import decode_frame, encode_frame, encode_frames
from .errors import ChecksumError, FrameError, PayloadError, TruncatedFrameError
from .frames import CloseFrame, DataFrame, Flags, Frame, FrameType, HeadersFrame, PingFrame
from .stream import MessageAssembler, StreamDecoder, iter_frames

__all__ = [
    "ChecksumError", "CloseFrame", "DataFrame", "Flags", "Frame", "FrameError", "FrameType",
    "HeadersFrame", "MessageAssembler", "PayloadError", "PingFrame", "StreamDecoder",
    "TruncatedFrameError", "decode_frame", "encode_frame", "encode_frames",
    "iter_frames",
]
