"""Token counting for the inspector, with no Textual in it: every form of the
loaded projection, and each dictionary entry's net tokens saved. Results are
cached by the SHA-256 of the counted bytes, so reopening a wire costs nothing.

Each entry's saving comes from the cost ledger's attribution of the whole wire
and full JSON (``inspector/ledger.py``), never from its literal counted alone:
a literal's tokens depend on its neighbours."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
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
    key = hashlib.sha256(data).digest()
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = count_in_pieces(data)
        with _LOCK:
            _CACHE[key] = hit
    return hit


#: Counting cuts a text into pieces of about this many bytes.
COUNT_PIECE = 1 << 20


def count_in_pieces(data: bytes, piece: int = COUNT_PIECE) -> dict[str, int]:
    """``views.tokens.count_tokens(data)``, exactly, counted a piece at a time:
    the text is cut at restart points (``token_spans``: boundaries of the
    tokenizers' pieces whatever the text around them, and ASCII bytes, so each
    piece decodes as it does inside the whole). Encoding 16 MiB at once made a
    list of four million token ids, 150 MB of Python objects, in the counting
    process; a piece's list is a sixteenth of that at most."""
    from views import tokens

    from . import token_spans

    counts = dict.fromkeys(tokens.ENCODING_NAMES, 0)
    pos, end = 0, len(data)
    while pos < end:
        cut = token_spans.restart_after(data, pos + piece) if pos + piece < end else end
        text = data[pos:cut].decode("utf-8", errors="replace")
        for name in tokens.ENCODING_NAMES:
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


def _forms(loaded: Loaded) -> tuple[dict[str, bytes], str]:
    """Every form to count, and a note on the forms that are absent and why."""
    wires = encodings_of(loaded)
    note = ""
    if not wires:
        wires = {"given": loaded.wire}
        why = f"it was rejected ({loaded.error.code})" if loaded.error else "it holds no projection"
        note = f"only the wire as given is counted: the other forms are encoded from the decoded projection, and {why}"
    elif loaded.projection is None:
        note = "full JSON carries no metadata, so the other forms cannot be encoded from it"
    return wires, note


def count_all(loaded: Loaded, cancelled: Callable[[], bool] = lambda: False, *,
              here: bool = False) -> Iterator[Counts]:
    """Counts as they grow: first the sizes, then each form, then the entries.
    A wire that does not decode is counted as given, and the note says why
    the other forms are absent. ``cancelled`` stops between steps. A large
    wire is counted in a child process unless ``here``."""
    if len(loaded.wire) >= PROCESS_FROM and not here:
        yield from _count_in_child(loaded, cancelled)
        return
    from views import tokens

    wires, note = _forms(loaded)
    counts = Counts(loaded, sizes={f: len(w) for f, w in wires.items()}, note=note,
                    infos=tuple(tokens.tokenizer_info()))
    yield counts
    for form in (*FORM_ORDER, "given"):
        if cancelled():
            return
        if form in wires and form != "binary":
            counts = replace(counts, tokens={**counts.tokens, form: count_bytes(wires[form])})
            yield counts
    if loaded.entries and not cancelled():
        counts = replace(counts, saved=entries_saved(loaded, wires.get("json"), cancelled))
    yield replace(counts, done=True)


def _count_in_child(loaded: Loaded, cancelled: Callable[[], bool]) -> Iterator[Counts]:
    """The same steps in a child process (``python -m inspector.worker count``),
    handed what the loader already decoded and verified (``_counted_parts``):
    it encodes the other forms and counts, and the parent's interpreter lock
    stays free."""
    for item in child.results("count", _counted_parts(loaded), cancelled):
        yield Counts(loaded, **item)


def _counted_parts(loaded: Loaded) -> Loaded:
    """The parts of ``loaded`` that counting reads (the wire, the projection,
    the verdict, the entries and their uses), without the derived views, so
    the child neither decodes the wire again nor receives what it does not use."""
    return Loaded(loaded.name, loaded.wire, loaded.form, projection=loaded.projection, error=loaded.error,
                  entries=loaded.entries, reference_counts=loaded.reference_counts,
                  entry_spans=loaded.entry_spans, ref_wire=loaded.ref_wire, ref_index=loaded.ref_index,
                  ref_doc=loaded.ref_doc, body_start=loaded.body_start)


def stop_children() -> None:
    """Kill every counting (or loading) process still running (the app is closing)."""
    child.stop_children()


def child_steps(loaded: Loaded) -> Iterator[dict[str, object]]:
    """The child's side (``python -m inspector.worker count``, at a lower
    scheduling priority than the interface: counting is background work, and on
    two busy cores the interface process keeps the CPU for the keys): the parts
    of a loaded wire in, each step's fields out."""
    for counts in count_all(loaded, here=True):
        yield {f.name: getattr(counts, f.name) for f in fields(counts) if f.name != "source"}
