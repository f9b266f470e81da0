"""Recall and precision of our call targets and references, measured against
jedi on installed packages. jedi is a dev-only dependency (``pip install -e
'.[dev]'``); nothing at run time imports it or this script.

    semaprax bench recall click requests rich [--references 60] [--show 20]

The comparison corpus has two halves (docs/performance.md): the tune half,
whose misses are read to find what the resolver lacks (``click requests
packaging jinja2 urllib3 attr wsproto h2`` and, from recall round 6,
``markdown_it anyio parso jsonschema python_multipart execnet cattrs pluggy
hpack hyperframe``, from round 7, ``toolz pyparsing marshmallow structlog
chardet tabulate itsdangerous humanize tomli more_itertools``; references at
``--references 250``), and the
held-out half, measured for its figures only (``h11 idna``, ``--references
30``). The packages are in the ``dev`` extra.

For each package, a copy of its source becomes a workspace. Every call site
``f(...)`` / ``a.b.f(...)`` in it is asked of jedi (``goto`` on the called
name, imports followed) and looked up in our analysis (the calls use at that
line and column):

- a call site is *knowable* when jedi names exactly one definition for it (one
  full name, a function or a class), wherever it is: in the package, in
  builtins, in the standard library or in another installed package. Targets
  outside the workspace are named the way jedi (and typeshed) names them and
  the views do: the module they are imported from as the program spells it,
  then the attribute path (``json.dumps``, ``os.path.join``,
  ``subprocess.Popen.wait``, ``builtins.str.strip``);
- recall: of knowable sites, the share where our target is jedi's;
- precision: of sites where we name a target and jedi names exactly one, the
  share that agree.

Each knowable site falls in one place, reported separately: ``package`` (the
workspace), ``builtins``, ``external`` (the standard library and other
packages). ``--show`` prints misses grouped by what the callee is (a name, an
attribute of self, of a parameter, of a call's result, ...), largest group first.

References: for a sample of the package's functions, methods and classes
(every k-th, in name order), jedi's project-wide references (lines, without the
definition itself) against ours; recall is the share of jedi's lines we list.
The lines we list for the same symbols, and the share of them jedi lists too,
are beside it: a rule that lists more lines shows there (it is not a precision
figure: jedi counts an import line as a definition, and infers less than we do).
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib.util
import multiprocessing
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from analysis.index import WorkspaceIndex
from analysis.model import CALLS
from analysis.sources import Workspace


def _copy_package(name: str, into: Path) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{name!r} is not an installed package (pip install it into this environment)")
    source = Path(next(iter(spec.submodule_search_locations)))
    shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return into


def _call_sites(tree: ast.AST) -> list[tuple[int, int, str, str]]:
    """(line, byte column of the called name, the callee as written, what the callee is)."""
    params: dict[int, set[str]] = {}  # id of a call -> names of parameters of its function
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = fn.args
            names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    params.setdefault(id(node), set()).update(names)
    sites = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                sites.add((func.lineno, func.col_offset, func.id, "name"))
            elif isinstance(func, ast.Attribute) and func.end_col_offset is not None:
                sites.add((func.end_lineno or func.lineno, func.end_col_offset - len(func.attr), ast.unparse(func),
                           _shape(func, params.get(id(node), set()))))
    return sorted(sites)


def _shape(func: ast.Attribute, params: set[str]) -> str:
    """What an attribute call's object is, for grouping misses."""
    base: ast.expr = func.value
    depth = 1
    while isinstance(base, ast.Attribute):
        base, depth = base.value, depth + 1
    if isinstance(base, ast.Name):
        if base.id in ("self", "cls"):
            return "self.method" if depth == 1 else "self.attribute.method"
        if base.id in params:
            return "parameter.method" if depth == 1 else "parameter.attribute.method"
        return "name.attribute" if depth == 1 else "name.attribute.attribute"
    if isinstance(base, ast.Call):
        return "call().method"
    if isinstance(base, ast.Subscript):
        return "item.method"
    if isinstance(base, ast.Constant):
        return "literal.method"
    return "other"


def _char_column(line: bytes, byte_col: int) -> int:
    return len(line[:byte_col].decode("utf-8", "replace"))


def _jedi_targets(script: Any, line: int, column: int) -> list[tuple[str, str]]:
    """(full name, module path) of each distinct definition jedi finds."""
    try:
        names = script.goto(line, column, follow_imports=True)
    except Exception:  # noqa: BLE001 - jedi fails on some code; such a site is left out
        return []
    # a local variable or parameter is where jedi stops, not a call target
    found = [(n.full_name or "", str(n.module_path or "")) if n.type in ("function", "class") else ("", "")
             for n in names]
    return list(dict.fromkeys(found))


_MISSING = object()


