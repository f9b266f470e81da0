"""Fitting a view to a token budget (docs/profiles.md, "Fitted views";
docs/wire-format.md §2.1).

A view over ``max_tokens`` is not refused: the most useful part of it that fits is
sent, and the document says so. What is kept is decided in a fixed order:

1. the full view, when its wire fits;
2. without docs (``doc`` fields and columns);
3. without signatures' detail (annotations and defaults: ``(self, key, *args)``);
4. without the lowest-ranked units (definitions, modules, files): a unit's rank is
   how much the rest of what the view reads uses it (calls, references and
   inheritance into a definition, imports of a module, uses in a file), as aider
   ranks its repository map; a kept definition keeps its parents.

The wire counted is the one of form ``counted`` (the route's encoding; ``json``
for ``auto``), with both ``cl100k_base`` and ``o200k_base``: a fitted wire is at
most ``max_tokens`` in each. A shed view carries, first, ``partial``: the budget it
was fitted to (so replay makes the same bytes), what was shed, how much was left
out, and narrower roots that show the rest, each with its own token counts.

Everything here is a function of the view, the files it read and the budget, so a
fitted view is as reproducible as any other.
"""

from __future__ import annotations

import ast
import base64
from collections.abc import Callable
from typing import Any

import codec
from analysis.sources import Workspace, WorkspaceError
from analysis.warm import IndexCache
from views import tokens
from views.budget import PARTIAL, Budget
from views.common import analysed_file
from views.shapes import pack_graph, path_module, unpack_graph

#: Columns of the marker's narrower roots.
NARROWER_COLUMNS = ["profile", "root", "cl100k_base", "o200k_base"]
#: At most this many narrower roots are named.
MAX_NARROWER = 6
#: Tokens kept free for each narrower root's counts while searching (they are
#: filled in after, and the fit checked again).
_COUNT_ALLOWANCE = 6


def wire_text(profile: str, root: str, revision: str, value: Any, form: str) -> str:
    """The wire of ``value`` in ``form`` as a model reads it (binary: its base64)."""
    wire = codec.ENCODERS[form](codec.CompactProjection.from_value(profile, root, revision, value))
    return base64.b64encode(wire).decode("ascii") if form == "binary" else wire.decode("utf-8")


def wire_tokens(profile: str, root: str, revision: str, value: Any, form: str) -> dict[str, int]:
    return tokens.count_tokens(wire_text(profile, root, revision, value, form))


# --- shedding helpers -------------------------------------------------------------------------


def bare_signature(signature: str) -> str:
    """A function's parameter list without annotations, defaults or return
    annotation: ``(self, key: str = "x") -> int`` -> ``(self, key)``. Anything
    that does not parse as a parameter list is returned as it is."""
    if not signature.startswith("("):
        return signature
    head = signature.rsplit(" -> ", 1)[0] if ") -> " in signature else signature
    try:
        tree = ast.parse(f"def f{head}: pass")
    except SyntaxError:
        return signature
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        return signature
    a = fn.args
    parts = [p.arg for p in a.posonlyargs]
    if a.posonlyargs:
        parts.append("/")
    parts += [p.arg for p in a.args]
    if a.vararg:
        parts.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        parts.append("*")
    parts += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        parts.append("**" + a.kwarg.arg)
    return "(" + ", ".join(parts) + ")"


def _trim(row: list[Any]) -> list[Any]:
    end = len(row)
    while end and row[end - 1] in ("", []):
        end -= 1
    return row[:end]


def _set_column(row: list[Any], i: int, new: Any) -> list[Any]:
    if len(row) <= i:
        return row
    out = list(row)
    out[i] = new
    return _trim(out)


def _with_parents(order: list[str], k: int) -> set[str]:
    """The top ``k`` names of ``order`` and every parent of theirs that is a name too."""
    known = set(order)
    kept: set[str] = set()
    for name in order[:k]:
        kept.add(name)
        head = name
        while "." in head:
            head = head.rpartition(".")[0]
            if head in known:
                kept.add(head)
    return kept


