"""The compact shapes of the views, each an exact rewrite of the long form the
producers build (fully qualified names, edges apart from the definitions), and
each undone by ``expand.py``: no fact is dropped, only what the reader can
derive from the view itself (docs/profiles.md, "Why the shapes are what they are").

The rules shared by the shapes live here, once:

- a name inside the view's module is written relative to it: a definition
  without its module (``Ledger.apply``), an edge target with a leading dot
  (``.Ledger.apply``), the module itself as ``.``;
- ``builtins.X`` is written ``X`` when ``X`` is a built-in name and no other
  target of the view starts with it;
- a row drops its trailing empty fields, and a one-line span ``[a, a]`` is ``a``;
  a graph row's doc, a string, follows the last edge list it keeps (its empty
  edge lists before the doc are dropped too);
- a graph row's name that starts with a dot continues the class row above it
  (``.add`` under ``WeakSet`` is ``WeakSet.add``);
- a graph edge target that lies in a module-level import is written through
  the import's local name (``ref`` for ``_weakref.ref`` after
  ``from _weakref import ref``), unless the view says ``imports_whole``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from analysis.model import CALLS, EDGE_KINDS, INHERITS, REFERENCES, UNRESOLVED

#: The edge kinds a graph row carries as columns, in column order.
ROW_EDGE_KINDS = (CALLS, REFERENCES, INHERITS)
#: The columns of a graph row as sent: its lines first, then the name, which
#: carries the signature (and the kind, see ``pack_graph``); the doc last, so a
#: row without one ends at its edges.
GRAPH_COLUMNS = ["lines", "name", *ROW_EDGE_KINDS, "doc"]
#: The columns of a graph row before ``pack_graph`` (what views/fit.py sheds on).
ROW_COLUMNS = ["name", "kind", "lines", "signature", *ROW_EDGE_KINDS, "doc"]
#: The columns of the long form's definitions.
LONG_GRAPH_COLUMNS = ["name", "kind", "lines", "signature", "doc"]
BUILTINS = "builtins."

#: Every public name of the ``builtins`` module in CPython 3.8 to 3.14, frozen
#: here so a view means the same on every Python (a name added later stays long).
BUILTIN_NAMES = frozenset({
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError",
    "Exception", "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError",
    "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
    "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
    "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError",
    "NameError", "None", "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError",
    "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
    "PythonFinalizationError", "RecursionError", "ReferenceError", "ResourceWarning",
    "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError",
    "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True", "TypeError",
    "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
    "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning",
    "ZeroDivisionError", "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool",
    "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex",
    "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit",
    "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help",
    "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list",
    "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow",
    "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice",
    "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
})


# --- names ------------------------------------------------------------------------------


def local_name(qualname: str, module: str) -> str:
    """A definition of ``module`` named without it: ``pkg.mod.A.f`` -> ``A.f``."""
    if not qualname.startswith(module + "."):
        raise ValueError(f"definition {qualname!r} lies outside its module {module!r}")
    return qualname[len(module) + 1 :]


def relative_name(name: str, module: str) -> str:
    """A name inside ``module`` with a leading dot (the module itself is ``.``);
    any other name as it is."""
    if name == module:
        return "."
    if name.startswith(module + "."):
        return name[len(module) :]
    return name


def path_module(path: str) -> str:
    """The dotted name a path reads as (``pkg/__init__.py`` -> ``pkg``): the
    module a file is whenever each folder above it is a package."""
    stem = path.removesuffix(".py")
    stem = stem.removesuffix("/__init__")
    return stem.replace("/", ".")


def _head(name: str) -> str:
    return name.split(".", 1)[0]


def not_builtins(targets: Iterable[str]) -> list[str]:
    """Built-in names that some non-built-in target of the view starts with: a
    short ``X`` would be ambiguous there, so ``builtins.X`` stays long."""
    return sorted({
        _head(t) for t in targets
        if not t.startswith((".", UNRESOLVED, BUILTINS)) and _head(t) in BUILTIN_NAMES
    })


def short_target(target: str, module: str, taken: frozenset[str] | set[str]) -> str:
    name = relative_name(target, module)
    if name.startswith(BUILTINS):
        rest = name[len(BUILTINS) :]
        if _head(rest) in BUILTIN_NAMES and _head(rest) not in taken:
            return rest
    return name


def trimmed(row: list[Any]) -> list[Any]:
    """A row without its trailing empty fields ("" and [])."""
    end = len(row)
    while end and row[end - 1] in ("", []):
        end -= 1
    return row[:end]


def with_doc(row: list[Any], doc: str, fixed: int = 4) -> list[Any]:
    """A graph row: its first ``fixed`` fields, the edge lists up to the last one
    not empty, then the doc when there is one (a string, so it is never taken
    for an edge list); without a doc, trailing empty fields are dropped as usual."""
    if not doc:
        return trimmed(row)
    end = len(row)
    while end > fixed and row[end - 1] == []:
        end -= 1
    return [*row[:end], doc]


def span(start: int, end: int) -> int | list[int]:
    return start if start == end else [start, end]


# --- the views --------------------------------------------------------------------------


def import_aliases(imports: dict[str, str]) -> dict[str, str]:
    """``{target: local}`` for the module-level imports whose local name differs
    from their target (the shortest local name when several bind one target)."""
    out: dict[str, str] = {}
    for local, target in sorted(imports.items(), key=lambda kv: (len(kv[0]), kv[0])):
        if local != target and "." not in local:
            out.setdefault(target, local)
    return out


def through_import(name: str, aliases: dict[str, str]) -> str:
    """``name`` written through the import it lies in (the longest such target)."""
    if not aliases or name.startswith((".", UNRESOLVED)):
        return name
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        local = aliases.get(".".join(parts[:n]))
        if local is not None:
            return ".".join([local, *parts[n:]])
    return name


def from_import(name: str, imports: dict[str, str]) -> str:
    """Undo ``through_import``: a name whose head is an import's local name."""
    head, dot, rest = name.partition(".")
    target = imports.get(head)
    if target is None or target == head or name.startswith((".", UNRESOLVED)):
        return name
    return target + dot + rest


