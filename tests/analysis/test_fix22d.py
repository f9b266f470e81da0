"""Issue 22 leftovers: a semaprax.toml's source folders name namespace
packages, same-named modules in namespace folders stay apart, a long attribute
chain costs linear work, and a stage's recursion limit does not leak across
threads."""

from __future__ import annotations

import json
import sys

import pytest
from workspacekit import long_view as _view
from workspacekit import write_files as _write

from analysis.sources import Workspace

# --- sources = ["src"] in a semaprax.toml -----------------------------------------------------


def test_a_source_folder_of_a_semaprax_toml_is_on_the_path(tmp_path):
    # Python with src/ on sys.path imports src/acme/x.py as acme.x (acme a namespace package)
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'acme'\nsources = ['src']\n",
                      "src/acme/x.py": "def run():\n    return 1\n",
                      "src/acme/y.py": "from acme.x import run\n\nrun()\n"})
    ws = Workspace(tmp_path)
    assert ws.module_of("src/acme/x.py").module == "acme.x"
    assert "semaprax.toml" in ws.read_files  # the name depends on it: in the revision
    graph = _view("project-graph", "semaprax.toml", tmp_path)
    assert graph["imports"] == {"acme.y": ["acme.x"]}
    refs = _view("references", "acme.x.run", tmp_path)
    assert refs["symbol"] == "acme.x.run" and "src/acme/y.py" in refs["files"]


def test_a_package_named_as_a_source_keeps_its_name(tmp_path):
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'c'\nsources = ['calc']\n",
                      "calc/__init__.py": "", "calc/core.py": "x = 1\n", "calc/sub/leaf.py": "y = 2\n"})
    ws = Workspace(tmp_path)
    assert [ws.module_of(p).module for p in ("calc/core.py", "calc/sub/leaf.py")] == ["calc.core", "calc.sub.leaf"]


# --- same-named modules in namespace folders ------------------------------------------------

SAME = {"a/util.py": "def f():\n    return 1\n", "b/util.py": "def f():\n    return 2\n",
        "main.py": "from a.util import f\nimport b.util\n\nf()\nb.util.f()\n"}


def test_same_named_files_in_folders_are_each_their_own_module(tmp_path):
    # Python with the workspace folder on sys.path: a and b are namespace packages
    _write(tmp_path, SAME)
    ws = Workspace(tmp_path)
    assert [ws.module_of(p).module for p in ("a/util.py", "b/util.py", "main.py")] == ["a.util", "b.util", "main"]
    assert "b/util.py" in ws.read_files  # a/util.py's name depends on it: in the revision
    assert _view("graph", "a/util.py", tmp_path).get("module", "a.util") == "a.util"
    symbols = _view("symbols", ".", tmp_path)["modules"]
    assert [m.get("module") for m in symbols[:2]] in ([None, None], ["a.util", "b.util"])
    refs = {q: _view("references", q, tmp_path) for q in ("a.util.f", "b.util.f")}
    assert refs["a.util.f"]["defined"] == ["a/util.py", 1] and refs["b.util.f"]["defined"] == ["b/util.py", 1]
    assert json.dumps(refs["a.util.f"]["files"]).count("5") == 0  # b.util.f() is not a's
    assert "5" in json.dumps(refs["b.util.f"]["files"]["main.py"])
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'x'\n"})
    assert _view("diagnostics", "semaprax.toml", tmp_path)["rows"] == []
    assert _view("project-graph", "semaprax.toml", tmp_path)["imports"] == {"main": ["a.util", "b.util"]}


def test_files_no_dotted_path_names_apart_are_said_to_be_one_module(tmp_path):
    import pytest

    from analysis.sources import WorkspaceError

    _write(tmp_path, {"x-1/util.py": "def f():\n    return 1\n", "x-2/util.py": "def f():\n    return 2\n"})
    said = "module 'util' is also x-2/util.py: a name in 'util' may be either file's"
    rows = _view("diagnostics", "x-1/util.py", tmp_path)["rows"]  # without a manifest too
    assert rows == [["x-1/util.py", 1, 1, "same-module-name", said]]
    with pytest.raises(WorkspaceError, match="ambiguous: module 'util' is each of x-1/util.py, x-2/util.py"):
        _view("references", "util.f", tmp_path)
    with pytest.raises(WorkspaceError, match="ambiguous"):
        _view("task-context", "util.f", tmp_path)


