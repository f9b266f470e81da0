"""Write analysis/_stdlib_modules.py: the top-level module names of the standard
library of each Python version the ``diagnostics`` view knows, as each
interpreter's ``sys.stdlib_module_names`` gives them (every platform's modules,
private ones included). The view reads the written table, never the running
interpreter, so its bytes do not depend on the Python that makes them.

    python scripts/stdlib_modules.py /path/to/python3.10 /path/to/python3.11 ...

Versions without an interpreter at hand are written as an older version's
table plus the new top-level modules their "What's New" names (``DERIVED``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "analysis" / "_stdlib_modules.py"

#: version -> (the version whose table it starts from, modules added, modules removed):
#: What's New in Python 3.14, "New modules" (its private extension modules are not listed).
DERIVED: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "3.14": ("3.13", ("annotationlib", "compression"), ()),
}

PROGRAM = "import sys; print('%d.%d' % sys.version_info[:2]); print(' '.join(sorted(sys.stdlib_module_names)))"


def main(interpreters: list[str]) -> int:
    tables: dict[str, list[str]] = {}
    for python in interpreters:
        out = subprocess.run([python, "-c", PROGRAM], capture_output=True, text=True, check=True).stdout
        version, names = out.splitlines()
        tables[version] = names.split()
    for version, (base, added, removed) in DERIVED.items():
        if version not in tables and base in tables:
            tables[version] = sorted((set(tables[base]) | set(added)) - set(removed))
    order = sorted(tables, key=lambda v: tuple(int(p) for p in v.split(".")))
    lines = [
        '"""The standard library\'s top-level module names per Python version, as',
        "``sys.stdlib_module_names`` gives them (3.14: 3.13's plus the new modules of its",
        "What's New). Written by ``python scripts/stdlib_modules.py PYTHON...``; read by",
        'views/diagnostics.py and analysis/sources.py. Data, not a look at the running interpreter."""',
        "",
        "# fmt: off",
        "TABLES = {",
    ]
    for version in order:
        lines.append(f"    {version!r}: {' '.join(tables[version])!r},")
    lines += ["}", ""]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {OUT} ({', '.join(order)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
