"""``semaprax-inspect``: open the inspector on a wire, a JSON document, or a
Python source with a profile (the view is produced live)."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

import codec


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semaprax-inspect",
        description="Inspect a compact projection wire: envelope, dictionary, compact and expanded "
        "body side by side, decode-and-verify, and live token counts. With no PATH, opens the "
        "bundled banking ledger example.",
    )
    parser.add_argument("path", nargs="?", metavar="PATH",
                        help="a wire (v2 model-text, v1 text, v1 binary), full JSON, or with --profile a "
                        ".py file, package folder or manifest; - reads standard input")
    parser.add_argument("--profile", choices=codec.PROFILES, help="produce this view of PATH live")
    parser.add_argument("--workspace", metavar="DIR",
                        help="workspace folder for --profile (default: the folder holding PATH)")
    parser.add_argument("--watch", action="store_true", help="reload when the file changes on disk")
    parser.add_argument("--no-tokens", action="store_true", help="do not count tokens")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .app import DEFAULT_EXAMPLE, EXAMPLES, InspectorApp

    path, profile, workspace = args.path, args.profile, args.workspace
    if path is None:
        if DEFAULT_EXAMPLE.exists():
            path = str(DEFAULT_EXAMPLE)
        else:
            path, profile, workspace = "banking_ledger.py", "graph", str(EXAMPLES)
    app = InspectorApp(path=path, profile=profile, workspace=workspace, watch=args.watch,
                       count_tokens=not args.no_tokens)
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
