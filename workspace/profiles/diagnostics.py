"""``diagnostics``: problems found. For a .py file (reads: that file) syntax
errors, unresolved names, unused imports and redefinitions; for a manifest
(reads: it and its sources) the same for every file, plus imports that name
neither a project module, nor the standard library, nor a declared dependency."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

from ..analysis.index import WorkspaceIndex
from ..analysis.model import Problem
from ..analysis.resolver import analyse_module
from ..manifest import MANIFEST_NAMES
from ..sources import Workspace
from .common import manifest_root, problem_rows, python_file

COLUMNS = ["path", "line", "column", "kind", "message"]


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    rel = ws.relative(root)
    if rel.rsplit("/", 1)[-1] in MANIFEST_NAMES or ws.is_dir(rel):
        project = manifest_root(ws, root)
        index = ws.index(list(project.sources))
        rows = problem_rows(index.modules)
        rows.extend(_unresolved_imports(index, project.dependencies))
        rel = project.manifest
    else:
        rel = python_file(ws, root)
        mf = ws.module_of(rel)
        a = analyse_module(ws.read(rel), rel, mf.module, is_package=mf.is_package)
        rows = problem_rows([a])
    rows.sort(key=lambda r: (r[0].encode(), r[1], r[2], r[3], r[4]))
    counts = Counter(r[3] for r in rows)
    return rel, {"root": rel, "counts": dict(sorted(counts.items())), "columns": COLUMNS, "rows": rows}


def _unresolved_imports(index: WorkspaceIndex, dependencies: tuple[str, ...]) -> list[list[Any]]:
    known_tops = {a.module.split(".")[0] for a in index.modules}
    known_tops |= set(sys.stdlib_module_names)
    known_tops |= {d.replace("-", "_") for d in dependencies}
    modules = {a.module for a in index.modules}
    rows = []
    for a in index.modules:
        for imp in a.imports:
            target = imp.module if imp.local == "*" else imp.target
            top = target.split(".")[0]
            internal = top in {m.split(".")[0] for m in modules}
            if top in known_tops and not internal:
                continue
            # from pkg import name: name may be a module or a symbol in pkg
            if internal and any(target == m or target.startswith(m + ".") or m.startswith(target + ".")
                                for m in modules):
                continue
            problem = Problem("unresolved-import", imp.line, 1, f"cannot resolve import of {target!r}")
            rows.append([a.path, problem.line, problem.column, problem.kind, problem.message])
    return rows