def test_a_top_level_module_keeps_its_name_and_is_said_to_share_it(tmp_path):
    _write(tmp_path, {"util.py": "x = 1\n", "my-scripts/util.py": "y = 2\n", "pkg/__init__.py": "",
                      "pkg/core.py": "z = 3\n"})
    ws = Workspace(tmp_path)
    assert ws.module_of("pkg/core.py").module == "pkg.core"
    assert ws._listing is None  # a name from the workspace folder needs no listing of the workspace
    assert ws.module_of("util.py").module == "util"
    said = "module 'util' is also my-scripts/util.py: a name in 'util' may be either file's"
    assert _view("diagnostics", "util.py", tmp_path)["rows"] == [["util.py", 1, 1, "same-module-name", said]]


# --- a long attribute chain -------------------------------------------------------------------


def _value_of_calls(monkeypatch, source: str) -> int:
    from analysis import resolver

    calls = [0]
    value_of = resolver._Analyser._value_of

    def counted(self, qualname):
        calls[0] += 1
        return value_of(self, qualname)

    monkeypatch.setattr(resolver._Analyser, "_value_of", counted)
    resolver.analyse_module(source.encode(), "chain.py", "chain")
    monkeypatch.setattr(resolver._Analyser, "_value_of", value_of)
    return calls[0]


def test_an_attribute_chain_is_walked_in_linear_work(monkeypatch):
    # each link's member reference used to resolve its own prefix again: n walks of up to n links
    work = {n: _value_of_calls(monkeypatch, "import a\nx = a." + ".".join(["b"] * n) + "\n") for n in (150, 300)}
    assert work[300] <= 2.2 * work[150], work


def test_a_call_chain_is_spelled_in_linear_work(monkeypatch):
    from analysis import resolver

    spell = resolver.spell
    spelled = [0]

    def counted(node):
        text = spell(node)
        spelled[0] += len(text)  # the chain walked to spell it: its length
        return text

    monkeypatch.setattr(resolver, "spell", counted)
    work = {}
    for n in (150, 300):
        spelled[0] = 0
        a = resolver.analyse_module(("import a\nx = a" + ".g()" * n + "\n").encode(), "c.py", "c")
        work[n] = spelled[0]
    # each call's unresolved target used to be spelled from the chain's base: n walks of up to n links
    assert work[300] <= 2.2 * work[150], work
    targets = sorted(u.target for u in a.uses if u.kind == "calls")
    assert targets == sorted(["a.g"] + ["?a" + ".g()" * k + ".g" for k in range(1, 300)])


def test_each_link_of_a_chain_refers_to_its_member(tmp_path):
    from analysis.resolver import analyse_module

    source = ("class C:\n    n: int = 0\n\nclass B:\n    c: C = C()\n\nclass A:\n    b: B = B()\n\n"
              "def f(a: A):\n    return a.b.c.n.bit_length()\n\ndef g(a: A):\n    return a.__dict__.keys()\n")
    uses = analyse_module(source.encode(), "m.py", "m").uses
    # the same as each link resolved on its own (as before the chain was walked once)
    assert sorted((u.source, u.target, u.kind, u.line, u.column) for u in uses if u.source in ("m.f", "m.g")) == [
        ("m.f", "builtins.int.bit_length", "calls", 11, 19), ("m.f", "m.A", "references", 10, 9),
        ("m.f", "m.A.b", "references", 11, 13), ("m.f", "m.B.c", "references", 11, 15),
        ("m.f", "m.C.n", "references", 11, 17), ("m.g", "builtins.dict.keys", "calls", 14, 22),
        ("m.g", "m.A", "references", 13, 9)]


# --- the recursion limit and threads ----------------------------------------------------------


def _recurse(n: int) -> int:
    return 0 if n == 0 else 1 + _recurse(n - 1)


def _in_thread(fn):
    import threading

    out = []

    def run():
        try:
            out.append(fn())
        except RecursionError:
            out.append("too deep")

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return out[0]


def test_a_stage_in_a_thread_has_its_frames_whatever_the_limit_of_the_moment():
    import sys

    from analysis import parse as parsing

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(old + 4000)  # as another thread's parse (or a leak) left it for the moment
    try:
        deep = _in_thread(lambda: parsing.staged(lambda: _recurse(parsing.STAGE_FRAMES + 200)))
        shallow = _in_thread(lambda: parsing.staged(lambda: _recurse(parsing.STAGE_FRAMES - 200)))
    finally:
        sys.setrecursionlimit(old)
    # as in the main thread (and a command's, a pool worker's): the stage's own frames, no more
    assert (deep, shallow) == ("too deep", parsing.STAGE_FRAMES - 200)
    # a stage called near the bottom of a fresh thread's stack does not lower the limit that other
    # threads' code runs under meanwhile (it goes down to where its frames end at that limit)
    assert _in_thread(lambda: parsing.staged(sys.getrecursionlimit)) >= old


