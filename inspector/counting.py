"""Token counting for the inspector, with no Textual in it: every form of the
loaded projection, and each dictionary entry's net tokens saved. Results are
cached by the SHA-256 of the counted bytes, so reopening a wire costs nothing.

Each entry's saving comes from the cost ledger's attribution of the whole wire
and full JSON (``inspector/ledger.py``), never from its literal counted alone:
a literal's tokens depend on its neighbours."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields, replace

from . import child
from .model import Loaded, encodings_of
from .values import Counts

_CACHE: dict[bytes, dict[str, int]] = {}
_SAVED: dict[bytes, dict[str, list[int]]] = {}
_LOCK = threading.Lock()

FORM_ORDER = ("json", "text", "model-text", "binary")


def count_bytes(data: bytes) -> dict[str, int]:
    """cl100k_base and o200k_base counts of ``data``, cached by its hash."""
    from views import tokens

    return {name: count_one(data, name) for name in tokens.ENCODING_NAMES}


def count_one(data: bytes, name: str) -> int:
    """The tokens of ``data`` in encoding ``name``, cached by the data's hash."""
    key = hashlib.sha256(data).digest()
    with _LOCK:
        hit = _CACHE.get(key, {}).get(name)
    if hit is None:
        hit = count_in_pieces(data, names=(name,))[name]
        with _LOCK:
            _CACHE.setdefault(key, {})[name] = hit
    return hit


#: Counting cuts a text into pieces of about this many bytes (a piece's token list
#: is a few MB; smaller pieces cost no measurable time).
COUNT_PIECE = 1 << 18


def count_in_pieces(data: bytes, piece: int = COUNT_PIECE, names: tuple[str, ...] | None = None) -> dict[str, int]:
    """``views.tokens.count_tokens(data)``, exactly, counted a piece at a time:
    the text is cut at restart points (``token_spans``: boundaries of the
    tokenizers' pieces whatever the text around them, and ASCII bytes, so each
    piece decodes as it does inside the whole). Encoding 16 MiB at once made a
    list of four million token ids, 150 MB of Python objects, in the counting
    process; a piece (256 KiB) makes a sixty-fourth of that at most. ``names``: only
    those encodings (default: every one)."""
    from views import tokens

    from . import token_spans

    names = tokens.ENCODING_NAMES if names is None else names
    counts = dict.fromkeys(names, 0)
    pos, end = 0, len(data)
    while pos < end:
        cut = token_spans.restart_after(data, pos + piece) if pos + piece < end else end
        text = data[pos:cut].decode("utf-8", errors="replace")
        for name in names:
            counts[name] += len(tokens.get_encoding(name).encode_ordinary(text))
        pos = cut
    return counts


def entries_saved(loaded: Loaded, full_json: bytes | None,
                  cancelled: Callable[[], bool] = lambda: False) -> dict[str, list[int]]:
    """Per entry and encoding: the tokens the entry saves against full JSON, from
    the cost ledger's attribution (``ledger.entry_savings``: its line and its
    ``@N`` uses against the same literals inline), so the entries and the rest
    add up to the wire's saving exactly. Negative when the entry costs. Empty
    when there is nothing to compare with."""
    from views import tokens

    from .ledger import entry_savings

    if full_json is None or not loaded.entries:
        return {}
    key = hashlib.sha256(loaded.wire).digest()
    with _LOCK:
        hit = _SAVED.get(key)
    if hit is not None:
        return hit
    saved = entry_savings(loaded, full_json, tuple(tokens.ENCODING_NAMES), cancelled)
    if saved is None:
        return {}
    with _LOCK:
        _SAVED[key] = saved
    return saved


#: Wires at least this large are counted in a child process: encoding the other
#: forms and counting 16 MiB holds the interpreter lock for seconds, which would
#: stall the keys. Smaller ones are counted in the worker thread.
PROCESS_FROM = 1 << 20


def _forms(loaded: Loaded) -> tuple[dict[str, bytes], dict[str, int], str]:
    """Every form to count, every form's size, and a note on the forms that
    are absent and why. Forms the layout process encoded (``loaded.encoded``)
    are taken as they are."""
    import codec

    handed = loaded.encoded if loaded.projection is not None else None
    if handed is not None:
        wires = encodings_of(loaded, tuple(f for f in codec.ENCODERS if f not in handed.sizes))
        wires.update(handed.forms)
        sizes = {f: len(wires[f]) if f in wires else handed.sizes[f] for f in codec.ENCODERS
                 if f in wires or f in handed.sizes}
        return {f: wires[f] for f in codec.ENCODERS if f in wires}, sizes, ""
    wires = encodings_of(loaded)
    note = ""
    if not wires:
        wires = {"given": loaded.wire}
        why = f"it was rejected ({loaded.error.code})" if loaded.error else "it holds no projection"
        note = f"only the wire as given is counted: the other forms are encoded from the decoded projection, and {why}"
    elif loaded.projection is None:
        note = "full JSON carries no metadata, so the other forms cannot be encoded from it"
    return wires, {f: len(w) for f, w in wires.items()}, note


