"""``semaprax tap``: a stdio MCP proxy that forwards every byte unchanged and
records each message; ``servers.session`` reads the record back into calls.

The proxy is tested the way a client uses it: the MCP SDK's own stdio client
talks through the tap to ``semaprax mcp`` and to a server that is not ours
(tests/fixtures/foreign_mcp), and sees exactly what a direct connection gives."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sessionkit import recorder, records, session_lines

from servers.session import is_session, model_reads, parse_session, read_session
from servers.tap import _Splitter
from views.tokens import count_tokens

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "fixtures" / "demo"
FOREIGN = [sys.executable, str(ROOT / "tests" / "fixtures" / "foreign_mcp" / "server.py")]
OURS = [sys.executable, "-m", "semaprax", "mcp", "--workspace", str(DEMO)]
TAP = [sys.executable, "-m", "semaprax", "tap"]


def tapped(session: Path, server: list[str]) -> list[str]:
    return [*TAP, "--session", str(session), "--", *server]


async def _calls(command: list[str], calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        init = await client.initialize()
        tools = await client.list_tools()
        results = [await client.call_tool(name, args) for name, args in calls]
    dump = {"by_alias": True, "exclude_none": True, "mode": "json"}
    return {"server": init.server_info.name, "tools": tools.model_dump(**dump),
            "results": [r.model_dump(**dump) for r in results]}


def through(command: list[str], calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return asyncio.run(asyncio.wait_for(_calls(command, calls), 120))


FOREIGN_CALLS = [("shout", {"text": "héllo"}), ("measure", {"text": "a b c"}), ("fail", {"reason": "no way"})]
OUR_CALLS = [("compact_projection", {"profile": "graph", "root": "app.py"}),
             ("compact_projection", {"profile": "graph", "root": "app.py", "encoding": "model-text"}),
             ("compact_projection", {"profile": "graph", "root": "no_such.py"})]


@pytest.mark.parametrize("server, calls", [(FOREIGN, FOREIGN_CALLS), (OURS, OUR_CALLS)], ids=["foreign", "ours"])
def test_a_client_sees_through_the_tap_what_it_sees_directly(tmp_path: Path, server: list[str],
                                                            calls: list[tuple[str, dict[str, Any]]]) -> None:
    session = tmp_path / "s.jsonl"
    direct = through(server, calls)
    proxied = through(tapped(session, server), calls)
    assert proxied == direct
    recorded = read_session(str(session))
    assert [c.tool for c in recorded.calls] == [name for name, _ in calls]
    for call, result in zip(recorded.calls, proxied["results"], strict=True):
        # what the session says the model reads is what the client was handed
        assert call.response is not None
        raw = call.response["result"]
        assert {key: result[key] for key in raw} == raw  # the client's model adds defaults only
        texts = "\n".join(b["text"] for b in result["content"] if b["type"] == "text")
        assert call.readings["text"].text == texts
        structured = result.get("structuredContent")
        expected = json.dumps(structured, ensure_ascii=False, separators=(",", ":")) if structured is not None \
            else texts
        assert call.readings["structured"].text == expected
        assert call.readings["text"].tokens == count_tokens(texts)
        assert call.is_error == result.get("isError", False)
        assert call.latency is not None and call.latency >= 0


def test_every_byte_passes_unchanged_both_ways_and_each_message_is_recorded(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    sent = (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n' b"not json at all\r\n" b'{"id":"\xc3\xa9"}\n'
            b"\x00\xff binary\n" + b'{"big":"' + b"x" * 300_000 + b'"}\n' + b'{"no":"newline at the end"}')
    done = subprocess.run([*TAP, "--session", str(session), "--", "cat"], input=sent, capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0
    assert done.stdout == sent
    records = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    assert records[0]["semaprax_session"] == 1 and records[0]["command"] == ["cat"]
    for direction in ("c2s", "s2c"):
        mine = [r for r in records[1:] if r["dir"] == direction]
        assert [r["bytes"] for r in mine] == [len(m) for m in sent.split(b"\n")]
        assert mine[0]["message"] == {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert mine[1]["raw"] == "not json at all"
        assert mine[2]["message"] == {"id": "é"}
        assert mine[-1]["message"] == {"no": "newline at the end"}
        times = [r["t"] for r in mine]
        assert times == sorted(times)


def test_an_over_long_message_is_recorded_by_its_size_and_head() -> None:
    rec, out = recorder()
    splitter = _Splitter(rec, "s2c", limit=100)
    for piece in (b'{"a":"' + b"y" * 60, b"y" * 60, b'"}\n{"b":1}\n'):
        splitter.feed(piece)
    first, second = records(out)
    assert first["bytes"] == 128 and first["truncated"] is True and first["raw"].startswith('{"a":"yyy')
    assert second == {"dir": "s2c", "t": second["t"], "bytes": 7, "message": {"b": 1}}


def test_the_tap_exits_with_the_servers_status(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    for status in (0, 3):
        done = subprocess.run([*TAP, "--session", str(session), "--", "sh", "-c", f"exit {status}"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False)
        assert done.returncode == status
    missing = subprocess.run([*TAP, "--session", str(session), "--", "no-such-server-command"],
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False)
    assert missing.returncode == 127
    assert b"cannot start 'no-such-server-command'" in missing.stderr
    usage = subprocess.run([*TAP, "--session", str(session)], capture_output=True, timeout=60, check=False)
    assert usage.returncode == 2 and b"needs the server's command after --" in usage.stderr


def test_signals_are_passed_on_to_the_server(tmp_path: Path) -> None:
    marker = tmp_path / "got"
    script = f"trap 'echo TERM > {marker}; exit 7' TERM; echo ready; while true; do sleep 0.05; done"
    proc = subprocess.Popen([*TAP, "--session", str(tmp_path / "s.jsonl"), "--", "sh", "-c", script],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 7
    assert marker.read_text() == "TERM\n"


def test_what_passed_before_a_crash_is_in_the_session(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    script = 'read line; echo "{\\"id\\":1,\\"result\\":{}}"; kill -9 $$'
    done = subprocess.run([*TAP, "--session", str(session), "--", "sh", "-c", script],
                          input=b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}\n',
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 128 + signal.SIGKILL
    calls = read_session(str(session)).calls
    assert len(calls) == 1 and calls[0].response == {"id": 1, "result": {}}


def test_a_session_is_recognised_and_read_tolerantly() -> None:
    header = b'{"semaprax_session":1,"command":["x"],"started":"2026-12-04T00:00:00Z"}\n'
    assert is_session(header + b"...")
    assert not is_session(b"SEMAPRAX-MODEL-TEXT 2\n") and not is_session(b'{"a":1}\n')
    lines = [header, b"garbage\n", b"[1]\n",
             b'{"dir":"c2s","t":1.0,"bytes":10,"message":{"jsonrpc":"2.0","id":"a","method":"tools/call",'
             b'"params":{"name":"q","arguments":{"k":"' + b"v" * 200 + b'"}}}}\n',
             b'{"dir":"s2c","t":1.5,"bytes":20,"message":{"jsonrpc":"2.0","id":"zz","result":{}}}\n',
             (b'{"dir":"c2s","t":2.0,"bytes":10,"message":{"jsonrpc":"2.0","id":2,"method":"tools/call",'
              b'"params":{"name":"q"}}}\n'),
             (b'{"dir":"s2c","t":2.25,"bytes":30,"message":{"jsonrpc":"2.0","id":2,"error":{"code":-32602,'
              b'"message":"bad root"}}}\n')]
    session = parse_session(lines)
    assert session.header["command"] == ["x"] and session.unreadable_lines == 2
    waiting, failed = session.calls
    assert waiting.response is None and waiting.latency is None and not waiting.is_error
    assert len(waiting.short_arguments) == 80 and waiting.short_arguments.endswith("…")
    assert failed.latency == 0.25 and failed.is_error and failed.readings["text"].text == "bad root"
    total = session.total()
    assert (total.calls, total.errors, total.result_bytes) == (2, 1, 30)


def test_a_response_recorded_just_before_its_request_is_paired_with_it() -> None:
    # Each pump records after forwarding, so a fast answer can reach the file first;
    # the record's t is when each passed the tap, so it stays causal.
    rec, out = recorder()
    up, down = _Splitter(rec, "c2s"), _Splitter(rec, "s2c")
    start = rec._start
    down.feed(b'{"jsonrpc":"2.0","id":0,"result":{}}\n', at=start + 1.25)
    up.feed(b'{"jsonrpc":"2.0","id":0,"method":"initialize"}\n', at=start + 1.0)
    down.feed(b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}\n', at=start + 2.5)
    up.feed(b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"q"}}\n', at=start + 2.0)
    assert [(r["dir"], r["t"]) for r in records(out)] == [("s2c", 1.25), ("c2s", 1.0), ("s2c", 2.5), ("c2s", 2.0)]
    (call,) = parse_session(out.getvalue().splitlines()).calls
    assert call.response is not None and call.latency == 0.5 and call.readings["text"].text == "ok"


def test_what_the_model_reads_under_each_convention() -> None:
    both = {"result": {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x"},
                                   {"type": "text", "text": "b"}], "structuredContent": {"k": "é"}}}
    assert model_reads(both) == {"structured": '{"k":"é"}', "text": "a\nb"}
    plain = {"result": {"content": [{"type": "text", "text": "SEMAPRAX-MODEL-TEXT"}]}}
    assert model_reads(plain) == {"structured": "SEMAPRAX-MODEL-TEXT", "text": "SEMAPRAX-MODEL-TEXT"}


def test_a_sessions_views_replay_against_the_current_sources(tmp_path: Path) -> None:
    import shutil

    import codec
    from servers.route import make_projection
    from servers.session import replay_session

    ws = tmp_path / "ws"
    shutil.copytree(DEMO, ws)
    p = make_projection("graph", "app.py", ws)
    wire = codec.ENCODERS["model-text"](p).decode()
    binary = base64.b64encode(codec.ENCODERS["binary"](p)).decode()
    described = {"profile": "graph", "root": "app.py"}
    lines = session_lines([
        ({"profile": "graph", "root": "app.py", "encoding": "model-text"}, {"content": [{"type": "text", "text": wire}]}),
        ({"profile": "graph", "root": "app.py", "encoding": "binary"}, {"content": [{"type": "text", "text": binary}]}),
        ({"profile": "graph", "root": "app.py"}, {"content": [{"type": "text", "text": p.selected.decode()}],
                                                  "_meta": {"semaprax/projection": described}}),
        ({"profile": "graph", "root": "gone.py"}, {"content": [{"type": "text", "text": "no such root"}],
                                                   "isError": True}),
    ])
    session = parse_session(lines, count=False)
    assert [r.status for r in replay_session(session, str(ws))] == ["same", "same", "same", "not a view"]
    (ws / "app.py").write_text((ws / "app.py").read_text() + "\n\ndef added():\n    return 1\n")
    again = replay_session(session, str(ws))
    assert [r.status for r in again] == ["stale", "stale", "stale", "not a view"]
    assert again[0].detail.startswith("differs at byte ")
    (ws / "app.py").unlink()
    assert [r.status for r in replay_session(session, str(ws))][:3] == ["failed"] * 3
    # the command line: one line per call, exit 1 when any is stale
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    shutil.copy(DEMO / "app.py", ws / "app.py")
    ok = subprocess.run([sys.executable, "-m", "semaprax", "replay", str(path), "--workspace", str(ws)],
                        capture_output=True, text=True, timeout=60, check=False)
    assert ok.returncode == 0, ok.stderr
    assert "3 of 4 calls are views; 0 stale" in ok.stdout
    (ws / "app.py").write_text((ws / "app.py").read_text() + "\nx = 1\n")
    stale = subprocess.run([sys.executable, "-m", "semaprax", "replay", str(path), "--workspace", str(ws)],
                           capture_output=True, text=True, timeout=60, check=False)
    assert stale.returncode == 1 and "call 1 compact_projection" in stale.stdout and ": stale: differs" in stale.stdout


def test_the_example_sessions_show_what_the_model_reads_before_and_after_text_only_results() -> None:
    """examples/sessions: today's semaprax mcp gives every client the wire itself;
    the session recorded before results became text only shows structured-first
    clients reading the metadata object instead of the view."""
    now = read_session(str(ROOT / "examples" / "sessions" / "demo.jsonl"))
    before = read_session(str(ROOT / "examples" / "sessions" / "structured-content-hides-the-wire.jsonl"))
    assert len(now.calls) == len(before.calls) == 6
    for call in now.calls:
        assert call.readings["structured"].text == call.readings["text"].text
    for call in before.calls[:5]:
        assert call.readings["structured"].text != call.readings["text"].text
        assert call.readings["structured"].text.startswith('{"format_version":')


def _raw_exchange(command: list[str], lines: list[bytes], answers: int) -> bytes:
    """Send ``lines`` to a server on stdio one at a time, each after the answers
    so far have come (as a client waits for its responses), and return every byte
    the server wrote until ``answers`` responses have come."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            cwd=str(ROOT))
    assert proc.stdin is not None and proc.stdout is not None
    got = b""
    try:
        for line in lines:
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            if b'"id"' in line:  # a request: wait for its answer
                got += proc.stdout.readline()
        assert got.count(b"\n") == answers
    finally:
        proc.stdin.close()
        proc.wait(30)
    return got


