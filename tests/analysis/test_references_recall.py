"""References the resolver lists, one test per rule added for references
recall against jedi (docs/performance.md, "References recall, a wider tune
half"): each source is a small case of a miss found on the tune half's packages."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.index import WorkspaceIndex
from analysis.sources import Workspace
from tests.workspacekit import write_files


def _index(tmp_path: Path, files: dict[str, str]) -> WorkspaceIndex:
    write_files(tmp_path, {"pkg/__init__.py": "", **files})
    ws = Workspace(tmp_path)
    return WorkspaceIndex(ws, ws.python_files())


def _lines(index: WorkspaceIndex, qualname: str) -> list[tuple[str, int]]:
    """Where ``qualname`` is used (calls, references, inheritance), as jedi's references list them."""
    return sorted({(a.module, u.line) for a, u in index.uses_of(qualname)})


def test_a_class_bound_again_in_a_branch_is_not_another_name_of_the_other_class(tmp_path: Path) -> None:
    # ``HTTPSConnection = DummyConnection`` under ``if not ssl`` binds the name
    # a second time: it is not another name of DummyConnection everywhere
    index = _index(tmp_path, {"pkg/conn.py": (
        "ssl = None\n"
        "class Dummy:\n    pass\n"
        "class Secure:\n    pass\n"
        "if not ssl:\n"
        "    Secure = Dummy\n"
        "Verified = Secure\n"                       # 8
        "def check(c: object) -> bool:\n"
        "    return isinstance(c, Secure)\n"        # 10
    ), "pkg/user.py": "from pkg.conn import Secure\n\n\nclass Sub(Secure):\n    pass\n"})
    assert _lines(index, "pkg.conn.Secure") == [("pkg.conn", 8), ("pkg.conn", 10), ("pkg.user", 1), ("pkg.user", 4)]
    assert ("pkg.conn", 10) not in _lines(index, "pkg.conn.Dummy")


TOKENS = '''\
class Token:
    def test(self, expr: str) -> bool:
        return True


class Stream:
    def __init__(self) -> None:
        self.current = Token()

    def skip(self) -> None:
        pass


class Env:
    def tokenize(self) -> Stream:
        return Stream()

    def test(self, expr: str) -> bool:
        return False


def make(name: str) -> Token:
    return Token()
'''
PARSER = '''\
from pkg.tokens import Env, Token, make


class Parser:
    def __init__(self, env: "Env", names: list[str]) -> None:
        self.stream = env.tokenize()
        self.tokens = [make(n) for n in names]

    def parse(self, strings: list[str], env: Env) -> list[bool]:
        self.stream.skip()                                      # 10
        self.tokens[0].test("x")                                # 11
        [t.test("y") for t in self.tokens]                      # 12
        return [env.test("z") for env in strings]               # 13
'''


def test_an_attribute_set_from_a_typed_parameter_call_and_a_comprehension(tmp_path: Path) -> None:
    # ``self.stream = env.tokenize()``: its class is known once env's is (a
    # parameter's annotation), and ``[make(n) for n in names]`` holds Tokens
    index = _index(tmp_path, {"pkg/tokens.py": TOKENS, "pkg/parser.py": PARSER})
    assert ("pkg.parser", 10) in _lines(index, "pkg.tokens.Stream.skip")
    assert [line for m, line in _lines(index, "pkg.tokens.Token.test") if m == "pkg.parser"] == [11, 12]


def test_a_comprehension_target_hides_the_enclosing_local(tmp_path: Path) -> None:
    # ``env`` in the comprehension of line 13 is a str of ``strings``, not the
    # parameter ``env: Env``
    index = _index(tmp_path, {"pkg/tokens.py": TOKENS, "pkg/parser.py": PARSER})
    calls = {u.target for u in index.by_module["pkg.parser"].uses if u.line == 13 and u.kind == "calls"}
    assert "pkg.tokens.Env.test" not in calls
    assert not any(t.startswith("pkg.") for t in calls)


def test_a_name_before_an_attribute_nothing_resolves_is_still_a_reference(tmp_path: Path) -> None:
    # ``@size.setter`` refers to the property size; ``Meta.__dict__`` to Meta;
    # ``nodes.Const.make()`` to Const (a class inside a chain), as jedi says
    index = _index(tmp_path, {"pkg/nodes.py": (
        "class Const:\n"
        "    @classmethod\n"
        "    def make(cls) -> 'Const':\n"
        "        return cls()\n"
    ), "pkg/meta.py": (
        "from pkg import nodes\n"
        "\n"
        "\n"
        "class Meta:\n"
        "    @property\n"
        "    def size(self) -> int:\n"
        "        return 1\n"
        "\n"
        "    @size.setter\n"                          # 9
        "    def size(self, value: int) -> None:\n"
        "        pass\n"
        "\n"
        "\n"
        "def fields(key: str) -> object:\n"
        "    nodes.Const.make()\n"                     # 15
        "    return Meta.__dict__[key]\n"              # 16
    )})
    assert ("pkg.meta", 9) in _lines(index, "pkg.meta.Meta.size")
    assert ("pkg.meta", 16) in _lines(index, "pkg.meta.Meta")
    assert ("pkg.meta", 15) in _lines(index, "pkg.nodes.Const")


SPECS = '''\
from collections.abc import Iterator


class Spec:
    def check(self) -> bool:
        return True


class SpecSet:
    def __init__(self) -> None:
        self.specs: list[Spec] = []

    def __iter__(self) -> Iterator[Spec]:
        return iter(self.specs)

    def __getitem__(self, key: str) -> int:
        return 0

    def merge(self, other: "SpecSet") -> None:
        pass

    def copy(self) -> "SpecSet":
        clone = type(self)()
        clone.merge(self)                                       # 24
        return clone


def all_good(specs: SpecSet) -> bool:
    for spec in specs:
        spec.check()                                            # 30
    specs["x"].check()                                          # 31
    return all(s.check() for s in specs)                        # 32
'''


def test_a_class_iterated_through_its_dunder_iter_and_type_of_self_called(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/specs.py": SPECS})
    assert _lines(index, "pkg.specs.Spec.check") == [("pkg.specs", 30), ("pkg.specs", 32)]  # not 31: an int
    assert ("pkg.specs", 24) in _lines(index, "pkg.specs.SpecSet.merge")


def test_with_a_contextmanager_binds_what_its_generator_yields(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/errors.py": (
        "import contextlib\n"
        "import typing\n"
        "\n"
        "\n"
        "class Collector:\n"
        "    def error(self, exc: Exception) -> None:\n"
        "        pass\n"
        "\n"
        "    @contextlib.contextmanager\n"
        "    def on_exit(self) -> typing.Generator['Collector', None, None]:\n"
        "        yield self\n"
        "\n"
        "\n"
        "def run() -> None:\n"
        "    with Collector().on_exit() as collector:\n"
        "        collector.error(ValueError())\n"          # 16
    )})
    assert _lines(index, "pkg.errors.Collector.error") == [("pkg.errors", 16)]