def test_a_file_is_too_deep_in_a_server_thread_where_it_is_in_a_command():
    import sys

    from analysis.resolver import analyse_module

    def too_deep(n: int) -> bool:
        source = "def f(a=" + "-" * n + "1):\n    return a\n"  # unparsing the default recurses
        return any(p.kind == "too-deep" for p in analyse_module(source.encode(), "d.py", "d").problems)

    sizes = range(250, 651, 100)
    here = [too_deep(n) for n in sizes]
    assert True in here and False in here  # (the sizes span the boundary)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(old + 2000)  # another request's parse in force meanwhile
    try:
        there = _in_thread(lambda: [too_deep(n) for n in sizes])
    finally:
        sys.setrecursionlimit(old)
    assert there == here


def test_a_stage_and_a_parse_in_two_threads_leave_the_limit_as_they_found_it():
    import sys
    import threading

    from analysis import parse as parsing

    before = sys.getrecursionlimit()
    inside, done = threading.Event(), threading.Event()

    def hold(_tree):
        inside.set()
        done.wait(5)  # (a timer ends it: the main thread's stage may be waiting for this parse)

    t = threading.Thread(target=lambda: parsing.parse("x = 1\n", table=hold))
    t.start()
    inside.wait(5)
    threading.Timer(0.2, done.set).start()
    parsing.staged(t.join)  # used to save the parse's raised limit, and put it back after the parse ended
    t.join()
    after = sys.getrecursionlimit()
    sys.setrecursionlimit(before)  # (for the tests after this one, should it fail)
    assert after == before


def test_only_the_shadowed_name_of_a_folder_is_named_from_the_workspace(tmp_path):
    # tests/unit and tests/e2e both give 'conftest' (and two 'app' packages): those are named apart;
    # a test module's sibling helper, a name one folder gives, keeps the name its importer uses
    _write(tmp_path, {"tests/unit/conftest.py": "", "tests/e2e/conftest.py": "",
                      "tests/unit/helpers.py": "def h():\n    return 1\n",
                      "tests/unit/test_a.py": "from helpers import h\n\ndef test_a():\n    assert h()\n",
                      "s1/app/__init__.py": "", "s1/app/models.py": "", "s2/app/__init__.py": "",
                      "s2/app/views.py": ""})
    ws = Workspace(tmp_path)
    names = {p: ws.module_of(p).module for p in ws.python_files()}
    assert names == {"tests/unit/conftest.py": "tests.unit.conftest", "tests/e2e/conftest.py": "tests.e2e.conftest",
                     "tests/unit/helpers.py": "helpers", "tests/unit/test_a.py": "test_a",
                     "s1/app/__init__.py": "s1.app", "s1/app/models.py": "s1.app.models",
                     "s2/app/__init__.py": "s2.app", "s2/app/views.py": "s2.app.views"}
    refs = _view("references", "helpers.h", tmp_path)
    assert "tests/unit/test_a.py" in refs["files"]


# --- a bare import from inside a renamed folder (fix22e) -------------------------------------

_SAME_FOLDERS = {"semaprax.toml": "[project]\nname = 'same'\n",
                 "a/util.py": "def fa():\n    return 1\n", "a/main.py": "import util\n\nutil.fa()\n",
                 "b/util.py": "def fb():\n    return 2\n", "b/main.py": "from util import fb\n\nfb()\n"}
_HELPERS = {"pyproject.toml": "[project]\nname = 'pkg'\nversion = '1'\n", "pkg/__init__.py": "",
            "tests/unit/helpers.py": "def make():\n    return 1\n",
            "tests/unit/test_unit.py": "from helpers import make\n\ndef test_x():\n    assert make()\n",
            "tests/e2e/helpers.py": "def make():\n    return 2\n",
            "tests/e2e/test_e2e.py": "import helpers as h\n\ndef test_y():\n    assert h.make()\n"}
_MONO = {"semaprax.toml": "[project]\nname = 'mono'\n",
         "backend/app/__init__.py": "", "backend/app/models.py": "def save():\n    return 1\n",
         "backend/app/views.py": "from app.models import save\n\ndef handle():\n    return save()\n",
         "worker/app/__init__.py": "", "worker/app/models.py": "def save():\n    return 2\n",
         "worker/app/views.py": "import app.models\n\ndef handle():\n    return app.models.save()\n"}


def _graph_both_ways(tmp_path, monkeypatch, manifest):
    """project-graph as the outlines give it and as the full index does (the same bytes)."""
    from analysis import filecache
    from analysis.index import index_of
    from views import project_graph

    monkeypatch.setattr(filecache, "use_disk", False)
    fast = _view("project-graph", manifest, tmp_path)
    monkeypatch.setattr(project_graph, "_kept_index", lambda ws, files: index_of(ws, files))
    assert _view("project-graph", manifest, tmp_path) == fast
    return fast



