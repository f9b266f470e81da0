"""Token counting for the inspector, with no Textual in it: every form of the
loaded projection, and each dictionary entry's net tokens saved. Results are
cached by the SHA-256 of the counted bytes, so reopening a wire costs nothing.

Dictionary literals are counted one ``encode_ordinary`` call each:
``encode_ordinary_batch`` builds a new thread pool per call, which made 40,000
literals take 1.4 s instead of 0.1 s."""

from __future__ import annotations

import hashlib
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import fields, replace

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
    from workspace import tokens

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
        counts = replace(counts, saved=entries_saved(loaded))
    yield replace(counts, done=True)


def _count_in_child(loaded: Loaded, cancelled: Callable[[], bool]) -> Iterator[Counts]:
    """The same steps in a child process (``python -m inspector.count_child``),
    which decodes the wire itself: the parent's interpreter lock stays free."""
    child = subprocess.Popen([sys.executable, "-m", "inspector.count_child"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _CHILDREN.add(child)
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(loaded.wire)
        child.stdin.close()
        while not cancelled():
            try:
                fields = pickle.load(child.stdout)  # our own child's output
            except EOFError:
                break
            yield Counts(loaded, **fields)
    finally:
        if child.poll() is None:
            child.kill()
        err = child.stderr.read() if child.stderr is not None else b""
        child.wait()
        _CHILDREN.discard(child)
    if child.returncode not in (0, -signal.SIGKILL):
        raise RuntimeError(f"the counting process failed: {err.decode('utf-8', 'replace').strip()[-300:]}")


_CHILDREN: set[subprocess.Popen] = set()


def stop_children() -> None:
    """Kill every counting process still running (the app is closing)."""
    for child in list(_CHILDREN):
        if child.poll() is None:
            child.kill()


def child_main() -> None:
    """The child's side: a wire on standard input, each step's fields pickled
    on standard output, at a lower scheduling priority than the interface."""
    from .model import load_bytes

    try:  # counting is background work: the interface process keeps the CPU for the keys
        os.nice(10)
    except (AttributeError, OSError):  # pragma: no cover - a platform without nice
        pass
    wire = sys.stdin.buffer.read()
    out = sys.stdout.buffer
    for counts in count_all(load_bytes(wire, "counted"), here=True):
        pickle.dump({f.name: getattr(counts, f.name) for f in fields(counts) if f.name != "source"}, out)
        out.flush()
