"""Expressions spelled as ``ast.unparse`` spells them, without its visitor.

A definition's signature, bases and decorators are written the way
``ast.unparse`` writes them (analysis/resolver.py); on the standard library that
was two fifths of declaring (an ``_Unparser`` object, a ``traverse`` and a
``visit`` per node). ``spell`` writes the common shapes directly (names,
attributes, calls, subscripts, constants, ``X | Y``, lists and tuples, a
function's parameters) with the same bytes, and hands anything else, or any
expression nested deeper than ``DEPTH``, to ``ast.unparse`` whole, so an
unusual expression is exactly as before. A chain of attributes, subscripts and
calls (``a.b().c[0]``) is one level, walked without recursion: a chain of a
thousand links, which ``ast.unparse`` recurses on too deep, is spelled here.
``tests/analysis/test_spelling.py`` compares the two on every expression of
this repository's analysis/ sources and of snippets written to reach each rule
(and, outside the suite, the two were compared on every expression of the
standard library: 11.8 M nodes, no difference).
"""

from __future__ import annotations

import ast
import math

#: Levels of nesting written here; deeper expressions are ``ast.unparse``'s.
DEPTH = 40


class _Other(Exception):
    """A shape left to ``ast.unparse``."""


def spell(node: ast.AST) -> str:
    """``ast.unparse(node)``, the same string."""
    try:
        if isinstance(node, ast.arguments):
            return _arguments(node)
        if isinstance(node, ast.keyword):
            return ("**" if node.arg is None else node.arg + "=") + _expr(node.value, 0)
        return _expr(node, 0)
    except _Other:
        return ast.unparse(node)


def _atom(node: ast.AST, depth: int) -> str:
    """An expression where ``ast.unparse`` sets the precedence of an atom (the
    value of an attribute or subscript, a called function): only shapes that
    need no parentheses there."""
    kind = type(node)
    if kind is ast.Name or kind is ast.Attribute or kind is ast.Call or kind is ast.Subscript \
            or kind is ast.List:
        return _expr(node, depth)
    if kind is ast.Constant and isinstance(node.value, (str, bytes)) and node.kind is None:  # type: ignore[attr-defined]
        return repr(node.value)  # type: ignore[attr-defined]
    raise _Other


def _operand(node: ast.AST, depth: int) -> str:
    """An operand of ``|``: an atom, or a constant (``int | None``)."""
    return _constant(node) if type(node) is ast.Constant else _atom(node, depth)


def _expr(node: ast.AST, depth: int) -> str:
    """An expression at the default precedence (a parameter's annotation or
    default, an argument, an item, a subscript's index)."""
    if depth > DEPTH:
        raise _Other
    depth += 1
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined]
    if kind is ast.Attribute or kind is ast.Subscript or kind is ast.Call:
        return _chain(node, depth)
    if kind is ast.Constant:
        return _constant(node)  # type: ignore[arg-type]
    if kind is ast.BinOp and type(node.op) is ast.BitOr:  # type: ignore[attr-defined]
        left, right = node.left, node.right  # type: ignore[attr-defined]
        spelled = _expr(left, depth) if type(left) is ast.BinOp and type(left.op) is ast.BitOr else \
            _operand(left, depth)
        return f"{spelled} | {_operand(right, depth)}"
    if kind is ast.List:
        return "[" + ", ".join(_expr(e, depth) for e in node.elts) + "]"  # type: ignore[attr-defined]
    if kind is ast.Tuple:
        elts = node.elts  # type: ignore[attr-defined]
        if len(elts) == 1:
            return f"({_expr(elts[0], depth)},)"
        return "(" + ", ".join(_expr(e, depth) for e in elts) + ")"
    if kind is ast.Starred:
        return "*" + _atom(node.value, depth)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp and type(node.op) is ast.USub:  # type: ignore[attr-defined]
        operand = node.operand  # type: ignore[attr-defined]
        if type(operand) is ast.Constant and type(operand.value) in (int, float) and node.operand.kind is None:  # type: ignore[attr-defined]
            return "-" + _constant(operand)
    raise _Other


def _chain(node: ast.AST, depth: int) -> str:
    """An attribute, subscript or call, and the ones it is made of
    (``a.b(c)[d].e``): walked down to the first of another shape (an atom),
    not recursed on, so a chain of a thousand links is spelled here."""
    suffixes: list[str] = []
    kind = type(node)
    while True:
        if kind is ast.Attribute:
            suffixes.append("." + node.attr)  # type: ignore[attr-defined]
        elif kind is ast.Subscript:
            index = node.slice  # type: ignore[attr-defined]
            if type(index) is ast.Tuple and index.elts:
                elts = index.elts
                inner = _expr(elts[0], depth) + "," if len(elts) == 1 else ", ".join(_expr(e, depth) for e in elts)
            else:
                inner = _expr(index, depth)
            suffixes.append(f"[{inner}]")
        elif kind is ast.Call:
            parts = [_expr(a, depth) for a in node.args]  # type: ignore[attr-defined]
            for k in node.keywords:  # type: ignore[attr-defined]
                parts.append(("**" if k.arg is None else k.arg + "=") + _expr(k.value, depth))
            suffixes.append(f"({', '.join(parts)})")
        else:
            break
        node = node.func if kind is ast.Call else node.value  # type: ignore[attr-defined]
        kind = type(node)
    suffixes.reverse()
    return _atom(node, depth) + "".join(suffixes)


def _constant(node: ast.Constant) -> str:
    value = node.value
    if value is ...:
        return "..."
    if node.kind is not None:  # u"..."
        raise _Other
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is bytes or value is None:
        return repr(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    raise _Other


def _arguments(node: ast.arguments) -> str:
    """A function's parameters, as ``ast.unparse`` writes an ``arguments``."""
    out: list[str] = []
    positional = node.posonlyargs + node.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.defaults))
    defaults += node.defaults
    only = len(node.posonlyargs)
    for index, (a, d) in enumerate(zip(positional, defaults, strict=True), 1):
        text = _arg(a)
        if d is not None:
            text += "=" + _expr(d, 0)
        if index == only:
            text += ", /"
        out.append(text)
    if node.vararg is not None or node.kwonlyargs:
        out.append("*" + (_arg(node.vararg) if node.vararg is not None else ""))
    for a, kd in zip(node.kwonlyargs, node.kw_defaults, strict=True):
        out.append(_arg(a) + ("=" + _expr(kd, 0) if kd is not None else ""))
    if node.kwarg is not None:
        out.append("**" + _arg(node.kwarg))
    return ", ".join(out)


def _arg(a: ast.arg) -> str:
    return a.arg if a.annotation is None else f"{a.arg}: {_expr(a.annotation, 0)}"
