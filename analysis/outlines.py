"""A workspace as ``project-graph`` reads it: every file's outline
(analysis/outline.py), made on every core and kept per file.

Each file is parsed once and declared (no use resolved, no question asked of
another module), in the processes of analysis/pool.py (``OUTLINE`` requests to
the same workers), and its outline kept in the process's record store
(analysis/filecache.py: keyed by the file's bytes and its stub's, its path and
module, the analyser's version and this reading's own; on disk unless
``--no-cache``; bounded; safe with several processes). A second run replays
every file; an edit reads again exactly the files it changed.

What the view reads of the whole workspace besides the files is
``canonical``: the name an import reaches through a namespace folder's dotted
path (``nsroot.inner.leaf.grow`` is ``leaf.grow``), then through the aliases
the modules' imports make, as ``WorkspaceIndex.canonical`` goes. The index's
aliases also hold the variables that are another name of a class (known only
once classes are told across modules); where such a name could be on the way,
or where a file's outline is unsure (analysis/outline.py), ``Unsure`` is
raised and project-graph builds the full index instead
(views/project_graph.py): the bytes are the full index's either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis import index as _index
from analysis.filecache import RecordStore, default_store
from analysis.model import Import
from analysis.outline import OutlineRecord, facts_ok, outline_version
from analysis.pool import (
    OUTLINE,
    STAR,
    Job,
    Tables,
    _Local,
    _Pool,
    follow_aliases,
    module_aliases,
    name_depth,
)
from analysis.resolver import ClassInfo, collector_paused
from analysis.sources import Workspace

#: Below this many files to outline a build stays in the calling process: an outline
#: is about a third of a file's full analysis, so a pool (0.3-0.5 s of CPU to start)
#: pays from about three times analysis/pool.py's ``POOL_MIN_FILES``.
POOL_MIN_FILES = 150


class Unsure(Exception):
    """The outlines cannot say what the full index would (analysis/outline.py)."""


@dataclass(frozen=True)
class Outlined:
    """One module as project-graph reads it."""

    module: str
    path: str
    lines: int
    doc: str  # the doc of its analysis's first definition
    imports: tuple[Import, ...]
    has_main: bool


class WorkspaceOutline:
    """Every file's outline, in the order of ``files``; ``replayed`` of them
    from the store, ``read`` parsed now, in ``processes`` processes."""

    def __init__(self, ws: Workspace, files: list[str], store: RecordStore | None = None,
                 processes: int | None = None) -> None:
        self.replayed = 0
        self.read = 0
        self.processes = 1
        with collector_paused():
            self._build(ws, files, store, _index.jobs if processes is None else processes)
        if store is not None:
            store.flush()

    def _build(self, ws: Workspace, files: list[str], store: RecordStore | None, processes: int) -> None:
        modules = [ws.module_of(f) for f in files]
        phase = "outline/" + outline_version()
        jobs: list[Job] = []
        keys: list[str] = []
        facts: list[OutlineRecord | None] = []
        for n, m in enumerate(modules):
            data = ws.read(m.path)
            stub = ws.stub_of(m.path)
            jobs.append(Job(n, m.path, m.module, m.is_package, data, stub, m.renamed))
            key = store.key(data, m.path, m.module, m.is_package, phase, m.renamed, stub) if store is not None else ""
            keys.append(key)
            found = store.get_outline(key) if store is not None else None
            facts.append(found if facts_ok(found) else None)
        need = [n for n, f in enumerate(facts) if f is None]
        self.replayed = len(files) - len(need)
        self.read = len(need)
        lost = False
        if need:
            report = _index.progress_hook if _index.progress_hook is not None and len(modules) > 50 else None
            todo = [jobs[n] for n in need]
            engine: _Local | _Pool
            if processes > 1 and len(need) >= POOL_MIN_FILES:
                self.processes = min(processes, len(need))
                engine = _Pool(todo, self.processes)
            else:
                engine = _Local(todo)
            try:
                for done, (n, value) in enumerate(engine.run(OUTLINE, need, Tables((), {})), 1):
                    if isinstance(value, tuple) and value[:1] == ("lost",):
                        lost = True  # a worker died: the full index says what it says of such a file
                    else:
                        facts[n] = value
                        if store is not None:
                            store.put_outline(keys[n], value)
                    if report is not None and (done % 25 == 0 or done == len(need)):
                        report(done, len(need))
            finally:
                engine.close()
        self.sure = not lost and all(f is not None and f[6] for f in facts)
        aliases = dict(_index._namespace_aliases(modules))
        self.namespace = set(aliases)
        #: module-level variables: the names whose aliases only the full index knows
        self.variables: set[str] = set()
        self.modules: list[Outlined] = []
        for m, f in zip(modules, facts):
            if f is None:
                continue
            lines, doc, imports, has_main, variables, read, _sure = f
            made = tuple(Import(*i) for i in imports)
            self.modules.append(Outlined(m.module, m.path, lines, doc, made, has_main))
            if read:  # what a file the index reads tells it (analysis/pool.py, ``Told.aliases``)
                aliases.update(module_aliases(m.module, made))
                self.variables.update(variables)
        self.aliases = aliases
        self._canonicals: dict[str, str] = {}
        #: the heads ``_canonical``'s check looks for are aliases' keys or variables
        self._depth = max(name_depth(aliases), name_depth(self.variables))

    def canonical(self, target: str) -> str:
        """``WorkspaceIndex.canonical(target)``, or ``Unsure`` when the way
        there could pass a name only the full index knows the alias of."""
        known = self._canonicals.get(target)
        if known is None:
            known = self._canonicals[target] = self._canonical(target)
        return known

    def _canonical(self, target: str) -> str:
        variables, aliases = self.variables, self.aliases

        def check(head: str) -> None:
            if head in variables:
                raise Unsure(head)
            module = head.rpartition(".")[0]
            if head not in aliases and f"{module}{STAR}0" in aliases:
                raise Unsure(head)  # what ``from B import *`` binds: the full index knows B's names

        return follow_aliases(target, self.aliases, check=check, depth=self._depth)


def outline_of(ws: Workspace, files: list[str], store: RecordStore | None = None,
               processes: int | None = None) -> WorkspaceOutline:
    """The outlines of ``files``, kept in the process's record store."""
    return WorkspaceOutline(ws, files, default_store(ClassInfo) if store is None else store, processes)

