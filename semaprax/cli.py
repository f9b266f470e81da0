"""The ``semaprax`` command line: a thin layer over codec (and, later, the
workspace producers). Failures print ``compact.CODE at byte N: message`` on stderr
and exit 1; usage errors exit 2.

Each command imports what it uses when it runs: the wire forms it reads or writes
(codec imports a form's module on first use), the view it makes and what that view
reads (views.PRODUCERS), the tokenizers only for a budget or a count
(tests/test_imports.py; docs/performance.md, "Start-up")."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

import codec  # its errors, limits and names; each of its modules is imported where a command uses it
from codec import CompactError
from codec import errors as E
from codec.errors import excerpt
from codec.visible import visible as _visible  # metadata never move the cursor or forge lines

if TYPE_CHECKING:
    from codec import CompactProjection

EXIT_FAILURE = 1
EXIT_USAGE = 2


def _read(path: str) -> bytes:
    """At most one byte past the wire limit: a larger input is rejected by the
    decoder's own size check instead of filling memory."""
    limit = codec.limits.MAX_WIRE_BYTES + 1
    if path == "-":
        return sys.stdin.buffer.read(limit)
    with open(path, "rb") as f:
        return f.read(limit)


def _write(data: bytes, path: str | None, *, binary: bool) -> None:
    if path is None or path == "-":
        out: BinaryIO = sys.stdout.buffer
        if out.isatty():
            if binary:
                raise _Usage("refusing to write a binary wire to a terminal; use -o FILE")
            data = _for_terminal(data)
        out.write(data)
        out.flush()
        return
    with open(path, "wb") as f:
        f.write(data)


def _for_terminal(data: bytes) -> bytes:
    """A text wire as a terminal may show it: metadata are opaque bytes, and an
    ESC or other control character in a root would move the cursor, recolour or
    retitle the terminal. Each line is shown with such characters escaped (as
    ``_visible`` spells them) and a note says so; a pipe or ``-o FILE`` gets the
    exact bytes."""
    text = data.decode("utf-8", "backslashreplace")
    shown = "\n".join(_visible(line) for line in text.split("\n"))
    if shown == text:
        return data
    print(
        "semaprax: the wire holds control characters or invalid UTF-8, shown escaped here; "
        "use -o FILE or a pipe for the exact bytes",
        file=sys.stderr,
    )
    return shown.encode("utf-8")


def _shown_path(name: object) -> str:
    """A file name for an error message: relative to the working folder when it is
    inside it, else its last component, so no message spells an absolute path."""
    text = os.fsdecode(name) if isinstance(name, (str, bytes, os.PathLike)) else str(name)
    if os.path.isabs(text):
        relative = os.path.relpath(text)
        text = relative if not relative.startswith("..") else "…/" + os.path.basename(text.rstrip("/"))
    return _visible(text)


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
    return codec.CompactProjection(args.profile, args.root, args.source_revision, found.selected)


def cmd_decode(args: argparse.Namespace) -> int:
    p = _decode_any(args)
    _write(codec.ENCODERS[args.to](p), args.output, binary=args.to == "binary")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    data = _read(args.wire)
    found = codec.decode_wire(data)
    expected = (args.profile, args.root, args.source_revision)
    if found.projection is None:
        if any(v is not None for v in expected):
            raise CompactError(E.BINDING, "a full JSON wire carries no profile, root or source_revision to bind", None)
        print(f"ok: full JSON, {len(found.selected):,} canonical bytes (no metadata to bind)")
        return 0
    p = found.projection
    codec.check_binding(p, profile=args.profile, root=args.root, source_revision=args.source_revision)
    print(
        f"ok: {found.form} v{found.format_version}, {len(data):,} wire bytes, "
        f"{len(p.selected):,} selected bytes\n"
        f"profile {p.profile}\nroot {_visible(p.root)}\nsource_revision {_visible(p.source_revision)}\n"
        f"source_digest {p.source_digest}"
    )
    return 0


def _progress(done: int, total: int) -> None:
    """A progress line on stderr for long analyses, when a person is watching."""
    if sys.stderr.isatty():
        end = "\n" if done >= total else ""
        print(f"\ranalysing the workspace: {done * 100 // max(total, 1)}% ({done:,} of {total:,} files)",
              end=end, file=sys.stderr, flush=True)


