"""Fuzzing both servers' framing and parameters: the MCP and LSP message shapes,
mutated, sent to a real ``semaprax mcp`` / ``semaprax serve`` subprocess. The
oracle: every request that carries an id gets exactly one response, only error
responses or results (never a traceback on stderr), and the server is still
serving at the end (a final request is answered).

    python -m fuzz.servers {mcp,lsp} [--count N] [--seed S] [--workspace DIR]

exits 1 and prints the first failing message (repr) when the oracle fails. The
mutations are deterministic for a seed: structure (drop, retype, nest, array
params, huge or odd ids, unknown keys) and bytes (flip, cut, insert, duplicate).
tests/servers/test_fuzz_servers.py runs a short campaign of each.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tests" / "fixtures" / "demo"

MCP_SEEDS: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "compact_projection", "arguments": {
        "profile": "graph", "root": "pkg/util.py", "encoding": "text"}}},
    {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "compact_projection", "arguments": {
        "profile": "task-context", "root": "pkg.core.Engine.run", "accept": [
            {"format_version": 2, "encoding": "model-text", "profile": "task-context"}]}}},
    {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "find_roots", "arguments": {
        "profile": "symbols", "query": "core", "limit": 3}}},
    {"jsonrpc": "2.0", "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "method": "ping"},
]
LSP_SEEDS: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "method": "workspace/compact-projection", "params": {
        "profile": "graph", "root": "pkg/util.py", "encoding": "text"}},
    {"jsonrpc": "2.0", "method": "workspace/compact-projection", "params": {
        "profile": "references", "root": "pkg.core.Engine", "format_version": 1, "encoding": "binary",
        "max_tokens": 5000}},
    {"jsonrpc": "2.0", "method": "workspace/compact-projection", "params": {
        "profile": "symbols", "root": ".", "accept": [{"format_version": 1, "encoding": "text",
                                                      "profile": "symbols"}]}},
    {"jsonrpc": "2.0", "method": "textDocument/hover", "params": {
        "textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}}},
]
_ODD = [None, True, 0, -1, 2**63, 1.5, "", "x" * 300, [], {}, [1, 2], {"a": {"b": [None]}}, "../../etc/passwd",
        "\u0000", "\udcff".encode("utf-8", "surrogatepass").decode("utf-8", "replace"), "pkg/" * 80 + "a.py"]


def _odd(rng: random.Random) -> Any:
    """An odd value, a fresh copy (never shared between messages)."""
    return json.loads(json.dumps(rng.choice(_ODD)))


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _leaves(v, (*path, i))
    return out


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return value


_DEEP = "\u0000deep:"


def encode(message: dict[str, Any] | bytes) -> bytes:
    """The bytes of a mutated message, its deep-nesting markers spelt out."""
    if isinstance(message, bytes):
        return message
    data = json.dumps(message).encode()
    marker = json.dumps(_DEEP).encode()[:-1]
    while marker in data:
        at = data.index(marker)
        end = data.index(b'"', at + len(marker))
        depth = int(data[at + len(marker):end])
        data = data[:at] + b"[" * depth + b"1" + b"]" * depth + data[end + 1:]
    return data


def mutate(seed: dict[str, Any], rng: random.Random) -> dict[str, Any] | bytes:
    """One mutated message: a JSON value (structure mutations) or raw bytes."""
    message = json.loads(json.dumps(seed))
    for _ in range(rng.randint(1, 3)):
        paths = _leaves(message)
        path = rng.choice(paths)
        kind = rng.randrange(7)
        if kind == 0 and path:
            parent = message
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, dict):
                parent.pop(path[-1], None)
        elif kind == 1:
            message = _set(message, path, _odd(rng))
        elif kind == 2:  # deep nesting, spelt out when the message is serialized (see encode)
            message = _set(message, path, f"{_DEEP}{rng.choice([3, 60, 70, 500, 980, 5000])}")
        elif kind == 3 and isinstance(message, dict):
            message["params"] = [message.get("params")]
        elif kind == 4 and isinstance(message, dict):
            message[rng.choice(["extra", "id", "jsonrpc", "method", "result", "error"])] = _odd(rng)
        elif kind == 5:
            data = encode(message)
            for _ in range(rng.randint(1, 4)):
                if not data:
                    break
                at = rng.randrange(len(data))
                op = rng.randrange(3)
                if op == 0:
                    data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
                elif op == 1:
                    data = data[:at]
                else:
                    data = data[:at] + data[rng.randrange(len(data)):]
            return data.replace(b"\n", b" ").replace(b"\r", b" ") or b"{"
        elif isinstance(message, dict) and isinstance(message.get("params"), dict):
            message["params"][rng.choice(["encodings", "format_version", "name", "arguments", "root"])] = \
                _odd(rng)
    return message


class Campaign:
    """A real server subprocess fed mutated messages; ``run`` returns None when
    the oracle holds, else a description of the failure."""

    def __init__(self, server: str, workspace: Path = DEMO) -> None:
        self.server = server
        self.workspace = workspace

    def _frame(self, body: bytes) -> bytes:
        if self.server == "mcp":
            return body + b"\n"
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def run(self, count: int, seed: int = 0) -> str | None:
        rng = random.Random(seed)
        seeds = MCP_SEEDS if self.server == "mcp" else LSP_SEEDS
        bodies: list[bytes] = []
        expected: set[int] = set()
        if self.server == "mcp":
            bodies += [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "1"}}}).encode(),
                b'{"jsonrpc":"2.0","method":"notifications/initialized"}']
        else:
            bodies.append(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                      "params": {"capabilities": {}}}).encode())
        expected.add(0)
        for n in range(1, count + 1):
            mutated = mutate(rng.choice(seeds), rng)
            if isinstance(mutated, dict):
                if rng.random() < 0.9 or "id" not in mutated:
                    mutated["id"] = 100_000 + n  # an id this campaign can wait for
                if (mutated.get("id") == 100_000 + n and mutated.get("method") not in (None, "exit", "shutdown")
                        and isinstance(mutated.get("method"), str) and mutated.get("jsonrpc") == "2.0"):
                    expected.add(100_000 + n)
            bodies.append(encode(mutated))
        final = 999_999
        sentinel = ({"jsonrpc": "2.0", "id": final, "method": "ping"} if self.server == "mcp" else
                    {"jsonrpc": "2.0", "id": final, "method": "workspace/compact-projection",
                     "params": {"profile": "graph", "root": "pkg/util.py", "encoding": "text"}})
        bodies.append(json.dumps(sentinel).encode())
        expected.add(final)
        return self._send(bodies, expected)

    def _send(self, bodies: list[bytes], expected: set[int]) -> str | None:
        args = [sys.executable, "-m", "semaprax", self.server if self.server == "mcp" else "serve",
                "--workspace", str(self.workspace)]
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=ROOT)
        seen: dict[int, int] = {}

        def feed() -> None:
            try:
                for body in bodies:
                    assert proc.stdin is not None
                    proc.stdin.write(self._frame(body))
                    proc.stdin.flush()
            except BrokenPipeError:
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        timer = threading.Timer(300, proc.kill)
        timer.start()
        failure = None
        try:
            assert proc.stdout is not None
            while not expected <= set(seen):  # requests answered on worker threads may follow the final one
                if 999_999 in seen and timer.interval > 30:
                    timer.cancel()
                    timer = threading.Timer(30, proc.kill)
                    timer.start()
                message = self._read(proc.stdout)
                if message is None:
                    failure = ("the server stopped before answering the final request" if 999_999 not in seen
                               else None)
                    break
                ident = message.get("id")
                if isinstance(ident, int):
                    seen[ident] = seen.get(ident, 0) + 1
                if "result" not in message and "error" not in message and "method" not in message:
                    failure = f"neither a result nor an error: {message!r}"[:500]
                    break
        finally:
            timer.cancel()
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        stderr = proc.stderr.read()
        if failure is None and b"Traceback" in stderr:
            failure = "a traceback on stderr: " + stderr.decode("utf-8", "replace")[-1500:]
        if failure is None:
            missing = sorted(expected - set(seen))
            doubled = sorted(i for i, c in seen.items() if c > 1 and i >= 100_000)  # ours, never reused
            if missing:
                failure = f"no response to ids {missing[:10]}"
            elif doubled:
                failure = f"more than one response to ids {doubled[:10]}"
        return failure

    def _read(self, out: Any) -> dict[str, Any] | None:
        if self.server == "mcp":
            line = out.readline()
            return json.loads(line) if line else None
        length = None
        while True:
            line = out.readline()
            if not line:
                return None
            if not line.strip():
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if length is None:
            return None
        return json.loads(out.read(length))  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.servers", description=__doc__.split("\n\n")[0])
    ap.add_argument("server", choices=["mcp", "lsp"])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workspace", type=Path, default=DEMO)
    args = ap.parse_args(argv)
    failure = Campaign(args.server, args.workspace).run(args.count, args.seed)
    if failure is not None:
        print(f"{args.server} seed {args.seed}: {failure}", file=sys.stderr)
        return 1
    print(f"{args.server} seed {args.seed}: {args.count} mutated messages, every request answered, still serving")
    return 0


if __name__ == "__main__":
    sys.exit(main())
