"""Issue 22, two resolver gaps a user's pass found on click, jinja2 and pluggy:
names inside the string parts of annotations are uses, and a test's parameter
named after a pytest fixture is of the fixture's class."""

from __future__ import annotations

from pathlib import Path

from analysis.index import WorkspaceIndex
from analysis.sources import Workspace
from tests.workspacekit import long_view as _view
from tests.workspacekit import write_files as _write


def _index(tmp_path: Path, files: dict[str, str | bytes]) -> WorkspaceIndex:
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


# --- pytest fixtures --------------------------------------------------------------------------------

ENGINE = {
    "pkg/__init__.py": "",
    "pkg/engine.py": ("class Engine:\n    def run(self) -> None:\n        pass\n\n\n"
                      "class Car:\n    def run(self) -> None:\n        pass\n"),
}


def _run_lines(index: WorkspaceIndex, qualname: str = "pkg.engine.Engine.run") -> list[tuple[str, int]]:
    return sorted({(a.path, u.line) for a, u in index.uses_of(qualname)})


def test_a_fixture_of_the_module_types_the_test_parameter(tmp_path: Path) -> None:
    index = _index(tmp_path, {**ENGINE, "tests/test_m.py": (
        "import pytest\n"
        "from pkg.engine import Engine\n"
        "@pytest.fixture\n"
        "def engine():\n"
        "    return Engine()\n"
        "def test_run(engine):\n"
        "    engine.run()\n"                                 # 7
        "def helper(engine):\n"
        "    engine.run()\n"                                 # 9: not collected
        "def test_annotated(engine: int):\n"
        "    engine.run()\n"                                 # 11: its annotation wins
        "def test_default(engine=None):\n"
        "    engine.run()\n"                                 # 13: a default: not a fixture
        "@pytest.mark.parametrize('engine', [1, 2])\n"
        "def test_given(engine):\n"
        "    engine.run()\n"                                 # 16: parametrize's value
        "@pytest.mark.parametrize(('x', 'engine'), [(1, 2)])\n"
        "def test_given_too(x, engine):\n"
        "    engine.run()\n"                                 # 19
        "@pytest.mark.parametrize('engine', [1], indirect=True)\n"
        "def test_indirect(engine):\n"
        "    engine.run()\n"                                 # 22: the fixture's, fed the value
        "class TestEngine:\n"
        "    def test_method(self, engine):\n"
        "        engine.run()\n"                             # 25
        "class Helper:\n"
        "    def test_method(self, engine):\n"
        "        engine.run()\n"                             # 28: not a Test* class
    )})
    assert _run_lines(index) == [("tests/test_m.py", 7), ("tests/test_m.py", 22), ("tests/test_m.py", 25)]


CONFTESTS = {
    **ENGINE,
    "tests/conftest.py": (
        "from typing import Iterator, Generator\n"
        "import pytest\n"
        "from pytest import fixture\n"
        "from pkg.engine import Engine, Car\n"
        "@pytest.fixture\n"
        "def engine() -> Engine:\n"
        "    return Engine()\n"
        "@pytest.fixture(name='motor')\n"
        "def _motor_fixture():\n"
        "    yield Engine()\n"
        "@fixture(scope='session')\n"
        "def started() -> Iterator[Engine]:\n"
        "    yield Engine()\n"
        "@pytest.fixture\n"
        "def gen() -> Generator[Engine, None, None]:\n"
        "    yield Engine()\n"
        "@pytest.fixture\n"
        "def car():\n"
        "    return Car()\n"
        "@pytest.fixture\n"
        "def wrapped(engine):\n"
        "    engine.run()\n"                                 # 22: a fixture's fixture
        "    return engine\n"
    ),
    "tests/unit/test_a.py": (
        "def test_all(engine, motor, started, gen, car, _motor_fixture):\n"
        "    engine.run()\n"                                 # 2
        "    motor.run()\n"                                  # 3
        "    started.run()\n"                                # 4
        "    gen.run()\n"                                    # 5
        "    car.run()\n"                                    # 6: Car's
        "    _motor_fixture.run()\n"                         # 7: name= binds the other name only
    ),
    "tests/unit/conftest.py": (
        "import pytest\n"
        "from pkg.engine import Car\n"
        "@pytest.fixture\n"
        "def engine(engine):\n"                              # overrides the parent's, asks for it
        "    engine.run()\n"                                 # 5: the parent's Engine
        "    return engine\n"
        "@pytest.fixture\n"
        "def started():\n"
        "    return Car()\n"                                 # nearer: a Car
    ),
    "other/conftest.py": (
        "import pytest\n"
        "from pkg.engine import Engine\n"
        "@pytest.fixture\n"
        "def elsewhere():\n"
        "    return Engine()\n"
    ),
    "tests/test_b.py": "def test_b(elsewhere, started):\n    elsewhere.run()\n    started.run()\n",
    "test_root.py": "def test_r(engine):\n    engine.run()\n",
}