def test_a_copy_is_of_the_class_of_what_it_copies(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/attrs.py": (
        "import copy\n"
        "\n"
        "\n"
        "class Attribute:\n"
        "    def set(self, **kw: object) -> None:\n"
        "        pass\n"
        "\n"
        "    def evolve(self) -> 'Attribute':\n"
        "        new = copy.copy(self)\n"
        "        new.set(a=1)\n"                        # 10
        "        return new\n"
    )})
    assert _lines(index, "pkg.attrs.Attribute.set") == [("pkg.attrs", 10)]


FACTORY = '''\
from collections.abc import Sequence
from typing import Optional


class Shell:
    def complete(self) -> str:
        return ""

    def source(self) -> str:
        return ""


class Marker:
    def evaluate(self) -> bool:
        return True


def get_class(name: str) -> "type[Shell] | None":
    return Shell


class Lock:
    markers: Optional[Sequence[Marker]] = None

    @classmethod
    def load(cls, shell: type[Shell]) -> "Lock":
        lock = cls()
        for marker in lock.markers or []:
            pass
        for marker in lock.markers:
            marker.evaluate()                                   # 31
        shell.source()                                          # 32
        return lock


def main(name: str) -> None:
    comp_cls = get_class(name)
    if comp_cls is None:
        return
    comp = comp_cls()
    comp.complete()                                             # 41
'''


def test_a_class_held_by_a_local_and_the_items_of_an_optional_sequence(tmp_path: Path) -> None:
    # ``cls()`` in a classmethod, ``shell: type[Shell]``, ``comp_cls = get_class()``
    # with ``-> type[Shell] | None``; ``markers: Optional[Sequence[Marker]]``
    index = _index(tmp_path, {"pkg/lock.py": FACTORY})
    assert _lines(index, "pkg.lock.Marker.evaluate") == [("pkg.lock", 31)]
    assert _lines(index, "pkg.lock.Shell.source") == [("pkg.lock", 32)]
    assert _lines(index, "pkg.lock.Shell.complete") == [("pkg.lock", 41)]


MAPPING = '''\
import typing as t


class Option:
    def process(self) -> None:
        pass


class Parser:
    def __init__(self, by_prefix: t.Mapping[str, Option]) -> None:
        self._long: dict[str, Option] = {}
        self.by_prefix = by_prefix

    def run(self, name: str, extra: "dict[str, Option] | None") -> None:
        self._long[name].process()                              # 15
        for prefix, option in self.by_prefix.items():
            option.process()                                    # 17
        for option in (extra or {}).values():
            option.process()                                    # 19: of (extra or {})
        if extra is not None:
            extra.get(name).process()                           # 21
            [o.process() for o in extra.values()]               # 22
'''


def test_the_values_of_an_annotated_mapping(tmp_path: Path) -> None:
    # ``m[k]``, ``m.get(k)``, ``m.values()`` and ``m.items()`` of ``dict[K, V]`` and ``Mapping[K, V]``
    index = _index(tmp_path, {"pkg/parser.py": MAPPING})
    assert [line for _, line in _lines(index, "pkg.parser.Option.process")] == [15, 17, 19, 21, 22]


STREAM = '''\
from collections.abc import Iterator


class Token:
    def test(self) -> bool:
        return True


class Stream:
    def __next__(self) -> Token:
        return Token()


def load() -> dict[str, Token]:
    return {}


def tokens() -> list[Token]:
    return []


class Env:
    def __init__(self) -> None:
        self.by_name = load()

    def run(self, stream: Stream, it: Iterator[Token]) -> None:
        next(stream).test()                                     # 27
        next(it).test()                                         # 28
        for t in reversed(tokens()):
            t.test()                                            # 30
        found = tokens()
        found[0].test()                                         # 32
        for key, value in self.by_name.items():
            value.test()                                        # 34
'''


def test_next_reversed_and_locals_bound_to_a_container_result(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/stream.py": STREAM})
    assert [line for _, line in _lines(index, "pkg.stream.Token.test")] == [27, 28, 30, 32, 34]


NARROWED = '''\
class Param:
    def default(self) -> int:
        return 0


class Arg(Param):
    def record(self) -> str:
        return ""


class Command:
    params: list[Param]


def invoke(callback: object, params: list[Param], names: list[str]) -> None:
    if isinstance(callback, Command):
        other = callback
        for param in other.params:
            param.default()                                     # 19
    args = [p for p in params if isinstance(p, Arg)]
    [a.record() for a in args]                                  # 21
    for param in names:
        param.default()                                         # 23: a str
'''


def test_types_known_only_during_the_visit_reach_copies_loops_and_filtered_comprehensions(tmp_path: Path) -> None:
    # ``other = callback`` inside ``isinstance(callback, Command)`` is a Command,
    # so the loop over ``other.params`` binds Params; the comprehension's filter
    # makes ``p`` an Arg; the loop of line 22 binds strs, not Params
    index = _index(tmp_path, {"pkg/cmd.py": NARROWED})
    assert _lines(index, "pkg.cmd.Param.default") == [("pkg.cmd", 19)]
    assert _lines(index, "pkg.cmd.Arg.record") == [("pkg.cmd", 21)]


def test_a_local_rebound_in_one_branch_is_of_no_known_class_after_it(tmp_path: Path) -> None:
    # after ``if headers is None: headers = {}`` headers is a dict or the
    # Headers passed: neither is sure (it was ``builtins.dict.items``)
    index = _index(tmp_path, {"pkg/conn.py": (
        "class Headers:\n"
        "    def items(self) -> list[str]:\n"
        "        return []\n"
        "\n"
        "\n"
        "def send(headers: Headers | None, count: int) -> None:\n"
        "    if headers is None:\n"
        "        headers = {}\n"
        "        headers.items()\n"                      # 9: a dict here
        "    headers.items()\n"                          # 10
        "    for k in range(count):\n"
        "        count = str(k)\n"
        "    count.bit_length()\n"                       # 13: an int or a str
    )})
    calls = {(u.line, u.target) for u in index.by_module["pkg.conn"].uses if u.kind == "calls"}
    assert (9, "builtins.dict.items") in calls
    assert (10, "?headers.items") in calls
    assert (13, "?count.bit_length") in calls


def test_the_items_of_a_slice(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/spec.py": (
        "class Spec:\n"
        "    version: str = ''\n"
        "\n"
        "\n"
        "def agree(specs: list[Spec]) -> bool:\n"
        "    return all(s.version for s in specs[1:])\n"     # 6
    )})
    assert _lines(index, "pkg.spec.Spec.version") == [("pkg.spec", 6)]


