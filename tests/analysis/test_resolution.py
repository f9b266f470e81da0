"""Regression tests for what the producers got silently wrong on real code
(issue 9): each on a small fixture of our own, written where the test runs."""

from __future__ import annotations

import sys

import pytest
from workspacekit import long_view as _view
from workspacekit import write_files as _write

from analysis.index import WorkspaceIndex
from analysis.resolver import analyse_module
from analysis.sources import Workspace, WorkspaceError
from servers.route import make_projection


def _analyse(source: str, module: str = "m", path: str = "m.py"):
    return analyse_module(source.encode(), path, module)


def _calls(a, source: str) -> set[str]:
    return {u.target for u in a.uses if u.kind == "calls" and u.source == source}




# --- overloads -------------------------------------------------------------------------

OVERLOADED = '''import typing as t
from typing import overload


class Command:
    @t.overload
    def main(self, x: int) -> int: ...

    @t.overload
    def main(self, x: str) -> str: ...

    def main(self, x):
        """The implementation."""
        return helper(x)


@overload
def f(x: int) -> int: ...
@overload
def f(x: str) -> str: ...
def f(x):
    return x


def helper(x):
    return x
'''


def test_an_overloaded_function_is_its_implementation_with_the_stubs_as_signatures(tmp_path):
    a = _analyse(OVERLOADED)
    mains = [d for d in a.definitions if d.qualname == "m.Command.main"]
    assert len(mains) == 1
    assert (mains[0].start, mains[0].end) == (12, 14)
    assert mains[0].overloads == ("(self, x: int) -> int", "(self, x: str) -> str")
    assert [d.overloads for d in a.definitions if d.qualname == "m.f"] == [("(x: int) -> int", "(x: str) -> str")]
    assert [p for p in a.problems if p.kind == "redefinition"] == []
    _write(tmp_path, {"m.py": OVERLOADED})
    view = _view("task-context", "m.Command.main", tmp_path)
    assert view["lines"] == [12, 14] and "return helper(x)" in view["source"]
    assert view["overloads"] == ["(self, x: int) -> int", "(self, x: str) -> str"]


def test_overload_stubs_without_an_implementation_are_one_definition():
    a = _analyse("from typing import overload, Protocol\nclass P(Protocol):\n"
                 "    @overload\n    def g(self, x: int) -> int: ...\n    @overload\n    def g(self, x: str) -> str: ...\n")
    gs = [d for d in a.definitions if d.qualname == "m.P.g"]
    assert len(gs) == 1 and gs[0].overloads == ("(self, x: int) -> int", "(self, x: str) -> str")


# --- generic bases, super() and method order -----------------------------------------------

def test_a_generic_base_is_a_base():
    a = _analyse(
        "import typing as t\nT = t.TypeVar('T')\nclass ParamType(t.Generic[T]):\n    def fail(self): pass\n"
        "class DateTime(ParamType[int]):\n    def convert(self):\n        self.fail()\n"
    )
    assert ("m.DateTime", "m.ParamType") in {(u.source, u.target) for u in a.uses if u.kind == "inherits"}
    assert ("m.ParamType", "typing.Generic") in {(u.source, u.target) for u in a.uses if u.kind == "inherits"}
    assert _calls(a, "m.DateTime.convert") == {"m.ParamType.fail"}
    # the type argument is a plain use, not a base
    assert ("m.DateTime", "references", "builtins.int") in {(u.source, u.kind, u.target) for u in a.uses}


def test_a_generic_base_across_modules_gives_references(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/types.py": "import typing as t\nT = t.TypeVar('T')\nclass ParamType(t.Generic[T]):\n"
                        "    def fail(self): pass\n",
        "pkg/more.py": "from .types import ParamType\nclass D(ParamType[int]):\n    def go(self):\n"
                       "        self.fail()\n",
    })
    view = _view("references", "pkg.types.ParamType.fail", tmp_path)
    assert view["files"] == {"pkg/more.py": [[4, "calls", "pkg.more.D.go"]]}


