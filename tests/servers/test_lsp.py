"""``semaprax serve`` through pygls's LanguageClient over a real stdio subprocess:
each encoding, negotiation, parameter types, the budget, the workspace from the
client, start-up errors, a burst of 50, a quick request beside a slow one,
cancellation, broken frames, and a wire that replays with the CLI."""

from __future__ import annotations

import base64
import itertools
from pathlib import Path

import pytest
from serverkit import DEMO, LspSession, frame, generate_workspace, run_cli, unframe

import codec
from servers.route import BUDGET_EXCEEDED, INVALID_PARAMS, WORKSPACE_ERROR

REQUEST_CANCELLED = -32800


def offer(v, e, p="graph"):
    return {"format_version": v, "encoding": e, "profile": p}


@pytest.fixture(scope="module")
def lsp():
    """One server for the module, its workspace given by the client's rootUri
    (started in the repository, which has no pkg/core.py of its own)."""
    session = LspSession(root_uri=DEMO.as_uri())
    yield session
    assert session.close() == 0


def test_initialize_names_the_server_and_its_triples(lsp):
    info = lsp.initialized.server_info
    assert info.name == "semaprax" and info.version
    experimental = lsp.initialized.capabilities.experimental["compactProjection"]
    assert experimental["method"] == "workspace/compact-projection"
    assert len(experimental["triples"]) == 3 * len(codec.PROFILES)
    assert experimental["triples"][0] == offer(1, "binary")


@pytest.mark.parametrize("encoding, decode", [
    ("json", None), ("text", codec.decode_text), ("model-text", codec.decode_model_text),
    ("binary", codec.decode_binary),
])
def test_each_encoding_returns_its_wire_and_metadata(lsp, encoding, decode):
    r = lsp.request({"profile": "graph", "root": "pkg/core.py", "encoding": encoding})
    assert r["encoding"] == encoding and r["format_version"] == (2 if encoding == "model-text" else 1)
    if encoding == "binary":
        wire = base64.b64decode(r["wire"], validate=True)
        assert r["wire_transfer"] == "base64"
    else:
        wire = r["wire"].encode()
        assert r["wire_transfer"] == "text"
    assert r["wire_bytes"] == len(wire)
    if decode is None:
        assert codec.decode_json(wire)  # canonical full JSON
    else:
        p = decode(wire)
        assert (p.profile, p.root, p.source_revision, p.source_digest) == (
            r["profile"], r["root"], r["source_revision"], r["source_digest"])


def test_negotiation_over_the_wire_ignores_the_order_of_offers(lsp):
    offers = [offer(2, "model-text"), offer(1, "text"), offer(1, "binary")]
    answers = {lsp.request({"profile": "graph", "root": "pkg/util.py", "accept": list(p)})["encoding"]
               for p in itertools.permutations(offers)}
    assert answers == {"binary"}
    # The reported bug: 1.0 and 1 were one element of a set, so the order decided.
    bad = [offer(1.0, "binary"), offer(1, "binary"), offer(2, "model-text")]
    for p in itertools.permutations(bad):
        error = lsp.error({"profile": "graph", "root": "pkg/util.py", "accept": list(p)})
        assert error.code == INVALID_PARAMS and error.data["code"] == "compact.negotiation"


@pytest.mark.parametrize("version", [True, 2.0, "2"])
def test_format_version_is_an_integer(lsp, version):
    error = lsp.error({"profile": "graph", "root": "pkg/core.py", "encoding": "model-text",
                       "format_version": version})
    assert error.code == INVALID_PARAMS
    assert error.data["code"] == "compact.negotiation" and "integer" in error.data["message"]


