"""What a model reads from ``semaprax mcp``, through the MCP SDK's stdio client:
under both client conventions (structured content when present, else the joined
text blocks) a success is exactly the wire and a failure exactly one short text;
the tool list declares no output schema and Claude Code's result-size annotation;
the workspace never silently falls back to the start folder; progress is reported
when asked; ``--print-config`` writes each client's registration."""

from __future__ import annotations

import asyncio
import base64
import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
from serverkit import DEMO, McpSession, run_cli

import codec
from semaprax.cli import mcp_config
from servers import route
from servers.failures import FAILURES, jsonrpc_code
from servers.mcp import DESCRIPTION, ERROR_TEXT_CHARS, MAX_RESULT_SIZE_KEY, max_result_chars
from servers.mcp import description as describe
from views.legend import COMMON, LEGENDS, PARTIAL

#: One root of each profile in the demo workspace.
ROOTS = {"graph": "pkg/core.py", "task-context": "pkg.core.Engine.run", "project-graph": "semaprax.toml",
         "symbols": ".", "references": "pkg.core.Engine", "diagnostics": "pkg/core.py"}


@pytest.fixture(scope="module")
def mcp():
    session = McpSession("--workspace", str(DEMO))
    yield session
    session.close()


def model_reads(result: Any) -> dict[str, str]:
    """What each client convention hands the model (JSON.stringify of structured
    content when present, else the text blocks joined)."""
    texts = "\n".join(block.text for block in result.content if block.type == "text")
    structured = result.structured_content
    first = json.dumps(structured, ensure_ascii=False, separators=(",", ":")) if structured is not None else texts
    return {"structured-first": first, "text": texts}


@pytest.mark.parametrize("profile", list(ROOTS))
def test_what_the_model_reads_is_exactly_the_wire(mcp, profile):
    expected = route.make_projection(profile, ROOTS[profile], DEMO)
    for encoding in [*codec.FORMS, "auto"]:
        r = mcp.call("compact_projection", {"profile": profile, "root": ROOTS[profile], "encoding": encoding})
        assert not r.is_error and r.structured_content is None and len(r.content) == 1
        meta = r.meta["semaprax/projection"]
        form = meta["encoding"]
        wire = route.encode(expected, form)
        text = base64.b64encode(wire).decode("ascii") if form == "binary" else wire.decode("utf-8")
        assert model_reads(r) == {"structured-first": text, "text": text}, (profile, encoding)
        assert (meta["profile"], meta["root"], meta["source_digest"]) == (profile, expected.root,
                                                                          expected.source_digest)
        assert meta["wire_bytes"] == len(wire) and meta["tokens"]["o200k_base"] > 0
        if encoding == "auto":
            assert form in route.AUTO_FORMS and meta["auto"]["chosen"] == form


def _outside(tmp: Path) -> Path:
    """A workspace holding a symlink to a folder outside it."""
    ws, out = tmp / "ws", tmp / "outside"
    ws.mkdir()
    out.mkdir()
    (out / "secret.py").write_text("x = 1\n")
    (ws / "app.py").write_text("def f():\n    return 1\n")
    (ws / "link").symlink_to(out)
    return ws


FAILING_CALLS = [
    ({"profile": "graph", "root": "app.py", "encodings": "json"}, "semaprax.params"),
    ({"profile": "graph", "root": "app.py", "encoding": "json", "max_tokens": 0}, "semaprax.params"),
    ({"profile": "graph", "root": "x" * 300 + ".py"}, "semaprax.params"),
    ({"profile": "callgraph", "root": "app.py"}, "compact.negotiation"),
    ({"profile": "graph", "root": "app.py", "encoding": "model-text", "format_version": True}, "compact.negotiation"),
    ({"profile": "graph", "root": "app.py", "encoding": "text", "format_version": 2}, "compact.negotiation"),
    ({"profile": "task-context", "root": "pkg.core.Engine.rn"}, "semaprax.workspace"),
    ({"profile": "graph", "root": "../outside.py"}, "semaprax.workspace"),
    ({"profile": "symbols", "root": ".", "encoding": "json", "max_tokens": 40}, "semaprax.budget"),
]


@pytest.mark.parametrize("arguments, code", FAILING_CALLS)
def test_every_failure_reads_as_one_short_actionable_text(mcp, arguments, code):
    r = mcp.call("compact_projection", arguments)
    assert r.is_error and r.structured_content is None and len(r.content) == 1
    text = r.content[0].text
    assert model_reads(r) == {"structured-first": text, "text": text}
    assert text.startswith(f"{code}: ") and len(text) <= ERROR_TEXT_CHARS < 11_000
    assert str(DEMO.resolve()) not in text
    data = r.meta["semaprax/error"]
    assert data["code"] == code and data["jsonrpc_code"] == jsonrpc_code(code)
    if code == "semaprax.budget":
        assert "pkg (" in text  # the narrower roots to ask for
    if code == "semaprax.workspace" and "rn" in arguments["root"]:
        assert "pkg.core.Engine.run" in text  # the close match


def test_a_symlink_out_of_the_workspace_says_nothing_about_what_is_there(tmp_path):
    ws = _outside(tmp_path)
    session = McpSession("--workspace", str(ws))
    try:
        said = {}
        for root in ("link/secret.py", "link/missing.py", "link"):
            r = session.call("compact_projection", {"profile": "graph", "root": root, "encoding": "json"})
            assert r.is_error and r.meta["semaprax/error"]["code"] == "semaprax.workspace"
            said[root] = r.content[0].text.replace(repr(root), "ROOT")
            assert str(tmp_path) not in r.content[0].text
        assert len(set(said.values())) == 1, said
    finally:
        session.close()


