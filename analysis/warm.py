"""A warm index: a long-running server keeps each workspace analysis (and each
``graph`` and ``symbols`` view) and reuses it while the files it read are unchanged.

The analysis (``analysis.index.WorkspaceIndex``) is a pure function of the files
it reads, so a kept index is valid exactly as long as those files are. Freshness
follows git's index ("racily clean" entries):

* every file is stat'ed **before** the build reads it, so an edit made while a
  build runs leaves a recorded stat older than the file: the next request looks
  at it again;
* a file is trusted on its stat alone only when size, mtime, ctime, inode and
  device are all unchanged **and** its mtime was safely older (RACY_NS) than the
  moment the stat was taken; otherwise its bytes are hashed (SHA-256) and
  compared. An edit that keeps the size and restores the mtime (``cp -p``, a
  checkout) still changes the ctime or the inode, so it is hashed and seen;
  touching a file without changing it costs a hash, not a rebuild.

A hit gives the request's Workspace the recorded bytes, so its
``source_revision`` covers the same files as a cold build would.

After a build, what it made is moved out of the garbage collector's sight
(``gc.freeze()``, after one collection), so later warm requests do not pay for
collections that walk the whole index."""

from __future__ import annotations

import gc
import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from analysis.sources import Workspace

#: A stat taken within this many nanoseconds of a file's mtime cannot vouch for it.
RACY_NS = 2_000_000_000
T = TypeVar("T")


@dataclass
class _File:
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int
    sha256: bytes
    data: bytes
    racy: bool

    def same_stat(self, st: os.stat_result) -> bool:
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev) == (
            self.size, self.mtime_ns, self.ctime_ns, self.ino, self.dev)


@dataclass
class _Entry:
    index: Any
    files: dict[str, _File] = field(default_factory=dict)


@dataclass
class CacheStats:
    hits: int = 0
    builds: int = 0
    rehashed: int = 0
    view_hits: int = 0
    view_builds: int = 0


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _stamped(folder: str, rels: Iterable[str]) -> dict[str, tuple[os.stat_result, int]]:
    """Each file's stat and the time just before it was taken."""
    out = {}
    for rel in rels:
        now = time.time_ns()
        st = _stat(os.path.join(folder, rel))
        if st is not None:
            out[rel] = (st, now)
    return out


def freeze_after_build() -> None:
    """Collect what is not frozen yet (the build's leftovers), then move
    everything alive out of the collector's sight, so that later collections do
    not walk what a build made. The frozen indexes are not walked again: an
    index holds no reference cycles (tests/analysis/test_warm.py), so one that is
    replaced or evicted is freed by reference counting, frozen or not. (Walking
    them too, as an unfreeze before the collection did, took 1.2 s of the 1.8 s
    request after a one-file edit of the standard library.)"""
    gc.collect()
    gc.freeze()