@pytest.mark.parametrize("params, code, data_code", [
    ([1, 2], INVALID_PARAMS, "semaprax.params"),
    ({"profile": "graph"}, INVALID_PARAMS, "semaprax.params"),
    ({"profile": "graph", "root": "pkg/core.py", "encodings": "text"}, INVALID_PARAMS, "semaprax.params"),
    ({"profile": "graph", "root": "pkg/core.py", "accept": 5}, INVALID_PARAMS, "compact.negotiation"),
    ({"profile": "graph", "root": "pkg/core.py", "encoding": "text", "format_version": 2},
     INVALID_PARAMS, "compact.negotiation"),
    ({"profile": "graph", "root": "pkg/core.py", "accept": [offer(2, "text")]},
     INVALID_PARAMS, "compact.negotiation"),
    ({"profile": "graph", "root": "pkg/core.py", "encoding": "auto"}, INVALID_PARAMS, "compact.negotiation"),
    ({"profile": "graph", "root": "pkg/core.py", "encoding": "json", "max_tokens": 0},
     INVALID_PARAMS, "semaprax.params"),
])
def test_bad_requests_are_answered_with_their_diagnostic(lsp, params, code, data_code):
    error = lsp.error(params)
    assert (error.code, error.data["code"]) == (code, data_code)
    assert error.data["message"] == error.message


def test_a_missing_root_names_close_matches(lsp):
    error = lsp.error({"profile": "graph", "root": "pkg/cor.py", "encoding": "text"})
    assert error.code == WORKSPACE_ERROR and error.data["code"] == "semaprax.workspace"
    assert error.data["matches"][0] == "pkg/core.py"
    error = lsp.error({"profile": "references", "root": "pkg.core.Engin", "encoding": "text"})
    assert "pkg.core.Engine" in error.data["matches"]


def test_over_max_tokens_is_refused_with_narrower_roots(lsp):
    error = lsp.error({"profile": "symbols", "root": ".", "encoding": "json", "max_tokens": 40})
    assert error.code == BUDGET_EXCEEDED and error.data["code"] == "semaprax.budget"
    data = error.data
    assert data["tokens"] > 40 and data["max_tokens"] == 40 and data["bytes"] > 0
    assert [r["root"] for r in data["narrower"]] == ["pkg", "app.py"]  # largest first
    assert "pkg" in data["message"] and f"{data['tokens']:,}" in data["message"]
    ok = lsp.request({"profile": "symbols", "root": "pkg", "encoding": "json", "max_tokens": 10_000})
    assert 0 < ok["tokens"]["o200k_base"] <= 10_000


def test_a_burst_of_50_is_all_answered(lsp):
    roots = ["pkg/core.py", "pkg/util.py", "app.py", "pkg/missing.py"]
    futures = [lsp.send({"profile": "graph", "root": roots[n % 4], "encoding": "json"}, msg_id=1000 + n)
               for n in range(50)]
    answered = 0
    for n, f in enumerate(futures):
        try:
            r = lsp.wait(f)
            assert r["root"] == roots[n % 4]
        except Exception as exc:  # noqa: BLE001 - the missing root, answered as an error
            assert roots[n % 4] == "pkg/missing.py" and exc.data["code"] == "semaprax.workspace"
        answered += 1
    assert answered == 50


def test_a_wire_from_serve_replays_with_the_cli(lsp, tmp_path):
    r = lsp.request({"profile": "task-context", "root": "pkg.core.Engine.run", "encoding": "model-text"})
    wire = tmp_path / "run.model-text"
    wire.write_text(r["wire"])
    done = run_cli("replay", str(wire), "--workspace", str(DEMO))
    assert done.returncode == 0, done.stderr
    assert b"ok: replayed task-context" in done.stdout


def test_workspace_folders_from_the_client():
    session = LspSession(folders=[DEMO.as_uri()])
    try:
        assert session.request({"profile": "graph", "root": "app.py", "encoding": "json"})["root"] == "app.py"
    finally:
        session.close()


