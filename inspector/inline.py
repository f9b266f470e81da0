""""Why is this inline?": why a string literal of the document was not moved to
the dictionary, read from the encoder's own rules (docs/wire-format.md §5.1 for
v2, §6 for v1 text's back-references) and the thresholds in ``codec.limits``, and
true of the bytes in hand. No Textual here.

The encoder never leaves a literal inline because of a limit: a document that
needs more than ``MAX_DICTIONARY_ENTRIES`` entries, or repeats a literal longer
than ``MAX_ENTRY_BYTES``, is refused with compact.limit (§9) rather than written
with a smaller dictionary. So in a valid wire a literal is inline for one of the
three rules of §5.1 and nothing else; a literal that meets all three and is still
inline is a wire the encoder did not write."""

from __future__ import annotations

import bisect

from codec import limits, split_strings
from codec.visible import visible_bytes

from .model import Loaded
from .structure import Structure

SPEC = "docs/wire-format.md"


def literal_rule(size: int, length: int, occurrences: int) -> str:
    """Why the v2 encoder leaves a literal inline, from the three facts its rule
    reads: the document's size in bytes, the literal's length (its whole spelling,
    quotes and escapes included) and how often it occurs as a whole string token
    (keys and values together; ``occurrences`` may be a count capped at
    ``MIN_ENTRY_OCCURRENCES``). Empty when the rule makes it an entry."""
    if size < limits.DICTIONARY_THRESHOLD:
        return (f"the whole document is {size:,} bytes, under {limits.DICTIONARY_THRESHOLD:,}: below that the "
                f"encoder writes no dictionary at all ({SPEC} §5.1 rule 1)")
    if length < limits.MIN_ENTRY_BYTES:
        return (f"it is {length:,} bytes, quotes and escapes included, under the {limits.MIN_ENTRY_BYTES}-byte "
                f"minimum of a dictionary entry ({SPEC} §5.1 rule 3)")
    if occurrences < limits.MIN_ENTRY_OCCURRENCES:
        return (f"it occurs once as a whole string token (keys and values counted together; the same bytes "
                f"inside a longer string do not count), and an entry needs {limits.MIN_ENTRY_OCCURRENCES} "
                f"occurrences ({SPEC} §5.1 rule 3)")
    return ""


def _entry_text(length: int) -> str:
    if length > limits.MAX_ENTRY_BYTES:
        return (f"it is {length:,} bytes and repeated: over the {limits.MAX_ENTRY_BYTES:,}-byte limit of an entry, "
                f"so the encoder refuses the document (compact.limit, {SPEC} §9)")
    return (f"it is {length:,} bytes and occurs {limits.MIN_ENTRY_OCCURRENCES} times or more in a document of "
            f"{limits.DICTIONARY_THRESHOLD:,} bytes or more, so the encoder's rule makes it a dictionary entry "
            f"({SPEC} §5.1)")


def explain_literal(loaded: Loaded, structure: Structure | None, doc_offset: int | None) -> str:
    """The answer for the string literal holding document byte ``doc_offset``:
    which entry it is and how often it is used, or which rule kept it inline, in
    the terms of the loaded wire's form."""
    if structure is None or doc_offset is None:
        return "no expanded document maps to this place"
    i = structure.innermost(doc_offset)
    if i < 0 or structure.values.kind[i] != ord("s"):
        return "the cursor is not on a string literal"
    start, end = structure.span(i)
    literal = structure.document[start:end]
    shown = _shown(literal)
    if loaded.form == "binary":
        return f"{shown}: v1 binary has no dictionary and no back-references; every string is CBOR text ({SPEC} §7)"
    if loaded.form == "text":
        return f"{shown}: {_v1_reason(structure, literal, start)}"
    rejected = "" if loaded.error is None else f" (this wire was rejected, {loaded.error.code})"
    if loaded.form == "model-text":
        k = bisect.bisect_left(loaded.ref_doc, start)
        if k < len(loaded.ref_doc) and loaded.ref_doc[k] == start:
            index = loaded.ref_index[k]
            uses, saved = loaded.reference_counts[index], loaded.bytes_saved(index)
            worth = f"save {saved:,} bytes against" if saved >= 0 else f"cost {-saved:,} bytes more than"
            return (f"{shown} is dictionary entry @{index}: the body writes it @{index}, {uses:,} use"
                    f"{'' if uses == 1 else 's'}; its line and references {worth} writing it inline every "
                    f"time{rejected}")
    occurrences = structure.occurrences(literal, limits.MIN_ENTRY_OCCURRENCES)
    reason = literal_rule(len(structure.document), len(literal), occurrences)
    if loaded.form == "model-text":
        if reason:
            return f"{shown} is inline: {reason}{rejected}"
        return f"{shown} is inline, but {_entry_text(len(literal))}: the encoder never writes this wire{rejected}"
    if loaded.error is not None:
        return f"{shown}: full JSON has no dictionary, and this file was rejected ({loaded.error.code}): no encoder takes it"
    prefix = f"{shown}: full JSON has no dictionary; as model-text"
    if reason:
        return f"{prefix} it would stay inline: {reason}"
    return (f"{prefix} it would not stay inline: {_entry_text(len(literal))} (unless the document "
            f"needs more than {limits.MAX_DICTIONARY_ENTRIES:,} entries, which the encoder refuses)")


def _v1_reason(structure: Structure, literal: bytes, start: int) -> str:
    """v1 text (§6): every spelling enters the back-reference table at its first
    occurrence and stays inline there; a later one is written ``~k`` when that is
    shorter than the literal."""
    first = structure.first_occurrence(literal)
    if first is None or first >= start:
        return (f"v1 text has no dictionary; this is the first occurrence of this spelling, which enters the "
                f"back-reference table and is always written inline ({SPEC} §6)")
    k = len(dict.fromkeys(split_strings(structure.document[:first])[1::2]))  # spellings seen before it
    token = b"~%d" % k
    if len(token) < len(literal):
        return f"not inline: a later occurrence of table entry {k}, which the body writes {token.decode()} ({SPEC} §6)"
    return (f"a later occurrence of table entry {k}, inline because {token.decode()} ({len(token)} bytes) is not "
            f"shorter than the {len(literal)}-byte literal ({SPEC} §6)")


def _shown(literal: bytes, width: int = 48) -> str:
    text = visible_bytes(literal)
    return text if len(text) <= width else text[:width - 1] + "…"
