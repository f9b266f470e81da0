"""The per-file analysis cache from the command line (issue 22, analysis/filecache.py):
``--no-cache`` neither reads nor writes the cache folder, and several processes
sharing one cache folder at once give the same bytes and leave no temporary file.

The command line runs in this process (its settings restored after) and in
processes forked from it, so each test takes a fraction of a second."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from workspacekit import write_files

from analysis import filecache, index
from semaprax.cli import main

#: A manifest and a dozen small modules that import each other: records to write.
FILES: dict[str, str | bytes] = {
    "semaprax.toml": "[project]\nname = 'w'\n",
    "pkg/__init__.py": "from .m0 import f0\n",
    **{f"pkg/m{i}.py": (f"from pkg.m{i - 1} import f{i - 1}\n\n" if i else "") +
       f"class C{i}:\n    def run(self) -> int:\n        return {i}\n\n\n"
       f"def f{i}() -> int:\n    return C{i}().run()" + (f" + f{i - 1}()\n" if i else "\n")
       for i in range(12)},
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, and the CLI's settings restored after."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(filecache, "_stores", {})  # no records in memory from other tests
    monkeypatch.setattr(filecache, "use_disk", filecache.use_disk)
    monkeypatch.setattr(index, "jobs", index.jobs)
    monkeypatch.setattr(index, "progress_hook", index.progress_hook)
    return tmp_path / "xdg"


def _graph(ws: Path, out: Path, *extra: str) -> bytes:
    assert main(["project", "semaprax.toml", "--profile", "project-graph", "--workspace", str(ws),
                 "--jobs", "1", "-o", str(out), *extra]) == 0
    return out.read_bytes()


def _state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder``: its size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size if p.is_file() else 0, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def test_no_cache_leaves_the_cache_folder_untouched(tmp_path: Path, cache: Path) -> None:
    ws = write_files(tmp_path / "ws", FILES)
    first = _graph(ws, tmp_path / "1.json")  # writes a record per file
    before = _state(cache)
    assert any(name.startswith("semaprax/analysis/") for name in before)

    filecache._stores.clear()  # as a new process: nothing in memory, every record read from disk
    (ws / "pkg" / "m3.py").write_text(str(FILES["pkg/m3.py"]) + "\n\ndef g() -> int:\n    return f3()\n")
    edited = _graph(ws, tmp_path / "2.json", "--no-cache")  # an edit that a cached run would record
    assert edited != first
    assert _state(cache) == before

    filecache._stores.clear()
    assert _graph(ws, tmp_path / "3.json") == edited  # with the cache, the edited file's record is written
    assert _state(cache) != before


def _child(ws: str, out: str) -> None:
    filecache._stores.clear()  # a process of its own: the parent's records in memory are not shared
    os._exit(main(["project", "semaprax.toml", "--profile", "project-graph", "--workspace", ws,
                   "--jobs", "1", "-o", out]))


def test_concurrent_processes_share_one_cache_folder(tmp_path: Path, cache: Path) -> None:
    ws = write_files(tmp_path / "ws", FILES)
    fork = multiprocessing.get_context("fork")  # the CLI already imported: each process starts at once
    outs = [tmp_path / f"{n}.json" for n in range(3)]
    runs = [fork.Process(target=_child, args=(str(ws), str(out))) for out in outs]
    for run in runs:  # all three start on an empty folder and write the same records
        run.start()
    for run in runs:
        run.join(30)
    assert [run.exitcode for run in runs] == [0, 0, 0]
    assert len({out.read_bytes() for out in outs}) == 1

    folder = cache / "semaprax" / "analysis"
    names = [p.name for p in folder.rglob("*") if p.is_file()]
    assert not [n for n in names if n.startswith(".tmp-")]
    assert len(names) == len([n for n in FILES if n.endswith(".py")])  # one record per file
    written = _state(cache)
    assert _graph(ws, tmp_path / "again.json") == outs[0].read_bytes()
    assert _state(cache) == written  # every record read back whole: none was a miss written again
    assert _graph(ws, tmp_path / "plain.json", "--no-cache") == outs[0].read_bytes()
