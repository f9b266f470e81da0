#!/usr/bin/env python3
"""One atheris harness for every decoder target.

    python fuzz/harness.py TARGET [libFuzzer options] [CORPUS_DIR ...]

TARGET is one of ``fuzz.oracle.TARGETS`` (decode_model_text, decode_text,
decode_binary, decode_json, decode_wire, decode_model_text_and_verify,
layout_model_text, and issue 23's layout_wire, compare and repair: the last
two run the inspector's comparison of two wires cut from one input and its
repair plan). The codec is instrumented for coverage; the custom mutator
(fuzz/mutate.py) mutates mostly the body and then recomputes the digest.
A finding (an exception other than CompactError, an oracle violation, a timeout
or a memory overrun) makes libFuzzer write the input to ``crash-…``/``timeout-…``
/``oom-…``. semaprax bench fuzz runs campaigns with limits and collects the findings.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

with atheris.instrument_imports(include=["codec"]):
    import codec

    # codec imports its modules on first use (codec/__init__.py, PEP 562): each is
    # imported here, inside the instrumentation, or libFuzzer would see codec/'s
    # __init__ alone (22 edges: the campaigns ran without coverage feedback)
    for _module in pkgutil.iter_modules(codec.__path__):
        importlib.import_module(f"codec.{_module.name}")

from fuzz.mutate import atheris_mutate
from fuzz.oracle import TARGETS


def main() -> None:
    # libFuzzer's -merge and -fork modes run this file again with their own
    # options only: the target then comes from the environment, set here.
    if len(sys.argv) >= 2 and sys.argv[1] in TARGETS:
        target, options = sys.argv[1], sys.argv[2:]
        os.environ["SEMAPRAX_FUZZ_TARGET"] = target
    else:
        target, options = os.environ.get("SEMAPRAX_FUZZ_TARGET", ""), sys.argv[1:]
    if target not in TARGETS:
        sys.exit(f"usage: harness.py TARGET [libFuzzer options]; TARGET is one of {', '.join(TARGETS)}")
    atheris.Setup([sys.argv[0], *options], TARGETS[target], custom_mutator=atheris_mutate)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
