"""Every module of a set of files, analysed together so that classes defined in
one module resolve calls made in another (``x = Cls()`` then ``x.m()`` across an
import), and symbols can be looked up by qualified name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..sources import Workspace, WorkspaceError, suggest
from .model import INHERITS, Definition, ModuleAnalysis, Use
from .resolver import ClassInfo, analyse_module


@dataclass(frozen=True)
class Located:
    analysis: ModuleAnalysis
    definition: Definition


#: Called as progress(done, total) while a large workspace is analysed.
Progress = Callable[[int, int], None]
progress_hook: Progress | None = None


class WorkspaceIndex:
    def __init__(self, ws: Workspace, files: list[str]) -> None:
        self.ws = ws
        modules = [ws.module_of(f) for f in files]
        sources = {m.path: ws.read(m.path) for m in modules}
        total = 2 * len(modules)
        report = progress_hook if progress_hook is not None and len(modules) > 50 else None
        # Pass 1: each module alone, to learn every class's bases and members.
        first = []
        for n, m in enumerate(modules):
            first.append(analyse_module(sources[m.path], m.path, m.module, is_package=m.is_package))
            if report and n % 25 == 0:
                report(n, total)
        self.classes: dict[str, ClassInfo] = {}
        for a in first:
            self.classes.update(_class_infos(a))
        # Pass 2: again, with every class known.
        if self.classes:
            self.modules = []
            for n, m in enumerate(modules):
                self.modules.append(analyse_module(sources[m.path], m.path, m.module, is_package=m.is_package,
                                                   classes=self.classes.get))
                if report and n % 25 == 0:
                    report(len(modules) + n, total)
        else:
            self.modules = first
        if report:
            report(total, total)
        self.by_module = {a.module: a for a in self.modules}
        self.definitions: dict[str, Located] = {}
        for a in self.modules:
            for d in a.definitions:
                self.definitions.setdefault(d.qualname, Located(a, d))

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


def _class_infos(a: ModuleAnalysis) -> dict[str, ClassInfo]:
    classes = {d.qualname: d for d in a.definitions if d.kind == "class"}
    members: dict[str, set[str]] = {q: set() for q in classes}
    for d in a.definitions:
        parent, _, name = d.qualname.rpartition(".")
        if parent in members:
            members[parent].add(name)
    bases: dict[str, list[str]] = {q: [] for q in classes}
    for u in a.uses:
        if u.kind == INHERITS and u.source in bases and u.resolved:
            bases[u.source].append(u.target)
    return {q: ClassInfo(tuple(bases[q]), frozenset(members[q])) for q in classes}
