"""What tripped a user of ``semaprax project`` (issue 22's user pass), each a
case that failed before its fix."""

from __future__ import annotations

import pytest

from semaprax.cli import main
from servers.roots import ROOT_KINDS


def test_project_help_says_what_root_each_profile_takes(capsys):
    with pytest.raises(SystemExit):
        main(["project", "--help"])
    out = capsys.readouterr().out
    for profile, kind in ROOT_KINDS.items():
        assert f"  {profile:<14} {kind}\n" in out
    assert "semaprax project pkg.core.Engine.run --profile task-context" in out


def test_a_folder_without_a_manifest_is_told_how_to_make_it_a_project(tmp_path, capsys):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    assert main(["project", ".", "--profile", "project-graph", "--workspace", str(tmp_path), "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert "no semaprax.toml or pyproject.toml in '.'" in err
    assert "a semaprax.toml holding the line [project] makes the folder a project" in err
    (tmp_path / "semaprax.toml").write_text("[project]\n")  # and the advice holds
    assert main(["project", ".", "--profile", "project-graph", "--workspace", str(tmp_path), "--no-cache"]) == 0
    assert '["a.py",2]' in capsys.readouterr().out


def test_serve_help_says_views_read_the_saved_files(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "never an editor's unsaved buffer" in " ".join(capsys.readouterr().out.split())
