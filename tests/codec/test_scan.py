"""The grammar's fast paths agree with its regular expressions (codec/scan.py)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from codec import scan

# bytes rich in what the tokenizers care about
tricky = st.lists(st.sampled_from([b'"', b"\\", b'\\"', b"\\\\", b"a", b"@1", b"~0", b"\n", b"\xc3\xa9", b"{", b","]),
                  max_size=40).map(b"".join)


def closed(token: bytes) -> bool:
    """A string token that ends with its closing quote (not an escaped one)."""
    body = token[1:]
    if not body.endswith(b'"'):
        return False
    run = len(body) - 1 - len(body[:-1].rstrip(b"\\"))
    return run % 2 == 0


@settings(max_examples=500, deadline=None)
@given(tricky)
def test_quote_split_is_split_strings_without_the_quotes(data):
    tokens = scan.split_strings(data)
    parts = scan.quote_split(data)
    if parts is None:  # only when a string runs to the end of the input
        assert len(tokens) > 1 and not closed(tokens[-2]) and tokens[-1] == b""
        return
    assert parts[0::2] == tokens[0::2]
    assert parts[1::2] == [t[1:-1] for t in tokens[1::2]]
    assert b'"'.join(parts) == data


def test_quote_split_on_escaped_quotes():
    assert scan.quote_split(b'["a\\"b","c\\\\",\\"]') is None  # the last quote opens a string
    assert scan.quote_split(b'["a\\"b","c\\\\"]') == [b"[", b'a\\"b', b",", b"c\\\\", b"]"]
    assert scan.quote_split(b'"\\"\\"\\""') == [b"", b'\\"\\"\\"', b""]


def test_escape_heavy_data_is_left_to_the_regular_expression():
    many = b'["' + b'\\"' * (scan._MAX_ESCAPED_QUOTES + 1) + b'"]'
    assert scan.quote_split(many) is None
    assert scan.split_strings(many)[1] == many[1:-1]
    few = b'["' + b'\\"' * scan._MAX_ESCAPED_QUOTES + b'"]'
    assert scan.quote_split(few) == [b"[", few[2:-2], b"]"]
