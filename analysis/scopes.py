"""Which names each scope of a module binds, read from the module's ``ast``
(one parse per file), so the analysis needs no second parse by ``symtable``.

What resolution asks of a scope is narrow (analysis/resolver.py): of a
function, lambda or comprehension, whether a name is local to it (bound there:
a parameter, an assignment, a ``for``, ``with`` or ``except`` target, an
import, a nested ``def`` or ``class``, a ``del``, a ``match`` capture, and not
declared ``global`` or ``nonlocal``); of a module or class body, which names it
assigns or imports. Names are mangled as the compiler mangles them (``__x`` in
class ``C`` is ``_C__x``).

``symtable`` remains for the files where Python's own scope checks could reject
what ``ast`` accepts, so those keep their syntax error: ``global`` and
``nonlocal`` statements, assignment expressions, ``import *`` inside a
function, a parameter named twice, ``__future__`` imports that are misplaced or
unknown, ``yield`` on a line with ``for`` (inside a comprehension, perhaps),
and statements nested very deep. ``facts`` answers None for those.
"""

from __future__ import annotations
import __future__

import ast
import re

ASSIGNED, IMPORTED, PARAM = 1, 2, 4

_FUTURES = frozenset(__future__.all_feature_names)
_YIELD_AND_FOR = re.compile(rb"^[^\n#]*(?:\byield\b[^\n#]*\bfor\b|\bfor\b[^\n#]*\byield\b)", re.MULTILINE)
#: Statements nested deeper than this go to symtable (whose recursion limit
#: the old analysis met first, as a syntax error).
MAX_DEPTH = 200


class Risky(Exception):
    """A construct only symtable judges (see the module docstring)."""


class ScopeFacts:
    """The names one scope binds: ``flags`` by mangled name; ``kids`` the
    facts of the ``def`` and ``class`` statements directly in it, by node."""

    __slots__ = ("flags", "kids", "kind")

    def __init__(self, kind: str) -> None:
        self.kind = kind  # module | class | function
        self.flags: dict[str, int] = {}
        self.kids: dict[int, ScopeFacts] = {}

    def child(self, node: ast.AST) -> ScopeFacts | None:
        return self.kids.get(id(node))

    def bound(self, name: str) -> bool:
        """Whether ``name`` (mangled) is local to this function."""
        return name in self.flags

    def assigned(self) -> list[str]:
        """The names (mangled) this module or class body assigns or imports."""
        return list(self.flags)


def mangle(private: str | None, name: str) -> str:
    if private and name.startswith("__") and not name.endswith("__") and "." not in name:
        stripped = private.lstrip("_")
        if stripped:
            return f"_{stripped}{name}"
    return name


def facts(tree: ast.Module, source: bytes) -> ScopeFacts | None:
    """The module's facts, its functions' and classes' below; None when the
    file holds a construct only symtable judges."""
    if b":=" in source or (b"yield" in source and _YIELD_AND_FOR.search(source)):
        return None
    try:
        _future_imports(tree)
        top = ScopeFacts("module")
        work: list[tuple[ScopeFacts, list[ast.stmt], str | None, int]] = [(top, tree.body, None, 0)]
        while work:
            scope, body, private, depth = work.pop()
            _scan(scope, body, private, depth, work)
    except Risky:
        return None
    return top


def lambda_facts(node: ast.Lambda, private: str | None) -> ScopeFacts:
    scope = ScopeFacts("function")
    _params(scope, node.args, private)
    return scope


def comprehension_facts(node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
                        private: str | None) -> ScopeFacts:
    scope = ScopeFacts("function")
    for generator in node.generators:
        _targets(scope, generator.target, private)
    return scope


def _future_imports(tree: ast.Module) -> None:
    """A ``__future__`` import after other statements, or of an unknown
    feature, is a syntax error only the compiler's future check finds."""
    leading = True
    for k, stmt in enumerate(tree.body):
        if k == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" and not stmt.level:
            if not leading or any(a.name not in _FUTURES for a in stmt.names):
                raise Risky
            continue
        leading = False