def test_the_tool_list_has_no_output_schema_and_declares_the_result_size(mcp):
    tools = {t.name: t for t in mcp.run(mcp.session.list_tools()).tools}
    assert all(t.output_schema is None for t in tools.values())
    meta = tools["compact_projection"].meta
    assert meta[MAX_RESULT_SIZE_KEY] == max_result_chars(20_000) == 160_000  # the default budget
    description = tools["compact_projection"].description
    assert description == describe(route.DEFAULT_MAX_TOKENS) and len(description.encode("utf-8")) < 2048
    assert DESCRIPTION.replace("(default 25000)", "(default 20000)") == description
    for notation in ("dict N", "numbered from 0", "@N", "~k", "base64", "(default 20000)"):
        assert notation in description
    # every view convention the legend names (views/legend.py, checked against real documents by
    # tests/views/test_legend.py) reaches the model through the description
    for part in (COMMON, PARTIAL, *LEGENDS.values()):
        assert part in description


def test_every_failure_class_has_one_code_in_both_servers():
    assert jsonrpc_code("compact.negotiation") == jsonrpc_code("semaprax.params") == -32602
    assert jsonrpc_code("compact.digest") == FAILURES["compact.*"][0] == route.COMPACT_DIAGNOSTIC
    assert len({code for code, _ in FAILURES.values()}) == len(FAILURES) - 1  # negotiation shares -32602


def test_progress_is_reported_when_the_client_asks_for_it(mcp):
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    r = mcp.call("compact_projection", {"profile": "symbols", "root": ".", "encoding": "text"}, progress=progress)
    assert not r.is_error
    values = [v for v, _, _ in seen]
    assert values == sorted(values) and values[-1] == seen[-1][1] == 3
    assert any(m and "view" in m for _, _, m in seen)


def _roots_failure(session_kwargs: dict[str, Any], says: str, *args: str) -> None:
    session = McpSession(*args, cwd=DEMO, **session_kwargs)  # started inside a workspace: never indexed silently
    try:
        r = session.call("compact_projection", {"profile": "graph", "root": "app.py"})
        assert r.is_error and r.meta["semaprax/error"]["code"] == "semaprax.workspace"
        text = r.content[0].text
        assert "--workspace" in text and says in text, text
    finally:
        session.close()


def test_no_roots_capability_is_a_clear_error_not_the_start_folder():
    _roots_failure({}, "offers no roots")


def test_empty_roots_are_a_clear_error():
    _roots_failure({"roots": []}, "no file: root")


def test_failing_roots_list_is_a_clear_error():
    async def fail(context: Any) -> Any:
        raise RuntimeError("no roots here")

    _roots_failure({"list_roots": fail}, "roots/list failed")


def test_a_roots_list_that_never_answers_times_out():
    async def hang(context: Any) -> Any:
        await asyncio.sleep(3600)

    # --roots-timeout shortens the wait (default 3 s): the message names the time the server waited
    _roots_failure({"list_roots": hang}, "did not answer roots/list within 0.5 s", "--roots-timeout", "0.5")


def test_the_roots_timeout_must_be_seconds_above_zero():
    for bad in ("0", "-1", "soon", "nan", "100000"):
        done = run_cli("mcp", "--roots-timeout", bad, "--workspace", str(DEMO))
        assert done.returncode == 2 and b"expected a number of seconds above 0 and at most 86400" in done.stderr


def test_print_config_for_each_client():
    ws = str(DEMO.resolve())
    command = shlex.split(mcp_config(str(DEMO), "claude-code"))
    assert command[:6] == ["claude", "mcp", "add", "--transport", "stdio", "semaprax"]
    assert command[6] == "--" and command[8:] == ["mcp", "--workspace", ws] and Path(command[7]).is_absolute()
    codex_cfg = tomllib.loads(mcp_config(str(DEMO), "codex"))["mcp_servers"]["semaprax"]
    assert codex_cfg["command"] == command[7] and codex_cfg["args"] == ["mcp", "--workspace", ws]
    vscode = json.loads(mcp_config(str(DEMO), "vscode"))["servers"]["semaprax"]
    assert vscode == {"type": "stdio", "command": command[7], "args": ["mcp", "--workspace", ws]}
    done = run_cli("mcp", "--print-config", "codex", "--workspace", str(DEMO))
    assert done.returncode == 0 and tomllib.loads(done.stdout.decode())["mcp_servers"]["semaprax"]["args"][0] == "mcp"
    bad = run_cli("mcp", "--print-config", "emacs")
    assert bad.returncode == 2 and b"invalid choice" in bad.stderr


def test_a_cancelled_call_leaves_the_server_serving(tmp_path):
    from serverkit import generate_workspace

    big = generate_workspace(tmp_path, 200)
    session = McpSession("--workspace", str(big))
    try:
        async def cancel_slow() -> None:
            slow = asyncio.ensure_future(session.session.call_tool(
                "compact_projection", {"profile": "references", "root": "big.m1.f1"}))
            await asyncio.sleep(0.3)
            slow.cancel()
            with pytest.raises(asyncio.CancelledError):
                await slow

        session.run(cancel_slow())
        r = session.call("compact_projection", {"profile": "graph", "root": "big/m3.py", "encoding": "text"})
        assert not r.is_error and r.content[0].text.startswith("SEMAPRAX-TEXT 1\n")
    finally:
        session.close()
