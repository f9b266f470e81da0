"""The workspace folder: which Python files it holds, what modules they are, and
a reader that remembers every file a producer read, so ``source_revision`` always
covers exactly those files (docs/profiles.md)."""

from __future__ import annotations

import difflib
import errno
import functools
import hashlib
import io
import keyword
import logging
import os
import posixpath
import re
import tokenize
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Protocol

REVISION_TAG = b"semaprax/source-revision/v1\x00"
_log = logging.getLogger("semaprax.workspace")

#: Folders never searched for sources: tools' own files. Hidden folders (a
#: leading dot) are skipped too, and so is a virtual environment, known by its
#: pyvenv.cfg, whatever its name: a folder called ``venv`` or ``build`` may be
#: a package (the standard library's ``venv`` is).
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


class IndexStore(Protocol):
    """Where a long-running server keeps workspace analyses (analysis/warm.py's
    IndexCache). Named here as a shape only, so this module, below the index and
    the cache, imports neither."""

    def index(self, ws: Workspace, files: list[str], build: Any) -> Any: ...


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


def decode_source(data: bytes) -> str:
    """Source text the way Python reads it: the encoding its BOM or coding
    declaration names (PEP 263), UTF-8 otherwise; undecodable bytes become
    U+FFFD rather than an error, since a view of a broken file is still useful."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown or contradictory declaration
        encoding = "utf-8"
    try:
        return data.decode(encoding, errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """Lines as Python numbers them: split at \\n, \\r\\n and \\r only (a form
    feed or a vertical tab is not a line break to the tokenizer, though
    ``str.splitlines`` treats it as one)."""
    lines = _LINE_BREAK.split(text.removeprefix("\ufeff"))
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def is_utf8(name: str) -> bool:
    """Whether a name from the file system is valid UTF-8 (``os.walk`` gives
    other bytes as lone surrogates, which no UTF-8 encoder accepts)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def spelled(name: str) -> str:
    """A file name that is not UTF-8, spelled in UTF-8: each byte that is not
    part of a UTF-8 character as ``\\xNN`` (``caf\\xe9.py`` for Latin-1 ``café.py``).
    A lone surrogate that stands for no byte (one a client sent, outside
    U+DC80..U+DCFF) is spelled ``\\udNNN``."""
    try:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _cannot_read(what: str, code: int | None) -> str:
    """Why the listing left out a file or folder it cannot read (``code``: the
    errno), as ``Workspace.skipped`` says it (``the file cannot be read:
    permission denied``)."""
    reason = os.strerror(code) if code else "unknown error"
    return f"the {what} cannot be read: {reason[:1].lower()}{reason[1:]}"


def unnameable(root: str, what: str = "root") -> str | None:
    """Why no view can name ``root``, or None: a path or symbol that is not UTF-8
    text (a lone surrogate, as Python spells a file name that is not UTF-8).
    The workspace-wide views skip such a file and say so under the same
    spelling (``Workspace.skipped``); a root naming one gets this answer."""
    if is_utf8(root):
        return None
    return (f"{what} {spelled(root)} is not UTF-8 (bytes that are not UTF-8 are spelled \\xNN); "
            f"views name files in UTF-8, so a file or folder whose name is not UTF-8 is skipped "
            f"(workspace-wide views say 'skipped NAME: its name is not UTF-8'); rename it to view it")


def check_nameable(root: str, what: str = "root") -> None:
    """Refuse (WorkspaceError) a root that no view can name (``unnameable``),
    never a traceback."""
    why = unnameable(root, what)
    if why is not None:
        raise WorkspaceError(why)


#: Top-level folder names setuptools' flat-layout discovery never takes for a
#: package (setuptools/discovery.py, FlatLayoutPackageFinder), nor do we: beside
#: a pyproject.toml without src/, a folder of these names is not a namespace
#: package (names starting with '.' or '_' neither).
FLAT_LAYOUT_RESERVED = frozenset({
    "ci", "bin", "doc", "docs", "documentation", "manpages", "news", "changelog", "test", "tests",
    "unit_test", "unit_tests", "example", "examples", "scripts", "tools", "util", "utils", "python",
    "build", "dist", "venv", "env", "requirements", "tasks", "fabfile", "site_scons", "benchmark",
    "benchmarks", "exercise", "exercises",
})


