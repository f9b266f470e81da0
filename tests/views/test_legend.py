"""Every key and convention a document uses is explained: in the legend the MCP
tool description carries (views/legend.py) and in docs/profiles.md. The check is
fed each profile's real documents (whole and fitted) and their wires."""

from __future__ import annotations

import json
import os
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import codec
from analysis.warm import IndexCache
from servers.mcp import description
from servers.route import make_projection
from views.fit import Budget
from views.legend import COMMON, FORMS, LEGENDS, PARTIAL, SELF_EVIDENT, legend

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DEMO = ROOT / "tests" / "fixtures" / "demo"
STDLIB = Path(os.path.dirname(typing.__file__))
PROFILES_MD = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
CACHE = IndexCache()

#: Objects whose keys are data (names, paths, kinds), per profile: their keys are
#: not looked up, their values are walked.
DATA_MAPS = {
    "graph": {"imports", "module_edges", "edges", "edges.*"},
    "task-context": {"callees", "constructs", "types", "imports", "class.members"},
    "project-graph": {"imports", "external", "entry_points", "module_names"},
    "symbols": set(),
    "references": {"files", "files.*", "files.*.*"},
    "diagnostics": {"files", "files.*"},
}

DOCUMENTS = [
    ("graph", "http_app_routing.py", EXAMPLES, None),
    ("graph", "banking_ledger.py", EXAMPLES, 2_000),
    ("graph", "pkg/core.py", DEMO, None),
    ("graph", "token.py", STDLIB, None),
    ("graph", "_weakrefset.py", STDLIB, 600),
    ("task-context", "banking_ledger.Ledger.apply", EXAMPLES, None),
    ("task-context", "banking_ledger.Ledger.apply", EXAMPLES, 450),
    ("task-context", "pkg.core.Engine.run", DEMO, None),
    ("task-context", "banking_ledger.StatementImporter.parse", EXAMPLES, None),  # overrides
    ("project-graph", "semaprax.toml", EXAMPLES / "calculator-project", None),
    ("project-graph", "semaprax.toml", EXAMPLES / "calculator-project", 200),
    ("symbols", ".", EXAMPLES, None),
    ("symbols", ".", EXAMPLES, 3_000),
    ("references", "http_app_routing.Request", EXAMPLES, None),
    ("diagnostics", "semaprax.toml", DEMO, None),
]


def record_keys(value: Any, maps: set[str], at: str = "") -> Iterator[str]:
    """The keys of every object that is a record (not a data map), with the path
    pattern of the object (``*`` for a data map's key)."""
    if isinstance(value, dict):
        is_map = at in maps or at == "partial.omitted"
        for k, v in value.items():
            if not is_map:
                yield k
            yield from record_keys(v, maps, f"{at}.{'*' if is_map else k}".lstrip("."))
    elif isinstance(value, list):
        for item in value:
            yield from record_keys(item, maps, at)


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def conventions(profile: str, value: Any) -> set[str]:
    """The notations a document uses, each as the text a legend names it by."""
    used = set()
    texts = list(strings(value))
    if any(t.startswith(".") for t in texts):
        used.add(".x")
    if any(t.startswith("?") for t in texts):
        used.add("?expr")
    if '"columns"' in json.dumps(value):
        used.add("{columns, rows}")
    if "partial" in value:
        used.add("partial")
    if profile == "graph":
        names = [r[1] for r in value["definitions"]["rows"]]
        if any(n.startswith((".", "class .", "async .")) for n in names):
            used.add("continues the class above")
        if any(n.startswith("class ") for n in names):
            used.add("class X(bases)")
        if any("(" in n and not n.startswith("class ") for n in names):
            used.add("f(params)")
        if any(" " in n and "(" not in n and ":" not in n and not n.startswith("class ") for n in names):
            used.add('[6,7],"A B"')
        if any(n.startswith(("def ", "async def ")) for n in names):
            used.add("def .f(cls)")
        if "module" not in value:
            used.add("module (unless path gives it)")
        if any(t.startswith("^") for r in value["definitions"]["rows"] for col in r[2:] if isinstance(col, list)
               for t in col):
            used.add("^x")
    return used


@pytest.fixture(scope="module", params=DOCUMENTS, ids=[f"{d[0]}-{d[1]}-{d[3]}" for d in DOCUMENTS])
def document(request: pytest.FixtureRequest) -> tuple[str, Any, codec.CompactProjection]:
    profile, root, folder, limit = request.param
    p = make_projection(profile, root, folder, index_cache=CACHE,
                        budget=None if limit is None else Budget(limit))
    return profile, json.loads(p.selected), p


def test_every_key_a_document_uses_is_named_in_the_legend(document: tuple[str, Any, Any]) -> None:
    profile, value, _ = document
    for text in (legend(), description()):  # the legend, and the MCP tool description that carries it
        unexplained = {k for k in record_keys(value, DATA_MAPS[profile])
                       if k not in SELF_EVIDENT and not re.search(rf"\b{re.escape(k)}\b", text)}
        assert not unexplained, f"{profile}: keys the tool description does not name: {sorted(unexplained)}"


def test_every_key_is_written_in_docs_profiles_md(document: tuple[str, Any, Any]) -> None:
    profile, value, _ = document
    missing = {k for k in record_keys(value, DATA_MAPS[profile]) if f"`{k}`" not in PROFILES_MD}
    assert not missing, f"{profile}: keys docs/profiles.md does not explain: {sorted(missing)}"


def test_every_convention_a_document_uses_is_explained(document: tuple[str, Any, Any]) -> None:
    profile, value, p = document
    used = conventions(profile, value)
    assert used  # every view is a table or uses a naming convention
    for notation in used:
        assert notation in legend(), notation
        assert notation in legend(profile), notation
        assert notation in description(), notation
    for form, mark, notation in (("model-text", rb"[\[,:]@\d", "@N"), ("text", rb"[\[,:]~\d", "~k")):
        wire = codec.ENCODERS[form](p)
        if re.search(mark, wire):
            assert notation in FORMS and notation in legend()
            assert notation in PROFILES_MD


def test_the_legend_is_short_enough_for_a_tool_description() -> None:
    # the whole legend rides in the MCP tool description, which stays under 2,048 bytes (tests/servers)
    assert len(legend().encode("utf-8")) <= 1_280
    assert all(len(legend(p).encode("utf-8")) <= 790 for p in LEGENDS)
    for part in (COMMON, PARTIAL, FORMS):
        assert part in legend()


def test_profiles_md_explains_each_convention_once() -> None:
    section = PROFILES_MD.split("## Reading a view", 1)[1].split("\n## ", 1)[0]
    for notation in ("`.x`", "`?expr`", "`@N`", "`~k`", "`partial`", "`columns`", "continues the class row",
                     "`^x`", "`class X(bases)`", "`f(params)`", '`[6,7],"A B"`', "`def .f(cls)`"):
        assert section.count(notation) >= 1, notation
