"""One parse per file (issue 22): the names each scope binds, read from the
ast (analysis/scopes.py), are the ones symtable says, on tricky snippets and
on this repository's own sources; the files whose syntax error only symtable
finds still go to symtable."""

from __future__ import annotations

import ast
import symtable
from pathlib import Path

import pytest

from analysis import scopes
from analysis.resolver import analyse_module

ROOT = Path(__file__).resolve().parents[2]

SNIPPETS = [
    "import os, a.b.c as d\nfrom x import (y as z, w)\nfrom .. import up\n",
    ("def f(a, /, b, *c, d, **e):\n    g = 1\n    h, (i, *j) = k\n    for l in m: pass\n"
    "    with n as (o, p), q as r: pass\n    try: pass\n    except E as s: pass\n    del t\n    u += 1\n"
    "    v: int\n    w: int = 2\n    (x): int\n    (y): int = 3\n    import aa\n    from bb import cc as dd\n"
    "    def ee(): pass\n    class ff: pass\n    return [gg for gg in hh], (lambda ii: ii)\n"),
    ("class C:\n    __x = 1\n    def __m(self, __p):\n        __q = 2\n        return __x\n"
    "    class __D:\n        __y = 3\n        def m(self, __z): __w = 1\n"),
    "class __:\n    __x = 1\n    def f(self, __y): pass\n",
    ("def f():\n    match v:\n        case [a, *b] if a: pass\n        case {'k': c, **d}: pass\n"
    "        case P(x=e) | Q(f): pass\n        case g: pass\n        case _: pass\n"),
    "if x:\n    def f(): pass\nelse:\n    def f(y): y = 1\nwhile z:\n    class K:\n        a = 1\n",
    ("async def f():\n    async for a in b: pass\n    async with c as d: pass\n    try: pass\n"
    "    except* E as e: pass\n"),
    "def outer():\n    def inner():\n        return n\n    n = 1\n    return inner\n",
    "@dec(x)\ndef f(a=b, *, c=d) -> e: pass\n@dec\nclass K(Base, metaclass=M): pass\n",
    # global and nonlocal where symtable surely accepts them: judged from the ast too
    "def f():\n    global g\n    g = 1\n    def g(): pass\n",
    "def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = 2\n",
    "g = 0\nglobal g2\nclass C:\n    global g\n    g = 1\n    def m(self):\n        global g, h\n        return g\n",
    ("def f():\n    x = 1\n    class C:\n        def g(self):\n            nonlocal x\n            def h():\n"
     "                nonlocal x\n                x = 3\n"),
]

RISKY = [
    "def f():\n    g = 1\n    global g\n",
    "def f():\n    print(g)\n    global g\n",
    "def f(g):\n    global g\n",
    "def f():\n    global g\n    g: int = 1\n",
    "def f():\n    global g\n    global g\n",
    "def f():\n    global g\n    nonlocal g\n",
    "def f():\n    try: pass\n    except E:\n        global g\n    else:\n        g = 1\n",
    "nonlocal x\n",
    "class C:\n    nonlocal x\n",
    "def f():\n    nonlocal x\n",
    "def f():\n    x = 1\n    def g():\n        global x\n        def h():\n            nonlocal x\n",
    "x = 1\nglobal x\n",
    "def f():\n    if (n := 1): pass\n",
    "def f():\n    from os import *\n",
    "def f(a, a): pass\n",
    "import os\nfrom __future__ import annotations\n",
    "from __future__ import rested_snopes\n",
    "def f():\n    return [(yield x) for x in y]\n",
]


def _symtable_facts(table: symtable.SymbolTable, node: ast.AST, out: list) -> None:
    """(kind, qualname, bound names) of every def and class scope, as symtable says."""
    if table.get_type() == "function":
        names = {s.get_name() for s in table.get_symbols() if s.is_local() or s.is_parameter()}
    else:
        names = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    out.append((getattr(node, "name", "<module>"), node.lineno if hasattr(node, "lineno") else 0, names))
    kids = {(c.get_name(), c.get_lineno()): c for c in table.get_children()}
    for child in _direct_defs(node):
        _symtable_facts(kids[(child.name, child.lineno)], child, out)


def _direct_defs(scope: ast.AST) -> list:
    """The defs and classes directly in ``scope`` (not inside a nested def, class or lambda)."""
    found = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(n)
        elif not isinstance(n, ast.Lambda):
            stack.extend(ast.iter_child_nodes(n))
    return found


def _our_facts(facts: scopes.ScopeFacts, node: ast.AST, out: list) -> None:
    out.append((getattr(node, "name", "<module>"), node.lineno if hasattr(node, "lineno") else 0,
                set(facts.flags)))
    for child in _direct_defs(node):
        found = facts.child(child)
        assert found is not None
        _our_facts(found, child, out)


def _compare(source: str) -> None:
    code = source.encode()
    tree = ast.parse(code)
    facts = scopes.facts(tree, code)
    assert facts is not None, source
    ours: list = []
    theirs: list = []
    _our_facts(facts, tree, ours)
    _symtable_facts(symtable.symtable(source, "m.py", "exec"), tree, theirs)
    assert sorted(ours, key=repr) == sorted(theirs, key=repr)


@pytest.mark.parametrize("source", SNIPPETS)
def test_each_scope_binds_what_symtable_says(source):
    _compare(source)


def test_this_repositorys_sources_bind_what_symtable_says():
    checked = 0
    for path in sorted(p for d in ("analysis", "views", "servers") for p in (ROOT / d).glob("*.py")):
        code = path.read_bytes()
        tree = ast.parse(code)
        if scopes.facts(tree, code) is None:
            continue
        _compare(code.decode())
        checked += 1
    assert checked > 25


def test_lambdas_and_comprehensions_bind_their_parameters_and_targets():
    lam = ast.parse("lambda a, *b, c=1, **d: a").body[0].value  # type: ignore[attr-defined]
    assert set(scopes.lambda_facts(lam, None).flags) == {"a", "b", "c", "d"}
    comp = ast.parse("[x for (x, *y) in z for w in x if v]").body[0].value  # type: ignore[attr-defined]
    assert set(scopes.comprehension_facts(comp, "C").flags) == {"x", "y", "w"}


@pytest.mark.parametrize("source", RISKY)
def test_a_file_only_symtable_can_judge_goes_to_symtable(source):
    code = source.encode()
    assert scopes.facts(ast.parse(code), code) is None
    try:
        symtable.symtable(source, "m.py", "exec")
        rejected = False
    except SyntaxError:
        rejected = True
    problems = [p.kind for p in analyse_module(code, "m.py", "m").problems]
    assert ("syntax-error" in problems) == rejected
