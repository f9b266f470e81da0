"""``graph``: one module's semantic graph. Reads: the root .py file only, so the
view is a function of that file (classes of other modules are not consulted)."""

from __future__ import annotations

from typing import Any

from analysis.sources import Workspace
from views.common import analysed_file, definition_row, first_sentence, grouped_edges, python_file, table


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    rel = python_file(ws, root)
    a = analysed_file(ws, rel)
    defs = [d for d in a.definitions if d.kind != "module"]
    module_doc = first_sentence(a.definitions[0].doc) if a.definitions else ""
    value: dict[str, Any] = {"module": a.module, "path": rel, "lines": a.lines}
    if module_doc:
        value["doc"] = module_doc
    value["imports"] = {i.local: i.target for i in a.imports if i.scope == a.module}
    value["definitions"] = table(["name", "kind", "lines", "signature", "doc"], map(definition_row, defs))
    value["edges"] = grouped_edges(a.uses, [a.module] + [d.qualname for d in defs])
    error = a.unread
    if error is not None:
        value["errors"] = [[error.line, error.column, error.message]]
    return rel, value
