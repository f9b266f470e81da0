"""The example wires named for what they show (README, "named for what they
show") must show it: the named form is the cheapest, or the named form costs,
in both cl100k_base and o200k_base tokens against full JSON. The examples are regenerated from the sources
(scripts/write_example_wires.py), so a change to a view or an encoder that
turns a name false fails here instead of leaving the README wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from views.tokens import count_tokens

WIRES = Path(__file__).resolve().parents[2] / "examples" / "wires"
TEXT_FORMS = ("json", "text", "model-text")


def _tokens(stem: str) -> dict[str, dict[str, int]]:
    return {form: count_tokens((WIRES / f"{stem}.{form}").read_bytes()) for form in TEXT_FORMS}


@pytest.mark.parametrize(("stem", "winner"), [
    ("model-text-wins.symbols", "model-text"),
    ("v1-text-wins.graph", "text"),
    ("full-json-wins.task-context", "json"),
])
def test_the_named_form_is_the_cheapest_in_both_tokenizers(stem: str, winner: str) -> None:
    tokens = _tokens(stem)
    for encoding in tokens["json"]:
        costs = {form: tokens[form][encoding] for form in TEXT_FORMS}
        others = [costs[form] for form in TEXT_FORMS if form != winner]
        assert costs[winner] < min(others), (stem, encoding, costs)


def test_model_text_costs_names_a_dictionary_that_does_not_pay() -> None:
    stem = "model-text-costs.symbols"
    assert b"\ndict 0\n" not in (WIRES / f"{stem}.model-text").read_bytes()  # it has a dictionary
    tokens = _tokens(stem)
    for encoding, json_cost in tokens["json"].items():
        assert tokens["model-text"][encoding] >= json_cost, (encoding, tokens)
    assert any(tokens["model-text"][e] > tokens["json"][e] for e in tokens["json"])

