"""Print a view in today's long shape (the shape the producers wrote before the
compact shapes: fully qualified names, graph edges apart, flat rows, counts),
so the cost before and after stays measurable and a tool can have the long form.

    semaprax bench long-view PROFILE ROOT [--workspace DIR]     # produce it
    semaprax bench long-view --expand WIRE [--profile PROFILE]  # expand a wire

The first form runs the long producer (``views.LONG_PRODUCERS``); the
second decodes any wire (full JSON, v1 text, v1 binary, model-text) and expands
its view with ``views.expand.expand``, which gives the same bytes.
A full JSON wire carries no profile, so it needs ``--profile``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import codec
from analysis.sources import Workspace, WorkspaceError
from views import LONG_PRODUCERS
from views.expand import expand


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile_or_root", nargs="*", metavar="PROFILE ROOT")
    parser.add_argument("--workspace", default=".", help="workspace folder (default: .)")
    parser.add_argument("--expand", metavar="WIRE", type=Path, help="expand the view this wire carries")
    parser.add_argument("--profile", choices=sorted(LONG_PRODUCERS), help="the profile of a full JSON wire")
    args = parser.parse_args(argv)
    try:
        if args.expand is not None:
            found = codec.decode_wire(args.expand.read_bytes())
            profile = found.projection.profile if found.projection is not None else args.profile
            if profile is None:
                parser.error("a full JSON wire names no profile: give --profile")
            value = expand(profile, json.loads(found.selected))
        else:
            if len(args.profile_or_root) != 2 or args.profile_or_root[0] not in LONG_PRODUCERS:
                parser.error(f"give PROFILE ROOT, PROFILE one of {', '.join(sorted(LONG_PRODUCERS))}")
            profile, root = args.profile_or_root
            _, value = LONG_PRODUCERS[profile](Workspace(args.workspace), root)
    except (OSError, WorkspaceError, codec.CompactError) as exc:
        print(f"long_view: {exc}", file=sys.stderr)
        return 1
    sys.stdout.buffer.write(codec.canonical_json(value) + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
