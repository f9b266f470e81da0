"""project-graph reads each file's outline (analysis/outline.py, analysis/outlines.py)
instead of the full workspace index (issue 22: its cold time): the bytes must be
the ones the full index gives, for every awkward file and import, and each file
is read again only when it changes."""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

import pytest
from workspacekit import write_files

from analysis import filecache, outlines
from analysis.filecache import RecordStore
from analysis.index import index_of
from analysis.outline import PROBE_FRAMES, read_outline
from analysis.resolver import ClassInfo, _Analyser, analyse_module, definition_order
from analysis.sources import Workspace
from codec import ENCODERS
from servers.route import make_projection
from views import project_graph

#: Too deep for the analysis's last stage (resolving the uses: spelling the expression), not to
#: parse or declare; a stub too deep to declare.
DEEP = '"""Deep."""\nimport b\n\ndef f(a):\n    return (' + "-" * 400 + "a).real\n"
DEEP_STUB = "def f(a=" + "-" * 610 + "1): ...\n"

AWKWARD: dict[str, str | bytes] = {
    "semaprax.toml": "[project]\nname = 'awk'\ndependencies = ['attrs']\n\n[project.scripts]\nawk = 'app.cli:main'\n",
    "app/__init__.py": '"""The app. More words."""\nfrom .core import run\nfrom . import util\n',
    "app/__main__.py": "from app.cli import main\n\nmain()\n",
    "app/core.py": ('"""Core: runs things.\n\nLonger text."""\nfrom __future__ import annotations\n'
                    "import os.path\nimport app.sub.deep\nfrom .util import *\nfrom ..beyond import nothing\n\n\n"
                    "def run():\n    import json\n    try:\n        import tomllib\n    except ImportError:\n"
                    "        tomllib = None\n    if json:\n        from app.sub import deep as d\n"
                    "    class K:\n        from collections import OrderedDict\n    return d, K, tomllib\n"),
    "app/util.py": "def helper():  \"One line, first.\"\nx = 1\n",
    "app/cli.py": ("import sys\nfrom app import core\n\ndef main():\n    core.run()\n\n"
                   "try:\n    if __name__ == '__main__':\n        main()\nexcept Exception:\n    raise\n"),
    "app/sub/__init__.py": "",
    "app/sub/deep.py": "from ... import core\nfrom .. import util as u\nimport app.sub\n",
    "app/sub/stubbed.py": "def make(kind):\n    return kind\n",
    "app/sub/stubbed.pyi": "import typing\ndef make(kind: str) -> str: ...\n",
    "nsroot/inner/leaf.py": "from other import grow2\n\ndef grow(n):\n    return n + 1\n",
    "other.py": "def grow2():\n    return 2\n",
    "user.py": ("import nsroot.inner.leaf\nfrom nsroot.inner.leaf import grow\nfrom nsroot.inner.leaf import grow2\n"
                "from nsroot.inner import leaf\n\ndef f():\n    if __name__ == '__main__':\n        pass\n"),
    "broken.py": "import os\ndef f(:\n",
    "scoped.py": "import os\n\ndef f():\n    nonlocal x\n",  # a syntax error only symtable finds
    "toodeep.py": "import os\nx = " + "not " * 7000 + "y\n",  # too deep to parse
    "script.py": "import sys\nif __name__ == '__main__':\n    sys.exit(0)\n",
}


def _both(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, bytes], dict[str, bytes], list[str]]:
    """project-graph in every wire form as the outlines give it and as the full
    index gives it, and which readings the first one took."""
    took: list[str] = []
    real = outlines.outline_of

    def outline_of(*args, **kwargs):
        made = real(*args, **kwargs)
        took.append("outline" if made.sure else "unsure")
        return made

    def index(ws, files):
        took.append("index")
        return index_of(ws, files)

    monkeypatch.setattr(outlines, "outline_of", outline_of)
    monkeypatch.setattr(project_graph, "index_of", index)
    monkeypatch.setattr(filecache, "use_disk", False)
    fast = make_projection("project-graph", "semaprax.toml", folder)
    monkeypatch.setattr(project_graph, "_kept_index", lambda ws, files: index_of(ws, files))
    full = make_projection("project-graph", "semaprax.toml", folder)
    return ({f: ENCODERS[f](fast) for f in ENCODERS}, {f: ENCODERS[f](full) for f in ENCODERS}, took)


def test_the_outlines_give_the_full_indexs_bytes(tmp_path, monkeypatch):
    files = dict(AWKWARD)
    ws = write_files(tmp_path / "ws", files)
    if sys.platform == "linux":  # a name that is not UTF-8: skipped by either reading, with a note
        (ws / "caf\udce9.py").write_bytes(b"import os\n")
    fast, full, took = _both(ws, monkeypatch)
    assert took == ["outline"]
    assert fast == full
    assert b'"nsroot.inner.leaf"' in fast["json"] and b'"app.sub.deep"' in fast["json"]


