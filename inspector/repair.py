"""Mechanical repairs of a rejected wire, with no Textual in it: which apply,
the repaired bytes, and whether they verify.

Each fix removes one cause the problems list names (``model.problems``, whose
hints carry the fix that removes them) or re-encodes a wire that decodes but is
not canonical. A plan applies the fixes one at a time, reading the wire again
after each, until it decodes and verifies (``codec.decode_wire``) or no fix is
left; a plan that does not end in a wire that verifies is not to be written.
Nothing here writes a file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import codec
from codec import CompactError

from .model import Loaded, canonical_wire, field_rows, load_bytes, problems

#: Every fix, in the order a plan tries them: line endings first (they move
#: every later byte), then a trailing LF, then length fields, then re-encoding.
FIXES = ("crlf", "trailing-lf", "length", "canonical")

TITLES = {
    "crlf": "Convert CRLF to LF",
    "trailing-lf": "Strip the trailing LF",
    "length": "Fix a length field from its value",
    "canonical": "Re-encode canonically",
}


@dataclass(frozen=True)
class Step:
    """One fix applied: which, and what it changed, true of the bytes."""

    fix: str
    what: str

    @property
    def title(self) -> str:
        return TITLES[self.fix]


@dataclass(frozen=True)
class Plan:
    """The fixes applied to ``original`` in order, the bytes they give, and
    the verdict of decode-and-verify on those bytes (``error`` None: they
    verify). With no step, ``error`` is the original's own diagnostic."""

    original: bytes
    steps: tuple[Step, ...]
    repaired: bytes
    error: CompactError | None

    @property
    def verifies(self) -> bool:
        """Whether there is something to write: at least one fix, and the result verifies."""
        return bool(self.steps) and self.error is None


def applicable(loaded: Loaded) -> tuple[str, ...]:
    """The fixes that apply to the loaded wire, in plan order: those the
    problems list names, and re-encoding for a noncanonical one."""
    named = {p.fix for p in problems(loaded) if p.fix}
    if loaded.error is not None and loaded.error.code == "compact.noncanonical" and loaded.document is not None:
        named.add("canonical")
    return tuple(f for f in FIXES if f in named)


def apply_fix(fix: str, loaded: Loaded) -> tuple[bytes, str] | None:
    """The wire with one fix applied and what changed; None when the fix
    cannot be made (e.g. a length whose value runs to the end of the wire)."""
    wire = loaded.wire
    if fix == "crlf":
        n = wire.count(b"\r\n")
        if not n:
            return None
        first = wire.find(b"\r\n")
        return wire.replace(b"\r\n", b"\n"), (f"replaced {n:,} CRLF line ending{'s' if n > 1 else ''} with LF "
                                              f"(the first at byte {first:,}); {n:,} byte{'s' if n > 1 else ''} "
                                              "fewer")
    if fix == "trailing-lf":
        kept = wire.rstrip(b"\n")
        n = len(wire) - len(kept)
        if not n or not kept:
            return None
        what = f"removed the LF at byte {len(kept):,}, the last byte" if n == 1 else \
            f"removed {n:,} LF bytes from byte {len(kept):,} to the end"
        return kept, what
    if fix == "length":
        return _fix_length(loaded)
    if fix == "canonical":
        data = canonical_wire(loaded)
        if data is None or data == wire:
            return None
        doc = loaded.document or b""
        canonical_doc = codec.canonicalize(doc) if loaded.document is not None else b""
        at = codec.first_difference(wire, data)
        what = (f"re-encoded as {loaded.title} by the canonical encoder: {len(wire):,} → {len(data):,} bytes, "
                f"the first difference at byte {at:,}")
        if canonical_doc != doc:
            what += (f"; the document's JSON was respelled canonically ({len(doc):,} → {len(canonical_doc):,} "
                     "bytes, the same value), so its source_digest is that of the canonical bytes")
        return data, what
    raise ValueError(f"unknown fix {fix!r}")


def _fix_length(loaded: Loaded) -> tuple[bytes, str] | None:
    """The first metadata length that does not end at an LF, set to the bytes
    of its value up to that LF (docs/wire-format.md §3)."""
    rows = [r for r in field_rows(loaded) if not r.complete]
    if not rows or rows[0].lf_at is None:
        return None
    r = rows[0]
    wire = loaded.wire
    digits_end = r.offset - 1  # the space before the value
    digits_start = digits_end
    while digits_start > 0 and 0x30 <= wire[digits_start - 1] <= 0x39:
        digits_start -= 1
    spelled = wire[digits_start:digits_end]
    actual = b"%d" % len(r.value)
    fixed = wire[:digits_start] + actual + wire[digits_end:]
    return fixed, (f"the {r.name}'s length {spelled.decode()} → {actual.decode()} at byte {digits_start:,}: "
                   f"its value runs {len(r.value):,} bytes to the LF at byte {r.lf_at:,}")


def verify(data: bytes) -> CompactError | None:
    """codec's decode-and-verify of ``data``: None when it passes."""
    try:
        codec.decode_wire(data)
    except CompactError as exc:
        return exc
    return None


#: A plan stops after this many fixes even if more seem to apply (one per
#: metadata field's length, and each of the others once).
MAX_STEPS = 8


def plan(loaded: Loaded) -> Plan:
    """Apply the fixes that apply, one at a time, reading the wire again after
    each, until it verifies or none is left; then decode-and-verify the result."""
    steps: list[Step] = []
    current = loaded
    while len(steps) < MAX_STEPS and not current.ok:
        for fix in applicable(current):
            out = apply_fix(fix, current)
            if out is not None:
                break
        else:
            break
        data, what = out
        steps.append(Step(fix, what))
        current = load_bytes(data, loaded.name)
    if not steps:
        return Plan(loaded.wire, (), loaded.wire, loaded.error)
    return Plan(loaded.wire, tuple(steps), current.wire, verify(current.wire))


def repaired_name(path: str) -> str:
    """Where a repaired copy goes by default: beside the original, with
    ``.repaired`` before its extension (``x.model-text`` → ``x.repaired.model-text``)."""
    p = Path(path)
    if p.suffix:
        return str(p.with_name(f"{p.stem}.repaired{p.suffix}"))
    return str(p.with_name(f"{p.name}.repaired"))


def is_original(target: str, original: str | None) -> bool:
    """Whether ``target`` names the original file (the same path, or the same
    file through another name): a repair never writes there."""
    if not original:
        return False
    if os.path.exists(target) and os.path.exists(original):
        return os.path.samefile(target, original)
    return os.path.abspath(target) == os.path.abspath(original)


def write_new(path: str, data: bytes, *, replace: bool = False) -> None:
    """Write ``data`` to ``path``; unless ``replace``, only if no file is there
    (created exclusively, so a file appearing meanwhile is not overwritten)."""
    with open(path, "wb" if replace else "xb") as f:
        f.write(data)


__all__ = [
    "FIXES",
    "MAX_STEPS",
    "TITLES",
    "Plan",
    "Step",
    "applicable",
    "apply_fix",
    "is_original",
    "plan",
    "repaired_name",
    "verify",
    "write_new",
]
