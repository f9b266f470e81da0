"""The semaprax command line as a user runs it: a real subprocess, exit codes,
stdout bytes and the one-line diagnostic on stderr."""

import subprocess
import sys
from pathlib import Path

import pytest
from wirekit import v2

import codec

ROOT = Path(__file__).resolve().parents[2]
WIRES = ROOT / "examples" / "wires"
REVISION = codec.decode_wire((WIRES / "banking_ledger.graph.model-text").read_bytes()).projection.source_revision


def run(*args, stdin: bytes | None = None):
    return subprocess.run(check=False, args=
        [sys.executable, "-m", "semaprax", *args],
        input=stdin, capture_output=True, cwd=ROOT, timeout=60,
    )


def test_verify_example_wire():
    r = run("verify", str(WIRES / "banking_ledger.graph.model-text"))
    assert r.returncode == 0, r.stderr
    assert b"ok: model-text v2" in r.stdout and b"root banking_ledger.py" in r.stdout


@pytest.mark.parametrize("to", ["json", "text", "model-text"])
def test_decode_converts_between_forms(to, tmp_path):
    out = tmp_path / "out"
    r = run("decode", str(WIRES / "banking_ledger.graph.binary"), "--to", to, "-o", str(out))
    assert r.returncode == 0, r.stderr
    suffix = {"json": "json", "text": "text", "model-text": "model-text"}[to]
    assert out.read_bytes() == (WIRES / f"banking_ledger.graph.{suffix}").read_bytes()


def test_decode_from_stdin_to_stdout():
    wire = (WIRES / "banking_ledger.graph.text").read_bytes()
    r = run("decode", "-", stdin=wire)
    assert r.returncode == 0
    assert r.stdout == (WIRES / "banking_ledger.graph.json").read_bytes()


def test_rejected_wire_prints_code_and_byte_and_exits_1():
    wire = v2(b'{"a":1}') + b"\n"
    r = run("verify", "-", stdin=wire)
    assert r.returncode == 1
    line = r.stderr.decode().strip()
    assert line.startswith("compact.digest at byte ")
    assert "Traceback" not in r.stderr.decode()


def test_binding_failure_exits_1():
    r = run("verify", str(WIRES / "banking_ledger.graph.model-text"), "--root", "other.py")
    assert r.returncode == 1
    assert r.stderr.decode().startswith("compact.binding: root mismatch")


def test_full_json_needs_metadata_to_become_a_wire():
    r = run("decode", str(WIRES / "banking_ledger.graph.json"), "--to", "model-text")
    assert r.returncode == 2
    assert b"--profile" in r.stderr
    r = run("decode", str(WIRES / "banking_ledger.graph.json"), "--to", "model-text", "--profile", "graph",
            "--root", "banking_ledger.py", "--source-revision", REVISION)
    assert r.returncode == 0
    assert r.stdout == (WIRES / "banking_ledger.graph.model-text").read_bytes()


def test_usage_errors_exit_2_and_help_explains():
    assert run("decode").returncode == 2
    assert run("decode", "x", "--to", "yaml").returncode == 2
    r = run("--help")
    assert r.returncode == 0 and b"decode" in r.stdout and b"verify" in r.stdout
    r = run("verify", "--help")
    assert r.returncode == 0 and b"compact.binding" in r.stdout


def test_missing_file_is_a_clear_error():
    r = run("verify", "no/such/file")
    assert r.returncode == 1
    assert b"no/such/file" in r.stderr and b"Traceback" not in r.stderr


def test_tokens_command_counts_both_encodings_offline():
    from views import tokens

    path = WIRES / "banking_ledger.graph.model-text"
    r = run("tokens", str(path))
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    counts = tokens.count_tokens(path.read_bytes())
    assert f"bytes {path.stat().st_size:,}" in out
    assert f"cl100k_base {counts['cl100k_base']:,}" in out and f"o200k_base {counts['o200k_base']:,}" in out
    for info in tokens.tokenizer_info():
        assert f"tiktoken {info.tiktoken_version}, vocabulary sha256:{info.vocabulary_sha256}" in out


def test_inspect_subcommand_passes_its_options():
    r = run("inspect", "--help")
    assert r.returncode == 0 and b"usage: semaprax-inspect" in r.stdout


def test_verify_full_json_with_expectations_is_a_binding_failure():
    r = run("verify", str(WIRES / "banking_ledger.graph.json"), "--profile", "graph")
    assert r.returncode == 1 and r.stderr.startswith(b"compact.binding")


def test_metadata_cannot_drive_the_terminal():
    import codec as c

    p = c.CompactProjection("graph", "a.py\x1b]0;PWNED\x07\x1b[2J", "rev\nsource_digest sha256:" + "1" * 64,
                            b'{"a":1}')
    r = run("verify", "-", stdin=c.encode_model_text(p))
    assert r.returncode == 0
    assert b"\x1b" not in r.stdout and b"\x07" not in r.stdout
    lines = r.stdout.split(b"\n")
    assert sum(line.startswith(b"source_digest ") for line in lines) == 1  # no forged line
    assert b"rev\\nsource_digest" in r.stdout
