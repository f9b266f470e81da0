"""The projection value, its canonical JSON encoding and its digest
(docs/wire-format.md §1 and §2).

Every wire form carries the same selected bytes; this module is where "the selected
bytes are canonical" is decided, so every decoder normalizes through ``normalize``,
and where the canonical encoder is spelled, once (``_encode``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import threading
from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import neg
from typing import Any

from . import errors as E
from . import limits, scan
from .errors import CompactError, excerpt, over_limit
from .names import PROFILES
from .scan import FIELD_NAMES, Field, join_parts, quote_split, split_strings, stand_in_integers

#: False until looked up: msgspec is imported on first use, not with codec.
_FAST_ENCODE: Callable[[Any], bytes] | bool | None = False


def _fast_encode() -> Callable[[Any], bytes] | None:
    """msgspec's JSON encoder (optional: the canonical encoder's fast path for
    values without floats), imported when first needed so that importing codec
    stays cheap for tools that only read a wire's envelope."""
    global _FAST_ENCODE
    if _FAST_ENCODE is False:
        try:
            from msgspec.json import Encoder
        except ImportError:  # pragma: no cover - json.dumps does all the work then
            _FAST_ENCODE = None
        else:
            _FAST_ENCODE = Encoder().encode
    assert not isinstance(_FAST_ENCODE, bool)  # looked up just above
    return _FAST_ENCODE


DIGEST_TAG = b"semaprax/compact-projection/source-digest/v1\x00"
DIGEST_PATTERN = re.compile(rb"sha256:[0-9a-f]{64}\Z")

_BOM = b"\xef\xbb\xbf"

#: Maps ``[{`` to +1 and ``]}`` to -1 (0xFF read as a signed byte) after deleting
#: every other byte, so nesting depth is a running sum computed in C.
_DEPTH_TABLE = bytes(
    1 if b in b"[{" else 0xFF if b in b"]}" else 0 for b in range(256)
)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
#: Every digit becomes "0" and every other byte ".", so a run of more than 4,300
#: digits is one substring test in C: linear, where a regular expression restarts
#: at every digit of a long run (quadratic).
_DIGIT_MASK = bytes(0x30 if 0x30 <= b <= 0x39 else 0x2E for b in range(256))
_LONG_DIGIT_RUN = b"0" * (limits.MAX_INTEGER_DIGITS + 1)

Locate = Callable[[int], int]


