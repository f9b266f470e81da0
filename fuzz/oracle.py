"""The fuzzing oracle: what every decoder must do with any input at all.

For any bytes, a decoder returns a projection or raises ``CompactError``; any other
exception is a finding (it propagates out of these functions, and the fuzzer
reports it with its input). Beyond that:

- an accepted wire re-encodes to itself, byte for byte;
- every diagnostic offset lies within the input;
- the structured parse (``layout_model_text``) agrees with the decoder: valid
  exactly when the decoder accepts, the same code and offset when not, and every
  span, reference and document offset it lists lies within what was read;
- (issue 23, round 3) ``decode_wire`` gives the same verdict for the wire as
  ``bytes``, ``bytearray`` and ``memoryview`` and from deep in the caller's
  stack; an accepted projection round-trips through every form and the
  constructor; ``layout_wire``'s partial layouts (``through=``), ``stopped_at``,
  ``references`` and ``projection`` agree with the full layout and the decoder;
  a bytes-like wire over 16 MiB is the size limit's diagnostic.

Hangs and memory overruns are caught by the fuzzer's own ``-timeout`` and
``-rss_limit_mb`` (semaprax bench fuzz sets both, plus an address-space cap).
"""

from __future__ import annotations

from collections.abc import Callable

import codec
from codec import CompactError, CompactProjection


class OracleViolation(AssertionError):
    """A decoder broke the contract without raising the wrong exception type."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise OracleViolation(message)


def check_error(error: CompactError, data: bytes) -> None:
    _require(error.code in codec.CODES, f"unknown code {error.code!r}")
    _require(
        error.offset is None or (type(error.offset) is int and 0 <= error.offset <= len(data)),
        f"offset {error.offset!r} outside 0..{len(data)}: {error!r}",
    )
    _require(isinstance(error.message, str) and error.message != "", "empty message")
    _require(str(error).startswith(error.code), f"str() of a diagnostic does not start with its code: {error!r}")


def outcome(decode: Callable[[bytes], object], data: bytes) -> object:
    """``decode(data)``, or the CompactError it raised (checked)."""
    try:
        return decode(data)
    except CompactError as error:
        check_error(error, data)
        return error


def _reencodes(form: str, result: object, data: bytes) -> None:
    if form == "json":
        again = result.selected if isinstance(result, codec.DecodedWire) else result
    else:
        p = result.projection if isinstance(result, codec.DecodedWire) else result
        _require(isinstance(p, CompactProjection), f"{form}: returned {type(p).__name__}")
        again = codec.ENCODERS[form](p)
    _require(again == data, f"{form}: accepted a wire that does not re-encode to itself")


def check_form(form: str, data: bytes) -> object:
    """The form's own decoder, and ``decode_wire`` agreeing with it."""
    decode = {
        "json": codec.decode_json,
        "text": codec.decode_text,
        "binary": codec.decode_binary,
        "model-text": codec.decode_model_text,
    }[form]
    result = outcome(decode, data)
    if not isinstance(result, CompactError):
        _reencodes(form, result, data)
    try:
        detected = codec.detect_form(data)
    except CompactError:
        detected = None
    via = outcome(codec.decode_wire, data)
    if detected == form:  # decode_wire dispatches to this very decoder: the same verdict
        if isinstance(result, CompactError):
            _require(
                isinstance(via, CompactError) and (via.code, via.offset) == (result.code, result.offset),
                f"decode_wire said {via!r}, the {form} decoder {result!r}",
            )
        else:
            _require(not isinstance(via, CompactError), f"decode_wire rejected what {form} accepted: {via!r}")
    elif not isinstance(via, CompactError):
        _reencodes(via.form, via, data)
    return result


def _verdict(result: object) -> object:
    """What two decodes of one wire must agree on: the code and offset of a
    diagnostic, or the form and bytes of what was accepted."""
    if isinstance(result, CompactError):
        return (result.code, result.offset)
    assert isinstance(result, codec.DecodedWire)
    return (result.form, result.selected, result.projection)


def _same(a: object, b: object) -> bool:
    """Equal results, diagnostics compared by code and offset."""
    if isinstance(a, CompactError) or isinstance(b, CompactError):
        return isinstance(a, CompactError) and isinstance(b, CompactError) and (a.code, a.offset) == (b.code, b.offset)
    return a == b


def _at_depth(frames: int, call: Callable[[], object]) -> object:
    """``call()`` run ``frames`` Python frames below this one."""
    return call() if frames <= 0 else _at_depth(frames - 1, call)


