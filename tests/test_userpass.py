"""Fixes found by using the inspector as a new user would (issue 11's features):
each test fails without its fix."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path

from inspector.app import InspectorApp
from inspector.model import load_path

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "examples" / "wires" / "banking_ledger.graph.model-text"


@asynccontextmanager
async def opened(source: Path, size=(120, 36)):
    app = InspectorApp(load_path(str(source)), count_tokens=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        yield app, pilot


def test_palette_search_keeps_a_one_letter_key_in_brackets():
    """A typed query highlights the label; '[t]' must not be read as markup and vanish."""
    async def scenario():
        from textual.command import CommandList

        async with opened(LEDGER) as (app, pilot):
            await pilot.press("ctrl+p")
            await pilot.pause(0.3)
            await pilot.press("T", "o", "k")
            await pilot.pause(0.6)
            options = app.screen.query_one(CommandList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert any("Show Tokens  [t]" in p for p in prompts), prompts
            assert any("Next token view  [T]" in p for p in prompts), prompts
    asyncio.run(scenario())
