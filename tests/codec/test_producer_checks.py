"""The producer-side checks of codec/ that no decoded wire can reach, so the fuzz
corpus never takes them (docs/robustness.md, "Fuzzing, round 3"): what the
constructor, the encoders and the diagnostic type refuse."""

from __future__ import annotations

from collections import Counter

import pytest

import codec
from codec import CompactError, limits
from codec.model_text import select_entries

DOC = b'{"a":[1,2]}'


def test_the_constructor_refuses_metadata_that_is_not_text():
    with pytest.raises(TypeError, match="root must be str"):
        codec.CompactProjection("graph", b"a.py", "r", DOC)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="source_revision must be str"):
        codec.CompactProjection("graph", "a.py", None, DOC)  # type: ignore[arg-type]
    with pytest.raises(CompactError) as info:
        codec.CompactProjection("graph", "a\ud800.py", "r", DOC)
    assert info.value.code == "compact.metadata" and "surrogate" in info.value.message


def test_the_constructor_takes_bytes_only():
    with pytest.raises(TypeError, match="selected must be bytes"):
        codec.CompactProjection("graph", "a.py", "r", bytearray(DOC))  # type: ignore[arg-type]


@pytest.mark.parametrize("form", ["text", "binary", "model-text"])
def test_an_encoder_refuses_metadata_over_4_kib(form):
    p = codec.CompactProjection("graph", "r" * (limits.MAX_METADATA_BYTES + 1), "r", DOC)
    with pytest.raises(CompactError) as info:
        codec.ENCODERS[form](p)
    assert info.value.code == "compact.limit" and "root" in info.value.message


def test_an_encoder_refuses_a_wire_over_16_mib():
    document = b'"' + b"a" * (limits.MAX_SELECTED_BYTES - 2) + b'"'  # exactly at the document limit
    p = codec.CompactProjection("graph", "a.py", "r", document)
    with pytest.raises(CompactError) as info:
        codec.encode_text(p)  # the header and fields take it past the wire limit
    assert info.value.code == "compact.limit" and info.value.offset is None


def test_no_dictionary_under_the_threshold():
    counts = Counter({b"pkg.mod.helper_function": 5})
    assert select_entries(counts, limits.DICTIONARY_THRESHOLD - 1) == []
    assert select_entries(counts, limits.DICTIONARY_THRESHOLD) == [b'"pkg.mod.helper_function"']


def test_a_diagnostic_has_a_known_code():
    with pytest.raises(ValueError, match="unknown compact diagnostic code"):
        CompactError("compact.nonsense", "m", 0)
    assert str(CompactError("compact.json", "bad", 3)) == "compact.json at byte 3: bad"
    assert str(CompactError("compact.binding", "bad")) == "compact.binding: bad"


def test_the_constructor_refuses_a_document_over_16_mib_before_reading_it():
    with pytest.raises(CompactError) as info:
        codec.CompactProjection("graph", "a.py", "r", b"[" * (limits.MAX_SELECTED_BYTES + 1))
    assert info.value.code == "compact.limit" and info.value.offset == limits.MAX_SELECTED_BYTES
