"""Calls the resolver must not resolve to a wrong target: where the class of
a value cannot be known, the call stays unresolved (a wrong target is worse
than none). Each source is a small case a review of the recall rules found."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.index import WorkspaceIndex
from analysis.model import CALLS
from analysis.pool import FAILED
from analysis.resolver import analyse_module
from analysis.sources import Workspace
from tests.workspacekit import write_files

CLASSES = (
    "class A:\n    def run(self):\n        return 1\n\n\n"
    "class C:\n    def run(self):\n        return 2\n\n\n"
)


def _calls(source: str, function: str, attr: str = "run") -> set[str]:
    """The targets of the calls of ``.attr`` in ``function`` of module m."""
    analysis = analyse_module(source.encode(), "m.py", "m")
    return {u.target for u in analysis.uses
            if u.kind == CALLS and u.source == f"m.{function}" and u.target.endswith(f".{attr}")}


def test_a_handler_does_not_take_the_class_before_a_try_whose_body_rebinds_the_local() -> None:
    source = CLASSES + (
        "def retyped(risky):\n    x = A()\n    try:\n        x = 5\n        risky()\n"
        "    except Exception:\n        x.run()\n\n\n"
        "def rebound(work):\n    x = A()\n    try:\n        x = C()\n        work()\n"
        "    except Exception:\n        x.run()\n\n\n"
        "def kept(work):\n    x = A()\n    try:\n        work()\n    except Exception:\n        x.run()\n"
    )
    assert _calls(source, "retyped") == {"?x.run"}
    assert _calls(source, "rebound") == {"?x.run"}
    assert _calls(source, "kept") == {"m.A.run"}


def test_a_handler_joins_every_class_the_try_body_gives_a_local() -> None:
    source = CLASSES + (
        "def midway(work):\n    x = A()\n    try:\n        x = C()\n        work()\n        x = A()\n"
        "    except Exception:\n        x.run()\n\n\n"
        "def same(work):\n    x = A()\n    try:\n        x = A()\n        work()\n"
        "    except Exception:\n        x.run()\n"
    )
    assert _calls(source, "midway") == {"?x.run"}
    assert _calls(source, "same") == {"m.A.run"}


def test_a_loop_else_runs_after_the_body_ran_zero_or_more_times() -> None:
    source = CLASSES + (
        "def for_else(xs):\n    x = A()\n    for _ in xs:\n        x = C()\n    else:\n        x.run()\n\n\n"
        "def while_else(n):\n    x = A()\n    while n:\n        x = C()\n        n -= 1\n    else:\n        x.run()\n\n\n"
        "def same(xs):\n    x = A()\n    for _ in xs:\n        x = A()\n    else:\n        x.run()\n"
    )
    assert _calls(source, "for_else") == {"?x.run"}
    assert _calls(source, "while_else") == {"?x.run"}
    assert _calls(source, "same") == {"m.A.run"}


def test_finally_runs_from_any_point_of_the_try_and_after_it_the_join_holds() -> None:
    source = CLASSES + (
        "def fin(work):\n    x = A()\n    try:\n        x = C()\n        work()\n    finally:\n        x.run()\n\n\n"
        "def after(work):\n    x = A()\n    try:\n        x = C()\n    finally:\n        work()\n    x.run()\n\n\n"
        "def rebound_in_finally(work):\n    x = A()\n    try:\n        work()\n    finally:\n        x = C()\n"
        "    x.run()\n"
    )
    assert _calls(source, "fin") == {"?x.run"}
    assert _calls(source, "after") == {"m.C.run"}
    assert _calls(source, "rebound_in_finally") == {"m.C.run"}


def test_a_method_whose_result_is_made_from_its_receiver_has_no_result_class() -> None:
    # called on a B, these make a B: A is not the class of their result
    source = (
        "import copy\n\n\n"
        "class A:\n    def run(self):\n        return 1\n\n"
        "    def dup(self):\n        return copy.copy(self)\n\n"
        "    def pick(self, flag):\n        return self if flag else self\n\n"
        "    def clone(self):\n        return type(self)()\n\n"
        "    @classmethod\n    def make(cls):\n        return cls()\n\n"
        "    def other(self):\n        return A()\n\n\n"
        "class B(A):\n    def run(self):\n        return 2\n\n\n"
        "def use(b: B):\n    b.dup().run()\n    b.pick(1).run()\n    b.clone().run()\n    B.make().run()\n\n\n"
        "def fixed(b: B):\n    b.other().run()\n"
    )
    assert "m.A.run" not in _calls(source, "use")
    assert _calls(source, "fixed") == {"m.A.run"}


def test_items_of_a_class_that_is_no_mapping_are_not_its_values() -> None:
    source = CLASSES + (
        "class Other:\n"
        "    def items(self) -> list[tuple[str, A]]:\n        return []\n\n"
        "    def values(self) -> list[C]:\n        return []\n\n\n"
        "def use_other(o: Other):\n    for k, v in o.items():\n        v.run()\n\n\n"
        "def use_dict(d: dict[str, A]):\n    for k, v in d.items():\n        v.run()\n"
    )
    assert "m.C.run" not in _calls(source, "use_other")
    assert _calls(source, "use_dict") == {"m.A.run"}


def test_with_binds_what_a_generator_yields_only_for_a_contextmanager() -> None:
    source = "from contextlib import contextmanager\nfrom typing import Iterator\n\n\n" + CLASSES + (
        "@contextmanager\ndef managed() -> Iterator[A]:\n    yield A()\n\n\n"
        "def items_gen() -> Iterator[C]:\n    yield C()\n\n\n"
        "def use_managed():\n    with managed() as m:\n        m.run()\n\n\n"
        "def use_plain():\n    with items_gen() as q:\n        q.run()\n"
    )
    assert _calls(source, "use_managed") == {"m.A.run"}
    assert _calls(source, "use_plain") == {"?q.run"}


def test_a_file_the_analysis_cannot_spell_gets_the_diagnostic_the_pooled_path_gives(tmp_path: Path) -> None:
    # an int of more digits than Python writes: ast.unparse cannot spell the default either
    source = "def f(x=0x" + "f" * 5000 + "):\n    pass\n"
    alone = analyse_module(source.encode(), "m.py", "m")
    write_files(tmp_path, {"m.py": source})
    ws = Workspace(tmp_path)
    pooled = WorkspaceIndex(ws, ws.python_files()).modules
    assert [(p.kind, p.message) for p in alone.problems] == [(p.kind, p.message) for a in pooled for p in a.problems]
    assert [p.kind for p in alone.problems] == [FAILED]
    assert "ValueError" in alone.problems[0].message


def test_a_method_that_returns_self_called_on_a_subclass_gives_the_subclass() -> None:
    # ``return self`` makes the receiver, whatever its class: called on a B, a B
    source = (
        "class A:\n    def run(self):\n        return 1\n\n"
        "    def chain(self):\n        return self\n\n\n"
        "class B(A):\n    def run(self):\n        return 2\n\n\n"
        "def on_sub(b: B):\n    b.chain().run()\n    b.chain().chain().run()\n\n\n"
        "def on_base(a: A):\n    a.chain().run()\n\n\n"
        "def on_self_sub():\n    B().chain().run()\n\n\n"
        "def assigned(b: B):\n    c = b.chain()\n    c.run()\n\n\n"
        "def through(b: B):\n    b.again().run()\n"
    )
    source = source.replace("class B(A):", "    def again(self):\n        return self.chain()\n\n\nclass B(A):")
    assert _calls(source, "on_sub") == {"m.B.run"}
    assert _calls(source, "on_base") == {"m.A.run"}
    assert _calls(source, "on_self_sub") == {"m.B.run"}
    assert _calls(source, "assigned") == {"m.B.run"}
    assert "m.A.run" not in _calls(source, "through")  # again() returns what chain() of its receiver does


def test_a_loop_body_runs_again_with_the_classes_it_left() -> None:
    # the second time round, ``x`` is what the end of the body made it
    source = CLASSES + (
        "class D(A):\n    def run(self):\n        return 3\n\n\n"
        "def for_loop(xs):\n    x = A()\n    for _ in xs:\n        x.run()\n        x = C()\n\n\n"
        "def while_loop(n):\n    x = A()\n    while n:\n        x.run()\n        if n > 1:\n"
        "            x = C()\n        n -= 1\n\n\n"
        "def same(xs):\n    x = A()\n    for _ in xs:\n        x.run()\n        x = A()\n\n\n"
        "def derived(xs):\n    x = A()\n    for _ in xs:\n        x.run()\n        x = D()\n\n\n"
        "def first_time(xs):\n    x = A()\n    for _ in xs:\n        x = C()\n        x.run()\n"
    )
    assert _calls(source, "for_loop") == {"?x.run"}
    assert _calls(source, "while_loop") == {"?x.run"}
    assert _calls(source, "same") == {"m.A.run"}
    assert _calls(source, "derived") == {"m.A.run"}  # a D is an A: the base's method, as the join after a branch
    assert _calls(source, "first_time") == {"m.C.run"}


def test_an_attribute_annotated_with_a_union_takes_no_class_from_an_assignment() -> None:
    # ``self.masker: None | A | C = None`` declares either class: a later
    # ``self.masker = A()`` does not make every ``self.masker`` an A
    source = CLASSES + (
        "class Frames:\n"
        "    def __init__(self) -> None:\n        self.masker: None | A | C = None\n        self.kept: A | None = None\n\n"
        "    def start(self, simple: bool) -> None:\n"
        "        self.masker = A() if simple else C()\n        self.masker = A()\n        self.kept = A()\n\n"
        "    def use(self) -> None:\n        self.masker.run()\n\n"
        "    def use_kept(self) -> None:\n        self.kept.run()\n"
    )
    assert _calls(source, "Frames.use") == {"?self.masker.run"}
    assert _calls(source, "Frames.use_kept") == {"m.A.run"}


ROUND6 = CLASSES + (
    "import enum\n\n\n"
    "class Color(enum.Enum):\n    RED = 1\n    _ignore_ = ['x']\n\n    def run(self):\n        return 3\n\n\n"
    "def mixed():\n    d = {'a': A(), 'c': C()}\n    d['a'].run()\n\n\n"
    "def caught_then(work):\n    e = A()\n    try:\n        work()\n    except ValueError as e:\n        pass\n"
    "    e.run()\n\n\n"
    "def metaclass_member(x: A):\n    type(x).mro()\n\n\n"
    "def sunder():\n    Color._ignore_.run()\n\n\n"
    "def operands():\n    (A() + C()).run()\n\n\n"
    "def walrus_then_assigned():\n    if (x := A()):\n        x.run()\n    x = C()\n\n\n"
    "class Holder:\n    def __init__(self, kind):\n        p: A | C | None = None\n        if kind:\n"
    "            p = A()\n        else:\n            p = C()\n        self.p = p\n\n"
    "    def use(self):\n        self.p.run()\n\n\n"
    "class Base:\n    def close(self):\n        pass\n\n\n"
    "class P1(Base):\n    pass\n\n\n"
    "class P2(Base):\n    pass\n\n\n"
    "def shared(p: P1 | P2, q: A | C):\n    p.close()\n    q.close()\n"
)


@pytest.mark.parametrize(("function", "attr", "expected"), [
    ("mixed", "run", {"?d['a'].run"}),                  # a dict literal of two classes: values of neither
    ("caught_then", "run", {"m.A.run"}),                 # the handler's class does not outlive the handler
    ("metaclass_member", "mro", {"builtins.type.mro"}),  # type(x).m: x's class's m, else type's
    ("sunder", "run", {"?Color._ignore_.run"}),          # an Enum's _sunder_ names are no members
    ("operands", "run", {"?(A() + C()).run"}),           # no __add__ known: no class
    ("walrus_then_assigned", "run", {"?x.run"}),         # x := A() and x = C(): not C before its binding
    ("Holder.use", "run", {"?self.p.run"}),              # self.p = p of p: A | C, bound in branches: not A
    ("shared", "close", {"m.Base.close", "?q.close"}),   # a union whose classes share the member's owner: it
])
def test_round6_rules_name_no_wrong_target(function: str, attr: str, expected: set[str]) -> None:
    assert _calls(ROUND6, function, attr) == expected


def test_a_star_import_binds_neither_private_names_nor_names_the_module_binds_itself(tmp_path: Path) -> None:
    # ``from .core import *`` binds core's public names, not ``_helper``; a name the module defines
    # or imports itself (before or after the star import) stays its own; a built-in stays built-in
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/core.py": ("class Shape:\n    def run(self):\n        pass\n\n\n"
                        "def _helper():\n    pass\n\n\ndef area():\n    pass\n\n\ndef len(x):\n    return 0\n"),
        "pkg/other.py": "class Shape:\n    def run(self):\n        pass\n",
        "pkg/user.py": ("from .core import *\nfrom .other import Shape\n\n\n"
                        "def area():\n    pass\n\n\n"
                        "def go():\n    Shape().run()\n    area()\n    _helper()\n    len([])\n"),
        "pkg/client.py": "from pkg.user import area, Shape\n\n\ndef go():\n    area()\n    Shape().run()\n",
    })
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    calls = {(a.module, u.target) for a in index.modules for u in a.uses
             if u.kind == CALLS and a.module in ("pkg.user", "pkg.client")}
    assert calls == {("pkg.user", "pkg.other.Shape"), ("pkg.user", "pkg.other.Shape.run"),
                     ("pkg.user", "pkg.user.area"), ("pkg.user", "?_helper"), ("pkg.user", "builtins.len"),
                     ("pkg.client", "pkg.user.area"), ("pkg.client", "pkg.other.Shape"),
                     ("pkg.client", "pkg.other.Shape.run")}


def test_a_date_is_not_taken_for_a_datetime() -> None:
    # datetime.datetime.replace() makes a datetime; datetime.date.replace() a date: its members are not
    # a datetime's (the table says what each class's constructor gives, not its base's)
    source = "import datetime\n\n\ndef f():\n    datetime.date.today().replace(day=1).weekday()\n"
    assert _calls(source, "f", "weekday") == {"?datetime.date.today().replace(day=1).weekday"}


def test_only_a_bare_class_decorator_makes_a_function_an_instance() -> None:
    # a function decorator, a class called with arguments and a class whose __new__ makes its
    # instances leave the name a function (its attribute unknown); a class-decorated function's return
    # annotation is not what calling the instance gives
    source = (
        "class Wrap:\n    def __init__(self, f=None):\n        self.f = f\n\n    def run(self):\n        pass\n\n\n"
        "class Made:\n    def __new__(cls, f):\n        return f\n\n    def run(self):\n        pass\n\n\n"
        "def deco(f):\n    return f\n\n\n"
        "@deco\ndef a():\n    pass\n\n\n"
        "@Wrap()\ndef b():\n    pass\n\n\n"
        "@Made\ndef c():\n    pass\n\n\n"
        "class Num:\n    def run(self):\n        pass\n\n\n"
        "@Wrap\ndef d() -> Num:\n    return Num()\n\n\n"
        "def use():\n    a.run()\n    b.run()\n    c.run()\n    d().run()\n    d.run()\n"
    )
    assert _calls(source, "use") == {"?a.run", "?b.run", "?c.run", "?d().run", "m.Wrap.run"}


def test_a_star_import_does_not_rebind_a_submodule_to_what_the_module_imports(tmp_path: Path) -> None:
    # ``from .core import *`` in pkg/__init__.py, core doing ``from . import util``: ``pkg.util`` stays the
    # submodule (asyncio's modules each import their siblings; a careless expansion made a cycle of them)
    write_files(tmp_path, {
        "pkg/__init__.py": "from .core import *\n",
        "pkg/core.py": "from . import util\n\n\nclass Core:\n    pass\n",
        "pkg/util.py": "class Util:\n    def run(self):\n        pass\n",
        "pkg/client.py": "import pkg.util\nfrom pkg import Core\n\n\ndef go():\n    pkg.util.Util().run()\n    Core()\n",
    })
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    calls = {u.target for u in index.by_module["pkg.client"].uses if u.kind == CALLS}
    assert calls == {"pkg.util.Util", "pkg.util.Util.run", "pkg.core.Core"}


def test_pop_of_a_mapping_or_of_a_class_of_its_own_is_no_item() -> None:
    # a dict's pop gives a value, not a key; a class's own pop gives what it returns, not what it iterates
    source = CLASSES + (
        "from typing import Any\n\n\n"
        "class Stack:\n    def __iter__(self):\n        return iter([A()])\n\n"
        "    def pop(self) -> C:\n        return C()\n\n\n"
        "def popped(m: dict[A, Any], s: Stack, xs: list[A]):\n"
        "    m.pop(A()).run()\n    s.pop().run()\n    xs.pop().run()\n"
    )
    assert _calls(source, "popped") == {"?m.pop(A()).run", "m.C.run", "m.A.run"}


def test_a_class_body_name_bound_earlier_in_the_body_is_the_class_s_own() -> None:
    # ``X = X`` reads the enclosing X only when the class body has not bound X before it
    source = CLASSES + (
        "class Holder:\n    def A(self):\n        pass\n\n    A = A\n\n    C = 1\n    C = C\n\n\n"
        "def use():\n    Holder.A(None)\n"
    )
    analysis = analyse_module(source.encode(), "m.py", "m")
    refs = {(u.line, u.target) for u in analysis.uses if u.source == "m.Holder"}
    assert refs == {(15, "m.Holder.A"), (18, "m.Holder.C")}


def test_modules_that_star_import_each_other_make_no_cycle_of_names(tmp_path: Path) -> None:
    # a.py: ``from .c import *`` then ``from .b import *``; b.py: ``from .a import *``: x is c's
    # everywhere (an expansion that let the later import win made a.x -> b.x -> a.x, a name of nothing)
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from .c import *\nfrom .b import *\n",
        "pkg/b.py": "from .a import *\n\n\ndef g():\n    x()\n",
        "pkg/c.py": "def x():\n    pass\n",
        "pkg/user.py": "from pkg.a import x\n\n\ndef u():\n    x()\n",
    })
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    calls = {(a.module, u.target) for a in index.modules for u in a.uses if u.kind == CALLS}
    assert calls == {("pkg.b", "pkg.c.x"), ("pkg.user", "pkg.c.x")}
