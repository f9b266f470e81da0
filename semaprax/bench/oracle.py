"""References of a definition against jedi on a table of tiny synthetic
workspaces: every place in Python's grammar a name can be used and the common
ways a value gets its class, one case each. jedi is a dev-only dependency
(``pip install -e '.[dev]'``); nothing at run time imports it or this script.

    semaprax bench oracle [--only TEXT] [--differing] [--list]

Each case is two or three modules of a package ``pkg`` and one definition in it
(a function, method or class). jedi's ``get_references(scope="project")`` lines
for it (without the definition itself) are compared with the lines
``WorkspaceIndex.uses_of`` lists. Per case: jedi's lines, ours, missed (jedi's
that we do not list), extra (ours that jedi does not list).

A line marked ``# over`` in a case is one jedi lists and Python would not reach
(jedi closes over every class a name may be bound to, over overrides, ...):
the case records "jedi over-lists", and such a line is not counted as missed
when we leave it out (nor among jedi's lines). A line
marked ``# under`` is a use Python reaches that jedi does not list: listing it
is right, and it is not counted as extra.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from analysis.index import WorkspaceIndex
from analysis.sources import Workspace


class Case(NamedTuple):
    name: str
    #: the definition, its qualified name inside ``pkg`` ("m.C.f" is ``pkg.m.C.f``)
    target: str
    #: the modules: a line ``## NAME`` starts ``pkg/NAME.py`` (``## sub/x``, ``## __init__``)
    files: str


def _files(case: Case) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in case.files.strip("\n").split("\n"):
        if line.startswith("## "):
            current = out.setdefault(f"pkg/{line[3:].strip()}.py", [])
        elif current is not None:
            current.append(line)
    files = {path: "\n".join(lines) + "\n" for path, lines in out.items()}
    for path in list(files):  # every folder a package
        parts = path.split("/")[:-1]
        for k in range(1, len(parts) + 1):
            files.setdefault("/".join([*parts[:k], "__init__.py"]), "")
    return files


def _marked(files: dict[str, str], mark: str) -> set[tuple[str, int]]:
    return {(path, n) for path, text in files.items() for n, line in enumerate(text.split("\n"), 1)
            if line.rstrip().endswith(f"# {mark}")}


def run_case(case: Case, jedi: Any) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f"oracle.{case.name}."))
    try:
        files = _files(case)
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)
        ws = Workspace(tmp)
        index = WorkspaceIndex(ws, ws.python_files())
        qualname = f"pkg.{case.target}"
        loc = index.definitions.get(qualname)
        if loc is None:
            return {"error": f"no definition {qualname} in our index"}
        path, start = loc.analysis.path, loc.definition.start
        lines = files[path].split("\n")
        name = qualname.rsplit(".", 1)[1]
        word = "class " if loc.definition.kind == "class" else "def "
        for line_no in range(start, len(lines) + 1):
            at = lines[line_no - 1].find(word + name)
            if at >= 0:
                at += len(word)
                break
        else:
            return {"error": f"no '{word}{name}' from line {start} of {path}"}
        project = jedi.Project(tmp, added_sys_path=[])
        refs = jedi.Script(path=str(tmp / path), project=project).get_references(line_no, at, scope="project")
        inside = [(Path(r.module_path).relative_to(tmp).as_posix(), r.line, r.is_definition()) for r in refs
                  if r.module_path and str(r.module_path).startswith(str(tmp))]
        theirs = {(p, n) for p, n, is_def in inside if not is_def}
        # jedi holds an import of the name (``from pkg.m import f``) as a definition: we list it as a use
        imports = {(p, n) for p, n, is_def in inside if is_def}
        ours = {(a.path, u.line) for a, u in index.uses_of(qualname)}
        over, under = _marked(files, "over"), _marked(files, "under")
        return {"jedi": theirs, "ours": ours, "missed": theirs - ours - over,
                "extra": ours - theirs - under - imports,
                "over": theirs & over, "under": under - theirs}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _spell(lines: set[tuple[str, int]]) -> str:
    return " ".join(f"{p.removeprefix('pkg/').removesuffix('.py')}:{n}" for p, n in sorted(lines)) or "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="only the cases whose name contains this text")
    parser.add_argument("--differing", action="store_true", help="print only the cases that miss or add a line")
    parser.add_argument("--list", action="store_true", help="print each case's modules before its figures")
    args = parser.parse_args(argv)
    try:
        import jedi
    except ImportError:
        raise SystemExit("jedi is not installed: pip install -e '.[dev]'") from None
    cases = [c for c in CASES if args.only in c.name]
    print(f"jedi {jedi.__version__}, Python {sys.version.split()[0]}, {len(cases)} cases\n")
    print("| case | jedi | ours | missed | extra | jedi over-lists |")
    print("|---|---|---|---|---|---|")
    agree = missed = extra = total = over_cases = 0
    errors = []
    started = time.perf_counter()
    for case in cases:
        r = run_case(case, jedi)
        if "error" in r:
            errors.append(f"{case.name}: {r['error']}")
            continue
        total += len(r["jedi"] - r["over"])
        missed += len(r["missed"])
        extra += len(r["extra"])
        over_cases += bool(r["over"])
        same = not r["missed"] and not r["extra"]
        agree += same
        if args.differing and same:
            continue
        if args.list:
            print(f"\n{case.files.strip()}\n")
        print(f"| {case.name} | {_spell(r['jedi'])} | {_spell(r['ours'])} | {_spell(r['missed'])} | "
              f"{_spell(r['extra'])} | {_spell(r['over'])} |", flush=True)
    for e in errors:
        print(f"error: {e}")
    found = total - missed
    print(f"\n{len(cases)} cases, {agree} agreeing, {over_cases} where jedi over-lists; jedi's lines (without the "
          f"over-listed) {total}, missed {missed} ({100 * found / max(total, 1):.1f}% found), extra {extra}; "
          f"{time.perf_counter() - started:.1f} s", flush=True)
    return 1 if errors else 0


# The cases. (a) where a name is used, (b) how a value gets its class.
_A = [
    Case("decorator_plain", "m.deco", """
## m
def deco(f):
    return f
## a
from pkg.m import deco
@deco
def g():
    pass
"""),
    Case("decorator_called", "m.deco", """
## m
def deco(n):
    return lambda f: f
## a
from pkg.m import deco
@deco(3)
def g():
    pass
"""),
    Case("decorator_dotted", "m.deco", """
## m
def deco(f):
    return f
## a
from pkg import m
@m.deco
def g():
    pass
