"""The token view and the cost ledger on a 16 MiB document (the graph document
of semaprax bench inspector, as model-text), measured in the app itself,
headless (Textual's Pilot): a key is timed from its press until the app has
handled it and repainted (``pilot.press`` then ``pilot.pause``; a key bound
to nothing is timed too, as the harness's own floor), and the pane's own work
for a key is timed directly ("direct": the action, every visible line of the
token view rendered afresh, the status redone). A benchmark, not a test; it
prints figures. Token counting is off, so nothing else runs.

- switching the token view (``T``): each of the six states, twice round;
- moving the token cursor: right (a token), down (a line) and page down, at
  the top of the wire and in the middle of the 16 MiB full JSON;
- the ledger: from ``L`` until its rows are shown, with how many progress
  messages arrived on the way; and ``ledger.build`` alone (CPU time).

Medians with the range (min-max), wall and CPU time of the process.

    semaprax bench tokens-view [--size-mib 16] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

import codec
from inspector.app import InspectorApp
from inspector.ledger import build
from inspector.model import load_bytes
from inspector.panes.tokens import TokensPane
from semaprax.bench.codec import graph_document
from views.tokens import ENCODING_NAMES


def spread(values: list[float], scale: float = 1000.0) -> str:
    v = [x * scale for x in values]
    return f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})"


async def timed(pilot: Pilot[Any], *keys: str) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    await pilot.press(*keys)
    await pilot.pause()
    return time.perf_counter() - wall, time.process_time() - cpu


async def measure(wire: bytes, rounds: int) -> dict[str, list[tuple[float, float]]]:
    loaded = load_bytes(wire, "big.model-text").prepare()
    app = InspectorApp(loaded, count_tokens=False)
    out: dict[str, list[tuple[float, float]]] = {"T": [], "right": [], "down": [], "pagedown": [],
                                                   "right (16 MiB JSON, middle)": [], "ledger": [],
                                                   "baseline: a key bound to nothing": [],
                                                   "direct: T": [], "direct: right (16 MiB JSON)": [],
                                                   "direct: down (16 MiB JSON)": [],
                                                   "direct: page down (16 MiB JSON)": []}
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("t")
        await app.workers.wait_for_complete()  # the other forms, encoded in a worker
        await pilot.pause()
        pane = app.query_one("#tokens-pane", TokensPane)
        assert len(pane.states) == 6, pane.states
        for _ in range(rounds * 6):
            out["T"].append(await timed(pilot, "T"))
        while pane.shown != ("model-text", ENCODING_NAMES[0]):
            await pilot.press("T")
        for key, n in (("right", 30), ("down", 20), ("pagedown", 10)):
            for _ in range(n):
                out[key].append(await timed(pilot, key))
        while pane.shown != ("json", ENCODING_NAMES[0]):
            await pilot.press("T")
        pane.view.go_to_offset(len(pane.view.data) // 2)
        await pilot.pause()
        for _ in range(30):
            out["right (16 MiB JSON, middle)"].append(await timed(pilot, "right"))
        for _ in range(20):
            out["baseline: a key bound to nothing"].append(await timed(pilot, "z"))
        # The pane's own work for a key, synchronously: the action, every visible line of
        # the token view rendered afresh and the status redone (no Pilot, no compositor).
        view = pane.view

        def direct(action: Callable[[], object]) -> tuple[float, float]:
            wall, cpu = time.perf_counter(), time.process_time()
            action()
            view._cache.clear()
            for y in range(view.size.height):
                view.render_line(y)
            pane._update_status()
            return time.perf_counter() - wall, time.process_time() - cpu

        for _ in range(rounds * 6):
            out["direct: T"].append(direct(pane.action_cycle_view))
        while pane.shown != ("json", ENCODING_NAMES[0]):
            pane.action_cycle_view()
        for _ in range(30):
            out["direct: right (16 MiB JSON)"].append(direct(lambda: view.action_column(1)))
        for _ in range(20):
            out["direct: down (16 MiB JSON)"].append(direct(lambda: view.action_cursor(1)))
        for _ in range(10):
            out["direct: page down (16 MiB JSON)"].append(direct(lambda: view.action_page(1)))
        await pilot.pause()
        seen = set()
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.press("L")
        while pane.ledger is None:
            seen.add(pane.ledger_step)
            await asyncio.sleep(0.02)
        await pilot.pause()
        out["ledger"].append((time.perf_counter() - wall, time.process_time() - cpu))
        out["ledger progress messages"] = [(float(len(seen)), 0.0)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=2.0,
                    help="document size (default 2; the figures in docs/performance.md: 16)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds (default 1; docs: 2)")
    args = ap.parse_args(argv)
    doc = graph_document(int(args.size_mib * 1024 * 1024) - 4096)
    p = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, doc)
    wire = codec.encode_model_text(p)
    print(f"document {len(doc):,} bytes; model-text wire {len(wire):,} bytes")
    print("… the token view and the ledger, headless", file=sys.stderr, flush=True)
    out = asyncio.run(measure(wire, args.rounds))
    print("… ledger.build alone", file=sys.stderr, flush=True)
    print("| action | n | wall ms, median (min-max) | CPU ms, median (min-max) |")
    print("|---|---:|---:|---:|")
    for key in ("T", "right", "down", "pagedown", "right (16 MiB JSON, middle)", "baseline: a key bound to nothing",
                "direct: T", "direct: right (16 MiB JSON)", "direct: down (16 MiB JSON)",
                "direct: page down (16 MiB JSON)"):
        values = out[key]
        print(f"| {key} | {len(values)} | {spread([w for w, _ in values])} | {spread([c for _, c in values])} |")
    (wall, cpu), = out["ledger"]
    print(f"| ledger from L to its rows ({int(out['ledger progress messages'][0][0])} progress steps seen) | 1 | "
          f"{wall * 1000:,.0f} | {cpu * 1000:,.0f} |")
    loaded = load_bytes(wire, "big").prepare()
    cpu = time.process_time()
    build(loaded, loaded.document, ENCODING_NAMES)
    print(f"| ledger.build alone (both encodings, wire and full JSON) | 1 | | {(time.process_time() - cpu) * 1000:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
