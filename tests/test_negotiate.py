import pytest

from codec import CompactError
from codec.negotiate import negotiate


def offer(v, e, p="graph"):
    return {"format_version": v, "encoding": e, "profile": p}


def test_named_encodings_take_their_only_version():
    assert negotiate("graph", encoding="model-text") == (2, "model-text")
    assert negotiate("graph", encoding="text") == (1, "text")
    assert negotiate("graph", encoding="json") == (1, "json")
    assert negotiate("graph", encoding="binary", format_version=1) == (1, "binary")


@pytest.mark.parametrize("kw", [
    {"encoding": "text", "format_version": 2},
    {"encoding": "model-text", "format_version": 1},
    {"encoding": "yaml"},
    {"encoding": "text", "accept": [offer(1, "text")]},
    {},
    {"accept": []},
    {"accept": [offer(2, "text"), offer(1, "model-text")]},
    {"accept": [offer(2, "model-text", "symbols")]},
    {"accept": [offer(1, "json")]},
    {"accept": [{"encoding": "text"}]},
])
def test_negotiation_failures(kw):
    with pytest.raises(CompactError) as info:
        negotiate("graph", **kw)
    assert info.value.code == "compact.negotiation"


def test_preference_is_binary_then_text_then_model_text_whatever_the_order():
    assert negotiate("graph", accept=[offer(2, "model-text"), offer(1, "text"), offer(1, "binary")]) == (1, "binary")
    assert negotiate("graph", accept=[offer(2, "model-text"), offer(1, "text")]) == (1, "text")
    assert negotiate("graph", accept=[offer(2, "model-text"), offer(1, "json")]) == (2, "model-text")
    assert negotiate("symbols", accept=[offer(2, "model-text", "symbols"), offer(1, "binary")]) == (2, "model-text")


def test_unknown_profile():
    with pytest.raises(CompactError) as info:
        negotiate("callgraph", encoding="text")
    assert info.value.code == "compact.negotiation"