@dataclass(frozen=True)
class Layout:
    """Where a pyproject.toml project's packages are named from, as setuptools
    finds them (PEP 420 namespace packages included): ``[tool.setuptools.packages.find]``
    ``where`` when given, else its ``src/`` folder when there is one (src layout),
    else its own folder (flat layout, FLAT_LAYOUT_RESERVED left out)."""

    manifest: str  # workspace-relative path of the pyproject.toml
    roots: tuple[str, ...]  # workspace-relative folders ('' for the top) packages are named from
    flat: str | None  # the root where FLAT_LAYOUT_RESERVED names are not packages (flat layout)
    namespaces: bool  # find's ``namespaces`` (default true): folders without __init__.py are packages
    include: tuple[str, ...] = ("*",)
    exclude: tuple[str, ...] = ()

    def finds(self, root: str, folders: list[str]) -> bool:
        """Whether ``folders`` below ``root`` (one of ``roots``) are a package
        the project's build finds, namespace folders included."""
        if not folders or not self.namespaces or not all(f.isidentifier() for f in folders):
            return False
        if folders[0] in ("tests", "test"):  # a test suite keeps the names pytest gives its modules
            return False
        if root == self.flat and (folders[0] in FLAT_LAYOUT_RESERVED or folders[0][:1] in "._"):
            return False
        name = ".".join(folders)
        return any(fnmatchcase(name, p) for p in self.include) and not any(fnmatchcase(name, p) for p in self.exclude)


def _strings(value: Any, default: tuple[str, ...], what: str, manifest: str) -> tuple[str, ...]:
    if value is None:
        return default
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WorkspaceError(f"{manifest!r}: [tool.setuptools.packages.find] {what} must be a list of strings")
    return tuple(value)


def layout_of(manifest: str, data: dict[str, Any], has_src: bool) -> Layout:
    """The Layout a parsed pyproject.toml gives (``has_src``: a ``src/`` folder
    is beside it); a find table of the wrong shape is a WorkspaceError."""
    folder = manifest.rpartition("/")[0]
    tool = data.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    packages = setuptools.get("packages") if isinstance(setuptools, dict) else None
    find = packages.get("find") if isinstance(packages, dict) else None
    if find is not None and not isinstance(find, dict):
        raise WorkspaceError(f"{manifest!r}: [tool.setuptools.packages.find] must be a table")
    src = f"{folder}/src" if folder else "src"
    if find is None:
        return Layout(manifest, (src,), None, True) if has_src else Layout(manifest, (folder,), folder, True)
    namespaces = find.get("namespaces", True)
    if not isinstance(namespaces, bool):
        raise WorkspaceError(f"{manifest!r}: [tool.setuptools.packages.find] namespaces must be true or false")
    roots = []
    for where in _strings(find.get("where"), (".",), "where", manifest):
        rel = posixpath.normpath(posixpath.join(folder, where))
        if rel != ".." and not rel.startswith(("../", "/")):  # a folder outside the workspace names nothing here
            roots.append("" if rel == "." else rel)
    return Layout(manifest, tuple(roots), None, namespaces, _strings(find.get("include"), ("*",), "include", manifest),
                  _strings(find.get("exclude"), (), "exclude", manifest))


def source_entries(data: dict[str, Any], manifest: str) -> list[str]:
    """A parsed ``semaprax.toml``'s ``[project] sources`` as written (default
    ``["."]``): read here once for the files its views read (analysis/manifest.py)
    and the roots that name its modules (sources_layout). Of the wrong shape, a
    WorkspaceError."""
    table = data.get("project", {})
    value = table.get("sources", ["."]) if isinstance(table, dict) else ["."]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WorkspaceError(f"{manifest!r}: sources must be a list of paths")
    return value


