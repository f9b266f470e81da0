"""A warm index: a long-running server keeps each workspace analysis and reuses it
while the files it read are unchanged.

The analysis (``analysis.index.WorkspaceIndex``) is a pure function of the files
it reads, so a kept index is valid exactly as long as those files are. Each file is
checked by size and modification time, and when either moved, by the SHA-256 of
its bytes, so touching a file without changing it costs a hash, not a rebuild. A
file modified within the last two seconds of being recorded is always hashed
(its modification time may not have ticked yet: git's "racily clean" case). A hit
gives the request's Workspace the recorded bytes, so its ``source_revision``
covers the same files as a cold build would."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analysis.sources import Workspace

#: A stat taken within this many nanoseconds of a file's mtime cannot vouch for it.
RACY_NS = 2_000_000_000


@dataclass
class _File:
    size: int
    mtime_ns: int
    sha256: bytes
    data: bytes
    racy: bool


@dataclass
class _Entry:
    index: Any
    files: dict[str, _File] = field(default_factory=dict)


@dataclass
class CacheStats:
    hits: int = 0
    builds: int = 0
    rehashed: int = 0


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


class IndexCache:
    """Indexes kept per (workspace folder, file list), the most recent ``size``
    of them. Safe to share between threads: one build at a time, and a kept
    index is only read."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self.stats = CacheStats()
        self._entries: OrderedDict[tuple[str, tuple[str, ...]], _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def index(self, ws: Workspace, files: list[str], build: Callable[[Workspace, list[str]], Any]) -> Any:
        """The index of ``files`` in ``ws``: the kept one when every file it
        read is unchanged, else ``build(ws, files)``, kept for next time."""
        folder = str(ws.folder.resolve())
        key = (folder, tuple(files))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and self._still_valid(folder, entry):
                self._entries.move_to_end(key)
                for rel, f in entry.files.items():
                    ws.read_files.setdefault(rel, f.data)
                self.stats.hits += 1
                return entry.index
            # The build reads into a fresh record, so the entry holds exactly the
            # files the index depends on, whatever the request read before it.
            before, ws.read_files = ws.read_files, {}
            try:
                index = build(ws, files)
            finally:
                read, ws.read_files = ws.read_files, {**before, **ws.read_files}
            self.stats.builds += 1
            self._entries[key] = self._record(folder, index, read)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
            return index

    def _record(self, folder: str, index: Any, read: dict[str, bytes]) -> _Entry:
        """What the build read: the files themselves and the package markers
        that named their modules."""
        entry = _Entry(index)
        now = time.time_ns()
        for rel, data in read.items():
            st = _stat(os.path.join(folder, rel))
            if st is None:
                continue
            entry.files[rel] = _File(st.st_size, st.st_mtime_ns, hashlib.sha256(data).digest(), data,
                                     racy=now - st.st_mtime_ns < RACY_NS)
        return entry

    def _still_valid(self, folder: str, entry: _Entry) -> bool:
        for rel, f in entry.files.items():
            st = _stat(os.path.join(folder, rel))
            if st is None:
                return False
            if st.st_size == f.size and st.st_mtime_ns == f.mtime_ns and not f.racy:
                continue
            try:
                with open(os.path.join(folder, rel), "rb") as fh:
                    data = fh.read()
            except OSError:
                return False
            self.stats.rehashed += 1
            if hashlib.sha256(data).digest() != f.sha256:
                return False
            f.size, f.mtime_ns = st.st_size, st.st_mtime_ns
            f.racy = time.time_ns() - st.st_mtime_ns < RACY_NS
        return True
