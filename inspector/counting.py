"""Token counting for the inspector, with no Textual in it: every form of the
loaded projection, and each dictionary entry's net tokens saved. Results are
cached by the SHA-256 of the counted bytes, so reopening a wire costs nothing.

Dictionary literals are counted one ``encode_ordinary`` call each:
``encode_ordinary_batch`` builds a new thread pool per call, which made 40,000
literals take 1.4 s instead of 0.1 s."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from dataclasses import replace

from .messages import Counts
from .model import Loaded, encodings_of

_CACHE: dict[bytes, dict[str, int]] = {}
_SAVED: dict[bytes, dict[str, list[int]]] = {}
_LOCK = threading.Lock()

FORM_ORDER = ("json", "text", "model-text", "binary")


def count_bytes(data: bytes) -> dict[str, int]:
    """cl100k_base and o200k_base counts of ``data``, cached by its hash."""
    from workspace import tokens

    key = hashlib.sha256(data).digest()
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = tokens.count_tokens(data)
        with _LOCK:
            _CACHE[key] = hit
    return hit


def entries_saved(loaded: Loaded) -> dict[str, list[int]]:
    """Per entry and encoding: the tokens its references save against writing
    the literal inline at each use, minus its own dictionary line (the literal
    and its LF). Negative when the entry costs more than it saves."""
    from workspace import tokens

    key = hashlib.sha256(b"\n".join(loaded.entries)).digest() + bytes(str(loaded.reference_counts), "ascii")
    with _LOCK:
        hit = _SAVED.get(key)
    if hit is not None:
        return hit
    saved: dict[str, list[int]] = {}
    for name in tokens.ENCODING_NAMES:
        encode = tokens.get_encoding(name).encode_ordinary
        counts = loaded.reference_counts
        out = []
        for i, entry in enumerate(loaded.entries):
            literal = len(encode(entry.decode("utf-8", "replace")))
            ref = len(encode(f"@{i}"))
            out.append(counts[i] * (literal - ref) - literal - 1)
        saved[name] = out
    with _LOCK:
        _SAVED[key] = saved
    return saved


def count_all(loaded: Loaded) -> Iterator[Counts]:
    """Counts as they grow: first the sizes, then each form, then the entries.
    A wire that does not decode is counted as given, and the note says why
    the other forms are absent."""
    from workspace import tokens

    wires = encodings_of(loaded)
    note = ""
    if not wires:
        wires = {"given": loaded.wire}
        why = f"it was rejected ({loaded.error.code})" if loaded.error else "it holds no projection"
        note = f"only the wire as given is counted: the other forms are encoded from the decoded projection, and {why}"
    elif loaded.projection is None:
        note = "full JSON carries no metadata, so the other forms cannot be encoded from it"
    counts = Counts(loaded, sizes={f: len(w) for f, w in wires.items()}, note=note)
    yield counts
    counts = replace(counts, infos=tuple(tokens.tokenizer_info()))
    for form in (*FORM_ORDER, "given"):
        if form in wires and form != "binary":
            counts = replace(counts, tokens={**counts.tokens, form: count_bytes(wires[form])})
            yield counts
    if loaded.entries:
        counts = replace(counts, saved=entries_saved(loaded))
    yield replace(counts, done=True)
