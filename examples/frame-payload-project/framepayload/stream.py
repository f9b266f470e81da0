"""Incremental decoding of frames arriving in arbitrary chunks."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from .codec import decode_frame, frame_size
from .errors import FrameError, TruncatedFrameError
from .frames import DataFrame, Frame


class StreamDecoder:
    """Buffers bytes and yields every complete frame as soon as it arrives."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.frames_decoded = 0
        self.bytes_consumed = 0

    def feed(self, chunk: bytes) -> list[Frame]:
        self._buffer += chunk
        ready: list[Frame] = []
        while True:
            try:
                size = frame_size(self._buffer)
            except TruncatedFrameError:
                break
            if len(self._buffer) < size:
                break
            frame, consumed = decode_frame(self._buffer)
            del self._buffer[:consumed]
            self.frames_decoded += 1
            self.bytes_consumed += consumed
            ready.append(frame)
        return ready

    def close(self) -> None:
        """Signal end of input; leftover bytes mean the peer sent a partial frame."""
        if self._buffer:
            raise FrameError(f"stream ended inside a frame ({len(self._buffer)} bytes left)")


def iter_frames(chunks: Iterable[bytes]) -> Iterator[Frame]:
    decoder = StreamDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    decoder.close()


class MessageAssembler:
    """Joins DATA frames per stream until one carries END_STREAM."""

    def __init__(self) -> None:
        self._parts: defaultdict[int, list[bytes]] = defaultdict(list)

    def add(self, frame: Frame) -> tuple[int, bytes] | None:
        if not isinstance(frame, DataFrame):
            return None
        self._parts[frame.stream_id].append(frame.data)
        if not frame.end_stream:
            return None
        return frame.stream_id, b"".join(self._parts.pop(frame.stream_id))
