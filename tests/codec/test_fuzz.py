"""The short fuzzing campaign of the test suite (issue 13).

The oracle of fuzz/oracle.py (a projection or a CompactError and nothing else;
an accepted wire re-encodes to itself; offsets within the input; the structured
parse agrees with the decoder) runs on every seed of fuzz/corpus, on every
minimized finding kept in fuzz/regressions, and then on mutations of the seeds
made by fuzz/mutate.py's pure-Python mutator, which recomputes the digest so the
mutations reach the steps after it. Hypothesis drives the mutations with a fixed
derandomized sequence, so the suite stays deterministic; long coverage-guided
campaigns with atheris are semaprax bench fuzz's job.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.mutate import fix_digest, random_mutate
from fuzz.oracle import TARGETS

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
SEEDS = sorted(p for p in (FUZZ / "corpus").iterdir() if p.is_file())
REGRESSIONS = sorted(p for p in (FUZZ / "regressions").glob("*") if p.is_file() and p.suffix != ".md")
#: Examples per target: the seven targets together take about half a minute on 2 cores.
EXAMPLES = 800


def test_the_corpus_has_every_form_and_the_rejected_examples():
    heads = {p.read_bytes()[:8] for p in SEEDS}
    assert {b"SEMAPRAX", b"SPXB\x01"} <= {h[:8] if h.startswith(b"SEMAPRAX") else h[:5] for h in heads}
    assert any(h.startswith((b"{", b"[")) for h in heads)
    assert len(SEEDS) >= 40


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_seeds_and_kept_findings_satisfy_the_oracle(target):
    check = TARGETS[target]
    for path in SEEDS + REGRESSIONS:
        check(path.read_bytes())


def test_fix_digest_makes_a_mutated_body_reach_past_the_digest():
    import codec

    def valid(data: bytes) -> bool:
        try:
            return codec.decode_wire(data).form == "model-text"
        except codec.CompactError:
            return False

    wire = next(data for data in (p.read_bytes() for p in SEEDS) if valid(data))
    body = wire.index(b"\nbody\n") + 6
    changed = wire[:body] + b" " + wire[body:]
    with pytest.raises(codec.CompactError) as before:
        codec.decode_model_text(changed)
    assert before.value.code == "compact.digest"
    with pytest.raises(codec.CompactError) as after:
        codec.decode_model_text(fix_digest(changed))
    assert after.value.code == "compact.noncanonical"  # reached step 5: the space


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, len(SEEDS) - 1), rng=st.integers(0, 2**32 - 1), edits=st.integers(1, 6))
def test_mutations_satisfy_the_oracle(target, seed, rng, edits):
    TARGETS[target](random_mutate(SEEDS[seed].read_bytes(), random.Random(rng), edits))


def test_the_harness_instruments_every_codec_module():
    # codec imports its modules on first use; a harness that imported only the
    # package inside atheris's instrumentation ran its campaigns with no coverage
    # feedback (libFuzzer saw codec/__init__ alone, the oracle loaded the rest
    # outside it). In a fresh process: every codec module must be loaded by the
    # time the instrumenting block ends.
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    script = (
        "import contextlib, pkgutil, sys, types\n"
        "try:\n"
        "    import atheris\n"
        "except ImportError:  # the test extra has no atheris: a stand-in that instruments nothing\n"
        "    atheris = sys.modules['atheris'] = types.ModuleType('atheris')\n"
        "    atheris.instrument_imports = lambda **kwargs: contextlib.nullcontext()\n"
        "real, inside = atheris.instrument_imports, set()\n"
        "@contextlib.contextmanager\n"
        "def recording(*args, **kwargs):\n"
        "    with real(*args, **kwargs):\n"
        "        yield\n"
        "    inside.update(name for name in sys.modules if name.startswith('codec.'))\n"
        "atheris.instrument_imports = recording\n"
        "import fuzz.harness, codec\n"
        "print(sorted(m.name for m in pkgutil.iter_modules(codec.__path__) if f'codec.{m.name}' not in inside))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], check=False, cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
