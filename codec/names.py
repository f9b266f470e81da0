"""The names a request chooses among, importing nothing: the profiles
(docs/wire-format.md §1) and the wire forms with their format versions and the
binary form's first bytes (§7, §8). The command line builds its options from
them without loading a codec (tests/test_imports.py)."""

from __future__ import annotations

#: The profiles a projection may name (codec/projection.py checks a projection's
#: profile against this list).
PROFILES: tuple[str, ...] = (
    "graph",
    "task-context",
    "project-graph",
    "symbols",
    "references",
    "diagnostics",
)

#: Form names, which are also the CLI's encoding names.
JSON_FORM = "json"
TEXT_FORM = "text"
BINARY_FORM = "binary"
MODEL_TEXT_FORM = "model-text"
FORMS: tuple[str, ...] = (JSON_FORM, TEXT_FORM, BINARY_FORM, MODEL_TEXT_FORM)

#: Each form's format_version (docs/wire-format.md, the forms table): the
#: FORMAT_VERSION of text_v1, binary_v1 and model_text, written here so that
#: naming a version imports no decoder (tests/test_imports.py checks they agree).
FORMAT_VERSIONS = {
    JSON_FORM: 1,
    TEXT_FORM: 1,
    BINARY_FORM: 1,
    MODEL_TEXT_FORM: 2,
}
#: The first four bytes of a v1 binary wire (binary_v1.MAGIC without its version
#: byte, docs/wire-format.md §7 and §8).
BINARY_HEAD = b"SPXB"
