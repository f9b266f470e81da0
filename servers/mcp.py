"""``semaprax mcp``: an MCP server (stdio) whose tools adapt the compact-projection
route (servers/route.py) for a model to read.

What reaches the model is the result's text content: agent clients (Claude Code,
Codex, VS Code, Copilot CLI, opencode) hand the model ``structuredContent`` when a
result has it and the text blocks otherwise, so no tool declares an
``outputSchema`` and no result carries ``structuredContent``. A success is one
text block that is exactly the wire (binary: its base64); a failure is
``isError`` with one short text block a model can act on (code, message, close
matches or narrower roots, the fix). What programs need (form, format_version,
the four metadata values, byte length, token counts, auto's reasoning) is in the
result's ``_meta`` under ``semaprax/projection`` (failures: ``semaprax/error``),
which clients do not show to models.

``encoding`` defaults to ``auto``: the text form with the fewest o200k_base
tokens. ``max_tokens`` (default: ``MAX_MCP_OUTPUT_TOKENS`` from the environment,
else 25,000) refuses an oversized view naming narrower roots, never a truncated
wire. The tool declares ``anthropic/maxResultSizeChars`` in its ``_meta`` in
``tools/list``, sized to the default budget, so a default result reaches the
model inline. ``find_roots`` lists the roots a profile takes here, with their sizes.

The workspace is ``--workspace``, else the client's first root (MCP roots/list,
asked with a short timeout); with neither, a call fails naming ``--workspace``
(the folder the server was started in is never indexed silently).

The transport is the SDK's stdio server fed by a bounded reader
(servers/framing.py): a line over ``--max-message-bytes`` is dropped unread and
answered ``semaprax.limit``; a line that is not JSON, nests too deep, is not a
JSON-RPC object or has non-object params is answered with its error from
servers/failures.py; the server goes on. Long calls report MCP progress when the
client sends a ``progressToken`` and stop at the next stage when cancelled."""

from __future__ import annotations

import difflib
import os
import sys
import threading
import warnings
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import anyio
import mcp_types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import WithJsonSchema

import codec
from analysis.sources import is_utf8, spelled, unnameable
from analysis.warm import IndexCache
from servers import framing, route
from servers.failures import DEFAULT_MAX_MESSAGE_BYTES, ROOTS_TIMEOUT, jsonrpc_code
from servers.lsp import folder_of_uri, package_version
from servers.roots import ROOT_KINDS, SYMBOL_PROFILES
from servers.route import RouteError
from views.legend import COMMON, LEGENDS, PARTIAL

TOOL_NAME = "compact_projection"
FIND_ROOTS = "find_roots"


def default_max_tokens(environ: dict[str, str] | None = None) -> int:
    """``MAX_MCP_OUTPUT_TOKENS`` when it is a positive integer, else route.DEFAULT_MAX_TOKENS (20,000)."""
    raw = (os.environ if environ is None else environ).get("MAX_MCP_OUTPUT_TOKENS", "")
    try:
        value = int(raw)
    except ValueError:
        return route.DEFAULT_MAX_TOKENS
    return value if value > 0 else route.DEFAULT_MAX_TOKENS


def _schema(schema: dict[str, Any]) -> Any:
    """A parameter the route validates (one error shape for every server); the
    schema documents it for the client."""
    return WithJsonSchema(schema)


_PROFILE_DOC = "Which view to make. Roots by profile: " + "; ".join(f"{p}: {k}" for p, k in ROOT_KINDS.items())
_OFFER = {
    "type": "object",
    "properties": {
        "format_version": {"type": "integer", "enum": [1, 2]},
        "encoding": {"type": "string", "enum": ["binary", "text", "model-text"]},
        "profile": {"type": "string", "enum": list(codec.PROFILES)},
    },
    "required": ["format_version", "encoding", "profile"],
    "additionalProperties": False,
}

