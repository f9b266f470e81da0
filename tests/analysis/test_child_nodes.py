"""analysis/resolver.py's ``_child_nodes`` reads only the fields of a node
type that may hold nodes (from the ASDL signature ``ast`` documents each type
with) and gives what the generic rule gives: every ``ast.AST`` child of every
field in ``_fields`` order, without the ``Load``/``Store`` contexts; on
snippets with the fields that may hold None among nodes, and on this
repository's analysis sources."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from analysis.resolver import _ANY, _CHILD_FIELDS, _child_nodes

SNIPPETS = [
    "d = {**a, 'k': v, **b}",  # a None key among the keys
    "def f(a, *, b, c=1, d=None, **k): ...",  # a None among kw_defaults
    "def f(a: int = 1, /, *args: str, **kw) -> None: return",
    ("match p:\n    case Point(x=0, y=[1, *rest]) if ok(p): pass\n    case {'k': v, **others}: pass\n"
     "    case A() | B(c=C.D) as e: pass\n    case _: pass"),
    "try:\n    pass\nexcept* (E, F) as e:\n    raise X from e\nelse:\n    pass\nfinally:\n    del a[0], b.c",
    "global g\nnonlocal_ = [x async for x in y if x if not x]\nimport a.b as c\nfrom . import (d as e, f)",
    "async def f():\n    async with a as (b, c), d:\n        await e\n    async for x in y: yield x\n    return (yield)",
    "x = a < b <= c != d is not e not in f; y = -a + ~b ** c // d @ e; z = a and b or not c",
    "s = f'{a!r:>{w}} {b=}'; t = b'x' rb'y'; lambda *a, b=1, **c: (a, b, c)",
    "class C(B, metaclass=M):\n    x: int\n    y: 'str' = 1\n    z = w = v",
    "a[1:2, ::3] = b; c += 1; (d := e); [*f] = g",
    "with open(p) as f, lock: assert f, 'msg'\nwhile x: break\nelse: continue",
]


def _generic(node: ast.AST) -> list[ast.AST]:
    out: list[ast.AST] = []
    for name in node._fields:
        field = getattr(node, name, None)
        if isinstance(field, ast.AST):
            if not isinstance(field, ast.expr_context):
                out.append(field)
        elif isinstance(field, list):
            out.extend(item for item in field if isinstance(item, ast.AST))
    return out


def _check(tree: ast.AST) -> int:
    count = 0
    for node in ast.walk(tree):
        assert _child_nodes(node) == _generic(node), ast.dump(node)[:200]
        count += 1
    return count


@pytest.mark.parametrize("source", SNIPPETS)
def test_snippets_give_the_generic_children(source: str) -> None:
    assert _check(ast.parse(source)) > 5


def test_this_repositorys_analysis_sources() -> None:
    root = Path(__file__).resolve().parents[2] / "analysis"
    assert sum(_check(ast.parse(p.read_bytes())) for p in sorted(root.glob("*.py"))) > 10_000


def test_the_signatures_type_every_field_of_the_usual_nodes() -> None:
    """The fields are read from the ASDL signature, not guessed: every node type
    of the snippets had each of its fields typed."""
    for source in SNIPPETS:
        _check(ast.parse(source))
    assert _CHILD_FIELDS[ast.Name] == ()
    assert _CHILD_FIELDS[ast.Attribute] == (("value", 0),)
    assert all(form != _ANY for fields in _CHILD_FIELDS.values() for _, form in fields)
