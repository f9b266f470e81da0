"""Small workspaces written by the tests, and views read in their long shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from servers.route import make_projection
from views.expand import expand


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Each workspace-relative path with its text (UTF-8) or bytes; ``root`` back."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


def long_view(profile: str, root: str, folder: Path) -> Any:
    """The view in its long shape (views.expand): for tests about what the
    producers find, not how the view spells it."""
    return expand(profile, json.loads(make_projection(profile, root, folder).selected))