Profile = Annotated[Any, _schema({"type": "string", "enum": list(codec.PROFILES), "description": _PROFILE_DOC})]
RootParam = Annotated[Any, _schema({
    "type": "string",
    "description": "What to view, relative to the workspace: a .py file (graph, symbols, diagnostics), a "
    "package folder or '.' (symbols), a manifest such as pyproject.toml (project-graph, diagnostics), or a "
    "qualified symbol such as pkg.mod.Class.method (task-context, references). find_roots lists them.",
})]
Encoding = Annotated[Any, _schema({
    "type": "string", "enum": ["auto", *codec.FORMS], "default": "auto",
    "description": "Wire form. auto (default): whichever of json, text and model-text costs the fewest "
    "o200k_base tokens. binary is base64 CBOR, chosen only when named. Omit when giving accept.",
})]
FormatVersion = Annotated[Any, _schema({
    "type": "integer", "enum": [1, 2],
    "description": "Optional, with a named encoding: 2 for model-text, 1 for the others.",
})]
Accept = Annotated[Any, _schema({
    "type": "array", "items": _OFFER,
    "description": "Instead of encoding: exact offers; the server prefers binary, then text, then "
    "model-text.",
})]
MaxTokens = Annotated[Any, _schema({
    "type": "integer", "minimum": 1,
    "description": "Refuse (naming narrower roots) rather than return a wire over this many o200k_base "
    "tokens. Default: MAX_MCP_OUTPUT_TOKENS, else 25000.",
})]


#: Key of the result's ``_meta`` holding what programs need (clients do not show it to models).
META_KEY = "semaprax/projection"
ERROR_META_KEY = "semaprax/error"
ROOTS_META_KEY = "semaprax/roots"
#: Claude Code's annotation: text results up to this many characters stay inline.
MAX_RESULT_SIZE_KEY = "anthropic/maxResultSizeChars"
#: Characters per o200k_base token a wire can take, with a margin: measured at
#: most 5.0 (full JSON) over every profile's roots in this repository
#: (docs/performance.md); 8 leaves room for long literal runs.
CHARS_PER_TOKEN = 8
#: Claude Code's ceiling for the annotation.
MAX_RESULT_SIZE_CAP = 500_000
#: Longest error text: Claude Code cuts an error text at about 11,000 characters.
ERROR_TEXT_CHARS = 4_000


#: Claude Code's threshold without the annotation.
DEFAULT_RESULT_SIZE = 50_000


def max_result_chars(budget: int) -> int:
    """The ``anthropic/maxResultSizeChars`` a tool with this token budget declares
    (never below Claude Code's own 50,000, never above its 500,000 ceiling)."""
    return min(MAX_RESULT_SIZE_CAP, max(DEFAULT_RESULT_SIZE, budget * CHARS_PER_TOKEN))


def error_text(data: dict[str, Any]) -> str:
    """One short text a model can act on: code, message, close matches."""
    text = f"{data['code']}: {data['message']}"
    matches = [m for m in data.get("matches") or [] if repr(m) not in text and m not in text]
    if matches:
        text += "; close matches: " + ", ".join(matches[:10])
    if len(text) > ERROR_TEXT_CHARS:
        text = text[:ERROR_TEXT_CHARS - 1] + "\u2026"
    return text


def _scrubbed(exc: RouteError, folder: Path) -> RouteError:
    """The error with the workspace's absolute path written as ``.``."""
    message = route.scrub(exc.message, folder)
    return RouteError(exc.code, {**exc.data, "message": message})


def _error_result(exc: RouteError) -> CallToolResult:
    data = {**exc.data, "jsonrpc_code": jsonrpc_code(str(exc.data["code"]))}
    return CallToolResult(content=[TextContent(type="text", text=error_text(exc.data))], is_error=True,
                          _meta={ERROR_META_KEY: data})


def _counted(n: int, noun: str) -> str:
    """``1 line``, ``2 lines``, ``1,024 bytes``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _roots_text(found: dict[str, Any]) -> str:
    head = (f"{found['total']} {found['profile']} roots match {found['query']!r} "
            f"(it takes {found['takes']}); showing {len(found['roots'])}:")
    lines = [head]
    for r in found["roots"]:
        size = (_counted(r["lines"], "line") if "lines" in r else
                _counted(r["bytes"], "byte") + (", " + _counted(r["files"], "file") if "files" in r else ""))
        lines.append(f"{r['root']}\t{r['kind']}, {size}")
    return "\n".join(lines)


class _Workspace:
    """Where the tools read: --workspace, else the client's first root."""

    def __init__(self, explicit: str | os.PathLike[str] | None, timeout: float = ROOTS_TIMEOUT) -> None:
        self.explicit = None if explicit is None else Path(explicit)
        self.timeout = timeout

    async def folder(self, ctx: Any) -> Path:
        if self.explicit is not None:
            return self.explicit
        caps = ctx.client_capabilities
        if caps is None or caps.roots is None:
            raise route.workspace_error(f"no workspace: the client offers no roots; {route.CONFIGURE}")
        listed = None
        why = ""
        try:
            with warnings.catch_warnings(), anyio.fail_after(self.timeout):  # roots: deprecated, still used
                warnings.simplefilter("ignore")
                listed = await ctx.session.list_roots()
        except TimeoutError:
            why = f"the client did not answer roots/list within {self.timeout:g} s"
        except Exception as exc:  # noqa: BLE001 - any failure of the client's is said the same way
            why = f"the client's roots/list failed ({type(exc).__name__})"
        if listed is not None:
            for root in listed.roots:
                found = folder_of_uri(str(root.uri))
                if found is not None:
                    return found
            why = "the client's roots/list has no file: root"
        raise route.workspace_error(f"no workspace: {why}; {route.CONFIGURE}")


