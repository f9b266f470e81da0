"""Name resolution for one Python module, the way Python scopes names.

``ast`` gives the structure and ``symtable`` says which names are local to which
function (comprehensions, ``global`` and ``nonlocal`` included), so the only
rules written here are the ones Python leaves to run time: imports, ``self``,
inheritance, and the types of locals that annotations or ``x = Cls()`` make
sound to know. What cannot be known statically becomes an UNRESOLVED target
with the expression as written, never a guess.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import functools
import gc
import re
import symtable
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TypeVar

from analysis import parse as parsing
from analysis import scopes
from analysis.model import (
    CALLS,
    FAILED,
    IMPORTS,
    INHERITS,
    REFERENCES,
    TOO_DEEP,
    UNRESOLVED,
    Definition,
    Import,
    ModuleAnalysis,
    Problem,
    Use,
)
from analysis.scopes import ScopeFacts
from analysis.sources import decode_source, source_lines
from analysis.spelling import spell
from analysis.stdlib_types import ALIASES as STDLIB_ALIASES
from analysis.stdlib_types import RESULTS as STDLIB_RESULTS
from analysis.stdlib_types import is_class as is_stdlib_class

BUILTINS = frozenset(dir(builtins))
#: Names every module, class or method has without binding them.
IMPLICIT_MODULE = frozenset(
    {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__", "__path__",
     "__builtins__", "__annotations__", "__dict__"}
)
IMPLICIT_CLASS = frozenset({"__qualname__", "__module__"})


#: a node a typing question asks of (resolver._Analyser._asked)
_Node = TypeVar("_Node", bound=ast.expr)


@dataclass(frozen=True)
class ClassInfo:
    """What resolution needs to know of a class defined elsewhere: its bases
    (qualified names) and the names it defines."""

    bases: tuple[str, ...]
    members: frozenset[str]


ClassLookup = Callable[[str], "ClassInfo | None"]
ValueLookup = Callable[[str], "str | None"]


_NO_SYMBOL, _UNBOUND, _BOUND = 0, 1, 2  # what symtable says of a name in a scope


class _Scope:
    __slots__ = ("bindings", "cls", "kids", "kind", "local", "node", "parent", "private", "qualname", "rebound",
                 "self_name", "table", "types")

    def __init__(self, kind: str, qualname: str, parent: _Scope | None,
                 table: ScopeFacts | symtable.SymbolTable | None, node: ast.AST | None = None) -> None:
        self.kind = kind
        self.qualname = qualname
        self.parent = parent
        self.bindings: dict[str, str] = {}
        self.types: dict[str, str] = {}
        #: Locals bound more than once (a parameter counts once): only these are retyped as the visit goes.
        self.rebound: set[str] = set()
        self.table = table
        self.cls: str | None = None
        self.self_name: str | None = None
        self.node = node
        self.kids: dict[tuple[str, int], list[symtable.SymbolTable]] | None = None
        # What symtable says of each name asked about (it never changes): name
        # resolution asks the same few names of a scope again and again.
        self.local: dict[str, int] = {}
        # The class whose name mangles private names here (Python's rule: the
        # nearest enclosing class, the class body itself included).
        self.private: str | None = node.name if isinstance(node, ast.ClassDef) else (
            parent.private if parent is not None else None)

    def children(self, name: str, lineno: int) -> list[symtable.SymbolTable]:
        """The symtable children called ``name`` that start at ``lineno``
        (any line when none does), from an index built once per scope: a scope
        of n definitions costs n lookups, not n scans of n children."""
        if self.table is None or isinstance(self.table, ScopeFacts):
            return []
        if self.kids is None:
            self.kids = {}
            for child in self.table.get_children():
                self.kids.setdefault((child.get_name(), child.get_lineno()), []).append(child)
                self.kids.setdefault((child.get_name(), -1), []).append(child)
        return self.kids.get((name, lineno)) or self.kids.get((name, -1)) or []

    def mangled(self, name: str) -> str:
        """``__x`` inside class ``C`` is ``_C__x`` to the compiler (and so to symtable)."""
        if self.private and name.startswith("__") and not name.endswith("__") and "." not in name:
            stripped = self.private.lstrip("_")
            if stripped:
                return f"_{stripped}{name}"
        return name

    def is_local(self, name: str) -> bool:
        if self.table is None:
            return name in self.bindings
        known = self.local.get(name)
        if known is None and isinstance(self.table, ScopeFacts):
            bound = self.table.bound(self.mangled(name))
            known = self.local[name] = _BOUND if bound else _UNBOUND if self.kind != "function" else _NO_SYMBOL
        if known is None:
            assert not isinstance(self.table, ScopeFacts)
            sym = _symbol(self.table, self.mangled(name))
            if sym is None:
                known = _NO_SYMBOL
            elif self.kind == "function":
                known = _BOUND if sym.is_local() or sym.is_parameter() else _UNBOUND
            else:
                known = _BOUND if sym.is_assigned() or sym.is_imported() else _UNBOUND
            self.local[name] = known
        if known == _UNBOUND and self.kind != "function":
            return name in self.bindings
        return known == _BOUND


def module_name_of(path: str) -> str:
    """The fallback module name of a file not in a package: its stem."""
    name = path.rsplit("/", 1)[-1]
    return name.removesuffix(".py")


def analyse_module(
    source: bytes,
    path: str,
    module: str,
    *,
    is_package: bool = False,
    classes: ClassLookup | None = None,
    values: ValueLookup | None = None,
    on_prepared: Callable[[dict[str, ClassInfo], dict[str, str]], None] | None = None,
    stub: bytes | None = None,
    renamed: tuple[tuple[str, str], ...] = (),
) -> ModuleAnalysis:
    """Analyse one module's source. ``classes`` answers for classes defined in
    other modules (the workspace index passes it); without it, only this
    module's classes are known, which keeps a one-file view a function of that
    one file. ``values`` answers, for other modules, the class of an
    attribute's value (``"pkg.C.attr"``) or of a function's result (``"pkg.f()"``).
    ``on_prepared`` is told this module's classes and value types as soon as
    they are known, before its uses are resolved, so that a module analysed
    meanwhile (one this module asks about, importing this one back) sees them.
    ``stub`` is the source of a ``.pyi`` beside the file: the definitions are
    the file's, their signatures and the types of their parameters, results
    and attributes the stub's, as a type checker reads them. ``renamed`` is
    the file's ``sources.ModuleFile.renamed``: what its bare imports reach."""
    with collector_paused():
        analyser = _Analyser(source, path, module, is_package, classes, values)
        analyser.on_prepared = on_prepared
        analyser.stub = stub
        analyser.renamed = dict(renamed)
        try:
            # each stage with the frames it has in a pool (analysis/parse.py), wherever this is called
            if parsing.staged(analyser.parse):
                parsing.staged(analyser.prepare)
            return parsing.staged(analyser.finish)
        except RecursionError:
            # Statement chains and expression depth are walked with explicit
            # stacks; what still recurses (unparsing a thousand-deep expression,
            # say) leaves the file with its module and one diagnostic.
            return ModuleAnalysis.given_up(module, path, len(analyser.text_lines), TOO_DEEP, TOO_DEEP_MESSAGE)
        except Exception as exc:  # noqa: BLE001 - as analysis/pool.py's stages: the file gets a diagnostic
            # (an int literal of more digits than Python writes, say: ast.unparse cannot spell it either)
            return ModuleAnalysis.given_up(module, path, len(analyser.text_lines), FAILED, failure_reason(exc))


TOO_DEEP_MESSAGE = "too deeply nested to analyse"
#: ``_Analyser._value_type`` questions one inside the other at most (a count, not the
#: stack's depth, so the same wherever the analysis runs).
TYPING_DEPTH = 100
#: The message of a file too deep for the parser's limits (analysis/parse.py).
TOO_DEEP_TO_PARSE = "too deeply nested to parse"


def failure_reason(exc: BaseException) -> str:
    """The message of a FAILED diagnostic: the exception, at most 300 characters."""
    text = f"the analysis of this file failed ({type(exc).__name__}: {exc})"
    return text if len(text) <= 300 else text[:299] + "…"


