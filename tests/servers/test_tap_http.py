"""The Streamable HTTP tap: the MCP SDK's own Streamable HTTP client talks to a
server written on the SDK (tests/fixtures/foreign_mcp) directly and through
``semaprax tap --listen … --upstream …`` on loopback, and sees the same; the
session records each message of both directions, event streams included."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sessionkit import recorder, records

from servers.session import read_session
from servers.tap_http import SseSplitter, parse_listen

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "fixtures" / "foreign_mcp" / "server.py"
CALLS = [("shout", {"text": "héllo"}), ("measure", {"text": "a b c"}), ("fail", {"reason": "no way"})]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, "the process ended before it listened"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listened on {port}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def upstream() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), "--http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(proc)


async def _calls(url: str) -> dict[str, Any]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as client:
        await client.initialize()
        tools = await client.list_tools()
        results = [await client.call_tool(name, args) for name, args in CALLS]
    dump = {"by_alias": True, "exclude_none": True, "mode": "json"}
    return {"tools": tools.model_dump(**dump), "results": [r.model_dump(**dump) for r in results]}


def through(url: str) -> dict[str, Any]:
    return asyncio.run(asyncio.wait_for(_calls(url), 60))


def test_a_streamable_http_client_sees_through_the_tap_what_it_sees_directly(upstream: str,
                                                                             tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    port = free_port()
    tap = subprocess.Popen([sys.executable, "-m", "semaprax", "tap", "--session", str(session),
                            "--listen", f"127.0.0.1:{port}", "--upstream", upstream],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ))
    try:
        wait_listening(port, tap)
        direct = through(upstream)
        proxied = through(f"http://127.0.0.1:{port}/mcp")
    finally:
        stop(tap)
    assert proxied == direct
    records = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    assert records[0]["command"] == ["--upstream", upstream]
    methods = [r["message"].get("method") for r in records[1:] if r["dir"] == "c2s"]
    assert methods[:2] == ["initialize", "notifications/initialized"] and methods.count("tools/call") == 3
    calls = read_session(str(session)).calls
    assert [c.tool for c in calls] == [name for name, _ in CALLS]
    for call, result in zip(calls, proxied["results"], strict=True):
        assert call.response is not None
        assert {key: result[key] for key in call.response["result"]} == call.response["result"]
        assert call.is_error == result["isError"]


def test_the_tap_says_what_is_wrong_with_its_arguments(tmp_path: Path) -> None:
    tap = [sys.executable, "-m", "semaprax", "tap", "--session", str(tmp_path / "s.jsonl")]
    half = subprocess.run([*tap, "--listen", "127.0.0.1:1"], capture_output=True, text=True, timeout=60, check=False)
    assert half.returncode == 2 and "--listen and --upstream go together" in half.stderr
    both = subprocess.run([*tap, "--listen", "127.0.0.1:1", "--upstream", "http://x/", "--", "cat"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert both.returncode == 2 and "not both" in both.stderr
    bad = subprocess.run([*tap, "--listen", "nowhere", "--upstream", "http://127.0.0.1:9/"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "--listen takes HOST:PORT" in bad.stderr
    scheme = subprocess.run([*tap, "--listen", "127.0.0.1:9", "--upstream", "ftp://x/"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert scheme.returncode == 2 and "http:// or https:// URL" in scheme.stderr
    assert parse_listen("[::1]:8080") == ("::1", 8080)


def test_event_streams_are_cut_into_messages_across_chunks() -> None:
    rec, out = recorder()
    events = SseSplitter(rec)
    stream = (b'event: message\r\nid: 1\r\ndata: {"jsonrpc":"2.0","id":1,\r\n'
              b'data: "result":{}}\r\n\r\n: keep-alive\n\ndata:{"b":2}\n\n')
    for i in range(0, len(stream), 7):
        events.feed(stream[i:i + 7])
    events.finish()
    first, second = records(out)
    assert first["message"] == {"jsonrpc": "2.0", "id": 1, "result": {}} and first["bytes"] == 37
    assert second["message"] == {"b": 2} and second["dir"] == "s2c"