"""),
    Case("decorator_method_of_instance", "m.Registry.register", """
## m
class Registry:
    def register(self, f):
        return f
registry = Registry()
## a
from pkg.m import registry
@registry.register
def g():
    pass
"""),
    Case("decorator_on_class", "m.deco", """
## m
def deco(c):
    return c
## a
from pkg.m import deco
@deco
class K:
    pass
"""),
    Case("class_base", "m.Base", """
## m
class Base:
    pass
## a
from pkg.m import Base
class Dcls(Base):
    pass
"""),
    Case("class_base_dotted", "m.Base", """
## m
class Base:
    pass
## a
from pkg import m
class Dcls(m.Base):
    pass
"""),
    Case("class_base_generic", "m.Box", """
## m
from typing import Generic, TypeVar
T = TypeVar("T")
class Box(Generic[T]):
    pass
## a
from pkg.m import Box
class IntBox(Box[int]):
    pass
"""),
    Case("class_metaclass_keyword", "m.Meta", """
## m
class Meta(type):
    pass
## a
from pkg.m import Meta
class K(metaclass=Meta):
    pass
"""),
    Case("class_other_keyword", "m.Opt", """
## m
class Opt:
    pass
class Base:
    def __init_subclass__(cls, option=None, **kw):
        pass
## a
from pkg.m import Base, Opt
class K(Base, option=Opt):
    pass
"""),
    Case("annotation_parameter", "m.Xcls", """
## m
class Xcls:
    pass
## a
from pkg.m import Xcls
def f(x: Xcls, *args: Xcls, **kw: Xcls) -> None:
    pass
"""),
    Case("annotation_return", "m.Xcls", """
## m
class Xcls:
    pass
## a
from pkg.m import Xcls
def f() -> Xcls:
    return Xcls()
"""),
    Case("annotation_variable", "m.Xcls", """
## m
class Xcls:
    pass
## a
from pkg.m import Xcls
v: Xcls
w: "Xcls | None" = None  # under
def f():
    loc: Xcls = Xcls()
    return loc
"""),
    Case("annotation_class_level", "m.Xcls", """
## m
class Xcls:
    pass
## a
from typing import ClassVar
from pkg.m import Xcls
class K:
    a: Xcls
    b: ClassVar[Xcls]
    c: "list[Xcls]"  # under
"""),
    Case("annotation_string", "m.Xcls", """
## m
class Xcls:
    pass
## a
from pkg.m import Xcls
def f(x: "Xcls") -> "Xcls":  # under
    return x
"""),
    Case("annotation_string_dotted", "m.Xcls", """
## m
class Xcls:
    pass
## a
from pkg import m
def f(x: "m.Xcls") -> None:  # under
    pass
"""),
    Case("annotation_string_dotted_package", "m.Xcls", """
## m
class Xcls:
    pass
## a
import pkg.m
def f(x: "pkg.m.Xcls") -> None:  # under
    pass
"""),
    Case("annotation_string_generic", "m.Xcls", """
## m
class Xcls:
    pass
## a
from pkg.m import Xcls
def f(x: "list[Xcls]", y: "dict[str, Xcls]") -> None:  # under
    pass
"""),
    Case("annotation_optional_string", "m.Xcls", """
## m
class Xcls:
    pass
## a
from typing import Optional, Union
from pkg.m import Xcls
def f(x: Optional["Xcls"], y: Union["Xcls", int]) -> None:  # under
    pass
"""),
    Case("annotation_callable", "m.Xcls", """
## m
class Xcls:
    pass
## a
from typing import Callable
from pkg.m import Xcls
def f(cb: Callable[[Xcls], Xcls]) -> None:
    pass
"""),
    Case("cast_string", "m.Xcls", """
## m
class Xcls:
    pass
## a
from typing import cast
from pkg.m import Xcls
def f(v):
    return cast("Xcls", v)  # under
"""),
    Case("cast_name", "m.Xcls", """
## m
class Xcls:
    pass
## a
import typing
from pkg.m import Xcls
def f(v):
    return typing.cast(Xcls, v)
"""),
    Case("type_checking_import", "m.Xcls", """
## m
class Xcls:
    pass
## a
from __future__ import annotations
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from pkg.m import Xcls
def f(x: Xcls) -> Xcls:
    return x
"""),
    Case("default_value_call", "m.make", """
## m
def make():
    return 1
## a
from pkg.m import make
def f(x=make(), *, y=make):
    return x
"""),
    Case("lambda_body", "m.helper", """
## m
def helper(x):
    return x
## a
from pkg.m import helper
g = lambda v: helper(v)
"""),
    Case("lambda_default", "m.helper", """
## m
def helper(x):
    return x
## a
from pkg.m import helper
g = lambda v, h=helper: h(v)
"""),
    Case("comprehension_list", "m.helper", """
## m
def helper(x):
    return x
## a
from pkg.m import helper
xs = [helper(v) for v in range(3)]
"""),
    Case("comprehension_set_dict_gen", "m.helper", """
## m
def helper(x):
    return x
## a
from pkg.m import helper
s = {helper(v) for v in range(3)}
d = {helper(v): helper(v) for v in range(3)}
g = sum(helper(v) for v in range(3))
"""),
    Case("comprehension_condition_iter", "m.helper", """
## m
def helper(x):
    return [x]
## a
from pkg.m import helper
xs = [v for v in helper(3) if helper(v)]
ys = [w for v in helper(1) for w in helper(v)]
"""),
    Case("comprehension_in_class_body", "m.helper", """
## m
def helper(x):
    return x
## a
from pkg.m import helper
class K:
    items = [helper(v) for v in range(3)]
