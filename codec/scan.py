"""The lexical layer: the one place the wire grammar lives.

String literal tokens, ``@N`` and ``~N`` references, canonical decimals and the
length-framed metadata fields are recognised here, with byte offsets, and nowhere
else. The decoders and the inspector's structured parse both call these functions,
so what a tool shows is what a decoder read.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import accumulate, compress, islice, repeat
from operator import not_

from . import errors as E
from . import limits
from .errors import CompactError, excerpt, over_limit

# --- the grammar ----------------------------------------------------------------------
# Each piece is named once and every pattern below is composed from the names, as
# python-hyper/h11's _abnf.py does, so a rule changes in one place. Every
# repetition is possessive (``*+``): a match never backtracks, so the engine keeps
# no frame per character or escape (a 16 MiB string of ``\n`` escapes cost over
# 1 GiB of backtracking stack with plain ``*``).

DIGIT = rb"[0-9]"
#: Inside a string as the body tokenizer reads it: any byte but quote and backslash.
STRING_BYTE = rb'[^"\\]'
#: A backslash and whatever byte follows it (the escape's meaning is JSON's concern).
ESCAPE = rb"\\[\s\S]"
#: The end of a string token: its closing quote, or the end of the input (a string
#: still open at the end of a body runs to the end, a trailing lone backslash included).
STRING_END = rb'(?:"|\\?\Z)'
#: What a string token holds between its quotes, escapes taken whole.
STRING_INSIDE = STRING_BYTE + rb"*+(?:" + ESCAPE + STRING_BYTE + rb"*+)*+"
#: A JSON string token as spelled, from its opening quote to its closing quote
#: (docs/wire-format.md §5.1 rule 2 and §5.2 step 3).
STRING = rb'"' + STRING_INSIDE + STRING_END
#: A string token with its closing quote (the fault walk of docs/wire-format.md §1
#: step 5 reads a whole document, where an unclosed string is a parse error).
CLOSED_STRING = rb'"' + STRING_INSIDE + rb'"'

#: Inside an RFC 8259 string: any byte but quote, backslash and controls.
STRICT_BYTE = rb'[^"\\\x00-\x1f]'
HEX = rb"[0-9A-Fa-f]"
#: The one-character escapes RFC 8259 allows.
SHORT_ESCAPE = rb'\\["\\/bfnrt]'
#: A ``\uXXXX`` escape naming a UTF-16 surrogate (D800-DFFF): alone it is no
#: Unicode text (docs/wire-format.md §1 step 5).
SURROGATE_ESCAPE = rb"\\u[dD][89a-fA-F]" + HEX + rb"{2}"
#: The escapes RFC 8259 allows (docs/wire-format.md §5.2 step 2).
STRICT_ESCAPE = rb"(?:" + SHORT_ESCAPE + rb"|\\u" + HEX + rb"{4})"
#: The same without the surrogate escapes.
NON_SURROGATE_ESCAPE = rb"(?:" + SHORT_ESCAPE + rb"|(?!" + SURROGATE_ESCAPE + rb")\\u" + HEX + rb"{4})"
#: RFC 8259 string token (bytes level; UTF-8 validity is checked separately).
STRICT_STRING = rb'"' + STRICT_BYTE + rb"*+(?:" + STRICT_ESCAPE + STRICT_BYTE + rb"*+)*+" + rb'"'
#: The same with no surrogate escape: a string that is Unicode text, whatever it holds.
TEXT_STRING = rb'"' + STRICT_BYTE + rb"*+(?:" + NON_SURROGATE_ESCAPE + STRICT_BYTE + rb"*+)*+" + rb'"'

#: The reference markers: ``@N`` in a v2 body (§5), ``~k`` in a v1 text body (§6).
V2_MARKER = b"@"
V1_MARKER = b"~"
#: A reference as the tokenizer takes it: its marker and every digit after it;
#: ``reference_index`` then decides whether the digits name an entry.
V2_REFERENCE = V2_MARKER + DIGIT + rb"*+"
V1_REFERENCE = V1_MARKER + DIGIT + rb"*+"
#: A run of v2 body bytes that can start neither a string nor a reference.
V2_RAW = rb'[^"@]++'

#: What stands between the string tokens of a document: structure, numbers, literals.
JSON_OPEN = rb"[\[{]"
JSON_CLOSE = rb"[\]}]"
JSON_STRUCTURE = rb"[\[\]{}:,]"
#: A run that may be a number, as the bytes between strings are cut into tokens.
JSON_NUMBER = rb"-?" + DIGIT + rb"[0-9.eE+-]*+"
#: The number grammar of RFC 8259, piece by piece (docs/wire-format.md §1): an
#: integer (every spelling of one but ``-0`` is canonical), a fraction, an exponent.
JSON_INTEGER = rb"-?(?:0|[1-9]" + DIGIT + rb"*+)"
JSON_FRACTION = rb"\." + DIGIT + rb"++"
JSON_EXPONENT = rb"[eE][+-]?" + DIGIT + rb"++"
#: An integer of at most 4,300 digits (docs/wire-format.md §9).
LIMITED_INTEGER = rb"-?(?:0|[1-9]" + DIGIT + rb"{0,%d})" % (limits.MAX_INTEGER_DIGITS - 1)
#: After a number token: nothing that would continue it.
NUMBER_END = rb"(?![0-9.eE])"
#: Before a number token: nothing that a number (or a word) could end with.
NUMBER_START = rb"(?<![0-9A-Za-z.+-])"
JSON_LITERAL = rb"(?:true|false|null)"
#: Python's json module reads these; JSON has no such numbers (docs/wire-format.md §1).
NON_JSON_CONSTANT = rb"(?:NaN|-?Infinity)"
#: What a canonical string holds between its quotes (docs/wire-format.md §1):
#: ``\"``, ``\\`` and the five short control escapes, ``\u00xx`` in lowercase
#: hex for every other control, and every other byte raw (UTF-8 validity is
#: checked separately).
CANONICAL_STRING_BYTE = rb'[^"\\\x00-\x1f]'
CANONICAL_ESCAPE = rb'\\(?:["\\bfnrt]|u00(?:0[0-7bef]|1[0-9a-f]))'
CANONICAL_STRING = rb'"' + CANONICAL_STRING_BYTE + rb"*+(?:" + CANONICAL_ESCAPE + CANONICAL_STRING_BYTE + rb'*+)*+"'
#: A canonical integer: at most 4,300 digits, no ``-0`` (docs/wire-format.md §1, §9).
CANONICAL_INTEGER = rb"(?:0|-?[1-9]" + DIGIT + rb"{0,%d}+)" % (limits.MAX_INTEGER_DIGITS - 1)
#: A canonical string, integer or literal, taken whole.
CANONICAL_SCALAR = rb"(?>" + CANONICAL_STRING + rb"|" + CANONICAL_INTEGER + rb"|" + JSON_LITERAL + rb")"
#: An object whose values are all scalars ("flat"), every token canonical.
FLAT_OBJECT = (
    rb"\{(?:" + CANONICAL_STRING + rb":" + CANONICAL_SCALAR
    + rb"(?:," + CANONICAL_STRING + rb":" + CANONICAL_SCALAR + rb")*+)?\}"
)
#: A byte that may start a JSON value in a document of arrays, flat objects and scalars.
_ARRAY_VALUE_START = rb'[\[{"\-0-9tfn]'
#: A document of arrays, flat objects and scalars as a flat run of canonical
#: tokens (a flat object is one), each followed only by what may follow it in
#: such a document: ``[`` by a value or ``]``, ``,`` by a value, a scalar, a
#: flat object or ``]`` by ``,``, ``]`` or the end. With brackets that balance
#: and a first ``[`` closed by the last byte (checked from the bracket depths),
#: a full match is a canonical JSON array unless an object repeats a key
#: (docs/wire-format.md §1).
CANONICAL_ARRAY_TOKENS = (
    rb"(?:\[++(?=[\]" + _ARRAY_VALUE_START[1:] + rb")"
    + rb"|,(?=" + _ARRAY_VALUE_START + rb")"
    + rb"|\]++(?=,|\Z)"
    + rb"|(?>" + CANONICAL_SCALAR + rb"|" + FLAT_OBJECT + rb")(?=[,\]]|\Z)"
    + rb")*+"
)
#: A key as a canonical document spells it: a canonical string and its colon.
CANONICAL_KEY = CANONICAL_STRING + rb":"
#: ``CANONICAL_ARRAY_TOKENS`` for documents whose objects may hold containers
#: (issue 23): ``{`` or ``,`` with a key (``{"a":``, ``,"b":``) is one token,
#: followed by a value, and ``]`` and ``}`` close in runs, followed by ``,``,
#: ``]``, ``}`` or the end. A full match is a run of canonical tokens, each
#: followed only by what may follow it in some JSON document, and a colon
#: stands only after a key that stands after ``{`` or ``,``; whether brackets
#: and braces match, whether each comma and key stands in a container of its
#: kind (a key in an object, a bare comma in an array) and whether an object
#: repeats a key is the caller's walk over the structure (docs/wire-format.md §1).
CANONICAL_TOKENS = (
    rb"(?:\[++(?=[\]" + _ARRAY_VALUE_START[1:] + rb")"
    + rb"|(?>" + CANONICAL_SCALAR + rb"|" + FLAT_OBJECT + rb")(?=[,\]}]|\Z)"
    + rb"|[{,]" + CANONICAL_KEY + rb"(?=" + _ARRAY_VALUE_START + rb")"
    + rb"|,(?=" + _ARRAY_VALUE_START + rb")"
    + rb"|[\]}]++(?=[,\]}]|\Z)"
    + rb")*+"
)
#: The four whitespace bytes JSON allows between tokens.
SPACE_BYTES = rb" \t\r\n"
JSON_SPACE = rb"[" + SPACE_BYTES + rb"]++"

# The same documents spelled any way JSON allows (issue 23): a departure from
# the canonical spelling is read where it stands, and a document of these tokens
# parses, so its verdict is found without its value (docs/wire-format.md §1).
#: Whitespace, possibly none, between tokens.
SPACING = rb"[" + SPACE_BYTES + rb"]*+"
#: A number as RFC 8259 spells it: every spelling ``json.loads`` reads as one.
RFC_NUMBER = JSON_INTEGER + rb"(?:" + JSON_FRACTION + rb")?+(?:" + JSON_EXPONENT + rb")?+"
#: A string, number or literal as RFC 8259 spells it, taken whole.
RFC_SCALAR = rb"(?>" + STRICT_STRING + rb"|" + RFC_NUMBER + rb"|" + JSON_LITERAL + rb")"
_RFC_PAIR = STRICT_STRING + SPACING + rb":" + SPACING + RFC_SCALAR + SPACING
#: An object whose values are all scalars, spelled any way RFC 8259 allows.
RFC_FLAT_OBJECT = rb"\{" + SPACING + rb"(?:" + _RFC_PAIR + rb"(?:," + SPACING + _RFC_PAIR + rb")*+)?\}"
#: ``CANONICAL_ARRAY_TOKENS`` with every RFC 8259 spelling of a token and
#: whitespace between tokens. A scalar or an object is followed by ``,`` or
#: ``]``, never by the end (the document is an array), and ``]`` by ``,``,
#: ``]`` or the end. A full match whose first ``[`` is closed by its last
#: bracket is a JSON array that ``json.loads`` reads (the tokens of an array of
#: arrays, flat objects and scalars, each followed only by what may follow it);
#: a match that stops short stops at or before the parser's first syntax error.
def _rfc_array_tokens(scalar: bytes, value_start: bytes) -> bytes:
    return (
        rb"(?:" + SPACING + rb"(?:\[++(?:" + JSON_SPACE + rb"\[++)*+(?=" + SPACING + rb"[\]" + value_start[1:] + rb")"
        + rb"|,(?=" + SPACING + value_start + rb")"
        + rb"|\]++(?:" + JSON_SPACE + rb"\]++)*+(?=" + SPACING + rb"(?:,|\Z))"
        + rb"|(?>" + scalar + rb"|" + RFC_FLAT_OBJECT + rb")(?=" + SPACING + rb"[,\]])"
        + rb"))*+" + SPACING
    )


RFC_ARRAY_TOKENS = _rfc_array_tokens(RFC_SCALAR, _ARRAY_VALUE_START)
#: ``RFC_ARRAY_TOKENS`` where an array's item may also be ``NaN``,
#: ``Infinity`` or ``-Infinity`` (not an object's value), which ``json.loads``
#: reads as a token and the codec rejects (docs/wire-format.md §1). The parser
#: raises at the first of them it meets: a document whose first ``[`` is closed
#: by its last bracket, or whose tokens stop after one of them, is rejected at
#: the first fault ``_json_fault`` places, never at a syntax error (issue 23).
RFC_ARRAY_TOKENS_WITH_CONSTANTS = _rfc_array_tokens(
    rb"(?>" + RFC_SCALAR + rb"|" + NON_JSON_CONSTANT + rb")", _ARRAY_VALUE_START[:-1] + rb"NI]"
)

#: ``RFC_ARRAY_TOKENS`` for documents whose objects may hold containers, as
#: ``CANONICAL_TOKENS`` is for canonical ones: ``{`` or ``,`` with a key and its
#: colon is one token (whitespace anywhere between), followed by a value;
#: closers of both kinds run together, followed by ``,`` or the end; a scalar or
#: a flat object is followed by ``,``, ``]`` or ``}`` (never the end: the
#: document is a container). A full match whose structure is one value (the
#: caller's walk) is a document ``json.loads`` reads; a match that stops short
#: stops at or before the parser's first syntax error.
def _rfc_tokens(scalar: bytes, value_start: bytes) -> bytes:
    return (
        rb"(?:" + SPACING + rb"(?:\[++(?:" + JSON_SPACE + rb"\[++)*+(?=" + SPACING + rb"[\]" + value_start[1:] + rb")"
        + rb"|(?>" + scalar + rb"|" + RFC_FLAT_OBJECT + rb")(?=" + SPACING + rb"[,\]}])"
        + rb"|[{,]" + SPACING + STRICT_STRING + SPACING + rb":(?=" + SPACING + value_start + rb")"
        + rb"|,(?=" + SPACING + value_start + rb")"
        + rb"|[\]}]++(?:" + JSON_SPACE + rb"[\]}]++)*+(?=" + SPACING + rb"(?:,|\Z))"
        + rb"))*+" + SPACING
    )


RFC_TOKENS = _rfc_tokens(RFC_SCALAR, _ARRAY_VALUE_START)
#: ``RFC_TOKENS`` where a value may also be ``NaN``, ``Infinity`` or
#: ``-Infinity`` (see ``RFC_ARRAY_TOKENS_WITH_CONSTANTS``).
RFC_TOKENS_WITH_CONSTANTS = _rfc_tokens(
    rb"(?>" + RFC_SCALAR + rb"|" + NON_JSON_CONSTANT + rb")", _ARRAY_VALUE_START[:-1] + rb"NI]"
)

_SPLIT_STRINGS = re.compile(b"(" + STRING + b")").split
#: One pass over a body: each string token or reference is one token.
_SPLIT_BODY = {
    V2_MARKER: re.compile(b"(" + STRING + b"|" + V2_REFERENCE + b")").split,
    V1_MARKER: re.compile(b"(" + STRING + b"|" + V1_REFERENCE + b")").split,
}
_SPLIT_REFERENCES = {
    V2_MARKER: re.compile(b"(" + V2_REFERENCE + b")").split,
    V1_MARKER: re.compile(b"(" + V1_REFERENCE + b")").split,
}
_FIND_V2_REFERENCES = re.compile(V2_REFERENCE).findall
_STRING_TOKEN = re.compile(STRING).match
_STRICT_STRING = re.compile(STRICT_STRING).fullmatch
#: A run of dictionary lines, each one strict string literal and LF.
_STRICT_LINES = re.compile(b"(?:" + STRICT_STRING + b"\n)*+").match
_DIGITS = re.compile(DIGIT + rb"*+")
_CANONICAL_ARRAY_PATTERN = re.compile(CANONICAL_ARRAY_TOKENS)
_CANONICAL_ARRAY_TOKENS = _CANONICAL_ARRAY_PATTERN.fullmatch
_FLAT_OBJECT = re.compile(FLAT_OBJECT).fullmatch
#: In a document of canonical tokens: strings and other bytes skipped whole, up
#: to the next flat object, which is the group.
_NEXT_FLAT_OBJECT = re.compile(b"(?:" + CANONICAL_STRING + rb'|[^"{]++)*+(' + FLAT_OBJECT + b")").match
#: In a flat object: each key (a string a colon follows) as the group; values
#: and the rest taken whole, as empty groups.
#: In a flat object, after its ``{``: each pair, its key as the group.
_FLAT_OBJECT_KEYS = re.compile(b"(" + CANONICAL_STRING + b"):" + CANONICAL_SCALAR + b",?+").findall
#: In a flat object, after its ``{``: a value (a string no colon follows, or any
#: other scalar) or a comma, taken whole.
_NOT_A_KEY = CANONICAL_STRING + rb"(?!:)|[^\"]++"
_CANONICAL_RUN = _CANONICAL_ARRAY_PATTERN.match
_CANONICAL_TOKENS = re.compile(CANONICAL_TOKENS).fullmatch
_CANONICAL_TOKENS_RUN = re.compile(CANONICAL_TOKENS).match
_RFC_TOKENS = re.compile(RFC_TOKENS).match
_RFC_TOKENS_WITH_CONSTANTS = re.compile(RFC_TOKENS_WITH_CONSTANTS).match
#: In a document of ``RFC_TOKENS``: strings that are no key and other bytes
#: skipped whole, up to the next key (a string a colon follows), which is the
#: group (``\Z``: none is left, the group is empty).
_RFC_KEY = re.compile(
    b"(?:" + STRICT_STRING + rb"(?!" + SPACING + rb':)|[^"]++)*+(?:(' + STRICT_STRING + rb")" + SPACING + rb":|\Z)"
)
#: In a document of ``CANONICAL_TOKENS``: flat objects, strings that are no key
#: and other bytes skipped whole, up to the next key that stands in an object
#: holding a container, which is the group (``\Z``: none is left, the group is
#: empty).
_DEEP_KEY = re.compile(
    b"(?:" + FLAT_OBJECT + b"|" + CANONICAL_STRING + rb'(?!:)|[^"{]++|\{)*+(?:(' + CANONICAL_STRING + rb"):|\Z)"
)
#: In a document of ``CANONICAL_TOKENS``: strings, other bytes and the ``{`` of
#: objects that hold a container skipped whole, up to the next flat object,
#: which is the group.
_NEXT_FLAT_AMONG = re.compile(
    b"(?:" + CANONICAL_STRING + rb'|[^"{]++|(?!' + FLAT_OBJECT + rb")\{)*+(" + FLAT_OBJECT + b")"
).match
_RFC_ARRAY_TOKENS = re.compile(RFC_ARRAY_TOKENS).match
_RFC_ARRAY_TOKENS_WITH_CONSTANTS = re.compile(RFC_ARRAY_TOKENS_WITH_CONSTANTS).match
#: In a document of ``RFC_ARRAY_TOKENS``: strings and other bytes skipped whole,
#: up to the next flat object, which is the group.
_NEXT_RFC_OBJECT = re.compile(b"(?:" + STRICT_STRING + rb'|[^"{]++)*+(' + RFC_FLAT_OBJECT + b")").match
#: One token of JSON as RFC 8259 spells it, named by its group.
_RFC_TOKEN = re.compile(
    b"(?P<space>" + JSON_SPACE + b")|(?P<mark>" + JSON_STRUCTURE + b")|(?P<word>" + JSON_LITERAL
    + b")|(?P<text>" + STRICT_STRING + b")|(?P<number>" + RFC_NUMBER + b")"
).match
_SKELETON_TOKEN = re.compile(b"|".join([JSON_STRUCTURE, JSON_NUMBER, JSON_LITERAL, JSON_SPACE])).match


@dataclass(frozen=True)
class Span:
    """A half-open byte range ``[start, end)`` of the input."""

    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start


#: Parts joined at a time by ``join_parts``.
_JOIN_BATCH = 1 << 16


def join_parts(parts: list[bytes], separator: bytes = b"") -> bytes:
    """``separator.join(parts)`` in bounded extra memory.

    ``bytes.join`` holds an 80-byte buffer view per part while it copies, so
    joining the 4.8 million pieces of a 16 MiB body of tiny tokens costs 380 MiB
    on top of the result; joining in batches of 65,536 costs 5 MiB and one more
    copy of the result."""
    if len(parts) <= _JOIN_BATCH:
        return separator.join(parts)
    batches = [separator.join(parts[i : i + _JOIN_BATCH]) for i in range(0, len(parts), _JOIN_BATCH)]
    return separator.join(batches)


def split_strings(data: bytes) -> list[bytes]:
    """``[outside, string, outside, string, ..., outside]``: every string token at
    an odd index, exactly as spelled; joining the list gives ``data`` back."""
    return _SPLIT_STRINGS(data)


def split_body(body: bytes, marker: bytes) -> list[bytes]:
    """Tokenize a reference-bearing body in one pass.

    Returns ``[raw, token, raw, token, ..., raw]``: each token is either a string
    literal, copied as it is (it starts with ``"``), or a reference outside any
    string (it starts with ``marker``, followed by its digits, possibly none).
    Joining the list gives ``body`` back."""
    return _SPLIT_BODY[marker](body)


_FIND_V1_TOKENS = re.compile(b"(?:" + STRING + b"|" + V1_REFERENCE + b")").finditer


def iter_v1_body(body: bytes) -> Iterator[bytes]:
    """The items of ``split_body(body, b"~")`` one at a time, so a reader that
    fails at the first bad ``~k`` of a 16 MiB flood has split nothing after it."""
    pos = 0
    for m in _FIND_V1_TOKENS(body):
        yield body[pos : m.start()]
        yield m.group()
        pos = m.end()
    yield body[pos:]


def quote_split(data: bytes) -> list[bytes] | None:
    """The string tokenization as ``data.split(b'"')`` gives it: ``[outside,
    content, outside, ..., outside]`` with each string's content (quotes removed)
    at odd indices, equal to ``split_strings`` with the quotes stripped. None when
    a string is unterminated; use ``split_strings`` then. Several times faster
    than the regular expression on 16 MiB.

    A quote preceded by an odd run of backslashes inside a string is escaped:
    the parts on either side of it are joined again, found from the runs of
    backslashes before quotes alone, so a document with a few ``\\"`` costs
    about what one without does. None also when there are more than
    ``_MAX_ESCAPED_QUOTES`` of them."""
    escapes = data.count(b'\\"')
    if not escapes:
        parts = data.split(b'"')
    elif escapes > _MAX_ESCAPED_QUOTES:
        return None  # escape-heavy: the regular expression is linear there, a loop would not be
    else:
        parts = _join_at(data.split(b'"'), _escaped_quotes(data))
    return parts if len(parts) % 2 else None


#: Past this many backslash-quote pairs, ``quote_split`` leaves the work to the
#: regular expression, whose cost does not grow with the number of escapes.
_MAX_ESCAPED_QUOTES = 4096


def _escaped_quotes(data: bytes) -> list[int]:
    """The numbers (0-based, among all quotes of ``data``) of the quotes that a
    string's backslash escapes: inside a string (an odd number of unescaped
    quotes before it) and after an odd run of backslashes. Found with
    ``bytes.find``, one step per backslash-quote pair."""
    escaped = []
    quotes = 0  # quotes before the current one
    unescaped = 0  # of those, the ones that open or close a string
    prev = 0
    at = data.find(b'\\"')
    while at >= 0:
        quote = at + 1
        run_start = at
        while run_start > prev and data[run_start - 1] == 0x5C:
            run_start -= 1
        between = data.count(b'"', prev, quote)  # none of them follows a backslash
        quotes += between
        unescaped += between
        if unescaped % 2 and (quote - run_start) % 2:
            escaped.append(quotes)
        else:
            unescaped += 1
        quotes += 1
        prev = quote + 1
        at = data.find(b'\\"', prev)
    return escaped


#: Up to this many escaped quotes, ``_join_at`` joins parts in place (one move of
#: the list's tail each) instead of copying the whole list once.
_JOIN_IN_PLACE = 8


def _join_at(parts: list[bytes], escaped: list[int]) -> list[bytes]:
    """``parts`` with parts ``q`` and ``q + 1`` joined by a quote for each ``q`` in
    ``escaped`` (ascending); consecutive ones chain into one part."""
    if len(escaped) <= _JOIN_IN_PLACE:
        for q in reversed(escaped):  # from the end, so earlier indices stay put
            parts[q : q + 2] = [parts[q] + b'"' + parts[q + 1]]
        return parts
    out: list[bytes] = []
    last = 0
    k = 0
    while k < len(escaped):
        q = escaped[k]
        out.extend(parts[last:q])
        end = q + 1
        k += 1
        while k < len(escaped) and escaped[k] == end:
            end += 1
            k += 1
        out.append(b'"'.join(parts[q : end + 1]))
        last = end + 1
    out.extend(parts[last:])
    return out


def split_references(data: bytes, marker: bytes = V2_MARKER) -> list[bytes]:
    """``[raw, reference, raw, ...]`` splitting at every ``marker`` run; equal to
    ``split_body`` with the strings left in the raw parts, and so usable only on
    bytes that hold no string with ``marker`` in it, such as the parts outside the
    strings (fewer, larger parts make the expansion several times cheaper)."""
    return _SPLIT_REFERENCES[marker](data)


def is_reference(token: bytes) -> bool:
    """A token of ``split_body`` that is a reference rather than a string."""
    return token[0] != 0x22


def is_string_literal(token: bytes) -> bool:
    """Exactly one RFC 8259 string token, valid UTF-8 included."""
    if _STRICT_STRING(token) is None:
        return False
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def string_lines(data: bytes, pos: int, count: int) -> list[bytes] | None:
    """The fast path for a v2 dictionary: ``count`` lines from ``pos``, each
    exactly one valid string literal and LF, read in bulk; None if any line is
    not (the caller then reads them one by one to say which and where)."""
    lines_match = _STRICT_LINES(data, pos)
    assert lines_match is not None  # a `*+` pattern matches everywhere, if only empty
    end = lines_match.end()
    lines = data[pos:end].split(b"\n", count)
    if len(lines) <= count:
        return None
    region_end = end - len(lines[count])
    try:
        data[pos:region_end].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return lines[:count]


def digit_run(data: bytes, pos: int) -> bytes:
    """The digits of ``data`` from ``pos`` on (possibly none)."""
    m = _DIGITS.match(data, pos)
    assert m is not None  # `*+`: matches everywhere
    return m.group()


def find_references(data: bytes) -> list[bytes]:
    """Every ``@`` run of ``data`` (the tokens ``split_references`` splits at)."""
    return _FIND_V2_REFERENCES(data)


@functools.lru_cache(maxsize=4)
def _standalone_integers(shortest: int) -> re.Pattern[bytes]:
    # The digits alone are replaced (a literal replacement stays in C): after a
    # number start, or after a minus sign that stands at one.
    return re.compile(
        rb"(?:" + NUMBER_START + rb"|(?<=" + NUMBER_START + rb"-))"
        + rb"[1-9]" + DIGIT + rb"{%d,%d}+" % (shortest - 1, limits.MAX_INTEGER_DIGITS - 1) + NUMBER_END
    )


def stand_in_integers(outside: bytes, shortest: int) -> tuple[bytes, int]:
    """``outside`` (bytes between strings, each string replaced by one byte that no
    number holds, such as NUL) with every integer token of ``shortest`` to 4,300
    digits written ``1`` (``-1`` when negative), and how many were.

    A token is taken only where nothing before it could end a number or a word and
    nothing after it could continue one, so in a document that parses the
    stand-in is again one whole integer token, and in one that does not, it mends
    nothing. Every spelling of an integer but ``-0`` is canonical
    (docs/wire-format.md §1), so the document is canonical JSON exactly when the
    one with stand-ins is, and that can be checked without converting a
    4,300-digit number to an int and back. Possessive: a run longer than 4,300
    digits fails in one step."""
    return _standalone_integers(shortest).subn(b"1", outside)


def canonical_array_tokens(document: bytes) -> bool:
    """Whether ``document`` is a flat run of ``CANONICAL_ARRAY_TOKENS`` (one pass
    in C, no backtracking); whether its brackets balance and its objects' keys
    are distinct is the caller's check."""
    return _CANONICAL_ARRAY_TOKENS(document) is not None


