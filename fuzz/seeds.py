"""Write the seed corpus, fuzz/corpus/: small valid wires of every form and the
examples' rejected wires, plus a few hand-made shapes the examples lack.

    python fuzz/seeds.py

The files are named by their SHA-1 as libFuzzer names corpus entries, so
rerunning writes nothing new unless the examples changed."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import codec

CORPUS = Path(__file__).with_name("corpus")
#: Seeds stay small so mutations are cheap; the large shapes are the benchmark's.
MAX_SEED = 24 * 1024


def hand_made() -> list[bytes]:
    value = {
        "module": "m.py",
        "text": '@0 ~1 "q" \\ \u00e9 \u2028 \U0001f600 \x1b',
        "numbers": [0, -1, 1.5, 1e16, 1e-05, -0.0, 2**64, -(2**64) - 1],
        "flags": [True, False, None],
        "deep": [[[[{"a": [{}]}]]]],
    }
    p = codec.CompactProjection.from_value("graph", "m.py", "rev 1", value)
    shared = codec.CompactProjection.from_value(
        "symbols", "pkg", "r", {"rows": [["pkg.mod.helper_function", "pkg.mod.other_thing", i] for i in range(400)]}
    )
    wires = [codec.ENCODERS[form](p) for form in codec.FORMS]
    wires.append(codec.encode_model_text(shared))  # a v2 dictionary (documents of 16 KiB or more)
    wires.append(codec.encode_text(shared))
    return wires


def seeds() -> list[bytes]:
    out = []
    for folder in (ROOT / "examples" / "wires", ROOT / "examples" / "rejected"):
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.stat().st_size <= MAX_SEED:
                out.append(path.read_bytes())
    return out + hand_made()


def main() -> int:
    CORPUS.mkdir(exist_ok=True)
    written = 0
    for data in seeds():
        path = CORPUS / hashlib.sha1(data).hexdigest()
        if not path.exists():
            path.write_bytes(data)
            written += 1
    print(f"{written} new seed(s); {len(list(CORPUS.iterdir()))} in {CORPUS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