@contextmanager
def collector_paused() -> Iterator[None]:
    """Analysis makes millions of short-lived acyclic objects (ast nodes,
    symbols) that reference counting frees; the cyclic collector would rescan
    the growing heap of results again and again (a third of the time on the
    standard library). It is paused for the duration, and left as it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Frame:
    """One pending visit of an expression: its nodes still to see, the scope
    they are in, and the callees already recorded (not references too)."""

    __slots__ = ("callee_ids", "scope", "skip_self", "stack")

    def __init__(self, stack: list[ast.AST | _Narrow], scope: _Scope, skip_self: bool = False) -> None:
        self.stack = stack
        self.scope = scope
        self.skip_self = skip_self
        self.callee_ids: set[int] = set()


class _Narrow:
    """A step of a body's visit that sets (or, with None, removes) the class
    of a local: ``isinstance`` narrowing and its end."""

    __slots__ = ("cls", "name", "types")

    def __init__(self, types: dict[str, str], name: str, cls: str | None) -> None:
        self.types, self.name, self.cls = types, name, cls

    def apply(self) -> None:
        if self.cls is None:
            self.types.pop(self.name, None)
        else:
            self.types[self.name] = self.cls


class _Branches:
    """The branches of an ``if``, loop, ``try`` or ``match`` statement: each
    starts from the types before it; after it, a local is of the class every
    branch leaves it (or of the one of two classes the other derives from:
    ``jar: CookieJar``, then ``jar = RequestsCookieJar()`` in an ``if``, is a
    CookieJar after it), else of no known class. A branch that runs after part
    of another (a ``try``'s handlers and ``finally``, a loop's ``else``) starts
    from the join of the types before and those that part may leave."""

    __slots__ = ("before", "ends", "mro", "saved", "seen", "start", "types")

    def __init__(self, types: dict[str, str], mro: Callable[[str], tuple[str, ...]]) -> None:
        self.types, self.before, self.mro = types, dict(types), mro
        self.start = self.before  # what the next branch starts from
        self.saved: dict[str, str] | None = None
        #: While a ``try`` is watched: each local it retyped, the join of every class it gave it (None: none known).
        self.seen: dict[str, str | None] = {}
        self.ends: list[dict[str, str]] = []

    def next(self) -> None:
        """The end of a branch: the next starts from ``start``."""
        self.ends.append(dict(self.types))
        self.types.clear()
        self.types.update(self.start)

    def saw(self, name: str, cls: str | None) -> None:
        """A watched part gave local ``name`` the class ``cls`` (None: none known)."""
        was = self.seen[name] if name in self.seen else self.before.get(name)
        self.seen[name] = self._join(name, was, cls) if was is not None else None

    def after_part(self) -> None:
        """The branches from here on start from the join of the types before,
        now and, for a watched ``try``, every class its body gave a local: a
        loop's ``else`` runs after its body ran zero or more times, a handler
        after any part of the ``try`` body."""
        self.start = self._anywhere()

    def _anywhere(self) -> dict[str, str]:
        start = self._joined([self.before, self.types])
        for name, cls in self.seen.items():
            joined = self._join(name, start.get(name), cls) if cls is not None else None
            if joined is None:
                start.pop(name, None)
            else:
                start[name] = joined
        return start

    def join(self) -> None:
        ends = [*self.ends, self.types]
        joined = self._joined(ends)
        # a local every branch leaves of a known class, of no one class after them: of their union
        # (``"|" + name``), as an annotation ``A | B`` makes it (its members refer to each class's)
        for name in [n for n in ends[0] if n.isidentifier() and n not in joined and "|" + n not in joined]:
            classes = {end.get(name) for end in ends}
            if None not in classes and not any(c.startswith("builtins.") for c in classes if c):
                joined["|" + name] = " ".join(sorted(c for c in classes if c))
        self.types.clear()
        self.types.update(joined)

    def enter_finally(self) -> None:
        """After the join, ``finally`` runs from any point of the statement:
        from the join of the types before, after it and every class the
        watched body, ``else`` and handlers gave a local."""
        self.saved = dict(self.types)
        start = self._anywhere()
        self.types.clear()
        self.types.update(start)

    def leave_finally(self, rebound: frozenset[str]) -> None:
        """Past ``finally`` (reached only from the join): the joined types,
        but for the locals ``finally`` binds, of the class it leaves them."""
        assert self.saved is not None
        ended = dict(self.types)
        self.types.clear()
        self.types.update({n: c for n, c in self.saved.items() if n not in rebound})
        self.types.update({n: c for n, c in ended.items() if n in rebound})

    def _joined(self, ends: list[dict[str, str]]) -> dict[str, str]:
        joined: dict[str, str] = {}
        for name in dict.fromkeys(n for end in ends for n in end):
            cls: str | None = ends[0].get(name)
            for end in ends[1:]:
                cls = self._join(name, cls, end.get(name))
            if cls is not None:
                joined[name] = cls
        return joined

    def _join(self, name: str, a: str | None, b: str | None) -> str | None:
        if a == b or a is None or b is None:
            return a if a == b else None
        if name.startswith(("[]", "{", "^", "|", "(")):
            return None
        return a if a in self.mro(b) else b if b in self.mro(a) else None


class _Step:
    """A step of a branching statement's visit: a branch ends (``next``), the
    join (``join``), one of ``_Branches``' other steps (with its names), or
    the start or end of a watched part of a ``try`` (``watch``, ``unwatch``:
    the visit tells the branches each class a local is given there)."""

    __slots__ = ("branches", "kind", "names")

    def __init__(self, branches: _Branches, kind: str, names: frozenset[str] = frozenset()) -> None:
        self.branches, self.kind, self.names = branches, kind, names

    def apply(self) -> None:
        if self.kind == "next":
            self.branches.next()
        elif self.kind == "join":
            self.branches.join()
        elif self.kind == "after_part":
            self.branches.after_part()
        elif self.kind == "enter_finally":
            self.branches.enter_finally()
        elif self.kind in ("watch", "unwatch"):
            pass  # _Analyser._visit_body keeps the watched branches
        else:
            assert self.kind == "leave_finally"
            self.branches.leave_finally(self.names)


#: The decorators that make a generator function a context manager whose ``as`` binds what it yields.
_CONTEXT_MANAGERS = frozenset({"contextlib.contextmanager"})

_BRANCHING = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.Match)


class _Analyser:
    def __init__(self, source: bytes, path: str, module: str, is_package: bool,
                 classes: ClassLookup | None, values: ValueLookup | None = None) -> None:
        self.external_values = values
        self.on_prepared: Callable[[dict[str, ClassInfo], dict[str, str]], None] | None = None
        self.source = source
        self.path = path
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.external_classes = classes
        self.definitions: list[Definition] = []
        self.uses: list[Use] = []
        self.imports: list[Import] = []
        self.problems: list[Problem] = []
        self.local_classes: dict[str, ClassInfo] = {}
        self.class_bases: dict[str, list[ast.expr]] = {}
        self.star_import = False
        self.loaded_names: set[tuple[str, str]] = set()  # (scope qualname, name)
        self.has_main = False
        self.scopes: list[tuple[_Scope, list[ast.stmt]]] = []
        self.defined_here: set[str] = set()
        self.functions_here: set[str] | None = None  # the functions and methods defined here, when asked
        self.attribute_types: dict[str, str] = {}  # qualname of an attribute -> its class
        #: attributes set to two names (_attribute_names): another name of neither
        self.named_twice: set[str] = set()
        self.mros: dict[str, tuple[str, ...]] = {}
        #: The method whose receiver (``self``, ``cls``) ``_value_type`` takes to be of no known class.
        self.hidden_receiver: _Scope | None = None
        #: ``_value_type`` questions under way, one inside the other (at most ``TYPING_DEPTH``).
        self.typing_depth = 0
        #: the answers of the question under way (``_value_type``), forgotten when it is answered
        self.typing_memo: dict[tuple[int, int, int] | tuple[int, int, int, str], str | None] = {}
        #: id of an expression -> it and spell() of it, for unresolved targets (_spelled); holding
        #: the node keeps its id its own (a string annotation's tree is let go after its visit)
        self.spelled_memo: dict[int, tuple[ast.expr, str]] = {}
        #: The ``try`` statements being visited, told each class a local is given (``_Branches.saw``).
        self.watched: list[_Branches] = []
        self.overload_stubs: dict[str, list[Definition]] = {}
        self.import_ends: dict[int, int] = {}  # first line of an import statement -> its last
        self.fallback_imports: set[int] = set()  # ids of the imports of ``except ImportError:`` handlers
        self.reexported: set[tuple[str, str]] = set()
        self.noqa_spans: dict[tuple[int, int | None], frozenset[str] | None] = {}
        #: id of a body (a list the tree holds) -> its statements in ``_walk_body``'s order
        self.flat: dict[int, list[ast.stmt]] = {}
        self.stub: bytes | None = None
        #: function -> {parameter (or "[]" + parameter): class}, from the stub
        self.stub_params: dict[str, dict[str, str]] = {}
        #: the stub analysed as far as types go (``tell``), for its signatures (``finish``)
        self.stub_analysis: _Analyser | None = None
        #: the stub's parse, made once (``tell`` may run again), or None when it does not parse
        self.stub_parse: tuple[ast.Module, ScopeFacts | symtable.SymbolTable] | None = None
        #: top-level name -> the module a bare import of it reaches (sources.ModuleFile.renamed)
        self.renamed: dict[str, str] = {}
        #: id of a call ``getattr(x, "name")`` -> the attribute ``x.name`` it is read as (_value_type_of)
        self.getattr_nodes: dict[int, ast.Attribute] = {}
        #: a word -> the numbers of the lines that hold it, in order (_lines_with)
        self.word_lines: dict[str, list[int]] = {}
        self.exports: object = _UNREAD  # literal_all's answer, once read

    # --- driver ----------------------------------------------------------------

    def run(self) -> ModuleAnalysis:
        if not self.parse():
            return self.finish()
        self.prepare()
        return self.finish()

    # The three stages of run(), so that a workspace build (analysis/pool.py) can
    # parse a file once, tell and re-tell what it defines while the other files'
    # answers change, and resolve its uses once, with the answers that hold.

    def parse(self, frames: int | None = None) -> bool:
        """Read the source into an ast and a symbol table; False (and a
        syntax-error problem, or a too-deep one) when it does not parse
        (``frames``: analysis/parse.py's, fewer to ask whether the tree is shallow)."""
        self.text_lines = source_lines(decode_source(self.source))
        lines = len(self.text_lines)
        self.tree: ast.Module | None = None
        code = fold_data_literals(self.source)

        def table_of(tree: ast.AST) -> ScopeFacts | symtable.SymbolTable:
            # which names each scope binds, from the tree (analysis/scopes.py); symtable parses
            # again only a file with a construct whose syntax error only symtable finds
            assert isinstance(tree, ast.Module)
            facts = scopes.facts(tree, code)
            return facts if facts is not None else symtable.symtable(code, self.path, "exec")  # type: ignore[arg-type]  # bytes (typeshed: str): a BOM is fine

        try:
            # with the same frames wherever this runs (analysis/parse.py)
            parsed, table = parsing.parse(code, self.path, table=table_of, frames=frames)
        except parsing.TOO_DEEP_ERRORS:
            # Python's own compile() refuses it too (RecursionError, MemoryError): not a syntax error
            self.problems.append(Problem(TOO_DEEP, 1, 1, TOO_DEEP_TO_PARSE))
            return False
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None) or 1
            col = getattr(exc, "offset", None) or 1
            msg = getattr(exc, "msg", None) or str(exc)
            if isinstance(exc, SyntaxError):
                msg += _newer_syntax(self.text_lines[line - 1] if 0 < line <= lines else "", msg)
            self.problems.append(Problem("syntax-error", line, col, f"syntax error: {msg}"))
            return False
        assert isinstance(parsed, ast.Module)
        tree = parsed
        self.tree, self.table = tree, table
        return True

    def adopt(self, parsed: _Analyser) -> None:
        """Take the parse of another analyser of the same source (to prepare
        again without parsing again)."""
        self.text_lines, self.tree, self.table = parsed.text_lines, parsed.tree, parsed.table
        self.stub, self.stub_parse = parsed.stub, parsed.stub_parse

    def prepare(self) -> None:
        """Definitions, bindings, the classes and value types other modules may
        ask about (told to ``on_prepared``) and the types of locals."""
        self.declare()
        self.tell()

    def declare(self) -> None:
        """Definitions and bindings: what the file says, asking nothing."""
        tree = self.tree
        assert tree is not None
        lines = len(self.text_lines)
        doc = ast.get_docstring(tree) or ""
        module_def = Definition(self.module, "module", 1, max(lines, 1), doc=doc)
        root = _Scope("module", self.module, None, self.table, tree)
        self.definitions.append(module_def)
        self._declare(tree.body, root)
        for stubs in self.overload_stubs.values():  # overloads without an implementation (a Protocol's, say)
            self.definitions.append(replace(stubs[0], overloads=tuple(d.signature for d in stubs)))

    def retell(self) -> None:
        """``tell`` again, from the same declarations, when the other modules'
        answers changed: what ``tell`` made is forgotten first."""
        self.local_classes = {}
        self.attribute_types = {}
        self.mros = {}
        self.stub_params = {}
        for scope, _body in self.scopes:
            scope.types = {}
            scope.rebound = set()
        self.tell()

    def tell(self) -> None:
        """The classes and value types other modules may ask about (told to
        ``on_prepared``), and the types of locals: what asks the other modules."""
        self._class_infos()
        self._class_aliases()
        stub = self.stub_analysis = self._read_stub()
        self._value_types()
        if stub is not None:  # the stub's result and attribute classes are the ones a type checker uses
            self.attribute_types.update(stub.attribute_types)
        self._fixture_types()
        for scope, body in self.scopes:
            if not _tells(scope):
                continue  # its locals' types are the file's own business: made once, in finish
            self._prepare_types(scope, body)
            if scope.kind in ("module", "class"):  # module and class variables of a known class
                for name, cls in scope.types.items():
                    # what is known of its items, values, keys, places or classes too ("[]" and the like)
                    prefix = next((p for p in _TOLD_PREFIXES if name.startswith(p)), "")
                    bare = name[len(prefix):]
                    if bare.isidentifier() and f"{scope.qualname}.{bare}" in self.defined_here:
                        # ``V = create(...)`` with ``create() -> type[X]`` ("^V"): calling V makes an X
                        for suffix in ("()", "^") if prefix == "^" else (prefix,):
                            self.attribute_types.setdefault(f"{scope.qualname}.{bare}{suffix}", cls)
        for cls, attr, node, scope in self.assigned:  # self.x = a typed parameter or local
            if f"{cls}.{attr}" in self.annotated:
                continue  # its annotation says its class
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                for facet in ("", "[]", "{}", "|", "[]()", "{<}", "()", "^"):  # its class, and what else its type tells
                    if not facet and node.value.id in scope.rebound and _local_type(scope, "|" + node.value.id):
                        continue  # ``p: A | B = None``, then ``p = A()`` in one branch: of the union, not A
                    typed = _local_type(scope, facet + node.value.id)
                    if typed:
                        self.attribute_types.setdefault(f"{cls}.{attr}{facet}", typed)
                        if facet == "^":  # ``self.kind = k`` of ``k: type[X]``: calling it makes an X
                            self.attribute_types.setdefault(f"{cls}.{attr}()", typed)
                self._attribute_names(f"{cls}.{attr}", node.value, scope)
            elif isinstance(node, ast.Assign):  # self.x = env.make(): what typed locals give, now they are typed
                if f"{cls}.{attr}" not in self.attribute_types and f"{cls}.{attr}|" not in self.attribute_types:
                    union = self._union_value(node.value, scope)  # self.x = logger or DummyLogger()
                    if union:
                        self.attribute_types[f"{cls}.{attr}|"] = union
                if f"{cls}.{attr}" not in self.attribute_types:
                    typed = self._constructed_class(node.value, scope)
                    if typed:
                        self.attribute_types[f"{cls}.{attr}"] = typed
                if f"{cls}.{attr}[]" not in self.attribute_types:
                    item = self._item_type(node.value, scope)  # self.x = [make(e) for e in es]
                    if item:
                        self.attribute_types[f"{cls}.{attr}[]"] = item
                if f"{cls}.{attr}{{}}" not in self.attribute_types:
                    value = self._mapped_type(node.value, scope)  # self.x = f(): f() -> dict[str, X]
                    if value:
                        self.attribute_types[f"{cls}.{attr}{{}}"] = value
        if self.on_prepared is not None:  # what other modules may ask about is known from here on
            self.on_prepared(dict(self.local_classes), dict(self.attribute_types))

    def finish(self) -> ModuleAnalysis:
        """Resolve every use (after ``prepare``), and the module's analysis."""
        lines = len(self.text_lines)
        if self.tree is None:
            return self._result([Definition(self.module, "module", 1, max(lines, 1))], lines)
        for scope, body in self.scopes:
            if not _tells(scope):
                self._prepare_types(scope, body)
        for scope, body in self.scopes:
            self._visit_body(body, scope)
        self._find_unused_imports()
        stub = self.stub_analysis
        if stub is not None:
            stubbed = {d.qualname: d for d in stub.definitions if d.kind != "module"}
            # an overloaded stub gives the overloads; the source's definition stays the implementation
            self.definitions = [replace(d, signature=d.signature if s.overloads else s.signature,
                                        overloads=s.overloads)
                                if (s := stubbed.get(d.qualname)) is not None and _same_kind(d.kind, s.kind) else d
                                for d in self.definitions]
        return self._result(self.definitions, lines)

    def _read_stub(self) -> _Analyser | None:
        """The stub's definitions and types, analysed as far as types go (its
        names resolved in its own namespace); None without one or when it
        does not parse."""
        if self.stub is None:
            return None
        path = self.path.removesuffix(".py") + ".pyi"
        an = _Analyser(self.stub, path, self.module, self.package == self.module, self.external_classes,
                       self.external_values)
        an.renamed = self.renamed
        if self.stub_parse is None:
            stub = self.stub
            try:
                parsed, facts = parsing.parse(stub, path, table=lambda _tree: symtable.symtable(
                    stub, path, "exec"))  # type: ignore[arg-type]  # bytes, as in run
            except (SyntaxError, ValueError, *parsing.TOO_DEEP_ERRORS):
                self.stub = None  # asked once: without a stub from here on
                return None
            assert isinstance(parsed, ast.Module)
            self.stub_parse = (parsed, facts)
        tree, table = self.stub_parse
        an.text_lines = source_lines(decode_source(self.stub))
        an.tree = tree
        an._declare(tree.body, _Scope("module", self.module, None, table, tree))
        for stubs in an.overload_stubs.values():
            an.definitions.append(replace(stubs[0], overloads=tuple(d.signature for d in stubs)))
        an._class_infos()
        an._class_aliases()
        an._value_types()
        for scope, body in an.scopes:
            an._prepare_types(scope, body)
            if isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = scope.node.args
                names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
                typed = {k: v for k, v in scope.types.items() if k.removeprefix("[]") in names}
                if typed:
                    self.stub_params[scope.qualname] = typed
        return an


    def _result(self, definitions: list[Definition], lines: int) -> ModuleAnalysis:
        problems = [p for p in self.problems if not _silenced(p.kind, self._noqa(p.line))]
        return ModuleAnalysis(
            module=self.module,
            path=self.path,
            definitions=tuple(sorted(definitions, key=definition_order)),
            uses=tuple(self.uses),
            imports=tuple(self.imports),
            problems=tuple(sorted(problems, key=lambda p: (p.line, p.column, p.kind, p.message))),
            has_main=self.has_main,
            lines=lines,
            value_types=tuple(sorted(self.attribute_types.items())),
            exports=self.literal_all(),
        )

    def _noqa(self, line: int, end: int | None = None) -> frozenset[str] | None:
        """The codes a ``# noqa`` comment on lines ``line``..``end`` silences
        (an empty set: all of them), or None when there is none. Remembered per
        span: the thousand names of one ``from m import (...)`` ask of the same
        lines a thousand times."""
        span = (line, end)
        if span not in self.noqa_spans:
            self.noqa_spans[span] = self._read_noqa(line, end)
        return self.noqa_spans[span]

    def _read_noqa(self, line: int, end: int | None) -> frozenset[str] | None:
        codes: set[str] = set()
        found = False
        for text in self.text_lines[max(line, 1) - 1: end or line]:
            if "noqa" not in text.lower():
                continue
            match = _NOQA.search(text)
            if match:
                found = True
                if not match.group(1):
                    return frozenset()
                codes.update(c.upper() for c in re.findall(r"[A-Za-z]+[0-9]+", match.group(1)))
        return frozenset(codes) if found else None

    # --- pass 1: definitions and bindings ----------------------------------------

    def _statements(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """``_walk_body(body)`` as a list, made once per body (by ``_declare``):
        telling walks each body several times, and again each round."""
        found = self.flat.get(id(body))
        if found is None:
            found = self.flat[id(body)] = list(_walk_body(body))
        return found

    def _declare(self, body: list[ast.stmt], scope: _Scope) -> None:
        self.scopes.append((scope, body))
        seen: dict[str, int] = {}
        # An explicit stack, each statement before the ones it holds: a chain of
        # a thousand ``elif`` branches is a thousand nested statements.
        stack: list[tuple[ast.stmt, dict[str, int]]] = [(stmt, seen) for stmt in reversed(body)]
        order = self.flat[id(body)] = []  # _walk_body's order, kept for the walks of tell (``_statements``)
        while stack:
            stmt, seen_here = stack.pop()
            order.append(stmt)
            if isinstance(stmt, ast.Try) and stmt.handlers:
                self._note_fallback_imports(stmt)
            self._declare_stmt(stmt, scope, seen_here)
            nested = _nested_statements(stmt)
            if nested:
                stack.extend((child, {}) for child in reversed(list(nested)))
        if isinstance(scope.table, ScopeFacts) and scope.kind in ("module", "class"):
            for name in scope.table.assigned():
                if name not in scope.bindings:
                    scope.bindings[name] = f"{scope.qualname}.{name}"
        elif isinstance(scope.table, symtable.SymbolTable) and scope.kind in ("module", "class"):
            for name in list(scope.table.get_identifiers()):
                sym = _symbol(scope.table, name)
                if sym is not None and name not in scope.bindings and (sym.is_assigned() or sym.is_imported()):
                    scope.bindings[name] = f"{scope.qualname}.{name}"

    def _declare_stmt(self, stmt: ast.stmt, scope: _Scope, seen: dict[str, int]) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            decorators = tuple(spell(d) for d in stmt.decorator_list)
            self._check_redefinition(stmt, scope, seen, decorators)
            self._declare_def(stmt, scope, decorators)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self._declare_import(stmt, scope)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and scope.kind in ("module", "class"):
            self._declare_variable(stmt, scope)
        elif isinstance(stmt, ast.If) and scope.kind == "module" and _is_main_guard(stmt.test):
            self.has_main = True

    def _declare_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: _Scope,
                     decorators: tuple[str, ...]) -> None:
        qual = f"{scope.qualname}.{node.name}"
        scope.bindings[node.name] = qual
        self.defined_here.add(qual)
        table = _child_table(scope, node)
        if isinstance(node, ast.ClassDef):
            kind = "class"
            parts = [spell(b) for b in node.bases] + [spell(k) for k in node.keywords]
            signature = f"({', '.join(parts)})" if parts else ""
            child = _Scope("class", qual, scope, table, node)
            self.class_bases[qual] = list(node.bases)
        else:
            kind = "method" if scope.kind == "class" else "function"
            prefix = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
            signature = f"{prefix}({spell(node.args)})"
            if node.returns is not None:
                signature += f" -> {spell(node.returns)}"
            child = _Scope("function", qual, scope, table, node)
            if scope.kind == "class":
                child.cls = scope.qualname
                positional = node.args.posonlyargs + node.args.args
                if "staticmethod" not in decorators and positional:
                    child.self_name = positional[0].arg
        definition = Definition(qual, kind, node.lineno, node.end_lineno or node.lineno, signature,
                                ast.get_docstring(node) or "", decorators)
        if any(_is_overload(d) for d in decorators):
            # a stub: a signature of the implementation that follows it
            self.overload_stubs.setdefault(qual, []).append(definition)
        else:
            stubs = self.overload_stubs.pop(qual, None)
            if stubs:
                definition = replace(definition, overloads=tuple(d.signature for d in stubs))
            self.definitions.append(definition)
        self._declare(node.body, child)

    def _note_fallback_imports(self, node: ast.Try) -> None:
        """The imports of an ``except ImportError:`` handler of a ``try`` that
        imports too: ``try: from fast import X`` / ``except ImportError: from
        slow import X`` binds X to the import the ``try`` makes (as jedi reads it)."""
        if not any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in node.body):
            return
        for handler in node.handlers:
            caught = handler.type
            names = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught is not None else []
            if any(_last_name(n) in ("ImportError", "ModuleNotFoundError") for n in names):
                self.fallback_imports.update(id(s) for s in handler.body if isinstance(s, (ast.Import, ast.ImportFrom)))
                # ``except ImportError: X = None``: X is still the try's import where it is used
                self.fallback_imports.update(id(s) for s in handler.body if isinstance(s, ast.Assign)
                                             and isinstance(s.value, ast.Constant) and s.value.value is None)

    def _declare_import(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        self.import_ends[node.lineno] = max(node.end_lineno or node.lineno, self.import_ends.get(node.lineno, 0))
        for alias in node.names:  # ``import x as x``: an explicit re-export (PEP 484)
            if alias.asname and alias.asname == alias.name.rpartition(".")[2]:
                self.reexported.add((scope.qualname, alias.asname))
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = self._renamed(alias.name)
                if alias.asname:
                    local, target = alias.asname, name
                else:
                    local, target = alias.name.split(".")[0], self._renamed(alias.name.split(".")[0])
                if not (id(node) in self.fallback_imports and local in scope.bindings):
                    scope.bindings[local] = target  # (an ``except ImportError`` import keeps the try's)
                self._add_import(Import(local, target, node.lineno, name, scope.qualname), alias)
            return
        base = self._import_base(node)
        if base is None:
            self.problems.append(Problem(
                "unresolved-import", node.lineno, node.col_offset + 1,
                f"relative import beyond the top-level package: {'.' * node.level}{node.module or ''}",
            ))
            return
        if base == "__future__":
            return
        if not node.level:
            base = self._renamed(base)
        for alias in node.names:
            if alias.name == "*":
                self.star_import = True
                self.imports.append(Import("*", base, node.lineno, base, scope.qualname))
                continue
            local = alias.asname or alias.name
            target = f"{base}.{alias.name}" if base else alias.name
            if not (id(node) in self.fallback_imports and local in scope.bindings):
                scope.bindings[local] = target  # (an ``except ImportError`` import keeps the try's)
            self._add_import(Import(local, target, node.lineno, base, scope.qualname), alias)

    def _add_import(self, imp: Import, alias: ast.alias) -> None:
        """A binding import is also a use of its target by the scope that
        imports it, at the line of its name (``from m import (\n a,\n b)``)."""
        self.imports.append(imp)
        self.uses.append(Use(imp.scope, imp.target, IMPORTS, alias.lineno, alias.col_offset))

    def _renamed(self, name: str) -> str:
        """A bare absolute import's dotted name, its first part as the file's
        own folder on ``sys.path`` reaches it where the workspace names that
        module otherwise (``util`` -> ``a.util``: sources.Workspace.imports_renamed)."""
        top, dot, rest = name.partition(".")
        full = self.renamed.get(top)
        return f"{full}{dot}{rest}" if full is not None else name

    def _import_base(self, node: ast.ImportFrom) -> str | None:
        if not node.level:
            return node.module or ""
        parts = self.package.split(".") if self.package else []
        if node.level - 1 > len(parts) or (node.level > 1 and not parts):
            return None
        keep = parts[: len(parts) - (node.level - 1)]
        if node.module:
            keep.append(node.module)
        return ".".join(keep)

    def _declare_variable(self, node: ast.Assign | ast.AnnAssign, scope: _Scope) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        kind = "variable" if scope.kind == "module" else "attribute"
        for target in targets:
            for name_node in _target_names(target):
                qual = f"{scope.qualname}.{name_node.id}"
                if qual in self.defined_here:
                    continue
                self.defined_here.add(qual)
                signature = f": {spell(node.annotation)}" if isinstance(node, ast.AnnAssign) else ""
                self.definitions.append(Definition(qual, kind, node.lineno, node.end_lineno or node.lineno,
                                                   signature))
                if not (id(node) in self.fallback_imports and name_node.id in scope.bindings):
                    scope.bindings[name_node.id] = qual  # (``except ImportError: X = None`` keeps the import)

    def _check_redefinition(self, node: ast.stmt, scope: _Scope, seen: dict[str, int],
                            decorators: tuple[str, ...]) -> None:
        name = node.name  # type: ignore[attr-defined]
        if any(d.endswith((".setter", ".getter", ".deleter", ".register")) or _is_overload(d) for d in decorators):
            return
        if name in seen:
            self.problems.append(Problem(
                "redefinition", node.lineno, node.col_offset + 1,
                f"{name!r} redefines the definition at line {seen[name]}", f"{scope.qualname}.{name}",
            ))
        seen[name] = node.lineno

    def _class_infos(self) -> None:
        members: dict[str, set[str]] = {q: set() for q in self.class_bases}
        for d in self.definitions:
            parent, _, name = d.qualname.rpartition(".")
            if parent in members:
                members[parent].add(name)
        # instance attributes assigned through self in methods
        assigned: list[tuple[str, str, ast.Assign | ast.AnnAssign, _Scope]] = []
        for scope, body in self.scopes:
            if scope.kind == "function" and scope.cls and scope.self_name:
                for node in self._statements(body):
                    if isinstance(node, (ast.Assign, ast.AnnAssign)):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        for t in targets:
                            if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                    and t.value.id == scope.self_name):
                                assigned.append((scope.cls, t.attr, node, scope))
                                self._add_instance_attribute(scope.cls, t.attr, node, members[scope.cls])
        scopes = {s.qualname: s for s, _ in self.scopes}
        for qual, bases in self.class_bases.items():
            parent_scope = scopes[qual].parent
            resolved = tuple(self._resolve_expr(_generic_origin(b), parent_scope) or "" for b in bases)
            self.local_classes[qual] = ClassInfo(tuple(r for r in resolved if r), frozenset(members[qual]))
        self.assigned = assigned
        # an annotation declares the attribute's class (or classes): no assignment gives it another
        self.annotated = {f"{cls}.{attr}" for cls, attr, node, _ in assigned if isinstance(node, ast.AnnAssign)}
        # their classes, now that every local class is known
        for cls, attr, node, scope in assigned:
            qual = f"{cls}.{attr}"
            if qual not in self.attribute_types and (isinstance(node, ast.AnnAssign) or qual not in self.annotated):
                if isinstance(node, ast.AnnAssign):
                    kind = self._class_of_annotation(node.annotation, scope)
                    for facet, told in self._annotation_facets(node.annotation, scope):
                        self.attribute_types.setdefault(qual + facet, told)
                else:
                    kind = self._constructed_class(node.value, scope)
                if kind:
                    self.attribute_types[qual] = kind

    def _add_instance_attribute(self, cls: str, attr: str, node: ast.Assign | ast.AnnAssign,
                                members: set[str]) -> None:
        if attr in members:
            return
        members.add(attr)
        qual = f"{cls}.{attr}"
        signature = f": {spell(node.annotation)}" if isinstance(node, ast.AnnAssign) else ""
        self.defined_here.add(qual)
        self.definitions.append(Definition(qual, "attribute", node.lineno, node.end_lineno or node.lineno,
                                           signature))

    # --- types of values -----------------------------------------------------------

    def _class_aliases(self) -> None:
        """``builtin_str = str`` at module level, once: another name of a class
        (``"m.builtin_str="`` in the value types), for annotations, ``isinstance``
        and calls here and, through the index, in the modules that import it."""
        root = self.scopes[0][0]
        counts: dict[str, int] = {}
        pairs: list[tuple[str, ast.expr]] = []
        aliases: list[tuple[str, ast.expr]] = []  # type aliases (_alias_candidate), in the same walk
        assert self.tree is not None  # (after parse)
        for stmt in self._statements(self.tree.body):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
                if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
            for t in targets:
                for n in _target_names(t):
                    counts[n.id] = counts.get(n.id, 0) + 1
            for bound in _other_bindings(stmt):  # ``class C`` then ``C = Dummy`` in an ``if``: two bindings
                counts[bound] = counts.get(bound, 0) + 1
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, (ast.Name, ast.Attribute)):
                pairs.append((stmt.targets[0].id, stmt.value))
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                self._alias_candidate(stmt, root, aliases)
        for name, value in aliases:
            if counts.get(name) == 1 and (spelled := self._qualified(value, root)) is not None:
                self.attribute_types[f"{self.module}.{name}=type"] = spelled
        for name, value in pairs + pairs:  # twice: ``builtin_str = str`` may come before ``str = str``
            if counts.get(name) != 1 or f"{self.module}.{name}=" in self.attribute_types:
                continue
            if isinstance(value, ast.Name) and value.id == name:  # ``str = str`` reads the built-in
                target: str | None = f"builtins.{name}" if name in BUILTINS else None
            else:
                target = self._resolve_expr(value, root)
            cls = self._class_named(target) if target and not target.startswith(UNRESOLVED) else None
            if cls is not None and cls != f"{self.module}.{name}":
                self.attribute_types[f"{self.module}.{name}="] = cls

    def _alias_candidate(self, stmt: ast.Assign | ast.AnnAssign, root: _Scope,
                         found: list[tuple[str, ast.expr]]) -> None:
        """A type alias at module level: ``Headers = list[tuple[bytes, bytes]]``
        or ``X: TypeAlias = "..."``. Bound once (``_class_aliases`` counts), it
        stands for the annotation it names, spelled in qualified names
        (``"m.Headers=type"`` in the value types), which ``_unaliased`` reads
        here and in the modules that import it."""
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, (ast.Subscript, ast.BinOp)):
                found.append((stmt.targets[0].id, stmt.value))
            elif len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, (ast.Name, ast.Attribute)) \
                    and (bound := next((k.value for k in stmt.value.keywords if k.arg == "bound"), None)) is not None \
                    and self._resolve_expr(stmt.value.func, root) in _TYPE_VARS \
                    and (value := _unquoted(bound)) is not None:
                found.append((stmt.targets[0].id, value))  # C = TypeVar("C", bound=Base): a C is a Base
        elif isinstance(stmt.target, ast.Name) and stmt.value is not None \
                and isinstance(stmt.annotation, (ast.Name, ast.Attribute)) \
                and self._resolve_expr(stmt.annotation, root) in _TYPE_ALIAS \
                and (value := _unquoted(stmt.value)) is not None:
            found.append((stmt.target.id, value))

    def _qualified(self, ann: ast.expr, scope: _Scope) -> str | None:
        """An annotation with each name spelled as what it resolves to
        (``list[tuple[builtins.bytes, m.Bound]]``), or None when a name does not."""
        def qualify(node: ast.expr, depth: int = 0) -> ast.expr | None:
            if depth > TYPING_DEPTH:  # (``x[0][0]...`` of a thousand: not an alias to spell)
                return None
            depth += 1
            if isinstance(node, (ast.Name, ast.Attribute)):
                target = self._resolve_expr(node, scope)
                if not target or target.startswith(UNRESOLVED):
                    return None
                parts = target.split(".")
                out: ast.expr = ast.Name(parts[0], ast.Load())
                for part in parts[1:]:
                    out = ast.Attribute(out, part, ast.Load())
                return out
            if isinstance(node, ast.Constant):
                if not isinstance(node.value, str):
                    return node
                inner = _unquoted(node)
                return None if inner is None or isinstance(inner, ast.Constant) else qualify(inner, depth)
            if isinstance(node, ast.Subscript):
                value, index = qualify(node.value, depth), qualify(node.slice, depth)
                return None if value is None or index is None else ast.Subscript(value, index, ast.Load())
            if isinstance(node, ast.Tuple):
                elts = [qualify(e, depth) for e in node.elts]
                return None if any(e is None for e in elts) else ast.Tuple(elts, ast.Load())  # type: ignore[arg-type]
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                left, right = qualify(node.left, depth), qualify(node.right, depth)
                return None if left is None or right is None else ast.BinOp(left, ast.BitOr(), right)
            return None
        done = qualify(ann)
        return None if done is None else spell(done)

    def _unaliased(self, ann: ast.expr, scope: _Scope | None) -> tuple[ast.expr | None, _Scope | None]:
        """An annotation (a string parsed) and the scope to read it in: for
        the name of a type alias (``_alias_candidate``), what it stands for, read
        in qualified names."""
        unquoted = _unquoted(ann)
        if isinstance(unquoted, ast.Subscript) and _last_name(unquoted.value) in ("Final", "ClassVar") \
                and self._resolve_expr(unquoted.value, scope) in _QUALIFIERS:
            unquoted = _unquoted(unquoted.slice)  # Final[X], ClassVar[X]: an X
        if isinstance(unquoted, (ast.Name, ast.Attribute)) and scope is not _QUALIFIED and scope is not None:
            target = self._resolve_expr(unquoted, scope)
            if target and not target.startswith((UNRESOLVED, "builtins.", "typing.")) and not self._is_class(target) \
                    and (spelled := self._value_of(target + "=type")) is not None:
                return _parsed_alias(spelled), _QUALIFIED
        return unquoted, scope

    def _class_named(self, qualname: str) -> str | None:
        """The class ``qualname`` is, or is another name of (``_class_aliases``)."""
        if self._is_class(qualname):
            return qualname
        alias = self._alias_of(qualname)
        return alias if alias is not None and self._is_class(alias) else None

    def _alias_of(self, qualname: str) -> str | None:
        """The class a module-level name is another name of; other modules are
        asked only about their own names (not built-ins, not what this one defines)."""
        if qualname.startswith("builtins.") or qualname in self.defined_here:
            return self.attribute_types.get(qualname + "=")
        return self._value_of(qualname + "=")

    # --- pytest fixtures -------------------------------------------------------------

    def _fixture_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> str | None:
        """The name a function decorated ``@pytest.fixture`` (or ``@pytest.fixture(...)``)
        binds: its own, or the ``name=`` given; None for any other function."""
        for d in node.decorator_list:
            func = d.func if isinstance(d, ast.Call) else d
            if _last_name(func) != "fixture" or self._resolve_expr(func, scope.parent) not in _FIXTURES:
                continue
            for k in d.keywords if isinstance(d, ast.Call) else ():
                if k.arg == "name" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                    return k.value.value
            return node.name
        return None

    def _fixture_types(self) -> None:
        """What each fixture of the module (or of a class of it) gives a test
        that names it (``"m.engine()fixture"``): its return annotation's class,
        the class its every return makes; a generator fixture's, what it
        yields; an async one's, what it returns."""
        for scope, _body in self.scopes:
            node = scope.node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.decorator_list \
                    or scope.parent is None or scope.parent.kind not in ("module", "class"):
                continue
            name = self._fixture_name(node, scope)
            if name is None:
                continue
            suffix = "()[]" if self._yields(node) else "()await" if isinstance(node, ast.AsyncFunctionDef) else "()"
            # told even when its class is not known: the nearest fixture of a name is the one a test gets
            cls = self.attribute_types.get(scope.qualname + suffix) or _UNKNOWN_FIXTURE
            self.attribute_types.setdefault(f"{scope.parent.qualname}.{name}()fixture", cls)
            if scope.parent.kind == "module" and self.path.rpartition("/")[2] == "conftest.py":
                # told by the conftest's path: the tests below its folder ask by theirs
                self.attribute_types.setdefault(f"{self.path}:{name}()fixture", cls)

    def _fixture_parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        """Type the parameters of a test pytest collects (``test*`` at a test
        module's top or in a ``Test*`` class) or of a fixture that name a
        fixture: the class's, the module's, then each conftest's up the test's
        folders (pytest's visibility), the nearest first. A parameter with an
        annotation or a default, or one ``parametrize`` gives, is not a fixture's."""
        parent = scope.parent
        assert parent is not None
        in_class = parent.kind == "class" and isinstance(parent.node, ast.ClassDef)
        fixture = self._fixture_name(node, scope) if node.decorator_list else None
        if fixture is None:
            last = self.module.rpartition(".")[2]
            if not (node.name.startswith("test") and (last.startswith("test_") or last.endswith("_test"))):
                return
            if not (parent.kind == "module" or in_class and parent.node.name.startswith("Test")):  # type: ignore[union-attr]
                return
        args = node.args
        positional = args.posonlyargs + args.args
        params = positional[:len(positional) - len(args.defaults)] \
            + [a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
        given = _parametrized(node)
        if in_class and given is not None:
            outer = _parametrized(parent.node)  # type: ignore[arg-type]
            given = None if outer is None else given | outer
        if given is None:
            return  # parametrize's names are not spelled out: any parameter may be one
        places = ([parent.qualname] if in_class else []) + [self.module] + self._conftests()
        for arg in params:
            name = arg.arg
            if arg.annotation is not None or name in scope.types or name in given or name == scope.self_name:
                continue
            start = 0
            if name == fixture:  # a fixture asking for the name it overrides: the one further up
                start = places.index(parent.qualname) + 1 if parent.qualname in places else len(places)
            for place in places[start:]:
                cls = self._value_of(f"{place}{name}()fixture" if place.endswith(":") else f"{place}.{name}()fixture")
                if cls:
                    if cls != _UNKNOWN_FIXTURE:
                        scope.types[name] = cls
                    break

    def _conftests(self) -> list[str]:
        """The conftest.py of the file's folder and of each folder above it up
        to the workspace's, the nearest first, as the names their fixtures are
        told under (paths: a test module's name does not say its folder, as
        pytest imports ``tests/unit/test_x.py`` as ``test_x``)."""
        folders = self.path.split("/")[:-1]
        found = ["/".join([*folders[:i], "conftest.py"]) for i in range(len(folders), -1, -1)]
        return [f"{p}:" for p in found if p != self.path]

    def _value_types(self) -> None:
        """What functions return (``"m.f()"``: their return annotation, or
        their class when every return is ``return self``, and then ``"m.f()self"``:
        called on an instance of a subclass, that subclass) and the classes of
        class-level annotated attributes (dataclass fields)."""
        for scope, body in self.scopes:
            node = scope.node
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                wrapper = self._decorating_class(node, scope) if node.decorator_list else None
                if wrapper is not None:  # ``@curry def add``: the name is a curry, its call curry's
                    self.attribute_types[scope.qualname] = wrapper
                    continue
                cls = None
                if node.returns is not None:
                    if scope.cls and (param := self._class_parameter(node.returns, scope.cls)) is not None:
                        self.attribute_types[scope.qualname + "()<>"] = param  # -> T of ``class Box(Generic[T])``
                    cls = self._class_of_annotation(node.returns, scope.parent)
                    if cls is None and scope.cls and isinstance(node.returns, (ast.Name, ast.Attribute)) and \
                            self._resolve_expr(node.returns, scope.parent) in ("typing.Self", "typing_extensions.Self"):
                        cls = scope.cls
                    item = self._element_of_annotation(node.returns, scope.parent)
                    if item and isinstance(node, ast.AsyncFunctionDef) and any(
                            self._resolve_expr(d, scope.parent) == "contextlib.asynccontextmanager"
                            for d in node.decorator_list if isinstance(d, (ast.Name, ast.Attribute))):
                        self.attribute_types[scope.qualname + "()with"] = item  # what ``async with f() as v`` binds
                    if item and not isinstance(node, ast.AsyncFunctionDef):
                        self.attribute_types[scope.qualname + "()[]"] = item
                        places = self._element_parts(node.returns, scope.parent)
                        if places:  # -> Iterator[tuple[A, B]]: the places of what it yields
                            self.attribute_types[scope.qualname + "()[]()"] = places
                        if any(self._resolve_expr(d, scope.parent) in _CONTEXT_MANAGERS
                               for d in node.decorator_list if isinstance(d, (ast.Name, ast.Attribute))):
                            self.attribute_types[scope.qualname + "()with"] = item  # what ``with f() as v`` binds
                    value = self._mapped_of_annotation(node.returns, scope.parent)
                    if value and not isinstance(node, ast.AsyncFunctionDef):
                        self.attribute_types[scope.qualname + "(){}"] = value
                    made = self._instance_of_type(node.returns, scope.parent)
                    if made and not isinstance(node, ast.AsyncFunctionDef):  # -> type[X]: calling what it returns
                        self.attribute_types[scope.qualname + "()()"] = made
                    union = self._union_of_annotation(node.returns, scope.parent)
                    if union and not isinstance(node, ast.AsyncFunctionDef):  # -> A | B: either
                        self.attribute_types[scope.qualname + "()|"] = union
                    if not isinstance(node, ast.AsyncFunctionDef):  # tuple[A, B]: each place's class
                        for k, part in enumerate(self._tuple_parts(node.returns, scope.parent)):
                            if part:
                                self.attribute_types[f"{scope.qualname}()({k})"] = part
                else:
                    returns = [r for r in self._statements(body) if isinstance(r, ast.Return)]
                    if returns and scope.cls and scope.self_name and all(
                            isinstance(r.value, ast.Name) and r.value.id == scope.self_name for r in returns):
                        cls = scope.cls
                        if not isinstance(node, ast.AsyncFunctionDef):  # the receiver's class, when known
                            self.attribute_types[scope.qualname + "()self"] = cls
                    elif returns and scope.cls and scope.self_name and _returns_receiver_class(node, returns, scope):
                        # ``return cls(...)`` of a classmethod: an instance of the class it is called on
                        self.attribute_types[scope.qualname + "()<>"] = "cls"
                    elif returns and all(r.value is not None and not isinstance(r.value, ast.Name) for r in returns):
                        # every return makes a value of one class (``return Token(...)``, ``return ""``)
                        kinds = {self._value_type(r.value, scope) for r in returns if r.value is not None}
                        if len(kinds) == 1 and None not in kinds and not self._yields(node) \
                                and not self._from_receiver(returns, scope, kinds):
                            cls = kinds.pop()
                        elif len(kinds) > 1 and None not in kinds and not isinstance(node, ast.AsyncFunctionDef) \
                                and not self._yields(node) and not self._from_receiver(returns, scope, kinds):
                            # ``return A()`` here, ``return B()`` there: either, as ``-> A | B`` says
                            self.attribute_types[scope.qualname + "()|"] = " ".join(sorted(k for k in kinds if k))
                        if not isinstance(node, ast.AsyncFunctionDef):  # return C(), n: each place's class
                            for k, part in enumerate(self._returned_places(node, returns, scope)):
                                if part:
                                    self.attribute_types.setdefault(f"{scope.qualname}()({k})", part)
                if node.returns is None and not any(r.value is not None for r in returns) \
                        and (yielded := self._yielded_class(node, scope)) is not None:
                    self.attribute_types[scope.qualname + "()[]"] = yielded  # for v in gen(): what it yields
                    managers = _CONTEXT_MANAGERS if isinstance(node, ast.FunctionDef) \
                        else frozenset({"contextlib.asynccontextmanager"})
                    if any(self._resolve_expr(d, scope.parent) in managers
                           for d in node.decorator_list if isinstance(d, (ast.Name, ast.Attribute))):
                        self.attribute_types[scope.qualname + "()with"] = yielded  # with cm() as v
                if cls and not isinstance(node, ast.AsyncFunctionDef):
                    self.attribute_types[scope.qualname + "()"] = cls
                    if scope.cls and any(_is_property(d) for d in node.decorator_list):
                        self.attribute_types[scope.qualname] = cls  # ``obj.prop`` is the getter's result
                elif cls:  # ``await f()``: what the coroutine returns
                    self.attribute_types[scope.qualname + "()await"] = cls
            elif isinstance(node, ast.ClassDef):
                if self._is_enum(scope.qualname):  # ``RED = 1`` of an Enum: the member is a Color
                    for stmt in body:
                        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                                and isinstance(stmt.targets[0], ast.Name) and not stmt.targets[0].id.startswith("_") \
                                and not isinstance(stmt.value, ast.Lambda):
                            self.attribute_types[f"{scope.qualname}.{stmt.targets[0].id}"] = scope.qualname
                for stmt in body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        made = self._instance_of_type(stmt.annotation, scope)
                        if made:  # ``context_class: type[Context]``: calling it makes a Context
                            self.attribute_types.setdefault(f"{scope.qualname}.{stmt.target.id}()", made)
                        cls = self._class_of_annotation(stmt.annotation, scope)
                        if cls:
                            self.attribute_types.setdefault(f"{scope.qualname}.{stmt.target.id}", cls)
                        for facet, told in self._annotation_facets(stmt.annotation, scope):
                            self.attribute_types.setdefault(f"{scope.qualname}.{stmt.target.id}{facet}", told)

    def _decorating_class(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> str | None:
        """The workspace class a function (not a method) is decorated with, as
        its one decorator written bare (``@curry``): ``add = curry(add)``
        makes the name an instance of it, unless the class makes its own
        instances (a ``__new__`` of the workspace)."""
        if scope.cls or len(node.decorator_list) != 1 or scope.parent is None \
                or not isinstance(node.decorator_list[0], (ast.Name, ast.Attribute)):
            return None
        cls = self._resolve_expr(node.decorator_list[0], scope.parent)
        if cls is None or cls.startswith((UNRESOLVED, "builtins.")) or self._class_info(cls) is None:
            return None
        maker = self._member_owner(cls, "__new__")
        return cls if maker is None or maker.startswith("builtins.") else None

    def _returned_places(self, node: ast.FunctionDef, returns: list[ast.Return], scope: _Scope) -> list[str | None]:
        """The class of each place of the tuple every ``return`` of an
        unannotated function makes (``return Conn(), 0``), where every return
        has it of one class; a receiver's own name is not asked (``return
        self, n`` called on a subclass is of the subclass)."""
        tuples = [r.value for r in returns if isinstance(r.value, ast.Tuple)]
        if len(tuples) != len(returns) or len({len(t.elts) for t in tuples}) != 1 or self._yields(node) \
                or any(isinstance(e, ast.Starred) for t in tuples for e in t.elts):
            return []
        places: list[str | None] = []
        for k in range(len(tuples[0].elts)):
            kinds = {None if isinstance(e, ast.Name) and e.id == scope.self_name else self._value_type(e, scope)
                     for e in (t.elts[k] for t in tuples)}
            places.append(kinds.pop() if len(kinds) == 1 else None)
        return places

    def _yielded_class(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> str | None:
        """The class of what every ``yield`` of an unannotated generator (or
        async generator) gives (``yield Conn()``, or ``yield conn`` of a local
        assigned once, from such a value); None for ``yield from``, a bare
        ``yield``, several classes."""
        if not self._lines_with("yield", node):
            return None
        written = sum(line.count("yield") for line in self.text_lines[node.lineno - 1:node.end_lineno or node.lineno])
        # the yields of its statements (``yield x``, ``v = yield x``): every ``yield`` its text has, else
        # (one inside an expression, a nested function's, a ``yield from``, the word in a string) none
        values = [stmt.value.value for stmt in self._statements(node.body)
                  if isinstance(stmt, (ast.Expr, ast.Assign)) and isinstance(stmt.value, ast.Yield)
                  and stmt.value.value is not None]
        if len(values) != written:
            return None
        kinds = set()
        for value in values:
            if isinstance(value, ast.Name):
                assigned = _assigned_once(value.id, node)
                if assigned is None:
                    return None
                value = assigned
            kinds.add(self._value_type(value, scope))
            if None in kinds or len(kinds) > 1:
                return None
        return kinds.pop() if kinds else None

    def _attribute_names(self, attribute: str, value: ast.Name, scope: _Scope) -> None:
        """``self.helpers = helpers`` of an imported module or function, or
        ``self.kind = Conn`` of a class: the attribute is another name of it
        (``self.helpers.parse()`` is ``helpers.parse``, ``self.kind()`` makes a
        Conn). Not of a local, nor of a variable (whose class, if known, is the
        attribute's already)."""
        if _binding_scope(scope, value.id) is not None or attribute in self.attribute_types \
                or attribute in self.named_twice:
            return
        target = self._resolve_name(value.id, scope)
        told = self.attribute_types.get(f"{attribute}^")
        if told is not None:
            if told != (self._class_named(target) or target if target else None):
                # ``self.kind = A`` in one method, ``= B`` in another: it names neither
                self.named_twice.add(attribute)
                del self.attribute_types[f"{attribute}^"]
                if self.attribute_types.get(f"{attribute}()") == told:
                    del self.attribute_types[f"{attribute}()"]
            return
        if not target or target.startswith((UNRESOLVED, "builtins.")):
            return
        cls = self._class_named(target)
        if cls is not None:
            self.attribute_types[f"{attribute}^"] = cls
            self.attribute_types.setdefault(f"{attribute}()", cls)
        elif target not in self.defined_here and self._value_of(target) is None and any(
                i.local == value.id and i.scope == self.module for i in self.imports):
            self.attribute_types[f"{attribute}^"] = target  # a module or function of another module

    def _is_enum(self, cls: str) -> bool:
        """Whether ``cls`` derives from the standard library's ``Enum`` (its members are its instances)."""
        return cls not in _ENUMS and any(base in _ENUMS for base in self._mro(cls))

    def _enum_class(self, node: ast.expr, scope: _Scope) -> str | None:
        """The Enum class ``node`` names (``Color``, ``mod.Color``): ``Color["RED"]``
        and ``for c in Color`` give its members, instances of it."""
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        target = self._resolve_expr(node, scope)
        cls = self._class_named(target) if target and not target.startswith(UNRESOLVED) else None
        return cls if cls is not None and self._is_enum(cls) else None

    def _from_receiver(self, returns: list[ast.Return], scope: _Scope, kinds: set[str | None]) -> bool:
        """Whether the class of what a method returns comes from its receiver
        (``type(self)()``, ``cls()``, ``copy.copy(self)``): called on an
        instance of a subclass, it makes one of that subclass, so the method's
        own class is not its result's."""
        if scope.self_name is None:
            return False
        self.hidden_receiver = scope
        try:
            return {self._value_type(r.value, scope) for r in returns if r.value is not None} != kinds
        finally:
            self.hidden_receiver = None

    def _type_arguments_of_annotation(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """``Box[C]`` (``Box[A, B]``, ``Optional[Box[C]]``) of a workspace class
        Box: Box, then the classes of its type arguments, joined by a space
        (``-`` for one of no known class); None for a built-in or typing container."""
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return None
        ann = self._without_none(unquoted, scope)
        if not isinstance(ann, ast.Subscript) or not isinstance(ann.value, (ast.Name, ast.Attribute)):
            return None
        origin = self._class_of_annotation(ann.value, scope)
        if not self._workspace_class(origin) or origin in self.local_classes and not self._class_params(origin):
            return None
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        classes = [self._class_of_annotation(a, scope) for a in args]
        return " ".join([origin, *(c or "-" for c in classes)]) if any(classes) else None  # type: ignore[list-item]

    def _class_params(self, cls: str) -> list[str]:
        """The names of the type parameters of a class of this module, as its
        ``Generic[T, U]`` (or ``Protocol[T]``) base lists them."""
        for base in self.class_bases.get(cls, ()):
            if isinstance(base, ast.Subscript) and _last_name(base.value) in ("Generic", "Protocol"):
                args = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
                return [a.id if isinstance(a, ast.Name) else "" for a in args]
        return []

    def _class_parameter(self, returns: ast.expr, cls: str) -> str | None:
        """Which type parameter of ``cls`` a method's return annotation is
        (``-> T`` of ``class Box(Generic[T])``): its position, as text."""
        ann = _unquoted(returns)
        if not isinstance(ann, ast.Name):
            return None
        params = self._class_params(cls)
        return str(params.index(ann.id)) if ann.id in params else None

    def _type_argument(self, node: ast.expr, origin: str, k: int, scope: _Scope) -> str | None:
        """The class of the ``k``-th type argument of the value ``node`` is
        (``b`` of ``b: Box[C]``, an attribute so annotated), when it is
        annotated with ``origin`` itself (a subclass may order its parameters otherwise)."""
        if isinstance(node, ast.Name):
            told = _local_type(scope, "<>" + node.id)
        elif isinstance(node, ast.Attribute):
            target = self._resolve_expr(node, scope)
            told = self._value_of(target + "<>") if target and not target.startswith(UNRESOLVED) else None
        else:
            return None
        parts = told.split() if told else []
        if not parts or parts[0] != origin:
            return None
        return parts[k + 1] if k + 1 < len(parts) and parts[k + 1] != "-" else None

    def _called_instance(self, func: ast.expr, scope: _Scope) -> str | None:
        """``make()`` of ``make = Factory()``: what its class's ``__call__`` returns
        (a name only: an attribute's call is a method's, asked of its class)."""
        if not isinstance(func, ast.Name) or _local_type(scope, func.id) is None:
            return None  # (a name of no known class: most calls are of functions)
        return self._dunder_result(func, "__call__()", scope)

    def _class_or_instance_class(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class ``node`` names (``D`` of ``D.create()``), else the class of
        the instance it is (``d.create()``): what ``cls`` is in a classmethod."""
        if isinstance(node, (ast.Name, ast.Attribute)):
            named = self._resolve_expr(node, scope)
            if named and not named.startswith(UNRESOLVED) and (cls := self._class_named(named)) is not None:
                return cls
        return self._value_type(node, scope)

    def _receiver_type(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class of the instance a method is called on (``b`` of
        ``b.chain()``), as ``_resolve_expr`` reaches it; None for a class."""
        cls = self._value_type(node, scope)
        if cls is None and isinstance(node, (ast.Name, ast.Attribute)):
            target = self._resolve_expr(node, scope)
            if target and not target.startswith(UNRESOLVED) and not self._is_class(target):
                cls = self._value_of(target)
        return cls

    def _value_of(self, qualname: str) -> str | None:
        """The class of an attribute's value, or of a call's result (``"f()"``)."""
        found = self.attribute_types.get(qualname) or _KNOWN_RESULTS.get(qualname) or STDLIB_RESULTS.get(qualname)
        if found is None and self.external_values is not None and not qualname.startswith("builtins."):
            found = self.external_values(qualname)
        return found

    def _value_type(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class of the value an expression is, when sound to know: a
        literal, a constructed class, a call with a known return class. Past
        ``TYPING_DEPTH`` nested questions (a chain ``a.b().c().d()...`` of a
        thousand calls asks each link of the one before) the class is not
        known, rather than the file too deep to analyse."""
        # within one question, each part is asked once (``x[0][0]...`` asks its value three ways)
        return self._asked((id(node), id(scope), id(self.hidden_receiver)), self._value_type_of, node, scope)

    def _asked(self, key: tuple[int, int, int] | tuple[int, int, int, str],
               answer: Callable[[_Node, _Scope], str | None], node: _Node, scope: _Scope) -> str | None:
        """``answer(node, scope)`` as one part of a typing question: once per
        ``key`` within the question (the memo lives until the outermost part
        returns), and None past ``TYPING_DEPTH`` nested parts."""
        if self.typing_depth >= TYPING_DEPTH:
            return None
        memo = self.typing_memo
        if key in memo:
            return memo[key]
        self.typing_depth += 1
        try:
            got = memo[key] = answer(node, scope)
        finally:
            self.typing_depth -= 1
            if not self.typing_depth:
                memo.clear()
        return got

    def _made_class(self, node: ast.Call, scope: _Scope) -> str | None:
        """X of a call ``f()`` with ``f() -> type[X]``: the class its result is.
        Asked as ``_value_type`` is (one answer per node within a question, past
        ``TYPING_DEPTH`` none): a chain ``a().b().c()...`` asks it of each link."""
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            return None
        return self._asked((id(node), id(scope), id(self.hidden_receiver), "()()"), self._made_class_of, node, scope)

    def _made_class_of(self, node: ast.Call, scope: _Scope) -> str | None:
        func = self._resolve_expr(node.func, scope)
        return self._value_of(func + "()()") if func and not func.startswith(UNRESOLVED) else None

    def _value_type_of(self, node: ast.expr, scope: _Scope) -> str | None:
        literal = _LITERAL_TYPES.get(type(node))
        if literal is not None:
            return literal
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, int, float)):
            return f"builtins.{type(node.value).__name__}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and self._is_type_of(node.func, scope):
            return self._value_type(node.func.args[0], scope)  # type(self)(...) makes another of self's class
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and (made := _local_type(scope, "^" + node.func.id)) is not None:
            hidden = self.hidden_receiver
            if hidden is not None and node.func.id == hidden.self_name and _binding_scope(scope, node.func.id) is hidden:
                return None  # cls(...) of a classmethod whose receiver is hidden
            return made  # cls(...) in a classmethod, factory(...) of factory: type[X]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and (made := _local_type(scope, "()" + node.func.id)) is not None:
            return made  # make() of ``make: Callable[[], X]``
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VALUE_GETTERS \
                and (value := self._mapped_type(node.func.value, scope)) is not None:
            return value  # m.get(k) of m: dict[str, V]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ITEM_GETTERS \
                and (item := self._container_items(node.func, scope)) is not None:
            return item  # xs.pop() of xs: list[X], q.popleft() of a deque
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) \
                and isinstance(node.func.value, (ast.Name, ast.Attribute)):
            # ``Ruler[T]()``: a generic class parametrized, then called, makes an instance of it
            target = self._resolve_expr(node.func.value, scope)
            return self._class_named(target) if target and not target.startswith(UNRESOLVED) else None
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            target = self._resolve_expr(node.func, scope)
            if not target or target.startswith(UNRESOLVED):
                return self._called_instance(node.func, scope) if not target else None
            cls = self._class_named(target)
            if cls is not None:
                return cls
            if isinstance(node.func, ast.Attribute) and self._value_of(target + "()self") is not None:
                # ``return self``: called on an instance of a subclass, it gives that subclass
                receiver = self._receiver_type(node.func.value, scope)
                if receiver is None and self.hidden_receiver is not None \
                        and isinstance(base := _chain_base(node.func.value), ast.Name) \
                        and base.id == self.hidden_receiver.self_name:
                    return None  # ``return self.chain()``: of the class of a receiver hidden by _from_receiver
                return receiver or self._value_of(target + "()")
            if target in _CASTS and node.args:  # typing.cast(T, x) is a T
                return self._class_of_annotation(node.args[0], scope)
            if target in _COPIES and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
                return self._value_type(node.args[0], scope)  # copy.copy(x) is of x's class
            if target == "dataclasses.replace" and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
                return self._value_type(node.args[0], scope)  # replace(x, n=2) is another of x's class
            if target in ("builtins.max", "builtins.min") and len(node.args) == 1 \
                    and not isinstance(node.args[0], ast.Starred) and all(k.arg == "key" for k in node.keywords):
                return self._iterated_type(node.args[0], scope)  # max(xs), min(xs, key=f): an item of xs
            if target == "builtins.next" and node.args and not isinstance(node.args[0], ast.Starred):
                return self._next_type(node.args[0], scope)
            if target == "builtins.getattr" and len(node.args) == 2 and not node.keywords \
                    and not isinstance(node.args[0], ast.Starred) and isinstance(node.args[1], ast.Constant) \
                    and isinstance(node.args[1].value, str) and node.args[1].value.isidentifier():
                # getattr(h, "conn") is h.conn (the attribute made once per call and kept: its id is a memo key)
                spelled = self.getattr_nodes.get(id(node))
                if spelled is None:
                    spelled = self.getattr_nodes[id(node)] = ast.copy_location(
                        ast.Attribute(node.args[0], node.args[1].value, ast.Load()), node)
                return self._value_type(spelled, scope)
            found = self._value_of(target + "()")
            if found is None and isinstance(node.func, ast.Attribute) \
                    and (receiver := self._value_of(target + "()<>")) is not None:
                if receiver == "cls":  # C.create() of ``return cls()``: a C; D.create(): a D
                    return self._class_or_instance_class(node.func.value, scope)
                # b.get() of ``b: Box[C]``, ``get(self) -> T``: a C
                return self._type_argument(node.func.value, target.rpartition(".")[0], int(receiver), scope)
            return found or self._called_instance(node.func, scope)
        if isinstance(node, ast.Name):
            owner = _binding_scope(scope, node.id)
            if owner is not None and owner.self_name == node.id and owner.cls:  # self
                return owner.cls if owner is not self.hidden_receiver else None
            return _local_type(scope, node.id)
        if isinstance(node, ast.Attribute):
            target = self._resolve_expr(node, scope)
            if target and not target.startswith(UNRESOLVED):
                return self._value_of(target)
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, (ast.Name, ast.Attribute)):
            target = self._resolve_expr(node.value.func, scope)
            if target and not target.startswith(UNRESOLVED):
                return self._value_of(target + "()await")
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):  # a slice of a list is a list
                return self._value_type(node.value, scope)
            if isinstance(node.slice, ast.Constant) and type(node.slice.value) is int \
                    and (places := self._places(node.value, scope)):
                k = node.slice.value  # pair[0] of ``pair: tuple[A, B]``
                return places[k] if -len(places) <= k < len(places) else None
            return self._mapped_type(node.value, scope) or self._item_type(node.value, scope) \
                or self._dunder_result(node.value, "__getitem__()", scope) or self._enum_class(node.value, scope)
        if isinstance(node, ast.BinOp) and (found := self._operator_result(node, scope)) is not None:
            return found
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            # a chain ``a + b + c ...`` (nested on the left) is walked, not recursed on (thousands of
            # terms compile): the innermost first, each level as the recursion would take it
            levels = [node]
            while isinstance(node.left, ast.BinOp) and isinstance(node.left.op, (ast.Add, ast.Mod)):
                node = node.left
                levels.append(node)
            left = self._value_type(node.left, scope)
            for level in reversed(levels):
                if isinstance(level.op, ast.Mod):  # "%s" % x formats a str (bytes: bytes)
                    left = left if left in ("builtins.str", "builtins.bytes") else None
                else:  # a + b of two str, bytes, lists or tuples
                    left = left if left in _CONCATENATED and left == self._value_type(level.right, scope) else None
            return left
        if isinstance(node, ast.IfExp):  # every branch of one class
            # a chain ``a if x else b if y else c`` is walked, not recursed on (a thousand branches
            # compile); the branches are asked in the recursion's order, up to the first of no class
            branches: list[str] = []
            while isinstance(node, ast.IfExp):
                body = self._value_type(node.body, scope)
                if body is None:
                    return None
                branches.append(body)
                node = node.orelse
            last = self._value_type(node, scope)
            return last if last is not None and all(k == last for k in branches) else None
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):  # x or Default(): every side of one class
            kinds = {self._value_type(v, scope) for v in node.values}
            return kinds.pop() if len(kinds) == 1 else None
        return None

    def _operator_dunder(self, cls: str | None, dunder: str) -> str | None:
        """What ``dunder`` (``__add__``, ``__radd__``...) of a workspace class
        ``cls`` returns, where a workspace class defines it; else None."""
        if not self._workspace_class(cls):
            return None
        assert cls is not None
        owner = self._member_owner(cls, dunder)
        if owner is None or not self._workspace_class(owner):
            return None
        return self._value_of(f"{owner}.{dunder}()")

    def _operator_result(self, node: ast.BinOp, scope: _Scope) -> str | None:
        """``a + b`` with ``a`` of a workspace class that defines ``__add__`` (or
        ``b`` of one that defines ``__radd__``): what that method returns. A
        chain nested on the left is asked from its innermost operand outwards."""
        levels = [node]
        while isinstance(node.left, ast.BinOp):
            node = node.left
            levels.append(node)
        left_cls = self._value_type(node.left, scope)
        found: str | None = None
        for level in reversed(levels):
            name = _OPERATORS.get(type(level.op))
            if name is None:
                return None
            found = self._operator_dunder(left_cls, f"__{name}__")
            if found is None:
                found = self._operator_dunder(self._value_type(level.right, scope), f"__r{name}__")
            if found is None:
                return None
            left_cls = found
        return found

    def _workspace_class(self, cls: str | None) -> bool:
        """Whether ``cls`` is a class whose members are known and not a built-in one."""
        return cls is not None and not cls.startswith("builtins.") and self._class_info(cls) is not None

    def _next_type(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class of ``next(node)``: what ``__next__`` of the value's class
        returns, or an item of an ``Iterator[X]``."""
        cls = self._value_type(node, scope)
        if cls is not None and not cls.startswith("builtins.") and self._class_info(cls) is not None:
            owner = self._member_owner(cls, "__next__")
            if owner is not None and not owner.startswith("builtins."):
                return self._value_of(f"{owner}.__next__()")
        return self._item_type(node, scope)

    def _is_type_of(self, call: ast.Call, scope: _Scope) -> bool:
        """Whether ``call`` is ``type(x)``, the class of one value."""
        return isinstance(call.func, ast.Name) and len(call.args) == 1 and not call.keywords \
            and not isinstance(call.args[0], ast.Starred) and self._resolve_name(call.func.id, scope) == "builtins.type"

    def _iterated_type(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class of what ``for x in node`` binds: an item (``_item_type``),
        or what ``__iter__`` of the value's class says it yields."""
        found = self._item_type(node, scope)
        if found is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "values" and not node.args:
            found = self._mapped_type(node.func.value, scope)  # for v in m.values()
        if found is None and isinstance(node, (ast.Name, ast.Attribute, ast.Call)):
            cls = self._value_type(node, scope)
            if cls is not None and not cls.startswith("builtins.") and self._class_info(cls) is not None:
                owner = self._member_owner(cls, "__iter__")
                if owner is not None and not owner.startswith("builtins."):
                    found = self._value_of(f"{owner}.__iter__()[]") or self._next_of_iterator(owner, cls)
        if found is None and isinstance(node, (ast.Name, ast.Attribute)):
            found = self._enum_class(node, scope)  # for c in Color: its members
        return found

    def _lines_with(self, word: str, node: ast.AST) -> int:
        """How many lines of ``node``'s text hold ``word`` (the module's lines
        holding it found once per word, then counted per node by bisection)."""
        found = self.word_lines.get(word)
        if found is None:
            found = self.word_lines[word] = [n for n, line in enumerate(self.text_lines, 1) if word in line]
        start = node.lineno  # type: ignore[attr-defined]
        end = node.end_lineno or start  # type: ignore[attr-defined]
        return bisect.bisect_right(found, end) - bisect.bisect_left(found, start)

    def _container_items(self, method: ast.Attribute, scope: _Scope) -> str | None:
        """The items of the container ``method`` is called on, when it is a
        built-in one (``list``, ``set``, ``collections.deque``: its ``pop``,
        ``popleft`` and ``copy`` are the list's, not a workspace class's)."""
        target = self._resolve_expr(method, scope)
        if not target or not target.startswith(_CONTAINER_METHODS):
            return None
        return self._item_type(method.value, scope)

    def _next_of_iterator(self, owner: str, cls: str) -> str | None:
        """What a loop over an instance of ``cls`` binds when its ``__iter__``
        (of ``owner``) returns an iterator of a workspace class (``return self``,
        ``-> LineIter``): what that class's ``__next__`` returns."""
        iterator = self._value_of(f"{owner}.__iter__()self") and cls or self._value_of(f"{owner}.__iter__()")
        if iterator is None or iterator.startswith("builtins.") or self._class_info(iterator) is None:
            return None
        step = self._member_owner(iterator, "__next__")
        return self._value_of(f"{step}.__next__()") if step is not None and not step.startswith("builtins.") else None

    def _item_type(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class of the items of a value annotated ``list[X]`` and the like,
        or of a literal list, tuple or set whose items are all of one class."""
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and node.elts:
            kinds = {self._value_type(e, scope) for e in node.elts}
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(node, ast.Name) and (found := _local_type(scope, "[]" + node.id)) is not None:
            return found
        if isinstance(node, ast.Name) and _binding_scope(scope, node.id) is None \
                and (target := self._resolve_name(node.id, scope)) and not target.startswith(UNRESOLVED) \
                and (found := self._value_of(target + "[]")) is not None:
            return found  # NAMES of another module: NAMES: list[str]
        if (first := _or_empty(node)) is not None:  # xs or []
            return self._item_type(first, scope)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):  # xs[1:]
            return self._item_type(node.value, scope)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy" \
                and not node.args and not node.keywords:
            return self._container_items(node.func, scope)  # xs.copy(): the items of xs
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "filter" \
                and len(node.args) == 2 and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args) \
                and self._resolve_name(node.func.id, scope) == "builtins.filter":
            return self._item_type(node.args[1], scope)  # filter(f, xs): some items of xs
        if isinstance(node, ast.Call) and _last_name(node.func) == "chain" and node.args \
                and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args) \
                and self._resolve_expr(node.func, scope) == "itertools.chain":
            kinds = {self._item_type(a, scope) for a in node.args}  # chain(xs, ys): the items of each
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):  # [make(e) for e in es]
            return self._value_type(node.elt, self._comprehension_scope(node, scope))
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and not isinstance(node.args[0], ast.Starred) \
                and (self._resolve_name(node.func.id, scope) if isinstance(node.func, ast.Name) else
                     self._resolve_expr(node.func, scope) if isinstance(node.func, ast.Attribute) else None) \
                in _SAME_ITEMS:
            return self._item_type(node.args[0], scope)  # reversed(xs), sorted(xs), list(xs): the items of xs
        if isinstance(node, (ast.Attribute, ast.Call)):
            func = node.func if isinstance(node, ast.Call) else node
            if isinstance(func, (ast.Name, ast.Attribute)):
                target = self._resolve_expr(func, scope)
                if target and not target.startswith(UNRESOLVED):
                    found = self._value_of(target + ("()[]" if isinstance(node, ast.Call) else "[]"))
                    if found is not None:
                        return found
        if isinstance(node, (ast.Name, ast.Attribute)) and (key := self._mapped_key(node, scope)) is not None:
            return key  # for k in m
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
                and not node.args and (key := self._mapped_key(node.func.value, scope)) is not None:
            return key  # m.keys()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "values" \
                and not node.args and (value := self._mapped_type(node.func.value, scope)) is not None:
            return value  # set(m.values()), [v for v in m.values()]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # xs + ys: the items of both
            # a chain ``a + b + c ...`` walked, not recursed on: the innermost first, as the recursion
            levels = [node]
            while isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Add):
                node = node.left
                levels.append(node)
            left = self._item_type(node.left, scope)
            for level in reversed(levels):
                left = left if left is not None and left == self._item_type(level.right, scope) else None
            return left
        if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            return _TEXT_ITEMS.get(self._value_type(node, scope) or "")  # a str's items are str, a bytes' int
        return None

    # --- types of locals -----------------------------------------------------------

    def _prepare_types(self, scope: _Scope, body: list[ast.stmt]) -> None:
        node = scope.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs:
                if arg.annotation is not None:
                    cls = self._class_of_annotation(arg.annotation, scope.parent)
                    if cls:
                        scope.types[arg.arg] = cls
            positional = args.posonlyargs + args.args
            defaults = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) \
                + [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            for arg, default in defaults:  # ``def hook(val, _c=converter)``: of the default's class
                if arg.annotation is None and arg.arg not in scope.types and scope.parent is not None \
                        and not (isinstance(default, ast.Constant) and default.value is None):
                    cls = _local_type(scope.parent, default.id) if isinstance(default, ast.Name) \
                        and _binding_scope(scope.parent, default.id) is not None \
                        else self._constructed_class(default, scope.parent)
                    if cls:
                        scope.types[arg.arg] = cls
            if scope.parent is not None and (node.name.startswith("test") or node.decorator_list):
                self._fixture_parameters(node, scope)  # def test_run(engine): engine is the fixture's value
            if args.vararg is not None:
                scope.types[args.vararg.arg] = "builtins.tuple"
            if args.kwarg is not None:
                scope.types[args.kwarg.arg] = "builtins.dict"
            for arg in args.posonlyargs + args.args + args.kwonlyargs:
                if arg.annotation is not None:
                    for facet, told in self._annotation_facets(arg.annotation, scope.parent):
                        scope.types[facet + arg.arg] = told
                    made = self._instance_of_type(arg.annotation, scope.parent)
                    if made:  # ``cls: type[Range]``: the local is the class Range ("^" + name)
                        scope.types["^" + arg.arg] = made
            if scope.cls and scope.self_name and any(isinstance(d, ast.Name) and d.id == "classmethod"
                                                     for d in node.decorator_list):
                scope.types["^" + scope.self_name] = scope.cls  # a classmethod's cls
            scope.types.update(self.stub_params.get(scope.qualname, {}))  # a stub's annotations win
        bound: set[str] | None = None  # the locals bound so far, for scope.rebound
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        walrus: list[ast.NamedExpr] | None = None  # ``if m := P.match(s)``: typed after, when bound once
        if bound is not None and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and any(":=" in line for line in self.text_lines[node.lineno - 1:node.end_lineno or node.lineno]):
            walrus = []
        two_classes: set[str] = set()  # a module's or class's variable assigned values of two classes
        factories: set[str] = set()  # names bound to a lambda or partial (their "()" facet)
        assigned: dict[str, int] = {}  # how many statements assign each name
        for stmt in self._statements(body):
            if isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Name):
                        assigned[t.id] = assigned.get(t.id, 0) + 1
            if bound is not None and isinstance(stmt, _BINDING_STATEMENTS):
                _count_bindings(stmt, bound, scope.rebound)
            if walrus is not None and bound is not None:
                for named in _named_exprs(stmt):
                    if named.target.id in bound:
                        scope.rebound.add(named.target.id)
                    bound.add(named.target.id)
                    walrus.append(named)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                cls = self._class_of_annotation(stmt.annotation, scope)
                if cls is None and stmt.value is not None and isinstance(stmt.annotation, (ast.Name, ast.Attribute)) \
                        and self._resolve_expr(stmt.annotation, scope) in _QUALIFIERS:
                    cls = self._constructed_class(stmt.value, scope)  # X: Final = <value>: of the value's class
                if cls:
                    scope.types[stmt.target.id] = cls
                for facet, told in self._annotation_facets(stmt.annotation, scope):
                    scope.types[facet + stmt.target.id] = told
            elif isinstance(stmt, ast.Assign):
                cls = self._constructed_class(stmt.value, scope)
                if cls:
                    for t in stmt.targets:
                        if isinstance(t, ast.Name):
                            scope.types.setdefault(t.id, cls)
                            if bound is None and scope.types[t.id] != cls:
                                two_classes.add(t.id)
                value_node = stmt.value
                names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
                if isinstance(value_node, ast.Call) and isinstance(value_node.func, (ast.Name, ast.Attribute)):
                    func = self._resolve_expr(value_node.func, scope)  # resolved once for what follows
                    if func and not func.startswith(UNRESOLVED):
                        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple):
                            for k, elt in enumerate(stmt.targets[0].elts):  # a, b = f(): f() -> tuple[A, B]
                                if isinstance(elt, ast.Starred):
                                    break  # the places after a star are not counted from the start
                                part = self._value_of(f"{func}()({k})") if isinstance(elt, ast.Name) else None
                                if part and isinstance(elt, ast.Name):
                                    scope.types.setdefault(elt.id, part)
                        if names:
                            made = self._value_of(func + "()()")  # x = f(): f() -> type[X]
                            item = self._item_type(value_node, scope) if func in _SAME_ITEMS \
                                else self._value_of(func + "()[]")  # f() -> list[X]
                            mapped = self._value_of(func + "(){}")  # f() -> dict[str, X]
                            for name in names:
                                for prefix, found in (("^", made), ("[]", item), ("{}", mapped)):
                                    if found:
                                        scope.types.setdefault(prefix + name, found)
                if names and isinstance(value_node, (ast.Lambda, ast.Call)) \
                        and (result := self._callable_result(value_node, scope)) is not None:
                    for name in names:  # make = lambda: Conn(), make = partial(Conn, 1): make() is a Conn
                        scope.types.setdefault("()" + name, result)
                        factories.add(name)
                if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple):
                    self._unpack_types(stmt.targets[0], value_node, scope)
                if names and isinstance(value_node, (ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp,
                                                     ast.GeneratorExp, ast.Attribute, ast.Subscript, ast.BinOp,
                                                     ast.Dict, ast.DictComp)):
                    item = self._item_type(value_node, scope)  # xs = [...], = self.xs, = xs[1:]
                    mapped = self._mapped_type(value_node, scope) \
                        if isinstance(value_node, (ast.Attribute, ast.Dict, ast.DictComp)) else None
                    keys = self._mapped_key(value_node, scope) if isinstance(value_node, ast.Dict) else None
                    places = self._item_parts(value_node, scope) if isinstance(value_node, ast.Attribute) else []
                    for name in names:
                        if item:
                            scope.types.setdefault("[]" + name, item)
                        if mapped:
                            scope.types.setdefault("{}" + name, mapped)
                        if keys:
                            scope.types.setdefault("{<}" + name, keys)
                        if places:
                            scope.types.setdefault("[]()" + name, " ".join(p or "-" for p in places))
                        if isinstance(value_node, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in value_node.elts):
                            parts = [self._value_type(e, scope) for e in value_node.elts]  # t = (A(), b): t[0] is an A
                            if any(parts):
                                scope.types.setdefault("(,)" + name, " ".join(p or "-" for p in parts))
            elif isinstance(stmt, (ast.For, ast.AsyncFor)) and isinstance(stmt.target, ast.Name):
                item = self._iterated_type(stmt.iter, scope)
                if item:
                    scope.types.setdefault(stmt.target.id, item)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)) and isinstance(stmt.target, ast.Tuple):
                for name, iterable in self._unpacked(stmt.target, stmt.iter, scope):
                    item = self._iterated_type(iterable, scope)
                    if item:
                        scope.types.setdefault(name, item)
                self._unpack_parts(stmt.target, self._item_parts(stmt.iter, scope), scope)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                enter = "__enter__" if isinstance(stmt, ast.With) else "__aenter__"
                for item_node in stmt.items:
                    if isinstance(item_node.optional_vars, ast.Name):
                        cls = self._entered_class(item_node.context_expr, scope, enter)
                        if cls:
                            scope.types.setdefault(item_node.optional_vars.id, cls)

        for name in two_classes:  # ``x = A()``, later ``x = B()``: of no one class (the visit is not in order)
            del scope.types[name]
        for name in factories:  # ``make = lambda: A()``, later ``make = lambda: B()``: makes neither
            if assigned.get(name, 0) > 1 or name in scope.rebound:
                scope.types.pop("()" + name, None)
        if bound is not None and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and self._lines_with(".append(", node) and self._lines_with("= []", node):
            self._appended_items(scope, body, "\n".join(self.text_lines[node.lineno - 1:node.end_lineno or node.lineno]))
        if bound is not None:  # ``r = A() if c else B()``, bound once: of the union (``"|" + r``)
            for stmt in self._statements(body):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                        and isinstance(stmt.value, (ast.IfExp, ast.BoolOp)) and stmt.targets[0].id not in scope.rebound \
                        and stmt.targets[0].id not in scope.types and (union := self._union_value(stmt.value, scope)):
                    scope.types.setdefault("|" + stmt.targets[0].id, union)
        for named in walrus or ():
            name, cls = named.target.id, self._constructed_class(named.value, scope)
            if name not in scope.rebound and cls:
                scope.types.setdefault(name, cls)
            elif name in scope.rebound and scope.types.get(name) != cls:
                scope.types.pop(name, None)  # bound by := and otherwise: of no one class before the visit

    def _callable_result(self, value: ast.Lambda | ast.Call, scope: _Scope) -> str | None:
        """The class of what calling ``value`` gives: a lambda's body's, or,
        of ``functools.partial(f, ...)``, what calling ``f`` gives (a class: an
        instance of it)."""
        if isinstance(value, ast.Lambda):
            return self._value_type(value.body, self._comprehension_scope(value, scope))
        if not (value.args and _last_name(value.func) == "partial"
                and isinstance(value.args[0], (ast.Name, ast.Attribute))
                and self._resolve_expr(value.func, scope) == "functools.partial"):
            return None
        target = self._resolve_expr(value.args[0], scope)
        if not target or target.startswith(UNRESOLVED):
            return None
        return self._class_named(target) or self._value_of(target + "()")

    def _appended_items(self, scope: _Scope, body: list[ast.stmt], text: str) -> None:
        """``out = []`` (bound once), then ``out.append(Token(...))`` statements:
        the items of ``out`` are of the one class every append gives, when
        nothing else adds to it in the function's text (``extend``, ``insert``,
        ``+=``, ``out[i] =``, an append inside an expression)."""
        items: dict[str, set[str | None]] = {}
        appends: dict[str, int] = {}
        for stmt in self._statements(body):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.List) and not stmt.value.elts \
                    and stmt.targets[0].id not in scope.rebound and "[]" + stmt.targets[0].id not in scope.types:
                items[stmt.targets[0].id] = set()
            elif isinstance(stmt, ast.Expr) and isinstance(call := stmt.value, ast.Call) \
                    and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                    and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords \
                    and not isinstance(call.args[0], ast.Starred):
                name = call.func.value.id
                appends[name] = appends.get(name, 0) + 1
                if name in items:
                    items[name].add(self._value_type(call.args[0], scope))
        for name, kinds in items.items():
            cls = kinds.pop() if len(kinds) == 1 else None
            if cls is None:
                continue
            uses = re.findall(rf"\b{re.escape(name)}\b\s*(\.\s*\w+|\[|\+=|\*=)?", text)
            if sum(1 for u in uses if u.replace(" ", "") == ".append") != appends[name] \
                    or any(u.replace(" ", "") in (".extend", ".insert", "[", "+=", "*=", ".__setitem__", ".__iadd__")
                           for u in uses):
                continue  # added to otherwise, or read by position (a store through it is not told apart)
            scope.types["[]" + name] = cls

    def _unpack_types(self, target: ast.Tuple, value: ast.expr, scope: _Scope) -> None:
        """``a, b = x.strip(), y[1:]``: each name of the class of its place;
        ``key, value = param.split("=")``: each of the class of the items;
        ``first, *rest = items``: first an item, rest a list of the items."""
        elts = target.elts
        starred = any(isinstance(e, ast.Starred) for e in elts)
        if not starred and isinstance(value, ast.Tuple) and len(value.elts) == len(elts) \
                and not any(isinstance(v, ast.Starred) for v in value.elts):
            for elt, part in zip(elts, value.elts):
                if isinstance(elt, ast.Name):
                    cls = self._constructed_class(part, scope)
                    if cls:
                        scope.types.setdefault(elt.id, cls)
                    item = self._item_type(part, scope)
                    if item:
                        scope.types.setdefault("[]" + elt.id, item)
            return
        if not starred and isinstance(value, ast.Subscript) and not isinstance(value.slice, ast.Slice):
            self._unpack_parts(target, self._item_parts(value.value, scope), scope)  # a, b = pairs[0]
        # a, b = pair; head, *tail = pair: the places before and after the star
        places = self._places(value, scope)
        if places:
            self._unpack_parts(target, places, scope)
        item = self._item_type(value, scope)
        if item:
            for elt in elts:
                if isinstance(elt, ast.Name):
                    scope.types.setdefault(elt.id, item)
                elif isinstance(elt, ast.Starred) and isinstance(elt.value, ast.Name):
                    scope.types.setdefault("[]" + elt.value.id, item)

    @staticmethod
    def _unpack_parts(target: ast.Tuple, parts: list[str | None], scope: _Scope) -> None:
        """Each name of ``target`` of the class of its place (``_item_parts``);
        with a starred name, the places before it and after it, counted from the end."""
        elts = target.elts
        star = next((k for k, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
        if star is None and len(parts) == len(elts):
            pairs = list(zip(elts, parts))
        elif star is not None and len(parts) >= len(elts) - 1:
            after = len(elts) - star - 1
            pairs = list(zip(elts[:star], parts[:star])) + list(zip(elts[star + 1:], parts[len(parts) - after:]))
        else:
            return
        for elt, part in pairs:
            if isinstance(elt, ast.Name) and part:
                scope.types.setdefault(elt.id, part)

    def _comprehension_scope(self, node: ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
                             scope: _Scope) -> _Scope:
        """The scope of a comprehension or lambda, its targets typed as a
        ``for`` statement's are: ``x`` in ``[x.f() for x in xs]`` is an item of xs."""
        inner = _child_scope_for(scope, node)
        for k, gen in enumerate(getattr(node, "generators", ())):
            where = scope if k == 0 else inner  # the first iterable is evaluated outside
            if isinstance(gen.target, ast.Name):
                pairs: list[tuple[str, ast.expr]] = [(gen.target.id, gen.iter)]
            elif isinstance(gen.target, ast.Tuple):
                pairs = self._unpacked(gen.target, gen.iter, where)
                for n in _target_names(gen.target):  # each bound here: no type from outside
                    inner.types.pop(n.id, None)
                self._unpack_parts(gen.target, self._item_parts(gen.iter, where), inner)
            else:
                continue
            for name, iterable in pairs:
                item = self._iterated_type(iterable, where)
                if item:
                    inner.types[name] = item
                else:
                    inner.types.pop(name, None)
            for cond in gen.ifs:  # ``[p for p in ps if isinstance(p, Argument)]``: p is an Argument
                if isinstance(cond, ast.Call) and isinstance(cond.func, ast.Name) and len(cond.args) == 2 \
                        and isinstance(cond.args[0], ast.Name) and not cond.keywords \
                        and isinstance(cond.args[1], (ast.Name, ast.Attribute)) \
                        and any(n.id == cond.args[0].id for n in _target_names(gen.target)) \
                        and self._resolve_name(cond.func.id, inner) == "builtins.isinstance":
                    narrowed = self._class_of_annotation(cond.args[1], inner)
                    if narrowed:
                        inner.types[cond.args[0].id] = narrowed
        return inner

    def _unpacked(self, target: ast.Tuple, iterable: ast.expr, scope: _Scope) -> list[tuple[str, ast.expr]]:
        """``for i, x in enumerate(xs)``: x is an item of xs; ``for a, b in
        zip(xs, ys)``: a of xs, b of ys. Names paired with what they iterate;
        a nested target unpacks an item of its iterable the same way
        (``for j, (p, q) in enumerate(zip(ps, qs))``: p of ps, q of qs)."""
        if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, (ast.Name, ast.Attribute))
                and not iterable.keywords and all(isinstance(e, (ast.Name, ast.Tuple)) for e in target.elts)):
            return []
        func = self._resolve_expr(iterable.func, scope)
        elts = target.elts
        args = iterable.args
        if func == "builtins.enumerate" and len(args) >= 1 and len(elts) == 2 \
                and not isinstance(args[0], ast.Starred):
            return self._paired(elts[1], args[0], scope)
        if func == "builtins.zip" and len(args) == len(elts) and not any(isinstance(a, ast.Starred) for a in args):
            return [pair for elt, arg in zip(elts, args, strict=True) for pair in self._paired(elt, arg, scope)]
        if not all(isinstance(e, ast.Name) for e in elts):
            return []
        names = [e.id for e in elts if isinstance(e, ast.Name)]
        if isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "items" and not args and len(names) == 2 \
                and self._mapped_type(iterable.func.value, scope) is not None:
            # for k, v in m.items() of a mapping m (``dict[K, V]`` and the like): v is a value of m, as in
            # ``for v in m.values()``; another class's items() and values() need not agree
            values = ast.Call(func=ast.Attribute(value=iterable.func.value, attr="values", ctx=ast.Load()),
                              args=[], keywords=[])
            keys = ast.Call(func=ast.Attribute(value=iterable.func.value, attr="keys", ctx=ast.Load()),
                            args=[], keywords=[])
            return [(names[0], keys), (names[1], values)]
        return []

    def _paired(self, elt: ast.expr, iterable: ast.expr, scope: _Scope) -> list[tuple[str, ast.expr]]:
        """``elt`` bound to an item of ``iterable``: a name paired with it, a
        tuple unpacked through ``_unpacked``."""
        if isinstance(elt, ast.Name):
            return [(elt.id, iterable)]
        return self._unpacked(elt, iterable, scope) if isinstance(elt, ast.Tuple) else []

    def _entered_class(self, expr: ast.expr, scope: _Scope, enter: str = "__enter__") -> str | None:
        """The class of ``v`` in ``with expr as v``: what ``__enter__`` returns
        (``async with``: what ``__aenter__``'s coroutine returns)."""
        cls = self._value_type(expr, scope)
        if cls is None or self._class_info(cls) is None:
            # ``with collector.on_exit() as c``: a @contextmanager function's
            # generator yields what ``as`` binds (another function's items are not it)
            if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute)):
                target = self._resolve_expr(expr.func, scope)
                if target and not target.startswith(UNRESOLVED):
                    return self._value_of(target + "()with")
            return None
        owner = self._member_owner(cls, enter)
        if owner is None or owner.startswith("builtins."):
            return None
        entered = self._value_of(f"{owner}.{enter}()" if enter == "__enter__" else f"{owner}.{enter}()await")
        return cls if entered == owner else entered

    def _tuple_parts(self, ann: ast.expr, scope: _Scope | None) -> list[str | None]:
        """The class of each place of ``tuple[A, B, C]`` (none for ``tuple[X, ...]``)."""
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return []
        ann = unquoted
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute))
                and isinstance(ann.slice, ast.Tuple)):
            return []
        if self._resolve_expr(ann.value, scope) not in ("builtins.tuple", "typing.Tuple", "typing_extensions.Tuple"):
            return []
        elts = ann.slice.elts
        if any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elts):
            return []
        return [self._class_of_annotation(e, scope) for e in elts]

    def _instance_of_type(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """X of an annotation ``type[X]`` (``Type[X]``, ``type[X] | None``): what calling the value makes."""
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return None
        ann = unquoted
        ann = self._without_none(ann, scope)
        if not (isinstance(ann, ast.Subscript) and _last_name(ann.value) in ("type", "Type")):
            return None
        if self._resolve_expr(ann.value, scope) not in ("builtins.type", "typing.Type", "typing_extensions.Type"):
            return None
        return self._class_of_annotation(ann.slice, scope)

    def _without_none(self, ann: ast.expr, scope: _Scope | None) -> ast.expr:
        """``X`` of ``X | None`` and ``Optional[X]``; else ``ann``."""
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            sides = [s for s in (ann.left, ann.right) if not (isinstance(s, ast.Constant) and s.value is None)]
            return sides[0] if len(sides) == 1 else ann
        if isinstance(ann, ast.Subscript) and _last_name(ann.value) == "Optional" \
                and self._resolve_expr(ann.value, scope) in ("typing.Optional", "typing_extensions.Optional"):
            return ann.slice
        return ann

    def _yields(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether a function holds a ``yield`` (then a call makes a generator):
        its text first, the tree only when the word is there."""
        end = node.end_lineno or node.lineno
        if not any("yield" in line for line in self.text_lines[node.lineno - 1:end]):
            return False
        return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for stmt in node.body for n in ast.walk(stmt))

    def _mapped_of_annotation(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """The value class of ``dict[K, V]``, ``Mapping[K, V]`` and the like
        (or of one of them ``| None``): what ``m[k]``, ``m.get(k)`` and
        ``m.values()`` give."""
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return None
        ann = unquoted
        ann = self._without_none(ann, scope)
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == 2):
            return None
        if _last_name(ann.value) not in _MAPPINGS:
            return None
        return self._class_of_annotation(ann.slice.elts[1], scope)

    def _mapped_key_of_annotation(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """The key class of ``dict[K, V]``, ``Mapping[K, V]`` and the like (or
        of one of them ``| None``): what ``for k in m`` and ``m.keys()`` give."""
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return None
        ann = self._without_none(unquoted, scope)
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == 2):
            return None
        if _last_name(ann.value) not in _MAPPINGS:
            return None
        return self._class_of_annotation(ann.slice.elts[0], scope)

    def _mapped_key(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class of the keys of a local or attribute annotated ``dict[K, V]`` and the like,
        or of a literal dict whose keys are all of one class."""
        if isinstance(node, ast.Dict) and node.keys and None not in node.keys:
            kinds = {self._value_type(k, scope) for k in node.keys if k is not None}
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(node, ast.Name):
            return _local_type(scope, "{<}" + node.id)
        if isinstance(node, ast.Attribute) and (target := self._resolve_expr(node, scope)) \
                and not target.startswith(UNRESOLVED):
            return self._value_of(target + "{<}")
        return None

    def _mapped_type(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class of the values of a mapping annotated ``dict[K, V]`` and the like."""
        if isinstance(node, ast.Name):
            found = _local_type(scope, "{}" + node.id)
            if found is None and _binding_scope(scope, node.id) is None \
                    and (target := self._resolve_name(node.id, scope)) and not target.startswith(UNRESOLVED):
                found = self._value_of(target + "{}")  # a mapping of another module
            return found
        if (first := _or_empty(node)) is not None:
            return self._mapped_type(first, scope)
        if isinstance(node, ast.Dict) and node.values and None not in node.keys:  # {k: A(), ...}: of one class
            kinds = {self._value_type(v, scope) for v in node.values}
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(node, ast.DictComp):  # {k: make(v) for ...}
            return self._value_type(node.value, self._comprehension_scope(node, scope))
        if isinstance(node, (ast.Attribute, ast.Call)):
            func = node.func if isinstance(node, ast.Call) else node
            if isinstance(func, (ast.Name, ast.Attribute)):
                target = self._resolve_expr(func, scope)
                if target and not target.startswith(UNRESOLVED):
                    return self._value_of(target + ("(){}" if isinstance(node, ast.Call) else "{}"))
        return None

    def _annotation_facets(self, annotation: ast.expr, scope: _Scope | None) -> list[tuple[str, str]]:
        """What an annotation tells of a name beyond its class, as (facet, class) pairs
        keyed as the told facts are (``_TOLD_PREFIXES``): its items ``[]``, its values
        ``{}``, either class of a union ``|`` (``A | B | None``), the places of its items
        ``[]()`` (``list[tuple[A, B]]``), its keys ``{<}`` (``dict[K, V]``) and its places
        ``(,)`` (``tuple[A, B]``). One reading for attributes, parameters and locals."""
        facets: list[tuple[str, str]] = []
        for facet, told in (("[]", self._element_of_annotation(annotation, scope)),
                            ("{}", self._mapped_of_annotation(annotation, scope)),
                            ("|", self._union_of_annotation(annotation, scope)),
                            ("[]()", self._element_parts(annotation, scope)),
                            ("{<}", self._mapped_key_of_annotation(annotation, scope)),
                            ("()", self._called_of_annotation(annotation, scope)),
                            ("^", self._instance_of_type(annotation, scope)),
                            ("<>", self._type_arguments_of_annotation(annotation, scope))):
            if told:
                facets.append((facet, told))
        places = self._tuple_parts(annotation, scope)
        if any(places):
            facets.append(("(,)", " ".join(p or "-" for p in places)))
        return facets

    def _called_of_annotation(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """R of ``Callable[[A, B], R]`` (or ``Callable[..., R] | None``): the class of what calling the value gives."""
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return None
        ann = self._without_none(unquoted, scope)
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == 2
                and _last_name(ann.value) == "Callable"):
            return None
        if self._resolve_expr(ann.value, scope) not in _CALLABLES:
            return None
        return self._class_of_annotation(ann.slice.elts[1], scope)

    def _element_of_annotation(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """The item class of ``list[X]``, ``Sequence[X]``, ``Iterable[X]``,
        ``tuple[X, ...]`` and the like (or of one of them ``| None``), for ``for x in xs``."""
        item, scope = self._element_node(ann, scope)
        return None if item is None else self._class_of_annotation(item, scope)

    def _element_parts(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """For items annotated ``tuple[A, B]`` (``list[tuple[A, B]]``): the
        class of each place, space-separated, ``-`` for one not known."""
        item, scope = self._element_node(ann, scope)
        parts = self._tuple_parts(item, scope) if item is not None else []
        return " ".join(p or "-" for p in parts) if any(parts) else None

    def _item_parts(self, node: ast.expr, scope: _Scope) -> list[str | None]:
        """The class of each place of the items of ``node`` (``_element_parts``)."""
        if isinstance(node, ast.Name):
            found = _local_type(scope, "[]()" + node.id)
        elif isinstance(node, ast.Attribute) and (target := self._resolve_expr(node, scope)) \
                and not target.startswith(UNRESOLVED):
            found = self._value_of(target + "[]()")
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
                and (target := self._resolve_expr(node.func, scope)) and not target.startswith(UNRESOLVED):
            found = self._value_of(target + "()[]()")
        else:
            found = None
        if found is None and isinstance(node, (ast.Name, ast.Attribute, ast.Call)):
            found = self._dunder_result(node, "__iter__()[]()", scope)  # for a, b in obj: what __iter__ yields
        return [None if p == "-" else p for p in found.split()] if found else []

    def _places(self, node: ast.expr, scope: _Scope) -> list[str | None]:
        """The class of each place of a local or attribute annotated ``tuple[A, B]``,
        or of ``await asyncio.gather(f(), g())``: what each awaited call returns."""
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Call) and not node.value.keywords \
                and isinstance(node.value.func, (ast.Name, ast.Attribute)) \
                and not any(isinstance(a, ast.Starred) for a in node.value.args) \
                and self._resolve_expr(node.value.func, scope) == "asyncio.gather":
            # without return_exceptions=True (no keywords): a place is an exception only by raising
            return [self._value_type(ast.Await(value=a), scope) if isinstance(a, ast.Call) else None
                    for a in node.value.args]
        if isinstance(node, ast.Name):
            found = _local_type(scope, "(,)" + node.id)
            if found is None and _binding_scope(scope, node.id) is None \
                    and (target := self._resolve_name(node.id, scope)) and not target.startswith(UNRESOLVED):
                found = self._value_of(target + "(,)")
        elif isinstance(node, ast.Attribute) and (target := self._resolve_expr(node, scope)) \
                and not target.startswith(UNRESOLVED):
            found = self._value_of(target + "(,)")
        else:
            found = None
        return [None if p == "-" else p for p in found.split()] if found else []

    def _dunder_result(self, node: ast.expr, what: str, scope: _Scope) -> str | None:
        """What a special method of the class of ``node`` (of the workspace)
        gives: ``what`` is its name and the kind of fact (``"__getitem__()"``)."""
        cls = self._value_type(node, scope)
        if cls is None or cls.startswith("builtins.") or self._class_info(cls) is None:
            return None
        owner = self._member_owner(cls, what.partition("(")[0])
        return None if owner is None or owner.startswith("builtins.") else self._value_of(f"{owner}.{what}")

    def _element_node(self, ann: ast.expr, scope: _Scope | None) -> tuple[ast.expr | None, _Scope | None]:
        """The annotation of the items of ``ann`` and the scope to read it in."""
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return None, scope
        ann = unquoted
        ann = self._without_none(ann, scope)
        if not isinstance(ann, ast.Subscript):
            return None, scope
        origin = _last_name(ann.value)
        item = ann.slice
        if origin in ("tuple", "Tuple"):
            if not (isinstance(item, ast.Tuple) and len(item.elts) == 2 and isinstance(item.elts[1], ast.Constant)
                    and item.elts[1].value is Ellipsis):
                return None, scope
            item = item.elts[0]
        elif origin in ("Generator", "AsyncGenerator") and isinstance(item, ast.Tuple) and item.elts:
            item = item.elts[0]  # Generator[Yield, Send, Return]
        elif origin not in _ITERABLES:
            return None, scope
        return item, scope

    def _class_of_annotation(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        unquoted, scope = self._unaliased(ann, scope)
        if unquoted is None:
            return None
        ann = unquoted
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # X | None
            sides = [s for s in (ann.left, ann.right) if not (isinstance(s, ast.Constant) and s.value is None)]
            return self._class_of_annotation(sides[0], scope) if len(sides) == 1 else None
        if isinstance(ann, ast.Subscript):
            origin = self._resolve_expr(ann.value, scope) if isinstance(ann.value, (ast.Name, ast.Attribute)) else None
            if origin in ("typing.Optional", "typing_extensions.Optional"):
                return self._class_of_annotation(ann.slice, scope)
            if origin in ("typing.Annotated", "typing_extensions.Annotated") and isinstance(ann.slice, ast.Tuple) \
                    and ann.slice.elts:
                return self._class_of_annotation(ann.slice.elts[0], scope)
            if origin in ("typing.Union", "typing_extensions.Union") and isinstance(ann.slice, ast.Tuple):
                sides = [e for e in ann.slice.elts if not (isinstance(e, ast.Constant) and e.value is None)]
                return self._class_of_annotation(sides[0], scope) if len(sides) == 1 else None
            if origin in _TYPING_ALIASES:
                return _TYPING_ALIASES[origin]
            origin = STDLIB_ALIASES.get(origin or "", origin)
            if origin and not origin.startswith(UNRESOLVED):  # list[str], Base[T], typing.IO[str]
                return self._class_named(origin)
            return None
        if isinstance(ann, (ast.Name, ast.Attribute)):
            target = self._resolve_expr(ann, scope)
            if target in _TYPING_ALIASES:
                return _TYPING_ALIASES[target]
            target = STDLIB_ALIASES.get(target or "", target)
            if target and not target.startswith(UNRESOLVED):
                return self._class_named(target)
        return None

    def _union_of_annotation(self, ann: ast.expr, scope: _Scope | None) -> str | None:
        """``A | B``, ``Union[A, B]``, ``Optional[Union[A, B]]`` (``None``
        aside) of two known classes or more: their names, sorted, joined by a
        space (the ``"|"`` value types); None for one class or none."""
        sides: list[ast.expr] = []
        first, scope = self._unaliased(ann, scope)
        todo = [first] if first is not None else []
        while todo:
            part = _unquoted(todo.pop())
            if part is None:
                continue
            if isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
                todo += [part.right, part.left]
            elif isinstance(part, ast.Subscript) and isinstance(part.value, (ast.Name, ast.Attribute)) \
                    and self._resolve_expr(part.value, scope) in _UNIONS:
                todo += reversed(part.slice.elts) if isinstance(part.slice, ast.Tuple) else [part.slice]
            elif not (isinstance(part, ast.Constant) and part.value is None):
                sides.append(part)
        classes = {c for side in sides if (c := self._class_of_annotation(side, scope)) is not None}
        return " ".join(sorted(classes)) if len(classes) > 1 else None

    def _union_value(self, node: ast.expr, scope: _Scope) -> str | None:
        """The classes a value may be of, as ``_union_of_annotation`` gives
        them: a local of a union, ``a or b`` of the classes or unions of a and b."""
        if isinstance(node, ast.Name):
            return _local_type(scope, "|" + node.id)
        if isinstance(node, ast.IfExp):  # A() if c else B(): either (a chain of them walked, not recursed on)
            parts: list[ast.expr] = []
            while isinstance(node, ast.IfExp):
                parts.append(node.body)
                node = node.orelse
            parts.append(node)
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            parts = node.values
        else:
            return None
        classes: set[str] = set()
        for part in parts:  # (a part's own union is read of a local only: no recursion on nested parts)
            union = _local_type(scope, "|" + part.id) if isinstance(part, ast.Name) else None
            cls = self._value_type(part, scope) if union is None else None
            if union is None and cls is None:
                return None
            classes.update(union.split() if union else [cls] if cls else [])
        return " ".join(sorted(classes)) if len(classes) > 1 else None

    def _union_of_expr(self, node: ast.expr, scope: _Scope) -> str | None:
        """The classes the value of an expression may be of (two or more): a
        local, an attribute or a call's result annotated with a union."""
        if isinstance(node, ast.Name):
            return _local_type(scope, "|" + node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            target, suffix = self._resolve_expr(node.func, scope), "()|"
        elif isinstance(node, ast.Attribute):
            target, suffix = self._resolve_expr(node, scope), "|"
        else:
            return None
        return self._value_of(target + suffix) if target and not target.startswith(UNRESOLVED) else None

    def _union_owner(self, expr: ast.Attribute, scope: _Scope) -> str | None:
        """``x.m`` of an ``x`` of a union of classes whose every class has ``m``
        from one and the same class (a base they share): that member."""
        union = self._union_of_expr(expr.value, scope)
        if union is None:
            return None
        owners = {self._member_owner(cls, expr.attr) if self._is_class(cls) else None for cls in union.split()}
        owner = owners.pop() if len(owners) == 1 else None
        return f"{owner}.{expr.attr}" if owner is not None else None

    def _record_union(self, source: str, expr: ast.Attribute, scope: _Scope) -> None:
        """``x.m`` of an ``x`` of a union of classes refers to each class's
        ``m`` (jedi lists the line for each); the call itself names none."""
        union = self._union_of_expr(expr.value, scope)
        if union is None:
            return
        line, column = expr.end_lineno or expr.lineno, (expr.end_col_offset or 0) - len(expr.attr)
        owners = {o for cls in union.split() if self._is_class(cls) and (o := self._member_owner(cls, expr.attr))}
        for owner in sorted(owners):
            self.uses.append(Use(source, f"{owner}.{expr.attr}", REFERENCES, line, column))

    def _constructed_class(self, call: ast.expr, scope: _Scope) -> str | None:
        """The class of ``x`` in ``x = <call>`` when that is sound: a call of a
        known class, or a literal of a built-in type."""
        if isinstance(call, ast.Name):  # x = y copies y's type only through _local_type, not here
            return None
        return self._value_type(call, scope)

    def _is_class(self, qualname: str) -> bool:
        """Whether ``qualname`` is a class: of the workspace, a built-in, or of
        the standard library (analysis/stdlib_types.py: members unknown)."""
        return self._class_info(qualname) is not None or is_stdlib_class(qualname)

    def _class_info(self, qualname: str) -> ClassInfo | None:
        info = self.local_classes.get(qualname)
        if info is None and self.external_classes is not None:
            info = self.external_classes(qualname)
        if info is None and qualname.startswith("builtins."):
            info = _builtin_class(qualname[len("builtins."):])
        return info

    def _mro(self, cls: str) -> tuple[str, ...]:
        """``cls`` and its bases in Python's C3 order, as far as they are known:
        a class whose bases cannot be known stands for itself alone. Where C3
        has no answer (an inconsistent hierarchy) the depth-first order is used."""
        found = self.mros.get(cls)
        if found is not None:
            return found
        self.mros[cls] = (cls,)  # a cycle of bases ends here
        info = self._class_info(cls)
        bases = [b for b in info.bases if b != cls] if info is not None else []
        seqs = [list(self._mro(b)) for b in bases] + [list(bases)]
        order = [cls]
        while True:
            seqs = [q for q in seqs if q]
            if not seqs:
                break
            head = next((q[0] for q in seqs if not any(q[0] in r[1:] for r in seqs)), None)
            if head is None:  # not linearizable: keep the rest depth-first, once each
                for q in seqs:
                    order.extend(c for c in q if c not in order)
                break
            order.append(head)
            for q in seqs:
                if q[0] == head:
                    del q[0]
        result = tuple(dict.fromkeys(order))
        self.mros[cls] = result
        return result

    def _member_owner(self, cls: str, attr: str, after: str | None = None) -> str | None:
        """The class in ``cls``'s method order (after ``after``, for ``super()``)
        that defines ``attr``. When no known class does, a single class of
        unknown members is taken to be it; with several, nothing is guessed."""
        order = self._mro(cls)
        if after is not None:
            order = order[order.index(after) + 1:] if after in order else ()
        unknown: list[str] = []
        memberless: list[str] = []
        for current in order:
            if current in _TYPED_DICTS:  # a TypedDict is a dict
                current = "builtins.dict"
            info = self._class_info(current)
            if info is None:
                # Generic has no member of its own but its special ones (``__class_getitem__``)
                skipped = current in _MEMBERLESS_BASES and not (attr.startswith("__") and attr.endswith("__"))
                (memberless if skipped else unknown).append(current)
            elif attr in info.members:
                return current
        if len(unknown) == 1:
            return unknown[0]
        return memberless[0] if not unknown and len(memberless) == 1 else None

    # --- pass 2: uses ----------------------------------------------------------------

    def _visit_body(self, body: list[ast.stmt], scope: _Scope) -> None:
        """Every expression and statement of a scope's body, through the nodes
        that are neither (handlers, with-items, match cases and all their
        patterns: ``case Point(x=Color.RED) if ok(p)`` uses Point, Color.RED and
        ok), in source order, with an explicit stack (no recursion per level of
        nesting: an ``elif`` chain nests as deep as it is long)."""
        stack: list[ast.AST | _Narrow | _Step] = list(reversed(body))
        typed = scope.kind == "function" and scope.node is not None
        while stack:
            node = stack.pop()
            if isinstance(node, _Narrow):
                node.apply()
                for watched in self.watched:
                    if watched.types is node.types:
                        watched.saw(node.name, node.cls)
            elif isinstance(node, _Step):
                if node.kind == "watch":
                    self.watched.append(node.branches)
                elif node.kind == "unwatch":
                    self.watched.remove(node.branches)
                node.apply()
            elif typed and isinstance(node, _BRANCHING):
                stack.extend(reversed(self._branched(node, scope)))
            elif isinstance(node, ast.expr):
                self._visit_expr(node, scope, scope.qualname)
            elif isinstance(node, ast.stmt) and self._visit_stmt(node, scope):
                continue
            elif (typed or scope.kind == "module") and isinstance(node, ast.ExceptHandler) \
                    and (caught := self._caught(node, scope)):  # (a module's handler too: its name is bound there)
                assert node.name is not None and node.type is not None  # (_caught is empty otherwise)
                restore = [_Narrow(scope.types, n, scope.types.get(n)) for n in (node.name, "|" + node.name)]
                stack.extend(reversed([node.type, *caught, *node.body, *restore]))
            elif isinstance(node, ast.If) and (narrowed := self._narrowing(node, scope)) is not None:
                stack.extend(reversed([node.test, *narrowed, *node.orelse]))
            elif typed and isinstance(node, ast.Assert) and (asserted := self._asserted(node.test, scope)):
                stack.extend(asserted)  # after the statement, as a rebinding
                stack.extend(reversed(_child_nodes(node)))
            elif isinstance(node, ast.Assign) and (rebound := self._rebinding(node, scope)) is not None:
                if "|" + rebound.name in scope.types:  # bound again: no more of the union the branches left
                    stack.append(_Narrow(scope.types, "|" + rebound.name, None))
                stack.append(rebound)  # after the statement: its value is read with the types before it
                stack.extend(reversed(_child_nodes(node)))
            elif typed and isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) and "|" + node.targets[0].id in scope.types \
                    and node.targets[0].id in scope.rebound:
                stack.append(_Narrow(scope.types, "|" + node.targets[0].id, None))  # (of no known class)
                stack.extend(reversed(_child_nodes(node)))
            else:
                stack.extend(reversed(_child_nodes(node)))

    def _branched(self, node: ast.stmt, scope: _Scope) -> list[ast.AST | _Narrow | _Step]:
        """The parts of an ``if``, loop, ``try`` or ``match`` in visiting
        order, each branch starting from the types before the statement (a
        loop's ``else`` and a ``try``'s handlers and ``finally`` from those
        and the ones the body may leave) and the types after it their join
        (``_Branches``)."""
        branches = _Branches(scope.types, self._mro)
        step, join = _Step(branches, "next"), _Step(branches, "join")
        parts: list[ast.AST | _Narrow | _Step]
        if isinstance(node, ast.If):
            narrowed = self._narrowing(node, scope)
            exited = self._exited_unless(node, scope)
            parts = [node.test, *(node.body if narrowed is None else narrowed), step, *node.orelse, join,
                     *([exited] if exited else [])]
        elif isinstance(node, (ast.For, ast.AsyncFor)):  # run zero or more times
            looped = self._loop_typing(node, scope)
            parts = [node.target, node.iter, *([looped] if looped else []), *self._loop_entry(node, scope, branches),
                     *node.body, _Step(branches, "after_part"), step, *node.orelse, join]
        elif isinstance(node, ast.While):
            parts = [*self._loop_entry(node, scope, branches), node.test, *node.body, _Step(branches, "after_part"),
                     step, *node.orelse, join]
        elif isinstance(node, (ast.Try, ast.TryStar)):
            # a handler runs after any part of the body: the locals it rebinds may hold any class they held there
            # a handler runs after any part of the body: a local may hold any class the body gave it
            unwatch = _Step(branches, "unwatch")
            parts = [_Step(branches, "watch"), *node.body, _Step(branches, "after_part"),
                     *([] if node.finalbody else [unwatch]), *node.orelse]
            for handler in node.handlers:
                parts += [step, handler]
            parts.append(join)
            if node.finalbody:  # and finally after any part of the statement
                parts += [_Step(branches, "enter_finally"), unwatch, *node.finalbody,
                          _Step(branches, "leave_finally", _bound_in(node.finalbody))]
        else:
            assert isinstance(node, ast.Match)
            parts = [node.subject]
            for case in node.cases:
                parts += [case, step]
            parts.append(join)  # no case taken: the types before
        return parts

    def _loop_entry(self, node: ast.For | ast.AsyncFor | ast.While, scope: _Scope,
                    branches: _Branches) -> list[_Narrow]:
        """A loop's body (and a ``while``'s test) runs again after itself: at
        its start a local is of the join of its class before the loop and each
        class the body rebinds it to (``_rebinding``'s rule; the loop's own
        target is bound anew each time), not of the first pass's class alone."""
        skip = node.target.id if not isinstance(node, ast.While) and isinstance(node.target, ast.Name) else None
        joined: dict[str, str | None] = {}
        for stmt in _walk_body(node.body):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            name = stmt.targets[0].id
            was = joined[name] if name in joined else scope.types.get(name)
            if was is None or name == skip or name not in scope.rebound or not scope.is_local(name):
                continue
            value = stmt.value
            cls = _local_type(scope, value.id) if isinstance(value, ast.Name) else self._constructed_class(value, scope)
            if cls is not None:  # a value of no known class leaves the class (_rebinding)
                joined[name] = branches._join(name, was, cls)
        return [_Narrow(scope.types, name, cls) for name, cls in joined.items() if cls != scope.types.get(name)]

    def _rebinding(self, node: ast.Assign, scope: _Scope) -> _Narrow | None:
        """``x = <value of a known class>`` in a function: from there on ``x``
        is of that class (the types gathered before the visit keep the first;
        a value of no known class leaves them)."""
        if not (scope.kind == "function" and scope.node is not None and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            return None
        name = node.targets[0].id
        if name not in scope.rebound and name in scope.types:  # bound once and typed before the visit
            return None
        cls = self._constructed_class(node.value, scope) if not isinstance(node.value, ast.Name) \
            else _local_type(scope, node.value.id)  # ``other = callback`` where callback is narrowed
        if cls is None or cls == scope.types.get(name) or not scope.is_local(name):
            return None
        return _Narrow(scope.types, name, cls)

    def _loop_typing(self, node: ast.For | ast.AsyncFor, scope: _Scope) -> _Narrow | None:
        """``for x in xs`` as the visit reaches it: from there on ``x`` is of
        the class of the items ``xs`` has there (``xs`` narrowed or rebound
        before the loop), or of none known when ``x`` is bound elsewhere too
        (the types gathered before the visit keep its first binding's)."""
        if not (scope.kind == "function" and scope.node is not None and isinstance(node.target, ast.Name)):
            return None
        name = node.target.id
        if name not in scope.rebound and name in scope.types:  # bound once and typed before the visit
            return None
        if not scope.is_local(name):
            return None
        cls = self._iterated_type(node.iter, scope)
        if cls == scope.types.get(name) or cls is None and name not in scope.rebound:
            return None
        return _Narrow(scope.types, name, cls)

    def _isinstance_of(self, test: ast.expr, scope: _Scope) -> tuple[str, str] | None:
        """``isinstance(x, C)`` (or ``type(x) is C``, ``type(x) == C``) of a
        local ``x`` of this function and one known class C: (x, C)."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)) \
                and isinstance(test.left, ast.Call) and self._is_type_of(test.left, scope) \
                and isinstance(test.left.args[0], ast.Name):
            test = ast.Call(func=ast.Name("isinstance", ast.Load()), args=[test.left.args[0], test.comparators[0]],
                            keywords=[])  # type(x) is C: x is a C (and of no subclass)
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and len(test.args) == 2
                and isinstance(test.args[0], ast.Name) and not test.keywords
                and self._resolve_name(test.func.id, scope) == "builtins.isinstance"):
            return None
        name = test.args[0].id
        typed = _function_scope(scope)
        if typed is None or typed is not scope or not scope.is_local(name) or name == scope.self_name:
            return None
        cls = self._class_of_annotation(test.args[1], scope) if isinstance(test.args[1], (ast.Name, ast.Attribute)) \
            else None
        return None if cls is None else (name, cls)

    def _isinstance_union(self, test: ast.expr, scope: _Scope) -> tuple[str, str] | None:
        """``isinstance(x, (A, B))`` of a local ``x`` and known classes: (x,
        the classes as ``_union_of_annotation`` spells them)."""
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and len(test.args) == 2
                and isinstance(test.args[0], ast.Name) and isinstance(test.args[1], ast.Tuple) and not test.keywords
                and self._resolve_name(test.func.id, scope) == "builtins.isinstance"):
            return None
        name = test.args[0].id
        if _function_scope(scope) is not scope or not scope.is_local(name) or name == scope.self_name:
            return None
        classes = {self._class_of_annotation(e, scope) if isinstance(e, (ast.Name, ast.Attribute)) else None
                   for e in test.args[1].elts}
        if None in classes or len(classes) < 2:
            return None
        return name, " ".join(sorted(c for c in classes if c is not None))

    def _caught(self, handler: ast.ExceptHandler, scope: _Scope) -> list[_Narrow]:
        """``except E as e:``: in the handler ``e`` is an E (``except (A, B) as
        e``: one of them, ``"|" + e``); the narrowings before its body, or none.
        The name is unbound after the handler: what follows sees the class it had before."""
        name, caught = handler.name, handler.type
        if name is None or caught is None or not scope.is_local(name) or name == scope.self_name:
            return []
        elts = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        classes = {self._class_of_annotation(e, scope) if isinstance(e, (ast.Name, ast.Attribute)) else None
                   for e in elts}
        if None in classes or not classes:
            return []
        if len(classes) == 1:
            return [_Narrow(scope.types, name, classes.pop()), _Narrow(scope.types, "|" + name, None)]
        return [_Narrow(scope.types, name, None),
                _Narrow(scope.types, "|" + name, " ".join(sorted(c for c in classes if c is not None)))]

    def _bool_narrowing(self, node: ast.BoolOp, scope: _Scope) -> list[ast.AST | _Narrow] | None:
        """``isinstance(x, C) and x.m()``, ``not isinstance(x, C) or x.m()``:
        the tests after it see ``x`` as a C; the values with the narrowings
        between them and their undoing after the last, or None."""
        if scope.kind != "function" or scope.node is None:
            return None
        parts: list[ast.AST | _Narrow] = []
        undo: list[_Narrow] = []
        for k, value in enumerate(node.values):
            parts.append(value)
            test = value if isinstance(node.op, ast.And) else \
                value.operand if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) else None
            if test is not None and k + 1 < len(node.values) \
                    and (found := self._isinstance_of(test, scope)) is not None:
                undo.append(_Narrow(scope.types, found[0], scope.types.get(found[0])))
                parts.append(_Narrow(scope.types, *found))
        parts.extend(reversed(undo))
        return parts if undo else None

    def _asserted(self, test: ast.expr, scope: _Scope) -> list[_Narrow]:
        """``assert isinstance(x, C)`` (alone or among ``and``-ed tests): from
        there on ``x`` is a C (up to its next binding, which retypes it)."""
        tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        return [_Narrow(scope.types, *found) for t in tests if (found := self._isinstance_of(t, scope)) is not None]

    def _exited_unless(self, node: ast.If, scope: _Scope) -> _Narrow | None:
        """``if not isinstance(x, C):`` whose body always leaves (``raise``,
        ``return``, ``continue``, ``break`` last) and no ``else``: after it ``x`` is a C."""
        if node.orelse or not node.body or not isinstance(node.body[-1], (ast.Raise, ast.Return, ast.Continue, ast.Break)):
            return None
        test = node.test  # ``not isinstance(x, C)``, alone or among ``or``-ed tests: all false after the if
        tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
        for t in tests:
            if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) \
                    and (found := self._isinstance_of(t.operand, scope)) is not None:
                return _Narrow(scope.types, *found)
        return None

    def _narrowing(self, node: ast.If, scope: _Scope) -> list[ast.AST | _Narrow] | None:
        """``if isinstance(x, C):``: in its body, up to and including the first
        statement that binds ``x`` again, ``x`` is a C (one class, known); the
        body wrapped between a narrowing and its undoing, or None."""
        test = node.test
        tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        found = next((f for t in tests if (f := self._isinstance_of(t, scope)) is not None), None)
        union = None
        if found is None:
            union = next((f for t in tests if (f := self._isinstance_union(t, scope)) is not None), None)
            if union is None:
                return None
        if found is not None:
            name, cls = found
        else:
            assert union is not None  # (returned above otherwise)
            name, cls = union[0], None
        end = len(node.body)
        for k, stmt in enumerate(node.body):
            if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                   for n in ast.walk(stmt)):
                end = k + 1
                break
        if union is not None:  # ``isinstance(x, (A, B))``: x is one of them (``"|" + x``), of no one class
            return [_Narrow(scope.types, name, cls), _Narrow(scope.types, "|" + name, union[1]), *node.body[:end],
                    _Narrow(scope.types, name, scope.types.get(name)),
                    _Narrow(scope.types, "|" + name, scope.types.get("|" + name)), *node.body[end:]]
        return [_Narrow(scope.types, name, cls), *node.body[:end], _Narrow(scope.types, name, scope.types.get(name)),
                *node.body[end:]]

    def _visit_stmt(self, stmt: ast.stmt, scope: _Scope) -> bool:
        """Visit what a statement itself uses; False when its children are
        still to visit."""
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qual = f"{scope.qualname}.{stmt.name}"
            for d in stmt.decorator_list:
                self._visit_expr(d, scope, qual)
            if isinstance(stmt, ast.ClassDef):
                for b in stmt.bases:
                    origin = _generic_origin(b)
                    self._record(qual, self._resolve_expr(origin, scope), INHERITS, origin, scope)
                    self._visit_expr(origin, scope, qual, skip_self=True)
                    while isinstance(b, ast.Subscript):  # the type arguments are plain uses
                        self._visit_expr(b.slice, scope, qual)
                        b = b.value
                for k in stmt.keywords:
                    self._visit_expr(k.value, scope, qual)
            else:
                args = stmt.args
                for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                    if a is not None and a.annotation is not None:
                        self._visit_annotation(a.annotation, scope, qual)
                for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                    self._visit_expr(default, scope, qual)
                if stmt.returns is not None:
                    self._visit_annotation(stmt.returns, scope, qual)
            return True  # the body is visited as its own scope
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return True  # their uses were recorded when they were declared
        if isinstance(stmt, ast.Global):
            self._visit_global(stmt, scope)
            return True
        if isinstance(stmt, ast.AnnAssign):
            self._visit_annotation(stmt.annotation, scope, scope.qualname)
            for part in (stmt.target, stmt.value):
                if part is not None:
                    self._visit_expr(part, scope, scope.qualname)
            return True
        if scope.kind == "class" and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
            outer = self._outer_value(stmt, stmt.value.id, scope)
            if outer is not None:  # ``RemoteError = RemoteError``: the value is the enclosing scope's
                for target in stmt.targets:
                    self._visit_expr(target, scope, scope.qualname)
                self._visit_expr(stmt.value, outer, scope.qualname)
                return True
        return False

    def _outer_value(self, stmt: ast.Assign, name: str, scope: _Scope) -> _Scope | None:
        """The scope ``name`` is read from in ``name = name`` in a class body
        that binds it no earlier: the class's own is bound by this very
        statement, so Python reads the module's (a name a class block assigns
        is looked up in the block, then the globals: an enclosing function's
        is skipped); None for any other statement."""
        if not any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            return None
        body = scope.node.body if isinstance(scope.node, ast.ClassDef) else []
        if stmt not in body:
            return None
        earlier = body[:body.index(stmt)]
        if name in _bound_in(earlier) or any(name in _other_bindings(e) for e in earlier):
            return None
        outer = scope.parent
        while outer is not None and outer.parent is not None:
            outer = outer.parent
        return outer

    def _visit_global(self, stmt: ast.Global, scope: _Scope) -> None:
        """``global helper`` names the module's ``helper``: a reference to the
        function, class, import or variable it is bound to there (as jedi lists it)."""
        module = scope
        while module.parent is not None:
            module = module.parent
        line = self.text_lines[stmt.lineno - 1].encode() if stmt.lineno <= len(self.text_lines) else b""
        for name in stmt.names:
            target = module.bindings.get(name)
            if target is None:
                continue  # bound by the function only
            at = re.search(rb"\b%s\b" % re.escape(name.encode()), line[stmt.col_offset:])
            column = stmt.col_offset + (at.start() if at else 0)
            self.uses.append(Use(scope.qualname, target, REFERENCES, stmt.lineno, column))

    def _visit_annotation(self, expr: ast.expr, scope: _Scope, source: str) -> None:
        """Annotations may be strings ("Ledger", "list[Posting]"), whole or in
        part (``Optional["Ledger"]``, ``Callable[["A"], "B"]``): read each as
        the expression it spells, placed at the string's line (and each name
        at its column inside the string when the string is written plainly)."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            parsed = self._spelled_annotation(expr)
            if parsed is None:
                return
            expr = parsed
        self._visit_expr(expr, scope, source)
        for part in _type_strings(expr):  # the string parts of a real annotation (none in most)
            self._visit_annotation(part, scope, source)

    def _spelled_annotation(self, expr: ast.Constant) -> ast.expr | None:
        """The expression a string annotation spells, its nodes placed on the
        string's line: each name at its own column when the source holds the
        string as one plain quoted run of the same characters (no prefix, no
        escape), else at the string's column (an attribute's end inside it)."""
        value = expr.value
        if not isinstance(value, str):
            return None
        try:
            tree, _ = parsing.parse(value.strip(), mode="eval")
        except (SyntaxError, *parsing.TOO_DEEP_ERRORS):
            return None
        assert isinstance(tree, ast.Expression)
        parsed = tree.body
        start = None  # the column the stripped text starts at in the source line, when it is there as is
        if expr.end_lineno == expr.lineno and 0 < expr.lineno <= len(self.text_lines):
            line = self.text_lines[expr.lineno - 1].encode()
            raw, col = value.encode(), expr.col_offset
            quote = line[col:col + 1]
            if quote in (b'"', b"'") and line[col + 1:col + 1 + len(raw)] == raw \
                    and line[col + 1 + len(raw):col + 2 + len(raw)] == quote:
                start = col + 1 + len(raw) - len(value.lstrip().encode())
        for node in ast.walk(parsed):
            if start is not None and isinstance(node, ast.expr):
                node.col_offset += start
                node.end_col_offset = start + (node.end_col_offset or 0)
            else:
                if isinstance(node, ast.Attribute):  # its name's place inside the string (one line)
                    node.end_col_offset = expr.col_offset + 1 + (node.end_col_offset or 0)
                node.col_offset = expr.col_offset  # type: ignore[attr-defined]
            node.lineno = expr.lineno  # type: ignore[attr-defined]
            node.end_lineno = expr.lineno  # type: ignore[attr-defined]
        return parsed

    def _visit_expr(self, expr: ast.expr, scope: _Scope, source: str, skip_self: bool = False) -> None:
        """Record every call and every non-local name this expression uses.
        A lambda or comprehension is visited in a scope of its own as a frame
        of an explicit stack, in the order a recursive visit would take, so
        six hundred nested lambdas are six hundred frames of a list."""
        frames: list[_Frame] = [_Frame([expr], scope, skip_self)]
        while frames:
            frame = frames[-1]
            if not frame.stack:
                frames.pop()
                continue
            node = frame.stack.pop()
            scope = frame.scope
            if isinstance(node, _Narrow):
                node.apply()
                continue
            if isinstance(node, ast.BoolOp) and (narrowed := self._bool_narrowing(node, scope)) is not None:
                frame.stack.extend(reversed(narrowed))  # in source order, each test seeing the ones before
                continue
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, (ast.Name, ast.Attribute)):
                    frame.callee_ids.add(id(func))
                    target = self._resolve_expr(func, scope)
                    if isinstance(func, ast.Attribute) and target and target.startswith(UNRESOLVED) \
                            and (common := self._union_owner(func, scope)) is not None:
                        target = common  # p.close() of p: A | B, both BaseParser's close: that one
                    self._record(source, target, CALLS, func, scope)
                    if isinstance(func, ast.Attribute):
                        self._record_members(source, func, scope)
                        if target and target.startswith(UNRESOLVED):
                            self._record_union(source, func, scope)
                    base = _chain_base(func)
                    if not isinstance(base, ast.Name):
                        frame.stack.append(base)
                    if target in _CASTS and node.args:  # cast("Node", v): its first argument is a type
                        self._visit_annotation(node.args[0], scope, source)
                        frame.stack.extend(node.args[1:])
                        frame.stack.extend(k.value for k in node.keywords)
                        continue
                else:
                    frame.stack.append(func)
                frame.stack.extend(node.args)
                frame.stack.extend(k.value for k in node.keywords)
                continue
            if (isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in frame.callee_ids
                    and isinstance(node.ctx, ast.Load)):
                if not frame.skip_self:
                    target = self._resolve_expr(node, scope)
                    if isinstance(node, ast.Attribute) and target and target.startswith(UNRESOLVED):
                        target = None  # an attribute of an unknown value: not an edge
                        self._record_union(source, node, scope)
                    self._record(source, target, REFERENCES, node, scope)
                    if isinstance(node, ast.Attribute):
                        self._record_members(source, node, scope)
                base = _chain_base(node)
                if not isinstance(base, ast.Name):
                    frame.stack.append(base)
                continue
            if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                inner = self._comprehension_scope(node, scope)
                generators = getattr(node, "generators", [])
                first = generators[0] if generators else None
                calls: list[_Frame] = []
                if first is not None:  # the first iterable is evaluated in the enclosing scope
                    calls.append(_Frame([first.iter], scope))
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.comprehension):
                        parts = child.ifs if child is first else [child.iter, *child.ifs]
                        calls.extend(_Frame([part], inner) for part in parts)
                    elif isinstance(child, ast.expr):
                        calls.append(_Frame([child], inner))
                frames.extend(reversed(calls))  # each runs to its end before the next, as calls would
                continue
            frame.stack.extend(_child_nodes(node))

    def _record_members(self, source: str, expr: ast.Attribute, scope: _Scope) -> None:
        """``self.content.decode()`` also refers to ``Response.content``: each
        attribute inside a chain that is a member of a class (of the workspace
        or the standard library; not a module's, not a built-in's), or a class
        (``nodes.Const`` in ``nodes.Const.make()``), is a reference."""
        nodes = []  # the chain's attributes inside ``expr``, outermost first
        node = expr.value
        while isinstance(node, ast.Attribute):
            nodes.append(node)
            node = node.value
        if not nodes:
            return
        # each attribute's target, resolved along the chain once (not once per attribute: a
        # chain of n links was n walks of up to n links, so a 3,000-link chain took seconds)
        for node, target in zip(nodes, reversed(self._chain_targets(nodes[0], scope))):
            if target and not target.startswith((UNRESOLVED, "builtins.")) \
                    and (self._is_class(target.rpartition(".")[0]) or self._class_info(target) is not None):
                self.uses.append(Use(source, target, REFERENCES, node.end_lineno or node.lineno,
                                     (node.end_col_offset or 0) - len(node.attr)))

    def _record(self, source: str, target: str | None, kind: str, expr: ast.expr, scope: _Scope) -> None:
        if target is None:  # a local variable or parameter: not an edge
            base = _chain_base(expr)
            if isinstance(base, ast.Name):
                self.loaded_names.add((scope.qualname, base.id))
                if base is not expr:  # ``Metadata.__dict__``, ``@prop.setter``: the name is still used
                    self._record_base(source, base, scope)
            return
        base = _chain_base(expr)
        if isinstance(base, ast.Name):
            self._mark_loaded(base.id, scope)
            if base is not expr and kind != INHERITS:
                self._record_base(source, base, scope)
        if target.startswith(UNRESOLVED) and isinstance(expr, ast.Name) and not self.star_import:
            self.problems.append(Problem(
                "unresolved-name", expr.lineno, expr.col_offset + 1,
                f"name {expr.id!r} is not defined", source,
            ))
        if isinstance(expr, ast.Attribute):  # where the name is: ``f(\n...).name`` is on the last line
            line, column = expr.end_lineno or expr.lineno, (expr.end_col_offset or 0) - len(expr.attr)
        else:
            line, column = expr.lineno, expr.col_offset
        self.uses.append(Use(source, target, kind, line, column or 0))

    def _record_base(self, source: str, base: ast.Name, scope: _Scope) -> None:
        """``Align.left()`` also refers to the class Align, ``f.cache_clear()``
        and ``@prop.setter`` to the function f and the property prop of this module."""
        owner = self._resolve_name(base.id, scope)
        if not owner or owner.startswith((UNRESOLVED, "builtins.")):
            return
        if self.functions_here is None:
            self.functions_here = {d.qualname for d in self.definitions if d.kind in ("function", "method")}
        if owner in self.functions_here or self._class_info(owner) is not None:
            self.uses.append(Use(source, owner, REFERENCES, base.lineno, base.col_offset))

    def _mark_loaded(self, name: str, scope: _Scope) -> None:
        s: _Scope | None = scope
        while s is not None:
            self.loaded_names.add((s.qualname, name))
            s = s.parent

    # --- resolving names and attribute chains --------------------------------------------

    def _resolve_expr(self, expr: ast.expr, scope: _Scope | None) -> str | None:
        """Qualified target of a Name or Attribute chain; None for a local
        variable (no edge); UNRESOLVED + text when it cannot be known."""
        if scope is None:
            return None
        if scope is _QUALIFIED:  # an alias's annotation, spelled in qualified names
            return spell(expr) if isinstance(_chain_base(expr), ast.Name) else UNRESOLVED + spell(expr)
        if isinstance(expr, ast.Name):
            return self._resolve_name(expr.id, scope)
        if isinstance(expr, ast.Attribute):
            start = self._chain_start(expr, scope)
            if isinstance(start, str):
                return start
            base, chain, is_instance = start
            return self._walk_members(base, chain, expr, is_instance)
        return self._unresolved(expr)

    def _chain_targets(self, expr: ast.Attribute, scope: _Scope | None) -> list[str | None]:
        """What ``_resolve_expr`` gives each attribute of the chain ``expr``
        (``a.b``, ``a.b.c``, ... ``expr``, innermost first), None where that is
        unresolved or None: the base resolved once and the chain walked once."""
        prefixes: list[ast.Attribute] = []
        node: ast.expr = expr
        while isinstance(node, ast.Attribute):
            prefixes.append(node)
            node = node.value
        links = len(prefixes)
        if scope is None or scope is _QUALIFIED or _is_bare_super(node) or _is_two_argument_super(node):
            # no walk: nothing resolves (no scope), an alias's annotation is spelled as written
            # (and short), ``super().x`` resolves as one link only
            asked = prefixes[::-1] if scope is _QUALIFIED else prefixes[-1:]
            found = [self._resolve_expr(n, scope) for n in asked]
            return [t if t and not t.startswith(UNRESOLVED) else None for t in found] + [None] * (links - len(asked))
        start = self._chain_start(expr, scope)
        if isinstance(start, str):  # a base that does not resolve: no link does
            return [None] * links
        current, chain, is_instance = start
        out: list[str | None] = []
        step: tuple[str, bool] | None = (current, is_instance)
        for i, attr in enumerate(chain):
            assert step is not None
            more = self._member_step(*step, i, attr, True, chain[i + 1] if i + 1 < len(chain) else None)
            last = more if attr not in ("__dict__", "__class__") else self._member_step(*step, i, attr, False)
            out.append(last[0] if last is not None else None)
            if more is None:
                return out + [None] * (len(chain) - i - 1)
            step = more
        return out

    def _chain_start(self, expr: ast.Attribute, scope: _Scope) -> tuple[str, list[str], bool] | str:
        """Where ``_resolve_expr`` starts walking the chain ``expr``: its base,
        attributes and whether the base is an instance; or its answer, when
        that does not take a walk (``super().x``, a base that does not resolve)."""
        chain: list[str] = []
        node: ast.expr = expr
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        chain.reverse()
        if _is_bare_super(node):
            owner_scope = _function_scope(scope)
            info = self._class_info(owner_scope.cls) if owner_scope and owner_scope.cls else None
            if info is None or owner_scope is None or owner_scope.cls is None:  # (info implies both)
                return self._unresolved(expr)
            owner = self._member_owner(owner_scope.cls, chain[0], after=owner_scope.cls)
            if owner is not None and len(chain) == 1:
                return f"{owner}.{chain[0]}"
            return self._unresolved(expr)
        if isinstance(node, ast.Call) and _is_two_argument_super(node):
            return self._explicit_super(node, chain, expr, scope)
        if isinstance(node, ast.Call) and self._is_type_of(node, scope) and not chain[0].startswith("__") \
                and (of := self._value_type(node.args[0], scope)) is not None and self._class_info(of) is not None \
                and not (member := self._walk_members(of, chain, expr, False)).startswith(UNRESOLVED):
            return member  # type(x).make(): a member of x's class (else one of type's, below)
        if not isinstance(node, ast.Name):
            self.typing_depth += 1  # one question for both (a chain of calls asks each link once)
            try:
                made = self._made_class(node, scope) if isinstance(node, ast.Call) else None
                value = self._value_type(node, scope) if made is None else None
            finally:
                self.typing_depth -= 1
                if not self.typing_depth:
                    self.typing_memo.clear()
            if made is not None:
                return made, chain, False  # backend().now() of backend() -> type[X]: a member of X
            if value is None:
                return self._unresolved(expr)
            return value, chain, True
        base_name = node.id
        owner_scope = _binding_scope(scope, base_name)
        if owner_scope is not None and owner_scope.self_name == base_name and owner_scope.cls:
            base: str | None = owner_scope.cls
            is_instance = True
        elif (made := _local_type(scope, "^" + base_name)) is not None:
            base, is_instance = made, False  # ``cls._build()`` with ``cls: type[Range]``
        elif _local_type(scope, base_name) is not None:
            base = _local_type(scope, base_name)
            is_instance = True
        else:
            base = self._resolve_name(base_name, scope)
            is_instance = False
            if base is None:
                return self._unresolved(expr)
        if base is None or base.startswith(UNRESOLVED):  # (None: not after the elif above)
            return self._unresolved(expr)
        return base, chain, is_instance

    def _explicit_super(self, node: ast.Call, chain: list[str], expr: ast.expr, scope: _Scope) -> str:
        """``super(C, self).m`` (and ``super(C, cls).m``): the ``m`` that
        follows C in C's method order, as ``super().m`` is in a method of C;
        the first link only, as for ``super().m``."""
        first = node.args[0]
        named = self._resolve_expr(first, scope) if isinstance(first, (ast.Name, ast.Attribute)) else None
        cls = self._class_named(named) if named and not named.startswith(UNRESOLVED) else None
        if cls is None or self._class_info(cls) is None or len(chain) != 1 \
                or self._resolve_name("super", scope) != "builtins.super":
            return self._unresolved(expr)
        owner = self._member_owner(cls, chain[0], after=cls)
        return f"{owner}.{chain[0]}" if owner is not None else self._unresolved(expr)

    def _unresolved(self, expr: ast.expr) -> str:
        """UNRESOLVED + the expression as written; only UNRESOLVED while typing
        (``_value_type`` asks only whether it resolves): a chain of a thousand
        calls would otherwise spell each link's chain again, at each link."""
        return UNRESOLVED if self.typing_depth else UNRESOLVED + self._spelled(expr)

    def _spelled(self, expr: ast.expr) -> str:
        """``spell(expr)``, kept per node: a link ``.g`` or ``()`` (no arguments)
        after an attribute, call, subscript or name is that one's spelling and
        the link, as ``ast.unparse`` writes it, so each link of a chain of calls
        is spelled once from the one before, not walked again from the chain's
        base (a chain of n calls was n walks of up to n links)."""
        memo = self.spelled_memo
        links: list[ast.expr] = []
        node = expr
        while id(node) not in memo:
            kind = type(node)
            if kind is ast.Attribute:
                inner = node.value  # type: ignore[attr-defined]
            elif kind is ast.Call and not node.args and not node.keywords:  # type: ignore[attr-defined]
                inner = node.func  # type: ignore[attr-defined]
            else:
                break
            if type(inner) not in _LINKED:
                break
            links.append(node)
            node = inner
        known = memo.get(id(node))
        text = known[1] if known is not None else spell(node)
        memo[id(node)] = (node, text)
        for link in reversed(links):
            text += "." + link.attr if type(link) is ast.Attribute else "()"
            memo[id(link)] = (link, text)
        return text

    def _walk_members(self, base: str, chain: list[str], expr: ast.expr, is_instance: bool) -> str:
        """``base`` then each attribute of ``chain`` through the class members;
        UNRESOLVED + the text of ``expr`` (made only then) when one is unknown."""
        step: tuple[str, bool] | None = (base, is_instance)
        for i, attr in enumerate(chain):
            assert step is not None
            step = self._member_step(*step, i, attr, i + 1 < len(chain), chain[i + 1] if i + 1 < len(chain) else None)
            if step is None:
                return self._unresolved(expr)
        assert step is not None
        return step[0]

    def _member_step(self, current: str, is_instance: bool, i: int, attr: str,
                     more: bool, following: str | None = None) -> tuple[str, bool] | None:
        """One link of ``_walk_members``: from ``current`` (an instance of it
        or not) through ``attr``, the ``i``-th attribute (``more`` follow it,
        the first of them ``following`` when known); None where it is unknown."""
        if i > 0 or not is_instance:
            typed = self._value_of(current)
            made = self._value_of(current + "^") if typed is None or typed == "builtins.type" else None
            if made is not None:  # ``self.kind.build()`` of ``kind: type[X]``: a member of X
                current, is_instance = made, False
            elif typed is not None:
                current, is_instance = typed, True
            elif not is_instance:  # another name of a class: the class
                current = self._alias_of(current) or current
        if attr == "__dict__" and is_instance and more:  # an instance's namespace
            return "builtins.dict", is_instance
        if attr == "__class__" and is_instance and following is not None and not following.startswith("__") \
                and self._class_info(current) is not None and self._member_owner(current, following) is not None:
            return current, False  # self.__class__.make(): a member of the instance's class (else one of type's)
        if self._is_class(current):
            owner = self._member_owner(current, attr)
            if owner is None:
                return None
            return f"{owner}.{attr}", is_instance
        if is_instance:
            return None
        if current in self.defined_here:
            # an attribute of a function or variable defined here: no static type
            return None
        return f"{current}.{attr}", is_instance

    def _resolve_name(self, name: str, scope: _Scope) -> str | None:
        s: _Scope | None = scope
        first = True
        while s is not None:
            if s.kind == "class" and not first:
                s = s.parent  # class scopes are invisible to nested functions
                continue
            if s.kind == "function":
                if s.is_local(name):
                    return s.bindings.get(name)  # a local def/class/import, or a plain local
            elif name in s.bindings:
                return s.bindings[name]
            elif s.mangled(name) in s.bindings:
                return s.bindings[s.mangled(name)]
            elif s.kind == "class" and name in IMPLICIT_CLASS:
                return None
            first = False
            s = s.parent
        if name in IMPLICIT_MODULE:
            return None
        if name in BUILTINS:
            return f"builtins.{name}"
        if self.star_import:
            return self._star_bound(name) or UNRESOLVED + name
        return UNRESOLVED + name

    def _star_bound(self, name: str) -> str | None:
        """``m.name`` when no statement binds ``name`` but one of the module's
        ``from B import *`` binds it to a class (the tables know it through
        the import, pool.expand_stars); the index names B's functions and
        variables so bound too (WorkspaceIndex._star_bound)."""
        qualname = f"{self.module}.{name}"
        if self.external_classes is not None and self.external_classes(qualname) is not None:
            return qualname
        return None

    # --- unused imports ----------------------------------------------------------------

    def _find_unused_imports(self) -> None:
        if self.path.endswith("__init__.py"):
            return  # package re-exports
        exported = self._dunder_all()
        for imp in self.imports:
            if imp.local == "*" or imp.local in exported or (imp.scope, imp.local) in self.reexported:
                continue
            if _silenced("unused-import", self._noqa(imp.line, self.import_ends.get(imp.line))):
                continue
            if (imp.scope, imp.local) not in self.loaded_names:
                self.problems.append(Problem(
                    "unused-import", imp.line, 1, f"{imp.target!r} imported as {imp.local!r} is never used",
                    f"{imp.scope}.{imp.local}",
                ))

    def literal_all(self) -> tuple[str, ...] | None:
        """The names ``__all__`` lists when the module spells it out at its top
        level (``__all__ = ["a", "b"]``, ``+= (...)``, ``.append("c")``,
        ``.extend([...])``, every part a string constant), sorted; None without
        one, or when a part is computed (``base.__all__ + [...]``): then a star
        import of the module binds its public names (pool.expand_stars). Read
        once (the tables are told it after preparing, the result holds it)."""
        if self.tree is None:
            return None
        if self.exports is _UNREAD:
            self.exports = self._read_all(self.tree)
        return self.exports  # type: ignore[return-value]

    def _read_all(self, tree: ast.Module) -> tuple[str, ...] | None:
        """literal_all's reading: of an ASCII source, only the statements whose
        text holds ``__all__`` (every case below spells the name; another
        source may spell it so that only NFKC makes it ``__all__``)."""
        names: set[str] = set()
        seen = False
        ascii_only = self.source.isascii()
        for stmt in tree.body:
            if ascii_only and not self._lines_with("__all__", stmt):
                continue
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                    continue
                value = stmt.value
                if isinstance(stmt, ast.Assign) and len(targets) != 1 or isinstance(stmt, ast.AugAssign) \
                        and not isinstance(stmt.op, ast.Add):
                    return None
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                    names = set()
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Attribute) \
                    and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == "__all__":
                call = stmt.value
                if call.func.attr not in ("append", "extend") or len(call.args) != 1 or call.keywords:  # type: ignore[attr-defined]
                    return None
                value = call.args[0] if call.func.attr == "extend" else ast.Tuple([call.args[0]])  # type: ignore[attr-defined]
            elif any(isinstance(n, ast.Name) and n.id == "__all__" and isinstance(n.ctx, (ast.Store, ast.Del))
                     for n in ast.walk(stmt)):
                return None  # bound in a branch, a loop, a ``with``...: not spelled out
            else:
                continue
            if not isinstance(value, (ast.List, ast.Tuple)) or not all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                return None
            seen = True
            names.update(e.value for e in value.elts)  # type: ignore[attr-defined]
        return tuple(sorted(names)) if seen else None

    def _dunder_all(self) -> set[str]:
        """Names listed in ``__all__``: assigned, ``+=``, or ``__all__.extend``/``.append``."""
        names: set[str] = set()
        assert self.tree is not None  # (after parse)
        for stmt in _walk_body(self.tree.body):
            value: ast.expr | None = None
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                    value = stmt.value
            elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                  and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("extend", "append")
                  and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == "__all__"):
                value = stmt.value
            if value is not None:
                for node in ast.walk(value):
                        if isinstance(node, ast.Constant) and isinstance(node.value, str):
                            names.add(node.value)
        return names


