"""Two edges of the command line found by issue 13: what reaches a terminal, and
what an error message says about a file's location."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from wirekit import v2

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_ROOT = b"a.py\x1b]0;owned\x07\x1b[2J\xc2\x9b31m"  # OSC title, clear screen, C1 CSI
DOCUMENT = b'{"a":1}'


def run_on_terminal(*args: str) -> tuple[bytes, bytes, int]:
    """Run the CLI with its stdout on a pseudo-terminal; returns what the terminal
    received, stderr and the exit code."""
    controller, terminal = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "semaprax", *args],
            stdout=terminal, stderr=subprocess.PIPE, cwd=ROOT,
        )
        os.close(terminal)
        terminal = -1
        received = bytearray()
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            received += chunk
        stderr = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)
    return bytes(received), stderr, proc.returncode


def test_decode_to_text_on_a_terminal_writes_no_control_sequence(tmp_path):
    wire = tmp_path / "hostile.model-text"
    wire.write_bytes(v2(DOCUMENT, root=HOSTILE_ROOT))
    shown, stderr, code = run_on_terminal("decode", str(wire), "--to", "text")
    assert code == 0, stderr
    assert b"\x1b" not in shown and b"\x07" not in shown and b"\xc2\x9b" not in shown
    assert b"a.py\\x1b]0;owned\\x07" in shown  # the bytes are shown, escaped
    assert b"control characters" in stderr and b"-o FILE" in stderr


def test_decode_to_text_through_a_pipe_is_byte_exact(tmp_path):
    wire = tmp_path / "hostile.model-text"
    wire.write_bytes(v2(DOCUMENT, root=HOSTILE_ROOT))
    r = subprocess.run(
        [sys.executable, "-m", "semaprax", "decode", str(wire), "--to", "text"],
        capture_output=True, cwd=ROOT, timeout=60, check=False,
    )
    assert r.returncode == 0, r.stderr
    assert b"root %d %s\n" % (len(HOSTILE_ROOT), HOSTILE_ROOT) in r.stdout
    assert r.stderr == b""


def test_error_messages_spell_no_absolute_path(tmp_path):
    missing = tmp_path / "deep" / "missing.wire"
    r = subprocess.run(
        [sys.executable, "-m", "semaprax", "decode", str(missing)],
        capture_output=True, cwd=ROOT, timeout=60, check=False,
    )
    assert r.returncode == 1
    assert str(tmp_path).encode() not in r.stderr
    assert b"missing.wire: No such file or directory" in r.stderr
    inside = subprocess.run(
        [sys.executable, "-m", "semaprax", "decode", str(ROOT / "no-such.wire")],
        capture_output=True, cwd=ROOT, timeout=60, check=False,
    )
    assert inside.stderr.strip() == b"semaprax: no-such.wire: No such file or directory"
