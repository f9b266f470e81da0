"""A user's pass over odd but valid workspaces (issue 22): what tripped, each a
case that failed before its fix."""

from __future__ import annotations

import importlib
import json
import os
import pickle
import pkgutil
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import analysis
import views
from analysis import filecache
from analysis.sources import Workspace
from views import PRODUCERS


def test_an_unknown_coding_declaration_is_placed_at_line_1_column_1(tmp_path):
    # Python places it at line 0, column -1; a view's rows count from 1
    (tmp_path / "bad.py").write_bytes(b"# coding: nonesuch\nx = 1\n")
    for profile in ("graph", "diagnostics"):
        _, view = PRODUCERS[profile](Workspace(tmp_path), "bad.py")
        text = json.dumps(view)
        assert "[1, 1, \"syntax error: unknown encoding: nonesuch\"]" in text, text
        assert "-1" not in text


def _as_nobody(fn: Callable[[], Any]) -> Any:
    """``fn()`` as a user who cannot read what mode 000 forbids: in a child
    process that drops root's rights (root reads every file), else here."""
    if os.geteuid() != 0:
        return fn()
    # the child cannot read what a checkout in a private folder holds (mktemp -d is mode 700):
    # every module the views may import lazily is imported while the rights are root's
    for package in (analysis, views):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            out = pickle.dumps(("ok", fn()))
        except BaseException as exc:  # noqa: BLE001 - said to the parent
            out = pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))
        with os.fdopen(write, "wb") as f:
            f.write(out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    status, value = pickle.loads(data)
    assert status == "ok", value
    return value


VIEWS = [("project-graph", "pyproject.toml"), ("diagnostics", "pyproject.toml"), ("symbols", "pkg"),
         ("references", "pkg.ok.a"), ("task-context", "pkg.ok.a")]


def _workspace(folder: Path) -> None:
    (folder / "pkg" / "locked").mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "perm"\n')
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "ok.py").write_text("def a():\n    return 1\n")
    (folder / "pkg" / "user.py").write_text("from pkg.ok import a\n\n\ndef b():\n    return a()\n")


def _views(folder: Path) -> dict[str, Any]:
    return {f"{p} {r}": PRODUCERS[p](Workspace(folder), r)[1] for p, r in VIEWS}


def test_an_unreadable_file_or_folder_is_skipped_and_the_other_files_views_are_unaffected(monkeypatch):
    monkeypatch.setattr(filecache, "use_disk", False)
    base = Path(tempfile.mkdtemp(prefix="semaprax-user22-"))
    clean, odd = base / "clean", base / "odd"
    try:
        _workspace(clean)
        _workspace(odd)
        expected = _views(clean)  # (and every module the views import, before the child drops its rights)
        (odd / "pkg" / "secret.py").write_text("from pkg.ok import a\n\n\ndef s():\n    return a()\n")
        (odd / "pkg" / "locked" / "h.py").write_text("from pkg.ok import a\nA = a()\n")
        for path in [base, *base.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (odd / "pkg" / "secret.py").chmod(0)
        (odd / "pkg" / "locked").chmod(0)
        got = _as_nobody(lambda: _views(odd))
    finally:
        (odd / "pkg" / "locked").chmod(0o755)
        shutil.rmtree(base)
    # said where the whole project is checked, and nowhere else
    assert got.pop("diagnostics pyproject.toml")["files"] == {
        "pkg/locked": {"skipped-file": [[1, 1, "skipped: the folder cannot be read: permission denied"]]},
        "pkg/secret.py": {"skipped-file": [[1, 1, "skipped: the file cannot be read: permission denied"]]}}
    assert expected.pop("diagnostics pyproject.toml")["files"] == {}
    assert got == expected
    assert "pkg/user.py" in got["references pkg.ok.a"]["files"]


def test_a_symlinked_folder_is_said_to_be_skipped_and_a_looping_root_is_named_a_loop(tmp_path):
    from analysis.sources import WorkspaceError

    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "m.py").write_text("X = 1\n")
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    (tmp_path / "loop1.py").symlink_to("loop2.py")
    (tmp_path / "loop2.py").symlink_to("loop1.py")
    ws = Workspace(tmp_path)
    assert ws.python_files() == ["real/m.py"]
    assert "skipped linked: a symlink to a folder (not followed)" in ws.notes
    with pytest.raises(WorkspaceError, match=r"^folder 'linked' is a symlink to a folder \(not followed\)$"):
        PRODUCERS["symbols"](ws, "linked")
    try:
        PRODUCERS["graph"](ws, "loop1.py")
    except WorkspaceError as exc:
        assert str(exc).startswith("root 'loop1.py' is a symlink to nothing (a loop, or a target that is gone)")
    else:
        raise AssertionError("a looping root gave a view")


def test_a_folder_whose_name_is_no_identifier_is_no_package_whatever_it_holds(tmp_path):
    # ``import pkg.weird.py.inner`` cannot be written: before, the file was named so
    files = {"pkg/__init__.py": "", "pkg/weird.py/inner.py": "def inner():\n    return 1\n",
             "pkg/my-data/__init__.py": "", "pkg/my-data/sub/__init__.py": "", "pkg/my-data/sub/x.py": "X = 1\n",
             "pkg/ok/__init__.py": "", "pkg/ok/y.py": "Y = 1\n",
             "pkg/class/__init__.py": "", "pkg/class/z.py": "Z = 1\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ws = Workspace(tmp_path)
    names = {p: ws.module_of(p).module for p in ws.python_files()}
    assert names == {"pkg/__init__.py": "pkg", "pkg/my-data/__init__.py": "my-data", "pkg/my-data/sub/__init__.py": "sub",
                     "pkg/my-data/sub/x.py": "sub.x", "pkg/ok/__init__.py": "pkg.ok", "pkg/ok/y.py": "pkg.ok.y",
                     "pkg/weird.py/inner.py": "inner", "pkg/class/__init__.py": "class", "pkg/class/z.py": "z"}
    _, view = PRODUCERS["references"](Workspace(tmp_path), "inner.inner")
    assert view["defined"] == ["pkg/weird.py/inner.py", 1]
