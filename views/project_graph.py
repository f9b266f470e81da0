"""``project-graph``: a project's modules, the imports between them, what it
needs from outside, and where it starts. Reads: the manifest and every source
file it names.

It reads of each module only its outline (analysis/outline.py: parsed and
declared, no use resolved), made on every core and kept per file
(analysis/outlines.py); where the outlines cannot be sure of what the full
workspace index would say (a tree nested deep enough for the later stages of
the analysis to fail, a name only told across modules), and in a server that
holds a built index already, it reads the index (analysis/index.py). The bytes
are the same either way (tests/analysis/test_outline.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from analysis.index import index_of
from analysis.model import Import
from analysis.sources import Workspace
from views.common import first_sentence, manifest_root, table

#: One module as the view reads it (from its outline or the full index): name, path,
#: lines, doc, imports, has_main.
GraphModule = tuple[str, str, int, str, "tuple[Import, ...]", bool]


def owning_module(target: str, modules: set[str]) -> str | None:
    """The longest module name that ``target`` is or lies inside."""
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in modules:
            return candidate
    return None


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    project = manifest_root(ws, root)
    files = list(project.sources)
    kept = _kept_index(ws, files)
    if kept is None:
        from analysis.outlines import Unsure, outline_of

        outline = outline_of(ws, files)
        if outline.sure:
            try:
                return project.manifest, _value(project, [(o.module, o.path, o.lines, o.doc, o.imports, o.has_main)
                                                          for o in outline.modules], outline.canonical)
            except Unsure:
                pass  # the full index says it
        kept = index_of(ws, files)
    facts = [(a.module, a.path, a.lines, a.definitions[0].doc if a.definitions else "", a.imports, a.has_main)
             for a in kept.modules]
    return project.manifest, _value(project, facts, kept.canonical)


def _kept_index(ws: Workspace, files: list[str]) -> Any:
    """A server's index of ``files`` built already and still valid (analysis/warm.py), or None."""
    kept = getattr(ws.index_cache, "kept", None)
    return kept(ws, files) if kept is not None else None


def _value(project: Any, modules: Iterable[GraphModule], canonical: Callable[[str], str]) -> dict[str, Any]:
    modules = list(modules)
    names = {m[0] for m in modules}
    imports: dict[str, list[str]] = {}
    external: dict[str, set[str]] = {}
    for module, _path, _lines, _doc, module_imports, _main in modules:
        inner: set[str] = set()
        for imp in module_imports:
            # ``import email.charset`` binds ``email`` and imports the submodule too
            targets = {imp.module} if imp.local == "*" else {imp.target, max(imp.module, imp.target, key=len)}
            for target in targets:
                # as written, or (a module in a namespace folder) where its dotted path leads
                owner = owning_module(target, names) or owning_module(canonical(target), names)
                if owner is None:
                    external.setdefault(target.split(".")[0], set()).add(module)
                elif owner != module:
                    inner.add(owner)
        if inner:
            imports[module] = sorted(inner)
    entry_points: dict[str, str] = {}
    for module, path, _lines, _doc, _imports, has_main in modules:
        if has_main or path.endswith("/__main__.py") or path == "__main__.py":
            entry_points[module] = "__main__"
    for command, target in project.scripts:
        entry_points[command] = target
    value: dict[str, Any] = {
        "project": project.name,
        "manifest": project.manifest,
        "modules": table(["module", "path", "lines", "doc"],
                         [[module, path, lines, first_sentence(doc)] for module, path, lines, doc, _i, _m in modules]),
        "imports": imports,
        "external": {k: sorted(v) for k, v in sorted(external.items())},
        "entry_points": dict(sorted(entry_points.items())),
    }
    if project.dependencies:
        value["dependencies"] = list(project.dependencies)
    return value