def test_method_order_is_c3_in_a_diamond():
    a = _analyse(
        "class A:\n    def who(self): pass\nclass B(A): pass\nclass C(A):\n    def who(self): pass\n"
        "class D(B, C):\n    def go(self):\n        self.who()\n"
    )
    # depth-first would say A.who; Python's order D, B, C, A says C.who
    assert _calls(a, "m.D.go") == {"m.C.who"}


def test_super_skips_a_base_that_lacks_the_method():
    a = _analyse(
        "from elsewhere import Base\nclass Mixin:\n    def update(self): pass\n"
        "class X(Base, Mixin):\n    def update(self):\n        super().update()\n"
    )
    assert _calls(a, "m.X.update") == {"builtins.super", "m.Mixin.update"}


def test_super_follows_the_order_after_the_class():
    a = _analyse(
        "class A:\n    def f(self): pass\nclass B(A):\n    def f(self):\n        super().f()\n"
        "class C(A):\n    def f(self): pass\nclass D(B, C): pass\n"
    )
    # statically, super() in B is the next class after B in B's own order: A
    assert _calls(a, "m.B.f") == {"builtins.super", "m.A.f"}


# --- match statements --------------------------------------------------------------------

def test_match_visits_every_pattern_expression_and_guard():
    a = _analyse(
        "import enum\nclass Color(enum.Enum):\n    RED = 1\nclass Point:\n    x = 0\n"
        "def ok(p): return True\n"
        "def f(p):\n    match p:\n        case Point(x=Color.RED) if ok(p):\n            pass\n"
        "        case {Color.RED: [Point(), *rest]}:\n            pass\n"
    )
    used = {(u.line, u.target) for u in a.uses if u.source == "m.f"}
    assert {(9, "m.Point"), (9, "m.Color.RED"), (9, "m.ok"), (11, "m.Color.RED"), (11, "m.Point")} <= used


# --- mangled names, noqa, re-exports, newer syntax ------------------------------------------

def test_private_names_inside_a_class_are_not_undefined():
    a = _analyse(
        "class C:\n    __lock = 1\n    for __i in range(2):\n        pass\n    x = __i\n"
        "    def m(self):\n        __tmp = 1\n        return __tmp + self.__lock\n"
    )
    assert [p for p in a.problems if p.kind == "unresolved-name"] == []


def test_noqa_silences_what_it_names():
    a = _analyse(
        "import os  # noqa\nimport sys  # noqa: F401\nimport re  # noqa: E501\n"
        "from json import (\n    dumps,  # noqa: F401\n)\nx = missing  # noqa: F821\n"
    )
    assert [(p.kind, p.line) for p in a.problems] == [("unused-import", 3)]


def test_explicit_reexports_and_all_are_not_unused(tmp_path):
    a = _analyse("import os as os\nfrom json import dumps as dumps\nfrom re import sub\n"
                 "__all__ = []\n__all__ += ['sub']\n")
    assert [p for p in a.problems if p.kind == "unused-import"] == []
    _write(tmp_path, {
        "semaprax.toml": "[project]\nname = 'x'\n",
        "compat.py": "import json\n",
        "user.py": "from compat import json\nprint(json)\n",
    })
    assert _view("diagnostics", "semaprax.toml", tmp_path)["rows"] == []


def test_declared_dependencies_by_their_import_names(tmp_path):
    _write(tmp_path, {
        "semaprax.toml": "[project]\nname = 'x'\ndependencies = ['PyYAML>=6', 'Pillow']\n",
        "a.py": "import yaml\nimport PIL.Image\nimport nothere\nprint(yaml, PIL, nothere)\n",
    })
    rows = _view("diagnostics", "semaprax.toml", tmp_path)["rows"]
    assert [r[4] for r in rows] == ["cannot resolve import of 'nothere'"]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 syntax parses on 3.12")
