"""The dissection tree's responsiveness on a 16 MiB wire (issue 11, "Speed"):
the inspector driven headless through Textual's Pilot in this process, each
key timed from the moment it is sent until the app is idle again with the
screen redrawn (the Pilot's own wait, so a figure includes its overhead).

- open the Tree tab on the loaded wire (the top of the tree);
- read the body's JSON structure (the worker that runs when the body is first
  opened; a second of CPU for 16 MiB, off the interface thread);
- expand a node: Space on a node never opened before, down the tree (the
  document, its ``nodes`` array of tens of thousands of items, a range of
  10,000, a range of 100, an item), then on fresh items and ranges;
- move the cursor: a byte move in the tab's hex view (right arrow, and down a
  row) that re-selects the deepest node holding the byte, opening the tree
  down to it and closing what the previous move opened; and a move in the tree
  (down arrow), which every other pane follows.

Wall and CPU time (``time.process_time``: the app runs in this process) per
key; medians with the range. A benchmark, not a test: it prints figures.

    semaprax bench tree [--size-mib 16] [--keys 30] [--terminal ROUNDS]

``--terminal`` also runs the real ``semaprax-inspect`` in tmux (as
``semaprax bench inspector`` does) and times keys from ``send-keys`` to the
screen showing their answer: the figure a person sees, without the Pilot.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets.tree import TreeNode

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

import codec
from inspector.app import InspectorApp
from inspector.dissect import Node
from inspector.model import Loaded, load_bytes
from inspector.panes.tree import TreePane
from semaprax.bench.codec import graph_document


async def timed(pilot: Pilot[Any], key: str, samples: list[tuple[float, float]]) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    await pilot.press(key)
    await pilot.pause()
    samples.append((time.perf_counter() - wall, time.process_time() - cpu))


def spread(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{statistics.median(ms):.0f} ({min(ms):.0f}-{max(ms):.0f})"


def row(label: str, samples: list[tuple[float, float]]) -> str:
    return (f"| {label} | {len(samples)} | {spread([s[0] for s in samples])} | "
            f"{spread([s[1] for s in samples])} |")


async def bench(loaded: Loaded, keys: int) -> list[str]:
    app = InspectorApp(loaded, count_tokens=False)
    out = []
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        opening: list[tuple[float, float]] = []
        await timed(pilot, "p", opening)
        pane = app.query_one("#tree-pane", TreePane)
        tree = pane.tree
        out.append(row("open the Tree tab (the top of the tree)", opening))

        def go(node: TreeNode[Node]) -> None:
            tree.show_node(node)

        body = tree.child_with(tree.root, ("body",))
        assert body is not None
        go(body)
        await pilot.pause()
        t = time.perf_counter()
        await pilot.press("space")
        await app.workers.wait_for_complete()
        await pilot.pause()
        out.append(f"| read the JSON structure (worker, once per wire) | 1 | {(time.perf_counter() - t) * 1000:.0f} | |")

        first: list[tuple[float, float]] = []
        node = body.children[0]  # the document's object
        for _ in range(5):  # the object, "nodes", a range of 10,000, a range of 100, an item
            go(node)
            await pilot.pause()
            await timed(pilot, "space", first)
            children = [c for c in node.children if c.allow_expand]
            node = children[-1] if node is body.children[0] else children[len(children) // 2]
        out.append(row("expand a node first opened, down the tree (document, nodes, ranges, item)", first))

        fresh: list[tuple[float, float]] = []
        parent = node.parent
        assert parent is not None and parent.parent is not None
        ranges = [c for c in parent.parent.children if c.allow_expand]  # ranges of 100 items
        items = [c for c in parent.children if c.allow_expand]
        for target in (items[1:][: keys // 2] + ranges[1:][: keys // 2]):
            go(target)
            await pilot.pause()
            await timed(pilot, "space", fresh)
        out.append(row("expand a fresh item or range of 100", fresh))

        moves: dict[str, list[tuple[float, float]]] = {"right": [], "down": []}
        pane.hex.focus()
        assert loaded.body_start is not None
        middle = loaded.body_start + (len(loaded.wire) - loaded.body_start) // 2
        pane.hex._user_move(middle)  # a byte chosen in the middle of the body
        await pilot.pause()
        for key in ("right", "down"):
            for _ in range(keys):
                await timed(pilot, key, moves[key])
        out.append(row("byte move in the tab's hex view (right): re-selects the deepest node", moves["right"]))
        out.append(row("row move in the tab's hex view (down, 32 bytes): re-selects the deepest node",
                       moves["down"]))
        selected = tree.cursor_node.data if tree.cursor_node is not None else None
        assert selected is not None and selected.start <= pane.hex.cursor_offset

        tree.focus()
        idle: list[tuple[float, float]] = []
        for _ in range(keys):
            await timed(pilot, "z", idle)  # bound to nothing: what the Pilot's press and wait cost alone
        out.insert(0, row("baseline: a key bound to nothing (the Pilot's own cost)", idle))
        down: list[tuple[float, float]] = []
        for _ in range(keys):
            await timed(pilot, "down", down)
        out.append(row("move in the tree (down): the other panes follow", down))
    return out


def terminal_round(path: Path, keys: int) -> dict[str, list[float]]:
    """One run of the real ``semaprax-inspect`` in tmux (``--no-tokens``): each
    key timed from ``send-keys`` until the screen shows its answer."""
    import re

    from semaprax.bench import inspector as bi

    session = bi.SESSION
    def send(*keys: str) -> None:
        bi.tmux("send-keys", "-t", session, *keys)

    def answer(key: str, text: str) -> float:
        t = time.perf_counter()
        send(key)
        return bi.wait_for(lambda s: text in s) - t

    bi.tmux("new-session", "-d", "-s", session, "-x", "140", "-y", "40", f"exec {bi.INSPECT} --no-tokens {path}")
    try:
        bi.wait_for(lambda s: "VALID" in s or "REJECTED" in s)
        send("p")
        bi.wait_for(lambda s: "body: " in s)
        send("End")  # the body, the last top-level part
        send("Space")
        bi.wait_for(lambda s: "{…} 2 members" in s)  # the structure was read in the worker (not timed)
        send("Down")
        expand = [answer("Space", '"nodes": […]')]
        send("Down", "Down")
        expand.append(answer("Space", "items 0 … 9,999"))
        send("Down")
        expand.append(answer("Space", "items 0 … 99"))
        send("Down")
        expand.append(answer("Space", "[0] {…} 7 members"))
        send("Down")
        expand.append(answer("Space", '"name": @'))
        bi.wait_for(lambda s: "bytes " in s.splitlines()[-2])
        send("Tab")  # to the tab's hex view
        time.sleep(0.3)
        status = bi.screen().splitlines()[-2]
        found = re.search(r"bytes ([0-9,]+)–", status)
        assert found is not None, status
        start = int(found.group(1).replace(",", ""))
        moves = [answer("Right", f"byte {start + k:,} in the node") for k in range(1, keys + 1)]
    finally:
        # the benchmark's own tmux server (bi.SOCKET), and the inspector in it
        subprocess.run(["tmux", "-L", bi.SOCKET, "kill-server"], check=False, capture_output=True)
        socket = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / bi.SOCKET
        socket.unlink(missing_ok=True)
    return {"expand": expand, "move": moves}


def terminal(wire: bytes, rounds: int, keys: int) -> list[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.model-text"
        path.write_bytes(wire)
        results = []
        for r in range(rounds):
            print(f"… in tmux, round {r + 1} of {rounds}", file=sys.stderr, flush=True)
            results.append(terminal_round(path, keys))
    expand = [statistics.median(r["expand"]) for r in results]
    move = [statistics.median(r["move"]) for r in results]
    return [(f"| expand a node (5 levels: object, nodes, ranges, item), median of each round | {rounds} | "
            f"{spread(expand)} | |"),
            f"| byte move in the tab's hex view (right), median of each round | {rounds} | {spread(move)} | |"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=5.0,
                    help="document size (default 5, the smallest whose nodes array is shown in ranges of "
                    "10,000; the figures in docs/performance.md: 16)")
    ap.add_argument("--keys", type=int, default=10, help="keys timed per kind (default 10; docs: 20)")
    ap.add_argument("--terminal", type=int, default=0, metavar="ROUNDS",
                    help="also time the real semaprax-inspect in tmux, screen to screen, this many rounds")
    args = ap.parse_args(argv)
    doc = graph_document(int(args.size_mib * 1024 * 1024) - 4096)
    p = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, doc)
    wire = codec.encode_model_text(p)
    t = time.perf_counter()
    loaded = load_bytes(wire, "big.model-text").prepare()
    print(f"v2 model-text wire of {len(wire):,} bytes ({len(doc):,}-byte document), "
          f"loaded in {time.perf_counter() - t:.1f} s")
    print()
    print("| step | keys | wall ms, median (min-max) | CPU ms, median (min-max) |")
    print("|---|---:|---:|---:|")
    print("… the Tree tab, headless", file=sys.stderr, flush=True)
    for line in asyncio.run(bench(loaded, args.keys)):
        print(line)
    if args.terminal:
        print()
        print("In a real terminal (tmux, screen polled every 5 ms), key sent to answer shown:")
        print()
        print("| step | rounds | wall ms, median of round medians (min-max) | |")
        print("|---|---:|---:|---|")
        for line in terminal(wire, args.terminal, args.keys):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