#: How deep in the caller's stack the deep-value check decodes: with 512 levels
#: of nesting this runs out of the default recursion limit (1,000), so the
#: decoder must finish on a fresh stack (``projection.with_stack``).
CALLER_FRAMES = 600

#: Accepted documents up to this size round-trip through every form (a 16 KiB v2
#: wire may stand for a 16 MiB document: encoding that four times would make the
#: harness, not the decoder, slow).
ROUND_TRIP_BYTES = 1 << 20


def _every_form_round_trips(p: CompactProjection) -> None:
    """An accepted projection, encoded in every form, decodes back to itself."""
    for form in codec.FORMS:
        try:
            wire = codec.ENCODERS[form](p)
        except CompactError as error:  # only a wire over the 16 MiB limit may be refused
            _require(error.code == "compact.limit", f"{form}: encoding a decoded projection raised {error!r}")
            continue
        again = outcome(codec.decode_wire, wire)
        _require(
            isinstance(again, codec.DecodedWire) and again.form == form and again.selected == p.selected,
            f"{form}: the encoding of a decoded projection decodes to {again!r}",
        )
        assert isinstance(again, codec.DecodedWire)
        _require(again.format_version == codec.FORMAT_VERSIONS[form], f"{form}: format version")
        if form != "json":
            _require(again.projection == p, f"{form}: the projection changed in a round trip")


def check_wire(data: bytes) -> object:
    """``decode_wire`` on anything: the form it detects, re-encoding included;
    the same verdict for the wire as a ``bytearray`` or ``memoryview`` and from
    deep in the caller's stack (a deeply nested input); an accepted projection
    round-trips through every form (a full JSON document as the selected bytes
    of a projection the constructor builds)."""
    result = outcome(codec.decode_wire, data)
    if not isinstance(result, CompactError):
        _reencodes(result.form, result, data)
    verdict = _verdict(result)
    form = outcome(codec.detect_form, data)
    for like in (bytearray(data), memoryview(data)):
        _require(_same(outcome(codec.detect_form, like), form), f"detect_form of a {type(like).__name__}")
        _require(_verdict(outcome(codec.decode_wire, like)) == verdict,
                 f"decode_wire of a {type(like).__name__} differs from that of bytes")
    if data.count(b"[") + data.count(b"{") >= 400:  # nesting may be near the 512 limit
        deep = outcome(lambda wire: _at_depth(CALLER_FRAMES, lambda: codec.decode_wire(wire)), data)
        _require(_verdict(deep) == verdict, f"decode_wire {CALLER_FRAMES} frames deep said {deep!r}, at the top {result!r}")
    if isinstance(result, codec.DecodedWire) and len(result.selected) <= ROUND_TRIP_BYTES:
        p = result.projection
        if p is None:
            p = CompactProjection("graph", "a.py", "r", result.selected)
        else:
            _require(CompactProjection(p.profile, p.root, p.source_revision, p.selected) == p,
                     "the constructor disagrees with the decoder")
        _every_form_round_trips(p)
    return result


def check_verify(data: bytes) -> object:
    """``decode_model_text_and_verify`` with the metadata the wire claims (so a
    valid wire is accepted) or with one value changed (so binding is reached)."""
    layout = codec.layout_model_text(data)
    profile, root, revision = (layout.metadata or ("graph", "a.py", "r"))[:3]
    if data and data[-1] & 1:
        revision = revision + "-other"
    result = outcome(
        lambda wire: codec.decode_model_text_and_verify(wire, profile=profile, root=root, source_revision=revision),
        data,
    )
    if layout.valid:
        if data[-1] & 1:
            _require(isinstance(result, CompactError) and result.code == "compact.binding", f"{result!r}")
        else:
            _require(not isinstance(result, CompactError), f"valid wire rejected on its own metadata: {result!r}")
        # check_binding checks only the values it is given (None: not checked)
        p = layout.projection
        _require(p is not None and p.selected == layout.document, "a valid layout without its projection")
        assert p is not None
        codec.check_binding(p, profile=None, root=None, source_revision=None)
        try:
            codec.check_binding(p, profile=p.profile, root=None, source_revision=p.source_revision + "-other")
            _require(False, "check_binding accepted another source_revision")
        except CompactError as error:
            _require(error.code == "compact.binding" and "source_revision" in error.message, f"{error!r}")
    return result