# --- one fitter per profile ---------------------------------------------------------------------


class _Fitter:
    """How one profile sheds: ``stages`` (name, rewrite) applied in order, then
    ``units`` (in keep order) cut by ``keep``."""

    unit = "items"

    def __init__(self, ws: Workspace, value: Any) -> None:
        self.ws = ws
        self.value = value

    def stages(self) -> list[tuple[str, Callable[[Any], Any]]]:
        return []

    def open(self, value: Any) -> Any:
        """The view in the shape the stages and units work on."""
        return value

    def close(self, value: Any) -> Any:
        """Undo ``open``: the view as sent."""
        return value

    def units(self, value: Any) -> list[str]:
        return []

    def keep(self, value: Any, k: int, order: list[str]) -> tuple[Any, dict[str, int]]:
        """The view with the first ``k`` units of ``order`` kept, and the counts of what was left out."""
        return value, {}

    def narrower(self, value: Any, k: int, order: list[str]) -> list[tuple[str, str]]:
        return []

    def local(self, profile: str, root: str) -> tuple[str, str, Any] | None:
        """A narrower root's view made from this one, when it is a part of it:
        ``(normalized root, revision, value)``; None to produce it."""
        return None


def _graph_names(rows: list[list[Any]]) -> list[str]:
    """Each graph row's name in full (a ``.x`` row continues the class row above it)."""
    names, cls = [], None
    for r in rows:
        name = cls + r[0] if r[0].startswith(".") and cls is not None else r[0]
        if r[1] == "class":
            cls = name
        names.append(name)
    return names


class _Graph(_Fitter):
    unit = "definitions"

    def open(self, value: Any) -> Any:
        return unpack_graph(value)  # one row per definition, kind and signature apart

    def close(self, value: Any) -> Any:
        return pack_graph(value)

    def stages(self) -> list[tuple[str, Callable[[Any], Any]]]:
        def docs(v: dict[str, Any]) -> dict[str, Any]:
            out = {k: x for k, x in v.items() if k != "doc"}
            rows = [r[:-1] if len(r) > 4 and isinstance(r[-1], str) else r for r in v["definitions"]["rows"]]
            out["definitions"] = {**v["definitions"], "rows": [_trim(r) for r in rows]}
            return out

        def signatures(v: dict[str, Any]) -> dict[str, Any]:
            rows = [r if len(r) < 4 or r[1] == "class" else _set_column(r, 3, bare_signature(r[3]))
                    for r in v["definitions"]["rows"]]
            return {**v, "definitions": {**v["definitions"], "rows": rows}}

        return [("doc", docs), ("signature detail", signatures)]

    def units(self, value: Any) -> list[str]:
        rows = value["definitions"]["rows"]
        full = _graph_names(rows)
        used: dict[str, int] = {}

        def count(targets: list[str], source: str) -> None:
            for t in targets:
                if t.startswith(".") and t != ".":
                    name = t[1:]
                    if name != source and not name.startswith(source + "."):
                        used[name] = used.get(name, 0) + 1

        for r, name in zip(rows, full, strict=True):
            for col in r[4:7]:
                if isinstance(col, list):
                    count(col, name)
        for targets in value.get("module_edges", {}).values():
            count(targets, "")
        for kinds in value.get("edges", {}).values():
            for targets in kinds.values():
                count(targets, "")
        names = []
        seen = set()
        for i, name in enumerate(full):
            if name not in seen:
                seen.add(name)
                names.append((name, i))
        # most used first; then public before private, outer before inner, source order
        names.sort(key=lambda ni: (-used.get(ni[0], 0), ni[0].rsplit(".", 1)[-1].startswith("_"),
                                   ni[0].count("."), ni[1]))
        return [n for n, _ in names]

    def keep(self, value: Any, k: int, order: list[str]) -> tuple[Any, dict[str, int]]:
        kept = _with_parents(order, k)
        rows = value["definitions"]["rows"]
        # a kept member keeps its class row, so a ``.x`` row still continues the right one
        out_rows = [r for r, name in zip(rows, _graph_names(rows), strict=True) if name in kept]
        out = {**value, "definitions": {**value["definitions"], "rows": out_rows}}
        return out, {"definitions": len(rows) - len(out_rows)}

    def narrower(self, value: Any, k: int, order: list[str]) -> list[tuple[str, str]]:
        # The file's symbols list every definition; a task-context per definition
        # would show more, but weighing it reads the whole workspace (minutes on a
        # large one), so it is left to the caller to ask.
        return [("symbols", value["path"])]


