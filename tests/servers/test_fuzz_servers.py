"""A short fuzz campaign (fuzz/servers.py) against each real server: mutated MCP
and LSP messages (deep nesting, array params, odd ids and values, cut and
corrupted bytes) get only responses, every request one, and the server still
serves afterwards. Longer campaigns: ``python -m fuzz.servers {mcp,lsp} --count N``."""

from __future__ import annotations

import random

import pytest

from fuzz.servers import LSP_SEEDS, MCP_SEEDS, Campaign, encode, mutate


@pytest.mark.parametrize("server", ["mcp", "lsp"])
def test_a_fuzz_campaign_leaves_the_server_serving(server):
    assert Campaign(server).run(250, seed=3) is None


def test_the_mutations_are_deterministic_and_varied():
    def batch() -> list[bytes]:
        rng = random.Random(7)
        return [encode(mutate(rng.choice(MCP_SEEDS + LSP_SEEDS), rng)) for _ in range(200)]

    first = batch()
    assert first == batch()
    assert any(b"[" * 500 in m for m in first)  # deep nesting
    assert any(b'"params": [' in m for m in first)  # array params
    assert sum(1 for m in first if not m.startswith(b"{") or not m.endswith(b"}")) > 5  # broken bytes