def count_all(loaded: Loaded, cancelled: Callable[[], bool] = lambda: False, *,
              here: bool = False, one_vocabulary: bool = False) -> Iterator[Counts]:
    """Counts as they grow: first the sizes, then each form in one encoding,
    then in the other, then the entries' savings. A wire that does not decode
    is counted as given, and the note says why the other forms are absent.
    ``cancelled`` stops between steps. A large wire is counted in a child
    process unless ``here``. ``one_vocabulary``: let each encoding's
    vocabulary go once its counts are made (``views.tokens.release``), so the
    process holds one at a time (35 and 70 MB; the counting process does).

    The entries' savings are found in the same pass as the wire's and full
    JSON's counts (``token_spans.count_and_place`` answers ``ledger.entry_queries``),
    so neither text is tokenized twice nor held as a whole tokenization."""
    if len(loaded.wire) >= PROCESS_FROM and not here:
        yield from _count_in_child(loaded, cancelled)
        return
    from views import tokens

    from .ledger import entry_queries, is_utf8, savings_from_places
    from .token_spans import count_and_place

    wires, sizes, note = _forms(loaded)
    counts = Counts(loaded, sizes=sizes, note=note)
    wires.pop("binary", None)  # its tokens are not counted: its size is all it gives
    yield counts
    key = hashlib.sha256(loaded.wire).digest()
    with _LOCK:
        saved = _SAVED.get(key) if loaded.entries and "json" in wires else None
    placing = saved is None and loaded.entries and "json" in wires and wires.get("model-text") is loaded.wire \
        and is_utf8(loaded.wire)
    queries = dict(zip(("model-text", "json"), entry_queries(loaded))) if placing else {}
    found: dict[str, list[int]] = {}
    # the larger vocabulary (o200k) first: the smaller one then fits in the memory the first let go
    order = tokens.ENCODING_NAMES
    for name in reversed(order):
        counts = replace(counts, infos=tuple(sorted((*counts.infos, tokens.info(name)),
                                                    key=lambda i: order.index(i.name))))
        placed: dict[str, Sequence[int]] = {}
        for form in (*FORM_ORDER, "given"):
            if cancelled():
                return
            if form not in wires:
                continue
            if form in queries:
                result = count_and_place(wires[form], name, queries[form], cancelled=cancelled)
                if result is None:
                    return
                n, placed[form] = result
                _remember(wires[form], name, n)
            else:
                n = count_one(wires[form], name)
            got = {**counts.tokens.get(form, {}), name: n}
            counts = replace(counts, tokens={**counts.tokens, form: {k: got[k] for k in order if k in got}})
            yield counts
        if queries:
            found[name] = savings_from_places(loaded, placed["model-text"], placed["json"])
        if one_vocabulary:
            tokens.release(name)
    if queries:
        saved = found
        with _LOCK:
            _SAVED[key] = saved
    yield replace(counts, saved=saved or {}, done=True)


def _remember(data: bytes, name: str, n: int) -> None:
    key = hashlib.sha256(data).digest()
    with _LOCK:
        _CACHE.setdefault(key, {})[name] = n


def _count_in_child(loaded: Loaded, cancelled: Callable[[], bool]) -> Iterator[Counts]:
    """The same steps in a child process (``python -m inspector.worker count``),
    handed what the loader already decoded and verified (``_counted_parts``):
    it encodes the other forms and counts, and the parent's interpreter lock
    stays free. Forms the layout process is still encoding are waited for."""
    ready = loaded.encoded_ready
    while ready is not None and not ready.wait(0.1):
        if cancelled():
            return
    for item in child.results("count", _counted_parts(loaded), cancelled):
        yield Counts(loaded, **item)


def _counted_parts(loaded: Loaded) -> Loaded:
    """The parts of ``loaded`` that counting reads (the wire, the projection,
    the verdict, the entries and their uses, the forms the layout process
    encoded), without the derived views, so the child neither decodes the
    wire again nor receives what it does not use. The encoded forms are
    handed over once: ``loaded`` lets them go (a later count encodes again)."""
    parts = Loaded(loaded.name, loaded.wire, loaded.form, projection=loaded.projection, error=loaded.error,
                   entries=loaded.entries, reference_counts=loaded.reference_counts,
                   entry_spans=loaded.entry_spans, ref_wire=loaded.ref_wire, ref_index=loaded.ref_index,
                   ref_doc=loaded.ref_doc, body_start=loaded.body_start, encoded=loaded.encoded)
    loaded.encoded = None
    return parts


def stop_children() -> None:
    """Kill every counting (or loading) process still running (the app is closing)."""
    child.stop_children()


def child_steps(loaded: Loaded) -> Iterator[dict[str, object]]:
    """The child's side (``python -m inspector.worker count``, at a lower
    scheduling priority than the interface: counting is background work, and on
    two busy cores the interface process keeps the CPU for the keys): the parts
    of a loaded wire in, each step's fields out."""
    for counts in count_all(loaded, here=True, one_vocabulary=True):
        yield {f.name: getattr(counts, f.name) for f in fields(counts) if f.name != "source"}
