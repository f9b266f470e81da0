"""Issue 22, two resolver gaps a user's pass found on click, jinja2 and pluggy:
names inside the string parts of annotations are uses, and a test's parameter
named after a pytest fixture is of the fixture's class."""

from __future__ import annotations

from pathlib import Path

from workspacekit import long_view as _view
from workspacekit import write_files as _write

from analysis.index import WorkspaceIndex
from analysis.sources import Workspace


def _index(tmp_path: Path, files: dict[str, str]) -> WorkspaceIndex:
    _write(tmp_path, files)
    ws = Workspace(tmp_path)
    return WorkspaceIndex(ws, ws.python_files())


def _places(index: WorkspaceIndex, qualname: str) -> list[tuple[str, int, int]]:
    """Where ``qualname`` is referred to: module, line, column."""
    return sorted({(a.module, u.line, u.column) for a, u in index.uses_of(qualname) if u.kind != "imports"})


# --- names inside string parts of annotations ----------------------------------------------------

NODE = {"pkg/__init__.py": "", "pkg/a.py": "class Node:\n    pass\n"}
HEAD = "import typing as t\nif t.TYPE_CHECKING:\n    from pkg.a import Node\n"


def _column(line: str, text: str) -> int:
    return line.index(text)


def test_a_string_inside_a_real_annotation_names_its_class(tmp_path: Path) -> None:
    line = 'def f(n: t.Optional["Node"]) -> list["Node"]: ...'
    index = _index(tmp_path, {**NODE, "pkg/b.py": HEAD + line + "\n"})
    first = _column(line, '"Node"') + 1
    second = _column(line, 'list["Node"]') + 6
    assert _places(index, "pkg.a.Node") == [("pkg.b", 4, first), ("pkg.b", 4, second)]


def test_the_unused_import_is_gone(tmp_path: Path) -> None:
    _write(tmp_path, {**NODE, "semaprax.toml": "[project]\nname = 'x'\n",
                      "pkg/b.py": HEAD + 'def f(n: t.Optional["Node"]) -> list["Node"]: ...\n',
                      "pkg/c.py": HEAD + 'def f(n: t.Literal["Node"]) -> None: ...\n'})
    rows = _view("diagnostics", "semaprax.toml", tmp_path)["rows"]
    # b.py reads Node inside the strings; c.py's Literal string is a value: its import is unused
    assert [(r[0], r[3]) for r in rows] == [("pkg/c.py", "unused-import")]


CASES = '''\
import typing as t
from typing import Annotated, Callable, Literal, cast
if t.TYPE_CHECKING:
    from pkg.a import Node
def a(x: dict[str, "Node"]) -> None: ...
def b(x: Callable[["Node"], "Node"]) -> None: ...
def c(x: Annotated["Node", "Node"]) -> None: ...
def d(x: Literal["Node"]) -> None: ...
def e(x: t.List["Node | None"]) -> None: ...
def f(x: "t.Optional['Node']") -> None: ...
class K:
    slot: t.Optional["Node"] = None
def g(v: object) -> None:
    local: list["Node"] = []
    made = cast("Node", v)
    kept = t.cast(int, "Node")
def h(x: Annotated[int, "Node"]) -> None: ...
'''


def test_each_type_place_of_a_string_is_read_and_no_value_is(tmp_path: Path) -> None:
    index = _index(tmp_path, {**NODE, "pkg/b.py": CASES})
    lines = CASES.splitlines()
    found = _places(index, "pkg.a.Node")
    at = {(line, col) for _, line, col in found}
    assert len(at) == len(found)  # one place each
    # the column of the name inside the string
    want = {(5, _column(lines[4], '"Node"') + 1),
            (6, _column(lines[5], '["Node"]') + 2), (6, _column(lines[5], ', "Node"') + 3),
            (7, _column(lines[6], '"Node"') + 1),  # the type of Annotated, not its metadata
            (9, _column(lines[8], '"Node | None"') + 1),
            (12, _column(lines[11], '"Node"') + 1),
            (14, _column(lines[13], '"Node"') + 1),
            (15, _column(lines[14], '"Node"') + 1),  # cast's type
            (10, _column(lines[9], "'Node'") + 1)}  # a string inside a string annotation
    assert at == want
    # Literal's strings and Annotated's metadata are values, as is cast's second argument
    assert not {line for line, _ in at} & {8, 16, 17}


def test_a_string_of_no_defined_name_is_an_unresolved_name_where_a_literal_is_not(tmp_path: Path) -> None:
    _write(tmp_path, {"semaprax.toml": "[project]\nname = 'x'\n", "m.py": (
        "import typing as t\n"
        'def f(x: t.Optional["Missing"], y: t.Literal["nothing", "here"]) -> t.Annotated[int, "no such"]: ...\n'
        'v = t.cast("Gone", "not a name")\n'
    )})
    rows = _view("diagnostics", "semaprax.toml", tmp_path)["rows"]
    assert [(r[1], r[2], r[3], r[4]) for r in rows] == [
        (2, 22, "unresolved-name", "name 'Missing' is not defined"),
        (3, 13, "unresolved-name", "name 'Gone' is not defined")]


def test_a_string_written_with_escapes_or_a_prefix_keeps_the_string_column(tmp_path: Path) -> None:
    line = 'def f(n: t.Optional[r"Node"], m: t.Optional["\\x4eode"]) -> None: ...'
    index = _index(tmp_path, {**NODE, "pkg/b.py": HEAD + line + "\n"})
    assert _places(index, "pkg.a.Node") == [("pkg.b", 4, _column(line, 'r"Node"')),
                                            ("pkg.b", 4, _column(line, '"\\x4e'))]