def sources_layout(manifest: str, data: dict[str, Any]) -> Layout:
    """The Layout a parsed ``semaprax.toml`` gives: each folder of its
    ``[project] sources`` (default ``["."]``) is a source root, as a folder on
    ``sys.path`` is to Python, so the folders between it and a file are
    namespace packages (``sources = ["src"]``: ``src/acme/x.py`` is ``acme.x``
    without ``src/acme/__init__.py``). The manifest's own folder, as a root, is
    a flat layout (FLAT_LAYOUT_RESERVED names are not packages). A package named
    as a source (``sources = ["calculator"]``, with ``calculator/__init__.py``)
    names its modules as before: the folder above it is their root. A folder
    without ``__init__.py`` named as a source is a root itself (``sources =
    ["src/acme"]``: ``src/acme/user.py`` is ``user``, as Python imports it with
    ``src/acme`` on ``sys.path``; ``sources = ["src"]`` makes it ``acme.user``).
    Beside a pyproject.toml, that manifest's Layout names the modules instead
    (Workspace._layout_at). Sources of the wrong shape are a WorkspaceError."""
    folder = manifest.rpartition("/")[0]
    roots = []
    for entry in source_entries(data, manifest):
        rel = posixpath.normpath(posixpath.join(folder, entry))
        if rel != ".." and not rel.startswith(("../", "/")):
            roots.append("" if rel == "." else rel)
    return Layout(manifest, tuple(roots), folder, True)


@functools.cache
def _stdlib_names() -> frozenset[str]:
    """Top-level names of the standard library of any Python the project knows
    (analysis/_stdlib_modules.py, 3.10 to 3.14): bundled data, not the running
    interpreter's ``sys.stdlib_module_names``, so a workspace names its modules
    alike on every machine."""
    from analysis._stdlib_modules import TABLES
    return frozenset(name for names in TABLES.values() for name in names.split())


def _dotted(parts: list[str], start: int) -> str:
    """The module the file at ``parts`` (a path's parts) is, named from the
    folder ``parts[:start]`` on ``sys.path``: ``a/b/c.py`` from ``a`` is
    ``b.c``, ``a/b/__init__.py`` is ``b``; an __init__.py with no package
    above it is named for its folder."""
    folders, stem = parts[:-1], parts[-1][:-3]
    names = folders[start:] + ([] if stem == "__init__" else [stem])
    if not names:
        names = [folders[-1] if folders else stem]
    return ".".join(names)


def _from_workspace(root: str, module: str) -> str:
    """The name of ``module``, named from its folder ``root``, as Python names
    it with the workspace folder on ``sys.path`` (``a`` and ``util``: ``a.util``)."""
    return f"{root.replace('/', '.')}.{module}"


@dataclass(frozen=True)
class ModuleFile:
    path: str  # workspace-relative, '/' separators
    module: str
    is_package: bool
    #: The top-level names of the file's own root folder (the one Python puts on
    #: ``sys.path`` for it) that the workspace names otherwise, each with that name
    #: (``("util", "a.util")`` for ``a/main.py``): what a bare import in the file
    #: reaches (Workspace.imports_renamed). Empty for almost every file.
    renamed: tuple[tuple[str, str], ...] = ()


