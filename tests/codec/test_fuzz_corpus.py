"""The fuzzing kit itself (issue 23): a harness per entry point, the corpus in
the repo (small, holding the wires built from the grammar), the dictionary of
the grammar's tokens, and an oracle that can fail.

tests/codec/test_fuzz.py replays the whole corpus through every harness; the
coverage it gives codec/ is measured by ``semaprax bench fuzz --coverage``
(docs/robustness.md, "Fuzzing, round 3").
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import codec
from fuzz import oracle
from fuzz.mutate import TOKENS
from fuzz.oracle import TARGETS
from fuzz.seeds import grammar_seeds

CORPUS = Path(__file__).resolve().parents[2] / "fuzz" / "corpus"


def test_every_entry_point_has_a_harness():
    decoders = {name for name in codec.__all__ if name.startswith("decode_")}
    assert decoders <= set(TARGETS), decoders - set(TARGETS)
    assert {"layout_wire", "layout_model_text", "compare", "repair"} <= set(TARGETS)


def test_the_wires_built_from_the_grammar_are_in_the_corpus():
    missing = [data[:40] for data in grammar_seeds() if not (CORPUS / hashlib.sha1(data).hexdigest()).is_file()]
    assert not missing, "run python fuzz/seeds.py"


def test_the_corpus_stays_small():
    sizes = [p.stat().st_size for p in CORPUS.iterdir()]
    assert max(sizes) <= 64 * 1024
    assert sum(sizes) <= 4 * 1024 * 1024


def test_the_dictionary_holds_the_grammars_tokens():
    tokens = set(TOKENS)
    headers = {codec.model_text.HEADER, codec.text_v1.HEADER, codec.binary_v1.MAGIC}
    fields = {name.encode() + b" " for name in codec.scan.FIELD_NAMES}
    assert headers | fields | {b"dict ", b"body\n", b"@0", b"~0", b'\\"', b"\\u0000"} <= tokens


@pytest.mark.parametrize(
    "target, broken",
    [
        ("decode_wire", "decode_wire"),  # an exception that is not a CompactError escapes
        ("layout_wire", "layout_wire"),
        ("decode_json", "decode_json"),
    ],
)
def test_the_oracle_lets_a_foreign_exception_through(monkeypatch, target, broken):
    def fails(*args, **kwargs):
        raise KeyError("broken")

    monkeypatch.setattr(codec, broken, fails)
    with pytest.raises(KeyError):
        TARGETS[target](b"[1]")


def test_the_oracle_catches_a_verdict_that_depends_on_the_callers_stack(monkeypatch):
    deep = b"[" * 512 + b"]" * 512
    real = codec.decode_wire

    def shallow_only(wire):
        import inspect

        if len(inspect.stack(0)) > oracle.CALLER_FRAMES:
            raise codec.CompactError("compact.limit", "too deep for this caller", None)
        return real(wire)

    monkeypatch.setattr(codec, "decode_wire", shallow_only)
    with pytest.raises(oracle.OracleViolation, match="frames deep"):
        oracle.check_wire(deep)


def test_the_oracle_catches_a_partial_layout_that_claims_validity(monkeypatch):
    wire = codec.encode_text(codec.CompactProjection.from_value("graph", "a.py", "r", ["a", "a", 1]))
    real = codec.layout_wire

    def claims_valid(data, *, through=None):
        layout = real(data)  # every stage, whatever was asked
        return layout

    monkeypatch.setattr(codec, "layout_wire", claims_valid)
    with pytest.raises(oracle.OracleViolation, match="through="):
        oracle.check_layout_wire(wire)