def member_name(name: str, cls: str | None) -> str:
    """A row name inside the class row above it, written ``.rest``."""
    return name[len(cls):] if cls is not None and name.startswith(cls + ".") else name


def graph(value: dict[str, Any]) -> dict[str, Any]:
    """The graph as sent: ``graph_rows``, then ``pack_graph``."""
    return pack_graph(graph_rows(value))


def graph_rows(value: dict[str, Any]) -> dict[str, Any]:
    """Edges become columns of their source's row (the module's own under
    ``module_edges``), names relative to the module, built-ins short, targets
    through their imports, members relative to their class row."""
    module = value["module"]
    edges: dict[str, dict[str, list[str]]] = value["edges"]
    imports: dict[str, str] = value.get("imports", {})
    taken = set(not_builtins(t for kinds in edges.values() for ts in kinds.values() for t in ts))
    # a built-in spelled like an import's local name stays long
    taken |= {local for local, target in imports.items() if local in BUILTIN_NAMES and local != target}
    aliases = import_aliases(imports)

    def written(t: str, through: dict[str, str]) -> str:
        short = short_target(t, module, taken)
        return through_import(short, through) if short == t else short

    def long_again(w: str) -> str:
        name = from_import(w, imports)
        if name.startswith("."):
            return f"{module}{name}" if name != "." else str(module)
        head = name.split(".", 1)[0]
        if name == w and head in BUILTIN_NAMES and head not in taken:
            return BUILTINS + name
        return name

    targets = {t for kinds in edges.values() for ts in kinds.values() for t in ts}
    whole = any(long_again(written(t, aliases)) != t for t in targets)
    through = {} if whole else aliases

    def short(kinds: dict[str, list[str]]) -> dict[str, list[str]]:
        return {k: [written(t, through) for t in ts] for k, ts in kinds.items()}

    rows = []
    definitions = value["definitions"]["rows"]
    # A name defined twice carries its edges on its last definition, the one in effect.
    last = {r[0]: i for i, r in enumerate(definitions)}
    cls: str | None = None
    for i, (name, kind, (start, end), signature, doc) in enumerate(definitions):
        own = short(edges.get(name, {})) if last[name] == i else {}
        local = local_name(name, module)
        row = [member_name(local, cls), kind, span(start, end), signature]
        rows.append(with_doc(row + [own.get(k, []) for k in ROW_EDGE_KINDS], doc))
        if kind == "class":
            cls = local
    out = {k: v for k, v in value.items() if k not in ("definitions", "edges", "errors")}
    out["definitions"] = {"columns": ROW_COLUMNS, "rows": rows}
    if module in edges:
        out["module_edges"] = short(edges[module])
    named = set(last) | {module}
    strays = {s: short(k) for s, k in edges.items() if s not in named}
    if strays:  # edges whose source has no row: kept as they were, names relative
        out["edges"] = strays
    if taken:
        out["not_builtins"] = sorted(taken)
    if whole:
        out["imports_whole"] = True
    if "errors" in value:
        out["errors"] = value["errors"]
    return out


