"""Write examples/wires/ (every example view in every encoding) and
examples/rejected/ (one small wire per diagnostic code a decoder raises).

A test runs ``expected_files()`` and compares with what is committed, so the
examples never drift from the code. Run from anywhere:

    python scripts/write_example_wires.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import codec
from codec.projection import source_digest
from servers.route import make_projection

EXAMPLES = ROOT / "examples"
WIRES = EXAMPLES / "wires"
REJECTED = EXAMPLES / "rejected"

#: (file stem, profile, root, workspace folder relative to examples/)
VIEWS = [
    ("banking_ledger.graph", "graph", "banking_ledger.py", "."),
    ("banking_ledger.task-context", "task-context", "banking_ledger.Ledger.apply", "."),
    ("banking_ledger.symbols", "symbols", "banking_ledger.py", "."),
    ("banking_ledger.diagnostics", "diagnostics", "banking_ledger.py", "."),
    ("http_app_routing.graph", "graph", "http_app_routing.py", "."),
    ("http_app_routing.task-context", "task-context", "http_app_routing.App.handle", "."),
    ("http_app_routing.references", "references", "http_app_routing.Request", "."),
    ("warehouse_inventory.graph", "graph", "warehouse_inventory.py", "warehouse"),
    ("warehouse_inventory.symbols", "symbols", "warehouse_inventory.py", "warehouse"),
    ("calculator.project-graph", "project-graph", "semaprax.toml", "calculator-project"),
    ("calculator.diagnostics", "diagnostics", "semaprax.toml", "calculator-project"),
    ("frame-payload.project-graph", "project-graph", "semaprax.toml", "frame-payload-project"),
    # named for what they show on the inspector's first screen (tokens against full JSON, both tokenizers)
    ("model-text-wins.symbols", "symbols", "http_app_routing.py", "."),  # the dictionary pays
    ("v1-text-wins.graph", "graph", "selectors.py", "stdlib-selectors"),  # ~k for every repeated string
    ("full-json-wins.task-context", "task-context", "banking_ledger.Ledger.apply", "."),  # a small view
    ("model-text-costs.symbols", "symbols", "warehouse_inventory.py", "warehouse"),  # a dictionary that does not pay
]


def example_projections() -> dict[str, codec.CompactProjection]:
    return {stem: make_projection(profile, root, EXAMPLES / ws) for stem, profile, root, ws in VIEWS}


def _v2(doc: bytes, entries: list[bytes] = (), body: bytes | None = None, *, profile: bytes = b"graph",
        root: bytes = b"banking_ledger.py", digest: bytes | None = None) -> bytes:
    digest = source_digest(doc).encode() if digest is None else digest
    revision = b"sha256:" + b"0" * 64
    fields = b"".join(name + b" %d " % len(value) + value + b"\n" for name, value in (
        (b"profile", profile), (b"root", root), (b"source_revision", revision), (b"source_digest", digest)))
    body = doc if body is None else body
    return (b"SEMAPRAX-MODEL-TEXT 2\n" + fields + b"dict %d\n" % len(entries)
            + b"".join(e + b"\n" for e in entries) + b"body\n" + body)


def rejected_wires() -> dict[str, bytes]:
    """One small wire per decoder diagnostic, each failing for one clear reason."""
    doc = b'{"module":"banking_ledger","definitions":["banking_ledger.Ledger","banking_ledger.Ledger"]}'
    pad = b'"' + b"p" * 16400 + b'"'
    big = b'{"pad":' + pad + b',"calls":["banking_ledger.Ledger","banking_ledger.Ledger"]}'
    big_entries = [b'"banking_ledger.Ledger"']
    big_body = b'{"pad":' + pad + b',"calls":[@0,@0]}'
    big3 = big.replace(b'"]}', b'","banking_ledger.Ledger"]}')
    good = _v2(doc)
    return {
        "compact.envelope": good.replace(b"SEMAPRAX-MODEL-TEXT 2\n", b"SEMAPRAX-MODEL-TEXT 2 \n"),
        "compact.metadata": _v2(doc, profile=b"callgraph"),
        "compact.limit": good.replace(b"root 17 ", b"root 5000 "),
        "compact.dictionary": _v2(big, [b'"banking_ledger.Ledger" '], big_body),
        "compact.reference": _v2(big, big_entries, big_body.replace(b"@0,@0", b"@0,@1")),
        "compact.digest": good + b"\n",
        "compact.json": _v2(b'{"module":"banking_ledger","module":"again"}'),
        "compact.noncanonical": _v2(
            big3, big_entries, big_body.replace(b"@0,@0", b'@0,@0,"banking_ledger.Ledger"')
        ),
    }


def expected_files() -> dict[Path, bytes]:
    out: dict[Path, bytes] = {}
    for stem, p in example_projections().items():
        for form, encode in codec.ENCODERS.items():
            out[WIRES / f"{stem}.{form}"] = encode(p)
    for code, wire in rejected_wires().items():
        out[REJECTED / f"{code}.model-text"] = wire
    return out


def main() -> int:
    files = expected_files()
    for folder in (WIRES, REJECTED):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            if old not in files:
                old.unlink()
    for path, data in files.items():
        path.write_bytes(data)
        print(f"{path.relative_to(ROOT)}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
