"""Tap sessions made by hand, as ``semaprax tap`` writes them (servers/tap.py)."""

from __future__ import annotations

import io
import json
import time
from typing import Any

from servers.tap import Recorder


def recorder() -> tuple[Recorder, io.StringIO]:
    """A Recorder writing into memory, and what it wrote."""
    out = io.StringIO()
    return Recorder(out, time.monotonic()), out


def records(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def session_lines(results: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[bytes]:
    """Session lines for (arguments, result) pairs of ``compact_projection`` calls."""
    lines = [b'{"semaprax_session":1,"command":["semaprax","mcp"],"started":"2026-12-04T00:00:00Z"}']
    for i, (arguments, result) in enumerate(results, 1):
        request = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                   "params": {"name": "compact_projection", "arguments": arguments}}
        lines.append(json.dumps({"dir": "c2s", "t": i, "bytes": 1, "message": request}).encode())
        lines.append(json.dumps({"dir": "s2c", "t": i + 0.5, "bytes": 1,
                                 "message": {"jsonrpc": "2.0", "id": i, "result": result}}).encode())
    return lines
