"""One producer per profile: ``produce(workspace, root) -> (normalized root,
JSON value)``, each a pure function of the files it reads.

Each profile module builds the view's long form (fully qualified names, edges
apart, flat rows); ``shapes`` rewrites it into the shape a reader is sent, and
``expand`` gives the long form back exactly. ``LONG_PRODUCERS`` keeps the long
forms callable, so the cost of the old shapes stays measurable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from analysis.sources import Workspace
from views import diagnostics, graph, project_graph, references, symbols, task_context
from views.shapes import COMPACT

Producer = Callable[[Workspace, str], "tuple[str, Any]"]

LONG_PRODUCERS: dict[str, Producer] = {
    "graph": graph.produce,
    "task-context": task_context.produce,
    "project-graph": project_graph.produce,
    "symbols": symbols.produce,
    "references": references.produce,
    "diagnostics": diagnostics.produce,
}


def _shaped(profile: str, long: Producer) -> Producer:
    compact = COMPACT.get(profile)
    if compact is None:
        return long

    def produce(ws: Workspace, root: str) -> tuple[str, Any]:
        normalized, value = long(ws, root)
        return normalized, compact(value)

    produce.__doc__ = f"The {profile} view in its compact shape (views/shapes.py)."
    return produce


PRODUCERS: dict[str, Producer] = {profile: _shaped(profile, long) for profile, long in LONG_PRODUCERS.items()}
