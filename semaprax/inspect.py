"""``semaprax-inspect``: open the inspector on a wire, a JSON document, or a
Python source with a profile (the view is produced live)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import codec


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semaprax-inspect",
        description="Inspect a compact projection wire: envelope, dictionary, compact and expanded "
        "body side by side, decode-and-verify, and live token counts. With no PATH, opens the "
        "bundled HTTP routing example.",
    )
    parser.add_argument("path", nargs="?", metavar="PATH",
                        help="a wire (v2 model-text, v1 text, v1 binary), full JSON, or with --profile a "
                        ".py file, package folder or manifest; a tap session (semaprax tap --session FILE) "
                        "opens on its calls; - reads standard input")
    parser.add_argument("other", nargs="?", metavar="OTHER",
                        help="a second wire: open the compare view of PATH and OTHER")
    parser.add_argument("--profile", choices=codec.PROFILES, help="produce this view of PATH live")
    parser.add_argument("--workspace", metavar="DIR",
                        help="workspace folder for --profile (default: the folder holding PATH), for a tap session's replay (r) and for "
                        "--replay (default: .)")
    parser.add_argument("--replay", action="store_true",
                        help="compare PATH with its view regenerated from the workspace's sources (where a "
                        "digest failure came from)")
    parser.add_argument("--canonical", action="store_true",
                        help="compare PATH with its canonical re-encoding (what a noncanonical wire should be)")
    parser.add_argument("--watch", action="store_true", help="reload when the file changes on disk")
    parser.add_argument("--no-tokens", action="store_true", help="do not count tokens")
    parser.add_argument("--text", metavar="TEXT",
                        help="open the Tokens tab on how TEXT tokenizes, beside the wire's own forms (E types more)")
    return parser


def _stdin_then_terminal() -> bytes:
    """Read the piped wire, then give the app the terminal for its keys: Textual
    reads keys from standard input, which must not still hold the wire."""
    import os

    data = sys.stdin.buffer.read(codec.limits.MAX_WIRE_BYTES + 1)
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise SystemExit("semaprax-inspect: reading a wire from standard input needs a terminal for the keys")
    os.dup2(tty, 0)
    os.close(tty)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own stdin
    return data


def compare_target(args: argparse.Namespace, parser: argparse.ArgumentParser):  # -> Target | None
    """What the command line asks PATH to be compared with, if anything."""
    from inspector.compare import Target

    asked = [name for name, on in (("OTHER", args.other is not None), ("--replay", args.replay),
                                   ("--canonical", args.canonical)) if on]
    if len(asked) > 1:
        parser.error(f"compare with one thing at a time, not {' and '.join(asked)}")
    if args.other is not None:
        if not Path(args.other).is_file():
            parser.error(f"{args.other} {'is a folder' if Path(args.other).is_dir() else 'does not exist'}")
        return Target("file", args.other)
    if args.replay:
        beside = str(Path(args.path).parent) if args.profile and args.path else "."
        return Target("replay", args.workspace or beside)
    if args.canonical:
        return Target("canonical")
    return None


def _is_session(path: str) -> bool:
    """Whether ``path`` is a tap session (``semaprax tap``), by its first line."""
    from servers.session import is_session

    try:
        with open(path, "rb") as f:
            return is_session(f.readline(1 << 16))
    except OSError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    target = compare_target(args, parser)

    from inspector.app import DEFAULT_EXAMPLE, EXAMPLES, InspectorApp
    from inspector.model import load_bytes

    path, profile, workspace = args.path, args.profile, args.workspace
    loaded = None
    if path is None:
        if DEFAULT_EXAMPLE.exists():
            try:  # as a person would type it from here
                path = str(DEFAULT_EXAMPLE.relative_to(Path.cwd()))
            except ValueError:
                path = str(DEFAULT_EXAMPLE)
        else:
            path, profile, workspace = "http_app_routing.py", "graph", str(EXAMPLES)
    if path == "-":
        if profile is not None:
            parser.error("--profile needs a source file, package or manifest, not standard input")
        loaded = load_bytes(_stdin_then_terminal(), "<stdin>").prepare()
    elif profile is None and not Path(path).is_file():
        what = "is a folder (give --profile to produce a view of it)" if Path(path).is_dir() else "does not exist"
        parser.error(f"{path} {what}")
    elif profile is None and target is None and _is_session(path):
        app = InspectorApp(None, count_tokens=not args.no_tokens, session=path, workspace=workspace)
        app.run()
        return 0
    app = InspectorApp(loaded, path=None if loaded else path, profile=profile, workspace=workspace,
                       watch=args.watch, count_tokens=not args.no_tokens, compare=target, text=args.text)
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