class _Symbols(_Fitter):
    unit = "symbols"

    def _module(self, m: dict[str, Any]) -> str:
        return str(m.get("module", path_module(m["path"])))

    def stages(self) -> list[tuple[str, Callable[[Any], Any]]]:
        def signatures(v: dict[str, Any]) -> dict[str, Any]:
            modules = [{**m, "symbols": [r if len(r) < 4 or r[1] == "class" else _set_column(r, 3, bare_signature(r[3]))
                                         for r in m["symbols"]]} for m in v["modules"]]
            return {**v, "modules": modules}

        return [("signature detail", signatures)]

    def units(self, value: Any) -> list[str]:
        qualnames: list[tuple[str, int]] = []
        for m in value["modules"]:
            module = self._module(m)
            qualnames.extend((f"{module}.{r[0]}", len(qualnames)) for r in m["symbols"])
        known = {q for q, _ in qualnames}
        used: dict[str, int] = {}
        for m in value["modules"]:
            try:
                a = analysed_file(self.ws, m["path"])
            except (WorkspaceError, OSError):
                continue
            for u in a.uses:
                t = u.target
                if t in known and u.source != t and not u.source.startswith(t + "."):
                    used[t] = used.get(t, 0) + 1
        qualnames.sort(key=lambda qi: (-used.get(qi[0], 0), qi[0].rsplit(".", 1)[-1].startswith("_"),
                                       qi[0].count("."), qi[1]))
        return list(dict.fromkeys(q for q, _ in qualnames))

    def keep(self, value: Any, k: int, order: list[str]) -> tuple[Any, dict[str, int]]:
        kept = _with_parents(order, k)
        modules = []
        symbols_left = modules_left = 0
        for m in value["modules"]:
            module = self._module(m)
            rows = [r for r in m["symbols"] if f"{module}.{r[0]}" in kept]
            symbols_left += len(m["symbols"]) - len(rows)
            if rows or not m["symbols"] and k >= len(order):
                modules.append({**m, "symbols": rows})
            else:
                modules_left += 1
        return {**value, "modules": modules}, {"symbols": symbols_left, "modules": modules_left}

    def narrower(self, value: Any, k: int, order: list[str]) -> list[tuple[str, str]]:
        kept = _with_parents(order, k)
        root = value["root"]
        left: dict[str, int] = {}
        for m in value["modules"]:
            module = self._module(m)
            n = sum(1 for r in m["symbols"] if f"{module}.{r[0]}" not in kept)
            if not n:
                continue
            path = m["path"]
            if root.endswith(".py"):  # one file has no narrower symbols root
                continue
            inside = path if root == "." else path[len(root) + 1 :]
            child = inside.split("/", 1)[0]
            target = child if root == "." else f"{root}/{child}"
            left[f"symbols\0{target}"] = left.get(f"symbols\0{target}", 0) + n
        ranked = sorted(left.items(), key=lambda kv: (-kv[1], kv[0]))
        return [tuple(key.split("\0", 1)) for key, _ in ranked[:MAX_NARROWER]]  # type: ignore[misc]

    def local(self, profile: str, root: str) -> tuple[str, str, Any] | None:
        # a sub-folder's or file's symbols are the whole view's modules below it, in the same order
        if profile != "symbols":
            return None
        modules = [m for m in self.value["modules"] if m["path"] == root or m["path"].startswith(root + "/")]
        if not modules:
            return None
        other = Workspace(self.ws.folder)  # what the producer would read: the files and their packages
        for m in modules:
            other.module_of(m["path"])
            other.read(m["path"])
        revision = other.revision()
        return root, revision, {**self.value, "root": root, "modules": modules}