# --- small helpers -------------------------------------------------------------------------


def definition_order(d: Definition) -> tuple[int, bool, str]:
    """The order of a module's definitions in its analysis (the first one is
    what views/project_graph.py reads the module's doc from)."""
    return d.start, d.end != d.start, d.qualname


def known_result(qualname: str) -> str | None:
    """What the language and the standard library say the class of a value
    or result (``"json.dumps()"``) outside the workspace is, if they say."""
    return _KNOWN_RESULTS.get(qualname) or STDLIB_RESULTS.get(qualname)

#: What built-in methods and a few standard functions return, for chains such
#: as ``text.strip().lower()`` and ``_("...").format(...)``: fixed by the language.
_KNOWN_RESULTS = {
    **{f"builtins.str.{m}()": "builtins.str" for m in (
        "capitalize", "casefold", "center", "expandtabs", "format", "format_map", "join", "ljust", "lower",
        "lstrip", "removeprefix", "removesuffix", "replace", "rjust", "rstrip", "strip", "swapcase", "title",
        "translate", "upper", "zfill")},
    **{f"builtins.bytes.{m}()": "builtins.bytes" for m in (
        "capitalize", "center", "expandtabs", "join", "ljust", "lower", "lstrip", "removeprefix", "removesuffix",
        "replace", "rjust", "rstrip", "strip", "swapcase", "title", "translate", "upper", "zfill")},
    "builtins.str.encode()": "builtins.bytes", "builtins.bytes.decode()": "builtins.str",
    **{f"builtins.{c}.{m}(){part}": f"builtins.{c}" for c in ("str", "bytes") for m, parts in (
        ("partition", ("(0)", "(1)", "(2)")), ("rpartition", ("(0)", "(1)", "(2)")),
        ("split", ("[]",)), ("rsplit", ("[]",)), ("splitlines", ("[]",))) for part in parts},
    **{f"builtins.bytes.{m}()": "builtins.list" for m in ("split", "rsplit", "splitlines")},
    "builtins.bytes.partition()": "builtins.tuple", "builtins.bytes.rpartition()": "builtins.tuple",
    "builtins.str.split()": "builtins.list", "builtins.str.rsplit()": "builtins.list",
    "builtins.str.splitlines()": "builtins.list", "builtins.str.partition()": "builtins.tuple",
    "builtins.str.rpartition()": "builtins.tuple", "builtins.str.split()[]": "builtins.str",
    "builtins.str.rsplit()[]": "builtins.str", "builtins.str.splitlines()[]": "builtins.str",
    "builtins.dict.copy()": "builtins.dict", "builtins.dict.fromkeys()": "builtins.dict", "builtins.list.copy()": "builtins.list",
    "builtins.set.copy()": "builtins.set", "builtins.str()": "builtins.str", "builtins.repr()": "builtins.str",
    "builtins.sorted()": "builtins.list", "builtins.format()": "builtins.str", "builtins.chr()": "builtins.str",
    "gettext.gettext()": "builtins.str", "gettext.ngettext()": "builtins.str", "inspect.cleandoc()": "builtins.str",
    "os.fspath()": "builtins.str", "os.fsdecode()": "builtins.str", "os.fsencode()": "builtins.bytes",
    "os.read()": "builtins.bytes", "os.getcwd()": "builtins.str", "os.listdir()": "builtins.list",
    "os.path.join()": "builtins.str", "os.path.basename()": "builtins.str", "os.path.dirname()": "builtins.str",
    "os.path.abspath()": "builtins.str", "os.path.normpath()": "builtins.str", "os.path.expanduser()": "builtins.str",
    "textwrap.dedent()": "builtins.str", "json.dumps()": "builtins.str",
}

