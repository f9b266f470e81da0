"""Fitted views (views/fit.py): every profile, over its budget, comes back within
it in both tokenizers, says it is partial, names narrower roots with their own
token counts, and replays to the same bytes (docs/wire-format.md §2.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codec
from analysis.warm import IndexCache
from servers.route import PRODUCERS
from servers.route import make_projection as _make
from servers.route import replay_projection as _replay
from views import tokens
from views.budget import budget_of
from views.expand import expand
from views.fit import PARTIAL, Budget, _graph_names, bare_signature, wire_text
from views.shapes import pack_graph, unpack_graph

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: One warm index for the whole file, as a server keeps (the fitting itself is what is tested).
CACHE = IndexCache()


def make_projection(profile: str, root: str, folder: Path, **kw: object) -> codec.CompactProjection:
    return _make(profile, root, folder, index_cache=CACHE, **kw)  # type: ignore[arg-type]


def replay_projection(p: codec.CompactProjection, folder: Path) -> codec.CompactProjection:
    return _replay(p, folder, index_cache=CACHE)


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of 24 modules that all use ``pkg.core.Engine``, each with an unused import."""
    folder = tmp_path_factory.mktemp("wide")
    (folder / "semaprax.toml").write_text('[project]\nname = "wide"\nsources = ["pkg"]\n')
    pkg = folder / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""The package."""\n')
    (pkg / "core.py").write_text(
        '"""Core. It has an engine."""\n\n\nclass Engine:\n    """Runs things. Many of them."""\n\n'
        '    def run(self, steps: int = 3, *, label: str = "x") -> int:\n        """Run it."""\n'
        '        return steps\n')
    for n in range(24):
        (pkg / f"user_{n:02}.py").write_text(
            f'"""User number {n}, which drives the engine."""\nimport os\n\nfrom pkg.core import Engine\n\n\n'
            f'def drive_{n}(count: int = {n}) -> int:\n    """Drive it."""\n    return Engine().run(count)\n\n\n'
            f'def idle_{n}() -> None:\n    Engine()\n')
    return folder


CASES = [
    ("graph", "http_app_routing.py", EXAMPLES, 4_000, "json"),
    ("graph", "banking_ledger.py", EXAMPLES, 1_500, "model-text"),
    ("symbols", ".", EXAMPLES, 5_000, "json"),
    ("symbols", "pkg", "wide", 700, "text"),
    ("task-context", "banking_ledger.Ledger.apply", EXAMPLES, 500, "json"),
    ("task-context", "pkg.core.Engine.run", "wide", 450, "json"),
    ("references", "pkg.core.Engine", "wide", 500, "json"),
    ("diagnostics", "semaprax.toml", "wide", 450, "json"),
    ("project-graph", "semaprax.toml", "wide", 450, "json"),
]


def _folder(where: Path | str, wide: Path) -> Path:
    return wide if where == "wide" else Path(where)


@pytest.mark.parametrize(("profile", "root", "where", "limit", "form"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[4]}" for c in CASES])
def test_a_view_over_its_budget_is_fitted_within_it(profile: str, root: str, where: Path | str, limit: int,
                                                    form: str, wide: Path) -> None:
    folder = _folder(where, wide)
    whole = make_projection(profile, root, folder)
    assert max(tokens.count_tokens(codec.ENCODERS[form](whole)).values()) > limit  # the case needs fitting
    p = make_projection(profile, root, folder, budget=Budget(limit, form))
    wire = codec.ENCODERS[form](p)
    assert all(n <= limit for n in tokens.count_tokens(wire).values())
    value = json.loads(p.selected)
    marker = value[PARTIAL]
    assert next(iter(value)) == PARTIAL  # read first
    assert marker["max_tokens"] == limit and marker["counted"] == form
    assert marker["shed"] or marker["omitted"]
    assert budget_of(value) == Budget(limit, form)
    # the narrower roots exist and their counts are their own views' wires
    table = marker.get("narrower", {"columns": [], "rows": []})
    if profile != "task-context" or "omitted" in marker:
        assert table["rows"], marker
    assert table["rows"] == [] or table["columns"] == ["profile", "root", "cl100k_base", "o200k_base"]
    for other, other_root, cl100k, o200k in table["rows"][:2]:
        q = make_projection(other, other_root, folder)
        counted = tokens.count_tokens(wire_text(other, q.root, q.source_revision, json.loads(q.selected), form))
        assert counted == {"cl100k_base": cl100k, "o200k_base": o200k}
    # a fitted view is still a view: it expands, and it replays to the same bytes
    body = {k: v for k, v in value.items() if k != PARTIAL}
    expand(profile, body)
    if profile == "graph":  # sent in the packed rows, which unpack and pack back exactly
        assert body["definitions"]["columns"][0] == "lines"
        assert codec.canonical_json(pack_graph(unpack_graph(body))) == codec.canonical_json(body)
    assert replay_projection(p, folder).selected == p.selected


def test_shedding_goes_docs_then_signature_detail_then_definitions() -> None:
    whole = json.loads(make_projection("graph", "http_app_routing.py", EXAMPLES).selected)
    rows = unpack_graph(whole)["definitions"]["rows"]
    sizes = []
    # The limits follow the example's graph (about 10,800 tokens whole): at 10,500 only the docs go, at
    # 9,000 the signature detail too; a resolver that states more facts moves them (see the sizes below).
    for limit in (10_500, 9_000, 3_000):
        value = unpack_graph(json.loads(make_projection("graph", "http_app_routing.py", EXAMPLES,
                                                        budget=Budget(limit)).selected))
        sizes.append((value[PARTIAL]["shed"], len(value["definitions"]["rows"])))
        assert "doc" not in value and all(len(r) < 8 for r in value["definitions"]["rows"])
    assert sizes[0] == (["doc"], len(rows)), sizes
    assert sizes[1][0] == ["doc", "signature detail"]
    assert sizes[2][1] < sizes[1][1]
    fitted = unpack_graph(json.loads(make_projection("graph", "http_app_routing.py", EXAMPLES,
                                                     budget=Budget(3_000)).selected))["definitions"]["rows"]
    kept = set(_graph_names(fitted))
    assert kept <= set(_graph_names(rows))
    for name in kept:  # a kept definition keeps its parents
        assert "." not in name or name.rpartition(".")[0] in kept or name.rpartition(".")[0] not in _graph_names(rows)


def test_the_most_used_definitions_are_kept(wide: Path) -> None:
    value = json.loads(make_projection("symbols", "pkg", wide, budget=Budget(350)).selected)
    kept = [(m["path"], r[0]) for m in value["modules"] for r in m["symbols"]]
    assert ("pkg/core.py", "Engine") in kept  # used by every module
    assert value[PARTIAL]["omitted"]["modules"] > 0


def test_a_view_that_fits_is_whole_and_unmarked() -> None:
    whole = make_projection("graph", "banking_ledger.py", EXAMPLES)
    fitted = make_projection("graph", "banking_ledger.py", EXAMPLES, budget=Budget(100_000))
    assert fitted.selected == whole.selected and PARTIAL not in json.loads(fitted.selected)


def test_replay_fails_when_the_sources_change(wide: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "w"
    shutil.copytree(wide, copy)
    p = make_projection("symbols", "pkg", copy, budget=Budget(500))
    (copy / "pkg" / "user_07.py").write_text("def drive_7(): pass\n" * 3)
    assert replay_projection(p, copy).selected != p.selected


def test_the_cli_fits_and_replays(wide: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from semaprax.cli import main

    out = tmp_path / "fitted.model-text"
    assert main(["project", "semaprax.toml", "--profile", "project-graph", "--workspace", str(wide),
                 "--encoding", "model-text", "--max-tokens", "450", "-o", str(out)]) == 0
    assert all(n <= 450 for n in tokens.count_tokens(out.read_bytes()).values())
    assert PARTIAL in json.loads(codec.decode_wire(out.read_bytes()).selected)
    assert main(["replay", str(out), "--workspace", str(wide)]) == 0
    assert "selected bytes match" in capsys.readouterr().out


def test_the_cli_refuses_a_budget_too_small_for_any_fit(wide: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from semaprax.cli import main

    out = tmp_path / "never.json"
    assert main(["project", "pkg", "--profile", "symbols", "--workspace", str(wide), "--max-tokens", "30",
                 "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert err.startswith("semaprax.budget:") and "narrower roots: symbols pkg/" in err


@pytest.mark.parametrize(("signature", "bare"), [
    ("(self, steps: int = 3, *, label: str = 'x') -> int", "(self, steps, *, label)"),
    ("(a, b, /, c=1, *args: int, d, **kw) -> None", "(a, b, /, c, *args, d, **kw)"),
    ("()", "()"),
    ("(Base, Generic[T])", "(Base, Generic[T])"),
    ("not a signature", "not a signature"),
])
def test_bare_signature(signature: str, bare: str) -> None:
    assert bare_signature(signature) == bare


def test_every_profile_is_fitted() -> None:
    assert {c[0] for c in CASES} == set(PRODUCERS)
