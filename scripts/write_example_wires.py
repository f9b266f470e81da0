"""Write examples/wires/: every bundled example document in every encoding.

Until the workspace producers land, the one example is a graph-shaped view of
this project's own codec package, stored as canonical JSON in examples/."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import codec  # noqa: E402

EXAMPLES = ROOT / "examples"
WIRES = EXAMPLES / "wires"
SUFFIX = {"json": "json", "text": "text", "binary": "binary", "model-text": "model-text"}


def example_projections() -> dict[str, codec.CompactProjection]:
    selected = (EXAMPLES / "sample-graph.json").read_bytes()
    return {
        "sample-graph": codec.CompactProjection(
            "graph",
            "codec/model_text.py",
            "sha256:" + "5a" * 32,
            selected,
        )
    }


def expected_files() -> dict[Path, bytes]:
    out = {}
    for name, p in example_projections().items():
        for form, encode in codec.ENCODERS.items():
            out[WIRES / f"{name}.{SUFFIX[form]}"] = encode(p)
    return out


def main() -> int:
    WIRES.mkdir(parents=True, exist_ok=True)
    for path, data in expected_files().items():
        path.write_bytes(data)
        print(f"{path.relative_to(ROOT)}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