#: What iterating over a str and a bytes gives; classes whose ``+`` makes one of them.
_TEXT_ITEMS = {"builtins.str": "builtins.str", "builtins.bytes": "builtins.int", "builtins.bytearray": "builtins.int"}
_CONCATENATED = frozenset({"builtins.str", "builtins.bytes", "builtins.list", "builtins.tuple"})
#: Bases of unknown members that give a class none of its own (``Generic[T]``).
_MEMBERLESS_BASES = frozenset(f"{m}.{n}" for m in ("typing", "typing_extensions") for n in ("Generic", "Protocol"))
#: Annotations whose arguments are the classes a value may be of.
_UNIONS = frozenset({"typing.Union", "typing_extensions.Union", "typing.Optional", "typing_extensions.Optional"})
#: Functions whose result is their first argument read as an annotation.
_CASTS = frozenset({"typing.cast", "typing_extensions.cast"})
#: Built-ins whose result holds the items of their one argument.
_SAME_ITEMS = frozenset(f"builtins.{f}" for f in ("reversed", "sorted", "list", "tuple", "set", "frozenset", "iter")) \
    | {"collections.deque"}
#: Methods of a list, deque or set that give one of its items, and those classes.
_ITEM_GETTERS = frozenset({"pop", "popleft"})
#: Functions whose result is of their one argument's class (typeshed: ``(x: _T) -> _T``).
_COPIES = frozenset({"copy.copy", "copy.deepcopy"})

