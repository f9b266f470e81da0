"""The compact-projection route (README, "Servers for agents and editors"): one request in, one
wire or one error out, for the CLI, ``semaprax serve`` and ``semaprax mcp``.

The route owns the whole request: it validates the parameters (a format_version is
an integer, never a bool, float or string), negotiates, produces the view, encodes
it, weighs it against an optional token budget, and shapes the response and every
error. The servers only adapt it to their protocol, so an error reads the same
everywhere:

* a compact diagnostic: ``{code: "compact.*", message, offset}``;
* a workspace problem (root or symbol not found, no usable workspace):
  ``{code: "semaprax.workspace", message, matches}`` with the close matches;
* a view over the token budget: ``{code: "semaprax.budget", message, tokens,
  bytes, max_tokens, narrower}``, never a truncated wire;
* parameters of the wrong shape: ``{code: "semaprax.params", message}``, or the
  compact.negotiation diagnostic when the field is a negotiation field.
"""

from __future__ import annotations

import base64
import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import codec
from analysis.sources import Workspace, WorkspaceError
from analysis.warm import IndexCache
from codec import CompactError, CompactProjection
from codec import errors as E
from codec.negotiate import VERSIONS, check_offer, is_integer, negotiate
from servers import roots
from views import PRODUCERS

METHOD = "workspace/compact-projection"

# JSON-RPC 2.0 error codes
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: Server-defined: a compact diagnostic; ``data`` holds code, message and offset.
COMPACT_DIAGNOSTIC = -32001
#: Server-defined: the workspace cannot answer (a root or symbol not found).
WORKSPACE_ERROR = -32002
#: Server-defined: the view is larger than the request's max_tokens.
BUDGET_EXCEEDED = -32003

WORKSPACE_CODE = "semaprax.workspace"
BUDGET_CODE = "semaprax.budget"
PARAMS_CODE = "semaprax.params"

#: MCP's default encoding: the text form with the fewest o200k_base tokens.
AUTO = "auto"
AUTO_FORMS: tuple[str, ...] = ("json", "text", "model-text")
#: Budgets are counted with this tokenizer (views/tokens.py, offline).
BUDGET_TOKENIZER = "o200k_base"
#: What common agent clients accept from one tool result unless told otherwise.
DEFAULT_MAX_TOKENS = 25_000
PARAMS = ("profile", "root", "encoding", "format_version", "accept", "max_tokens")


class RouteError(Exception):
    """A request the route refuses, with the JSON-RPC error it becomes."""

    def __init__(self, code: int, data: dict[str, Any]) -> None:
        super().__init__(data["message"])
        self.code = code
        self.message: str = data["message"]
        self.data = data

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "data": self.data}


def diagnostic(exc: CompactError, jsonrpc_code: int = COMPACT_DIAGNOSTIC) -> RouteError:
    return RouteError(jsonrpc_code, {"code": exc.code, "message": exc.message, "offset": exc.offset})


def params_error(message: str) -> RouteError:
    return RouteError(INVALID_PARAMS, {"code": PARAMS_CODE, "message": message})


def workspace_error(message: str, matches: list[str] | None = None) -> RouteError:
    return RouteError(WORKSPACE_ERROR, {"code": WORKSPACE_CODE, "message": message, "matches": matches or []})


# --- the request ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    profile: str
    root: str
    encoding: str | None = None
    format_version: int | None = None
    accept: tuple[tuple[int, str, str], ...] | None = None
    max_tokens: int | None = None

    def offers(self) -> list[dict[str, Any]] | None:
        if self.accept is None:
            return None
        return [dict(zip(("format_version", "encoding", "profile"), o, strict=True)) for o in self.accept]