class Workspace:
    """A folder of Python sources. Paths in and out are workspace-relative with
    '/' separators, so views carry no absolute path."""

    def __init__(self, folder: str | os.PathLike[str] = ".", index_cache: IndexStore | None = None) -> None:
        self.folder = Path(folder)
        self.index_cache = index_cache
        if not self.folder.is_dir():
            raise WorkspaceError(f"workspace {str(folder)!r} is not a folder")
        self.read_files: dict[str, bytes] = {}
        self._listing: list[str] | None = None
        self._files: dict[str, bool] = {}
        self._clashes: tuple[dict[tuple[str, str], tuple[str, ...]], dict[str, tuple[str, ...]]] | None = None
        #: natural root -> {top-level name: (its name in the workspace, a file that gives it)}
        self._renames: dict[str, dict[str, tuple[str, str]]] | None = None
        #: Per folder: whether it holds a manifest and its Layout (None for
        #: an invalid one); and the bytes of each manifest read for it.
        self._layouts: dict[str, tuple[bool, Layout | None]] = {}
        self._manifests: dict[str, bytes] = {}
        self._root = self.folder.resolve()
        #: Why files were left out of the listing (a dangling symlink, one that
        #: leaves the workspace), one sentence each, in path order.
        self.notes: list[str] = []
        #: Files and folders left out because a view cannot name them (a name
        #: that is not UTF-8) or cannot read them (permissions): (their name as
        #: ``spelled`` spells it, why), in path order.
        self.skipped: list[tuple[str, str]] = []

    # --- paths --------------------------------------------------------------------

    def relative(self, root: str) -> str:
        """Normalize a user-given root path to workspace-relative form; a path
        that is not UTF-8 below the workspace is refused (check_nameable)."""
        path = Path(root)
        if path.is_absolute():
            try:
                path = path.resolve().relative_to(self.folder.resolve())
            except ValueError:
                raise WorkspaceError(f"{root!r} is outside the workspace {str(self.folder)!r}") from None
        normal = posixpath.normpath(path.as_posix())
        check_nameable(normal)
        if normal == ".":
            return ""
        if normal == ".." or normal.startswith("../"):
            raise WorkspaceError(f"{root!r} leaves the workspace")
        return normal

    def exists(self, rel: str) -> bool:
        return (self.folder / rel).exists()

    def is_dir(self, rel: str) -> bool:
        return (self.folder / rel).is_dir()

    def inside(self, rel: str) -> bool:
        """Whether the file, its symlinks followed, is in the workspace folder."""
        try:
            return (self.folder / rel).resolve().is_relative_to(self._root)
        except (OSError, RuntimeError):  # a symlink loop
            return False

    def read(self, rel: str) -> bytes:
        """The bytes of a workspace file, remembered for the revision. A symlink
        is followed only while it stays inside the workspace."""
        if rel not in self.read_files:
            if not self.inside(rel):
                raise WorkspaceError(f"{rel!r} is a symlink that leaves the workspace; it is not read")
            try:
                self.read_files[rel] = (self.folder / rel).read_bytes()
            except FileNotFoundError:
                if self._listing is not None and rel in self._listing:  # removed between listing and reading
                    raise WorkspaceError(f"cannot read {rel!r}: it was removed after the workspace was listed; "
                                         f"make the view again") from None
                raise WorkspaceError(f"cannot read {rel!r}: no such file") from None
            except OSError as exc:
                raise WorkspaceError(f"cannot read {rel!r}: {exc.strerror or exc}") from None
        return self.read_files[rel]

    def revision(self) -> str:
        return source_revision(self.read_files)

    # --- discovery ------------------------------------------------------------------

    def python_files(self, under: str = "") -> list[str]:
        """Every .py file below ``under`` (the whole workspace by default), in
        bytewise path order, skipping environment and tool folders."""
        if self._listing is None:
            found = []
            notes = []
            def unlisted(exc: OSError) -> None:  # a folder os.walk cannot list: left out, and said so
                if exc.filename is not None:
                    rel = Path(os.fsdecode(exc.filename)).relative_to(self.folder).as_posix()
                    self.skipped.append((spelled(rel), _cannot_read("folder", exc.errno)))

            for dirpath, dirnames, filenames in os.walk(self.folder, onerror=unlisted):  # symlinks not entered
                rel_dir = Path(dirpath).relative_to(self.folder).as_posix()
                kept = []
                for d in dirnames:
                    if d in SKIP_DIRS or d.startswith(".") or os.path.isfile(os.path.join(dirpath, d, "pyvenv.cfg")):
                        continue
                    if os.path.islink(os.path.join(dirpath, d)) and is_utf8(d):  # said, not silently missing
                        notes.append(f"skipped {d if rel_dir == '.' else f'{rel_dir}/{d}'}: a symlink to a "
                                     f"folder (not followed)")
                        continue
                    if not is_utf8(d):
                        rel = d if rel_dir == "." else f"{rel_dir}/{d}"
                        self.skipped.append((spelled(rel), "its name is not UTF-8"))
                        continue
                    kept.append(d)
                dirnames[:] = sorted(kept)
                for name in filenames:
                    if not name.endswith(".py") or name.startswith("."):
                        continue
                    rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                    if not is_utf8(name):
                        # a view names its files in UTF-8: this one is left out, and said so
                        self.skipped.append((spelled(rel), "its name is not UTF-8"))
                        continue
                    full = os.path.join(dirpath, name)
                    if os.path.islink(full):
                        if not os.path.exists(full):
                            notes.append(f"skipped {rel}: a symlink to nothing")
                            continue
                        if not self.inside(rel):
                            notes.append(f"skipped {rel}: a symlink that leaves the workspace")
                            continue
                    if not os.access(full, os.R_OK):  # one unreadable file does not take the others' views down
                        self.skipped.append((rel, _cannot_read("file", errno.EACCES)))
                        continue
                    found.append(rel)
            self._listing = sorted(found, key=lambda p: p.encode("utf-8"))
            self.skipped.sort(key=lambda s: s[0].encode("utf-8"))
            notes.extend(f"skipped {path}: {why}" for path, why in self.skipped)
            self.notes = sorted(notes, key=lambda n: n.encode("utf-8"))
            for note in self.notes:  # on stderr for a person at the command line (logging's last resort)
                _log.warning("semaprax: %s", note)
        if not under:
            return list(self._listing)
        prefix = under.rstrip("/") + "/"
        return [p for p in self._listing if p.startswith(prefix) or p == under]

    def module_of(self, rel: str) -> ModuleFile:
        """The module a file is, named by its path from its source root: the
        folder above the outermost folder holding an __init__.py. Folders
        between without one are namespace packages, as Python finds them
        (``flask/sansio/app.py`` is ``flask.sansio.app``, not ``app``).

        A file with no package above it is named from its own folder (a script,
        or a test module pytest imports by its base name), unless a file of
        another folder of the workspace gives the same top-level name (``a/util.py``
        and ``b/util.py``, or two folders' ``app`` packages): as with both
        folders on ``sys.path``, one would shadow the other, so that name's files
        in such folders are named as Python names them with the workspace folder
        on ``sys.path`` (``a.util`` and ``b.util``, each its own module), and a
        file of each other folder giving the name is read (so in the revision).
        A name from the workspace folder itself or a manifest's source root is
        kept. Where no dotted path names a folder (``my-scripts``), its files keep
        their names, and ``same_named`` says which files share one."""
        mf = self._module(rel, read=True)
        renamed = self.imports_renamed(rel)
        return ModuleFile(rel, mf.module, mf.is_package, renamed) if renamed else mf

    def _module(self, rel: str, read: bool) -> ModuleFile:
        """``module_of`` without ``renamed``; with ``read``, the files its name
        depends on are read."""
        mf, root, fixed = self._named(rel, read=read)
        if not root or fixed:  # named from the workspace folder or a manifest's root: as it is
            return mf  # (and no listing of the workspace is needed to say so)
        renamed, _ambiguous = self._same_names()
        witnesses = renamed.get((root, mf.module.partition(".")[0]))
        if witnesses is not None:
            if read:
                for other in witnesses:
                    self.read(other)
            return ModuleFile(rel, _from_workspace(root, mf.module), mf.is_package)
        if read:
            self.same_named(rel)  # (read: the name is shared because of them)
        return mf

    def imports_renamed(self, rel: str) -> tuple[tuple[str, str], ...]:
        """What a bare absolute import in ``rel`` reaches where the workspace
        names it otherwise: Python puts a script's own folder first on
        ``sys.path`` (and pytest's default ``prepend`` import mode a test file's
        first folder without ``__init__.py``; for a module of a package, the
        folder above its outermost package), so ``import util`` in ``a/main.py``
        is ``a/util.py``, named ``a.util`` beside ``b/util.py``, and ``from
        app.models import save`` in ``backend/app/views.py`` is
        ``backend.app.models``. Each top-level name of that folder whose modules
        are named otherwise (``module_of``), with the name they have, sorted; a
        file giving each is read (the mapping changes with it). Empty where the
        folder is the workspace folder or nothing in it is renamed. A name of
        the standard library keeps its meaning (``types.py`` in a namespace
        package ``src/acme``: its siblings, imported as ``acme.x``, reach the
        standard library's ``types`` with ``import types``)."""
        root = self._natural(rel.split("/")[:-1], read=False)
        if not root:
            return ()
        if self._renames is None:
            table: dict[str, dict[str, tuple[str, str]]] = {}
            for p in self.python_files():
                natural_root = self._natural(p.split("/")[:-1], read=False)
                if not natural_root:
                    continue
                natural = _dotted(p.split("/"), len(natural_root.split("/")))
                actual = self._module(p, read=False).module
                top = natural.partition(".")[0]
                if actual != natural and actual.endswith("." + natural) and top not in _stdlib_names():
                    table.setdefault(natural_root, {}).setdefault(top, (actual[:-len(natural)] + top, p))
            self._renames = table
        found = self._renames.get(root)
        if not found:
            return ()
        for _name, witness in found.values():  # the mapping holds while it is there, so named
            self.read(witness)
            self._module(witness, read=True)
        return tuple(sorted(((top, name) for top, (name, _w) in found.items()), key=lambda t: t[0].encode()))

    def _natural(self, folders: list[str], read: bool) -> str:
        """The folder Python puts on ``sys.path`` for a file in ``folders``: the
        one above its outermost package (``__init__.py``), else its own. A
        folder whose name is no identifier (``weird.py/``, ``my-data/``, or a
        keyword: ``def/``) is no package, whatever it holds: no import can spell
        it, so the packages counted are those below it."""
        outermost = None
        floor = max((i + 1 for i, f in enumerate(folders) if not f.isidentifier() or keyword.iskeyword(f)),
                    default=0)
        for depth in range(len(folders), floor, -1):
            init = "/".join(folders[:depth]) + "/__init__.py"
            if self._is_file(init):
                # The module's name depends on this file: it is read, so the
                # revision changes when it goes away.
                if read:
                    self.read(init)
                outermost = depth
        return "/".join(folders[:outermost - 1 if outermost is not None else len(folders)])

    def same_named(self, rel: str) -> tuple[str, ...]:
        """The other files of the workspace that are the same module as ``rel``
        (named from folders that no dotted path from the workspace folder
        names, or one from the workspace folder): a name in it may be either
        file's. They are read (so in the revision)."""
        mf, root, _ = self._named(rel, read=False)
        renamed, ambiguous = self._same_names()
        name = mf.module
        if (root, name.partition(".")[0]) in renamed:
            name = _from_workspace(root, name)
        others = tuple(p for p in ambiguous.get(name, ()) if p != rel)
        for other in others:
            self.read(other)
        return others

    def _same_names(self) -> tuple[dict[tuple[str, str], tuple[str, ...]], dict[str, tuple[str, ...]]]:
        """Over the workspace's listing, once: the (folder, top-level name)
        pairs whose files are named from the workspace folder instead, each with
        a file of every other folder that gives the name; and the names still
        shared by several files (name -> paths)."""
        if self._clashes is None:
            named = {p: self._named(p, read=False) for p in self.python_files()}
            givers: dict[str, dict[str, str]] = {}  # top-level name -> folder -> its first file
            for p, (mf, root, _fixed) in named.items():
                givers.setdefault(mf.module.partition(".")[0], {}).setdefault(root, p)
            renamed: dict[tuple[str, str], tuple[str, ...]] = {}
            for top, roots in givers.items():
                if len(roots) < 2:
                    continue
                for root in roots:
                    fixed = named[roots[root]][2]  # a manifest's source root (all its files alike)
                    if root and not fixed and all(part.isidentifier() for part in root.split("/")):
                        renamed[(root, top)] = tuple(sorted((f for r, f in roots.items() if r != root),
                                                            key=str.encode))
            final: dict[str, list[str]] = {}
            for p, (mf, root, _fixed) in named.items():
                name = mf.module
                if (root, name.partition(".")[0]) in renamed:
                    name = _from_workspace(root, name)
                final.setdefault(name, []).append(p)
            self._clashes = (renamed, {n: tuple(ps) for n, ps in final.items() if len(ps) > 1})
        return self._clashes

    def _named(self, rel: str, read: bool) -> tuple[ModuleFile, str, bool]:
        """The module ``rel`` is when named from its own source root, that root
        (its folders joined by '/'), and whether a manifest's Layout chose it.
        With ``read``, the files the name depends on are read (the revision)."""
        parts = rel.split("/")
        folders = parts[:-1]
        # with no package above, the file's own folder is its root (as for a
        # script, or a test module that pytest imports by its base name)
        natural = self._natural(folders, read)
        start = len(natural.split("/")) if natural else 0
        start, fixed = self._named_from(folders, start, read)
        return ModuleFile(rel, _dotted(parts, start), parts[-1] == "__init__.py"), "/".join(folders[:start]), fixed

    def _named_from(self, folders: list[str], start: int, read: bool = True) -> tuple[int, bool]:
        """Where a file's name starts once its project is known, and whether
        the manifest chose it: below a pyproject.toml (or a semaprax.toml alone),
        folders between a source root of its Layout and the outermost package
        (or the file) are a namespace package, as Python names it with that root
        on sys.path (``src/acme/tools/leaf.py`` is ``acme.tools.leaf``, with no
        ``src/acme/__init__.py``). The manifest is read (so in the revision)
        whenever it is asked about the file's folders."""
        layout = self.layout(folders[:start])
        if layout is None:
            return start, False
        # the deepest root the file is under names it (``src`` before the folder above it)
        for root in sorted(layout.roots, key=lambda r: -len(r.split("/")) if r else 0):
            parts = root.split("/") if root else []
            if len(parts) < start and folders[:len(parts)] == parts:
                # asked about these folders, the manifest decides the name either way
                if read:
                    self.read_files.setdefault(layout.manifest, self._manifests[layout.manifest])
                if layout.finds(root, folders[len(parts):start]):
                    return len(parts), True
                return start, False
        return start, "/".join(folders[:start]) in layout.roots

    def layout(self, folders: list[str]) -> Layout | None:
        """The Layout of the nearest manifest (semaprax.toml, pyproject.toml) in ``folders`` (a path as its
        parts) or a folder above it, inside the workspace; None without one, or
        when it is not a valid manifest (the views that load it say why)."""
        for depth in range(len(folders), -1, -1):
            where = "/".join(folders[:depth])
            found = self._layouts.get(where)
            if found is None:
                found = self._layouts[where] = self._layout_at(where)
            if found[0]:
                return found[1]
        return None

    def _layout_at(self, where: str) -> tuple[bool, Layout | None]:
        """Whether ``where`` holds a manifest, and its Layout: a
        pyproject.toml's (how the project is packaged: a semaprax.toml beside
        it chooses the files its views read, not the modules' names, so a view
        of either gives a file one name), else a semaprax.toml's (its
        ``sources``, each a folder on ``sys.path``)."""
        held = False
        for name in ("pyproject.toml", "semaprax.toml"):
            manifest = f"{where}/{name}" if where else name
            if self._is_file(manifest):
                held = True
                layout = self._parse_layout(where, manifest)
                if layout is not None:  # (a pyproject.toml that is not TOML: the semaprax.toml's)
                    return True, layout
        return held, None

    def _parse_layout(self, where: str, manifest: str) -> Layout | None:
        import tomllib  # only a workspace with a manifest pays for it (tests/test_imports.py)
        try:
            data = self._manifests.get(manifest)
            if data is None:
                data = self._manifests[manifest] = (self.folder / manifest).read_bytes()
            parsed = tomllib.loads(data.decode("utf-8"))
            if manifest.endswith("semaprax.toml"):
                return sources_layout(manifest, parsed)
            return layout_of(manifest, parsed, (self.folder / where / "src").is_dir())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, WorkspaceError):
            return None

    def stub_of(self, rel: str) -> bytes | None:
        """The ``.pyi`` stub beside a ``.py`` file (read, so in the revision), or None."""
        stub = rel.removesuffix(".py") + ".pyi"
        return self.read(stub) if rel.endswith(".py") and self._is_file(stub) else None

    def _is_file(self, rel: str) -> bool:
        """Whether ``rel`` is a file of the workspace a view can read (one that
        cannot be read is left out as the listing leaves it out)."""
        found = self._files.get(rel)
        if found is None:
            path = self.folder / rel
            try:
                found = path.is_file() and self.inside(rel) and os.access(path, os.R_OK)
            except OSError:  # a folder on its way that cannot be searched
                found = False
            self._files[rel] = found
        return found
