"""``python -P -m inspector.worker KIND``: the one entry point of the
inspector's work in other processes (see ``inspector.child``), where KIND is

- ``count``: count one loaded wire's tokens in every form
  (``inspector.counting``), at a lower scheduling priority than the interface;
- ``layout``: codec's structured parse of one wire (``inspector.layout_child``).

Nothing here, nor in the modules a kind loads, imports Textual: a child starts
in the time its own work needs. The child dies with its parent: on Linux the
kernel kills it when the parent dies (``PR_SET_PDEATHSIG``, set first thing);
on every platform it ends when its standard input, which the parent holds
open, reaches its end (``inspector.child.serve``)."""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from importlib import import_module
from typing import Any

from . import child

#: Kind -> (module, function that turns the payload into results, niceness).
KINDS: dict[str, tuple[str, str, int]] = {
    "count": ("inspector.counting", "child_steps", 10),
    "layout": ("inspector.layout_child", "layouts", 0),
}
assert tuple(KINDS) == child.KINDS

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux
    ``prctl(PR_SET_PDEATHSIG)``). False where that is not available; the
    standard input watch of ``child.serve`` still ends the process then.

    The kernel counts the parent's *thread* that started this process: the
    parent reads a child's results in the thread that started it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return False


def run(work: Callable[[Any], Iterable[Any]], *, nice: int = 0, bind: bool = True) -> None:
    """Serve ``work`` to the parent (``child.serve``), bound to the parent's
    life first unless ``bind`` is false (the tests check each way of dying
    with the parent on its own)."""
    if bind:
        die_with_parent()
    child.serve(work, nice=nice)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0] not in KINDS:
        print(f"usage: python -m inspector.worker {{{'|'.join(KINDS)}}}", file=sys.stderr)
        return 2
    die_with_parent()  # before the imports, which take the most of a child's start-up
    module, function, nice = KINDS[args[0]]
    run(getattr(import_module(module), function), nice=nice, bind=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
