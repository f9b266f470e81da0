"""The compact shapes (views/shapes.py) lose no fact: expanding a
view (views/expand.py) gives back, byte for byte, the long form the
producers build, on the examples, the test fixtures and standard-library code."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import codec
from analysis.sources import Workspace
from views import LONG_PRODUCERS, PRODUCERS
from views.expand import expand
from views.shapes import COMPACT, path_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DEMO = ROOT / "tests" / "fixtures" / "demo"
STDLIB = Path(os.path.dirname(typing.__file__))

CASES = [
    ("graph", "banking_ledger.py", EXAMPLES),
    ("graph", "http_app_routing.py", EXAMPLES),
    ("symbols", "banking_ledger.py", EXAMPLES),
    ("symbols", ".", EXAMPLES),
    ("references", "http_app_routing.Request", EXAMPLES),
    ("references", "banking_ledger.Ledger", EXAMPLES),
    ("diagnostics", "banking_ledger.py", EXAMPLES),
    ("diagnostics", "semaprax.toml", EXAMPLES / "calculator-project"),
    ("project-graph", "semaprax.toml", EXAMPLES / "calculator-project"),
    ("project-graph", "semaprax.toml", EXAMPLES / "frame-payload-project"),
    ("graph", "pkg/core.py", DEMO),
    ("references", "pkg.core.Engine.run", DEMO),
    ("diagnostics", "semaprax.toml", DEMO),
    ("project-graph", "semaprax.toml", DEMO),
    ("graph", "typing.py", STDLIB),
    ("graph", "token.py", STDLIB),  # runs of constants, columns ending at references
    ("graph", "_weakrefset.py", STDLIB),  # a class of short methods: ^x, self left out
    ("graph", "http/server.py", STDLIB),
    ("graph", "argparse.py", STDLIB),
    ("graph", "dataclasses.py", STDLIB),
    ("symbols", "json", STDLIB),
    ("symbols", "enum.py", STDLIB),
    ("diagnostics", "typing.py", STDLIB),
    ("diagnostics", "pickle.py", STDLIB),
]


def assert_expands_to_long(profile: str, root: str, folder: Path) -> None:
    _, long = LONG_PRODUCERS[profile](Workspace(folder), root)
    _, short = PRODUCERS[profile](Workspace(folder), root)
    assert codec.canonical_json(expand(profile, short)) == codec.canonical_json(long)
    if profile in COMPACT:
        assert len(codec.canonical_json(short)) < len(codec.canonical_json(long))


@pytest.mark.parametrize("profile, root, folder", CASES, ids=[f"{p}:{r}" for p, r, _ in CASES])
def test_expanding_a_view_gives_the_long_form(profile, root, folder):
    assert_expands_to_long(profile, root, folder)


@pytest.mark.parametrize("package, symbol", [("json", "json.decoder.JSONDecodeError"),
                                              ("email", "email.message.Message")])
def test_stdlib_package_references_expand(tmp_path, package, symbol):
    shutil.copytree(STDLIB / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    assert_expands_to_long("references", symbol, tmp_path)


def test_task_context_has_one_form():
    _, view = PRODUCERS["task-context"](Workspace(DEMO), "pkg.core.Engine.run")
    assert expand("task-context", view) is view


def _graph(tmp_path: Path, source: str, name: str = "mod.py") -> tuple[dict, dict]:
    (tmp_path / name).write_text(source)
    long = LONG_PRODUCERS["graph"](Workspace(tmp_path), name)[1]
    short = PRODUCERS["graph"](Workspace(tmp_path), name)[1]
    assert codec.canonical_json(expand("graph", short)) == codec.canonical_json(long)
    return long, short


def test_graph_rows_carry_their_edges(tmp_path):
    _, view = _graph(tmp_path, 'def f(x: int) -> str:\n    return str(len(x)) + g()\n\n\ndef g():\n    """G."""\n'
                               "    return 1\n\n\nclass A(Exception):\n    pass\n\n\nprint(f(1))\n")
    rows = view["definitions"]["rows"]
    assert view["definitions"]["columns"] == ["lines", "name", "calls", "references", "inherits", "doc"]
    assert rows[0] == [[1, 2], "f(x: int) -> str", ["len", "str", ".g"], ["int", "str"]]
    assert rows[1] == [[5, 7], "g()", "G."]  # the doc follows the edge lists kept
    assert rows[2] == [[10, 11], "class A(Exception)", [], [], ["Exception"]]  # trailing empties dropped
    assert view["module_edges"] == {"calls": ["print", ".f"]}  # in the long names' order
    assert "edges" not in view and "not_builtins" not in view


def test_members_continue_their_class_row_and_targets_go_through_imports(tmp_path):
    long, view = _graph(tmp_path, "from collections import OrderedDict as OD\nimport os.path as osp\n\n\n"
                                  "class A:\n    def f(self):\n        return OD(osp.join('a'))\n\n"
                                  "    class B:\n        def g(self):\n            pass\n\n"
                                  "    def h(self):\n        pass\n")
    names = [r[1] for r in view["definitions"]["rows"]]
    assert names == ["class A", ".f()", "class .B", ".g()", "A.h()"]  # .g continues A.B; self left out
    assert view["definitions"]["rows"][1][2] == ["OD", "osp.join"]
    assert long["edges"]["mod.A.f"]["calls"] == ["collections.OrderedDict", "os.path.join"]
    assert "imports_whole" not in view


def test_an_import_that_renames_a_module_is_read_back_exactly(tmp_path):
    (tmp_path / "json.py").write_text("def dumps():\n    pass\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "__init__.py").write_text("x = 1\n")
    long, view = _graph(tmp_path, "import other as json\nimport json as j2\n\n\ndef f():\n    j2.dumps()\n"
                                  "    return json.x\n")  # _graph checks that the view expands to the long form
    assert view["definitions"]["rows"][0][2:] == [["j2.dumps"], ["json.x"]]
    assert long["edges"]["mod.f"] == {"calls": ["json.dumps"], "references": ["other.x"]}


def test_one_line_span_is_one_number(tmp_path):
    _, view = _graph(tmp_path, "x = 1\n")
    assert view["definitions"]["rows"] == [[1, "x"]]
    assert view["definitions"]["columns"] == ["lines", "name"]  # no row reaches a later column
    assert "module" not in view  # the path gives it


def test_builtins_stay_long_where_a_short_name_would_be_ambiguous(tmp_path):
    (tmp_path / "open").mkdir()
    (tmp_path / "open" / "__init__.py").write_text("def door():\n    pass\n")
    long, view = _graph(tmp_path, "import open\n\n\ndef f():\n    open.door()\n    return open  # the module\n\n\n"
                                  "def g(p):\n    return len(p)\n")
    assert view["not_builtins"] == ["open"]
    assert view["definitions"]["rows"][0][2:] == [["open.door"], ["open"]]
    assert view["definitions"]["rows"][1][2:] == [["len"]]
    assert long["edges"]["mod.g"] == {"calls": ["builtins.len"]}


def test_a_name_defined_twice_carries_its_edges_once(tmp_path):
    _, view = _graph(tmp_path, "def f():\n    return 1\n\n\ndef g():\n    pass\n\n\ndef f():\n    return len([])\n")
    rows = view["definitions"]["rows"]
    assert [r[1] for r in rows] == ["f()", "g()", "f()"]
    assert len(rows[0]) < 3 and rows[2][2] == ["len"]


def test_one_line_variables_on_consecutive_lines_are_one_row(tmp_path):
    long, view = _graph(tmp_path, "A = 1\nB = 2\nC: int = 3\nD = 4\nE = 5\n\nF = 6\n\n\nclass K:\n    x = 1\n"
                                  "    y = 2\n\n    def f(self):\n        return self.x\n")
    rows = view["definitions"]["rows"]
    # C carries a signature, so it stands alone; a blank line ends a run
    assert rows[:5] == [[[1, 2], "A B"], [3, "C: int"], [[4, 5], "D E"], [7, "F"], [[10, 15], "class K"]]
    assert rows[5] == [[11, 12], ".x .y"]
    assert rows[6] == [[14, 15], ".f()", [], ["^x"]]  # ^x: K.x, in the rows of class K
    assert long["edges"]["mod.K.f"] == {"references": ["mod.K.x"]}


def test_a_name_gives_its_kind(tmp_path):
    long, view = _graph(tmp_path, "import os\n\n\nasync def a(x) -> int:\n    def inner():\n        pass\n"
                                  "    return 1\n\n\nclass K(os.PathLike, metaclass=type):\n    z: int\n"
                                  "    async def m(self, n):\n        self.w = 1\n\n    @classmethod\n"
                                  "    def c(cls):\n        pass\n\n    @staticmethod\n    async def s():\n"
                                  "        pass\n\n    def t(self: 'K'):\n        pass\n")
    assert [r[1] for r in view["definitions"]["rows"]] == [
        "async a(x) -> int", "a.inner()", "class K(os.PathLike, metaclass=type)", ".z: int", "async .m(n)", ".w",
        "def .c(cls)", "async def .s()", "def .t(self: 'K')"]  # a method without a plain self is written whole
    assert [r[1] for r in long["definitions"]["rows"]] == ["function", "function", "class", "attribute", "method",
                                                           "attribute", "method", "method", "method"]
    assert [r[3] for r in long["definitions"]["rows"]][4:] == ["async (self, n)", "", "(cls)", "async ()",
                                                              "(self: 'K')"]


def test_rows_the_names_cannot_spell_keep_their_kind_and_signature():
    from views.shapes import ROW_COLUMNS, pack_graph, unpack_graph
    rows = {"columns": ROW_COLUMNS, "rows": [["f", "method", 1, "(self)"]]}  # a method outside a class
    value = {"module": "m", "definitions": rows}
    assert pack_graph(value) == value and unpack_graph(value) == value


def test_path_module():
    assert path_module("pkg/__init__.py") == "pkg"
    assert path_module("pkg/sub/mod.py") == "pkg.sub.mod"
    assert path_module("__init__.py") == "__init__"


def test_project_graph_names_only_the_modules_its_paths_do_not_give(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text('"""Pkg."""\n')
    (tmp_path / "src" / "pkg" / "mod.py").write_text("from . import x\n")
    (tmp_path / "semaprax.toml").write_text('[project]\nname = "p"\nsources = ["src/pkg"]\n')
    long = LONG_PRODUCERS["project-graph"](Workspace(tmp_path), "semaprax.toml")[1]
    view = PRODUCERS["project-graph"](Workspace(tmp_path), "semaprax.toml")[1]
    assert view["module_names"] == {"src/pkg/__init__.py": "pkg", "src/pkg/mod.py": "pkg.mod"}
    assert codec.canonical_json(expand("project-graph", view)) == codec.canonical_json(long)


DIGEST_ALL_VIEWS = """
import hashlib, sys
sys.path.insert(0, "scripts")
from write_example_wires import example_projections
from servers.route import make_projection
h = hashlib.sha256()
for stem, p in sorted(example_projections().items()):
    h.update(p.selected)
