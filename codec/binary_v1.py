"""Version 1 binary: magic, four LEB128-framed fields and one CBOR data item in a
deterministic profile (docs/wire-format.md §7).

cbor2 writes the profile with its default options and builds values fast. Read
with its strict options it stops at most departures from the profile, but not at
all, and not with our codes and offsets; so a body is read one of three ways:

- ``read_arrays_or_fault``, for a body that is an array or a map: arrays,
  maps, their keys, text strings and one-byte items are read directly (a
  document of arrays nested 511 deep, at the top or under maps, is written
  without a value), and every other item, or departure, by the profile walker
  resumed at it in the walker's own state (``_walk``, a key with its map's
  keys), so its verdict is the walker's; it steps aside (None) where it cannot
  be sure or would be slow.
- ``read_fast``: when a bound computed in bulk (``most_json_bytes``) shows the
  document cannot pass the size limit, cbor2 reads it first, and the result is
  kept only if it re-encodes to the body and ``json.dumps`` writes it. cbor2
  grows containers as their items arrive and reads no string past the body's
  end, so a hostile head costs it nothing.
- ``check_cbor``, the profile walker, for everything else (and whenever the fast
  path steps aside): every head in Python, every departure rejected at its byte
  before cbor2 allocates anything. The walker alone decides what is rejected and
  how; the structured parse always uses it.
"""

from __future__ import annotations

import math
import re
import struct
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from json.encoder import encode_basestring as _json_string
from typing import Any, NoReturn

from . import errors as E
from . import limits, stages
from .errors import CompactError, over_limit
from .projection import (
    CompactProjection,
    canonical_json,
    first_difference,
    has_long_digit_run,
    metadata_bytes,
    metadata_values,
    with_stack,
)
from .scan import FIELD_NAMES, Field, Span, check_encoded_size, check_wire_size, join_parts, wire_bytes

MAGIC = b"SPXB\x01"
FORMAT_VERSION = 1

# Bignums of more than this many bytes have more than 4,300 decimal digits.
_MAX_BIGNUM_BYTES = math.ceil(limits.MAX_INTEGER_DIGITS * math.log2(10) / 8) + 1
_INTEGER_CEILING = 10**limits.MAX_INTEGER_DIGITS


def encode_binary(p: CompactProjection) -> bytes:
    """The complete v1 binary wire of ``p``."""
    out = [MAGIC]
    for value in metadata_bytes(p):
        out.append(_leb128(len(value)))
        out.append(value)
    import cbor2  # imported on first use: reading other forms never needs it

    out.append(cbor2.dumps(p.value()))
    return check_encoded_size(b"".join(out), "binary")


def _leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_binary_fields(wire: bytes) -> tuple[Field, ...]:
    """Magic and the four LEB128-framed fields (framing only)."""
    if not wire.startswith(MAGIC):
        if wire.startswith(b"SPXB") and len(wire) > 4:
            raise CompactError(
                E.ENVELOPE, f"unsupported binary version {wire[4]}; this decoder reads 1", 4
            )
        raise CompactError(E.ENVELOPE, "not a v1 binary wire: expected magic 'SPXB\\x01'", 0)
    pos = len(MAGIC)
    fields = []
    for name in FIELD_NAMES:
        start = pos
        length, pos = _read_length(wire, pos, name)
        end = pos + length
        if end > len(wire):
            raise CompactError(
                E.ENVELOPE, f"wire ends inside the value of {name} ({length} bytes declared)", len(wire)
            )
        fields.append(Field(name, Span(start, end), Span(start, pos), Span(pos, end), wire[pos:end]))
        pos = end
    return tuple(fields)


def _read_length(wire: bytes, pos: int, name: str) -> tuple[int, int]:
    """A minimal unsigned LEB128 of at most two bytes (4,096 needs two): reading
    stops as soon as the value is known to break the limit."""
    if pos >= len(wire):
        raise CompactError(E.ENVELOPE, f"wire ends before the length of {name}", pos)
    first = wire[pos]
    if first < 0x80:
        return first, pos + 1
    if pos + 1 >= len(wire):
        raise CompactError(E.ENVELOPE, f"wire ends inside the length of {name}", len(wire))
    second = wire[pos + 1]
    if second == 0:
        raise CompactError(E.ENVELOPE, f"length of {name} is not minimal LEB128", pos + 1)
    if second >= 0x80:
        raise CompactError(
            E.LIMIT, f"length of {name} is over {limits.MAX_METADATA_BYTES:,} bytes", pos
        )
    value = (first & 0x7F) | (second << 7)
    if value > limits.MAX_METADATA_BYTES:
        raise over_limit(f"length of {name} is {value:,}", limits.MAX_METADATA_BYTES, pos)
    return value, pos + 2


