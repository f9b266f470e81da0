"""Inspector responsiveness on a 16 MiB document, measured as a person meets it:
the real ``semaprax-inspect`` process in a real terminal (tmux), timed from the
moment the process is started. A benchmark, not a test; it prints figures.

For each wire (model-text, full JSON) and each round it records:

- first paint: the first screen showing the wire's status badge (the envelope,
  read before verification), from process start;
- verified: the badge saying VALID (decode-and-verify done);
- key latency while counting: a key pressed in the byte view (right arrow) until
  the screen shows the cursor's new byte, repeated, while the token counter runs
  (the script checks that the counting process, the inspector's child, is
  running before the first key and after the last);
- all tokens counted: when the savings strip stops saying "counting…";
- peak memory: the inspector process's VmHWM, and its ratio to the wire's size
  (wires of 1 MiB or more are counted in a child process, not included).

Screen polling (``tmux capture-pane``) costs a few milliseconds, so latencies
have that resolution. Medians over rounds, with the range.

    python scripts/bench_inspector.py [--size-mib 16] [--rounds 3] [--keys 15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_codec import graph_document

import codec

SESSION = f"bench-inspector-{os.getpid()}"
INSPECT = Path(sys.executable).with_name("semaprax-inspect")


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def wait_for(predicate, timeout: float = 120.0, every: float = 0.005) -> float:
    """Poll the screen until ``predicate(text)``; return the time it became true."""
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        text = screen()
        if predicate(text):
            return time.perf_counter()
        time.sleep(every)
    raise TimeoutError(f"screen never matched; last screen:\n{screen()}")


def inspector_pid() -> str:
    return tmux("list-panes", "-t", SESSION, "-F", "#{pane_pid}").split()[0]


def counting_under_way() -> bool:
    """Whether the inspector's counting process (``inspector.count_child``, its
    child) is running: a fact of the process table, not of what a pane shows."""
    parent = inspector_pid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == parent and b"inspector.count_child" in cmdline:
            return True
    return False


def peak_memory_bytes() -> int:
    pid = inspector_pid()
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def one_round(path: Path, keys: int) -> dict[str, float]:
    started = time.perf_counter()
    tmux("new-session", "-d", "-s", SESSION, "-x", "140", "-y", "40", f"exec {INSPECT} {path}")
    try:
        painted = wait_for(lambda s: "CHECKING" in s or "VALID" in s or "REJECTED" in s)
        verified = wait_for(lambda s: "VALID" in s or "REJECTED" in s)
        tmux("send-keys", "-t", SESSION, "x")
        wait_for(lambda s: "byte 0 (0x0)" in s)
        during = counting_under_way()
        latencies = []
        for k in range(1, keys + 1):
            t = time.perf_counter()
            tmux("send-keys", "-t", SESSION, "Right")
            latencies.append(wait_for(lambda s, k=k: f"byte {k:,} (0x{k:x})" in s) - t)
        during = during and counting_under_way()  # the counting process ran from the first key to the last
        tmux("send-keys", "-t", SESSION, "o")
        wait_for(lambda s: "what each form costs" in s)
        counted = wait_for(lambda s: "counting…" not in s and "cl100k" in s, timeout=600)
        peak = peak_memory_bytes()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], check=False, capture_output=True)
    return {
        "first_paint": painted - started,
        "verified": verified - started,
        "key_median": statistics.median(latencies),
        "key_max": max(latencies),
        "keys_during_counting": float(during),
        "counted": counted - started,
        "peak": peak,
    }


def spread(values: list[float], scale: float = 1.0, fmt: str = "{:.2f}") -> str:
    values = [v * scale for v in values]
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=16.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keys", type=int, default=15)
    args = ap.parse_args(argv)
    if shutil.which("tmux") is None or not INSPECT.exists():
        print("needs tmux and the semaprax-inspect script of this environment", file=sys.stderr)
        return 2
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import inspector.app"], check=True)
    print(f"import inspector.app in a fresh process: {time.perf_counter() - t:.2f} s")
    doc = graph_document(int(args.size_mib * 1024 * 1024) - 4096)
    p = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, doc)
    with tempfile.TemporaryDirectory() as tmp:
        files = {"model-text": Path(tmp) / "big.model-text", "full JSON": Path(tmp) / "big.json"}
        files["model-text"].write_bytes(codec.encode_model_text(p))
        files["full JSON"].write_bytes(doc)
        print("| wire | bytes | first paint s | verified s | key latency while counting, median ms | "
              "worst ms | all tokens counted s | peak memory MB (x wire) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, path in files.items():
            rounds = [one_round(path, args.keys) for _ in range(args.rounds)]
            size = path.stat().st_size
            during = all(r["keys_during_counting"] for r in rounds)
            peak = statistics.median(r["peak"] for r in rounds)
            print(f"| {label} | {size:,} | {spread([r['first_paint'] for r in rounds])} | "
                  f"{spread([r['verified'] for r in rounds])} | "
                  f"{spread([r['key_median'] for r in rounds], 1000, '{:.0f}')} | "
                  f"{spread([r['key_max'] for r in rounds], 1000, '{:.0f}')} | "
                  f"{spread([r['counted'] for r in rounds], 1, '{:.1f}')} | "
                  f"{peak / 1e6:,.0f} ({peak / size:.0f}x) |"
                  + ("" if during else " (some keys after counting ended)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
