"""Deep expressions (issue 22): every file ``compile()`` accepts gets its views,
whatever the shape of its depth, and the same ones wherever the analysis runs
(a command, a pool worker, a manifest-wide view, a server's thread)."""

from __future__ import annotations

import ast
import sys
import threading

import pytest
from workspacekit import long_view as _view
from workspacekit import write_files as _write

from analysis import parse as parsing
from analysis.resolver import analyse_module
from analysis.spelling import spell


def _module(expression: str) -> str:
    return f"x = 0\ndef f(a):\n    return a\nz = {expression}\n\ndef k():\n    return z\n"


def _compiles(source: str) -> None:
    """``compile(source)`` as a default interpreter runs it at the top of its
    stack (1,000 frames), wherever the test stands."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(parsing.depth() + 1000)
    try:
        compile(source, "m.py", "exec")
    finally:
        sys.setrecursionlimit(old)


def _at_depth(frames: int, fn):
    """``fn()`` called ``frames`` frames deeper than here."""
    return fn() if frames == 0 else _at_depth(frames - 1, fn)


def _outcome(source: str) -> tuple[list[str], list[tuple[str, str]]]:
    a = analyse_module(source.encode(), "m.py", "m")
    return sorted(d.qualname for d in a.definitions), [(p.kind, p.message) for p in a.problems]


def test_a_thousand_branch_conditional_expression_is_typed_without_recursion():
    chain = " if x else ".join(["1"] * 1000)
    source = f"x = 0\ndef k():\n    return {chain}\n\ndef j():\n    return 1 if x else '' if x else 1\n"
    _compiles(source)
    a = analyse_module(source.encode(), "m.py", "m")
    assert not a.problems
    assert sorted(d.qualname for d in a.definitions) == ["m", "m.j", "m.k", "m.x"]
    types = dict(a.value_types)
    assert types.get("m.k()") == "builtins.int"  # every branch an int, as the recursion found
    assert "m.j()" not in types  # branches of two classes: none


SHAPES = {
    "conditional": " if x else ".join(["1"] * 2900),
    "binop": " + ".join(["1"] * 2900),
    "not": "not " * 2980 + "x",
    "minus": "-" * 2980 + "1",
    "attributes": "x" + ".a" * 1000,
    "calls": "x" + ".a()" * 600,
    "subscripts": "x" + "[0]" * 1000,
    "compare": " < ".join(["x"] * 1000),
    "boolop": " or ".join(["x and x"] * 1000),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_deep_expression_python_compiles_gets_its_definitions(shape):
    source = _module(SHAPES[shape])
    _compiles(source)
    assert _outcome(source) == (["m", "m.f", "m.k", "m.x", "m.z"], [])


def test_a_long_chain_of_calls_keeps_its_uses_as_written():
    source = "def f():\n    return x" + ".a()" * 600 + "\n"
    a = analyse_module(source.encode(), "m.py", "m")
    assert not a.problems
    spelled = {u.target for u in a.uses}
    assert "?x" + ".a()" * 599 + ".a" in spelled


def test_a_chain_is_spelled_as_unparse_spells_it_at_any_length():
    text = "x" + ".a(b, c=d)[0, 1].e[f()]" * 50
    node = ast.parse(text, mode="eval").body
    assert spell(node) == ast.unparse(node) == text
    tree, _ = parsing.parse("x" + ".a()[0]" * 700, mode="eval")  # ast.unparse recurses too deep on it
    assert isinstance(tree, ast.Expression)
    with pytest.raises(RecursionError):
        ast.unparse(tree.body)
    assert spell(tree.body) == "x" + ".a()[0]" * 700


def test_a_file_too_deep_for_the_parser_is_too_deep_not_a_syntax_error():
    source = _module("not " * 7000 + "x")
    with pytest.raises((RecursionError, MemoryError)):  # Python's compile refuses it too, but not as a syntax error
        _compiles(source)
    assert _outcome(source) == (["m"], [("too-deep", "too deeply nested to parse")])


def test_the_parse_is_the_same_at_any_depth_of_the_caller():
    # ``1 + 1 + ...`` of 2,900 compiles; the manifest-wide views parsed it deeper in the stack than
    # a one-file view did, and called it a syntax error there
    source = _module(" + ".join(["1"] * 2900))
    shallow = _outcome(source)
    assert shallow == (["m", "m.f", "m.k", "m.x", "m.z"], [])
    assert _at_depth(600, lambda: _outcome(source)) == shallow
    got: list[object] = []
    thread = threading.Thread(target=lambda: got.append(_at_depth(300, lambda: parsing.parse(source)[0])))
    thread.start()
    thread.join()
    assert isinstance(got[0], ast.Module)


def test_a_file_deep_enough_to_be_too_deep_is_so_at_any_depth_of_the_caller():
    # unparsing a default of n nested minus signs recurses: some n are too deep to analyse, the same
    # ones from a shallow caller and from a deep one
    sources = {n: "def f(a=" + "-" * n + "1):\n    return a\n" for n in range(250, 650, 25)}
    shallow = {n: _outcome(s)[1] for n, s in sources.items()}
    assert shallow[250] == [] and shallow[625] == [("too-deep", "too deeply nested to analyse")]
    assert {n: _at_depth(500, lambda s=s: _outcome(s)[1]) for n, s in sources.items()} == shallow


def test_the_parse_leaves_the_recursion_limit_as_it_was():
    before = sys.getrecursionlimit()
    parsing.parse("x = 1\n")
    with pytest.raises(SyntaxError):
        parsing.parse("x = (\n")
    assert sys.getrecursionlimit() == before


def test_manifest_wide_views_read_a_deep_file_as_the_one_file_view_does(tmp_path):
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'b'\n",
                      "binop.py": _module(" + ".join(["1"] * 2900)),
                      "nots.py": _module("not " * 2980 + "x"),
                      "use.py": "from binop import k\nfrom nots import f\n\ndef g():\n    return k(), f(1)\n"})
    graph = _view("graph", "binop.py", tmp_path)
    assert [r[0] for r in graph["definitions"]["rows"]] == ["binop.x", "binop.f", "binop.z", "binop.k"]
    assert _view("references", "binop.k", tmp_path)["defined"] == ["binop.py", 6]
    assert _view("references", "nots.f", tmp_path)["defined"] == ["nots.py", 2]
    assert _view("diagnostics", "semaprax.toml", tmp_path)["rows"] == []
