"""Recognise a wire's form from its first bytes and decode any of the four
(docs/wire-format.md §8). A form's decoder module is imported when a wire of
that form is decoded, not with this module: reading a text wire loads no CBOR
code (tests/test_imports.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import errors as E
from . import names, stages
from .errors import CompactError
from .names import BINARY_HEAD
from .projection import CompactProjection, normalize
from .scan import check_wire_size, wire_bytes

#: The form names and versions, from codec/names.py (which imports nothing).
JSON_FORM = names.JSON_FORM
TEXT_FORM = names.TEXT_FORM
BINARY_FORM = names.BINARY_FORM
MODEL_TEXT_FORM = names.MODEL_TEXT_FORM
FORMS = names.FORMS
FORMAT_VERSIONS = names.FORMAT_VERSIONS


@dataclass(frozen=True)
class DecodedWire:
    """What ``decode_wire`` found: the form, and the projection; a full JSON wire
    has no metadata, so for it ``projection`` is None and only ``selected`` is set."""

    form: str
    selected: bytes
    projection: CompactProjection | None

    @property
    def format_version(self) -> int:
        return FORMAT_VERSIONS[self.form]


def detect_form(wire: bytes) -> str:
    """The form a wire claims by its first bytes; anything without a known magic is
    taken as full JSON (whose decoder then says if it is not)."""
    if isinstance(wire, (bytearray, memoryview)):
        wire = wire[:32]  # copy no more than the magic needs
    head = wire_bytes(wire)[:32]
    if head.startswith(b"SEMAPRAX-MODEL-TEXT"):
        return MODEL_TEXT_FORM
    if head.startswith(b"SEMAPRAX-TEXT"):
        return TEXT_FORM
    if head.startswith(BINARY_HEAD):
        return BINARY_FORM
    if head.startswith(b"SEMAPRAX"):
        raise CompactError(E.ENVELOPE, "unknown SEMAPRAX wire header", 0)
    return JSON_FORM


class JsonReader(stages.Reader):
    """The stages of a full JSON wire (docs/wire-format.md §4): the size limit, then
    normalization (§1) of the wire, which is the document itself."""

    STAGES = ("envelope", "normalize")

    def envelope(self) -> None:
        check_wire_size(self.wire)
        self.body_start = 0
        self.document = self.wire

    def normalize(self) -> None:
        normalize(self.wire)


#: The full JSON decoder's stages in order; ``codec.layout_wire`` runs the same ones.
JSON_STAGES = JsonReader.STAGES


def decode_json(wire: bytes) -> bytes:
    """A full JSON wire is the selected bytes themselves, checked to be canonical."""
    return stages.run(JsonReader(wire_bytes(wire))).wire


def decode_wire(wire: bytes) -> DecodedWire:
    """Decode a wire of any form, saying which it was."""
    wire = wire_bytes(wire)
    form = detect_form(wire)
    if form == JSON_FORM:
        return DecodedWire(form, decode_json(wire), None)
    p = decoder(form)(wire)
    return DecodedWire(form, p.selected, p)


def decoder(form: str) -> Callable[[bytes], CompactProjection]:
    """The decoder of a form with metadata, its module imported on first use."""
    if form == MODEL_TEXT_FORM:
        from . import model_text

        return model_text.decode_model_text
    if form == TEXT_FORM:
        from . import text_v1

        return text_v1.decode_text
    if form == BINARY_FORM:
        from . import binary_v1

        return binary_v1.decode_binary
    raise KeyError(form)