class Reader(stages.Reader):
    """The decoding stages of docs/wire-format.md §7, in their order; each leaves
    what it found on the reader, so a failure still leaves a partial parse.

    ``items``, when a caller sets it to a ``CborItems`` before ``walk``, receives
    every CBOR item the profile walker read (the structured parse)."""

    STAGES = ("envelope", "walk", "build", "verify_digest", "check_canonical")

    def __init__(self, wire: bytes) -> None:
        super().__init__(wire)
        self.items: CborItems | None = None
        self.floats: bool | None = True  # until the walk has seen there are none
        self.value: object = None
        self.walked = False  # the walk stage ran (the structured parse reads the items then)

    def envelope(self) -> None:
        check_wire_size(self.wire)
        self.fields = read_binary_fields(self.wire)
        self.metadata = metadata_values(self.fields)
        self.body_start = self.fields[-1].value.end

    def walk(self) -> None:
        assert self.body_start is not None  # the envelope stage ran
        self.walked = True
        body = self.wire[self.body_start :]
        if self.items is None:
            document = read_arrays_or_fault(body)
            if isinstance(document, CompactError):
                raise document.shifted(self.body_start)
            if document is not None:
                self.document = document
                self.floats = None  # nothing left to check: read_arrays proved the encoding
                return
            fast = read_fast(body)
            if fast is not None:
                self.value, self.document = fast
                self.floats = None  # not known, and not needed: check_canonical is done
                return
            fault = encoding_fault(body)
            if fault is not None:
                raise fault.shifted(self.body_start or 0)
        try:
            self.floats = check_cbor(body, self.items)
        except CompactError as exc:
            raise exc.shifted(self.body_start) from None

    def build(self) -> None:
        if self.document is not None:  # read_fast built and checked it
            return
        # check_cbor enforced the profile and the depth limit; let cbor2 build the
        # value past its own default depth cap of 400.
        import cbor2

        self.value = with_stack(cbor2.loads, self.wire[self.body_start :], max_depth=limits.MAX_DEPTH + 1)
        assert self.floats is not None  # None only after read_fast, which built the document
        selected = canonical_json(self.value, floats=self.floats)
        if len(selected) > limits.MAX_SELECTED_BYTES:
            raise over_limit(
                f"the document is {len(selected):,} bytes as JSON", limits.MAX_SELECTED_BYTES, self.body_start
            )
        self.document = selected

    def check_canonical(self) -> None:
        if self.floats is None:  # read_fast compared it, or read_arrays proved it
            return
        body = self.wire[self.body_start :]
        import cbor2

        again = with_stack(cbor2.dumps, self.value)
        if again != body:  # check_cbor should have caught it; this is §7's own test
            assert self.body_start is not None  # the envelope stage ran
            at = first_difference(body, again)
            raise CompactError(E.NONCANONICAL, "CBOR body is not the deterministic encoding", self.body_start + at)

#: The decoder's stages in order; ``codec.layout_wire`` runs the same ones.
STAGES = Reader.STAGES


def decode_binary(wire: bytes) -> CompactProjection:
    """Decode and fully check a v1 binary wire; any failure is a CompactError."""
    return stages.run(Reader(wire_bytes(wire))).projection()


# --- the fast path: cbor2 first, under bounds checked in bulk ------------------------


class _OnlyBignumTags(dict[int, Callable[[Any, bool], Any]]):
    """cbor2's ``semantic_decoders``: tags 2 and 3 (bignums) fall through to
    cbor2's own decoders; any other tag stops decoding at its head, before its
    content is read (shared and string references never build anything)."""

    def __getitem__(self, tag: int) -> NoReturn:
        if tag in (2, 3):
            raise KeyError(tag)
        raise _NotTheProfile(tag)

    def get(self, tag: int, default: object = None) -> Callable[[Any, bool], Any]:  # pragma: no cover - cbor2 calls __getitem__
        return self[tag]


class _NotTheProfile(Exception):
    """The fast path met something only the walker can name; it steps aside."""


_TAGS = _OnlyBignumTags()

#: For each byte value, the most canonical JSON bytes it can stand for in any role
#: (a head with its separator, less one per argument byte it needs; or a byte of a
#: text string's payload, escaped): ``false,`` is 6, a control character
#: ``\u0001`` is 6, ``0xfb`` with its 8 bytes is at most 25. Summed over a body,
#: an upper bound of its document's length (a bignum's digits aside: at most
#: 2.41 per byte of magnitude, and the length is checked again after the build).
_MOST_JSON = bytearray(b"\x01" * 256)
for _b in range(256):
    _major, _ai = _b >> 5, _b & 31
    _head = 0
    if _major in (0, 1):
        _sign = _major
        if _ai < 24:
            _head = len(str(_ai if _sign == 0 else -1 - _ai)) + 1
        elif 24 <= _ai <= 27:
            _width = 1 << (_ai - 24)
            _head = len(str(2 ** (8 * _width) - 1)) + _sign + 1 - _width
    elif _major in (3, 4, 5):
        _head = 3  # quotes or brackets, and a separator
    elif _b == 0xF4:
        _head = 6
    elif _b in (0xF5, 0xF6):
        _head = 5
    elif _b == 0xFB:
        _head = 25 - 8
    _payload = len(_json_string(chr(_b))) - 2 if _b < 0x80 else 1
    _MOST_JSON[_b] = max(_head, _payload, 1)
_WEIGHTS = sorted(set(_MOST_JSON) - {1})
#: Maps each byte to its weight's position in ``_WEIGHTS`` (1-based; 0 for weight 1).
_WEIGHT_CLASS = bytes(0 if w == 1 else _WEIGHTS.index(w) + 1 for w in _MOST_JSON)
_CLASS_BYTES = [bytes([i + 1]) for i in range(len(_WEIGHTS))]


def most_json_bytes(body: bytes) -> int:
    """An upper bound of the canonical JSON length of the document ``body`` can
    stand for (see ``_MOST_JSON``), computed with one translate and a count per
    weight, all in C."""
    classes = body.translate(_WEIGHT_CLASS)
    return len(body) + sum((w - 1) * classes.count(c) for w, c in zip(_WEIGHTS, _CLASS_BYTES))