#: Source roots below the manifest (``sources = ["src"]``): a module is also reached by its path
#: from the workspace folder (``src.tools.leaf`` is ``tools.leaf``, analysis/index.py's namespace
#: aliases), and from there through the re-exports of the module it reaches.
NAMESPACED: dict[str, str | bytes] = {
    "semaprax.toml": "[project]\nname = 'ns'\nsources = ['src']\n",
    "src/tools/leaf.py": "from other import grow2\n\ndef grow(n):\n    return n + 1\n",
    "src/other.py": "def grow2():\n    return 2\n",
    "src/user.py": "import src.tools.leaf\nfrom src.tools.leaf import grow2\n",
}


def test_names_reached_through_a_source_roots_path_are_the_full_indexs(tmp_path, monkeypatch):
    ws = write_files(tmp_path / "ws", NAMESPACED)
    fast, full, took = _both(ws, monkeypatch)
    assert took == ["outline"]
    assert fast == full
    assert b'"user":["other","tools.leaf"]' in fast["json"]  # grow2 through leaf's re-export: other


@pytest.mark.parametrize("extra", [
    {"deep.py": DEEP},  # nested deep enough for the analysis's later stages to fail
    {"big.py": '"""Big."""\nimport b\n\ndef f(a):\n    return (0x' + "f" * 5000 + " + a).b()\n"},  # beyond repr's digits: fails late
    {"deepstub.py": '"""Stubbed."""\nimport b\n\ndef f(a):\n    return a\n', "deepstub.pyi": DEEP_STUB},
    # a name reached through a source root's path that may be another name of a class
    {"semaprax.toml": "[project]\nname = 'x'\nsources = ['src']\n",
     "src/kinds.py": "from other import Kind\nAlias = Kind\n",
     "src/other.py": "class Kind:\n    pass\n", "src/user.py": "from src.kinds import Alias\n"},
], ids=["deep", "long-literal", "deep-stub", "class-alias"])
def test_where_an_outline_is_unsure_the_full_index_says_it(tmp_path, monkeypatch, extra):
    ws = write_files(tmp_path / "ws", {"semaprax.toml": "[project]\nname = 'x'\n", "a.py": "import b\n",
                                       "b.py": '"""B."""\n', **extra})
    fast, full, took = _both(ws, monkeypatch)
    # (the class alias: the outlines are sure of every file, not of the name on the way)
    assert took == ["outline" if "src/user.py" in extra else "unsure", "index"]
    assert fast == full


def test_a_second_run_replays_every_outline_and_an_edit_reads_one_file(tmp_path):
    ws = write_files(tmp_path / "ws", AWKWARD)
    files = Workspace(ws).python_files()

    def run() -> tuple[int, int, int, list[tuple[str, int, str]]]:
        store = RecordStore(tmp_path / "cache", ClassInfo)  # a new process: records from disk only
        made = outlines.outline_of(Workspace(ws), files, store, processes=1)
        return made.read, made.replayed, store.misses, [(o.module, o.lines, o.doc) for o in made.modules]

    first = run()
    assert first[:3] == (len(files), 0, len(files))
    assert run() == (0, len(files), 0, first[3])
    (ws / "app" / "util.py").write_text("def helper():\n    return 2\n")
    read, replayed, misses, modules = run()
    assert (read, replayed, misses) == (1, len(files) - 1, 1)
    assert ("app.util", 2, "") in modules and modules != first[3]


