"""The compact-projection route: negotiation, the response, diagnostics; the
JSON-RPC server as a subprocess; the MCP tool through the SDK's own client."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

import codec
from workspace.service import COMPACT_DIAGNOSTIC, WORKSPACE_ERROR, RouteError, compact_projection, handle

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tests" / "fixtures" / "demo"


def offer(v, e, p="graph"):
    return {"format_version": v, "encoding": e, "profile": p}


def test_named_encoding_returns_the_wire_and_metadata():
    r = compact_projection({"profile": "graph", "root": "pkg/core.py", "encoding": "model-text"}, DEMO)
    assert r["format_version"] == 2 and r["encoding"] == "model-text" and r["wire_transfer"] == "text"
    p = codec.decode_model_text(r["wire"].encode())
    assert (r["profile"], r["root"], r["source_revision"], r["source_digest"]) == (
        p.profile, p.root, p.source_revision, p.source_digest)
    assert r["wire_bytes"] == len(r["wire"].encode())


def test_negotiation_prefers_binary_and_sends_base64():
    r = compact_projection({"profile": "symbols", "root": "pkg",
                            "accept": [offer(2, "model-text", "symbols"), offer(1, "binary", "symbols")]}, DEMO)
    assert (r["format_version"], r["encoding"], r["wire_transfer"]) == (1, "binary", "base64")
    wire = base64.b64decode(r["wire"], validate=True)
    assert len(wire) == r["wire_bytes"] and codec.decode_binary(wire).profile == "symbols"


@pytest.mark.parametrize("params, code, data_code", [
    ({"profile": "graph", "root": "pkg/core.py", "accept": [offer(2, "text")]}, COMPACT_DIAGNOSTIC,
     "compact.negotiation"),
    ({"profile": "graph", "root": "pkg/core.py", "encoding": "text", "accept": []}, COMPACT_DIAGNOSTIC,
     "compact.negotiation"),
    ({"profile": "graph", "root": "pkg/missing.py", "encoding": "text"}, WORKSPACE_ERROR, None),
])
def test_failures_are_diagnostics(params, code, data_code):
    with pytest.raises(RouteError) as info:
        compact_projection(params, DEMO)
    assert info.value.code == code
    if data_code:
        assert info.value.data["code"] == data_code


def test_jsonrpc_handle():
    ok = handle({"jsonrpc": "2.0", "id": 7, "method": "workspace/compact-projection",
                 "params": {"profile": "graph", "root": "pkg/util.py", "encoding": "json"}}, DEMO)
    assert ok["id"] == 7 and json.loads(ok["result"]["wire"])["module"] == "pkg.util"
    assert handle({"jsonrpc": "2.0", "id": 8, "method": "nope"}, DEMO)["error"]["code"] == -32601
    assert handle({"id": 1}, DEMO)["error"]["code"] == -32600


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_serve_answers_framed_requests_over_stdio():
    requests = b"".join([
        _frame({"jsonrpc": "2.0", "id": 1, "method": "workspace/compact-projection",
                "params": {"profile": "project-graph", "root": "semaprax.toml", "encoding": "model-text"}}),
        _frame({"jsonrpc": "2.0", "id": 2, "method": "workspace/compact-projection",
                "params": {"profile": "graph", "root": "pkg/core.py", "encoding": "text", "format_version": 2}}),
        _frame({"jsonrpc": "2.0", "method": "exit"}),
    ])
    r = subprocess.run(check=False, args=[sys.executable, "-m", "workspace.cli", "serve", "--workspace", str(DEMO)],
                       input=requests, capture_output=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    responses = []
    while out:
        header, _, rest = out.partition(b"\r\n\r\n")
        length = int(header.split(b":")[1])
        responses.append(json.loads(rest[:length]))
        out = rest[length:]
    assert [m["id"] for m in responses] == [1, 2]
    assert responses[0]["result"]["format_version"] == 2
    assert codec.decode_model_text(responses[0]["result"]["wire"].encode()).root == "semaprax.toml"
    assert responses[1]["error"]["data"]["code"] == "compact.negotiation"


def test_mcp_tool_through_the_sdk_client():
    from mcp import Client

    from workspace.mcp_server import build_server

    async def scenario():
        async with Client(build_server(DEMO)) as client:
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == ["compact_projection"]
            ok = await client.call_tool("compact_projection",
                                        {"profile": "graph", "root": "pkg/core.py", "encoding": "model-text"})
            assert not ok.is_error
            assert codec.decode_model_text(ok.structured_content["wire"].encode()).root == "pkg/core.py"
            bad = await client.call_tool("compact_projection", {"profile": "graph", "root": "pkg/nope.py"})
            assert bad.is_error and "compact.negotiation" in bad.content[0].text
            missing = await client.call_tool("compact_projection",
                                             {"profile": "graph", "root": "pkg/nope.py", "encoding": "text"})
            assert missing.is_error and "does not exist" in missing.content[0].text

    asyncio.run(scenario())


def test_semaprax_mcp_over_real_stdio():
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "workspace.cli", "mcp", "--workspace", str(DEMO)], cwd=str(ROOT))

    async def scenario():
        async with Client(params) as client:
            ok = await client.call_tool("compact_projection",
                                        {"profile": "symbols", "root": "pkg", "encoding": "json"})
            assert not ok.is_error
            assert json.loads(ok.structured_content["wire"])["root"] == "pkg"

    asyncio.run(scenario())


def test_serve_survives_bad_requests_and_stops_on_lost_framing():
    requests = b"".join([
        _frame({"jsonrpc": "2.0", "id": 1, "method": "workspace/compact-projection",
                "params": {"profile": "graph", "root": "pkg/core.py", "accept": 5}}),
        _frame({"jsonrpc": "2.0", "id": 2, "method": "workspace/compact-projection",
                "params": {"profile": "graph", "root": "pkg/core.py", "encoding": ["text"]}}),
        b"Content-Length: 3\r\n\r\n{x}",
        _frame({"jsonrpc": "2.0", "id": 3, "method": "initialize"}),
        b"Content-Length: 99999999999999\r\n\r\n",
        _frame({"jsonrpc": "2.0", "id": 4, "method": "initialize"}),
    ])
    r = subprocess.run(check=False, args=[sys.executable, "-m", "workspace.cli", "serve", "--workspace", str(DEMO)],
                       input=requests, capture_output=True, timeout=120, cwd=ROOT)
    assert r.returncode == 1 and b"stopping" in r.stderr and b"Traceback" not in r.stderr
    out, responses = r.stdout, []
    while out:
        header, _, rest = out.partition(b"\r\n\r\n")
        length = int(header.split(b":")[1])
        responses.append(json.loads(rest[:length]))
        out = rest[length:]
    assert [m.get("id") for m in responses] == [1, 2, None, 3, None]
    assert responses[0]["error"]["data"]["code"] == "compact.negotiation"
    assert responses[1]["error"]["data"]["code"] == "compact.negotiation"
    assert responses[2]["error"]["code"] == -32700
    assert responses[3]["result"]["capabilities"]["compactProjection"]
    assert "Content-Length" in responses[4]["error"]["message"]