INFERRED = '''\
class Session:
    def send(self) -> None:
        pass


def session():
    return Session()


def sessions():
    yield Session()


def either(flag):
    if flag:
        return Session()
    return None


def name(flag):
    if flag:
        return "a"
    return "b"


class Client:
    def __init__(self, s: "Session | None" = None):
        self.s = s or Session()

    def run(self):
        session().send()                                        # 31
        self.s.send()                                           # 32
        name(1).upper()                                         # 33
        for s in sessions():
            s.send()
        either(1).send()                                        # 36
'''


def test_an_unannotated_function_whose_every_return_makes_one_class(tmp_path: Path) -> None:
    # ``return Session()`` on every path: ``session()`` is a Session; not a
    # generator's (``yield``), not when one return is None; ``s or Session()``
    index = _index(tmp_path, {"pkg/client.py": INFERRED})
    # (35: a loop over the generator binds what it yields, a Session: test_references_grammar.py)
    assert _lines(index, "pkg.client.Session.send") == [("pkg.client", 31), ("pkg.client", 32), ("pkg.client", 35)]
    calls = {(u.line, u.target) for u in index.by_module["pkg.client"].uses if u.kind == "calls"}
    assert (33, "builtins.str.upper") in calls
    assert (36, "?either(1).send") in calls


def test_a_local_rebound_in_a_branch_to_a_subclass_is_of_the_base_after_it(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/jar.py": (
        "class Jar:\n"
        "    def put(self) -> None:\n"
        "        pass\n"
        "\n"
        "\n"
        "class Other:\n"
        "    pass\n"
        "\n"
        "\n"
        "class SpecialJar(Jar):\n"
        "    def put(self) -> None:\n"
        "        pass\n"
        "\n"
        "\n"
        "def fill(jar: Jar | None) -> None:\n"
        "    if jar is None:\n"
        "        jar = SpecialJar()\n"
        "        jar.put()\n"                           # 18
        "    jar.put()\n"                               # 19: a Jar, maybe a SpecialJar
        "\n"
        "\n"
        "def pick(jar: Jar, flag: bool, other: object) -> None:\n"
        "    if flag:\n"
        "        jar = Other()\n"                       # not a Jar
        "    else:\n"
        "        jar = SpecialJar()\n"
        "    jar.put()\n"                               # 27: an Other or a SpecialJar: each one's member
    )})
    assert _lines(index, "pkg.jar.SpecialJar.put") == [("pkg.jar", 18), ("pkg.jar", 27)]
    assert _lines(index, "pkg.jar.Jar.put") == [("pkg.jar", 19)]
    calls = {(u.line, u.target) for u in index.by_module["pkg.jar"].uses if u.kind == "calls"}
    assert (27, "?jar.put") in calls


def test_an_asserted_isinstance_and_an_early_exit_narrow_what_follows(tmp_path: Path) -> None:
    # ``assert isinstance(e, Extension)`` and ``if not isinstance(e, C): raise``
    # make ``e`` a C in the rest of the block (wsproto's handshake)
    index = _index(tmp_path, {"pkg/ext.py": (
        "class Extension:\n"
        "    def offer(self) -> str:\n"
        "        return ''\n"
        "\n"
        "\n"
        "def offers(extensions: list[object]) -> None:\n"
        "    for e in extensions:\n"
        "        assert isinstance(e, Extension)\n"
        "        e.offer()\n"                                  # 9
        "\n"
        "\n"
        "def checked(e: object, f: object) -> str:\n"
        "    if not isinstance(e, Extension):\n"
        "        raise TypeError(e)\n"
        "    assert isinstance(f, Extension) and f\n"
        "    f.offer()\n"                                      # 16
        "    return e.offer()\n"                               # 17
        "\n"
        "\n"
        "def maybe(e: object) -> None:\n"
        "    if not isinstance(e, Extension):\n"
        "        print(e)\n"
        "    e.offer()\n"                                      # 23
    )})
    lines = [line for m, line in _lines(index, "pkg.ext.Extension.offer")]
    assert lines == [9, 16, 17]


def test_a_value_of_a_union_of_classes_refers_to_each_class_member(tmp_path: Path) -> None:
    # ``logger: DummyLogger | OutputLogger | None``, ``self.logger = logger or
    # DummyLogger()`` (h2's configuration): ``config.logger.debug()`` may be
    # either class's method, and jedi lists it for both; the call itself names none
    index = _index(tmp_path, {"pkg/config.py": (
        "from typing import Optional, Union\n"
        "\n"
        "\n"
        "class DummyLogger:\n"
        "    def debug(self, msg: str) -> None:\n"
        "        pass\n"
        "\n"
        "\n"
        "class OutputLogger:\n"
        "    def debug(self, msg: str) -> None:\n"
        "        print(msg)\n"
        "\n"
        "\n"
        "class Config:\n"
        "    fallback: 'DummyLogger | OutputLogger'\n"
        "\n"
        "    def __init__(self, logger: DummyLogger | OutputLogger | None = None) -> None:\n"
        "        self.logger = logger or DummyLogger()\n"
        "        logger.debug('made')\n"                                    # 19
        "\n"
        "\n"
        "def pick(flag: bool) -> Optional[Union[DummyLogger, OutputLogger]]:\n"
        "    return DummyLogger() if flag else OutputLogger()\n"
    ), "pkg/conn.py": (
        "from pkg.config import Config, pick\n"
        "\n"
        "\n"
        "def run(config: Config) -> None:\n"
        "    config.logger.debug('run')\n"                                  # 5
        "    config.fallback.debug('run')\n"                                # 6
        "    pick(True).debug('pick')\n"                                    # 7
    )})
    want = [("pkg.config", 19), ("pkg.conn", 5), ("pkg.conn", 6), ("pkg.conn", 7)]
    assert _lines(index, "pkg.config.DummyLogger.debug") == want
    assert _lines(index, "pkg.config.OutputLogger.debug") == want
    calls = {u.target for u in index.by_module["pkg.conn"].uses if u.kind == "calls" and u.line == 5}
    assert not any(t.endswith(".debug") and not t.startswith("?") for t in calls)


def _calls_at(index: WorkspaceIndex, module: str) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for u in index.by_module[module].uses:
        if u.kind == "calls":
            found.setdefault(u.line, set()).add(u.target)
    return found


def test_unpacked_values_slices_and_operators_of_strings_and_lists(tmp_path: Path) -> None:
    # ``key, value = param.split("=")`` (each an item), ``a, b = x.strip(), y``
    # (place by place), ``tokens[0]``/``for c in name`` of a str (a str),
    # ``left + right`` of two lists (their items), ``"%s" % x`` (a str),
    # ``head, sep, tail = s.partition(";")``, ``data.split(b",")`` of bytes
    index = _index(tmp_path, {"pkg/text.py": (
        "def parse(header: str, data: bytes, extra: list[str]) -> None:\n"
        "    tokens = header.split(';')\n"
        "    content_type, params = tokens[0].strip(), tokens[1:]\n"
        "    content_type.lower()\n"                                        # 4
        "    for param in params + extra:\n"
        "        key, value = param.split('=')\n"
        "        key.strip()\n"                                             # 7
        "    name, sep, rest = header.partition(';')\n"
        "    name.rstrip()\n"                                               # 9
        "    for c in header:\n"
        "        c.isdigit()\n"                                             # 11
        "    ('%s!' % name).upper()\n"                                      # 12
        "    for piece in data.split(b','):\n"
        "        piece.decode()\n"                                          # 14
        "    header[1:].casefold()\n"                                       # 15
    )})
    calls = _calls_at(index, "pkg.text")
    assert calls[4] == {"builtins.str.lower"}
    assert calls[7] == {"builtins.str.strip"}
    assert calls[9] == {"builtins.str.rstrip"}
    assert calls[11] == {"builtins.str.isdigit"}
    assert "builtins.str.upper" in calls[12]
    assert calls[14] == {"builtins.bytes.decode"}
    assert calls[15] == {"builtins.str.casefold"}


