"""Codec speed and memory on a graph-like document of about 16 MiB.

Reports medians of several repetitions of ``encode_model_text`` and verified
``decode_model_text`` (and the v1 forms) as ratios to ``json.loads`` +
``json.dumps`` of the same bytes, measured in the same run, plus peak memory
(tracemalloc) of one encode and one decode. A benchmark, not a test: it prints
figures and asserts nothing about time.

    python scripts/bench_codec.py [--size-mib 16] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import codec
from codec import limits


def graph_document(target: int) -> bytes:
    """A code-graph-shaped canonical document just under ``target`` bytes: many
    definition objects whose qualified names recur as call and reference targets,
    as they do in a real module graph."""
    modules = [f"acme.service.module_{m:03d}" for m in range(180)]
    names = [f"{modules[i % 180]}.Handler{i % 37}.method_{i:05d}" for i in range(40_000)]
    nodes: list[dict] = []
    size = 20
    i = 0
    while True:
        q = names[i % len(names)]
        node = {
            "name": q,
            "kind": "method" if i % 5 else "function",
            "span": [i % 4000 + 1, i % 4000 + 1 + i % 37],
            "signature": f"(self, request: acme.http.Request, limit: int = {i % 100}) -> acme.http.Response",
            "calls": [names[(i * 7 + 3) % len(names)], names[(i * 13 + 5) % len(names)]],
            "references": [modules[(i * 3) % 180] + ".CONFIG", "acme.http.Response"],
            "doc": f"Handle request number {i} and return its response." if i % 3 == 0 else None,
        }
        piece = len(codec.canonical_json(node)) + 1
        if size + piece >= target:
            break
        nodes.append(node)
        size += piece
        i += 1
    return codec.canonical_json({"module": "acme.service", "nodes": nodes})


def timed(fn) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(base, ops: dict, repeat: int) -> tuple[float, dict, dict]:
    """Time the baseline next to each operation in every round, so a machine whose
    speed drifts (a shared VM) moves both alike; report median seconds and the
    median of the per-round ratios."""
    base_times: list[float] = []
    times: dict[str, list[float]] = {name: [] for name in ops}
    ratios: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(repeat):
        for name, fn in ops.items():
            b = timed(base)
            t = timed(fn)
            base_times.append(b)
            times[name].append(t)
            ratios[name].append(t / b)
    return (
        statistics.median(base_times),
        {k: statistics.median(v) for k, v in times.items()},
        {k: statistics.median(v) for k, v in ratios.items()},
    )


def peak_memory(fn) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=16.0, help="document size (default 16)")
    ap.add_argument("--repeat", type=int, default=5, help="repetitions per measurement (default 5)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--only-model-text", action="store_true", help="skip the v1 forms")
    args = ap.parse_args(argv)

    target = min(int(args.size_mib * 1024 * 1024), limits.MAX_SELECTED_BYTES)
    doc = graph_document(target - 4096)
    p = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, doc)
    wire = codec.encode_model_text(p)
    text_wire = codec.encode_text(p)
    binary_wire = codec.encode_binary(p)
    assert codec.decode_model_text(wire) == p

    def json_round_trip() -> None:
        json.dumps(json.loads(doc), ensure_ascii=False, separators=(",", ":")).encode()

    ops = {
        "encode_model_text": lambda: codec.encode_model_text(p),
        "decode_model_text (verified)": lambda: codec.decode_model_text(wire),
        "encode_text (v1)": lambda: codec.encode_text(p),
        "decode_text (v1, verified)": lambda: codec.decode_text(text_wire),
        "encode_binary (v1)": lambda: codec.encode_binary(p),
        "decode_binary (v1, verified)": lambda: codec.decode_binary(binary_wire),
    }
    if args.only_model_text:
        ops = {k: v for k, v in ops.items() if "model_text" in k}
    base, rows, ratios = interleaved(json_round_trip, ops, args.repeat)
    memory = {
        "json round trip": peak_memory(json_round_trip),
        "encode_model_text": peak_memory(lambda: codec.encode_model_text(p)),
        "decode_model_text (verified)": peak_memory(lambda: codec.decode_model_text(wire)),
    }
    layout = codec.layout_model_text(wire)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "document_bytes": len(doc),
        "model_text_wire_bytes": len(wire),
        "dictionary_entries": len(layout.entries),
        "references": len(layout.ref_index),
        "repeat": args.repeat,
        "json_round_trip_seconds": base,
        "ratios": ratios,
        "seconds": rows,
        "peak_memory_bytes": memory,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"document {len(doc):,} bytes; model-text wire {len(wire):,} bytes, "
        f"{len(layout.entries):,} entries, {len(layout.ref_index):,} references; "
        f"Python {result['python']} on {result['machine']}, median of {args.repeat}"
    )
    print(f"{'json.loads + json.dumps':32} {base:8.3f} s   1.00x  (ratios: median of per-round ratios)")
    for name, seconds in rows.items():
        print(f"{name:32} {seconds:8.3f} s   {ratios[name]:4.2f}x")
    print("peak memory (tracemalloc):")
    for name, peak in memory.items():
        print(f"  {name:30} {peak / 2**20:8.1f} MiB  ({peak / len(doc):.1f}x the document)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
