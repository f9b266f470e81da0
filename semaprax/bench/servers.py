"""First and second request times of the compact-projection route with the warm
index (analysis/warm.py), on the bundled examples and on a 70-file workspace
copied from the standard library.

For each workspace and index-backed profile (task-context, references) it times
the first request on a fresh IndexCache (a cold analysis), the same request again,
and a request for another symbol, all through ``route.answer`` as the servers call
it; then the same first/second pair through a real ``semaprax serve`` process over
stdio. Medians over ``--repeat`` rounds, with the spread (min-max). A benchmark,
not a test: it prints figures and asserts nothing about time.

    semaprax bench servers [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from analysis.sources import Workspace
from analysis.warm import IndexCache
from servers import roots, route

HERE = Path(__file__).resolve().parents[2]  # the checkout (examples/)
STDLIB_PACKAGES = ("email", "asyncio", "json", "http")
STDLIB_FILES = 70


def stdlib_workspace(folder: Path) -> Path:
    """The first 70 .py files (bytewise path order) of a few stdlib packages."""
    std = Path(sysconfig.get_paths()["stdlib"])
    files = sorted((p.relative_to(std).as_posix() for pkg in STDLIB_PACKAGES for p in (std / pkg).rglob("*.py")
                    if "__pycache__" not in p.parts), key=str.encode)[:STDLIB_FILES]
    for rel in files:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(std / rel, folder / rel)
    return folder


def symbols_of(folder: Path) -> tuple[str, str]:
    """Two of the workspace's largest functions or methods: the one asked twice
    and the other one."""
    found = [r for r in roots.candidates(Workspace(folder), "task-context") if "." in r.root and r.lines > 1]
    found.sort(key=lambda r: (-r.lines, r.root))
    return found[0].root, found[1].root


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def in_process(folder: Path, profile: str, symbol: str, other: str, repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"first": [], "second": [], "other": []}
    for _ in range(repeat):
        cache = IndexCache()

        def ask(root: str, cache: IndexCache = cache) -> None:
            route.answer(route.Request(profile, root, "model-text"), folder, index_cache=cache)

        out["first"].append(timed(lambda: ask(symbol)))
        out["second"].append(timed(lambda: ask(symbol)))
        out["other"].append(timed(lambda: ask(other)))
    return out


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line.strip():
            break
        if line.lower().startswith(b"content-length"):
            length = int(line.split(b":")[1])
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def through_serve(folder: Path, profile: str, symbol: str, repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"first": [], "second": []}
    for _ in range(repeat):
        proc = subprocess.Popen([sys.executable, "-m", "semaprax", "serve", "--workspace", str(folder)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=HERE)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}))
        proc.stdin.flush()
        read_frame(proc.stdout)
        for n, key in enumerate(("first", "second")):
            request = {"jsonrpc": "2.0", "id": n + 1, "method": route.METHOD,
                       "params": {"profile": profile, "root": symbol, "encoding": "model-text"}}

            def ask(request: dict[str, Any] = request, stdin: IO[bytes] = proc.stdin,
                    stdout: IO[bytes] = proc.stdout) -> None:
                stdin.write(frame(request))
                stdin.flush()
                answer = read_frame(stdout)
                assert "result" in answer, answer

            out[key].append(timed(ask))
        proc.stdin.close()
        proc.wait(30)
    return out


def mcp_sizes(folder: Path, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The raw bytes of each tools/call result line from a real ``semaprax mcp``
    process, against the wire's own bytes."""
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": n + 1, "method": "tools/call",
               "params": {"name": "compact_projection", "arguments": {**args, "max_tokens": 10**9}}}
              for n, args in enumerate(calls)]
    proc = subprocess.Popen([sys.executable, "-m", "semaprax", "mcp", "--workspace", str(folder)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=HERE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    proc.stdin.flush()
    out: dict[int, bytes] = {}
    while len(out) < len(calls):
        line = proc.stdout.readline()
        message = json.loads(line)
        if isinstance(message.get("id"), int) and message["id"] > 0:
            out[message["id"]] = line.rstrip(b"\n")
    proc.stdin.close()
    proc.wait(30)
    rows = []
    for n, args in enumerate(calls):
        raw = out[n + 1]
        meta = json.loads(raw)["result"]["_meta"]["semaprax/projection"]  # issue 20: no structuredContent
        rows.append({**args, "encoding": meta["encoding"], "wire_bytes": meta["wire_bytes"],
                     "message_bytes": len(raw), "ratio": len(raw) / meta["wire_bytes"]})
    return rows


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="rounds (default 2; docs/performance.md: 5)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    sizes: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        typing_ws = Path(tmp) / "typing"
        typing_ws.mkdir()
        shutil.copyfile(Path(sysconfig.get_paths()["stdlib"]) / "typing.py", typing_ws / "typing.py")
        print("… semaprax mcp: result sizes", file=sys.stderr, flush=True)
        sizes += mcp_sizes(typing_ws, [{"profile": "graph", "root": "typing.py", "encoding": e}
                                       for e in ("auto", "json", "text", "model-text", "binary")])
        sizes += mcp_sizes(HERE / "examples", [
            {"profile": p, "root": r, "encoding": e}
            for p, r in [("graph", "banking_ledger.py"), ("graph", "http_app_routing.py"),
                         ("symbols", "calculator-project"), ("project-graph", "frame-payload-project")]
            for e in ("auto", "json", "text", "model-text", "binary")])
        (Path(tmp) / "std").mkdir()
        workspaces = {"examples": HERE / "examples",
                      f"stdlib ({STDLIB_FILES} files)": stdlib_workspace(Path(tmp) / "std")}
        for name, folder in workspaces.items():
            symbol, other = symbols_of(folder)
            for profile in ("task-context", "references"):
                print(f"… {name}: {profile} through the route", file=sys.stderr, flush=True)
                times = in_process(folder, profile, symbol, other, args.repeat)
                rows.append({"workspace": name, "profile": profile, "symbol": symbol, "via": "route",
                             **{k: summary(v) for k, v in times.items()},
                             "speedup": statistics.median(f / s for f, s in zip(times["first"], times["second"],
                                                                                strict=True))})
            print(f"… {name}: task-context through semaprax serve", file=sys.stderr, flush=True)
            served = through_serve(folder, "task-context", symbol, max(1, args.repeat // 2))
            rows.append({"workspace": name, "profile": "task-context", "symbol": symbol, "via": "semaprax serve",
                         **{k: summary(v) for k, v in served.items()},
                         "speedup": statistics.median(f / s for f, s in zip(served["first"], served["second"],
                                                                            strict=True))})
    if args.json:
        print(json.dumps({"python": platform.python_version(), "rows": rows, "mcp_sizes": sizes}, indent=2))
        return 0
    print(f"Python {platform.python_version()}, {args.repeat} rounds; seconds, median (min-max)")
    print("| workspace | profile | via | first | second | other symbol | first/second |")
    print("|---|---|---|---:|---:|---:|---:|")

    def cell(s: dict[str, float] | None) -> str:
        return "" if s is None else f"{s['median']:.3f} ({s['min']:.3f}-{s['max']:.3f})"

    for r in rows:
        print(f"| {r['workspace']} | {r['profile']} | {r['via']} | {cell(r['first'])} | {cell(r['second'])} | "
              f"{cell(r.get('other'))} | {r['speedup']:.0f}x |")
    print("\nMCP tool result message (raw JSON-RPC line) against the wire's bytes")
    print("| profile | root | encoding | wire bytes | message bytes | ratio |")
    print("|---|---|---|---:|---:|---:|")
    for r in sizes:
        print(f"| {r['profile']} | {r['root']} | {r['encoding']} | {r['wire_bytes']:,} | {r['message_bytes']:,} | "
              f"{r['ratio']:.3f} |")
    ratios = [r["ratio"] for r in sizes]
    print(f"ratio: median {statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
