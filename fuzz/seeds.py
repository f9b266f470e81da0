"""Write the seed corpus, fuzz/corpus/: small valid wires of every form and the
examples' rejected wires, plus a few hand-made shapes the examples lack.

    python fuzz/seeds.py

The files are named by their SHA-1 as libFuzzer names corpus entries, so
rerunning writes nothing new unless the examples changed."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cbor2

import codec
from codec import binary_v1, model_text, text_v1
from codec.projection import canonical_json, source_digest
from codec.scan import frame_fields

CORPUS = Path(__file__).with_name("corpus")
#: Seeds stay small so mutations are cheap; the large shapes are the benchmark's.
MAX_SEED = 24 * 1024


def hand_made() -> list[bytes]:
    value = {
        "module": "m.py",
        "text": '@0 ~1 "q" \\ \u00e9 \u2028 \U0001f600 \x1b',
        "numbers": [0, -1, 1.5, 1e16, 1e-05, -0.0, 2**64, -(2**64) - 1],
        "flags": [True, False, None],
        "deep": [[[[{"a": [{}]}]]]],
    }
    p = codec.CompactProjection.from_value("graph", "m.py", "rev 1", value)
    shared = codec.CompactProjection.from_value(
        "symbols", "pkg", "r", {"rows": [["pkg.mod.helper_function", "pkg.mod.other_thing", i] for i in range(400)]}
    )
    wires = [codec.ENCODERS[form](p) for form in codec.FORMS]
    wires.append(codec.encode_model_text(shared))  # a v2 dictionary (documents of 16 KiB or more)
    wires.append(codec.encode_text(shared))
    return wires


# --- shapes built from the grammar for the branches the examples never take ----------
#
# Each wire below is written from the grammar of docs/wire-format.md (header, four
# framed fields, dictionary or body line, body) with a right digest, so it reaches
# the step it is for; the comment says which path of codec/ that is. The fuzz
# oracle's round trip (every accepted projection encoded in every form) takes the
# encoders' paths from any accepted one. Each stays under 64 KiB.

_META = (b"graph", b"a.py", b"r")


def _framed(header: bytes, document: bytes, rest: bytes, meta: tuple[bytes, bytes, bytes] = _META) -> bytes:
    digest = source_digest(document).encode()
    return header + frame_fields((*meta, digest)) + rest


def v2_wire(document: bytes, entries: list[bytes], body: bytes | None = None) -> bytes:
    """A model-text wire declaring ``entries`` (quoted literals, as written) over
    ``body`` (by default ``document`` with each entry written ``@i``), whose
    digest is that of ``document``."""
    if body is None:
        body = document
        for i, entry in enumerate(entries):
            body = body.replace(entry, b"@%d" % i)
    lines = b"".join(e + b"\n" for e in entries)
    return _framed(model_text.HEADER, document, b"dict %d\n%sbody\n%s" % (len(entries), lines, body))


def v1_wire(document: bytes, body: bytes) -> bytes:
    """A v1 text wire over ``body`` whose digest is that of ``document``."""
    return _framed(text_v1.HEADER, document, b"body\n" + body)


def binary_wire(document: bytes, body: bytes) -> bytes:
    """A v1 binary wire over the CBOR ``body`` whose digest is that of ``document``."""
    digest = source_digest(document).encode()
    fields = b"".join(bytes([len(v)]) + v for v in (*_META, digest))
    return binary_v1.MAGIC + fields + body


def _json(value: object) -> bytes:
    return canonical_json(value)


def grammar_seeds() -> list[bytes]:
    out: list[bytes] = []
    graph = codec.CompactProjection.from_value

    # Escape-heavy documents: more than 4,096 escaped quotes (scan.quote_split's
    # bound) send the encoders and the fault walk to their token-by-token paths
    # (model_text.encode_model_text's split_strings branch, text_v1._text_body_slowly,
    # projection._string_parts); over 16 KiB, so v2 considers a dictionary.
    quotes = ['"'] * 4200 + ["", "", "a", "a"]
    shared = 'say "hi" to the helper function'
    out.append(codec.encode_model_text(graph("graph", "a.py", "r", quotes)))  # no entry qualifies
    out.append(codec.encode_binary(graph("graph", "a.py", "r", [*quotes, shared, shared])))  # one entry
    duplicate = b'{"a":' + _json(quotes) + b',"a":1}'
    out.append(duplicate)  # a repeated key found by the walk over split_strings' tokens
    # Over 1,024 strings, none repeated: v1's bulk text_body writes the document as it is.
    out.append(codec.encode_json(graph("graph", "a.py", "r", [f"s{i}" for i in range(1100)])))
    # 32,769 empty strings as 33 KB of CBOR: a document of more than 65,536 string
    # parts, which scan.join_parts joins in batches.
    out.append(codec.encode_binary(graph("graph", "a.py", "r", [""] * 32769)))
    # A root over 127 bytes: binary's LEB128 length takes two bytes.
    out.append(codec.encode_model_text(graph("graph", "r" * 200, "r", [1])))
    # A string of 4,301 digits: binary's cbor2 fast path steps aside for the walker
    # (has_long_digit_run), which accepts; then inside an indefinite-length array,
    # where encoding_fault steps aside too and the walker names the departure.
    digits = "0" * 4301
    out.append(_json([digits]))
    doc = _json([digits])
    out.append(binary_wire(doc, b"\x9f" + cbor2.dumps(digits) + b"\xff"))
    # Bignums: one of more than 4,300 digits, and a tag 2 as the body's last byte.
    out.append(binary_wire(b"[1]", b"\x81\xc2\x59\x07\x08" + b"\x01" * 1800))
    out.append(binary_wire(b"[1]", b"\x81\xc2"))

    # Model-text dictionaries. An entry under 16 bytes in a document over 16 KiB.
    rows = [["ab", "pkg.mod.helper_function", i] for i in range(800)]
    doc = _json({"rows": rows})
    out.append(v2_wire(doc, [b'"ab"', b'"pkg.mod.helper_function"']))
    # Reference bombs (model_text._check_size): an entry of 4 KiB referenced 4,200
    # times would expand past 16 MiB. The append that crosses is a reference (a),
    # an inline string between references (b), an inline string after the last (c);
    # (d) a short entry referenced 4,200 times and the long one once: the bound is
    # over, the document is not, then a reference past the table (@9).
    big = b'"' + b"x" * 4094 + b'"'
    small = b'"' + b"pkg.mod.helper_fn" + b'"'
    for body in (
        b"[" + b",".join([b"@0"] * 4200) + b"]",
        b"[" + b",".join([b"@0"] * 4094) + b',"' + b"y" * 8000 + b'",@0]',
        b"[" + b",".join([b"@0"] * 4094) + b',"' + b"y" * 8000 + b'"]',
        b"[@0," + b",".join([b"@1"] * 4200) + b",@9]",
    ):
        out.append(v2_wire(b"[]", [big, small] if b"@1" in body else [big], body))

    # v1 text. A body whose bytes outside strings pass the first 16 KiB chunk of the
    # bulk expansion, with one reference in both chunks (a valid wire).
    values = ["abcdefgh"] * 6000
    out.append(codec.encode_text(graph("graph", "a.py", "r", values)))
    # A literal of 16 KiB referenced 1,100 times (the bulk bound is over): as well as
    # a short one each time (the exact count is under: valid), or alone (over:
    # compact.limit where the walk crosses 16 MiB).
    long_value = "L" * 16384
    out.append(codec.encode_text(graph("graph", "a.py", "r", [long_value, long_value, *(["abcd"] * 1100)])))
    lit = b'"' + b"L" * 16384 + b'"'
    out.append(v1_wire(b"[]", b"[" + lit + b"," + b",".join([b"~0"] * 1100) + b"]"))

    # The fault walk of projection: a float token that is no candidate before one
    # out of range; a duplicate key after more nesting than four passes of
    # bracket-pair removal reduce (the walk starts at the top); a noncanonical
    # space where no object is open, before a duplicate key.
    out += [b"[1e100,1e400]", b'[[[[[[[]]]]]],{"a":1,"a":2}]', b'[ {"a":1,"a":2}]']
    # 512 levels (the limit): decoded from 600 frames deep, the parse runs on a
    # fresh stack (projection.with_stack), accepted or rejected.
    out += [b"[" * 512 + b"]" * 512, b"[" * 512 + b"NaN" + b"]" * 512, b"[" * 511 + b"[x" + b"]" * 512]
    # A metadata value with a terminal control character (the inspector shows it escaped).
    out.append(codec.encode_model_text(graph("graph", "a\x1b[31m.py", "r", [1])))
    return out


def seeds() -> list[bytes]:
    out = []
    for folder in (ROOT / "examples" / "wires", ROOT / "examples" / "rejected"):
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.stat().st_size <= MAX_SEED:
                out.append(path.read_bytes())
    return out + hand_made() + grammar_seeds() + departure_seeds() + object_seeds()


def departure_seeds() -> list[bytes]:
    """Array documents nested a few levels deep with one departure each, the
    shapes of the nested-511-* bench families made small, for
    ``projection._departure`` (issue 23): floats, escapes, stray bytes, cuts
    inside a token or an object, a repeated key with whitespace, a top level
    closed early or never, an error past the stand-in parse's first window."""

    def item(leaf: bytes, depth: int = 20) -> bytes:
        return b"[" * depth + leaf + b"]" * depth

    def doc(*leaves: bytes, depth: int = 20) -> bytes:
        return b"[" + b",".join(item(leaf, depth) for leaf in leaves) + b"]"

    docs = [
        doc(b"1", b"1.50", b"1"), doc(b"1", b"1", b"1E2"), doc(b"1", b"1e400", b"1"), doc(b"1", b'"\\u0041"', b"1"),
        doc(b"1", b'"\\udc00"'), doc(b"1.5", b"-0.0", b"1e+16"), doc(b"1", b"1.50", depth=2),
        doc(b"1", b"1")[:-1] + b",x]", doc(b"1", b"1")[:-1] + b",}]", doc(b"1", b"1")[:-1] + b"]" + item(b"1") + b"]",
        doc(b"1", b"1.5")[: -21], doc(b"1", b'{"a":1}')[: -23], doc(b"1", b"1")[:-1],
        doc(b"1", b'{"a":0,"a":1}', depth=60).replace(b",", b", ", 1), doc(b"1e400", b'{"a":0,"a":1}', depth=60),
        doc(b'{"a":0,"a":1}', b"1e400", depth=60), doc(b'{"a":0,"b":1}', b"1.50", depth=60), doc(b"1", b"NaN"),
        doc(b"1.50", b"1")[:-1], doc(b"1", b"1.50").replace(b",", b", "), doc(b"1.50 ", b"1"),
        doc(b"1.50", b'"\\u0041"', depth=1),
        doc(b"1", b'{"a":[1]}', b"1" * 20)[:-1] + b"," + doc(b"2") * 1 + b"," + b"[" * 5 + b"]" * 5 + b",x]",
        doc(b"1", b'{"a":[1]}')[:-1] + b',"' + b"s" * 5000 + b'"x]',
        doc(b"1", b'{"a":[1]}')[:-1] + b"," + b",".join([item(b"7")] * 120) + b",x]",
    ]
    return docs + [v2_wire(d, []) for d in docs[:4]] + [v1_wire(d, d) for d in docs[4:8]]


