"""Recognise a wire's form from its first bytes and decode any of the four
(docs/wire-format.md §8)."""

from __future__ import annotations

from dataclasses import dataclass

from . import binary_v1, model_text, stages, text_v1
from . import errors as E
from .binary_v1 import MAGIC, decode_binary
from .errors import CompactError
from .model_text import decode_model_text
from .projection import CompactProjection, normalize
from .scan import check_wire_size, wire_bytes
from .text_v1 import decode_text

#: Form names, which are also the CLI's encoding names.
JSON_FORM = "json"
TEXT_FORM = "text"
BINARY_FORM = "binary"
MODEL_TEXT_FORM = "model-text"
FORMS: tuple[str, ...] = (JSON_FORM, TEXT_FORM, BINARY_FORM, MODEL_TEXT_FORM)

FORMAT_VERSIONS = {
    JSON_FORM: 1,
    TEXT_FORM: text_v1.FORMAT_VERSION,
    BINARY_FORM: binary_v1.FORMAT_VERSION,
    MODEL_TEXT_FORM: model_text.FORMAT_VERSION,
}


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
    if head.startswith(MAGIC[:4]):
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
    decoder = {MODEL_TEXT_FORM: decode_model_text, TEXT_FORM: decode_text, BINARY_FORM: decode_binary}[form]
    p = decoder(wire)
    return DecodedWire(form, p.selected, p)
