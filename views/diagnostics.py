"""``diagnostics``: problems found. For a .py file (reads: that file) syntax
errors, unresolved names, unused imports and redefinitions; for a manifest
(reads: it and its sources) the same for every file, plus imports that name
neither a project module, nor the standard library, nor a declared dependency
(what the manifest declares: what is installed where the view is made is never
consulted). Files whose names are not UTF-8 are listed as skipped."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any

from analysis._stdlib_modules import TABLES
from analysis.index import WorkspaceIndex, index_of
from analysis.manifest import MANIFEST_NAMES
from analysis.model import ModuleAnalysis, Problem
from analysis.sources import Workspace, WorkspaceError
from views.common import analysed_file, manifest_root, problem_rows, python_file

COLUMNS = ["path", "line", "column", "kind", "message"]


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    rel = ws.relative(root)
    if rel.rsplit("/", 1)[-1] in MANIFEST_NAMES or ws.is_dir(rel):
        project = manifest_root(ws, root)
        index = index_of(ws, list(project.sources))
        rows = problem_rows(_without_reexports(index.modules))
        declared = project.dependencies + project.optional_dependencies
        rows.extend(_unresolved_imports(index, declared,
                                        stdlib_names(project.requires_python, project.manifest)))
        rows.extend(_skipped_rows(ws, project.folder))
        rows.extend(_same_names(index))
        rel = project.manifest
    else:
        rel = python_file(ws, root)
        a = analysed_file(ws, rel)
        rows = problem_rows([a])
        rows.extend(_same_name_rows(a.module, [rel, *ws.same_named(rel)], only=rel))
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


#: The Python versions whose standard library the view knows (analysis/_stdlib_modules.py,
#: written by scripts/stdlib_modules.py), oldest first.
PYTHONS: tuple[tuple[int, int], ...] = tuple(sorted((int(v.split(".")[0]), int(v.split(".")[1])) for v in TABLES))
_CLAUSE = re.compile(r"\s*(~=|===|==|!=|<=|>=|<|>)\s*(\d+(?:\.\d+)*)(\.\*)?\s*$")


def allowed_pythons(requires_python: str | None, manifest: str = "") -> list[tuple[int, int]]:
    """The versions of PYTHONS a ``requires-python`` specifier (PEP 440) allows
    some release of: all of them without one; when it allows none of them, the
    newest when it asks for a later Python, else the oldest. A specifier that is
    not one is a WorkspaceError."""
    if requires_python is None or not requires_python.strip():
        return list(PYTHONS)
    clauses = []
    for text in requires_python.split(","):
        found = _CLAUSE.match(text)
        if found is None or (found.group(3) and found.group(1) not in ("==", "!=")):
            raise WorkspaceError(f"{manifest!r}: requires-python {requires_python!r} is not a version "
                                 f"specifier (PEP 440: '>=3.11', '>=3.10,<3.13', '~=3.12', '==3.11.*')")
        op, version, star = found.group(1), tuple(int(p) for p in found.group(2).split(".")), bool(found.group(3))
        clauses.append((op, version, star))
    allowed = [v for v in PYTHONS if all(_admits(v, *c) for c in clauses)]
    if allowed:
        return allowed
    later = all(_admits((PYTHONS[-1][0], 999), *c) for c in clauses)
    return [PYTHONS[-1] if later else PYTHONS[0]]


def _admits(line: tuple[int, int], op: str, version: tuple[int, ...], star: bool) -> bool:
    """Whether some release ``line[0].line[1].N`` satisfies one clause."""
    head = (version + (0, 0))[:2]
    patch = version[2] if len(version) > 2 else 0
    if op in (">=", ">"):
        return line >= head
    if op == "<=":
        return line <= head
    if op == "<":
        return line < head or (line == head and patch > 0)
    if op == "~=":  # >= version, and the same release but for its last part
        prefix = version[:-1] if len(version) > 1 else version
        return line >= head and _admits(line, "==", prefix, True)
    if op in ("==", "===", "!="):
        size = min(len(version), 2)
        within = line[:size] == version[:size]  # the line is inside the prefix ``3.*`` / ``3.11.*``
        if op == "!=":  # excludes a whole line only as a wildcard covering it
            return not (star and len(version) <= 2 and within)
        return within if star else line == head
    return True


def stdlib_names(requires_python: str | None, manifest: str = "") -> set[str]:
    """The standard library's top-level modules for a project: those of any
    Python version its ``requires-python`` allows (allowed_pythons), from the
    bundled table, never the running interpreter's: the same manifest and
    sources give the same bytes under every Python."""
    names: set[str] = set()
    for major, minor in allowed_pythons(requires_python, manifest):
        names.update(TABLES[f"{major}.{minor}"].split())
    return names


#: Modules no distribution provides and no interpreter holds, which every type
#: checker bundles with its standard library stubs (typeshed's ``_typeshed``):
#: imported under ``if TYPE_CHECKING:`` (``from _typeshed import ReadableBuffer``),
#: they resolve for the only reader that runs them. Any import of one is left
#: unreported, also one outside such a guard (which fails at run time): the
#: index does not record which imports a ``TYPE_CHECKING`` guard holds.
TYPE_CHECKERS_OWN = frozenset({"_typeshed"})


def _unresolved_imports(index: WorkspaceIndex, dependencies: tuple[str, ...],
                        stdlib: set[str] | None = None) -> list[list[Any]]:
    """Imports that name neither a project module (nor a name in one), nor the
    standard library (``stdlib``; by default every version's, stdlib_names),
    nor a declared dependency. Linear in the imports: the sets are made once,
    and each import looks up its own prefixes."""
    modules = {a.module for a in index.modules}
    internal_tops = {m.split(".")[0] for m in modules}
    known_tops = (stdlib_names(None) if stdlib is None else stdlib) | import_names(dependencies) | TYPE_CHECKERS_OWN
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
        rows.extend(_same_name_rows(module, group))
    return rows


def _same_name_rows(module: str, group: list[str], only: str | None = None) -> list[list[Any]]:
    """One ``same-module-name`` row per file of ``group`` (``only``: for that
    file) when several files are ``module``; none for one file. A one-file view
    says it as a manifest-wide one does (sources.Workspace.same_named: such
    files are left with one name only where no dotted path names them apart)."""
    rows: list[list[Any]] = []
    if len(group) < 2:
        return rows
    for path in group:
        if only is None or path == only:
            others = ", ".join(p for p in group if p != path)
            rows.append([path, 1, 1, "same-module-name",
                         f"module {module!r} is also {others}: a name in {module!r} may be either file's"])
    return rows
