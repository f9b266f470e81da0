"""How long fitting a view to a budget takes (views/fit.py), against producing the
whole view in the same run (issue 21).

    semaprax bench fit [--repeat 3] [--stdlib DIR]

For each case: the whole view's production (a fresh warm-index cache each round),
then the fitted one with the same cache state, both through
``servers.route.make_projection``; medians with min-max over the rounds, and the
ratio fitted/whole. Prints a Markdown table; the counts are exact, the times
depend on the machine's load (say it when you report them)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import typing
from pathlib import Path

from analysis.warm import IndexCache
from servers.route import make_projection
from views.fit import Budget
from views.tokens import count_tokens

CASES = [("symbols", "asyncio", 10_000), ("symbols", "email", 5_000), ("graph", "typing.py", 4_000)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds per case (default 3; about a minute in "
                        "all on a loaded 2-core machine)")
    parser.add_argument("--stdlib", type=Path, default=Path(os.path.dirname(typing.__file__)),
                        help="the workspace: a standard-library folder (default: the running Python's)")
    args = parser.parse_args(argv)
    count_tokens("warm the tokenizers")
    print("| view | budget | whole tokens (cl100k / o200k) | fitted tokens | whole, s | fitted, s | fitted/whole |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for profile, root, limit in CASES:
        whole_t, fitted_t = [], []
        for _ in range(args.repeat):
            cache = IndexCache()
            start = time.perf_counter()
            whole = make_projection(profile, root, args.stdlib, index_cache=cache)
            whole_t.append(time.perf_counter() - start)
            cache = IndexCache()
            start = time.perf_counter()
            fitted = make_projection(profile, root, args.stdlib, index_cache=cache, budget=Budget(limit))
            fitted_t.append(time.perf_counter() - start)
        a, b = count_tokens(whole.selected), count_tokens(fitted.selected)
        assert max(b.values()) <= limit and "partial" in json.loads(fitted.selected)

        def cell(xs: list[float]) -> str:
            return f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

        print(f"| {profile} {root} | {limit:,} | {a['cl100k_base']:,} / {a['o200k_base']:,} | "
              f"{b['cl100k_base']:,} / {b['o200k_base']:,} | {cell(whole_t)} | {cell(fitted_t)} | "
              f"{statistics.median(fitted_t) / statistics.median(whole_t):.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
