"""``diagnostics``: problems found. For a .py file (reads: that file) syntax
errors, unresolved names, unused imports and redefinitions; for a manifest
(reads: it and its sources) the same for every file, plus imports that name
neither a project module, nor the standard library, nor a declared dependency."""

from __future__ import annotations

import functools
import importlib.metadata
import re
import sys
from collections import Counter
from dataclasses import replace
from typing import Any

from analysis.index import WorkspaceIndex, index_of
from analysis.manifest import MANIFEST_NAMES
from analysis.model import ModuleAnalysis, Problem
from analysis.resolver import analyse_module
from analysis.sources import Workspace
from views.common import manifest_root, problem_rows, python_file

COLUMNS = ["path", "line", "column", "kind", "message"]


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    rel = ws.relative(root)
    if rel.rsplit("/", 1)[-1] in MANIFEST_NAMES or ws.is_dir(rel):
        project = manifest_root(ws, root)
        index = index_of(ws, list(project.sources))
        rows = problem_rows(_without_reexports(index.modules))
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


def _without_reexports(analyses: list[ModuleAnalysis]) -> list[ModuleAnalysis]:
    """An import that another module imports from this one is a re-export,
    not an unused import (``from .compat import json`` elsewhere uses
    ``json`` imported in compat)."""
    imported = {i.target for a in analyses for i in a.imports}
    return [a if not any(p.kind == "unused-import" and p.symbol in imported for p in a.problems)
            else replace(a, problems=tuple(p for p in a.problems
                                           if p.kind != "unused-import" or p.symbol not in imported))
            for a in analyses]


#: Distributions whose import name differs from their name, for when the
#: distribution is not installed where the view is made.
KNOWN_IMPORT_NAMES = {
    "pyyaml": ("yaml",), "pillow": ("PIL",), "beautifulsoup4": ("bs4",), "scikit-learn": ("sklearn",),
    "python-dateutil": ("dateutil",), "attrs": ("attr", "attrs"), "pyjwt": ("jwt",),
    "opencv-python": ("cv2",), "protobuf": ("google",), "pymysql": ("pymysql",),
    "python-dotenv": ("dotenv",), "msgpack-python": ("msgpack",), "pycryptodome": ("Crypto",),
    "pyserial": ("serial",), "typing-extensions": ("typing_extensions",), "setuptools": ("setuptools", "pkg_resources"),
    "markupsafe": ("markupsafe",), "pygments": ("pygments",), "pyzmq": ("zmq",), "dnspython": ("dns",),
}


def import_names(dependencies: tuple[str, ...]) -> set[str]:
    """The top-level names the declared distributions can be imported as: the
    name itself, the well-known exceptions above, and, where the distribution
    is installed, the top-level names it really provides (importlib.metadata)."""
    names = {d.replace("-", "_") for d in dependencies}
    for d in dependencies:
        names.update(KNOWN_IMPORT_NAMES.get(d, ()))
    wanted = set(dependencies)
    for top, distributions in _installed_tops().items():
        if any(_normal(dist) in wanted for dist in distributions):
            names.add(top)
    return names


@functools.cache
def _installed_tops() -> dict[str, tuple[str, ...]]:
    try:
        return {k: tuple(v) for k, v in importlib.metadata.packages_distributions().items()}
    except (OSError, ValueError, TypeError, AttributeError):  # a broken installed distribution: no view breaks
        return {}


def _normal(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def _unresolved_imports(index: WorkspaceIndex, dependencies: tuple[str, ...]) -> list[list[Any]]:
    known_tops = {a.module.split(".")[0] for a in index.modules}
    known_tops |= set(sys.stdlib_module_names)
    known_tops |= import_names(dependencies)
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