for profile, root, folder in [("graph", "pkg/core.py", "tests/fixtures/demo"),
                              ("references", "pkg.core.Engine.run", "tests/fixtures/demo"),
                              ("diagnostics", "semaprax.toml", "tests/fixtures/demo"),
                              ("project-graph", "semaprax.toml", "tests/fixtures/demo"),
                              ("symbols", "pkg", "tests/fixtures/demo")]:
    h.update(make_projection(profile, root, folder).selected)
print(h.hexdigest())
"""


def test_views_are_the_same_bytes_under_every_hash_seed():
    digests = set()
    for seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", DIGEST_ALL_VIEWS], cwd=ROOT, env=env, capture_output=True,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        digests.add(done.stdout)
    assert len(digests) == 1


def test_long_view_script_expands_a_wire_to_the_long_producers_bytes():
    script = [sys.executable, "-m", "semaprax", "bench", "long-view"]
    wire = EXAMPLES / "wires" / "http_app_routing.references.model-text"
    expanded = subprocess.run([*script, "--expand", str(wire)], capture_output=True,
                              timeout=120, check=True).stdout
    produced = subprocess.run([*script, "references", "http_app_routing.Request",
                               "--workspace", str(EXAMPLES)], capture_output=True, timeout=120, check=True).stdout
    _, long = LONG_PRODUCERS["references"](Workspace(EXAMPLES), "http_app_routing.Request")
    assert expanded == produced == codec.canonical_json(long) + b"\n"
    bare = subprocess.run([*script, "--expand", str(wire.with_suffix(".json"))],
                          capture_output=True, timeout=120, check=False)
    assert bare.returncode == 2 and b"give --profile" in bare.stderr