SHAPES = {
    "unary": lambda n: "def f(a=" + "-" * n + "1):\n    return (" + "-" * n + "a).real\n",
    "calls": lambda n: "x = (" + "f(" * n + "1" + ")" * n + ").a.b()\n",
    "lists": lambda n: "def g():\n    return (" + "[" * n + "]" * n + ").count(1)\n",
    "conditional": lambda n: "def g():\n    return (" + "a if b else " * n + "c).real()\n",
    "power": lambda n: "x = (" + "2**" * n + "2).real\n",
    "binary": lambda n: "def f(a=" + "1+" * n + "1):\n    return (" + "1+" * n + "1).real\n",
    "lambdas": lambda n: "x = " + "lambda: " * n + "1\n",
    "annotation": lambda n: "def f(a: " + "list[" * n + "int" + "]" * n + "): pass\n",
    "concatenation": lambda n: "x = " + " + ".join(["'a'"] * n) + "\n",
    "spelled-chain": lambda n: "def g(b):\n    return (" + " + ".join(["b.c"] * n) + ").d()\n",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_outline_is_sure_only_of_trees_the_full_analysis_reads(shape):
    # from shallow to past where the full analysis's stages meet their limit (about 320 levels of the
    # deepest-recursing shapes): wherever the outline is sure, it says what the analysis says
    sure_at = []
    for n in range(PROBE_FRAMES, 400, 40):
        source = ('"""Doc."""\nimport os\n' + SHAPES[shape](n)).encode()
        lines, doc, imports, has_main, _variables, read, sure = read_outline(source, "m.py", "m", False, None)
        if not sure:
            continue
        sure_at.append(n)
        a = analyse_module(source, "m.py", "m")
        assert (lines, doc, read, has_main) == (a.lines, a.definitions[0].doc, a.unread is None, a.has_main), n
        assert [i[:4] for i in imports] == [(i.local, i.target, i.line, i.module) for i in a.imports]
    assert PROBE_FRAMES in sure_at  # (the shallowest is read)


def test_hex_digits_in_a_string_or_comment_and_a_flat_chain_leave_an_outline_sure():
    def sure(source: str, stub: str | None = None) -> bool:
        return read_outline(source.encode(), "m.py", "m", False, None if stub is None else stub.encode())[6]

    hexes = "f" * 1200
    assert sure(f'KEY = "0x{hexes}"\n') and sure(f"# 0x{hexes}\nx = 1\n") and sure("x = 1\n", f"# 0x{hexes}\n")
    assert sure("x = " + " + ".join(["'a'"] * 130) + "\n")
    assert not sure(f"x = 0x{hexes}\n") and not sure("x = 1\n", f"x: int = 0b{'1' * 4000}\n")
    assert sure(f"x = 0x{'f' * 800}\n")  # 964 decimal digits


def test_a_damaged_outline_record_is_read_again(tmp_path):
    ws = write_files(tmp_path / "ws", AWKWARD)
    files = Workspace(ws).python_files()
    cache = tmp_path / "cache"
    first = outlines.outline_of(Workspace(ws), files, RecordStore(cache, ClassInfo), processes=1)
    records = sorted(p for p in cache.rglob("*") if p.is_file())
    # the right shape and version, the wrong content (an import of one field), and random bytes
    records[0].write_bytes(marshal.dumps((filecache.analyser_version(), "outline",
                                          (3, "", (("a",),), False, (), True, True))))
    records[1].write_bytes(b"\x00garbage")
    again = outlines.outline_of(Workspace(ws), files, RecordStore(cache, ClassInfo), processes=1)
    assert (again.read, again.replayed) == (2, len(files) - 2) and again.modules == first.modules


def test_a_server_holding_the_index_reads_it_and_gives_the_same_bytes(tmp_path, monkeypatch):
    from analysis.warm import IndexCache

    ws = write_files(tmp_path / "ws", {"semaprax.toml": "[project]\nname = 'x'\n", "a.py": "import b\n\nb.f()\n",
                                       "b.py": '"""B."""\ndef f():\n    pass\n'})
    monkeypatch.setattr(filecache, "use_disk", False)
    cold = make_projection("project-graph", "semaprax.toml", ws)
    cache = IndexCache(freeze=False)
    outlined: list[object] = []
    real = outlines.outline_of
    def outline_of(*args, **kwargs):
        outlined.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(outlines, "outline_of", outline_of)
    assert make_projection("project-graph", "semaprax.toml", ws, index_cache=cache) == cold  # no index yet
    assert len(outlined) == 1 and cache.stats.builds == 0
    make_projection("references", "b.f", ws, index_cache=cache)  # the server builds the index
    assert make_projection("project-graph", "semaprax.toml", ws, index_cache=cache) == cold
    assert len(outlined) == 1 and (cache.stats.builds, cache.stats.hits) == (1, 1)


def test_progress_is_reported_on_a_large_workspace(tmp_path, monkeypatch):
    from analysis import index

    ws = write_files(tmp_path / "ws", {f"m{i}.py": f"import m{i - 1}\n" if i else "" for i in range(60)})
    said: list[tuple[int, int]] = []
    monkeypatch.setattr(index, "progress_hook", lambda done, total: said.append((done, total)))
    made = outlines.outline_of(Workspace(ws), Workspace(ws).python_files(), RecordStore(None, ClassInfo), 1)
    assert made.read == 60 and said[-1] == (60, 60) and said[0] == (25, 60)


def test_an_outline_declares_the_imports_the_full_declaring_does():
    # every file of the awkward workspace and of this repository's analysis/ and views/: the same
    # imports (in order, with their scopes), __main__ guard and doc as the resolver's whole declare stage
    root = Path(__file__).resolve().parents[2]
    sources = {rel: text.encode() if isinstance(text, str) else text for rel, text in AWKWARD.items()
               if rel.endswith(".py")}
    sources.update({str(p.relative_to(root)): p.read_bytes()
                    for p in sorted((root / "analysis").glob("*.py")) + sorted((root / "views").glob("*.py"))})
    for rel, data in sources.items():
        module = rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        package = rel.endswith("__init__.py")
        lines, doc, imports, has_main, _variables, read, sure = read_outline(data, rel, module, package, None)
        full = _Analyser(data, rel, module, package, None, None)
        if not full.parse():
            assert not read, rel
            continue
        full.declare()
        assert sure and read, rel
        assert imports == tuple((i.local, i.target, i.line, i.module, i.scope) for i in full.imports), rel
        assert (lines, doc, has_main) == (len(full.text_lines), min(full.definitions, key=definition_order).doc,
                                          full.has_main), rel
