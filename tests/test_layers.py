"""The project's layering, read from the source: every import of every module of
ours (at module level, inside functions and under ``TYPE_CHECKING`` alike) points
down the flow of data, and no modules import each other round a loop.

    codec <- analysis <- views <- servers <- inspector <- semaprax

(docs/architecture in ``README.md``'s layout section). A package may import its
own modules and any package below it, never one above.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("codec", "analysis", "views", "servers", "inspector", "semaprax")
RANK = {name: i for i, name in enumerate(LAYERS)}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every module of ours that ``path`` imports, relative imports resolved.
    ``from pkg import sub`` where ``sub`` is a module counts as importing ``sub``
    alone (Python runs ``pkg/__init__`` first whatever imports it, so naming the
    package there is no dependency on what its ``__init__`` holds)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = {f"{target}.{alias.name}" for alias in node.names}
            modules = {s for s in subs if _is_module(s)}
            found.update(modules)
            if modules != subs:
                found.add(target)
    return {m for m in found if m.split(".")[0] in RANK}


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def our_modules() -> dict[str, Path]:
    return {module_name(p): p for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))}


def graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (names that are not modules,
    such as ``from codec import CompactError``, fold into their package)."""
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imports_of(path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        edges[name] = targets
    return edges


def upward_arrows(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{src} -> {dst}" for src, dsts in edges.items() for dst in dsts
                  if RANK[dst.split(".")[0]] > RANK[src.split(".")[0]])


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan).
    A package's ``__init__`` importing its own submodules is not a cycle with
    them unless one of them imports it back by name."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_every_package_is_there() -> None:
    modules = our_modules()
    for layer in LAYERS:
        assert layer in modules, f"{layer}/__init__.py is missing"


def test_no_arrow_points_up() -> None:
    assert upward_arrows(graph(our_modules())) == []


def test_no_import_cycle() -> None:
    found = cycles(graph(our_modules()))
    assert found == [], "\n".join(" <-> ".join(c) for c in found)


def test_the_checks_catch_a_reversed_arrow_and_a_cycle() -> None:
    """The two checks above would fail on a reversed arrow and on a loop."""
    edges = graph(our_modules())
    edges["codec.wire"] = edges["codec.wire"] | {"views.tokens"}
    assert "codec.wire -> views.tokens" in upward_arrows(edges)
    edges["analysis.sources"] = edges["analysis.sources"] | {"analysis.index"}
    assert any({"analysis.sources", "analysis.index"} <= set(c) for c in cycles(edges))


@pytest.mark.parametrize("source, expected", [
    ("from . import route\n", {"servers.route"}),
    ("from ..model import Loaded\n", {"inspector.model"}),
    ("def f():\n    from views import tokens\n", {"views.tokens"}),
])
def test_imports_of_reads_relative_and_nested_imports(tmp_path: Path, source: str, expected: set[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    where = {"from . import route\n": ROOT / "servers" / "lsp.py",
             "from ..model import Loaded\n": ROOT / "inspector" / "panes" / "body.py",
             "def f():\n    from views import tokens\n": ROOT / "inspector" / "counting.py"}[source]
    monkeypatch.setattr(Path, "read_bytes", lambda self: source.encode())
    assert imports_of(where) == expected


def test_the_suite_runs_in_its_own_environment() -> None:
    """conftest.py removed the user's settings that change results."""
    import os

    assert "MAX_MCP_OUTPUT_TOKENS" not in os.environ
    assert "semaprax-tests-home-" in os.environ["HOME"]
    assert Path.cwd() == ROOT
