"""What roots a workspace offers for each profile, with their sizes: the answers to
``find_roots``, the close matches named when a root is not found, and the
narrower roots named when a view is over a token budget."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import Any

from analysis.sources import SKIP_DIRS, Workspace

#: What kind of root each profile takes, in words a caller can act on.
ROOT_KINDS: dict[str, str] = {
    "graph": "a workspace-relative .py file",
    "task-context": "a qualified symbol (module.Class.method)",
    "project-graph": "a manifest (semaprax.toml or pyproject.toml) or a folder holding one",
    "symbols": "a .py file or a package folder ('.' for the whole workspace)",
    "references": "a qualified symbol (module.Class.method)",
    "diagnostics": "a .py file, or a manifest or folder holding one",
}
SYMBOL_PROFILES = frozenset({"task-context", "references"})


@dataclass(frozen=True)
class Root:
    """A root a profile accepts and how big it is: source bytes and files for
    paths, kind and lines for symbols."""

    root: str
    kind: str
    bytes: int = 0
    files: int = 0
    lines: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"root": self.root, "kind": self.kind}
        if self.kind == "symbol" or self.lines:
            out["lines"] = self.lines
        else:
            out["bytes"] = self.bytes
            if self.kind in ("folder", "manifest"):
                out["files"] = self.files
        return out


def _size(ws: Workspace, rel: str) -> int:
    try:
        return os.stat(ws.folder / rel).st_size
    except OSError:
        return 0


def _folders(ws: Workspace) -> list[Root]:
    """Every folder holding .py files below it, with their total size."""
    sizes: dict[str, list[int]] = {}
    for path in ws.python_files():
        size = _size(ws, path)
        parts = path.split("/")[:-1]
        for n in range(len(parts) + 1):
            acc = sizes.setdefault("/".join(parts[:n]) or ".", [0, 0])
            acc[0] += size
            acc[1] += 1
    return [Root(f, "folder", b, n) for f, (b, n) in sizes.items()]


def _files(ws: Workspace) -> list[Root]:
    return [Root(p, "file", _size(ws, p), 1) for p in ws.python_files()]


def _manifests(ws: Workspace) -> list[Root]:
    from analysis.manifest import MANIFEST_NAMES

    found = []
    for dirpath, dirnames, filenames in os.walk(ws.folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        rel_dir = os.path.relpath(dirpath, ws.folder).replace(os.sep, "/")
        for name in MANIFEST_NAMES:
            if name in filenames:
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                under = ws.python_files("" if rel_dir == "." else rel_dir)
                found.append(Root(rel, "manifest", sum(_size(ws, p) for p in under), len(under)))
    return found


def _symbols(ws: Workspace) -> list[Root]:
    from analysis.index import index_of
    from views.common import workspace_sources

    index = index_of(ws, workspace_sources(ws))
    return [Root(q, "symbol", lines=loc.definition.end - loc.definition.start + 1)
            for q, loc in index.definitions.items()]


def candidates(ws: Workspace, profile: str) -> list[Root]:
    """Every root ``profile`` accepts in this workspace, bytewise by name."""
    if profile in SYMBOL_PROFILES:
        found = _symbols(ws)
    elif profile == "graph":
        found = _files(ws)
    elif profile == "symbols":
        found = _folders(ws) + _files(ws)
    elif profile == "project-graph":
        found = _manifests(ws)
    else:  # diagnostics
        found = _manifests(ws) + _files(ws)
    return sorted(found, key=lambda r: r.root.encode("utf-8"))


def find(ws: Workspace, profile: str, query: str = "", limit: int = 50) -> dict[str, Any]:
    """The roots of ``profile`` whose name contains ``query`` (any case)."""
    needle = query.casefold()
    matched = [r for r in candidates(ws, profile) if needle in r.root.casefold()]
    return {
        "profile": profile,
        "takes": ROOT_KINDS[profile],
        "query": query,
        "total": len(matched),
        "roots": [r.to_json() for r in matched[:limit]],
    }


def close_matches(ws: Workspace, profile: str, root: str, n: int = 5) -> list[str]:
    """The accepted roots nearest to ``root`` (difflib), then, for symbols, those
    with the same last name."""
    names = [r.root for r in candidates(ws, profile)]
    close = difflib.get_close_matches(root, names, n=n, cutoff=0.6)
    if profile in SYMBOL_PROFILES and len(close) < n:
        tail = root.rsplit(".", 1)[-1]
        close += [c for c in names if c.rsplit(".", 1)[-1] == tail and c not in close][: n - len(close)]
    return close


def narrower(ws: Workspace, profile: str, root: str, n: int = 8) -> list[dict[str, Any]]:
    """Roots inside ``root`` that the same profile accepts, largest first: the
    sub-packages and files of a folder, the files of a project, the members of a
    class. Empty when the profile's view of ``root`` cannot be split."""
    from analysis.manifest import MANIFEST_NAMES

    rel = root.strip("/")
    if profile in SYMBOL_PROFILES:
        inside = [r for r in _symbols(ws) if r.root.rpartition(".")[0] == root]
        return [r.to_json() for r in sorted(inside, key=lambda r: (-r.lines, r.root))[:n]]
    if profile == "symbols" and (rel in ("", ".") or ws.is_dir(rel)):
        folder = "" if rel in ("", ".") else rel
    elif profile == "diagnostics" and rel.rsplit("/", 1)[-1] in MANIFEST_NAMES:
        folder = rel.rpartition("/")[0]
    else:
        return []
    under = (lambda r: not folder or r.root.startswith(folder + "/"))
    if profile == "diagnostics":
        children = [r for r in _files(ws) if under(r)]
    else:
        depth = folder.count("/") + 1 if folder else 0
        children = [r for r in _folders(ws) + _files(ws)
                    if r.root != "." and r.root.count("/") == depth and under(r)]
    return [r.to_json() for r in sorted(children, key=lambda r: (-r.bytes, r.root))[:n]]
