"""semaprax codec: the wire formats of a compact projection.

Depends on the standard library and cbor2 only. The design of record is the
project's wire-format document (docs/wire-format.md)."""

from .binary_v1 import decode_binary, encode_binary
from .errors import CODES, CompactError
from .model_text import (
    ModelTextLayout,
    check_binding,
    decode_model_text,
    decode_model_text_and_verify,
    encode_model_text,
    layout_model_text,
)
from .projection import PROFILES, CompactProjection, canonical_json, source_digest
from .scan import Field, Span
from .text_v1 import decode_text, encode_text
from .wire import FORMS, DecodedWire, decode_json, decode_wire, detect_form


def encode_json(p: CompactProjection) -> bytes:
    """Full JSON: the selected bytes alone, no envelope."""
    return p.selected


ENCODERS = {
    "json": encode_json,
    "text": encode_text,
    "binary": encode_binary,
    "model-text": encode_model_text,
}

__all__ = [
    "CODES",
    "ENCODERS",
    "FORMS",
    "PROFILES",
    "CompactError",
    "CompactProjection",
    "DecodedWire",
    "Field",
    "ModelTextLayout",
    "Span",
    "canonical_json",
    "check_binding",
    "decode_binary",
    "decode_json",
    "decode_model_text",
    "decode_model_text_and_verify",
    "decode_text",
    "decode_wire",
    "detect_form",
    "encode_binary",
    "encode_json",
    "encode_model_text",
    "encode_text",
    "layout_model_text",
    "source_digest",
]
