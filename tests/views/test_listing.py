"""semaprax/bench/listing.py, the plain-text floor the view shapes are measured
against: it holds exactly the facts of a view, so parsing a listing gives the
view back, on the examples, the fixtures and standard-library modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_shapes import CASES

import codec
from analysis.sources import Workspace
from semaprax.bench import listing
from views import PRODUCERS

ROOT = Path(__file__).resolve().parents[2]




def round_trip(profile: str, view: dict) -> str:
    text = listing.listing(profile, view)
    assert codec.canonical_json(listing.parse(profile, text)) == codec.canonical_json(view)
    return text


@pytest.mark.parametrize("profile, root, folder", CASES, ids=[f"{p}:{r}" for p, r, _ in CASES])
def test_a_listing_parses_back_to_its_view(profile, root, folder):
    _, view = PRODUCERS[profile](Workspace(folder), root)
    text = round_trip(profile, view)
    if profile != "graph":  # a graph's rows now spell kinds and runs more tightly than the listing's lines
        assert len(text.encode()) < len(codec.canonical_json(view))


def test_awkward_text_survives(tmp_path):
    (tmp_path / "m.py").write_text('"""  padded doc  """\nimport os as doc\n\n\ndef lines(a="x y"):\n'
                                   '    """\\"quoted\\" start."""\n    return (a + " z").strip()\n\n\n'
                                   "class module:\n    def path(self):\n        pass\n\n\ndoc.path.join()\n")
    for profile in ("graph", "symbols", "diagnostics"):
        round_trip(profile, PRODUCERS[profile](Workspace(tmp_path), "m.py")[1])


def test_words_and_text():
    assert listing.word("a b") == '"a b"' and listing.word("") == '""' and listing.word("x.y") == "x.y"
    assert listing.text(" x") == '" x"' and listing.text('"q') == '"\\"q"' and listing.text("a b") == "a b"
    assert listing.words('a "b c" rest of it', 2) == (["a", "b c"], "rest of it")


def test_committed_corpus_report_is_rendered_from_its_json_and_meets_the_targets():
    from semaprax.bench import corpus

    report = json.loads((ROOT / "docs" / "view-corpus.json").read_text(encoding="utf-8"))
    assert (ROOT / "docs" / "view-corpus.md").read_text(encoding="utf-8") == corpus.markdown(report)
    assert report["schema"] == corpus.SCHEMA and not report["skipped_for_time"]
    for profile, target in corpus.TARGETS.items():
        assert report["profiles"][profile]["saving_percent"] >= target, profile
    assert report["large_graphs"]["worst_model_text_over_listing"] <= corpus.MODEL_TEXT_CEILING
