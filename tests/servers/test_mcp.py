"""``semaprax mcp`` through the MCP SDK's ClientSession over a real stdio
subprocess: the tools' schemas and annotations, each encoding and auto, the wire
sent once (the whole result message within the wire's bytes plus 1 KiB, its
metadata in ``_meta``), format version types, the token budget, find_roots, the
workspace from the client's roots, and a wire that replays with the CLI.
What the model reads: tests/servers/test_mcp_wire.py."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from serverkit import DEMO, ROOT, McpSession, run_cli

import codec
from semaprax.cli import mcp_config
from servers.mcp import default_max_tokens


@pytest.fixture(scope="module")
def mcp():
    session = McpSession("--workspace", str(DEMO))
    yield session
    session.close()


def test_tools_document_themselves(mcp):
    info = mcp.initialized.server_info
    assert info.name == "semaprax" and info.version
    tools = {t.name: t for t in mcp.run(mcp.session.list_tools()).tools}
    assert set(tools) == {"compact_projection", "find_roots"}
    for tool in tools.values():
        assert tool.annotations.read_only_hint and tool.annotations.idempotent_hint
    schema = tools["compact_projection"].input_schema
    props = schema["properties"]
    assert set(schema["required"]) == {"profile", "root"} and schema["additionalProperties"] is False
    assert props["profile"]["enum"] == list(codec.PROFILES)
    assert props["encoding"]["enum"] == ["auto", *codec.FORMS] and props["encoding"]["default"] == "auto"
    assert props["format_version"]["type"] == "integer"
    assert props["accept"]["items"]["required"] == ["format_version", "encoding", "profile"]
    assert props["max_tokens"]["type"] == "integer"
    assert "qualified symbol" in props["root"]["description"] and "task-context" in props["profile"]["description"]
    assert all("description" in p and p.get("default", "") is not None for p in props.values())
    assert set(tools["find_roots"].input_schema["properties"]) == {"profile", "query", "limit"}


@pytest.mark.parametrize("encoding", list(codec.FORMS))
def test_the_text_is_exactly_the_wire(mcp, encoding):
    r = mcp.call("compact_projection", {"profile": "graph", "root": "pkg/core.py", "encoding": encoding})
    assert not r.is_error and len(r.content) == 1
    meta = r.meta["semaprax/projection"]
    assert "wire" not in meta and meta["encoding"] == encoding
    text = r.content[0].text
    wire = base64.b64decode(text, validate=True) if encoding == "binary" else text.encode()
    assert meta["wire_bytes"] == len(wire) and meta["tokens"]["o200k_base"] > 0
    found = codec.decode_wire(wire)
    assert found.form == encoding
    if found.projection is not None:
        assert (meta["root"], meta["source_digest"]) == (found.projection.root, found.projection.source_digest)


def test_auto_is_the_default_and_keeps_json_unless_a_form_saves_3_percent_in_both(mcp):
    for root, profile in [("pkg/core.py", "graph"), ("pkg.core.Engine.run", "task-context"), (".", "symbols")]:
        r = mcp.call("compact_projection", {"profile": profile, "root": root})
        meta = r.meta["semaprax/projection"]
        both = {t: meta["auto"][t] for t in ("cl100k_base", "o200k_base")}
        assert all(set(c) == {"json", "text", "model-text"} for c in both.values())
        saving = [f for f in ("text", "model-text")
                  if all(c[f] <= 0.97 * c["json"] for c in both.values())]
        expected = min(saving, key=lambda f: both["o200k_base"][f]) if saving else "json"
        assert meta["encoding"] == meta["auto"]["chosen"] == expected
        assert meta["tokens"] == {t: c[meta["encoding"]] for t, c in both.items()}


def test_auto_rule():
    from servers.route import choose_auto

    def counts(json_: int, text: int, model: int) -> dict[str, dict[str, int]]:
        return {"json": {"cl100k_base": json_, "o200k_base": json_},
                "text": {"cl100k_base": text, "o200k_base": text},
                "model-text": {"cl100k_base": model, "o200k_base": model}}

    assert choose_auto(counts(1000, 990, 995)) == "json"  # saves 1 %: not worth a notation
    assert choose_auto(counts(1000, 970, 960)) == "model-text"
    lopsided = counts(1000, 1000, 900)
    lopsided["model-text"]["cl100k_base"] = 980  # 10 % in o200k, 2 % in cl100k
    assert choose_auto(lopsided) == "json"


@pytest.mark.parametrize("version", [True, 2.0, "2"])
def test_format_version_is_an_integer(mcp, version):
    r = mcp.call("compact_projection", {"profile": "graph", "root": "pkg/core.py", "encoding": "model-text",
                                        "format_version": version})
    assert r.is_error and r.meta["semaprax/error"]["code"] == "compact.negotiation"
    assert "integer" in r.content[0].text


@pytest.mark.parametrize("arguments, says", [
    ({"profile": "graph", "root": "app.py", "encodings": "json"}, "did you mean 'encoding'"),
    ({"profile": "graph"}, "root must be a non-empty string"),
    ({"profile": "callgraph", "root": "app.py"}, "profile must be one of"),
])
def test_bad_arguments_are_named_by_the_route_not_dropped(mcp, arguments, says):
    r = mcp.call("compact_projection", arguments)
    assert r.is_error and says in r.content[0].text
    assert r.meta["semaprax/error"]["code"] in ("semaprax.params", "compact.negotiation")


def test_accept_offers_in_any_order(mcp):
    offers = [{"format_version": 2, "encoding": "model-text", "profile": "graph"},
              {"format_version": 1, "encoding": "text", "profile": "graph"}]
    for accept in (offers, offers[::-1]):
        r = mcp.call("compact_projection", {"profile": "graph", "root": "pkg/util.py", "accept": accept})
        assert r.meta["semaprax/projection"]["encoding"] == "text"


def test_over_max_tokens_is_a_tool_error_naming_narrower_roots(mcp):
    r = mcp.call("compact_projection", {"profile": "symbols", "root": ".", "encoding": "json", "max_tokens": 40})
    assert r.is_error
    data = r.meta["semaprax/error"]
    assert data["code"] == "semaprax.budget" and data["tokens"] > 40 and data["bytes"] > 0
    assert [n["root"] for n in data["narrower"]] == ["pkg", "app.py"]
    assert "semaprax.budget" in r.content[0].text and "pkg (" in r.content[0].text


def test_the_default_budget_comes_from_the_environment():
    assert default_max_tokens({}) == 20_000
    assert default_max_tokens({"MAX_MCP_OUTPUT_TOKENS": "120"}) == 120
    assert default_max_tokens({"MAX_MCP_OUTPUT_TOKENS": "lots"}) == 20_000



def test_a_missing_root_names_close_matches(mcp):
    r = mcp.call("compact_projection", {"profile": "task-context", "root": "pkg.core.Engine.rn"})
    assert r.is_error and r.meta["semaprax/error"]["code"] == "semaprax.workspace"
    assert "pkg.core.Engine.run" in r.meta["semaprax/error"]["matches"]


def test_find_roots(mcp):
    r = mcp.call("find_roots", {"profile": "task-context", "query": "engine"})
    found = r.meta["semaprax/roots"]
    assert not r.is_error and found["total"] == len(found["roots"]) > 0
    assert all("engine" in x["root"].lower() and x["lines"] > 0 for x in found["roots"])
    assert "pkg.core.Engine.run" in r.content[0].text
    files = mcp.call("find_roots", {"profile": "graph", "limit": 2}).meta["semaprax/roots"]
    assert files["total"] == 4 and [x["root"] for x in files["roots"]] == ["app.py", "pkg/__init__.py"]
    assert files["roots"][0]["bytes"] == (DEMO / "app.py").stat().st_size
    manifests = mcp.call("find_roots", {"profile": "project-graph"}).meta["semaprax/roots"]
    assert [x["root"] for x in manifests["roots"]] == ["semaprax.toml"]
    bad = mcp.call("find_roots", {"profile": "callgraph"})
    assert bad.is_error and bad.meta["semaprax/error"]["code"] == "semaprax.params"


def test_a_wire_from_mcp_replays_with_the_cli(mcp, tmp_path):
    r = mcp.call("compact_projection", {"profile": "references", "root": "pkg.core.Engine", "encoding": "binary"})
    wire = tmp_path / "engine.cbor"
    wire.write_bytes(base64.b64decode(r.content[0].text))
    done = run_cli("replay", str(wire), "--workspace", str(DEMO))
    assert done.returncode == 0, done.stderr


def test_the_workspace_comes_from_the_clients_roots_and_the_budget_from_the_environment(tmp_path):
    session = McpSession(cwd=tmp_path, roots=[DEMO], env={"MAX_MCP_OUTPUT_TOKENS": "60"})
    try:
        r = session.call("compact_projection", {"profile": "graph", "root": "app.py", "encoding": "json",
                                                "max_tokens": 10_000})
        assert not r.is_error and r.meta["semaprax/projection"]["root"] == "app.py"
        r = session.call("compact_projection", {"profile": "symbols", "root": "."})
        assert r.is_error and r.meta["semaprax/error"]["max_tokens"] == 60
        tool = next(t for t in session.run(session.session.list_tools()).tools if t.name == "compact_projection")
        assert "(default 60)" in tool.description and tool.meta["anthropic/maxResultSizeChars"] == 50_000
    finally:
        session.close()


def test_started_in_the_filesystem_root_without_roots_it_refuses():
    session = McpSession(cwd=Path("/"))
    try:
        r = session.call("compact_projection", {"profile": "task-context", "root": "x.y"})
        assert r.is_error and r.meta["semaprax/error"]["code"] == "semaprax.workspace"
        assert "--workspace" in r.content[0].text and "roots" in r.content[0].text
    finally:
        session.close()


def _raw_calls(calls: list[dict]) -> list[bytes]:
    """The exact bytes of each tools/call response line from the server."""
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": n + 1, "method": "tools/call",
               "params": {"name": "compact_projection", "arguments": args}} for n, args in enumerate(calls)]
    proc = subprocess.Popen([sys.executable, "-m", "semaprax", "mcp", "--workspace", str(DEMO)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    out: dict[int, bytes] = {}
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
        proc.stdin.flush()
        while len(out) < len(calls):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            message = json.loads(line)
            if isinstance(message.get("id"), int) and message["id"] > 0:
                out[message["id"]] = line.rstrip(b"\n")
    finally:
        proc.stdin.close()
        proc.wait(30)
    return [out[n + 1] for n in range(len(calls))]


def test_the_whole_result_message_is_within_the_wire_plus_1_kib():
    calls = [{"profile": p, "root": r, "encoding": e}
             for p, r in [("graph", "pkg/core.py"), ("symbols", "."), ("task-context", "pkg.core.Engine.run"),
                          ("project-graph", "semaprax.toml"), ("references", "pkg.core.Engine")]
             for e in codec.FORMS]
    for args, raw in zip(calls, _raw_calls(calls), strict=True):
        message = json.loads(raw)
        text = message["result"]["content"][0]["text"]
        wire_bytes = message["result"]["_meta"]["semaprax/projection"]["wire_bytes"]
        assert message["result"]["content"] == [{"type": "text", "text": text}]
        assert "structuredContent" not in message["result"]
        assert len(raw) <= wire_bytes + 1024, (args, len(raw), wire_bytes)
        # The wire appears once: only its JSON string escapes exceed its own bytes.
        assert len(raw) - len(json.dumps(text)) < 1024


def test_print_config_names_this_install():
    config = json.loads(mcp_config(str(DEMO)))["mcpServers"]["semaprax"]
    assert Path(config["command"]).is_absolute() and config["command"].endswith("semaprax")
    assert config["args"] == ["mcp", "--workspace", str(DEMO.resolve())]
    done = run_cli("mcp", "--print-config", "--workspace", str(DEMO))
    assert done.returncode == 0 and json.loads(done.stdout)["mcpServers"]["semaprax"]["args"][0] == "mcp"