class _ProjectGraph(_Fitter):
    unit = "modules"

    def stages(self) -> list[tuple[str, Callable[[Any], Any]]]:
        def docs(v: dict[str, Any]) -> dict[str, Any]:
            return {**v, "modules": {**v["modules"], "rows": [_set_column(r, 2, "") for r in v["modules"]["rows"]]}}

        return [("doc", docs)]

    def _names(self, value: Any) -> list[tuple[str, str]]:
        names = value.get("module_names", {})
        return [(r[0], names.get(r[0], path_module(r[0]))) for r in value["modules"]["rows"]]

    def units(self, value: Any) -> list[str]:
        imported: dict[str, int] = {}
        for targets in value["imports"].values():
            for t in targets:
                imported[t] = imported.get(t, 0) + 1
        entries = set(value.get("entry_points", {}))
        paths = [(p, m, i) for i, (p, m) in enumerate(self._names(value))]
        paths.sort(key=lambda pmi: (-imported.get(pmi[1], 0) - (1 if pmi[1] in entries else 0),
                                    pmi[1].rsplit(".", 1)[-1].startswith("_"), pmi[1].count("."), pmi[2]))
        return [p for p, _, _ in paths]

    def keep(self, value: Any, k: int, order: list[str]) -> tuple[Any, dict[str, int]]:
        kept = set(order[:k])
        names = dict(self._names(value))
        kept_modules = {names[p] for p in kept}
        rows = [r for r in value["modules"]["rows"] if r[0] in kept]
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "modules":
                out[key] = {**item, "rows": rows}
            elif key == "module_names":
                left = {p: m for p, m in item.items() if p in kept}
                if left:
                    out[key] = left
            elif key == "imports":
                out[key] = {m: ts for m, ts in item.items() if m in kept_modules}
            elif key == "external":
                ext = {t: [m for m in ms if m in kept_modules] for t, ms in item.items()}
                out[key] = {t: ms for t, ms in ext.items() if ms}
            else:
                out[key] = item
        return out, {"modules": len(value["modules"]["rows"]) - len(rows)}

    def narrower(self, value: Any, k: int, order: list[str]) -> list[tuple[str, str]]:
        return [("graph", p) for p in order[k:][:MAX_NARROWER] if p.endswith(".py")]


class _References(_Fitter):
    unit = "files"

    def units(self, value: Any) -> list[str]:
        files = value["files"]
        uses = {p: sum(len(lines) for sources in kinds.values() for lines in sources.values())
                for p, kinds in files.items()}
        return sorted(files, key=lambda p: (-uses[p], p.encode()))

    def keep(self, value: Any, k: int, order: list[str]) -> tuple[Any, dict[str, int]]:
        kept = set(order[:k])
        files = {p: kinds for p, kinds in value["files"].items() if p in kept}
        left = [kinds for p, kinds in value["files"].items() if p not in kept]
        uses = sum(len(lines) for kinds in left for sources in kinds.values() for lines in sources.values())
        return {**value, "files": files}, {"files": len(left), "uses": uses}

    def narrower(self, value: Any, k: int, order: list[str]) -> list[tuple[str, str]]:
        return [("graph", p) for p in order[k:][:MAX_NARROWER]]


class _Diagnostics(_Fitter):
    unit = "files"

    def units(self, value: Any) -> list[str]:
        files = value["files"]
        n = {p: sum(len(rows) for rows in kinds.values()) for p, kinds in files.items()}
        return sorted(files, key=lambda p: (-n[p], p.encode()))

    def keep(self, value: Any, k: int, order: list[str]) -> tuple[Any, dict[str, int]]:
        kept = set(order[:k])
        files = {p: kinds for p, kinds in value["files"].items() if p in kept}
        left = [kinds for p, kinds in value["files"].items() if p not in kept]
        return {**value, "files": files}, {"files": len(left), "problems": sum(len(r) for ks in left for r in ks.values())}

    def narrower(self, value: Any, k: int, order: list[str]) -> list[tuple[str, str]]:
        return [("diagnostics", p) for p in order[k:][:MAX_NARROWER] if p.endswith(".py")]