def test_a_generic_type_alias_and_the_places_of_its_tuple_items(tmp_path: Path) -> None:
    # ``Headers = list[tuple[bytes, bytes]]`` in another module (wsproto),
    # ``Interval: TypeAlias = "tuple[Bound, Bound]"`` under TYPE_CHECKING
    # (packaging): an annotation naming the alias is what it stands for, and
    # ``for name, value in headers`` / ``lower, upper = intervals[0]`` give each
    # name its place's class
    index = _index(tmp_path, {"pkg/typing.py": (
        "from typing import TYPE_CHECKING\n"
        "Headers = list[tuple[bytes, bytes]]\n"
        "if TYPE_CHECKING:\n"
        "    from typing import TypeAlias\n"
        "    from pkg.bound import Bound\n"
        "    Interval: TypeAlias = 'tuple[Bound, Bound]'\n"
    ), "pkg/bound.py": (
        "class Bound:\n"
        "    def key(self) -> int:\n"
        "        return 0\n"
    ), "pkg/use.py": (
        "from __future__ import annotations\n"
        "from dataclasses import dataclass, field\n"
        "from pkg.typing import Headers, Interval\n"
        "\n"
        "\n"
        "@dataclass\n"
        "class Request:\n"
        "    headers: Headers = field(default_factory=list)\n"
        "\n"
        "\n"
        "def handle(event: Request, intervals: list[Interval]) -> None:\n"
        "    out: Headers = []\n"
        "    for name, value in event.headers:\n"
        "        out.append((name.lower(), value))\n"                      # 14
        "    lower, upper = intervals[0]\n"
        "    lower.key()\n"                                                # 16
        "    for low, high in intervals:\n"
        "        high.key()\n"                                             # 18
    )})
    calls = _calls_at(index, "pkg.use")
    assert calls[14] == {"builtins.list.append", "builtins.bytes.lower"}
    assert calls[16] == {"pkg.bound.Bound.key"}
    assert calls[18] == {"pkg.bound.Bound.key"}


def test_the_keys_of_an_annotated_mapping(tmp_path: Path) -> None:
    # ``offers: dict[str, bool]``: ``for name, flag in offers.items()``, ``for
    # key in table`` and ``.keys()`` give keys; ``table[k]`` is still a value
    index = _index(tmp_path, {"pkg/keys.py": (
        "class Entry:\n"
        "    def size(self) -> int:\n"
        "        return 0\n"
        "\n"
        "\n"
        "def offer(offers: dict[str, bool], table: dict[bytes, Entry]) -> None:\n"
        "    for name, flag in offers.items():\n"
        "        name.encode()\n"                                           # 8
        "    for key in table:\n"
        "        key.decode()\n"                                            # 10
        "    table[b'x'].size()\n"                                          # 11
        "    for k in offers.keys():\n"
        "        k.upper()\n"                                               # 13
    )})
    calls = _calls_at(index, "pkg.keys")
    assert calls[8] == {"builtins.str.encode"}
    assert calls[10] == {"builtins.bytes.decode"}
    assert calls[11] == {"pkg.keys.Entry.size"}
    assert calls[13] == {"builtins.str.upper"}


def test_zlib_compression_objects_are_of_their_private_classes(tmp_path: Path) -> None:
    # typeshed: ``zlib.compressobj()`` is a ``zlib._Compress`` (wsproto's
    # permessage-deflate keeps one, annotated, on self)
    index = _index(tmp_path, {"pkg/deflate.py": (
        "import zlib\n"
        "from typing import Optional\n"
        "\n"
        "\n"
        "class Deflate:\n"
        "    def __init__(self) -> None:\n"
        "        self._decompressor: Optional[zlib._Decompress] = None\n"
        "\n"
        "    def frame(self, data: bytes) -> bytes:\n"
        "        compressor = zlib.compressobj(-15)\n"
        "        out = compressor.compress(data)\n"                          # 11
        "        out.hex()\n"                                                 # 12
        "        return self._decompressor.decompress(data)\n"                # 13
    )})
    calls = _calls_at(index, "pkg.deflate")
    assert calls[11] == {"zlib._Compress.compress"}
    assert calls[12] == {"builtins.bytes.hex"}
    assert calls[13] == {"zlib._Decompress.decompress"}


def test_the_places_of_a_tuple_typed_value_and_of_items_copied_to_a_local(tmp_path: Path) -> None:
    # ``interval: Interval`` (a tuple alias): ``interval[0]`` is of place 0;
    # ``intervals = self.intervals`` keeps the places of its items (packaging's ranges)
    index = _index(tmp_path, {"pkg/ranges.py": (
        "class Lower:\n"
        "    def key(self) -> int:\n"
        "        return 0\n"
        "\n"
        "\n"
        "class Upper:\n"
        "    def key(self) -> int:\n"
        "        return 1\n"
        "\n"
        "\n"
        "Interval = tuple[Lower, Upper]\n"
        "\n"
        "\n"
        "def start(interval: Interval) -> int:\n"
        "    return interval[0].key() + interval[1].key()\n"                  # 15
        "\n"
        "\n"
        "class Index:\n"
        "    def __init__(self, intervals: tuple[Interval, ...]) -> None:\n"
        "        self.intervals = intervals\n"
        "\n"
        "    def contains(self) -> int:\n"
        "        intervals = self.intervals\n"
        "        lower, upper = intervals[0]\n"
        "        return upper.key()\n"                                         # 25
    )})
    calls = _calls_at(index, "pkg.ranges")
    assert calls[15] == {"pkg.ranges.Lower.key", "pkg.ranges.Upper.key"}
    assert calls[25] == {"pkg.ranges.Upper.key"}


