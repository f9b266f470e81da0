"""One producer per profile: ``produce(workspace, root) -> (normalized root,
JSON value)``, each a pure function of the files it reads."""

from . import diagnostics, graph, project_graph, references, symbols, task_context

PRODUCERS = {
    "graph": graph.produce,
    "task-context": task_context.produce,
    "project-graph": project_graph.produce,
    "symbols": symbols.produce,
    "references": references.produce,
    "diagnostics": diagnostics.produce,
}
