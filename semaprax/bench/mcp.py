"""What ``semaprax mcp`` puts on the transport and how fast the warm servers answer
(issue 20). A benchmark, not a test: it prints figures and asserts nothing about time.

1. Result bytes over wire bytes: the whole ``tools/call`` response line (JSON-RPC
   envelope, the wire as one JSON string, ``_meta``) over the wire's own bytes, for
   every profile and form, on the demo workspace and on this repository.
2. Warm times per profile through ``route.answer`` as the servers call it: the
   first request on a fresh cache (cold), then ``--repeat`` warm requests (median,
   min-max), with the index frozen after its build (``gc.freeze``) and without.
3. ``semaprax mcp`` start: spawn to the initialize answer, and the first
   ``tools/call`` after it, with the tokenizer loaded in the background at start
   and without (the preload patched out).
4. A full garbage collection after an index build, with the index frozen
   (``gc.freeze``) and not: the stall a warm request pays when one triggers.

    semaprax bench mcp [--repeat 11] [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import codec
from analysis.warm import IndexCache
from servers import route

HERE = Path(__file__).resolve().parent.parent.parent  # the checkout (an editable install)
DEMO = HERE / "tests" / "fixtures" / "demo"
WORKSPACES = {
    "demo": (DEMO, {"graph": "pkg/core.py", "task-context": "pkg.core.Engine.run", "project-graph": "semaprax.toml",
                    "symbols": ".", "references": "pkg.core.Engine", "diagnostics": "pkg/core.py"}),
    "this repository": (HERE, {"graph": "servers/route.py", "task-context": "servers.route.answer",
                               "project-graph": "pyproject.toml", "symbols": "servers",
                               "references": "servers.route.RouteError", "diagnostics": "servers/route.py"}),
}
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def result_lines(folder: Path, calls: list[dict[str, Any]]) -> list[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "semaprax", "mcp", "--workspace", str(folder)], cwd=HERE,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_line(INIT) + _line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    for n, args in enumerate(calls, 1):
        proc.stdin.write(_line({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                "params": {"name": "compact_projection", "arguments": args}}))
    proc.stdin.flush()
    out: dict[int, bytes] = {}
    while len(out) < len(calls):
        line = proc.stdout.readline()
        ident = json.loads(line).get("id")
        if isinstance(ident, int) and ident > 0:
            out[ident] = line.rstrip(b"\n")
    proc.stdin.close()
    proc.wait(30)
    return [out[n] for n in range(1, len(calls) + 1)]


def part_bytes() -> None:
    print("## result bytes / wire bytes\n")
    print("| workspace | form | min | median | max | wire bytes (median) |")
    print("|---|---|---:|---:|---:|---:|")
    for name, (folder, roots) in WORKSPACES.items():
        calls: list[dict[str, Any]] = [{"profile": p, "root": r, "encoding": e, "max_tokens": 10**9}
                 for p, r in roots.items() for e in codec.FORMS]
        ratios: dict[str, list[float]] = {e: [] for e in codec.FORMS}
        sizes: dict[str, list[int]] = {e: [] for e in codec.FORMS}
        for args, raw in zip(calls, result_lines(folder, calls), strict=True):
            result = json.loads(raw)["result"]
            assert "structuredContent" not in result, result
            wire = result["_meta"]["semaprax/projection"]["wire_bytes"]
            ratios[args["encoding"]].append(len(raw) / wire)
            sizes[args["encoding"]].append(wire)
        for form in codec.FORMS:
            r = ratios[form]
            print(f"| {name} | {form} | {min(r):.3f} | {statistics.median(r):.3f} | {max(r):.3f} "
                  f"| {int(statistics.median(sizes[form])):,} |")
    print()


def _ms(seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"{statistics.median(ms):,.1f} ({min(ms):,.1f}-{max(ms):,.1f})"


def part_warm(repeat: int) -> None:
    print("## warm requests per profile (route.answer, encoding auto with token counts)\n")
    folder, roots = WORKSPACES["this repository"]
    print("| profile | root | cold ms | warm ms, frozen | warm ms, not frozen | warm/cold |")
    print("|---|---|---:|---:|---:|---:|")
    for profile, root in roots.items():
        request = route.parse_request({"profile": profile, "root": root}, auto=True)
        row = []
        for freeze in (True, False):
            gc.unfreeze()
            cache = IndexCache(freeze=freeze)
            t = time.perf_counter()
            route.answer(request, folder, index_cache=cache, count=True)
            cold = time.perf_counter() - t
            warm = []
            for _ in range(repeat):
                t = time.perf_counter()
                route.answer(request, folder, index_cache=cache, count=True)
                warm.append(time.perf_counter() - t)
            row.append((cold, warm))
        (cold, frozen), (_, thawed) = row
        print(f"| {profile} | `{root}` | {cold * 1000:,.0f} | {_ms(frozen)} | {_ms(thawed)} "
              f"| {statistics.median(frozen) / cold:.3f} |")
    gc.unfreeze()
    print()


def _start(preload: bool) -> tuple[float, float]:
    code = ("import sys; import servers.mcp as m; " + ("" if preload else "m.preload_tokenizer = lambda: None; ")
            + f"sys.exit(m.run({str(DEMO)!r}))")
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_line(INIT))
    proc.stdin.flush()
    proc.stdout.readline()
    started = time.perf_counter() - t
    time.sleep(1.0)  # an agent's client takes this long before its first call, at least
    proc.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}) + _line(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "compact_projection", "arguments": {"profile": "graph", "root": "pkg/util.py"}}}))
    proc.stdin.flush()
    t = time.perf_counter()
    while json.loads(proc.stdout.readline()).get("id") != 1:
        pass
    first = time.perf_counter() - t
    proc.stdin.close()
    proc.wait(30)
    return started, first


def part_start(rounds: int) -> None:
    print("## semaprax mcp start and first call (demo workspace, first call 1 s after initialize)\n")
    print("| tokenizer | spawn to initialize ms | first tools/call ms |")
    print("|---|---:|---:|")
    runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for _ in range(rounds):
        for preload in (False, True):  # alternated, so that load drifts hit both alike
            runs[preload].append(_start(preload))
    for preload in (False, True):
        label = "loaded in the background at start" if preload else "loaded by the first call"
        print(f"| {label} | {_ms([s for s, _ in runs[preload]])} | {_ms([f for _, f in runs[preload]])} |")
    print()


def part_gc(folder: Path, root: str) -> None:
    """What a full garbage collection costs a warm request after a build, with what
    the build made frozen (``gc.freeze``) and not."""
    print(f"## a full collection after an index build ({folder.name}, references of {root})\n")
    request = route.parse_request({"profile": "references", "root": root, "encoding": "model-text"})
    gc.unfreeze()
    cache = IndexCache(freeze=False)  # kept alive: the index is what the collections walk
    route.answer(request, folder, index_cache=cache)
    gc.collect()

    def collections() -> list[float]:
        out = []
        for _ in range(5):
            t = time.perf_counter()
            gc.collect()
            out.append(time.perf_counter() - t)
        return out

    thawed = collections()
    gc.freeze()
    frozen = collections()
    gc.unfreeze()
    print(f"{len(gc.get_objects()):,} objects tracked, {cache.stats.builds} index kept\n")
    print("| index | full collection ms |")
    print("|---|---:|")
    print(f"| not frozen | {_ms(thawed)} |")
    print(f"| frozen after the build | {_ms(frozen)} |")
    print()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=11, help="warm requests per profile (default 11)")
    ap.add_argument("--rounds", type=int, default=5, help="alternated server starts (default 5)")
    ap.add_argument("--parts", nargs="+", choices=["bytes", "warm", "start", "gc"],
                    default=["bytes", "warm", "start", "gc"], help="what to measure (default: all)")
    ap.add_argument("--gc-workspace", type=Path, default=HERE, metavar="DIR",
                    help="workspace whose index the gc part builds (default: this checkout)")
    ap.add_argument("--gc-root", default="servers.route.RouteError", metavar="SYMBOL",
                    help="the references root the gc part asks for")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    if "bytes" in args.parts:
        print("result bytes...", file=sys.stderr)
        part_bytes()
    if "warm" in args.parts:
        print("warm requests...", file=sys.stderr)
        part_warm(args.repeat)
    if "start" in args.parts:
        print("server starts...", file=sys.stderr)
        part_start(args.rounds)
    if "gc" in args.parts:
        print("garbage collection...", file=sys.stderr)
        part_gc(args.gc_workspace, args.gc_root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
