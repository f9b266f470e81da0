"""Exact-byte vectors for every wire form, written out from the spec by hand:
another implementation that passes these interoperates with ours."""

from __future__ import annotations

import hashlib

import pytest

import codec
from codec import CompactProjection

REVISION = "sha256:" + "0" * 64
DOC = b'["","","xyz","xyz"]'
DOC_DIGEST = "sha256:e3963e334280213e0a8dff7a3a0c2c2f4a9446304d2c8e9593787feedf7ecb45"

FIELDS = (
    b"profile 5 graph\n"
    b"root 10 pkg/mod.py\n"
    b"source_revision 71 " + REVISION.encode() + b"\n"
    b"source_digest 71 " + DOC_DIGEST.encode() + b"\n"
)


@pytest.fixture
def small() -> CompactProjection:
    return CompactProjection("graph", "pkg/mod.py", REVISION, DOC)


def test_digest_is_domain_separated_sha256_of_length_and_bytes(small):
    tag = b"semaprax/compact-projection/source-digest/v1\x00"
    expected = hashlib.sha256(tag + len(DOC).to_bytes(8, "big") + DOC).hexdigest()
    assert small.source_digest == DOC_DIGEST == "sha256:" + expected
    assert codec.source_digest(b'{"a":1}') == (
        "sha256:a4f98bc454f9e33ba75ad35503aa8d2edecb59a6a432c5237d134a6568478e2c"
    )


def test_full_json_is_the_selected_bytes(small):
    assert codec.encode_json(small) == DOC


def test_v1_text_vector(small):
    # §6: the second "" stays inline (~0 is not shorter), the second "xyz" is ~1.
    expected = b"SEMAPRAX-TEXT 1\n" + FIELDS + b'body\n["","","xyz",~1]'
    assert codec.encode_text(small) == expected
    assert codec.decode_text(expected) == small


def test_v2_small_document_has_empty_dictionary(small):
    expected = b"SEMAPRAX-MODEL-TEXT 2\n" + FIELDS + b"dict 0\nbody\n" + DOC
    assert codec.encode_model_text(small) == expected
    assert codec.decode_model_text(expected) == small


def test_v1_binary_vector(small):
    cbor = bytes([0x84, 0x60, 0x60, 0x63]) + b"xyz" + bytes([0x63]) + b"xyz"
    expected = (
        b"SPXB\x01"
        + b"\x05graph"
        + b"\x0apkg/mod.py"
        + bytes([71]) + REVISION.encode()
        + bytes([71]) + DOC_DIGEST.encode()
        + cbor
    )
    assert codec.encode_binary(small) == expected
    assert codec.decode_binary(expected) == small


@pytest.mark.parametrize(
    "value, cbor_hex",
    [
        (0, "00"),
        (23, "17"),
        (24, "1818"),
        (255, "18ff"),
        (256, "190100"),
        (65536, "1a00010000"),
        (2**32, "1b0000000100000000"),
        (2**64 - 1, "1bffffffffffffffff"),
        (2**64, "c249010000000000000000"),
        (-1, "20"),
        (-(2**64), "3bffffffffffffffff"),
        (-(2**64) - 1, "c349010000000000000000"),
        (1.0, "fb3ff0000000000000"),
        (-0.0, "fb8000000000000000"),
        (True, "f5"),
        (False, "f4"),
        (None, "f6"),
        ("é", "62c3a9"),
        ({"b": 1, "a": 2}, "a2616201616102"),  # document order, not sorted
        ([], "80"),
    ],
)
def test_binary_deterministic_profile(value, cbor_hex):
    p = CompactProjection.from_value("graph", "a.py", "r", value)
    wire = codec.encode_binary(p)
    assert wire.endswith(bytes.fromhex(cbor_hex))
    assert len(wire) == 5 + 1 + 5 + 1 + 4 + 1 + 1 + 1 + 71 + len(bytes.fromhex(cbor_hex))
    assert codec.decode_binary(wire) == p


@pytest.mark.parametrize(
    "value, spelling",
    [
        (1.0, b"1.0"),
        (0.0001, b"0.0001"),
        (-0.0, b"-0.0"),
        (1e16, b"1e+16"),
        (1e-05, b"1e-05"),
        (1.5e-07, b"1.5e-07"),
        (123456789012345.0, b"123456789012345.0"),
        ("\x08\t\n\x0c\r\x01\x7f\u2028/", b'"\\b\\t\\n\\f\\r\\u0001\x7f\xe2\x80\xa8/"'),
        ('"\\', b'"\\"\\\\"'),
        (-(10**30), b"-1000000000000000000000000000000"),
    ],
)
def test_canonical_json_spellings(value, spelling):
    assert codec.canonical_json(value) == spelling
    assert codec.canonical_json([value]) == b"[" + spelling + b"]"


PAD = b'"' + b"p" * 16400 + b'"'


def _v2_body_and_entries(entries: list[bytes], body: bytes) -> bytes:
    return b"dict %d\n" % len(entries) + b"".join(e + b"\n" for e in entries) + b"body\n" + body


