import sys
from pathlib import Path

# The tests' own helpers (wirekit) import by name.
sys.path.insert(0, str(Path(__file__).resolve().parent))
