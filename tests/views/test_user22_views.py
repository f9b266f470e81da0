"""Views over real projects as a user meets them (issue 22's user pass), each a
case that failed before its fix."""

from __future__ import annotations

import os

import pytest

from analysis import filecache
from analysis.sources import Workspace, WorkspaceError
from views import PRODUCERS


def test_typesheds_own_module_under_type_checking_is_no_unresolved_import(tmp_path, monkeypatch):
    # click/testing.py: from _typeshed import ReadableBuffer, under TYPE_CHECKING
    monkeypatch.setattr(filecache, "use_disk", False)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "__init__.py").write_text(
        "import typing as t\nif t.TYPE_CHECKING:\n    from _typeshed import ReadableBuffer\n    import nowhere\n\n\n"
        "def f(b: 'ReadableBuffer') -> 'nowhere.X':\n    return b\n")
    _, view = PRODUCERS["diagnostics"](Workspace(tmp_path), "pyproject.toml")
    assert view["files"] == {"p/__init__.py": {"unresolved-import": [[4, 1, "cannot resolve import of 'nowhere'"]]}}


@pytest.mark.parametrize("profile, root", [("project-graph", "pyproject.toml"), ("diagnostics", "pyproject.toml"),
                                           ("symbols", "pkg"), ("references", "pkg.a.a"), ("task-context", "pkg.a.a")])
def test_a_file_removed_after_the_listing_is_named_and_the_view_is_asked_again(tmp_path, monkeypatch, profile, root):
    monkeypatch.setattr(filecache, "use_disk", False)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "race"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("def a():\n    return 1\n")
    (tmp_path / "pkg" / "b.py").write_text("from pkg.a import a\nx = a()\n")
    ws = Workspace(tmp_path)
    ws.python_files()
    os.remove(tmp_path / "pkg" / "b.py")
    with pytest.raises(WorkspaceError) as info:
        PRODUCERS[profile](ws, root)
    assert str(info.value) == ("cannot read 'pkg/b.py': it was removed after the workspace was listed; "
                               "make the view again")
    _, again = PRODUCERS[profile](Workspace(tmp_path), root)  # asked again, it is made without the file
    assert "pkg/b.py" not in str(again)


@pytest.mark.parametrize("profile", ["references", "task-context"])
def test_a_symbol_spelled_as_its_source_spells_it_is_found_as_python_reads_it(tmp_path, monkeypatch, profile):
    # Python reads identifiers in NFKC: ``def ﬁnd`` defines ``find``, and ``ﬁnd`` copied from the source names it
    monkeypatch.setattr(filecache, "use_disk", False)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("def \ufb01nd():\n    return 1\n")
    (tmp_path / "pkg" / "b.py").write_text("from pkg.a import \ufb01nd\n\n\ndef g():\n    return find()\n")
    root, view = PRODUCERS[profile](Workspace(tmp_path), "pkg.a.\ufb01nd")
    assert root == "pkg.a.find" and view["symbol"] == "pkg.a.find"
    assert "pkg/b.py" in str(view)