#: A class row's name starts with ``class ``, an async def's with ``async ``; a
#: method's ``self`` is left out unless its name is marked ``def `` (written whole).
CLASS, ASYNC, DEF = "class ", "async ", "def "
#: A target in the rows of class ``C`` written ``^x`` is ``.C.x``.
CLASS_RELATIVE = "^"
#: Kinds a run of one-line rows may share (``pack_graph``).
RUN_KINDS = ("variable", "attribute")


def row_fields(row: list[Any], defaults: list[Any]) -> list[Any]:
    """A row with its left-out fields back (``defaults`` per column, the last
    column the doc): empty edge lists before a doc, empty fields after. The
    fields before the edge lists are always kept before a doc (``with_doc``)."""
    width, fixed = len(defaults), len(defaults) - 1 - len(ROW_EDGE_KINDS)
    if len(row) > fixed and isinstance(row[-1], str):  # the doc follows the edge lists the row keeps
        row = [*row[:-1], *[[] for _ in range(width - len(row))], row[-1]]
    return [*row, *[list(d) if isinstance(d, list) else d for d in defaults[len(row):]]]


#: Each column's empty value (None: never left out), before and after ``pack_graph``.
ROW_DEFAULTS: list[Any] = [None, None, None, "", [], [], [], ""]
GRAPH_DEFAULTS: list[Any] = [None, None, [], [], [], ""]


def _derived_kind(header_kind: str, parent_kind: str | None) -> str:
    """The kind a sent row's name gives: ``class``, else a def (``def``: a
    method in a class, else a function) or an assignment (a variable of the
    module, else an attribute), by the kind of the row that names its parent."""
    if header_kind == "def":
        return "method" if parent_kind == "class" else "function"
    if header_kind == "name":
        return "variable" if parent_kind is None else "attribute"
    return header_kind


def _header(name: str, kind: str, signature: str) -> str:
    """A row's name as sent: the name with its signature as Python writes it
    (``class X(bases)``, ``async f(x)``, ``x: int``), a method's leading
    ``self`` left out (a method without one is marked ``def .f(cls)``)."""
    if kind == "class":
        return CLASS + name + signature
    prefix = ""
    if signature.startswith(ASYNC):
        prefix, signature = ASYNC, signature[len(ASYNC):]
    if kind == "method":
        if signature.startswith("(self, "):
            signature = "(" + signature[len("(self, "):]
        elif signature.startswith("(self)"):
            signature = "(" + signature[len("(self"):]
        else:
            prefix += DEF
    return prefix + name + signature


def _split_header(header: str) -> tuple[str, str, str, bool]:
    """``(what, name, signature as written, whole)`` of a sent row's name:
    ``what`` is ``class``, ``def`` or ``name`` (an assignment); ``whole`` when
    it is marked ``def `` (a method's signature written with its first parameter)."""
    what, prefix, whole = "name", "", False
    if header.startswith(CLASS):
        what, header = "class", header[len(CLASS):]
    else:
        if header.startswith(ASYNC):
            prefix, header = ASYNC, header[len(ASYNC):]
        if header.startswith(DEF):
            whole, header = True, header[len(DEF):]
    cut = min((i for i in (header.find("("), header.find(":")) if i >= 0), default=len(header))
    name, signature = header[:cut], header[cut:]
    if what == "name" and signature.startswith("("):
        what = "def"
    return what, name, prefix + signature, whole


