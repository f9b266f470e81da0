"""Save SVG screenshots of the inspector's main screens into screenshots/, made
from the bundled examples with Textual's own screenshot support.

    python scripts/screenshots.py [--size 140x40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.app import InspectorApp
from inspector.model import load_path

WIRES = ROOT / "examples" / "wires"
REJECTED = ROOT / "examples" / "rejected"
OUT = ROOT / "screenshots"


async def shoot(name: str, path: Path, keys: list[str], size: tuple[int, int], tab: str | None = None) -> Path:
    app = InspectorApp(load_path(str(path.relative_to(ROOT))))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        if tab:
            app.action_tab(tab)
            await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        target = OUT / f"{name}.svg"
        app.save_screenshot(filename=target.name, path=str(OUT))
        return target


SHOTS = [
    ("overview", WIRES / "banking_ledger.graph.model-text", [], None),
    ("dictionary", WIRES / "http_app_routing.graph.model-text", ["down", "down", "down"], "dictionary"),
    ("body", WIRES / "banking_ledger.graph.model-text", ["d", "down", "enter"], None),
    ("rejected", REJECTED / "compact.reference.model-text", [], "body"),
    ("tokens", WIRES / "http_app_routing.graph.model-text", [], "tokens"),
    ("bytes", WIRES / "banking_ledger.graph.model-text", [], "bytes"),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="140x40", help="terminal size COLSxROWS (default 140x40)")
    args = ap.parse_args(argv)
    cols, rows = (int(x) for x in args.size.split("x"))
    OUT.mkdir(exist_ok=True)
    os.chdir(ROOT)  # paths in titles are relative, as a user would type them
    for name, path, keys, tab in SHOTS:
        target = asyncio.run(shoot(name, path, keys, (cols, rows), tab))
        print(f"{target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
