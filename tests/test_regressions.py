"""Findings of issue 13 (an audit under atheris) and of the project's own fuzzing
(fuzz/), each pinned by its minimal input: the outcome is a projection or the
named ``CompactError``, never another exception."""

from __future__ import annotations

import pytest
from wirekit import V2_HEADER, digest_of, fields, v2

import codec
from codec import CompactError

ZERO_DIGEST = b"sha256:" + b"0" * 64
#: The envelope of the issue's minimal inputs: metadata r / v, an unrelated digest.
V2_PREFIX = (
    V2_HEADER + b"profile 5 graph\nroot 1 r\nsource_revision 1 v\nsource_digest 71 " + ZERO_DIGEST + b"\n"
)


def reject(call, wire: bytes) -> CompactError:
    with pytest.raises(CompactError) as info:
        call(wire)
    error = info.value
    assert error.offset is None or 0 <= error.offset <= len(wire), error
    return error


def layout_error(wire: bytes) -> CompactError:
    layout = codec.layout_model_text(wire)
    assert layout.error is not None
    return layout.error


# --- an '@' as the last byte of an unterminated string ---------------------------------------


@pytest.mark.parametrize(
    "rest",
    [
        b'dict 1\n"aaaaaaaaaaaaaaaa"\nbody\n@0"@',  # the smallest case
        b'dict 0\nbody\n"@',  # layout alone crashed on this one
        b'dict 1\n"aaaaaaaaaaaaaaaa"\nbody\n@0"\\@',  # '@' after a backslash, also the last byte
    ],
)
def test_unterminated_string_ending_in_at_is_copied_not_split(rest):
    wire = V2_PREFIX + rest
    assert reject(codec.decode_model_text, wire).code == "compact.digest"
    assert reject(codec.decode_wire, wire).code == "compact.digest"
    assert layout_error(wire).code == "compact.digest"


@pytest.mark.parametrize("body", [b'@0"@', b'@0"\\@'])
def test_unterminated_string_ending_in_at_with_a_right_digest_is_not_json(body):
    entry = b'"aaaaaaaaaaaaaaaa"'
    document = entry + body[2:]
    wire = v2(document, [entry], body)
    assert reject(codec.decode_model_text, wire).code == "compact.json"
    assert layout_error(wire).code == "compact.json"
    assert list(codec.layout_model_text(wire).ref_wire) == [wire.index(b"\nbody\n") + 6]


def test_wirekit_prefix_is_what_wirekit_frames():
    assert V2_PREFIX == V2_HEADER + fields(digest=ZERO_DIGEST, root=b"r", revision=b"v")
    assert digest_of(b"") != ZERO_DIGEST.decode()
