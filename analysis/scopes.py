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


#: Statements that bind no name (``:=`` files go to symtable) and hold no statements.
_LEAVES = frozenset({ast.Expr, ast.Return, ast.Pass, ast.Raise, ast.Break, ast.Continue, ast.Assert})


class Risky(Exception):
    """A construct only symtable judges (see the module docstring)."""


class ScopeFacts:
    """The names one scope binds: ``flags`` by mangled name; ``kids`` the
    facts of the ``def`` and ``class`` statements directly in it, by node."""

    __slots__ = ("declared", "flags", "kids", "kind", "parent")

    def __init__(self, kind: str, parent: ScopeFacts | None = None) -> None:
        self.kind = kind  # module | class | function
        self.flags: dict[str, int] = {}
        self.kids: dict[int, ScopeFacts] = {}
        self.parent = parent
        #: names (mangled) a ``global`` or ``nonlocal`` statement declares here -> which
        self.declared: dict[str, type[ast.Global | ast.Nonlocal]] = {}

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
    declarations: list[ast.Global | ast.Nonlocal] = []
    while stack:
        stmt, level = stack.pop()
        if level > MAX_DEPTH:
            raise Risky
        kind = type(stmt)
        if kind in _LEAVES:  # the commonest statements first: they bind nothing and hold none
            continue
        if kind is ast.Assign:
            for target in stmt.targets:  # type: ignore[attr-defined]
                _targets(scope, target, private)
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _bind(scope, stmt.name, ASSIGNED, private)
            inner = ScopeFacts("function", scope)
            _params(inner, stmt.args, private)
            scope.kids[id(stmt)] = inner
            work.append((inner, stmt.body, private, level + 1))
            continue
        if isinstance(stmt, ast.ClassDef):
            _bind(scope, stmt.name, ASSIGNED, private)
            inner = ScopeFacts("class", scope)
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
            if level > depth:  # inside a compound statement (a ``try``'s handler, say: symtable's order differs)
                raise Risky
            declarations.append(stmt)
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
    if declarations:
        _declare(scope, body, declarations, private)


def _declare(scope: ScopeFacts, body: list[ast.stmt], declarations: list[ast.Global | ast.Nonlocal],
             private: str | None) -> None:
    """``global`` and ``nonlocal`` statements at the top of a scope's body: a
    declared name is not a function's local. The statement is judged here only
    where symtable surely accepts it: no use, binding or annotation of the name
    before it, no annotation after, not a parameter, not both, and for
    ``nonlocal``, in a function whose enclosing functions bind the name (and
    none declares it global on the way). Anything else is ``Risky``."""
    names: dict[str, ast.Global | ast.Nonlocal] = {}  # name -> its first declaration
    for stmt in declarations:
        for name in stmt.names:
            if name in names or name == "__class__":  # declared twice (or both): symtable judges
                raise Risky
            names[name] = stmt
            if type(stmt) is ast.Nonlocal and scope.kind != "function":
                raise Risky
            if scope.flags.get(mangle(private, name), 0) & PARAM:
                raise Risky
    last = max((d.lineno, d.col_offset) for d in declarations)
    for top in body:
        if (top.lineno, top.col_offset) > last and not _annotates(top, names):
            continue
        for node in ast.walk(top):
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                continue
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in names:
                raise Risky
            for name in _identifiers(node):
                declared = names.get(name)
                if declared is not None and (node.lineno, node.col_offset) < (declared.lineno, declared.col_offset):  # type: ignore[attr-defined]
                    raise Risky
    for name, stmt in names.items():
        key = mangle(private, name)
        if type(stmt) is ast.Nonlocal:
            _bound_above(scope, key)
        scope.declared[key] = type(stmt)
        if scope.kind == "function":
            scope.flags.pop(key, None)


def _annotates(stmt: ast.stmt, names: dict[str, ast.Global | ast.Nonlocal]) -> bool:
    return any(isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id in names
               for n in ast.walk(stmt))


def _identifiers(node: ast.AST) -> tuple[str, ...]:
    """The names a node uses or binds in its scope's symbol table."""
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, ast.alias):
        return (node.name.split(".")[0], node.asname) if node.asname else (node.name.split(".")[0],)
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return (node.name,) if node.name else ()
    if isinstance(node, ast.MatchMapping):
        return (node.rest,) if node.rest else ()
    return ()


def _bound_above(scope: ScopeFacts, key: str) -> None:
    """``nonlocal`` needs an enclosing function that binds the name, with no
    ``global`` of it on the way (symtable's rule); else ``Risky``."""
    above = scope.parent
    while above is not None and above.kind != "module":
        if above.kind == "function":
            declared = above.declared.get(key)
            if declared is ast.Global:
                raise Risky
            if declared is None and key in above.flags:
                return
        above = above.parent
    raise Risky
