"""Time and peak memory of every decoder on hostile and limit-case wires, as ratios
to decoding a valid 16 MiB wire of the same form (issue 13, docs/robustness.md).

    semaprax bench hostile [--sizes 1 2 4 8 16] [--quick] [--repeat 3] [--family-repeat 3]
                           [--entry decode|layout] [--cap-mib 1024] [--families NAME ...] [--json FILE]

Each measurement runs in its own subprocess (``--child``), so its peak RSS
(``ru_maxrss``) is that decode's alone: the interpreter, the wire read from a
file, and what the decoder allocated. The baseline is ``decode_wire`` of a valid
graph-shaped wire of 16 MiB in the same form, timed ``--repeat`` times (median,
with the range). Every other case runs once per size. Time is CPU time of the
decode (``time.process_time``), which a busy shared machine disturbs far less
than wall-clock time; the baseline table shows both. ``--cap-mib`` runs every
child under an address-space cap (``resource.setrlimit(RLIMIT_AS)``); a
``MemoryError`` then shows in the outcome column. Targets (issue 13): at most 5x
the time and 2x the peak RSS of the valid 16 MiB decode, and the 16 MiB figure at
most 20x the 1 MiB one. A rejected family with a valid twin in ``TWINS`` (issue
23: the same shape and size, accepted) is compared with that twin instead,
measured just before it at each size (the "against" column says which); the
valid families of issue 23 (``nested-511``, ``many-keys``) are compared with the
valid graph wire of the same document size. ``--entry layout`` runs
``codec.layout_wire`` for the family rows (baselines and twins stay decodes);
``--family-repeat N`` measures each family row and its twin N times in turn and
adds a table of medians with their range. Numbers on a shared machine are noisy:
rerun before drawing conclusions from a single row.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout
sys.path.insert(0, str(ROOT))  # the child runs this file by path: codec/ must come before its siblings

MiB = 1 << 20
FORMS = ("json", "text", "binary", "model-text")


# --- the child: decode one wire, report time, peak RSS and outcome -------------------------------


def child(path: str, entry: str = "decode") -> int:
    import codec  # imported before the measurement, as a long-running server would have it

    wire = Path(path).read_bytes()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        if entry == "layout":
            layout = codec.layout_wire(wire)
            if layout.error is not None:
                raise layout.error
            outcome = f"ok {layout.form}"
        else:
            found = codec.decode_wire(wire)
            outcome = f"ok {found.form}"
    except codec.CompactError as exc:
        outcome = exc.code
    except MemoryError:
        outcome = "MemoryError"
    except Exception as exc:  # noqa: BLE001 - reported as the finding it is
        outcome = f"ESCAPE {type(exc).__name__}"
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_mib": peak_rss_kib() / 1024, "outcome": outcome}))
    return 0


def peak_rss_kib() -> int:
    """This process's peak RSS. VmHWM belongs to the current address space, so it
    starts afresh at exec; ``ru_maxrss`` would carry over the parent's peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure(wire: bytes, cap_mib: int | None, workdir: Path, entry: str = "decode") -> dict:
    path = workdir / "wire"
    path.write_bytes(wire)

    def limits() -> None:
        if cap_mib:
            cap = cap_mib * MiB
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(path), "--entry", entry],
        capture_output=True, text=True, preexec_fn=limits, cwd=ROOT, timeout=600, check=False,
    )
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        nan = float("nan")
        return {"seconds": nan, "cpu": nan, "rss_mib": nan, "outcome": f"child died: {proc.stderr[-200:]!r}"}


# --- wires -----------------------------------------------------------------------------------------


def _framing() -> tuple[Callable[..., bytes], Callable[..., bytes], Callable[..., bytes]]:
    from codec import binary_v1, model_text, text_v1
    from codec.projection import source_digest
    from codec.scan import frame_fields

    def fields(digest: bytes) -> bytes:
        return frame_fields((b"graph", b"r", b"v", digest))

    def digest(doc: bytes) -> bytes:
        return source_digest(doc).encode()

    def v2(doc: bytes, entries=(), body: bytes | None = None, declared: bytes | None = None) -> bytes:
        head = model_text.HEADER + fields(declared or digest(doc))
        dictionary = b"dict %d\n" % len(entries) + b"".join(e + b"\n" for e in entries)
        return head + dictionary + b"body\n" + (doc if body is None else body)

    def v1(doc: bytes, body: bytes | None = None, declared: bytes | None = None) -> bytes:
        return text_v1.HEADER + fields(declared or digest(doc)) + b"body\n" + (doc if body is None else body)

    def binary(cbor: bytes, declared: bytes) -> bytes:
        out = [binary_v1.MAGIC]
        for value in (b"graph", b"r", b"v", declared):
            out += [binary_v1._leb128(len(value)), value]
        return b"".join(out) + cbor

    return v2, v1, binary


