"""References the resolver lists, one test per rule added for references
recall against jedi (docs/performance.md, "References recall, a wider tune
half"): each source is a small case of a miss found on the tune half's packages."""

from __future__ import annotations

from pathlib import Path

from analysis.index import WorkspaceIndex
from analysis.sources import Workspace
from tests.workspacekit import write_files


def _index(tmp_path: Path, files: dict[str, str]) -> WorkspaceIndex:
    write_files(tmp_path, {"pkg/__init__.py": "", **files})
    ws = Workspace(tmp_path)
    return WorkspaceIndex(ws, ws.python_files())


def _lines(index: WorkspaceIndex, qualname: str) -> list[tuple[str, int]]:
    """Where ``qualname`` is used (calls, references, inheritance), as jedi's references list them."""
    return sorted({(a.module, u.line) for a, u in index.uses_of(qualname)})


def test_a_class_bound_again_in_a_branch_is_not_another_name_of_the_other_class(tmp_path: Path) -> None:
    # ``HTTPSConnection = DummyConnection`` under ``if not ssl`` binds the name
    # a second time: it is not another name of DummyConnection everywhere
    index = _index(tmp_path, {"pkg/conn.py": (
        "ssl = None\n"
        "class Dummy:\n    pass\n"
        "class Secure:\n    pass\n"
        "if not ssl:\n"
        "    Secure = Dummy\n"
        "Verified = Secure\n"                       # 8
        "def check(c: object) -> bool:\n"
        "    return isinstance(c, Secure)\n"        # 10
    ), "pkg/user.py": "from pkg.conn import Secure\n\n\nclass Sub(Secure):\n    pass\n"})
    assert _lines(index, "pkg.conn.Secure") == [("pkg.conn", 8), ("pkg.conn", 10), ("pkg.user", 1), ("pkg.user", 4)]
    assert ("pkg.conn", 10) not in _lines(index, "pkg.conn.Dummy")
