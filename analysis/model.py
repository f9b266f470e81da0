"""What analysis finds in one module: plain frozen values, no ast nodes, so the
profiles can be pure functions of them and a whole workspace fits in memory."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Marks a target that static analysis could not resolve; what follows is the
#: expression as written, so a reader sees what was called without a guess.
UNRESOLVED = "?"

# Edge kinds, in the order a view lists them.
CALLS = "calls"
REFERENCES = "references"
IMPORTS = "imports"
INHERITS = "inherits"
EDGE_KINDS = (CALLS, REFERENCES, IMPORTS, INHERITS)


@dataclass(frozen=True)
class Definition:
    """A module, class, function, method, or module/class-level name."""

    qualname: str
    kind: str  # module | class | function | method | variable | attribute
    start: int
    end: int
    signature: str = ""
    doc: str = ""
    decorators: tuple[str, ...] = ()
    #: The signatures of its ``@overload`` stubs, in source order; the
    #: definition itself is the implementation.
    overloads: tuple[str, ...] = ()

    @property
    def doc_line(self) -> str:
        return self.doc.split("\n", 1)[0].strip()


@dataclass(frozen=True)
class Use:
    """One use of a name: ``source`` (the innermost enclosing definition) uses
    ``target`` (a qualified name, or UNRESOLVED + the text) as ``kind`` at ``line``."""

    source: str
    target: str
    kind: str
    line: int
    #: UTF-8 byte offset in the line of the name used (of ``c`` in ``a.b.c``),
    #: so a tool can point at it; not part of a use's identity.
    column: int = field(default=0, compare=False)

    @property
    def resolved(self) -> bool:
        return not self.target.startswith(UNRESOLVED)


@dataclass(frozen=True)
class Import:
    """``import``/``from`` binding: ``local`` name bound to module or symbol ``target``."""

    local: str
    target: str
    line: int
    module: str  # the module the import reads from (for project graphs)
    scope: str  # qualified name of the scope that binds it


@dataclass(frozen=True)
class Problem:
    """A diagnostic found while analysing (docs/profiles.md, the diagnostics view)."""

    kind: str  # syntax-error | unresolved-import | unresolved-name | unused-import | redefinition
    line: int
    column: int
    message: str
    symbol: str = ""


#: The problem kind of a file too deep to analyse, or too deep for the parser (analysis/parse.py).
TOO_DEEP = "too-deep"
#: The problem kind of a file whose analysis failed (a bug of the analyser, or
#: its process died): the file keeps its module and this one diagnostic.
FAILED = "analysis-failed"
#: The problem kinds that leave a file without its definitions.
UNREAD = ("syntax-error", TOO_DEEP, FAILED)


@dataclass(frozen=True)
class ModuleAnalysis:
    module: str
    path: str
    definitions: tuple[Definition, ...]
    uses: tuple[Use, ...]
    imports: tuple[Import, ...]
    problems: tuple[Problem, ...]
    has_main: bool = False
    lines: int = 0
    #: (qualified name, class) of what is sound to know: the class of an
    #: attribute's value, or of a function's result (the name then ends "()").
    value_types: tuple[tuple[str, str], ...] = ()
    #: The names a literal ``__all__`` lists (what ``from m import *`` binds), or
    #: None: no ``__all__``, or one the source computes (resolver.literal_all).
    exports: tuple[str, ...] | None = None
    by_name: dict[str, Definition] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.by_name.update((d.qualname, d) for d in self.definitions)

    @classmethod
    def given_up(cls, module: str, path: str, lines: int, kind: str, message: str) -> ModuleAnalysis:
        """A file whose analysis gave up (TOO_DEEP, FAILED): its module and one diagnostic."""
        return cls(module, path, (Definition(module, "module", 1, max(lines, 1)),), (), (),
                   (Problem(kind, 1, 1, message),), lines=lines)

    @property
    def unread(self) -> Problem | None:
        """Why the file's definitions are not known (a syntax error, too deep,
        a failed analysis), so that a view says so instead of showing none."""
        return next((p for p in self.problems if p.kind in UNREAD), None)
