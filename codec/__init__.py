"""semaprax codec: the wire formats of a compact projection.

Depends on the standard library and cbor2, and uses msgspec's JSON encoder, when
installed, for the canonical encoding of float-free values (codec/projection.py). The project's description of the
format is docs/wire-format.md; code cites it as ``docs/wire-format.md §N``."""

from .binary_v1 import CborItems, decode_binary, encode_binary
from .errors import CODES, CompactError, excerpt
from .layout import JsonValues, ModelTextLayout, Reference, WireLayout, layout_model_text, layout_wire
from .model_text import (
    check_binding,
    decode_model_text,
    decode_model_text_and_verify,
    encode_model_text,
)
from .projection import (
    PROFILES,
    CompactProjection,
    canonical_json,
    canonicalize,
    first_difference,
    source_digest,
)
from .scan import STRING, Field, Span, split_strings
from .text_v1 import decode_text, encode_text
from .wire import FORMAT_VERSIONS, FORMS, DecodedWire, decode_json, decode_wire, detect_form


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
    "FORMAT_VERSIONS",
    "FORMS",
    "PROFILES",
    "STRING",
    "CborItems",
    "CompactError",
    "CompactProjection",
    "DecodedWire",
    "Field",
    "JsonValues",
    "ModelTextLayout",
    "Reference",
    "Span",
    "WireLayout",
    "canonical_json",
    "canonicalize",
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
    "excerpt",
    "first_difference",
    "layout_model_text",
    "layout_wire",
    "source_digest",
    "split_strings",
]