def parse_request(params: Any, *, auto: bool = False) -> Request:
    """Check every parameter's type and shape; ``auto`` allows (and defaults to)
    ``encoding: "auto"`` when neither encoding nor accept is given."""
    if not isinstance(params, Mapping):
        raise params_error("params must be an object with profile, root and an encoding or accept offers")
    unknown = [k for k in params if k not in PARAMS]
    if unknown:
        hint = difflib.get_close_matches(unknown[0], PARAMS, n=1)
        raise params_error(f"unknown parameter {unknown[0]!r}" + (f"; did you mean {hint[0]!r}?" if hint else "")
                           + f" (parameters: {', '.join(PARAMS)})")
    profile, root = params.get("profile"), params.get("root")
    if not isinstance(profile, str) or profile not in codec.PROFILES:
        raise RouteError(INVALID_PARAMS, {
            "code": E.NEGOTIATION, "offset": None,
            "message": f"profile must be one of {', '.join(codec.PROFILES)}, not {profile!r}"})
    if not isinstance(root, str) or not root:
        raise params_error(f"root must be a non-empty string: {roots.ROOT_KINDS[profile]}")
    encoding, version, accept = params.get("encoding"), params.get("format_version"), params.get("accept")
    try:
        if encoding is not None and not isinstance(encoding, str):
            raise CompactError(E.NEGOTIATION, f"encoding must be a string, not {encoding!r}")
        if version is not None and not is_integer(version):
            raise CompactError(E.NEGOTIATION, f"format_version must be an integer, not {version!r}")
        if accept is not None and not isinstance(accept, list):
            raise CompactError(E.NEGOTIATION, f"accept must be a list of offers, not {accept!r}")
        offers = None if accept is None else tuple(check_offer(o, n) for n, o in enumerate(accept))
    except CompactError as exc:
        raise diagnostic(exc, INVALID_PARAMS) from None
    max_tokens = params.get("max_tokens")
    if max_tokens is not None and (not is_integer(max_tokens) or max_tokens < 1):
        raise params_error(f"max_tokens must be a positive integer, not {max_tokens!r}")
    if auto and encoding is None and offers is None and version is None:
        encoding = AUTO
    if encoding == AUTO and (not auto or offers is not None or version is not None):
        if auto:
            raise diagnostic(CompactError(E.NEGOTIATION, "encoding 'auto' takes no format_version or accept"))
        raise diagnostic(CompactError(E.NEGOTIATION, "encoding 'auto' is the MCP tool's; name one of "
                                                     + ", ".join(codec.FORMS) + " or list accept offers"))
    return Request(profile, root, encoding, version, offers, max_tokens)


# --- the workspace -------------------------------------------------------------------------------

#: Said whenever a server has no workspace to read.
CONFIGURE = ("start the server with --workspace DIR, or let the client send its workspace "
             "(LSP: rootUri or workspaceFolders in initialize; MCP: roots)")


def check_workspace(folder: str | os.PathLike[str] | None) -> Path:
    """The folder a server may index: it exists, and it is not the filesystem's
    root (a desktop client that starts servers in / has sent no workspace; walking
    the whole filesystem would never answer)."""
    if folder is None:
        raise workspace_error(f"no workspace: {CONFIGURE}")
    path = Path(folder)
    if not path.is_dir():
        raise workspace_error(f"workspace {str(folder)!r} is not a folder; {CONFIGURE}")
    if path.resolve() == Path(path.resolve().anchor):
        raise workspace_error(f"refusing to index the whole filesystem ({str(path.resolve())!r}); {CONFIGURE}")
    return path


# --- the answer ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A produced view, its wire, and what it weighs."""

    projection: CompactProjection
    format_version: int
    encoding: str
    wire: bytes
    #: o200k_base tokens of the wire as sent, when measured.
    tokens: int | None = None
    #: For encoding "auto": the o200k_base tokens of each candidate form.
    auto_counts: dict[str, int] | None = field(default=None)

    @property
    def transfer(self) -> str:
        return "base64" if self.encoding == "binary" else "text"

    @property
    def text(self) -> str:
        """The wire as it travels in JSON: UTF-8 text, or base64 (RFC 4648 §4, padded)."""
        if self.encoding == "binary":
            return base64.b64encode(self.wire).decode("ascii")
        return self.wire.decode("utf-8")

    def metadata(self) -> dict[str, Any]:
        p = self.projection
        out: dict[str, Any] = {
            "format_version": self.format_version,
            "encoding": self.encoding,
            "profile": p.profile,
            "root": p.root,
            "source_revision": p.source_revision,
            "source_digest": p.source_digest,
            "wire_transfer": self.transfer,
            "wire_bytes": len(self.wire),
        }
        if self.tokens is not None:
            out["tokens"] = {BUDGET_TOKENIZER: self.tokens}
        if self.auto_counts is not None:
            out["auto"] = {"chosen": self.encoding, BUDGET_TOKENIZER: dict(self.auto_counts)}
        return out

    def response(self) -> dict[str, Any]:
        """The JSON-RPC result: the metadata and the wire."""
        out = self.metadata()
        out["wire"] = self.text
        return out


def count_tokens(text: str) -> int:
    from views import tokens

    return len(tokens.get_encoding(BUDGET_TOKENIZER).encode_ordinary(text))


def make_projection(profile: str, root: str, workspace: str | os.PathLike[str] = ".", *,
                    index_cache: IndexCache | None = None) -> CompactProjection:
    """Produce the view of ``root`` for ``profile``; the revision covers exactly
    the files the producer read."""
    if profile not in PRODUCERS:
        raise CompactError(E.METADATA, f"unknown profile {profile!r}; expected one of {', '.join(PRODUCERS)}")
    ws = Workspace(workspace, index_cache=index_cache)
    normalized, value = PRODUCERS[profile](ws, root)
    return CompactProjection.from_value(profile, normalized, ws.revision(), value)