def _cache(args: argparse.Namespace, profile: str | None = None) -> None:
    """The settings of the workspace index (analysis/index.py): progress, ``--jobs``,
    and ``--no-cache``, which leaves the analysis cache on disk alone
    (analysis/filecache.py). Only the profiles that build the index
    (``views.INDEXED``; None: any profile) import them; graph and symbols analyse
    the files they read without either."""
    from views import INDEXED

    if profile is not None and profile not in INDEXED:
        return
    from analysis import filecache, index

    index.progress_hook = _progress
    filecache.use_disk = not args.no_cache
    if getattr(args, "analysis_jobs", None) is not None:  # ``--jobs``: processes analysing the files
        index.jobs = args.analysis_jobs


def cmd_project(args: argparse.Namespace) -> int:
    from servers.route import make_projection

    _cache(args, args.profile)

    budget = None
    fits: Any = None
    if args.max_tokens is not None:  # views.fit brings the tokenizers: only for a budget
        from views.fit import Budget, fits

        budget = Budget(args.max_tokens, args.encoding)
    p = make_projection(args.profile, args.root, args.workspace, budget=budget)
    if budget is not None and not fits(p.profile, p.root, p.source_revision, json.loads(p.selected), budget):
        from servers.route import marked_narrower, sized

        narrower = ", ".join(sized(r) for r in marked_narrower(p)) or "none"
        print(f"semaprax.budget: even with everything shed, the {p.profile} view of {_visible(p.root)} is over "
              f"{budget.max_tokens:,} tokens; narrower roots: {narrower}", file=sys.stderr)
        return EXIT_FAILURE
    _write(codec.ENCODERS[args.encoding](p), args.output, binary=args.encoding == "binary")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from servers.route import replay_projection
    from servers.session import is_session

    data = _read(args.wire)
    if is_session(data[: 1 << 16]):
        _cache(args)
        return _replay_session(data, args.workspace)
    found = codec.decode_wire(data)
    if found.projection is None:
        raise _Usage("a full JSON wire has no profile or root to replay; replay a wire with metadata")
    p = found.projection
    _cache(args, p.profile)
    again = replay_projection(p, args.workspace)  # a fitted view is fitted again to its budget
    if again.selected != p.selected:
        at = codec.first_difference(p.selected, again.selected)
        raise CompactError(  # the offset is in the selected document, not the wire: it is in the message
            E.REPLAY,
            f"regenerated {p.profile} view of {p.root!r} differs from the wire's at byte {at} of the "
            f"selected document: wire has {excerpt(p.selected, at)}, "
            f"the workspace now gives {excerpt(again.selected, at)}",
            None,
        )
    print(f"ok: replayed {p.profile} view of {_visible(p.root)}: {len(p.selected):,} selected bytes match")
    if again.source_revision != p.source_revision:
        print(
            f"note: source_revision differs ({p.source_revision} in the wire, {again.source_revision} now) "
            "but the content is equal"
        )
    return 0


def _replay_session(data: bytes, workspace: str) -> int:
    """Every semaprax result of a tap session replayed; 1 when any is stale."""
    from servers.session import parse_session, replay_session

    session = parse_session(data.splitlines(), count=False)
    results = replay_session(session, workspace)
    for call, done in zip(session.calls, results, strict=True):
        detail = f": {_visible(done.detail)}" if done.detail else ""
        print(f"call {call.number} {_visible(call.tool)} {_visible(call.short_arguments)}: {done.status}{detail}")
    stale = sum(r.status == "stale" for r in results)
    views = sum(r.status != "not a view" for r in results)
    print(f"{views} of {len(results)} calls are views; {stale} stale, "
          f"{sum(r.status == 'failed' for r in results)} cannot be produced now")
    return EXIT_FAILURE if stale else 0


