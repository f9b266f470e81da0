"""The minimal plain-text listing of a view: the floor the JSON shapes are
measured against (docs/measurements.md, semaprax bench corpus).

A listing holds exactly the facts of the compact view, one record a line, with
no quotes, brackets or repeated keys, and ``parse(profile, listing(profile, v))``
gives ``v`` back (tests/test_listing.py), so its token count is an honest floor
for the same information. It is not a wire form: no envelope, no digest, and no
semaprax decoder reads it.

Lines: a record's words are separated by one space; a word holding a space, a
quote or nothing at all is written as a JSON string. A line's last field may be
free text (a signature, a doc line, a message): the rest of the line, written as
a JSON string only if it could be misread (leading or trailing space, a leading
quote, a line break). A line starting with two spaces belongs to the record above.

    semaprax bench listing PROFILE ROOT [--workspace DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from typing import Any

from views.shapes import ROW_EDGE_KINDS, pack_graph, trimmed, unpack_graph, with_doc

_WORD = re.compile(r'"(?:[^"\\]|\\.)*"|\S+')


def word(s: str) -> str:
    if s and not any(c.isspace() for c in s) and not s.startswith('"'):
        return s
    return json.dumps(s, ensure_ascii=False)


def text(s: str) -> str:
    if s != s.strip() or s.startswith('"') or "\n" in s:
        return json.dumps(s, ensure_ascii=False)
    return s


def unword(w: str) -> str:
    return json.loads(w) if w.startswith('"') else w


def untext(s: str) -> str:
    return json.loads(s) if s.startswith('"') else s


def words(line: str, n: int) -> tuple[list[str], str]:
    """The first ``n`` words of a line, and the free text after them."""
    out, pos = [], 0
    for _ in range(n):
        m = _WORD.match(line, pos)
        if m is None:
            break
        out.append(unword(m.group()))
        pos = m.end() + 1
    return out, untext(line[pos:]) if pos <= len(line) else ""


def all_words(line: str) -> list[str]:
    return [unword(m.group()) for m in _WORD.finditer(line)]


def span_word(lines: int | list[int]) -> str:
    return str(lines) if isinstance(lines, int) else f"{lines[0]}-{lines[1]}"


def unspan(w: str) -> int | list[int]:
    a, sep, b = w.partition("-")
    return [int(a), int(b)] if sep else int(a)


def line(*fields: str, rest: str | None = None) -> str:
    head = " ".join(fields)
    return head if rest is None or rest == "" else f"{head} {text(rest)}"


# --- graph ----------------------------------------------------------------------------

KIND_WORDS = dict(zip(ROW_EDGE_KINDS, ("calls", "refs", "inherits")))
WORD_KINDS = {v: k for k, v in KIND_WORDS.items()}


def _edge_lines(kinds: dict[str, list[str]], indent: str, colon: str = "") -> Iterator[str]:
    for kind, targets in kinds.items():
        yield indent + " ".join([KIND_WORDS.get(kind, kind) + colon, *map(word, targets)])


def graph(v: dict[str, Any]) -> Iterator[str]:
    v = unpack_graph(v)  # one line per definition, with its kind and signature
    # Header keys end in a colon, which no definition name does.
    yield line("module:", word(v["module"]))
    yield line("path:", word(v["path"]))
    yield line("lines:", str(v["lines"]))
    if "doc" in v:
        yield line("doc:", rest=v["doc"])
    for local, target in v["imports"].items():
        yield line("import:", word(local), word(target))
    for name in v.get("not_builtins", ()):
        yield line("not_builtin:", word(name))
    if v.get("imports_whole"):
        yield "imports_whole:"
    for row in v.get("errors", ()):
        yield line("error:", str(row[0]), str(row[1]), rest=row[2])
    yield from _edge_lines(v.get("module_edges", {}), "", ":")
    for source, kinds in v.get("edges", {}).items():
        yield line("edges:", word(source))
        yield from _edge_lines(kinds, "  ")
    for row in v["definitions"]["rows"]:
        name, kind, lines, *rest = row
        yield line(word(name), word(kind), span_word(lines), rest=rest[0] if rest else None)
        if len(rest) > 1 and isinstance(rest[-1], str):
            yield "  doc " + text(rest[-1])
        edges = [x for x in rest[1:] if isinstance(x, list)]
        yield from _edge_lines({k: ts for k, ts in zip(ROW_EDGE_KINDS, edges) if ts}, "  ")


def parse_graph(text_: str) -> dict[str, Any]:
    v: dict[str, Any] = {}
    rows: list[list[Any]] = []
    imports: dict[str, str] = {}
    module_edges: dict[str, list[str]] = {}
    strays: dict[str, dict[str, list[str]]] = {}
    not_builtins: list[str] = []
    errors: list[list[Any]] = []
    current: dict[str, list[str]] | None = None  # the edges of the record above
    for raw in text_.split("\n"):
        if raw.startswith("  "):
            if raw.startswith("  doc "):
                rows[-1][4] = untext(raw[len("  doc "):])
            else:
                assert current is not None
                kind, *targets = all_words(raw[2:])
                current[WORD_KINDS.get(kind, kind)] = targets
            continue
        key, _, rest = raw.partition(" ")
        if key in ("module:", "path:"):
            v[key[:-1]] = unword(rest)
        elif key == "lines:":
            v["lines"] = int(rest)
        elif key == "doc:":
            v["doc"] = untext(rest)
        elif key == "import:":
            local, target = all_words(raw)[1:]
            imports[local] = target
        elif key == "not_builtin:":
            not_builtins.append(unword(rest))
        elif key == "imports_whole:":
            v["imports_whole"] = True
        elif key == "error:":
            (_, a, b), message = words(raw, 3)
            errors.append([int(a), int(b), message])
        elif key.endswith(":") and key[:-1] in WORD_KINDS:
            module_edges[WORD_KINDS[key[:-1]]] = all_words(rest)
        elif key == "edges:":
            current = strays.setdefault(unword(rest), {})
        else:
            (name, kind, span), signature = words(raw, 3)
            current = {}
            rows.append([name, kind, unspan(span), signature, "", current])
    out_rows = []
    for name, kind, span, signature, doc, kinds in rows:
        out_rows.append(with_doc([name, kind, span, signature, *(kinds.get(k, []) for k in ROW_EDGE_KINDS)], doc))
    v["imports"] = imports
    v["definitions"] = {"columns": ["name", "kind", "lines", "signature", *ROW_EDGE_KINDS, "doc"], "rows": out_rows}
    if module_edges:
        v["module_edges"] = module_edges
    if strays:
        v["edges"] = strays
    if not_builtins:
        v["not_builtins"] = not_builtins
    if errors:
        v["errors"] = errors
    order = ["module", "path", "lines", "doc", "imports", "definitions", "module_edges", "edges", "not_builtins",
             "imports_whole", "errors"]
    return pack_graph({k: v[k] for k in order if k in v})


# --- symbols ----------------------------------------------------------------------------


def symbols(v: dict[str, Any]) -> Iterator[str]:
    yield line("root", word(v["root"]))
    for m in v["modules"]:
        yield line("file", word(m["path"]), *([word(m["module"])] if "module" in m else []))
        for row in m["symbols"]:
            yield "  " + line(word(row[0]), word(row[1]), str(row[2]), rest=row[3] if len(row) > 3 else None)


def parse_symbols(text_: str) -> dict[str, Any]:
    lines_ = text_.split("\n")
    v: dict[str, Any] = {"root": unword(words(lines_[0], 1)[1]), "columns": ["name", "kind", "line", "signature"],
                         "modules": []}
    for raw in lines_[1:]:
        if raw.startswith("  "):
            (name, kind, n), signature = words(raw[2:], 3)
            v["modules"][-1]["symbols"].append(trimmed([name, kind, int(n), signature]))
        else:
            _, path, *module = all_words(raw)
            v["modules"].append({"path": path, **({"module": module[0]} if module else {}), "symbols": []})
    return v


# --- references -------------------------------------------------------------------------


def references(v: dict[str, Any]) -> Iterator[str]:
    yield line("symbol", word(v["symbol"]), word(v["kind"]), word(v["defined"][0]), str(v["defined"][1]))
    for path, kinds in v["files"].items():
        yield line("file", word(path))
        for kind, sources in kinds.items():
            yield "  " + word(kind)
            for where, lines_ in sources.items():
                yield "    " + " ".join([word(where), *map(str, lines_)])


def parse_references(text_: str) -> dict[str, Any]:
    lines_ = text_.split("\n")
    _, symbol, kind, path, n = all_words(lines_[0])
    files: dict[str, dict[str, dict[str, list[int]]]] = {}
    sources: dict[str, list[int]] = {}
    file = ""
    for raw in lines_[1:]:
        if raw.startswith("    "):
            where, *numbers = all_words(raw)
            sources[where] = [int(x) for x in numbers]
        elif raw.startswith("  "):
            sources = files[file].setdefault(unword(raw[2:]), {})
        else:
            file = unword(raw[len("file "):])
            files[file] = {}
    return {"symbol": symbol, "kind": kind, "defined": [path, int(n)], "files": files}


# --- diagnostics ------------------------------------------------------------------------


def diagnostics(v: dict[str, Any]) -> Iterator[str]:
    yield line("root", word(v["root"]))
    for path, kinds in v["files"].items():
        yield line("file", word(path))
        for kind, rows in kinds.items():
            yield "  " + word(kind)
            for n, column, message in rows:
                yield "    " + line(str(n), str(column), rest=message)


def parse_diagnostics(text_: str) -> dict[str, Any]:
    lines_ = text_.split("\n")
    files: dict[str, dict[str, list[list[Any]]]] = {}
    rows: list[list[Any]] = []
    file = ""
    for raw in lines_[1:]:
        if raw.startswith("    "):
            (n, column), message = words(raw[4:], 2)
            rows.append([int(n), int(column), message])
        elif raw.startswith("  "):
            rows = files[file].setdefault(unword(raw[2:]), [])
        else:
            file = unword(raw[len("file "):])
            files[file] = {}
    return {"root": unword(lines_[0][len("root "):]), "columns": ["line", "column", "message"], "files": files}


# --- project-graph ----------------------------------------------------------------------


def project_graph(v: dict[str, Any]) -> Iterator[str]:
    yield line("project", word(v["project"]))
    yield line("manifest", word(v["manifest"]))
    for row in v["modules"]["rows"]:
        yield line("file", word(row[0]), str(row[1]), rest=row[2] if len(row) > 2 else None)
    for path, module in v.get("module_names", {}).items():
        yield line("module_name", word(path), word(module))
    for key, word_ in (("imports", "import"), ("external", "external")):
        for module, names in v[key].items():
            yield " ".join([word_, word(module), *map(word, names)])
    for name, target in v["entry_points"].items():
        yield line("entry_point", word(name), word(target))
    for dependency in v.get("dependencies", ()):
        yield line("dependency", rest=dependency)


def parse_project_graph(text_: str) -> dict[str, Any]:
    v: dict[str, Any] = {}
    rows: list[list[Any]] = []
    names: dict[str, str] = {}
    maps: dict[str, dict[str, Any]] = {"imports": {}, "external": {}, "entry_points": {}}
    dependencies: list[str] = []
    for raw in text_.split("\n"):
        key, _, rest = raw.partition(" ")
        if key in ("project", "manifest"):
            v[key] = unword(rest)
        elif key == "file":
            (_, path, n), doc = words(raw, 3)
            rows.append(trimmed([path, int(n), doc]))
        elif key == "module_name":
            _, path, module = all_words(raw)
            names[path] = module
        elif key in ("import", "external"):
            _, module, *targets = all_words(raw)
            maps["imports" if key == "import" else "external"][module] = targets
        elif key == "entry_point":
            _, name, target = all_words(raw)
            maps["entry_points"][name] = target
        elif key == "dependency":
            dependencies.append(untext(rest))
    v["modules"] = {"columns": ["path", "lines", "doc"], "rows": rows}
    if names:
        v["module_names"] = names
    v.update(maps)
    if dependencies:
        v["dependencies"] = dependencies
    return v


RENDER = {"graph": graph, "symbols": symbols, "references": references, "diagnostics": diagnostics,
          "project-graph": project_graph}
PARSE = {"graph": parse_graph, "symbols": parse_symbols, "references": parse_references,
         "diagnostics": parse_diagnostics, "project-graph": parse_project_graph}


def listing(profile: str, view: dict[str, Any]) -> str:
    """The listing of a compact view of ``profile``."""
    return "\n".join(RENDER[profile](view)) + "\n"


def parse(profile: str, listing_: str) -> dict[str, Any]:
    """The compact view a listing was written from."""
    return PARSE[profile](listing_.removesuffix("\n"))


def main(argv: list[str] | None = None) -> int:
    from analysis.sources import Workspace
    from views import PRODUCERS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", choices=sorted(RENDER))
    parser.add_argument("root")
    parser.add_argument("--workspace", default=".")
    args = parser.parse_args(argv)
    _, view = PRODUCERS[args.profile](Workspace(args.workspace), args.root)
    sys.stdout.write(listing(args.profile, view))
    return 0


if __name__ == "__main__":
    sys.exit(main())
