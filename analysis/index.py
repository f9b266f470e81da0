"""Every module of a set of files, analysed together so that classes defined in
one module resolve calls made in another (``x = Cls()`` then ``x.m()`` across an
import), and symbols can be looked up by qualified name."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

from analysis.model import UNRESOLVED, Definition, ModuleAnalysis, Use
from analysis.resolver import ClassInfo, analyse_module, collector_paused
from analysis.sources import Workspace, WorkspaceError, suggest


@dataclass(frozen=True)
class Located:
    analysis: ModuleAnalysis
    definition: Definition


#: Called as progress(done, total) while a large workspace is analysed: files
#: analysed of files to analyse (a file analysed again counts again).
Progress = Callable[[int, int], None]
progress_hook: Progress | None = None


class WorkspaceIndex:
    """Each file is analysed once, knowing the classes of the files analysed
    before it. When it asks for a class of a workspace module not analysed yet,
    that module is analysed first (to a bounded depth), so the classes a module
    uses are usually known when it needs them; a file is analysed again only
    when it asked for a class that a later file turned out to define. The result
    is the same as analysing every file with every class known."""

    def __init__(self, ws: Workspace, files: list[str]) -> None:
        with collector_paused():
            self._build(ws, files)

    def _build(self, ws: Workspace, files: list[str]) -> None:
        self.ws = ws
        modules = [ws.module_of(f) for f in files]
        report = progress_hook if progress_hook is not None and len(modules) > 50 else None
        self.classes: dict[str, ClassInfo] = {}
        self.values: dict[str, str] = {}  # what ModuleAnalysis.value_types says, for every module
        #: "pkg.Session" -> "pkg.sessions.Session": the names modules import, as others may use them
        self.aliases: dict[str, str] = {}
        #: _canonical's answers while aliases stays as it is (cleared when it grows)
        self._canonicals: dict[str, str] = {}
        results: list[ModuleAnalysis | None] = [None] * len(modules)
        misses: list[set[tuple[bool, str]]] = [set() for _ in modules]  # (a class?, name) asked in vain
        waiting = {m.module: n for n, m in enumerate(modules)}  # not analysed yet
        done = 0

        def prepared(classes: dict[str, ClassInfo], values: dict[str, str]) -> None:
            self.classes.update((q, ClassInfo(tuple(b for b in i.bases if not b.startswith(UNRESOLVED)), i.members))
                                for q, i in classes.items())
            self.values.update(values)

        def analyse(n: int, depth: int) -> None:
            nonlocal done
            m = modules[n]
            waiting.pop(m.module, None)

            def lookup(table: dict, qualname: str):  # a ClassInfo, or a class name
                found = table.get(qualname)
                if found is None:
                    found = table.get(self._canonical(qualname))
                if found is None and depth < _DEPTH:
                    owner = _owner(qualname, waiting)
                    if owner is not None:
                        try:
                            analyse(waiting[owner], depth + 1)
                        except RecursionError:  # too deep for this interpreter: it is analysed in turn
                            pass
                        found = table.get(qualname)
                if found is None:
                    misses[n].add((table is self.classes, qualname))
                return found

            results[n] = a = analyse_module(ws.read(m.path), m.path, m.module, is_package=m.is_package,
                                            classes=functools.partial(lookup, self.classes),
                                            values=functools.partial(lookup, self.values), on_prepared=prepared)
            new = [(f"{a.module}.{i.local}", i.target) for i in a.imports
                   if i.scope == a.module and i.local != "*" and i.target != f"{a.module}.{i.local}"]
            if new:
                self.aliases.update(new)
                self._canonicals.clear()
            done += 1
            if report and done % 25 == 0:
                report(done, len(modules))

        for n in range(len(modules)):
            if results[n] is None:
                analyse(n, 0)
        again = [n for n, missed in enumerate(misses)
                 if any(name in (self.classes if is_class else self.values) for is_class, name in missed)]
        total = len(modules) + len(again)
        for k, n in enumerate(again):
            m = modules[n]
            results[n] = analyse_module(ws.read(m.path), m.path, m.module, is_package=m.is_package,
                                        classes=self.classes.get, values=self.values.get)
            if report and k % 25 == 0:
                report(len(modules) + k, total)
        names = {d.qualname for a in results if a is not None for d in a.definitions}
        self.modules: list[ModuleAnalysis] = [self._through_reexports(a, names) for a in results if a is not None]
        #: How many analyses were made: the number of files plus the ones redone.
        self.analyses = total
        if report:
            report(total, total)
        self.by_module = {a.module: a for a in self.modules}
        self.definitions: dict[str, Located] = {}
        for a in self.modules:
            for d in a.definitions:
                self.definitions.setdefault(d.qualname, Located(a, d))

    def _canonical(self, target: str, names: set[str] | None = None) -> str:
        """The definition a name reached through imports is: ``requests.Session``
        (``from .sessions import Session`` in requests/__init__.py) is
        ``requests.sessions.Session``. Unchanged when no alias leads anywhere."""
        if names is None:
            known = self._canonicals.get(target)
            if known is None:
                known = self._canonicals[target] = self._canonical(target, set())
            return known
        current = target
        for _ in range(8):  # re-exports of re-exports, never a cycle
            parts = current.split(".")
            for k in range(len(parts), 1, -1):
                head = ".".join(parts[:k])
                if head in self.aliases:
                    current = ".".join([self.aliases[head], *parts[k:]])
                    break
            else:
                break
            if names is not None and current in names:
                return current
        return current

    def _through_reexports(self, a: ModuleAnalysis, names: set[str]) -> ModuleAnalysis:
        """Uses name what they reach: a name imported through another module
        (``requests.compat.urlparse``) is what that module imported it from
        (``urllib.parse.urlparse``)."""
        uses = tuple(u if u.target in names or not u.resolved else replace(u, target=self._canonical(u.target, names))
                     for u in a.uses)
        return a if uses == a.uses else replace(a, uses=uses)

    def find(self, qualname: str) -> Located:
        found = self.definitions.get(qualname)
        if found is None:
            candidates = sorted(self.definitions)
            hint = suggest(qualname, candidates, "symbol")
            if not hint:
                tail = qualname.rsplit(".", 1)[-1]
                ends = [c for c in candidates if c.rsplit(".", 1)[-1] == tail][:3]
                hint = f"; did you mean {' or '.join(map(repr, ends))}?" if ends else ""
            raise WorkspaceError(f"symbol {qualname!r} is not defined in the workspace{hint}")
        return found

    def uses_of(self, qualname: str) -> list[tuple[ModuleAnalysis, Use]]:
        """Every use whose target is the symbol or a member reached through it."""
        out = []
        for a in self.modules:
            for u in a.uses:
                if u.target == qualname:
                    out.append((a, u))
        return out


#: How deep analysing a module may first analyse the modules it asks about;
#: deeper chains are settled by analysing the asker again at the end.
_DEPTH = 24


def _owner(qualname: str, modules: dict[str, int]) -> str | None:
    """The longest of ``modules`` that ``qualname`` lies in, if any."""
    name = qualname
    while "." in name:
        name = name.rpartition(".")[0]
        if name in modules:
            return name
    return None


def index_of(ws: Workspace, files: list[str]) -> WorkspaceIndex:
    """The analysis of ``files`` together; a server's Workspace carries an
    IndexCache so that an unchanged workspace is analysed once per process
    (analysis/warm.py)."""
    if ws.index_cache is None:
        return WorkspaceIndex(ws, files)
    return ws.index_cache.index(ws, files, WorkspaceIndex)
