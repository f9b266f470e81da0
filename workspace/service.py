"""The ``workspace/compact-projection`` route (spec section 10), shared by the
JSON-RPC server (``semaprax serve``) and the MCP tool (``semaprax mcp``).

A request names a profile and a root and either an ``encoding`` (with an optional
``format_version``) or a list of ``accept`` offers; negotiation picks the exact
triple, the producer makes the view, and the response carries the wire and its
metadata. Failures are diagnostics, never a fallback to another offer."""

from __future__ import annotations

import base64
import json
import os
import sys
from typing import Any, BinaryIO

import codec
from codec import CompactError
from codec.negotiate import negotiate

from .route import make_projection
from .sources import WorkspaceError

METHOD = "workspace/compact-projection"

# JSON-RPC 2.0 error codes
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
PARSE_ERROR = -32700
#: Server-defined: a compact diagnostic; ``data`` holds code, message and offset.
COMPACT_DIAGNOSTIC = -32001
#: Server-defined: the workspace cannot answer (a root or symbol not found).
WORKSPACE_ERROR = -32002
INTERNAL_ERROR = -32603
#: The largest message accepted: a 16 MiB wire, base64, with room for the rest.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024


class RouteError(Exception):
    """A request the route refuses, with the JSON-RPC error it becomes."""

    def __init__(self, code: int, message: str, data: Any = None, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.fatal = fatal  # the stream's framing is lost: nothing after it can be read

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def compact_projection(params: dict[str, Any], workspace: str | os.PathLike[str] = ".") -> dict[str, Any]:
    """Answer one compact-projection request."""
    if not isinstance(params, dict):
        raise RouteError(INVALID_PARAMS, "params must be an object")
    profile, root = params.get("profile"), params.get("root")
    if not isinstance(profile, str) or not isinstance(root, str) or not root:
        raise RouteError(INVALID_PARAMS, "params need a profile and a root (strings)")
    try:
        version, encoding = negotiate(
            profile,
            encoding=params.get("encoding"),
            format_version=params.get("format_version"),
            accept=params.get("accept"),
        )
        p = make_projection(profile, root, workspace)
        wire = codec.ENCODERS[encoding](p)
    except CompactError as exc:
        raise RouteError(COMPACT_DIAGNOSTIC, str(exc),
                         {"code": exc.code, "message": exc.message, "offset": exc.offset}) from None
    except WorkspaceError as exc:
        raise RouteError(WORKSPACE_ERROR, str(exc)) from None
    if encoding == "binary":
        text, transfer = base64.b64encode(wire).decode("ascii"), "base64"
    else:
        text, transfer = wire.decode("utf-8"), "text"
    return {
        "format_version": version,
        "encoding": encoding,
        "profile": p.profile,
        "root": p.root,
        "source_revision": p.source_revision,
        "source_digest": p.source_digest,
        "wire": text,
        "wire_transfer": transfer,
        "wire_bytes": len(wire),
    }


def handle(message: Any, workspace: str | os.PathLike[str] = ".") -> dict[str, Any] | None:
    """One JSON-RPC 2.0 message in, its response out (None for a notification)."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "method" not in message:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "not a JSON-RPC 2.0 request"}}
    ident = message.get("id")
    method = message["method"]
    try:
        if method == METHOD:
            result: Any = compact_projection(message.get("params") or {}, workspace)
        elif method in ("shutdown", "initialize"):
            result = {"capabilities": {"compactProjection": True}} if method == "initialize" else None
        else:
            raise RouteError(METHOD_NOT_FOUND, f"unknown method {method!r}")
    except RouteError as exc:
        return None if ident is None else {"jsonrpc": "2.0", "id": ident, "error": exc.to_json()}
    except Exception as exc:  # noqa: BLE001 - one bad request must not end the server
        error = {"code": INTERNAL_ERROR, "message": f"internal error: {type(exc).__name__}: {exc}"}
        return None if ident is None else {"jsonrpc": "2.0", "id": ident, "error": error}
    return None if ident is None else {"jsonrpc": "2.0", "id": ident, "result": result}


def read_message(stream: BinaryIO) -> Any | None:
    """One message framed as in the Language Server Protocol: headers, a blank
    line, then Content-Length bytes of JSON. None at the end of the stream."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise RouteError(PARSE_ERROR, f"Content-Length is not a number: {value.strip()[:40]!r}",
                                 fatal=True) from None
    if length is None:
        raise RouteError(PARSE_ERROR, "message without Content-Length", fatal=True)
    if not 0 <= length <= MAX_MESSAGE_BYTES:
        raise RouteError(PARSE_ERROR, f"Content-Length {length} is outside 0..{MAX_MESSAGE_BYTES}", fatal=True)
    body = stream.read(length)
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RouteError(PARSE_ERROR, f"message is not JSON: {exc}") from None


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def serve(workspace: str | os.PathLike[str] = ".", stdin: BinaryIO | None = None,
          stdout: BinaryIO | None = None) -> int:
    """Answer framed JSON-RPC requests on standard input until it ends or an
    ``exit`` notification arrives."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    while True:
        try:
            message = read_message(stdin)
        except RouteError as exc:
            write_message(stdout, {"jsonrpc": "2.0", "id": None, "error": exc.to_json()})
            if exc.fatal:
                print(f"semaprax serve: {exc.message}; stopping", file=sys.stderr)
                return 1
            continue
        if message is None or (isinstance(message, dict) and message.get("method") == "exit"):
            return 0
        response = handle(message, workspace)
        if response is not None:
            write_message(stdout, response)
