"""Recall and precision of our call targets and references, measured against
jedi on installed packages. jedi is a dev-only dependency (``pip install -e
'.[dev]'``); nothing at run time imports it or this script.

    semaprax bench recall click requests rich [--references 60]

For each package, a copy of its source becomes a workspace. Every call site
``f(...)`` / ``a.b.f(...)`` in it is asked of jedi (``goto`` on the called
name, imports followed) and looked up in our analysis (the calls use at that
line and column):

- a call site is *knowable* when jedi names exactly one definition for it, in
  the package or in builtins (jedi's answers elsewhere, the standard library
  say, are named differently by the two tools: ``posixpath.join`` against
  ``os.path.join``);
- recall: of knowable sites, the share where our target is jedi's;
- precision: of sites where we name a target and jedi names exactly one, in
  the package or builtins (or ours is in the package), the share that agree.

References: for a sample of the package's functions, methods and classes
(every k-th, in name order), jedi's project-wide references (lines, without the
definition itself) against ours; recall is the share of jedi's lines we list.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import shutil
import sys
import tempfile
import time
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


def _call_sites(tree: ast.AST) -> list[tuple[int, int, str]]:
    """(line, byte column of the called name, the callee as written)."""
    sites = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                sites.append((func.lineno, func.col_offset, func.id))
            elif isinstance(func, ast.Attribute) and func.end_col_offset is not None:
                sites.append((func.end_lineno or func.lineno, func.end_col_offset - len(func.attr), ast.unparse(func)))
    return sorted(set(sites))


def _char_column(line: bytes, byte_col: int) -> int:
    return len(line[:byte_col].decode("utf-8", "replace"))


def _jedi_targets(script: Any, line: int, column: int) -> list[tuple[str, str]]:
    """(full name, module path) of each definition jedi finds."""
    try:
        names = script.goto(line, column, follow_imports=True)
    except Exception:  # noqa: BLE001 - jedi fails on some code; such a site is left out
        return []
    # a local variable or parameter is where jedi stops, not a call target
    return [(n.full_name or "", str(n.module_path or "")) if n.type in ("function", "class") else ("", "")
            for n in names]


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
        misses: list[str] = []
        wrong: list[str] = []
        for path in files:
            data = (tmp / path).read_bytes()
            try:
                tree = ast.parse(data)
            except SyntaxError:
                continue
            lines = data.split(b"\n")
            script = jedi.Script(path=str(tmp / path), project=project)
            for line, col, text in _call_sites(tree):
                sites_total += 1
                ours = ours_at.get((path, line, col), "?")
                found = _jedi_targets(script, line, _char_column(lines[line - 1], col))
                theirs = found[0][0] if len(found) == 1 and found[0][0] else None
                local = theirs is not None and (found[0][1].startswith(str(tmp)) or theirs.startswith("builtins."))
                ours_local = ours.split(".")[0] == package
                if local:
                    knowable += 1
                    if ours == theirs:
                        agree += 1
                    elif ours.startswith("?"):
                        misses.append(f"{path}:{line} {text} -> {theirs}")
                if not ours.startswith("?") and theirs is not None and (local or ours_local):
                    claimed += 1
                    if ours == theirs:
                        claimed_right += 1
                    else:
                        wrong.append(f"{path}:{line} {text}: ours {ours}, jedi {theirs}")
        ref_found = ref_total = 0
        ref_misses: list[str] = []
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
            ref_misses.extend(f"{qualname}: {p}:{n}" for p, n in sorted(jedi_uses - our_uses))
        return {"package": package, "files": len(files), "sites": sites_total, "knowable": knowable,
                "agree": agree, "claimed": claimed, "claimed_right": claimed_right,
                "ref_total": ref_total, "ref_found": ref_found, "seconds": ours_seconds,
                "misses": misses, "wrong": wrong, "ref_misses": ref_misses}
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
    print("| package | files | call sites | knowable | recall | our targets checked | precision | "
          "references (jedi) | references recall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = dict.fromkeys(("sites", "knowable", "agree", "claimed", "claimed_right", "ref_total", "ref_found"), 0)
    details = []
    for name in args.packages:
        r = measure(name, args.references)
        details.append(r)
        for k in totals:
            totals[k] += r[k]
        print(f"| {name} | {r['files']} | {r['sites']:,} | {r['knowable']:,} | {_pct(r['agree'], r['knowable'])} | "
              f"{r['claimed']:,} | {_pct(r['claimed_right'], r['claimed'])} | {r['ref_total']:,} | "
              f"{_pct(r['ref_found'], r['ref_total'])} |", flush=True)
    t = totals
    print(f"| **all** | | {t['sites']:,} | {t['knowable']:,} | {_pct(t['agree'], t['knowable'])} | {t['claimed']:,} | "
          f"{_pct(t['claimed_right'], t['claimed'])} | {t['ref_total']:,} | {_pct(t['ref_found'], t['ref_total'])} |")
    if args.show:
        for r in details:
            print(f"\n{r['package']}: misses")
            print("\n".join(r["misses"][: args.show]))
            print(f"{r['package']}: disagreements")
            print("\n".join(r["wrong"][: args.show]))
            print(f"{r['package']}: references jedi lists and we do not")
            print("\n".join(r["ref_misses"][: args.show]))
    return 0


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


if __name__ == "__main__":
    sys.exit(main())