@pytest.mark.parametrize("server", [FOREIGN, OURS], ids=["foreign", "ours"])
def test_the_bytes_a_client_receives_through_the_tap_are_the_bytes_it_receives_directly(
        tmp_path: Path, server: list[str]) -> None:
    def request(i: int, method: str, params: dict[str, Any]) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}).encode()

    calls = FOREIGN_CALLS if server is FOREIGN else OUR_CALLS
    lines = [request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "raw", "version": "1"}}),
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
             request(2, "tools/list", {}),
             *(request(3 + i, "tools/call", {"name": name, "arguments": args}) for i, (name, args) in enumerate(calls))]
    direct = _raw_exchange(server, lines, 2 + len(calls))
    through_tap = _raw_exchange(tapped(tmp_path / "s.jsonl", server), lines, 2 + len(calls))
    assert through_tap == direct
    sizes = [r["bytes"] for r in map(json.loads, (tmp_path / "s.jsonl").read_text().splitlines()[1:])
             if r["dir"] == "s2c"]
    assert sizes == [len(line) for line in direct.splitlines()]


def test_the_pumps_leave_the_signals_to_the_thread_that_passes_them_on(tmp_path: Path, monkeypatch) -> None:
    # a signal the kernel gives a pump thread never reaches the handler (the main thread sleeps in
    # wait()): the pumps run with the signals the tap passes on blocked
    from servers import tap

    masks: list[set[int]] = []
    pump = tap._pump

    def seen(*args: Any) -> None:
        masks.append(set(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        pump(*args)

    monkeypatch.setattr(tap, "_pump", seen)
    read, write = os.pipe()
    os.close(write)  # the client sends nothing
    out_read, out_write = os.pipe()
    try:
        assert tap.run_tap(str(tmp_path / "s.jsonl"), ["sh", "-c", "exit 3"], stdin=read, stdout=out_write) == 3
    finally:
        for fd in (read, out_read, out_write):
            os.close(fd)
    assert len(masks) == 2 and all(set(tap.PASSED_ON) <= m for m in masks), masks
    assert not set(tap.PASSED_ON) & set(signal.pthread_sigmask(signal.SIG_BLOCK, []))  # this thread's unblocked
