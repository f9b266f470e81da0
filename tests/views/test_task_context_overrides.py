"""task-context lists the method a method overrides and the workspace
subclasses' methods that override it (docs/profiles.md, task-context)."""

from __future__ import annotations

from pathlib import Path

from tests.workspacekit import long_view, write_files

SHAPES = {
    "shapes/__init__.py": "from .base import Shape\n",
    "shapes/base.py": (
        "from abc import ABC, abstractmethod\n\n\n"
        "class Shape(ABC):\n"
        "    @abstractmethod\n"
        "    def area(self) -> float:\n"
        '        """The area."""\n\n'
        "    def name(self):\n"
        "        return 'shape'\n"
    ),
    "shapes/square.py": (
        "from shapes import Shape\n\n\n"
        "class Square(Shape):\n"
        "    def __init__(self, side):\n"
        "        self.side = side\n\n"
        "    def area(self) -> float:\n"
        "        return self.side ** 2\n\n\n"
        "class Tile(Square):\n"
        "    def area(self):\n"
        "        return super().area() - 1\n\n"
        "    def name(self):\n"
        "        return 'tile'\n"
    ),
    "diamond.py": (
        "class A:\n    def m(self):\n        pass\n\n    def n(self):\n        return 1\n\n\n"
        "class B(A):\n    def m(self):\n        return 'b'\n\n\n"
        "class C(A):\n    def m(self):\n        return 'c'\n\n\n"
        "class D(B, C):\n    def m(self):\n        return 'd'\n\n\n"
        "def free():\n    return A().m()\n"
    ),
}


def _overrides(root: str, tmp_path: Path) -> list[list[object]] | None:
    view = long_view("task-context", root, write_files(tmp_path, SHAPES))
    table = view.get("overrides")
    if table is None:
        return None
    assert table["columns"] == ["name", "relation", "path", "line", "signature"]
    return table["rows"]


def test_an_abstract_method_lists_its_implementations_through_a_package_reexport(tmp_path: Path) -> None:
    assert _overrides("shapes.base.Shape.area", tmp_path) == [
        ["shapes.square.Square.area", "implementation", "shapes/square.py", 8, "(self) -> float"],
        ["shapes.square.Tile.area", "implementation", "shapes/square.py", 13, "(self)"],
    ]


def test_an_override_names_its_base_and_its_own_overrides(tmp_path: Path) -> None:
    assert _overrides("shapes.square.Square.area", tmp_path) == [
        ["shapes.base.Shape.area", "base", "shapes/base.py", 6, "(self) -> float"],
        ["shapes.square.Tile.area", "override", "shapes/square.py", 13, "(self)"],
    ]
    # Tile.name skips Square (which does not define it) to Shape's
    assert _overrides("shapes.square.Tile.name", tmp_path) == [
        ["shapes.base.Shape.name", "base", "shapes/base.py", 9, "(self)"],
    ]


def test_the_base_is_the_next_in_c3_order(tmp_path: Path) -> None:
    # D(B, C): D's method order is D, B, C, A, so D.m overrides B.m, and C.m is overridden by D.m
    assert _overrides("diamond.D.m", tmp_path) == [["diamond.B.m", "base", "diamond.py", 10, "(self)"]]
    assert _overrides("diamond.C.m", tmp_path) == [
        ["diamond.A.m", "base", "diamond.py", 2, "(self)"],
        ["diamond.D.m", "override", "diamond.py", 20, "(self)"],
    ]
    assert [r[:2] for r in _overrides("diamond.A.m", tmp_path) or []] == [
        ["diamond.B.m", "override"], ["diamond.C.m", "override"], ["diamond.D.m", "override"]]


def test_no_overrides_no_key(tmp_path: Path) -> None:
    assert _overrides("diamond.A.n", tmp_path) is None  # a method nobody overrides
    assert _overrides("diamond.free", tmp_path) is None  # not a method
    assert _overrides("shapes.square.Square.__init__", tmp_path) is None