def check_layout(data: bytes) -> object:
    """The structured parse agrees with the decoder, and stays within the input."""
    layout = codec.layout_model_text(data)
    decoded = outcome(codec.decode_model_text, data)
    size = len(data)
    _require(layout.wire_size == size, "wire_size")
    if isinstance(decoded, CompactError):
        _require(layout.error is not None, f"layout says valid, decoder said {decoded!r}")
        _require(
            (layout.error.code, layout.error.offset) == (decoded.code, decoded.offset),
            f"layout stopped at {layout.error!r}, decoder at {decoded!r}",
        )
        check_error(layout.error, data)
    else:
        _require(layout.valid, f"decoder accepted, layout says {layout.error!r}")
        _require(layout.document == decoded.selected, "layout document differs from the decoded one")
    spans = [layout.header, *(f.line for f in layout.fields), *(f.value for f in layout.fields), *layout.entry_spans]
    spans += [s for s in (layout.dict_line, layout.body_marker, layout.body) if s is not None]
    for span in spans:
        _require(0 <= span.start <= span.end <= size, f"span {span} outside 0..{size}")
    n = len(layout.entries)
    _require(len(layout.ref_wire) == len(layout.ref_index) == len(layout.ref_doc), "reference arrays differ in length")
    stop = size if layout.error is None or layout.error.offset is None else layout.error.offset
    body_start = layout.body.start if layout.body is not None else size
    for wire_at, index, doc_at in zip(layout.ref_wire, layout.ref_index, layout.ref_doc):
        _require(body_start <= wire_at < size and data[wire_at] == 0x40, f"reference at {wire_at} is not an '@'")
        _require(0 <= index < n, f"reference index {index} of {n}")
        _require(0 <= doc_at <= codec.limits.MAX_SELECTED_BYTES, f"document offset {doc_at}")
        if layout.document is None:
            _require(wire_at < stop, f"reference at {wire_at} listed past where decoding stopped ({stop})")
        else:
            _require(doc_at + len(layout.entries[index]) <= len(layout.document), "expansion past the document")
    _require(sum(layout.reference_counts) == len(layout.ref_index), "reference counts")
    return decoded


def check_layout_wire(data: bytes) -> object:
    """``layout_wire`` (any form) never raises, agrees with ``decode_wire`` (valid
    exactly when it accepts, the same code and offset when not) and lists only
    spans within the input; the binary form's CBOR items lie within the body."""
    layout = codec.layout_wire(data)
    decoded = outcome(codec.decode_wire, data)
    size = len(data)
    _require(layout.wire_size == size, "wire_size")
    error = layout.error
    if isinstance(decoded, CompactError):
        _require(error is not None, f"layout_wire says valid, decode_wire said {decoded!r}")
        assert error is not None
        _require(
            (error.code, error.offset) == (decoded.code, decoded.offset),
            f"layout_wire stopped at {error!r}, decode_wire at {decoded!r}",
        )
    else:
        _require(layout.valid and isinstance(decoded, codec.DecodedWire), f"decode_wire accepted, layout_wire says {error!r}")
        assert isinstance(decoded, codec.DecodedWire)
        _require(layout.document == decoded.selected, "layout document differs from the decoded one")
    spans = [s for s in (layout.header, layout.dict_line, layout.body_marker, layout.body) if s is not None]
    spans += [*(f.line for f in layout.fields), *(f.value for f in layout.fields), *layout.entry_spans]
    for span in spans:
        _require(0 <= span.start <= span.end <= size, f"span {span} outside 0..{size}")
    if layout.cbor is not None and layout.body is not None:
        items = layout.cbor
        for k in range(len(items)):
            _require(layout.body.start <= items.start[k] <= items.head_end[k] <= layout.body.end,
                     f"CBOR item {k} outside the body")  # wire offsets
            _require(items.end[k] == -1 or items.head_end[k] <= items.end[k] <= layout.body.end,
                     f"CBOR item {k} ends outside the body")
    if layout.document is not None and len(layout.document) < 4096:
        layout.values  # noqa: B018 - the document's values with their spans: built, never raising
    _require(layout.stopped_at == (size if error is None or error.offset is None else error.offset), "stopped_at")
    for ref in layout.references:
        _require(layout.body is not None and layout.body.start <= ref.wire.start < ref.wire.end <= size,
                 f"reference {ref} outside the body")
        _require(data[ref.wire.start : ref.wire.end] == layout.reference_token(ref.index), f"reference {ref} spelling")
    if layout.valid and layout.form != "json":
        _require(isinstance(decoded, codec.DecodedWire) and layout.projection == decoded.projection,
                 "layout projection differs from the decoded one")
        _require(layout.digest_verified is True, "a valid wire whose digest is not verified")
    _check_partial_layouts(data, layout)
    _check_large_bytes_like(data)
    return decoded


