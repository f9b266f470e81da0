"""``from B import *`` binds what B's ``__all__`` lists when B spells it out
(review22b's finding: the names B defined were bound whatever ``__all__`` said,
so of two star imports the later named a class Python never binds there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.index import WorkspaceIndex
from analysis.model import CALLS
from analysis.resolver import analyse_module
from analysis.sources import Workspace
from tests.workspacekit import write_files


def _calls(tmp_path: Path, files: dict[str, str], module: str) -> set[str]:
    write_files(tmp_path, {"pkg/__init__.py": "", **files})
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    return {u.target for a in index.modules if a.module == module for u in a.uses if u.kind == CALLS}


A = "class X:\n    def go(self):\n        return 1\n"
B_X = "class X:\n    def go(self):\n        return 2\n\n\nclass Hidden:\n    def go(self):\n        pass\n\n\n" \
      "def other():\n    pass\n"


def test_a_name_the_later_modules_all_leaves_out_is_the_earlier_ones(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {"pkg/a.py": A, "pkg/b.py": '__all__ = ["other"]\n' + B_X,
                              "pkg/c.py": "from pkg.a import *\nfrom pkg.b import *\n\n\n"
                                          "def use():\n    X().go()\n    other()\n    Hidden().go()\n"}, "pkg.c")
    assert calls == {"pkg.a.X", "pkg.a.X.go", "pkg.b.other", "?Hidden", "?Hidden().go"}


def test_without_a_literal_all_the_public_names_are_bound(tmp_path: Path) -> None:
    # a computed __all__ is not known: the public names, as before
    calls = _calls(tmp_path, {"pkg/a.py": A, "pkg/b.py": 'names = ["other"]\n__all__ = names + []\n' + B_X,
                              "pkg/c.py": "from pkg.a import *\nfrom pkg.b import *\n\n\n"
                                          "def use():\n    X().go()\n    Hidden().go()\n"}, "pkg.c")
    assert calls == {"pkg.b.X", "pkg.b.X.go", "pkg.b.Hidden", "pkg.b.Hidden.go"}


def test_all_may_list_a_private_name(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "pkg/a.py": A + "\n\ndef _hook():\n    pass\n",
        "pkg/b.py": '__all__ = ["_hook"]\nfrom pkg.a import _hook\n',
        "pkg/c.py": "from pkg.b import *\n\n\ndef use():\n    _hook()\n"}, "pkg.c")
    assert calls == {"pkg.a._hook"}


@pytest.mark.parametrize(("source", "names"), [
    ('__all__ = ["b", "a"]\n', ("a", "b")),
    ('__all__ = ("a",)\n__all__ += ["b"]\n__all__.append("c")\n__all__.extend(("d",))\n', ("a", "b", "c", "d")),
    ('__all__ = ["a"]\n__all__ = ["b"]\n', ("b",)),
    ("__all__: list[str] = []\n", ()),
    ("x = 1\n", None),
    ('__all__ = base + ["a"]\n', None),
    ('__all__ = ["a", NAME]\n', None),
    ('__all__ = ["a"]\nif x:\n    __all__ = ["b"]\n', None),
    ('__all__ = ["a"]\n__all__.remove("a")\n', None),
    ('__all__ = ["a"]\n__all__ -= ["a"]\n', None),
])
def test_a_literal_all_is_read_and_a_computed_one_is_not(source: str, names: tuple[str, ...] | None) -> None:
    assert analyse_module(source.encode(), "m.py", "m").exports == names


# --- review22b's wrong targets of the day's rules, each named by none now ---------------------


def _module_calls(source: str) -> set[str]:
    return {u.target for u in analyse_module(source.encode(), "m.py", "m").uses if u.kind == CALLS}


RUNNERS = "class A:\n    def run(self):\n        pass\n\n\nclass B:\n    def run(self):\n        pass\n\n\n"


def test_a_classmethod_that_binds_cls_again_makes_what_it_binds() -> None:
    calls = _module_calls(RUNNERS + "class Maker:\n    @classmethod\n    def create(cls):\n        cls = B\n"
                          "        return cls()\n\n    def run(self):\n        pass\n\n\nMaker.create().run()\n")
    assert "m.Maker.run" not in calls


def test_x_equals_x_in_a_class_in_a_function_reads_the_modules_x() -> None:
    a = analyse_module((RUNNERS + "def factory():\n    A = B\n\n    class Channel:\n        A = A\n\n"
                        "    return Channel\n").encode(), "m.py", "m")
    assert {u.target for u in a.uses if u.line == 15} == {"m.A"}


def test_a_generator_yielding_a_free_name_is_not_typed_by_a_nested_functions_store() -> None:
    calls = _module_calls(RUNNERS + "conn = B()\n\n\ndef gen():\n    def inner():\n        conn = A()\n"
                          "    yield conn\n\n\nfor c in gen():\n    c.run()\n")
    assert "m.A.run" not in calls


def test_a_factory_bound_twice_makes_neither() -> None:
    calls = _module_calls(RUNNERS + "def f(flag):\n    make = lambda: A()\n    if flag:\n"
                          "        make = lambda: B()\n    make().run()\n\n\nmk = lambda: A()\nmk = lambda: B()\n"
                          "mk().run()\n")
    assert not calls & {"m.A.run", "m.B.run"}


def test_an_attribute_set_to_two_classes_names_neither() -> None:
    calls = _module_calls(RUNNERS + "class Holder:\n    def __init__(self):\n        self.kind = A\n\n"
                          "    def switch(self):\n        self.kind = B\n\n    def make(self):\n"
                          "        return self.kind()\n\n\nHolder().make().run()\nHolder().kind().run()\n")
    assert not calls & {"m.A.run", "m.B.run"}


def test_a_replayed_record_keeps_the_modules_all(tmp_path: Path) -> None:
    # the record of b holds its literal __all__: replayed from disk (a new process's store), c's
    # star imports bind what they bound when b was analysed (they named b.X before the record kept it)
    from analysis.filecache import RecordStore
    from analysis.resolver import ClassInfo

    write_files(tmp_path / "ws", {"pkg/__init__.py": "", "pkg/a.py": A, "pkg/b.py": '__all__ = ["other"]\n' + B_X,
                                  "pkg/c.py": "from pkg.a import *\nfrom pkg.b import *\n\n\n"
                                              "def use():\n    X().go()\n"})
    ws = Workspace(tmp_path / "ws")
    runs = []
    for _ in range(2):
        index = WorkspaceIndex(ws, ws.python_files(), RecordStore(tmp_path / "cache", ClassInfo), processes=1)
        runs.append((index.replayed, {u.target for a in index.modules if a.module == "pkg.c" for u in a.uses},
                     {a.module: a.exports for a in index.modules}))
    assert runs[1][0] == 4  # every file replayed the second time
    assert runs[0][1] == runs[1][1] == {"pkg.a.X", "pkg.a.X.go"}
    assert runs[0][2] == runs[1][2] and runs[1][2]["pkg.b"] == ("other",)
