"""Every module of a set of files, analysed together so that classes defined in
one module resolve calls made in another (``x = Cls()`` then ``x.m()`` across an
import), and symbols can be looked up by qualified name."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from analysis.filecache import CLASS, PREPARED, VALUE, Event, Record, RecordStore, default_store
from analysis.model import UNRESOLVED, Definition, ModuleAnalysis, Use
from analysis.resolver import (
    TOO_DEEP,
    ClassInfo,
    ClassLookup,
    ValueLookup,
    analyse_module,
    collector_paused,
    known_result,
)
from analysis.sources import ModuleFile, Workspace, WorkspaceError, suggest
from analysis.stdlib_types import is_class as is_stdlib_class


@dataclass(frozen=True)
class Located:
    analysis: ModuleAnalysis
    definition: Definition


#: Called as progress(done, total) while a large workspace is analysed: files
#: analysed of files to analyse (a file analysed again counts again).
Progress = Callable[[int, int], None]
Prepared = Callable[[dict[str, ClassInfo], dict[str, str]], None]
progress_hook: Progress | None = None


class WorkspaceIndex:
    """Each file is analysed once, knowing the classes of the files analysed
    before it. When it asks for a class of a workspace module not analysed yet,
    that module is analysed first (to a bounded depth), so the classes a module
    uses are usually known when it needs them; a file is analysed again only
    when it asked for a class that a later file turned out to define. The result
    is the same as analysing every file with every class known.

    With a ``store`` (analysis/filecache.py), a file whose record is there is
    replayed instead of analysed: the same questions in the same order, and the
    recorded analysis while every answer is the recorded one; so the index is
    the one a cold build gives, and an edit re-analyses the files it changed and
    those whose questions it answers differently."""

    def __init__(self, ws: Workspace, files: list[str], store: RecordStore | None = None) -> None:
        self.store = store
        #: Files replayed from the store, and files analysed.
        self.replayed = 0
        self.analysed = 0
        #: Grows whenever what the lookups answer may change (a module analysed,
        #: classes or values told, an alias added).
        self._generation = 0
        self._keys: dict[str, str] = {}  # path -> the key of its record, the last made
        with collector_paused():
            self._build(ws, files)
            # What the build made lives as long as the index, and holds no cycles:
            # out of the collector's sight, so the first collections after the
            # build do not walk millions of objects (half a second on the
            # standard library, inside whatever request comes next).
            gc.freeze()
        if store is not None:
            store.flush()

    def _run(self, data: bytes, m: ModuleFile, phase: str, classes: ClassLookup, values: ValueLookup,
             prepared: Prepared | None, stub: bytes | None = None) -> ModuleAnalysis:
        """The analysis of one file (and of its ``.pyi`` stub, if any): replayed
        from its record while the answers agree, else made (fed the answers the
        replay already got), and recorded."""
        store = self.store
        keyed = data if stub is None else data + b"\0semaprax-stub\0" + stub
        key = store.key(keyed, m.path, m.module, m.is_package, phase) if store is not None else ""
        self._keys[m.path] = key
        record = store.get(key) if store is not None else None
        given: list[Event] = []
        if record is not None:
            for event in record.events:
                kind, q, answer = event
                if kind == PREPARED:
                    if prepared is not None:
                        prepared(q, answer)
                    given.append(event)
                    continue
                got = (classes if kind == CLASS else values)(q)
                given.append((kind, q, got))
                if got != answer:
                    break
            else:
                self.replayed += 1
                return record.result
        events: list[Event] = []
        at = 0
        feeding = bool(given)
        # (kind, question) -> (generation, answer): a question asked again while
        # nothing the answer depends on changed is answered as before, and not
        # recorded (the analysis asks the same few questions many times over)
        memo: dict[tuple[int, str], tuple[int, Any]] = {}

        def ask(kind: int, q: str) -> Any:
            nonlocal at, feeding
            key = (kind, q)
            if feeding:
                if at < len(given):
                    k, asked, got = given[at]
                    if k == kind and asked == q:  # asked live by the run the replay followed
                        at += 1
                        events.append((kind, q, got))
                        memo[key] = (-1, got)
                        return got
                    known = memo.get(key)
                    if known is not None:  # answered from its memo by that run too
                        return known[1]
                feeding = False  # past the replay (or never the case: not the same questions)
                at = len(given)
                memo.clear()
            known = memo.get(key)
            if known is not None and known[0] == self._generation:
                return known[1]
            got = (classes if kind == CLASS else values)(q)
            events.append((kind, q, got))
            memo[key] = (self._generation, got)
            return got

        def tell(c: dict[str, ClassInfo], v: dict[str, str]) -> None:
            nonlocal at
            events.append((PREPARED, c, v))
            if feeding and at < len(given) and given[at][0] == PREPARED:
                at += 1  # told already by the replay; the analysis tells the same (same answers so far)
                return
            if prepared is not None:
                prepared(c, v)

        a = analyse_module(data, m.path, m.module, is_package=m.is_package,
                           classes=functools.partial(ask, CLASS), values=functools.partial(ask, VALUE),
                           on_prepared=tell, stub=stub)
        self.analysed += 1
        if store is not None and not any(p.kind == TOO_DEEP for p in a.problems):
            store.put(key, Record(tuple(events), a))
        return a

    def _build(self, ws: Workspace, files: list[str]) -> None:
        self.ws = ws
        modules = [ws.module_of(f) for f in files]
        report = progress_hook if progress_hook is not None and len(modules) > 50 else None
        self.classes: dict[str, ClassInfo] = {}
        self.values: dict[str, str] = {}  # what ModuleAnalysis.value_types says, for every module
        #: "pkg.Session" -> "pkg.sessions.Session": the names modules import, as others may use them;
        #: and the dotted paths of modules in namespace folders ("nsroot.inner.leaf" -> "leaf")
        self.aliases: dict[str, str] = _namespace_aliases(modules)
        self.class_aliases: set[str] = set()  # variables that name a class: uses name the class
        #: _canonical's answers, each forgotten when an alias added could change it
        self._canonicals: dict[str, str] = {}
        self._canonicals_by_top: dict[str, set[str]] = {}  # first part -> memo entries that passed it
        results: list[ModuleAnalysis | None] = [None] * len(modules)
        misses: list[set[tuple[bool, str]]] = [set() for _ in modules]  # (a class?, name) asked in vain
        waiting = {m.module: n for n, m in enumerate(modules)}  # not analysed yet
        done = 0

        def prepared(classes: dict[str, ClassInfo], values: dict[str, str]) -> None:
            self._generation += 1
            self.classes.update((q, ClassInfo(tuple(b for b in i.bases if not b.startswith(UNRESOLVED)), i.members))
                                for q, i in classes.items())
            self.values.update(values)

        def analyse(n: int, depth: int) -> None:
            nonlocal done
            m = modules[n]
            waiting.pop(m.module, None)
            self._generation += 1

            def lookup(table: dict, qualname: str):  # a ClassInfo, or a class name
                found = self._answer(table, qualname)
                for _ in range(3) if found is None and depth < _DEPTH else ():
                    # the module it lies in, as named or where the name leads through the
                    # imports known so far: a package's __init__ first, then the module it
                    # imports the name from (a circular import, in either order)
                    owner = _owner(qualname, waiting) or _owner(self._canonical(qualname), waiting)
                    if owner is None:
                        break
                    try:
                        analyse(waiting[owner], depth + 1)  # noqa: F821 - its cell is emptied after the build
                    except RecursionError:  # too deep for this interpreter: it is analysed in turn
                        pass
                    found = self._answer(table, qualname)
                    if found is not None:
                        break
                if found is None:
                    misses[n].add((table is self.classes, qualname))
                return found

            a = self._run(ws.read(m.path), m, "first", functools.partial(lookup, self.classes),
                          functools.partial(lookup, self.values), prepared, ws.stub_of(m.path))
            if depth and any(p.kind == TOO_DEEP for p in a.problems):
                raise RecursionError  # deep only for being analysed on demand: analysed in turn
            results[n] = a
            new = [(f"{a.module}.{i.local}", i.target) for i in a.imports
                   if i.scope == a.module and i.local != "*" and i.target != f"{a.module}.{i.local}"]
            # ``builtin_str = str``: the variable is another name of the class (resolver._class_aliases)
            renamed = [(q[:-1], cls) for q, cls in a.value_types if q.endswith("=")]
            if renamed:
                self.class_aliases.update(q for q, _ in renamed)
                new += renamed
            if new:
                self._add_aliases(new)
            done += 1
            if report and done % 25 == 0:
                report(done, len(modules))

        for n in range(len(modules)):
            if results[n] is None:
                analyse(n, 0)
        # analyse calls itself through its closure: the function and its cell are a cycle that
        # holds this index and the build's lists, so a replaced index would wait for a full
        # collection to be freed. Emptying the cell breaks the cycle (refcounting frees it all).
        del analyse

        def known(is_class: bool, name: str) -> bool:
            table: dict[str, Any] = self.classes if is_class else self.values
            return name in table or self._canonical(name) in table

        again = [n for n, missed in enumerate(misses) if any(known(is_class, name) for is_class, name in missed)]
        total = len(modules) + len(again)
        for k, n in enumerate(again):
            m = modules[n]
            results[n] = self._run(ws.read(m.path), m, "again", functools.partial(self._answer, self.classes),
                                   functools.partial(self._answer, self.values), None, ws.stub_of(m.path))
            if report and k % 25 == 0:
                report(len(modules) + k, total)
        names = {d.qualname for a in results if a is not None for d in a.definitions}
        self._module_names = {a.module for a in results if a is not None}
        final: dict[str, str] = {}  # _canonical's answers, now that aliases are all known
        # Renamed through re-exports, each module is a function of its analysis, the names
        # defined and the aliases: a module replayed as before, with the same names and
        # aliases (an edit that changed no definition and no import), is renamed as before.
        store = self.store
        state = (frozenset(names), frozenset(self.aliases.items()), frozenset(self._module_names)) \
            if store is not None else None
        kept = store.finals if store is not None and store.finals_state == state else {}
        self.modules: list[ModuleAnalysis] = []
        finals: dict[str, tuple[ModuleAnalysis, ModuleAnalysis]] = {}
        for a in results:
            if a is None:
                continue
            key = self._keys.get(a.path, "")
            before = kept.get(key)
            renamed = before[1] if before is not None and before[0] is a else self._through_reexports(a, names, final)
            finals[key] = (a, renamed)
            self.modules.append(renamed)
        if store is not None:
            store.finals, store.finals_state = finals, state
        #: How many analyses were made: the number of files plus the ones redone.
        self.analyses = total
        if report:
            report(total, total)
        self.by_module = {a.module: a for a in self.modules}
        self.definitions: dict[str, Located] = {}
        for a in self.modules:
            for d in a.definitions:
                self.definitions.setdefault(d.qualname, Located(a, d))

    def _answer(self, table: dict[str, Any], qualname: str) -> Any:
        """What ``table`` (classes or values) says of ``qualname``, or of the
        name it reaches through imports; for values, also what the standard
        library's are (analysis/stdlib_types.py) when that is where it leads:
        ``requests.compat.urlparse()`` is ``urllib.parse.urlparse()``."""
        found = table.get(qualname)
        if found is None:
            found = table.get(self._canonical(qualname))
        if found is None and table is self.values:
            cut = min((i for i in (qualname.find("("), qualname.find("["), qualname.find("=")) if i > 0),
                      default=len(qualname))
            name, suffix = qualname[:cut], qualname[cut:]
            canonical = self._canonical(name)
            if canonical != name:
                if suffix == "=":
                    found = canonical if is_stdlib_class(canonical) else None
                else:
                    found = table.get(canonical + suffix) or known_result(canonical + suffix)
        return found

    def _add_aliases(self, new: list[tuple[str, str]]) -> None:
        """New aliases change the memo of _canonical only for the names whose
        walk passed a name with the same first part as a new alias (a head
        of it starts the same): those are forgotten, the rest kept."""
        self.aliases.update(new)
        for key, _target in new:
            for target in self._canonicals_by_top.pop(key.partition(".")[0], ()):
                self._canonicals.pop(target, None)
        self._generation += 1

    def canonical(self, target: str) -> str:
        """The name ``target`` reaches through imports and namespace folders."""
        return self._canonical(target)

    def _canonical(self, target: str, names: set[str] | None = None, chain: list[str] | None = None) -> str:
        """The definition a name reached through imports is: ``requests.Session``
        (``from .sessions import Session`` in requests/__init__.py) is
        ``requests.sessions.Session``. Unchanged when no alias leads anywhere."""
        if names is None:
            known = self._canonicals.get(target)
            if known is None:
                seen: list[str] = []
                known = self._canonicals[target] = self._canonical(target, set(), seen)
                for name in seen:  # what an alias added later may change (see _add_aliases)
                    self._canonicals_by_top.setdefault(name.partition(".")[0], set()).add(target)
            return known
        current = target
        for _ in range(8):  # re-exports of re-exports, never a cycle
            if chain is not None:
                chain.append(current)
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

    def _through_reexports(self, a: ModuleAnalysis, names: set[str], final: dict[str, str]) -> ModuleAnalysis:
        """Uses name what they reach: a name imported through another module
        (``requests.compat.urlparse``) is what that module imported it from
        (``urllib.parse.urlparse``)."""
        changed = False
        out = []
        for u in a.uses:
            target = u.target
            # a name the package's __init__ rebinds (``from .foo import foo``) is what it rebinds
            # it to, not the submodule of the same name: Python's attribute after the import
            if (target not in names or target in self._module_names and target in self.aliases
                    or target in self.class_aliases) and target[:1] != UNRESOLVED:
                canonical = final.get(target)
                if canonical is None:
                    canonical = final[target] = self._canonical(target, names)
                if canonical != target:
                    u = _with_target(u, canonical)
                    changed = True
            out.append(u)
        return replace(a, uses=tuple(out)) if changed else a

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


def _with_target(u: Use, target: str) -> Use:
    """``replace(u, target=target)`` without ``__init__`` (the standard
    library has two hundred thousand such uses)."""
    new = object.__new__(Use)
    object.__setattr__(new, "__dict__", {**u.__dict__, "target": target})
    return new


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
