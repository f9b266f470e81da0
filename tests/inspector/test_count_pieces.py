"""Counting a text a piece at a time (``inspector.counting.count_in_pieces``,
which keeps the counting process's memory to a piece's token list) gives
exactly the counts of the whole text (``views.tokens.count_tokens``), cut
however finely, on every form of every example wire and on text with
multi-byte characters and bytes that are not UTF-8."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.counting import count_in_pieces
from inspector.token_spans import restart_after
from views import tokens

ROOT = Path(__file__).resolve().parents[2]
WIRES = sorted((ROOT / "examples" / "wires").iterdir())
AWKWARD = ("naïve café → 東京\n  spaces   and\n\n\ttabs 12345678 don't stop/here's it\n".encode()
           + b"\xff\xfe\xc3 broken \xe2\x82 utf-8\nA" * 40)


@pytest.mark.parametrize("path", WIRES, ids=[p.name for p in WIRES])
def test_pieces_count_what_the_whole_counts(path: Path) -> None:
    data = path.read_bytes()
    whole = tokens.count_tokens(data)
    assert count_in_pieces(data, piece=97) == whole
    assert count_in_pieces(data) == whole


def test_pieces_of_awkward_text_count_what_the_whole_counts() -> None:
    cuts = 0
    for piece in (1, 5, 64):
        assert count_in_pieces(AWKWARD, piece=piece) == tokens.count_tokens(AWKWARD)
        cuts = max(cuts, sum(1 for p in range(1, len(AWKWARD)) if restart_after(AWKWARD, p) == p))
    assert cuts > 40  # the text has places to cut, so the pieces were many


@pytest.mark.parametrize("path", [p for p in WIRES if p.suffix in (".model-text", ".json")][:6], ids=lambda p: p.name)
def test_placing_positions_while_counting_agrees_with_the_whole_tokenization(path: Path) -> None:
    """``count_and_place``: how many tokens start before each asked position, a
    piece at a time, equals the count over the whole text's start marks, for
    positions in any order, at either end and past it."""
    import random

    from inspector.token_spans import count_and_place, start_marks

    data = path.read_bytes()
    rng = random.Random(len(data))
    queries = [0, len(data), len(data) + 5, *rng.sample(range(len(data)), min(300, len(data)))]
    for name in tokens.ENCODING_NAMES:
        marks = start_marks(data, name).marks
        expected = [marks.count(1, 0, q) for q in queries]
        for asked, chunk, answers in ((queries, 97, expected), (sorted(queries), 1 << 20, sorted(expected))):
            result = count_and_place(data, name, asked, chunk=chunk)
            assert result is not None
            assert (result[0], list(result[1])) == (marks.count(1), answers)
        assert count_and_place(data, name)[0] == tokens.count_tokens(data)[name]