#: For each byte value, the most bytes of Python objects (with the slot that holds
#: each in its container) that cbor2 can build per byte of a body, in any role
#: (CPython 3.11 sizes). Every byte carries 20 as its share of the text string it
#: may belong to: a string of ``n`` >= 2 bytes is 57 + ``n`` bytes as a ``str``,
#: under 20 per byte of its ``n + 1`` (shorter ones are cached), except a single
#: character past U+00FF in two bytes (84 over 3 bytes: its lead byte carries
#: 44); a negative integer from -6 to -24 is a one-byte item of 32 bytes and
#: its slot (over 8 bytes: a list grows by an eighth at a time); a container's
#: head carries its object (a list of 88 bytes with its GC header, a
#: dict of a few pairs 208), each further item or pair paying for its slot out of
#: its own bytes. Floats, larger integers, bignums and the simple values cost
#: less than 20 per byte.
_MOST_MEMORY = bytearray(b"\x14" * 256)
for _b in range(0x25, 0x38):
    _MOST_MEMORY[_b] = 40
for _b in range(0xC4, 0xE0):
    _MOST_MEMORY[_b] = 44
for _b in [*range(0x80, 0x9C), 0x9F]:  # arrays, the indefinite one included
    _MOST_MEMORY[_b] = 88
_MOST_MEMORY[0xA0] = 88
for _b in [*range(0xA1, 0xBC), 0xBF]:
    _MOST_MEMORY[_b] = 208
_MEMORY_WEIGHTS = sorted(set(_MOST_MEMORY) - {20})
_MEMORY_CLASS = bytes(0 if w == 20 else _MEMORY_WEIGHTS.index(w) + 1 for w in _MOST_MEMORY)

#: The fast path also runs on a body whose document bound is over 16 MiB (the
#: bound counts every byte in its costliest role: a text string's letters as
#: heads, 2.3-2.7 times a real document's size, so a valid document of 6 MiB
#: used to go to the walker) when what cbor2 can build is bounded: objects of
#: at most what a valid 16 MiB document can need (8 M nested one-item lists,
#: the costliest, are 704 MB), and a document of at most ``_MOST_JSON_FACTOR``
#: times the limit before its length is checked.
MOST_VALUE_MEMORY = 48 * limits.MAX_SELECTED_BYTES
_MOST_JSON_FACTOR = 6


def most_value_memory(body: bytes) -> int:
    """An upper bound of the memory cbor2 allocates for the objects of ``body``'s
    value (see ``_MOST_MEMORY``), in C like ``most_json_bytes``."""
    classes = body.translate(_MEMORY_CLASS)
    return 20 * len(body) + sum((w - 20) * classes.count(c) for w, c in zip(_MEMORY_WEIGHTS, _CLASS_BYTES))


def fast_path_bounded(body: bytes) -> bool:
    """Whether cbor2 may read ``body`` first: its document cannot pass the size
    limit, or the objects it builds stay within ``MOST_VALUE_MEMORY`` (about a
    valid 16 MiB document's) and the document within a few times the limit (its
    length is checked after the build)."""
    most = most_json_bytes(body)
    if most <= limits.MAX_SELECTED_BYTES:
        return True
    return most <= _MOST_JSON_FACTOR * limits.MAX_SELECTED_BYTES and most_value_memory(body) <= MOST_VALUE_MEMORY


def read_fast(body: bytes) -> tuple[object, bytes] | None:
    """The value and canonical JSON of ``body`` when it is a valid item of the
    profile, read by cbor2 first; None when the walker must decide (anything
    odd, any doubt), and then the walker reads it as if this never ran.

    It runs only when cbor2 cannot build more than a valid document could: the
    bulk bound of ``most_json_bytes`` keeps the document under the size limit,
    and cbor2's own limits (nesting one level under §9's, definite lengths, no
    duplicate key, only text and byte string keys, no tag but bignums) stop it
    at the first head the walker would reject for those. What it accepts is
    exactly what the walker accepts: re-encoding gives back the body byte for
    byte (so every head is minimal, every float is float64, nothing trails),
    ``json.dumps`` writes the value (no byte string, simple value, NaN or
    infinity, no non-string key), and no integer has more than 4,300 digits.
    tests/test_binary_fast.py holds it to the walker's verdict."""
    if not fast_path_bounded(body):
        return None
    import cbor2  # imported on first use, as elsewhere in this module

    try:
        value = cbor2.loads(
            body,
            max_depth=limits.MAX_DEPTH - 1,
            semantic_decoders=_TAGS,
            allow_indefinite=False,
            allow_duplicate_keys=False,
            strict_hashable_types=True,
        )
        if cbor2.dumps(value) != body:
            return None
        document = canonical_json(value, floats=True)
    except Exception:  # noqa: BLE001 - whatever it is, the walker names it
        return None
    if len(document) > limits.MAX_SELECTED_BYTES or has_long_digit_run(document):
        return None
    return value, document


# --- arrays, maps and one-byte items: the document without building the value ---------

#: The JSON spelling of each one-byte item of the profile (integers -24 to 23,
#: ``false``, ``true``, ``null``), by byte; None for every other byte.
_ONE_BYTE_JSON: list[bytes | None] = [None] * 256
for _b in range(24):
    _ONE_BYTE_JSON[_b] = b"%d" % _b
    _ONE_BYTE_JSON[0x20 + _b] = b"%d" % (-1 - _b)
