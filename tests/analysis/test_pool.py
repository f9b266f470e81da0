"""Every core (issue 22): a workspace's files analysed in worker processes
(analysis/pool.py) give the index one process gives, whatever the order of
the files; a file whose analysis fails gets a diagnostic; no worker outlives
the build, whatever ends it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from workspacekit import write_files as _write

from analysis import pool as pool_module
from analysis.index import WorkspaceIndex
from analysis.pool import FAILED
from analysis.resolver import _Analyser
from analysis.sources import Workspace

#: Classes told across modules, a circular import, a chain of value types
#: (c.make() returns a b.B whose .a is an a.A), re-exports through a package.
FILES = {
    "pkg/__init__.py": "from .engine import Engine\nfrom .parts import Part\n",
    "pkg/engine.py": ("from pkg.parts import Part\n\nclass Engine:\n    part: Part\n\n"
                      "    def run(self) -> 'Part':\n        return Part()\n"),
    "pkg/parts.py": ("import pkg.engine\n\nclass Part:\n    def spin(self) -> int:\n        return 1\n\n"
                     "    def owner(self) -> 'pkg.engine.Engine':\n        return pkg.engine.Engine()\n"),
    "a.py": "import b\n\nclass A:\n    def go(self) -> int:\n        return 1\n\ndef use(x: 'b.B') -> int:\n"
            "    return x.a.go()\n",
    "b.py": "from a import A\n\nclass B:\n    a: A\n\n    def again(self) -> 'B':\n        return self\n",
    "c.py": "from b import B\nfrom pkg import Engine\n\ndef make() -> B:\n    return B()\n\n"
            "def main() -> None:\n    make().again().a.go()\n    Engine().run().spin()\n    Engine().run().owner().part.spin()\n",
}


@pytest.fixture
def started(monkeypatch) -> Iterator[list[int]]:
    """The process ids of the workers the test's builds start; each one is
    checked to be gone (ended and reaped) after the test."""
    pids: list[int] = []
    real_init = pool_module._Pool.__init__

    def init(self, jobs, size):
        try:
            real_init(self, jobs, size)
        finally:
            pids.extend(p.pid for p in self.procs)

    monkeypatch.setattr(pool_module._Pool, "__init__", init)
    yield pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def _snapshot(index: WorkspaceIndex) -> dict[str, tuple]:
    return {a.module: (a.path, a.definitions, a.uses, a.imports, a.problems, a.has_main, a.lines, a.value_types)
            for a in index.modules}


def _index(folder, processes: int, reverse: bool = False) -> WorkspaceIndex:
    ws = Workspace(folder)
    files = ws.python_files()
    return WorkspaceIndex(ws, files[::-1] if reverse else files, None, processes=processes)


def test_two_processes_and_any_order_give_the_index_one_process_gives(tmp_path, monkeypatch, started):
    ws = _write(tmp_path / "ws", FILES)
    one = _index(ws, 1)
    assert one.processes == 1 and one.parses == len(FILES) and one.analyses == len(FILES)
    targets = {u.target for u in one.by_module["c"].uses}
    # what only the other modules' answers give, through two rounds of telling
    assert {"a.A.go", "b.B.again", "pkg.parts.Part.spin"} <= targets
    assert _snapshot(_index(ws, 1, reverse=True)) == _snapshot(one)
    monkeypatch.setattr(pool_module, "POOL_MIN_FILES", 0)
    two = _index(ws, 2, reverse=True)
    assert two.processes == 2 and two.parses == len(FILES)
    assert _snapshot(two) == _snapshot(one)
    assert len(started) == 1  # one worker: the building process analyses a shard too
    # both processes worked on each stage run, and the building process's share is the smaller
    assert len(two.phases) == two.rounds + 1 and all(len(workers) == 1 for _, workers in two.phases)
    assert sum(mine for mine, _ in two.phases) > 0 and sum(w for _, (w,) in two.phases) > 0


def test_the_building_process_takes_a_smaller_shard_than_a_worker():
    jobs = [pool_module.Job(n, f"m{n}.py", f"m{n}", False, b"x = 1\n" * (100 + n)) for n in range(40)]
    p = pool_module._Pool(jobs, 3)
    try:
        sizes = [sum(len(j.data) for j in jobs if p.shard[j.n] == k) for k in range(3)]
        assert len(p.procs) == 2 and set(p.local.jobs) == {n for n, k in p.shard.items() if k == 0}
        assert 0 < sizes[0] < min(sizes[1:])
        assert sizes[0] / max(sizes[1:]) > pool_module.LOCAL_SHARE - 0.1
    finally:
        p.close()


def test_a_small_workspace_starts_no_pool(tmp_path, started):
    ws = _write(tmp_path / "ws", FILES)
    assert _index(ws, 4).processes == 1  # fewer files than POOL_MIN_FILES
    assert started == []


def test_a_file_whose_analysis_fails_gets_a_diagnostic_and_the_others_their_analysis(tmp_path, monkeypatch):
    ws = _write(tmp_path / "ws", FILES)
    real = _Analyser.finish

    def broken(self: _Analyser):
        if self.path == "b.py":
            raise KeyError("boom")
        return real(self)

    monkeypatch.setattr(_Analyser, "finish", broken)
    index = _index(ws, 1)
    b = index.by_module["b"]
    assert [(p.kind, p.message) for p in b.problems] == [
        (FAILED, "the analysis of this file failed (KeyError: 'boom')")]
    assert [d.qualname for d in b.definitions] == ["b"]
    assert "a.A.go" in {u.target for u in index.by_module["c"].uses}  # b still told what B is


def test_a_worker_that_dies_gives_its_files_a_diagnostic_and_no_process_is_left(tmp_path, monkeypatch, started):
    ws = _write(tmp_path / "ws", FILES)
    monkeypatch.setattr(pool_module, "POOL_MIN_FILES", 0)
    real = pool_module._Pool.run

    def run(self, kind, ns, tables):
        if kind != "prepare":  # finishing (with or without the records' questions)
            self.procs[0].kill()
            self.procs[0].wait()
        return real(self, kind, ns, tables)

    monkeypatch.setattr(pool_module._Pool, "run", run)
    index = _index(ws, 2)
    failed = {a.module for a in index.modules if any(p.kind == FAILED for p in a.problems)}
    assert failed and failed != set(_snapshot(index))
    for a in index.modules:
        if a.module in failed:
            assert a.problems[0].message == "the process analysing it ended (exit status -9)"
    assert len(started) == 1


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_no_worker_outlives_a_build_that_is_interrupted(tmp_path, monkeypatch, started, error):
    ws = _write(tmp_path / "ws", FILES)
    monkeypatch.setattr(pool_module, "POOL_MIN_FILES", 0)

    def interrupted(self, events):
        raise error  # after the first round, in the build's process

    monkeypatch.setattr(pool_module.Tables, "agrees", interrupted)
    with pytest.raises(error):
        _index(ws, 2)
    assert len(started) == 1  # and the fixture checks it is gone


def test_the_order_of_a_circular_import_does_not_make_the_result(tmp_path):
    # a asks whether b.B is a class while it prepares; b asks a's a.x while it prepares and
    # a.A.make()'s class while it resolves. Analysed on demand, b first, b's call went
    # unresolved: a told a.A.make() only when analysed again, after b was settled.
    ws = _write(tmp_path / "ws", {
        "a.py": "from b import B\n\nclass A:\n    def make(self) -> 'B':\n        return B()\n\nx = A()\n",
        "b.py": "import a\n\nclass B:\n    def go(self) -> None:\n        pass\n\ny = a.x\n\n"
                "def use() -> None:\n    a.A().make().go()\n",
    })
    forward, backward = _index(ws, 1), _index(ws, 1, reverse=True)
    assert _snapshot(forward) == _snapshot(backward)
    assert "b.B.go" in {u.target for u in backward.by_module["b"].uses}
    assert dict(backward.by_module["b"].value_types) == {"b.y": "a.A"}


def test_a_worker_imports_this_analysis_whatever_the_working_folder_holds(tmp_path):
    # as the installed `semaprax` script runs: the working folder not on the path, the
    # package found by its installation; a worker must not take the folder's `analysis`
    ws = _write(tmp_path / "ws", FILES)
    _write(tmp_path / "cwd", {"analysis/__init__.py": "raise ImportError('the wrong analysis')\n",
                              "analysis/pool.py": "raise ImportError('the wrong analysis')\n"})
    root = str(Path(__file__).resolve().parents[2])
    code = (f"import sys; sys.path[:] = [p for p in sys.path if p not in ('', {root!r})]\n"
            "from analysis import pool, index\n"
            "from analysis.sources import Workspace\n"
            "pool.POOL_MIN_FILES = 0\n"
            "ws = Workspace(sys.argv[1])\n"
            "built = index.WorkspaceIndex(ws, ws.python_files(), None, processes=2)\n"
            "print(built.processes, sorted(p.kind for a in built.modules for p in a.problems))\n")
    done = subprocess.run([sys.executable, "-P", "-c", code, str(ws)], cwd=tmp_path / "cwd", capture_output=True,
                          text=True, check=True)
    assert done.stdout.split(" ", 1)[0] == "2" and "analysis-failed" not in done.stdout


def test_a_file_too_deep_to_analyse_is_so_in_any_process(tmp_path, monkeypatch, started):
    # the recursion left (unparsing a default of n nested minus signs) meets the limit at some
    # n; each stage gets the same frames wherever it runs, so the same files are too deep
    files = {f"d{n}.py": "def f(a=" + "-" * n + "1):\n    return a\n" for n in range(300, 620, 10)}
    ws = _write(tmp_path / "ws", files)
    monkeypatch.setattr(pool_module, "POOL_MIN_FILES", 0)
    one, two = _index(ws, 1), _index(ws, 2)
    kinds = {a.module: [p.kind for p in a.problems] for a in one.modules}
    assert kinds == {a.module: [p.kind for p in a.problems] for a in two.modules}
    assert kinds["d300"] == [] and kinds["d610"] == ["too-deep"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_killed_build(tmp_path):
    code = ("import sys, time\n"
            "from analysis import pool\n"
            "jobs = [pool.Job(n, f'm{n}.py', f'm{n}', False, b'x = 1\\n') for n in range(4)]\n"
            "p = pool._Pool(jobs, 3)\n"
            "print(' '.join(str(w.pid) for w in p.procs), flush=True)\n"
            "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    assert parent.stdout is not None
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert len(pids) == 2
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        for pid in list(alive):
            try:
                os.kill(pid, 0)
                with open(f"/proc/{pid}/stat") as fh:  # a zombie is gone for our purpose
                    if fh.read().split(")")[-1].split()[0] == "Z":
                        alive.discard(pid)
            except (ProcessLookupError, FileNotFoundError):
                alive.discard(pid)
        time.sleep(0.05)
    assert not alive


#: What the recall round added (tests/analysis/test_stubs.py, test_external_targets.py): a stub
#: beside a module types its results; ``builtin_str = str`` is another name of a class, used
#: through an import; a standard-library function's result reached through a re-export.
RECALL_FILES = {
    "gadgets.py": "class Widget:\n    def draw(self):\n        return 'drawn'\n\n\ndef make(kind):\n    return Widget()\n",
    "gadgets.pyi": "class Widget:\n    def draw(self) -> str: ...\n\ndef make(kind: str) -> Widget: ...\n",
    "compat.py": "from urllib.parse import urlparse\n\nbuiltin_str = str\n",
    "user.py": ("from compat import builtin_str, urlparse\nfrom gadgets import make\n\n\ndef use():\n"
                "    make('x').draw()\n    builtin_str(1).strip()\n    urlparse('u').geturl()\n"),
}


def test_stubs_class_aliases_and_standard_results_reach_every_process_and_order(tmp_path, monkeypatch, started):
    ws = _write(tmp_path / "ws", RECALL_FILES)
    one = _index(ws, 1)
    calls = {u.target for u in one.by_module["user"].uses if u.kind == "calls"}
    assert {"gadgets.Widget.draw", "builtins.str", "builtins.str.strip", "urllib.parse.ParseResult.geturl"} <= calls
    assert _snapshot(_index(ws, 1, reverse=True)) == _snapshot(one)
    monkeypatch.setattr(pool_module, "POOL_MIN_FILES", 0)
    for processes in (2, 3):
        assert _snapshot(_index(ws, processes, reverse=processes == 2)) == _snapshot(one)
    assert len(started) == 3  # workers: one beside the building process, then two


def test_without_a_store_a_workers_records_come_without_their_questions(monkeypatch, started):
    monkeypatch.setattr(pool_module, "POOL_MIN_FILES", 0)
    jobs = [pool_module.Job(n, f"{name}", name.removesuffix(".py").replace("/__init__", "").replace("/", "."),
                            name.endswith("__init__.py"), source.encode())
            for n, (name, source) in enumerate(sorted(FILES.items()))]
    kept = pool_module.solve(jobs, [None] * len(jobs), {}, processes=2)
    bare = pool_module.solve(jobs, [None] * len(jobs), {}, processes=2, keep_events=False)
    assert [r.result for r in bare.records] == [r.result for r in kept.records]
    assert all(r.events for r in kept.records)
    worker = [r for r in bare.records if r.events == ()]
    assert worker and len(worker) < len(bare.records)  # the worker's shard; the building process's keep theirs


def test_a_rounds_tables_carry_the_answers_no_change_reaches():
    """``Tables.carry`` keeps the last round's answers where no key they read
    changed, and forgets the others: each answer is the one fresh tables give
    (a class told anew, a value changed, one removed; reached directly, through
    an alias, and through an alias with a call's suffix)."""
    from analysis.filecache import CLASS, VALUE
    from analysis.resolver import ClassInfo

    def told(classes, values):
        return pool_module.Told({q: ClassInfo(b, frozenset(m)) for q, (b, m) in classes.items()}, values,
                                [("pkg.Engine", "pkg.engine.Engine"), ("pkg.make", "pkg.engine.make")])

    first = [told({"pkg.engine.Engine": ((), {"run"})}, {"pkg.engine.make()": "pkg.engine.Engine",
                                                         "pkg.engine.Engine.part": "pkg.parts.Part"}),
             told({"pkg.parts.Part": ((), {"spin"})}, {"pkg.parts.Part.size": "builtins.int"})]
    second = [told({"pkg.engine.Engine": (("pkg.parts.Part",), {"run", "stop"})},
                   {"pkg.engine.make()": "pkg.parts.Part", "pkg.engine.Engine.part": "pkg.parts.Part"}),
              told({"pkg.parts.Part": ((), {"spin"}), "pkg.parts.Wheel": ((), set())}, {})]
    questions = [(CLASS, q) for q in ("pkg.engine.Engine", "pkg.Engine", "pkg.parts.Part", "pkg.parts.Wheel",
                                      "pkg.parts.Gone")]
    questions += [(VALUE, q) for q in ("pkg.engine.make()", "pkg.make()", "pkg.Engine.part", "pkg.parts.Part.size",
                                       "pkg.make()[]", "pkg.Engine=", "os.getcwd()")]
    before = pool_module.Tables(first, {})
    old = [before.answer(kind, q) for kind, q in questions]
    after = pool_module.Tables(second, {})
    after.carry(before)
    kept = [q for kind, q in questions if q in after._answers[kind]]  # carried over, not to be asked again
    assert "pkg.Engine.part" in kept and "pkg.parts.Part" in kept
    assert "pkg.make()" not in kept and "pkg.Engine" not in kept and "pkg.parts.Part.size" not in kept
    fresh = pool_module.Tables(second, {})
    assert [after.answer(kind, q) for kind, q in questions] == [fresh.answer(kind, q) for kind, q in questions]
    assert [after.answer(kind, q) for kind, q in questions] != old  # the change reached some answers
    assert after.agrees([(kind, q, fresh.answer(kind, q)) for kind, q in questions])
    assert not after.agrees([(kind, q, a) for (kind, q), a in zip(questions, old)])