"""),
    Case("fstring", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
s = f"a {helper()} b"
t = f"{helper()!r:>10}"
"""),
    Case("fstring_nested", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
s = f"{f'{helper()}'}"
t = f"{3:{helper()}}"
"""),
    Case("match_class_pattern", "m.Point", """
## m
class Point:
    __match_args__ = ("x",)
    def __init__(self, x):
        self.x = x
## a
from pkg.m import Point
def f(v):
    match v:
        case Point(x=1):
            return 1
        case Point(2):
            return 2
"""),
    Case("match_value_pattern", "m.Color", """
## m
import enum
class Color(enum.Enum):
    RED = 1
## a
from pkg.m import Color
def f(v):
    match v:
        case Color.RED:
            return 1
"""),
    Case("match_or_pattern", "m.Ycls", """
## m
class Xcls:
    pass
class Ycls:
    pass
## a
from pkg.m import Xcls, Ycls
def f(v):
    match v:
        case Xcls() | Ycls():
            return 1
        case [Ycls(), *rest]:
            return rest
        case {"k": Ycls() as y}:
            return y
"""),
    Case("match_subject", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
def f():
    match helper():
        case 1 if helper():
            return 1
"""),
    Case("global_statement", "m.helper", """
## m
def helper():
    return 1
def reset():
    global helper
    helper = None
## a
from pkg import m
m.helper()
"""),
    Case("nonlocal_statement", "m.outer", """
## m
def outer():
    def inner():
        nonlocal x
        x = outer
    x = 1
    return inner
## a
from pkg.m import outer
outer()
"""),
    Case("del_statement", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
helper()
del helper
"""),
    Case("augmented_assignment", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
total = 0
total += helper()
"""),
    Case("starred", "m.helper", """
## m
def helper():
    return [1, 2]
## a
from pkg.m import helper
print(*helper())
xs = [*helper()]
first, *rest = helper()
d = {**{"a": helper()}}
"""),
    Case("slices_subscripts", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
xs = [1, 2, 3]
a = xs[helper():helper()]
b = xs[helper()]
xs[helper()] = 4
"""),
    Case("subscripted_generic_class", "m.Box", """
## m
from typing import Generic, TypeVar
T = TypeVar("T")
class Box(Generic[T]):
    pass
## a
from pkg.m import Box
b = Box[int]()
def f(x: Box[str]) -> None:
    pass
"""),
    Case("keyword_arguments", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
print(sep=helper(), end=helper)
print(**{"end": helper()})
"""),
    Case("raise_from", "m.Cause", """
## m
class Err(Exception):
    pass
class Cause(Exception):
    pass
## a
from pkg.m import Cause, Err
def f():
    raise Err() from Cause()
def g():
    raise Cause
"""),
    Case("except_tuple", "m.Bcls", """
## m
class Acls(Exception):
    pass
class Bcls(Exception):
    pass
## a
from pkg.m import Acls, Bcls
try:
    pass
except (Acls, Bcls):
    pass
except Bcls as e:
    print(e)
"""),
    Case("with_several", "m.Bcls", """
## m
class Acls:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        pass
class Bcls(Acls):
    pass
## a
from pkg.m import Acls, Bcls
with Acls() as a, Bcls() as b:
    pass
"""),
    Case("assert_statement", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
assert helper(), helper()
"""),
    Case("yield_await", "m.helper", """
## m
def helper():
    return [1]
async def ahelper():
    return 1
## a
from pkg.m import helper, ahelper
def gen():
    yield helper()
    yield from helper()
async def co():
    await ahelper()
    return helper()
"""),
    Case("conditional_expression", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
x = helper() if helper() else helper()
"""),
    Case("chained_comparison", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
ok = 0 < helper() <= helper() != 3
"""),
    Case("isinstance_tuple", "m.Bcls", """
## m
class Acls:
    pass
class Bcls:
    pass
## a
from pkg.m import Acls, Bcls
def f(x):
    return isinstance(x, (Acls, Bcls)) or issubclass(type(x), Bcls)
"""),
    Case("super_bare", "m.Base.meth", """
## m
class Base:
    def meth(self):
        return 1
class Dcls(Base):
    def meth(self):
        return super().meth()
## a
from pkg.m import Base
Base().meth()
"""),
    Case("super_explicit", "m.Base.meth", """
## m
class Base:
    def meth(self):
        return 1
## a
from pkg.m import Base
class Dcls(Base):
    def meth(self):
        return super(Dcls, self).meth()
"""),
    Case("super_init", "m.Base.__init__", """
## m
class Base:
    def __init__(self, x):
        self.x = x
## a
from pkg.m import Base
class Dcls(Base):
    def __init__(self):
        super().__init__(1)
"""),
    Case("slots_class", "m.Scls.meth", """
## m
class Scls:
    __slots__ = ("a",)
    def __init__(self):
        self.a = 1
    def meth(self):
        return self.a
## a
from pkg.m import Scls
Scls().meth()
s = Scls()
s.meth()
"""),
    Case("property_read", "m.Ccls.size", """
## m
class Ccls:
    @property
    def size(self):
        return 1
## a
from pkg.m import Ccls
c = Ccls()
print(c.size)
"""),
    Case("property_setter", "m.Ccls.size", """
## m
class Ccls:
    @property
    def size(self):
        return 1
    @size.setter
    def size(self, v):
        pass
## a
from pkg.m import Ccls
c = Ccls()
c.size = 3
"""),
    Case("classmethod_ways", "m.Ccls.make", """
## m
class Ccls:
    @classmethod
    def make(cls):
        return cls()
    @classmethod
    def again(cls):
        return cls.make()
    def other(self):
        return type(self).make()
## a
from pkg.m import Ccls
Ccls.make()
Ccls().make()
"""),
    Case("staticmethod_ways", "m.Ccls.tool", """
## m
class Ccls:
    @staticmethod
    def tool():
        return 1
    def other(self):
        return self.tool() + type(self).tool()
    @classmethod
    def more(cls):
        return cls.tool()
## a
from pkg.m import Ccls
Ccls.tool()
Ccls().tool()
"""),
    Case("nested_class", "m.Outer.Inner.meth", """
## m
class Outer:
    class Inner:
        def meth(self):
            return 1
    def use(self):
        return self.Inner().meth()
## a
from pkg.m import Outer
Outer.Inner().meth()
"""),
    Case("nested_class_itself", "m.Outer.Inner", """
## m
class Outer:
    class Inner:
        pass
    def use(self):
        return self.Inner()
## a
from pkg.m import Outer
x = Outer.Inner()
"""),
    Case("reexport_init", "m.Xcls", """
## __init__
from .m import Xcls
__all__ = ["Xcls"]
## m
class Xcls:
    pass
## a
from pkg import Xcls
Xcls()
"""),
    Case("from_dot_import_module", "m.Xcls", """
## m
class Xcls:
    pass
## a
from . import m
m.Xcls()
"""),
    Case("import_dotted_module", "m.fun", """
## m
def fun():
    return 1
## a
import pkg.m
pkg.m.fun()
"""),
    Case("import_dotted_as", "m.fun", """
## m
def fun():
    return 1
## a
import pkg.m as c
c.fun()
"""),
    Case("relative_levels", "m.fun", """
## m
def fun():
    return 1
## sub/x
from ..m import fun
fun()
## sub/deep/y
from ...m import fun as g
from ... import m
g()  # under
m.fun()
"""),
    Case("import_inside_function", "m.fun", """
## m
def fun():
    return 1
## a
def g():
    from pkg.m import fun
    return fun()
def h():
    import pkg.m
    return pkg.m.fun()
"""),
    Case("dunder_all_strings", "m.fun", """
## m
__all__ = ["fun"]
def fun():
    return 1
## a
from pkg.m import *
fun()
"""),
    Case("module_attribute_from_package", "sub.mod.Xcls", """
## sub/mod
class Xcls:
    pass
## a
from pkg.sub import mod
mod.Xcls()
y: mod.Xcls
"""),
    Case("walrus", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
if (v := helper()):
    print(v)
"""),
    Case("return_value_name", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
def get():
    return helper
table = {"h": helper, "l": [helper]}
"""),
    Case("operators", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
x = -helper() + helper() * 2
y = helper() and not helper()
"""),
    Case("call_of_call", "m.helper", """
## m
def helper():
    return helper
## a
from pkg.m import helper
helper()()
"""),
    Case("type_alias", "m.Xcls", """
## m
class Xcls:
    pass
## a
from pkg.m import Xcls
Alias = Xcls
y = Alias()  # under
"""),
    Case("async_for_with", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
async def f(xs, cm):
    async for x in xs:
        helper()
    async with cm:
        helper()
"""),
    Case("try_else_finally_while", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
while helper():
    try:
        helper()
    except Exception:
        helper()
    else:
        helper()
    finally:
        helper()
"""),
    Case("getattr_string", "m.helper", """
## m
def helper():
    return 1
## a
from pkg import m
getattr(m, "helper")()
"""),
    Case("closure", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
def outer():
    def inner():
        return helper()
    return inner
"""),
    Case("class_body_name", "m.helper", """
## m
def helper():
    return 1
## a
from pkg.m import helper
class K:
    x = helper()
    y = staticmethod(helper)
"""),
    Case("annotated_and_final", "m.Xcls", """
## m
class Xcls:
    pass
## a
from typing import Annotated, Final
from pkg.m import Xcls
a: Annotated[Xcls, "meta"]
b: Final[Xcls] = Xcls()
"""),
    Case("type_statement_of_alias", "m.Xcls", """
## m
class Xcls:
    pass
## a
from typing import TypeAlias
from pkg.m import Xcls
Many: TypeAlias = "list[Xcls]"
def f(x: Many) -> None:
    pass
"""),
]

_B = [
    Case("value_constructor", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
c = Ccls()
c.meth()
Ccls().meth()
"""),
    Case("value_factory_annotated", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
def make() -> Ccls:
    return Ccls()
## a
from pkg.m import make
make().meth()
x = make()
x.meth()
"""),
    Case("value_factory_unannotated", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
def make():
    return Ccls()
## a
from pkg.m import make
make().meth()
x = make()
x.meth()
"""),
    Case("value_factory_string_return", "m.Ccls.meth", """
## m
def make() -> "Ccls":
    return Ccls()
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import make
make().meth()
"""),
    Case("value_attr_in_init", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    def __init__(self):
        self.c = Ccls()
    def go(self):
        return self.c.meth()
H().c.meth()
"""),
    Case("value_attr_in_other_method", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    def setup(self):
        self.c = Ccls()
    def go(self):
        return self.c.meth()
"""),
    Case("value_class_attribute", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    c = Ccls()
    def go(self):
        return self.c.meth()
H.c.meth()
H().c.meth()
"""),
    Case("value_dataclass_field", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from dataclasses import dataclass, field
from pkg.m import Ccls
@dataclass
class Dcls:
    c: Ccls
    d: Ccls = field(default_factory=Ccls)
    def go(self):
        return self.c.meth()
Dcls(Ccls()).c.meth()
Dcls(Ccls()).d.meth()
"""),
    Case("value_namedtuple_field", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from typing import NamedTuple
from pkg.m import Ccls
class P(NamedTuple):
    c: Ccls
p = P(Ccls())
p.c.meth()
"""),
    Case("value_set_in_new", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    def __new__(cls):
        self = super().__new__(cls)
        self.c = Ccls()
        return self
    def go(self):
        return self.c.meth()
"""),
    Case("value_metaclass_method", "m.Meta.meth", """
## m
class Meta(type):
    def meth(cls):
        return 1
class K(metaclass=Meta):
    pass
## a
from pkg.m import K
K.meth()
"""),
    Case("value_class_level_instance", "m.Xcls.meth", """
## m
class Xcls:
    def meth(self):
        return 1
Xcls.default = Xcls()
## a
from pkg.m import Xcls
Xcls.default.meth()
"""),
    Case("value_module_global", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
INST = Ccls()
## a
from pkg.m import INST
from pkg import m
INST.meth()
m.INST.meth()
"""),
    Case("value_list_container", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
items = [Ccls(), Ccls()]
items[0].meth()
for it in items:
    it.meth()
"""),
    Case("value_dict_container", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
d = {"a": Ccls()}
d["a"].meth()
for v in d.values():
    v.meth()
"""),
    Case("value_tuple_container", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Dcls:
    def meth(self):
        return 2
## a
from pkg.m import Ccls, Dcls
t = (Ccls(), Dcls())
t[0].meth()
a, b = t
a.meth()
b.meth()
"""),
    Case("value_unpacking", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Dcls:
    def meth(self):
        return 2
## a
from pkg.m import Ccls, Dcls
a, b = Ccls(), Dcls()
a.meth()
(x, y), z = (Ccls(), Dcls()), Ccls()
x.meth()
z.meth()
"""),
    Case("value_with_self", "m.Ccls.meth", """
## m
class Ccls:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        pass
    def meth(self):
        return 1
## a
from pkg.m import Ccls
with Ccls() as c:
    c.meth()
"""),
    Case("value_with_other", "m.Rcls.meth", """
## m
class Rcls:
    def meth(self):
        return 1
class Ccls:
    def __enter__(self) -> Rcls:
        return Rcls()
    def __exit__(self, *a):
        pass
## a
from pkg.m import Ccls
with Ccls() as r:
    r.meth()
"""),
    Case("value_partial", "m.Ccls.meth", """
## m
class Ccls:
    def __init__(self, n):
        self.n = n
    def meth(self):
        return 1
## a
import functools
from pkg.m import Ccls
make = functools.partial(Ccls, 1)
make().meth()
"""),
    Case("value_classmethod_factory", "m.Ccls.meth", """
## m
class Ccls:
    @classmethod
    def create(cls):
        return cls()
    def meth(self):
        return 1
## a
from pkg.m import Ccls
Ccls.create().meth()
c = Ccls.create()
c.meth()
"""),
    Case("value_self_type", "m.Ccls.meth", """
## m
from typing import Self
class Ccls:
    def copy(self) -> Self:
        return self
    def meth(self):
        return 1
class Dcls(Ccls):
    pass
## a
from pkg.m import Ccls, Dcls
Ccls().copy().meth()
Dcls().copy().meth()
"""),
    Case("value_generic", "m.Ccls.meth", """
## m
from typing import Generic, TypeVar
T = TypeVar("T")
class Ccls:
    def meth(self):
        return 1
class Box(Generic[T]):
    def __init__(self, v: T):
        self.v = v
    def get(self) -> T:
        return self.v
## a
from pkg.m import Box, Ccls
def f(b: Box[Ccls]):
    b.get().meth()
Box(Ccls()).get().meth()
"""),
    Case("value_property_return", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class H:
    @property
    def c(self) -> Ccls:
        return Ccls()
## a
from pkg.m import H
H().c.meth()
"""),
    Case("value_property_unannotated", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class H:
    @property
    def c(self):
        return Ccls()
## a
from pkg.m import H
H().c.meth()
"""),
    Case("value_dunder_call", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Factory:
    def __call__(self) -> Ccls:
        return Ccls()
## a
from pkg.m import Factory
f = Factory()
f().meth()
"""),
    Case("value_dunder_getitem", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Coll:
    def __getitem__(self, i) -> Ccls:
        return Ccls()
## a
from pkg.m import Coll
Coll()[0].meth()
"""),
    Case("value_dunder_iter_next", "m.Ccls.meth", """
## m
from typing import Iterator
class Ccls:
    def meth(self):
        return 1
class Coll:
    def __iter__(self) -> Iterator[Ccls]:
        yield Ccls()
class It:
    def __iter__(self):
        return self
    def __next__(self) -> Ccls:
        return Ccls()
## a
from pkg.m import Coll, It
for c in Coll():
    c.meth()
next(It()).meth()
for d in It():
    d.meth()
"""),
    Case("value_inheritance_chain", "m.Acls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls(Acls):
    pass
class Ccls(Bcls):
    pass
## a
from pkg.m import Ccls
class Dcls(Ccls):
    pass
Dcls().meth()
Ccls().meth()
"""),
    Case("value_mixin", "m.Mixin.meth", """
## m
class Mixin:
    def meth(self):
        return 1
class Base:
    pass
## a
from pkg.m import Base, Mixin
class K(Base, Mixin):
    def go(self):
        return self.meth()
K().meth()
"""),
    Case("value_override", "m.Acls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls(Acls):
    def meth(self):
        return super().meth()
## a
from pkg.m import Acls, Bcls
Acls().meth()
Bcls().meth()  # over
"""),
    Case("value_param_annotated", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(c: Ccls, o: "Ccls | None" = None):
    c.meth()
    if o is not None:
        o.meth()
"""),
    Case("value_isinstance_narrowing", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(x):
    if isinstance(x, Ccls):
        x.meth()  # under
"""),
    Case("value_attribute_chain", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Bcls:
    def __init__(self):
        self.c = Ccls()
class Acls:
    def __init__(self):
        self.b = Bcls()
## a
from pkg.m import Acls
a = Acls()
a.b.c.meth()
"""),
    Case("value_async_factory", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
async def make() -> Ccls:
    return Ccls()
## a
from pkg.m import make
async def go():
    c = await make()
    c.meth()
    (await make()).meth()
"""),
    Case("value_lambda_factory", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
make = lambda: Ccls()
make().meth()
"""),
    Case("value_cls_call", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
    @classmethod
    def go(cls):
        cls().meth()
    def again(self):
        type(self)().meth()
"""),
    Case("value_unbound_call", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
Ccls.meth(Ccls())
f = Ccls.meth
"""),
    Case("value_conditional", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(flag):
    x = Ccls() if flag else Ccls()
    x.meth()
"""),
    Case("value_global_in_function", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
inst = None
def setup():
    global inst
    inst = Ccls()
def use():
    inst.meth()
"""),
    Case("value_default_instance", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(c=Ccls()):
    c.meth()
"""),
    Case("value_list_append", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
items = []
items.append(Ccls())
for i in items:
    i.meth()
"""),
    Case("value_enumerate_zip", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
cs = [Ccls()]
for i, c in enumerate(cs):
    c.meth()
for a, b in zip(cs, cs):
    a.meth()  # under
"""),
    Case("value_dict_items", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(d: dict[str, Ccls]):
    for k, v in d.items():
        v.meth()
    d.get("k").meth()
    d["k"].meth()
"""),
    Case("value_sorted_reversed", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
cs = [Ccls()]
for a in sorted(cs):
    a.meth()
for b in reversed(cs):
    b.meth()
"""),
    Case("value_copy", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
import copy
from pkg.m import Ccls
c = copy.copy(Ccls())
c.meth()
copy.deepcopy(c).meth()
"""),
    Case("value_exception_instance", "m.Err.meth", """
## m
class Err(Exception):
    def meth(self):
        return 1
## a
from pkg.m import Err
try:
    pass
except Err as e:
    e.meth()
"""),
    Case("value_contextmanager", "m.Ccls.meth", """
## m
import contextlib
class Ccls:
    def meth(self):
        return 1
@contextlib.contextmanager
def opened():
    yield Ccls()
## a
from pkg.m import opened
with opened() as c:
    c.meth()
"""),
    Case("value_generator", "m.Ccls.meth", """
## m
from typing import Iterator
class Ccls:
    def meth(self):
        return 1
def gen() -> Iterator[Ccls]:
    yield Ccls()
def gen2():
    yield Ccls()
## a
from pkg.m import gen, gen2
for c in gen():
    c.meth()
for d in gen2():
    d.meth()
"""),
    Case("value_typed_class_attribute", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    c: Ccls
    def go(self):
        return self.c.meth()
"""),
    Case("value_init_param_stored", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    def __init__(self, c: Ccls):
        self.c = c
    def go(self):
        return self.c.meth()
"""),
    Case("value_inherited_attribute", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Base:
    def __init__(self):
        self.c = Ccls()
## a
from pkg.m import Base
class Dcls(Base):
    def go(self):
        return self.c.meth()
"""),
    Case("value_staticmethod_factory", "m.Ccls.meth", """
## m
class Ccls:
    @staticmethod
    def make() -> "Ccls":
        return Ccls()
    def meth(self):
        return 1
## a
from pkg.m import Ccls
Ccls.make().meth()
"""),
    Case("value_classvar_final", "m.Ccls.meth", """
## m
from typing import ClassVar, Final
class Ccls:
    def meth(self):
        return 1
class H:
    shared: ClassVar[Ccls] = Ccls()
    fixed: Final = Ccls()
## a
from pkg.m import H
H.shared.meth()
H.fixed.meth()
"""),
    Case("value_list_param", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from typing import Sequence
from pkg.m import Ccls
def f(cs: list[Ccls], ds: Sequence[Ccls], t: tuple[Ccls, ...]):
    for c in cs:
        c.meth()
    ds[0].meth()
    t[0].meth()
"""),
    Case("value_tuple_param", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Dcls:
    pass
## a
from pkg.m import Ccls, Dcls
def f(p: tuple[Dcls, Ccls]):
    d, c = p
    c.meth()
    p[1].meth()
"""),
    Case("value_callable_param", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from typing import Callable
from pkg.m import Ccls
def f(make: Callable[[], Ccls]):
    make().meth()
"""),
    Case("value_type_param", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(kind: type[Ccls]):
    kind().meth()
"""),
    Case("value_union_param", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Dcls:
    def meth(self):
        return 2
## a
from pkg.m import Ccls, Dcls
def f(x: Ccls | Dcls):
    x.meth()
"""),
    Case("value_module_alias_ctor", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg import m as mod
mod.Ccls().meth()
"""),
    Case("value_async_with", "m.Ccls.meth", """
## m
class Ccls:
    async def __aenter__(self):
        return self
    async def __aexit__(self, *a):
        pass
    def meth(self):
        return 1
## a
from pkg.m import Ccls
async def go():
    async with Ccls() as c:
        c.meth()
"""),
    Case("value_walrus", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
def find():
    return Ccls()
## a
from pkg.m import find
if (c := find()) is not None:
    c.meth()
"""),
    Case("value_optional_return", "m.Ccls.meth", """
## m
from typing import Optional
class Ccls:
    def meth(self):
        return 1
def find() -> Optional[Ccls]:
    return Ccls()
## a
from pkg.m import find
c = find()
if c:
    c.meth()
"""),
    Case("value_return_chain", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
    def me(self) -> "Ccls":
        return self
## a
from pkg.m import Ccls
Ccls().me().me().meth()
"""),
    Case("value_self_method_in_base", "m.Base.hook", """
## m
class Base:
    def run(self):
        return self.hook()
    def hook(self):
        return 1
## a
from pkg.m import Base
class Dcls(Base):
    def hook(self):
        return 2
Dcls().run()
"""),
    Case("value_override_references", "m.Bcls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls(Acls):
    def meth(self):
        return 2
## a
from pkg.m import Acls, Bcls
Acls().meth()  # over
Bcls().meth()
"""),
    Case("value_class_in_dict_of_classes", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
KINDS = {"c": Ccls}
## a
from pkg.m import KINDS
KINDS["c"]().meth()
"""),
    Case("value_nested_function_return", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def outer():
    def make() -> Ccls:
        return Ccls()
    make().meth()
"""),
    Case("value_instance_attr_via_param_default", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    def __init__(self, c=None):
        self.c = c or Ccls()
    def go(self):
        self.c.meth()
"""),
    Case("value_classmethod_alt_ctor_subclass", "m.Ccls.meth", """
## m
class Ccls:
    @classmethod
    def create(cls):
        return cls()
    def meth(self):
        return 1
class Dcls(Ccls):
    pass
## a
from pkg.m import Dcls
Dcls.create().meth()
"""),
    Case("value_tuple_return", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
def pair() -> tuple[Ccls, int]:
    return Ccls(), 1
def pair2():
    return Ccls(), 1
## a
from pkg.m import pair, pair2
c, n = pair()
c.meth()
d, k = pair2()
d.meth()
"""),
    Case("value_list_return", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
def many() -> list[Ccls]:
    return [Ccls()]
## a
from pkg.m import many
for c in many():
    c.meth()
many()[0].meth()
"""),
    Case("value_method_on_self_attribute_annotated_init", "m.Ccls.meth", """
## m
from typing import Optional
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    def __init__(self):
        self.c: Optional[Ccls] = None
    def go(self):
        if self.c is not None:
            self.c.meth()
"""),
    Case("value_super_of_chain", "m.Acls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls(Acls):
    pass
class Ccls(Bcls):
    def meth(self):
        return super().meth()
"""),
    Case("value_ternary_attribute", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(x: Ccls | None):
    (x or Ccls()).meth()
"""),
    Case("value_getattr_default", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    c = Ccls()
h = H()
getattr(h, "c").meth()
"""),
    Case("value_star_unpack", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
first, *rest = [Ccls(), Ccls()]
first.meth()
for r in rest:
    r.meth()  # under
"""),
    Case("value_dict_comprehension", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
d = {k: Ccls() for k in "ab"}
d["a"].meth()
xs = [Ccls() for _ in range(2)]
xs[0].meth()
"""),
    Case("value_instance_attr_from_classmethod", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    @classmethod
    def build(cls):
        h = cls()
        h.c = Ccls()
        return h
    def go(self):
        self.c.meth()
"""),
    Case("value_property_setter_target", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class H:
    def __init__(self):
        self._c = Ccls()
    @property
    def c(self) -> Ccls:
        return self._c
    @c.setter
    def c(self, v: Ccls) -> None:
        self._c = v
## a
from pkg.m import H
h = H()
h.c.meth()
"""),
    Case("value_init_subclass_chain", "m.Base.meth", """
## m
class Base:
    def meth(self):
        return 1
## a
from pkg.m import Base
class Mid(Base):
    pass
## b
from pkg.a import Mid
class Leaf(Mid):
    def go(self):
        self.meth()
Leaf().meth()
"""),
    Case("value_reexported_class", "m.Ccls.meth", """
## __init__
from .m import Ccls
## m
class Ccls:
    def meth(self):
        return 1
## a
import pkg
pkg.Ccls().meth()
"""),
    Case("value_class_decorator_keeps_class", "m.Ccls.meth", """
## m
import functools
def register(cls):
    return cls
@register
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
Ccls().meth()
"""),
    Case("value_decorated_method", "m.Ccls.meth", """
## m
import functools
def logged(f):
    @functools.wraps(f)
    def inner(*a, **k):
        return f(*a, **k)
    return inner
class Ccls:
    @logged
    def meth(self):
        return 1
## a
from pkg.m import Ccls
Ccls().meth()
"""),
    Case("value_cached_property", "m.Ccls.meth", """
## m
import functools
class Ccls:
    def meth(self):
        return 1
class H:
    @functools.cached_property
    def c(self) -> Ccls:
        return Ccls()
## a
from pkg.m import H
H().c.meth()
"""),
    Case("value_for_else_reassigned", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(xs):
    found = None
    for x in xs:
        found = Ccls()
    if found is not None:
        found.meth()
"""),
    Case("value_tuple_of_classes_loop", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Dcls(Ccls):
    pass
## a
from pkg.m import Ccls, Dcls
for kind in (Ccls, Dcls):
    kind().meth()
"""),
    Case("value_while_true_assign", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
    def next(self) -> "Ccls | None":
        return None
## a
from pkg.m import Ccls
node = Ccls()
while node is not None:
    node.meth()
    node = node.next()
"""),
]

# Where a name is bound to several classes: what Python reaches, and where jedi lists more
_C = [
    Case("several_module_rebound_in_sequence", "m.Acls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls:
    def meth(self):
        return 2
## a
from pkg.m import Acls, Bcls
x = Acls()
x.meth()
x = Bcls()
x.meth()
"""),
    Case("several_platform_branch", "m.Win.meth", """
## m
import sys
class Win:
    def meth(self):
        return 1
class Posix:
    def meth(self):
        return 2
if sys.platform == "win32":
    Impl = Win
else:
    Impl = Posix
## a
from pkg.m import Impl
Impl().meth()
"""),
    Case("several_plugins_summed", "m.Acls.ratio", """
## m
class Acls:
    def ratio(self):
        return 1
class Bcls:
    def ratio(self):
        return 2
PLUGINS = [Acls, Bcls]
## a
from pkg.m import PLUGINS, Bcls
ps = [p() for p in PLUGINS]
total = sum(p.ratio() for p in ps)
b = Bcls()
b.ratio()  # over
"""),
    Case("several_parameter_from_call_sites", "m.Acls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls:
    def meth(self):
        return 2
## a
from pkg.m import Acls, Bcls
def run(p):
    return p.meth()
run(Acls())
run(Bcls())
def only_b(q):
    return q.meth()  # over
only_b(Bcls())
"""),
    Case("several_unannotated_returns", "m.Acls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls:
    def meth(self):
        return 2
def pick(flag):
    if flag:
        return Acls()
    return Bcls()
## a
from pkg.m import pick, Bcls
pick(1).meth()
y = Bcls()
y.meth()
"""),
    Case("several_list_of_instances", "m.Acls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls:
    def meth(self):
        return 2
## a
from pkg.m import Acls, Bcls
for obj in [Acls(), Bcls()]:
    obj.meth()
Bcls().meth()  # over
"""),
    Case("several_override_called_on_base_annotation", "m.Bcls.meth", """
## m
class Acls:
    def meth(self):
        return 1
class Bcls(Acls):
    def meth(self):
        return 2
## a
from pkg.m import Acls
def run(a: Acls):
    a.meth()
"""),
]

_B += [
    Case("value_list_append_in_function", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def build(n):
    items = []
    for _ in range(n):
        items.append(Ccls())
    for i in items:
        i.meth()
"""),
    Case("value_attribute_holding_module", "helpers.parse", """
## helpers
def parse():
    return 1
## a
from pkg import helpers
class Md:
    def __init__(self):
        self.helpers = helpers
    def go(self):
        return self.helpers.parse()
Md().helpers.parse()
"""),
    Case("value_attribute_holding_class", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    def __init__(self):
        self.kind = Ccls
    def go(self):
        return self.kind().meth()
"""),
    Case("value_attribute_holding_module_import", "helpers.parse", """
## helpers
def parse():
    return 1
## a
import pkg.helpers
class Md:
    helpers = pkg.helpers
    def go(self):
        return self.helpers.parse()
"""),
]

# More of the idioms libraries write (the second pass)
_B += [
    Case("idiom_property_returns_attribute", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class H:
    def __init__(self):
        self._c = Ccls()
    @property
    def c(self):
        return self._c
## a
from pkg.m import H
H().c.meth()
"""),
    Case("idiom_enter_returns_self_subclass", "m.Sub.meth", """
## m
class Base:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        pass
class Sub(Base):
    def meth(self):
        return 1
## a
from pkg.m import Sub
with Sub() as s:
    s.meth()
"""),
    Case("idiom_fluent_chain", "m.Ccls.meth", """
## m
class Ccls:
    @classmethod
    def create(cls):
        return cls()
    def with_x(self):
        return self
    def meth(self):
        return 1
## a
from pkg.m import Ccls
Ccls.create().with_x().meth()
"""),
    Case("idiom_annotated_empty_list_attribute", "m.Node.meth", """
## m
class Node:
    def __init__(self):
        self.children: list[Node] = []
    def meth(self):
        return 1
    def walk(self):
        for c in self.children:
            c.meth()
"""),
    Case("idiom_setdefault", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(d: dict[str, Ccls]):
    d.setdefault("k", Ccls()).meth()
"""),
    Case("idiom_max_min_next_iter", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(cs: list[Ccls]):
    max(cs, key=id).meth()
    min(cs).meth()
    next(iter(cs)).meth()
    list(cs)[0].meth()
"""),
    Case("idiom_chained_assignment", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f():
    x = y = Ccls()
    x.meth()
    y.meth()
"""),
    Case("idiom_self_attr_from_method_call", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class H:
    def __init__(self):
        self.c = self.make()
    def make(self) -> Ccls:
        return Ccls()
    def go(self):
        self.c.meth()
"""),
    Case("idiom_dataclasses_replace", "m.Ccls.meth", """
## m
import dataclasses
@dataclasses.dataclass
class Ccls:
    n: int = 0
    def meth(self):
        return 1
## a
import dataclasses
from pkg.m import Ccls
dataclasses.replace(Ccls(), n=2).meth()
"""),
    Case("idiom_class_decorator_instance", "m.Deco.meth", """
## m
class Deco:
    def __init__(self, f):
        self.f = f
    def meth(self):
        return 1
## a
from pkg.m import Deco
@Deco
def g():
    pass
g.meth()
"""),
    Case("idiom_try_import_fallback", "m.Ccls", """
## m
class Ccls:
    pass
## a
try:
    from pkg.m import Ccls
except ImportError:
    Ccls = None
x = Ccls()
"""),
    Case("idiom_class_list_attribute", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
class H:
    items: list[Ccls] = []
    def go(self):
        for i, it in enumerate(self.items):
            it.meth()
"""),
    Case("idiom_lambda_key_param", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(cs: list[Ccls]):
    return sorted(cs, key=lambda c: c.meth())
"""),
    Case("idiom_map_lambda", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(cs: list[Ccls]):
    return list(map(lambda c: c.meth(), cs))
"""),
    Case("idiom_async_generator", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
async def agen():
    yield Ccls()
## a
from pkg.m import agen
async def f():
    async for c in agen():
        c.meth()
"""),
    Case("idiom_self_class_create", "m.Ccls.create", """
## m
class Ccls:
    @classmethod
    def create(cls):
        return cls()
    def again(self):
        return self.__class__.create()  # under
"""),
    Case("idiom_instance_attribute_set_outside", "m.Dcls.meth", """
## m
class Ccls:
    pass
class Dcls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls, Dcls
x = Ccls()
x.attr = Dcls()
x.attr.meth()
"""),
    Case("idiom_typed_dict_of_lists", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(d: dict[str, list[Ccls]]):
    for c in d["k"]:
        c.meth()
    for k, cs in d.items():
        cs[0].meth()
"""),
    Case("idiom_optional_attribute_narrowed", "m.Ccls.meth", """
## m
from typing import Optional
class Ccls:
    def meth(self):
        return 1
class H:
    c: Optional[Ccls] = None
    def go(self):
        if self.c:
            self.c.meth()
        c = self.c
        assert c is not None
        c.meth()
"""),
    Case("idiom_return_self_attribute_unannotated", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class H:
    def __init__(self):
        self.c = Ccls()
    def get(self):
        return self.c
## a
from pkg.m import H
H().get().meth()
"""),
    Case("idiom_module_function_returns_module_global", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
_default = Ccls()
def get_default():
    return _default
## a
from pkg.m import get_default
get_default().meth()
"""),
    Case("idiom_generic_protocol_param", "m.Ccls.meth", """
## m
from typing import Iterable
class Ccls:
    def meth(self):
        return 1
def each(cs: Iterable[Ccls]):
    for c in cs:
        c.meth()
"""),
]

# Iteration and container idioms
_B += [
    Case("iter_enumerate_items", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(d: dict[str, Ccls]):
    for i, (k, v) in enumerate(d.items()):
        v.meth()
    for k, v in sorted(d.items()):
        v.meth()
"""),
    Case("iter_filter_chain_set", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
import itertools
from pkg.m import Ccls
def f(xs: list[Ccls], ys: list[Ccls]):
    for a in filter(None, xs):
        a.meth()  # under
    for b in itertools.chain(xs, ys):
        b.meth()
    for c in set(xs):
        c.meth()
    for d in tuple(xs):
        d.meth()
    for e in xs.copy():
        e.meth()
"""),
    Case("container_pop_and_negative_index", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from pkg.m import Ccls
def f(xs: list[Ccls], d: dict[str, Ccls]):
    xs[-1].meth()
    xs.pop().meth()
    d.pop("k").meth()
    list(d.values())[0].meth()
"""),
    Case("container_set_and_frozenset_param", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
from typing import AbstractSet, Iterator
from pkg.m import Ccls
def f(s: set[Ccls], fs: frozenset[Ccls], it: Iterator[Ccls], ab: AbstractSet[Ccls]):
    for a in s:
        a.meth()
    for b in fs:
        b.meth()
    next(it).meth()
    for c in ab:
        c.meth()
"""),
    Case("container_deque_defaultdict", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
## a
import collections
from pkg.m import Ccls
def f(q: "collections.deque[Ccls]", dd: "collections.defaultdict[str, Ccls]"):
    q.popleft().meth()
    q[0].meth()
    dd["k"].meth()
"""),
    Case("comprehension_over_method_result", "m.Ccls.meth", """
## m
class Ccls:
    def meth(self):
        return 1
class Coll:
    def items(self) -> list[Ccls]:
        return []
## a
from pkg.m import Coll
xs = [c.meth() for c in Coll().items()]
ys = {c: c.meth() for c in Coll().items()}
"""),
]