_ONE_BYTE_JSON[0xF4], _ONE_BYTE_JSON[0xF5], _ONE_BYTE_JSON[0xF6] = b"false", b"true", b"null"
#: The tokens read directly where an item is due (the top, an array's item, a
#: map's value): a run of one-item array heads, any other array or map head in
#: its shortest form (a length of 24 to 255 in one byte, 256 to 65,535 in two,
#: more in four), a run of one-byte items. Where none matches, the profile
#: walker reads the item (``_walk``).
_ITEM_TOKEN = re.compile(
    rb"\x81++|[\x80\x82-\x97\xa0-\xb7]|[\x98\xb8][\x18-\xff]|[\x99\xb9](?!\x00)[\x00-\xff]{2}"
    rb"|[\x9a\xba](?!\x00\x00)[\x00-\xff]{4}|[\x00-\x17\x20-\x37\xf4-\xf6]++"
).match
#: A text string read directly, a map's key or a value: its head in its
#: shortest form (its bytes, their UTF-8 and a key's uniqueness in its map are
#: checked after it). Any other key, or a departure, is the walker's to read
#: (``_walk``, with the map's keys for a key).
_TEXT_HEAD = re.compile(rb"[\x60-\x77]|\x78[\x18-\xff]|\x79(?!\x00)[\x00-\xff]{2}|\x7a(?!\x00\x00)[\x00-\xff]{4}").match
#: One-byte items spelled by one ``join`` at a time.
_ITEMS_AT_A_TIME = 1 << 16
#: At most one token per this many bytes (after the first ``_TOKEN_SLACK``
#: bytes): denser bodies are left to cbor2, which reads them faster.
_MIN_BYTES_PER_TOKEN = 8
_TOKEN_SLACK = 1 << 12
#: The walker's steps ``read_arrays_or_fault`` may have spent on items it does
#: not take when it reaches a byte: this many, and one more per this many bytes
#: it read directly before it (a step is about a head read in Python, some 100
#: times a byte's cost in the direct reading). Each item costs its walker's
#: turns, ``_ITEM_STEPS`` more for its spelling and one per
#: ``_ITEM_BYTES_PER_STEP`` of its bytes; a bignum a step per 4 bytes of its
#: magnitude besides (its decimal digits are costly, ``_walk``). A body of many
#: such items (strings, long integers; maps of strings, as every projection's
#: body is) steps aside early, in its first few KiB (some 100 strings, 0.4 ms),
#: and is read by cbor2 as before.
_WALK_STEPS = 1 << 9
_BYTES_PER_WALK_STEP = 128
_ITEM_STEPS = 4
_ITEM_BYTES_PER_STEP = 256


def read_arrays(body: bytes) -> bytes | None:
    """``read_arrays_or_fault`` less its verdicts: the document, or None."""
    read = read_arrays_or_fault(body)
    return read if isinstance(read, bytes) else None