#: Annotations that name a built-in class by another name.
_TYPING_ALIASES = {
    f"{m}.{a}": f"builtins.{b}" for m in ("typing", "typing_extensions")
    for a, b in (("List", "list"), ("Dict", "dict"), ("Set", "set"), ("FrozenSet", "frozenset"),
                 ("Tuple", "tuple"), ("Text", "str"), ("AnyStr", "str"))
}
#: Generic mappings whose second type argument is the type of their values.
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict",
                       "ChainMap"})
#: Methods of a mapping that give one of its values.
_VALUE_GETTERS = frozenset({"get", "pop", "setdefault", "__getitem__"})
#: Methods of a built-in sequence or set that give one of its items, and the classes they are read on.
_CONTAINER_METHODS = ("builtins.list.", "builtins.set.", "builtins.frozenset.", "collections.deque.")
#: Generic containers whose one type argument is the type of their items.
_ITERABLES = frozenset({"list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence",
                        "Iterable", "Iterator", "Collection", "AbstractSet", "MutableSet", "Generator",
                        "KeysView", "ValuesView", "deque", "Deque", "AsyncIterator", "AsyncIterable",
                        "AsyncGenerator"})

_LITERAL_TYPES = {
    ast.List: "builtins.list", ast.ListComp: "builtins.list", ast.Dict: "builtins.dict",
    ast.DictComp: "builtins.dict", ast.Set: "builtins.set", ast.SetComp: "builtins.set",
    ast.Tuple: "builtins.tuple", ast.JoinedStr: "builtins.str",
}