def _bind(scope: ScopeFacts, name: str, flag: int, private: str | None) -> None:
    key = mangle(private, name)
    scope.flags[key] = scope.flags.get(key, 0) | flag


def _targets(scope: ScopeFacts, target: ast.expr, private: str | None) -> None:
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            _bind(scope, node.id, ASSIGNED, private)
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(node.elts)
        elif isinstance(node, ast.Starred):
            stack.append(node.value)


def _params(scope: ScopeFacts, args: ast.arguments, private: str | None) -> None:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg is not None:
        every.append(args.vararg)
    if args.kwarg is not None:
        every.append(args.kwarg)
    seen: set[str] = set()
    for a in every:
        if a.arg in seen:
            raise Risky  # duplicate argument: symtable's error
        seen.add(a.arg)
        _bind(scope, a.arg, PARAM, private)


def _patterns(scope: ScopeFacts, pattern: ast.pattern, private: str | None) -> None:
    for node in ast.walk(pattern):
        name = None
        if isinstance(node, (ast.MatchAs, ast.MatchStar)):
            name = node.name
        elif isinstance(node, ast.MatchMapping):
            name = node.rest
        if name is not None:
            _bind(scope, name, ASSIGNED, private)


def _scan(scope: ScopeFacts, body: list[ast.stmt], private: str | None, depth: int,
          work: list[tuple[ScopeFacts, list[ast.stmt], str | None, int]]) -> None:
    """The statements of one scope (nested compound statements included,
    nested functions and classes queued as scopes of their own)."""
    stack: list[tuple[ast.stmt, int]] = [(stmt, depth) for stmt in reversed(body)]
    while stack:
        stmt, level = stack.pop()
        if level > MAX_DEPTH:
            raise Risky
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _bind(scope, stmt.name, ASSIGNED, private)
            inner = ScopeFacts("function")
            _params(inner, stmt.args, private)
            scope.kids[id(stmt)] = inner
            work.append((inner, stmt.body, private, level + 1))
            continue
        if isinstance(stmt, ast.ClassDef):
            _bind(scope, stmt.name, ASSIGNED, private)
            inner = ScopeFacts("class")
            scope.kids[id(stmt)] = inner
            work.append((inner, stmt.body, stmt.name, level + 1))
            continue
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                _bind(scope, alias.asname or alias.name.split(".")[0], IMPORTED, private)
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.module == "__future__" and not stmt.level and (scope.kind != "module" or level > 0):
                raise Risky  # not at the beginning of the file
            for alias in stmt.names:
                if alias.name == "*":
                    if scope.kind != "module":
                        raise Risky
                    continue
                _bind(scope, alias.asname or alias.name, IMPORTED, private)
        elif isinstance(stmt, (ast.Global, ast.Nonlocal)):
            raise Risky
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                _targets(scope, target, private)
        elif isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.target, ast.Name):
                _bind(scope, stmt.target.id, ASSIGNED, private)
        elif isinstance(stmt, ast.AnnAssign):
            if isinstance(stmt.target, ast.Name) and (stmt.simple or stmt.value is not None):
                _bind(scope, stmt.target.id, ASSIGNED, private)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            _targets(scope, stmt.target, private)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    _targets(scope, item.optional_vars, private)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                _targets(scope, target, private)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                _patterns(scope, case.pattern, private)
                stack.extend((s, level + 1) for s in reversed(case.body))
            continue
        nested: list[ast.stmt] = []
        for field in ("body", "orelse", "finalbody"):
            part = getattr(stmt, field, None)
            if part:
                nested.extend(part)
        for handler in getattr(stmt, "handlers", None) or ():
            if handler.name:
                _bind(scope, handler.name, ASSIGNED, private)
            nested.extend(handler.body)
        if nested:
            stack.extend((s, level + 1) for s in reversed(nested))
