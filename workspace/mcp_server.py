"""``semaprax mcp``: an MCP server (stdio) whose one tool forwards to the same
compact-projection route as ``semaprax serve``."""

from __future__ import annotations

import os
from typing import Any

from .service import RouteError, compact_projection


def build_server(workspace: str | os.PathLike[str] = "."):
    """The MCP server with its ``compact_projection`` tool, bound to a workspace."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(
        name="semaprax",
        instructions="Compact semantic projections of the Python code in this workspace: graph, "
        "task-context, project-graph, symbols, references and diagnostics views, as full JSON, "
        "v1 text, v1 binary (base64) or v2 model-text wires.",
    )

    @server.tool(name="compact_projection")
    def compact_projection_tool(
        profile: str,
        root: str,
        encoding: str | None = None,
        format_version: int | None = None,
        accept: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Make the PROFILE view of ROOT (a workspace-relative .py file, package folder,
        manifest, or qualified symbol) and return its wire. Name an encoding (json,
        text, binary, model-text) or list accept offers as {format_version, encoding,
        profile} triples; failures carry the compact diagnostic code."""
        params: dict[str, Any] = {"profile": profile, "root": root}
        if encoding is not None:
            params["encoding"] = encoding
        if format_version is not None:
            params["format_version"] = format_version
        if accept is not None:
            params["accept"] = accept
        try:
            return compact_projection(params, workspace)
        except RouteError as exc:
            raise ToolError(exc.message) from None

    return server


def run(workspace: str | os.PathLike[str] = ".") -> int:
    build_server(workspace).run(transport="stdio")
    return 0
