"""``task-context``: what an agent needs to change one symbol. Reads: the
workspace's sources (a top-level manifest's, or every .py file), because callers
can be anywhere."""

from __future__ import annotations

import ast
import builtins
import textwrap
from typing import Any

from analysis.index import WorkspaceIndex, index_of
from analysis.model import CALLS, UNRESOLVED, Definition
from analysis.sources import Workspace, decode_source, source_lines
from views.common import first_sentence, table, workspace_sources
from views.shapes import trimmed

#: The columns of ``callers`` and ``tests``: who calls, where, and how it is called itself.
CALLER_COLUMNS = ["name", "path", "line", "signature"]
#: The columns of ``overrides``: the method, how it relates to the view's method
#: (``base``: the one it overrides, the next in its class's method order that
#: defines the name; ``override``: a method of a subclass that overrides it,
#: ``implementation`` when the view's method is abstract), where, its signature.
OVERRIDE_COLUMNS = ["name", "relation", "path", "line", "signature"]


def _signature_of(index: WorkspaceIndex, qualname: str) -> str | None:
    found = index.definitions.get(qualname)
    if found is None:
        return None
    d = found.definition
    return d.signature or d.kind


def _is_class(index: WorkspaceIndex, qualname: str) -> bool:
    found = index.definitions.get(qualname)
    return found is not None and found.definition.kind == "class"


def _constructor(index: WorkspaceIndex, cls: str) -> str | None:
    """The signature a class is called with: its ``__init__``'s, found through
    its bases (left to right, depth first), without ``self``; None when the
    ``__init__`` is not in the workspace (an exception's, say)."""
    seen: set[str] = set()
    stack = [cls]
    while stack:
        current = stack.pop(0)
        if current in seen:
            continue
        seen.add(current)
        init = index.definitions.get(f"{current}.__init__")
        if init is not None:
            return init.definition.signature.replace("(self, ", "(", 1).replace("(self)", "()", 1)
        info = index.classes.get(current)
        stack = list(info.bases if info else ()) + stack
    return None


def _mro(index: WorkspaceIndex, cls: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """``cls`` and its workspace bases in Python's C3 order (depth first
    where C3 has no answer); a base outside the workspace ends its line."""
    info = index.classes.get(cls)
    if info is None or cls in seen:
        return [cls]
    bases = [index.canonical(b) for b in info.bases]
    seqs = [_mro(index, b, seen | {cls}) for b in bases] + [bases]
    order = [cls]
    while True:
        seqs = [q for q in seqs if q]
        if not seqs:
            return order
        head = next((q[0] for q in seqs if not any(q[0] in r[1:] for r in seqs)), None)
        if head is None:
            return order + [c for q in seqs for c in q if c not in order]
        order.append(head)
        seqs = [q[1:] if q[0] == head else q for q in seqs]


def _is_abstract(d: Definition, source: str) -> bool:
    """``@abstractmethod``, or a body that only raises NotImplementedError
    (or is ``...``) after its docstring; ``pass`` is a default that does nothing."""
    if any(x.rpartition(".")[2] == "abstractmethod" for x in d.decorators):
        return True
    try:
        func = ast.parse(textwrap.dedent(source)).body[0]
    except (SyntaxError, IndexError):
        return False
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = func.body[1:] if func.body and ast.get_docstring(func) is not None else func.body
    if not body:
        return False
    for stmt in body:
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if not (isinstance(exc, ast.Name) and exc.id == "NotImplementedError"):
                return False
        elif not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis):
            return False
    return True


def _overrides(index: WorkspaceIndex, d: Definition, source: str) -> list[list[Any]]:
    """The method ``d`` overrides (the next definer in its class's method
    order) and the methods of the workspace's subclasses that override it."""
    cls, _, name = d.qualname.rpartition(".")
    rows: list[list[Any]] = []

    def row(qualname: str, relation: str) -> list[Any]:
        at = index.definitions[qualname]
        return [qualname, relation, at.analysis.path, at.definition.start, at.definition.signature]

    for base in _mro(index, cls)[1:]:
        found = index.definitions.get(f"{base}.{name}")
        if found is not None and found.definition.kind == "method":
            rows.append(row(found.definition.qualname, "base"))
            break
    relation = "implementation" if _is_abstract(d, source) else "override"
    for other in sorted(index.classes):
        if other == cls:
            continue
        found = index.definitions.get(f"{other}.{name}")
        if found is not None and found.definition.kind == "method" and cls in _mro(index, other)[1:]:
            rows.append(row(found.definition.qualname, relation))
    return rows


