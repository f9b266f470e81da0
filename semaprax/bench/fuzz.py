"""Run coverage-guided fuzzing campaigns of the decoders, bounded in time and memory.

    semaprax bench fuzz [--targets T ...] [--minutes-per-target 5] [--memory-mib 1024]
    semaprax bench fuzz --coverage            # codec/ coverage of the corpora, lines and branches
    semaprax bench fuzz --coverage --no-work  # ... of the kept corpus (fuzz/corpus) alone
    semaprax bench fuzz --distil              # keep the work corpora's inputs that reach new arcs
    semaprax bench fuzz --replay FILE ...     # run the oracle on saved inputs

Each target (fuzz/oracle.py ``TARGETS``) runs fuzz/harness.py in its own process
under ``nice``, with an address-space cap (``resource.setrlimit(RLIMIT_AS)``, so a
runaway allocation is a MemoryError finding instead of a machine in swap),
libFuzzer's ``-rss_limit_mb`` and ``-timeout`` (a hang), the token dictionary and
the seed corpus. A campaign that stops on a finding is restarted until its time is
used. Findings land in fuzz/findings/ (``crash-…``, ``timeout-…``, ``oom-…``),
the growing corpus in fuzz/work/ (not kept in git). A summary table (executions,
new corpus units, peak RSS, findings) is printed and written to
fuzz/work/summary.json. Needs the ``fuzz`` extra: ``pip install -e '.[fuzz]'``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout, which holds fuzz/ (not an installed package)
sys.path.insert(0, str(ROOT))

from fuzz.oracle import TARGETS

FUZZ = ROOT / "fuzz"
WORK = FUZZ / "work"
FINDINGS = FUZZ / "findings"
STAT = re.compile(r"stat::(\w+):\s+(\d+)")


def _limits(memory_mib: int):
    def apply() -> None:
        cap = memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.nice(10)

    return apply


def campaign(target: str, seconds: float, memory_mib: int, timeout: int, max_len: int) -> dict:
    """Fuzz one target for ``seconds`` of wall time; returns its statistics."""
    corpus = WORK / target
    corpus.mkdir(parents=True, exist_ok=True)
    FINDINGS.mkdir(exist_ok=True)
    stats = {"target": target, "seconds": 0.0, "executions": 0, "new_units": 0, "peak_rss_mb": 0, "findings": []}
    deadline = time.monotonic() + seconds
    log_path = WORK / f"{target}.log"
    with log_path.open("w") as log:
        while (left := deadline - time.monotonic()) > 5:
            before = set(FINDINGS.iterdir())
            started = time.monotonic()
            cmd = [
                sys.executable, str(FUZZ / "harness.py"), target,
                f"-dict={FUZZ / 'semaprax.dict'}",
                f"-max_total_time={int(left)}",
                f"-rss_limit_mb={memory_mib}",
                f"-malloc_limit_mb={memory_mib}",
                f"-timeout={timeout}",
                f"-max_len={max_len}",
                "-print_final_stats=1",
                f"-artifact_prefix={FINDINGS}/{target}-",
                str(corpus), str(FUZZ / "corpus"), str(FUZZ / "regressions"),
            ]
            proc = subprocess.run(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                preexec_fn=_limits(memory_mib + 512), cwd=ROOT, check=False,
            )
            log.write(proc.stdout)
            stats["seconds"] += time.monotonic() - started
            found = {k: int(v) for k, v in STAT.findall(proc.stdout)}
            stats["executions"] += found.get("number_of_executed_units", 0)
            stats["new_units"] += found.get("new_units_added", 0)
            stats["peak_rss_mb"] = max(stats["peak_rss_mb"], found.get("peak_rss_mb", 0))
            new = sorted(set(FINDINGS.iterdir()) - before)
            stats["findings"] += [p.name for p in new]
            if proc.returncode == 0 and not new:
                break  # the campaign used its time
            if not new:  # died without leaving an input: say so, do not spin
                stats["findings"].append(f"exit {proc.returncode} without an artifact (see {log_path.name})")
                break
    stats["seconds"] = round(stats["seconds"], 1)
    return stats


def coverage_of_corpus(dirs: list[Path]) -> int:
    """Every input of ``dirs`` through every target's oracle, under coverage.py
    in a fresh interpreter (so codec/'s module lines count too); prints the
    codec/ report, lines and branches."""
    data = WORK / ".coverage"
    WORK.mkdir(exist_ok=True)
    inputs = [str(p) for d in dirs for p in sorted(d.glob("*")) if p.is_file()]
    listing = WORK / "coverage-inputs.txt"
    listing.write_text("\n".join(inputs) + "\n")
    run = [sys.executable, "-m", "coverage", "run", f"--data-file={data}", "--branch", "--source=codec",
           str(Path(__file__)), "--replay-list", str(listing), "--quiet"]
    subprocess.run(run, cwd=ROOT, check=False)
    size = sum(Path(p).stat().st_size for p in inputs)
    print(f"{len(inputs):,} inputs ({size:,} bytes) from {', '.join(str(d.relative_to(ROOT)) for d in dirs)}")
    # negotiate.py chooses versions and decodes no wire: it is no target
    omit = "--omit=codec/negotiate.py"
    code = subprocess.run(
        [sys.executable, "-m", "coverage", "report", f"--data-file={data}", omit], cwd=ROOT, check=False
    ).returncode
    report = WORK / "coverage.json"
    subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={data}", omit, "-q", "-o", str(report)],
                   cwd=ROOT, check=False)
    if report.exists():
        print(branch_table(json.loads(report.read_text())))
    return code


def branch_table(report: dict) -> str:
    """Branches only, per module and in all, from coverage.py's JSON report."""
    rows = ["| module | branches covered | branches | % |", "|---|---:|---:|---:|"]
    covered = total = 0
    for name, entry in sorted(report["files"].items()):
        summary = entry["summary"]
        n, c = summary["num_branches"], summary["covered_branches"]
        covered, total = covered + c, total + n
        if n:
            rows.append(f"| `{Path(name).name}` | {c} | {n} | {100 * c / n:.1f} % |")
    rows.append(f"| **codec/** | **{covered}** | **{total}** | **{100 * covered / max(total, 1):.1f} %** |")
    return "\n".join(rows)


def _arcs_of(cov, data: bytes) -> frozenset[tuple[str, int, int]]:
    """The codec/ arcs (branches and line pairs) every target's oracle takes on ``data``."""
    cov.erase()
    cov.start()
    try:
        for check in TARGETS.values():
            with contextlib.suppress(Exception):  # a finding is replay's business, not distil's
                check(data)
    finally:
        cov.stop()
    found = cov.get_data()
    return frozenset((Path(f).name, a, b) for f in found.measured_files() for a, b in (found.arcs(f) or ()))


def _shorten(cov, data: bytes, wanted: frozenset, budget: int) -> bytes:
    """``data`` with pieces cut away (halves, quarters, … down to single bytes, the
    digest made right after each cut) while it still takes every arc of ``wanted``;
    at most ``budget`` tries."""
    from fuzz.mutate import fix_digest

    size = len(data) // 2
    while size >= 1 and budget > 0:
        at = 0
        while at < len(data) and budget > 0:
            cut = fix_digest(data[:at] + data[at + size :])
            budget -= 1
            if len(cut) < len(data) and wanted <= _arcs_of(cov, cut):
                data = cut
            else:
                at += size
        size //= 2
    return data


def distil(dirs: list[Path], *, budget: int = 200) -> int:
    """Add to fuzz/corpus each input of ``dirs`` (smallest first) that takes a
    codec/ arc no corpus input takes, shortened while it keeps those arcs; the
    arcs are coverage.py's, the measure ``--coverage`` reports."""
    import hashlib

    import coverage

    cov = coverage.Coverage(branch=True, source=[str(ROOT / "codec")], data_file=None)
    known: set = set()
    for path in sorted((FUZZ / "corpus").iterdir()):
        known |= _arcs_of(cov, path.read_bytes())
    candidates = sorted((p for d in dirs for p in d.glob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    print(f"{len(known):,} arcs from fuzz/corpus; {len(candidates):,} candidates", file=sys.stderr)
    added = 0
    for path in candidates:
        data = path.read_bytes()
        new = _arcs_of(cov, data) - known
        if not new:
            continue
        short = _shorten(cov, data, frozenset(new), budget)
        arcs = _arcs_of(cov, short)
        known |= arcs
        (FUZZ / "corpus" / hashlib.sha1(short).hexdigest()).write_bytes(short)
        added += 1
        print(f"{path.parent.name}/{path.name[:12]}: {len(new)} new arc(s), {len(data):,} -> {len(short):,} bytes")
    print(f"{added} input(s) added to fuzz/corpus")
    return 0


def replay(paths: list[Path], *, quiet: bool = False) -> int:
    """The oracle on saved inputs (findings), reporting each failure."""
    failures = 0
    for path in paths:
        data = path.read_bytes()
        for name, check in TARGETS.items():
            try:
                check(data)
            except Exception as exc:  # noqa: BLE001 - every failure is reported, then the next
                failures += 1
                print(f"{path.name}: {name}: {type(exc).__name__}: {str(exc)[:200]}")
    if not quiet:
        print(f"{len(paths)} input(s), {failures} failure(s)")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", nargs="+", choices=sorted(TARGETS), default=list(TARGETS))
    ap.add_argument("--minutes-per-target", type=float, default=5.0)
    ap.add_argument("--memory-mib", type=int, default=1024, help="RSS limit per run (address space gets 512 MiB more)")
    ap.add_argument("--timeout", type=int, default=10, help="seconds one input may take before it is a hang")
    ap.add_argument("--max-len", type=int, default=65536, help="longest input libFuzzer builds")
    ap.add_argument("--coverage", action="store_true", help="report codec/ coverage of the seed and work corpora")
    ap.add_argument("--no-work", action="store_true", help="with --coverage: the kept corpus (fuzz/corpus) only")
    ap.add_argument("--distil", action="store_true",
                    help="add to fuzz/corpus the work corpora's inputs that reach new codec/ arcs, shortened")
    ap.add_argument("--replay", nargs="+", type=Path, metavar="FILE", help="run the oracle on these inputs")
    ap.add_argument("--replay-list", type=Path, help=argparse.SUPPRESS)  # used by --coverage
    ap.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    if args.replay_list:
        return replay([Path(line) for line in args.replay_list.read_text().split()], quiet=args.quiet)
    if args.distil:
        return distil(sorted(p for p in WORK.glob("*") if p.is_dir()))
    if args.coverage:
        work = [] if args.no_work else sorted(p for p in WORK.glob("*") if p.is_dir())
        return coverage_of_corpus([FUZZ / "corpus", *work])
    results = []
    for target in args.targets:
        print(f"fuzzing {target} for {args.minutes_per_target:g} min …", flush=True)
        results.append(campaign(target, args.minutes_per_target * 60, args.memory_mib, args.timeout, args.max_len))
        r = results[-1]
        print(f"  {r['executions']:,} executions, {r['new_units']} new units, peak {r['peak_rss_mb']} MB, "
              f"findings: {r['findings'] or 'none'}", flush=True)
    WORK.mkdir(exist_ok=True)
    (WORK / "summary.json").write_text(json.dumps(results, indent=2) + "\n")
    print("\n| target | seconds | executions | new corpus units | peak RSS (MB) | findings |")
    print("|---|---:|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['target']} | {r['seconds']:.0f} | {r['executions']:,} | {r['new_units']} | "
              f"{r['peak_rss_mb']} | {', '.join(r['findings']) or 'none'} |")
    return 1 if any(r["findings"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
