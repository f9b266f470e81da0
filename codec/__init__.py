"""semaprax codec: the wire formats of a compact projection.

Depends on the standard library and cbor2, and uses msgspec's JSON encoder, when
installed, for the canonical encoding of float-free values (codec/projection.py). The project's description of the
format is docs/wire-format.md; code cites it as ``docs/wire-format.md §N``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

from . import limits as limits
from .errors import CODES, CompactError, excerpt
from .names import FORMAT_VERSIONS, FORMS, PROFILES

if TYPE_CHECKING:  # imported on first use (``_LAZY``): a command loads the parts it reads or writes
    from .binary_v1 import CborItems, decode_binary, encode_binary
    from .layout import JsonValues, ModelTextLayout, Reference, WireLayout, layout_model_text, layout_wire
    from .model_text import (
        check_binding,
        decode_model_text,
        decode_model_text_and_verify,
        encode_model_text,
    )
    from .projection import (
        CompactProjection,
        canonical_json,
        canonicalize,
        first_difference,
        source_digest,
    )
    from .scan import STRING, Field, Span, split_strings
    from .text_v1 import decode_text, encode_text
    from .wire import DecodedWire, decode_json, decode_wire, detect_form

#: Names of this package that live in its modules, each imported when first asked
#: for: ``import codec`` loads the errors, the limits and the names alone.
_LAZY = {
    **dict.fromkeys(("CborItems", "decode_binary", "encode_binary"), "binary_v1"),
    **dict.fromkeys(("JsonValues", "ModelTextLayout", "Reference", "WireLayout", "layout_model_text",
                     "layout_wire"), "layout"),
    **dict.fromkeys(("check_binding", "decode_model_text", "decode_model_text_and_verify", "encode_model_text"),
                    "model_text"),
    **dict.fromkeys(("CompactProjection", "canonical_json", "canonicalize", "first_difference", "source_digest"),
                    "projection"),
    **dict.fromkeys(("STRING", "Field", "Span", "split_strings"), "scan"),
    **dict.fromkeys(("decode_text", "encode_text"), "text_v1"),
    **dict.fromkeys(("DecodedWire", "decode_json", "decode_wire", "detect_form"), "wire"),
}
_SUBMODULES = frozenset({"binary_v1", "layout", "model_text", "negotiate", "projection", "scan", "stages", "text_v1",
                         "visible", "wire"})


def _lazy(name: str) -> Any:
    """A name of one of the modules, that module imported now if it was not; kept for the next lookup."""
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


if not TYPE_CHECKING:  # a type checker reads the imports above instead
    def __getattr__(name: str) -> Any:
        """A module's name, or a module, imported on first use (PEP 562)."""
        if name in _SUBMODULES:
            return importlib.import_module(f"{__name__}.{name}")
        if name in _LAZY:
            return _lazy(name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def encode_json(p: CompactProjection) -> bytes:
    """Full JSON: the selected bytes alone, no envelope."""
    return p.selected


Encoder = Callable[["CompactProjection"], bytes]


class _Encoders(MutableMapping[str, Encoder]):
    """Form -> encoder, the form's module imported on first lookup; ``in``, ``len``
    and iteration (in FORMS order) import nothing. A form's encoder may be
    replaced (a test's stand-in), never a form added or removed."""

    _NAMES = {"text": "encode_text", "binary": "encode_binary", "model-text": "encode_model_text"}

    def __init__(self) -> None:
        self._given: dict[str, Encoder] = {}

    def __getitem__(self, form: str) -> Encoder:
        if form in self._given:
            return self._given[form]
        if form == "json":
            return encode_json
        name = self._NAMES[form]
        found: Encoder = globals()[name] if name in globals() else _lazy(name)
        return found

    def __setitem__(self, form: str, encoder: Encoder) -> None:
        if form not in FORMS:
            raise KeyError(form)
        self._given[form] = encoder

    def __delitem__(self, form: str) -> None:
        raise TypeError(f"the wire forms are fixed: {form!r} cannot be removed")

    def __contains__(self, form: object) -> bool:
        return form in FORMS

    def __iter__(self) -> Iterator[str]:
        return iter(FORMS)

    def __len__(self) -> int:
        return len(FORMS)


ENCODERS: MutableMapping[str, Encoder] = _Encoders()

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
