"""``references``: every place that refers to or calls one symbol, with its
enclosing definition. Reads: the workspace's sources."""

from __future__ import annotations

from typing import Any

from analysis.index import index_of
from analysis.sources import Workspace
from views.common import workspace_sources


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    index = index_of(ws, workspace_sources(ws))
    located = index.find(root)
    d = located.definition
    files: dict[str, list[list[Any]]] = {}
    seen = set()
    for a, u in index.uses_of(d.qualname):
        key = (a.path, u.line, u.kind, u.source)
        if key in seen:
            continue
        seen.add(key)
        files.setdefault(a.path, []).append([u.line, u.kind, u.source])
    for rows in files.values():
        rows.sort(key=lambda r: (r[0], r[1], r[2]))
    count = sum(len(r) for r in files.values())
    value = {
        "symbol": d.qualname,
        "kind": d.kind,
        "defined": [located.analysis.path, d.start],
        "count": count,
        "columns": ["line", "kind", "in"],
        "files": dict(sorted(files.items(), key=lambda kv: kv[0].encode())),
    }
    return d.qualname, value