def canonical_tokens(document: bytes) -> bool:
    """Whether ``document`` is a flat run of ``CANONICAL_TOKENS`` (one pass in
    C, no backtracking); its structure and its objects' keys are the caller's
    check."""
    return _CANONICAL_TOKENS(document) is not None


def deep_keys(document: bytes) -> list[bytes]:
    """The keys, as spelled (quotes included), of the objects that hold a
    container in a document of ``CANONICAL_TOKENS``, in document order (flat
    objects are skipped whole): one ``findall`` in C."""
    keys = _DEEP_KEY.findall(document)
    while keys and not keys[-1]:  # the end of the document (a key is never empty: its quotes)
        keys.pop()
    return keys


def deep_key_offset(document: bytes, index: int) -> int:
    """Where key ``index`` (from 0) of ``deep_keys(document)`` starts."""
    found = next(islice(_DEEP_KEY.finditer(document), index, None))
    return found.start(1)


def flat_objects_among(document: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """``flat_objects`` for a document of ``CANONICAL_TOKENS``: each flat
    object, where it starts and its keys as spelled, in order; the objects
    that hold a container are stepped into, not taken."""
    pos = 0
    while (m := _NEXT_FLAT_AMONG(document, pos)) is not None:
        start, pos = m.span(1)
        yield start, _FLAT_OBJECT_KEYS(document, start + 1, pos - 1)


def canonical_tokens_run_end(document: bytes, pos: int) -> int:
    """``canonical_run_end`` with ``CANONICAL_TOKENS``: where the run of
    canonical tokens (keys and objects that hold containers included) that
    starts at ``pos`` ends."""
    m = _CANONICAL_TOKENS_RUN(document, pos)
    assert m is not None  # a `*+` pattern matches everywhere, if only empty
    return m.end()


def rfc_tokens_end(document: bytes, *, constants: bool = False) -> int:
    """``rfc_array_tokens_end`` with ``RFC_TOKENS`` (``constants``:
    ``RFC_TOKENS_WITH_CONSTANTS``)."""
    m = (_RFC_TOKENS_WITH_CONSTANTS if constants else _RFC_TOKENS)(document)
    assert m is not None  # a `*+` pattern matches everywhere, if only empty
    return m.end()


def rfc_keys(document: bytes, stop: int) -> list[bytes]:
    """The keys (as spelled, quotes included) of a document of ``RFC_TOKENS``
    before ``stop`` (not inside a token), in order: one ``findall`` in C."""
    keys = _RFC_KEY.findall(document, 0, stop)
    while keys and not keys[-1]:  # the end (a key is never empty: its quotes)
        keys.pop()
    return keys


def rfc_key_offset(document: bytes, index: int) -> int:
    """Where key ``index`` (from 0) of ``rfc_keys(document, ...)`` starts."""
    found = next(islice(_RFC_KEY.finditer(document), index, None))
    return found.start(1)


def canonical_run_end(document: bytes, pos: int) -> int:
    """Where the run of ``CANONICAL_ARRAY_TOKENS`` that starts at ``pos`` ends:
    the first token from there that is not canonical or is followed by what may
    not follow it (the run may be empty)."""
    m = _CANONICAL_RUN(document, pos)
    assert m is not None  # a `*+` pattern matches everywhere, if only empty
    return m.end()


def rfc_array_tokens_end(document: bytes, *, constants: bool = False) -> int:
    """Where the run of ``RFC_ARRAY_TOKENS`` (``constants``:
    ``RFC_ARRAY_TOKENS_WITH_CONSTANTS``) from the start of ``document`` ends
    (its length when the whole document is one); one pass in C."""
    m = (_RFC_ARRAY_TOKENS_WITH_CONSTANTS if constants else _RFC_ARRAY_TOKENS)(document)
    assert m is not None  # a `*+` pattern matches everywhere, if only empty
    return m.end()


def rfc_flat_objects(document: bytes, stop: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each ``RFC_FLAT_OBJECT`` of a document of
    ``RFC_ARRAY_TOKENS`` that starts before ``stop``, in order; strings are
    skipped whole, so no ``{`` inside one is taken for an object."""
    pos = 0
    while (m := _NEXT_RFC_OBJECT(document, pos)) is not None and m.start(1) < stop:
        yield m.span(1)
        pos = m.end()


def rfc_token(document: bytes, pos: int) -> tuple[str, int] | None:
    """The kind (``space``, ``mark``, ``word``, ``text`` or ``number``) and end
    of the RFC 8259 token at ``pos``, or None when none starts there."""
    m = _RFC_TOKEN(document, pos)
    if m is None or m.lastgroup is None:
        return None
    return m.lastgroup, m.end()


def canonical_flat_object(document: bytes) -> bool:
    """Whether ``document`` is one ``FLAT_OBJECT``; whether its keys are distinct
    is the caller's check."""
    return _FLAT_OBJECT(document) is not None


def flat_objects(document: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """Each flat object of a document that is a run of ``CANONICAL_ARRAY_TOKENS``
    or one ``FLAT_OBJECT``, in order: where it starts and its keys as spelled,
    quotes included (a canonical string has one spelling, so equal keys are
    equal bytes). Strings are skipped whole, so no ``{`` inside one is taken
    for an object."""
    if document.startswith(b"{"):  # the document is the object
        yield 0, _FLAT_OBJECT_KEYS(document, 1, len(document) - 1)
        return
    pos = 0
    while True:
        m = _NEXT_FLAT_OBJECT(document, pos)
        if m is None:
            return
        start, pos = m.span(1)
        yield start, _FLAT_OBJECT_KEYS(document, start + 1, pos - 1)


def key_offset(document: bytes, start: int, index: int) -> int:
    """Where key ``index`` (from 0) of the flat object at ``start`` starts: one
    counted, possessive pass over the keys before it."""
    before = re.compile(
        b"(?:" + _NOT_A_KEY + b")*+(?:" + CANONICAL_STRING + b":(?:" + _NOT_A_KEY + b")*+){%d}+" % index
    ).match(document, start + 1)
    assert before is not None  # the object is a FLAT_OBJECT with more keys than ``index``
    return before.end()


_STRICT_STRING_AT = re.compile(STRICT_STRING).match


def strict_string_end(document: bytes, pos: int) -> int:
    """Where the RFC 8259 string token at ``pos`` (one is there) ends."""
    m = _STRICT_STRING_AT(document, pos)
    assert m is not None  # the caller found a string token there
    return m.end()


def string_end(document: bytes, pos: int) -> int | None:
    """Where the string token (as ``STRING`` reads it: to its closing quote,
    or to the end) that starts at ``pos`` ends; None when none starts there."""
    m = _STRING_TOKEN(document, pos)
    return None if m is None else m.end()


def string_token_end(data: bytes) -> int | None:
    """Where the string token at the start of ``data`` ends, or None when
    ``data`` does not start with one."""
    m = _STRING_TOKEN(data)
    return None if m is None else m.end()


def skeleton_token_end(data: bytes, pos: int) -> int | None:
    """Where the token of JSON structure, number, literal or space at ``pos`` of
    the bytes between strings ends, or None when none starts there."""
    m = _SKELETON_TOKEN(data, pos)
    return None if m is None else m.end()


_WORDS = {5: "five"}
#: How each marker's references are named in messages: the kind of reference, what
#: must follow the marker, and what the index counts.
_REFERENCE_WORDS = {
    V2_MARKER: ("reference", "a dictionary index", "the dictionary has {n:,} entr{ies}"),
    V1_MARKER: ("back-reference", "a table index", "the table has {n:,} literal{s} here"),
}


def reference_index(token: bytes, size: int, at: int, *, max_digits: int | None = None) -> int:
    """The one index check (docs/wire-format.md §5.2 step 3 and §6): the index a
    reference token (its marker and digits, as ``split_body`` gives it) names,
    when its digits are present, at most ``max_digits`` (v2 has five; v1 has no
    cap), with no leading zero, and below ``size`` (the entries the dictionary or
    the table has at this point). Otherwise compact.reference at ``at``. Never
    converts more digits than ``size`` has, so a hostile run costs nothing."""
    marker, digits = token[:1], token[1:]
    kind, follows, has = _REFERENCE_WORDS[marker]
    sign = marker.decode()
    if not digits:
        raise CompactError(E.REFERENCE, f"'{sign}' outside a string must be followed by {follows}", at)
    if max_digits is not None and len(digits) > max_digits:
        raise CompactError(
            E.REFERENCE, f"{kind} '{sign}{digits[:8].decode()}…' has more than {_WORDS.get(max_digits, max_digits)} digits",
            at,
        )
    if digits[0] == 0x30 and len(digits) > 1:
        raise CompactError(E.REFERENCE, f"{kind} '{sign}{excerpt(digits, 0, 12)[1:-1]}' has a leading zero", at)
    if len(digits) > len(str(size)) or int(digits) >= size:
        raise CompactError(
            E.REFERENCE,
            f"{kind} '{sign}{excerpt(digits, 0, 12)[1:-1]}' is out of range: {has.format(n=size, ies='y' if size == 1 else 'ies', s='' if size == 1 else 's')}",
            at,
        )
    return int(digits)


def index_below(n: int) -> bytes:
    """A pattern for the canonical decimals 0 to ``n - 1`` (one that matches
    nothing when ``n`` is 0): the range check of a reference index, written so
    the regular expression engine can apply it without leaving C."""
    if n <= 0:
        return b"(?!)"
    top = str(n - 1)
    digit = DIGIT.decode()
    choices = ["0"] + [("[1-9]" + digit * (width - 1)) for width in range(1, len(top))]
    if len(top) > 1 or top != "0":
        for i, digit in enumerate(top):
            low = 1 if i == 0 else 0
            if int(digit) > low:
                choices.append(f"{top[:i]}[{low}-{int(digit) - 1}]" + DIGIT.decode() * (len(top) - i - 1))
        choices.append(top)
    return ("(?:" + "|".join(dict.fromkeys(choices)) + ")").encode()


@functools.lru_cache(maxsize=8)
def _v2_valid_run(n: int) -> Callable[[bytes], re.Match[bytes] | None]:
    return re.compile(
        b"(?:" + V2_RAW + b"|" + STRING + b"|" + V2_MARKER + index_below(n) + b"(?!" + DIGIT + b"))*+"
    ).match


def first_bad_reference(body: bytes, entries: int) -> int | None:
    """Offset in ``body`` of the first ``@`` reference outside every string that
    is not a canonical index below ``entries``, or None.

    One pass of the regular expression engine, allocating nothing per token: a
    16 MiB flood of bad references is found at its first one instead of after
    counting and splitting the whole body. Possessive repetition throughout, so
    no backtracking frame is kept."""
    run = _v2_valid_run(entries)(body)
    assert run is not None  # a `*+` pattern matches everywhere, if only empty
    end = run.end()
    return None if end == len(body) else end


_NEXT_V2_REFERENCE = re.compile(b"(?:" + V2_RAW + b"|" + STRING + b")*+(" + V2_REFERENCE + b")").match


def v2_references(body: bytes, stop: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, token)`` of each ``@`` reference outside strings in
    ``body[:stop]``, in order, found lazily (``stop`` must not fall inside a
    string token)."""
    pos = 0
    while (m := _NEXT_V2_REFERENCE(body, pos, stop)) is not None:
        pos = m.end()
        yield m.start(1), m.group(1)



def expect(wire: bytes, pos: int, literal: bytes, what: str) -> int:
    """Require ``literal`` at ``pos``; a mismatch names the first wrong byte."""
    end = pos + len(literal)
    if wire[pos:end] == literal:
        return end
    at = pos
    while at < end and at < len(wire) and wire[at] == literal[at - pos]:
        at += 1
    if at >= len(wire):
        raise CompactError(E.ENVELOPE, f"wire ends inside {what}; expected {excerpt(literal, 0, 48)}", len(wire))
    raise CompactError(
        E.ENVELOPE,
        f"expected {what} {excerpt(literal, 0, 48)}, found {excerpt(wire[pos:pos + len(literal)], 0, 48)}",
        at,
    )


def read_decimal(
    wire: bytes, pos: int, *, max_digits: int, maximum: int, what: str
) -> tuple[int, int]:
    """Read a canonical unsigned decimal, looking at no more than one digit past
    ``max_digits``, so a hostile length never costs more than its limit.

    Returns (value, end). A leading zero is compact.envelope; too many digits or a
    value over ``maximum`` is compact.limit."""
    m = _DIGITS.match(wire, pos, pos + max_digits + 1)
    assert m is not None  # `*+`: matches everywhere
    digits = m.group()
    if not digits:
        if pos >= len(wire):
            raise CompactError(E.ENVELOPE, f"wire ends before {what}", pos)
        raise CompactError(E.ENVELOPE, f"expected {what} as decimal digits, found {excerpt(wire[pos:pos + 8], 0, 48)}", pos)
    if digits[0] == 0x30 and len(digits) > 1:
        raise CompactError(E.ENVELOPE, f"{what} has a leading zero ({excerpt(digits, 0, 48)})", pos)
    if len(digits) > max_digits:
        raise over_limit(f"{what} has more than {max_digits} digits", maximum, pos + max_digits)
    value = int(digits)
    if value > maximum:
        raise over_limit(f"{what} is {value:,}", maximum, pos)
    return value, m.end()


# --- metadata framing (docs/wire-format.md §3), shared by v1 text and v2 model-text

FIELD_NAMES: tuple[str, ...] = ("profile", "root", "source_revision", "source_digest")


@dataclass(frozen=True)
class Field:
    """One framed metadata field: where its line, length and value are."""

    name: str
    line: Span
    length: Span
    value: Span
    raw: bytes


def read_field(wire: bytes, pos: int, name: str) -> Field:
    """``<name> SP <byte_length> SP <value> LF`` at ``pos``."""
    label = name.encode()
    try:
        at = expect(wire, pos, label + b" ", "field name")
    except CompactError:
        found = _field_name_at(wire, pos)
        if found is not None and found != name:
            raise CompactError(
                E.ENVELOPE, f"metadata fields out of order: expected {name}, found {found}", pos
            ) from None
        raise
    length, at_value = read_decimal(
        wire, at, max_digits=4, maximum=limits.MAX_METADATA_BYTES, what=f"length of {name}"
    )
    at_value = expect(wire, at_value, b" ", f"the space after the length of {name}")
    end = at_value + length
    if end > len(wire):
        raise CompactError(
            E.ENVELOPE, f"wire ends inside the value of {name} ({length} bytes declared)", len(wire)
        )
    if wire[end : end + 1] != b"\n":
        found = "the end of the wire" if end >= len(wire) else excerpt(wire[end : end + 1], 0, 48)
        raise CompactError(
            E.ENVELOPE,
            f"expected LF after the {length}-byte value of {name}, found {found} "
            "(is the declared length right?)",
            end,
        )
    return Field(name, Span(pos, end + 1), Span(at, at_value - 1), Span(at_value, end), wire[at_value:end])


def read_fields(wire: bytes, pos: int) -> tuple[Field, ...]:
    """The four framed fields in their fixed order, framing only (values unchecked)."""
    fields = []
    for name in FIELD_NAMES:
        field = read_field(wire, pos, name)
        fields.append(field)
        pos = field.line.end
    return tuple(fields)


def _field_name_at(wire: bytes, pos: int) -> str | None:
    for name in FIELD_NAMES:
        if wire.startswith(name.encode() + b" ", pos):
            return name
    return None


def frame_fields(values: tuple[bytes, ...]) -> bytes:
    """Write the four fields as docs/wire-format.md §3 frames them; the values come
    from ``projection.metadata_bytes``, which checked their limit."""
    return b"".join(b"%s %d %s\n" % (name.encode(), len(v), v) for name, v in zip(FIELD_NAMES, values))


def check_wire_size(wire: bytes | bytearray | memoryview) -> None:
    """The first check of every decoder (docs/wire-format.md §9)."""
    size = wire.nbytes if isinstance(wire, memoryview) else len(wire)
    if size > limits.MAX_WIRE_BYTES:
        raise over_limit(f"wire is {size:,} bytes", limits.MAX_WIRE_BYTES, limits.MAX_WIRE_BYTES)


def check_encoded_size(wire: bytes, form: str) -> bytes:
    """The last step of every encoder: refuse (compact.limit, no offset) a wire no
    decoder would accept, instead of writing it (docs/wire-format.md §9)."""
    if len(wire) > limits.MAX_WIRE_BYTES:
        raise over_limit(f"the {form} wire would be {len(wire):,} bytes", limits.MAX_WIRE_BYTES)
    return wire


def wire_bytes(wire: bytes | bytearray | memoryview) -> bytes:
    """What every decoder does first: take the wire as ``bytes``.

    A wire is bytes-like: ``bytes``, ``bytearray`` or ``memoryview``; anything
    else (a ``str``, an ``int``, None) is the caller's mistake, not hostile
    input, and is a ``TypeError`` naming the type, raised before anything is
    allocated (``bytes(10**9)`` would allocate a gigabyte). The size limit is
    checked before a ``bytearray`` or ``memoryview`` is copied."""
    if isinstance(wire, bytes):
        return wire
    if not isinstance(wire, (bytearray, memoryview)):
        raise TypeError(f"a wire is bytes, bytearray or memoryview, not {type(wire).__name__}")
    check_wire_size(wire)
    return wire.tobytes() if isinstance(wire, memoryview) else bytes(wire)


def trace_document_offset(
    tokens: list[bytes], resolve: Callable[[bytes], bytes], body_start: int, doc_offset: int
) -> tuple[int, int, bytes | None]:
    """Where byte ``doc_offset`` of a reconstructed document came from in a body
    tokenized by ``split_body``, whose references expand to ``resolve(token)``.

    Returns ``(wire_offset, delta, reference)``: for a byte copied from the body,
    its wire offset, 0 and None; for a byte inside a reference's expansion, the
    wire offset of the reference, the offset into the expansion, and the
    reference token, so the caller can point into its dictionary instead."""
    lengths = list(map(len, tokens))
    expanded = lengths.copy()
    # the references are the odd tokens that are no string (in C); each is resolved once
    for k in compress(range(1, len(tokens), 2), map(not_, map(bytes.startswith, tokens[1::2], repeat(b'"')))):
        expanded[k] = len(resolve(tokens[k]))
    ends = list(accumulate(expanded))
    k = bisect_right(ends, doc_offset)  # the first token whose expansion ends past the offset
    if k == len(tokens):
        return body_start + sum(lengths) + doc_offset - (ends[-1] if ends else 0), 0, None
    doc = ends[k] - expanded[k]
    wire = body_start + sum(lengths[:k])
    if k % 2 == 1 and is_reference(tokens[k]):
        return wire, doc_offset - doc, tokens[k]
    return wire + doc_offset - doc, 0, None
