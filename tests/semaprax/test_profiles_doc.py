"""docs/profiles.md's tables hold what the code gives today.

- The table of graph shapes is what ``semaprax bench shapes`` prints: every
  candidate arrangement of the same facts, its bytes and real token counts, made
  by today's producer and shapes. A change of shape or of the analysis changes
  these figures, and this test says the document is stale instead of letting it
  drift (rerun ``semaprax bench shapes`` and paste its table).
- The corpus table is the committed corpus report's (docs/view-corpus.json,
  itself checked against ``semaprax bench corpus`` in tests/views/test_listing.py).

Only the tables are read: the prose around them is the document's own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from semaprax.bench import shapes

ROOT = Path(__file__).resolve().parents[2]
PROFILES_MD = ROOT / "docs" / "profiles.md"


def tables(text: str) -> dict[tuple[str, ...], list[list[str]]]:
    """Every Markdown table of ``text``: its header cells -> its rows of cells."""
    found: dict[tuple[str, ...], list[list[str]]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|") and lines[i + 1].startswith("|---") and (i == 0 or not lines[i - 1].startswith("|")):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip().strip("|").split("|")])
            found[tuple(cell.strip() for cell in line.strip().strip("|").split("|"))] = rows
    return found


@pytest.fixture(scope="module")
def doc_tables() -> dict[tuple[str, ...], list[list[str]]]:
    return tables(PROFILES_MD.read_text(encoding="utf-8"))


def test_the_table_reader_reads_cells() -> None:
    text = "prose\n\n| a | b |\n|---|---:|\n| x | 1 |\n| y z |  |\n\nmore\n"
    assert tables(text) == {("a", "b"): [["x", "1"], ["y z", ""]]}


def test_the_shapes_table_is_what_the_code_gives(doc_tables: dict[tuple[str, ...], list[list[str]]]) -> None:
    documented = doc_tables[tuple(shapes.HEADER)]
    this_python = f"(stdlib {sys.version_info.major}.{sys.version_info.minor})"
    # a standard-library row is only reproducible with the Python it names
    cases = [(folder, root) for folder, root in shapes.CASES
             if folder == ROOT / "examples" or any(this_python in row[0] for row in documented)]
    measured = shapes.table(cases)
    expected = [row for row in documented if "(stdlib" not in row[0] or this_python in row[0]]
    assert [row[:2] for row in measured] == [row[:2] for row in expected]  # the same cases and shapes
    assert measured == expected, "docs/profiles.md's shapes table is stale: rerun `semaprax bench shapes`"


def test_the_corpus_table_is_the_committed_corpus_report(
    doc_tables: dict[tuple[str, ...], list[list[str]]]
) -> None:
    header = ("Profile", "Views", "Old shapes", "These shapes", "Saving", "Target", "Listing (floor)",
              "These / listing")
    report = json.loads((ROOT / "docs" / "view-corpus.json").read_text(encoding="utf-8"))
    documented = {row[0]: row for row in doc_tables[header]}
    assert set(documented) == set(report["profiles"])
    for profile, row in documented.items():
        p = report["profiles"][profile]
        target = f"≥{p['target_percent']:g}%" if p["target_percent"] is not None else ""
        assert row[1:] == [f"{p['views']:,}", f"{p['long']:,}", f"{p['compact']:,}", f"{-p['saving_percent']:.1f}%",
                           target, f"{p['listing']:,}", f"{p['compact_over_listing']:.2f}x"], profile
