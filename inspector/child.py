"""Work the inspector hands to a child process of its own.

Decoding a large wire and counting its tokens hold the interpreter lock for
seconds and build transient values many times the wire's size (the decoder's
token lists, the parsed JSON tree of the normalised step, the other forms'
encodings). In a child process neither stalls the keys nor sets the interface
process's peak memory. Every child is the one entry point
``python -P -m inspector.worker KIND`` (``inspector.worker``), which imports
no Textual. Both sides speak one protocol: the parent pickles one payload to
the child's standard input; the child pickles each result to its standard
output as it has it (``serve``). Only our own child's output is unpickled.

A child dies with its parent: on Linux the kernel sends it SIGKILL when the
parent dies (``PR_SET_PDEATHSIG``, set in ``inspector.worker``); everywhere,
the parent keeps the child's standard input open after the payload, and the
child ends itself when it reads the end of it, which the kernel gives when
the parent is gone however it ended (SIGKILL included)."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Generator, Iterable
from typing import IO, Any

_CHILDREN: set[subprocess.Popen[bytes]] = set()

#: The kinds of work ``inspector.worker`` does.
KINDS = ("count", "layout")


def command(kind: str) -> list[str]:
    """The command line of a child doing ``kind``."""
    # -P: not the working directory first on the path, where another checkout's inspector/ would be taken
    return [sys.executable, "-P", "-m", "inspector.worker", kind]


def results(kind: str, payload: Any, cancelled: Callable[[], bool] = lambda: False) -> Generator[Any, None, None]:
    """Start a child doing ``kind`` now, hand it ``payload`` (from a thread of
    its own, so the caller goes on at once) and return an iterator over what it
    sends back, in order. ``cancelled`` is watched every tenth of a second: once
    true, the child is killed and the iteration ends without an error (a worker
    whose result nobody wants stops costing CPU at once, not after its next
    step). The iteration raises RuntimeError when the child fails; OSError here
    when it cannot be started. Iterate in the thread that called this: on Linux
    the child is bound to that thread's life (``PR_SET_PDEATHSIG``)."""
    process = subprocess.Popen(command(kind), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _CHILDREN.add(process)
    # in a box the thread empties: what only the child needs is not kept here while the child works
    threading.Thread(target=_feed_and_watch, args=(process, [payload], cancelled), daemon=True,
                     name=f"feed {kind}").start()
    return _read(process, kind, cancelled)


def _feed_and_watch(process: subprocess.Popen[bytes], box: list[Any], cancelled: Callable[[], bool]) -> None:
    assert process.stdin is not None
    try:
        pickle.dump(box.pop(), process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        process.stdin.flush()  # and kept open: its end tells the child that nobody wants it any more
    except (BrokenPipeError, OSError, ValueError):  # it died (or was killed) before reading all: its stderr says why
        pass
    while process.poll() is None:
        if cancelled():
            process.kill()
            return
        try:
            process.wait(0.1)
        except subprocess.TimeoutExpired:
            continue


def _read(process: subprocess.Popen[bytes], kind: str, cancelled: Callable[[], bool]) -> Generator[Any, None, None]:
    assert process.stdout is not None
    try:
        while not cancelled():
            try:
                item = pickle.load(process.stdout)  # our own child's output
            except (EOFError, pickle.UnpicklingError):  # the end, or killed mid-item
                break
            yield item
    finally:
        if process.poll() is None:
            process.kill()
        err = process.stderr.read() if process.stderr is not None else b""
        process.wait()
        _close(process.stdin)
        _CHILDREN.discard(process)
    if process.returncode not in (0, -signal.SIGKILL) and not cancelled():
        raise RuntimeError(f"the {kind} process failed: {err.decode('utf-8', 'replace').strip()[-300:]}")


def _close(stream: IO[bytes] | None) -> None:
    if stream is None:
        return
    try:
        stream.close()
    except (BrokenPipeError, OSError, ValueError):  # the feeding thread is still writing, or it is gone
        pass


def stop_children() -> None:
    """Kill every child still running (the app is closing)."""
    for child in list(_CHILDREN):
        if child.poll() is None:
            child.kill()


def serve(work: Callable[[Any], Iterable[Any]], *, nice: int = 0) -> None:
    """The child's side: read the payload, send each of ``work(payload)``'s
    results as soon as it is made. ``nice`` lowers this process's priority, for
    background work that must leave the CPU to the interface on a busy machine.
    Once the payload is read, a thread watches standard input: its end means
    the parent is gone (or no longer wants the result), and the process ends
    at once."""
    if nice:
        try:
            os.nice(nice)
        except (AttributeError, OSError):  # pragma: no cover - a platform without nice
            pass
    stdin = sys.stdin.buffer
    payload = pickle.load(stdin)
    threading.Thread(target=_exit_at_end_of, args=(stdin.fileno(),), daemon=True, name="parent watch").start()
    out = sys.stdout.buffer
    for item in work(payload):
        pickle.dump(item, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


def _exit_at_end_of(fd: int) -> None:
    """Read the pipe ``fd`` to its end, then end this process without cleaning
    up (the parent that wanted its results is gone)."""
    try:
        while os.read(fd, 1 << 16):
            pass
    except OSError:
        pass
    os._exit(1)
