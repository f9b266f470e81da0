"""Every module of a set of files, analysed together so that classes defined in
one module resolve calls made in another (``x = Cls()`` then ``x.m()`` across an
import), and symbols can be looked up by qualified name."""

from __future__ import annotations

import gc
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from operator import attrgetter

from analysis.filecache import Record, RecordStore, default_store
from analysis.model import UNRESOLVED, Definition, ModuleAnalysis, Use
from analysis.pool import STAR, Job, Tables, default_jobs, expand_stars, follow_aliases, name_depth, solve
from analysis.resolver import ClassInfo, collector_paused
from analysis.sources import ModuleFile, Workspace, WorkspaceError, suggest


@dataclass(frozen=True)
class Located:
    analysis: ModuleAnalysis
    definition: Definition


#: Called as progress(done, total) while a large workspace is analysed: files
#: analysed of files to analyse.
Progress = Callable[[int, int], None]
progress_hook: Progress | None = None
#: Processes that analyse a workspace's files (analysis/pool.py); 1 analyses
#: them in the calling process. ``semaprax project --jobs N`` sets it.
jobs: int = default_jobs()


class WorkspaceIndex:
    """Every file parsed once and analysed once, on every core, its questions
    about other modules answered by what all the files told (analysis/pool.py):
    the result depends neither on the order of the files nor on the number of
    processes.

    With a ``store`` (analysis/filecache.py), a file whose record agrees with
    the answers the build settles on is replayed instead of analysed, so the
    index is the one a cold build gives, and an edit re-analyses the files it
    changed and those whose questions it answers differently."""

    def __init__(self, ws: Workspace, files: list[str], store: RecordStore | None = None,
                 processes: int | None = None) -> None:
        self.store = store
        #: Files replayed from the store, files analysed, and files parsed to do it.
        self.replayed = 0
        self.analysed = 0
        self.parses = 0
        #: Processes that analysed the files, and rounds of preparing (analysis/pool.py).
        self.processes = 1
        self.rounds = 0
        self._keys: dict[str, str] = {}  # path -> the key of its record
        with collector_paused():
            self._build(ws, files, jobs if processes is None else processes)
            # What the build made lives as long as the index, and holds no cycles:
            # out of the collector's sight, so the first collections after the
            # build do not walk millions of objects (half a second on the
            # standard library, inside whatever request comes next).
            gc.freeze()
        if store is not None:
            store.flush()

    def _build(self, ws: Workspace, files: list[str], processes: int) -> None:
        self.ws = ws
        modules = [ws.module_of(f) for f in files]
        report = progress_hook if progress_hook is not None and len(modules) > 50 else None
        store = self.store
        work: list[Job] = []
        records: list[Record | None] = []
        for n, m in enumerate(modules):
            data = ws.read(m.path)
            stub = ws.stub_of(m.path)  # a .pyi beside the file: part of its analysis, and of its key
            work.append(Job(n, m.path, m.module, m.is_package, data, stub, m.renamed))
            key = store.key(data, m.path, m.module, m.is_package, "final", m.renamed, stub) if store is not None else ""
            self._keys[m.path] = key
            records.append(store.get(key) if store is not None else None)
        outcome = solve(work, records, _namespace_aliases(modules), processes=processes, progress=report,
                        keep_events=store is not None)
        results = [r.result for r in outcome.records]
        if store is not None:
            for n, r in enumerate(outcome.records):
                if outcome.storable[n]:
                    store.put(self._keys[modules[n].path], r)
        self.replayed = sum(outcome.replayed)
        self.analysed = outcome.finishes
        self.parses = outcome.parses
        self.processes = outcome.processes
        self.rounds = outcome.rounds
        #: CPU seconds of each worker process (empty without a pool)
        self.worker_cpu = outcome.worker_cpu
        #: with a pool, per stage run: CPU seconds this process and each worker spent on it
        self.phases = outcome.phases
        #: How many analyses were made: one per file not replayed.
        self.analyses = outcome.finishes
        tables = outcome.tables if outcome.tables is not None else Tables((), _namespace_aliases(modules))
        #: "pkg.Session" -> "pkg.sessions.Session": the names modules import, as others may use them;
        #: and the dotted paths of modules in namespace folders ("nsroot.inner.leaf" -> "leaf")
        self.aliases: dict[str, str] = tables.aliases
        names = {d.qualname for a in results for d in a.definitions}
        if tables.starred or any(STAR in k for k in tables.aliases):
            # ``from B import *``: B's functions and variables too, now that every definition is known
            self.aliases = {k: v for k, v in tables.aliases.items() if k not in tables.starred}
            submodules = {a.module for a in results}
            expand_stars(self.aliases, [*(names - submodules), *tables.classes, *tables.values], submodules)
        self.classes: dict[str, ClassInfo] = tables.classes
        self.values: dict[str, str] = tables.values
        #: variables that name a class (``builtin_str = str``, resolver._class_aliases): uses name the class
        self.class_aliases: set[str] = {q[:-1] for q in self.values if q.endswith("=")}
        self._canonicals: dict[str, str] = {}
        self._alias_depth = name_depth(self.aliases)
        self._module_names = {a.module for a in results}
        final: dict[str, str] = {}  # _canonical's answers, now that aliases are all known
        # Renamed through re-exports, each module is a function of its analysis, the names
        # defined and the aliases: a module replayed as before, with the same names and
        # aliases (an edit that changed no definition and no import), is renamed as before.
        state = (frozenset(names), frozenset(self.aliases.items()), frozenset(self._module_names)) \
            if store is not None else None
        kept = store.finals if store is not None and store.finals_state == state else {}
        self.modules: list[ModuleAnalysis] = []
        finals: dict[str, tuple[ModuleAnalysis, ModuleAnalysis]] = {}
        for a in results:
            key = self._keys.get(a.path, "")
            before = kept.get(key)
            renamed = before[1] if before is not None and before[0] is a else self._through_reexports(a, names, final)
            finals[key] = (a, renamed)
            self.modules.append(renamed)
        if store is not None:
            store.finals, store.finals_state = finals, state
        self.by_module = {a.module: a for a in self.modules}
        self.definitions: dict[str, Located] = {}
        for a in self.modules:
            for d in a.definitions:
                self.definitions.setdefault(d.qualname, Located(a, d))

    def canonical(self, target: str) -> str:
        """The name ``target`` reaches through imports and namespace folders."""
        return self._canonical(target)

    def _canonical(self, target: str, names: set[str] | None = None) -> str:
        """The definition a name reached through imports is: ``requests.Session``
        (``from .sessions import Session`` in requests/__init__.py) is
        ``requests.sessions.Session``. Unchanged when no alias leads anywhere."""
        if names is None:
            known = self._canonicals.get(target)
            if known is None:
                known = self._canonicals[target] = self._canonical(target, set())
            return known
        return follow_aliases(target, self.aliases, names, depth=self._alias_depth)

    def _through_reexports(self, a: ModuleAnalysis, names: set[str], final: dict[str, str]) -> ModuleAnalysis:
        """Uses name what they reach: a name imported through another module
        (``requests.compat.urlparse``) is what that module imported it from
        (``urllib.parse.urlparse``)."""
        renamed: dict[str, str] = {}
        for target in set(map(_TARGET, a.uses)):  # each target once (the same one is used again and again)
            if target[:1] == UNRESOLVED and target[1:].isidentifier():
                starred = self._star_bound(a.module, target[1:])
                if starred is not None:
                    renamed[target] = starred
                continue
            canonical = final.get(target)
            if canonical is None:  # decided once per target (the standard library has 40 uses per target)
                # a name the package's __init__ rebinds (``from .foo import foo``) is what it rebinds
                # it to, not the submodule of the same name: Python's attribute after the import
                if (target not in names or target in self._module_names and target in self.aliases
                        or target in self.class_aliases) and target[:1] != UNRESOLVED:
                    canonical = final[target] = self._canonical(target, names)
                else:
                    canonical = final[target] = target
            if canonical != target:
                renamed[target] = canonical
        if not renamed:
            return a
        uses = tuple(_with_target(u, renamed[u.target]) if u.target in renamed else u for u in a.uses)
        return replace(a, uses=uses)

    def _star_bound(self, module: str, name: str) -> str | None:
        """What a name no statement of ``module`` binds is, when one of its
        ``from B import *`` binds it (pool.expand_stars): B's definition."""
        key = f"{module}.{name}"
        if key not in self.aliases or self.aliases.get(f"{module}{STAR}0") is None:
            return None
        return self._canonical(key)

    def find(self, qualname: str) -> Located:
        """The definition ``qualname`` names, or reaches the way an import table
        shows it: through a namespace folder's dotted path (``nsroot.inner.leaf.grow``
        is ``leaf.grow``) or a re-export (``pkg.Session``); the view is named
        for the definition."""
        found = self.definitions.get(qualname)
        if found is None:
            found = self.definitions.get(self.canonical(qualname))
        if found is None and (folded := unicodedata.normalize("NFKC", qualname)) != qualname:
            # as the source spells it (``ﬁnd``): Python reads identifiers in NFKC (``find``)
            found = self.definitions.get(folded) or self.definitions.get(self.canonical(folded))
        if found is None:
            candidates = sorted(self.definitions)
            hint = suggest(qualname, candidates, "symbol")
            if not hint:
                tail = qualname.rsplit(".", 1)[-1]
                ends = [c for c in candidates if c.rsplit(".", 1)[-1] == tail][:3]
                hint = f"; did you mean {' or '.join(map(repr, ends))}?" if ends else ""
            raise WorkspaceError(f"symbol {qualname!r} is not defined in the workspace{hint}")
        module = found.analysis.module
        paths = [a.path for a in self.modules if a.module == module]
        if len(paths) > 1:  # files no dotted path names apart (sources.Workspace.same_named)
            raise WorkspaceError(f"symbol {qualname!r} is ambiguous: module {module!r} is each of "
                                 f"{', '.join(paths)} (folders without __init__.py that no dotted path from "
                                 f"the workspace folder names); a name in {module!r} may be either file's")
        return found

    def uses_of(self, qualname: str) -> list[tuple[ModuleAnalysis, Use]]:
        """Every use whose target is the symbol or a member reached through it."""
        out = []
        for a in self.modules:
            for u in a.uses:
                if u.target == qualname:
                    out.append((a, u))
        return out


