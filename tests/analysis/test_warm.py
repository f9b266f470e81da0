"""The warm index (analysis/warm.py): a server reuses the workspace analysis while
the files it read are unchanged, and gives exactly the bytes a cold build gives."""

from __future__ import annotations

import os
import shutil
import threading
import time

import pytest
from serverkit import DEMO

from analysis.warm import IndexCache
from servers import route


@pytest.fixture
def demo(tmp_path):
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    old = time.time() - 3600  # well out of the racy window
    for path in folder.rglob("*"):
        os.utime(path, (old, old))
    return folder


def project(folder, cache, profile="references", root="pkg.core.Engine"):
    return route.make_projection(profile, root, folder, index_cache=cache)


def test_the_second_request_reuses_the_index_and_gives_the_cold_bytes(demo):
    cache = IndexCache()
    first = project(demo, cache)
    assert (cache.stats.builds, cache.stats.hits) == (1, 0)
    second = project(demo, cache, "task-context", "pkg.core.Engine.run")  # another symbol, same index
    assert (cache.stats.builds, cache.stats.hits) == (1, 1)
    assert first == project(demo, None)
    assert second == project(demo, None, "task-context", "pkg.core.Engine.run")  # revision included


def test_a_touched_file_is_hashed_not_reanalysed(demo):
    cache = IndexCache()
    project(demo, cache)
    os.utime(demo / "pkg" / "util.py")  # now: new mtime, same bytes
    project(demo, cache)
    assert (cache.stats.builds, cache.stats.hits) == (1, 1) and cache.stats.rehashed >= 1


def test_an_edited_file_rebuilds_the_index(demo):
    cache = IndexCache()
    before = project(demo, cache, "task-context", "pkg.core.Engine.run")
    core = demo / "pkg" / "core.py"
    core.write_text(core.read_text() + "\n\ndef extra():\n    return Engine().run()\n")
    after = project(demo, cache, "task-context", "pkg.core.Engine.run")
    assert cache.stats.builds == 2
    assert after.source_revision != before.source_revision
    assert after == project(demo, None, "task-context", "pkg.core.Engine.run")


