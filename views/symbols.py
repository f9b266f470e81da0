"""``symbols``: a flat index of every definition. Reads: the root .py file, or
every .py file below the root package folder."""

from __future__ import annotations

from typing import Any

from analysis.sources import Workspace, WorkspaceError
from views.common import analysed_file, python_file


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    rel = ws.relative(root)
    if ws.is_dir(rel):
        files = ws.python_files(rel)
        if not files:
            why = dict(ws.skipped).get(rel)  # a folder the listing could not read says so
            linked = f"skipped {rel}: "  # a symlinked folder, which the listing does not follow
            note = next((n for n in ws.notes if n.startswith(linked)), None)
            if why is None and note is not None:
                why = "is " + note[len(linked):]
            raise WorkspaceError(f"folder {root!r} {'holds no .py files' if why is None else why.replace('the folder ', '')}")
    else:
        rel = python_file(ws, root)
        files = [rel]
    modules = []
    for path in files:
        a = analysed_file(ws, path)
        rows = [[d.qualname, d.kind, d.start, d.signature] for d in a.definitions if d.kind != "module"]
        modules.append({"module": a.module, "path": path, "symbols": rows})
    rel = rel or "."  # the workspace folder itself
    return rel, {"root": rel, "columns": ["name", "kind", "line", "signature"], "modules": modules}
