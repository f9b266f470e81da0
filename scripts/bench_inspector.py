"""Inspector responsiveness on a 16 MiB wire: open time (read + decode + parse),
time to first paint of the loaded projection, and key latency while the token
counting worker runs. A benchmark, not a test; it prints figures.

    python scripts/bench_inspector.py [--size-mib 16]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_codec import graph_document

import codec
from inspector.app import InspectorApp
from inspector.views.lines import LineView


async def measure(path: Path, label: str) -> dict:
    started = time.perf_counter()
    app = InspectorApp(path=str(path), count_tokens=True)
    async with app.run_test(size=(140, 40)) as pilot:
        while app.loaded is None:
            await asyncio.sleep(0.01)
        loaded_at = time.perf_counter()
        await pilot.pause()
        painted_at = time.perf_counter()
        app.action_tab("body")
        await pilot.pause()
        body_at = time.perf_counter()
        latencies = []
        counting = any(w.group == "tokens" and not w.is_finished for w in app.workers)
        for _ in range(20):
            t = time.perf_counter()
            await pilot.press("pagedown")
            latencies.append(time.perf_counter() - t)
        still_counting = any(w.group == "tokens" and not w.is_finished for w in app.workers)
        await app.workers.wait_for_complete()
        counted_at = time.perf_counter()
        compact = app.query_one("#compact", LineView)
        return {
            "wire": label,
            "wire_bytes": path.stat().st_size,
            "open_s": loaded_at - started,
            "first_paint_s": painted_at - started,
            "body_tab_s": body_at - painted_at,
            "key_latency_median_ms": statistics.median(latencies) * 1000,
            "key_latency_max_ms": max(latencies) * 1000,
            "keys_pressed_while_counting": counting and still_counting,
            "tokens_counted_s": counted_at - started,
            "body_lines": len(compact.lines),
        }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=16.0)
    args = ap.parse_args(argv)
    doc = graph_document(int(args.size_mib * 1024 * 1024) - 4096)
    p = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, doc)
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "model-text": Path(tmp) / "big.model-text",
            "full JSON": Path(tmp) / "big.json",
        }
        files["model-text"].write_bytes(codec.encode_model_text(p))
        files["full JSON"].write_bytes(doc)
        for label, path in files.items():
            r = asyncio.run(measure(path, label))
            print(
                f"{r['wire']:10} {r['wire_bytes']:>12,} bytes: open {r['open_s']:.2f} s, first paint "
                f"{r['first_paint_s']:.2f} s, body tab {r['body_tab_s']:.2f} s, key latency median "
                f"{r['key_latency_median_ms']:.0f} ms (max {r['key_latency_max_ms']:.0f} ms)"
                f"{' while counting tokens' if r['keys_pressed_while_counting'] else ''}, "
                f"tokens counted after {r['tokens_counted_s']:.1f} s, {r['body_lines']:,} body lines"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
