"""One test configuration for the whole suite.

Tests run in an environment of their own, whatever the user's shell holds: the
variables that change what the code does (``MAX_MCP_OUTPUT_TOKENS`` sets the MCP
tool's budget, tiktoken's cache folders, Textual's and the terminal's settings)
are removed, HOME and the cache folder point into a temporary folder, and the
working folder is the repository, so ``pytest`` gives the same results from any
folder and any shell. Child processes the tests start inherit the same.
"""

from __future__ import annotations

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


_HOME = tempfile.mkdtemp(prefix="semaprax-tests-home-")
isolate_environment(os.environ, _HOME)
os.chdir(ROOT)
