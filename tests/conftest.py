"""One test configuration for the whole suite.

Tests run in an environment of their own, whatever the user's shell holds: the
variables that change what the code does (``MAX_MCP_OUTPUT_TOKENS`` sets the MCP
tool's budget, tiktoken's cache folders, Textual's and the terminal's settings)
are removed, HOME and the cache folder point into a temporary folder, and the
working folder is the repository, so ``pytest`` gives the same results from any
folder and any shell. Child processes the tests start inherit the same.
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# The tests' own helpers (wirekit, serverkit) import by name.
sys.path.insert(0, str(HERE))

#: Variables read by the project or its libraries that would make a result depend
#: on the user's environment.
ISOLATED = (
    "MAX_MCP_OUTPUT_TOKENS", "MCP_TIMEOUT", "TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR",
    "TEXTUAL", "TEXTUAL_DEBUG", "TEXTUAL_DRIVER", "TEXTUAL_FPS", "TEXTUAL_ANIMATIONS",
    "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "PYTHONSTARTUP", "PYTHONWARNINGS",
)
ISOLATED_PREFIXES = ("SEMAPRAX_",)


def isolate_environment(environ: dict[str, str] | os._Environ[str], home: str) -> None:
    for name in list(environ):
        if name in ISOLATED or name.startswith(ISOLATED_PREFIXES):
            del environ[name]
    environ["HOME"] = home
    environ["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    environ["XDG_CONFIG_HOME"] = os.path.join(home, ".config")


#: The collector's schedule in the test process (xdist's workers included; the processes the
#: tests start keep Python's own). A young collection after every 700 new objects (the default)
#: let the Pilot tests' widgets, strips and styles, which live for a few frames, reach the
#: oldest generation, and each full collection then walked the whole test process (0.1-0.3 s
#: each): a quarter of the suite's CPU time was the collector's (tests/inspector/test_inspector.py
#: 14 s of 43 s). After every 10,000 most of them are gone before they are looked at. What is
#: collected and what each test checks are the same; only when cyclic garbage is freed moves (a
#: test that needs it gone calls gc.collect, as test_tokens.py does), for about 100 MB more
#: memory per process at the peak.
gc.set_threshold(10_000, 10, 10)

_HOME = tempfile.mkdtemp(prefix="semaprax-tests-home-")
isolate_environment(os.environ, _HOME)
os.chdir(ROOT)