def _encode(value: Any, *, floats: bool = True) -> bytes:
    """The canonical projection encoding (docs/wire-format.md §1), the one place it
    is spelled: ``json.dumps`` with these options defines it. Raises what
    ``json.dumps`` raises; callers map that to diagnostics.

    ``floats=False`` is the caller's promise that ``value`` holds only JSON types
    (str keys, list, str, int, bool, None) and no float, as a value parsed from a
    document with no float token does. msgspec's encoder writes exactly the same
    bytes for such values, several times faster (tests/test_canonical.py compares
    them on every code point and on random documents), so it is used for them when
    installed; it spells floats differently (``1e16``), so never for floats."""
    encode = None if floats else _fast_encode()
    if encode is not None:
        try:
            return encode(value)
        except Exception:  # noqa: BLE001, S110 - whatever it cannot write, json.dumps reports below
            pass
    text: str = with_stack(json.dumps, value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")


def canonical_json(value: Any, *, floats: bool = True) -> bytes:
    """The canonical projection encoding of a JSON value (docs/wire-format.md §1);
    ``floats`` as for ``_encode``.

    Raises CompactError (compact.json) for values JSON cannot hold here: NaN,
    Infinity, lone surrogates, non-JSON types."""
    try:
        return _encode(value, floats=floats)
    except RecursionError:
        raise CompactError(E.LIMIT, f"value nests deeper than {limits.MAX_DEPTH} levels") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise CompactError(
                E.LIMIT, f"value holds an integer of more than {limits.MAX_INTEGER_DIGITS:,} digits"
            ) from None
        raise CompactError(E.JSON, f"value cannot be a projection document: {exc}") from None
    except (TypeError, UnicodeEncodeError) as exc:
        raise CompactError(E.JSON, f"value cannot be a projection document: {exc}") from None


def canonicalize(document: bytes) -> bytes:
    """The canonical spelling of a JSON document spelled any way (whitespace, key
    escapes, ``1E5``): parsed leniently and encoded canonically, for showing a
    producer what it should have written. CompactError (compact.json) when it is
    not JSON at all."""
    try:
        value = json.loads(document)
    except (ValueError, RecursionError) as exc:
        raise CompactError(E.JSON, f"not a JSON document: {exc}") from None
    return canonical_json(value)


def with_stack(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``, run again on a fresh thread if it ran out of
    Python recursion depth.

    Parsing or encoding a document 512 levels deep needs 512 frames; a caller
    already several hundred frames deep would otherwise turn a valid wire into an
    error that depends on where the decoder was called from, not on the bytes. A
    new thread starts with an empty frame stack, so a second RecursionError means
    the value itself is too deep for this interpreter."""
    try:
        return call(*args, **kwargs)
    except RecursionError:
        pass
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, call(*args, **kwargs)))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            outcome.append((False, exc))

    worker = threading.Thread(target=run, name="semaprax-deep-value")
    worker.start()
    worker.join()
    ok, result = outcome[0]
    if ok:
        return result
    raise result


def has_long_digit_run(skeleton: bytes) -> bool:
    """More than 4,300 digits in a row somewhere in ``skeleton``."""
    return _LONG_DIGIT_RUN in skeleton.translate(_DIGIT_MASK)


def source_digest(selected: bytes) -> str:
    """The domain-separated SHA-256 of docs/wire-format.md §2, without concatenating a copy
    of a document that may be 16 MiB."""
    h = hashlib.sha256(DIGEST_TAG)
    h.update(len(selected).to_bytes(8, "big"))
    h.update(selected)
    return "sha256:" + h.hexdigest()


def check_digest(document: bytes, declared: str, offset: int) -> None:
    """compact.digest unless ``document`` hashes to ``declared``; ``offset`` is
    where the declared digest stands in the wire."""
    actual = source_digest(document)
    if actual != declared:
        hint = ""
        if document.endswith(b"\n"):
            hint = " The document ends with LF: an editor or echo may have appended it; tools must not."
        raise CompactError(
            E.DIGEST,
            f"the {len(document):,} reconstructed bytes have digest {actual}, "
            f"but the wire declares {declared}.{hint}",
            offset,
        )


def check_metadata(profile: str, root: str, source_revision: str) -> None:
    """Constructor-side rules for the metadata a producer chooses."""
    if profile not in PROFILES:
        raise CompactError(
            E.METADATA,
            f"unknown profile {profile!r}; expected one of {', '.join(PROFILES)}",
        )
    for name, value in (("root", root), ("source_revision", source_revision)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be str, not {type(value).__name__}")
        if not value:
            raise CompactError(E.METADATA, f"{name} must not be empty")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise CompactError(E.METADATA, f"{name} is not valid Unicode (lone surrogate)") from None


def metadata_bytes(p: CompactProjection) -> tuple[bytes, bytes, bytes, bytes]:
    """Encoder side: the four metadata values as bytes in wire order, each checked
    against the 4 KiB limit so an encoder never writes what no decoder accepts."""
    values = (p.profile.encode(), p.root.encode(), p.source_revision.encode(), p.source_digest.encode())
    for name, value in zip(FIELD_NAMES, values):
        if len(value) > limits.MAX_METADATA_BYTES:
            raise over_limit(f"{name} is {len(value):,} bytes", limits.MAX_METADATA_BYTES)
    return values


def metadata_values(fields: tuple[Field, ...]) -> tuple[str, str, str, str]:
    """Decoder-side value checks (docs/wire-format.md §3), after the framing of all
    four fields was read: UTF-8, non-empty, a known profile, a digest spelling."""
    values = []
    for i, f in enumerate(fields):  # in wire order: the first bad field is reported
        try:
            text = f.raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CompactError(
                E.METADATA, f"{f.name} is not valid UTF-8 ({exc.reason})", f.value.start + exc.start
            ) from None
        if not text:
            raise CompactError(E.METADATA, f"{f.name} is empty", f.value.start)
        if i == 0 and text not in PROFILES:
            raise CompactError(
                E.METADATA,
                f"unknown profile {text!r}; expected one of {', '.join(PROFILES)}",
                f.value.start,
            )
        if i == 3 and DIGEST_PATTERN.match(f.raw) is None:
            raise CompactError(
                E.METADATA,
                f"source_digest {text[:80]!r} is not 'sha256:' and 64 lowercase hex digits",
                f.value.start,
            )
        values.append(text)
    profile, root, revision, digest = values
    return profile, root, revision, digest


def document_depth(skeleton: bytes) -> int:
    """Deepest nesting in a document whose string tokens were removed."""
    runs = _depth_after_runs(skeleton)
    if runs is not None:
        return max(runs, default=0)
    deltas = array("b", skeleton.translate(_DEPTH_TABLE, _NOT_BRACKETS))
    return max(accumulate(deltas), default=0)


#: Opening brackets become ``[`` and closing ones ``]``; every other byte goes.
_BRACKET_KIND = bytes.maketrans(b"{}", b"[]")
_BRACKET_RUNS = re.compile(rb"\[++|\]++").findall
#: Runs of brackets are read one at a time when there are at most this many
#: brackets per run on average; denser ones go one bracket at a time.
_MIN_BRACKETS_PER_RUN = 8


def _depth_after_runs(skeleton: bytes) -> list[int] | None:
    """The nesting depth after each run of opening or of closing brackets (in
    order; closing runs before any opening one count down from 0), or None when
    the runs are too short for this to beat one step per bracket. A document
    nested deep has long runs (``[[[[1]]]]``): 8 M brackets in 16 MiB are then
    tens of thousands of runs, each one step in Python."""
    brackets = skeleton.translate(_BRACKET_KIND, _NOT_BRACKETS)
    turns = brackets.count(b"[]") + brackets.count(b"][")
    if turns * _MIN_BRACKETS_PER_RUN > len(brackets):
        return None
    runs = list(map(len, _BRACKET_RUNS(brackets)))
    if runs and brackets[0] == 0x5D:  # starts with a closing run: count it down
        runs[0::2] = map(neg, runs[0::2])
    else:
        runs[1::2] = map(neg, runs[1::2])
    return list(accumulate(runs))


#: Documents with flat objects are proved canonical without a value only when
#: they hold at most one object per this many bytes: each object's keys are
#: compared in a few steps of Python.
_MIN_BYTES_PER_OBJECT = 256


#: The proof without a value runs where the value costs more than the proof's
#: passes (one regular-expression step per token, several times a parser's for
#: a scalar): at least one container per this many items, or objects of this
#: many keys on average (one hash table of a million keys grows slower than
#: its size: per key 0.4 us at 75,000 keys, 1.1 us at 1.2 M). An array of 8 M
#: small integers parses in 0.43 s and takes the passes 1.1 s.
_MOST_ITEMS_PER_CONTAINER = 4
_MANY_KEYS = 4096


def _worth_proving(size: int, skeleton: bytes) -> bool:
    """Whether a document of ``size`` bytes and this skeleton is one the proof
    without a value takes (its value costs more than the proof's passes)."""
    objects = skeleton.count(b"{")
    if objects and objects * _MIN_BYTES_PER_OBJECT > size:
        return False
    containers, items = skeleton.count(b"[") + objects, skeleton.count(b",") + 1
    # not mostly scalars in few containers (there parsing is the cheaper proof)
    return containers * _MOST_ITEMS_PER_CONTAINER >= items or skeleton.count(b":") >= _MANY_KEYS * max(objects, 1)


def _canonical_without_value(selected: bytes, skeleton: bytes) -> bool:
    """True when ``selected``, an array of arrays, scalars and flat objects (no
    container in an object) or one flat object, is proved canonical without
    building its value: every token canonical and followed only by what may
    follow it (``scan.canonical_array_tokens``, one pass in C), its brackets
    balanced with the first ``[`` closed by the last byte, no object repeating
    a key. A document whose objects hold containers (``{"a":[[…]]}``) is
    proved by ``_canonical_objects``. False in every other case, and the
    caller reads the document as it stands, which decides the verdict, its
    code and its offset.

    One verdict is given here: when all of that holds but an object repeats a
    key, the document is compact.json at the first repeated key in document
    order, with the message the key walk gives (``_duplicate_key_fault``): a
    document of canonical tokens has no earlier fault for ``_json_fault`` to
    find (no float, no integer over the limit, no surrogate escape), and the
    walk starts before the first object that repeats a key.

    A valid document of one-item lists nested 511 deep is 8 M lists at 16 MiB:
    840 MiB and several seconds to build and encode again; one object of 1.2 M
    keys is a dict whose building grows faster than its size (per key 0.4 us
    at 75,000 keys, 1.1 us at 1.2 M: the hash table outgrows the caches).
    Here both are a few passes over the bytes and one set of keys (issue 23)."""
    if not _worth_proving(len(selected), skeleton):
        return False
    objects = skeleton.count(b"{")
    if selected.startswith(b"{"):
        if not scan.canonical_flat_object(selected):
            return _canonical_objects(selected, skeleton)
    else:
        if not (selected.startswith(b"[") and selected.endswith(b"]")):
            return False
        runs = _depth_after_runs(skeleton)
        if runs is None:
            inner = min(accumulate(array("b", skeleton.translate(_DEPTH_TABLE, _NOT_BRACKETS))[:-1]), default=1)
            balanced = skeleton.count(b"[") == skeleton.count(b"]")
        else:
            inner = min(runs[:-1], default=1)
            balanced = runs[-1] == 0
        # every bracket but the last leaves the depth at 1 or more: the first ``[``
        # is closed by the last ``]``, and nothing stands outside it
        if not (balanced and inner >= 1):
            return False
        if not scan.canonical_array_tokens(selected):
            # an object that holds a container stops the tokens of arrays and flat objects
            return bool(objects) and _canonical_objects(selected, skeleton)
    if objects:
        for start, keys in scan.flat_objects(selected):
            index = _first_repeat(keys)
            if index is not None:
                token = keys[index].decode("utf-8", "replace")
                offset = scan.key_offset(selected, start, index)
                raise CompactError(E.JSON, f"duplicate object key {token[:60]}", offset)
    return True


#: Every byte of a skeleton but the structure (brackets, braces, commas, colons) goes.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"[]{},:")
#: In the structure of a document of ``scan.CANONICAL_TOKENS`` (each key's
#: comma folded into its colon): a flat object, and an array that holds no
#: container.
_FLAT_STRUCTURE = re.compile(rb"\{:*+\}")
_FLAT_ARRAY_STRUCTURE = re.compile(rb"\[,*+\]")
#: Runs of openers, of closers, of keys (colons), of bare commas.
_STRUCTURE_RUNS = re.compile(rb"[\[{]++|[\]}]++|:++|,++")
_CLOSER_OF = bytes.maketrans(b"[{", b"]}")
#: The structure walk of ``_canonical_objects`` takes at most one run per this
#: many bytes of the document (and at least ``_FEWEST_RUNS``): each run is a
#: few steps of Python.
_MIN_BYTES_PER_RUN = 128
_FEWEST_RUNS = 4096


def _few_turns(size: int, skeleton: bytes) -> bool:
    """Whether the brackets of ``skeleton`` turn (an opener next to a closer,
    either way; strings and scalars between count for nothing) at most once
    per ``_MIN_BYTES_PER_RUN`` bytes of the document (or ``_FEWEST_RUNS``
    times): the structure walks of ``_canonical_objects`` and
    ``_object_departure`` take a few steps of Python per run, where parsing
    a document of short runs (the graph view's, 48 bytes a turn) is cheaper."""
    brackets = skeleton.translate(_BRACKET_KIND, _NOT_BRACKETS)
    turns = brackets.count(b"[]") + brackets.count(b"][")
    return turns <= max(_FEWEST_RUNS, size // _MIN_BYTES_PER_RUN)


def _canonical_objects(selected: bytes, skeleton: bytes) -> bool:
    """``_canonical_without_value`` for a document whose objects may hold
    containers (``{"a":[[…]]}``), found without building its value: True when
    it is canonical, a CompactError at the first repeated key (as
    ``_canonical_without_value`` gives it), False when this reading does not
    take it (the caller reads it as it stands).

    Every token canonical and followed only by what may follow it
    (``scan.canonical_tokens``, one pass in C); then the structure, the
    skeleton less everything but brackets, braces, commas and colons (a key's
    comma folded into its colon), less its flat objects and, a few passes in
    C, its arrays of scalars (``[,,]``), is walked one run at a time: openers
    pushed as runs, each run of closers must close the openers on top in
    reverse order and kind (``[`` by ``]``, ``{`` by ``}``), a run of colons
    (keys) must stand in an object and a run of bare commas in an array,
    nothing may follow the close of the first opener, and each object's keys
    (from ``scan.deep_keys``) go into one set. With flat objects' keys checked
    as before, that is exactly a JSON document that encodes to itself
    (docs/wire-format.md §1). The first repeated key in document order is the
    parsing reading's verdict (a document of canonical tokens holds no earlier
    fault for ``_json_fault``).

    Arrays nested 511 deep under a top-level object were parsed in full: 8 M
    lists, 3.3 s and 890 MiB at 16 MiB, 9.7x the graph baseline (issue 23)."""
    if not _few_turns(len(selected), skeleton) or not scan.canonical_tokens(selected):
        return False
    structure = skeleton.translate(None, _NOT_STRUCTURE).replace(b",:", b":")
    structure, flat = _FLAT_STRUCTURE.subn(b"", structure)
    for _ in range(16):  # arrays of scalars: each pass takes the innermost level
        shorter = _FLAT_ARRAY_STRUCTURE.sub(b"", structure)
        removed = len(structure) - len(shorter)
        structure = shorter
        if removed * 16 < len(structure):
            break
    runs = _STRUCTURE_RUNS.subn(b"", structure)[1]
    if runs > max(_FEWEST_RUNS, len(selected) // _MIN_BYTES_PER_RUN):
        return False
    keys = scan.deep_keys(selected) if b":" in structure else []
    if len(keys) != structure.count(b":"):
        return False  # pragma: no cover - the token pass makes every colon a key's
    repeat = _walk_structure(_STRUCTURE_RUNS.findall(structure), keys)
    if repeat is False:
        return False
    found: list[tuple[int, bytes]] = []
    if repeat is not None:
        found.append((scan.deep_key_offset(selected, repeat), keys[repeat]))
    del keys
    if flat:
        for start, flat_keys in scan.flat_objects_among(selected):
            index = _first_repeat(flat_keys)
            if index is not None:
                found.append((scan.key_offset(selected, start, index), flat_keys[index]))
                break
    if found:
        offset, key = min(found)
        raise CompactError(E.JSON, f"duplicate object key {key.decode('utf-8', 'replace')[:60]}", offset)
    return True


def _close(pieces: list[bytes], sets: list[dict[int, set[bytes]]], need: int) -> tuple[bytes, int]:
    """Close ``need`` of the open containers, innermost first, for a run of
    closers (``_walk_structure`` and ``_read_structure`` share it): ``pieces``
    are the open runs of openers (innermost last) and ``sets`` each run's
    objects' keys, by position; both are cut back in place. Returns the
    openers closed, as written, and how many closers found nothing open."""
    taken: list[bytes] = []
    while need and pieces:
        top = pieces[-1]
        if len(top) <= need:
            taken.append(top)
            pieces.pop()
            sets.pop()
            need -= len(top)
        else:
            keep = len(top) - need
            taken.append(top[keep:])
            pieces[-1] = top[:keep]
            objects = sets[-1]
            for position in [p for p in objects if p >= keep]:
                del objects[position]
            need = 0
    return b"".join(reversed(taken)), need


def _walk_structure(runs: list[bytes], keys: list[bytes]) -> int | bool | None:
    """Walk the runs of a document's structure (see ``_canonical_objects``):
    False when it is not one JSON value (unmatched or mismatched brackets, a
    key outside an object, a bare comma outside an array, anything after the
    first value); else the index in ``keys`` (the keys, in order, one per
    colon) of the first key its object already has, or None."""
    pieces: list[bytes] = []  # the open runs, innermost last
    sets: list[dict[int, set[bytes]]] = []  # per open run: the keys of each of its objects
    next_key = 0
    repeat: int | None = None
    for run in runs:  # (after the first value closes, a comma, closer or key finds nothing open)
        first = run[0]
        if first == 0x5B or first == 0x7B:  # [ {
            pieces.append(run)
            sets.append({})
        elif first == 0x5D or first == 0x7D:  # ] }
            opened, unmatched = _close(pieces, sets, len(run))
            if unmatched or opened[::-1].translate(_CLOSER_OF) != run:
                return False
        elif first == 0x3A:  # keys: of the innermost open object
            if not pieces or pieces[-1][-1] != 0x7B:
                return False
            chunk = keys[next_key : next_key + len(run)]
            if repeat is None:
                seen = sets[-1].setdefault(len(pieces[-1]) - 1, set())
                if seen.isdisjoint(chunk) and len(set(chunk)) == len(chunk):
                    seen.update(chunk)
                else:
                    for index, key in enumerate(chunk, next_key):
                        if key in seen:
                            repeat = index
                            break
                        seen.add(key)
            next_key += len(run)
        elif not pieces or pieces[-1][-1] != 0x5B:  # bare commas: in an array
            return False
    if pieces:
        return False
    return repeat


#: Whitespace the parser skips between tokens (docs/wire-format.md §1: none is
#: canonical) and a run of it between two bytes of scalars (``1 0``, ``tr ue``,
#: ``- 1``): taking such a run out would join two tokens into one.
_JSON_SPACE = b" \t\n\r"
_SPACE_JOINS_TOKENS = re.compile(rb"[-+.0-9A-Za-z][" + scan.SPACE_BYTES + rb"]++[-+.0-9A-Za-z]").search
#: ``-0`` as a whole integer token (not ``-0.5``, ``-0e1``, ``-01``): it parses
#: to 0, whose canonical spelling is ``0`` (docs/wire-format.md §1).
_MINUS_ZERO = re.compile(rb"(?<![-+.0-9A-Za-z])-0(?![-+.0-9A-Za-z])")


def _spelling_departure(selected: bytes, skeleton: bytes) -> CompactError | None:
    """The compact.noncanonical error the parsing reading gives ``selected``
    when its departures from the canonical encoding are whitespace between
    tokens (a trailing space, a space after a comma, ...) and integers spelled
    ``-0``, found without its value; None in every other case, and the caller
    reads the document as it stands.

    ``selected`` less its whitespace outside strings, with each ``-0`` token
    spelled ``0``, is proved canonical by ``_canonical_without_value`` (no run
    of whitespace stood between two bytes of scalars, so taking it out joined
    no tokens): then ``json.loads`` accepts ``selected`` (whitespace may stand
    before, between and after tokens; ``-0`` is the integer 0), its value is
    that of the respelled document, which encodes to that document itself, and
    no key repeats. The parsing reading then reports
    exactly this: compact.noncanonical at the first byte where ``selected`` and
    its encoding differ, with the excerpts of both there. When the stripped
    form repeats a key, the parsing reading reports the first repeated key
    (``_repeated_key``), wherever the whitespace stands. A document the proof
    cannot take goes back to the caller.

    Arrays nested 511 deep with one trailing space were parsed in full: 8 M
    lists, 3.7 s and 841 MiB at 16 MiB, 15x the valid twin (issue 23)."""
    bare = skeleton.translate(None, _JSON_SPACE)
    minus_zero = b"-0" in skeleton
    if len(bare) == len(skeleton) and not minus_zero:
        return None
    if not _worth_proving(len(selected), bare) or _SPACE_JOINS_TOKENS(skeleton) is not None:
        return None

    def respell(part: bytes) -> bytes:
        part = part.translate(None, _JSON_SPACE)
        return _MINUS_ZERO.sub(b"0", part) if minus_zero else part

    if b'"' in selected:
        parts = quote_split(selected)
        if parts is None:
            return None
        parts[0::2] = map(respell, parts[0::2])
        canonical = join_parts(parts, b'"')
        del parts
    else:
        canonical = respell(selected)
    # (``bare`` stands for the respelled document's skeleton: the proof reads
    # only its brackets, commas and colons from it, which respelling keeps)
    try:
        if not _canonical_without_value(canonical, bare):
            return None
    except CompactError:
        # a repeated key as well: the parser reads the document (canonical
        # tokens and whitespace hold no token fault), so the first repeated
        # key in document order is its verdict, wherever the whitespace stands
        return _repeated_key(selected, len(selected))
    at = first_difference(selected, canonical)
    return _noncanonical(selected, at, excerpt(canonical, at))


def _truncation(selected: bytes, skeleton: bytes) -> CompactError | None:
    """The syntax error ``json.loads`` gives ``selected`` when it is a canonical
    array document cut short between two tokens (``[[1],[2]`` of ``[[1],[2]]``),
    found without its value; None in every other case, and the caller reads the
    document as it stands.

    The document closed by one ``]`` per bracket left open (less a last comma)
    is proved canonical by ``_canonical_without_value``: then ``selected`` is a
    prefix of a valid document ending inside an array, every byte of it is read
    without a fault, and the parser stops at the end of the input, after a
    value (``Expecting ',' delimiter``) or after ``[`` or ``,`` (``Expecting
    value``). A document whose last token may be cut (a number, a literal, a
    string), ends inside an object or holds whitespace is left to the parser.

    Arrays nested 511 deep less their last ``]`` were parsed up to the end:
    at 1 MiB 10x the valid twin's time and 2.8x its memory (issue 23)."""
    if not selected.startswith(b"["):
        return None
    last = selected[-1:]
    if last not in (b"]", b"[", b",", b"}", b'"', b"e", b"l") and not last.isdigit():
        return None
    open_at_end = skeleton.count(b"[") + skeleton.count(b"{") - skeleton.count(b"]") - skeleton.count(b"}")
    if open_at_end < 1 or not _worth_proving(len(selected), skeleton):
        return None
    if len(skeleton.translate(None, _JSON_SPACE)) != len(skeleton):
        return None
    core = selected[:-1] if last == b"," else selected
    if last == b"," and core.endswith(b"["):
        return None  # ``[,``: the comma itself is the fault
    closed = core + b"]" * open_at_end
    closed_skeleton = (skeleton[:-1] if last == b"," else skeleton) + b"]" * open_at_end
    try:
        if not _canonical_without_value(closed, closed_skeleton):
            return None
    except CompactError:
        return None  # a repeated key as well: left to the parser
    message = "Expecting value" if last in (b"[", b",") else "Expecting ',' delimiter"
    return CompactError(E.JSON, f"invalid JSON: {message}", len(selected))


_SPACE_RUN = re.compile(rb"[" + scan.SPACE_BYTES + rb"]*+").match
#: The stand-in parse of ``_syntax_error`` reads this many bytes of the
#: document first, and up to ``_MOST_WINDOW`` (four times more each try)
#: before it leaves the document to the parser.
_FIRST_WINDOW = 1 << 12
_MOST_WINDOW = 1 << 18
#: An error this close to the end of a window may come from the cut itself
#: (``tru`` of ``true``, ``-Infinit`` of ``-Infinity``, half a ``\\u`` escape).
_CUT_MARGIN = 16
#: ``_first_difference_by_tokens`` respells at most this many tokens.
_MOST_RESPELLED = 4096


def _departure(selected: bytes, skeleton: bytes) -> CompactError | bool | None:
    """The verdict the parsing reading gives ``selected``, an array of arrays,
    flat objects and scalars spelled any way JSON allows, found without its
    value: a CompactError (code, message and offset as the parser and
    ``_json_fault`` give them), True when it is canonical after all, or None
    when this reading cannot tell, and the caller reads the document as it
    stands.

    One pass in C (``scan.rfc_array_tokens_end``) reads the document as tokens
    of RFC 8259 (any number, string escape or whitespace), each followed only by
    what may follow it, and the bracket depths say where the first ``[`` closes.

    - When the tokens stop short, or the first ``[`` closes before the end or
      not at all, the parser's first syntax error is at or after that place:
      ``_syntax_error`` parses a small document that stands for what comes
      before it, followed by the bytes from there.
    - When the whole document is such tokens and its first ``[`` is closed by
      its last bracket, ``json.loads`` reads it. Its verdict is then the first
      of a float out of range, a lone surrogate escape (``_token_fault``) and a
      repeated key (``_repeated_key``) in document order, as ``_json_fault``
      places them, and else compact.noncanonical at the first byte where the
      document and its encoding differ (``_first_difference_by_tokens``,
      docs/wire-format.md §1).
    - ``NaN``, ``Infinity`` and ``-Infinity`` as an array's item (which
      ``json.loads`` reads and the codec rejects, docs/wire-format.md §1) are
      tokens of the pass when the document holds one: the parser raises at the
      first of them unless a syntax error comes before it, so when one stands
      before the place above (or the whole document is such tokens) the verdict
      is the first token fault or repeated key, as ``_json_fault`` places them.
      One the parser meets after where the tokens stop (``_syntax_error``'s
      window reads it before any syntax error) gives the first token fault in
      a document without ``{``; with one, as inside an object, the parser
      decides.

    Arrays nested 511 deep with a float, an escape, a stray byte, a cut inside
    a token or a repeated key were parsed in full: 8 M lists, about 3.7 s and
    841 MiB at 16 MiB, 13x the time of the valid twin (issue 23)."""
    lead = len(selected) - len(selected.lstrip(_JSON_SPACE))
    if selected[lead : lead + 1] != b"[":
        return None
    bare = skeleton.translate(None, _JSON_SPACE)
    if not _worth_proving(len(selected), bare):
        return None
    constants = b"NaN" in bare or b"Infinity" in bare
    end = scan.rfc_array_tokens_end(selected, constants=constants)
    brackets = len(bare.translate(None, _NOT_BRACKETS))
    closes = _top_close(bare)
    if end == len(selected) and closes == brackets - 1:
        return _parsed_verdict(selected, skeleton, constants=constants)
    at = end
    if closes < brackets - 1 and closes < _brackets_before(selected, end):
        # the first ``[`` closes early, before the tokens stop: the parser stops there
        close_at = _bracket_offset(selected, closes)
        assert close_at is not None  # ``closes`` counts brackets that are there
        at = min(at, close_at)
    elif end == len(selected):  # it never closes: the parser reads up to the end
        at = len(selected.rstrip(_JSON_SPACE)) - 1
    if constants and _constant_before(selected, at):
        # the parser meets NaN or Infinity before its first syntax error and
        # raises there: the verdict is the first fault ``_json_fault`` places
        return _parsed_verdict(selected, skeleton, constants=True)
    return _syntax_error(selected, at)


#: Runs of a structure as the skeleton spells it (brackets, braces, commas and
#: colons): openers, closers, keys (a colon, with the comma before it), bare commas.
_STRUCTURE_TOKEN_RUNS = re.compile(rb"[\[{]++|[\]}]++|,?+:(?:,:)*+|(?:,(?!:))++")


@dataclass
class _Structure:
    """What ``_read_structure`` found: the index (among the structure bytes) of
    the first one out of place, or None; what is open after the bytes read
    (outermost first); the index of the first key its object already has."""

    fault: int | None
    openers: bytes
    repeat: int | None


def _read_structure(structure: bytes, keys: list[bytes]) -> _Structure | None:
    """Walk ``structure`` (a skeleton's brackets, braces, commas and colons,
    nothing else) one run at a time, as ``_walk_structure`` does, up to the
    first byte out of place: a closer of the wrong kind or with nothing open,
    a key (its comma, or its colon) outside an object, a bare comma outside an
    array, anything after the first value. ``keys``: each key's identity, in
    order (one per colon). None when the runs are too many to walk."""
    runs = _STRUCTURE_TOKEN_RUNS.findall(structure)
    if len(runs) > max(_FEWEST_RUNS, len(structure) // _MIN_BYTES_PER_RUN):
        return None
    pieces: list[bytes] = []
    sets: list[dict[int, set[bytes]]] = []
    consumed = next_key = 0
    repeat: int | None = None
    fault: int | None = None
    for run in runs:
        first = run[0]
        if first == 0x5B or first == 0x7B:
            if not pieces and consumed:
                fault = consumed  # after the first value
                break
            pieces.append(run)
            sets.append({})
        elif first == 0x5D or first == 0x7D:
            expected = _close(pieces, sets, len(run))[0][::-1].translate(_CLOSER_OF)
            if expected != run:
                fault = consumed + first_difference(expected, run)
                break
        elif first == 0x3A or run.endswith(b":"):  # keys: of the innermost open object
            if not pieces or pieces[-1][-1] != 0x7B:
                fault = consumed
                break
            count = run.count(b":")
            if repeat is None:
                seen = sets[-1].setdefault(len(pieces[-1]) - 1, set())
                for index, key in enumerate(keys[next_key : next_key + count], next_key):
                    if key in seen:
                        repeat = index
                        break
                    seen.add(key)
            next_key += count
        elif not pieces or pieces[-1][-1] != 0x5B:  # bare commas: in an array
            fault = consumed
            break
        consumed += len(run)
    return _Structure(fault, b"".join(pieces), repeat)


def _structure_offset(document: bytes, nth: int) -> int | None:
    """Where structure byte number ``nth`` (from 0: brackets, braces, commas
    and colons outside strings) of ``document`` stands: one counted,
    possessive pass."""
    before = re.compile(
        b"(?:(?:" + scan.STRING + rb'|[^"\[\]{},:]++)*+[\[\]{},:]){%d}+(?:' % nth
        + scan.STRING + rb'|[^"\[\]{},:]++)*+'
    ).match(document)
    return None if before is None else before.end()


def _object_departure(selected: bytes, skeleton: bytes) -> CompactError | bool | None:
    """``_departure`` for a document whose objects may hold containers
    (``{"a":[[…]]}``, objects at any depth), found without its value: a
    CompactError (code, message and offset as the parser and ``_json_fault``
    give them), True when it is canonical after all, or None when this reading
    cannot tell (the caller reads the document as it stands).

    One pass in C (``scan.rfc_tokens_end``) reads the document as tokens of
    RFC 8259 spelled any way, each followed only by what may follow it, and
    the structure of the bytes read (brackets, braces, commas, colons) is
    walked one run at a time (``_read_structure``: kinds matched, keys only in
    objects, bare commas only in arrays, one value; each object's keys by
    ``_key_identity``).

    - When the whole document is such tokens and its structure one value,
      ``json.loads`` reads it: its verdict is the first token fault
      (``_token_fault``) or repeated key in document order, as ``_json_fault``
      places them, else compact.noncanonical at the first difference from the
      encoding (``_first_difference_by_tokens``).
    - Else the parser's first syntax error is at the first byte out of place,
      or where the tokens stop, or (never closed) at the last bracket:
      ``_object_syntax_error`` parses a stand-in for what is open there and a
      window of the bytes from there.
    - ``NaN``, ``Infinity``, ``-Infinity`` as a value: as in ``_departure``.

    Arrays nested 511 deep under an object with a float, an escape, a stray
    byte, a cut or a repeated key were parsed in full (issue 23)."""
    if b"{" not in skeleton:
        return None
    lead = len(selected) - len(selected.lstrip(_JSON_SPACE))
    if selected[lead : lead + 1] not in (b"[", b"{"):
        return None
    bare = skeleton.translate(None, _JSON_SPACE)
    if not _worth_proving(len(selected), bare) or not _few_turns(len(selected), bare):
        return None
    constants = b"NaN" in bare or b"Infinity" in bare
    end = scan.rfc_tokens_end(selected, constants=constants)
    read = _read_structure_of(selected, skeleton if end == len(selected) else None, end)
    if read is None:
        return None
    if read.fault is None and end == len(selected) and not read.openers:
        return _object_parsed_verdict(selected, read.repeat, constants=constants)
    at = end
    if read.fault is not None:
        fault_at = _structure_offset(selected, read.fault)
        if fault_at is None:
            return None  # pragma: no cover - the walk counted bytes that are there
        at = min(at, fault_at)
    elif end == len(selected):  # never closed: the parser reads up to the end
        at = len(selected.rstrip(_JSON_SPACE)) - 1
    if constants and _constant_before(selected, at):
        return _object_parsed_verdict(selected, read.repeat, constants=True)
    return _object_syntax_error(selected, at)


def _read_structure_of(selected: bytes, skeleton: bytes | None, end: int) -> _Structure | None:
    """``_read_structure`` of ``selected[:end]`` (whole tokens; ``skeleton``
    is its skeleton when given), with its keys' identities."""
    if skeleton is None:
        prefix = selected[:end]
        skeleton = _skeleton_of(prefix) if b'"' in prefix else prefix
        del prefix
    structure = skeleton.translate(None, _NOT_STRUCTURE)
    keys = scan.rfc_keys(selected, end) if b":" in structure else []
    keys = [_key_identity(key[1:-1]) if b"\\" in key else key[1:-1] for key in keys]
    if len(keys) != structure.count(b":"):
        return None  # pragma: no cover - every colon of whole tokens is a key's
    return _read_structure(structure, keys)


def _object_parsed_verdict(selected: bytes, repeat: int | None, *, constants: bool = False) -> CompactError | bool | None:
    """``_parsed_verdict`` for ``_object_departure``: ``repeat`` is the index
    (among the keys, in order) of the first repeated key, or None."""
    fault = _token_fault(selected, len(selected))
    if constants and (fault is None or fault.offset is None):
        return None  # the constant is not where the reading took it: the parser decides
    stop = len(selected) if fault is None or fault.offset is None else fault.offset
    if repeat is not None:
        at = scan.rfc_key_offset(selected, repeat)
        if at < stop:
            return _duplicate_key_at(selected, at)
    if fault is not None:
        return fault
    return _first_difference_by_tokens(selected, scan.canonical_tokens_run_end)


def _duplicate_key_at(selected: bytes, at: int) -> CompactError:
    """compact.json for the repeated key whose token starts at ``at``, with the
    message the key walk gives (``_duplicate_key_fault``)."""
    end = scan.strict_string_end(selected, at)
    token = selected[at:end].decode("utf-8", "replace")
    return CompactError(E.JSON, f"duplicate object key {token[:60]}", at)


def _object_syntax_error(selected: bytes, at: int) -> CompactError | None:
    """``_syntax_error`` where objects may be open at ``at``: the stand-in
    opens each open container as its kind (``[``, or ``{"":`` with a key and
    its colon, so the parser reads a value there), and leaves the innermost
    in the parser's state after the last token before ``at``: after ``[``, a
    bare comma, a colon or a value. Nothing open after a value: the parser
    reads extra data at ``at``."""
    prefix = selected[:at]
    read = _read_structure_of(selected, None, at)
    if read is None or read.fault is not None:
        return None
    last = prefix.rstrip(_JSON_SPACE)[-1:]
    del prefix
    if not read.openers:
        if last:
            return CompactError(E.JSON, "invalid JSON: Extra data", at)
        return None
    stand_in = "".join("[" if opener == 0x5B else '{"":' for opener in read.openers[:-1])
    if read.openers[-1] == 0x5B:
        stand_in += "[" + ("" if last == b"[" else "0," if last == b"," else "0")
    else:
        stand_in += '{"":' + ("" if last == b":" else "0")
    return _window_error(selected, at, stand_in, _object_constant_verdict)


def _object_constant_verdict(selected: bytes) -> CompactError | None:
    """The verdict when the parser raises at a ``NaN`` or ``Infinity`` it
    reads before any syntax error, as ``_json_fault`` places it: the first
    token fault (the constant at the latest), or a key repeated before it (the
    bytes before it are whole tokens the parser read: their structure is
    walked); None when that is not found."""
    fault = _token_fault(selected, len(selected))
    if fault is None or fault.offset is None:
        return None
    read = _read_structure_of(selected, None, fault.offset)
    if read is None or read.fault is not None:
        return None
    if read.repeat is not None:
        at = scan.rfc_key_offset(selected, read.repeat)
        if at < fault.offset:
            return _duplicate_key_at(selected, at)
    return fault


def _constant_before(selected: bytes, at: int) -> bool:
    """Whether ``NaN``, ``Infinity`` or ``-Infinity`` stands before ``at`` in
    ``selected``, whose bytes before ``at`` are whole
    ``scan.RFC_ARRAY_TOKENS_WITH_CONSTANTS``: there an ``N`` or an ``I``
    outside strings is one of them."""
    prefix = selected[:at]
    skeleton = _skeleton_of(prefix) if b'"' in prefix else prefix
    return b"N" in skeleton or b"I" in skeleton


def _top_close(bare: bytes) -> int:
    """Which bracket of ``bare`` (a skeleton without whitespace, starting with
    ``[``), counted from 0, brings the depth back to 0 first; the number of
    brackets when none does. From the runs of brackets when they are long
    (``_depth_after_runs``), else a chunk of brackets at a time."""
    runs = _depth_after_runs(bare)
    if runs is None:
        deltas = array("b", bare.translate(_OPEN_CLOSE_DEPTH, _NOT_BRACKETS))
        index, depth = 0, 0
        while index < len(deltas):  # a chunk at a time, so no list of every bracket's depth is held
            chunk = list(accumulate(deltas[index : index + _DEPTH_CHUNK], initial=depth))[1:]
            if min(chunk) <= 0:
                return index + next(k for k, d in enumerate(chunk) if d <= 0)
            index, depth = index + len(chunk), chunk[-1]
        return len(deltas)
    k = next((k for k, depth in enumerate(runs) if depth <= 0), None)
    if k is None:
        return len(bare.translate(None, _NOT_BRACKETS))
    # (run 0 opens: the document starts with ``[``, so k is at least 1)
    before = sum(map(abs, map(int.__sub__, runs[:k], [0, *runs[: k - 1]])))  # the brackets of runs 0 to k - 1
    return before + runs[k - 1] - 1  # the closing run k brings the depth from runs[k - 1] to 0


def _brackets_before(document: bytes, end: int) -> int:
    """How many brackets outside strings ``document`` has before ``end``
    (which is not inside a string)."""
    prefix = document[:end]
    return len((_skeleton_of(prefix) if b'"' in prefix else prefix).translate(None, _NOT_BRACKETS))


def _bracket_offset(document: bytes, nth: int) -> int | None:
    """Where bracket number ``nth`` (from 0, outside strings) of ``document``
    stands: one counted, possessive pass."""
    before = re.compile(
        b"(?:(?:" + scan.STRING + rb'|[^"\[\]{}]++)*+[\[\]{}]){%d}+(?:' % nth
        + scan.STRING + rb'|[^"\[\]{}]++)*+'
    ).match(document)
    return None if before is None else before.end()


def _syntax_error(selected: bytes, at: int) -> CompactError | None:
    """The syntax error ``json.loads`` gives ``selected``, whose bytes before
    ``at`` are whole ``scan.RFC_ARRAY_TOKENS`` inside its first ``[`` (read
    without a fault): the parser's state there is arrays open ``depth`` deep,
    just after a ``[``, a ``,`` or a value, so it reads the bytes from ``at``
    exactly as it reads them after ``[`` x depth, ``[`` x depth then ``0,``, or
    ``[`` x depth then ``0``. That small document followed by a window of the
    bytes from ``at`` is parsed, and its error moved back by the difference.
    An error that the window's end may cause (within ``_CUT_MARGIN`` bytes of
    it, or a string not closed in it) is not taken: the window grows, up to
    ``_MOST_WINDOW``. None when no error is found that way (the caller reads
    the document as it stands)."""
    prefix = selected[:at]
    skeleton = _skeleton_of(prefix) if b'"' in prefix else prefix
    depth = skeleton.count(b"[") + skeleton.count(b"{") - skeleton.count(b"]") - skeleton.count(b"}")
    del skeleton
    last = prefix.rstrip(_JSON_SPACE)[-1:]  # the last byte of the last token (a string's is its quote)
    del prefix
    if depth < 1 and last:
        return None  # past the end of the first value: not read here
    stand_in = "[" * depth + ("" if last in (b"[", b"") else "0," if last == b"," else "0")
    return _window_error(selected, at, stand_in)


def _window_error(
    selected: bytes, at: int, stand_in: str, on_constant: Callable[[bytes], CompactError | None] | None = None
) -> CompactError | None:
    """The syntax error ``json.loads`` gives ``selected`` when ``stand_in``
    leaves the parser in the state it is in at ``at`` (see ``_syntax_error``):
    ``stand_in`` and a window of the bytes from ``at`` are parsed, and the
    error moved back; None when it is not found that way.

    A string the window cuts (``Unterminated string``) is read whole by the
    next window, however long: its end is found in C, and a string is one
    token for the parser (no container is built), so an error inside a long
    string or past it is found without the 256 KiB bound; so is a run of
    whitespace the window cuts. ``on_constant``: the verdict when the window
    reads ``NaN`` or ``Infinity`` before any syntax error (the parser raises
    there), given the document."""
    window = _FIRST_WINDOW
    while True:
        end = min(at + window, len(selected))
        text = selected[at:end].decode("utf-8", "ignore" if end < len(selected) else "strict")
        string_at = None
        try:
            with_stack(json.loads, stand_in + text, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            if exc.pos < len(stand_in):
                return None
            offset = at + _byte_offset(text, exc.pos - len(stand_in))
            unterminated = exc.msg.startswith("Unterminated string")
            if end == len(selected) or (offset < end - _CUT_MARGIN and not unterminated):
                return CompactError(E.JSON, f"invalid JSON: {exc.msg}", offset)
            if unterminated:
                string_at = offset  # the string's opening quote
        except RecursionError:
            return None  # too deep here: the parser decides
        except ValueError:
            # NaN or Infinity in the window, read before any syntax error: the
            # parser raises there, and the slow path places the first token
            # fault (``_json_fault``); with no ``{`` no key can repeat
            if on_constant is not None:
                return on_constant(selected)
            if b"{" in selected:
                return None
            fault = _token_fault(selected, len(selected))
            return fault if fault is not None and fault.offset is not None else None
        if end == len(selected):
            return None
        if string_at is not None:
            closes = scan.string_end(selected, string_at)
            if closes is not None and closes + _CUT_MARGIN >= end:  # the window cut the string: take it whole
                window = max(window * 4, closes - at + _FIRST_WINDOW)
                continue
        elif selected[end - 1] in _JSON_SPACE:  # the window cut a run of whitespace: take it whole
            spaces = _SPACE_RUN(selected, end)
            assert spaces is not None  # `*+`: matches everywhere
            window = max(window * 4, spaces.end() - at + _FIRST_WINDOW)
            continue
        if window >= _MOST_WINDOW:
            return None
        window *= 4


def _parsed_verdict(selected: bytes, skeleton: bytes, *, constants: bool = False) -> CompactError | bool | None:
    """The verdict of the parsing reading on a document ``json.loads`` reads
    (see ``_departure``): the first token fault or repeated key, in document
    order, as ``_json_fault`` places them; else compact.noncanonical at the
    first difference from the encoding; True when there is none.

    ``constants``: the parser raises at a ``NaN`` or ``Infinity`` before it
    reads the whole document (up to that, the document is
    ``scan.RFC_ARRAY_TOKENS_WITH_CONSTANTS``); the verdict is then the first
    token fault or repeated key (``_json_fault``), and None if none is found."""
    fault = _token_fault(selected, len(selected))
    if constants and (fault is None or fault.offset is None):
        return None  # the constant is not where the reading took it: the parser decides
    stop = len(selected) if fault is None or fault.offset is None else fault.offset
    if b"{" in skeleton:
        key = _repeated_key(selected, stop)
        if key is not None:
            return key
    if fault is not None:
        return fault
    return _first_difference_by_tokens(selected)


def _repeated_key(selected: bytes, stop: int) -> CompactError | None:
    """The first key before ``stop`` that its object already has, in a document
    of ``scan.RFC_ARRAY_TOKENS`` (whose objects are flat, so the first object
    that repeats a key holds the first repeated key): each object's keys are
    compared as a set, and the one that repeats a key is walked by
    ``_duplicate_key_fault``, the key walk of the parsing reading."""
    for start, end in scan.rfc_flat_objects(selected, stop):
        obj = selected[start:end]
        parts = scan.split_strings(obj)
        # a key is a string a colon follows
        keys = [
            _key_identity(parts[i][1:-1])
            for i in range(1, len(parts), 2)
            if parts[i + 1].lstrip(_JSON_SPACE).startswith(b":")
        ]
        if len(set(keys)) == len(keys):
            continue
        found = _duplicate_key_fault(obj, len(obj))
        if found is None or found.offset is None or start + found.offset >= stop:
            return None
        return found.shifted(start)
    return None


def _first_difference_by_tokens(
    selected: bytes, run_end: Callable[[bytes, int], int] = scan.canonical_run_end
) -> CompactError | bool | None:
    """compact.noncanonical at the first byte where ``selected`` (which
    ``json.loads`` reads, with no token fault and no repeated key) and its
    canonical encoding differ, with the excerpts of both there, as the parsing
    reading gives it; True when they do not differ; None when this is not found
    within ``_MOST_RESPELLED`` tokens.

    Runs of canonical tokens are skipped in C (``scan.canonical_run_end``: they
    are spelled as the encoding spells them); every other token is respelled
    alone, as the encoding spells its value (whitespace as nothing).
    ``run_end``: where a run of canonical tokens from a place ends
    (``scan.canonical_tokens_run_end`` where objects hold containers)."""
    pos = run_end(selected, 0)
    respelled = 0
    while True:  # up to the first token spelled otherwise than its encoding
        if pos == len(selected):
            return True
        token = scan.rfc_token(selected, pos)
        if token is None or respelled == _MOST_RESPELLED:
            return None
        respelled += 1
        kind, end = token
        spelled = selected[pos:end]
        canonical = _respell(kind, spelled)
        if canonical is None:
            return None
        if canonical != spelled:
            break
        pos = run_end(selected, end)
    differs = first_difference(spelled, canonical)
    if differs == len(spelled):
        return None  # the token spells a prefix of its encoding: what follows it decides
    at, pos = pos + differs, end
    after = canonical[differs:]  # the encoding from ``at``: 25 bytes of it, or all
    while len(after) <= 24 and pos < len(selected):
        run = run_end(selected, pos)
        if run > pos:
            after += selected[pos : min(run, pos + 25)]
            pos = run
            continue
        token = scan.rfc_token(selected, pos)
        if token is None or respelled == _MOST_RESPELLED:
            return None
        respelled += 1
        kind, end = token
        canonical = _respell(kind, selected[pos:end])
        if canonical is None:
            return None
        after += canonical
        pos = end
    return _noncanonical(selected, at, excerpt(after))


def _respell(kind: str, spelled: bytes) -> bytes | None:
    """One token as the canonical encoding spells its value: whitespace as
    nothing, structure and literals as they are, a string or number as
    ``_encode`` writes what ``json.loads`` reads (docs/wire-format.md §1);
    None when the encoding cannot write it (a float out of range, a lone
    surrogate: ``_token_fault`` finds those first)."""
    if kind == "space":
        return b""
    if kind in ("mark", "word"):
        return spelled
    try:
        return _encode(json.loads(spelled))
    except (ValueError, UnicodeEncodeError):  # pragma: no cover - placed by _token_fault before
        return None


_KEY_CHUNK = 1 << 16


def _first_repeat(keys: list[bytes]) -> int | None:
    """The index of the first of ``keys`` equal to an earlier one, or None. The
    keys go into one set a chunk at a time (in C); only the chunk that holds
    the first repeat is read one key at a time."""
    seen: set[bytes] = set()
    for low in range(0, len(keys), _KEY_CHUNK):
        chunk = keys[low : low + _KEY_CHUNK]
        before = len(seen)
        seen.update(chunk)
        if len(seen) - before < len(chunk):
            del seen
            prior = set(keys[:low])
            for index, key in enumerate(chunk, low):
                if key in prior:
                    return index
                prior.add(key)
    return None


def normalize(selected: bytes, *, skeleton: bytes | None = None, locate: Locate | None = None) -> None:
    """Check that ``selected`` is exactly the canonical projection encoding of a
    JSON value (docs/wire-format.md §1, normalization); CompactError if not.

    ``skeleton`` (the document's bytes outside string tokens) may be passed by a
    caller that already tokenized the document; ``locate`` maps an offset in the
    document to the offset to report (a v2 body maps it back through references).
    """
    where: Locate = locate or (lambda offset: offset)
    try:
        _normalize(selected, skeleton)
    except CompactError as exc:
        if exc.offset is None:
            raise
        raise CompactError(exc.code, exc.message, where(exc.offset)) from None


#: Integers of at least this many digits are checked by their spelling
#: (``_canonical_with_stand_ins``) when a document holds one. Converting a
#: 4,300-digit integer to an int and back costs about 0.26 ms (CPython's
#: conversion is quadratic), one of 160 digits about what the stand-ins' extra
#: passes over the document cost per integer; shorter ones are converted.
LEXICAL_INTEGER_DIGITS = 160


def _normalize(selected: bytes, skeleton: bytes | None, *, lexical: bool = True) -> None:
    """``normalize`` without the offset mapping. ``lexical=False`` converts every
    integer, however long, and parses every document (the reading the lexical
    checks, ``_canonical_with_stand_ins`` and ``_canonical_without_value``,
    are tested against)."""
    if len(selected) > limits.MAX_SELECTED_BYTES:
        raise over_limit(
            f"selected document is {len(selected):,} bytes", limits.MAX_SELECTED_BYTES, limits.MAX_SELECTED_BYTES
        )
    if not selected:
        raise CompactError(E.JSON, "the document is empty: no JSON value", 0)
    if selected.startswith(_BOM):
        raise CompactError(E.JSON, "document starts with a UTF-8 byte-order mark", 0)
    try:
        text = selected.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CompactError(E.JSON, f"invalid UTF-8 in document ({exc.reason})", exc.start) from None
    if skeleton is None:
        quoted = quote_split(selected)
        skeleton = join_parts((quoted if quoted is not None else split_strings(selected))[0::2])
    if document_depth(skeleton) > limits.MAX_DEPTH:
        raise _depth_error(selected, skeleton)
    # A run of more than 4,300 digits may be an integer over the limit: then the
    # parser itself reports it, in document order with everything else it checks,
    # so the verdict does not depend on where the run stands (nor on the
    # interpreter's own integer conversion setting).
    # (With the interpreter's own limit at 4,300 digits the parser already stops
    # there, in C; the hook is for an interpreter configured otherwise.)
    digits = skeleton.translate(_DIGIT_MASK)
    long_run = _LONG_DIGIT_RUN in digits
    without_value = lexical and not long_run
    lexical = lexical and not long_run and b"0" * LEXICAL_INTEGER_DIGITS in digits
    del digits
    if without_value and _canonical_without_value(selected, skeleton):
        return
    if without_value:
        departure = _spelling_departure(selected, skeleton) or _truncation(selected, skeleton)
        if departure is not None:
            raise departure
        verdict = _departure(selected, skeleton)
        if verdict is None:
            verdict = _object_departure(selected, skeleton)
        if verdict is True:
            return
        if isinstance(verdict, CompactError):
            raise verdict
    if lexical and _canonical_with_stand_ins(selected, skeleton):
        return
    hook = long_run and sys.get_int_max_str_digits() != limits.MAX_INTEGER_DIGITS
    extra = {"parse_int": _bounded_int} if hook else {}
    # Every way out below drops the parsed value before placing a fault: a
    # 16 MiB document of small objects is some 400 MiB as a value, and nothing
    # that places a fault may hold it while it works (issue 23).
    try:
        value = with_stack(json.loads, text, parse_constant=_reject_constant, **extra)
    except json.JSONDecodeError as exc:
        raise CompactError(E.JSON, f"invalid JSON: {exc.msg}", _byte_offset(text, exc.pos)) from None
    except _LongInteger:
        del text
        fault = _json_fault(selected, skeleton)
        raise (fault or _long_integer(None)) from None
    except RecursionError:
        raise CompactError(
            E.LIMIT, "the document nests deeper than this interpreter's recursion limit can parse", None
        ) from None
    except ValueError as exc:
        del text
        fault = _json_fault(selected, skeleton)
        if fault is not None:
            raise fault from None
        raise CompactError(E.JSON, f"invalid JSON: {exc}", None) from None
    del text
    try:
        again = _encode(value, floats=_has_float_token(skeleton))
    except (ValueError, UnicodeEncodeError):
        again = None  # placed below, outside the handler: its traceback holds the value's frames
    if again is None:
        # A float out of range or a lone surrogate. Whether a key repeats too
        # (perhaps before it) is the colon count of an encoding that writes
        # Infinity and surrogates as they are, asked before the value goes.
        try:
            lenient = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=True).encode()
            repeats = skeleton.count(b":") > _colons_outside_strings(lenient)
            del lenient
        except (ValueError, RecursionError):
            repeats = True
        del value
        fault = _json_fault(selected, skeleton, keys=repeats)
        raise (fault or CompactError(E.JSON, "document holds a value JSON cannot encode"))
    del value
    if again != selected:
        # Parsed and encodable, yet different: a duplicate key (a parse failure,
        # compact.json) or a noncanonical spelling. A key repeats exactly when the
        # document has more colons outside strings than its encoding (each pair
        # of the document is one pair of the value unless its key repeats), a
        # question asked in C; only then does a walk place the key.
        at = first_difference(selected, again)
        repeats = skeleton.count(b":") > _colons_outside_strings(again)
        canonical_here = excerpt(again, at)
        del again
        fault = _json_fault(selected, skeleton, diverges=at) if repeats else None  # a repeated key, or an earlier fault
        if fault is not None:
            raise fault
        raise _noncanonical(selected, at, canonical_here)


def _noncanonical(selected: bytes, at: int, canonical_here: str) -> CompactError:
    """compact.noncanonical at ``at``, the first byte where ``selected`` and its
    canonical encoding differ, with the excerpts of both there (``canonical_here``:
    the encoding's): one message for every reading that finds it (docs/wire-format.md §1)."""
    return CompactError(
        E.NONCANONICAL,
        "JSON is not in the canonical projection encoding: "
        f"found {excerpt(selected, at)}, canonical is {canonical_here}",
        at,
    )


def _canonical_with_stand_ins(selected: bytes, skeleton: bytes) -> bool:
    """True when ``selected``, with each integer of ``LEXICAL_INTEGER_DIGITS`` to
    4,300 digits replaced by a one-digit stand-in (``scan.stand_in_integers``),
    parses and re-encodes to itself: then ``selected`` is canonical, for every
    spelling of an integer but ``-0`` is (docs/wire-format.md §1). False in every
    other case, and the caller reads the document as it stands, which decides
    the verdict, its code and its offset: this path only ever accepts."""
    if b"\x00" in selected:
        return False  # never in JSON; NUL stands for the strings below
    quoted = quote_split(selected)
    if quoted is None:
        return False
    outside, count = stand_in_integers(join_parts(quoted[0::2], b"\x00"), LEXICAL_INTEGER_DIGITS)
    if not count:
        return False
    quoted[0::2] = outside.split(b"\x00")
    document = join_parts(quoted, b'"')
    try:
        value = with_stack(json.loads, document.decode("utf-8"), parse_constant=_reject_constant)
        return _encode(value, floats=_has_float_token(skeleton)) == document
    except (ValueError, TypeError, RecursionError):
        return False


def _has_float_token(skeleton: bytes) -> bool:
    """Whether the bytes outside strings may hold a float: a ``.``, an ``E``, or an
    ``e`` that is not one of ``true``'s or ``false``'s."""
    if b"." in skeleton or b"E" in skeleton:
        return True
    return skeleton.count(b"e") != skeleton.count(b"true") + skeleton.count(b"false")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


class _LongInteger(ValueError):
    """Raised from inside the parser at the first integer over the digit limit."""


def _bounded_int(spelling: str) -> int:
    if len(spelling) - spelling.startswith("-") > limits.MAX_INTEGER_DIGITS:
        raise _LongInteger(spelling[:20])
    return int(spelling)


def _long_integer(offset: int | None) -> CompactError:
    return over_limit(f"integer has more than {limits.MAX_INTEGER_DIGITS:,} digits", limits.MAX_INTEGER_DIGITS, offset)


def _byte_offset(text: str, char_offset: int) -> int:
    return len(text[:char_offset].encode("utf-8", "surrogatepass"))


def first_difference(a: bytes, b: bytes) -> int:
    """Index of the first byte where a and b differ (len of the shorter if one is a
    prefix of the other). Halving keeps it fast on 16 MiB inputs."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while hi - lo > 64:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    while a[lo] == b[lo]:
        lo += 1
    return lo


# --- placing a fault: find exactly what is wrong, with its byte offset -------------
#
# Only runs on a document already known to be bad. Each kind of fault is found by
# a pass in C (a possessive regular expression, a count, a translate) that stops
# at the first candidate; Python looks only at candidates. The one Python walk,
# over the string tokens to find a repeated key, runs only when some key repeats
# (``_repeats_a_key``) or up to an earlier fault's offset.

#: A run of tokens that can hold none of the faults placed here: whitespace and
#: structure, literals, strings with only valid escapes and whole surrogate pairs,
#: integers within the digit limit, and numbers that cannot overflow a float (at
#: most 300 integer digits and no exponent or a negative one, or at most 200
#: and a positive exponent of at most two digits: 10^299 x 10^99 overflows).
#: Atomic alternatives and possessive repetition: no
#: backtracking stack, so one pass in C over 16 MiB.
_PAIR_ESCAPE = rb"\\u[dD][89abAB]" + scan.HEX + rb"{2}\\u[dD][c-fC-F]" + scan.HEX + rb"{2}"
_INNOCENT = re.compile(
    b"(?>[" + scan.SPACE_BYTES + rb",:\[\]{}]++"
    + b"|" + scan.JSON_LITERAL
    + b'|"' + scan.STRICT_BYTE + b"*+(?:(?:" + _PAIR_ESCAPE + b"|" + scan.NON_SURROGATE_ESCAPE + b")"
    + scan.STRICT_BYTE + b'*+)*+"'
    + b"|" + scan.LIMITED_INTEGER + scan.NUMBER_END
    + rb"|-?(?:0|[1-9][0-9]{0,299})(?:\.[0-9]++)?(?:[eE]-[0-9]++)?" + scan.NUMBER_END
    + rb"|-?(?:0|[1-9][0-9]{0,199})(?:\.[0-9]++)?[eE]\+?[0-9]{1,2}" + scan.NUMBER_END
    + b")*+"
).match

_TOKEN = re.compile(
    b"(?P<string>" + scan.CLOSED_STRING + b")"
    + b"|(?P<number>" + scan.JSON_INTEGER
    + b"(?P<frac>" + scan.JSON_FRACTION + b")?(?P<exp>" + scan.JSON_EXPONENT + b")?)"
    + b"|(?P<constant>" + scan.NON_JSON_CONSTANT + b")"
).match


def _token_fault(document: bytes, stop: int) -> CompactError | None:
    """The first NaN or Infinity, float out of range, integer of more than 4,300
    digits or lone surrogate escape before ``stop``: ``_INNOCENT`` skips in C to
    each candidate, and Python reads the candidate alone."""
    pos = 0
    while True:
        run = _INNOCENT(document, pos, stop)  # a possessive repetition: it always matches
        pos = run.end() if run is not None else pos
        if pos >= stop:
            return None
        m = _TOKEN(document, pos, stop)
        if m is None:
            return None  # not a token: a syntax error the parser reported, or past the fault
        kind = m.lastgroup
        if kind == "constant":
            return CompactError(E.JSON, f"{m.group().decode()} is not a JSON number", pos)
        if kind == "string":
            try:
                json.loads(m.group()).encode("utf-8")
            except UnicodeEncodeError:
                return CompactError(E.JSON, "string holds a lone surrogate escape, which is not Unicode text", pos)
            except (ValueError, RecursionError):
                return None
        elif m.group("frac") or m.group("exp"):
            if math.isinf(float(m.group())):
                return CompactError(
                    E.JSON, f"number {m.group()[:40].decode()} is out of the range of a float", pos
                )
        else:
            digits = len(m.group()) - (document[pos] == 0x2D)
            if digits > limits.MAX_INTEGER_DIGITS:
                return over_limit(f"integer has {digits:,} digits", limits.MAX_INTEGER_DIGITS, pos)
        pos = m.end()


_DEPTH_CHUNK = 1 << 20
_OPEN_CLOSE_DEPTH = bytes(1 if b in b"[{" else 0xFF if b in b"]}" else 0 for b in range(256))


def _depth_fault_offset(document: bytes, skeleton: bytes) -> int | None:
    """The offset of the bracket that opens level 513, or None when the document
    nests no deeper than 512. Which bracket (the i-th outside strings) is found
    from ``skeleton`` in C; one counted, possessive pass over the document finds
    where it stands."""
    deltas = array("b", skeleton.translate(_OPEN_CLOSE_DEPTH, _NOT_BRACKETS))
    index, depth = 0, 0
    while True:  # a chunk at a time, so no list of every bracket's depth is held
        chunk = list(accumulate(deltas[index : index + _DEPTH_CHUNK], initial=depth))[1:]
        if not chunk:
            return None
        if max(chunk) > limits.MAX_DEPTH:
            index += chunk.index(limits.MAX_DEPTH + 1)
            break
        index, depth = index + len(chunk), chunk[-1]
    before = re.compile(
        b"(?:(?:" + scan.STRING + rb'|[^"\[\]{}]++)*+[\[\]{}]){%d}+(?:' % index
        + scan.STRING + rb'|[^"\[\]{}]++)*+'
    ).match(document)
    return None if before is None else before.end()


def _key_identity(content: bytes) -> bytes:
    """What a key's content (between its quotes) names: its bytes, or, when it
    has an escape, its decoded text as UTF-8 (``\\u0061`` and ``a`` are one key)."""
    if b"\\" not in content:
        return content
    try:
        decoded: str = json.loads(b'"' + content + b'"')
        return decoded.encode("utf-8", "surrogatepass")
    except ValueError:
        return content


def _string_parts(document: bytes) -> list[bytes]:
    """``[outside, content, outside, ..., outside]`` (contents without quotes)."""
    quoted = quote_split(document)
    if quoted is not None:
        return quoted
    parts = split_strings(document)
    parts[1::2] = [t[1:-1] for t in parts[1::2]]
    return parts


def _duplicate_key_fault(document: bytes, stop: int, diverges: int = 0) -> CompactError | None:
    """The first key before ``stop`` that its object already has. Python reads one
    step per string token (not per byte or per token of structure): brackets come
    from each outside part by one ``translate``, a key is a string that a colon
    follows, and its identity is its bytes unless it holds an escape.

    ``diverges``, when the caller knows it, is where the document's canonical
    encoding first differs from it: an object that closes before that holds no
    repeated key (the encoding would differ inside it), so the walk starts at
    the outermost object still open there (``_walk_start``)."""
    parts = _string_parts(document)
    first = _walk_start(parts, diverges) if diverges else 0
    outside = parts[2 * first :: 2]
    # per string from ``first``: the brackets before it, and whether a colon follows it (in C, by map)
    brackets = list(map(bytes.translate, outside, repeat(None), repeat(_NOT_BRACKETS)))
    keyed = list(map(bytes.startswith, map(bytes.lstrip, outside[1:]), repeat(b":")))
    del outside
    stack: list[set[bytes] | None] = []
    offset = sum(map(len, parts[: 2 * first])) + 2 * first
    for j, is_key in enumerate(keyed):
        content = parts[2 * (first + j) + 1]
        for bracket in brackets[j]:
            if bracket == 0x7B:
                stack.append(set())
            elif bracket == 0x5B:
                stack.append(None)
            elif stack:
                stack.pop()
        offset += len(parts[2 * (first + j)])
        if offset >= stop:
            return None
        if is_key and stack:
            keys = stack[-1]
            if keys is not None:
                key = _key_identity(content) if b"\\" in content else content
                if key in keys:
                    token = document[offset : offset + len(content) + 2].decode("utf-8", "replace")
                    return CompactError(E.JSON, f"duplicate object key {token[:60]}", offset)
                keys.add(key)
        offset += len(content) + 2
    return None


_NOT_BRACKET_RUN = rb"[^\[\]{}]*+"


def _walk_start(parts: list[bytes], diverges: int) -> int:
    """The index of the outside part (among ``parts[0::2]``) where the outermost
    object open at offset ``diverges`` opens, or of the part that holds that
    offset when none is open; 0 when that is not found cheaply. All in C: the
    brackets before that part, with matched pairs removed (a few passes), say
    from which depth the outermost open object opened, the running depth which
    bracket opened it, and a counted pass where that bracket stands."""
    ends = list(accumulate(map(len, parts)))  # without the strings' quotes
    holding = bisect_right(range(len(ends)), diverges, key=lambda k: ends[k] + 2 * ((k + 1) // 2))
    part = min(holding // 2, len(parts) // 2)
    skeleton = join_parts(parts[0 : 2 * part : 2])
    before = skeleton.translate(None, _NOT_BRACKETS)
    reduced = before
    for _ in range(4):
        shorter = reduced.replace(b"[]", b"").replace(b"{}", b"")
        if len(shorter) == len(reduced):
            break
        reduced = shorter
    else:
        return 0  # deeply nested: start at the top
    if b"{" not in reduced:
        return part
    level = reduced.index(b"{")  # the outermost open object opens from this depth
    running = list(accumulate(array("b", before.translate(_OPEN_CLOSE_DEPTH)), initial=0))
    opened = len(running) - 1 - running[::-1].index(level)  # the bracket that opens it
    del running
    at = re.compile(b"(?:" + _NOT_BRACKET_RUN + rb"[\[\]{}]){%d}+" % opened + _NOT_BRACKET_RUN).match(skeleton)
    if at is None:
        return 0
    return bisect_right(list(accumulate(map(len, parts[0 : 2 * part : 2]))), at.end())


def _skeleton_of(document: bytes) -> bytes:
    quoted = quote_split(document)
    return join_parts((quoted if quoted is not None else split_strings(document))[0::2])


def _json_fault(
    document: bytes, skeleton: bytes | None = None, *, keys: bool = True, diverges: int = 0
) -> CompactError | None:
    """The first fault in document order that the fast path (json.loads, then
    comparison) cannot place, in a document nested no deeper than 512 levels
    (``normalize`` checks that first): NaN/Infinity, a float out
    of range, an integer of more than 4,300 digits, a lone surrogate escape, and
    (``keys``) a repeated key. None when there is none of these (before a syntax
    error, which the parser places itself). Only runs on failure, and each kind is
    looked for only before the earliest one found so far."""
    if skeleton is None:
        skeleton = _skeleton_of(document)
    stop = len(document)
    found = _token_fault(document, stop)
    if found is not None and found.offset is not None:
        stop = found.offset
    if keys and b"{" in skeleton:
        key = _duplicate_key_fault(document, stop, diverges)
        if key is not None:
            found = key
    return found


def _colons_outside_strings(document: bytes) -> int:
    return _skeleton_of(document).count(b":")


def _depth_error(document: bytes, skeleton: bytes) -> CompactError:
    at = _depth_fault_offset(document, skeleton)
    return CompactError(E.LIMIT, f"nesting deeper than {limits.MAX_DEPTH} levels", at)


# --- the value --------------------------------------------------------------------


@dataclass(frozen=True)
class CompactProjection:
    """Four metadata values and one canonical selected document (docs/wire-format.md §1).

    ``source_digest`` is derived from ``selected`` and never chosen, so two equal
    projections always carry equal digests."""

    profile: str
    root: str
    source_revision: str
    selected: bytes = field(repr=False)
    source_digest: str = field(init=False)

    def __post_init__(self) -> None:
        check_metadata(self.profile, self.root, self.source_revision)
        if not isinstance(self.selected, bytes):
            raise TypeError(f"selected must be bytes, not {type(self.selected).__name__}")
        normalize(self.selected)
        object.__setattr__(self, "source_digest", source_digest(self.selected))

    @classmethod
    def from_value(cls, profile: str, root: str, source_revision: str, value: Any) -> CompactProjection:
        """Build a projection from a JSON value, for producers."""
        return cls(profile, root, source_revision, canonical_json(value))

    @classmethod
    def _checked(
        cls, profile: str, root: str, source_revision: str, selected: bytes, digest: str
    ) -> CompactProjection:
        """For decoders that have already normalized ``selected`` and verified its
        digest: skip doing that work a second time."""
        self = object.__new__(cls)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "source_revision", source_revision)
        object.__setattr__(self, "selected", selected)
        object.__setattr__(self, "source_digest", digest)
        return self

    def value(self) -> Any:
        """The selected document as a Python value."""
        return json.loads(self.selected)
