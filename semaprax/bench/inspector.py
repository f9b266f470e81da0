"""Inspector responsiveness on a 16 MiB document, measured as a person meets it:
the real ``semaprax-inspect`` process in a real terminal (tmux, on a server of
this script's own), timed from the moment the process is started. A benchmark,
not a test; it prints figures.

For each wire (model-text, full JSON) and each round it records:

- first paint: the first screen showing the wire's status badge (the envelope,
  read before verification), from process start;
- verified: the badge saying VALID (decode-and-verify done);
- key latency while counting: a key pressed in the byte view (right arrow) until
  the screen shows the cursor's new byte, repeated, while the token counter runs
  (the first key after switching to the byte view, which also waits for the rest
  of that tab's first render, is reported apart)
  (the script checks that the same counting process, the inspector's child
  ``inspector.worker count``, is running before the first key and after the last,
  and reports how much CPU it used meanwhile);
- all tokens counted: when the savings strip stops saying "counting…";
- peak memory: the inspector process's VmHWM, and its ratio to the wire's size
  (a wire of 1 MiB or more is decoded and counted in child processes, whose
  peaks are measured apart, each alone on the wire, after the rounds);
- CPU time of the inspector process and of its ended children (wall time on a
  shared machine is noisy; CPU time much less so);
- the process tree's memory: the interface process and its children (layout,
  counting) sampled from ``/proc`` every 10 ms, the peak of the sum of their
  resident sizes over time (what the machine must hold at once), what each
  held at that moment, and each one's own peak (``TreeMemory``).

Screen polling (``tmux capture-pane``) costs a few milliseconds, so latencies
have that resolution. Medians over rounds, with the range. ``--inspect`` twice
or more compares checkouts (e.g. a venv made from an older commit): their rounds
alternate, so a change of load on a shared machine hits each alike.

    semaprax bench inspector [--size-mib 16] [--rounds 3] [--keys 15]
        [--forms model-text,json,spread] [--wire FILE] [--inspect CMD --inspect CMD2] [--no-child-peaks]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout

import codec
from semaprax.bench.codec import _fill, graph_document

SESSION = f"bench-inspector-{os.getpid()}"
#: A tmux server of this script's own: other sessions on the machine's default server neither share
#: its work nor end it between rounds (a new session racing the exit of the server it asks failed).
SOCKET = SESSION
INSPECT = Path(sys.executable).with_name("semaprax-inspect")


def spread_graph_document(target: int) -> bytes:
    """``graph_document``'s shape with every long string its node's own (names,
    call targets, signatures, references): the dictionary finds little to
    take, so the model-text wire is about as large as the document (16.3 MB
    at 16 MiB), the largest model-text wire a 16 MiB document gives."""
    modules = [f"acme.service.module_{m:03d}" for m in range(180)]

    def name(i: int) -> str:
        return f"{modules[i % 180]}.Handler{i % 37}.method_{i:06d}"

    def node(i: int) -> dict[str, object]:
        return {
            "name": name(i),
            "kind": "method" if i % 5 else "function",
            "span": [i % 4000 + 1, i % 4000 + 1 + i % 37],
            "signature": f"(self, request: Request{i}, limit: int = {i % 100}) -> Response{i}",
            "calls": [name(i * 7 + 3), name(i * 13 + 5)],
            "references": [f"{modules[(i * 3) % 180]}.CONFIG_{i}", f"acme.http.Response{i}"],
            "doc": f"Handle request number {i} and return its response." if i % 3 == 0 else None,
        }

    return _fill(target, node, lambda nodes: {"module": "acme.service", "nodes": nodes})


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], check=True, capture_output=True, text=True).stdout


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


def counting_process() -> tuple[int, float] | None:
    """The inspector's counting process (``python -m inspector.worker count``, its child)
    if one is running, as (pid, CPU seconds used so far): a fact of the process
    table, not of what a pane shows."""
    parent = inspector_pid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[1] == parent and b"inspector.worker\x00count" in cmdline:
            return int(proc.name), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return None


class TreeMemory:
    """The inspector's whole process tree (the interface process and every
    descendant: the layout and counting processes), sampled from ``/proc``
    every ``every`` seconds in a thread of this script: the peak of the sum of
    their resident sizes (VmRSS) over time, and each process's own high-water
    mark (VmHWM, the last seen before it ended). Resident sizes count shared
    pages (the interpreter, libraries) once per process, so the sum errs high."""

    def __init__(self, root: int, every: float = 0.01) -> None:
        self.root, self.every = root, every
        self.peak_sum = 0
        self.at_peak: dict[str, int] = {}  # kind -> VmRSS at the moment of the peak sum
        self.hwm: dict[int, tuple[str, int]] = {}  # pid -> (kind, VmHWM)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    @staticmethod
    def _kind(pid: int, root: int) -> str:
        if pid == root:
            return "interface"
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\x00")
        except OSError:
            return "other"
        return argv[argv.index(b"inspector.worker") + 1].decode() if b"inspector.worker" in argv[:-1] else "other"

    def _tree(self) -> list[int]:
        parents: dict[int, list[int]] = {}
        for proc in os.listdir("/proc"):
            if proc.isdigit():
                try:
                    stat = Path(f"/proc/{proc}/stat").read_text()
                except OSError:
                    continue
                parents.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(proc))
        out, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            out.append(pid)
            todo.extend(parents.get(pid, ()))
        return out

    def sample(self) -> None:
        total, now = 0, dict[str, int]()
        for pid in self._tree():
            try:
                status = Path(f"/proc/{pid}/status").read_text().splitlines()
            except OSError:
                continue
            values = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in status
                      if line.startswith(("VmRSS:", "VmHWM:"))}
            if "VmRSS" not in values:  # a zombie
                continue
            kind = self.hwm[pid][0] if pid in self.hwm else self._kind(pid, self.root)
            self.hwm[pid] = (kind, values["VmHWM"])
            total += values["VmRSS"]
            now[kind] = now.get(kind, 0) + values["VmRSS"]
        if total > self.peak_sum:
            self.peak_sum, self.at_peak = total, now

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.every)

    def peaks(self) -> dict[str, int]:
        """Each kind of process's highest VmHWM (the interface, layout, count)."""
        out: dict[str, int] = {}
        for kind, hwm in self.hwm.values():
            out[kind] = max(out.get(kind, 0), hwm)
        return out


