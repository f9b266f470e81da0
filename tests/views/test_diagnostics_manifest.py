"""``diagnostics`` over a manifest depends on the workspace and its manifest
alone (issue 22): which names are the standard library comes from a bundled
table chosen by ``requires-python``, not from the running interpreter."""

from __future__ import annotations

import sys

import pytest
from workspacekit import long_view as _view
from workspacekit import write_files as _write

from analysis.sources import WorkspaceError
from servers.route import make_projection
from views import diagnostics

#: distutils, asynchat and imp left the standard library in 3.12; tomllib came in 3.11.
SOURCE = "import distutils\nimport asynchat\nimport imp\nimport tomllib\nimport json\nimport nosuchthing\n"


def _wire(folder) -> bytes:
    return make_projection("diagnostics", "pyproject.toml", folder).selected


def _unresolved(folder) -> list[str]:
    return [r[4] for r in _view("diagnostics", "pyproject.toml", folder)["rows"] if r[3] == "unresolved-import"]


def test_the_same_bytes_under_any_running_python(tmp_path, monkeypatch):
    _write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "x.py": SOURCE})
    first = _wire(tmp_path)
    # as if run by another interpreter: its own module list and version
    monkeypatch.setattr(sys, "stdlib_module_names", frozenset({"sys", "json"}))
    monkeypatch.setattr(sys, "version_info", (3, 12, 1, "final", 0))
    assert _wire(tmp_path) == first
    monkeypatch.setattr(sys, "stdlib_module_names", frozenset(sys.builtin_module_names))
    monkeypatch.setattr(sys, "version_info", (3, 13, 0, "final", 0))
    assert _wire(tmp_path) == first


@pytest.mark.parametrize("requires,unresolved", [
    (None, ["nosuchthing"]),  # no requirement: a module of any Python version known
    (">=3.11", ["nosuchthing"]),  # 3.11 still has distutils, asynchat and imp
    (">=3.12", ["distutils", "asynchat", "imp", "nosuchthing"]),
    ("<3.11", ["tomllib", "nosuchthing"]),
    ("==3.10.*", ["tomllib", "nosuchthing"]),
    (">=3.10,!=3.10.*,<3.12", ["nosuchthing"]),
    (">=3.99", ["distutils", "asynchat", "imp", "nosuchthing"]),  # beyond the tables: the newest one
])
def test_requires_python_chooses_the_standard_library(tmp_path, requires, unresolved):
    line = "" if requires is None else f"requires-python = '{requires}'\n"
    _write(tmp_path, {"pyproject.toml": f"[project]\nname = 'x'\n{line}", "x.py": SOURCE})
    assert _unresolved(tmp_path) == [f"cannot resolve import of {m!r}" for m in unresolved]


def test_a_requires_python_that_is_no_specifier_is_a_diagnostic(tmp_path):
    _write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\nrequires-python = 'three'\n", "x.py": SOURCE})
    with pytest.raises(WorkspaceError, match="requires-python 'three' is not a version specifier"):
        make_projection("diagnostics", "pyproject.toml", tmp_path)


def test_the_bundled_tables_cover_the_versions_they_name():
    assert diagnostics.PYTHONS[0] <= (3, 11) <= diagnostics.PYTHONS[-1]
    names_311 = diagnostics.stdlib_names("==3.11.*")
    assert {"tomllib", "distutils", "json", "_abc"} <= names_311 and "annotationlib" not in names_311
    assert "annotationlib" in diagnostics.stdlib_names(">=3.14")


# --- declared test dependencies ---------------------------------------------------------------

TESTS = {
    "src/pkg/__init__.py": "def add(a, b):\n    return a + b\n",
    "tests/conftest.py": "import pytest\nimport yaml\nimport hypothesis\nimport requests\n",
}


@pytest.mark.parametrize("manifest", [
    "[project.optional-dependencies]\ntest = ['pytest>=8', 'PyYAML; python_version>\"3\"', 'Hypothesis[cli]']\n",
    "[dependency-groups]\ntest = ['pytest>=8', {include-group = 'yaml'}]\nyaml = ['pyyaml==6.*', 'hypothesis']\n",
    "[tool.poetry.group.dev.dependencies]\npytest = '^8'\npyyaml = '*'\nhypothesis = '*'\n",
], ids=["optional-dependencies", "dependency-groups", "poetry-group"])
def test_declared_test_dependencies_are_declared(tmp_path, manifest):
    _write(tmp_path, {"pyproject.toml": "[project]\nname = 'pkg'\n" + manifest, **TESTS})
    # pytest, yaml (the PyYAML distribution) and hypothesis are declared; requests is not
    assert _unresolved(tmp_path) == ["cannot resolve import of 'requests'"]


def test_a_dependency_group_of_the_wrong_shape_is_a_diagnostic(tmp_path):
    _write(tmp_path, {"pyproject.toml": "[project]\nname = 'pkg'\n[dependency-groups]\ntest = 'pytest'\n", **TESTS})
    with pytest.raises(WorkspaceError, match="dependency-groups"):
        make_projection("diagnostics", "pyproject.toml", tmp_path)