@functools.cache  # builtins never change, and dir() of a class is dear: asked once per use
def _builtin_class(name: str) -> ClassInfo | None:
    obj = getattr(builtins, name, None)
    if not isinstance(obj, type):
        return None
    return ClassInfo((), frozenset(dir(obj)))


#: A bracketed run of literal tokens only: numbers, plain strings, True, False,
#: None, brackets, commas and colons, spaces and comments. Possessive, so a
#: megabyte of data is one pass with no backtracking state.
_LITERAL_TOKENS = re.compile(rb"""(?:[ \t\r\n\f]++|\#[^\r\n]*+|[-+]?+\.?+[0-9][0-9a-zA-Z_.]*+(?:[eE][-+][0-9_]++)?+[jJ]?+
    |[bBrRuU]{0,2}+'(?:[^'\\\r\n]|\\.)*+'|[bBrRuU]{0,2}+"(?:[^"\\\r\n]|\\.)*+"
    |[,:()\[\]{}]|True\b|False\b|None\b)++""", re.VERBOSE)
_BRACKETS = re.compile(rb"""[bBrRuU]{0,2}'(?:[^'\\\r\n]|\\.)*'|[bBrRuU]{0,2}"(?:[^"\\\r\n]|\\.)*"|\#[^\r\n]*|[\[\](){}]""")
_OPENING = re.compile(rb"=[ \t]*+([\[({])")
_BLANK = bytes(b if b in b"\r\n" else ord(" ") for b in range(256))
#: Below this, a literal is parsed as it is.
FOLD_AT = 64 * 1024


