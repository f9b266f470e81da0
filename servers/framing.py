"""What both servers do with a message before their protocol library sees it:
bound its size without holding an over-size message in memory, parse it, refuse
deep nesting, and say what is wrong with a message that is not a request, so that
every message gets an answer (an error for a bad one) and the server keeps serving.

The codes come from the one table (servers/failures.py)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, BinaryIO

from servers.failures import MAX_DEPTH, depth_exceeds, jsonrpc_code

#: How much of an over-size or unparsable message is kept to find its id.
HEAD_BYTES = 4096
_CHUNK = 1 << 16
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\\n]|\\.){0,256}")')


@dataclass(frozen=True)
class Oversize:
    """A message longer than the limit: its first bytes and its length."""

    head: bytes
    size: int


def read_line(stream: BinaryIO, limit: int) -> bytes | Oversize | None:
    """The next LF-terminated line (without its LF), ``Oversize`` when it is over
    ``limit`` bytes (read and dropped a chunk at a time), None at the end."""
    line = stream.readline(limit + 1)
    if not line:
        return None
    if line.endswith(b"\n"):
        return line[:-1]
    if len(line) <= limit:  # the input ended without a final LF
        return line
    head, size = line[:HEAD_BYTES], len(line)
    while True:
        more = stream.readline(_CHUNK)
        size += len(more)
        if not more or more.endswith(b"\n"):
            return Oversize(head, size - (1 if more.endswith(b"\n") else 0))


def skip(stream: BinaryIO, length: int) -> tuple[bytes, int]:
    """Read and drop ``length`` bytes a chunk at a time: (the first bytes, how many were read)."""
    head = b""
    got = 0
    while got < length:
        chunk = stream.read(min(_CHUNK, length - got))
        if not chunk:
            break
        if len(head) < HEAD_BYTES:
            head += chunk[:HEAD_BYTES - len(head)]
        got += len(chunk)
    return head, got


def guess_id(head: bytes) -> int | str | None:
    """The request id of a message that cannot be parsed whole, when its first
    bytes show one (JSON-RPC: null when it cannot be determined)."""
    if head.lstrip()[:1] != b"{":
        return None
    found = _ID.search(head)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def _guess_either_end(body: bytes) -> int | str | None:
    """The id shown near the start of a message, else near its end (an id
    written after a deep or broken part)."""
    found = guess_id(body[:HEAD_BYTES])
    if found is None and len(body) > HEAD_BYTES and body.lstrip()[:1] == b"{":
        tail = body[-HEAD_BYTES:]
        matches = list(_ID.finditer(tail))
        if matches:
            try:
                value = json.loads(matches[-1].group(1))
            except ValueError:
                value = None
            found = value if is_id(value) else None
    return found


def error(ident: Any, code: str, message: str) -> dict[str, Any]:
    """A JSON-RPC error response for failure class ``code``."""
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": jsonrpc_code(code), "message": message,
                                                     "data": {"code": code, "message": message}}}


def is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def too_large(over: Oversize | tuple[bytes, int], limit: int) -> dict[str, Any]:
    head, size = (over.head, over.size) if isinstance(over, Oversize) else over
    return error(guess_id(head), "semaprax.limit",
                 f"message of {size:,} bytes is over the server's --max-message-bytes {limit:,}; it was not read")


def parse(body: bytes) -> tuple[Any, dict[str, Any] | None]:
    """The message, or the error response that answers it: not UTF-8 or JSON
    (``jsonrpc.parse``), nested deeper than MAX_DEPTH (``semaprax.limit``), not
    a JSON-RPC 2.0 object (``jsonrpc.request``), params not an object
    (``semaprax.params``). A response with no id to answer is None."""
    try:
        data = json.loads(body)
    except RecursionError:
        return None, error(_guess_either_end(body), "semaprax.limit",
                           f"message is nested deeper than {MAX_DEPTH} levels")
    except (ValueError, UnicodeDecodeError) as exc:
        reason = str(exc)[:200]
        return None, error(_guess_either_end(body), "jsonrpc.parse", f"message is not JSON: {reason}")
    if depth_exceeds(data):
        ident = data.get("id") if isinstance(data, dict) else None
        return None, error(ident if is_id(ident) else None, "semaprax.limit",
                           f"message is nested deeper than {MAX_DEPTH} levels")
    if not isinstance(data, dict):
        return None, error(None, "jsonrpc.request",
                           "not a JSON-RPC 2.0 message: expected an object (batches are not supported)")
    ident = data.get("id")
    ident = ident if is_id(ident) else None
    if data.get("jsonrpc") != "2.0":
        return None, error(ident, "jsonrpc.request", 'not a JSON-RPC 2.0 message: "jsonrpc" must be "2.0"')
    if "method" in data:
        if not isinstance(data["method"], str):
            return None, error(ident, "jsonrpc.request", "method must be a string")
        if "result" in data or "error" in data:
            return None, error(ident, "jsonrpc.request", "a request has no result or error member")
        if "params" in data and not isinstance(data["params"], dict):
            kind = "an array" if isinstance(data["params"], list) else type(data["params"]).__name__
            if ident is None and "id" not in data:
                return None, None  # a notification is never answered
            return None, error(ident, "semaprax.params",
                               f"params of {data['method']!r} must be an object, not {kind}")
    return data, None
