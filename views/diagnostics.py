"""``diagnostics``: problems found. For a .py file (reads: that file) syntax
errors, unresolved names, unused imports and redefinitions; for a manifest
(reads: it and its sources) the same for every file, plus imports that name
neither a project module, nor the standard library, nor a declared dependency
(what the manifest declares: what is installed where the view is made is never
consulted). Files whose names are not UTF-8 are listed as skipped."""

from __future__ import annotations

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
        rows.extend(_skipped_rows(ws, project.folder))
        rows.extend(_same_names(index))
        rel = project.manifest
    else:
        rel = python_file(ws, root)
        mf = ws.module_of(rel)
        a = analyse_module(ws.read(rel), rel, mf.module, is_package=mf.is_package, stub=ws.stub_of(rel))
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


#: Distributions whose import name differs from their name. The view reads the
#: workspace and its declared manifest only, never what is installed where it
#: runs, so the same sources give the same bytes on every machine.
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
    name itself (``-`` as ``_``) and the well-known exceptions above."""
    names = {d.replace("-", "_") for d in dependencies}
    for d in dependencies:
        names.update(KNOWN_IMPORT_NAMES.get(d, ()))
    return names


def _unresolved_imports(index: WorkspaceIndex, dependencies: tuple[str, ...]) -> list[list[Any]]:
    """Imports that name neither a project module (nor a name in one), nor the
    standard library, nor a declared dependency. Linear in the imports: the
    sets are made once, and each import looks up its own prefixes."""
    modules = {a.module for a in index.modules}
    internal_tops = {m.split(".")[0] for m in modules}
    known_tops = set(sys.stdlib_module_names) | import_names(dependencies)
    # every proper prefix of a module name: ``from pkg import sub`` names package pkg
    prefixes = {m[:i] for m in modules for i, c in enumerate(m) if c == "."}
    rows = []
    for a in index.modules:
        for imp in a.imports:
            target = imp.module if imp.local == "*" else imp.target
            # as written, or (a module in a namespace folder) by the name its dotted path leads to
            if any(_known(name, internal_tops, known_tops, prefixes, modules)
                   for name in (target, index.canonical(target))):
                continue
            problem = Problem("unresolved-import", imp.line, 1, f"cannot resolve import of {target!r}")
            rows.append([a.path, problem.line, problem.column, problem.kind, problem.message])
    return rows


def _known(target: str, internal_tops: set[str], known_tops: set[str], prefixes: set[str],
           modules: set[str]) -> bool:
    top = target.split(".")[0]
    internal = top in internal_tops
    if top in known_tops and not internal:
        return True
    # from pkg import name: name may be a module or a symbol in pkg
    return internal and (target in prefixes or _within(target, modules))


def _within(target: str, modules: set[str]) -> bool:
    """Whether ``target`` is a module or lies inside one."""
    name = target
    while True:
        if name in modules:
            return True
        if "." not in name:
            return False
        name = name.rpartition(".")[0]


def _skipped_rows(ws: Workspace, folder: str) -> list[list[Any]]:
    """Files under the project's folder that no view can name (their names
    are not UTF-8), spelled as sources.spelled spells them."""
    ws.python_files()  # the listing finds them
    prefix = folder + "/" if folder else ""
    return [[path, 1, 1, "skipped-file", f"skipped: {why}"] for path, why in ws.skipped if path.startswith(prefix)]


def _same_names(index: WorkspaceIndex) -> list[list[Any]]:
    """Files that are the same module: modules in folders without
    ``__init__.py`` are named from their own folder, so ``a/util.py`` and
    ``b/util.py`` are both ``util``, and a name in ``util`` may be either's."""
    paths: dict[str, list[str]] = {}
    for a in index.modules:
        paths.setdefault(a.module, []).append(a.path)
    rows = []
    for module, group in paths.items():
        if len(group) > 1:
            for path in group:
                others = ", ".join(p for p in group if p != path)
                rows.append([path, 1, 1, "same-module-name",
                             f"module {module!r} is also {others}: a name in {module!r} may be either file's"])
    return rows