def test_the_places_of_what_a_function_yields_and_of_a_tuple_parameter(tmp_path: Path) -> None:
    # ``{k.lower(): v for k, v in self.itermerged()}`` with ``itermerged() ->
    # Iterator[tuple[str, str]]``; ``host, port = address`` of ``address:
    # tuple[str, int]`` (urllib3)
    index = _index(tmp_path, {"pkg/headers.py": (
        "from typing import Iterator\n"
        "\n"
        "\n"
        "class Headers:\n"
        "    def itermerged(self) -> Iterator[tuple[str, str]]:\n"
        "        yield ('a', 'b')\n"
        "\n"
        "    def lowered(self) -> dict[str, str]:\n"
        "        for k, v in self.itermerged():\n"
        "            v.strip()\n"                                              # 10
        "        return {k.lower(): v for k, v in self.itermerged()}\n"       # 11
        "\n"
        "\n"
        "def connect(address: tuple[str, int]) -> None:\n"
        "    host, port = address\n"
        "    host.startswith('[')\n"                                          # 16
        "    port.bit_length()\n"                                             # 17
    )})
    calls = _calls_at(index, "pkg.headers")
    assert calls[10] == {"builtins.str.strip"}
    assert calls[11] == {"pkg.headers.Headers.itermerged", "builtins.str.lower"}
    assert calls[16] == {"builtins.str.startswith"}
    assert calls[17] == {"builtins.int.bit_length"}


def test_locks_polls_and_ssl_objects_of_the_standard_library(tmp_path: Path) -> None:
    # typeshed: ``threading.RLock()`` is a ``_thread.RLock``, ``select.poll()``
    # a ``select.poll``, ``SSLContext.wrap_bio()`` an ``ssl.SSLObject`` (urllib3)
    index = _index(tmp_path, {"pkg/io.py": (
        "import select\n"
        "import ssl\n"
        "import threading\n"
        "\n"
        "\n"
        "class Transport:\n"
        "    def __init__(self, context: ssl.SSLContext) -> None:\n"
        "        self.lock = threading.RLock()\n"
        "        self.sslobj = context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO())\n"
        "\n"
        "    def run(self, fd: int) -> None:\n"
        "        self.lock.acquire()\n"                                        # 12
        "        self.sslobj.version()\n"                                      # 13
        "        poll_obj = select.poll()\n"
        "        poll_obj.register(fd)\n"                                      # 15
    )})
    calls = _calls_at(index, "pkg.io")
    assert calls[12] == {"_thread.RLock.acquire"}
    assert calls[13] == {"ssl.SSLObject.version"}
    assert calls[15] == {"select.poll.register"}


def test_type_is_and_a_conjunct_of_the_test_narrow_the_body(tmp_path: Path) -> None:
    # ``if type(event) is Request and event.method == b"CONNECT":`` and ``if
    # ok and isinstance(event, Data):`` narrow ``event`` in the body
    index = _index(tmp_path, {"pkg/events.py": (
        "class Request:\n"
        "    def target(self) -> bytes:\n"
        "        return b''\n"
        "\n"
        "\n"
        "class Data:\n"
        "    def chunk(self) -> bytes:\n"
        "        return b''\n"
        "\n"
        "\n"
        "def process(event: object, ok: bool) -> None:\n"
        "    if type(event) is Request and ok:\n"
        "        event.target()\n"                                           # 13
        "    elif ok and isinstance(event, Data):\n"
        "        event.chunk()\n"                                            # 15
        "    if type(event) == Data:\n"
        "        event.chunk()\n"                                            # 17
    )})
    calls = _calls_at(index, "pkg.events")
    assert calls[13] == {"pkg.events.Request.target"}
    assert calls[15] == {"pkg.events.Data.chunk"}
    assert calls[17] == {"pkg.events.Data.chunk"}


def test_isinstance_of_a_tuple_of_classes_refers_to_each_in_the_body(tmp_path: Path) -> None:
    # ``if isinstance(event, (Request, Response)):``: ``event.headers()`` may be
    # either class's, as jedi lists it
    index = _index(tmp_path, {"pkg/msgs.py": (
        "class Request:\n"
        "    def headers(self) -> list[str]:\n"
        "        return []\n"
        "\n"
        "\n"
        "class Response:\n"
        "    def headers(self) -> list[str]:\n"
        "        return []\n"
        "\n"
        "\n"
        "def process(event: object) -> None:\n"
        "    if isinstance(event, (Request, Response)):\n"
        "        event.headers()\n"                                          # 13
        "    event.headers()\n"                                              # 14
    )})
    assert _lines(index, "pkg.msgs.Request.headers") == [("pkg.msgs", 13)]
    assert _lines(index, "pkg.msgs.Response.headers") == [("pkg.msgs", 13)]


def test_generic_among_the_bases_is_no_class_of_unknown_members(tmp_path: Path) -> None:
    # ``class CaseInsensitiveDict(MutableMapping[str, _VT], Generic[_VT])``:
    # ``self.update`` is the mapping's; Generic has no members to guess (requests)
    index = _index(tmp_path, {"pkg/structures.py": (
        "from collections.abc import MutableMapping\n"
        "from typing import Generic, TypeVar\n"
        "_VT = TypeVar('_VT')\n"
        "\n"
        "\n"
        "class CaseInsensitiveDict(MutableMapping[str, _VT], Generic[_VT]):\n"
        "    def __init__(self) -> None:\n"
        "        self.update({})\n"                                          # 8
    )})
    assert _calls_at(index, "pkg.structures")[8] == {"collections.abc.MutableMapping.update"}


def test_final_and_classvar_annotations_and_the_members_of_a_typeddict(tmp_path: Path) -> None:
    # ``DEFAULT_PORTS: Final = {...}`` is a dict (requests), ``Final[X]`` and
    # ``ClassVar[X]`` an X; a TypedDict's ``get`` is dict's (packaging, urllib3)
    index = _index(tmp_path, {"pkg/utils.py": (
        "from typing import ClassVar, Final, TypedDict\n"
        "DEFAULT_PORTS: Final = {'http': 80}\n"
        "NAMES: Final[list[str]] = []\n"
        "\n"
        "\n"
        "class Cert(TypedDict, total=False):\n"
        "    subject: str\n"
        "\n"
        "\n"
        "class Pool:\n"
        "    scheme: ClassVar[str] = 'http'\n"
    ), "pkg/use.py": (
        "from pkg.utils import DEFAULT_PORTS, NAMES, Cert, Pool\n"
        "\n"
        "\n"
        "def port(cert: Cert, pool: Pool) -> None:\n"
        "    DEFAULT_PORTS.get('http')\n"                                    # 5
        "    NAMES[0].upper()\n"                                             # 6
        "    cert.get('subject')\n"                                          # 7
        "    pool.scheme.upper()\n"                                          # 8
    )})
    calls = _calls_at(index, "pkg.use")
    assert calls[5] == {"builtins.dict.get"}
    assert calls[6] == {"builtins.str.upper"}
    assert calls[7] == {"builtins.dict.get"}
    assert calls[8] == {"builtins.str.upper"}