def peak_memory_bytes() -> int:
    pid = inspector_pid()
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def cpu_seconds() -> tuple[float, float]:
    """CPU time (user + system) of the inspector process, and of its children
    that have ended (the layout and counting processes): wall time on a shared
    machine is noisy, CPU time much less so."""
    fields = Path(f"/proc/{inspector_pid()}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def one_round(path: Path, keys: int, inspect: str) -> dict[str, float]:
    started = time.perf_counter()
    # started in the wire's folder: a child process of the inspector must not import this checkout by chance
    tmux("new-session", "-d", "-s", SESSION, "-x", "140", "-y", "40", "-c", str(path.parent), f"exec {inspect} {path}")
    memory: TreeMemory | None = None
    try:
        memory = TreeMemory(int(inspector_pid()))
        memory.start()
        painted = wait_for(lambda s: "CHECKING" in s or "VALID" in s or "REJECTED" in s)
        verified = wait_for(lambda s: "VALID" in s or "REJECTED" in s)
        tmux("send-keys", "-t", SESSION, "x")
        wait_for(lambda s: "byte 0 (0x0)" in s)
        # The first key after the switch also waits for the rest of the new tab's first render (and the
        # footer's new keys): timed, but apart from the keys while counting.
        sent = time.perf_counter()
        tmux("send-keys", "-t", SESSION, "Right")
        first_key = wait_for(lambda s: "byte 1 (0x1)" in s) - sent
        before = counting_process()
        interface_before = cpu_seconds()[0]
        latencies = []
        t = time.perf_counter()
        for k in range(2, keys + 2):
            sent = time.perf_counter()
            tmux("send-keys", "-t", SESSION, "Right")
            latencies.append(wait_for(lambda s, k=k: f"byte {k:,} (0x{k:x})" in s) - sent)
        keys_took = time.perf_counter() - t
        after = counting_process()
        cpu_per_key = (cpu_seconds()[0] - interface_before) / keys
        # the same counting process ran from the first key to the last, and worked meanwhile
        during = before is not None and after is not None and before[0] == after[0]
        counting_cpu = after[1] - before[1] if during else 0.0
        tmux("send-keys", "-t", SESSION, "o")
        wait_for(lambda s: "what each form costs" in s)
        counted = wait_for(lambda s: "counting…" not in s and "cl100k" in s, timeout=600)
        for _ in range(100):  # the counting process exits after its last step: let it be waited for
            if before is None or not Path(f"/proc/{before[0]}").exists():  # gone, not a zombie
                break
            time.sleep(0.05)
        peak = peak_memory_bytes()
        cpu, children_cpu = cpu_seconds()
        memory.stop()
        memory.sample()
    finally:
        if memory is not None:
            memory.stop()
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", SESSION], check=False, capture_output=True)
    return {
        "first_paint": painted - started,
        "verified": verified - started,
        "key_median": statistics.median(latencies),
        "key_max": max(latencies),
        "first_key": first_key,
        "cpu_per_key": cpu_per_key,
        "keys": latencies,
        "keys_during_counting": float(during),
        "counting_cpu_share": counting_cpu / keys_took,  # of one core, while the keys were pressed
        "counted": counted - started,
        "peak": peak,
        "tree_peak": memory.peak_sum,
        **{f"at_peak_{kind}": rss for kind, rss in memory.at_peak.items()},
        **{f"peak_{kind}": hwm for kind, hwm in memory.peaks().items()},
        "cpu": cpu,
        "children_cpu": children_cpu,
    }


KINDS = ("interface", "layout", "count")


def memory_row(label: str, size: int, rounds: list[dict[str, float]]) -> str:
    """One row of the process tree's memory table: the peak of the sum over time, what each process
    held at that moment, each process's own peak, and the sum of those peaks (an upper bound)."""
    def median_mb(key: str) -> float:
        return statistics.median(r.get(key, 0) for r in rounds) / 1e6

    tree = median_mb("tree_peak")
    summed = statistics.median(sum(r.get(f"peak_{k}", 0) for k in KINDS) for r in rounds) / 1e6
    return (f"| {label} | {size:,} | {tree:,.0f} ({tree * 1e6 / size:.0f}x) | "
            + " + ".join(f"{median_mb(f'at_peak_{k}'):,.0f}" for k in KINDS) + " | "
            + " / ".join(f"{median_mb(f'peak_{k}'):,.0f}" for k in KINDS)
            + f" | {summed:,.0f} ({summed * 1e6 / size:.0f}x) |")


def spread(values: list[float], scale: float = 1.0, fmt: str = "{:.2f}") -> str:
    values = [v * scale for v in values]
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


#: Run in a helper process: the peak memory of one child process of the inspector, alone on the wire.
CHILD_PEAK = """
import resource, sys
import codec
from inspector import counting, model
from inspector.layout_child import encode_others, lay_out_and_encode
data = model.read_wire(sys.argv[1])
if sys.argv[2] == "layout":
    list(lay_out_and_encode(data))
else:  # laid out and encoded here, as the layout process does; counted in a child
    layout = codec.layout_wire(data)
    loaded = model.load_bytes(data, "counted", layout=layout)
    loaded.encoded = encode_others(layout)
    list(counting.count_all(loaded))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def child_peak(path: Path, which: str) -> int:
    run = subprocess.run([sys.executable, "-c", CHILD_PEAK, str(path), which], check=False, capture_output=True,
                         text=True, cwd=ROOT)
    return int(run.stdout.split()[-1]) if run.returncode == 0 else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=16.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keys", type=int, default=15)
    ap.add_argument("--inspect", action="append",
                    help="the command that starts the inspector (default: this environment's semaprax-inspect); "
                    "give it twice or more to compare checkouts: their rounds alternate, one row each")
    ap.add_argument("--forms", default="model-text,json",
                    help="which wires to open, comma-separated (default: model-text,json): the bench document's "
                    "model-text and full JSON forms, and 'spread', the model-text wire of a document of the same "
                    "size with few repeats (a wire about as large as its document)")
    ap.add_argument("--wire", action="append", type=Path, default=[],
                    help="also open this wire file (e.g. examples/wires/http_app_routing.graph.model-text); "
                    "may be given more than once")
    ap.add_argument("--no-child-peaks", action="store_true", help="skip measuring the child processes' memory")
    args = ap.parse_args(argv)
    commands = args.inspect or [str(INSPECT)]
    if shutil.which("tmux") is None or not INSPECT.exists():
        print("needs tmux and the semaprax-inspect script of this environment", file=sys.stderr)
        return 2
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import inspector.app"], check=True)
    print(f"import inspector.app in a fresh process: {time.perf_counter() - t:.2f} s; "
          f"load average {os.getloadavg()[0]:.1f}")
    doc = graph_document(int(args.size_mib * 1024 * 1024) - 4096)
    p = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, doc)
    tmux("new-session", "-d", "-s", SESSION + "-keeper", "sleep 86400")  # keeps this script's server up
    try:
        with tempfile.TemporaryDirectory() as tmp:
            forms = {f.strip() for f in args.forms.split(",") if f.strip()}
            files: dict[str, Path] = {}
            if "model-text" in forms:
                files["model-text"] = Path(tmp) / "big.model-text"
                files["model-text"].write_bytes(codec.encode_model_text(p))
            if "json" in forms:
                files["full JSON"] = Path(tmp) / "big.json"
                files["full JSON"].write_bytes(doc)
            if "spread" in forms:  # its own document: few repeats, so a model-text wire near the document's size
                few = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64,
                                              spread_graph_document(int(args.size_mib * 1024 * 1024) - 4096))
                files["model-text, few repeats"] = Path(tmp) / "spread.model-text"
                files["model-text, few repeats"].write_bytes(codec.encode_model_text(few))
            for wire in args.wire:
                files[wire.name] = wire.resolve()
            print("| wire | bytes | first paint s | verified s | key latency while counting, median ms | "
                  "worst ms | all tokens counted s | peak memory MB (x wire) | interface CPU s | children CPU s |"
                  + (" inspector |" if len(commands) > 1 else ""))
            print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---|" if len(commands) > 1 else ""))
            notes: list[str] = []
            memory_rows: list[str] = []
            for label, path in files.items():
                by_command: dict[str, list[dict[str, float]]] = {c: [] for c in commands}
                for _ in range(args.rounds):  # alternated, so a change of load hits every command alike
                    for command in commands:
                        by_command[command].append(one_round(path, args.keys, command))
                size = path.stat().st_size
                for command, rounds in by_command.items():
                    during = all(r["keys_during_counting"] for r in rounds)
                    peak = statistics.median(r["peak"] for r in rounds)
                    print(f"| {label} | {size:,} | {spread([r['first_paint'] for r in rounds])} | "
                          f"{spread([r['verified'] for r in rounds])} | "
                          f"{spread([r['key_median'] for r in rounds], 1000, '{:.0f}')} | "
                          f"{spread([r['key_max'] for r in rounds], 1000, '{:.0f}')} | "
                          f"{spread([r['counted'] for r in rounds], 1, '{:.1f}')} | "
                          f"{peak / 1e6:,.0f} ({peak / size:.0f}x) | "
                          f"{spread([r['cpu'] for r in rounds])} | {spread([r['children_cpu'] for r in rounds])} |"
                          + (f" {command} |" if len(commands) > 1 else "")
                          + ("" if during else " (some keys after counting ended)"))
                    memory_rows.append(memory_row(label, size, rounds) + (f" {command} |" if len(commands) > 1 else ""))
                    shares = [r["counting_cpu_share"] for r in rounds]
                    pooled = sorted(k for r in rounds for k in r["keys"])
                    p90 = pooled[int(0.9 * (len(pooled) - 1))]
                    notes.append(f"{label}, {command}: the counting process used {spread(shares, 100, '{:.0f}')}% "
                                 f"of a core while the keys were pressed; all {len(pooled)} keys: 90th percentile "
                                 f"{p90 * 1000:.0f} ms, slowest {pooled[-1] * 1000:.0f} ms; the first key after "
                                 f"switching to the byte view {spread([r['first_key'] for r in rounds], 1000, '{:.0f}')} ms; "
                                 f"the inspector's CPU per key {spread([r['cpu_per_key'] for r in rounds], 1000, '{:.0f}')} ms")
            print("\n".join(notes))
            print("\nThe process tree's memory (the interface process and its children, sampled every 10 ms; "
                  "medians over rounds):\n")
            print("| wire | bytes | peak of the sum, MB (x wire) | at that moment: interface + layout + count MB | "
                  "each process's own peak: interface / layout / count MB | sum of those peaks MB (x wire) |"
                  + (" inspector |" if len(commands) > 1 else ""))
            print("|---|---:|---:|---|---|---:|" + ("---|" if len(commands) > 1 else ""))
            print("\n".join(memory_rows))
            if not args.no_child_peaks:
                for label, path in files.items():
                    size = path.stat().st_size
                    peaks = ", ".join(f"{which} {child_peak(path, which) / 1e6:,.0f} MB"
                                      for which in ("layout", "count"))
                    print(f"peak memory of each child process alone, {label} ({size / 1e6:.2f} MB): {peaks}")
            print(f"load average at the end {os.getloadavg()[0]:.1f}")
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], check=False, capture_output=True)
        socket = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / SOCKET
        socket.unlink(missing_ok=True)  # the server is gone; its socket file need not stay behind
    return 0


if __name__ == "__main__":
    sys.exit(main())
