"""A root that is not UTF-8 text (a lone surrogate: how Python spells a file name
whose bytes are not UTF-8) gets one diagnostic everywhere, never a traceback and
never silence: the CLI exits 1 with it, ``semaprax serve`` answers it as a
semaprax.workspace error, and ``semaprax mcp`` (whose SDK cannot parse such a
string) answers it as the same tool error and goes on serving. The spelling is
the one the workspace-wide views use when they skip such a file (``caf\\xe9.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from serverkit import LspSession, run_cli
from test_robust import INIT, _json, _mcp

from servers.failures import jsonrpc_code

LATIN1 = os.fsdecode(b"caf\xe9.py")  # 'caf\udce9.py'
SPELLED = "caf\\xe9.py"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / LATIN1).write_text("def g():\n    return 2\n")
    folder = tmp_path / os.fsdecode(b"d\xe9r")
    folder.mkdir()
    (folder / "m.py").write_text("x = 1\n")
    return tmp_path


@pytest.mark.parametrize("profile,root", [
    ("graph", LATIN1), ("symbols", LATIN1), ("diagnostics", LATIN1), ("project-graph", LATIN1),
    ("graph", os.fsdecode(b"d\xe9r/m.py")), ("symbols", os.fsdecode(b"d\xe9r")),
    ("references", "a.zz\udce9"), ("task-context", "a.zz\udce9"),
])
def test_the_cli_says_the_root_is_not_utf8(ws, profile, root):
    done = run_cli("project", root, "--profile", profile, "--workspace", str(ws))
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert done.returncode == 1, err
    assert "Traceback" not in err
    assert "is not UTF-8" in err and ("\\xe9" in err)
    assert err.count("\n") == 1  # one diagnostic, nothing else


def test_the_workspace_wide_views_skip_the_file_under_the_same_spelling(ws):
    done = run_cli("project", ".", "--profile", "symbols", "--workspace", str(ws))
    assert done.returncode == 0
    assert f"skipped {SPELLED}: its name is not UTF-8" in done.stderr.decode()
    refused = run_cli("project", LATIN1, "--profile", "symbols", "--workspace", str(ws))
    assert f"root {SPELLED} is not UTF-8" in refused.stderr.decode()


def test_serve_answers_the_diagnostic_and_goes_on(ws):
    lsp = LspSession("--workspace", str(ws))
    try:
        for root in (LATIN1, "zz\udce9", "zz\ud800"):
            exc = lsp.error({"profile": "graph", "root": root, "encoding": "text"})
            assert exc.code == jsonrpc_code("semaprax.workspace"), exc
            assert "is not UTF-8" in exc.message and "internal" not in exc.message
        exc = lsp.error({"profile": "references", "root": "a.zz\udce9", "encoding": "text"})
        assert exc.message.startswith("symbol a.zz\\xe9 is not UTF-8")
        ok = lsp.request({"profile": "graph", "root": "a.py", "encoding": "text"})
        assert ok["wire"].startswith("SEMAPRAX-TEXT 1\n")
    finally:
        assert lsp.close() == 0


def _call(ident: int, **arguments: str) -> bytes:
    return _json({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                  "params": {"name": "compact_projection", "arguments": arguments}})


def test_mcp_answers_every_request_holding_a_lone_surrogate_and_goes_on(ws):
    lines = [*INIT,
             _call(20, profile="graph", root="zz\udce9", encoding="text"),
             _call(21, profile="graph", root=LATIN1),
             _call(22, profile="graph", root="a.py", encoding="te\udce9xt"),
             _json({"jsonrpc": "2.0", "id": 23, "method": "tools/li\udce9st"}),
             _json({"jsonrpc": "2.0", "method": "notifications/x\udce9"}),  # a notification: no answer
             _json({"jsonrpc": "2.0", "id": "r\udce9", "method": "tools/list"}),  # answered with id null
             _call(24, profile="graph", root="a.py", encoding="text")]
    got, nulls = _mcp(lines, {20, 21, 22, 23, 24, None}, "--workspace", str(ws))
    assert nulls == 1 and got[None]["error"]["code"] == jsonrpc_code("semaprax.params")
    for ident, spelled in ((20, "zz\\xe9"), (21, SPELLED)):
        result = got[ident]["result"]
        assert result["isError"] is True
        error = result["_meta"]["semaprax/error"]
        assert error["code"] == "semaprax.workspace"
        assert error["message"].startswith(f"root {spelled} is not UTF-8")
        assert result["content"][0]["text"].startswith(f"semaprax.workspace: root {spelled} is not UTF-8")
    assert got[22]["result"]["_meta"]["semaprax/error"]["code"] == "semaprax.params"
    assert got[23]["error"]["code"] == jsonrpc_code("semaprax.params")
    assert "method" in got[23]["error"]["message"]
    assert got[24]["result"]["content"][0]["text"].startswith("SEMAPRAX-TEXT 1\n")


def test_an_absolute_root_is_judged_below_the_workspace(ws, tmp_path_factory):
    refused = run_cli("project", str(ws / LATIN1), "--profile", "graph", "--workspace", str(ws))
    assert refused.returncode == 1 and f"root {SPELLED} is not UTF-8" in refused.stderr.decode()
    # a workspace whose own name is not UTF-8: its files are named below it, in UTF-8
    odd = tmp_path_factory.mktemp("x") / os.fsdecode(b"w\xe9s")
    odd.mkdir()
    (odd / "a.py").write_text("def f():\n    return 1\n")
    for root in ("a.py", str(odd / "a.py")):
        done = run_cli("project", root, "--profile", "graph", "--workspace", str(odd))
        assert done.returncode == 0 and done.stdout.startswith(b"{\"path\":\"a.py\""), done.stderr