def test_values_of_the_standard_library_of_a_known_class(tmp_path: Path) -> None:
    # typeshed: ``sys.modules`` is a dict, ``ssl.OPENSSL_VERSION`` a str: their
    # methods are the class's, not a guessed ``sys.modules.pop``
    index = _index(tmp_path, {"pkg/env.py": (
        "import ssl\n"
        "import sys\n"
        "\n"
        "\n"
        "def unload(name: str) -> None:\n"
        "    sys.modules.pop(name, None)\n"                                  # 6
        "    ssl.OPENSSL_VERSION.startswith('OpenSSL')\n"                     # 7
    )})
    calls = _calls_at(index, "pkg.env")
    assert calls[6] == {"builtins.dict.pop"}
    assert calls[7] == {"builtins.str.startswith"}


def test_an_instance_indexed_through_getitem_and_unpacked_through_iter(tmp_path: Path) -> None:
    # ``headers[0]`` of a class whose ``__getitem__`` says what it gives, and
    # ``for name, value in headers`` of one whose ``__iter__`` yields ``tuple[A, B]``
    index = _index(tmp_path, {"pkg/hdrs.py": (
        "from typing import Iterator\n"
        "\n"
        "\n"
        "class Name:\n"
        "    def lower(self) -> 'Name':\n"
        "        return self\n"
        "\n"
        "\n"
        "class Headers:\n"
        "    def __getitem__(self, i: int) -> Name:\n"
        "        return Name()\n"
        "\n"
        "    def __iter__(self) -> Iterator[tuple[Name, bytes]]:\n"
        "        yield (Name(), b'')\n"
        "\n"
        "\n"
        "def first(headers: Headers) -> None:\n"
        "    headers[0].lower()\n"                                           # 18
        "    for name, value in headers:\n"
        "        name.lower()\n"                                             # 20
        "        value.decode()\n"                                           # 21
    )})
    calls = _calls_at(index, "pkg.hdrs")
    assert calls[18] == {"pkg.hdrs.Name.lower"}
    assert calls[20] == {"pkg.hdrs.Name.lower"}
    assert calls[21] == {"builtins.bytes.decode"}


def test_generic_still_stands_for_its_special_members(tmp_path: Path) -> None:
    # ``super().__class_getitem__`` and ``super().__init__`` of a class of two
    # bases of unknown members, one of them Generic: not guessed (click, urllib3)
    index = _index(tmp_path, {"pkg/types.py": (
        "from collections.abc import Mapping\n"
        "from typing import Generic, TypeVar\n"
        "T = TypeVar('T')\n"
        "\n"
        "\n"
        "class ParamType(Mapping[str, T], Generic[T]):\n"
        "    def __init__(self) -> None:\n"
        "        super().__init__()\n"                                       # 8
        "        self.keys()\n"                                              # 9
    )})
    calls = _calls_at(index, "pkg.types")
    assert calls[8] == {"?super().__init__", "builtins.super"}
    assert calls[9] == {"collections.abc.Mapping.keys"}


def test_an_or_ed_early_exit_and_the_places_of_a_tuple_attribute(tmp_path: Path) -> None:
    # ``if not isinstance(x, str) or not x.startswith("."): raise`` makes x a
    # str after it; ``op, ver = spec._spec`` of ``_spec: tuple[str, str]`` (packaging)
    index = _index(tmp_path, {"pkg/spec.py": (
        "class Spec:\n"
        "    _spec: tuple[str, str]\n"
        "\n"
        "\n"
        "def check(ext: object, spec: Spec) -> None:\n"
        "    if not isinstance(ext, str) or not ext.startswith('.'):\n"
        "        raise SystemError(ext)\n"
        "    ext.split('.')\n"                                               # 8
        "    op, ver = spec._spec\n"
        "    ver.endswith('*')\n"                                            # 10
        "    spec._spec[0].strip()\n"                                        # 11
    )})
    calls = _calls_at(index, "pkg.spec")
    assert calls[8] == {"builtins.str.split"}
    assert calls[10] == {"builtins.str.endswith"}
    assert calls[11] == {"builtins.str.strip"}


def test_isinstance_narrows_the_rest_of_an_and_or_an_or_after_its_negation(tmp_path: Path) -> None:
    # ``isinstance(x, str) and x.startswith(".")``, ``not isinstance(x, str) or
    # x.startswith(".")``: the later tests see x as a str (packaging's tags)
    index = _index(tmp_path, {"pkg/tags.py": (
        "def check(ext: object, n: int) -> bool:\n"
        "    ok = isinstance(ext, str) and ext.startswith('.')\n"            # 2
        "    if not isinstance(ext, str) or not ext.endswith('.so'):\n"      # 3
        "        return ok\n"
        "    return n > 0 and isinstance(ext, bytes) and ext.isdigit()\n"    # 5
    )})
    calls = _calls_at(index, "pkg.tags")
    assert "builtins.str.startswith" in calls[2]
    assert "builtins.str.endswith" in calls[3]
    assert "builtins.bytes.isdigit" in calls[5]


PAIRS = (
    "class Left:\n"
    "    def use(self) -> int:\n"
    "        return 0\n"
    "\n"
    "\n"
    "class Right:\n"
    "    def use(self) -> int:\n"
    "        return 1\n"
    "\n"
    "\n"
)


def test_nested_targets_of_enumerate_of_zip(tmp_path: Path) -> None:
    # ``for j, (p, q) in enumerate(zip(a, b))``: p an item of a, q of b (in a
    # loop and in a comprehension); ``for (i, x), y in zip(enumerate(a), b)``
    index = _index(tmp_path, {"pkg/pairs.py": PAIRS + (
        "def walk(a: list[Left], b: list[Right]) -> None:\n"
        "    for j, (p, q) in enumerate(zip(a, b)):\n"
        "        q.use()\n"                                                    # 13
        "        p.use()\n"                                                    # 14
        "    print([y.use() for i, (x, y) in enumerate(zip(a, b))])\n"         # 15
        "    for (i, x), y in zip(enumerate(a), b):\n"
        "        x.use()\n"                                                    # 17
    )})
    calls = _calls_at(index, "pkg.pairs")
    assert calls[13] == {"pkg.pairs.Right.use"}
    assert calls[14] == {"pkg.pairs.Left.use"}
    assert "pkg.pairs.Right.use" in calls[15] and "?y.use" not in calls[15]
    assert calls[17] == {"pkg.pairs.Left.use"}


def test_starred_targets_an_item_before_and_after_the_star_and_a_list_of_items(tmp_path: Path) -> None:
    # ``first, *rest = items``: first an item of items, rest a list of them;
    # ``*init, last = pair`` of ``pair: tuple[Left, Right]``: last is place -1,
    # and ``*init, last = f()`` of ``f() -> tuple[Left, Left, Right]`` is not place 1
    index = _index(tmp_path, {"pkg/pairs.py": PAIRS + (
        "def three() -> tuple[Left, Left, Right]:\n"
        "    return Left(), Left(), Right()\n"
        "\n"
        "\n"
        "def walk(a: list[Left], pair: tuple[Left, Right]) -> None:\n"
        "    first, *rest = a\n"
        "    first.use()\n"                                                    # 17
        "    for r in rest:\n"
        "        r.use()\n"                                                    # 19
        "    *init, last = pair\n"
        "    last.use()\n"                                                     # 21
        "    *some, end = three()\n"
        "    end.use()\n"                                                      # 23
    )})
    calls = _calls_at(index, "pkg.pairs")
    assert calls[17] == {"pkg.pairs.Left.use"}
    assert calls[19] == {"pkg.pairs.Left.use"}
    assert calls[21] == {"pkg.pairs.Right.use"}
    assert "pkg.pairs.Left.use" not in calls[23]


