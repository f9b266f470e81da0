"""Demonstration: ``python -m framepayload``."""

from __future__ import annotations

from . import codec
from .errors import FrameError
from .frames import CloseFrame, DataFrame, Frame, HeadersFrame, PingFrame
from .stream import MessageAssembler, StreamDecoder, iter_frames


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def sample_frames() -> list[Frame]:
    body = b"".join(b"line %03d of a repetitive log file\n" % i for i in range(40))
    return [
        HeadersFrame(1, (("content-type", "text/plain"), ("x-request", "42"))),
        DataFrame(1, body[:700]),
        PingFrame(0, 0xC0FFEE),
        DataFrame(1, body[700:], end_stream=True),
        HeadersFrame(3, (("content-type", "application/json"),)),
        DataFrame(3, b'{"ok": true}', end_stream=True),
        CloseFrame(0, 1000, "normal closure"),
    ]


def main() -> None:
    frames = sample_frames()
    wire = codec.encode_frames(frames)
    raw_size = sum(len(f.encode_payload()) for f in frames)
    print(f"encoded {len(frames)} frames: {len(wire)} bytes on the wire "
          f"({raw_size} payload bytes before compression)")

    decoder = StreamDecoder()
    assembler = MessageAssembler()
    for number, chunk in enumerate(chunked(wire, 97), start=1):
        for frame in decoder.feed(chunk):
            print(f"  chunk {number:2d}: {frame.describe()}")
            if isinstance(frame, PingFrame) and not frame.ack:
                print(f"            reply: {frame.reply().describe()}")
            message = assembler.add(frame)
            if message is not None:
                stream_id, data = message
                print(f"            stream {stream_id} complete: {len(data)} bytes, "
                      f"first line {data.splitlines()[0]!r}")
    decoder.close()
    print(f"decoded {decoder.frames_decoded} frames, {decoder.bytes_consumed} bytes, "
          f"round trip equal: {list(iter_frames(chunked(wire, 5))) == frames}")

    corrupted = bytearray(wire)
    corrupted[40] ^= 0xFF
    for label, data in [("corrupted byte 40", bytes(corrupted)),
                        ("cut off mid-frame", wire[:-3]),
                        ("garbage prefix", b"XX" + wire)]:
        try:
            list(iter_frames(chunked(data, 64)))
        except FrameError as exc:
            print(f"{label}: {type(exc).__name__}: {exc}")


if __name__ == "__main__":
    main()
