"""The per-file analysis cache: one run per change.

A module's analysis (``analysis.resolver.analyse_module``) is a function of its
bytes, its path and module name, and the answers it got when it asked the
workspace index about other modules' classes and values. A record keeps the
analysis together with every question it asked, in order, with the answer it
got, and the classes and values it told the index (``on_prepared``). The index
(analysis/index.py) replays a record instead of analysing the file again: it
asks the same questions in the same order, and while every answer is the one
recorded, the analysis would be the one recorded. At the first answer that
differs the file is analysed again, fed the answers already given, so the
result is always the one a cold build gives.

Records are keyed by the SHA-256 of the analyser's own source (its version),
the Python version, the file's path, module name and bytes. They are held in
memory (bounded, for a long-running server: a one-file edit re-analyses that
file and what asks about it) and on disk under the user's cache folder
(``$XDG_CACHE_HOME/semaprax/analysis``, else ``~/.cache/semaprax/analysis``):
written to a temporary file and renamed into place, so several processes can
share the folder; read with ``marshal`` (no code runs on load) after a
CRC-32 of the bytes that follow it (a damaged record is a miss); at most
``DISK_LIMIT`` bytes, the oldest records removed first. ``semaprax project
--no-cache`` leaves the disk alone.

The same store keeps project-graph's outlines (analysis/outlines.py): a file's
imports, doc and lines, a marshal value of its own kind (``get_outline``,
``put_outline``), under a key of its own phase, in memory and on disk alike.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import sys
import tempfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.model import Definition, Import, ModuleAnalysis, Problem, Use

#: One event of an analysis, in the order it happened:
#: (CLASS, qualname, answer), (VALUE, qualname, answer) or (PREPARED, classes, values).
CLASS, VALUE, PREPARED = 0, 1, 2
Event = tuple[int, Any, Any]

#: The largest total size of the records on disk, in bytes.
DISK_LIMIT = 512 * 1024 * 1024
#: Records kept in memory by one process.
MEMORY_LIMIT = 40_000


@dataclass(frozen=True)
class Record:
    events: tuple[Event, ...]
    result: ModuleAnalysis


@functools.cache
def analyser_version() -> str:
    """The SHA-256 of the sources the analysis is made of, and the Python
    version (whose ``ast`` it reads): any change to either is a new cache."""
    h = hashlib.sha256(f"semaprax-analysis/1 {sys.version_info[:2]}".encode())
    here = Path(__file__).resolve().parent
    for name in ("filecache.py", "index.py", "model.py", "parse.py", "pool.py", "resolver.py", "scopes.py", "sources.py",
                 "spelling.py", "stdlib_types.py", "_stdlib_classes.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()


def cache_folder() -> Path | None:
    """``$XDG_CACHE_HOME/semaprax/analysis``, else ``~/.cache/semaprax/analysis``;
    None when neither names an absolute folder (no cache on disk then)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "semaprax" / "analysis"


# --- records as marshal values ------------------------------------------------------------

def _fields(cls: type) -> tuple[str, ...]:
    return tuple(cls.__dataclass_fields__)  # type: ignore[attr-defined]


_DEF, _USE, _IMP, _PROB = _fields(Definition), _fields(Use), _fields(Import), _fields(Problem)
_MOD = tuple(f for f in _fields(ModuleAnalysis) if f != "by_name")