@functools.cache
def _runtime(name: str) -> Any:
    """The object a dotted name of the standard library or an installed package
    is in this process (the longest importable module, then attributes). A
    private name typeshed declares in a module whose C accelerator holds it
    (``io._BufferedIOBase`` is ``_io._BufferedIOBase``) is looked up there too."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except Exception:  # noqa: BLE001, S112 - not a module (or one that fails to import): try a shorter one
            continue
        try:
            for part in parts[k:]:
                obj = getattr(obj, part)
        except AttributeError:
            if k < len(parts) and parts[k].startswith("_") and not parts[k - 1].startswith("_"):
                return _runtime(".".join([*parts[:k - 1], "_" + parts[k - 1], *parts[k:]]))
            return _MISSING
        return obj
    return _MISSING


def _same(ours: str, theirs: str, place: str) -> bool:
    """Our target is jedi's: the same name; or, outside the workspace, two
    names of one object (``warnings.warn`` is ``_warnings.warn``, which typeshed
    re-exports it from; ``os.environ.get`` is ``os._Environ.get``), or one
    method named on a class and on a base of it that declares it
    (``builtins.dict.update`` for typeshed's ``typing.MutableMapping.update``)."""
    if ours == theirs:
        return True
    if place == "package" or ours.startswith("?"):
        return False
    obj, other = _runtime(ours), _runtime(theirs)
    if obj is _MISSING or other is _MISSING:
        return False
    if getattr(obj, "__func__", obj) is getattr(other, "__func__", other):  # os.environ.get is os._Environ.get
        return True
    # the method named on the class we know the value to be, which jedi names on
    # the base that typeshed declares it in (dict.update, MutableMapping.update)
    owner, _, attr = ours.rpartition(".")
    base, _, base_attr = theirs.rpartition(".")
    cls, base_cls = _runtime(owner), _runtime(base)
    base_cls = getattr(base_cls, "__origin__", base_cls)  # typing.Mapping is collections.abc.Mapping
    return attr == base_attr and isinstance(cls, type) and isinstance(base_cls, type) and issubclass(cls, base_cls)


def _place(theirs: str, module_path: str, tmp: Path) -> str:
    if module_path.startswith(str(tmp)):
        return "package"
    if theirs.startswith("builtins."):
        return "builtins"
    return "external"


def measure(package: str, references: int) -> dict[str, Any]:
    import jedi

    tmp = Path(tempfile.mkdtemp(prefix="recall."))
    try:
        _copy_package(package, tmp)
        ws = Workspace(tmp)
        files = ws.python_files()
        started = time.perf_counter()
        index = WorkspaceIndex(ws, files)
        ours_seconds = time.perf_counter() - started
        project = jedi.Project(tmp, added_sys_path=[])
        ours_at: dict[tuple[str, int, int], str] = {}
        for a in index.modules:
            for u in a.uses:
                if u.kind == CALLS:
                    ours_at[(a.path, u.line, u.column)] = u.target
        knowable = agree = claimed = claimed_right = sites_total = 0
        places = {p: [0, 0] for p in ("package", "builtins", "external")}  # knowable, agree
        misses: list[tuple[str, str]] = []  # (what the callee is, the line)
        wrong: list[str] = []
        for path in files:
            data = (tmp / path).read_bytes()
            try:
                tree = ast.parse(data)
            except SyntaxError:
                continue
            lines = data.split(b"\n")
            script = jedi.Script(path=str(tmp / path), project=project)
            for line, col, text, shape in _call_sites(tree):
                sites_total += 1
                ours = ours_at.get((path, line, col), "?")
                found = _jedi_targets(script, line, _char_column(lines[line - 1], col))
                theirs = found[0][0] if len(found) == 1 and found[0][0] else None
                if theirs is None:
                    continue
                place = _place(theirs, found[0][1], tmp)
                knowable += 1
                places[place][0] += 1
                same = _same(ours, theirs, place)
                if same:
                    agree += 1
                    places[place][1] += 1
                elif ours.startswith("?"):
                    misses.append((f"{place} {shape}", f"{path}:{line} {text} -> {theirs}"))
                if not ours.startswith("?"):
                    claimed += 1
                    if same:
                        claimed_right += 1
                    else:
                        wrong.append(f"{path}:{line} {text}: ours {ours}, jedi {theirs}")
        ref_found = ref_total = ref_ours = 0
        ref_misses: list[str] = []
        ref_extra: list[str] = []
        symbols = sorted(q for q, loc in index.definitions.items()
                         if loc.definition.kind in ("function", "method", "class"))
        step = max(1, len(symbols) // max(references, 1))
        for qualname in symbols[::step][:references]:
            loc = index.definitions[qualname]
            path, start = loc.analysis.path, loc.definition.start
            def_lines = (tmp / path).read_bytes().split(b"\n")
            name = qualname.rsplit(".", 1)[1]
            # the name's column on its def/class line (decorators come before it)
            for line_no in range(start, min(start + 30, len(def_lines) + 1)):
                text = def_lines[line_no - 1].decode("utf-8", "replace")
                at = text.find(f"def {name}") if loc.definition.kind != "class" else text.find(f"class {name}")
                if at >= 0:
                    at += 4 if loc.definition.kind != "class" else 6
                    break
            else:
                continue
            script = jedi.Script(path=str(tmp / path), project=project)
            try:
                refs = script.get_references(line_no, at, scope="project")
            except Exception as exc:  # noqa: BLE001 - jedi fails on some code; that symbol is left out
                print(f"jedi: no references for {qualname}: {exc}", file=sys.stderr)
                continue
            jedi_uses = {(str(Path(r.module_path).relative_to(tmp).as_posix()), r.line) for r in refs
                         if r.module_path and str(r.module_path).startswith(str(tmp)) and not r.is_definition()}
            our_uses = {(a.path, u.line) for a, u in index.uses_of(qualname)}
            ref_total += len(jedi_uses)
            ref_found += len(jedi_uses & our_uses)
            ref_ours += len(our_uses)
            ref_misses.extend(f"{qualname}: {p}:{n}" for p, n in sorted(jedi_uses - our_uses))
            ref_extra.extend(f"{qualname}: {p}:{n}" for p, n in sorted(our_uses - jedi_uses))
        return {"package": package, "files": len(files), "sites": sites_total, "knowable": knowable,
                **{f"{p}_knowable": k for p, (k, _) in places.items()},
                **{f"{p}_agree": n for p, (_, n) in places.items()},
                "agree": agree, "claimed": claimed, "claimed_right": claimed_right,
                "ref_total": ref_total, "ref_found": ref_found, "ref_ours": ref_ours, "seconds": ours_seconds,
                "misses": misses, "wrong": wrong, "ref_misses": ref_misses, "ref_extra": ref_extra}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="+", help="installed packages to measure on")
    parser.add_argument("--references", type=int, default=60, help="symbols per package whose references are compared")
    parser.add_argument("--show", type=int, default=0, help="print this many misses and disagreements per package")
    args = parser.parse_args(argv)
    try:
        import jedi
    except ImportError:
        raise SystemExit("jedi is not installed: pip install -e '.[dev]'") from None
    print(f"jedi {jedi.__version__}, Python {sys.version.split()[0]}\n")
    print("| package | files | call sites | knowable | recall | in package | builtins | external | "
          "our targets checked | precision | references (jedi) | references recall | references (ours) | "
          "of ours, jedi's |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    keys = ("sites", "knowable", "agree", "claimed", "claimed_right", "ref_total", "ref_found", "ref_ours",
            *(f"{p}_{k}" for p in _PLACES for k in ("knowable", "agree")))
    totals = dict.fromkeys(keys, 0)
    details = []
    for name in args.packages:
        # each package in a process of its own: jedi's caches and the modules ``_same`` imports
        # carried over from earlier packages made jedi name fewer targets in later ones (a run of
        # eighteen found 67 knowable sites in python_multipart, which alone has 285)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            r = pool.submit(measure, name, args.references).result()
        details.append(r)
        for k in totals:
            totals[k] += r[k]
        print(_row(name, str(r["files"]), r), flush=True)
    print(_row("**all**", "", totals))
    if args.show:
        for r in details:
            groups: dict[str, list[str]] = {}
            for shape, where in r["misses"]:
                groups.setdefault(shape, []).append(where)
            print(f"\n{r['package']}: misses by where jedi's target is and what the callee is")
            for shape, wheres in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                print(f"  {shape}: {len(wheres)}")
                print("\n".join("    " + w for w in wheres[: args.show]))
            print(f"{r['package']}: disagreements")
            print("\n".join(r["wrong"][: args.show]))
            print(f"{r['package']}: references jedi lists and we do not")
            print("\n".join(r["ref_misses"][: args.show]))
            print(f"{r['package']}: references we list and jedi does not")
            print("\n".join(r["ref_extra"][: args.show]))
    return 0


_PLACES = ("package", "builtins", "external")


def _row(name: str, files: str, r: dict[str, Any]) -> str:
    by_place = " | ".join(f"{_pct(r[f'{p}_agree'], r[f'{p}_knowable'])} of {r[f'{p}_knowable']:,}" for p in _PLACES)
    return (f"| {name} | {files} | {r['sites']:,} | {r['knowable']:,} | {_pct(r['agree'], r['knowable'])} | "
            f"{by_place} | {r['claimed']:,} | {_pct(r['claimed_right'], r['claimed'])} | {r['ref_total']:,} | "
            f"{_pct(r['ref_found'], r['ref_total'])} | {r['ref_ours']:,} | {_pct(r['ref_found'], r['ref_ours'])} |")


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


if __name__ == "__main__":
    sys.exit(main())