def _signature(written: str, kind: str, whole: bool) -> str:
    """Undo ``_header``'s leaving out of a method's ``self``."""
    if kind != "method" or whole:
        return written
    prefix = ASYNC if written.startswith(ASYNC) else ""
    rest = written[len(prefix) + 1:]  # after the "("
    return prefix + ("(self" if rest.startswith(")") else "(self, ") + rest


def _parent(full: str) -> str | None:
    return full.rpartition(".")[0] or None


def pack_graph(value: dict[str, Any]) -> dict[str, Any]:
    """The graph rows as sent (docs/profiles.md, "Reading a view"), exactly
    undone by ``unpack_graph``:

    - a row's name carries its signature as Python writes it (``.add(item)``,
      ``x: int``, ``async f()``) and its kind: ``class X``, a def (a method
      inside a class, else a function) or a name (a variable of the module,
      else an attribute), so the kind and signature columns go;
    - in the rows of a class ``C`` (its own and those that continue it), a
      target ``.C.x`` is written ``^x``;
    - one-line variables (or attributes) on consecutive lines, with nothing
      else to say, are one row: their names joined by spaces, ``lines`` the
      first and last line (``[[6,8],"A B C"]``);
    - ``columns`` end at the last one a row reaches, and ``module`` is left
      out when the path gives it (``pkg/core.py``: ``pkg.core``).

    A view whose rows this cannot spell exactly (a kind the names do not give)
    keeps the ``kind`` and ``signature`` columns, which its ``columns`` say."""
    kinds: dict[str, str] = {}
    out_rows: list[list[Any]] = []
    run_kind: list[str | None] = []  # per sent row: the kind of the run it may grow into
    cls: str | None = None
    for name, kind, lines, signature, *edges_doc in (row_fields(r, ROW_DEFAULTS) for r in value["definitions"]["rows"]):
        member = name.startswith(".") and cls is not None
        full = cls + name if member and cls is not None else name
        context = full if kind == "class" else cls if member else None
        header = _header(name, kind, signature)
        what, back_name, written, whole = _split_header(header)
        parent = _parent(full)
        back_kind = _derived_kind(what, kinds.get(parent) if parent else None)
        if (back_name, back_kind, _signature(written, back_kind, whole)) != (name, kind, signature) or " " in name:
            return value
        kinds[full] = kind
        if kind == "class":
            cls = full
        *edge_lists, doc = edges_doc
        if context is not None:
            prefix = f".{context}."
            edge_lists = [[CLASS_RELATIVE + t[len(prefix):] if t.startswith(prefix) else t for t in ts]
                          for ts in edge_lists]
        row = with_doc([lines, header, *edge_lists], doc, fixed=2)
        alone = len(row) == 2 and isinstance(lines, int) and kind in RUN_KINDS and not signature
        if alone and run_kind and run_kind[-1] == kind:
            last = out_rows[-1]
            first, end = (last[0], last[0]) if isinstance(last[0], int) else last[0]
            if lines == end + 1:
                last[1] += " " + name
                last[0] = [first, lines]
                continue
        out_rows.append(row)
        run_kind.append(kind if alone else None)
    columns = list(GRAPH_COLUMNS)
    while len(columns) > 2 and all(len(r) < len(columns) for r in out_rows) \
            and not (columns[-1] == "doc" and any(len(r) > 2 and isinstance(r[-1], str) for r in out_rows)):
        columns.pop()  # a trailing column no row reaches
    out = {k: x for k, x in value.items() if not (k == "module" and x == path_module(value["path"]))}
    out["definitions"] = {"columns": columns, "rows": out_rows}
    return out