def test_await_of_asyncio_gather_is_a_tuple_of_what_each_coroutine_returns(tmp_path: Path) -> None:
    # ``y, z = await asyncio.gather(f(), g())``: y of f's return class, z of g's
    index = _index(tmp_path, {"pkg/tasks.py": (
        "import asyncio\n"
        "\n"
        "\n"
        "class Left:\n"
        "    def use(self) -> int:\n"
        "        return 0\n"
        "\n"
        "\n"
        "class Right:\n"
        "    def use(self) -> int:\n"
        "        return 1\n"
        "\n"
        "\n"
        "async def f() -> Left:\n"
        "    return Left()\n"
        "\n"
        "\n"
        "async def g() -> Right:\n"
        "    return Right()\n"
        "\n"
        "\n"
        "async def main() -> None:\n"
        "    y, z = await asyncio.gather(f(), g())\n"
        "    y.use()\n"                                                        # 24
        "    z.use()\n"                                                        # 25
    )})
    calls = _calls_at(index, "pkg.tasks")
    assert calls[24] == {"pkg.tasks.Left.use"}
    assert calls[25] == {"pkg.tasks.Right.use"}


# Round 6: rules found on a wider tune half (markdown_it, referencing, jsonschema, anyio, parso: docs/performance.md,
# "Recall round 6"). One workspace, each rule a parametrized case: (the member, where it must be used).
ROUND6_MODEL = '''\
from __future__ import annotations

import enum
from contextlib import asynccontextmanager
from typing import AsyncIterator, Callable, Generic, TypeVar

T = TypeVar("T")
BoxT = TypeVar("BoxT", bound="Box")


class Err(Exception):
    def hint(self) -> int:
        return 1


class Other(Exception):
    def hint(self) -> int:
        return 2


class Box:
    def open(self) -> Box:
        return self

    def __add__(self, other: Box) -> Box:
        return Box()

    def __rmatmul__(self, other: object) -> Box:
        return Box()

    @classmethod
    def make(cls) -> Box:
        return cls()

    async def __aenter__(self) -> Box:
        return self


class Ruler(Generic[T]):
    def push(self, item: T) -> None:
        pass


class Color(enum.Enum):
    RED = 1

    def paint(self) -> None:
        pass


def kind() -> type[Box]:
    return Box


@asynccontextmanager
async def opened() -> AsyncIterator[Box]:
    yield Box()


Made = kind()
BOXES = {"a": Box()}
'''
ROUND6_USER = '''\
from typing import Callable

from pkg.model import BOXES, Box, BoxT, Color, Err, Made, Other, Ruler, kind, opened


def run(factory: Callable[[], Box], x: Box) -> None:
    try:
        pass
    except Err as e:
        e.hint()                              # 10
    except (Err, Other) as both:
        both.hint()                           # 12
    boxes = {"a": Box(), "b": Box()}
    boxes["a"].open()                         # 14
    [b.open() for b in boxes.values()]        # 15
    BOXES["a"].open()                         # 16
    (Box() + Box()).open()                    # 17
    (1 @ Box()).open()                        # 18
    factory().open()                          # 19
    Color.RED.paint()                         # 20
    Color["RED"].paint()                      # 21
    for c in Color:
        c.paint()                             # 23
    t = (Box(), 1)
    t[0].open()                               # 25
    type(x).make()                            # 26
    x.__class__.make()                        # 27
    Ruler[int]().push(1)                      # 28
    Made().open()                             # 29
    kind().make()                             # 30


async def entered() -> None:
    async with Box() as b:
        b.open()                              # 35
    async with opened() as o:
        o.open()                              # 37


class Holder:
    def __init__(self, make: Callable[[], Box]) -> None:
        self.make = make
        self.ruler = Ruler[str]()

    def go(self) -> None:
        self.make().open()                    # 46
        self.ruler.push("a")                  # 47


def walrus() -> None:
    if (found := Box.make()) is not None:
        found.open()                          # 52


def bounded(box: BoxT) -> None:
    box.open()                                # 56


def closure(x: Box) -> None:
    def hook(val: int, _b=x) -> None:
        _b.open()                             # 61


class Uses:
    kind: type[Box] = Box

    def __init__(self, k: type[Box]) -> None:
        self.k = k

    def go(self) -> None:
        self.kind.make()                      # 71
        self.k.make()                         # 72


try:
    from pkg.model import Made as Fallback
except ImportError:
    from __main__ import Made as Fallback
Fallback().open()                             # 79


def values() -> None:
    for v in set(BOXES.values()):
        v.open()                              # 84
'''


@pytest.fixture(scope="module")
def round6(tmp_path_factory: pytest.TempPathFactory) -> WorkspaceIndex:
    return _index(tmp_path_factory.mktemp("round6"), {"pkg/model.py": ROUND6_MODEL, "pkg/user.py": ROUND6_USER})


@pytest.mark.parametrize(("member", "lines"), [
    ("Err.hint", {10, 12}),                 # except E as e; except (A, B) as e: each class's member
    ("Other.hint", {12}),
    ("Box.open", {14, 15, 16, 17, 18, 19, 25, 29, 35, 37, 46, 52, 56, 61, 79, 84}),  # dict literal values (here and imported),
    # a + b and 1 @ b through __add__/__rmatmul__, Callable[[], Box] called, a tuple literal's place,
    # V = f() with f() -> type[Box] imported and called, async with (__aenter__, @asynccontextmanager), x := f(),
    # a TypeVar's bound, a parameter's default (``_b=x``), the try's import, not the except ImportError one,
    # the items of set(m.values())
    ("Color.paint", {20, 21, 23}),          # an Enum's members are its instances: Color.RED, Color["RED"], for c in Color
    ("Box.make", {26, 27, 30, 51, 71, 72}),  # type(x).make(), x.__class__.make(), f().make() of f() -> type[Box],
    # self.kind.make() of ``kind: type[Box]`` and of ``self.k = k`` with ``k: type[Box]``
    ("Ruler.push", {28, 47}),               # Ruler[int]() makes a Ruler
])
def test_round6_rules(round6: WorkspaceIndex, member: str, lines: set[int]) -> None:
    used = {line for module, line in _lines(round6, f"pkg.model.{member}") if module == "pkg.user"}
    assert used == lines


