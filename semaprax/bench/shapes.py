"""Token cost of candidate shapes for the graph view, on the examples and the
standard library, to justify the shape docs/profiles.md documents.

Every candidate holds the same facts; only the arrangement differs:

- flat: definitions as one object per definition, edges as one
  {"from", "to", "kind"} object per edge (the obvious first shape);
- rows: definitions as columns and rows, edges still flat objects;
- grouped: definitions as rows, edges grouped under their source and kind
  (the graph profile's long form, written until the compact shape replaced it);
- relative: grouped, with names relative to the module and built-ins short
  (the first half of the compact shape, measured apart);
- compact: edges as columns of their source's row, names relative to the
  module, built-ins short (the shape the graph profile writes,
  views/shapes.py).

    semaprax bench shapes      # prints the table docs/profiles.md holds (tests/semaprax/test_profiles_doc.py)
"""

from __future__ import annotations

import argparse
import sys
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

import codec
from analysis.sources import Workspace
from views import tokens
from views.common import analysed_file, grouped_edges
from views.graph import produce
from views.shapes import graph as compact
from views.shapes import local_name, not_builtins, short_target

CASES = [
    (ROOT / "examples", "banking_ledger.py"),
    (ROOT / "examples", "http_app_routing.py"),
    (Path(typing.__file__).parent, "typing.py"),
]


def relative(grouped: dict[str, Any]) -> dict[str, Any]:
    """The grouped shape with the compact shape's names: every fact kept."""
    module, edges = grouped["module"], grouped["edges"]
    taken = set(not_builtins(t for kinds in edges.values() for ts in kinds.values() for t in ts))
    rows = [[local_name(r[0], module), *r[1:]] for r in grouped["definitions"]["rows"]]
    short = {short_target(source, module, set()): {k: [short_target(t, module, taken) for t in ts]
                                                   for k, ts in kinds.items()}
             for source, kinds in edges.items()}
    return {**grouped, "definitions": {**grouped["definitions"], "rows": rows}, "edges": short,
            **({"not_builtins": sorted(taken)} if taken else {})}


def candidates(folder: Path, root: str) -> dict[str, object]:
    ws = Workspace(folder)
    _, grouped = produce(ws, root)
    a = analysed_file(ws, root)  # as the graph view read it
    defs = [d for d in a.definitions if d.kind != "module"]
    flat_defs = [
        {"name": d.qualname, "kind": d.kind, "lines": [d.start, d.end], "signature": d.signature, "doc": d.doc_line}
        for d in defs
    ]
    edges = grouped_edges(a.uses, [a.module] + [d.qualname for d in defs])
    flat_edges = [
        {"from": source, "to": target, "kind": kind}
        for source, kinds in edges.items() for kind, targets in kinds.items() for target in targets
    ]
    base = {k: v for k, v in grouped.items() if k not in ("definitions", "edges")}
    return {
        "flat": {**base, "definitions": flat_defs, "edges": flat_edges},
        "rows": {**base, "definitions": grouped["definitions"], "edges": flat_edges},
        "grouped": grouped,
        "relative": relative(grouped),
        "compact": compact(grouped),
    }


#: How docs/profiles.md names each candidate in its table.
LABELS = {
    "flat": "flat objects",
    "rows": "rows, flat edges",
    "grouped": "rows, grouped edges (the old shape)",
    "relative": "grouped, relative names",
    "compact": "edges in rows, relative names (used)",
}
HEADER = ["graph of", "shape", "bytes", "cl100k", "o200k", "cl100k vs flat"]


def case_label(folder: Path, root: str) -> str:
    if folder == ROOT / "examples":
        return root
    return f"{root} (stdlib {sys.version_info.major}.{sys.version_info.minor})"


def table(cases: list[tuple[Path, str]] = CASES) -> list[list[str]]:
    """The rows of docs/profiles.md's table of shapes, as it spells them."""
    out = []
    for folder, root in cases:
        print(f"… {root}", file=sys.stderr, flush=True)
        base = None
        for name, value in candidates(folder, root).items():
            data = codec.canonical_json(value)
            counts = tokens.count_tokens(data)
            base = base or counts["cl100k_base"]
            change = (counts["cl100k_base"] - base) * 100 / base
            out.append([case_label(folder, root), LABELS[name], f"{len(data):,}", f"{counts['cl100k_base']:,}",
                        f"{counts['o200k_base']:,}", f"{change:+.1f}%"])
    return out


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    rows = table()
    print("| " + " | ".join(HEADER) + " |")
    print("|---|---|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0

if __name__ == "__main__":
    sys.exit(main())