@pytest.mark.parametrize("source, words", [
    ("type Alias = list[int]\n", "'type' alias statement is Python 3.12 syntax"),
    ("def f[T](x: T) -> T:\n    return x\n", "type parameters in brackets are Python 3.12 syntax"),
    ("class Box[T]:\n    pass\n", "type parameters in brackets are Python 3.12 syntax"),
])
def test_newer_syntax_names_the_version(source, words):
    (problem,) = _analyse(source).problems
    assert problem.kind == "syntax-error" and words in problem.message and "Python 3.11" in problem.message


# --- encodings and line numbers ------------------------------------------------------------

def test_latin1_source_with_a_coding_declaration(tmp_path):
    _write(tmp_path, {"m.py": "# -*- coding: latin-1 -*-\ndef f():\n    return 'caf\xe9'\n".encode("latin-1")})
    view = _view("task-context", "m.f", tmp_path)
    assert view["source"] == "def f():\n    return 'caf\xe9'"


def test_form_feed_does_not_shift_line_numbers(tmp_path):
    _write(tmp_path, {"m.py": "x = 1\n\x0c\ndef f():\n    return x\n\x0c\ndef g():\n    return f()\n"})
    view = _view("task-context", "m.g", tmp_path)
    assert view["lines"] == [6, 7] and view["source"] == "def g():\n    return f()"
    assert _view("graph", "m.py", tmp_path)["lines"] == 7


# --- module names ------------------------------------------------------------------------------

def test_folders_without_init_are_namespace_packages_under_a_package(tmp_path):
    _write(tmp_path, {
        "src/flask/__init__.py": "",
        "src/flask/helpers.py": "def h(): pass\n",
        "src/flask/sansio/app.py": "from ..helpers import h\nclass App:\n    def go(self):\n        h()\n",
        "tools/run.py": "def main(): pass\n",
    })
    ws = Workspace(tmp_path)
    assert ws.module_of("src/flask/sansio/app.py").module == "flask.sansio.app"
    assert ws.module_of("tools/run.py").module == "run"  # no package above: a script
    view = _view("references", "flask.helpers.h", tmp_path)
    assert view["files"] == {"src/flask/sansio/app.py": [[1, "imports", "flask.sansio.app"],
                                                          [4, "calls", "flask.sansio.app.App.go"]]}


def test_project_graph_has_the_submodule_edge(tmp_path):
    _write(tmp_path, {
        "semaprax.toml": "[project]\nname = 'x'\n",
        "email/__init__.py": "", "email/charset.py": "", "user.py": "import email.charset\n",
    })
    view = _view("project-graph", "semaprax.toml", tmp_path)
    assert view["imports"] == {"user": ["email", "email.charset"]}


# --- the index ---------------------------------------------------------------------------------

def test_the_index_analyses_each_file_once_and_matches_full_knowledge(tmp_path, monkeypatch):
    # a.py uses a class that z.py (later in path order) defines
    _write(tmp_path, {
        "a.py": "from z import Engine\ndef f():\n    e = Engine()\n    e.run()\n",
        "m.py": "from a import f\ndef g():\n    f()\n",
        "z.py": "class Engine:\n    def run(self): pass\n",
    })
    import analysis.pool as pool_module

    counted = []
    real = pool_module.Analyst.finish
    monkeypatch.setattr(pool_module.Analyst, "finish",
                        lambda self, n, tables: counted.append(self.jobs[n].path) or real(self, n, tables))
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    assert sorted(counted) == ["a.py", "m.py", "z.py"]
    assert index.analyses == 3 and index.parses == 3  # a.py prepared again (z.py told it Engine), not parsed again
    assert "z.Engine.run" in {u.target for u in index.by_module["a"].uses}


# --- safe in any workspace ---------------------------------------------------------------------

