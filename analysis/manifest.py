"""Project manifests: ``semaprax.toml`` (``[project] name``, ``sources``) and a
plain ``pyproject.toml`` (its ``[project]`` table and the packages beside it)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from typing import Any

from analysis.sources import Workspace, WorkspaceError, is_utf8, layout_of, source_entries

MANIFEST_NAMES = ("semaprax.toml", "pyproject.toml")


@dataclass(frozen=True)
class Project:
    name: str
    manifest: str  # workspace-relative path of the manifest
    folder: str  # workspace-relative folder of the manifest ('' for the top)
    sources: tuple[str, ...]  # workspace-relative .py files, bytewise order
    dependencies: tuple[str, ...]  # declared distribution names, normalized
    scripts: tuple[tuple[str, str], ...]  # (command, "module:function")
    requires_python: str | None = None  # [project] requires-python, as written
    #: distribution names declared for extras and groups ([project.optional-dependencies],
    #: PEP 735 [dependency-groups]: a test suite's pytest), normalized, bytewise order
    optional_dependencies: tuple[str, ...] = ()


def _join(folder: str, rel: str) -> str:
    return f"{folder}/{rel}" if folder else rel


def load_project(ws: Workspace, manifest: str) -> Project:
    """Read a manifest (recorded as read) and list its source files."""
    name = manifest.rsplit("/", 1)[-1]
    if name not in MANIFEST_NAMES:
        raise WorkspaceError(f"{manifest!r} is not a project manifest (semaprax.toml or pyproject.toml)")
    if not ws.exists(manifest):
        raise WorkspaceError(f"manifest {manifest!r} does not exist in the workspace")
    folder = manifest.rpartition("/")[0]
    try:
        data = tomllib.loads(ws.read(manifest).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"{manifest!r} is not valid TOML: {exc}") from None
    table = data.get("project", {})
    if not isinstance(table, dict):
        raise WorkspaceError(f"{manifest!r}: [project] must be a table")
    name_value = table.get("name")
    if name_value is not None and not isinstance(name_value, str):
        raise WorkspaceError(f"{manifest!r}: [project] name must be a string")
    project_name = name_value or (folder.rsplit("/", 1)[-1] if folder else "project")
    if name == "semaprax.toml":
        roots = source_entries(data, manifest)
    else:
        roots = _packages_beside(ws, folder, data, manifest)
    files: set[str] = set()
    for root in roots:
        rel = ws.relative(_join(folder, root))
        if not ws.exists(rel):
            raise WorkspaceError(f"{manifest!r}: source {root!r} does not exist")
        files.update(ws.python_files(rel) if ws.is_dir(rel) else [rel])
    excluded = _excluded(data, name, manifest)
    if excluded:
        prefixes = tuple(ws.relative(_join(folder, e)).rstrip("/") for e in excluded)
        files = {f for f in files if not any(f == p or f.startswith(p + "/") for p in prefixes)}
    raw_deps = table.get("dependencies", [])
    if not isinstance(raw_deps, list) or not all(isinstance(d, str) for d in raw_deps):
        raise WorkspaceError(f"{manifest!r}: [project] dependencies must be a list of strings")
    raw_scripts = table.get("scripts") or {}
    if not isinstance(raw_scripts, dict) or not all(isinstance(v, str) for v in raw_scripts.values()):
        raise WorkspaceError(f"{manifest!r}: [project.scripts] must map command names to 'module:function'")
    requires = table.get("requires-python")
    if requires is not None and not isinstance(requires, str):
        raise WorkspaceError(f"{manifest!r}: [project] requires-python must be a string")
    dependencies = tuple(sorted({_distribution(d) for d in raw_deps}))
    scripts = tuple(sorted((str(k), v) for k, v in raw_scripts.items()))
    return Project(project_name, manifest, folder, tuple(sorted(files, key=lambda p: p.encode())),
                   dependencies, scripts, requires, _optional(table, data, manifest))


def _excluded(data: dict, name: str, manifest: str) -> list[str]:
    """Paths the manifest leaves out of its sources: ``exclude`` under
    ``[project]`` of a semaprax.toml, or ``[tool.semaprax]`` of a pyproject.toml
    (a virtual environment under another name than one holding pyvenv.cfg, say)."""
    table = data.get("project", {}) if name == "semaprax.toml" else data.get("tool", {}).get("semaprax", {})
    value = table.get("exclude", []) if isinstance(table, dict) else []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WorkspaceError(f"{manifest!r}: exclude must be a list of paths")
    return value


#: Folders beside a pyproject.toml that hold the project's tests: they are
#: sources too (a function's references include the test that calls it).
TEST_FOLDERS = ("tests", "test")


def _packages_beside(ws: Workspace, folder: str, data: dict[str, Any], manifest: str) -> list[str]:
    """Top-level packages and modules next to a pyproject.toml, the packages
    under its src/ folder, and its tests/ (or test/) folder, package or not:
    the usual layouts (``pkg/``, ``src/pkg/``, ``tests/``). A folder without
    ``__init__.py`` under a source root of the project's Layout is a namespace
    package (PEP 420) when it holds Python files and the build would find it
    (analysis/sources.py, Layout.finds). A name that is not UTF-8 is left out
    here; the listing says so (sources.Workspace.skipped)."""
    base = ws.folder / folder if folder else ws.folder
    layout = layout_of(manifest, data, (base / "src").is_dir())
    tops = [base, base / "src"]
    tops += [t for t in (ws.folder / r if r else ws.folder for r in layout.roots)
             if t not in tops and t.is_relative_to(base)]  # a where beside the project is not its source
    found = []
    for top in tops:
        if not top.is_dir():
            continue
        top_rel = top.relative_to(ws.folder).as_posix()
        top_rel = "" if top_rel == "." else top_rel
        for child in sorted(top.iterdir()):
            if not is_utf8(child.name):
                continue
            tests = child.is_dir() and top == base and child.name in TEST_FOLDERS
            package = (child / "__init__.py").is_file() and child.name not in TEST_FOLDERS
            module = child.suffix == ".py" and child.is_file() and top == base and child.name != "setup.py"
            namespace = (not package and child.is_dir() and top_rel in layout.roots
                         and layout.finds(top_rel, [child.name])
                         and bool(ws.python_files(_join(top_rel, child.name))))
            if tests or package or module or namespace:
                found.append(child.relative_to(base).as_posix())
    return found


def _optional(table: dict[str, Any], data: dict[str, Any], manifest: str) -> tuple[str, ...]:
    """The distributions of ``[project.optional-dependencies]`` (extra -> list of
    requirements) and PEP 735 ``[dependency-groups]`` (group -> list of
    requirements and ``{include-group = NAME}`` tables, which name no new one)."""
    names: set[str] = set()
    extras = table.get("optional-dependencies", {})
    if not isinstance(extras, dict) or not all(
            isinstance(v, list) and all(isinstance(r, str) for r in v) for v in extras.values()):
        raise WorkspaceError(f"{manifest!r}: [project.optional-dependencies] must map extras to lists of strings")
    names.update(_distribution(r) for v in extras.values() for r in v)
    groups = data.get("dependency-groups", {})
    if not isinstance(groups, dict) or not all(
            isinstance(v, list) and all(isinstance(r, str) or (isinstance(r, dict) and list(r) == ["include-group"]
                                                               and isinstance(r["include-group"], str)) for r in v)
            for v in groups.values()):
        raise WorkspaceError(f"{manifest!r}: [dependency-groups] must map groups to lists of requirement strings "
                             f"and {{include-group = \"name\"}} tables (PEP 735)")
    names.update(_distribution(r) for v in groups.values() for r in v if isinstance(r, str))
    names.update(_poetry(data, manifest))
    return tuple(sorted(names, key=str.encode))


def _poetry(data: dict[str, Any], manifest: str) -> set[str]:
    """Poetry's own tables, keyed by distribution name: ``[tool.poetry.dependencies]``,
    ``[tool.poetry.dev-dependencies]`` and ``[tool.poetry.group.NAME.dependencies]``."""
    tool = data.get("tool", {})
    poetry = tool.get("poetry", {}) if isinstance(tool, dict) else {}
    if not isinstance(poetry, dict):
        return set()
    tables = [poetry.get("dependencies", {}), poetry.get("dev-dependencies", {})]
    groups = poetry.get("group", {})
    if isinstance(groups, dict):
        tables += [g.get("dependencies", {}) for g in groups.values() if isinstance(g, dict)]
    if not all(isinstance(t, dict) for t in tables):
        raise WorkspaceError(f"{manifest!r}: [tool.poetry] dependencies must be tables of distribution names")
    return {_distribution(name) for t in tables for name in t if name != "python"}


def _distribution(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else requirement
