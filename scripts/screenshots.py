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
    async with app.run_test(size=SIZES.get(name, size)) as pilot:
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


#: (name, wire, keys pressed, tab). "overview" is the first screen, with no key pressed: the
#: README's first image. "rejected" is a wire with a trailing LF: the diagnostic and its hint.
SHOTS = [
    ("overview", WIRES / "http_app_routing.graph.model-text", [], None),
    ("overview-80x24", WIRES / "http_app_routing.graph.model-text", [], None),
    ("dictionary", WIRES / "warehouse_inventory.graph.model-text", ["4", "down", "down"], "dictionary"),
    ("body", WIRES / "warehouse_inventory.graph.model-text", ["d", "down", "down", "enter"], None),
    ("rejected", REJECTED / "compact.digest.model-text", [], None),
    ("rejected-length", REJECTED / "compact.limit.model-text", [], None),
    ("tokens", WIRES / "warehouse_inventory.graph.model-text", [], "tokens"),
    ("token-view", WIRES / "warehouse_inventory.graph.model-text",
     ["down"] * 6 + ["right"] * 3 + ["shift+right"] * 3 + ["I"], "tokens"),
    ("bytes", WIRES / "warehouse_inventory.graph.model-text", ["g", *"290", "enter"], None),
    # the reading view with the imports and the columns folded, then "why is this inline?" on a row's name
    ("body-folded", WIRES / "warehouse_inventory.graph.model-text",
     ["b", "m", "tab", *["down"] * 5, "f", "down", "down", "f", *["down"] * 3, "right", "i"], None),
    ("tree", WIRES / "warehouse_inventory.graph.model-text",
     ["end", "space", "down", "space", *["down"] * 5, "space", "down", "down", "down"], "tree"),
]
SIZES = {"overview-80x24": (80, 24)}


async def shoot_compare(name: str, size: tuple[int, int]) -> Path:
    """The compare view: the ledger's graph wire edited by hand (a line number,
    so its digest fails) against its replay from the example sources."""
    from inspector.compare import Target
    from inspector.compare_screen import CompareScreen
    from inspector.model import load_bytes

    wire = (WIRES / "banking_ledger.graph.model-text").read_bytes().replace(b'"variable",26]', b'"variable",25]', 1)
    app = InspectorApp(load_bytes(wire, "banking_ledger.graph.edited-by-hand.model-text"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        app.open_compare(Target("replay", "examples"))
        for _ in range(200):
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, CompareScreen) and screen.comparison is not None and screen.comparison.done:
                break
        await pilot.pause(0.2)
        target = OUT / f"{name}.svg"
        app.save_screenshot(filename=target.name, path=str(OUT))
        return target


async def shoot_calls(name: str, size: tuple[int, int]) -> Path:
    """The Calls view of the recorded tap session, replayed against its workspace."""
    from inspector.session_screen import SessionScreen

    app = InspectorApp(None, session="examples/sessions/demo.jsonl", workspace="tests/fixtures/demo")
    async with app.run_test(size=size) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if isinstance(app.screen, SessionScreen) and app.screen.session is not None:
                break
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await pilot.press("r")
        for _ in range(200):
            await pilot.pause(0.05)
            if len(screen.replayed) == len(screen.session.calls if screen.session else []):
                break
        await pilot.press("down")
        await pilot.pause(0.3)
        target = OUT / f"{name}.svg"
        app.save_screenshot(filename=target.name, path=str(OUT))
        return target


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
    print(asyncio.run(shoot_compare("compare", (cols, rows))).relative_to(ROOT))
    print(asyncio.run(shoot_calls("calls", (cols, rows))).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
