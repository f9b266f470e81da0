import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- order invariance and the types of format_version ---------------------------------------------


VERSION_VALUES = [1, 2, 0, 3, 1.0, 2.0, True, False, "1", "2", None]
offers = st.builds(
    offer,
    st.sampled_from(VERSION_VALUES),
    st.sampled_from(["binary", "text", "model-text", "json", "yaml"]),
    st.sampled_from(["graph", "symbols"]),
)


def answer(accept):
    try:
        return negotiate("graph", accept=accept)
    except CompactError as exc:
        return exc.code


@settings(max_examples=300, deadline=None)
@given(st.lists(offers, max_size=6), st.randoms(use_true_random=False))
def test_every_permutation_of_an_offer_list_gives_the_same_answer(accept, rnd):
    first = answer(accept)
    for _ in range(6):
        shuffled = list(accept)
        rnd.shuffle(shuffled)
        assert answer(shuffled) == first
    assert answer(list(reversed(accept))) == first


def test_the_reported_bug_is_gone():
    # 1.0 and 1 are equal in Python, and were one element of a set: the order decided.
    a = [offer(1.0, "binary"), offer(1, "binary"), offer(2, "model-text")]
    b = [offer(1, "binary"), offer(1.0, "binary"), offer(2, "model-text")]
    assert answer(a) == answer(b) == "compact.negotiation"


@pytest.mark.parametrize("bad", [True, False, 2.0, 1.0, "2", "1", None, [2]])
def test_format_version_is_an_integer_and_never_a_bool_float_or_string(bad):
    if bad is not None:  # a named encoding without a version is allowed
        with pytest.raises(CompactError) as info:
            negotiate("graph", encoding="model-text", format_version=bad)
        assert info.value.code == "compact.negotiation" and "integer" in info.value.message
    with pytest.raises(CompactError) as info:
        negotiate("graph", accept=[offer(bad, "model-text")])
    assert info.value.code == "compact.negotiation" and "offer 0" in info.value.message


@pytest.mark.parametrize("bad, says", [
    (5, "an object"), ({"format_version": 1, "encoding": "text"}, "lacks profile"),
    ({"format_version": 1, "encoding": 1, "profile": "graph"}, "encoding must be a string"),
])
def test_malformed_offers_are_named(bad, says):
    with pytest.raises(CompactError) as info:
        negotiate("graph", accept=[offer(2, "model-text"), bad])
    assert "offer 1" in info.value.message and says in info.value.message
