"""The two framed text forms read their header line through one helper
(``stages.Reader.read_header_and_fields``): another version of the same header is
compact.envelope at its version digits, naming the version found; anything else
that is not the header is compact.envelope at its first wrong byte."""

import pytest

import codec

P = codec.CompactProjection("graph", "r", "sha256:" + "0" * 64, b'{"a":[1,2]}')
CASES = [
    (codec.decode_text, codec.encode_text(P), b"SEMAPRAX-TEXT ", "v1 text", "1"),
    (codec.decode_model_text, codec.encode_model_text(P), b"SEMAPRAX-MODEL-TEXT ", "model-text", "2"),
]


@pytest.mark.parametrize("decode, wire, prefix, form, version", CASES)
def test_another_version_is_named_at_its_digits(decode, wire, prefix, form, version):
    newer = prefix + b"7\n" + wire[len(prefix) + 2 :]
    with pytest.raises(codec.CompactError) as err:
        decode(newer)
    assert (err.value.code, err.value.offset) == ("compact.envelope", len(prefix))
    assert err.value.message == f"unsupported {form} version '7'; this decoder reads {version}"


@pytest.mark.parametrize("decode, wire, prefix, form, version", CASES)
def test_a_wrong_header_byte_is_found_where_it_stands(decode, wire, prefix, form, version):
    with pytest.raises(codec.CompactError) as err:
        decode(wire[:3] + b"x" + wire[4:])
    assert (err.value.code, err.value.offset) == ("compact.envelope", 3)
    # the same version with something after its digit is not "another version"
    with pytest.raises(codec.CompactError) as err:
        decode(prefix + version.encode() + b"0\n" + wire[len(prefix) + 2 :])
    assert (err.value.code, err.value.offset) == ("compact.envelope", len(prefix) + 1)


@pytest.mark.parametrize("decode, wire, prefix, form, version", CASES)
def test_the_fields_after_the_header_are_read(decode, wire, prefix, form, version):
    p = decode(wire)
    assert (p.profile, p.root, p.source_revision) == ("graph", "r", "sha256:" + "0" * 64)
    with pytest.raises(codec.CompactError) as err:
        decode(wire.replace(b"profile 5 graph", b"profile 5 grapf"))
    assert err.value.code == "compact.metadata"
