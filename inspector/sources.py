"""The source files a view covers, and what they cost, for the first screen's
"against reading the code" row: the saving an agent gets is the view against
the files it stands for. No Textual in it.

Sources are at hand when the view was produced live (``--profile``), when a
workspace was given (``--workspace``), or when the wire's root resolves under
the current folder and its ``source_revision`` still matches (a root such as
``semaprax.toml`` resolves under many folders, so there the revision must
match). The producer is run again on the workspace to learn which files it
reads (the revision covers exactly those, docs/wire-format.md §2); each file is
counted on its own, as an agent reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from textual.message import Message

from .model import Loaded


@dataclass(frozen=True)
class SourceCosts:
    """The files a view covers with their bytes and tokens (summed per file)."""

    workspace: str
    files: tuple[str, ...]
    size: int
    tokens: dict[str, int]
    revision: str  # of the files as they are now
    changed: bool  # the wire's source_revision is not theirs: the sources changed since it was made
    note: str = ""


@dataclass
class SourcesCounted(Message):
    """The worker counted the sources of ``source`` (None: no sources at hand, ``why``)."""

    source: Loaded
    costs: SourceCosts | None
    why: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def where_sources_are(loaded: Loaded, workspace: str | None, cwd: str = ".") -> tuple[str, str, str, bool] | None:
    """(profile, root, workspace, must_match) for the loaded view, or None when
    no sources are at hand."""
    if loaded.produced_from is not None:
        profile, path = loaded.produced_from
        if workspace is None:
            p = Path(path)
            return profile, p.name, str(p.parent) if p.parent != Path("") else ".", False
        return profile, path, workspace, False
    if loaded.metadata is None or loaded.form == "json":
        return None
    profile, root = loaded.metadata[0], loaded.metadata[1]
    if workspace is not None:
        return profile, root, workspace, False
    if root and (Path(cwd) / root).exists():
        return profile, root, cwd, True
    return None


def source_costs(loaded: Loaded, workspace: str | None, cwd: str = ".") -> tuple[SourceCosts | None, str]:
    """The sources' costs, or None and why there are none."""
    from analysis.sources import Workspace
    from views import PRODUCERS, tokens

    found = where_sources_are(loaded, workspace, cwd)
    if found is None:
        return None, "no sources at hand (--profile, --workspace, or a root under the current folder)"
    profile, root, folder, must_match = found
    if profile not in PRODUCERS:
        return None, f"no producer for profile {profile!r}"
    ws = Workspace(folder)
    try:
        PRODUCERS[profile](ws, root)
    except Exception as exc:  # noqa: BLE001 - any refusal: no sources row, and why
        return None, f"the sources could not be read: {exc}"
    revision = ws.revision()
    declared = loaded.metadata[2] if loaded.metadata is not None else revision
    changed = declared != revision
    if must_match and changed:
        return None, "a root of that name is under the current folder, but its sources are not the wire's"
    total = {name: 0 for name in tokens.ENCODING_NAMES}
    for data in ws.read_files.values():
        for name, n in tokens.count_tokens(data).items():
            total[name] += n
    files = tuple(sorted(ws.read_files))
    size = sum(len(d) for d in ws.read_files.values())
    return SourceCosts(folder, files, size, total, revision, changed), ""


def ratio(form_tokens: int, source_tokens: int) -> str:
    """A form's tokens against the sources' (``0.42x``)."""
    return f"{form_tokens / source_tokens:.2f}x" if source_tokens else ""


__all__ = ["SourceCosts", "SourcesCounted", "ratio", "source_costs", "where_sources_are"]