class _TaskContext(_Fitter):
    """Sheds the class's doc, then signatures' detail, then its tables' entries
    (tests, callers, overrides, types, callees, members, in that order of sacrifice) and
    last the source's lines from the end."""

    unit = "entries"
    TABLES = ("members", "callees", "types", "overrides", "callers", "tests")  # kept first .. shed first

    def stages(self) -> list[tuple[str, Callable[[Any], Any]]]:
        def docs(v: dict[str, Any]) -> dict[str, Any]:
            if "class" not in v:
                return v
            return {**v, "class": {k: x for k, x in v["class"].items() if k != "doc"}}

        def signatures(v: dict[str, Any]) -> dict[str, Any]:
            out = dict(v)
            for key in ("callees", "constructs"):
                if key in out:
                    out[key] = {n: bare_signature(s) for n, s in out[key].items()}
            for key in ("callers", "tests"):
                if key in out:
                    out[key] = {**out[key], "rows": [r[:3] for r in out[key]["rows"]]}
            if "class" in out:
                members = out["class"].get("members", {})
                out["class"] = {**out["class"], "members": {n: bare_signature(s) for n, s in members.items()}}
            return out

        return [("doc", docs), ("signature detail", signatures)]

    def _entries(self, value: Any, key: str) -> list[str]:
        if key == "members":
            return list(value.get("class", {}).get("members", {}))
        item = value.get(key, {})
        if isinstance(item, dict) and isinstance(item.get("rows"), list):
            return [r[0] for r in item["rows"]]
        return list(item) if isinstance(item, dict) else []

    def units(self, value: Any) -> list[str]:
        order = [f"{key}\0{name}" for key in self.TABLES for name in self._entries(value, key)]
        lines = value.get("source", "").split("\n")
        order += [f"source\0{i}" for i in range(len(lines) - 1, 0, -1)]  # the first line is never shed
        # kept first: the source, then tables in TABLES order
        return [u for u in order if u.startswith("source\0")][::-1] + [u for u in order if not u.startswith("source\0")]

    def keep(self, value: Any, k: int, order: list[str]) -> tuple[Any, dict[str, int]]:
        kept = set(order[:k])
        out = dict(value)
        left: dict[str, int] = {}
        for key in self.TABLES:
            names = self._entries(value, key)
            keep_names = [n for n in names if f"{key}\0{n}" in kept]
            if len(keep_names) == len(names):
                continue
            left[key] = len(names) - len(keep_names)
            if key == "members":
                members = value["class"]["members"]
                out["class"] = {**out["class"], "members": {n: members[n] for n in keep_names}}
            else:
                item = out[key]
                if isinstance(item, dict) and isinstance(item.get("rows"), list):
                    wanted = set(keep_names)
                    out[key] = {**item, "rows": [r for r in item["rows"] if r[0] in wanted]}
                else:
                    out[key] = {n: item[n] for n in keep_names}
        lines = value.get("source", "").split("\n")
        n = 1 + sum(1 for i in range(1, len(lines)) if f"source\0{i}" in kept)
        if n < len(lines):
            out["source"] = "\n".join(lines[:n])
            left["source lines"] = len(lines) - n
        return out, left

    def narrower(self, value: Any, k: int, order: list[str]) -> list[tuple[str, str]]:
        kept = set(order[:k])
        out = []
        if any(u not in kept for u in order if u.startswith(("callers\0", "tests\0"))):
            out.append(("references", value["symbol"]))
        if any(u not in kept for u in order if not u.startswith(("callers\0", "tests\0"))):
            out.append(("graph", value["path"]))
        return out