def unpack_graph(value: dict[str, Any]) -> dict[str, Any]:
    """Undo ``pack_graph``: the rows with their kind and signature columns,
    runs one row per name, ``^x`` targets whole again."""
    table = value["definitions"]
    columns = table["columns"]
    if len(columns) < 2 or columns != GRAPH_COLUMNS[: len(columns)]:
        return value
    kinds: dict[str, str] = {}
    out_rows: list[list[Any]] = []
    cls: str | None = None
    for lines, header, *edges_doc in (row_fields(r, GRAPH_DEFAULTS) for r in table["rows"]):
        what, name, written, whole = _split_header(header)
        *edge_lists, doc = edges_doc
        names = name.split(" ") if what == "name" and " " in name else [name]
        for i, one in enumerate(names):
            member = one.startswith(".") and cls is not None
            full = cls + one if member and cls is not None else one
            parent = _parent(full)
            kind = _derived_kind(what, kinds.get(parent) if parent else None)
            signature = _signature(written, kind, whole)
            kinds[full] = kind
            context = full if kind == "class" else cls if member else None
            if kind == "class":
                cls = full
            here = lines if len(names) == 1 else lines[0] + i
            if context is not None:
                edge_lists = [[f".{context}.{t[1:]}" if t.startswith(CLASS_RELATIVE) else t for t in ts]
                              for ts in edge_lists]
            out_rows.append(with_doc([one, kind, here, signature, *edge_lists], doc))
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "path" and "module" not in value:  # the module its path gives, back in its place
            out["module"] = path_module(item)
        out[key] = item
    out["definitions"] = {"columns": ROW_COLUMNS, "rows": out_rows}
    return out


def symbols(value: dict[str, Any]) -> dict[str, Any]:
    """Names relative to their module, empty signatures dropped; a module named
    by its path alone, unless the path does not give it."""
    modules = []
    for m in value["modules"]:
        entry: dict[str, Any] = {"path": m["path"]}
        if m["module"] != path_module(m["path"]):
            entry["module"] = m["module"]
        entry["symbols"] = [trimmed([local_name(r[0], m["module"]), *r[1:]]) for r in m["symbols"]]
        modules.append(entry)
    return {**value, "modules": modules}


def _kind_order(kinds: Iterable[str]) -> list[str]:
    rank = {k: i for i, k in enumerate(EDGE_KINDS)}
    return sorted(set(kinds), key=lambda k: (rank.get(k, len(rank)), k))


def references(value: dict[str, Any]) -> dict[str, Any]:
    """Each file's uses grouped by kind, then by enclosing definition (relative
    to the module the file's path reads as), each with its lines; the count,
    which the lines give, left out."""
    files: dict[str, dict[str, dict[str, list[int]]]] = {}
    for path, rows in value["files"].items():
        module = path_module(path)
        by_kind: dict[str, dict[str, list[int]]] = {}
        for line, kind, source in rows:
            by_kind.setdefault(kind, {}).setdefault(relative_name(source, module), []).append(line)
        files[path] = {k: by_kind[k] for k in _kind_order(by_kind)}
    out = {k: v for k, v in value.items() if k not in ("count", "columns", "files")}
    out["files"] = files
    return out


def diagnostics(value: dict[str, Any]) -> dict[str, Any]:
    """Rows grouped by path, then by kind; the per-kind counts, which the rows
    give, left out."""
    files: dict[str, dict[str, list[list[Any]]]] = {}
    for path, line, column, kind, message in value["rows"]:
        files.setdefault(path, {}).setdefault(kind, []).append([line, column, message])
    return {"root": value["root"], "columns": ["line", "column", "message"],
            "files": {path: dict(sorted(kinds.items())) for path, kinds in files.items()}}


def project_graph(value: dict[str, Any]) -> dict[str, Any]:
    """Modules named by their paths; a module whose name its path does not give
    (a source folder that is not a package) is listed under ``module_names``."""
    rows, names = [], {}
    for module, path, lines, doc in value["modules"]["rows"]:
        rows.append(trimmed([path, lines, doc]))
        if module != path_module(path):
            names[path] = module
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "modules":
            out["modules"] = {"columns": ["path", "lines", "doc"], "rows": rows}
            if names:
                out["module_names"] = names
        else:
            out[key] = item
    return out


#: profile -> the rewrite of its long form; task-context is written as produced.
COMPACT = {
    "graph": graph,
    "symbols": symbols,
    "references": references,
    "diagnostics": diagnostics,
    "project-graph": project_graph,
}
