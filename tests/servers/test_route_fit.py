"""The route fits a view to max_tokens (servers/route.py, views/fit.py) for every
server: the answer is within the budget in both tokenizers, says it is partial,
and replays; auto fits full JSON and only picks a cheaper form; a budget too small
for any fit is refused naming narrower roots sized by their views' tokens."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from serverkit import generate_workspace

import codec
from analysis.warm import IndexCache
from servers import route
from servers.mcp import default_max_tokens
from views import tokens


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_workspace(tmp_path_factory.mktemp("fit"), 12)


@pytest.fixture(scope="module")
def cache() -> IndexCache:
    return IndexCache()


@pytest.mark.parametrize("encoding", ["json", "text", "model-text", "binary"])
def test_a_request_over_its_budget_gets_a_fitted_wire(big: Path, cache: IndexCache, encoding: str) -> None:
    result = route.handle({"profile": "symbols", "root": "big", "encoding": encoding, "max_tokens": 600}, big,
                          index_cache=cache)
    wire = base64.b64decode(result["wire"]) if encoding == "binary" else result["wire"].encode()
    counted = tokens.count_tokens(result["wire"])
    assert all(n <= 600 for n in counted.values()) and result["tokens"] == counted
    found = codec.decode_wire(wire)  # full JSON carries no metadata: the result does
    p = found.projection or codec.CompactProjection("symbols", result["root"], result["source_revision"],
                                                    found.selected)
    marker = json.loads(p.selected)["partial"]
    assert marker["max_tokens"] == 600 and marker["counted"] == encoding
    assert marker["omitted"]["symbols"] > 0 and marker["narrower"]["rows"]
    assert route.replay_projection(p, big, index_cache=cache).selected == p.selected


def test_auto_fits_full_json_and_picks_only_a_cheaper_form(big: Path, cache: IndexCache) -> None:
    request = route.parse_request({"profile": "graph", "root": "big/m0.py", "max_tokens": 300}, auto=True)
    answer = route.answer(request, big, index_cache=cache, count=True)
    meta = answer.metadata()
    assert all(n <= 300 for n in meta["tokens"].values())
    assert json.loads(answer.projection.selected)["partial"]["counted"] == "json"
    assert set(meta["auto"]) == {"chosen", "cl100k_base", "o200k_base"}
    assert meta["encoding"] == route.choose_auto(
        {f: {t: meta["auto"][t][f] for t in route.TOKENIZERS} for f in route.AUTO_FORMS})


def test_a_budget_too_small_for_any_fit_is_refused_with_narrower_roots_by_tokens(big: Path,
                                                                                  cache: IndexCache) -> None:
    with pytest.raises(route.RouteError) as caught:
        route.handle({"profile": "symbols", "root": "big", "encoding": "json", "max_tokens": 60}, big,
                     index_cache=cache)
    data = caught.value.data
    assert caught.value.code == route.BUDGET_EXCEEDED and data["code"] == route.BUDGET_CODE
    assert data["narrower"] and all({"profile", "root", "cl100k_base", "o200k_base"} <= set(r)
                                    for r in data["narrower"])
    assert "o200k tokens" in data["message"]


def test_the_mcp_default_budget_is_under_the_clients_cut() -> None:
    assert default_max_tokens({}) == route.DEFAULT_MAX_TOKENS < 25_000