def _flat(obj: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    d = obj.__dict__
    return tuple(d[n] for n in names)


def _maker(cls: type, names: tuple[str, ...]) -> Callable[[tuple[Any, ...]], Any]:
    """A function making a frozen dataclass instance from its field values,
    without its ``__init__`` (a record holds hundreds of thousands of them)."""
    new, setattr_ = object.__new__, object.__setattr__

    def make(values: tuple[Any, ...]) -> Any:
        obj: Any = new(cls)
        setattr_(obj, "__dict__", dict(zip(names, values)))
        return obj

    return make


_make_def, _make_use = _maker(Definition, _DEF), _maker(Use, _USE)
_make_imp, _make_prob = _maker(Import, _IMP), _maker(Problem, _PROB)


def _dump(record: Record) -> bytes:
    a = record.result
    module = (a.module, a.path, tuple(_flat(d, _DEF) for d in a.definitions),
              tuple(_flat(u, _USE) for u in a.uses), tuple(_flat(i, _IMP) for i in a.imports),
              tuple(_flat(p, _PROB) for p in a.problems), a.has_main, a.lines, a.value_types, a.exports)
    events = tuple(_event_out(e) for e in record.events)
    return marshal.dumps((analyser_version(), module, events))


def _event_out(event: Event) -> Any:
    kind, q, answer = event
    if kind == PREPARED:
        return (kind, tuple((k, v.bases, v.members) for k, v in q.items()), tuple(answer.items()))
    if kind == CLASS and answer is not None:
        return (kind, q, (answer.bases, answer.members))
    return event


def _load(data: bytes, class_info: Callable[..., Any]) -> Record | None:
    version, module, events = marshal.loads(data)
    if version != analyser_version():
        return None
    (name, path, definitions, uses, imports, problems, has_main, lines, value_types, exports) = module
    result = ModuleAnalysis(
        name, path, tuple(map(_make_def, definitions)), tuple(map(_make_use, uses)),
        tuple(map(_make_imp, imports)), tuple(map(_make_prob, problems)), has_main, lines, value_types, exports)
    out: list[Event] = []
    for kind, q, answer in events:
        if kind == PREPARED:
            out.append((kind, {k: class_info(b, m) for k, b, m in q}, dict(answer)))
        elif kind == CLASS and answer is not None:
            out.append((kind, q, class_info(*answer)))
        else:
            out.append((kind, q, answer))
    return Record(tuple(out), result)


#: The second item of an outline's record on disk (a full record's is its module); an
#: outline (analysis/outline.py, project-graph's reading of a file) is a marshal value.
OUTLINE = "outline"


def _dump_value(value: Record | tuple[Any, ...]) -> bytes:
    if isinstance(value, Record):
        return _dump(value)
    return marshal.dumps((analyser_version(), OUTLINE, value))


#: Bytes of the checksum a record on disk starts with (CRC-32 of the rest, big-endian): a
#: damaged record, of any shape (random bytes, or marshal values of the right shape and
#: the wrong content, which would load and fail later), is a miss. (CRC-32: damage, not
#: forgery, is what it is for, at a fifth of ``marshal.loads``'s time, blake2b's half.)
_SEAL = 4


def _sealed(body: bytes) -> bytes:
    return zlib.crc32(body).to_bytes(_SEAL, "big") + body


def _unsealed(data: bytes) -> bytes | None:
    body = data[_SEAL:]
    return body if len(data) >= _SEAL and zlib.crc32(body).to_bytes(_SEAL, "big") == data[:_SEAL] else None


def _load_value(data: bytes, class_info: Callable[..., Any]) -> Record | tuple[Any, ...] | None:
    version, kind, value = marshal.loads(data)
    if kind == OUTLINE:
        return value if version == analyser_version() and isinstance(value, tuple) else None
    return _load(data, class_info)


def dump_record(record: Record) -> bytes:
    """A record as the bytes kept on disk (and sent from a worker process)."""
    return _dump(record)


def load_record(data: bytes, class_info: Callable[..., Any]) -> Record:
    """The record ``dump_record`` made."""
    record = _load(data, class_info)
    if record is None:
        raise ValueError("a record of another analyser version")
    return record


class RecordStore:
    """Records by key, in memory and (when ``folder`` is given) on disk."""

    def __init__(self, folder: Path | None, class_info: Callable[..., Any], *,
                 memory_limit: int = MEMORY_LIMIT, disk_limit: int = DISK_LIMIT) -> None:
        self.folder = folder
        self.class_info = class_info
        self.memory_limit = memory_limit
        self.disk_limit = disk_limit
        self._memory: OrderedDict[str, Record | tuple[Any, ...]] = OrderedDict()
        self._pending: dict[str, Record | tuple[Any, ...]] = {}
        self._lock = threading.Lock()  # a server's threads share the process's store
        #: The last index's modules renamed through re-exports, by record key (analysis
        #: itself, renamed), and what the renaming depended on (analysis/index.py).
        self.finals: dict[str, tuple[ModuleAnalysis, ModuleAnalysis]] = {}
        self.finals_state: Any = None
        self.hits = self.misses = 0

    @staticmethod
    def key(data: bytes, path: str, module: str, is_package: bool, phase: str,
            renamed: tuple[tuple[str, str], ...] = (), stub: bytes | None = None) -> str:
        """The key of a file's record: its bytes and its stub's (a .pyi beside
        it is part of its analysis), where it is and what it is named, what its
        bare imports reach, the analyser's version and ``phase``."""
        h = hashlib.sha256(analyser_version().encode())
        h.update(f"\x00{phase}\x00{path}\x00{module}\x00{int(is_package)}\x00".encode("utf-8", "surrogatepass"))
        if renamed:  # what the file's bare imports reach (sources.ModuleFile.renamed)
            h.update(repr(renamed).encode("utf-8", "surrogatepass") + b"\x00")
        h.update(data)
        if stub is not None:
            h.update(b"\0semaprax-stub\0" + stub)
        return h.hexdigest()

    def get(self, key: str) -> Record | None:
        found = self._get(key)
        return found if isinstance(found, Record) else None

    def get_outline(self, key: str) -> tuple[Any, ...] | None:
        """An outline kept under ``key`` (analysis/outlines.py), or None."""
        found = self._get(key)
        return found if isinstance(found, tuple) else None

    def put_outline(self, key: str, value: tuple[Any, ...]) -> None:
        self.put(key, value)

    def _get(self, key: str) -> Record | tuple[Any, ...] | None:
        with self._lock:
            record = self._memory.get(key)
            if record is not None:
                self._memory.move_to_end(key)
        if record is None and self.folder is not None:
            record = self._read(key)
            if record is not None:
                with self._lock:
                    self._remember(key, record)
        if record is None:
            self.misses += 1
        else:
            self.hits += 1
        return record

    def put(self, key: str, record: Record | tuple[Any, ...]) -> None:
        with self._lock:
            self._remember(key, record)
            if self.folder is not None:
                self._pending[key] = record

    def _remember(self, key: str, record: Record | tuple[Any, ...]) -> None:
        self._memory[key] = record
        self._memory.move_to_end(key)
        while len(self._memory) > self.memory_limit:
            self._memory.popitem(last=False)

    def _path(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / key[:2] / key

    def _read(self, key: str) -> Record | tuple[Any, ...] | None:
        try:
            data = _unsealed(self._path(key).read_bytes())
        except OSError:
            return None
        if data is None:
            return None
        try:
            return _load_value(data, self.class_info)
        except (ValueError, EOFError, TypeError, KeyError):  # a damaged record is a miss
            return None

    def flush(self) -> None:
        """Write the records made since the last flush, each atomically, then
        keep the folder within its size."""
        with self._lock:
            pending, self._pending = self._pending, {}
        if self.folder is None or not pending:
            return
        wrote = False
        for key, record in pending.items():
            path = self._path(key)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
                try:
                    with os.fdopen(fd, "wb") as fh:
                        fh.write(_sealed(_dump_value(record)))
                    os.replace(tmp, path)
                    wrote = True
                except BaseException:
                    try:
                        os.unlink(tmp)
                    except OSError:
                        pass
                    raise
            except OSError:  # a full or read-only disk: the cache is an optimisation only
                return
        if wrote:
            self.prune()

    def prune(self) -> None:
        """Remove the oldest records until the folder holds at most
        ``disk_limit`` bytes (three quarters of it, so pruning is rare)."""
        if self.folder is None:
            return
        found: list[tuple[int, int, str]] = []
        total = 0
        for dirpath, _dirs, names in os.walk(self.folder):
            for name in names:
                full = os.path.join(dirpath, name)
                try:
                    st = os.stat(full)
                except OSError:
                    continue
                total += st.st_size
                found.append((st.st_mtime_ns, st.st_size, full))
        if total <= self.disk_limit:
            return
        found.sort()
        for _mtime, size, full in found:
            if total <= self.disk_limit * 3 // 4:
                break
            try:
                os.unlink(full)
            except OSError:
                continue
            total -= size


#: Whether records are kept on disk; ``semaprax project --no-cache`` turns it off.
use_disk = True
_stores: dict[str, RecordStore] = {}


def default_store(class_info: Callable[..., Any]) -> RecordStore:
    """The process's store: in memory always, on disk unless turned off."""
    folder = cache_folder() if use_disk else None
    name = str(folder)
    store = _stores.get(name)
    if store is None:
        store = _stores[name] = RecordStore(folder, class_info)
    return store