#: The compact_projection tool's description: under 2 KB (Claude Code cuts longer
#: ones), and it explains every notation ``auto`` can return (json, text, model-text).
def description(budget: int = route.DEFAULT_MAX_TOKENS) -> str:
    """The description, naming the server's default budget."""
    return DESCRIPTION.replace("(default 25000)", f"(default {budget})", 1)


DESCRIPTION = (
    "One view of this workspace's Python code, as its wire. Profiles, roots: "
    "graph (a .py file), task-context (a qualified symbol: what changing it needs), project-graph (a "
    "manifest), symbols (a file or package), references (a symbol: its uses), diagnostics (a file or "
    "manifest); find_roots lists roots.\n"
    "Wire: auto (default) keeps JSON unless a form saves 3%. "
    "SEMAPRAX-TEXT 1 / SEMAPRAX-MODEL-TEXT 2: a header; profile, root, source_revision, source_digest "
    "lines (name, byte length, value); JSON body after 'body'. model-text: 'dict N' is followed "
    "by N JSON strings numbered from 0; @N outside quotes is string N. text: ~k outside quotes "
    "is the k-th distinct string (keys too) by first appearance, from 0. binary (if asked): base64 "
    "CBOR.\n"
    "A view over max_tokens (default 25000) is fitted. A failure: its code, then what to do.\n"
    "Views: " + " ".join([COMMON, PARTIAL, *LEGENDS.values()])
)
FIND_ROOTS_DESCRIPTION = (
    "List the roots this workspace offers for a profile (files, package folders, manifests, or qualified "
    "symbols) whose name contains query, each with its size (bytes and files, or lines), so a root can be "
    "chosen instead of guessed. One line per root: root, tab, kind and size."
)
#: Stages a compact_projection call reports as progress.
_STAGES = ("view", "encode", "count")


class Cancelled(Exception):
    """The client cancelled the call; the worker stops at its next stage."""