# Round 7: rules found on a tune half widened with toolz, pyparsing and others (docs/performance.md,
# "Recall round 7").
def test_a_star_import_binds_the_public_names_of_the_module_it_reads(tmp_path: Path) -> None:
    # ``from .core import *`` in pkg/__init__.py and in pkg/helpers.py: a name used there, ``pkg.name``
    # and ``from pkg import name`` elsewhere are core's definitions (toolz, pyparsing)
    index = _index(tmp_path, {
        "pkg/__init__.py": "from .core import *\nfrom .extra import *\n",
        "pkg/core.py": (
            "class Element:\n"
            "    def parse(self) -> None:\n        pass\n\n\n"
            "def one_of(s: str) -> Element:\n    return Element()\n\n\n"
            "def _private() -> None:\n    pass\n"
        ),
        "pkg/extra.py": "def one_of(s: str) -> int:\n    return 1\n",  # a later star import binds it last
        "pkg/helpers.py": (
            "from .core import *\n\n\n"
            "def make() -> None:\n"
            "    e = Element()\n"                     # 5
            "    e.parse()\n"                         # 6
            "    one_of('a')\n"                       # 7
            "    Element.parse(e)\n"                  # 8
        ),
        "pkg/user.py": (
            "import pkg\n"
            "from pkg import Element, one_of\n\n\n"  # 2
            "def use() -> None:\n"
            "    Element().parse()\n"                 # 6
            "    pkg.Element().parse()\n"             # 7
            "    one_of('b')\n"                       # 8
        ),
    })
    def elsewhere(qualname: str) -> list[tuple[str, int]]:
        return [(m, n) for m, n in _lines(index, qualname) if m in ("pkg.helpers", "pkg.user")]

    assert elsewhere("pkg.core.Element") == [("pkg.helpers", 5), ("pkg.helpers", 8),
                                             ("pkg.user", 2), ("pkg.user", 6), ("pkg.user", 7)]
    assert elsewhere("pkg.core.Element.parse") == [("pkg.helpers", 6), ("pkg.helpers", 8),
                                                   ("pkg.user", 6), ("pkg.user", 7)]
    assert elsewhere("pkg.core.one_of") == [("pkg.helpers", 7)]
    assert elsewhere("pkg.extra.one_of") == [("pkg.user", 2), ("pkg.user", 8)]


def test_what_the_standard_library_returns_round7(tmp_path: Path) -> None:
    # typeshed's classes of asyncio's loop getters, copy_context(), Signature.parameters, a frame's
    # globals and datetime's constructors (structlog, toolz, marshmallow)
    index = _index(tmp_path, {"pkg/std.py": (
        "import asyncio, contextvars, inspect, sys\n"
        "import datetime as dt\n\n\n"
        "def run(fn):\n"
        "    asyncio.get_running_loop().run_in_executor(None, fn)\n"       # 6
        "    ctx = contextvars.copy_context()\n"
        "    ctx.run(fn)\n"                                                # 8
        "    inspect.signature(fn).parameters.values()\n"                  # 9
        "    sys._getframe().f_globals.get('x')\n"                         # 10
        "    dt.datetime.strptime('1', '%d').time()\n"                     # 11
        "    dt.datetime.fromtimestamp(1).astimezone().replace(tzinfo=None)\n"  # 12
    )})
    calls = _calls_at(index, "pkg.std")
    assert "asyncio.AbstractEventLoop.run_in_executor" in calls[6]
    assert calls[8] == {"contextvars.Context.run"}
    assert "types.MappingProxyType.values" in calls[9]
    assert "builtins.dict.get" in calls[10]
    assert "datetime.datetime.time" in calls[11]
    assert {"datetime.datetime.astimezone", "datetime.datetime.replace"} <= calls[12]


def test_a_function_decorated_with_a_class_is_an_instance_of_it(tmp_path: Path) -> None:
    # ``@curry def add``: ``add = curry(add)``, so ``add.bind()`` is curry's bind, here, in a nested
    # function and in an importer (toolz's tests)
    index = _index(tmp_path, {
        "pkg/fn.py": (
            "class curry:\n"
            "    def __init__(self, f):\n        self.f = f\n\n"
            "    def bind(self, x):\n        return self\n\n\n"
            "@curry\n"
            "def add(x, y):\n    return x + y\n\n\n"
            "def local():\n"
            "    @curry\n"
            "    def inner(x):\n        return x\n"
            "    inner.bind(1)\n"                       # 18
            "    add.bind(2)\n"                         # 19
        ),
        "pkg/user.py": "from pkg.fn import add\n\n\ndef go():\n    add.bind(3)\n",
    })
    assert _lines(index, "pkg.fn.curry.bind") == [("pkg.fn", 18), ("pkg.fn", 19), ("pkg.user", 5)]


def test_pop_of_a_list_deque_or_set_gives_an_item(tmp_path: Path) -> None:
    # ``xs.pop()``, ``xs.pop(0)``, ``q.popleft()`` of a list or deque of known items (pyparsing's
    # ``to_visit = deque([self])``, then ``cur = to_visit.popleft()``; a parser's stack)
    index = _index(tmp_path, {"pkg/stack.py": (
        "import collections\n"
        "from collections import deque\n\n\n"
        "class Node:\n"
        "    def visit(self) -> None:\n        pass\n\n\n"
        "def walk(root: Node, nodes: list[Node]) -> None:\n"
        "    todo = deque([root])\n"
        "    cur = todo.popleft()\n"
        "    cur.visit()\n"                                # 13
        "    nodes.pop().visit()\n"                        # 14
        "    nodes.pop(0).visit()\n"                       # 15
        "    collections.deque(nodes).pop().visit()\n"     # 16
        "    {root}.pop().visit()\n"                       # 17
    )})
    assert _lines(index, "pkg.stack.Node.visit") == [("pkg.stack", n) for n in (13, 14, 15, 16, 17)]


def test_a_class_body_name_bound_to_itself_reads_the_enclosing_one(tmp_path: Path) -> None:
    # ``RemoteError = RemoteError`` in a class body (execnet's Channel): the value is the module's class
    index = _index(tmp_path, {"pkg/chan.py": (
        "class RemoteError(Exception):\n    pass\n\n\n"
        "class Channel:\n"
        "    RemoteError = RemoteError\n"     # 6
    )})
    assert _lines(index, "pkg.chan.RemoteError") == [("pkg.chan", 6)]


def test_a_star_import_binds_what_the_module_imports_by_name(tmp_path: Path) -> None:
    # pyparsing's helpers.py uses ``replaced_by_pep8``, which core.py imports from util.py and helpers
    # star-imports from core (no ``__all__``: a star import binds every public name, imported ones too)
    index = _index(tmp_path, {
        "pkg/util.py": "def replaced(name: str) -> str:\n    return name\n",
        "pkg/core.py": "from .util import replaced\n",
        "pkg/helpers.py": "from .core import *\n\n\ndef make() -> None:\n    replaced('a')\n",
    })
    assert _lines(index, "pkg.util.replaced") == [("pkg.core", 1), ("pkg.helpers", 5)]
