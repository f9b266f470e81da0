"""A ``.pyi`` stub beside a module: the definitions are the module's, their
signatures and the types that resolve calls are the stub's, as a type checker
reads them; a stub alone is not a module of the workspace (docs/profiles.md,
"Stubs")."""

from __future__ import annotations

from pathlib import Path

from tests.workspacekit import long_view, write_files

PY = (
    "class Widget:\n"
    "    def draw(self):\n"
    "        return 'drawn'\n\n\n"
    "def make(kind):\n"
    "    return globals()[kind]()\n\n\n"  # a class only a type checker reading the stub knows
    "def paint(w, times=1):\n"
    "    return w.draw() * times\n"
)
PYI = (
    "from typing import overload\n\n"
    "class Widget:\n"
    "    def draw(self) -> str: ...\n\n"
    "def make(kind: str) -> Widget: ...\n"
    "@overload\n"
    "def paint(w: Widget) -> str: ...\n"
    "@overload\n"
    "def paint(w: Widget, times: int) -> str: ...\n"
    "def ghost() -> None: ...\n"
)
USER = "from gadgets import make\n\n\ndef use():\n    return make('x').draw()\n"


def _calls(view: dict, name: str) -> list[str]:
    return view["edges"][f"gadgets.{name}"]["calls"]


def _rows(view: dict) -> dict[str, list]:
    return {r[0].removeprefix("gadgets."): r for r in view["definitions"]["rows"]}


def test_the_stub_types_calls_and_gives_signatures(tmp_path: Path) -> None:
    write_files(tmp_path, {"gadgets.py": PY, "gadgets.pyi": PYI, "user.py": USER})
    # make()'s result is a Widget only by the stub: the caller's call resolves
    context = long_view("task-context", "user.use", tmp_path)
    assert "gadgets.Widget.draw" in context["callees"]
    assert context["callees"]["gadgets.Widget.draw"] == "(self) -> str"
    assert "unresolved" not in context
    # the parameter w is a Widget by the stub: the call inside paint resolves
    graph = long_view("graph", "gadgets.py", tmp_path)
    assert _calls(graph, "paint") == ["gadgets.Widget.draw"]
    symbols = _rows(graph)
    assert symbols["make"][3] == "(kind: str) -> Widget"  # the stub's signature, at the source's line
    assert symbols["make"][2] == [6, 7]
    assert symbols["Widget.draw"][3] == "(self) -> str"
    assert "ghost" not in symbols  # only in the stub: not a definition of the module
    paint = long_view("task-context", "gadgets.paint", tmp_path)
    assert paint["signature"] == "(w, times=1)"  # the implementation's, with the stub's overloads
    assert paint["overloads"] == ["(w: Widget) -> str", "(w: Widget, times: int) -> str"]


def test_without_the_stub_the_same_calls_stay_unresolved(tmp_path: Path) -> None:
    write_files(tmp_path, {"gadgets.py": PY, "user.py": USER})
    context = long_view("task-context", "user.use", tmp_path)
    assert "gadgets.Widget.draw" not in context["callees"]
    assert context["unresolved"] == ["?make('x').draw"]
    graph = long_view("graph", "gadgets.py", tmp_path)
    assert _calls(graph, "paint") == ["?w.draw"]


def test_a_stub_alone_is_not_a_module_of_the_workspace(tmp_path: Path) -> None:
    write_files(tmp_path, {"ext.pyi": "def grow(n: int) -> int: ...\n",
                           "user.py": "from ext import grow\n\n\ndef use():\n    return grow(1)\n"})
    symbols = long_view("symbols", ".", tmp_path)
    assert [m["path"] for m in symbols["modules"]] == ["user.py"]
    # the call is named by its import path, as a call into a module outside the workspace
    assert long_view("task-context", "user.use", tmp_path)["callees"] == {"ext.grow": ""}


def test_an_edit_of_the_stub_changes_the_view(tmp_path: Path) -> None:
    write_files(tmp_path, {"gadgets.py": PY, "gadgets.pyi": PYI, "user.py": USER})
    before = long_view("graph", "gadgets.py", tmp_path)
    write_files(tmp_path, {"gadgets.pyi": PYI.replace("def make(kind: str)", "def make(kind: bytes)")})
    after = long_view("graph", "gadgets.py", tmp_path)
    assert before != after
    assert _rows(after)["make"][3] == "(kind: bytes) -> Widget"
