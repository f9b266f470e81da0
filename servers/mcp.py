"""``semaprax mcp``: an MCP server (stdio) whose tools adapt the compact-projection
route (servers/route.py) for a model to read.

What a model reads costs tokens, so a ``compact_projection`` result is one text
block whose text is exactly the wire (binary: its base64), plus small structured
content with the metadata, the form, the byte length and the token counts; the
wire is never sent twice. ``encoding`` defaults to ``auto``: the text form with
the fewest o200k_base tokens. ``max_tokens`` (default: ``MAX_MCP_OUTPUT_TOKENS``
from the environment, else 25,000) turns an oversized view into a tool error that
names narrower roots, never a truncated wire. ``find_roots`` lists the roots a
profile takes here, with their sizes, so a model can discover instead of guess.

The workspace is ``--workspace``, else the client's first root (MCP roots/list),
else the folder the server was started in, unless that is the filesystem root."""

from __future__ import annotations

import difflib
import os
import warnings
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import WithJsonSchema

import codec
from analysis.warm import IndexCache
from servers import route
from servers.lsp import folder_of_uri, package_version
from servers.roots import ROOT_KINDS
from servers.route import RouteError

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


def _error_result(exc: RouteError) -> CallToolResult:
    text = f"{exc.data['code']}: {exc.message}"
    matches = exc.data.get("matches")
    if matches:
        text += "; close matches: " + ", ".join(matches)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=exc.data,
                          is_error=True)


def _roots_text(found: dict[str, Any]) -> str:
    head = (f"{found['total']} {found['profile']} roots match {found['query']!r} "
            f"(it takes {found['takes']}); showing {len(found['roots'])}:")
    lines = [head]
    for r in found["roots"]:
        size = (f"{r['lines']} lines" if "lines" in r else
                f"{r['bytes']:,} bytes" + (f", {r['files']} files" if "files" in r else ""))
        lines.append(f"{r['root']}\t{r['kind']}, {size}")
    return "\n".join(lines)


class _Workspace:
    """Where the tools read: --workspace, the client's roots, or the start folder."""

    def __init__(self, explicit: str | os.PathLike[str] | None, cwd: Path) -> None:
        self.explicit = None if explicit is None else Path(explicit)
        self.cwd = cwd

    async def folder(self, ctx: Any) -> Path | None:
        if self.explicit is not None:
            return self.explicit
        caps = ctx.client_capabilities
        if caps is not None and caps.roots is not None:
            try:
                with warnings.catch_warnings():  # roots are deprecated in the newest protocol, still used
                    warnings.simplefilter("ignore")
                    listed = await ctx.session.list_roots()
            except Exception:  # noqa: BLE001 - a client that cannot answer: use the start folder
                listed = None
            for root in listed.roots if listed is not None else ():
                found = folder_of_uri(str(root.uri))
                if found is not None:
                    return found
        return self.cwd


def build_server(workspace: str | os.PathLike[str] | None = None, *, cwd: Path | None = None,
                 max_tokens: int | None = None) -> MCPServer:
    """The MCP server with its two tools, bound to a workspace (or the client's)."""
    where = _Workspace(workspace, cwd or Path.cwd())
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
        """Make one view of this workspace's Python code (graph, task-context, project-graph, symbols,
        references or diagnostics) and return its wire as the text: full JSON, v1 text, v2 model-text, or
        base64 v1 binary. The structured content says which form, its format_version, the metadata
        (profile, root, source_revision, source_digest), wire_bytes and o200k_base token counts. A view
        over max_tokens is refused with narrower roots to ask for; failures carry a stable code
        (compact.* diagnostics, semaprax.workspace with close matches, semaprax.budget)."""
        params: dict[str, Any] = {"profile": profile, "root": root,
                                  "max_tokens": budget if max_tokens is None else max_tokens}
        for name, value in (("format_version", format_version), ("accept", accept)):
            if value is not None:
                params[name] = value
        if encoding != route.AUTO or not params.keys() & {"format_version", "accept"}:
            params["encoding"] = encoding  # the default gives way to offers
        folder = await where.folder(ctx)
        try:
            request = route.parse_request(params, auto=True)
            result = await anyio.to_thread.run_sync(
                lambda: route.answer(request, folder, index_cache=cache, count=True))
        except RouteError as exc:
            return _error_result(exc)
        return CallToolResult(content=[TextContent(type="text", text=result.text)],
                              structured_content=result.metadata())

    async def find_roots(
        ctx: Context,
        profile: Profile = None,
        query: Annotated[Any, _schema({"type": "string", "default": "", "description":
                                       "Case-insensitive substring of the root's name; empty lists all."})] = "",
        limit: Annotated[Any, _schema({"type": "integer", "minimum": 1, "maximum": 1000, "default": 50,
                                       "description": "At most this many roots."})] = 50,
    ) -> CallToolResult:
        """List the roots this workspace offers for a profile (files, package folders, manifests, or
        qualified symbols) whose name contains query, each with its size (bytes and files, or lines), so
        a root can be chosen instead of guessed."""
        folder = await where.folder(ctx)
        try:
            found = await anyio.to_thread.run_sync(
                lambda: route.find_roots(profile, query, limit, folder, index_cache=cache))
        except RouteError as exc:
            return _error_result(exc)
        return CallToolResult(content=[TextContent(type="text", text=_roots_text(found))],
                              structured_content=found)

    tools = []
    for fn, name in ((compact_projection, TOOL_NAME), (find_roots, FIND_ROOTS)):
        tool = Tool.from_function(fn, name=name, annotations=readonly)
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
        "the wire itself; its structured content gives the metadata and token counts.",
        tools=tools,
    )
    server.accepted = {t.name: list(t.parameters["properties"]) for t in tools}
    return server


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


def run(workspace: str | os.PathLike[str] | None = None) -> int:
    build_server(workspace).run(transport="stdio")
    return 0
