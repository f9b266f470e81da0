"""The inspector's child processes (``python -P -m inspector.worker KIND``):
none imports Textual, and each dies with its parent however the parent ends
(SIGKILL included), by the kernel's parent-death signal on Linux and by the end
of the standard input it watches everywhere, each checked on its own."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector import child, worker

ROOT = Path(__file__).resolve().parents[2]
LEDGER_WIRES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledger-wires"  # a graph wire with a dictionary, fixed
LEDGER = LEDGER_WIRES / "banking_ledger.graph.model-text"

#: A child that reports its pid and then works for a minute, through the
#: worker's own ``run`` (bound to the parent like every worker, or not).
CHILD = """
import os, time
from inspector import worker
def work(payload):
    yield os.getpid()
    time.sleep(60)
worker.run(work, bind=%r)
"""

#: A parent that starts that child, prints its pid and waits to be killed:
#: through ``child.results`` (the inspector's own plumbing), or with the
#: child's standard input taken from a pipe the test holds, so that only the
#: kernel can end the child.
PARENT = """
import pickle, subprocess, sys, time
from inspector import child
bind, stdin_fd = sys.argv[1] == "bind", int(sys.argv[2])
child.command = lambda kind: [sys.executable, "-P", "-c", CHILD % bind]
if stdin_fd < 0:
    items = child.results("count", None)  # kept: dropping the iterator ends its child
    pid = next(items)
else:
    pid = pickle.load(subprocess.Popen(child.command("count"), stdin=stdin_fd, stdout=subprocess.PIPE).stdout)
print(pid, flush=True)
time.sleep(60)
""".replace("CHILD", repr(CHILD))


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"  # a zombie has ended
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _kill_parent_and_watch_child(sig: int, bind: bool, stdin_fd: int = -1) -> bool:
    """Start PARENT, kill it with ``sig`` once its child works, and say whether
    the child ended within three seconds (a busy machine schedules late)."""
    parent = subprocess.Popen([sys.executable, "-P", "-c", PARENT, "bind" if bind else "free", str(stdin_fd)],
                              stdout=subprocess.PIPE, pass_fds=(stdin_fd,) if stdin_fd >= 0 else ())
    assert parent.stdout is not None
    pid = 0
    try:
        pid = int(parent.stdout.readline())
        assert _alive(pid)
        parent.send_signal(sig)
        assert parent.wait(10) == -sig
        return _gone_within(pid, 3.0)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if pid and _alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_child_dies_with_its_parent(sig: int) -> None:
    assert _kill_parent_and_watch_child(sig, bind=True)


def test_the_end_of_standard_input_alone_ends_a_child() -> None:
    assert _kill_parent_and_watch_child(signal.SIGKILL, bind=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_kernel_alone_ends_a_child_on_linux() -> None:
    read, write = os.pipe()  # the child's standard input: this test holds it open, so its end cannot tell
    try:
        os.write(write, pickle.dumps(None))
        assert _kill_parent_and_watch_child(signal.SIGKILL, bind=True, stdin_fd=read)
    finally:
        os.close(read)
        os.close(write)


def test_a_child_that_is_not_bound_outlives_a_parent_that_holds_its_input() -> None:
    """The converse of the two above: without either way, the child lives on
    (so those tests see what they claim to see)."""
    read, write = os.pipe()
    try:
        os.write(write, pickle.dumps(None))
        assert not _kill_parent_and_watch_child(signal.SIGKILL, bind=False, stdin_fd=read)
    finally:
        os.close(read)
        os.close(write)


def test_the_worker_and_what_it_runs_import_no_textual() -> None:
    code = f"""
import sys
import inspector.worker, inspector.child, inspector.counting, inspector.layout_child, inspector.values
from inspector.model import load_bytes
wire = open({str(LEDGER)!r}, "rb").read()
steps = list(inspector.counting.child_steps(load_bytes(wire, "w")))
assert steps[-1]["done"] and steps[-1]["tokens"]
list(inspector.layout_child.layouts(wire))
loaded = sorted(m for m in sys.modules if m.split(".")[0] == "textual")
assert not loaded, loaded
"""
    done = subprocess.run([sys.executable, "-P", "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # and the interface does import it, so the check above can fail
    done = subprocess.run([sys.executable, "-P", "-c", "import sys, inspector.app; assert 'textual' in sys.modules"],
                          check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_each_kind_has_its_entry_and_an_unknown_kind_is_refused() -> None:
    assert set(worker.KINDS) == set(child.KINDS)
    done = subprocess.run([*child.command("layout")[:-1], "nonsense"], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "usage" in done.stderr