def test_v2_dictionary_vector_keys_and_values_sorted_bytewise():
    doc = (
        b'{"pad":' + PAD + b',"abcdefghijklmnopqr":"abcdefghijklmnopqr",'
        b'"list":["abcdefghijklmn","abcdefghijklmn","short","short",'
        b'"\\"qqqqqqqqqqqqqq","\\"qqqqqqqqqqqqqq","abcdefghijklm","abcdefghijklm"]}'
    )
    p = CompactProjection("graph", "a.py", "r", doc)
    wire = codec.encode_model_text(p)
    # "abcdefghijklm" is 15 bytes with its quotes: below the 16-byte minimum.
    entries = [b'"\\"qqqqqqqqqqqqqq"', b'"abcdefghijklmn"', b'"abcdefghijklmnopqr"']
    body = (
        b'{"pad":' + PAD + b",@2:@2,"
        b'"list":[@1,@1,"short","short",@0,@0,"abcdefghijklm","abcdefghijklm"]}'
    )
    header = b"SEMAPRAX-MODEL-TEXT 2\nprofile 5 graph\nroot 4 a.py\nsource_revision 1 r\n"
    digest = b"source_digest 71 " + p.source_digest.encode() + b"\n"
    assert wire == header + digest + _v2_body_and_entries(entries, body)
    assert codec.decode_model_text(wire) == p


def test_v2_spec_sort_order_example_and_multibyte_length():
    literals = [
        b'"aaaaaaaaaaaaaaa"',
        b'"\\u0001bbbbbbbbbb"',
        b'"aaaaaaaaaaaaaa!"',
        b'"\\\\bbbbbbbbbbbbb"',
        b'"\\"bbbbbbbbbbbbbb"',
        "\"ééééééé\"".encode(),  # 16 bytes: selected
        "\"éééééé\"".encode() + b"",  # 14 bytes: not
    ]
    items = b",".join(lit + b"," + lit for lit in literals)
    doc = b"[" + PAD + b"," + items + b"]"
    p = CompactProjection("graph", "a.py", "r", doc)
    layout = codec.layout_model_text(codec.encode_model_text(p))
    assert layout.error is None
    assert list(layout.entries) == [
        b'"\\"bbbbbbbbbbbbbb"',
        b'"\\\\bbbbbbbbbbbbb"',
        b'"\\u0001bbbbbbbbbb"',
        b'"aaaaaaaaaaaaaa!"',
        b'"aaaaaaaaaaaaaaa"',
        "\"ééééééé\"".encode(),
    ]
    assert layout.reference_counts == (2, 2, 2, 2, 2, 2)


def test_v2_threshold_is_16384_bytes_of_selected_document():
    def doc_of(size: int) -> bytes:
        head = b'["abcdefghijklmnop","abcdefghijklmnop","'
        return head + b"x" * (size - len(head) - 2) + b'"]'

    below = CompactProjection("graph", "a.py", "r", doc_of(16383))
    at = CompactProjection("graph", "a.py", "r", doc_of(16384))
    assert len(below.selected) == 16383 and len(at.selected) == 16384
    assert b"dict 0\nbody\n" + below.selected in codec.encode_model_text(below)
    assert b'dict 1\n"abcdefghijklmnop"\nbody\n[@0,@0,"x' in codec.encode_model_text(at)


def test_strings_inside_literals_are_not_tokens():
    # §5.1 rule 2: in "x\"abcdefghijklmnop" there is no token "abcdefghijklmnop".
    inner = b'"x\\"abcdefghijklmnop"'
    doc = b"[" + PAD + b"," + inner + b',"abcdefghijklmnop"]'
    p = CompactProjection("graph", "a.py", "r", doc)
    assert b"dict 0\n" in codec.encode_model_text(p)


def test_at_and_tilde_inside_strings_are_content():
    doc = b"[" + PAD + b',"@0","~0","@0","~0","email@example.com.invalid","email@example.com.invalid"]'
    p = CompactProjection("graph", "a.py", "r", doc)
    wire = codec.encode_model_text(p)
    assert wire.endswith(b',"@0","~0","@0","~0",@0,@0]')
    assert codec.decode_model_text(wire) == p
    text = codec.encode_text(p)
    assert text.endswith(b',"@0","~0",~1,~2,"email@example.com.invalid",~3]')
    assert codec.decode_text(text) == p


def test_example_wires_are_up_to_date():
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "write_example_wires.py"
    spec = importlib.util.spec_from_file_location("write_example_wires", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.expected_files()
    for path, data in expected.items():
        assert path.exists() and path.read_bytes() == data, f"{path} is stale: run scripts/write_example_wires.py"
    on_disk = set(module.WIRES.iterdir()) | set(module.REJECTED.iterdir())
    assert on_disk == set(expected), "examples/ holds wires the script no longer writes"


def test_each_rejected_example_gives_its_code():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "examples" / "rejected"
    files = sorted(folder.glob("compact.*.model-text"))
    assert len(files) == 8
    for path in files:
        code = path.name.removesuffix(".model-text")
        with pytest.raises(codec.CompactError) as info:
            codec.decode_wire(path.read_bytes())
        assert info.value.code == code, path.name
        assert info.value.offset is not None