def fold_data_literals(source: bytes) -> bytes:
    """The source with every data literal of FOLD_AT bytes or more (``DATA =
    [...]`` of numbers and strings) emptied to ``[...]``, every other byte kept
    in place (newlines stay, the rest become spaces): such a literal uses no
    name and defines nothing, but as ast nodes a 7 MB one costs a gigabyte."""
    if len(source) < FOLD_AT:
        return source
    out = None
    at = 0
    while True:
        found = _OPENING.search(source, at)
        if found is None:
            break
        start = found.start(1)
        run = _LITERAL_TOKENS.match(source, start)
        end = _balanced_end(source, start, run.end()) if run else None
        if end is None or end - start < FOLD_AT:
            at = found.end()
            continue
        inner = source[start + 1:end - 1].translate(_BLANK)
        marker = {ord("["): b"...", ord("("): b"...,", ord("{"): b"...:..."}[source[start]]
        if source[start] == ord("{") and not _is_dict(source, start, end):
            marker = b"..."
        room = inner.find(b" " * len(marker))  # on a line of its own, if need be: no newline is lost
        if room >= 0:
            if out is None:
                out = bytearray(source)
            out[start + 1:end - 1] = inner[:room] + marker + inner[room + len(marker):]
        at = end
    return bytes(out) if out is not None else source


