"""The ``semaprax`` command line: a thin layer over codec (and, later, the
workspace producers). Failures print ``compact.CODE at byte N: message`` on stderr
and exit 1; usage errors exit 2."""

from __future__ import annotations

import argparse
import sys
from typing import BinaryIO, Sequence

import codec
from codec import CompactError, CompactProjection

EXIT_FAILURE = 1
EXIT_USAGE = 2


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def _write(data: bytes, path: str | None, *, binary: bool) -> None:
    if path is None or path == "-":
        out: BinaryIO = sys.stdout.buffer
        if binary and out.isatty():
            raise _Usage("refusing to write a binary wire to a terminal; use -o FILE")
        out.write(data)
        out.flush()
        return
    with open(path, "wb") as f:
        f.write(data)


class _Usage(Exception):
    pass


def _decode_any(args: argparse.Namespace) -> CompactProjection:
    data = _read(args.wire)
    found = codec.decode_wire(data)
    if found.projection is not None:
        return found.projection
    missing = [n for n in ("profile", "root", "source_revision") if getattr(args, n, None) is None]
    if missing:
        raise _Usage(
            "a full JSON wire has no metadata: give "
            + ", ".join("--" + n.replace("_", "-") for n in missing)
        )
    return CompactProjection(args.profile, args.root, args.source_revision, found.selected)


def cmd_decode(args: argparse.Namespace) -> int:
    p = _decode_any(args)
    _write(codec.ENCODERS[args.to](p), args.output, binary=args.to == "binary")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    data = _read(args.wire)
    found = codec.decode_wire(data)
    if found.projection is None:
        print(f"ok: full JSON, {len(found.selected):,} canonical bytes (no metadata to bind)")
        return 0
    p = found.projection
    codec.check_binding(p, profile=args.profile, root=args.root, source_revision=args.source_revision)
    print(
        f"ok: {found.form} v{found.format_version}, {len(data):,} wire bytes, "
        f"{len(p.selected):,} selected bytes\n"
        f"profile {p.profile}\nroot {p.root}\nsource_revision {p.source_revision}\n"
        f"source_digest {p.source_digest}"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semaprax",
        description="Compact semantic projections of Python code: decode and verify wires.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def metadata_options(p: argparse.ArgumentParser, what: str) -> None:
        p.add_argument("--profile", choices=codec.PROFILES, help=f"{what} profile")
        p.add_argument("--root", help=f"{what} root")
        p.add_argument("--source-revision", dest="source_revision", help=f"{what} source revision")

    d = sub.add_parser(
        "decode",
        help="decode a wire of any form and write it in another",
        description="Decode WIRE (v2 model-text, v1 text, v1 binary or full JSON) and write it "
        "in the encoding given by --to. Full JSON has no metadata: give --profile, --root "
        "and --source-revision with it.",
    )
    d.add_argument("wire", metavar="WIRE", help="wire file, or - for standard input")
    d.add_argument("--to", choices=codec.FORMS, default="json", help="output encoding (default: json)")
    d.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    metadata_options(d, "metadata for a full JSON input:")
    d.set_defaults(run=cmd_decode)

    v = sub.add_parser(
        "verify",
        help="decode and verify a wire, optionally against expected metadata",
        description="Decode WIRE with every check of the format; with --profile, --root or "
        "--source-revision, also require those values (compact.binding otherwise).",
    )
    v.add_argument("wire", metavar="WIRE", help="wire file, or - for standard input")
    metadata_options(v, "expected")
    v.set_defaults(run=cmd_verify)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CompactError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_FAILURE
    except _Usage as exc:
        parser.error(str(exc))
    except BrokenPipeError:  # pragma: no cover - e.g. `| head`
        return 0
    except OSError as exc:
        print(f"semaprax: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
