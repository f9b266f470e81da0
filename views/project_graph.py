"""``project-graph``: a project's modules, the imports between them, what it
needs from outside, and where it starts. Reads: the manifest and every source
file it names."""

from __future__ import annotations

from typing import Any

from analysis.index import index_of
from analysis.sources import Workspace
from views.common import first_sentence, manifest_root, table


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
    index = index_of(ws, list(project.sources))
    names = {a.module for a in index.modules}
    imports: dict[str, list[str]] = {}
    external: dict[str, set[str]] = {}
    for a in index.modules:
        inner: set[str] = set()
        for imp in a.imports:
            # ``import email.charset`` binds ``email`` and imports the submodule too
            targets = {imp.module} if imp.local == "*" else {imp.target, max(imp.module, imp.target, key=len)}
            for target in targets:
                # as written, or (a module in a namespace folder) where its dotted path leads
                owner = owning_module(target, names) or owning_module(index.canonical(target), names)
                if owner is None:
                    external.setdefault(target.split(".")[0], set()).add(a.module)
                elif owner != a.module:
                    inner.add(owner)
        if inner:
            imports[a.module] = sorted(inner)
    entry_points: dict[str, str] = {}
    for a in index.modules:
        if a.has_main or a.path.endswith("/__main__.py") or a.path == "__main__.py":
            entry_points[a.module] = "__main__"
    for command, target in project.scripts:
        entry_points[command] = target
    value: dict[str, Any] = {
        "project": project.name,
        "manifest": project.manifest,
        "modules": table(["module", "path", "lines", "doc"],
                         [[a.module, a.path, a.lines, first_sentence(a.definitions[0].doc) if a.definitions else ""]
                          for a in index.modules]),
        "imports": imports,
        "external": {k: sorted(v) for k, v in sorted(external.items())},
        "entry_points": dict(sorted(entry_points.items())),
    }
    if project.dependencies:
        value["dependencies"] = list(project.dependencies)
    return project.manifest, value