def object_seeds() -> list[bytes]:
    """Documents whose objects hold containers (``{"a":[[1],{"b":[2]}]}``), the
    under-object-* bench families made small, canonical or with one departure,
    in all four wire forms, for ``projection._canonical_objects``,
    ``_walk_structure``, ``_object_departure``, ``_read_structure``,
    ``_object_constant_verdict`` and binary's maps in ``read_arrays_or_fault``
    (issue 23, round 4). Each object stands for at least 256 bytes and each
    container for at most four items, so the proof without a value takes them
    (``projection._worth_proving``)."""

    def nest(leaf: bytes, depth: int = 12) -> bytes:
        return b"[" * depth + leaf + b"]" * depth

    def under(*leaves: bytes, key: bytes = b'"a"', depth: int = 12) -> bytes:
        return b"{" + key + b":[" + b",".join(nest(leaf, depth) for leaf in leaves) + b"]}"

    items = [b"1"] * 12
    base = under(*items)
    middle = base.index(b"],[", len(base) // 2) + 2
    leaf = middle + 12
    mixed = (  # objects at several depths, holding arrays, objects and flat objects
        b'{"a":[' + b",".join([nest(b"1")] * 8) + b',{"b":[' + b",".join([nest(b"2")] * 8)
        + b'],"c":{"d":' + nest(b'{"e":1}', 10) + b'},"f":{"g":3}}],"h":' + nest(b"4", 20) + b"}"
    )
    deep_in_array = b"[" + b",".join([nest(b"1")] * 10) + b"," + under(b"1", b"2", b"3") + b"]"
    partial_close = b'{"a":[[[[[[{"b":[[[[1]]]]},{"c":[[[[2]]]]}]]]]]],' + b",".join([b'"k%d":' % i + nest(b"0") for i in range(6)]) + b"}"
    valid = [base, mixed, deep_in_array, partial_close, under(b'"s"', b"null", b"true", b"-1", b"[]", b"{}")]
    departures = [
        base[:leaf] + b"1.50" + base[leaf + 1 :],  # a float
        base[:leaf] + b"1e400" + base[leaf + 1 :],  # out of range
        base[:leaf] + b'"\\u0041"' + base[leaf + 1 :],  # an escape
        base[:leaf] + b'"\\udc00"' + base[leaf + 1 :],  # a lone surrogate
        base[:middle] + b"x" + base[middle:],  # a stray byte
        base[:middle] + b"}" + base[middle:],  # a stray brace
        base[:middle] + b"]" + base[middle:],  # a closer too many
        base[:middle] + b'"k":' + base[middle:],  # a key in an array
        base[: base.rindex(b"1") + 1] + b".",  # cut in a number
        base[: base.rindex(b"1")] + b"1.5"[:2],
        base[:-1],  # never closed
        base[:-3],
        base + b"1",  # extra data
        base + b" ",
        base[:-1] + b',"a":1}',  # a repeated key at the end
        base[:-1] + b',"b":[[1]],"b":2}',
        mixed.replace(b'"g":3', b'"g":3,"g":4'),  # repeated in a flat object
        mixed.replace(b'{"e":1}', b'{"e":1,"e":1}', 1),
        mixed.replace(b'"h":', b'"a":'),  # repeated at the top after nesting
        base.replace(b'"a":', b'"a": ', 1),  # a space after the key
        base.replace(b'"a"', b'"\\u0061"', 1),  # an escaped key
        base[:-1] + b',"\\u0061":1}',  # an escaped key repeating one
        base[:leaf] + b"NaN" + base[leaf + 1 :],  # NaN after an object holding a container
        base[:-2] + b",Infinity]}",
        base[:-2] + b",-Infinity,x]}",
        mixed.replace(b'"g":3', b'"g":NaN'),
        mixed.replace(b'"g":3', b'"g":NaN,"g":1'),
        base[:-1] + b',"a":NaN}',
        base[:leaf] + b"NaN" + base[leaf + 1 : middle + 40] + b"}" + base[middle + 40 :],
        base[:leaf] + b"1.50" + base[leaf + 1 :].replace(b"]}", b"]]", 1),  # float, then a mismatched closer
        b"[" + base + b"," + base + b"]",  # an object in an array
        b" " + base,  # space before
        base.replace(b"{", b"[", 1),  # a key in an array at the top
        base.replace(b"]}", b"}}", 1),  # closed by the wrong kind
        b'{"a":' + nest(b"1", 40)[:-5] + b'}' + b" " * 300,
        b'{"a":{"b":' + nest(b"1", 30) + b',"b":' + nest(b"2", 30) + b"}}",  # repeated inside
        b'{"a":[' + b",".join([nest(b"1")] * 12) + b'],"z":[' + b"x" * 5000 + b"]}",  # past the first window
        b'{"a":[' + b",".join([nest(b"1")] * 12) + b'],"z":"' + b"s" * 5000 + b'"x}',
        b'{"a":[' + b",".join([nest(b"1")] * 12) + b'],"z":"' + b"s" * 5000 + b'"' + b" " * 5000 + b"x}",
    ]
    # Larger shapes: enough bytes per object (``_worth_proving``) for documents
    # of several objects, and a top-level flat object of 4,096 keys.
    pad = b",".join([nest(b"0")] * 60)
    wide = (
        b'{"a":[' + pad + b',{"b":[' + pad + b'],"c":{"d":' + nest(b'{"e":1}', 10) + b'},"f":{"g":3}}],"h":['
        + pad + b"]}"
    )
    # runs of openers closed in part: ``[[{`` closed by ``]}`` (an object's keys set dropped)
    part = b'{"a":[[[{"b":[[1]]},{"b":[[2]]},{"c":[[3]]}]]],"d":[' + pad + b"]}"
    flat_in_array = b"[" + pad + b',{"a":1,"b":2},' + pad + b',{"a":1,"b":2}]'
    many = b"{" + b",".join(b'"k%04d":%d' % (i, i % 10) for i in range(4100)) + b"}"
    valid += [wide, part, flat_in_array, many]
    departures += [
        wide.replace(b'"g":3', b'"g":3,"g":4'),  # repeated in a flat object among deep ones
        wide.replace(b'"h":', b'"a":'),  # repeated at the top, after nesting
        wide.replace(b'"c":', b'"b":'),  # repeated, then more keys
        wide.replace(b'{"e":1}', b'{"e":1,"e":2}'),
        wide.replace(b'"g":3', b'"g":NaN'),  # NaN after an object holding a container
        wide.replace(b'"g":3', b'"g":Infinity,"g":1'),
        wide.replace(b'"g":3', b'"g":3.50'),
        wide.replace(b'"g":3', b'"g":3 '),
        wide.replace(b'"g":3', b'"g":[3,NaN'),
        wide.replace(b'"f":', b'"f": '),
        wide[:-1],
        wide[:-40],
        wide + b"x", wide + b" x", wide + b"}", wide + b"]", wide + b",", wide + b"," + nest(b"1"), wide + nest(b"1"),
        wide + b'{"a":[1]}',
        part.replace(b'"c"', b'"b"'),  # repeated in an object of a partly closed run
        part.replace(b"[[3]]", b"[[3.50]]"),
        part.replace(b"[[3]]", b"[[NaN]]"),
        part.replace(b"]},{", b"]],{", 1),
        part.replace(b'"d":[', b'"d":[x,'),
        part.replace(b'"d":[', b'"d":[NaN,x,'),
        part.replace(b'"d":[', b'"d":['),
        flat_in_array.replace(b'"b":2}]', b'"a":2}]'),
        flat_in_array.replace(b'"b":2}]', b'"b":2} ]'),
        flat_in_array[:-1],
        flat_in_array[:-2] + b",",
        many.replace(b'"k4099"', b'"k0001"'),
        many.replace(b'"k4099":9', b'"k4099":9.5'),
        many[:-1],
        many.replace(b":", b": ", 1),
        b'{"a":[[1]]}]', b'{"a":[[1]]},[1]',
        b'{"a":[' + pad + b"]}]", b'{"a":[' + pad + b"]},[1]", b'{"a":[' + pad + b"]}[1]", b'{"a":[' + pad + b'],:1}',
        b'{"a":[' + pad + b'],"b":{' + pad + b"}}", b'{"a":[' + pad + b'],"b":[1,"c":2]}',
        # NaN or Infinity after an object holding a container, in an array: the
        # array reading stops at the object, its window meets the constant
        b"[" + pad + b',{"a":[1]},NaN]', b"[" + pad + b',{"a":[1]},Infinity,x]', b"[" + pad + b',{"a":[1],"a":2},NaN]',
        b"[" + pad + b',{"a":[1]},[NaN,x', b"[" + pad + b',{"a":[1]}x,NaN]',
        b'{"a":[' + pad + b'],"b":[{"c":[1]},NaN]}', b'{"a":[' + pad + b'],"b":[{"c":[1]},-Infinity}',
        # whitespace or a string past the window's first 4 KiB after where the reading stops
        b"[" + pad + b"]" + b" " * 5000 + b"x", b'{"a":[' + pad + b"]}" + b" " * 5000 + b"x",
        b"[" + pad + b',{"a":[1]}' + b" " * 5000 + b"x]",
        b"[" + pad + b',{"a":[1]},"' + b"s" * 5000 + b'" x]', b"[" + pad + b',{"a":[1]},"' + b"s" * 5000,
    ]
    out: list[bytes] = []
    for doc in valid:
        p = codec.CompactProjection("graph", "a.py", "r", doc)
        out += [codec.ENCODERS[form](p) for form in codec.FORMS]
    for doc in departures:
        out += [doc, v1_wire(doc, doc), v2_wire(doc, [])]
    # binary: maps holding arrays read directly, and their departures
    body = cbor2.dumps({"a": [[[[[[1]]]]]] * 12, "b": {"c": [[[[2]]]], "d": {}}})
    doc = _json({"a": [[[[[[1]]]]]] * 12, "b": {"c": [[[[2]]]], "d": {}}})
    out += [
        binary_wire(doc, body),
        binary_wire(doc, body.replace(b"\x61\x62", b"\x61\x61")),  # a repeated key
        binary_wire(doc, body.replace(b"\xa2\x61\x63", b"\xa2\x61\x64", 1)),  # keys out of order
        binary_wire(doc, b"\xbf" + body[1:] + b"\xff"),  # an indefinite-length map
        binary_wire(doc, body[:-3]),  # cut inside a map
        binary_wire(doc, body + b"\x00"),  # a trailing byte
        binary_wire(doc, body.replace(b"\x61\x62", b"\x01\x62", 1)),  # a non-string key
        binary_wire(doc, body.replace(b"\x61\x62", b"\x78\x01\x62", 1)),  # a key with a wide head
        binary_wire(doc, body.replace(b"\x61\x62", b"\x62\xff\xfe", 1)),  # a key not UTF-8
        binary_wire(doc, body.replace(b"\x01", b"\xf9\x3c\x00", 1)),  # a half float under a map
        binary_wire(doc, body.replace(b"\x01", b"\xc2\x41\x01", 1)),  # a bignum under a map
    ]
    return out


def main() -> int:
    CORPUS.mkdir(exist_ok=True)
    written = 0
    for data in seeds():
        path = CORPUS / hashlib.sha1(data).hexdigest()
        if not path.exists():
            path.write_bytes(data)
            written += 1
    print(f"{written} new seed(s); {len(list(CORPUS.iterdir()))} in {CORPUS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
