"""Servers that cannot be knocked over: each bad message gets an answer (an error
with its code from the one table, servers/failures.py) and the server goes on
serving, for ``semaprax mcp`` (line framing) and ``semaprax serve`` (LSP framing),
each a real subprocess fed raw bytes."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any

from serverkit import CLI, DEMO, ROOT, frame, run_cli, unframe

from servers.failures import jsonrpc_code

#: A 2 KB request nested 980 deep (it killed ``semaprax serve`` with a RecursionError).
DEEP = "[" * 980 + "]" * 980
LIMIT = 4000


def _mcp(lines: list[bytes], want: set[Any], *args: str) -> tuple[dict[Any, dict], int]:
    """Feed ``lines`` to ``semaprax mcp`` and collect responses until every id in
    ``want`` (None for id-less errors, counted) is answered; then end the input."""
    proc = subprocess.Popen([*CLI, "mcp", "--workspace", str(DEMO), *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    got: dict[Any, dict] = {}
    nulls = 0

    def feed() -> None:
        for line in lines:
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    timer = threading.Timer(120, proc.kill)
    timer.start()
    try:
        while not want <= set(got):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            message = json.loads(line)
            if message.get("id") is None:
                nulls += 1
                got.setdefault(None, message)
            else:
                got[message["id"]] = message
        writer.join()
        proc.stdin.close()
        assert proc.wait(30) == 0
        assert b"Traceback" not in proc.stderr.read()
    finally:
        timer.cancel()
        proc.kill()
    return got, nulls


def _json(message: dict) -> bytes:
    return json.dumps(message).encode()


INIT = [_json({"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "raw", "version": "1"}}}),
        _json({"jsonrpc": "2.0", "method": "notifications/initialized"})]
CALL = {"name": "compact_projection", "arguments": {"profile": "graph", "root": "pkg/util.py", "encoding": "text"}}


def test_mcp_answers_every_bad_message_and_goes_on():
    deep = ('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"compact_projection",'
            f'"arguments":{{"profile":{DEEP}}}}}}}').encode()
    assert 1900 < len(deep) < 2100
    big = _json({"jsonrpc": "2.0", "id": 12, "method": "tools/call",
                 "params": {"name": "compact_projection", "arguments": {"root": "x" * (LIMIT * 3)}}})
    lines = [*INIT, deep,
             _json({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": [1, 2]}),
             big,
             b"not json",
             _json({"jsonrpc": "2.0", "id": 14, "method": 7}),
             _json({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": CALL})]
    got, nulls = _mcp(lines, {10, 11, 12, 13, 14, None}, "--max-message-bytes", str(LIMIT))
    assert got[10]["error"]["code"] == jsonrpc_code("semaprax.limit") and "nested" in got[10]["error"]["message"]
    assert got[11]["error"]["code"] == jsonrpc_code("semaprax.params") and "array" in got[11]["error"]["message"]
    assert got[12]["error"]["code"] == jsonrpc_code("semaprax.limit")
    assert "--max-message-bytes 4,000" in got[12]["error"]["message"]
    assert got[None]["error"]["code"] == jsonrpc_code("jsonrpc.parse") and nulls == 1
    assert got[14]["error"]["code"] == jsonrpc_code("jsonrpc.request")
    result = got[13]["result"]
    assert not result.get("isError") and result["content"][0]["text"].startswith("SEMAPRAX-TEXT 1\n")
    assert "structuredContent" not in result


def test_mcp_default_limit_refuses_a_16_mib_line_and_goes_on():
    big = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"pad":"' + b"x" * (16 << 20) + b'"}}'
    lines = [*INIT, big, _json({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": CALL})]
    got, _ = _mcp(lines, {5, 6})
    assert got[5]["error"]["data"]["code"] == "semaprax.limit"
    assert "4,194,304" in got[5]["error"]["message"]
    assert got[6]["result"]["content"][0]["text"].startswith("SEMAPRAX-TEXT 1\n")


def test_lsp_answers_every_bad_message_and_goes_on():
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    deep = ('{"jsonrpc":"2.0","id":2,"method":"workspace/compact-projection","params":{"profile":'
            f'{DEEP}}}}}').encode()
    good = {"profile": "graph", "root": "pkg/util.py", "encoding": "text"}
    requests = b"".join([
        frame(init),
        b"Content-Length: %d\r\n\r\n" % len(deep) + deep,
        frame({"jsonrpc": "2.0", "id": 3, "method": "workspace/compact-projection", "params": [1, 2]}),
        frame({"jsonrpc": "2.0", "id": 4, "method": "workspace/compact-projection",
               "params": {**good, "root": "y" * (LIMIT * 2)}}),
        frame({"jsonrpc": "2.0", "id": 5, "method": "workspace/compact-projection",
               "params": {**good, "root": "z" * 300 + ".py"}}),
        frame({"jsonrpc": "2.0", "id": 6, "method": "workspace/compact-projection", "params": good}),
        frame({"jsonrpc": "2.0", "id": 7, "method": "workspace/compact-projection", "params": {**good, "x": 1}}),
    ])  # the input ends: the server answers what it has and stops (shutdown would not wait for id 6)
    done = run_cli("serve", "--workspace", str(DEMO), "--max-message-bytes", str(LIMIT), input=requests)
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    by_id = {m["id"]: m for m in unframe(done.stdout)}
    assert sorted(by_id) == [1, 2, 3, 4, 5, 6, 7]
    assert by_id[2]["error"]["code"] == jsonrpc_code("semaprax.limit")
    assert by_id[3]["error"]["code"] == jsonrpc_code("semaprax.params")
    assert by_id[4]["error"]["code"] == jsonrpc_code("semaprax.limit")
    long_name = by_id[5]["error"]
    assert long_name["code"] == jsonrpc_code("semaprax.params") and "ENAMETOOLONG" in long_name["message"]
    assert by_id[6]["result"]["wire"].startswith("SEMAPRAX-TEXT 1\n")


def test_lsp_errors_name_no_path_of_the_servers_machine(tmp_path):
    ws, out = tmp_path / "ws", tmp_path / "elsewhere"
    ws.mkdir()
    out.mkdir()
    (out / "there.py").write_text("x = 1\n")
    (ws / "a.py").write_text("def f():\n    return 1\n")
    (ws / "link").symlink_to(out)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    roots = ["link/there.py", "link/not-there.py", "nope.py", str(out / "there.py"), "link"]
    requests = frame(init) + b"".join(
        frame({"jsonrpc": "2.0", "id": n + 2, "method": "workspace/compact-projection",
               "params": {"profile": "graph", "root": r, "encoding": "json"}}) for n, r in enumerate(roots))
    done = run_cli("serve", "--workspace", str(ws), input=requests)
    errors = {m["id"]: m["error"] for m in unframe(done.stdout) if "error" in m}
    assert sorted(errors) == [2, 3, 4, 5, 6]
    for n, root in enumerate(roots):
        message = errors[n + 2]["message"]
        assert str(ws) not in message.replace(root, "") and str(tmp_path) not in message.replace(root, "")
    outside = {errors[n + 2]["message"].replace(repr(r), "ROOT") for n, r in enumerate(roots) if r != "nope.py"}
    assert len(outside) == 1, outside  # the same words whether or not something is there


def test_a_server_started_with_a_bad_limit_says_so():
    done = run_cli("serve", "--max-message-bytes", "0")
    assert done.returncode == 2 and b"positive integer" in done.stderr


def test_lsp_reports_progress_for_a_work_done_token():
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    params = {"profile": "graph", "root": "pkg/util.py", "encoding": "text", "workDoneToken": "tok-1"}
    done = run_cli("serve", "--workspace", str(DEMO), input=frame(init) + frame(
        {"jsonrpc": "2.0", "id": 2, "method": "workspace/compact-projection", "params": params}))
    messages = unframe(done.stdout)
    progress = [m["params"] for m in messages if m.get("method") == "$/progress"]
    assert all(p["token"] == "tok-1" for p in progress)
    kinds = [p["value"]["kind"] for p in progress]
    assert kinds[0] == "begin" and kinds[-1] == "end" and kinds.count("report") == 2
    answer = next(m for m in messages if m.get("id") == 2)
    assert answer["result"]["wire"].startswith("SEMAPRAX-TEXT 1\n")
    at = messages.index(answer)
    assert any(m.get("method") == "$/progress" for m in messages[:at])