def build_server(workspace: str | os.PathLike[str] | None = None, *, max_tokens: int | None = None,
                 roots_timeout: float = ROOTS_TIMEOUT) -> MCPServer:
    """The MCP server with its two tools, bound to a workspace (or the client's)."""
    where = _Workspace(workspace, roots_timeout)
    cache = IndexCache()
    budget = max_tokens or default_max_tokens()
    readonly = ToolAnnotations(read_only_hint=True, idempotent_hint=True, destructive_hint=False,
                               open_world_hint=False)

    async def compact_projection(
        ctx: Context,
        profile: Profile = None,
        root: RootParam = None,
        encoding: Encoding = route.AUTO,
        format_version: FormatVersion = None,
        accept: Accept = None,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        params: dict[str, Any] = {"profile": profile, "root": root,
                                  "max_tokens": budget if max_tokens is None else max_tokens}
        for name, value in (("format_version", format_version), ("accept", accept)):
            if value is not None:
                params[name] = value
        if encoding != route.AUTO or not params.keys() & {"format_version", "accept"}:
            params["encoding"] = encoding  # the default gives way to offers
        stop = threading.Event()

        def checkpoint(stage: str) -> None:
            if stop.is_set():
                raise Cancelled(stage)
            done = _STAGES.index(stage) if stage in _STAGES else 0
            anyio.from_thread.run(ctx.report_progress, done, len(_STAGES), f"semaprax: {stage}")

        folder: Path | None = None
        try:
            request = route.parse_request(params, auto=True)
            folder = await where.folder(ctx)
            result = await anyio.to_thread.run_sync(
                lambda: route.answer(request, folder, index_cache=cache, count=True, checkpoint=checkpoint),
                abandon_on_cancel=True)
        except RouteError as exc:
            return _error_result(exc if folder is None else _scrubbed(exc, folder))
        except Cancelled:
            return _error_result(route.RouteError(jsonrpc_code("semaprax.cancelled"), {
                "code": "semaprax.cancelled", "message": "cancelled by the client"}))
        except Exception as exc:  # noqa: BLE001 - one bad call must not end the server
            return _error_result(internal_error(exc))
        finally:
            stop.set()  # cancelled (or done): a worker still running stops at its next stage
        await ctx.report_progress(len(_STAGES), len(_STAGES), "semaprax: done")
        return CallToolResult(content=[TextContent(type="text", text=result.text)],
                              _meta={META_KEY: result.metadata()})

    async def find_roots(
        ctx: Context,
        profile: Profile = None,
        query: Annotated[Any, _schema({"type": "string", "default": "", "description":
                                       "Case-insensitive substring of the root's name; empty lists all."})] = "",
        limit: Annotated[Any, _schema({"type": "integer", "minimum": 1, "maximum": 1000, "default": 50,
                                       "description": "At most this many roots."})] = 50,
    ) -> CallToolResult:
        folder = None
        try:
            folder = await where.folder(ctx)
            found = await anyio.to_thread.run_sync(
                lambda: route.find_roots(profile, query, limit, folder, index_cache=cache))
        except RouteError as exc:
            return _error_result(exc if folder is None else _scrubbed(exc, folder))
        except Exception as exc:  # noqa: BLE001
            return _error_result(internal_error(exc))
        return CallToolResult(content=[TextContent(type="text", text=_roots_text(found))],
                              _meta={ROOTS_META_KEY: found})

    tools = []
    for fn, name, text, meta in (
            (compact_projection, TOOL_NAME, description(budget), {MAX_RESULT_SIZE_KEY: max_result_chars(budget)}),
            (find_roots, FIND_ROOTS, FIND_ROOTS_DESCRIPTION, None)):
        tool = Tool.from_function(fn, name=name, description=text, annotations=readonly, meta=meta,
                                  structured_output=False)
        # profile and root default to None so that the route, not the SDK, says what is missing.
        tool.parameters["required"] = [p for p in ("profile", "root") if p in tool.parameters["properties"]]
        tool.parameters["additionalProperties"] = False
        for prop in tool.parameters["properties"].values():  # "absent", not a null of the wrong type
            if "default" in prop and prop["default"] is None:
                del prop["default"]
        tools.append(tool)
    server = _Server(
        name="semaprax",
        version=package_version(),
        instructions="Compact semantic projections of the Python code in this workspace. Use find_roots to "
        "see what a profile can view here, then compact_projection to get the view. Each result's text is "
        "the wire itself.",
        tools=tools,
    )
    server.accepted = {t.name: list(t.parameters["properties"]) for t in tools}
    return server


def internal_error(exc: BaseException) -> RouteError:
    """A bug, said without the server's paths or a traceback."""
    return RouteError(jsonrpc_code("semaprax.internal"), {
        "code": "semaprax.internal",
        "message": f"internal error ({type(exc).__name__}); the server goes on. Please report it."})


class _Server(MCPServer):
    """An MCPServer that refuses arguments its tools do not take, naming the
    nearest, instead of letting the SDK drop them (a misspelt ``encodings`` would
    otherwise silently give the default)."""

    #: Each tool's parameter names.
    accepted: dict[str, list[str]] = {}

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        known = self.accepted.get(name)
        if known is not None:
            unknown = [k for k in arguments if k not in known]
            if unknown:
                hint = difflib.get_close_matches(unknown[0], known, n=1)
                return _error_result(route.params_error(
                    f"{name} takes no parameter {unknown[0]!r}" + (f"; did you mean {hint[0]!r}?" if hint else "")
                    + f" (parameters: {', '.join(known)})"))
        return await super().call_tool(name, arguments, context)


class _BoundedLines:
    """The SDK stdio transport's input: each line read with a size bound
    (servers/framing.py); a bad line is answered here and never reaches the SDK."""

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        self.stream = stream
        self.limit = limit
        self.replies: Any = None
        self.ready = anyio.Event()

    def __aiter__(self) -> _BoundedLines:
        return self

    async def __anext__(self) -> str:
        await self.ready.wait()
        while True:
            line = await anyio.to_thread.run_sync(framing.read_line, self.stream, self.limit, abandon_on_cancel=True)
            if line is None:
                raise StopAsyncIteration
            if isinstance(line, framing.Oversize):
                await self._reply(framing.too_large(line, self.limit))
                continue
            if not line.strip():
                continue
            data, refusal = framing.parse(line)
            if refusal is not None:
                await self._reply(refusal)
                continue
            if data is None:
                continue
            try:
                mcp_types.jsonrpc_message_adapter.validate_python(data, by_name=False)
            except Exception:  # noqa: BLE001 - pydantic's ValidationError: say it in JSON-RPC terms
                ident = data.get("id")
                if "method" in data and "id" not in data:
                    continue  # a malformed notification: nothing to answer
                await self._reply(framing.error(ident if framing.is_id(ident) else None, "jsonrpc.request",
                                                "not a valid JSON-RPC 2.0 request, notification or response"))
                continue
            unnamed = _lone_surrogate(data)
            if unnamed is not None:  # the SDK's parser refuses it: answered here, never dropped
                answer = _not_unicode(data, *unnamed)
                if answer is not None:
                    await self.replies.send(SessionMessage(answer))
                continue
            return line.decode("utf-8")

    async def _reply(self, message: dict[str, Any]) -> None:
        error = mcp_types.JSONRPCError(jsonrpc="2.0", id=message["id"], error=mcp_types.ErrorData(**message["error"]))
        await self.replies.send(SessionMessage(error))


def _lone_surrogate(value: Any, where: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str] | None:
    """Where the first string (a key or a value) that is not UTF-8 text lies in a
    parsed message, and the string: JSON allows an escaped lone surrogate
    (``"zz\\udce9"``, RFC 8259 §8.2), the SDK's parser does not, and would drop
    the whole message unanswered."""
    if isinstance(value, str):
        return None if is_utf8(value) else (where, value)
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key, where) or _lone_surrogate(item, (*where, key))
            if found is not None:
                return found
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found = _lone_surrogate(item, (*where, str(n)))
            if found is not None:
                return found
    return None