def _balanced_end(source: bytes, start: int, stop: int) -> int | None:
    """Where the bracket opened at ``start`` closes, if it does before ``stop``."""
    depth = 0
    for token in _BRACKETS.finditer(source, start, stop):
        char = token.group()
        if char in (b"[", b"(", b"{"):
            depth += 1
        elif char in (b"]", b")", b"}"):
            depth -= 1
            if depth == 0:
                return token.end()
    return None


def _is_dict(source: bytes, start: int, end: int) -> bool:
    depth = 0
    for token in re.finditer(rb"""'(?:[^'\\\r\n]|\\.)*'|"(?:[^"\\\r\n]|\\.)*"|\#[^\r\n]*|[\[\](){}:]""",
                             source[start:end]):
        char = token.group()
        if char in (b"[", b"(", b"{"):
            depth += 1
        elif char in (b"]", b")", b"}"):
            depth -= 1
        elif char == b":" and depth == 1:
            return True
    return False


#: A noqa comment, bare or with codes (``F401, E501``), as flake8 and ruff read it.
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Za-z]+[0-9]+(?:[,\s]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
#: The pyflakes codes of our problem kinds, so a noqa for F401 silences an unused import.
_FLAKE_CODES = {"unused-import": "F401", "redefinition": "F811", "unresolved-name": "F821",
                "syntax-error": "E999", "unresolved-import": "F401"}


def _silenced(kind: str, codes: frozenset[str] | None) -> bool:
    if codes is None or kind in ("syntax-error", TOO_DEEP):
        return False
    return not codes or _FLAKE_CODES.get(kind, "") in codes


def _newer_syntax(line: str, msg: str) -> str:
    """Name the Python version when a syntax error is syntax that version added
    (this runs on an older one), so "invalid syntax" is not read as a typo."""
    if sys.version_info >= (3, 12):
        return ""
    here = f"; this analysis runs Python {sys.version_info.major}.{sys.version_info.minor}"
    if re.match(r"\s*type\s+[A-Za-z_]\w*\s*[\[=]", line):
        return f" (a 'type' alias statement is Python 3.12 syntax{here})"
    if re.match(r"\s*(async\s+)?(def|class)\s+[A-Za-z_]\w*\s*\[", line):
        return f" (type parameters in brackets are Python 3.12 syntax{here})"
    if msg.startswith("f-string"):
        return f" (Python 3.12 allows reused quotes, backslashes and comments inside f-string braces{here})"
    return ""


def _same_kind(a: str, b: str) -> bool:
    """Whether a stub's definition of a kind stands for the source's of another."""
    return a == b or {a, b} <= {"function", "method"} or {a, b} <= {"variable", "attribute"}


def _is_property(decorator: ast.expr) -> bool:
    """``@property``, ``@functools.cached_property``, ``@cached_property``."""
    name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
    return name in ("property", "cached_property")


def _is_overload(decorator: str) -> bool:
    """``@overload``, ``@typing.overload``, ``@t.overload``, ``@typing_extensions.overload``."""
    return decorator == "overload" or decorator.endswith(".overload")


def _generic_origin(base: ast.expr) -> ast.expr:
    """``Base[T]`` inherits from ``Base``: the subscript is its type arguments."""
    while isinstance(base, ast.Subscript):
        base = base.value
    return base


def _is_bare_super(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
            and not node.args and not node.keywords)



def _bindings(name: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, bool, bool]:
    """How ``fn`` binds ``name``, its nested scopes counted too (more bindings,
    never fewer): how many plain stores (an assignment, a loop or ``with``
    target, ``:=``, ``del``); whether anything else (``global``/``nonlocal``,
    ``except ... as``, a ``match`` capture, a nested definition, an import);
    whether a parameter (its own, a nested function's or a lambda's)."""
    stores, other, parameter = 0, False, False
    for n in ast.walk(fn):
        if isinstance(n, ast.Name):
            stores += n.id == name and not isinstance(n.ctx, ast.Load)
        elif isinstance(n, ast.arg):
            parameter = parameter or n.arg == name
        elif isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names \
                or isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name == name \
                or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not fn and n.name == name \
                or isinstance(n, (ast.Import, ast.ImportFrom)) \
                and any((a.asname or a.name.partition(".")[0]) == name for a in n.names):
            other = True
    return stores, other, parameter


def _binds(name: str | None, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether anything in ``fn`` but its parameters binds ``name``."""
    if name is None:
        return False
    stores, other, _parameter = _bindings(name, fn)
    return stores > 0 or other


def _own_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s own scope: not the bodies of the functions,
    lambdas and classes it defines (their names are other variables)."""
    stack: list[ast.AST] = list(reversed(fn.body))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def _assigned_once(name: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    """The value of ``name = value`` in ``fn``'s own scope, when that is the
    only binding of ``name`` anywhere in ``fn`` (nested scopes counted too:
    more bindings, never fewer; a nested function's ``name = value`` is its
    own variable, not this one's value)."""
    value: ast.expr | None = None
    stores, other, parameter = _bindings(name, fn)
    if other or parameter or stores != 1:
        return None
    for n in _own_nodes(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id == name:
            value = n.value
    return value


def _returns_receiver_class(node: ast.FunctionDef | ast.AsyncFunctionDef, returns: list[ast.Return],
                            scope: _Scope) -> bool:
    """A ``@classmethod`` whose every return is ``cls(...)``, ``cls`` never
    bound again in it (``cls = cls._registry[kind]; return cls()`` makes
    what the registry holds, not the receiver's class)."""
    return not isinstance(node, ast.AsyncFunctionDef) \
        and any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list) \
        and all(isinstance(r.value, ast.Call) and isinstance(r.value.func, ast.Name)
                and r.value.func.id == scope.self_name for r in returns) \
        and not _binds(scope.self_name, node)


def _is_two_argument_super(node: ast.expr) -> bool:
    """``super(C, self)``: the class and the instance (or class) written out."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
            and len(node.args) == 2 and not node.keywords
            and not any(isinstance(a, ast.Starred) for a in node.args))


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


_UNREAD = object()  # (literal_all not asked yet: None is an answer)
_NESTING_FIELDS = frozenset(("body", "orelse", "finalbody", "handlers", "cases"))
_NESTS: dict[type, bool] = {}  # node type -> has a field that holds statements


def _nested_statements(stmt: ast.stmt) -> Iterable[ast.stmt]:
    """Statements inside compound statements that still belong to the same scope."""
    kind = type(stmt)
    nests = _NESTS.get(kind)
    if nests is None:
        nests = _NESTS[kind] = not _NESTING_FIELDS.isdisjoint(getattr(kind, "_fields", ()))
    if not nests or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return ()
    out: list[ast.stmt] = []
    for name in ("body", "orelse", "finalbody"):
        out.extend(getattr(stmt, name, None) or [])
    for handler in getattr(stmt, "handlers", None) or []:
        out.extend(handler.body)
    for case in getattr(stmt, "cases", None) or []:
        out.extend(case.body)
    return out


def _child_nodes(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes`` in the same order, as one list and without the
    ``Load``/``Store`` context nodes (they hold nothing and use nothing): the
    visitors call it once per node, so its generators were a tenth of the time.
    Only the fields of a node type that may hold nodes are read (``_CHILD_FIELDS``)."""
    kind = type(node)
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _child_fields(kind)
    out: list[ast.AST] = []
    for name, form in fields:
        field = getattr(node, name, None)
        if form == _ONE:
            if field is not None:
                out.append(field)
        elif form == _MANY:
            if field:
                out.extend(field if None not in field else (item for item in field if item is not None))
        elif isinstance(field, ast.AST):
            if not isinstance(field, ast.expr_context):
                out.append(field)
        elif isinstance(field, list):
            out.extend(item for item in field if isinstance(item, ast.AST))
    return out


_ONE, _MANY, _ANY = 0, 1, 2  # a field holding a node or None, a list of nodes (or None), anything
#: The ASDL types of fields that never hold a node (``expr_context`` holds nothing that is used).
_LEAF_TYPES = frozenset(("identifier", "int", "string", "constant", "expr_context"))
_CHILD_FIELDS: dict[type, tuple[tuple[str, int], ...]] = {}  # node type -> its fields that may hold nodes


def _child_fields(kind: type) -> tuple[tuple[str, int], ...]:
    """The fields of node type ``kind`` that may hold nodes, each with its
    form, read from the ASDL signature ``ast`` gives as the type's doc
    (``Compare(expr left, cmpop* ops, expr* comparators)``); a field the
    signature does not type is read as any value, as ``ast.iter_child_nodes`` does."""
    typed: dict[str, str] = {}
    doc = (kind.__doc__ or "").strip().split("\n", 1)[0]
    match = re.fullmatch(r"\w+\((.*)\)", doc)
    if match is not None:
        for part in filter(None, match.group(1).split(", ")):
            typ, _, name = part.rpartition(" ")
            typed[name] = typ
    fields: list[tuple[str, int]] = []
    for name in getattr(kind, "_fields", ()):
        typ = typed.get(name)
        if typ is None:
            fields.append((name, _ANY))
        elif typ.rstrip("*?") not in _LEAF_TYPES:
            fields.append((name, _MANY if typ.endswith("*") else _ONE))
    _CHILD_FIELDS[kind] = found = tuple(fields)
    return found


def _walk_body(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement of one scope, in source order (each before the ones it
    holds), with an explicit stack: no generator per level of nesting."""
    stack = [iter(body)]
    while stack:
        for stmt in stack[-1]:
            yield stmt
            nested = _nested_statements(stmt)
            if nested:
                stack.append(iter(nested))
                break
        else:
            stack.pop()


def _bound_in(nodes: Iterable[ast.AST]) -> frozenset[str]:
    """The names stored or deleted anywhere in ``nodes`` (nested scopes'
    too: more names than bound here, never fewer)."""
    return frozenset(n.id for node in nodes for n in ast.walk(node)
                     if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))


_BINDING_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)


def _count_bindings(stmt: ast.stmt, bound: set[str], rebound: set[str]) -> None:
    """Add the names ``stmt`` binds to ``bound``; those bound already to ``rebound``."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    else:
        targets = [stmt.target]  # type: ignore[attr-defined]  # AnnAssign, AugAssign, For
    for t in targets:
        for n in _target_names(t):
            if n.id in bound:
                rebound.add(n.id)
            bound.add(n.id)


def _other_bindings(stmt: ast.stmt) -> Iterable[str]:
    """The names a statement binds other than by assignment: a ``def``, a
    ``class``, an import, a ``for`` or ``with`` target."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for alias in stmt.names:
            if alias.name != "*":
                yield alias.asname or alias.name.partition(".")[0]
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        yield from (n.id for n in _target_names(stmt.target))
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                yield from (n.id for n in _target_names(item.optional_vars))


def _named_exprs(stmt: ast.stmt) -> list[ast.NamedExpr]:
    """The ``:=`` of a statement's own expressions (not of the statements it
    holds, nor of a lambda, which binds in its own scope)."""
    found: list[ast.NamedExpr] = []
    stack = [n for n in _child_nodes(stmt) if isinstance(n, ast.expr)]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            found.append(n)
        if not isinstance(n, ast.Lambda):
            stack.extend(c for c in _child_nodes(n) if isinstance(c, ast.expr))
    return found


def _target_names(target: ast.expr) -> Iterable[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


#: The scope an alias's annotation is read in: each name is the qualified name it spells.
_QUALIFIED = _Scope("module", "", None, None)
#: The kinds of facts about a module or class variable that other modules are told, as suffixes.
_TOLD_PREFIXES = ("[]()", "[]", "{<}", "{}", "|", "(,)", "()", "^")
_TYPE_VARS = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})
_CALLABLES = frozenset({"typing.Callable", "typing_extensions.Callable", "collections.abc.Callable"})
#: Annotations whose argument is the class of what they annotate.
_QUALIFIERS = frozenset(f"{m}.{n}" for m in ("typing", "typing_extensions") for n in ("Final", "ClassVar"))
#: What a TypedDict's members are.
_TYPED_DICTS = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})
_OPERATORS: dict[type, str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift",
    ast.BitOr: "or", ast.BitXor: "xor", ast.BitAnd: "and",
}
_ENUMS = frozenset(f"enum.{n}" for n in ("Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "ReprEnum"))
#: Annotations that declare a type alias.
#: What declares a pytest fixture.
_FIXTURES = frozenset({"pytest.fixture", "_pytest.fixtures.fixture"})
#: The value told of a fixture whose class is not known (``"m.name()fixture"``).
_UNKNOWN_FIXTURE = "?"
#: ``cast(T, v)``: T is a type (a string spells one), v a value.
_CASTS = frozenset({"typing.cast", "typing_extensions.cast"})
_TYPE_ALIAS = frozenset({"typing.TypeAlias", "typing_extensions.TypeAlias"})


@functools.lru_cache(maxsize=1024)
def _parsed_alias(spelled: str) -> ast.expr:
    """The annotation a type alias stands for, parsed once (with the same frames anywhere)."""
    tree, _ = parsing.parse(spelled, mode="eval")
    assert isinstance(tree, ast.Expression)
    return tree.body


def _unquoted(ann: ast.expr) -> ast.expr | None:
    """The annotation a string annotation (``"list[X]"``) spells, parsed; none
    when it is not an expression; any other annotation as it is."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            tree, _ = parsing.parse(ann.value, mode="eval")
        except (SyntaxError, *parsing.TOO_DEEP_ERRORS):
            return None
        assert isinstance(tree, ast.Expression)
        return tree.body
    return ann


def _type_strings(ann: ast.expr) -> list[ast.Constant]:
    """The strings in type places of an annotation (``"A"`` of ``Optional["A"]``,
    of ``Callable[["A"], "B"]``, of ``"A" | None``, the first of ``Annotated["A", "m"]``):
    not those of ``Literal["a"]`` (values) nor an ``Annotated``'s metadata."""
    found: list[ast.Constant] = []
    stack = [ann]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                found.append(node)
        elif isinstance(node, ast.Subscript):
            name = _last_name(node.value)
            if name == "Literal":
                continue
            index = node.slice
            if name == "Annotated" and isinstance(index, ast.Tuple) and index.elts:
                index = index.elts[0]
            stack.append(index)
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(reversed(node.elts))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            stack.extend((node.right, node.left))
    return found


def _parametrized(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str] | None:
    """The argument names ``@pytest.mark.parametrize`` decorators give
    (``"a, b"``, ``("a", "b")``), not those it passes on to fixtures
    (``indirect=True``); None when a decorator's names are not spelled out."""
    names: set[str] = set()
    for d in node.decorator_list:
        if not (isinstance(d, ast.Call) and _last_name(d.func) == "parametrize"):
            continue
        argnames = d.args[0] if d.args else next((k.value for k in d.keywords if k.arg == "argnames"), None)
        if any(k.arg == "indirect" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in d.keywords):
            continue  # each value goes to the fixture of the name: the test gets what the fixture makes
        if isinstance(argnames, ast.Constant) and isinstance(argnames.value, str):
            names.update(n.strip() for n in argnames.value.split(","))
        elif isinstance(argnames, (ast.Tuple, ast.List)) \
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in argnames.elts):
            names.update(e.value for e in argnames.elts)  # type: ignore[attr-defined]
        else:
            return None
    return names


def _last_name(node: ast.expr) -> str | None:
    """``Mapping`` of ``Mapping`` and of ``t.Mapping``: the name an annotation ends with."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _or_empty(node: ast.expr) -> ast.expr | None:
    """``xs`` of ``xs or []`` (``or ()``, ``or {}``): the items are those of xs."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
        empty = node.values[1]
        if isinstance(empty, (ast.List, ast.Tuple, ast.Set)) and not empty.elts or \
                isinstance(empty, ast.Dict) and not empty.keys:
            return node.values[0]
    return None


#: What a link of a chain follows as ``ast.unparse`` writes it (no parentheses): _spelled.
_LINKED = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def _chain_base(expr: ast.expr) -> ast.expr:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr


def _symbol(table: symtable.SymbolTable, name: str) -> symtable.Symbol | None:
    """``table.lookup(name)`` without its scan of every child table for the
    name (CPython's ``lookup`` does one per symbol, so a scope of n definitions
    cost n squared): we never ask a symbol for its namespaces."""
    raw = getattr(table, "_table", None)
    flags = getattr(raw, "symbols", None)
    if flags is None:  # another implementation of symtable: the public, slower way
        try:
            return table.lookup(name)
        except KeyError:
            return None
    value = flags.get(name)
    if value is None:
        return None
    return symtable.Symbol(name, value, None, module_scope=table.get_type() == "module")


def _child_table(scope: _Scope, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                 ) -> ScopeFacts | symtable.SymbolTable | None:
    if isinstance(scope.table, ScopeFacts):
        return scope.table.child(node)
    # decorated definitions may report another line: then any child of that name
    found = scope.children(node.name, node.lineno)
    return found[0] if found else None


def _child_scope_for(
    scope: _Scope, node: ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
) -> _Scope:
    """Comprehensions and lambdas: their own locals (from symtable), the rest
    resolved through the enclosing scope."""
    names = {ast.Lambda: "lambda", ast.ListComp: "listcomp", ast.SetComp: "setcomp",
             ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}
    table: ScopeFacts | symtable.SymbolTable | None = None
    if isinstance(scope.table, ScopeFacts):
        table = scopes.lambda_facts(node, scope.private) if isinstance(node, ast.Lambda) else \
            scopes.comprehension_facts(node, scope.private)
    elif scope.table is not None:
        candidates = [c for c in scope.children(names[type(node)], node.lineno) if c.get_lineno() == node.lineno]
        if len(candidates) > 1:  # several on one line: match by the names they bind
            if isinstance(node, ast.Lambda):
                bound = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
            else:
                bound = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
            candidates = [c for c in candidates if bound <= set(c.get_identifiers())] or candidates
        table = candidates[0] if candidates else None
    inner = _Scope("function", scope.qualname, scope, table, None)
    if table is None:
        inner.table = None
    inner.cls = None
    return inner


def _tells(scope: _Scope) -> bool:
    """Whether the types of a scope's locals can reach what the module tells
    other modules: the module's and classes' variables, and a method's locals
    assigned to ``self.x``. A plain function's (or a nested one's) cannot, so
    its locals are typed once, when the uses are resolved, not each time the
    module is prepared again (analysis/pool.py)."""
    return scope.kind != "function" or bool(scope.cls and scope.self_name)


def _function_scope(scope: _Scope) -> _Scope | None:
    s: _Scope | None = scope
    while s is not None and s.kind == "function" and s.node is None:
        s = s.parent  # comprehension or lambda: look at the enclosing function
    return s if s is not None and s.kind == "function" else None


def _binding_scope(scope: _Scope, name: str) -> _Scope | None:
    """The function whose local ``name`` is, seen from ``scope`` (``self`` in a
    function nested in a method is the method's)."""
    s: _Scope | None = scope
    while s is not None:
        if s.kind == "function" and s.node is not None and s.is_local(name):
            return s
        if s.kind == "module":
            return None
        s = s.parent
    return None


def _local_type(scope: _Scope, name: str) -> str | None:
    """The class of local ``name`` (``"[]name"``: of its items; ``"^name"``:
    the class the local is, a ``type[X]``), looked up through comprehensions
    and lambdas to the function that binds it."""
    real = name.lstrip("[]^|(){}<,")
    s: _Scope | None = scope
    while s is not None:
        if name in s.types:
            return s.types[name]
        if s.kind != "function" or s.is_local(real) and (s.node is not None or s.table is not None):
            return None  # bound here (a comprehension's or lambda's own name too) and of no known class
        s = s.parent
    return None
