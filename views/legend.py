"""How to read a view, in as few words as a tool description can afford.

``LEGENDS[profile]`` names every key of that profile's document and every
convention it uses; ``COMMON`` the conventions all views share, ``PARTIAL`` the
fitted view's marker and ``FORMS`` the wire notations (``@N``, ``~k``). The
long explanation is docs/profiles.md ("Reading a view"); these strings are its
summary, short enough for the MCP tool description (its whole text stays under
2 KB): ``legend()`` is all of them, ``legend(profile)`` one profile's.
tests/views/test_legend.py checks that every key a document uses is named here.
"""

from __future__ import annotations

COMMON = (
    "{columns, rows} is a table: rows in column order, trailing empties left out. "
    "lines: [first, last] or one number. .x: in this module (.: the module); ?expr: unresolved, as written; "
    "built-ins bare; imported targets by local name."
)

PARTIAL = "partial (first if present): fitted to max_tokens; shed, omitted counts, narrower roots with token costs."

FORMS = "@N: line N (from 0) after dict. ~k: the k-th distinct string (from 0)."

LEGENDS: dict[str, str] = {
    "graph": (
        "graph: module (unless path gives it); imports {local: target}; definitions: names as in Python "
        "(class X(bases), f(params) w/o self (def .f(cls): as written), x: T), .x continues the class above, ^x: its "
        "class's x, [6,7],\"A B\": A at 6, B at 7, doc after edge lists; module_edges; not_builtins: stay "
        "builtins.X; imports_whole: no import spelling; edges {source: {kind: targets}}; errors."
    ),
    "task-context": (
        "task-context: source; class {members}; self {reads, writes}; callees, constructs, types {name: "
        "signature}; unresolved; callers, tests, overrides tables; imports."
    ),
    "project-graph": (
        "project-graph: modules (path gives module, else module_names); imports {module: [modules]}; "
        "external {top: [importers]}; entry_points."
    ),
    "symbols": "symbols: modules [{path, module, symbols rows}].",
    "references": "references: defined [path, line]; files {path: {kind: {in (the enclosing definition): [lines]}}}.",
    "diagnostics": "diagnostics: files {path: {kind: rows}}.",
}


#: Keys whose name says what they hold; every other key a document uses is named above.
SELF_EVIDENT = frozenset({
    "module", "path", "lines", "doc", "symbol", "kind", "signature", "overloads", "decorators", "root",
    "project", "manifest", "dependencies", "name", "columns", "rows", "max_tokens", "counted", "reads", "writes",
})


def legend(profile: str | None = None) -> str:
    """One profile's legend with the shared conventions, or all of them."""
    parts = [COMMON, PARTIAL, FORMS]
    parts += [LEGENDS[profile]] if profile is not None else list(LEGENDS.values())
    return " ".join(parts)
