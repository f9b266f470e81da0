"""What ``project-graph`` reads of one file, and nothing more: its outline.

views/project_graph.py reads of each module its lines, its doc (the first
definition's), its imports (every scope's, as the resolver records them),
whether it runs as a script (``if __name__ == "__main__"``) and, for the
names its imports reach through a namespace folder's dotted path, the aliases
its module-level imports make. The full analysis (analysis/pool.py) knows all
of it after its first two stages, ``parse`` and ``declare``, and goes on to
tell its classes and resolve every use, which the view never reads. An
outline runs the same analyser's ``parse`` (analysis/resolver.py: each rule in
one place), then of ``declare`` only what the view reads: each scope's
imports through the resolver's own ``_declare_import``, the ``__main__`` guard
and the module docstring (the whole ``declare`` where a definition on line 1
could come before the module's own), and stops.

It must say what the full analysis says, of a file that analysis does not
read too: a syntax error (``symtable``'s included) and a file too deep to
parse are unread alike, with no doc, no imports and no ``__main__``. The
other stages can fail where the outline does not look: recursion over an
expression nested hundreds deep (spelling a signature, resolving a use), or
an integer too long for ``repr`` (beyond Python's 4,300 decimal digits: only
a base-2, -8 or -16 literal can be). So the file is parsed with
``PROBE_FRAMES`` frames, which converts a tree at most about three levels a
frame deep (analysis/parse.py); a tree deeper than that (the file's or its
stub's), or an int constant in the tree of ``LONG_DIGITS`` decimal digits or
more (a string or comment of hex digits is no int), makes the outline
*unsure*: project-graph then builds the full index (analysis/outlines.py),
whose bytes it must match. A long flat chain (``'a' + 'b' + ...``) is no
safer than other nesting where the analysis spells it (``(b + c + ...).d()``
fails at the same depth as ``(-(-(...))).d()``), so the probe tells trees
by depth alone. ``tests/analysis/test_outline.py`` checks that no shape of
expression nested as deep as the probe lets through fails the full analysis.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
import sys
from pathlib import Path
from typing import Any

from analysis import parse as parsing
from analysis.resolver import (
    TOO_DEEP_TO_PARSE,
    _Analyser,
    _is_main_guard,
    _Scope,
    _target_names,
    _walk_body,
    collector_paused,
    definition_order,
)

#: Frames the probe parse gives ``ast.parse``: trees up to about 3 x 60 levels (a
#: 170-term ``'a' + 'b' + ...``). The full analysis meets its stage limit
#: (analysis/parse.py's ``STAGE_FRAMES``, 960) from 320 levels of the
#: deepest-recursing shapes (three frames a level, ``ast.unparse``'s): a way
#: through the analysis would need more than five frames a level to fail within
#: the probe.
PROBE_FRAMES = 60
#: Decimal digits of an int constant from which the outline is unsure (``repr``
#: refuses beyond ``sys.get_int_max_str_digits()``, 4,300 unless set lower, to 640
#: at least: the smaller of the two counts).
LONG_DIGITS = 1000
#: What a base-2, -8 or -16 literal of as many digits starts with (a hex literal of 640
#: decimal digits has 532; a decimal one parses only within ``repr``'s limit): only a
#: file with one has its tree searched.
_LONG_HINT = re.compile(rb"0[xXoObB]_?[0-9a-fA-F_]{500}")

#: An outline, as the record store keeps it and a worker sends it (marshal values):
#: (lines, doc, imports as (local, target, line, module, scope), has_main,
#:  module-level variables' qualified names, read, sure)
OutlineRecord = tuple[int, str, tuple[tuple[str, str, int, str, str], ...], bool, tuple[str, ...], bool, bool]


@functools.cache
def outline_version() -> str:
    """What an outline record's key adds to the analyser's version: this file
    (read once a process, as analyser_version is)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def read_outline(data: bytes, path: str, module: str, is_package: bool, stub: bytes | None,
                 renamed: tuple[tuple[str, str], ...] = ()) -> OutlineRecord:
    """The outline of one file: what its full analysis would give the view
    (``renamed``: what its bare imports reach, sources.ModuleFile.renamed)."""
    with collector_paused():
        return _read(data, path, module, is_package, stub, renamed)


def _unread(analyser: _Analyser, sure: bool = True) -> OutlineRecord:
    return (len(getattr(analyser, "text_lines", ())), "", (), False, (), False, sure)


