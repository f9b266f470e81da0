"""The workspace folder: which Python files it holds, what modules they are, and
a reader that remembers every file a producer read, so ``source_revision`` always
covers exactly those files (spec section 8)."""

from __future__ import annotations

import difflib
import hashlib
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .analysis.index import WorkspaceIndex
    from .warm import IndexCache

REVISION_TAG = b"semaprax/source-revision/v1\x00"

#: Folders never searched for sources: tools' and environments' own files.
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "env", "__pycache__", "node_modules", "build",
    "dist", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",
    "site-packages", ".eggs",
})


class WorkspaceError(Exception):
    """A request the workspace cannot answer: a root that does not exist, a symbol
    that cannot be found. The message names it and suggests close matches."""


def suggest(word: str, candidates: list[str], what: str) -> str:
    close = difflib.get_close_matches(word, candidates, n=3, cutoff=0.6)
    if not close:
        return ""
    return f"; did you mean {' or '.join(repr(c) for c in close)}?"


def source_revision(files: dict[str, bytes]) -> str:
    """``sha256:`` + hex over the tag and, per file in bytewise order of its
    path, the path, NUL, its 8-byte big-endian length and its bytes."""
    h = hashlib.sha256(REVISION_TAG)
    for path in sorted(files, key=lambda p: p.encode("utf-8")):
        data = files[path]
        h.update(path.encode("utf-8"))
        h.update(b"\x00")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return "sha256:" + h.hexdigest()


@dataclass(frozen=True)
class ModuleFile:
    path: str  # workspace-relative, '/' separators
    module: str
    is_package: bool


class Workspace:
    """A folder of Python sources. Paths in and out are workspace-relative with
    '/' separators, so views carry no absolute path."""

    def __init__(self, folder: str | os.PathLike[str] = ".", index_cache: IndexCache | None = None) -> None:
        self.folder = Path(folder)
        self.index_cache = index_cache
        if not self.folder.is_dir():
            raise WorkspaceError(f"workspace {str(folder)!r} is not a folder")
        self.read_files: dict[str, bytes] = {}
        self._listing: list[str] | None = None

    # --- paths --------------------------------------------------------------------

    def relative(self, root: str) -> str:
        """Normalize a user-given root path to workspace-relative form."""
        path = Path(root)
        if path.is_absolute():
            try:
                path = path.resolve().relative_to(self.folder.resolve())
            except ValueError:
                raise WorkspaceError(f"{root!r} is outside the workspace {str(self.folder)!r}") from None
        normal = posixpath.normpath(path.as_posix())
        if normal == ".":
            return ""
        if normal == ".." or normal.startswith("../"):
            raise WorkspaceError(f"{root!r} leaves the workspace")
        return normal

    def exists(self, rel: str) -> bool:
        return (self.folder / rel).exists()

    def is_dir(self, rel: str) -> bool:
        return (self.folder / rel).is_dir()

    def read(self, rel: str) -> bytes:
        """The bytes of a workspace file, remembered for the revision."""
        if rel not in self.read_files:
            try:
                self.read_files[rel] = (self.folder / rel).read_bytes()
            except OSError as exc:
                raise WorkspaceError(f"cannot read {rel!r}: {exc.strerror or exc}") from None
        return self.read_files[rel]

    def revision(self) -> str:
        return source_revision(self.read_files)

    def index(self, files: list[str]) -> WorkspaceIndex:
        """The analysis of ``files`` together; a server passes an IndexCache so
        that an unchanged workspace is analysed once per process (workspace/warm.py)."""
        from .analysis.index import WorkspaceIndex

        if self.index_cache is None:
            return WorkspaceIndex(self, files)
        return self.index_cache.index(self, files, WorkspaceIndex)

    # --- discovery ------------------------------------------------------------------

    def python_files(self, under: str = "") -> list[str]:
        """Every .py file below ``under`` (the whole workspace by default), in
        bytewise path order, skipping environment and tool folders."""
        if self._listing is None:
            found = []
            for dirpath, dirnames, filenames in os.walk(self.folder):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
                rel_dir = Path(dirpath).relative_to(self.folder).as_posix()
                for name in filenames:
                    if name.endswith(".py"):
                        found.append(name if rel_dir == "." else f"{rel_dir}/{name}")
            self._listing = sorted(found, key=lambda p: p.encode("utf-8"))
        if not under:
            return list(self._listing)
        prefix = under.rstrip("/") + "/"
        return [p for p in self._listing if p.startswith(prefix) or p == under]

    def module_of(self, rel: str) -> ModuleFile:
        """The module a file is, by Python's rule: its name, prefixed by every
        enclosing folder that has an __init__.py."""
        parts = rel.split("/")
        stem = parts[-1][:-3]
        is_package = stem == "__init__"
        names = [] if is_package else [stem]
        folders = parts[:-1]
        while folders and (self.folder / "/".join(folders) / "__init__.py").is_file():
            # The module's name depends on this file: it is read, so the
            # revision changes when it goes away.
            self.read("/".join(folders) + "/__init__.py")
            names.insert(0, folders[-1])
            folders = folders[:-1]
        if not names:  # an __init__.py outside any package
            names = [folders[-1] if folders else stem]
        return ModuleFile(rel, ".".join(names), is_package)