def cmd_tokens(args: argparse.Namespace) -> int:
    from views import tokens

    data = _read(args.file)
    counts = tokens.count_tokens(data)
    print(f"bytes {len(data):,}")
    for name, n in counts.items():
        print(f"{name} {n:,}")
    for info in tokens.tokenizer_info():
        print(f"# {info.name}: tiktoken {info.tiktoken_version}, vocabulary sha256:{info.vocabulary_sha256}")
    return 0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0 and at most 86400 (a day), not {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return value


def _server_workspace(args: argparse.Namespace) -> str | None:
    """A --workspace that is not a folder stops a server before it starts (exit 2)."""
    import os

    if args.workspace is not None and not os.path.isdir(args.workspace):
        what = "does not exist" if not os.path.exists(args.workspace) else "is not a folder"
        raise _Usage(f"--workspace {args.workspace!r} {what}")
    return args.workspace


def cmd_serve(args: argparse.Namespace) -> int:
    from servers.lsp import serve

    return serve(_server_workspace(args), workers=args.jobs, max_message_bytes=args.max_message_bytes)


#: The clients ``semaprax mcp --print-config`` writes a registration for.
CONFIG_CLIENTS = ("json", "claude-code", "codex", "vscode")


def mcp_config(workspace: str | None, client: str = "json") -> str:
    """How ``client`` registers this install's ``semaprax mcp`` (README, "Registering
    the MCP server"): ``json`` the generic ``mcpServers`` entry, ``claude-code`` the
    ``claude mcp add`` command, ``codex`` the ``config.toml`` table, ``vscode`` the
    ``.vscode/mcp.json`` file."""
    import json
    import shlex
    import shutil
    from pathlib import Path

    beside = Path(sys.executable).parent / "semaprax"  # this install's, not another on PATH
    exe = str((beside if beside.is_file() else Path(shutil.which("semaprax") or "semaprax")).absolute())
    args = ["mcp"]
    if workspace is not None:
        args += ["--workspace", str(Path(workspace).resolve())]
    if client == "claude-code":
        return shlex.join(["claude", "mcp", "add", "--transport", "stdio", "semaprax", "--", exe, *args])
    if client == "codex":
        quoted = ", ".join(json.dumps(a) for a in args)
        return (f"[mcp_servers.semaprax]\ncommand = {json.dumps(exe)}\nargs = [{quoted}]\n"
                "tool_timeout_sec = 300\n")
    if client == "vscode":
        return json.dumps({"servers": {"semaprax": {"type": "stdio", "command": exe, "args": args}}}, indent=2)
    return json.dumps({"mcpServers": {"semaprax": {"command": exe, "args": args}}}, indent=2)


def cmd_mcp(args: argparse.Namespace) -> int:
    workspace = _server_workspace(args)
    if args.print_config:
        print(mcp_config(workspace, args.print_config))
        return 0
    from servers.mcp import run

    return run(workspace, max_message_bytes=args.max_message_bytes, roots_timeout=args.roots_timeout)


def cmd_tap(args: argparse.Namespace) -> int:
    from servers.tap import run_tap

    command = args.server[1:] if args.server[:1] == ["--"] else args.server
    if (args.listen is None) != (args.upstream is None):
        raise _Usage("--listen and --upstream go together (the Streamable HTTP tap)")
    if args.listen is not None:
        if command:
            raise _Usage("give either --listen/--upstream or a server command after --, not both")
        from servers.tap_http import run_http_tap

        return run_http_tap(args.session, args.listen, args.upstream)
    if not command:
        raise _Usage("tap needs the server's command after --, e.g. semaprax tap --session s.jsonl -- semaprax mcp "
                     "(or --listen HOST:PORT --upstream URL for Streamable HTTP)")
    return run_tap(args.session, command)


#: ``semaprax project --help``'s list of what each profile takes as ROOT, in the
#: words of servers/roots.py's ROOT_KINDS (not imported: every command builds
#: this parser; tests/semaprax/test_user22_cli.py keeps the two the same).
PROJECT_EPILOG = """\
ROOT by profile (docs/profiles.md):
  graph          a workspace-relative .py file
  symbols        a .py file or a package folder ('.' for the whole workspace)
  project-graph  a manifest (semaprax.toml or pyproject.toml) or a folder holding one
  diagnostics    a .py file, or a manifest or folder holding one
  task-context   a qualified symbol (module.Class.method)
  references     a qualified symbol (module.Class.method)
A folder with no manifest becomes a project with a semaprax.toml holding [project].

examples:
  semaprax project src/pkg/core.py --profile graph --encoding model-text
  semaprax project pyproject.toml --profile diagnostics --workspace ~/proj
  semaprax project pkg.core.Engine.run --profile task-context --max-tokens 4000
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semaprax",
        description="Compact semantic projections of Python code: make views, and decode, "
        "verify, replay and weigh their wires.",
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

    pr = sub.add_parser(
        "project",
        help="make a view of Python code and write its wire",
        description="Make the PROFILE view of ROOT (a .py file, package folder, manifest, or\n"
        "qualified symbol, depending on the profile) in the workspace, and write its wire.",
        epilog=PROJECT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pr.add_argument("root", metavar="ROOT", help="workspace-relative path or qualified symbol")
    pr.add_argument("--profile", required=True, choices=codec.PROFILES, help="which view to make")
    pr.add_argument("--encoding", choices=codec.FORMS, default="json", help="wire form (default: json)")
    pr.add_argument("--workspace", default=".", metavar="DIR", help="workspace folder (default: .)")
    pr.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    pr.add_argument("--no-cache", dest="no_cache", action="store_true",
                    help="neither read nor write the per-file analysis cache in the user's cache folder")
    pr.add_argument("--jobs", dest="analysis_jobs", type=_positive, metavar="N",
                    help="processes that analyse a large workspace's files (default: one per core; 1: in this "
                    "process); the view is the same whatever N")
    pr.add_argument("--max-tokens", dest="max_tokens", type=_positive, metavar="N",
                    help="fit the view so its wire is at most N cl100k_base and o200k_base tokens "
                    "(docs/profiles.md, 'Fitted views'); the document says what it left out")
    pr.set_defaults(run=cmd_project)

    r = sub.add_parser(
        "replay",
        help="regenerate a wire's view from the workspace and require the same content",
        description="Decode and verify WIRE, regenerate its profile's view of its root from the "
        "workspace's current sources, and require exactly the same selected bytes "
        "(compact.replay naming the first differing byte otherwise); a fitted view is fitted again "
        "to the budget its document names. A different "
        "source_revision with equal content is reported, not failed. Given a tap session "
        "(semaprax tap), replays every view its calls returned and marks the stale ones.",
    )
    r.add_argument("wire", metavar="WIRE", help="wire file or tap session, or - for standard input")
    r.add_argument("--workspace", default=".", metavar="DIR", help="workspace folder (default: .)")
    r.add_argument("--no-cache", dest="no_cache", action="store_true",
                   help="neither read nor write the per-file analysis cache in the user's cache folder")
    r.add_argument("--jobs", dest="analysis_jobs", type=_positive, metavar="N",
                   help="processes that analyse a large workspace's files (default: one per core)")
    r.set_defaults(run=cmd_replay)

    t = sub.add_parser(
        "tokens",
        help="count bytes and cl100k_base/o200k_base tokens of a file",
        description="Count the bytes of FILE (any wire or JSON) and its tokens with the real "
        "cl100k_base and o200k_base encodings, loaded offline. Special-token text counts as "
        "ordinary text.",
    )
    t.add_argument("file", metavar="WIRE_OR_JSON", help="file, or - for standard input")
    t.set_defaults(run=cmd_tokens)

    from servers.failures import DEFAULT_MAX_MESSAGE_BYTES, ROOTS_TIMEOUT

    max_message = (f"refuse a message over N bytes without reading it into memory, answering it with a "
                   f"semaprax.limit error and serving on (default: {DEFAULT_MAX_MESSAGE_BYTES:,})")
    server_workspace = ("workspace folder (default: the client's workspace, else the folder the server "
                        "starts in; the filesystem root is refused)")
    sv = sub.add_parser(
        "serve",
        help="a language server on stdio answering workspace/compact-projection",
        description="Run a language server (LSP framing, JSON-RPC 2.0) on standard input/output. After "
        "initialize, method workspace/compact-projection takes profile, root, either encoding (with "
        "optional format_version) or accept offers, and optionally max_tokens. The workspace is "
        "--workspace, else the client's rootUri or first workspaceFolders entry. Requests run on a "
        "thread pool and can be cancelled with $/cancelRequest while queued. Views read the files as "
        "saved on disk, never an editor's unsaved buffer.",
    )
    sv.add_argument("--workspace", metavar="DIR", help=server_workspace)
    sv.add_argument("--jobs", type=_positive, default=4, metavar="N",
                    help="requests answered at once (default: 4)")
    sv.add_argument("--max-message-bytes", type=_positive, default=DEFAULT_MAX_MESSAGE_BYTES, metavar="N",
                    help=max_message)
    sv.set_defaults(run=cmd_serve)

    m = sub.add_parser(
        "mcp",
        help="an MCP server on stdio with the compact_projection and find_roots tools",
        description="Run a Model Context Protocol server on standard input/output. compact_projection "
        "returns the wire itself as its text (encoding auto by default: full JSON unless another form saves "
        "3% in both tokenizers) and fits a view to max_tokens (default: MAX_MCP_OUTPUT_TOKENS, else 20000); "
        "find_roots lists what a profile can view. The workspace is --workspace, else the client's first root; "
        "with neither, calls fail naming --workspace.",
    )
    m.add_argument("--workspace", metavar="DIR", help="workspace folder (default: the client's first root, "
                   "asked with a --roots-timeout; with neither, calls fail naming --workspace)")
    m.add_argument("--roots-timeout", type=_seconds, default=ROOTS_TIMEOUT, metavar="S",
                   help=f"how long to wait for the client's answer to roots/list (default: {ROOTS_TIMEOUT:g} s)")
    m.add_argument("--print-config", nargs="?", const="json", choices=CONFIG_CLIENTS, metavar="CLIENT",
                   help="print how CLIENT registers this install, for --workspace, and exit: json (the "
                   "mcpServers entry, the default), claude-code (the claude mcp add command), codex (the "
                   "config.toml table), vscode (.vscode/mcp.json)")
    m.add_argument("--max-message-bytes", type=_positive, default=DEFAULT_MAX_MESSAGE_BYTES, metavar="N",
                   help=max_message)
    m.set_defaults(run=cmd_mcp)

    tp = sub.add_parser(
        "tap",
        help="run an MCP server behind a recording proxy (what an agent's tools send)",
        description="Start the MCP server COMMAND on stdio and forward every byte between it and "
        "the client on this process's stdin and stdout, unchanged, while appending each JSON-RPC "
        "message to FILE as one JSON line (direction, monotonic time, size, the message). Configure "
        "an agent's client with this as the server's command; open FILE with semaprax-inspect. "
        "Exits with the server's status; SIGINT, SIGTERM and SIGHUP are passed on to it.",
        epilog="examples: semaprax tap --session calls.jsonl -- semaprax mcp --workspace . ; "
        "semaprax tap --session calls.jsonl --listen 127.0.0.1:8765 --upstream http://127.0.0.1:8000/mcp "
        "(Streamable HTTP: point the client at http://127.0.0.1:8765/)",
    )
    tp.add_argument("--session", required=True, metavar="FILE",
                    help="the session file; records are appended, so one file can hold several runs")
    tp.add_argument("--listen", metavar="HOST:PORT",
                    help="Streamable HTTP: listen here and forward every request to --upstream")
    tp.add_argument("--upstream", metavar="URL", help="Streamable HTTP: the MCP server's endpoint URL")
    tp.add_argument("server", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]",
                    help="the server to start, after --")
    tp.set_defaults(run=cmd_tap)

    i = sub.add_parser(
        "inspect",
        help="open the Textual inspector (same as semaprax-inspect)",
        description="Open the inspector; every argument is passed to semaprax-inspect "
        "(see semaprax-inspect --help).",
        add_help=False,
    )
    i.add_argument("rest", nargs=argparse.REMAINDER)

    # `semaprax bench NAME --help` and `semaprax report --help` are semaprax.bench's (see main)
    sub.add_parser("bench", add_help=False, help="run a measurement: semaprax bench NAME [options] "
                   "(semaprax bench --help lists them)").add_argument("rest", nargs=argparse.REMAINDER)
    sub.add_parser("report", add_help=False, help="every wire form of the measured views, in bytes and "
                   "tokens: writes docs/measurements.md").add_argument("rest", nargs=argparse.REMAINDER)
    return parser


class _NeverRaised(Exception):
    pass


def _workspace_error() -> type[Exception]:
    """analysis.sources.WorkspaceError, when a command imported the workspace; a
    command that did not (decode, verify, tokens) cannot have raised it."""
    sources = sys.modules.get("analysis.sources")
    return sources.WorkspaceError if sources is not None else _NeverRaised


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["inspect"]:  # every option belongs to semaprax-inspect
        from semaprax.inspect import main as inspect_main

        return inspect_main(argv[1:])
    if argv[:1] in (["bench"], ["report"]):  # each measurement has its own options
        from semaprax.bench import main as bench_main

        return bench_main(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CompactError as exc:
        print(_visible(str(exc)), file=sys.stderr)
        return EXIT_FAILURE
    except _Usage as exc:
        parser.error(str(exc))
    except _workspace_error() as exc:  # evaluated only when an exception gets here
        print(f"semaprax: {_visible(str(exc))}", file=sys.stderr)
        return EXIT_FAILURE
    except BrokenPipeError:  # pragma: no cover - e.g. `| head`
        return 0
    except OSError as exc:
        where = _shown_path(exc.filename) + ": " if exc.filename else ""
        print(f"semaprax: {where}{exc.strerror or 'cannot read or write'}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
