"""Parsing and analysing with the same frames wherever the caller stands.

Python's limits on nesting are relative to the depth of the stack at the call:
``ast.parse`` turns the parser's tree into ``ast`` objects under a limit of
three times the frames left below the recursion limit, and the analysis
(analysis/resolver.py) meets RecursionError after the frames left. Called from
a command at depth 20 or from a pool worker at depth 60, the same file would
parse (or be too deep) in one and not in the other. So:

* ``parse`` gives ``ast.parse`` (and ``symtable``, for the files that need it)
  ``PARSE_FRAMES`` frames below the depth it is called at (``depth``: as the
  interpreter counts it, C calls included), in any thread: the recursion limit
  is moved for the call and put back. ``PARSE_FRAMES`` is twice what a default interpreter gives a
  top-level ``compile()``, so every file ``compile()`` accepts parses;
* ``staged`` gives a stage of the analysis ``STAGE_FRAMES`` frames below the
  frame it is called from, in any thread, the same way.

The recursion limit is the process's, but each thread counts its own depth,
so both hold one lock (``_LIMIT``, re-entrant: a stage parses string
annotations) for as long as the limit they set is in force: one thread's
stage or parse never runs under a limit another thread set, and each puts
back the limit it found, so none is left moved (before the lock, a server
thread's stage ran under whatever limit another thread's parse had set for
the moment, and a stage in one thread and a parse in another, putting back
in the wrong order, could leave the process's limit at twice its value). A
server's requests analyse one stage at a time (Python runs one thread at a
time anyway); a stage is one file's parse, preparation or resolution. Nor is
the limit ever set below the one found, which other threads' code (a codec
decoding on a fresh thread) may rely on: a call shallower than that limit
leaves ``frames`` first goes down to that depth (``_padded``, a few Python
frames, no C stack), so the limit it sets is the one found or higher.

A file too deep to parse within ``PARSE_FRAMES`` (Python's own ``compile``
refuses it too, with RecursionError or MemoryError) is not a syntax error: the
resolver gives it one ``too-deep`` problem.
"""

from __future__ import annotations

import ast
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, Literal, TypeVar

#: Frames ``parse`` gives ``ast.parse``: its tree conversion allows three nesting
#: levels a frame, so 6,000 levels (a top-level ``compile()`` of a default
#: interpreter allows about 3,000; the parser itself stops near 6,000).
PARSE_FRAMES = 2000
#: Frames a stage may use below the frame it starts at, whatever the depth of
#: the caller (a worker's loop or a command's), so RecursionError, and with it
#: the ``too-deep`` diagnostic, falls on the same files in any process.
STAGE_FRAMES = 960
#: What ``parse`` raises for a file too deep for it (the parser's own stack
#: gives MemoryError, the tree conversion RecursionError).
TOO_DEEP_ERRORS = (RecursionError, MemoryError)

_LIMIT = threading.RLock()
_SAID_DEPTH = re.compile(r"at the recursion depth (\d+)")
T = TypeVar("T")


def depth() -> int:
    """The recursion depth the interpreter counts where this is called: its
    Python frames and, on 3.11, the calls from C that count against the limit
    too (a test runner's or a pool's, which ``sys._getframe`` does not see).
    The interpreter says it when asked for a limit below it; where it does
    not, the frames."""
    old = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(1)  # refused (RecursionError) at any depth: nothing changes
    except RecursionError as exc:
        said = _SAID_DEPTH.search(str(exc))
        if said is not None:
            return int(said.group(1))
    else:  # (an interpreter that took it)
        sys.setrecursionlimit(old)
    frame: Any = sys._getframe(1)
    n = 0
    while frame is not None:
        n += 1
        frame = frame.f_back
    return n


def parse(source: str | bytes, filename: str = "<unknown>", mode: Literal["exec", "eval"] = "exec",
          *, table: Callable[[ast.AST], Any] | None = None, frames: int | None = None) -> tuple[ast.AST, Any]:
    """``ast.parse(source, filename, mode)`` with ``PARSE_FRAMES`` frames
    below this call (or ``frames``: fewer, to ask whether a tree is shallow,
    analysis/outline.py), and ``table(tree)`` (analysis/scopes.py's facts, or
    ``symtable``) under the same limit; raises what they raise (a file too
    deep: one of ``TOO_DEEP_ERRORS``)."""
    def parsed() -> tuple[ast.AST, Any]:
        tree = ast.parse(source, filename, mode)
        return tree, (table(tree) if table is not None else None)

    # (+1: ``parsed`` is a frame of its own)
    try:
        return _within((PARSE_FRAMES if frames is None else frames) + 1, parsed)
    except SyntaxError as exc:
        raise _placed(exc) from None


def _placed(exc: SyntaxError) -> SyntaxError:
    """``exc`` with a place a reader can use: Python says an unknown or
    undecodable coding declaration is at line 0, column -1 (the tokenizer
    reads the declaration before any line is numbered), and a view's rows
    number lines and columns from 1: such a place is line 1, column 1."""
    if exc.lineno is not None and exc.lineno < 1:
        exc.lineno = 1
    if exc.offset is not None and exc.offset < 1:
        exc.offset = 1
    return exc


def staged(fn: Callable[[], T]) -> T:
    """``fn()`` with ``STAGE_FRAMES`` frames to use, wherever it is called
    from, in any thread (holding ``_LIMIT`` while it runs)."""
    return _within(STAGE_FRAMES, fn)


def _within(frames: int, fn: Callable[[], T]) -> T:
    """``fn()`` called from a frame with ``frames`` frames left below it
    (RecursionError past them), holding ``_LIMIT``; the limit it found is put
    back, and never lowered meanwhile (``_padded``)."""
    with _LIMIT:
        old = sys.getrecursionlimit()
        try:
            return _padded(max(0, old - frames - depth()), frames, fn)
        finally:
            sys.setrecursionlimit(old)


def _padded(n: int, frames: int, fn: Callable[[], T]) -> T:
    """``n`` frames down, then the limit ``frames`` below there and ``fn()``."""
    if n > 0:
        return _padded(n - 1, frames, fn)
    sys.setrecursionlimit(depth() + frames)
    return fn()
