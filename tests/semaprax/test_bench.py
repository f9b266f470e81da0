"""``semaprax bench NAME`` and ``semaprax report``: every measurement module is
reachable from the command line with its own ``--help``, a preset is options the
module's parser takes, and a mistyped name is a usage error naming the close
match. (What the measurements measure is their own business: they print figures
and assert nothing about time.)"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from semaprax import bench
from semaprax.cli import main

BENCH_FOLDER = Path(bench.__file__).parent


def test_every_module_of_the_package_is_a_command() -> None:
    modules = {p.stem for p in BENCH_FOLDER.glob("*.py")} - {"__init__"}
    assert {b.module for b in bench.BENCHES.values()} | {bench.REPORT.module} == modules


def test_the_list_names_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--help"]) == 0
    out = capsys.readouterr().out
    for name, entry in bench.BENCHES.items():
        assert f"  {name} " in out and entry.summary in out
    assert main(["bench"]) == 2  # no name: the list, as a usage error
    assert "semaprax bench NAME" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(bench.BENCHES))
def test_each_benchmark_has_help_under_its_command_name(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", name, "--help"])  # the preset comes first, so the parser also accepts it
    assert exc.value.code == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"usage: semaprax bench {name}")
    assert captured.err == ""  # no progress lines for --help


def test_a_mistyped_name_is_a_usage_error_with_the_close_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "codex"]) == 2
    err = capsys.readouterr().err
    assert "no benchmark 'codex'" in err and "did you mean codec" in err


def test_a_run_says_what_it_runs_and_when_it_is_done(capsys: pytest.CaptureFixture[str]) -> None:
    # The bench collects before each timing (gc.collect); in a test process that has run a thousand
    # tests, each full collection walks their leftovers (about a second each on a busy machine).
    # Frozen, they are out of its sight: the bench runs as it runs in a process of its own.
    gc.freeze()
    try:
        assert main(["bench", "codec", "--size-mib", "0.01", "--rounds", "1", "--shapes", "graph",
                     "--no-memory"]) == 0
    finally:
        gc.unfreeze()
    captured = capsys.readouterr()
    assert "graph: " in captured.out and "decode model-text" in captured.out
    assert captured.err.startswith("semaprax bench codec: running") and "done in" in captured.err


def test_a_failure_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    assert main(["bench", "listing", "graph", "nope.py", "--workspace", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nope.py' does not exist" in err and "Traceback" not in err


def test_a_missing_extra_is_said_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert main(["bench", "fuzz"]) == 1
    assert "needs atheris, which is not installed: pip install -e '.[fuzz]'" in capsys.readouterr().err


def test_producers_cli_takes_a_relative_workspace_and_a_failed_run_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess

    from semaprax.bench import producers

    (tmp_path / "ws").mkdir()
    monkeypatch.chdir(tmp_path)
    seen: list[Path] = []
    monkeypatch.setattr(producers, "cli_rounds", lambda workspace, *a: seen.append(workspace))
    assert producers.main(["--cli", "--workspace", "ws"]) == 0
    assert seen == [tmp_path.resolve() / "ws"]  # the runs start in the checkout's folder

    def fails(*a: object) -> None:
        raise subprocess.CalledProcessError(2, ["python", "-m", "semaprax", "project"])

    monkeypatch.setattr(producers, "cli_rounds", fails)
    assert producers.main(["--cli", "--workspace", "ws"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exit status 2" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        producers.main(["--cli", "--workspace", "nowhere"])
    assert "--workspace 'nowhere' is not a folder" in capsys.readouterr().err
