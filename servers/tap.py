"""``semaprax tap``: a stdio MCP proxy that records what passes.

An agent's client is configured with the tap as its server command; the tap
starts the real server and forwards every byte both ways unchanged, as soon as
it is read (nothing is parsed before it is forwarded, so the tap adds no
framing delay and cannot change a byte). Beside the forwarding, each direction
cuts its stream at line feeds (MCP's stdio transport is one JSON-RPC message a
line) and appends one JSON line per message to the session file:

    {"semaprax_session": 1, "command": [...], "started": "2026-12-04T12:00:00Z"}
    {"dir": "c2s", "t": 0.0123, "bytes": 187, "message": {...}}
    {"dir": "s2c", "t": 0.0456, "bytes": 9120, "message": {...}}

``dir`` is ``c2s`` (client to server) or ``s2c``; ``t`` is seconds on the
monotonic clock since the tap started, when the message's last bytes were read
(each direction records after forwarding, so the two directions' lines can
reach the file slightly out of the order they passed: a quick response just
before its request; ``t`` keeps the true order, and servers/session.py pairs
them either way); ``bytes`` is the message's size on the transport, its line
feed excluded. A line that is not JSON is kept as ``raw``
text; a line longer than ``MAX_RECORDED_BYTES`` is recorded by its size and
first bytes only (``truncated``), so the tap's memory stays bounded whatever
passes. Each record is written and flushed on its own, so a crash of either
side loses nothing that had passed.

The tap exits with the server's status (128 + N for a server killed by signal
N, as a shell reports it), and passes SIGINT, SIGTERM and SIGHUP on to the
server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["MAX_RECORDED_BYTES", "SESSION_VERSION", "Recorder", "run_tap"]

SESSION_VERSION = 1
#: A message longer than this is recorded by its size and first bytes only.
MAX_RECORDED_BYTES = 64 * 1024 * 1024
#: How much of an over-long message's start the record keeps.
TRUNCATED_HEAD = 4096
CHUNK = 65536
DIRECTIONS = ("c2s", "s2c")


class Recorder:
    """Appends session records to a file, one JSON line each, flushed at once;
    shared by the two forwarding threads."""

    def __init__(self, out: IO[str], start: float) -> None:
        self._out = out
        self._start = start
        self._lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        """No more records: a thread still reading a side that outlived the run writes nothing."""
        with self._lock:
            self._closed = True

    def header(self, command: Sequence[str]) -> None:
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._write({"semaprax_session": SESSION_VERSION, "command": list(command), "started": started})

    def message(self, direction: str, line: bytes, size: int, *, truncated: bool = False,
                at: float | None = None) -> None:
        """One message of ``size`` bytes (``line`` is all of it, or its head
        when ``truncated``), read by the tap at monotonic time ``at`` (default:
        now). A pump records a chunk after forwarding it, so the two directions'
        records may reach the file out of the order they passed; ``t`` is when
        the message passed, so it is causal even then (a response's ``t`` is
        never before its request's)."""
        passed = time.monotonic() if at is None else at
        record: dict[str, Any] = {"dir": direction, "t": round(passed - self._start, 6), "bytes": size}
        if truncated:
            record["truncated"] = True
            record["raw"] = line.decode("utf-8", "backslashreplace")
        else:
            try:
                record["message"] = json.loads(line)
            except ValueError:
                record["raw"] = line.decode("utf-8", "backslashreplace")
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            if self._closed:
                return
            self._out.write(text)
            self._out.flush()


@dataclass
class _Splitter:
    """Cuts one direction's byte stream into messages at line feeds, keeping at
    most ``MAX_RECORDED_BYTES`` of a message in memory."""

    recorder: Recorder
    direction: str
    limit: int = MAX_RECORDED_BYTES

    def __post_init__(self) -> None:
        self._parts: list[bytes] = []
        self._held = 0
        self._size = 0
        self._at: float | None = None

    def feed(self, chunk: bytes, at: float | None = None) -> None:
        """The next bytes of the stream, read at monotonic time ``at``: a
        message is stamped with the time its last chunk was read."""
        self._at = at
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._hold(chunk[start:])
                return
            self._hold(chunk[start:end])
            self._emit()
            start = end + 1

    def finish(self) -> None:
        """The stream ended: a last message without its line feed still counts."""
        if self._size:
            self._emit()

    def _hold(self, piece: bytes) -> None:
        self._size += len(piece)
        room = self.limit - self._held
        if room > 0 and piece:
            kept = piece[:room]
            self._parts.append(kept)
            self._held += len(kept)

    def _emit(self) -> None:
        line = b"".join(self._parts)
        size = self._size
        self._parts, self._held, self._size = [], 0, 0
        line = line.rstrip(b"\r") if size == len(line) else line
        if size > self.limit:
            self.recorder.message(self.direction, line[:TRUNCATED_HEAD], size, truncated=True, at=self._at)
        elif line.strip():
            self.recorder.message(self.direction, line, size, at=self._at)


def _pump(source: int, sink: IO[bytes] | int, splitter: _Splitter, busy: threading.Lock) -> None:
    """Forward ``source`` to ``sink`` chunk by chunk until end of file, then
    close ``sink``; each chunk is forwarded before it is recorded. ``busy`` is
    held from forwarding a chunk to recording it, so the run can wait for a
    chunk in flight before it ends."""
    try:
        while True:
            try:
                chunk = os.read(source, CHUNK)
            except OSError:
                break
            if not chunk:
                break
            at = time.monotonic()
            with busy:
                try:
                    if isinstance(sink, int):
                        _write_all(sink, chunk)
                    else:
                        sink.write(chunk)
                        sink.flush()
                except OSError:  # the other side is gone; what was read still passed this far
                    splitter.feed(chunk, at)
                    break
                splitter.feed(chunk, at)
    finally:
        splitter.finish()
        try:
            if isinstance(sink, int):
                os.close(sink)
            else:
                sink.close()
        except OSError:
            pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def run_tap(session: str, command: Sequence[str], *, stdin: int = 0, stdout: int = 1) -> int:
    """Run ``command`` as the server behind the tap; return its exit status."""
    start = time.monotonic()
    try:
        out = open(session, "a", encoding="utf-8")  # noqa: SIM115 - held for the whole run
    except OSError as exc:
        print(f"semaprax tap: cannot open the session file {session!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    with out:
        recorder = Recorder(out, start)
        try:
            server = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        except OSError as exc:
            print(f"semaprax tap: cannot start {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
            return 127 if isinstance(exc, FileNotFoundError) else 126
        recorder.header(command)
        previous = {}
        for signum in PASSED_ON:
            previous[signum] = signal.signal(signum, lambda n, _f: _pass_on(server, n))
        assert server.stdin is not None and server.stdout is not None
        up_busy = threading.Lock()
        up = threading.Thread(target=_pump, args=(stdin, server.stdin, _Splitter(recorder, "c2s"), up_busy),
                              daemon=True)
        down = threading.Thread(target=_pump, args=(server.stdout.fileno(), os.dup(stdout),
                                                    _Splitter(recorder, "s2c"), threading.Lock()), daemon=True)
        # The pumps start with the signals blocked (a thread takes its creator's mask), so the
        # kernel gives them to this thread: one delivered to a pump left this thread asleep in
        # wait(), the handler never ran, and the server never got the signal (a clean run's
        # test_signals_are_passed_on_to_the_server waited 30 s for it).
        signal.pthread_sigmask(signal.SIG_BLOCK, PASSED_ON)
        try:
            up.start()
            down.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, PASSED_ON)
        try:
            status = server.wait()
            down.join()  # everything the server wrote has been forwarded and recorded
            with up_busy:  # and what the client sent that reached the server is recorded too
                recorder.close()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        # The client's side may still be open; nothing more can reach a server that ended.
        return status if status >= 0 else 128 - status


#: The signals the tap passes on to the server.
PASSED_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _pass_on(server: subprocess.Popen[bytes], signum: int) -> None:
    try:
        server.send_signal(signum)
    except OSError:
        pass
