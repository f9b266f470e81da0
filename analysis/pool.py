"""A workspace's files analysed on every core, with a result that depends on
neither the order of the files nor the number of processes.

A module's analysis (analysis/resolver.py) has three stages: ``parse`` (ast and
symbol table), ``prepare`` (definitions, imports, and what the module tells
others: its classes and the value types of its attributes and functions) and
``finish`` (every use resolved). ``prepare`` and ``finish`` ask about other
modules' classes and values; the answers come from ``Tables``, the merge, in
file order, of what every file told. So a file's analysis is a function of
its bytes and the tables, and the build is a fixed point:

1. every file is parsed once and prepared with the tables known so far (none on
   a cold build; on a warm one, what the records in analysis/filecache.py say);
2. the tables are merged again; a file whose questions now get another answer
   is prepared again (from the tree it kept, not parsed again), until no
   answer changes (or ``MAX_ROUNDS``);
3. every file is finished once with the final tables, except a file whose
   record agrees with them all (replayed).

Each round is a function of the previous round's tables only, so the result is
the same in one process or many. The file-local work (parsing, preparing,
finishing) runs in ``jobs`` processes, each holding the files of its shard
between rounds: the calling process (a slightly smaller shard, ``LOCAL_SHARE``)
and ``jobs - 1`` workers; merging and checking runs in the calling process. A
file whose analysis raises gets a diagnostic (``analysis-failed``), and a
worker that dies gives its files one; a worker never outlives the build.

The same processes make project-graph's outlines (``OUTLINE`` requests,
analysis/outlines.py): each file parsed and declared once, no tables, nothing
kept between requests.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analysis.filecache import CLASS, PREPARED, VALUE, Event, Record, dump_record, load_record
from analysis.model import FAILED, TOO_DEEP, UNRESOLVED, ModuleAnalysis
from analysis.outline import read_outline
from analysis.parse import staged as _staged  # each stage with the same frames wherever it runs
from analysis.resolver import (
    TOO_DEEP_MESSAGE,
    ClassInfo,
    _Analyser,
    collector_paused,
    failure_reason,
    known_result,
)
from analysis.stdlib_types import is_class as is_stdlib_class

if TYPE_CHECKING:  # the pool's own modules are imported when a pool starts: a small build needs none
    import subprocess
    from multiprocessing.connection import Connection

#: Rounds of step 2 at most (a chain of modules each telling the next a class).
MAX_ROUNDS = 12
#: Below this many files to analyse a build stays in the calling process: a
#: pool costs 0.3-0.5 s of CPU to start, which two workers win back from about
#: 40 files of the standard library's average size (docs/performance.md,
#: ``semaprax bench producers --pool --threshold``).
POOL_MIN_FILES = 48
#: Source bytes whose parse a build keeps between rounds, shared out among its
#: processes (about 45 bytes of trees per byte of source); a file past it is
#: not kept, and parsed again when it is needed again.
HOLD_BYTES = 32 * 1024 * 1024
#: Files per reply of a worker (so progress is reported as it goes).
CHUNK = 32
#: A worker's finishing when the records are not kept: each record without its questions.
FINISH_RESULTS = "finish-results"
#: A request for outlines (analysis/outline.py, project-graph's reading): no tables, no kept trees.
OUTLINE = "outline"
#: The calling process's shard of a pool, against a worker's 1: it also merges
#: the tables between rounds and loads the workers' records as they come.
LOCAL_SHARE = 0.95


@dataclass(frozen=True)
class Job:
    n: int  # the file's place in the build (its order in the output)
    path: str
    module: str
    is_package: bool
    data: bytes
    stub: bytes | None = None  # the source of a ``.pyi`` beside the file (Workspace.stub_of)
    renamed: tuple[tuple[str, str], ...] = ()  # what its bare imports reach (sources.ModuleFile.renamed)


@dataclass
class Told:
    """What a prepared file tells the others, and the questions it asked."""

    classes: dict[str, ClassInfo] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)
    aliases: list[tuple[str, str]] = field(default_factory=list)
    events: tuple[Event, ...] = ()
    parsed: int = 0  # files parsed to tell it (0 or 1)


class Tables:
    """The classes, value types and import aliases every file told, merged in
    file order; the answers every question gets in one round."""

    def __init__(self, told: Iterable[Told | None], aliases: dict[str, str],
                 modules: frozenset[str] = frozenset()) -> None:
        self.classes: dict[str, ClassInfo] = {}
        self.values: dict[str, str] = {}
        self.aliases = dict(aliases)
        for t in told:
            if t is None:
                continue
            self.classes.update((q, ClassInfo(tuple(b for b in i.bases if not b.startswith(UNRESOLVED)), i.members))
                                for q, i in t.classes.items())
            self.values.update(t.values)
            self.aliases.update(t.aliases)
        #: the names ``from B import *`` binds (``m.N`` -> ``B.N``) that the tables know of
        self.starred = expand_stars(self.aliases, [*self.classes, *self.values], modules)
        self._canonicals: dict[str, str] = {}
        self._depth = name_depth(self.aliases)
        #: answer()'s answers, by kind (CLASS, VALUE) and question: the tables never change once
        #: made, and the files of a round ask the same questions (checking every file's
        #: questions each round asks them all again)
        self._answers: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
        #: by kind, each key of the table (classes, values) -> the questions whose answer reads
        #: it; which keys a question reads depends on the aliases only (``carry``)
        self._readers: tuple[dict[str, list[str]], dict[str, list[str]]] = ({}, {})

    def carry(self, before: Tables) -> None:
        """Take over the answers of ``before`` (the last round's tables) that
        these tables give too: with the same aliases, a question's answer
        changes only where a key of the table it reads does; those answers
        are forgotten, the others kept. The same answers as asking afresh,
        without asking each of the round's forty thousand questions again."""
        if before.aliases != self.aliases:
            return
        self._canonicals = before._canonicals  # a function of the aliases alone
        self._readers = before._readers
        answers = (dict(before._answers[CLASS]), dict(before._answers[VALUE]))
        for kind, old, new in ((CLASS, before.classes, self.classes), (VALUE, before.values, self.values)):
            memo, readers = answers[kind], self._readers[kind]
            changed = [k for k, v in new.items() if old.get(k) != v]
            changed += [k for k in old if k not in new]
            for key in changed:
                for q in readers.get(key, ()):
                    memo.pop(q, None)
        self._answers = answers

    def canonical(self, target: str) -> str:
        """The name ``target`` reaches through the aliases (re-exports of
        re-exports, at most eight, never a cycle)."""
        known = self._canonicals.get(target)
        if known is not None:
            return known
        known = self._canonicals[target] = follow_aliases(target, self.aliases, depth=self._depth)
        return known

    def answer(self, kind: int, q: str) -> Any:
        """What the tables say of ``q`` (a class, or a value type), or of the
        name it reaches through the aliases; for values, also what the
        standard library's are (analysis/stdlib_types.py) when that is where
        it leads: ``requests.compat.urlparse()`` is ``urllib.parse.urlparse()``,
        and ``m.name=`` (is ``m.name`` another name of a class?) is answered
        for a standard-library class reached through an import."""
        memo = self._answers[kind]
        found = memo.get(q, _UNASKED)
        if found is _UNASKED:
            found = memo[q] = self._answer(kind, q)
        return found

    def _answer(self, kind: int, q: str) -> Any:
        """``answer`` made; the keys it may read are noted, whatever the
        tables hold, so that ``carry`` knows which answers a change reaches."""
        table: dict[str, Any] = self.classes if kind == CLASS else self.values
        readers = self._readers[kind]
        reads = [q, self.canonical(q)]
        found = table.get(q)
        if found is None:
            found = table.get(reads[1])
        if kind == VALUE:
            cut = min((i for i in (q.find("("), q.find("["), q.find("=")) if i > 0), default=len(q))
            name, suffix = q[:cut], q[cut:]
            canonical = self.canonical(name)
            if canonical != name and suffix != "=":
                reads.append(canonical + suffix)
            if found is None and canonical != name:
                if suffix == "=":
                    found = canonical if is_stdlib_class(canonical) else None
                else:
                    found = table.get(canonical + suffix) or known_result(canonical + suffix)
        for key in set(reads):
            readers.setdefault(key, []).append(q)
        return found

    def agrees(self, events: Iterable[Event]) -> bool:
        """Whether every question of ``events`` gets the answer recorded."""
        answer, memos = self.answer, self._answers
        for kind, q, got in events:
            if kind == PREPARED:
                continue
            found = memos[kind].get(q, _UNASKED)
            if found is _UNASKED:
                found = answer(kind, q)
            if found != got:
                return False
        return True

    def payload(self) -> bytes:
        return pickle.dumps((self.classes, self.values, self.aliases), protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def from_payload(cls, data: bytes) -> Tables:
        tables = cls((), {})
        tables.classes, tables.values, tables.aliases = pickle.loads(data)
        tables._depth = name_depth(tables.aliases)
        return tables


_UNASKED = object()  # not in a memo (None is an answer)


#: Re-exports of re-exports an alias walk follows at most (so never a cycle).
ALIAS_STEPS = 8


def follow_aliases(target: str, aliases: Mapping[str, str], stop: Container[str] = (),
                   check: Callable[[str], object] | None = None, depth: int | None = None) -> str:
    """The name ``target`` reaches through ``aliases`` (``pkg.Session`` ->
    ``pkg.sessions.Session``): its longest dotted head that is an alias
    replaced, again, at most ``ALIAS_STEPS`` times; a name in ``stop`` ends
    the walk once reached; ``check`` sees each head before it is looked up
    (and may raise). ``depth`` (``name_depth`` of the keys, and of what
    ``check`` looks for) bounds the heads tried: a head of more parts than
    any key is none, and a name of 3,000 parts (``os.path.path...``, each of
    whose prefixes is asked) would otherwise build every head of each, a
    cube of its length. ``WorkspaceIndex.canonical``, ``Tables.canonical``
    and the outlines' (analysis/outlines.py) are this walk."""
    current = target
    for _ in range(ALIAS_STEPS):
        parts = current.split(".")
        for k in range(len(parts) if depth is None else min(len(parts), depth), 1, -1):
            head = ".".join(parts[:k])
            if check is not None:
                check(head)
            if head in aliases:
                current = ".".join([aliases[head], *parts[k:]])
                break
        else:
            break
        if current in stop:
            break
    return current


def name_depth(names: Iterable[str]) -> int:
    """The most dotted parts a name of ``names`` has (``follow_aliases``'s ``depth``)."""
    return max((name.count(".") + 1 for name in names), default=0)


#: Where a star import's mark (module_aliases) puts its number: ``m.*0``.
STAR = ".*"
#: The key under which a module with a literal ``__all__`` tells its names
#: (``m.*all`` -> ``"a b"``, module_aliases): no name has a ``*``, so no walk meets it.
EXPORTS = STAR + "all"


def expand_stars(aliases: dict[str, str], known: Iterable[str], submodules: Iterable[str] = ()) -> frozenset[str]:
    """Add to ``aliases`` what each ``from B import *`` of a module ``m``
    (its marks, module_aliases) binds: ``m.N`` -> ``B.N`` for each public name
    ``N`` that B defines (``known``: qualified names defined), imports or
    binds by a star import of its own, or, when B spells out its ``__all__``
    (``B.*all``, module_aliases), each name it lists, unless ``m`` binds
    ``N`` itself (a definition, an import, a submodule); of two star imports
    with the name, the later. Without a literal ``__all__``, a module of the
    workspace (``submodules``) B imports is left out: the siblings a module
    imports are seldom in its ``__all__`` (asyncio's modules import each
    other). The keys added."""
    marks: dict[str, list[tuple[int, str]]] = {}
    exports = {key[:-len(EXPORTS)]: names.split() for key, names in aliases.items() if key.endswith(EXPORTS)}
    for key, base in aliases.items():
        at = key.rfind(STAR)
        if at > 0 and key[at + len(STAR):].isdigit():
            marks.setdefault(key[:at], []).append((int(key[at + len(STAR):]), base))
    if not marks:
        return frozenset()
    members: dict[str, set[str]] = {}
    for q in known:
        cut = min((i for i in (q.find("("), q.find("["), q.find("=")) if i > 0), default=len(q))
        head, _, name = q[:cut].rpartition(".")
        if head and name and not name.startswith("_"):
            members.setdefault(head, set()).add(name)
    submodules = frozenset(submodules)
    own = {m: set(members.get(m, ())) for m in marks}
    for q in submodules:
        head, _, name = q.rpartition(".")
        if head in own:
            own[head].add(name)
    for q, target in aliases.items():
        if STAR in q:
            continue
        head, _, name = q.rpartition(".")
        if head in own:
            own[head].add(name)
        if head and not name.startswith("_") and target not in submodules:
            members.setdefault(head, set()).add(name)  # what B imports by name (not a module of the workspace)
    added: set[str] = set()
    for _ in range(ALIAS_STEPS):  # a module star-imported may star-import another
        changed = False
        for module in sorted(marks):
            bound: dict[str, str] = {}
            for _k, base in sorted(marks[module]):  # the later import binds the name last
                names = exports[base] if base in exports else members.get(base, ())
                bound.update((name, f"{base}.{name}") for name in names if name not in own[module])
            for name, target in sorted(bound.items()):
                key = f"{module}.{name}"
                if target != key and aliases.get(key) != target and not _leads_to(aliases, target, key):
                    aliases[key] = target
                    added.add(key)
                    members.setdefault(module, set()).add(name)
                    changed = True
        if not changed:
            break
    return frozenset(added)


def _leads_to(aliases: Mapping[str, str], start: str, key: str) -> bool:
    """Whether the aliases from ``start`` reach ``key`` (two modules that
    star-import each other: the name stays what the other import gave it)."""
    current = start
    for _ in range(ALIAS_STEPS):
        if current == key:
            return True
        following = aliases.get(current)
        if following is None:
            return False
        current = following
    return current == key


def module_aliases(module: str, imports: Iterable[Any], values: dict[str, str] | None = None,
                   exports: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """The names a module's own imports give it, as other modules may use
    them (``pkg.Session`` -> ``pkg.sessions.Session``), and its variables that
    are another name of a class (``builtin_str = str``: ``"m.builtin_str="``
    in the value types it tells, resolver._class_aliases)."""
    out = [(f"{module}.{i.local}", i.target) for i in imports
           if i.scope == module and i.local != "*" and i.target != f"{module}.{i.local}"]
    # ``from B import *``: a mark (``m.*0`` -> ``B``, numbered in source order) that
    # expand_stars turns into the names B has once every file has told its own
    stars = [i.target for i in imports if i.scope == module and i.local == "*"]
    out += [(f"{module}{STAR}{k}", base) for k, base in enumerate(stars)]
    if exports is not None:  # a literal ``__all__``: what a star import of this module binds
        out.append((f"{module}{EXPORTS}", " ".join(exports)))
    if values:
        out += [(q[:-1], cls) for q, cls in values.items() if q.endswith("=")]
    return out


def told_of(record: Record) -> Told:
    """What a recorded analysis told, and the questions it asked first."""
    events = record.events
    at = next((k for k, e in enumerate(events) if e[0] == PREPARED), None)
    a = record.result
    if at is None:
        return Told(aliases=module_aliases(a.module, a.imports, exports=a.exports), events=events)
    _kind, classes, told_values = events[at]
    values = dict(told_values)
    return Told(dict(classes), values, module_aliases(a.module, a.imports, values, a.exports), events[:at])


class _Asker:
    """A stage's questions to the tables, each asked once and recorded in the
    order first asked. ``ask_class`` and ``ask_value`` are what an analyser
    is given (a million questions on the standard library: one memo per kind,
    no key to make)."""

    __slots__ = ("classes", "events", "tables", "values")

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.classes: dict[str, Any] = {}
        self.values: dict[str, Any] = {}
        self.events: list[Event] = []

    def ask(self, kind: int, q: str) -> Any:
        return self.ask_class(q) if kind == CLASS else self.ask_value(q)

    def ask_class(self, q: str) -> Any:
        try:
            return self.classes[q]
        except KeyError:
            pass
        got = self.classes[q] = self.tables.answer(CLASS, q)
        self.events.append((CLASS, q, got))
        return got

    def ask_value(self, q: str) -> Any:
        try:
            return self.values[q]
        except KeyError:
            pass
        got = self.values[q] = self.tables.answer(VALUE, q)
        self.events.append((VALUE, q, got))
        return got


def _failed(job: Job, lines: int, why: str) -> ModuleAnalysis:
    return ModuleAnalysis.given_up(job.module, job.path, lines, FAILED, why)


def _too_deep(job: Job, lines: int) -> ModuleAnalysis:
    return ModuleAnalysis.given_up(job.module, job.path, lines, TOO_DEEP, TOO_DEEP_MESSAGE)


def _why(exc: BaseException) -> str:
    return failure_reason(exc)


class _Kept:
    __slots__ = ("analyser", "asker", "prepared", "told")

    def __init__(self, analyser: _Analyser, asker: _Asker, told: Told, prepared: bool) -> None:
        self.analyser, self.asker, self.told, self.prepared = analyser, asker, told, prepared


class Analyst:
    """The file-local work on some of the files: parse each once, prepare
    (again) with given tables, finish. Runs in a worker process, or in the
    calling process when there is no pool."""

    def __init__(self, hold_bytes: int | None = None) -> None:
        self.jobs: dict[int, Job] = {}
        self.kept: OrderedDict[int, _Kept] = OrderedDict()
        self.hold_bytes = HOLD_BYTES if hold_bytes is None else hold_bytes
        self.held = 0
        self.parses = 0
        self.last: tuple[int, _Kept] | None = None

    def add(self, jobs: Iterable[Job]) -> None:
        for job in jobs:
            self.jobs[job.n] = job

    def _analyser(self, job: Job, asker: _Asker) -> _Analyser:
        analyser = _Analyser(job.data, job.path, job.module, job.is_package,
                             asker.ask_class, asker.ask_value)
        analyser.stub = job.stub
        analyser.renamed = dict(job.renamed)
        return analyser

    def _keep(self, n: int, kept: _Kept) -> None:
        """Keep file ``n``'s analysis while the files kept hold at most
        ``hold_bytes`` of source; past that it is not kept (the files go round
        in the same order each round: dropping the oldest would drop each one
        just before it is needed), and a later stage parses it again. The
        last one prepared is kept whatever its size, for the stage after."""
        size = len(self.jobs[n].data)
        if self.kept.pop(n, None) is not None:
            self.held -= size
        self.last = (n, kept)
        if self.held + size <= self.hold_bytes:
            self.kept[n] = kept
            self.held += size

    def _take(self, n: int) -> _Kept | None:
        kept = self.kept.pop(n, None)
        if kept is not None:
            self.held -= len(self.jobs[n].data)
        elif self.last is not None and self.last[0] == n:
            kept = self.last[1]
        self.last = None
        return kept

    def prepare(self, n: int, tables: Tables) -> Told:
        """Tell what file ``n`` defines, its questions answered by ``tables``."""
        job = self.jobs[n]
        asker = _Asker(tables)
        before = self.kept.get(n) or (self.last[1] if self.last is not None and self.last[0] == n else None)
        if before is not None and before.analyser.tree is not None and before.prepared \
                and getattr(before.analyser, "failure", None) is None:
            return self._retell(n, before.analyser, asker)
        analyser = self._analyser(job, asker)
        parsed = 0
        if before is not None and before.analyser.tree is not None:
            analyser.adopt(before.analyser)
            ok = True
        else:
            parsed = 1
            self.parses += 1
            try:
                ok = _staged(analyser.parse)
            except Exception as exc:  # noqa: BLE001 - a bug of the analyser: the file gets a diagnostic
                told = Told(parsed=1)
                analyser.failure = _failed(job, len(getattr(analyser, "text_lines", ())), _why(exc))  # type: ignore[attr-defined]
                analyser.tree = None
                self._keep(n, _Kept(analyser, asker, told, True))
                return told
        if not ok:  # a syntax error: nothing to tell, finished as it is
            told = Told(parsed=parsed)
            self._keep(n, _Kept(analyser, asker, told, True))
            return told
        return self._tell(n, analyser, asker, analyser.prepare, parsed)

    def _retell(self, n: int, analyser: _Analyser, asker: _Asker) -> Told:
        """Prepare file ``n`` again from its declarations (no parse, no
        declaring again): only what asks the other modules is redone."""
        analyser.external_classes = asker.ask_class
        analyser.external_values = asker.ask_value
        return self._tell(n, analyser, asker, analyser.retell)

    def _tell(self, n: int, analyser: _Analyser, asker: _Asker, stage: Callable[[], Any], parsed: int = 0) -> Told:
        """Run ``stage`` (prepare, or retell) and keep what file ``n`` tells:
        its classes, value types and aliases, or, where the stage fails, only
        the questions it asked (the file then gets a diagnostic)."""
        job = self.jobs[n]
        got: dict[str, Any] = {}
        analyser.on_prepared = lambda c, v: got.update(classes=c, values=v)
        try:
            with collector_paused():
                _staged(stage)
        except RecursionError:
            analyser.failure = _too_deep(job, len(analyser.text_lines))  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - a bug of the analyser: the file gets a diagnostic
            analyser.failure = _failed(job, len(analyser.text_lines), _why(exc))  # type: ignore[attr-defined]
        if getattr(analyser, "failure", None) is not None:
            told = Told(events=tuple(asker.events), parsed=parsed)
        else:
            values = got.get("values", {})
            told = Told(got.get("classes", {}), values,
                        module_aliases(job.module, analyser.imports, values, analyser.literal_all()),
                        tuple(asker.events), parsed)
        self._keep(n, _Kept(analyser, asker, told, True))
        return told

    def outline(self, n: int) -> Any:
        """File ``n``'s outline (analysis/outline.py): parsed and declared, nothing kept."""
        job = self.jobs[n]
        self.parses += 1
        return read_outline(job.data, job.path, job.module, job.is_package, job.stub, job.renamed)

    def run(self, kind: str, n: int, tables: Tables) -> Any:
        """Stage ``kind`` (prepare, finish or OUTLINE) of file ``n``."""
        if kind == "prepare":
            return self.prepare(n, tables)
        if kind == OUTLINE:
            return self.outline(n)
        return self.finish(n, tables)

    def finish(self, n: int, tables: Tables) -> tuple[Record, bool, int]:
        """File ``n``'s record (its analysis with every question asked, as
        analysis/filecache.py keeps it), whether it may be kept on disk, and
        the files parsed to make it."""
        kept = self.kept.get(n)
        parsed = 0
        if kept is None or not kept.prepared or not tables.agrees(kept.told.events):
            parsed = self.prepare(n, tables).parsed
        kept = self._take(n)
        assert kept is not None
        job, analyser, asker, told = self.jobs[n], kept.analyser, kept.asker, kept.told
        failure: ModuleAnalysis | None = getattr(analyser, "failure", None)
        asker.tables = tables
        asker.events = []
        result = failure
        if result is None:
            try:
                with collector_paused():
                    result = _staged(analyser.finish)
            except RecursionError:
                result = _too_deep(job, len(analyser.text_lines))
            except Exception as exc:  # noqa: BLE001 - a bug of the analyser: the file gets a diagnostic
                result = _failed(job, len(analyser.text_lines), _why(exc))
        events = (*told.events, (PREPARED, told.classes, told.values), *asker.events) \
            if analyser.tree is not None and failure is None else told.events
        storable = not any(p.kind in (TOO_DEEP, FAILED) for p in result.problems)
        return Record(tuple(events), result), storable, parsed


# --- worker processes ------------------------------------------------------------------------

def _worker(conn: Connection, hold_bytes: int) -> None:
    """A worker's loop: requests from the build, answers in chunks. Ctrl-C is
    the build's to handle (it stops the workers); the end of the pipe (the
    build's process gone) ends the worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.disable()  # what it keeps is acyclic; reference counting frees it
    analyst = Analyst(hold_bytes)
    tables = Tables((), {})
    try:
        while True:
            kind, arg, payload = pickle.loads(conn.recv_bytes())
            if kind == "jobs":
                analyst.add(arg)
                continue
            if kind == "stop":  # nothing to keep or flush: no teardown of what it holds (a full
                conn.close()      # collection of the tables at the interpreter's exit, while the build waits)
                os._exit(0)
            if payload is not None:
                fresh = Tables.from_payload(payload)
                fresh.carry(tables)
                tables = fresh
            out: list[Any] = []
            for n in arg:
                if kind == "prepare" or kind == OUTLINE:
                    out.append((n, analyst.run(kind, n, tables)))
                else:
                    record, storable, parsed = analyst.finish(n, tables)
                    if kind == FINISH_RESULTS:  # no store to keep the record in: its questions stay here
                        record = Record((), record.result)
                    out.append((n, (dump_record(record), storable, parsed)))
                if len(out) >= CHUNK:
                    conn.send_bytes(pickle.dumps(("some", out), protocol=pickle.HIGHEST_PROTOCOL))
                    out = []
            conn.send_bytes(pickle.dumps(("done", out, time.process_time()), protocol=pickle.HIGHEST_PROTOCOL))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return


#: A worker's start: the caller's import path, then ``serve`` on the socket given.
_BOOT = ("import sys; sys.path[:0] = sys.argv[3:]; from analysis.pool import serve; "
         "serve(int(sys.argv[1]), int(sys.argv[2]))")
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def serve(fd: int, hold_bytes: int) -> None:
    """A worker process: dies with the process that started it (Linux
    ``PR_SET_PDEATHSIG``; elsewhere, at the end of its socket), and serves it."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import ctypes.util

            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            pass
    from multiprocessing.connection import Connection

    _worker(Connection(fd), hold_bytes)


class _Local:
    """The stages in the calling process."""

    def __init__(self, jobs: list[Job]) -> None:
        self.analyst = Analyst()
        self.analyst.add(jobs)

    def run(self, kind: str, ns: list[int], tables: Tables) -> Iterator[tuple[int, Any]]:
        for n in ns:
            yield n, self.analyst.run(kind, n, tables)

    def close(self) -> None:
        self.analyst.kept.clear()


class _Outbox:
    """The messages to one worker, sent in order by a thread of their own:
    the build goes on with its own shard instead of waiting until the worker
    reads (a worker starting up reads its files' sources only once its
    imports are done, and they are more than a socket's buffer holds). A
    worker that cannot be sent to ends, and the build sees its socket's end."""

    def __init__(self, conn: Connection) -> None:
        import queue

        self.conn = conn
        self.queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._send, name="semaprax-pool-outbox", daemon=True)
        self.thread.start()

    def put(self, data: bytes) -> None:
        self.queue.put(data)

    def _send(self) -> None:
        while (data := self.queue.get()) is not None:
            try:
                self.conn.send_bytes(data)
            except Exception:  # noqa: BLE001 - the worker gone, or its socket closed by the build: nothing to send to
                return

    def close(self, timeout: float) -> None:
        """Let the thread end once what was put is sent (or the worker is gone),
        waiting for it at most ``timeout`` seconds."""
        self.queue.put(None)
        self.thread.join(timeout)


class _Pool:
    """``size`` processes, each holding a shard of the files (sized by their
    bytes) from the first round to the last: the calling process itself (its
    own shard, a little smaller, since it also merges the tables and loads
    the others' records) and ``size - 1`` workers. A worker is a fresh
    interpreter running ``serve`` (not a fork, not the caller's ``__main__``
    again), bound to this process's life."""

    def __init__(self, jobs: list[Job], size: int) -> None:
        import socket
        import subprocess
        from multiprocessing.connection import Connection

        self.conns: list[Connection] = []  # worker k's is conns[k - 1]
        self.outboxes: list[_Outbox] = []  # and what is sent to it goes through outboxes[k - 1]
        self.procs: list[subprocess.Popen[bytes]] = []
        self.shard: dict[int, int] = {}
        self.dead: dict[int, str] = {}  # shard -> why
        #: CPU seconds each worker had used at its last reply
        self.cpu: list[float] = [0.0] * (size - 1)
        #: per stage run: (CPU seconds of this process, of each worker) spent on it
        self.phases: list[tuple[float, list[float]]] = []
        weights = [LOCAL_SHARE] + [1.0] * (size - 1)
        loads = [0.0] * size
        shards: list[list[Job]] = [[] for _ in range(size)]
        for job in sorted(jobs, key=lambda j: (-len(j.data), j.n)):
            k = min(range(size), key=lambda i: ((loads[i] + len(job.data) + 512) / weights[i], i))
            loads[k] += len(job.data) + 512
            shards[k].append(job)
            self.shard[job.n] = k
        holds = [int(HOLD_BYTES * w / sum(weights)) for w in weights]  # the budget, as the shards go
        self.local = Analyst(holds[0])
        self.local.add(shards[0])
        # this package's own folder first, then the caller's path; never the working folder (-P),
        # which may hold a package of the same name
        paths = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *(p for p in sys.path if p)]
        try:
            for k in range(1, size):
                mine, theirs = socket.socketpair()
                with mine, theirs:
                    proc = subprocess.Popen(
                        [sys.executable, "-P", "-c", _BOOT, str(theirs.fileno()), str(holds[k]), *paths],
                        pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, close_fds=True)
                    self.procs.append(proc)
                    self.conns.append(Connection(mine.detach()))
                    self.outboxes.append(_Outbox(self.conns[-1]))
            for k, outbox in enumerate(self.outboxes, 1):
                outbox.put(pickle.dumps(("jobs", sorted(shards[k], key=lambda j: j.n), None),
                                             protocol=pickle.HIGHEST_PROTOCOL))
        except BaseException:
            self.close()
            raise

    def run(self, kind: str, ns: list[int], tables: Tables) -> Iterator[tuple[int, Any]]:
        """Each file of ``ns`` as its shard's process makes it: the workers'
        as they reply, this process's own in between."""
        from multiprocessing.connection import wait

        cpu = time.process_time()
        workers_before = list(self.cpu)
        payload = tables.payload() if self.conns else b""
        waiting: dict[Any, int] = {}  # connection -> shard
        for k, conn in enumerate(self.conns, 1):
            mine = [n for n in ns if self.shard[n] == k]
            if not mine:
                continue
            if k in self.dead:
                yield from ((n, self._lost(kind, k)) for n in mine)
                continue
            # a worker that cannot be sent to is seen when its socket ends (_replies)
            self.outboxes[k - 1].put(pickle.dumps((kind, mine, payload), protocol=pickle.HIGHEST_PROTOCOL))
            waiting[conn] = k
        pending = {k: {n for n in ns if self.shard[n] == k} for k in waiting.values()}
        local = self.local
        for n in ns:
            if self.shard[n] == 0:
                yield n, local.run(kind, n, tables)
                if waiting:  # what the workers sent meanwhile, so that none waits on a full socket
                    yield from self._replies(kind, waiting, pending, wait(list(waiting), 0))
        while waiting:
            yield from self._replies(kind, waiting, pending, wait(list(waiting)))
        self.phases.append((time.process_time() - cpu, [a - b for a, b in zip(self.cpu, workers_before)]))

    def _replies(self, kind: str, waiting: dict[Any, int], pending: dict[int, set[int]],
                 ready: list[Any]) -> Iterator[tuple[int, Any]]:
        for conn in ready:
            k = waiting[conn]
            try:
                status, out, *cpu = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                self._died(k)
                del waiting[conn]
                yield from ((n, self._lost(kind, k)) for n in sorted(pending[k]))
                continue
            for n, value in out:
                pending[k].discard(n)
                yield n, value
            if status == "done":
                self.cpu[k - 1] = cpu[0]
                del waiting[conn]

    def _died(self, k: int) -> None:
        import subprocess

        proc = self.procs[k - 1]
        try:
            status = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            status = proc.wait()
        self.dead[k] = f"the process analysing it ended (exit status {status})"

    def _lost(self, kind: str, k: int) -> Any:
        return ("lost", self.dead[k]) if kind != "prepare" else Told()  # (an outline: ("lost", why) too)

    def close(self) -> None:
        """Stop every worker: asked to, then terminated, then killed."""
        self.local.kept.clear()
        stop = pickle.dumps(("stop", None, None))
        for outbox in self.outboxes:
            outbox.put(stop)
            outbox.close(0)
        for outbox in self.outboxes:  # sent at once at the end of a build; a worker busy with a request
            outbox.thread.join(1.0)   # (the build interrupted) ends at its next reply, its socket closed
        for conn, outbox in zip(self.conns, self.outboxes):
            if not outbox.thread.is_alive():
                conn.close()
        import subprocess

        for proc in self.procs:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        for outbox in self.outboxes:  # its worker gone, a send still under way fails
            outbox.thread.join(2.0)
        for conn in self.conns:
            conn.close()
        self.conns, self.procs, self.outboxes = [], [], []


def default_jobs() -> int:
    return os.cpu_count() or 1


@dataclass
class Outcome:
    records: list[Record]
    storable: list[bool]
    replayed: list[bool]
    parses: int = 0
    prepares: int = 0
    finishes: int = 0
    rounds: int = 0
    processes: int = 1
    tables: Tables | None = None  # the final tables
    #: CPU seconds of each worker process (none without a pool)
    worker_cpu: list[float] = field(default_factory=list)
    #: with a pool, per stage run: CPU seconds this process and each worker spent on it
    phases: list[tuple[float, list[float]]] = field(default_factory=list)


def _same(a: Told, b: Told | None) -> bool:
    return b is not None and (a.classes, a.values, a.aliases, a.events) == (b.classes, b.values, b.aliases, b.events)


def solve(jobs: list[Job], records: list[Record | None], aliases: dict[str, str], *, processes: int = 1,
          progress: Callable[[int, int], None] | None = None, keep_events: bool = True) -> Outcome:
    """Every file's record, made (or replayed from ``records``) as the module
    docstring says; ``processes`` > 1 uses a pool when there are at least
    ``POOL_MIN_FILES`` files to analyse. Without ``keep_events`` (no record
    store to keep them for), a worker's records come without their questions:
    half the bytes to send and load."""
    count = len(jobs)
    told: list[Told | None] = [told_of(r) if r is not None else None for r in records]
    outcome = Outcome([], [False] * count, [False] * count)
    need = [n for n in range(count) if told[n] is None]
    from_record = [t is not None for t in told]
    engine: _Local | _Pool | None = None
    made: list[Record | None] = [None] * count

    def start(n_files: int) -> _Local | _Pool:
        if processes > 1 and n_files >= POOL_MIN_FILES:
            outcome.processes = min(processes, n_files)
            return _Pool(jobs, outcome.processes)
        return _Local(jobs)

    try:
        modules = frozenset(j.module for j in jobs)
        tables = Tables(told, aliases, modules)
        rounds = 0
        while True:
            if need:
                if engine is None:
                    engine = start(len(need))
                outcome.prepares += len(need)
                for n, t in engine.run("prepare", need, tables):
                    told[n] = t
                    from_record[n] = False
                    outcome.parses += t.parsed
                rounds += 1
                fresh = Tables(told, aliases, modules)
                fresh.carry(tables)
                tables = fresh
            if rounds >= MAX_ROUNDS:
                break
            need = [n for n in range(count) if not tables.agrees(told[n].events)]  # type: ignore[union-attr]
            if not need:
                break
        outcome.rounds = rounds
        finish = []
        for n in range(count):
            r = records[n]
            if r is not None and tables.agrees(r.events) and (from_record[n] or _same(told_of(r), told[n])):
                made[n] = r
                outcome.replayed[n] = True
            else:
                finish.append(n)
        if finish:
            if engine is None:
                engine = start(len(finish))
            for done, (n, value) in enumerate(engine.run("finish" if keep_events else FINISH_RESULTS, finish,
                                                         tables), 1):
                if value[0] == "lost":
                    job = jobs[n]
                    made[n] = Record((), _failed(job, job.data.count(b"\n") + 1, value[1]))
                else:
                    data, storable, parsed = value  # a record, or its bytes from a worker
                    made[n] = load_record(data, ClassInfo) if isinstance(data, bytes) else data
                    outcome.storable[n] = storable
                    outcome.parses += parsed
                if progress is not None and done % 25 == 0:
                    progress(done, len(finish))
            outcome.finishes = len(finish)
            if progress is not None:
                progress(len(finish), len(finish))
    finally:
        if engine is not None:
            if isinstance(engine, _Pool):
                outcome.worker_cpu = list(engine.cpu)
                outcome.phases = list(engine.phases)
            engine.close()
    outcome.records = [r for r in made if r is not None]
    outcome.tables = tables
    return outcome
