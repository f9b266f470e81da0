"""What a graph view costs against reading its source (issue 21, point 4), and
what v2 model-text saves or costs against full JSON by view size (point 5).

    semaprax bench view-vs-source [--half tune|held-out|all] [--stdlib DIR]

The corpus is every top-level module of the standard library folder (the running
Python's, unless --stdlib), and for model-text also the symbols view of every
package folder but ``test`` and ``idlelib``, split in two halves by the SHA-256 of
the name (even first byte: ``tune``, odd: ``held-out``), so a shape can be tuned
on one half and judged on the other. Counts are full-JSON wires (the view) and
the raw source text, with both tokenizers (views/tokens.py). Prints a Markdown
report."""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import typing
from pathlib import Path

import codec
from servers.route import choose_auto, make_projection
from views.tokens import ENCODING_NAMES, count_tokens

MIN_SOURCE_TOKENS = 500


def half_of(name: str) -> str:
    return "tune" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "held-out"


def corpus(stdlib: Path, half: str) -> list[str]:
    names = sorted(p.name for p in stdlib.glob("*.py"))
    return [n for n in names if half == "all" or half_of(n) == half]


def packages(stdlib: Path, half: str) -> list[str]:
    names = sorted(p.parent.name for p in stdlib.glob("*/__init__.py") if p.parent.name not in ("test", "idlelib"))
    return [n for n in names if half == "all" or half_of(n) == half]


def model_text_change(p: codec.CompactProjection) -> tuple[float, ...]:
    view, mt = count_tokens(p.selected), count_tokens(codec.encode_model_text(p))
    return tuple(100.0 * (mt[t] - view[t]) / view[t] for t in ENCODING_NAMES)


def band_of(size: int) -> str:
    return "< 4 KiB" if size < 4096 else "4-16 KiB" if size < 16384 else "16-64 KiB" if size < 65536 else ">= 64 KiB"


def quartiles(xs: list[float]) -> str:
    if not xs:
        return "-"
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return f"{min(xs):.2f} / {q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f} / {max(xs):.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("tune", "held-out", "all"), default="held-out",
                        help="which half of the corpus (default held-out, the one the shapes were not tuned on; "
                        "about a minute on a loaded 2-core machine)")
    parser.add_argument("--stdlib", type=Path, default=Path(os.path.dirname(typing.__file__)),
                        help="a standard-library folder (default: the running Python's)")
    args = parser.parse_args(argv)
    ratios: dict[str, list[tuple[float, str]]] = {t: [] for t in ENCODING_NAMES}
    small: dict[str, list[float]] = {t: [] for t in ENCODING_NAMES}
    by_size: dict[str, list[tuple[float, float]]] = {}
    chosen: dict[str, int] = {}
    for name in corpus(args.stdlib, args.half):
        source = (args.stdlib / name).read_bytes()
        src = count_tokens(source)
        p = make_projection("graph", name, args.stdlib)
        view = count_tokens(p.selected)
        for t in ENCODING_NAMES:
            r = view[t] / max(src[t], 1)
            (ratios[t].append((r, name)) if src[t] >= MIN_SOURCE_TOKENS else small[t].append(r))
        mt = count_tokens(codec.encode_model_text(p))
        counts = {"json": view, "text": count_tokens(codec.encode_text(p)), "model-text": mt}
        chosen[choose_auto(counts)] = chosen.get(choose_auto(counts), 0) + 1
        by_size.setdefault(band_of(len(p.selected)), []).append(model_text_change(p))  # type: ignore[arg-type]
    for name in packages(args.stdlib, args.half):
        p = make_projection("symbols", name, args.stdlib)
        by_size.setdefault(band_of(len(p.selected)), []).append(model_text_change(p))  # type: ignore[arg-type]
    print(f"## graph view against its source: {args.half} half of {args.stdlib} "
          f"(Python {sys.version.split()[0]})\n")
    print("| tokenizer | modules >= 500 tokens | median | max (module) | over 0.8x | min / q1 / median / q3 / max |")
    print("|---|---:|---:|---|---:|---|")
    for t in ENCODING_NAMES:
        rs = sorted(ratios[t])
        worst = rs[-1] if rs else (0.0, "-")
        print(f"| {t} | {len(rs)} | {statistics.median(r for r, _ in rs):.3f}x | {worst[0]:.3f}x ({worst[1]}) | "
              f"{sum(1 for r, _ in rs if r > 0.8)} | {quartiles([r for r, _ in rs])} |")
    for t in ENCODING_NAMES:
        if small[t]:
            print(f"\nModules under {MIN_SOURCE_TOKENS} {t} tokens: {len(small[t])}, "
                  f"median {statistics.median(small[t]):.2f}x.")
    print("\n## v2 model-text against full JSON of the same views (graph of each module, symbols of each "
          "package), by view size\n")
    print("Change in tokens (negative: model-text saves). min / q1 / median / q3 / max, in %.\n")
    print("| full JSON size | views | cl100k_base | o200k_base |")
    print("|---|---:|---|---|")
    for band in ("< 4 KiB", "4-16 KiB", "16-64 KiB", ">= 64 KiB"):
        rows = by_size.get(band, [])
        if rows:
            print(f"| {band} | {len(rows)} | {quartiles([r[0] for r in rows])} | {quartiles([r[1] for r in rows])} |")
    print(f"\n`auto` chose: {', '.join(f'{f} {n}' for f, n in sorted(chosen.items()))}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
