"""Work the inspector hands to a child process of its own.

Decoding a large wire and counting its tokens hold the interpreter lock for
seconds and build transient values many times the wire's size (the decoder's
token lists, the parsed JSON tree of the normalised step, the other forms'
encodings). In ``python -m inspector.<module>`` neither stalls the keys nor
sets the interface process's peak memory. Both sides speak one protocol: the
parent pickles one payload to the child's standard input; the child pickles
each result to its standard output as it has it (``serve``). Only our own
child's output is unpickled."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

_CHILDREN: set[subprocess.Popen] = set()


def results(module: str, payload: Any, cancelled: Callable[[], bool] = lambda: False) -> Iterator[Any]:
    """Start ``python -m module`` now, hand it ``payload`` (from a thread of its
    own, so the caller goes on at once) and return an iterator over what it
    sends back, in order. ``cancelled`` is watched every tenth of a second: once
    true, the child is killed and the iteration ends without an error (a worker
    whose result nobody wants stops costing CPU at once, not after its next
    step). The iteration raises RuntimeError when the child fails; OSError here
    when it cannot be started."""
    # -P: not the working directory first on the path, where another checkout's inspector/ would be taken
    process = subprocess.Popen([sys.executable, "-P", "-m", module], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _CHILDREN.add(process)
    threading.Thread(target=_feed_and_watch, args=(process, payload, cancelled), daemon=True,
                     name=f"feed {module}").start()
    return _read(process, module, cancelled)


def _feed_and_watch(process: subprocess.Popen, payload: Any, cancelled: Callable[[], bool]) -> None:
    assert process.stdin is not None
    try:
        pickle.dump(payload, process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        process.stdin.close()
    except (BrokenPipeError, OSError):  # it died (or was killed) before reading all: its stderr says why
        pass
    while process.poll() is None:
        if cancelled():
            process.kill()
            return
        try:
            process.wait(0.1)
        except subprocess.TimeoutExpired:
            continue


def _read(process: subprocess.Popen, module: str, cancelled: Callable[[], bool]) -> Iterator[Any]:
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
        _CHILDREN.discard(process)
    if process.returncode not in (0, -signal.SIGKILL) and not cancelled():
        raise RuntimeError(f"the {module} process failed: {err.decode('utf-8', 'replace').strip()[-300:]}")


def stop_children() -> None:
    """Kill every child still running (the app is closing)."""
    for child in list(_CHILDREN):
        if child.poll() is None:
            child.kill()


def serve(work: Callable[[Any], Iterable[Any]], *, nice: int = 0) -> None:
    """The child's side: read the payload, send each of ``work(payload)``'s
    results as soon as it is made. ``nice`` lowers this process's priority, for
    background work that must leave the CPU to the interface on a busy machine."""
    if nice:
        try:
            os.nice(nice)
        except (AttributeError, OSError):  # pragma: no cover - a platform without nice
            pass
    payload = pickle.load(sys.stdin.buffer)
    out = sys.stdout.buffer
    for item in work(payload):
        pickle.dump(item, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
