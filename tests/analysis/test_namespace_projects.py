"""PEP 420 namespace packages in a pyproject.toml project (issue 22): a folder
without ``__init__.py`` under the project's source root is a package, as
setuptools finds it and Python imports it; its modules are named as Python names
them, are part of the project, and are roots. Without a manifest, the dotted name
the graph view's import table shows for a namespace module is a root too."""

from __future__ import annotations

import json

import pytest
from workspacekit import long_view as _view
from workspacekit import write_files as _write

from analysis.manifest import load_project
from analysis.sources import Workspace, WorkspaceError
from servers.route import make_projection
from views.expand import expand

LEAF = "def grow(n):\n    return n + 1\n"
TEST = "from acme.tools.leaf import grow\n\ndef test_grow():\n    assert grow(1) == 2\n"
PYPROJECT = "[project]\nname = 'acme-tools'\n"


def _modules(folder) -> dict[str, str]:
    graph = _view("project-graph", "pyproject.toml", folder)
    return {r[1]: r[0] for r in graph["modules"]["rows"]}


def _unresolved(folder) -> list:
    rows = _view("diagnostics", "pyproject.toml", folder)["rows"]
    return [r for r in rows if "cannot resolve import" in r[4]]


@pytest.mark.parametrize("layout", [
    {"pyproject.toml": PYPROJECT, "src/acme/tools/__init__.py": "", "src/acme/tools/leaf.py": LEAF},
    {"pyproject.toml": PYPROJECT, "acme/tools/__init__.py": "", "acme/tools/leaf.py": LEAF},
    {"pyproject.toml": PYPROJECT + "[tool.setuptools.packages.find]\nwhere = ['lib']\nnamespaces = true\n",
     "lib/acme/tools/__init__.py": "", "lib/acme/tools/leaf.py": LEAF},
    {"pyproject.toml": PYPROJECT, "src/acme/tools/leaf.py": LEAF},  # no __init__.py at all
], ids=["src", "flat", "find-where", "bare"])
def test_a_namespace_package_is_named_as_python_names_it(tmp_path, layout):
    _write(tmp_path, {**layout, "tests/test_leaf.py": TEST})
    leaf = next(p for p in layout if p.endswith("leaf.py"))
    modules = _modules(tmp_path)
    assert modules[leaf] == "acme.tools.leaf"
    assert modules["tests/test_leaf.py"] == "test_leaf"  # a test module keeps pytest's name
    refs = _view("references", "acme.tools.leaf.grow", tmp_path)
    assert refs["symbol"] == "acme.tools.leaf.grow" and "tests/test_leaf.py" in refs["files"]
    assert _unresolved(tmp_path) == []
    task = _view("task-context", "acme.tools.leaf.grow", tmp_path)
    assert "test_leaf.test_grow" in json.dumps(task["tests"])
    # the file's own views name it the same way, and read the manifest that names it
    symbols = _view("symbols", leaf, tmp_path)
    assert symbols["modules"][0]["module"] == "acme.tools.leaf"
    ws = Workspace(tmp_path)
    assert ws.module_of(leaf).module == "acme.tools.leaf" and "pyproject.toml" in ws.read_files


def test_the_same_bytes_every_time_and_a_changed_manifest_changes_the_revision(tmp_path):
    _write(tmp_path, {"pyproject.toml": PYPROJECT, "src/acme/tools/leaf.py": LEAF, "tests/test_leaf.py": TEST})
    first = make_projection("graph", "src/acme/tools/leaf.py", tmp_path)
    assert make_projection("graph", "src/acme/tools/leaf.py", tmp_path).selected == first.selected
    (tmp_path / "pyproject.toml").write_text(PYPROJECT + "# edited\n")
    assert make_projection("graph", "src/acme/tools/leaf.py", tmp_path).source_revision != first.source_revision


def test_folders_the_build_would_not_find_are_not_namespace_packages(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": PYPROJECT,
        "acme/leaf.py": LEAF,
        "scripts/release.py": "x = 1\n",  # setuptools' reserved flat-layout names
        "docs/conf.py": "x = 1\n",
        "_private/thing.py": "x = 1\n",
        "tests/test_leaf.py": "from acme.leaf import grow\n",
    })
    modules = _modules(tmp_path)
    assert sorted(modules) == ["acme/leaf.py", "tests/test_leaf.py"]
    assert modules["acme/leaf.py"] == "acme.leaf"
    assert Workspace(tmp_path).module_of("scripts/release.py").module == "release"