@pytest.mark.parametrize("files, manifest, edges, reached", [
    (_SAME_FOLDERS, "semaprax.toml", {"a.main": ["a.util"], "b.main": ["b.util"]},
     {"a.util.fa": "a/main.py", "b.util.fb": "b/main.py"}),
    (_HELPERS, "pyproject.toml", {"test_e2e": ["tests.e2e.helpers"], "test_unit": ["tests.unit.helpers"]},
     {"tests.unit.helpers.make": "tests/unit/test_unit.py", "tests.e2e.helpers.make": "tests/e2e/test_e2e.py"}),
    (_MONO, "semaprax.toml", {"backend.app.views": ["backend.app.models"], "worker.app.views": ["worker.app", "worker.app.models"]},
     {"backend.app.models.save": "backend/app/views.py", "worker.app.models.save": "worker/app/views.py"}),
])
def test_a_bare_import_reaches_the_module_of_the_files_own_folder(tmp_path, monkeypatch, files, manifest, edges,
                                                                   reached):
    # Python puts a script's own folder (pytest: a test file's first folder without __init__.py; a package
    # module: the folder above its package) first on sys.path: `import util` in a/main.py is a/util.py
    _write(tmp_path, files)
    assert _view("diagnostics", manifest, tmp_path)["rows"] == []  # no unresolved-import
    graph = _graph_both_ways(tmp_path, monkeypatch, manifest)
    assert graph["imports"] == edges and graph["external"] == {}
    for symbol, caller in reached.items():
        where = _view("references", symbol, tmp_path)["files"]
        assert list(where) == [caller]  # the caller, and not the other folder's
        context = _view("task-context", symbol, tmp_path)
        assert caller in json.dumps([context.get("callers"), context.get("tests")])


def test_only_renamed_names_of_the_files_own_folder_are_mapped(tmp_path, monkeypatch):
    # which names are the standard library's is bundled data, not the running interpreter's
    monkeypatch.setattr(sys, "stdlib_module_names", frozenset())
    _write(tmp_path, {**_SAME_FOLDERS, "a/types.py": "", "b/types.py": "", "c/run.py": "import util\nimport types\n",
                      "a/rel/__init__.py": "from . import util\n"})
    ws = Workspace(tmp_path)
    assert ws.module_of("a/main.py").renamed == (("main", "a.main"), ("rel", "a.rel"), ("util", "a.util"))  # no types
    assert "util" not in dict(ws.module_of("c/run.py").renamed)  # c/ has none: unresolved, not a's or b's
    rows = _view("diagnostics", "semaprax.toml", tmp_path)["rows"]
    assert [(r[0], r[3]) for r in rows if r[3] != "unused-import"] == [("c/run.py", "unresolved-import")]


def test_a_listed_folder_is_a_root_and_a_pyproject_beside_it_names_the_modules(tmp_path):
    # sources = ["src/acme"]: src/acme is on sys.path, so src/acme/user.py is `user`; beside a
    # pyproject.toml (src layout, acme a namespace package) it is `acme.user` in either manifest's views
    files = {"semaprax.toml": "[project]\nname = 'acme'\nsources = ['src/acme', 'tests']\n",
             "src/acme/user.py": "from acme.tools.leaf import grow\n\ndef use():\n    return grow()\n",
             "src/acme/tools/leaf.py": "def grow():\n    return 1\n",
             "tests/test_u.py": "from acme.user import use\n\ndef test_u():\n    use()\n"}
    _write(tmp_path / "alone", files)
    ws = Workspace(tmp_path / "alone")
    assert [ws.module_of(p).module for p in ("src/acme/user.py", "src/acme/tools/leaf.py")] == ["user", "tools.leaf"]
    _write(tmp_path / "both", {**files, "pyproject.toml": "[project]\nname = 'acme'\nversion = '1'\n"})
    ws = Workspace(tmp_path / "both")
    assert [ws.module_of(p).module for p in ("src/acme/user.py", "src/acme/tools/leaf.py")] == \
        ["acme.user", "acme.tools.leaf"]
    graphs = {m: _view("project-graph", m, tmp_path / "both") for m in ("pyproject.toml", "semaprax.toml")}
    assert graphs["semaprax.toml"]["imports"] == graphs["pyproject.toml"]["imports"] == \
        {"acme.user": ["acme.tools.leaf"], "test_u": ["acme.user"]}
    (tmp_path / "both" / "semaprax.toml").unlink()  # the pyproject.toml's views do not depend on it
    assert _view("project-graph", "pyproject.toml", tmp_path / "both") == graphs["pyproject.toml"]