def _is_test(path: str) -> bool:
    """pytest's default discovery: test_*.py or *_test.py, or a file under a tests/ or test/ folder."""
    *folders, name = path.split("/")
    return name.startswith("test_") or name.endswith("_test.py") or bool({"tests", "test"} & set(folders))


def _self_attributes(source: str, d: Definition) -> dict[str, list[str]]:
    """The attributes a method reads and writes on its first parameter."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return {}
    func = tree.body[0] if tree.body else None
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    params = func.args.posonlyargs + func.args.args
    if not params or "staticmethod" in d.decorators:
        return {}
    me = params[0].arg
    reads: set[str] = set()
    writes: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me:
            (reads if isinstance(node.ctx, ast.Load) else writes).add(node.attr)
    out = {}
    if reads:
        out["reads"] = sorted(reads)
    if writes:
        out["writes"] = sorted(writes)
    return out


def produce(ws: Workspace, root: str) -> tuple[str, Any]:
    index = index_of(ws, workspace_sources(ws))
    located = index.find(root)
    a, d = located.analysis, located.definition
    lines = source_lines(decode_source(ws.read(a.path)))
    inside = (d.qualname, d.qualname + ".")
    own_uses = [u for u in a.uses if u.source == d.qualname or u.source.startswith(inside[1])]

    value: dict[str, Any] = {"symbol": d.qualname, "kind": d.kind, "path": a.path, "lines": [d.start, d.end]}
    if d.signature:
        value["signature"] = d.signature
    if d.overloads:
        value["overloads"] = list(d.overloads)
    if d.decorators:
        value["decorators"] = list(d.decorators)
    # the docstring is not sent apart: it is in the source
    value["source"] = "\n".join(lines[d.start - 1 : d.end])
    parent = d.qualname.rpartition(".")[0]
    owner = index.definitions.get(parent)
    if owner is not None and owner.definition.kind == "class":
        c = owner.definition
        members = {  # each with what a caller needs: its signature, or its kind
            x.qualname.rsplit(".", 1)[1]: x.signature or x.kind for x in a.definitions
            if x.qualname.rpartition(".")[0] == c.qualname and x.qualname != d.qualname
        }
        value["class"] = {"name": c.qualname, "signature": c.signature, "doc": first_sentence(c.doc),
                          "members": dict(sorted(members.items()))}
        self_use = _self_attributes(value["source"], d)
        if self_use:
            value["self"] = self_use
        if d.kind == "method":
            overrides = _overrides(index, d, value["source"])
            if overrides:
                value["overrides"] = table(OVERRIDE_COLUMNS, [trimmed(r) for r in overrides])

    callees: dict[str, str] = {}
    unresolved: set[str] = set()
    for u in own_uses:
        if u.kind != CALLS:
            continue
        if u.target.startswith(UNRESOLVED):
            unresolved.add(u.target)
        else:
            callees[u.target] = _signature_of(index, u.target) or ""
    value["callees"] = dict(sorted(callees.items()))
    constructs = {t: ctor for t in callees if _is_class(index, t) and (ctor := _constructor(index, t)) is not None}
    if constructs:
        value["constructs"] = dict(sorted(constructs.items()))
    if unresolved:
        value["unresolved"] = sorted(unresolved)

    callers: dict[str, list[Any]] = {}
    tests: dict[str, list[Any]] = {}
    for other, u in index.uses_of(d.qualname):
        found = tests if _is_test(other.path) else callers
        if u.kind == CALLS and u.source not in found:
            found[u.source] = [other.path, u.line, _signature_of(index, u.source) or ""]
    value["callers"] = table(CALLER_COLUMNS, [trimmed([name, *row]) for name, row in sorted(callers.items())])
    if tests:
        value["tests"] = table(CALLER_COLUMNS, [trimmed([name, *row]) for name, row in sorted(tests.items())])

    types: dict[str, str] = {}
    for u in own_uses:
        if u.kind == CALLS or not u.resolved:
            continue
        known = index.definitions.get(u.target)
        if known is not None and known.definition.kind == "class":
            types[u.target] = known.definition.signature or "class"
        elif u.target.startswith("builtins.") and isinstance(getattr(builtins, u.target[9:], None), type):
            types[u.target] = "builtin"
    value["types"] = dict(sorted(types.items()))

    # The import each used target came through: the longest import target it lies in.
    module_imports = [i for i in a.imports if i.scope == a.module and i.local != "*"]
    relied: dict[str, str] = {}
    for target in sorted({u.target for u in own_uses if u.resolved}):
        matches = [i for i in module_imports if target == i.target or target.startswith(i.target + ".")]
        if matches:
            best = max(matches, key=lambda i: len(i.target))
            relied[best.local] = best.target
    value["imports"] = dict(sorted(relied.items()))
    return d.qualname, value
