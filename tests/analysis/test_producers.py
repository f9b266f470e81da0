"""The producers on real projects (issue 22): the usual layouts, any file Python
accepts, diagnostics that depend on the workspace alone and cost linear time."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from workspacekit import long_view as _view
from workspacekit import write_files as _write

from analysis import resolver
from analysis.resolver import analyse_module
from analysis.sources import Workspace
from views import diagnostics

ROOT = Path(__file__).resolve().parents[2]




# --- layouts ----------------------------------------------------------------------------------

def test_tests_beside_a_pyproject_are_part_of_the_project(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'pkg'\n",
        "src/pkg/__init__.py": "def helper():\n    return 1\n",
        "tests/test_pkg.py": "from pkg import helper\n\ndef test_helper():\n    assert helper() == 1\n",
        "docs/conf.py": "x = 1\n",  # not a package, not tests: not a source
    })
    graph = _view("project-graph", "pyproject.toml", tmp_path)
    assert [r[1] for r in graph["modules"]["rows"]] == ["src/pkg/__init__.py", "tests/test_pkg.py"]
    refs = _view("references", "pkg.helper", tmp_path)
    assert "tests/test_pkg.py" in json.dumps(refs)
    context = _view("task-context", "pkg.helper", tmp_path)
    assert "test_pkg.test_helper" in json.dumps(context["tests"])  # callers from tests, apart


def test_a_namespace_package_resolves_by_its_dotted_path(tmp_path):
    _write(tmp_path, {
        "nsroot/inner/leaf.py": "def grow():\n    return 1\n",  # no __init__.py anywhere
        "user.py": "from nsroot.inner.leaf import grow\n\ndef use():\n    return grow()\n",
    })
    context = _view("task-context", "user.use", tmp_path)
    # the module is named from its own folder; the call reaches its function, with its signature
    assert context["callees"] == {"leaf.grow": "()"}
    refs = _view("references", "leaf.grow", tmp_path)
    assert refs["files"] == {"user.py": [[1, "imports", "user"], [4, "calls", "user.use"]]}


# --- any file Python accepts ------------------------------------------------------------------

def _deep_source() -> str:
    lines = ["x = 0", "if x == 0:", "    y = 0"]
    for i in range(1, 1000):
        lines += [f"elif x == {i}:", f"    y = {i}"]
    lines.append("f = " + "lambda: " * 600 + "0")
    lines.append("g = " + "lambda: " * 300 + "len([x])")
    lines.append("def h():\n    return f()\n")
    return "\n".join(lines) + "\n"


def test_a_long_elif_chain_and_deeply_nested_lambdas_get_their_views(tmp_path):
    source = _deep_source()
    compile(source, "deep.py", "exec")  # Python accepts it
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'deep'\n", "deep.py": source, "other.py": "import deep\n"})
    graph = _view("graph", "deep.py", tmp_path)
    names = [r[0] for r in graph["definitions"]["rows"]]
    assert names == ["deep.x", "deep.y", "deep.f", "deep.g", "deep.h"]
    assert _view("project-graph", "semaprax.toml", tmp_path)["imports"] == {"other": ["deep"]}
    analysis = analyse_module(source.encode(), "deep.py", "deep")
    assert not analysis.problems
    assert {u.target for u in analysis.uses if u.kind == "calls"} == {"builtins.len", "deep.f"}


def test_what_still_recurses_too_deep_is_one_diagnostic_not_a_traceback(monkeypatch):
    def deep(*_args: object) -> None:
        raise RecursionError

    monkeypatch.setattr(resolver._Analyser, "_find_unused_imports", deep)
    a = analyse_module(b"import os\n", "m.py", "m")
    assert [(p.kind, p.message) for p in a.problems] == [("too-deep", "too deeply nested to analyse")]
    assert [d.qualname for d in a.definitions] == ["m"]


def test_a_graph_whose_file_could_not_be_analysed_says_why(tmp_path):
    # an int literal of more digits than Python writes: the analysis fails (analysis-failed); the view
    # must not look like a file without definitions
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'big'\n",
                      "big.py": "def f(x=0x" + "f" * 5000 + "):\n    pass\n"})
    graph = _view("graph", "big.py", tmp_path)
    assert graph["definitions"]["rows"] == []
    [[line, column, message]] = graph["errors"]
    assert (line, column) == (1, 1) and message.startswith("the analysis of this file failed (ValueError")


@pytest.mark.skipif(sys.platform != "linux", reason="file names as bytes")
def test_a_file_name_that_is_not_utf8_is_skipped_and_named(tmp_path):
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'x'\n", "a.py": "def f():\n    return 1\n"})
    (tmp_path / "caf\udce9.py").write_bytes(b"def g():\n    return 2\n")  # b"caf\xe9.py"
    assert os.fsencode(tmp_path / "caf\udce9.py").endswith(b"caf\xe9.py")
    ws = Workspace(tmp_path)
    assert ws.python_files() == ["a.py"]
    assert ws.notes == ["skipped caf\\xe9.py: its name is not UTF-8"]
    graph = _view("project-graph", "semaprax.toml", tmp_path)
    assert [r[1] for r in graph["modules"]["rows"]] == ["a.py"]
    assert _view("references", "a.f", tmp_path)["defined"] == ["a.py", 1]
    diag = _view("diagnostics", "semaprax.toml", tmp_path)
    assert diag["rows"] == [["caf\\xe9.py", 1, 1, "skipped-file", "skipped: its name is not UTF-8"]]


# --- diagnostics: linear, and of the workspace alone ------------------------------------------

class _CountingStr(str):
    splits = 0

    def split(self, *args, **kwargs):  # type: ignore[override]
        _CountingStr.splits += 1
        return super().split(*args, **kwargs)


def test_unresolved_imports_is_linear_in_modules_and_imports():
    n = 200
    modules = []
    for k in range(n):
        imports = tuple(SimpleNamespace(local=f"x{j}", target=f"pkg.m{j}.x{j}", module=f"pkg.m{j}", line=j + 1)
                        for j in range(n))
        modules.append(SimpleNamespace(module=_CountingStr(f"pkg.m{k}"), path=f"pkg/m{k}.py", imports=imports))
    index = SimpleNamespace(modules=modules, canonical=lambda t: t)
    _CountingStr.splits = 0
    assert diagnostics._unresolved_imports(index, ()) == []  # type: ignore[arg-type]
    assert _CountingStr.splits <= 2 * n  # once per module, not once per module per import (n * n)


class _CountingLines(list):
    read = 0

    def __getitem__(self, item):  # type: ignore[override]
        got = super().__getitem__(item)
        if isinstance(item, slice):
            _CountingLines.read += len(got)
        return got


def test_noqa_is_read_once_per_import_statement(monkeypatch):
    n = 1000
    source = "from m import (\n" + "".join(f"    a{k},\n" for k in range(n)) + ")\n"
    real = resolver.source_lines
    monkeypatch.setattr(resolver, "source_lines", lambda text: _CountingLines(real(text)))
    _CountingLines.read = 0
    a = analyse_module(source.encode(), "x.py", "x")
    assert len([p for p in a.problems if p.kind == "unused-import"]) == n
    assert _CountingLines.read <= 3 * (n + 2)  # the statement's lines once, not once per name


def test_diagnostics_never_consult_the_installed_distributions(tmp_path, monkeypatch):
    _write(tmp_path, {
        "semaprax.toml": "[project]\nname = 'x'\ndependencies = ['requests']\n",
        "a.py": "import foo\nimport requests\nimport yaml\nprint(foo, requests, yaml)\n",
    })
    # here, an installed distribution 'requests' would provide the top-level name 'foo'
    monkeypatch.setattr(importlib.metadata, "packages_distributions", lambda: {"foo": ["requests"]})
    cached = getattr(diagnostics, "_installed_tops", None)
    if cached is not None:
        cached.cache_clear()
    rows = _view("diagnostics", "semaprax.toml", tmp_path)["rows"]
    assert [(r[0], r[1], r[4]) for r in rows] == [("a.py", 1, "cannot resolve import of 'foo'"),
                                                   ("a.py", 3, "cannot resolve import of 'yaml'")]


def test_the_views_import_no_distribution_metadata():
    code = "import sys, views, analysis.index; print(sorted(m for m in ('importlib.metadata', 'email') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- smaller ones -----------------------------------------------------------------------------

TYPED = '''
class Item:
    def use(self) -> int:
        return 1

class Box:
    @property
    def item(self) -> Item:
        return Item()

    async def fetch(self) -> Item:
        return Item()

def f(box: Box, items: list[Item], others: list[Item]):
    box.item.use()
    for i, it in enumerate(items):
        it.use()
    for a, b in zip(items, others):
        b.use()

async def g(box: Box):
    x = await box.fetch()
    x.use()
    (await box.fetch()).use()
'''


def test_property_access_await_and_enumerate_zip_unpacking_keep_their_targets():
    a = analyse_module(TYPED.encode(), "m.py", "m")
    calls = {(u.line, u.target) for u in a.uses if u.kind == "calls"}
    for line in (15, 17, 19, 23, 24):
        assert (line, "m.Item.use") in calls, line
    assert not [t for _, t in calls if t.startswith("?")]


def test_a_package_name_rebound_to_a_function_is_the_function_not_the_submodule(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from .foo import foo\n",
        "pkg/foo.py": "def foo():\n    return 1\n",
        "user.py": "import pkg\nfrom pkg import foo\n\ndef use():\n    foo()\n    pkg.foo()\n",
    })
    assert _view("task-context", "user.use", tmp_path)["callees"] == {"pkg.foo.foo": "()"}


CIRCULAR = {
    "pkg/__init__.py": "from .a import A\nfrom .b import B\n",
    "pkg/a.py": "from pkg import B\n\nclass A:\n    def go(self):\n        pass\n\n    def f(self):\n        B().run()\n",
    "pkg/b.py": "from pkg import A\n\nclass B:\n    def run(self):\n        pass\n\n    def g(self):\n        A().go()\n",
}


def test_a_circular_import_resolves_the_same_in_either_order(tmp_path):
    from analysis.index import WorkspaceIndex

    _write(tmp_path, CIRCULAR)
    ws = Workspace(tmp_path)
    outcomes = []
    for files in (ws.python_files(), ws.python_files()[::-1]):
        index = WorkspaceIndex(ws, files)
        outcomes.append(sorted((u.source, u.target) for a in index.modules for u in a.uses if u.kind == "calls"))
    assert outcomes[0] == outcomes[1]
    assert ("pkg.a.A.f", "pkg.b.B.run") in outcomes[0] and ("pkg.b.B.g", "pkg.a.A.go") in outcomes[0]


def test_two_files_that_are_the_same_module_are_said_to_be(tmp_path):
    # folders that no dotted path names (a/util.py and b/util.py are a.util and b.util: tests/analysis/test_fix22d.py)
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'x'\n",
                      "a-1/util.py": "def f():\n    return 1\n", "b-1/util.py": "def g():\n    return 2\n"})
    rows = _view("diagnostics", "semaprax.toml", tmp_path)["rows"]
    assert [(r[0], r[3], r[4]) for r in rows] == [
        ("a-1/util.py", "same-module-name", "module 'util' is also b-1/util.py: a name in 'util' may be either file's"),
        ("b-1/util.py", "same-module-name", "module 'util' is also a-1/util.py: a name in 'util' may be either file's"),
    ]


def test_project_graph_names_the_namespace_module_an_import_reaches(tmp_path):
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'x'\n",
                      "nsroot/inner/leaf.py": "def grow():\n    return 1\n",
                      "user.py": "from nsroot.inner.leaf import grow\n\ngrow()\n"})
    graph = _view("project-graph", "semaprax.toml", tmp_path)
    # the manifest's folder is its source root: nsroot and nsroot.inner are namespace packages
    assert graph["imports"] == {"user": ["nsroot.inner.leaf"]}
    assert not graph.get("external")  # not an outside package called nsroot