FITTERS: dict[str, type[_Fitter]] = {
    "graph": _Graph,
    "symbols": _Symbols,
    "project-graph": _ProjectGraph,
    "references": _References,
    "diagnostics": _Diagnostics,
    "task-context": _TaskContext,
}

def fit(profile: str, ws: Workspace, root: str, value: Any, budget: Budget,
        produce: Callable[[str, Workspace, str], tuple[str, Any]]) -> Any:
    """The most useful part of ``value`` (the ``profile`` view of ``root``, made
    from ``ws``) whose wire of form ``budget.counted`` is at most
    ``budget.max_tokens`` in both tokenizers. ``produce(profile, ws, root)``
    makes the narrower roots' views, to weigh them. A view that fits is
    returned as it is; the smallest possible fit (no unit kept) is returned
    even when it is still over, so the caller can say so."""
    revision = ws.revision()

    def cost(v: Any) -> int:
        return max(wire_tokens(profile, root, revision, v, budget.counted).values())

    if cost(value) <= budget.max_tokens:
        return value
    fitter = FITTERS[profile](ws, value)
    shed: list[str] = []
    current = fitter.open(value)
    for name, stage in fitter.stages():
        changed = stage(current)
        if changed != current:
            shed.append(name)
            current = changed
        candidate = _marked(fitter.close(current), budget, shed, {}, [])
        if cost(candidate) <= budget.max_tokens:
            return candidate
    order = fitter.units(current)
    weights: dict[tuple[str, str], dict[str, int]] = {}
    cache = ws.index_cache if ws.index_cache is not None else IndexCache()

    def weigh(pairs: list[tuple[str, str]]) -> list[list[Any]]:
        rows = []
        for p, r in pairs:
            if (p, r) not in weights:
                try:
                    made = fitter.local(p, r)
                    if made is None:
                        other = Workspace(ws.folder, index_cache=cache)
                        normalized, v = produce(p, other, r)
                        made = normalized, other.revision(), v
                    weights[(p, r)] = wire_tokens(p, made[0], made[1], made[2], budget.counted)
                except (WorkspaceError, codec.CompactError, OSError, ValueError):
                    weights[(p, r)] = {}
            counts = weights[(p, r)]
            if counts:
                rows.append([p, r, counts["cl100k_base"], counts["o200k_base"]])
        return rows

    def build(k: int, weighed: bool) -> Any:
        kept, left = fitter.keep(current, k, order)
        pairs = fitter.narrower(current, k, order)
        rows = weigh(pairs) if weighed else [[p, r, 0, 0] for p, r in pairs]
        return _marked(fitter.close(kept), budget, shed, left, rows)

    allowance = _COUNT_ALLOWANCE * MAX_NARROWER
    lo, hi = 0, len(order)  # the largest k whose search build fits lies in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cost(build(mid, False)) + allowance <= budget.max_tokens:
            lo = mid
        else:
            hi = mid - 1
    k = lo
    while True:
        candidate = build(k, True)
        if k == 0 or cost(candidate) <= budget.max_tokens:
            return candidate
        k = max(0, k - max(1, k // 20))


def _marked(value: Any, budget: Budget, shed: list[str], left: dict[str, int], narrower: list[list[Any]]) -> Any:
    marker: dict[str, Any] = {"max_tokens": budget.max_tokens, "counted": budget.counted, "shed": list(shed)}
    omitted = {k: n for k, n in left.items() if n}
    if omitted:
        marker["omitted"] = omitted
    if narrower:
        marker["narrower"] = {"columns": NARROWER_COLUMNS, "rows": narrower}
    return {PARTIAL: marker, **{k: v for k, v in value.items() if k != PARTIAL}}


def fits(profile: str, root: str, revision: str, value: Any, budget: Budget) -> bool:
    counts = wire_tokens(profile, root, revision, value, budget.counted)
    return all(n <= budget.max_tokens for n in counts.values())
