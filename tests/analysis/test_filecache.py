"""One run per change (issue 22, issue 20): the per-file analysis records
(analysis/filecache.py) give the index a cold build gives; an edit re-analyses
the file it changes and the files whose questions it answers differently; the
same workspace gives the same bytes whatever the hash seed, its path, or the cache."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from workspacekit import write_files as _write

from analysis import filecache
from analysis import pool as pool_module
from analysis.filecache import RecordStore
from analysis.index import WorkspaceIndex
from analysis.resolver import ClassInfo
from analysis.sources import Workspace

ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "semaprax.toml": "[project]\nname = 'w'\n",
    "pkg/__init__.py": "from .engine import Engine\n",
    "pkg/engine.py": ("class Engine:\n    def run(self) -> int:\n        return 1\n\n"
                      "    def stop(self) -> None:\n        pass\n"),
    "pkg/cli.py": ("from pkg import Engine\nfrom pkg.util import helper\n\n"
                   "def main() -> None:\n    e = Engine()\n    e.run()\n    e.stop()\n    helper(e)\n"),
    "pkg/util.py": "import os\n\ndef helper(x):\n    return os.path.join(str(x), 'y')\n",
    "app.py": "from pkg.cli import main\nfrom pkg.engine import Engine\n\nclass Fast(Engine):\n"
              "    def run(self) -> int:\n        return super().run() + 1\n\nmain()\n",
}



def _snapshot(index: WorkspaceIndex) -> list[tuple]:
    return [(a.module, a.path, a.definitions, a.uses, a.imports, a.problems, a.has_main, a.lines, a.value_types)
            for a in index.modules]


def _count(analysed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file analysed (finished: analysis/pool.py) goes on ``analysed``."""
    real = pool_module.Analyst.finish
    monkeypatch.setattr(pool_module.Analyst, "finish",
                        lambda self, n, tables: analysed.append(self.jobs[n].path) or real(self, n, tables))


def _build(folder: Path, store: RecordStore | None, analysed: list[str] | None = None,
           monkeypatch: pytest.MonkeyPatch | None = None) -> WorkspaceIndex:
    if analysed is not None and monkeypatch is not None:
        _count(analysed, monkeypatch)
    ws = Workspace(folder)
    return WorkspaceIndex(ws, ws.python_files(), store)


def _store(cache: Path) -> RecordStore:
    return RecordStore(cache, ClassInfo)  # a new process's store: nothing in memory


def test_a_second_build_replays_every_file_and_equals_the_cold_build(tmp_path):
    ws = _write(tmp_path / "ws", FILES)
    cold = _build(ws, None)
    first = _build(ws, _store(tmp_path / "cache"))
    assert first.replayed == 0 and _snapshot(first) == _snapshot(cold)
    second = _build(ws, _store(tmp_path / "cache"))
    assert (second.analysed, second.replayed) == (0, first.analysed)
    assert _snapshot(second) == _snapshot(cold)


def test_an_edit_reanalyses_the_file_and_what_asks_about_it_and_equals_a_cold_build(tmp_path, monkeypatch):
    ws = _write(tmp_path / "ws", FILES)
    store = _store(tmp_path / "cache")
    _build(ws, store)
    # Engine loses stop() and gains halt(): pkg/cli.py asked about Engine's members
    engine = ws / "pkg" / "engine.py"
    engine.write_text(FILES["pkg/engine.py"].replace("def stop(self)", "def halt(self)"))
    analysed: list[str] = []
    warm = _build(ws, store, analysed, monkeypatch)
    monkeypatch.undo()
    assert "pkg/engine.py" in analysed and "pkg/cli.py" in analysed
    assert "pkg/util.py" not in analysed and "pkg/__init__.py" not in analysed  # their questions, same answers
    assert _snapshot(warm) == _snapshot(_build(ws, None))
    stop = [u.target for u in warm.by_module["pkg.cli"].uses if u.target.endswith("stop")]
    assert stop == ["?e.stop"]  # unresolved now, as a cold build says
    # an edit back: engine.py's first record replays; what asked about it is analysed again
    engine.write_text(FILES["pkg/engine.py"])
    analysed.clear()
    again = _build(ws, store, analysed, monkeypatch)
    monkeypatch.undo()
    assert "pkg/engine.py" not in analysed and "pkg/util.py" not in analysed
    assert _snapshot(again) == _snapshot(_build(ws, None))


def test_a_damaged_record_is_a_miss_and_the_folder_stays_within_its_size(tmp_path):
    ws = _write(tmp_path / "ws", FILES)
    cache = tmp_path / "cache"
    first = _build(ws, _store(cache))
    records = sorted(p for p in cache.rglob("*") if p.is_file())
    assert len(records) == first.analysed == 5 and not [p for p in records if p.name.startswith(".tmp-")]
    records[0].write_bytes(b"\x00garbage")
    # the right shape and version, the wrong content (a definition of one field): loaded, it failed later
    records[1].write_bytes(marshal.dumps((filecache.analyser_version(), ("m", "m.py", (("a",),), (), (), (), False,
                                                                          1, {}), ())))
    again = _build(ws, _store(cache))
    assert (again.analysed, again.replayed) == (2, 3)
    assert _snapshot(again) == _snapshot(first)
    small = RecordStore(cache, ClassInfo, disk_limit=sum(p.stat().st_size for p in records) // 2)
    small.prune()
    assert sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) <= small.disk_limit