def encode(form: str, doc: bytes) -> bytes:
    import codec

    if form == "json":
        return doc
    return codec.ENCODERS[form](codec.CompactProjection("graph", "r", "v", doc))


def _array(item: bytes, size: int) -> bytes:
    n = max((size - 2) // (len(item) + 1), 1)
    return b"[" + b",".join([item] * n) + b"]"


def _framed_doc(form: str, doc: bytes) -> bytes:
    """``doc`` as the wire body with a matching digest, whether or not it is canonical."""
    v2, v1, _ = _framing()
    return {"json": lambda: doc, "text": lambda: v1(doc), "model-text": lambda: v2(doc)}[form]()


ZERO = b"sha256:" + b"0" * 64
OVERHEAD = 400  # bytes of envelope to leave room for


def fam_valid(form: str, size: int) -> bytes:
    from semaprax.bench.codec import graph_document

    return encode(form, graph_document(size - OVERHEAD))


def _document_size(form: str, size: int, cbor_share: float) -> int:
    """The document size whose ``form`` wire is about ``size`` bytes; a binary
    wire is ``cbor_share`` of its document, and no document exceeds 16 MiB."""
    wanted = size - OVERHEAD if form != "binary" else int((size - OVERHEAD) / cbor_share)
    return min(wanted, 16 * MiB - OVERHEAD)


def fam_long_integers(form: str, size: int) -> bytes:
    return encode(form, _array(b"1" * 4300, _document_size(form, size, 0.42)))


def fam_escapes(form: str, size: int) -> bytes:
    n = (size - OVERHEAD) // 2 - 2
    return encode(form, b'"' + b"\\n" * n + b'"')


def fam_trailing_space(form: str, size: int) -> bytes:
    return _framed_doc(form, b'["' + b"a" * (size - OVERHEAD - 6) + b'"] ')


def fam_many_tokens_trailing_space(form: str, size: int) -> bytes:
    return _framed_doc(form, _array(b"1", size - OVERHEAD - 1) + b" ")


def fam_duplicate_key_at_end(form: str, size: int) -> bytes:
    return _framed_doc(form, b'{"a":' + _array(b"1", size - OVERHEAD - 16) + b',"a":1}')


def fam_long_integer_at_end(form: str, size: int) -> bytes:
    return _framed_doc(form, _array(b"1", size - OVERHEAD - 4400)[:-1] + b"," + b"1" * 4301 + b"]")


def fam_small_items(form: str, size: int) -> bytes:
    return encode(form, _array(b"1", _document_size(form, size, 0.5)))


def fam_tiny_back_references(form: str, size: int) -> bytes:
    return encode(form, _array(b'"abcd"', _document_size("binary", size, 3 / 7)))  # '~0,' stands for '"abcd",'


def fam_at_flood(form: str, size: int) -> bytes:
    v2, _, _ = _framing()
    return v2(b"[]", (), b"@0," * ((size - OVERHEAD) // 3), declared=ZERO)


def fam_tilde_flood(form: str, size: int) -> bytes:
    _, v1, _ = _framing()
    return v1(b"[]", b"~0," * ((size - OVERHEAD) // 3), declared=ZERO)


def fam_escaped_entries(form: str, size: int) -> bytes:
    v2, _, _ = _framing()
    count = max(size // MiB - 1, 1)
    entries = sorted(b'"' + b"\\n" * (MiB // 2 - 4) + b"%02d" % i + b'"' for i in range(count))
    return v2(b"[]", entries, b"[]", declared=ZERO)


def fam_reference_bomb(form: str, size: int) -> bytes | None:
    if size < 2 * MiB:
        return None  # the entry alone is 1 MiB: no room for a bomb
    v2, _, _ = _framing()
    entry = b'"' + b"b" * (MiB - 2) + b'"'
    refs = (size - MiB - OVERHEAD) // 3
    return v2(b"[]", [entry], b"[" + b"@0," * (refs - 1) + b"@0]", declared=ZERO)


# --- issue 23's held-out families ----------------------------------------------------------------


def _small_objects(size: int) -> bytes:
    return _array(b'{"a":0}', size)


def fam_small_objects_trailing_space(form: str, size: int) -> bytes:
    return _framed_doc(form, _small_objects(size - OVERHEAD - 1) + b" ")


def fam_small_objects_duplicate_key(form: str, size: int) -> bytes:
    return _framed_doc(form, _small_objects(size - OVERHEAD - 8)[:-2] + b',"a":1}]')


def fam_float_out_of_range_at_end(form: str, size: int) -> bytes:
    return _framed_doc(form, _small_objects(size - OVERHEAD - 8)[:-1] + b",1e400]")


def fam_duplicate_among_many_keys(form: str, size: int) -> bytes:
    n = (size - OVERHEAD) // 14 - 1
    keys = [b'"k%08d":0' % i for i in range(n)]
    return _framed_doc(form, b"{" + b",".join(keys + [b'"k%08d":0' % (n // 2)]) + b"}")


def fam_indefinite_at_end(form: str, size: int) -> bytes:
    import cbor2

    _, _, binary = _framing()
    n = (size - OVERHEAD) // 8  # 4 CBOR bytes, 8 JSON bytes each: the document stays under 16 MiB
    body = cbor2.dumps([{"a": 0}] * n + [[]])
    return binary(body[:-1] + b"\x9f\xff", ZERO)


def fam_nested_511(form: str, size: int) -> bytes:
    return encode(form, _array(b"[" * 510 + b"1" + b"]" * 510, _document_size(form, size, 0.5)))


def _nested_511_doc(form: str, size: int) -> bytes:
    return _array(b"[" * 510 + b"1" + b"]" * 510, _document_size(form, size, 0.5))


def fam_nested_511_trailing_space(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_doc(form, size - 1) + b" ")


def fam_nested_511_space_in_middle(form: str, size: int) -> bytes:
    doc = _nested_511_doc(form, size - 1)
    middle = doc.index(b"],[", len(doc) // 2) + 2  # after the comma between two items
    return _framed_doc(form, doc[:middle] + b" " + doc[middle:])


def fam_nested_511_truncated(form: str, size: int) -> bytes:
    """The valid nested-511 wire less its last byte (a ``]`` of the document; in
    binary, the body's last item)."""
    if form == "binary":
        return fam_nested_511(form, size)[:-1]
    return _framed_doc(form, _nested_511_doc(form, size)[:-1])


def fam_at_in_strings(form: str, size: int) -> bytes:
    return encode(form, _array(b'"a@b@c@d@e@f"', _document_size(form, size, 0.86)))


def twin_small_objects(form: str, size: int) -> bytes:
    return encode(form, _small_objects(_document_size(form, size, 0.5)))


def twin_many_keys(form: str, size: int) -> bytes:
    n = (size - OVERHEAD) // 14
    return encode(form, b"{" + b",".join(b'"k%08d":0' % i for i in range(n)) + b"}")


def twin_one_long_array(form: str, size: int) -> bytes:
    return encode(form, b'{"a":' + _array(b"1", size - OVERHEAD - 16) + b"}")


#: A rejected family's valid twin: the same shape and size, accepted; its
#: decode is the family's own baseline (issue 23: "a ratio to a valid decode of
#: the same size and form"). The valid families of issue 23 are compared with
#: the valid graph-shaped wire of the same size and form; the others with the
#: graph-shaped 16 MiB baseline.
TWINS: dict[str, Callable[[str, int], bytes]] = {
    "small-objects-trailing-space": twin_small_objects,
    "small-objects-duplicate-key-at-end": twin_small_objects,
    "float-out-of-range-at-end": twin_small_objects,
    "duplicate-among-many-keys": twin_many_keys,
    "duplicate-key-at-end": twin_one_long_array,
    "indefinite-length-at-end": twin_small_objects,
    "nested-511-trailing-space": fam_nested_511,
    "nested-511-space-in-middle": fam_nested_511,
    "nested-511-truncated": fam_nested_511,
    # valid families: the valid graph-shaped wire of the same size and form
    "nested-511 (valid)": fam_valid,
    "many-keys (valid)": fam_valid,
    "graph (valid)": fam_valid,
}

#: name -> (forms, builder(form, size)); each is measured at every size.
FAMILIES: dict[str, tuple[tuple[str, ...], Callable[[str, int], bytes | None]]] = {
    "long-integers (valid)": (FORMS, fam_long_integers),
    "escapes (valid)": (FORMS, fam_escapes),
    "small-items (valid)": (FORMS, fam_small_items),
    "tiny-back-references (valid)": (("text",), fam_tiny_back_references),
    "trailing-space": (("json", "text", "model-text"), fam_trailing_space),
    "many-tokens-trailing-space": (("json", "model-text"), fam_many_tokens_trailing_space),
    "duplicate-key-at-end": (("json", "model-text"), fam_duplicate_key_at_end),
    "long-integer-at-end": (("json", "model-text"), fam_long_integer_at_end),
    "at-flood": (("model-text",), fam_at_flood),
    "tilde-flood": (("text",), fam_tilde_flood),
    "escaped-dictionary-entries": (("model-text",), fam_escaped_entries),
    "reference-bomb-1-MiB-entry": (("model-text",), fam_reference_bomb),
    # issue 23
    "small-objects-trailing-space": (("json", "model-text"), fam_small_objects_trailing_space),
    "small-objects-duplicate-key-at-end": (("json", "model-text"), fam_small_objects_duplicate_key),
    "float-out-of-range-at-end": (("json", "model-text"), fam_float_out_of_range_at_end),
    "duplicate-among-many-keys": (("json", "model-text"), fam_duplicate_among_many_keys),
    "indefinite-length-at-end": (("binary",), fam_indefinite_at_end),
    "nested-511 (valid)": (FORMS, fam_nested_511),
    "nested-511-trailing-space": (("json", "text", "model-text"), fam_nested_511_trailing_space),
    "nested-511-space-in-middle": (("json", "text", "model-text"), fam_nested_511_space_in_middle),
    "nested-511-truncated": (FORMS, fam_nested_511_truncated),
    "many-keys (valid)": (("json", "model-text"), twin_many_keys),
    "graph (valid)": (FORMS, fam_valid),
    "at-in-strings (valid)": (("binary", "model-text"), fam_at_in_strings),
}


#: Measured only when named with --families: the valid graph wire against
#: itself (the noise of a ratio in this run), not a finding.
ONLY_WHEN_NAMED = {"graph (valid)"}


# --- issue 23, branch deep3: arrays nested 511 deep with any other departure --------------------------
# Each is the nested-511 document of the size with one change, framed as it is;
# its valid twin is the valid nested-511 wire of the same size and form.


def _nested_511_with(form: str, size: int, leaf: bytes, where: str = "middle") -> bytes:
    """The nested-511 document with the leaf (``1``) of its middle or last item
    spelled ``leaf``."""
    doc = _nested_511_doc(form, size - 16)
    start = doc.index(b"],[", len(doc) // 2) + 2 if where == "middle" else doc.rindex(b",[") + 1
    at = start + 510  # the item's leaf, after its 510 ``[``
    return doc[:at] + leaf + doc[at + 1 :]


def _stray(form: str, size: int, byte: bytes) -> bytes:
    doc = _nested_511_doc(form, size - 16)
    at = doc.index(b"],[", len(doc) // 2) + 2  # after the comma between two items
    return _framed_doc(form, doc[:at] + byte + doc[at:])


def fam_nested_511_float_in_middle(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_with(form, size, b"1.50"))


def fam_nested_511_float_at_end(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_with(form, size, b"1E2", "end"))


def fam_nested_511_float_out_of_range(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_with(form, size, b"1e400"))


def fam_nested_511_escape(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_with(form, size, b'"\\u0041"'))


def fam_nested_511_stray_byte(form: str, size: int) -> bytes:
    return _stray(form, size, b"x")


def fam_nested_511_stray_brace(form: str, size: int) -> bytes:
    return _stray(form, size, b"}")


def fam_nested_511_cut_in_number(form: str, size: int) -> bytes:
    doc = _nested_511_with(form, size, b"1.5", "end")
    return _framed_doc(form, doc[: doc.rindex(b"1.5") + 2])  # ends ``[[…[1.``


def fam_nested_511_cut_in_object(form: str, size: int) -> bytes:
    doc = _nested_511_with(form, size, b'{"a":1}', "end")
    return _framed_doc(form, doc[: doc.rindex(b'{"a":1}') + 5])  # ends ``[[…[{"a":``


def fam_nested_511_repeated_key_and_space(form: str, size: int) -> bytes:
    doc = _nested_511_with(form, size, b'{"a":0,"a":1}')
    at = doc.index(b"],[", len(doc) // 4) + 2
    return _framed_doc(form, doc[:at] + b" " + doc[at:])


_DEEP3 = {
    "nested-511-float-in-middle": fam_nested_511_float_in_middle,
    "nested-511-float-at-end": fam_nested_511_float_at_end,
    "nested-511-float-out-of-range": fam_nested_511_float_out_of_range,
    "nested-511-escape": fam_nested_511_escape,
    "nested-511-stray-byte": fam_nested_511_stray_byte,
    "nested-511-stray-brace": fam_nested_511_stray_brace,
    "nested-511-cut-in-number": fam_nested_511_cut_in_number,
    "nested-511-cut-in-object": fam_nested_511_cut_in_object,
    "nested-511-repeated-key-and-space": fam_nested_511_repeated_key_and_space,
}

# --- issue 23, branch nan4: arrays nested 511 deep with NaN, Infinity or -Infinity ---------------------
# The nested-511 document with the leaf of its middle or last item spelled as a
# constant ``json.loads`` reads and the codec rejects (docs/wire-format.md §1);
# the twin is the valid nested-511 wire of the same size and form.


def fam_nested_511_nan_in_middle(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_with(form, size, b"NaN"))


def fam_nested_511_infinity_at_end(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_with(form, size, b"Infinity", "end"))


def fam_nested_511_minus_infinity_in_middle(form: str, size: int) -> bytes:
    return _framed_doc(form, _nested_511_with(form, size, b"-Infinity"))


_NAN4 = {
    "nested-511-nan-in-middle": fam_nested_511_nan_in_middle,
    "nested-511-infinity-at-end": fam_nested_511_infinity_at_end,
    "nested-511-minus-infinity-in-middle": fam_nested_511_minus_infinity_in_middle,
}
# both rounds' families: the text forms, each against the valid nested-511 twin
FAMILIES.update({name: (("json", "text", "model-text"), build) for name, build in {**_DEEP3, **_NAN4}.items()})
TWINS.update(dict.fromkeys({**_DEEP3, **_NAN4}, fam_nested_511))


# --- issue 23: the nested-511 arrays under a top-level object ------------------------------------------
# Valid, so compared with the valid graph wire of the same size and form; proved
# without a value since branch obj23t (projection._canonical_objects).


def fam_nested_511_under_object(form: str, size: int) -> bytes:
    return encode(form, b'{"a":' + _array(b"[" * 510 + b"1" + b"]" * 510, _document_size(form, size, 0.5) - 6) + b"}")


FAMILIES["nested-511-under-object (valid)"] = (FORMS, fam_nested_511_under_object)
TWINS["nested-511-under-object (valid)"] = fam_valid

# --- issue 23, branch obj23t: the same document under an object with one departure ----------------------
# Text forms, each against the valid nested-511-under-object wire of the same
# size and form (projection._object_departure).


def _under_object_with(form: str, size: int, leaf: bytes, where: str = "middle") -> bytes:
    """The nested-511-under-object document with the leaf (``1``) of its
    middle or last item spelled ``leaf``."""
    doc = b'{"a":' + _array(b"[" * 510 + b"1" + b"]" * 510, _document_size(form, size - 16, 0.5) - 6) + b"}"
    start = doc.index(b"],[", len(doc) // 2) + 2 if where == "middle" else doc.rindex(b",[") + 1
    at = start + 510  # the item's leaf, after its 510 ``[``
    return doc[:at] + leaf + doc[at + 1 :]


def _under_object_family(
    leaf: bytes, where: str = "middle", edit: Callable[[bytes], bytes] = lambda doc: doc
) -> Callable[[str, int], bytes]:
    return lambda form, size: _framed_doc(form, edit(_under_object_with(form, size, leaf, where)))


def _after_comma(byte: bytes) -> Callable[[bytes], bytes]:
    def insert(doc: bytes) -> bytes:
        at = doc.index(b"],[", len(doc) // 2) + 2  # after the comma between two items
        return doc[:at] + byte + doc[at:]

    return insert


_OBJ23T = {
    "under-object-float-in-middle": _under_object_family(b"1.50"),
    "under-object-float-out-of-range": _under_object_family(b"1e400"),
    "under-object-escape": _under_object_family(b'"\\u0041"'),
    "under-object-nan-at-end": _under_object_family(b"NaN", "end"),
    "under-object-stray-byte": _under_object_family(b"1", edit=_after_comma(b"x")),
    "under-object-stray-brace": _under_object_family(b"1", edit=_after_comma(b"}")),
    "under-object-cut-in-number": _under_object_family(b"1.5", "end", lambda doc: doc[: doc.rindex(b"1.5") + 2]),
    "under-object-repeated-key-at-end": _under_object_family(b"1", edit=lambda doc: doc[:-1] + b',"a":1}'),
    "under-object-space-after-key": _under_object_family(b"1", edit=lambda doc: doc.replace(b'"a":', b'"a": ', 1)),
}
FAMILIES.update({name: (("json", "text", "model-text"), build) for name, build in _OBJ23T.items()})
TWINS.update(dict.fromkeys(_OBJ23T, fam_nested_511_under_object))

def limit_cases() -> dict[str, tuple[str, bytes]]:
    """name -> (form, wire): the size-independent limit cases of issue 13."""
    import codec
    from codec import model_text, text_v1

    v2, _, binary = _framing()
    entries = [b"%016d" % i for i in range(65_536)]
    many = "[" + ",".join(f'"{e.decode()}","{e.decode()}"' for e in entries) + "]"
    cases = {
        "metadata length 10^18 (v2)": ("model-text", model_text.HEADER + b"profile 1000000000000000000 graph\n"),
        "metadata length 10^18 (v1)": ("text", text_v1.HEADER + b"profile 1000000000000000000 graph\n"),
        "dict 99999999999": ("model-text", v2(b"[]", declared=ZERO).replace(b"dict 0\n", b"dict 99999999999\n")),
        "65,536 entries (valid)": ("model-text", encode("model-text", many.encode())),
        "CBOR head of 2^63 bytes": ("binary", binary(b"\x7b\x80" + b"\x00" * 7, ZERO)),
        "CBOR array of 2^63 items": ("binary", binary(b"\x9b\x80" + b"\x00" * 7, ZERO)),
    }
    for depth in (512, 513):
        doc = b"[" * depth + b"]" * depth
        for form in FORMS:
            if depth == 512:
                wire = encode(form, doc)
            elif form == "binary":
                wire = binary(b"\x81" * (depth - 1) + b"\x80", codec.source_digest(doc).encode())
            else:
                wire = _framed_doc(form, doc)
            cases[f"depth {depth} ({form})"] = (form, wire)
    return cases


# --- issue 23, v1 binary: arrays nested 511 deep with one departure (branch bintrail) ------------
# Each is the binary nested-511 body (an 8 MiB wire for a 16 MiB document) with one change, at the
# innermost level of the item in the middle unless said otherwise; the rejected ones keep the valid
# document's digest (the walk stops first). Their twin is the valid nested-511 wire of the same size.

_NESTED_511_BINARY: dict[int, tuple[bytes, bytes, int]] = {}


def _nested_511_binary(size: int) -> tuple[bytes, bytes, int]:
    """The valid binary nested-511 wire of ``size`` (as ``fam_nested_511``), its
    framing (magic and fields) and the offset of the middle item in its body."""
    if size not in _NESTED_511_BINARY:
        from codec import binary_v1

        wire = fam_nested_511("binary", size)
        start = binary_v1.read_binary_fields(wire)[-1].value.end
        body = wire[start:]
        head = len(body) - (len(body) - 1) // 511 * 511  # the outer array's head; 511 bytes an item
        items = (len(body) - head) // 511
        if len(_NESTED_511_BINARY) >= 4:  # a few sizes at a time (a family's and its twin's): 8 MiB each at 16
            _NESTED_511_BINARY.pop(next(iter(_NESTED_511_BINARY)))
        _NESTED_511_BINARY[size] = (wire[:start], body, head + items // 2 * 511)
    return _NESTED_511_BINARY[size]


def twin_nested_511_binary(form: str, size: int) -> bytes:
    framing, body, _ = _nested_511_binary(size)
    return framing + body


def _at_the_middle(size: int, offset: int, cut: int, new: bytes) -> bytes:
    """The nested-511 wire with ``cut`` bytes at ``offset`` into the middle item replaced by ``new``."""
    framing, body, middle = _nested_511_binary(size)
    at = middle + offset
    return framing + body[:at] + new + body[at + cut:]


def fam_nested_511_trailing_bytes(form: str, size: int) -> bytes:
    return twin_nested_511_binary(form, size) + b"\x00"


def fam_nested_511_cut_in_wide_head(form: str, size: int) -> bytes:
    """The last item's innermost item replaced by ``0x98`` (a one-byte-length head) and nothing after it."""
    return twin_nested_511_binary(form, size)[:-1] + b"\x98"


def fam_nested_511_non_shortest_head(form: str, size: int) -> bytes:
    return _at_the_middle(size, 255, 1, b"\x98\x01")  # a one-item array at depth 257, its length in a byte


def fam_nested_511_indefinite(form: str, size: int) -> bytes:
    rest = 511 - 255  # the middle item from depth 257 on: 254 one-item heads and its integer
    return _at_the_middle(size, 255, rest, b"\x9f" + b"\x81" * (rest - 2) + b"\x01\xff")


def fam_nested_511_half_float(form: str, size: int) -> bytes:
    return _at_the_middle(size, 510, 1, b"\xf9\x3c\x00")  # 1.0 in half precision


def fam_nested_511_tag(form: str, size: int) -> bytes:
    return _at_the_middle(size, 510, 1, b"\xc1\x01")  # tag 1 (epoch time) around 1


def fam_nested_511_too_deep(form: str, size: int) -> bytes:
    return _at_the_middle(size, 0, 0, b"\x81\x81")  # the middle item 513 levels deep


def fam_nested_511_duplicate_key(form: str, size: int) -> bytes:
    return _at_the_middle(size, 510, 1, b"\xa2\x61a\x00\x61a\x01")  # {"a":0,"a":1}


#: (body bytes, document bytes) of the items the valid mixed family puts in the
#: middle items' innermost place: a float, a string, a wider integer, a map, a bignum.
_OTHER_ITEMS = (
    (b"\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00", b"1.5"),
    (b"\x63a@b", b'"a@b"'),
    (b"\x1a\x00\x01\x86\xa0", b"100000"),
    (b"\xa1\x61a\x61b", b'{"a":"b"}'),
    (b"\xc2\x49\x01" + b"\x00" * 8, b"18446744073709551616"),
)


def fam_nested_511_other_items(form: str, size: int) -> bytes:
    """Valid: the middle item and the four after it hold a float, a string, a
    wider integer, a map and a bignum at their innermost place."""
    from codec.projection import source_digest

    binary = _framing()[2]
    _, body, middle = _nested_511_binary(size)
    head = len(body) - (len(body) - 1) // 511 * 511
    cbor, at = [body[:middle]], middle
    for item, _ in _OTHER_ITEMS:
        cbor += [body[at:at + 510], item]
        at += 511
    cbor.append(body[at:])
    inner = b"[" * 510 + b"1" + b"]" * 510
    items = [inner] * ((len(body) - head) // 511)
    k = (middle - head) // 511
    for j, (_, spelled) in enumerate(_OTHER_ITEMS):
        items[k + j] = b"[" * 510 + spelled + b"]" * 510
    return binary(b"".join(cbor), source_digest(b"[" + b",".join(items) + b"]").encode())


#: The families above, binary only.
BINARY_NESTED_511 = {
    "nested-511-trailing-bytes": fam_nested_511_trailing_bytes,
    "nested-511-cut-in-wide-head": fam_nested_511_cut_in_wide_head,
    "nested-511-non-shortest-head": fam_nested_511_non_shortest_head,
    "nested-511-indefinite": fam_nested_511_indefinite,
    "nested-511-half-float": fam_nested_511_half_float,
    "nested-511-tag": fam_nested_511_tag,
    "nested-511-too-deep": fam_nested_511_too_deep,
    "nested-511-duplicate-key": fam_nested_511_duplicate_key,
    "nested-511-other-items (valid)": fam_nested_511_other_items,
}
TWINS.update({name: twin_nested_511_binary for name in BINARY_NESTED_511})
FAMILIES.update({name: (("binary",), build) for name, build in BINARY_NESTED_511.items()})


# --- the run ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--sizes", type=float, nargs="+", default=[1, 2, 4, 8, 16], help="wire sizes in MiB")
    ap.add_argument("--quick", action="store_true", help="sizes 1 and 16 only, one baseline run")
    ap.add_argument("--repeat", type=int, default=3, help="baseline runs per form (median and range)")
    ap.add_argument("--cap-mib", type=int, default=None, help="address-space cap for every decode, e.g. 1024")
    ap.add_argument("--families", nargs="+", choices=sorted(FAMILIES), help="only these families")
    ap.add_argument("--no-limits", action="store_true", help="skip the limit cases")
    ap.add_argument("--json", type=Path, help="also write every row here")
    ap.add_argument("--family-repeat", type=int, default=1,
                    help="measure each family row (and its twin) this many times: medians with the range")
    ap.add_argument("--entry", choices=("decode", "layout"), default="decode",
                    help="what each family row runs: decode_wire, or layout_wire (baselines and twins are "
                         "always decode_wire: the issue's bound is a valid decode of the same size and form)")
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child, args.entry)
    sizes = [1, 16] if args.quick else args.sizes
    repeat = 1 if args.quick else args.repeat
    families = {k: v for k, v in FAMILIES.items() if k in args.families} if args.families else {
        k: v for k, v in FAMILIES.items() if k not in ONLY_WHEN_NAMED}
    rows: list[dict] = []
    baseline: dict[str, dict] = {}
    cap = f", address space capped at {args.cap_mib} MiB" if args.cap_mib else ""
    print(f"# bench_hostile: Python {sys.version.split()[0]}, {os.cpu_count()} cores{cap}\n", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        work = Path(tmp)
        print("## Baseline: decode_wire of a valid graph-shaped 16 MiB wire\n")
        print("| form | wire bytes | CPU s (median, range) | wall s | peak RSS MiB (median) | outcome |")
        print("|---|---:|---|---:|---:|---|", flush=True)
        for form in FORMS:
            wire = fam_valid(form, 16 * MiB)
            runs = [measure(wire, args.cap_mib, work) for _ in range(repeat)]
            secs = [r["seconds"] for r in runs]
            cpus = [r["cpu"] for r in runs]
            rss = [r["rss_mib"] for r in runs]
            baseline[form] = {"cpu": statistics.median(cpus), "rss_mib": statistics.median(rss)}
            print(f"| {form} | {len(wire):,} | {statistics.median(cpus):.2f} ({min(cpus):.2f}-{max(cpus):.2f}) | "
                  f"{statistics.median(secs):.2f} | {statistics.median(rss):.0f} | {runs[0]['outcome']} |", flush=True)
            rows.append({"case": "valid graph 16 MiB", "form": form, "size": len(wire), "runs": runs})

        def row(name: str, form: str, size_label: str, wire: bytes, base: dict | None = None) -> dict:
            r = measure(wire, args.cap_mib, work, args.entry)
            against = "twin" if base is not None else "graph 16 MiB"
            base = base or baseline[form]
            r.update(case=name, form=form, size=len(wire), size_label=size_label, against=against,
                     time_ratio=r["cpu"] / base["cpu"], rss_ratio=r["rss_mib"] / base["rss_mib"])
            flag = " **over**" if r["time_ratio"] > 5 or r["rss_ratio"] > 2 else ""
            print(f"| {name} | {form} | {size_label} | {r['cpu']:.2f} | {r['time_ratio']:.2f}x | "
                  f"{r['rss_mib']:.0f} | {r['rss_ratio']:.2f}x | {against} | {r['outcome']}{flag} |", flush=True)
            rows.append(r)
            return r

        print(f"\n## Families, by size (ratios to the baseline of the same form; rows run {args.entry})\n")
        print("| family | form | wire MiB | CPU s | time ratio | peak RSS MiB | RSS ratio | against | outcome |")
        print("|---|---|---:|---:|---:|---:|---:|---|---|", flush=True)
        linear: list[tuple[str, str, tuple[float, float], tuple[float, float]]] = []
        repeated: list[tuple[str, str, int, list[dict]]] = []
        for name, (forms, build) in families.items():
            for form in forms:
                by_size: dict[float, float] = {}
                last = 0
                for size in sizes:
                    wire = build(form, int(size * MiB))
                    if wire is None or len(wire) > 16 * MiB or len(wire) <= last:
                        continue  # over the wire limit, or capped by the document limit
                    last = len(wire)
                    pairs = []
                    for _ in range(args.family_repeat):
                        twin = None
                        if name in TWINS:  # the valid twin of the same size and form, measured first
                            # a valid decode of the same size: the wire's, or for a valid family
                            # the document's (the graph document compresses in text and v2)
                            same = int(size * MiB) if name.endswith("(valid)") else len(wire)
                            twin = measure(TWINS[name](form, same), args.cap_mib, work)
                            print(f"| (valid twin) | {form} | {len(wire) / MiB:.1f} | {twin['cpu']:.2f} | | "
                                  f"{twin['rss_mib']:.0f} | | | {twin['outcome']} |", flush=True)
                        pairs.append(row(name, form, f"{len(wire) / MiB:.1f}", wire, twin))
                    by_size[size] = statistics.median(r["cpu"] for r in pairs)
                    if args.family_repeat > 1:
                        repeated.append((name, form, len(wire), pairs))
                if len(by_size) > 1:
                    linear.append((name, form, min(by_size.items()), max(by_size.items())))
        if not args.no_limits:
            print("\n## Limit cases\n")
            print("| case | form | size | CPU s | time ratio | peak RSS MiB | RSS ratio | against | outcome |")
            print("|---|---|---:|---:|---:|---:|---:|---|---|", flush=True)
            for name, (form, wire) in limit_cases().items():
                row(name, form, f"{len(wire):,} B", wire)
        if repeated:
            print(f"\n## Families, medians of {args.family_repeat} (each run a family and its baseline or twin "
                  "in turn; the range in brackets)\n")
            print("| family | form | wire MiB | CPU s | time ratio | RSS ratio | against |")
            print("|---|---|---:|---:|---|---|---|")
            for name, form, size_bytes, pairs in repeated:
                t = [r["time_ratio"] for r in pairs]
                m = [r["rss_ratio"] for r in pairs]
                print(f"| {name} | {form} | {size_bytes / MiB:.1f} | {statistics.median(r['cpu'] for r in pairs):.2f} | "
                      f"{statistics.median(t):.2f}x ({min(t):.2f}-{max(t):.2f}) | "
                      f"{statistics.median(m):.2f}x ({min(m):.2f}-{max(m):.2f}) | {pairs[0]['against']} |")
        print("\n## Linearity: CPU time at the largest size over CPU time at the smallest")
        print("(target: at most 20x from 1 to 16 MiB, that is at most 1.25x the size ratio; medians with --family-repeat)\n")
        print("| family | form | small MiB | CPU s | large MiB | CPU s | time ratio | size ratio |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name, form, (lo, small), (hi, large) in linear:
            note = " (under 0.1 s: timer noise)" if large < 0.1 else ""
            print(f"| {name} | {form} | {lo:g} | {small:.3f} | {hi:g} | {large:.2f} | "
                  f"{large / max(small, 1e-9):.1f}x{note} | {hi / lo:g}x |")
    over = [r for r in rows if r.get("time_ratio", 0) > 5 or r.get("rss_ratio", 0) > 2]
    escapes = [r for r in rows if "ESCAPE" in r.get("outcome", "") or "MemoryError" in r.get("outcome", "")]
    print(f"\n{len(rows)} decodes; {len(over)} over a target; {len(escapes)} escape(s) or MemoryError(s)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 1 if escapes else 0


if __name__ == "__main__":
    sys.exit(main())
