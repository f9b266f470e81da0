"""``task-context``: what an agent needs to change one symbol. Reads: the
workspace's sources (a top-level manifest's, or every .py file), because callers
can be anywhere."""

from __future__ import annotations

import builtins
from typing import Any

from ..analysis.index import WorkspaceIndex
from ..analysis.model import CALLS, UNRESOLVED
from ..sources import Workspace, decode_source, source_lines
from .common import workspace_sources


def _signature_of(index: WorkspaceIndex, qualname: str) -> str | None:
    found = index.definitions.get(qualname)
    if found is None:
        return None
    d = found.definition
    return d.signature or d.kind


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    index = WorkspaceIndex(ws, workspace_sources(ws))
    located = index.find(root)
    a, d = located.analysis, located.definition
    lines = source_lines(decode_source(ws.read(a.path)))
    inside = (d.qualname, d.qualname + ".")
    own_uses = [u for u in a.uses if u.source == d.qualname or u.source.startswith(inside[1])]

    value: dict[str, Any] = {"symbol": d.qualname, "kind": d.kind, "path": a.path, "lines": [d.start, d.end]}
    if d.signature:
        value["signature"] = d.signature
    if d.overloads:
        value["overloads"] = list(d.overloads)
    if d.decorators:
        value["decorators"] = list(d.decorators)
    if d.doc:
        value["doc"] = d.doc
    value["source"] = "\n".join(lines[d.start - 1 : d.end])
    parent = d.qualname.rpartition(".")[0]
    owner = index.definitions.get(parent)
    if owner is not None and owner.definition.kind == "class":
        c = owner.definition
        members = sorted(
            x.qualname.rsplit(".", 1)[1] for x in a.definitions
            if x.qualname.rpartition(".")[0] == c.qualname and x.qualname != d.qualname
        )
        value["class"] = {"name": c.qualname, "signature": c.signature, "doc": c.doc_line, "members": members}

    callees: dict[str, str] = {}
    unresolved: set[str] = set()
    for u in own_uses:
        if u.kind != CALLS:
            continue
        if u.target.startswith(UNRESOLVED):
            unresolved.add(u.target)
        else:
            callees[u.target] = _signature_of(index, u.target) or ""
    value["callees"] = dict(sorted(callees.items()))
    if unresolved:
        value["unresolved"] = sorted(unresolved)

    callers: dict[str, list[Any]] = {}
    for other, u in index.uses_of(d.qualname):
        if u.kind == CALLS and u.source not in callers:
            callers[u.source] = [other.path, u.line, _signature_of(index, u.source) or ""]
    value["callers"] = dict(sorted(callers.items()))

    types: dict[str, str] = {}
    for u in own_uses:
        if u.kind == CALLS or not u.resolved:
            continue
        found = index.definitions.get(u.target)
        if found is not None and found.definition.kind == "class":
            types[u.target] = found.definition.signature or "class"
        elif u.target.startswith("builtins.") and isinstance(getattr(builtins, u.target[9:], None), type):
            types[u.target] = "builtin"
    value["types"] = dict(sorted(types.items()))

    # The import each used target came through: the longest import target it lies in.
    module_imports = [i for i in a.imports if i.scope == a.module and i.local != "*"]
    relied: dict[str, str] = {}
    for target in sorted({u.target for u in own_uses if u.resolved}):
        matches = [i for i in module_imports if target == i.target or target.startswith(i.target + ".")]
        if matches:
            best = max(matches, key=lambda i: len(i.target))
            relied[best.local] = best.target
    value["imports"] = dict(sorted(relied.items()))
    return d.qualname, value
