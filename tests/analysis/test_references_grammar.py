"""References the resolver lists for the grammar places and value kinds the
synthetic oracle (``semaprax bench oracle``, docs/performance.md "References
by a synthetic oracle") found missing against jedi: one case per rule, each
failing on the ``main`` it was written against, and the wrong targets a careless
version of each rule would name."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.index import WorkspaceIndex
from analysis.model import CALLS
from analysis.resolver import analyse_module
from analysis.sources import Workspace
from tests.workspacekit import write_files

BASE = '''\
import contextlib


class Conn:
    def send(self):
        return 1


class Base:
    def send(self):
        return 2


class Child(Base):
    def send(self):
        return super(Child, self).send()


class Grand(Child):
    def send(self):
        return super(Child, self).send()


class Maker:
    @classmethod
    def create(cls):
        return cls()

    def send(self):
        return 3


class SubMaker(Maker):
    def send(self):
        return 4


class Factory:
    def __call__(self) -> Conn:
        return Conn()


def gen():
    yield Conn()


@contextlib.contextmanager
def opened():
    conn = Conn()
    try:
        yield conn
    finally:
        pass


def pair():
    return Conn(), 1


class Lines:
    def __iter__(self):
        return self

    def __next__(self) -> Conn:
        return Conn()


helper = None


def reset():
    global helper, gen
    helper = 1
'''

USER = '''\
from pkg.m import Factory, Lines, Maker, SubMaker, gen, opened, pair


def use():
    Maker.create().send()
    SubMaker.create().send()
    Maker().create().send()
    make = Factory()
    make().send()
    for c in gen():
        c.send()
    with opened() as conn:
        conn.send()
    first, n = pair()
    first.send()
    for line in Lines():
        line.send()
'''


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> WorkspaceIndex:
    root: Path = tmp_path_factory.mktemp("grammar")
    write_files(root, {"pkg/__init__.py": "", "pkg/m.py": BASE, "pkg/a.py": USER})
    ws = Workspace(root)
    return WorkspaceIndex(ws, ws.python_files())


def _lines(index: WorkspaceIndex, qualname: str) -> set[tuple[str, int]]:
    return {(a.module, u.line) for a, u in index.uses_of(qualname)}


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.split("\n"), 1) if line.strip() == text)


@pytest.mark.parametrize(("rule", "qualname", "module", "text"), [
    # super(C, self).m is the m after C in C's method order, as super().m is in C
    ("two-argument super", "pkg.m.Base.send", "pkg.m", "return super(Child, self).send()"),
    # a classmethod whose every return is cls(...) makes the class it is called on
    ("classmethod factory on the class", "pkg.m.Maker.send", "pkg.a", "Maker.create().send()"),
    ("classmethod factory on a subclass", "pkg.m.SubMaker.send", "pkg.a", "SubMaker.create().send()"),
    ("classmethod factory on an instance", "pkg.m.Maker.send", "pkg.a", "Maker().create().send()"),
    # calling an instance gives what its class's __call__ returns
    ("__call__ of an instance", "pkg.m.Conn.send", "pkg.a", "make().send()"),
    # an unannotated generator yields the one class its yields make
    ("unannotated generator", "pkg.m.Conn.send", "pkg.a", "c.send()"),
    ("unannotated contextmanager yielding a local", "pkg.m.Conn.send", "pkg.a", "conn.send()"),
    # an unannotated function returning a tuple gives each place's class
    ("unannotated tuple return", "pkg.m.Conn.send", "pkg.a", "first.send()"),
    # __iter__ returning self: the loop binds what __next__ returns
    ("__iter__ returning an iterator", "pkg.m.Conn.send", "pkg.a", "line.send()"),
    # ``global gen`` names the module's function gen
    ("global statement", "pkg.m.gen", "pkg.m", "global helper, gen"),
])
def test_the_oracle_rules(index: WorkspaceIndex, rule: str, qualname: str, module: str, text: str) -> None:
    source = BASE if module == "pkg.m" else USER
    assert (module, _line(source, text)) in _lines(index, qualname), rule


def _call_targets(index: WorkspaceIndex, module: str, line: int) -> set[str]:
    a = index.by_module[module]
    return {u.target for u in a.uses if u.kind == CALLS and u.line == line}


def test_the_rules_name_no_wrong_target(index: WorkspaceIndex) -> None:
    # super(Child, self) in Grand skips Child's own send: Base's, not Child's (nor Grand's)
    grand = _line(BASE, "return super(Child, self).send()")
    grand = next(n for n, line in enumerate(BASE.split("\n"), 1)
                 if line.strip() == "return super(Child, self).send()" and n > grand)
    assert _call_targets(index, "pkg.m", grand) >= {"pkg.m.Base.send"}
    assert "pkg.m.Child.send" not in _call_targets(index, "pkg.m", grand)
    # a subclass's create() is the subclass: its override, not the declaring class's send
    sub = _line(USER, "SubMaker.create().send()")
    assert "pkg.m.Maker.send" not in _call_targets(index, "pkg.a", sub)
    # ``global helper, gen`` names the module's two names, nothing else
    reset = _line(BASE, "global helper, gen")
    assert {u.target for u in index.by_module["pkg.m"].uses if u.line == reset} == {"pkg.m.gen", "pkg.m.helper"}


def test_a_generator_or_tuple_of_mixed_or_rebound_values_gives_no_class(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": (
        "class A:\n    def run(self):\n        return 1\n\n\n"
        "class B:\n    def run(self):\n        return 2\n\n\n"
        "def mixed():\n    yield A()\n    yield B()\n\n\n"
        "def rebound():\n    x = A()\n    x = B()\n    yield x\n\n\n"
        "def nested():\n    def inner():\n        yield A()\n    return inner\n\n\n"
        "def pairs(flag):\n    if flag:\n        return A(), 1\n    return B(), 2\n\n\n"
        "class Maker:\n    @classmethod\n    def create(cls):\n        return cls()\n\n    def run(self):\n"
        "        return 3\n\n\n"
        "def use(unknown):\n"
        "    for a in mixed():\n        a.run()\n"
        "    for b in rebound():\n        b.run()\n"
        "    for c in nested():\n        c.run()\n"
        "    d, n = pairs(1)\n    d.run()\n"
        "    unknown.create().run()\n"
    )})
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    calls = {u.target for u in index.by_module["pkg.m"].uses
             if u.kind == CALLS and u.source == "pkg.m.use" and u.target.endswith(".run")}
    assert calls == {"?a.run", "?b.run", "?c.run", "?d.run", "?unknown.create().run"}


def test_a_module_variable_assigned_two_classes_has_neither() -> None:
    # ``x = A()``, then ``x = B()`` at the module's top level: x.run() after the
    # second is B's, which the first class named before (a wrong target)
    source = (
        "class A:\n    def run(self):\n        return 1\n\n\n"
        "class B:\n    def run(self):\n        return 2\n\n\n"
        "x = A()\nx = B()\nx.run()\n"                              # 13
        "y = A()\ny.run()\n"                                       # 15: bound once, an A
    )
    analysis = analyse_module(source.encode(), "m.py", "m")
    calls = {(u.line, u.target) for u in analysis.uses if u.kind == CALLS}
    assert (13, "m.A.run") not in calls
    assert (15, "m.A.run") in calls


def test_an_unannotated_function_returning_two_classes_gives_either(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": (
        "class A:\n    def run(self):\n        return 1\n\n\n"
        "class B:\n    def run(self):\n        return 2\n\n\n"
        "def pick(flag):\n    if flag:\n        return A()\n    return B()\n\n\n"
        "def maybe(flag):\n    if flag:\n        return A()\n    return None\n\n\n"
        "pick(1).run()\n"                                          # 23
        "maybe(1).run()\n"                                         # 24: an A or None, not a union of classes
    )})
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    assert _lines(index, "pkg.m.A.run") == {("pkg.m", 23)}
    assert _lines(index, "pkg.m.B.run") == {("pkg.m", 23)}


def test_an_attribute_set_to_an_imported_module_or_a_class_is_another_name_of_it(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": "def parse():\n    return 1\n",
                           "pkg/m.py": "class Conn:\n    def send(self):\n        return 1\n", "pkg/a.py": (
        "from pkg import helpers\n"
        "from pkg.m import Conn\n"
        "SETTINGS = {}\n"
        "class Md:\n"
        "    def __init__(self, local):\n"
        "        self.helpers = helpers\n"
        "        self.kind = Conn\n"
        "        self.settings = SETTINGS\n"
        "        self.local = local\n"
        "    def go(self):\n"
        "        self.helpers.parse()\n"                            # 11
        "        self.kind().send()\n"                              # 12
        "        self.settings.get(1)\n"                            # 13: a variable's: not SETTINGS.get
        "        self.local.parse()\n"                              # 14: a parameter's: unknown
    )})
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    assert ("pkg.a", 11) in _lines(index, "pkg.helpers.parse")
    assert ("pkg.a", 12) in _lines(index, "pkg.m.Conn.send")
    calls = {(u.line, u.target) for u in index.by_module["pkg.a"].uses if u.kind == CALLS}
    assert (13, "?self.settings.get") in calls
    assert (14, "?self.local.parse") in calls


def test_a_list_built_by_appends_of_one_class_has_items_of_it() -> None:
    source = (
        "class A:\n    def run(self):\n        return 1\n\n\n"
        "def built(n):\n    out = []\n    for i in range(n):\n        out.append(A())\n"
        "    for o in out:\n        o.run()\n\n\n"                   # 11
        "def extended(xs):\n    out = []\n    out.append(A())\n    out.extend(xs)\n"
        "    for o in out:\n        o.run()\n\n\n"                   # 19: extended by unknown items
        "def stored(x):\n    out = []\n    out.append(A())\n    out[0] = x\n"
        "    for o in out:\n        o.run()\n"                       # 27
    )
    analysis = analyse_module(source.encode(), "m.py", "m")
    calls = {(u.line, u.target) for u in analysis.uses if u.kind == CALLS and u.target.endswith("run")}
    assert calls == {(11, "m.A.run"), (19, "?o.run"), (27, "?o.run")}


def test_module_level_handlers_factories_and_getattr() -> None:
    source = (
        "import functools\n\n\n"
        "class A(Exception):\n    def run(self):\n        return 1\n\n\n"       # 4-6
        "class H:\n    conn = A()\n\n\n"                                        # 9-10
        "try:\n    pass\nexcept A as e:\n    e.run()\n"                        # 16: e is an A
        "make = lambda: A()\n"
        "make().run()\n"                                                       # 18
        "part = functools.partial(A, 1)\n"
        "part().run()\n"                                                       # 20
        "getattr(H(), \"conn\").run()\n"                                       # 21
        "getattr(H(), \"conn\", None).run()\n"                                 # 22: or the default
        "other = lambda x: x\n"
        "other(1).run()\n"                                                     # 24: no class
    )
    analysis = analyse_module(source.encode(), "m.py", "m")
    calls = {(u.line, u.target) for u in analysis.uses if u.kind == CALLS and u.target.endswith("run")}
    assert {line for line, target in calls if target == "m.A.run"} == {16, 18, 20, 21}
    assert {line for line, target in calls if target != "m.A.run"} == {22, 24}


def test_an_optional_import_set_to_none_on_failure_is_still_the_import(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": "class Conn:\n    pass\n", "pkg/a.py": (
        "try:\n    from pkg.m import Conn\nexcept ImportError:\n    Conn = None\n"
        "x = Conn()\n"                                              # 5
        "try:\n    pass\nexcept ImportError:\n    Other = None\n"  # no import in the try: a plain variable
        "def f():\n    return Other\n"
    )})
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    assert ("pkg.a", 5) in _lines(index, "pkg.m.Conn")
    assert any(u.target == "pkg.a.Other" for u in index.by_module["pkg.a"].uses)


def test_max_min_replace_and_async_generators() -> None:
    source = (
        "import dataclasses\n\n\n"
        "@dataclasses.dataclass\nclass A:\n    n: int = 0\n\n    def run(self):\n        return 1\n\n\n"  # 4-9
        "async def agen():\n    yield A()\n\n\n"                   # 12-13
        "async def use(xs: list[A]):\n"                             # 16
        "    max(xs).run()\n"                                       # 17
        "    min(xs, key=id).run()\n"                               # 18
        "    max(xs, default=None).run()\n"                         # 19: or the default
        "    dataclasses.replace(xs[0], n=1).run()\n"               # 20
        "    async for a in agen():\n        a.run()\n"             # 22
    )
    analysis = analyse_module(source.encode(), "m.py", "m")
    calls = {(u.line, u.target) for u in analysis.uses if u.kind == CALLS and u.target.endswith("run")}
    assert {line for line, target in calls if target == "m.A.run"} == {17, 18, 20, 22}
    assert (19, "m.A.run") not in calls


def test_built_in_containers_pop_copy_filter_and_chain() -> None:
    source = (
        "import collections\nimport itertools\n\n\n"
        "class A:\n    def run(self):\n        return 1\n\n\n"                # 5-7
        "class Stack:\n    def pop(self) -> int:\n        return 1\n\n\n"     # 10-12: a pop of its own
        "def use(xs: list[A], q: 'collections.deque[A]', s: Stack, other: list[int]):\n"   # 15
        "    xs.pop().run()\n"                                          # 16
        "    q.popleft().run()\n"                                       # 17
        "    for a in xs.copy():\n        a.run()\n"                     # 19
        "    for b in filter(None, xs):\n        b.run()\n"              # 21
        "    for c in itertools.chain(xs, xs):\n        c.run()\n"       # 23
        "    for d in itertools.chain(xs, other):\n        d.run()\n"    # 25: two item classes
        "    s.pop().run()\n"                                           # 26: Stack.pop gives an int
    )
    analysis = analyse_module(source.encode(), "m.py", "m")
    calls = {(u.line, u.target) for u in analysis.uses if u.kind == CALLS and u.target.endswith("run")}
    assert {line for line, target in calls if target == "m.A.run"} == {16, 17, 19, 21, 23}


def test_a_generic_class_method_returning_its_parameter_gives_the_type_argument(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/box.py": (
        "from typing import Generic, Optional, TypeVar\n"
        "T = TypeVar('T')\n"
        "U = TypeVar('U')\n"
        "class Box(Generic[T]):\n"
        "    def get(self) -> T:\n        raise NotImplementedError\n"
        "class Pair(Box[U], Generic[T, U]):\n"                    # Box's T is Pair's U: its own order
        "    def first(self) -> T:\n        raise NotImplementedError\n"
    ), "pkg/a.py": (
        "from typing import Optional\n"
        "from pkg.box import Box, Pair\n"
        "class A:\n    def run(self):\n        return 1\n"
        "class B:\n    def run(self):\n        return 2\n"
        "class Holder:\n    inner: 'Box[A]'\n"
        "def use(b: Box[A], o: Optional[Box[A]], p: Pair[A, B], h: Holder):\n"   # 11
        "    b.get().run()\n"                                     # 12
        "    if o is not None:\n        o.get().run()\n"          # 14
        "    h.inner.get().run()\n"                               # 15
        "    p.first().run()\n"                                   # 16: Pair's T: an A
        "    p.get().run()\n"                                     # 17: Box's T is Pair's U (a B): not named
    )})
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    calls = {(u.line, u.target) for u in index.by_module["pkg.a"].uses if u.kind == CALLS and u.target.endswith("run")}
    assert {line for line, target in calls if target == "pkg.a.A.run"} == {12, 14, 15, 16}
    assert (17, "pkg.a.A.run") not in calls