class IndexCache:
    """Indexes kept per (workspace folder, file list), the most recent ``size``
    of them, and views kept per (folder, profile, root, file list), the most
    recent ``views`` of them. Safe to share between threads: one build at a
    time, and a kept index is only read."""

    def __init__(self, size: int = 8, views: int = 64, *, freeze: bool = True) -> None:
        self.size = size
        self.views = views
        self.freeze = freeze
        self.stats = CacheStats()
        self._entries: OrderedDict[tuple[str, tuple[str, ...]], _Entry] = OrderedDict()
        self._views: OrderedDict[tuple[Any, ...], _Entry] = OrderedDict()
        self._lock = threading.Lock()
        #: Views have their own lock: a view never waits for an index being built.
        self._view_lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
        with self._view_lock:
            self._views.clear()

    def index(self, ws: Workspace, files: list[str], build: Callable[[Workspace, list[str]], Any]) -> Any:
        """The index of ``files`` in ``ws``: the kept one when every file it
        read is unchanged, else ``build(ws, files)``, kept for next time."""
        folder = str(ws.folder.resolve())
        key = (folder, tuple(files))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and self._still_valid(folder, entry):
                self._entries.move_to_end(key)
                self._give(ws, entry)
                self.stats.hits += 1
                return entry.index
            entry = self._build(ws, folder, files, lambda: build(ws, files))
            self.stats.builds += 1
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        if self.freeze:
            freeze_after_build()
        return entry.index

    def kept(self, ws: Workspace, files: list[str]) -> Any:
        """The kept index of ``files`` in ``ws`` when every file it read is
        unchanged, else None (nothing is built): project-graph reads it where
        it is at hand, and its files' outlines otherwise (views/project_graph.py)."""
        folder = str(ws.folder.resolve())
        key = (folder, tuple(files))
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or not self._still_valid(folder, entry):
                return None
            self._entries.move_to_end(key)
            self._give(ws, entry)
            self.stats.hits += 1
            return entry.index

    def view(self, ws: Workspace, key: tuple[Any, ...], produce: Callable[[], T]) -> T:
        """A view that is a function of the files it reads and of the workspace's
        .py file list (``graph``, ``symbols``): the kept one when the list and
        every file read are unchanged, else ``produce()``, kept for next time.
        Errors are not kept."""
        folder = str(ws.folder.resolve())
        listing = tuple(ws.python_files())
        full = (folder, *key, listing)
        with self._view_lock:
            entry = self._views.get(full)
            if entry is not None and self._still_valid(folder, entry):
                self._views.move_to_end(full)
                self._give(ws, entry)
                self.stats.view_hits += 1
                return entry.index
        entry = self._build(ws, folder, listing, produce)
        with self._view_lock:
            self.stats.view_builds += 1
            self._views[full] = entry
            self._views.move_to_end(full)
            while len(self._views) > self.views:
                self._views.popitem(last=False)
        return entry.index

    @staticmethod
    def _give(ws: Workspace, entry: _Entry) -> None:
        for rel, f in entry.files.items():
            ws.read_files.setdefault(rel, f.data)

    def _build(self, ws: Workspace, folder: str, expected: Iterable[str], make: Callable[[], Any]) -> _Entry:
        """Run ``make`` with every expected file stat'ed first; record what it read.
        The build reads into a fresh record, so the entry holds exactly the files
        the result depends on, whatever the request read before it."""
        stamps = _stamped(folder, expected)
        before, ws.read_files = ws.read_files, {}
        try:
            made = make()
        finally:
            read, ws.read_files = ws.read_files, {**before, **ws.read_files}
        return self._record(folder, made, read, stamps)

    def _record(self, folder: str, index: Any, read: dict[str, bytes],
                stamps: dict[str, tuple[os.stat_result, int]]) -> _Entry:
        """What the build read: the files themselves and the package markers that
        named their modules, each with the stat taken before it was read. A file
        not stat'ed beforehand is recorded as racy (checked by content next time)."""
        entry = _Entry(index)
        unstamped = _stamped(folder, (rel for rel in read if rel not in stamps))
        for rel, data in read.items():
            stamp = stamps.get(rel)
            racy = stamp is None
            if stamp is None:
                stamp = unstamped.get(rel)
                if stamp is None:
                    continue
            st, taken = stamp
            entry.files[rel] = _File(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev,
                                     hashlib.sha256(data).digest(), data,
                                     racy=racy or taken - st.st_mtime_ns < RACY_NS)
        return entry

    def _still_valid(self, folder: str, entry: _Entry) -> bool:
        for rel, f in entry.files.items():
            taken = time.time_ns()
            st = _stat(os.path.join(folder, rel))
            if st is None:
                return False
            if f.same_stat(st) and not f.racy:
                continue
            try:  # the stat above was taken before this read: an edit in between is a mismatch
                with open(os.path.join(folder, rel), "rb") as fh:
                    data = fh.read()
            except OSError:
                return False
            self.stats.rehashed += 1
            if hashlib.sha256(data).digest() != f.sha256:
                return False
            f.size, f.mtime_ns, f.ctime_ns, f.ino, f.dev = (st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                                                            st.st_ino, st.st_dev)
            f.racy = taken - st.st_mtime_ns < RACY_NS
        return True