def _not_unicode(data: dict[str, Any], where: tuple[str, ...], text: str) -> mcp_types.JSONRPCMessage | None:
    """The answer to a message holding a string that is not UTF-8 text: a tool
    call gets the tool error a route error gives (a root: the semaprax.workspace
    answer the CLI and ``semaprax serve`` give, analysis/sources.py check_nameable);
    any other request a semaprax.params error; a notification nothing."""
    ident = data.get("id")
    if "method" not in data or not isinstance(ident, (int, str)) or not framing.is_id(ident):
        return None
    if where == ("id",):  # an id that cannot be sent back is one that cannot be determined (JSON-RPC: null)
        reply = framing.error(None, "semaprax.params", "the request's id is not UTF-8 text (a lone surrogate)")
        return mcp_types.JSONRPCError(jsonrpc="2.0", id=None, error=mcp_types.ErrorData(**reply["error"]))
    params = data.get("params") or {}
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if data["method"] == "tools/call" and where[:2] == ("params", "arguments") and len(where) == 3 \
            and isinstance(arguments, dict) and where[2] in arguments:
        name = where[2]
        profile = arguments.get("profile")
        why = unnameable(text, "symbol" if profile in SYMBOL_PROFILES else "root")
        if name == "root" and why is not None:
            error = route.workspace_error(why)
        else:
            error = route.params_error(f"{name} {spelled(text)} is not UTF-8 text (a lone surrogate)")
        result = _error_result(error).model_dump(by_alias=True, mode="json", exclude_none=True)
        return mcp_types.JSONRPCResponse(jsonrpc="2.0", id=ident, result=result)
    message = (f"{'.'.join(where) or 'a key'} holds {spelled(text)}, which is not UTF-8 text "
               f"(a lone surrogate); nothing in a request may be")
    reply = framing.error(ident, "semaprax.params", message)
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=ident, error=mcp_types.ErrorData(**reply["error"]))


def preload_tokenizer() -> threading.Thread:
    """Load the o200k_base vocabulary on a background thread, so that the first
    call does not wait for it."""
    def load() -> None:
        from views import tokens

        tokens.get_encoding(route.BUDGET_TOKENIZER).encode_ordinary("warm")

    thread = threading.Thread(target=load, name="semaprax-tokenizer", daemon=True)
    thread.start()
    return thread


async def serve_stdio(server: MCPServer, stdin: BinaryIO, max_message_bytes: int) -> None:
    source = _BoundedLines(stdin, max_message_bytes)
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=source) as (read, write):  # type: ignore[arg-type]
        source.replies = write
        source.ready.set()
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


def run(workspace: str | os.PathLike[str] | None = None, *,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, roots_timeout: float = ROOTS_TIMEOUT) -> int:
    preload_tokenizer()
    anyio.run(serve_stdio, build_server(workspace, roots_timeout=roots_timeout), sys.stdin.buffer,
              max_message_bytes)
    return 0
