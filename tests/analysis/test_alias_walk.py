"""The alias walk (analysis/pool.py ``follow_aliases``) tries only heads as
long as a key: a name of thousands of parts (``x = os.path.path...``, each of
whose prefixes the producers ask about) costs work linear in its length, not
a cube of it (a 1,000-link chain took 10.7 s for a diagnostics view, the
longest ``compile()`` accepts over a minute)."""

from __future__ import annotations

import pytest
from workspacekit import write_files

from analysis import index as index_module
from analysis import outlines as outlines_module
from analysis import pool
from analysis.index import WorkspaceIndex
from analysis.outlines import outline_of
from analysis.sources import Workspace


def test_the_walk_tries_no_head_longer_than_its_depth():
    tried: list[str] = []
    aliases = {"pkg.Session": "pkg.sessions.Session", "a.b": "c"}
    name = "pkg.Session." + ".".join(["x"] * 500)
    found = pool.follow_aliases(name, aliases, check=tried.append, depth=pool.name_depth(aliases))
    assert found == "pkg.sessions.Session." + ".".join(["x"] * 500)
    assert tried == ["pkg.Session", "pkg.sessions"]  # one head of two parts a step
    # without a depth every head is tried, longest first: the same answer
    assert pool.follow_aliases(name, aliases) == found


def test_name_depth_is_the_most_parts():
    assert pool.name_depth(["a", "a.b.c", "d.e"]) == 3
    assert pool.name_depth([]) == 0


@pytest.fixture
def heads(monkeypatch):
    """Counts the heads every alias walk of the producers tries."""
    count = [0]
    walk = pool.follow_aliases

    def counted(target, aliases, stop=(), check=None, depth=None):
        def seen(head):
            count[0] += 1
            if check is not None:
                check(head)
        return walk(target, aliases, stop, seen, depth)

    for module in (pool, index_module, outlines_module):
        monkeypatch.setattr(module, "follow_aliases", counted)
    return count


def _work(tmp_path, heads, n: int, build) -> int:
    root = tmp_path / str(n)
    write_files(root, {"semaprax.toml": "[project]\n", "pkg/__init__.py": "from pkg.deep import x\n",
                       "pkg/deep.py": "import os\nx = os" + ".path" * n + "\n"})
    ws = Workspace(root)
    heads[0] = 0
    build(ws, ws.python_files(), n)
    return heads[0]


def _outline(ws: Workspace, files: list[str], n: int) -> None:
    outline = outline_of(ws, files, processes=1)
    for k in range(n):  # each prefix of a name of n parts, as a view asks them
        outline.canonical("pkg.x" + ".path" * k)


@pytest.mark.parametrize("build", [
    lambda ws, files, n: WorkspaceIndex(ws, files, processes=1),
    _outline,
], ids=["index", "outline"])
def test_a_long_chain_is_walked_in_linear_work(tmp_path, heads, build):
    work = {n: _work(tmp_path, heads, n, build) for n in (200, 400)}
    assert 0 < work[400] <= 2.2 * work[200], work
