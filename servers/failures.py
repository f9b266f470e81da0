"""One table from failure class to JSON-RPC error code, for ``semaprax serve``,
``semaprax mcp`` and the docs (README, "Failures").

Every failure a server reports carries a stable ``code`` string in its data (a
``compact.*`` diagnostic, docs/wire-format.md §10, or a ``semaprax.*`` /
``jsonrpc.*`` class) and exactly one JSON-RPC code, looked up here: the LSP
answers with it as the error's ``code``; the MCP server uses it for protocol
errors and puts it in a failed tool result's ``_meta`` (a tool failure is a
result with ``isError``, as MCP asks, not a protocol error).
"""

from __future__ import annotations

from collections.abc import Mapping

#: failure class -> (JSON-RPC code, what it means). ``compact.*`` classes not
#: listed here are compact diagnostics (-32001).
FAILURES: Mapping[str, tuple[int, str]] = {
    "jsonrpc.parse": (-32700, "the message is not JSON (or not UTF-8)"),
    "jsonrpc.request": (-32600, "the message is not a JSON-RPC 2.0 request or notification"),
    "jsonrpc.method": (-32601, "no such method"),
    "semaprax.params": (-32602, "a parameter has the wrong name, type or shape (params must be an object)"),
    "compact.negotiation": (-32602, "no supported (format_version, encoding, profile) triple was asked for"),
    "semaprax.internal": (-32603, "a bug in the server; the server goes on"),
    "compact.*": (-32001, "the view cannot be made or encoded (a compact diagnostic, wire-format §10)"),
    "semaprax.workspace": (-32002, "no usable workspace, or the root is not in it (close matches given)"),
    "semaprax.budget": (-32003, "the view is over max_tokens (narrower roots given)"),
    "semaprax.limit": (-32004, "the message is over --max-message-bytes or nested deeper than the limit"),
    "semaprax.cancelled": (-32800, "the client cancelled the request"),
}

#: Nesting deeper than this in a message is refused (semaprax.limit) before
#: anything walks it recursively; real requests nest fewer than 10 levels.
MAX_DEPTH = 64
#: The default of both servers' ``--max-message-bytes``: a bigger message is
#: skipped without being held in memory and answered with semaprax.limit.
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
#: The default of ``semaprax mcp --roots-timeout``: how long the client has to
#: answer roots/list before a call fails with semaprax.workspace.
ROOTS_TIMEOUT = 3.0


def jsonrpc_code(code: str) -> int:
    """The JSON-RPC error code of a failure class."""
    if code in FAILURES:
        return FAILURES[code][0]
    if code.startswith("compact."):
        return FAILURES["compact.*"][0]
    return FAILURES["semaprax.internal"][0]


def depth_exceeds(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays/objects deeper than ``limit``;
    iterative, so a deep value cannot exhaust the stack here."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def table_markdown() -> str:
    """The table as the README shows it."""
    rows = ["| failure class (`data.code`) | JSON-RPC code | meaning |", "|---|---|---|"]
    rows += [f"| `{name}` | {code} | {meaning} |" for name, (code, meaning) in FAILURES.items()]
    return "\n".join(rows)
