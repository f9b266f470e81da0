"""analysis/spelling.py writes what ``ast.unparse`` writes (issue 22: declaring
without ``ast.unparse``): every expression, keyword and parameter list of
snippets made to reach each rule and its edges, and of this repository's
analysis sources."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from analysis import spelling
from analysis.spelling import spell

SNIPPETS = [
    "def f(a, b=1, /, c: int = -2, *args: str, d, e: 'x' = None, **kw: dict[str, int]) -> list[int] | None: ...",
    "def f(a, /): ...",
    "def f(a=1, /, b=2): ...",
    "def f(*, a, b=3): ...",
    "def f(*a): ...",
    "def f(**k): ...",
    "def f(a=(), b=(1,), c=(1, 2), d=[], e=[1, [2]], f=..., g=1.5, h=-1.5, i=1e400, j=1j, k=b'x', l=True): ...",
    "def f(a=u'x', b='it''s', c=\"q\\\"\", d='\\n', e=lambda: 0, f={}, g={1}, h=-x, i=not x, j=--1, k=+1): ...",
    "def f(a: Callable[[int, str], None], b: tuple[()], c: tuple[int, ...], d: x[1:2], e: x[a, b:c]): ...",
    "def f(a: dict[str, 'A'] | None | int, b: None | int, c: int | (str | bytes), d: (a or b) | c): ...",
    "def f(a: x.y.z, b: f(x).y, c: 'a'.join, d: (1).real, e: 1.0 .real, f: x[0].y, g: [a][0], h: (a, b)[0]): ...",
    "def f(a: Tuple[*Ts], b: tuple[int,], c: tuple[(int, str)], d: x[(a, b), c]): ...",
    "@dataclass(frozen=True, **opts)\n@a.b(c, *d, e=f, **g)\n@property\n@(lambda f: f)\ndef f(): ...",
    "@functools.wraps(f)\n@x[0]\n@a if b else c\ndef f(): ...",
    "class C(Base, metaclass=ABCMeta, **kw): ...",
    "class C(Generic[T], a.b.C[int, str]): ...",
    "x: list[int] = []\ny: 'str'\nz: f(x=1)(y)[2]",
    "def f(a=f'{x}', b=(x for x in y), c=f(x for x in y), d=[x for x in y], e=x if y else z, f=a + b): ...",
    "def f(a=1 | 2, b=(1 | 2) | 3, c=a | b | c | d, d=(-1) | 2, e=x[-1], f=await_ | 2): ...",
    "def f(a=-0.0, b=0xff, c=1_000, d='\\u20ac', e='\\x00', f=b'\\xff', g=None.x if 0 else 0): ...",
]


def _nodes(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.expr, ast.arguments, ast.keyword))]


@pytest.mark.parametrize("source", SNIPPETS)
def test_every_shape_is_spelled_as_unparse_spells_it(source):
    for node in _nodes(ast.parse(source)):
        assert spell(node) == ast.unparse(node)


def test_this_repositorys_analysis_sources_are_spelled_as_unparse_spells_them():
    here = Path(spelling.__file__).parent
    count = 0
    for path in sorted(here.glob("*.py")):
        for node in _nodes(ast.parse(path.read_bytes())):
            assert spell(node) == ast.unparse(node), (path.name, getattr(node, "lineno", None))
            count += 1
    assert count > 10_000


def test_an_expression_deeper_than_the_limit_is_left_to_unparse(monkeypatch):
    deep = ast.parse("x: " + "a[" * (spelling.DEPTH + 5) + "b" + "]" * (spelling.DEPTH + 5)).body[0]
    assert isinstance(deep, ast.AnnAssign)
    calls = []
    real = ast.unparse
    def counting(node: ast.AST) -> str:
        calls.append(node)
        return real(node)

    monkeypatch.setattr(ast, "unparse", counting)
    assert spell(deep.annotation) == real(deep.annotation)
    assert calls == [deep.annotation]
    calls.clear()
    assert spell(ast.parse("x: a[b]").body[0].annotation) == "a[b]"  # type: ignore[attr-defined]
    assert calls == []
