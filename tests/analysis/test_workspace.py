"""The workspace producers on a small fixture workspace: exact views, name
resolution, determinism across processes, the CLI end to end, and replay."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import codec
from analysis.resolver import analyse_module
from analysis.sources import WorkspaceError, source_revision
from servers.route import make_projection

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "fixtures" / "demo"
BROKEN = ROOT / "tests" / "fixtures" / "broken"

EXPECTED = {
    ("graph", "pkg/core.py"): {'path': 'pkg/core.py', 'lines': 22, 'doc': 'Core.', 'imports': {'os': 'os', 'h': 'pkg.util.helper', 'util': 'pkg.util'}, 'definitions': {'columns': ['lines', 'name', 'calls', 'references', 'inherits', 'doc'], 'rows': [[[6, 8], 'class Base'], [[7, 8], '.start() -> int', [], ['int']], [[10, 16], 'class Engine(Base)', [], [], ['.Base'], 'An engine.'], [[12, 13], '.__init__(name: str) -> None', [], ['str']], [13, '.name'], [[14, 16], '.run() -> str', ['os.path.join', '.Base.start', 'h'], ['str', '^name']], [[19, 22], 'build() -> Engine', ['.Engine', '.Engine.run'], ['.Engine']]]}},
    ("symbols", "pkg/core.py"): {'root': 'pkg/core.py', 'columns': ['name', 'kind', 'line', 'signature'], 'modules': [{'path': 'pkg/core.py', 'symbols': [['Base', 'class', 6], ['Base.start', 'method', 7, '(self) -> int'], ['Engine', 'class', 10, '(Base)'], ['Engine.__init__', 'method', 12, '(self, name: str) -> None'], ['Engine.name', 'attribute', 13], ['Engine.run', 'method', 14, '(self) -> str'], ['build', 'function', 19, '() -> Engine']]}]},
    ("diagnostics", "pkg/core.py"): {'root': 'pkg/core.py', 'columns': ['line', 'column', 'message'], 'files': {'pkg/core.py': {'unused-import': [[4, 1, "'pkg.util' imported as 'util' is never used"]]}}},
    ("project-graph", "semaprax.toml"): {'project': 'demo', 'manifest': 'semaprax.toml', 'modules': {'columns': ['path', 'lines', 'doc'], 'rows': [['app.py', 14], ['pkg/__init__.py', 3], ['pkg/core.py', 22, 'Core.'], ['pkg/util.py', 6]]}, 'imports': {'app': ['pkg', 'pkg.core', 'pkg.util'], 'pkg': ['pkg.core'], 'pkg.core': ['pkg.util']}, 'external': {'json': ['app'], 'os': ['pkg.core'], 'requests': ['app']}, 'entry_points': {'app': '__main__'}},
    ("diagnostics", "semaprax.toml"): {'root': 'semaprax.toml', 'columns': ['line', 'column', 'message'], 'files': {'app.py': {'unresolved-import': [[4, 1, "cannot resolve import of 'requests'"]], 'unused-import': [[3, 1, "'json' imported as 'json' is never used"], [4, 1, "'requests' imported as 'requests' is never used"]]}, 'pkg/core.py': {'unused-import': [[4, 1, "'pkg.util' imported as 'util' is never used"]]}, 'pkg/util.py': {'redefinition': [[5, 1, "'helper' redefines the definition at line 1"]], 'unresolved-name': [[6, 12, "name 'missing_name' is not defined"]]}}},
    ("task-context", "pkg.core.Engine.run"): {'symbol': 'pkg.core.Engine.run', 'kind': 'method', 'path': 'pkg/core.py', 'lines': [14, 16], 'signature': '(self) -> str', 'source': '    def run(self) -> str:\n        self.start()\n        return h(os.path.join(self.name, "x"))', 'class': {'name': 'pkg.core.Engine', 'signature': '(Base)', 'doc': 'An engine.', 'members': {'__init__': '(self, name: str) -> None', 'name': 'attribute'}}, 'self': {'reads': ['name', 'start']}, 'callees': {'os.path.join': '', 'pkg.core.Base.start': '(self) -> int', 'pkg.util.helper': '(x)'}, 'callers': {'columns': ['name', 'path', 'line', 'signature'], 'rows': [['app.main', 'app.py', 9, '()'], ['pkg.core.build', 'pkg/core.py', 21, '() -> Engine']]}, 'types': {'builtins.str': 'builtin'}, 'imports': {'h': 'pkg.util.helper', 'os': 'os'}},
    ("references", "pkg.core.Engine.run"): {'symbol': 'pkg.core.Engine.run', 'kind': 'method', 'defined': ['pkg/core.py', 14], 'files': {'app.py': {'calls': {'.main': [9]}}, 'pkg/core.py': {'calls': {'.build': [21]}}}},
}


@pytest.mark.parametrize("profile, root", sorted(EXPECTED))
def test_exact_views_of_the_demo_workspace(profile, root):
    p = make_projection(profile, root, DEMO)
    assert json.loads(p.selected) == EXPECTED[(profile, root)]
    assert p.selected == codec.canonical_json(EXPECTED[(profile, root)])


def test_revision_covers_exactly_the_files_read():
    # the package's __init__.py decides the module's name, so it is read too
    files = {name: (DEMO / name).read_bytes() for name in ("pkg/core.py", "pkg/__init__.py")}
    assert make_projection("graph", "pkg/core.py", DEMO).source_revision == source_revision(files)
    everything = {p: (DEMO / p).read_bytes() for p in
                  ("semaprax.toml", "app.py", "pkg/__init__.py", "pkg/core.py", "pkg/util.py")}
    assert make_projection("project-graph", "semaprax.toml", DEMO).source_revision == source_revision(everything)


def test_source_revision_formula():
    import hashlib

    data = {"b/x.py": b"x", "a.py": b"yy"}
    h = hashlib.sha256(b"semaprax/source-revision/v1\x00")
    h.update(b"a.py\x00" + (2).to_bytes(8, "big") + b"yy")
    h.update(b"b/x.py\x00" + (1).to_bytes(8, "big") + b"x")
    assert source_revision(data) == "sha256:" + h.hexdigest()


def test_syntax_error_still_gives_graph_and_diagnostics():
    graph = json.loads(make_projection("graph", "bad.py", BROKEN).selected)
    assert graph["errors"] == [[4, 9, "syntax error: invalid syntax"]]
    diag = json.loads(make_projection("diagnostics", "bad.py", BROKEN).selected)
    assert diag["files"] == {"bad.py": {"syntax-error": [[4, 9, "syntax error: invalid syntax"]]}}


@pytest.mark.parametrize(
    "profile, root, words",
    [
        ("graph", "pkg/cor.py", "did you mean 'pkg/core.py'"),
        ("graph", "pkg", "is not a .py file"),
        ("task-context", "pkg.core.Engine.runn", "did you mean 'pkg.core.Engine.run'"),
        ("references", "nothing.here", "is not defined in the workspace"),
        ("project-graph", "missing.toml", "not a project manifest"),
        ("graph", "../outside.py", "leaves the workspace"),
    ],
)
def test_bad_roots_are_clear_errors(profile, root, words):
    with pytest.raises(WorkspaceError) as info:
        make_projection(profile, root, DEMO)
    assert words in str(info.value)


def _uses(source: str, module: str = "pkg.mod", path: str = "pkg/mod.py", is_package: bool = False):
    a = analyse_module(source.encode(), path, module, is_package=is_package)
    return {(u.source.removeprefix(module + "."), u.kind, u.target) for u in a.uses}, a


def test_resolution_of_imports_aliases_and_relative_imports():
    uses, _ = _uses(
        "import a.b\nimport a.b as ab\nfrom .x import y as z\nfrom ..top import t\nfrom . import sib\n"
        "def f():\n    a.b.c()\n    ab.d()\n    z()\n    t.m()\n    sib.g()\n",
        module="pkg.sub.mod", path="pkg/sub/mod.py",
    )
    calls = {t for s, k, t in uses if k == "calls"}
    assert calls == {"a.b.c", "a.b.d", "pkg.sub.x.y", "pkg.top.t.m", "pkg.sub.sib.g"}
    beyond = analyse_module(b"from ... import x\n", "m.py", "m")
    assert [p.kind for p in beyond.problems] == ["unresolved-import"]


def test_resolution_of_methods_inheritance_and_typed_locals():
    uses, _ = _uses(
        "class A:\n    def a(self): pass\n    @classmethod\n    def make(cls): return cls.a\n"
        "class B(A):\n    def b(self):\n        self.a()\n        self.b()\n        super().a()\n"
        "def f(x: B, y: 'A | None'):\n    x.a()\n    y.a()\n    z = B()\n    z.b()\n    w = []\n    w.append(1)\n"
        "    q = unknown()\n    q.go()\n"
    )
    calls = {(s, t) for s, k, t in uses if k == "calls"}
    assert ("B.b", "pkg.mod.A.a") in calls and ("B.b", "pkg.mod.B.b") in calls
    assert ("f", "pkg.mod.A.a") in calls and ("f", "pkg.mod.B.b") in calls
    assert ("f", "builtins.list.append") in calls
    assert ("f", "?q.go") in calls and ("f", "?unknown") in calls
    assert ("B", "inherits", "pkg.mod.A") in uses
    assert ("A.make", "references", "pkg.mod.A.a") in uses


def test_decorators_and_class_scope_rules():
    uses, a = _uses(
        "import functools\nclass C:\n    x = 1\n    y = [x]\n    def m(self):\n        return x\n"
        "    @functools.cache\n    def n(self): pass\n    @property\n    def p(self): return 1\n"
    )
    assert ("C.n", "references", "functools.cache") in uses
    assert ("C.p", "references", "builtins.property") in uses
    # class scope is invisible inside methods: 'x' in m is not C.x
    assert ("C.m", "references", "?x") in uses
    assert any(p.kind == "unresolved-name" and "'x'" in p.message for p in a.problems)


def test_comprehension_scopes_and_first_iterable():
    _, a = _uses("def f(rows):\n    return [r for r in rows] + [(k, v) for k, v in {}.items()]\n")
    assert not a.problems


def test_string_annotations_count_as_uses():
    _, a = _uses("from .x import T\ndef f(a: 'T') -> 'list[T]':\n    return [a]\n")
    assert [p for p in a.problems if p.kind == "unused-import"] == []


def _run(args, cwd=ROOT, env=None, stdin=None):
    return subprocess.run(check=False, args=[sys.executable, "-m", "semaprax", *args], cwd=cwd, capture_output=True,
                          timeout=120, env=env, input=stdin)


def test_same_bytes_across_processes_with_different_hash_seeds():
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        r = _run(["project", "semaprax.toml", "--profile", "project-graph", "--encoding", "model-text",
                  "--workspace", str(DEMO)], env=env)
        assert r.returncode == 0, r.stderr
        outputs.add(r.stdout)
        r = _run(["project", "pkg.core.Engine.run", "--profile", "task-context", "--workspace", str(DEMO)], env=env)
        outputs.add(r.stdout)
    assert len(outputs) == 2


@pytest.mark.parametrize("encoding", ["json", "text", "model-text"])
def test_cli_project_every_encoding_decodes_back(encoding, tmp_path):
    out = tmp_path / "wire"
    r = _run(["project", "pkg/core.py", "--profile", "graph", "--encoding", encoding,
              "--workspace", str(DEMO), "-o", str(out)])
    assert r.returncode == 0, r.stderr
    found = codec.decode_wire(out.read_bytes())
    assert found.form == encoding
    assert json.loads(found.selected) == EXPECTED[("graph", "pkg/core.py")]


def test_cli_project_errors():
    r = _run(["project", "pkg/nope.py", "--profile", "graph", "--workspace", str(DEMO)])
    assert r.returncode == 1 and b"does not exist" in r.stderr and b"Traceback" not in r.stderr
    r = _run(["project", "pkg/core.py", "--profile", "callgraph", "--workspace", str(DEMO)])
    assert r.returncode == 2
    r = _run(["project", "pkg/core.py", "--workspace", str(DEMO)])
    assert r.returncode == 2 and b"--profile" in r.stderr
    r = _run(["project", "x.py", "--profile", "graph", "--workspace", "/no/such/dir"])
    assert r.returncode == 1 and b"is not a folder" in r.stderr


def test_replay_succeeds_then_fails_after_an_edit(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(DEMO, ws)
    wire = tmp_path / "graph.model-text"
    assert _run(["project", "pkg/core.py", "--profile", "graph", "--encoding", "model-text",
                 "--workspace", str(ws), "-o", str(wire)]).returncode == 0
    r = _run(["replay", str(wire), "--workspace", str(ws)])
    assert r.returncode == 0 and b"ok: replayed graph view of pkg/core.py" in r.stdout
    # A comment-only edit: the revision changes, the content does not.
    core = ws / "pkg" / "core.py"
    core.write_bytes(core.read_bytes().replace(b"return 1\n", b"return 1  # one\n"))
    r = _run(["replay", str(wire), "--workspace", str(ws)])
    assert r.returncode == 0 and b"source_revision differs" in r.stdout
    # A real edit: a new method changes the view.
    core.write_bytes(core.read_bytes().replace(b"    def run(self)", b"    def walk(self):\n        pass\n    def run(self)"))
    r = _run(["replay", str(wire), "--workspace", str(ws)])
    assert r.returncode == 1
    message = r.stderr.decode()
    assert message.startswith("compact.replay: ") and " at byte " in message
    # the first difference is the line count (22 lines, now 24), shown in context
    assert "wire has '2,\"doc\"" in message and "now gives '4,\"doc\"" in message


def test_replay_of_binary_from_stdin():
    wire = codec.encode_binary(make_projection("symbols", "pkg", DEMO))
    r = _run(["replay", "-", "--workspace", str(DEMO)], stdin=wire)
    assert r.returncode == 0, r.stderr


def test_every_command_has_help():
    for command in ("project", "decode", "verify", "replay", "tokens"):
        r = _run([command, "--help"])
        assert r.returncode == 0 and b"usage: semaprax " + command.encode() in r.stdout


def test_source_with_a_byte_order_mark_and_deep_nesting(tmp_path):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfx = 1\n")
    graph = json.loads(make_projection("graph", "bom.py", tmp_path).selected)
    assert graph["definitions"]["rows"] == [[1, "x"]] and "errors" not in graph
    (tmp_path / "deep.py").write_text("x = " + "+".join(["1"] * 100_000) + "\n")
    diag = json.loads(make_projection("diagnostics", "deep.py", tmp_path).selected)
    assert list(diag["files"]["deep.py"]) == ["too-deep"]  # Python refuses it too, but not as a syntax error


@pytest.mark.parametrize("table, words", [
    ('name = "x"\nscripts = ["a"]', "[project.scripts]"),
    ('name = "x"\ndependencies = "requests>=2"', "dependencies must be a list"),
    ("name = 5", "name must be a string"),
])
def test_malformed_manifests_are_clear_errors(tmp_path, table, words):
    (tmp_path / "pyproject.toml").write_text(f"[project]\n{table}\n")
    with pytest.raises(WorkspaceError) as info:
        make_projection("project-graph", "pyproject.toml", tmp_path)
    assert words in str(info.value)


def test_workspace_folder_as_root():
    assert make_projection("symbols", ".", DEMO).root == "."
    with pytest.raises(WorkspaceError) as info:
        make_projection("project-graph", ".", BROKEN)
    assert "no semaprax.toml or pyproject.toml in '.'" in str(info.value)
