"""Calls into the standard library and the resolution rules added for recall
(docs/profiles.md, "How names are resolved"): each target is the one jedi
names, or the same object under the program's spelling."""

from __future__ import annotations

from pathlib import Path

from analysis.index import WorkspaceIndex
from analysis.sources import Workspace
from tests.workspacekit import write_files

MOD = '''\
import json
import os.path
import re
import subprocess
import typing as t
from collections import deque
from gettext import gettext as _

from .compat import builtin_str, str


def run(cmd: list[str], stream: t.IO[str], name: str | bytes) -> str:
    json.dumps(cmd)
    os.path.join("a", "b")
    proc = subprocess.Popen(cmd)
    proc.wait()
    re.compile("x").match("y").end()
    stream.write("z")
    os.environ.get("HOME")
    if isinstance(name, str):
        name = name.encode("utf-8")
    queue: t.Sequence[int] = [1]
    queue = deque(queue)
    queue.popleft()
    text = _(
        "long"
    ).format()
    head, tail = split(text)
    tail.upper()
    builtin_str(1).strip()
    return (text if head else "").lower()


def split(text: str) -> tuple[int, str]:
    return 1, text


class Runner:
    def __init__(self) -> None:
        self.items: list[str] = []

    def first(self) -> str:
        for i, item in enumerate(self.items):
            return item.title()
        return t.cast(str, self.__dict__.get("x")).upper()
'''
COMPAT = "builtin_str = str\nstr = str\n"


def _calls(tmp_path: Path) -> dict[int, list[str]]:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/compat.py": COMPAT, "pkg/mod.py": MOD})
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    out: dict[int, list[str]] = {}
    for u in index.by_module["pkg.mod"].uses:
        if u.kind == "calls":
            out.setdefault(u.line, []).append(u.target)
    return {line: sorted(targets) for line, targets in out.items()}


def test_standard_library_targets_are_named_as_imported(tmp_path: Path) -> None:
    calls = _calls(tmp_path)
    assert calls[13] == ["json.dumps"]
    assert calls[14] == ["os.path.join"]
    assert calls[16] == ["subprocess.Popen.wait"]  # Popen is a class: proc is one
    assert calls[17] == ["re.Match.end", "re.Pattern.match", "re.compile"]
    assert calls[18] == ["typing.IO.write"]  # an annotation naming a standard class
    assert calls[19] == ["os._Environ.get"]


def test_narrowing_rebinding_and_results(tmp_path: Path) -> None:
    calls = _calls(tmp_path)
    assert calls[21] == ["builtins.str.encode"]  # isinstance with str = str from pkg.compat
    assert calls[24] == ["collections.deque.popleft"]  # rebound from Sequence to deque
    assert calls[27] == ["builtins.str.format"]  # the line of .format, not of _(
    assert calls[29] == ["builtins.str.upper"]  # head, tail = split(text): tuple[int, str]
    assert calls[30] == ["builtins.str", "builtins.str.strip"]  # builtin_str is builtins.str
    assert calls[31] == ["builtins.str.lower"]  # both branches are str


def test_self_attribute_items_cast_and_dict(tmp_path: Path) -> None:
    calls = _calls(tmp_path)
    assert calls[43] == ["builtins.enumerate"]
    assert calls[44] == ["builtins.str.title"]  # an item of self.items: list[str]
    assert calls[45] == ["builtins.dict.get", "builtins.str.upper", "typing.cast"]


def test_members_inside_a_chain_and_import_names_are_referenced_at_their_lines(tmp_path: Path) -> None:
    write_files(tmp_path, {
        "shop/__init__.py": "",
        "shop/cart.py": (
            "class Cart:\n"
            "    def __init__(self) -> None:\n"
            "        self.items: list[str] = []\n\n"
            "    @property\n"
            "    def total(self) -> str:\n"
            "        return ''\n\n"
            "    def show(self) -> str:\n"
            "        self.items.append('x')\n"
            "        return self.total.upper()\n"
        ),
        "shop/use.py": "from shop.cart import (\n    Cart,\n)\n\n\ndef make() -> Cart:\n    return Cart()\n",
    })
    ws = Workspace(tmp_path)
    index = WorkspaceIndex(ws, ws.python_files())
    lines = {q: sorted((a.path, u.line, u.kind) for a, u in index.uses_of(q))
             for q in ("shop.cart.Cart.items", "shop.cart.Cart.total", "shop.cart.Cart")}
    assert lines["shop.cart.Cart.items"] == [("shop/cart.py", 10, "references")]
    assert lines["shop.cart.Cart.total"] == [("shop/cart.py", 11, "references")]
    assert ("shop/use.py", 2, "imports") in lines["shop.cart.Cart"]  # the name's line, not the statement's