def test_conftest_fixtures_reach_the_tests_below_them_only(tmp_path: Path) -> None:
    index = _index(tmp_path, {**CONFTESTS})
    assert _run_lines(index) == [
        ("tests/conftest.py", 22), ("tests/test_b.py", 3),
        ("tests/unit/conftest.py", 5),
        ("tests/unit/test_a.py", 3), ("tests/unit/test_a.py", 5)]
    # engine: the unit conftest's fixture (no class known: it returns its parameter); started: the
    # nearer conftest's Car; car: Car; the other folder's and the root test's: no fixture of theirs
    assert _run_lines(index, "pkg.engine.Car.run") == [("tests/unit/test_a.py", 4), ("tests/unit/test_a.py", 6)]


def test_fixture_types_are_the_same_whatever_the_jobs_and_the_cache(tmp_path: Path, monkeypatch) -> None:
    from analysis import filecache, index, pool
    from servers.route import make_projection

    ws = _write(tmp_path, {**CONFTESTS, "semaprax.toml": "[project]\nname = 'x'\n"})
    monkeypatch.setattr(filecache, "use_disk", False)
    monkeypatch.setattr(pool, "POOL_MIN_FILES", 0)  # a pool even for these few files

    def view(jobs: int, fresh: bool) -> bytes:
        if fresh:
            monkeypatch.setattr(filecache, "_stores", {})
        monkeypatch.setattr(index, "jobs", jobs)
        return make_projection("references", "pkg.engine.Engine.run", ws).selected

    cold = view(1, True)
    assert b"test_a.py" in cold and b"test_root.py" not in cold
    assert view(1, False) == cold  # replayed from the records
    assert view(2, True) == cold  # two processes, no records
    # the conftest's fixture now makes a Car: the test's record must not be replayed as it was
    (ws / "tests" / "conftest.py").write_text(CONFTESTS["tests/conftest.py"].replace(
        "def gen() -> Generator[Engine, None, None]:\n    yield Engine()", "def gen():\n    yield Car()"))
    edited = view(2, False)
    assert edited == view(1, True) != cold
    assert ("tests/unit/test_a.py", 5) in _run_lines(_index(tmp_path, {}), "pkg.engine.Car.run")


def test_a_fixture_of_a_test_class_types_its_methods_only(tmp_path: Path) -> None:
    index = _index(tmp_path, {**ENGINE, "tests/test_k.py": (
        "import pytest\n"
        "from pkg.engine import Engine, Car\n"
        "class TestK:\n"
        "    @pytest.fixture\n"
        "    def engine(self):\n"
        "        return Engine()\n"
        "    def test_in(self, engine):\n"
        "        engine.run()\n"                             # 8
        "@pytest.fixture\n"
        "async def car() -> Car:\n"
        "    return Car()\n"
        "def test_out(engine, car):\n"
        "    engine.run()\n"                                 # 13: the class's fixture is not the module's
        "    car.run()\n"                                    # 14: an async fixture's value is what it returns
    )})
    assert _run_lines(index) == [("tests/test_k.py", 8)]
    assert _run_lines(index, "pkg.engine.Car.run") == [("tests/test_k.py", 14)]