def encode(p: CompactProjection, encoding: str) -> bytes:
    return codec.ENCODERS[encoding](p)


def answer(request: Request, workspace: str | os.PathLike[str] | None, *,
           index_cache: IndexCache | None = None, count: bool = False) -> Answer:
    """Negotiate, produce, encode and weigh one request; ``count`` measures the
    wire's tokens even without a budget."""
    folder = check_workspace(workspace)
    auto = request.encoding == AUTO
    try:
        version, encoding = (2, AUTO) if auto else negotiate(
            request.profile, encoding=request.encoding, format_version=request.format_version,
            accept=request.offers())
    except CompactError as exc:
        raise diagnostic(exc) from None
    try:
        p = make_projection(request.profile, request.root, folder, index_cache=index_cache)
    except WorkspaceError as exc:
        raise workspace_error(str(exc), _matches(folder, request, index_cache)) from None
    except CompactError as exc:
        raise diagnostic(exc) from None
    try:
        if auto:
            wires = {form: encode(p, form) for form in AUTO_FORMS}
            counts = {form: count_tokens(wire.decode("utf-8")) for form, wire in wires.items()}
            # The fewest tokens; on a tie the earlier form (full JSON first, as the seed advises).
            encoding = min(AUTO_FORMS, key=lambda f: (counts[f], AUTO_FORMS.index(f)))
            version = VERSIONS[encoding]
            result = Answer(p, version, encoding, wires[encoding], counts[encoding], counts)
        else:
            result = Answer(p, version, encoding, encode(p, encoding))
            if count or request.max_tokens is not None:
                result = Answer(p, version, encoding, result.wire, count_tokens(result.text))
    except CompactError as exc:
        raise diagnostic(exc) from None
    if request.max_tokens is not None and result.tokens is not None and result.tokens > request.max_tokens:
        raise _over_budget(result, request, folder, index_cache)
    return result


def _matches(folder: Path, request: Request, cache: IndexCache | None) -> list[str]:
    try:
        return roots.close_matches(Workspace(folder, index_cache=cache), request.profile, request.root)
    except (WorkspaceError, CompactError, OSError):
        return []


def _over_budget(result: Answer, request: Request, folder: Path, cache: IndexCache | None) -> RouteError:
    p = result.projection
    try:
        smaller = roots.narrower(Workspace(folder, index_cache=cache), request.profile, p.root)
    except (WorkspaceError, OSError):
        smaller = []
    forms = ""
    if result.auto_counts:
        forms = " (" + ", ".join(f"{f} {n:,}" for f, n in result.auto_counts.items()) + ")"
    hint = ("; ask for a narrower root: " + ", ".join(
        f"{r['root']} ({r['bytes']:,} source bytes)" if "bytes" in r else f"{r['root']} ({r['lines']:,} lines)"
        for r in smaller)) if smaller else "; this view has no narrower root of the same profile" + (
            ": try its symbols view, or a task-context of one of its definitions" if p.profile == "graph" else "")
    message = (f"the {p.profile} view of {p.root!r} is {result.tokens:,} {BUDGET_TOKENIZER} tokens{forms} "
               f"and {len(result.wire):,} bytes as {result.encoding}, over max_tokens {request.max_tokens:,}{hint}")
    return RouteError(BUDGET_EXCEEDED, {
        "code": BUDGET_CODE, "message": message, "tokens": result.tokens, "bytes": len(result.wire),
        "encoding": result.encoding, "max_tokens": request.max_tokens, "narrower": smaller,
    })


def find_roots(profile: Any, query: Any, limit: Any, workspace: str | os.PathLike[str] | None, *,
               index_cache: IndexCache | None = None) -> dict[str, Any]:
    """The roots this workspace offers for ``profile`` whose name contains ``query``."""
    if not isinstance(profile, str) or profile not in codec.PROFILES:
        raise params_error(f"profile must be one of {', '.join(codec.PROFILES)}, not {profile!r}")
    if not isinstance(query, str):
        raise params_error(f"query must be a string, not {query!r}")
    if not is_integer(limit) or not 1 <= limit <= 1000:
        raise params_error(f"limit must be an integer from 1 to 1000, not {limit!r}")
    folder = check_workspace(workspace)
    try:
        return roots.find(Workspace(folder, index_cache=index_cache), profile, query, limit)
    except WorkspaceError as exc:
        raise workspace_error(str(exc)) from None


def handle(params: Any, workspace: str | os.PathLike[str] | None, *, auto: bool = False,
           index_cache: IndexCache | None = None) -> dict[str, Any]:
    """One JSON-RPC compact-projection request: its result, or RouteError."""
    return answer(parse_request(params, auto=auto), workspace, index_cache=index_cache).response()