def _read(data: bytes, path: str, module: str, is_package: bool, stub: bytes | None,
          renamed: tuple[tuple[str, str], ...]) -> OutlineRecord:
    sure = stub is None or _stub_sure(stub, path)
    analyser = _Analyser(data, path, module, is_package, None, None)
    analyser.renamed = dict(renamed)
    try:
        ok = parsing.staged(lambda: analyser.parse(PROBE_FRAMES))
        if not ok and analyser.problems and analyser.problems[-1].message == TOO_DEEP_TO_PARSE:
            # deeper than the probe: parsed as the full analysis parses it; if it parses, it is
            # deep enough for the later stages to fail, which the outline does not run
            analyser = _Analyser(data, path, module, is_package, None, None)
            analyser.renamed = dict(renamed)
            ok = parsing.staged(analyser.parse)
            if ok:
                return _unread(analyser, sure=False)
    except Exception:  # noqa: BLE001 - as analysis/pool.py's parse: the file is unread (analysis-failed)
        return _unread(analyser, sure)
    if not ok:  # a syntax error, or too deep to parse: unread
        return _unread(analyser, sure)
    tree = analyser.tree
    assert tree is not None
    sure = sure and not _long_int(data, tree)
    lines = len(analyser.text_lines)
    try:
        if not sure or (lines > 1 and any(s.lineno == 1 and type(s) not in _NO_DEFINITION for s in tree.body)):
            # a definition on line 1 may come before the module's own (``definition_order``): declared
            # whole, as the full analysis does, and the first definition's doc read
            parsing.staged(analyser.declare)
            doc = min(analyser.definitions, key=definition_order).doc
            variables = tuple(d.qualname for d in analyser.definitions if d.kind == "variable")
        else:
            variables = parsing.staged(lambda: _declare_imports(analyser, tree))
            doc = ast.get_docstring(tree) or ""
    except Exception:  # noqa: BLE001 - RecursionError (too-deep) or an error (analysis-failed): unread
        return _unread(analyser, sure)
    imports = tuple((i.local, i.target, i.line, i.module, i.scope) for i in analyser.imports)
    return (lines, doc, imports, analyser.has_main, variables, True, sure)


#: Statements that make no definition (analysis/resolver.py's ``_declare_stmt``).
_NO_DEFINITION = (ast.Import, ast.ImportFrom, ast.Expr, ast.Pass)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _declare_imports(analyser: _Analyser, tree: ast.Module) -> tuple[str, ...]:
    """What ``_Analyser.declare`` finds that the view reads, in its order and
    by its own rules: each scope's imports (``_declare_import``, with the
    scopes' qualified names), the module-level ``__main__`` guard, and the
    names module-level assignments bind (more than its variables: a name
    defined by a ``def`` and assigned too), without the definitions, their
    signatures and docstrings. A file whose tree is past the probe is
    declared whole instead (``_read``), so nothing here can recurse too deep."""
    module = analyser.module
    root = _Scope("module", module, None, None, tree)
    variables: list[str] = []

    def walk(body: list[ast.stmt], scope: _Scope) -> None:
        for stmt in _walk_body(body):
            kind = type(stmt)
            if kind in _DEFS or kind is ast.ClassDef:
                child = _Scope("class" if kind is ast.ClassDef else "function",
                               f"{scope.qualname}.{stmt.name}", scope, None, stmt)  # type: ignore[attr-defined]
                walk(stmt.body, child)  # type: ignore[attr-defined]
            elif kind is ast.Import or kind is ast.ImportFrom:
                analyser._declare_import(stmt, scope)  # type: ignore[arg-type]
            elif scope is root and (kind is ast.Assign or kind is ast.AnnAssign):
                targets = stmt.targets if kind is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
                variables.extend(f"{module}.{n.id}" for t in targets for n in _target_names(t))
            elif scope is root and kind is ast.If and _is_main_guard(stmt.test):  # type: ignore[attr-defined]
                analyser.has_main = True

    walk(tree.body, root)
    return tuple(variables)


def _stub_sure(stub: bytes, path: str) -> bool:
    """Whether a stub's tree is within the probe's depth and holds no long
    int (or it does not parse: the full analysis then reads the file without
    it)."""
    try:
        tree, _ = parsing.parse(stub, path.removesuffix(".py") + ".pyi", frames=PROBE_FRAMES)
    except parsing.TOO_DEEP_ERRORS:
        return False
    except (SyntaxError, ValueError):
        return True
    return not _long_int(stub, tree)


def _long_int(data: bytes, tree: ast.AST) -> bool:
    """Whether ``tree`` (of ``data``) holds an int constant of ``LONG_DIGITS``
    decimal digits or more, looked for (``ast.walk``: no recursion) only where
    ``data`` has a long base-2, -8 or -16 literal's start (a decimal literal
    parses only within ``repr``'s limit)."""
    if _LONG_HINT.search(data) is None:
        return False
    limit = sys.get_int_max_str_digits()
    least = _least(min(LONG_DIGITS, limit) if limit else LONG_DIGITS)
    return any(type(n) is ast.Constant and type(n.value) is int and abs(n.value) >= least
               for n in ast.walk(tree))


@functools.lru_cache(maxsize=4)
def _least(digits: int) -> int:
    return 10 ** (digits - 1)


def facts_ok(value: Any) -> bool:
    """Whether a value loaded from the record store is an outline's facts
    (``OutlineRecord``: each field of its type; a damaged record is re-outlined)."""
    if type(value) is not tuple or len(value) != 7:
        return False
    lines, doc, imports, has_main, variables, read, sure = value
    return (type(lines) is int and type(doc) is str and type(has_main) is bool and type(read) is bool
            and type(sure) is bool and type(variables) is tuple and all(type(v) is str for v in variables)
            and type(imports) is tuple and all(_import_ok(i) for i in imports))


def _import_ok(value: Any) -> bool:
    return (type(value) is tuple and len(value) == 5 and type(value[2]) is int
            and all(type(value[k]) is str for k in (0, 1, 3, 4)))