def test_symlinks_dangling_or_leaving_the_workspace_are_skipped(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 1\n")
    ws_dir = _write(tmp_path / "ws", {"semaprax.toml": "[project]\nname = 'x'\n", "a.py": "def f(): pass\n"})
    (ws_dir / ".#lock.py").symlink_to("user@host.1234")  # an Emacs lock file
    (ws_dir / "gone.py").symlink_to(ws_dir / "nothing.py")
    (ws_dir / "out.py").symlink_to(outside / "secret.py")
    (ws_dir / "inside.py").symlink_to(ws_dir / "a.py")
    ws = Workspace(ws_dir)
    assert ws.python_files() == ["a.py", "inside.py"]
    assert ws.notes == ["skipped gone.py: a symlink to nothing", "skipped out.py: a symlink that leaves the workspace"]
    view = _view("project-graph", "semaprax.toml", ws_dir)
    assert [r[1] for r in view["modules"]["rows"]] == ["a.py", "inside.py"]
    with pytest.raises(WorkspaceError, match="leaves the workspace"):
        make_projection("graph", "out.py", ws_dir)


def test_hidden_files_and_real_virtual_environments_are_skipped(tmp_path):
    _write(tmp_path, {
        ".hidden.py": "", ".tool/x.py": "",
        "venv/__init__.py": "", "venv/core.py": "def create(): pass\n",  # the stdlib's venv package
        "env/pyvenv.cfg": "home = /usr/bin\n", "env/lib/site.py": "",
        "build/gen.py": "", "dist/d.py": "",
    })
    ws = Workspace(tmp_path)
    assert ws.python_files() == ["build/gen.py", "dist/d.py", "venv/__init__.py", "venv/core.py"]
    assert _view("symbols", "venv", tmp_path)["modules"][1]["module"] == "venv.core"


def test_a_manifest_can_exclude_folders(tmp_path):
    _write(tmp_path, {
        "semaprax.toml": "[project]\nname = 'x'\nexclude = ['myenv', 'gen.py']\n",
        "a.py": "", "gen.py": "", "myenv/lib.py": "",
    })
    view = _view("project-graph", "semaprax.toml", tmp_path)
    assert [r[1] for r in view["modules"]["rows"]] == ["a.py"]


# --- large data literals -------------------------------------------------------------------------

def test_a_large_data_literal_is_folded_keeping_every_position():
    from analysis.resolver import FOLD_AT, fold_data_literals

    rows = ",  # row\n".join(f"    ({i}, 'n{i}', {i * 1.5}, [-{i}, None, True])" for i in range(FOLD_AT // 30))
    source = (f"DATA = [\n{rows}\n]\nSET = {{\n{rows}\n}}\nMAP = {{\n" + ",\n".join(f"    {i}: 'x'" for i in range(FOLD_AT // 8))
              + "\n}\nLIVE = [\n" + ",\n".join(f"    f{i % 3}()" for i in range(FOLD_AT // 8)) + "\n]\n"
              "def after(): return DATA\n").encode()
    folded = fold_data_literals(source)
    assert len(folded) == len(source) and folded.count(b"\n") == source.count(b"\n")
    assert folded.startswith(b"DATA = [\n...  ") and b"SET = {\n...  " in folded and b"MAP = {\n...:...  " in folded
    assert b"f1()" in folded  # a literal that calls something is not data
    full, fast = (analyse_module(s, "d.py", "d") for s in (source, folded))
    assert full.definitions == fast.definitions and full.uses == fast.uses and full.problems == fast.problems
    import ast

    kinds = {n.targets[0].id: type(n.value).__name__ for n in ast.parse(folded).body if isinstance(n, ast.Assign)}
    assert kinds == {"DATA": "List", "SET": "Set", "MAP": "Dict", "LIVE": "List"}


# --- recall: targets that are statically knowable ------------------------------------------------

RECALL = '''from dataclasses import dataclass
import typing as t


class Session:
    def __enter__(self):
        return self

    def __exit__(self, *exc): pass

    def request(self) -> "Response":
        return Response()


class Response:
    def json(self) -> dict: ...


@dataclass
class Holder:
    session: Session
    items: list[Response]


def request():
    with Session() as session:
        return session.request()


def loops(rs: t.List[Response], h: Holder):
    for r in rs:
        r.json()
    for r2 in h.items:
        r2.json()
    h.session.request().json()
    rs[0].json()


def literals(**kwargs):
    ", ".join([]).strip().upper()
    b"x".decode().split()[0].lower()
    kwargs.get("x")


class Outer:
    def method(self):
        def inner():
            self.method()
        return inner
'''


def test_recall_of_knowable_locals_results_and_literals():
    a = _analyse(RECALL)
    assert _calls(a, "m.request") == {"m.Session", "m.Session.request"}
    assert _calls(a, "m.loops") == {"m.Response.json", "m.Session.request"}
    assert _calls(a, "m.literals") == {"builtins.str.join", "builtins.str.strip", "builtins.str.upper",
                                       "builtins.bytes.decode", "builtins.str.split", "builtins.str.lower",
                                       "builtins.dict.get"}
    assert _calls(a, "m.Outer.method.inner") == {"m.Outer.method"}


def test_calls_through_a_package_reexport_reach_the_definition(tmp_path):
    _write(tmp_path, {
        "reqs/__init__.py": "from .sessions import Session\nfrom . import api\n",
        "reqs/sessions.py": "from typing import Self\nclass Session:\n    def __enter__(self) -> Self:\n"
                            "        return self\n    def request(self): pass\n",
        "reqs/api.py": "from . import sessions\ndef request():\n    with sessions.Session() as s:\n"
                       "        return s.request()\n",
        "tests/test_api.py": "import reqs\ndef test_it():\n    reqs.Session().request()\n",
    })
    view = _view("references", "reqs.sessions.Session.request", tmp_path)
    assert view["files"] == {"reqs/api.py": [[4, "calls", "reqs.api.request"]],
                             "tests/test_api.py": [[3, "calls", "test_api.test_it"]]}


# --- task-context ------------------------------------------------------------------------------

def test_task_context_gives_constructors_self_attributes_tests_and_member_signatures(tmp_path):
    _write(tmp_path, {
        "shop/__init__.py": "from .cart import Cart\n",
        "shop/cart.py": '''class Item:
    def __init__(self, name: str, price: int = 0) -> None:
        self.name = name


class Special(Item):
    pass


class Cart:
    """A cart."""

    limit = 3

    def __init__(self) -> None:
        self.items = []

    def add(self, name: str) -> None:
        """Add one item."""
        if len(self.items) < self.limit:
            self.items.append(Special(name))
        self.total = len(self.items)

    def clear(self) -> None:
        self.items = []
''',
        "tests/test_cart.py": "import shop\n\ndef test_add():\n    shop.Cart().add('x')\n",
    })
    view = _view("task-context", "shop.cart.Cart.add", tmp_path)
    assert "doc" not in view and '"""Add one item."""' in view["source"]
    assert view["constructs"] == {"shop.cart.Special": "(name: str, price: int=0) -> None"}
    assert view["self"] == {"reads": ["items", "limit"], "writes": ["total"]}
    assert view["tests"] == {"columns": ["name", "path", "line", "signature"],
                             "rows": [["test_cart.test_add", "tests/test_cart.py", 4, "()"]]}
    assert view["callers"] == {"columns": ["name", "path", "line", "signature"], "rows": []}
    assert view["class"]["members"] == {"__init__": "(self) -> None", "clear": "(self) -> None",
                                        "items": "attribute", "limit": "attribute", "total": "attribute"}


def test_a_class_method_call_also_refers_to_the_class():
    a = _analyse("class Align:\n    @classmethod\n    def left(cls): pass\ndef f():\n    Align.left()\n")
    assert {(u.kind, u.target) for u in a.uses if u.source == "m.f"} == {("calls", "m.Align.left"),
                                                                          ("references", "m.Align")}
