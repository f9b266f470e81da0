"""The long form of a view, back from its compact shape: fully qualified names,
graph edges apart from the definitions, references and diagnostics as flat
rows, counts spelled out. ``expand(profile, view)`` is the exact inverse of
``shapes.COMPACT[profile]``: its canonical JSON is byte for byte what the
producers wrote before the shapes changed, so a tool that wants the long form
(or a measurement of the old cost) gets it without asking the workspace again.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from views.shapes import (
    BUILTIN_NAMES,
    BUILTINS,
    LONG_GRAPH_COLUMNS,
    ROW_DEFAULTS,
    ROW_EDGE_KINDS,
    from_import,
    path_module,
    row_fields,
    unpack_graph,
)


def absolute_name(name: str, module: str) -> str:
    """Undo ``shapes.relative_name``."""
    if name == ".":
        return module
    if name.startswith("."):
        return module + name
    return name


def _padded(row: list[Any], defaults: list[Any]) -> list[Any]:
    return list(row) + [list(d) if isinstance(d, list) else d for d in defaults[len(row) :]]


def graph(value: dict[str, Any]) -> dict[str, Any]:
    value = unpack_graph(value)
    module = value["module"]
    taken = set(value.get("not_builtins", ()))
    imports = {} if value.get("imports_whole") else value.get("imports", {})

    def long(target: str) -> str:
        if target.startswith("."):
            return absolute_name(target, module)
        name = from_import(target, imports)
        if name != target:
            return name
        head = target.split(".", 1)[0]
        if head in BUILTIN_NAMES and head not in taken:
            return BUILTINS + target
        return target

    def kinds_of(kinds: dict[str, list[str]]) -> dict[str, list[str]]:
        return {k: [long(t) for t in ts] for k, ts in kinds.items()}

    rows, edges = [], {}
    if "module_edges" in value:
        edges[module] = kinds_of(value["module_edges"])
    cls = None
    for row in value["definitions"]["rows"]:
        name, kind, lines, signature, *rest = row_fields(row, ROW_DEFAULTS)
        if name.startswith(".") and cls is not None:  # a member of the class row above
            name = cls + name
        if kind == "class":
            cls = name
        qualname = f"{module}.{name}"
        rows.append([qualname, kind, lines if isinstance(lines, list) else [lines, lines], signature, rest[3]])
        own = {k: ts for k, ts in zip(ROW_EDGE_KINDS, rest[:3]) if ts}
        if own:
            edges[qualname] = kinds_of(own)
    # Edges of sources without a row came last, in name order (common.grouped_edges).
    edges.update((absolute_name(s, module), kinds_of(k)) for s, k in sorted(value.get("edges", {}).items()))
    out = {k: v for k, v in value.items()
           if k not in ("definitions", "module_edges", "edges", "not_builtins", "imports_whole", "errors")}
    out["definitions"] = {"columns": LONG_GRAPH_COLUMNS, "rows": rows}
    out["edges"] = edges
    if "errors" in value:
        out["errors"] = value["errors"]
    return out


def symbols(value: dict[str, Any]) -> dict[str, Any]:
    modules = []
    for m in value["modules"]:
        module = m.get("module", path_module(m["path"]))
        rows = [[f"{module}.{r[0]}", *_padded(r, [None, None, None, ""])[1:]] for r in m["symbols"]]
        modules.append({"module": module, "path": m["path"], "symbols": rows})
    return {**value, "modules": modules}


def references(value: dict[str, Any]) -> dict[str, Any]:
    files = {}
    for path, kinds in value["files"].items():
        module = path_module(path)
        rows = [[line, kind, absolute_name(source, module)]
                for kind, sources in kinds.items() for source, lines in sources.items() for line in lines]
        files[path] = sorted(rows, key=lambda r: (r[0], r[1], r[2]))
    out = {k: v for k, v in value.items() if k != "files"}
    out["count"] = sum(len(rows) for rows in files.values())
    out["columns"] = ["line", "kind", "in"]
    out["files"] = files
    return out


def diagnostics(value: dict[str, Any]) -> dict[str, Any]:
    rows: list[list[Any]] = []
    for path, kinds in value["files"].items():
        found = [[line, column, kind, message] for kind, items in kinds.items() for line, column, message in items]
        rows.extend([path, *r] for r in sorted(found))
    counts = Counter(r[3] for r in rows)
    return {"root": value["root"], "counts": dict(sorted(counts.items())),
            "columns": ["path", "line", "column", "kind", "message"], "rows": rows}


def project_graph(value: dict[str, Any]) -> dict[str, Any]:
    names = value.get("module_names", {})
    rows = []
    for row in value["modules"]["rows"]:
        path, lines, doc = _padded(row, [None, None, ""])
        rows.append([names.get(path, path_module(path)), path, lines, doc])
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "modules":
            out["modules"] = {"columns": ["module", "path", "lines", "doc"], "rows": rows}
        elif key != "module_names":
            out[key] = item
    return out


EXPAND = {
    "graph": graph,
    "symbols": symbols,
    "references": references,
    "diagnostics": diagnostics,
    "project-graph": project_graph,
}


def expand(profile: str, value: Any) -> Any:
    """The long form of a view of ``profile`` (task-context has only one form)."""
    inverse = EXPAND.get(profile)
    return value if inverse is None else inverse(value)