def test_the_version_of_the_analyser_and_the_path_are_in_the_key():
    key = RecordStore.key(b"x = 1\n", "a.py", "a", False, "first")
    assert key != RecordStore.key(b"x = 1\n", "b/a.py", "a", False, "first")
    assert key != RecordStore.key(b"x = 2\n", "a.py", "a", False, "first")
    assert key != RecordStore.key(b"x = 1\n", "a.py", "a", False, "again")
    assert len(filecache.analyser_version()) == 64


# --- the same bytes four ways -----------------------------------------------------------------

VIEWS = (("project-graph", "semaprax.toml"), ("diagnostics", "semaprax.toml"), ("references", "pkg.engine.Engine.run"),
         ("task-context", "pkg.cli.main"), ("symbols", "pkg"))

RUN = """
import hashlib, json, sys
from analysis import filecache, index, outlines, pool
from servers.route import make_projection
filecache.use_disk = sys.argv[2] == "cache"
index.jobs = int(sys.argv[4])
pool.POOL_MIN_FILES = outlines.POOL_MIN_FILES = 0  # a pool of that many processes even for these few files
used = []
def solve(*args, **kwargs):
    outcome = pool.solve(*args, **kwargs)
    used.append(outcome.processes if outcome.finishes else 0)
    return outcome
index.solve = solve
outlined = []  # project-graph reads the outlines (analysis/outlines.py): the processes that read them
real_outline_of = outlines.outline_of
def outline_of(*args, **kwargs):
    made = real_outline_of(*args, **kwargs)
    outlined.append(made.processes if made.read else 0)
    return made
outlines.outline_of = outline_of
out = []
for profile, root in json.loads(sys.argv[3]):
    p = make_projection(profile, root, sys.argv[1])
    out.append(hashlib.sha256(p.selected).hexdigest() + " " + p.source_revision)
print(json.dumps([out, used[0], outlined]))
"""


def test_the_same_workspace_gives_the_same_bytes_four_ways(tmp_path):
    one = _write(tmp_path / "one", FILES)
    two = shutil.copytree(one, tmp_path / "elsewhere" / "two")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))

    def run(folder: Path, seed: str, cache: str, jobs: int, processes: int) -> list[str]:
        done = subprocess.run([sys.executable, "-c", RUN, str(folder), cache, json.dumps(VIEWS), str(jobs)],
                              cwd=ROOT, env={**env, "PYTHONHASHSEED": seed}, capture_output=True, text=True,
                              check=True)
        out, used, outlined = json.loads(done.stdout)
        assert used == processes  # the processes that analysed the files (0: all replayed)
        assert outlined == [processes]  # and that read project-graph's outlines
        return out

    cold = run(one, "0", "cache", 1, 1)  # writes the records
    assert (tmp_path / "xdg" / "semaprax" / "analysis").is_dir()
    assert run(one, "1", "cache", 1, 0) == cold  # another seed, every file replayed from disk
    assert run(two, "2", "no-cache", 2, 2) == cold  # another path, no cache, two processes
    assert run(two, "3", "cache", 3, 0) == cold  # another path, cache (keys hold workspace-relative paths: replayed)
    assert run(one, "4", "no-cache", 3, 3) == cold  # three processes


def test_a_server_reanalyses_only_the_edited_file_and_gives_the_cold_bytes(tmp_path, monkeypatch):
    from analysis.warm import IndexCache
    from servers.route import make_projection

    monkeypatch.setattr(filecache, "use_disk", False)  # the records a server keeps in memory
    ws = _write(tmp_path / "ws", FILES)
    old = os.stat(ws / "app.py").st_mtime - 3600  # out of the racy window
    for p in ws.rglob("*"):
        os.utime(p, (old, old))
    cache = IndexCache()
    make_projection("references", "pkg.util.helper", ws, index_cache=cache)
    util = ws / "pkg" / "util.py"
    util.write_text(FILES["pkg/util.py"] + "\n\ndef extra():\n    return helper(1)\n")
    analysed: list[str] = []
    _count(analysed, monkeypatch)
    after = make_projection("references", "pkg.util.helper", ws, index_cache=cache)
    assert analysed == ["pkg/util.py"] and cache.stats.builds == 2
    monkeypatch.undo()
    monkeypatch.setattr(filecache, "use_disk", False)
    kept = filecache._stores.copy()
    filecache._stores.clear()  # a cold build: no records
    try:
        assert after == make_projection("references", "pkg.util.helper", ws)
    finally:
        filecache._stores.update(kept)


def test_an_edit_of_a_stub_alone_reanalyses_its_module(tmp_path, monkeypatch):
    files = {"gadgets.py": "def make(kind):\n    return kind\n",
             "gadgets.pyi": "def make(kind: str) -> str: ...\n",
             "user.py": "from gadgets import make\n\ndef use():\n    make('x').upper()\n"}
    ws = _write(tmp_path / "ws", files)
    store = _store(tmp_path / "cache")
    _build(ws, store)
    (ws / "gadgets.pyi").write_text("def make(kind: str) -> bytes: ...\n")  # the stub's bytes are in the key
    analysed: list[str] = []
    warm = _build(ws, store, analysed, monkeypatch)
    monkeypatch.undo()
    assert "gadgets.py" in analysed and "user.py" in analysed  # user asked what make() returns
    assert _snapshot(warm) == _snapshot(_build(ws, None))
    assert "builtins.bytes.upper" in {u.target for u in warm.by_module["user"].uses}
