"""Shapes shared by the views, chosen for a reader who pays per token: uniform
records as columns and rows, edges grouped under their source, nothing a reader
can derive (a definition's parent is its qualified name minus the last part)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from analysis.model import EDGE_KINDS, IMPORTS, Definition, ModuleAnalysis, Use
from analysis.sources import Workspace, WorkspaceError, suggest

if TYPE_CHECKING:  # the manifest reader (and tomllib) is imported by the views that read a manifest
    from analysis.manifest import Project


def table(columns: list[str], rows: Iterable[list[Any]]) -> dict[str, Any]:
    return {"columns": columns, "rows": [list(r) for r in rows]}


_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "mr", "mrs", "dr", "no", "st", "al"})
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def first_sentence(doc: str) -> str:
    """The docstring's first sentence, whole: its first paragraph's lines joined
    with single spaces, up to the first ``.``, ``!`` or ``?`` that ends a
    sentence (followed by a space and not closing an abbreviation such as
    ``e.g.``, or by the paragraph's end); the whole paragraph when none does."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    for match in _SENTENCE_END.finditer(paragraph):
        word = paragraph[: match.start()].rsplit(" ", 1)[-1].lower()
        if match.group() == "." and (word in _ABBREVIATIONS or len(word) == 1 and word.isalpha()):
            continue
        return paragraph[: match.end()]
    return paragraph


def definition_row(d: Definition) -> list[Any]:
    return [d.qualname, d.kind, [d.start, d.end], d.signature, first_sentence(d.doc)]


def grouped_edges(uses: Iterable[Use], order: list[str]) -> dict[str, dict[str, list[str]]]:
    """``{source: {kind: [targets, sorted, unique]}}``, sources in ``order``
    (definition order) first, kinds in EDGE_KINDS order, imports left out."""
    found: dict[str, dict[str, set[str]]] = {}
    for u in uses:
        if u.kind == IMPORTS:
            continue
        found.setdefault(u.source, {}).setdefault(u.kind, set()).add(u.target)
    rank = {q: i for i, q in enumerate(order)}
    out: dict[str, dict[str, list[str]]] = {}
    for source in sorted(found, key=lambda s: (rank.get(s, len(rank)), s)):
        kinds = found[source]
        out[source] = {k: sorted(kinds[k]) for k in EDGE_KINDS if k in kinds}
    return out


def analysed_file(ws: Workspace, rel: str) -> ModuleAnalysis:
    """One workspace file analysed as a one-file view reads it: its module's
    name and package-ness, the stub beside it, and what its bare imports reach
    (sources.ModuleFile)."""
    from analysis.resolver import analyse_module  # (roots and the manifest views need no resolver)

    mf = ws.module_of(rel)
    return analyse_module(ws.read(rel), rel, mf.module, is_package=mf.is_package, stub=ws.stub_of(rel),
                          renamed=mf.renamed)


def python_file(ws: Workspace, root: str) -> str:
    """A root that must name an existing .py file."""
    rel = ws.relative(root)
    if rel.endswith(".py") and ws.exists(rel) and not ws.is_dir(rel):
        return rel
    what = "is not a .py file" if ws.exists(rel) else "does not exist"
    if what == "does not exist" and os.path.islink(ws.folder / rel):  # the listing's note says it too
        what = "is a symlink to nothing (a loop, or a target that is gone)"
    raise WorkspaceError(f"root {root!r} {what} in the workspace{suggest(rel, ws.python_files(), 'file')}")


def workspace_sources(ws: Workspace) -> list[str]:
    """The files a symbol lookup reads: a top-level manifest's sources, or else
    every Python file of the workspace."""
    from analysis.manifest import MANIFEST_NAMES, load_project

    for name in MANIFEST_NAMES:
        if ws.exists(name):
            return list(load_project(ws, name).sources)
    return ws.python_files()


def manifest_root(ws: Workspace, root: str) -> Project:
    from analysis.manifest import MANIFEST_NAMES, load_project

    rel = ws.relative(root)
    if ws.is_dir(rel):
        for name in MANIFEST_NAMES:
            candidate = f"{rel}/{name}" if rel else name
            if ws.exists(candidate):
                return load_project(ws, candidate)
        raise WorkspaceError(f"no semaprax.toml or pyproject.toml in {root!r}; a semaprax.toml holding the line "
                             f"[project] makes the folder a project whose sources are its .py files")
    return load_project(ws, rel)


def problem_rows(analyses: Iterable[ModuleAnalysis]) -> list[list[Any]]:
    rows = []
    for a in analyses:
        for p in a.problems:
            rows.append([a.path, p.line, p.column, p.kind, p.message])
    return rows