# Special methods: what Python calls them for
_A += [
    Case("dunder_init_by_constructor", "m.Ccls.__init__", """
## m
class Ccls:
    def __init__(self, n):
        self.n = n
class Dcls(Ccls):
    pass
## a
from pkg.m import Ccls, Dcls
Ccls(1)
Dcls(2)
"""),
    Case("dunder_call_getitem_len", "m.Ccls.__getitem__", """
## m
class Ccls:
    def __getitem__(self, i):
        return i
    def __len__(self):
        return 0
## a
from pkg.m import Ccls
c = Ccls()
c[0]
len(c)
c.__getitem__(1)
"""),
    Case("dunder_enter_exit", "m.Ccls.__enter__", """
## m
class Ccls:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        pass
## a
from pkg.m import Ccls
with Ccls() as c:
    pass
"""),
    Case("dunder_operators", "m.Vec.__add__", """
## m
class Vec:
    def __add__(self, other):
        return self
    def __eq__(self, other):
        return True
## a
from pkg.m import Vec
v = Vec() + Vec()
v += Vec()
"""),
    Case("abstract_method_through_base", "m.Base.run", """
## m
import abc
class Base(abc.ABC):
    @abc.abstractmethod
    def run(self):
        ...
class Impl(Base):
    def run(self):
        return 1
## a
from pkg.m import Base, Impl
def go(b: Base):
    b.run()
Impl().run()  # over
"""),
    Case("protocol_method", "m.Runner.run", """
## m
from typing import Protocol
class Runner(Protocol):
    def run(self) -> int:
        ...
## a
from pkg.m import Runner
def go(r: Runner):
    return r.run()
"""),
    Case("classmethod_via_subclass_cls", "m.Base.build", """
## m
class Base:
    @classmethod
    def build(cls):
        return cls()
class Sub(Base):
    @classmethod
    def make(cls):
        return cls.build()
## a
from pkg.m import Sub
Sub.build()
"""),
    Case("property_in_subclass", "m.Base.size", """
## m
class Base:
    @property
    def size(self):
        return 1
class Sub(Base):
    def twice(self):
        return self.size * 2
## a
from pkg.m import Sub
Sub().size
"""),
]

CASES: list[Case] = [*_A, *_B, *_C]


if __name__ == "__main__":
    sys.exit(main())
