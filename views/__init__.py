"""One producer per profile: ``produce(workspace, root) -> (normalized root,
JSON value)``, each a pure function of the files it reads.

Each profile module builds the view's long form (fully qualified names, edges
apart, flat rows); ``shapes`` rewrites it into the shape a reader is sent, and
``expand`` gives the long form back exactly. ``LONG_PRODUCERS`` keeps the long
forms callable, so the cost of the old shapes stays measurable.

The registries import a profile's module on first use, not with this package: a
graph request loads ``views.graph`` and what it reads, not the workspace index,
the manifest reader or the other views (tests/test_imports.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from codec.names import PROFILES

if TYPE_CHECKING:
    from analysis.sources import Workspace

Producer = Callable[["Workspace", str], "tuple[str, Any]"]

#: The profiles, in the registries' order (the wire's, docs/wire-format.md §1).
PROFILE_NAMES: tuple[str, ...] = PROFILES

#: The profiles whose producer builds the workspace index (analysis/index.py): the
#: ones that analysis.index's settings (progress, ``--jobs``) and the per-file cache
#: (analysis/filecache.py, ``--no-cache``) apply to. graph and symbols analyse
#: the files they read one by one.
INDEXED: frozenset[str] = frozenset({"task-context", "project-graph", "references", "diagnostics"})


def profile_module(profile: str) -> ModuleType:
    """The module of ``profile``'s long producer, imported now if it was not."""
    if profile == "graph":
        from views import graph

        return graph
    if profile == "task-context":
        from views import task_context

        return task_context
    if profile == "project-graph":
        from views import project_graph

        return project_graph
    if profile == "symbols":
        from views import symbols

        return symbols
    if profile == "references":
        from views import references

        return references
    if profile == "diagnostics":
        from views import diagnostics

        return diagnostics
    raise KeyError(profile)


def _long(profile: str) -> Producer:
    produce: Producer = profile_module(profile).produce
    return produce


def _shaped(profile: str) -> Producer:
    long = _long(profile)
    from views.shapes import COMPACT

    compact = COMPACT.get(profile)
    if compact is None:
        return long

    def produce(ws: Workspace, root: str) -> tuple[str, Any]:
        normalized, value = long(ws, root)
        return normalized, compact(value)

    produce.__doc__ = f"The {profile} view in its compact shape (views/shapes.py)."
    return produce


class _Registry(Mapping[str, Producer]):
    """Profile -> producer, each made (and its module imported) on first lookup;
    iteration, ``len`` and ``in`` import nothing."""

    def __init__(self, make: Callable[[str], Producer]) -> None:
        self._make = make
        self._made: dict[str, Producer] = {}

    def __getitem__(self, profile: str) -> Producer:
        found = self._made.get(profile)
        if found is None:
            if profile not in PROFILE_NAMES:
                raise KeyError(profile)
            found = self._made[profile] = self._make(profile)
        return found

    def __contains__(self, profile: object) -> bool:
        return profile in PROFILE_NAMES

    def __iter__(self) -> Iterator[str]:
        return iter(PROFILE_NAMES)

    def __len__(self) -> int:
        return len(PROFILE_NAMES)

    def __repr__(self) -> str:
        return f"<producers of {', '.join(PROFILE_NAMES)}>"


LONG_PRODUCERS: Mapping[str, Producer] = _Registry(_long)
PRODUCERS: Mapping[str, Producer] = _Registry(_shaped)