def _check_partial_layouts(data: bytes, full: codec.WireLayout) -> None:
    """``layout_wire(through=…)`` runs the stages up to the one named and agrees
    with the full layout on what it ran: the same failure if one of them failed,
    else a partial layout that claims neither validity nor a verified digest."""
    for through in ("envelope", "dictionary"):
        part = codec.layout_wire(data, through=through)
        _require((part.form, part.header, part.fields) == (full.form, full.header, full.fields),
                 f"through={through}: the envelope differs from the full layout's")
        if part.error is not None:
            _require(full.error is not None and (part.stage, part.error.code, part.error.offset)
                     == (full.stage, full.error.code, full.error.offset),
                     f"through={through} stopped at {part.error!r} in {part.stage}, the full layout at {full.error!r}")
        else:
            _require(part.partial and not part.valid, f"through={through}: a layout of some stages claims validity")
            _require(part.digest_verified is None, f"through={through}: digest_verified without the digest stage")
            _require(full.stage is None or full.stage not in ("envelope", through),
                     f"through={through} passed a stage where the full layout failed")


#: One bytes-like wire just over the 16 MiB limit, allocated on first use.
_LARGE: list[bytearray] = []


def _check_large_bytes_like(data: bytes) -> None:
    """A ``bytearray`` or ``memoryview`` over the limit that starts with ``data``:
    ``layout_wire`` gives the size limit's diagnostic with the real size, without
    a copy, and ``decode_wire`` the same diagnostic."""
    if not _LARGE:
        _LARGE.append(bytearray(codec.limits.MAX_WIRE_BYTES + 1))
    large = _LARGE[0]
    head = data[:64]
    large[: len(head)] = head
    try:
        for like in (large, memoryview(large)):
            layout = codec.layout_wire(like)
            _require(layout.error is not None and layout.error.code == "compact.limit"
                     and layout.wire_size == len(large) and layout.document is None,
                     f"layout_wire of a large {type(like).__name__}: {layout.error!r}")
            assert layout.error is not None
            decoded = outcome(codec.decode_wire, like)
            _require(_same(decoded, layout.error),
                     f"decode_wire of a large {type(like).__name__}: {decoded!r}, layout_wire: {layout.error!r}")
    finally:
        large[: len(head)] = bytes(len(head))


def _halves(data: bytes) -> tuple[bytes, bytes]:
    """Two wires from one input: split at the first ``\x00\xff\x00`` if any,
    else at the middle (so a seed of two wires compares them)."""
    cut = data.find(b"\x00\xff\x00")
    if cut >= 0:
        return data[:cut], data[cut + 3 :]
    return data[: len(data) // 2], data[len(data) // 2 :]


def check_compare(data: bytes) -> object:
    """The inspector's comparison of two wires (any bytes) runs to its end
    without an exception, and finds no change between a wire and itself."""
    from inspector.compare import compare
    from inspector.model import load_bytes

    left, right = _halves(data)
    a, b = load_bytes(left, "left"), load_bytes(right, "right")
    last = None
    for last in compare(a, b, count_tokens=False):
        pass
    same = None
    for same in compare(a, load_bytes(left, "again"), count_tokens=False):
        pass
    _require(same is not None and same.total_changes == 0, "a wire differs from itself")
    return last


def check_repair(data: bytes) -> object:
    """The inspector's repair plan of any bytes runs without an exception; a plan
    that says it verifies gives a wire ``decode_wire`` accepts."""
    from inspector.model import load_bytes
    from inspector.repair import plan

    result = plan(load_bytes(data, "input"))
    if result.verifies:
        _require(not isinstance(outcome(codec.decode_wire, result.repaired), CompactError),
                 "a repair plan that verifies gave a wire decode_wire rejects")
    return result


#: Harness name -> the oracle it runs on one input.
TARGETS: dict[str, Callable[[bytes], object]] = {
    "decode_model_text": lambda data: check_form("model-text", data),
    "decode_text": lambda data: check_form("text", data),
    "decode_binary": lambda data: check_form("binary", data),
    "decode_json": lambda data: check_form("json", data),
    "decode_wire": check_wire,
    "decode_model_text_and_verify": check_verify,
    "layout_model_text": check_layout,
    "layout_wire": check_layout_wire,
    "compare": check_compare,
    "repair": check_repair,
}