_TARGET = attrgetter("target")


def _with_target(u: Use, target: str) -> Use:
    """``replace(u, target=target)`` without ``__init__`` (the standard
    library has two hundred thousand such uses)."""
    new = object.__new__(Use)
    object.__setattr__(new, "__dict__", {**u.__dict__, "target": target})
    return new


def _namespace_aliases(modules: list[ModuleFile]) -> dict[str, str]:
    """A module in a folder without ``__init__.py`` is named from its own
    folder (``nsroot/inner/leaf.py`` is ``leaf``); imported by its dotted path
    from a folder above (``from nsroot.inner.leaf import grow``, a namespace
    package), that path names it too. Each longer dotted path of a module's
    file that is not itself a module's name leads to it."""
    names = {m.module for m in modules}
    out: dict[str, str] = {}
    for m in modules:
        parts = m.path.removesuffix(".py").split("/")
        if m.is_package:
            parts.pop()
        if not all(p.isidentifier() for p in parts):
            continue
        size = m.module.count(".") + 1
        for start in range(len(parts) - size - 1, -1, -1):
            dotted = ".".join(parts[start:])
            if dotted not in names:
                out.setdefault(dotted, m.module)
    return out


def build_index(ws: Workspace, files: list[str]) -> WorkspaceIndex:
    """The index of ``files``, its files replayed from the process's record
    store where they can be (analysis/filecache.py)."""
    return WorkspaceIndex(ws, files, default_store(ClassInfo))


def index_of(ws: Workspace, files: list[str]) -> WorkspaceIndex:
    """The analysis of ``files`` together; a server's Workspace carries an
    IndexCache so that an unchanged workspace is analysed once per process
    (analysis/warm.py), and each file once per change (analysis/filecache.py)."""
    if ws.index_cache is None:
        return build_index(ws, files)
    return ws.index_cache.index(ws, files, build_index)
