"""``semaprax tap --listen HOST:PORT --upstream URL``: the tap for MCP's
Streamable HTTP transport.

The tap listens on HOST:PORT and forwards each request to the upstream server
(a request to ``/`` goes to URL itself, any other path to that path on URL's
origin), streaming the answer back chunk by chunk as it arrives, so Server-Sent
Event streams pass through as they are written. Headers pass unchanged except
the hop-by-hop ones, ``Host`` (the upstream's own) and ``Accept-Encoding``
(the tap asks for the body as it is, so it can read the messages; the client
receives the same bytes it would have without compression).

What it records is the session file of the stdio tap (servers/tap.py): one
JSON line per JSON-RPC message, ``c2s`` from a request's body (a batch gives one
record per message) and ``s2c`` from a JSON answer or from each ``data`` of an
event stream, with ``bytes`` the message's size as it travelled (the body, or
the event's data). A message over ``MAX_RECORDED_BYTES`` is recorded by its size
and head, so memory stays bounded.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from servers.tap import MAX_RECORDED_BYTES, TRUNCATED_HEAD, Recorder

__all__ = ["SseSplitter", "TapApp", "run_http_tap"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: Headers that belong to one connection, not to the message (RFC 9110 §7.6.1).
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
                        "trailer", "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding"})


class SseSplitter:
    """Cuts a ``text/event-stream`` body into events and records each event's
    data (one JSON-RPC message) as it completes."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self._buffer = b""
        self._data: list[bytes] = []
        self._size = 0

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        while True:
            cut = self._buffer.find(b"\n")
            if cut < 0:
                if len(self._buffer) > MAX_RECORDED_BYTES:  # one endless line: keep its size only
                    self._size += len(self._buffer)
                    self._buffer = b""
                return
            line, self._buffer = self._buffer[:cut].rstrip(b"\r"), self._buffer[cut + 1:]
            self._line(line)

    def _line(self, line: bytes) -> None:
        if not line:  # a blank line ends the event
            self._dispatch()
        elif line.startswith(b"data:"):
            value = line[5:][1:] if line[5:6] == b" " else line[5:]
            self._size += len(value) + (1 if self._data else 0)
            if self._size <= MAX_RECORDED_BYTES:
                self._data.append(value)

    def _dispatch(self) -> None:
        if self._data or self._size:
            data = b"\n".join(self._data)
            if self._size > MAX_RECORDED_BYTES:
                self.recorder.message("s2c", data[:TRUNCATED_HEAD], self._size, truncated=True)
            elif data.strip():
                self.recorder.message("s2c", data, self._size)
        self._data, self._size = [], 0

    def finish(self) -> None:
        self._dispatch()


def _record_body(recorder: Recorder, direction: str, body: bytes) -> None:
    """A JSON body: one message, or a batch recorded message by message."""
    if not body.strip():
        return
    if len(body) > MAX_RECORDED_BYTES:
        recorder.message(direction, body[:TRUNCATED_HEAD], len(body), truncated=True)
        return
    try:
        value = json.loads(body)
    except ValueError:
        recorder.message(direction, body, len(body))
        return
    if isinstance(value, list):
        for item in value:
            text = json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()
            recorder.message(direction, text, len(text))
    else:
        recorder.message(direction, body, len(body))


class TapApp:
    """The ASGI application that forwards to ``upstream`` and records."""

    def __init__(self, upstream: str, recorder: Recorder, *, max_body: int = MAX_RECORDED_BYTES) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"--upstream must be an http:// or https:// URL, not {upstream!r}")
        self.upstream = upstream
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.recorder = recorder
        self.max_body = max_body
        self._client: Any = None

    def target(self, path: str, query: bytes) -> str:
        url = self.upstream if path in ("", "/") else self.origin + path
        return url + ("?" + query.decode("latin-1") if query else "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if len(body) > self.max_body:
                await _plain(send, 413, f"the request is over the tap's {self.max_body:,}-byte limit")
                return
            if not event.get("more_body"):
                break
        if scope["method"] == "POST":
            _record_body(self.recorder, "c2s", body)
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]
                   if k.decode("latin-1").lower() not in HOP_BY_HOP]
        headers.append(("accept-encoding", "identity"))
        client = await self._http()
        request = client.build_request(scope["method"], self.target(scope["path"], scope.get("query_string", b"")),
                                       headers=headers, content=body)
        try:
            response = await client.send(request, stream=True)
        except Exception as exc:  # noqa: BLE001 - any failure to reach the upstream is the client's 502
            await _plain(send, 502, f"the tap could not reach {self.upstream}: {exc}")
            return
        try:
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.multi_items()
                                    if k.lower() not in HOP_BY_HOP | {"content-encoding"}]})
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            events = SseSplitter(self.recorder) if kind == "text/event-stream" else None
            held: list[bytes] = []
            size = 0
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if events is not None:
                    events.feed(chunk)
                elif kind == "application/json":
                    size += len(chunk)
                    if size <= MAX_RECORDED_BYTES:
                        held.append(chunk)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            if events is not None:
                events.finish()
            elif kind == "application/json" and size > MAX_RECORDED_BYTES:
                self.recorder.message("s2c", b"".join(held)[:TRUNCATED_HEAD], size, truncated=True)
            elif kind == "application/json":
                _record_body(self.recorder, "s2c", b"".join(held))
        finally:
            await response.aclose()

    async def _http(self) -> Any:
        if self._client is None:
            import httpx2

            self._client = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=None))
        return self._client

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _plain(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": text.encode()})


def parse_listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--listen takes HOST:PORT (for example 127.0.0.1:8765), not {value!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def run_http_tap(session: str, listen: str, upstream: str) -> int:
    """Serve the tap until interrupted; 0 on a clean stop."""
    import uvicorn

    try:
        host, port = parse_listen(listen)
        start = time.monotonic()
        out = open(session, "a", encoding="utf-8")  # noqa: SIM115 - held for the whole run
    except ValueError as exc:
        print(f"semaprax tap: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"semaprax tap: cannot open the session file {session!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    with out:
        recorder = Recorder(out, start)
        try:
            app = TapApp(upstream, recorder)
        except ValueError as exc:
            print(f"semaprax tap: {exc}", file=sys.stderr)
            return 2
        recorder.header(["--upstream", upstream])
        print(f"semaprax tap: listening on http://{host}:{port}/ for {upstream}; recording to {session}",
              file=sys.stderr)
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))
        server.run()
        return 0 if server.started else 1