def test_namespaces_false_finds_only_regular_packages(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": PYPROJECT + "[tool.setuptools.packages.find]\nwhere = ['src']\nnamespaces = false\n",
        "src/acme/tools/__init__.py": "", "src/acme/tools/leaf.py": LEAF, "tests/test_leaf.py": TEST,
    })
    assert sorted(_modules(tmp_path)) == ["tests/test_leaf.py"]  # acme is no package: find skips its tree
    assert Workspace(tmp_path).module_of("src/acme/tools/leaf.py").module == "tools.leaf"
    assert [r[4] for r in _unresolved(tmp_path)] == ["cannot resolve import of 'acme.tools.leaf.grow'"]


def test_a_find_table_of_the_wrong_shape_is_a_diagnostic(tmp_path):
    _write(tmp_path, {"pyproject.toml": PYPROJECT + "[tool.setuptools.packages.find]\nwhere = 'src'\n",
                      "src/acme/leaf.py": LEAF})
    with pytest.raises(WorkspaceError, match="where must be a list of strings"):
        load_project(Workspace(tmp_path), "pyproject.toml")


def test_without_a_manifest_the_import_tables_name_is_a_root(tmp_path):
    _write(tmp_path, {
        "app/__init__.py": "",
        "app/main.py": "from nsroot.inner.leaf import grow\n\ndef run():\n    return grow(1)\n",
        "nsroot/inner/leaf.py": LEAF,
    })
    shown = _view("graph", "app/main.py", tmp_path)["imports"]["grow"]
    assert shown == "nsroot.inner.leaf.grow"
    refs = _view("references", shown, tmp_path)
    assert refs["defined"][0] == "nsroot/inner/leaf.py" and "app/main.py" in refs["files"]
    task = _view("task-context", shown, tmp_path)
    assert task["path"] == "nsroot/inner/leaf.py"


def test_an_explicit_find_of_the_project_folder_leaves_test_names_to_pytest(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": PYPROJECT + "[tool.setuptools.packages.find]\nwhere = ['.']\n",
        "acme/tools/__init__.py": "", "acme/tools/leaf.py": LEAF,
        "tests/unit/test_leaf.py": TEST,
    })
    modules = _modules(tmp_path)
    assert modules["acme/tools/leaf.py"] == "acme.tools.leaf"
    assert modules["tests/unit/test_leaf.py"] == "test_leaf"


def test_a_server_sees_an_edit_of_the_manifest_that_renames_a_module(tmp_path):
    from analysis.warm import IndexCache

    off = PYPROJECT + "[tool.setuptools.packages.find]\nnamespaces = false\n"
    _write(tmp_path, {"pyproject.toml": off, "acme/tools/__init__.py": "", "acme/tools/leaf.py": LEAF})
    cache = IndexCache()

    def module() -> str:
        view = make_projection("symbols", "acme/tools/leaf.py", tmp_path, index_cache=cache)
        return expand("symbols", json.loads(view.selected))["modules"][0]["module"]

    assert module() == "tools.leaf"  # the manifest was asked, and said no: it is watched all the same
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    assert module() == "acme.tools.leaf"
    (tmp_path / "pyproject.toml").write_text(off)
    assert module() == "tools.leaf"


def test_the_same_bytes_under_any_hash_seed(tmp_path):
    import subprocess
    import sys

    _write(tmp_path, {"pyproject.toml": PYPROJECT, "src/acme/tools/__init__.py": "", "src/acme/tools/leaf.py": LEAF,
                      "src/acme/other/mod.py": "from acme.tools.leaf import grow\n", "tests/test_leaf.py": TEST})
    wires = set()
    for seed in ("0", "1", "12345"):
        done = subprocess.run([sys.executable, "-m", "semaprax", "project", "pyproject.toml", "--profile",
                               "project-graph", "--workspace", str(tmp_path), "--no-cache"],
                              capture_output=True, env={**__import__("os").environ, "PYTHONHASHSEED": seed},
                              check=True)
        wires.add(done.stdout)
    assert len(wires) == 1 and b"acme.other.mod" in next(iter(wires))