def test_an_edit_that_keeps_size_and_mtime_is_still_seen_while_racy(tmp_path):
    # Files written just now: their mtime cannot vouch for them, so they are hashed.
    folder = tmp_path / "w"
    shutil.copytree(DEMO, folder, copy_function=shutil.copy)  # fresh modification times
    cache = IndexCache()
    project(folder, cache)
    util = folder / "pkg" / "util.py"
    st = util.stat()
    data = util.read_bytes()
    util.write_bytes(data.replace(b"def helper(x):  #", b"def helpex(x):  #", 1))
    os.utime(util, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert util.stat().st_size == st.st_size
    again = project(folder, cache)
    assert cache.stats.builds == 2
    assert again == project(folder, None)


def test_a_deleted_or_added_file_rebuilds(demo):
    cache = IndexCache()
    project(demo, cache)
    (demo / "pkg" / "extra.py").write_text("from pkg.core import Engine\n\ndef go():\n    return Engine()\n")
    assert b"pkg/extra.py" in project(demo, cache).selected
    (demo / "pkg" / "extra.py").unlink()
    assert b"pkg/extra.py" not in project(demo, cache).selected
    # Back to the first file list, whose files are unchanged: the first index again.
    assert (cache.stats.builds, cache.stats.hits) == (2, 1)


def test_threads_share_one_build(demo):
    cache = IndexCache()
    results = []

    def ask():
        results.append(project(demo, cache))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and cache.stats.builds == 1 and cache.stats.hits == 7


def test_every_view_from_a_kept_index_equals_its_cold_build(demo):
    cache = IndexCache()
    views = [("project-graph", "semaprax.toml"), ("diagnostics", "semaprax.toml"),
             ("references", "pkg.core.Engine"), ("task-context", "pkg.core.build"), ("diagnostics", ".")]
    for _ in range(2):
        for profile, root in views:
            assert project(demo, cache, profile, root) == project(demo, None, profile, root)
    assert cache.stats.hits >= len(views)


def _read_all_then(edit):
    """A build that reads every file, then runs ``edit`` (a file changed while the index was being built)."""
    from analysis.index import WorkspaceIndex

    def build(ws, files):
        index = WorkspaceIndex(ws, files)
        edit()
        return index

    return build


def test_an_edit_during_the_build_is_seen_by_the_next_request(demo):
    from analysis.index import WorkspaceIndex
    from analysis.sources import Workspace
    from views.common import workspace_sources

    util = demo / "pkg" / "util.py"

    def edit():
        util.write_text(util.read_text().replace("def helper(x):", "def helpme(x):", 1))
        past = time.time() - 1800  # the edit's mtime is old: only the stat taken before the read can tell
        os.utime(util, (past, past))

    cache = IndexCache(freeze=False)
    ws = Workspace(demo, index_cache=cache)
    cache.index(ws, workspace_sources(ws), _read_all_then(edit))
    ws = Workspace(demo, index_cache=cache)
    cache.index(ws, workspace_sources(ws), WorkspaceIndex)
    assert cache.stats.builds == 2  # rebuilt from the edited file, never stale


def test_an_edit_keeping_size_and_mtime_is_seen_through_the_ctime(demo):
    cache = IndexCache(freeze=False)
    project(demo, cache)
    util = demo / "pkg" / "util.py"
    st = util.stat()
    util.write_bytes(util.read_bytes().replace(b"def helper(x):", b"def helpex(x):", 1))  # as cp -p does
    os.utime(util, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (util.stat().st_size, util.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    again = project(demo, cache)
    assert cache.stats.builds == 2 and again == project(demo, None)


@pytest.mark.parametrize("profile, root", [("graph", "pkg/util.py"), ("symbols", "."), ("symbols", "pkg")])
def test_graph_and_symbols_are_served_warm_and_equal_a_cold_build(demo, profile, root):
    cache = IndexCache(freeze=False)
    first = project(demo, cache, profile, root)
    assert project(demo, cache, profile, root) == first == project(demo, None, profile, root)
    assert (cache.stats.view_builds, cache.stats.view_hits) == (1, 1)
    util = demo / "pkg" / "util.py"
    util.write_text(util.read_text() + "\n\ndef added():\n    return 1\n")
    edited = project(demo, cache, profile, root)
    assert edited != first and edited == project(demo, None, profile, root)
    (demo / "pkg" / "new.py").write_text("def fresh():\n    return 2\n")  # a new file: a new listing
    assert project(demo, cache, profile, root) == project(demo, None, profile, root)
    assert cache.stats.view_builds == 3


def test_a_build_freezes_what_it_made():
    import gc

    try:
        gc.unfreeze()
        cache = IndexCache()
        project(DEMO, cache)
        frozen = gc.get_freeze_count()
        project(DEMO, cache)  # a hit: nothing new to freeze
        assert frozen > 1000 and gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_an_index_holds_no_reference_cycles():
    """A server freezes what a build made and does not walk it again
    (analysis/warm.py freeze_after_build): an index replaced after an edit must
    then be freed by reference counting alone, so it may hold no cycle (the
    build's recursive closure made one, which kept every replaced index of the
    standard library, 40 MB an edit, until a full collection)."""
    import gc
    import weakref

    from analysis.index import WorkspaceIndex
    from analysis.sources import Workspace
    from views.common import workspace_sources

    was = gc.isenabled()
    gc.disable()
    try:
        ws = Workspace(DEMO)
        index = WorkspaceIndex(ws, workspace_sources(ws))
        assert index.modules
        gone = weakref.ref(index)
        del index
        assert gone() is None
    finally:
        if was:
            gc.enable()