def read_arrays_or_fault(body: bytes) -> bytes | CompactError | None:
    """The canonical JSON of ``body``, or the profile walker's verdict on it
    (``check_cbor``: code, message and offset), when ``body`` is an array or a
    map read mostly as arrays, maps, their keys, text strings and one-byte
    items (integers -24 to 23, booleans, null); None when it is read as if this
    never ran (``read_fast``, then the walker).

    A body of arrays, maps with text keys, text strings and one-byte items,
    every head in its shortest form, every string valid UTF-8 and every key
    unique in its map, is in the profile exactly when its items complete at its
    last byte (keys keep the producer's order, docs/wire-format.md §7), so it
    needs no value and no second encoding: a run of one-item array heads
    (``[[[[1]]]]``) is one step, a run of one-byte items one ``join``, a string
    one step (a key with its map's set of keys). Valid arrays nested 511 deep
    (8 M one-item lists for a 16 MiB document: cbor2 built 840 MiB of lists and
    re-encoded them, 20x a valid decode), at the top or under maps
    (``{"a":[[[…]]]}``, 22-50x), cost a few passes over the bytes (issue 23).
    A string value is charged as an item the walker reads (its spelling and
    length are the walker's), so a body of many strings, as every projection
    is, steps aside within the budget below.

    Anything else in it, an item of another kind (a float, a wider integer, a
    bignum, a tag) or a departure from the profile (a head wider than its
    argument needs, an indefinite length, a half float, nesting past the
    limit, a head cut short or declaring more items than bytes are left, a
    key that is not a text string, not UTF-8 or already in its map) is read by
    the walker itself, resumed at that item in the state it would be in there
    (``_walk``: a key with its map's keys so far): the walker's error is the
    verdict, and a value it accepts is spelled from its own value (cbor2 on
    the item's bytes) and the reading goes on after it. The body's end inside
    a container is the walker's ``wire ends inside the CBOR body``; bytes after
    the item its ``trailing byte(s)``, at the first of them (docs/wire-format.md
    §7). The walk is resumed only while the document as the walker counts it
    (every open container's brackets, commas and colons counted at its head)
    is within the size limit, so no size error of the walker can have come
    before, and while the walker's work stays within ``_WALK_STEPS`` and a
    step per ``_BYTES_PER_WALK_STEP`` bytes read directly; past either, and
    for a body that does not start with an array or map head, None."""
    if not body or body[0] >> 5 not in (4, 5):
        return None
    spell = _ONE_BYTE_JSON
    out: list[bytes] = []
    # per head token still open: [items left in its innermost container (a
    # map's keys and values each count), containers it opened, the map's keys
    # so far (None for arrays), its closing brackets]. A map is due a key when
    # its items left are even, a value when they are odd.
    stack: list[list[Any]] = []
    depth = size = 0
    done = False

    def complete() -> None:
        """An item (not a key) ended: a comma, or the containers it was the last
        item of close."""
        nonlocal depth, size, done
        while stack:
            frame = stack[-1]
            frame[0] -= 1
            if frame[0]:
                out.append(b",")
                size += 1
                return
            stack.pop()
            out.append(frame[3])
            size += frame[1]
            depth -= frame[1]
        done = True

    def declared() -> int:
        """The document's length as the walker has counted it: what is spelled,
        and the punctuation still to come of every open container, which the
        walker counts at its head. A head token opening ``opened`` arrays with
        ``left`` items left in its innermost has ``left`` to come there (commas
        and a ``]``) and a ``]`` in each outer one; a map with ``left`` items
        left has ``left`` too: a colon and a comma per pair to come, less the
        last comma, and its ``}``, the current pair's colon spelled with its key."""
        return size + sum(int(frame[0]) + int(frame[1]) - 1 for frame in stack)

    length = len(body)
    max_depth = limits.MAX_DEPTH
    view = memoryview(body)
    pos = tokens = walked = walked_bytes = 0
    while pos < length:
        if done:  # the walker's size checks all passed: the document is within the limit
            if size > limits.MAX_SELECTED_BYTES:
                return None
            return CompactError(E.NONCANONICAL, f"{length - pos} trailing byte(s) after the CBOR item", pos)
        tokens += 1
        if tokens * _MIN_BYTES_PER_TOKEN > pos + _TOKEN_SLACK:
            return None
        keys = None
        if stack and stack[-1][2] is not None and not stack[-1][0] & 1:  # a map's key is due
            keys = stack[-1][2]
        else:
            match = _ITEM_TOKEN(body, pos)
            if match is not None:
                end = match.end()
                head = body[pos]
                if head < 0x80 or head >= 0xF4:  # a run of one-byte items
                    run = view[pos:end]
                    while run and not done:  # bytes after the item: the walker's verdict above
                        frame = stack[-1]
                        if frame[2] is None:  # an array: as many as it has items left
                            take = min(len(run), frame[0])
                        elif frame[0] & 1:  # a map's value
                            take = 1
                        else:  # a key is due: read where the key is read
                            break
                        for low in range(0, take, _ITEMS_AT_A_TIME):  # bytes.join holds a view per part: a slice at a time
                            piece = b",".join(map(spell.__getitem__, run[low : min(take, low + _ITEMS_AT_A_TIME)]))  # type: ignore[arg-type]
                            out.append(piece if low == 0 else b"," + piece)
                            size += len(out[-1])
                        run = run[take:]
                        pos += take
                        frame[0] -= take - 1  # the commas between them are in the piece; the last one completes
                        complete()
                    continue
                if head >= 0xA0:  # a map of n pairs, 2n items
                    count = 1
                    n = head - 0xA0 if end == pos + 1 else int.from_bytes(body[pos + 1 : end], "big")
                    frame_keys: set[bytes] | None = set()
                    opener, items = b"{", 2 * n
                else:
                    if head == 0x81:
                        count, n = end - pos, 1
                        if depth + count > max_depth > depth:  # up to 512 levels: the walker reads the next head
                            count = max_depth - depth
                            end = pos + count
                    elif head <= 0x97:
                        count, n = 1, head - 0x80
                    else:  # 0x98-0x9a, shortest by the pattern
                        count, n = 1, int.from_bytes(body[pos + 1 : end], "big")
                    opener, frame_keys, items = b"[" * count, None, n
                # within 512 levels (the walker's limit on the last head of the
                # token), and no more items (a map: pairs) declared than bytes
                # are left (in a run of one-item heads only the last can be, as
                # the last byte)
                if depth + count <= max_depth and n <= length - end:
                    out.append(opener)
                    size += count
                    depth += count
                    pos = end
                    if n:
                        stack.append([items, count, frame_keys, b"]" * count if frame_keys is None else b"}"])
                    else:  # an empty container, an item at once
                        out.append(b"]" if frame_keys is None else b"}")
                        size += 1
                        depth -= 1
                        complete()
                    if size > limits.MAX_SELECTED_BYTES:
                        return None
                    continue
        # a text string, a key or a value, read here when it is in the profile
        # (every other one is the walker's); a value is charged as an item the
        # walker reads, which it is but for its speed: its spelling and count
        # are the walker's, and a body of many strings still steps aside to cbor2
        match = _TEXT_HEAD(body, pos)
        if match is not None:
            end = match.end()
            n = body[pos] - 0x60 if end == pos + 1 else int.from_bytes(body[pos + 1 : end], "big")
            text = body[end : end + n]
            if keys is None and _WALK_STEPS + (pos - walked_bytes) // _BYTES_PER_WALK_STEP <= walked:
                return None
            if len(text) == n and (keys is None or text not in keys):
                try:
                    spelled = _json_string(text.decode("utf-8")).encode("utf-8")
                except UnicodeDecodeError:
                    pass  # the walker's error, at its byte
                else:
                    if keys is None:
                        walked += 1 + _ITEM_STEPS + (end + n - pos) // _ITEM_BYTES_PER_STEP
                        walked_bytes += end + n - pos
                        out.append(spelled)
                        size += len(spelled)
                        pos = end + n
                        complete()
                    else:
                        keys.add(text)
                        out.append(spelled + b":")
                        size += len(spelled) + 1
                        stack[-1][0] -= 1  # its value is due
                        pos = end + n
                    if size > limits.MAX_SELECTED_BYTES:
                        return None
                    continue
        # the walker reads the item (or key) that starts here
        counted = declared()
        steps = _WALK_STEPS + (pos - walked_bytes) // _BYTES_PER_WALK_STEP - walked
        if counted > limits.MAX_SELECTED_BYTES or steps <= 0:
            return None
        try:
            end, after, _, left = _walk(body, pos, counted, depth, None, steps, keys)
        except CompactError as exc:
            return exc
        except _OverBudget:
            return None
        if keys is not None:  # a key the walker accepts is read above: a doubt
            return None
        walked += steps - left + _ITEM_STEPS + (end - pos) // _ITEM_BYTES_PER_STEP
        walked_bytes += end - pos
        item = _item_json(body[pos:end])
        if item is None or len(item) != after - counted:
            return None  # the walker's count and the spelling disagree: the old path decides
        out.append(item)
        size += len(item)
        pos = end
        complete()
    if not done:  # the body ends inside a container: the walker's error there
        counted = declared()
        if counted > limits.MAX_SELECTED_BYTES:
            return None
        try:
            _walk(body, length, counted, depth, None, _UNBOUNDED)  # it stops at once
        except CompactError as exc:
            return exc
        raise AssertionError("the walker read past the body's end")  # pragma: no cover
    if size > limits.MAX_SELECTED_BYTES:
        return None
    return join_parts(out)


