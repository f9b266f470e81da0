"""semaprax report (semaprax/bench/report.py): its quick subset reproduces the committed
report exactly, the committed Markdown is what the committed JSON renders to, and a
wire that does not replay (or a producer that disagrees) fails the run without
writing a report.

Why: docs/measurements.md is the project's evidence for when model-text saves tokens.
If the codec or a producer changes, these tests say the committed numbers are stale
instead of letting them drift; and they prove the benchmark's own checks bite."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import codec
import codec.binary_v1
import codec.model_text

ROOT = Path(__file__).resolve().parents[2]
COMMITTED_JSON = ROOT / "docs" / "measurements.json"
COMMITTED_MD = ROOT / "docs" / "measurements.md"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    from semaprax.bench import report

    return report


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    return json.loads(COMMITTED_JSON.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def quick_report(bench: ModuleType) -> dict[str, Any]:
    return bench.run_benchmark(bench.select_cases(quick=True))


def comparable(case: dict[str, Any], toon_matches: bool) -> dict[str, Any]:
    """A case entry without what legitimately depends on the installed TOON encoder."""
    case = copy.deepcopy(case)
    if not toon_matches:
        case["references"].pop("toon", None)
    return case


def test_quick_subset_is_small_and_machine_independent(bench: ModuleType) -> None:
    quick = bench.select_cases(quick=True)
    assert [c.id for c in quick] == [
        "banking_ledger.graph", "calculator.project-graph", "frame-payload.project-graph"]
    assert not any(c.machine_dependent for c in quick)
    assert {c.id for c in quick} < {c.id for c in bench.select_cases()}


def test_quick_cases_equal_the_committed_report(
    quick_report: dict[str, Any], committed: dict[str, Any]
) -> None:
    assert quick_report["schema"] == committed["schema"]
    assert [t["vocabulary_sha256"] for t in quick_report["environment"]["tokenizers"]] == [
        t["vocabulary_sha256"] for t in committed["environment"]["tokenizers"]]
    toon_matches = quick_report["environment"]["toon_format"] == committed["environment"]["toon_format"]
    by_id = {c["id"]: c for c in committed["cases"]}
    for case in quick_report["cases"]:
        assert not case["machine_dependent"]
        assert case["id"] in by_id, f"{case['id']} is missing from docs/measurements.json"
        assert comparable(case, toon_matches) == comparable(by_id[case["id"]], toon_matches), (
            f"{case['id']} no longer matches docs/measurements.json; "
            "rerun semaprax report"
        )


def test_committed_report_is_complete_and_checked(bench: ModuleType, committed: dict[str, Any]) -> None:
    assert [c["id"] for c in committed["cases"]] == [c.id for c in bench.select_cases()]
    assert committed["quick"] is False
    assert committed["environment"]["third_party"]["package"] == bench.THIRD_PARTY_PACKAGE
    assert committed["environment"]["third_party"]["version"]
    for case in committed["cases"]:
        assert case["checks"]["replayed_forms"] == ["json", "text", "binary", "model-text"]
        assert case["checks"]["selected_bytes_reproduced"] and case["checks"]["producer_output_equal"]
        assert case["wires"]["json"]["bytes"] == case["selected_bytes"]
        assert case["wires"]["binary"]["tokens"] is None
        for form in ("json", "text", "model-text"):
            assert set(case["wires"][form]["tokens"]) == {"cl100k_base", "o200k_base"}
    assert committed["summary"] == bench.summarize(committed["cases"])


def test_committed_markdown_is_rendered_from_the_committed_json(
    bench: ModuleType, committed: dict[str, Any]
) -> None:
    md = COMMITTED_MD.read_text(encoding="utf-8")
    assert md == bench.render_markdown(committed)
    assert "no billing authority" in md.lower() or "not a billing authority" in md.lower()


def test_report_files_are_deterministic(
    bench: ModuleType, quick_report: dict[str, Any], tmp_path: Path
) -> None:
    first = bench.write_report(quick_report, tmp_path / "a")
    second = bench.write_report(copy.deepcopy(quick_report), tmp_path / "b")
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes()
    assert json.loads(first[0].read_text(encoding="utf-8")) == quick_report


def _no_report_written(folder: Path) -> bool:
    return not folder.exists() or not any(folder.iterdir())


def test_corrupted_binary_replay_fails_the_run(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = codec.binary_v1.decode_binary

    def corrupted(wire: bytes) -> codec.CompactProjection:
        p = real(wire)  # decodes fine, then hands back a different document
        return codec.CompactProjection(p.profile, p.root, p.source_revision, b'{"tampered":true}')

    monkeypatch.setattr(codec.binary_v1, "decode_binary", corrupted)  # decode_wire looks it up there
    out = tmp_path / "out"
    assert bench.main(["--quick", "--output-dir", str(out)]) == 1
    err = capsys.readouterr().err
    assert "FAILED" in err and "binary wire decodes to different selected bytes" in err
    assert "banking_ledger.graph" in err and "first difference at byte 2" in err
    assert _no_report_written(out)


def test_a_wire_that_does_not_decode_fails_the_run(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(wire: bytes) -> codec.CompactProjection:
        raise codec.CompactError("compact.digest", "simulated corruption", 7)

    monkeypatch.setattr(codec.model_text, "decode_model_text", broken)  # decode_wire looks it up there
    out = tmp_path / "out"
    assert bench.main(["--quick", "--output-dir", str(out)]) == 1
    err = capsys.readouterr().err
    assert "model-text wire does not decode" in err and "simulated corruption" in err
    assert _no_report_written(out)


def test_producer_mismatch_fails_the_run(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench, "run_producer_cli", lambda case, workspace: b'{"other":1}')
    out = tmp_path / "out"
    assert bench.main(["--quick", "--output-dir", str(out)]) == 1
    err = capsys.readouterr().err
    assert "differs from the measured selected bytes" in err
    assert _no_report_written(out)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    from semaprax.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["report", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: semaprax report") and "--quick" in out and "--output-dir" in out


def test_example_cases_match_the_committed_example_wires(committed: dict[str, Any]) -> None:
    """The report's example rows describe the very wires committed in examples/wires/."""
    checked = 0
    for case in committed["cases"]:
        for form, wire in case["wires"].items():
            path = ROOT / "examples" / "wires" / f"{case['id']}.{form}"
            if path.exists():
                data = path.read_bytes()
                found = (len(data), "sha256:" + hashlib.sha256(data).hexdigest())
                assert found == (wire["bytes"], wire["sha256"]), path
                checked += 1
    assert checked == 24  # six example cases, four forms each