def test_started_in_the_filesystem_root_without_a_workspace_it_refuses():
    session = LspSession(cwd=Path("/"))
    try:
        error = session.error({"profile": "task-context", "root": "x.y", "encoding": "json"})
        assert error.code == WORKSPACE_ERROR and error.data["code"] == "semaprax.workspace"
        assert "--workspace" in error.message and "rootUri" in error.message
    finally:
        session.close()


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_workspace_that_does_not_exist_stops_the_start(command, tmp_path):
    done = run_cli(command, "--workspace", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert b"does not exist" in done.stderr and b"Traceback" not in done.stderr


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return generate_workspace(tmp_path_factory.mktemp("big"), 300)


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """A server with a cache folder of its own: no analysis records from the other
    tests' servers (analysis/filecache.py), so the index of 300 modules is slow."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_a_quick_request_is_not_held_behind_a_slow_one(big, cold):
    session = LspSession("--workspace", str(big), "--jobs", "2")
    try:
        slow = session.send({"profile": "references", "root": "big.m1.f1", "encoding": "json"})
        quick = session.send({"profile": "graph", "root": "big/m2.py", "encoding": "json"})
        assert session.wait(quick)["root"] == "big/m2.py"
        assert not slow.done()  # the index of 300 modules is still being built
        assert session.wait(slow)["root"] == "big.m1.f1"
    finally:
        session.close()


def test_cancel_request_cancels_queued_work(big):
    session = LspSession("--workspace", str(big), "--jobs", "1")
    try:
        slow = session.send({"profile": "references", "root": "big.m1.f1", "encoding": "json"}, msg_id="slow")
        queued = session.send({"profile": "graph", "root": "big/m2.py", "encoding": "json"}, msg_id="queued")
        session.cancel("queued")
        with pytest.raises(Exception) as info:
            session.wait(queued)
        assert info.value.code == REQUEST_CANCELLED
        assert session.wait(slow)["root"] == "big.m1.f1"
        # The server goes on answering after a cancellation.
        assert session.request({"profile": "graph", "root": "big/m3.py", "encoding": "json"})["root"] == "big/m3.py"
    finally:
        session.close()


def test_broken_frames_are_errors_not_hangs_or_crashes():
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    requests = b"".join([
        frame(init),
        b"Content-Length: 3\r\n\r\n{x}",
        frame({"jsonrpc": "2.0", "id": 2, "method": "initialize"}),  # params missing
        frame({"jsonrpc": "2.0", "id": 3, "method": "workspace/compact-projection",
               "params": {"profile": "graph", "root": "pkg/core.py", "encoding": ["text"]}}),
        frame([1, 2]),
        b"Content-Length: 99999999999999\r\n\r\n",
        frame({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}),
    ])
    done = run_cli("serve", "--workspace", str(DEMO), input=requests)
    assert done.returncode == 1 and b"stopping" in done.stderr and b"Traceback" not in done.stderr
    responses = unframe(done.stdout)
    # id 3 is answered on a worker thread: it may come after the refusals that follow it
    by_id = {m["id"]: m for m in responses if m.get("id") is not None}
    refused = [m for m in responses if m.get("id") is None]
    assert sorted(by_id) == [1, 2, 3] and len(refused) == 3
    assert [m["error"]["code"] for m in refused] == [-32700, -32600, -32004]
    assert by_id[2]["error"]["code"] == INVALID_PARAMS
    assert by_id[3]["error"]["data"]["code"] == "compact.negotiation"
    assert "--max-message-bytes" in refused[2]["error"]["message"]


def test_exit_after_shutdown_is_status_0_and_the_end_of_input_too():
    requests = b"".join([
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
        frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
        frame({"jsonrpc": "2.0", "method": "exit"}),
    ])
    assert run_cli("serve", "--workspace", str(DEMO), input=requests).returncode == 0
    assert run_cli("serve", "--workspace", str(DEMO), input=b"").returncode == 0
    cut = run_cli("serve", "--workspace", str(DEMO), input=frame({"jsonrpc": "2.0", "method": "exit"})[:-3])
    assert cut.returncode == 1 and b"3 bytes short" in cut.stderr


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    """2,000 modules: an index that takes seconds to build even on an idle
    machine (300 took 0.43 s once the build stopped walking the heap after it)."""
    return generate_workspace(tmp_path_factory.mktemp("huge"), 2000)


def test_cancel_request_stops_a_running_request(huge, cold):
    import time

    session = LspSession("--workspace", str(huge), "--jobs", "1")
    try:
        slow = session.send({"profile": "references", "root": "big.m2.f2", "encoding": "json"}, msg_id="running")
        time.sleep(0.3)  # it has started: the index of 2,000 modules takes seconds
        session.cancel("running")
        with pytest.raises(Exception) as info:
            session.wait(slow)
        assert info.value.code == REQUEST_CANCELLED
        assert session.request({"profile": "graph", "root": "big/m3.py", "encoding": "json"})["root"] == "big/m3.py"
    finally:
        session.close()