def _item_json(item: bytes) -> bytes | None:
    """The canonical JSON of one item the walker accepted (its value built by
    cbor2), or None when it cannot be had here (a value too deep for the
    caller's stack: the old path then reads the body)."""
    import cbor2

    try:
        return canonical_json(with_stack(cbor2.loads, item, max_depth=limits.MAX_DEPTH + 1), floats=True)
    except Exception:  # noqa: BLE001 - the walker accepted it; anything else is a doubt
        return None


def encoding_fault(body: bytes) -> CompactError | None:
    """Where ``read_fast`` stepped aside, the walker's diagnostic without the walk
    when the body's one departure from the profile is its encoding (issue 23: an
    indefinite-length item at the end of 16 MiB took the walker 22 times a valid
    decode): cbor2 reads the body leniently (indefinite lengths, wide heads,
    short floats and trailing bytes allowed; everything else as strict as
    ``read_fast``), the value is a JSON value the limits admit, and its
    deterministic encoding differs from the body. Every departure the walker
    names but those is caught by the lenient read or the checks after it, and
    each of those changes the encoding at the head that departs, so the first
    byte where the encodings differ is the walker's offset, and the head there
    says which departure it is. None in every other case (the walker decides)."""
    if not fast_path_bounded(body):
        return None
    import cbor2

    try:
        value = cbor2.loads(
            body,
            max_depth=limits.MAX_DEPTH - 1,
            semantic_decoders=_TAGS,
            allow_duplicate_keys=False,
            strict_hashable_types=True,
        )
        again = cbor2.dumps(value)
        if again == body:
            return None
        document = canonical_json(value, floats=True)
    except Exception:  # noqa: BLE001 - whatever it is, the walker names it
        return None
    del value
    if len(document) > limits.MAX_SELECTED_BYTES or has_long_digit_run(document):
        return None
    del document
    at = first_difference(body, again)
    if at == len(again):
        return CompactError(E.NONCANONICAL, f"{len(body) - at} trailing byte(s) after the CBOR item", at)
    return _head_departure(body, at)


def _head_departure(body: bytes, at: int) -> CompactError | None:
    """The walker's diagnostic for the head at ``at``, which departs from the
    profile by its encoding alone; None when it is not one of those (the walker
    then decides)."""
    ib = body[at]
    major, ai = ib >> 5, ib & 31
    if major == 7:
        if ai in (25, 26):
            return CompactError(
                E.NONCANONICAL, "half or single precision float; floats must be float64 (0xfb)", at
            )
        return None
    if ai == 31:
        return CompactError(E.NONCANONICAL, "indefinite-length item; only definite lengths are allowed", at)
    try:
        _argument(body, at)
    except CompactError as exc:
        return exc if exc.code == E.NONCANONICAL else None
    if major == 6:
        try:
            tag, pos = _argument(body, at)
            _check_bignum(body, at, pos, tag)
        except CompactError as exc:
            return exc if exc.code == E.NONCANONICAL else None
    return None


# --- the profile walker ---------------------------------------------------------------

_WIDTH = {24: 1, 25: 2, 26: 4, 27: 8}
_MINIMUM = {24: 24, 25: 0x100, 26: 0x10000, 27: 0x100000000}
_UNPACK = {2: struct.Struct(">H").unpack_from, 4: struct.Struct(">I").unpack_from, 8: struct.Struct(">Q").unpack_from}
_FLOAT64 = struct.Struct(">d").unpack_from


@dataclass(frozen=True)
class CborItems:
    """Every CBOR item the profile walker read, in the order it read them (a
    parent before its children), as parallel arrays of ``body`` offsets: where
    the item's head starts, where its head ends and its payload starts, where
    the item ends (children included; -1 when reading stopped inside it), its
    major type, and the index of the item that holds it (-1 for the top)."""

    start: array[int] = field(default_factory=lambda: array("q"))
    head_end: array[int] = field(default_factory=lambda: array("q"))
    end: array[int] = field(default_factory=lambda: array("q"))
    major: array[int] = field(default_factory=lambda: array("b"))
    parent: array[int] = field(default_factory=lambda: array("q"))

    def __len__(self) -> int:
        return len(self.start)

    def add(self, start: int, head_end: int, end: int, major: int, parent: int) -> int:
        self.start.append(start)
        self.head_end.append(head_end)
        self.end.append(end)
        self.major.append(major)
        self.parent.append(parent)
        return len(self.start) - 1


def check_cbor(body: bytes, items: CborItems | None = None) -> bool:
    """Require ``body`` to be exactly one CBOR item in the deterministic profile.

    Raises compact.json for a value JSON cannot hold, compact.noncanonical for any
    other departure (wider head, indefinite length, half or single float, duplicate
    key, trailing bytes), compact.limit past the nesting or integer limits and
    compact.envelope when the body ends inside an item. Offsets are in ``body``.
    ``items``, when given, receives each item read (the structured parse).
    Returns whether the item holds a float; without one, its value holds only
    JSON types and no float, which lets the canonical encoder take its fast path."""
    n = len(body)
    if n == 0:
        raise CompactError(E.ENVELOPE, "wire ends before the CBOR body", 0)
    pos, _, floats, _ = _walk(body, 0, 0, 0, items, _UNBOUNDED)
    if pos != n:
        raise CompactError(E.NONCANONICAL, f"{n - pos} trailing byte(s) after the CBOR item", pos)
    return floats


class _OverBudget(Exception):
    """``_walk`` did as much work as it was allowed to."""


_UNBOUNDED = 1 << 62  # steps enough for any body


def _walk(
    body: bytes,
    pos: int,
    size: int,
    depth: int,
    items: CborItems | None,
    steps: int,
    keys: set[bytes] | None = None,
) -> tuple[int, int, bool, int]:
    """The profile walker's reading of the one item at ``pos``: where it ends,
    the document size so far, whether it holds a float, and the steps left.

    ``check_cbor`` reads the body's item from its start. ``read_arrays_or_fault``
    resumes the walk at an item it does not take, in the state the walker would
    be in there: ``size`` the canonical JSON length the walker has counted
    before ``pos`` (each open container's brackets, commas and colons counted at
    its head), ``depth`` the containers open around the item, and ``keys``,
    when the item is a map's key, the keys the map has so far (the walk then
    reads that key alone). The walker would check nothing else there: an array
    around checks nothing of its items, a map around checks its keys (with
    ``keys``) and nothing of its values, and what either checks at its end (the
    item count, trailing bytes) comes after the item. So what this raises is
    the walker's verdict, code, message and offset. ``steps`` bounds its work:
    a step a turn of the loop, and a bignum's a step per 4 bytes of magnitude
    besides; past it, ``_OverBudget``."""
    n = len(body)
    room = limits.MAX_DEPTH - depth
    # frames: [items left, is_map, keys seen (for maps), position in pair, item index]
    stack: list[list[Any]] = [] if keys is None else [[1, True, keys, 0, -1]]
    floats = False
    while True:
        steps -= 1
        if steps <= 0:
            raise _OverBudget
        if stack and not stack[-1][1] and stack[-1][0] > 1:
            # Inside an array: a run of one-byte items (small integers, true,
            # false, null) needs no check beyond its JSON width; skip all but the
            # last in C, never so many that the size limit could be crossed.
            frame = stack[-1]
            most = min(frame[0] - 1, (limits.MAX_SELECTED_BYTES - size) // 5)
            run = _ONE_BYTE_ITEMS(body, pos, min(n, pos + most))
            if run is not None:
                size += sum(body[pos : run.end()].translate(_JSON_WIDTH))
                frame[0] -= run.end() - pos
                if items is not None:  # the structured parse records each of them too
                    for at in range(pos, run.end()):
                        items.add(at, at + 1, at + 1, body[at] >> 5, frame[4])
                pos = run.end()
        if pos >= n:
            raise CompactError(E.ENVELOPE, "wire ends inside the CBOR body", n)
        start = pos
        ib = body[pos]
        major, ai = ib >> 5, ib & 31
        pos += 1
        expecting_key = bool(stack) and stack[-1][1] and stack[-1][3] == 0
        if expecting_key and major != 3:
            raise CompactError(E.JSON, "map key is not a text string; JSON keys are strings", start)
        if major == 7:
            if ai == 27:
                if pos + 8 > n:
                    raise CompactError(E.ENVELOPE, "wire ends inside a float", n)
                (x,) = _FLOAT64(body, pos)
                if math.isnan(x) or math.isinf(x):
                    raise CompactError(E.JSON, f"{x} is not a JSON number", start)
                pos += 8
                size += len(repr(x))
                floats = True
                head_end = pos
            elif ai in (25, 26):
                raise CompactError(
                    E.NONCANONICAL, "half or single precision float; floats must be float64 (0xfb)", start
                )
            elif ai in (20, 21, 22):
                size += 5 if ai == 20 else 4  # false, true, null
                head_end = pos
            elif ai == 24 and pos >= n:
                raise CompactError(E.ENVELOPE, "wire ends inside a simple value", n)
            elif ai == 31:
                raise CompactError(E.NONCANONICAL, "stray 'break' byte (0xff) outside an indefinite item", start)
            elif ai in (28, 29, 30):
                raise CompactError(E.NONCANONICAL, f"malformed CBOR head 0x{ib:02x} (reserved)", start)
            else:
                what = "undefined" if ai == 23 else "a simple value"
                raise CompactError(E.JSON, f"{what} is not a JSON value", start)
        else:
            arg, pos = _argument(body, start)
            head_end = pos
            if major == 0:
                size += len(str(arg))
            elif major == 1:
                size += 1 + len(str(arg + 1))
            elif major == 3:
                if arg > n - pos:
                    raise CompactError(E.ENVELOPE, f"wire ends inside a {arg:,}-byte text string", n)
                text = body[pos : pos + arg]
                try:
                    decoded = text.decode("utf-8")
                    # escaped spelling, plus the bytes non-ASCII characters add in UTF-8
                    size += len(_json_string(decoded)) + len(text) - len(decoded)
                except UnicodeDecodeError as exc:
                    raise CompactError(E.JSON, f"text string is not valid UTF-8 ({exc.reason})", pos + exc.start) from None
                pos += arg
                if expecting_key:
                    keys = stack[-1][2]
                    if text in keys:
                        raise CompactError(E.NONCANONICAL, f"duplicate map key {text[:40]!r}", start)
                    keys.add(text)
            elif major == 2:
                raise CompactError(E.JSON, "byte string is not a JSON value", start)
            elif major == 6:
                pos, digits = _check_bignum(body, start, pos, arg)
                size += digits
                steps -= (pos - head_end) >> 2  # the decimal conversion: see _WALK_STEPS
            else:  # 4 array, 5 map
                if len(stack) >= room:
                    raise CompactError(E.LIMIT, f"nesting deeper than {limits.MAX_DEPTH} levels", start)
                # brackets, commas between items, and a colon per member
                size += 2 + max(arg - 1, 0) + (arg if major == 5 else 0)
                if arg:
                    if arg > n - pos:  # each item needs at least a byte
                        raise CompactError(E.ENVELOPE, f"wire ends inside a {arg:,}-item container", n)
                    is_map = major == 5
                    k = -1 if items is None else items.add(start, pos, -1, major, stack[-1][4] if stack else -1)
                    stack.append([arg * 2 if is_map else arg, is_map, set() if is_map else None, 0, k])
                    continue
        if size > limits.MAX_SELECTED_BYTES:
            raise CompactError(
                E.LIMIT,
                f"the document would be over {limits.MAX_SELECTED_BYTES:,} bytes as JSON",
                start,
            )
        if items is not None:
            items.add(start, head_end, pos, major, stack[-1][4] if stack else -1)
        # one item complete: count it against its parents
        while stack:
            frame = stack[-1]
            frame[0] -= 1
            if frame[1]:
                frame[3] ^= 1
            if frame[0]:
                break
            stack.pop()
            if items is not None:
                items.end[frame[4]] = pos
        if not stack:
            return pos, size, floats, steps


#: Items that are one byte each: unsigned 0-23, negative -1 to -24, false, true, null.
_ONE_BYTE_ITEMS = re.compile(rb"[\x00-\x17\x20-\x37\xf4-\xf6]+").match
#: Each such byte's length as canonical JSON (0 for every other byte).
_JSON_WIDTH = bytes(
    len(str(b)) if b <= 0x17 else len(str(-1 - (b - 0x20))) if 0x20 <= b <= 0x37
    else {0xF4: 5, 0xF5: 4, 0xF6: 4}.get(b, 0)
    for b in range(256)
)


def _argument(body: bytes, start: int) -> tuple[int, int]:
    """The argument of the head at ``start`` (major types 0 to 6) and where its
    content begins; a wider head than the argument needs, an indefinite length
    or a reserved value is a departure from the profile."""
    ib = body[start]
    ai = ib & 31
    pos = start + 1
    if ai < 24:
        return ai, pos
    if ai in _WIDTH:
        width = _WIDTH[ai]
        if pos + width > len(body):
            raise CompactError(E.ENVELOPE, "wire ends inside a CBOR head", len(body))
        arg = body[pos] if width == 1 else _UNPACK[width](body, pos)[0]
        if arg < _MINIMUM[ai]:
            raise CompactError(E.NONCANONICAL, f"CBOR head 0x{ib:02x} is wider than its argument {arg} needs", start)
        return arg, pos + width
    if ai == 31:
        raise CompactError(E.NONCANONICAL, "indefinite-length item; only definite lengths are allowed", start)
    raise CompactError(E.NONCANONICAL, f"malformed CBOR head 0x{ib:02x} (reserved)", start)


def _check_bignum(body: bytes, start: int, pos: int, tag: int) -> tuple[int, int]:
    """Check a tag 2/3 bignum; returns where it ends and its length in JSON."""
    if tag not in (2, 3):
        raise CompactError(E.JSON, f"CBOR tag {tag} is not a JSON value", start)
    n = len(body)
    if pos >= n:
        raise CompactError(E.ENVELOPE, "wire ends inside a bignum", n)
    ib = body[pos]
    if ib >> 5 != 2:
        raise CompactError(E.JSON, f"tag {tag} must hold a byte string", pos)
    length, pos = _argument(body, pos)
    if length > n - pos:
        raise CompactError(E.ENVELOPE, "wire ends inside a bignum", n)
    if length > _MAX_BIGNUM_BYTES:
        raise CompactError(E.LIMIT, f"integer has more than {limits.MAX_INTEGER_DIGITS:,} digits", start)
    magnitude = body[pos : pos + length]
    if not magnitude or magnitude[0] == 0:
        raise CompactError(E.NONCANONICAL, "bignum has a leading zero byte", pos)
    value = int.from_bytes(magnitude, "big")
    if value < 2**64:
        raise CompactError(E.NONCANONICAL, "bignum for an integer that fits major type 0 or 1", start)
    if value + (tag == 3) >= _INTEGER_CEILING:
        raise CompactError(E.LIMIT, f"integer has more than {limits.MAX_INTEGER_DIGITS:,} digits", start)
    return pos + length, len(str(value + (tag == 3))) + (tag == 3)
