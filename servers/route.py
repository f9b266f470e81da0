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
* a view that cannot be fitted to the token budget even with everything shed
  (views/fit.py): ``{code: "semaprax.budget", message, tokens, bytes,
  max_tokens, narrower}``; a view over the budget is otherwise fitted, never
  truncated: its document says it is partial (docs/profiles.md, "Fitted views");
* parameters of the wrong shape: ``{code: "semaprax.params", message}``, or the
  compact.negotiation diagnostic when the field is a negotiation field.
"""

from __future__ import annotations

import base64
import difflib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import codec
from analysis.sources import Workspace, WorkspaceError, check_nameable
from analysis.warm import IndexCache
from codec import CompactError, CompactProjection
from codec import errors as E
from codec.negotiate import VERSIONS, check_offer, is_integer, negotiate
from servers import roots
from servers.failures import jsonrpc_code
from views import PRODUCERS

if TYPE_CHECKING:  # imported where a budget is given; views.fit (the tokenizers) only to fit one
    from views.budget import Budget

METHOD = "workspace/compact-projection"

# JSON-RPC 2.0 error codes, from the one table (servers/failures.py)
INVALID_PARAMS = jsonrpc_code("semaprax.params")
INTERNAL_ERROR = jsonrpc_code("semaprax.internal")
#: Server-defined: a compact diagnostic; ``data`` holds code, message and offset.
COMPACT_DIAGNOSTIC = jsonrpc_code("compact.*")
#: Server-defined: the workspace cannot answer (a root or symbol not found).
WORKSPACE_ERROR = jsonrpc_code("semaprax.workspace")
#: Server-defined: the view is larger than the request's max_tokens.
BUDGET_EXCEEDED = jsonrpc_code("semaprax.budget")

WORKSPACE_CODE = "semaprax.workspace"
BUDGET_CODE = "semaprax.budget"
PARAMS_CODE = "semaprax.params"

#: MCP's default encoding: full JSON, unless another text form costs at least
#: AUTO_SAVING less in both tokenizers (then the cheapest of those).
AUTO = "auto"
AUTO_FORMS: tuple[str, ...] = ("json", "text", "model-text")
AUTO_SAVING = 0.03
#: Budgets are counted with both tokenizers (views/tokens.py, offline): a wire
#: fits when it is within max_tokens in each.
TOKENIZERS: tuple[str, ...] = ("cl100k_base", "o200k_base")
#: The tokenizer of the single ``tokens`` figure kept for older callers.
BUDGET_TOKENIZER = "o200k_base"
#: The MCP tool's default budget: under the 25,000-token cut of common agent
#: clients (Claude Code's MAX_MCP_OUTPUT_TOKENS default), with room for the
#: structured content beside the wire.
DEFAULT_MAX_TOKENS = 20_000
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


def diagnostic(exc: CompactError) -> RouteError:
    """A compact diagnostic, with the one JSON-RPC code its class has (servers/failures.py)."""
    return RouteError(jsonrpc_code(exc.code), {"code": exc.code, "message": exc.message, "offset": exc.offset})


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
        raise diagnostic(CompactError(E.NEGOTIATION, f"profile must be one of {', '.join(codec.PROFILES)}, "
                                                     f"not {profile!r}"))
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
        raise diagnostic(exc) from None
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


#: Limits of a path root, as Linux has them (NAME_MAX, PATH_MAX): longer is refused
#: before the file system is asked (ENAMETOOLONG would otherwise be the answer).
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4096


def _os_reason(exc: OSError) -> str:
    import errno

    name = errno.errorcode.get(exc.errno or 0, "")
    return f"{exc.strerror or 'error'}" + (f" ({name})" if name else "")


def scrub(message: str, folder: str | os.PathLike[str]) -> str:
    """``message`` with the workspace's absolute path written as ``.``: errors name
    paths relative to the workspace only."""
    for spelling in sorted({str(Path(folder)), str(Path(folder).absolute()), str(Path(folder).resolve())},
                           key=len, reverse=True):
        if spelling not in (".", os.sep):
            message = message.replace(spelling, ".")
    return message


def check_root(folder: Path, profile: str, root: str) -> None:
    """A path root (graph, symbols, project-graph, diagnostics) must name a place
    inside the workspace once symlinks are followed. The refusal is the same
    whether or not anything exists there, so it tells nothing about what lies
    outside; an over-long root is refused before the file system is asked. A
    root that is not UTF-8 text (a lone surrogate) is refused first, as the CLI
    refuses it (analysis/sources.py, check_nameable)."""
    symbol = profile in roots.SYMBOL_PROFILES
    try:  # an absolute path is judged below the workspace (Workspace.relative), whatever the workspace's name
        if symbol or not Path(root).is_absolute():
            check_nameable(root, "symbol" if symbol else "root")
    except WorkspaceError as exc:
        raise workspace_error(str(exc)) from None
    if profile in roots.SYMBOL_PROFILES:
        if len(root.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
            raise params_error(f"root is {len(root):,} characters long; a qualified symbol is at most "
                               f"{MAX_PATH_BYTES:,} bytes")
        return
    raw = root.encode("utf-8", "surrogatepass")
    longest = max((len(part) for part in raw.replace(b"\\", b"/").split(b"/")), default=0)
    if len(raw) > MAX_PATH_BYTES or longest > MAX_NAME_BYTES:
        raise params_error(f"root is too long ({len(raw):,} bytes, longest name {longest:,}); a path is at most "
                           f"{MAX_PATH_BYTES:,} bytes with names of at most {MAX_NAME_BYTES} bytes (ENAMETOOLONG)")
    if "\0" in root:
        raise params_error("root contains a NUL character")
    base = Path(folder).resolve()
    path = Path(root)
    try:
        where = (path if path.is_absolute() else base / path).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        where = None
    if where is None or not where.is_relative_to(base):
        raise workspace_error(f"root {root!r} is not inside the workspace (symlinks followed); roots are "
                              f"workspace-relative: {roots.ROOT_KINDS[profile]}")


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
    #: For encoding "auto": each candidate form's tokens, ``{tokenizer: {form: n}}``.
    auto_counts: dict[str, dict[str, int]] | None = field(default=None)
    #: The wire's tokens in each tokenizer, when measured.
    counts: dict[str, int] | None = field(default=None)

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
        if self.counts is not None:
            out["tokens"] = dict(self.counts)
        elif self.tokens is not None:
            out["tokens"] = {BUDGET_TOKENIZER: self.tokens}
        if self.auto_counts is not None:
            out["auto"] = {"chosen": self.encoding, **{t: dict(c) for t, c in self.auto_counts.items()}}
        return out

    def response(self) -> dict[str, Any]:
        """The JSON-RPC result: the metadata and the wire."""
        out = self.metadata()
        out["wire"] = self.text
        return out


def count_tokens(text: str) -> int:
    from views import tokens

    return len(tokens.get_encoding(BUDGET_TOKENIZER).encode_ordinary(text))


def count_both(text: str) -> dict[str, int]:
    """The tokens of ``text`` in each of TOKENIZERS."""
    from views import tokens

    return tokens.count_tokens(text)


def _produce(profile: str, ws: Workspace, root: str) -> tuple[str, Any]:
    return PRODUCERS[profile](ws, root)


def make_projection(profile: str, root: str, workspace: str | os.PathLike[str] = ".", *,
                    index_cache: IndexCache | None = None, budget: Budget | None = None) -> CompactProjection:
    """Produce the view of ``root`` for ``profile``; the revision covers exactly
    the files the producer read. With a ``budget``, the view is fitted to it
    (views/fit.py): a function of the same files and the budget."""
    if profile not in PRODUCERS:
        raise CompactError(E.METADATA, f"unknown profile {profile!r}; expected one of {', '.join(PRODUCERS)}")
    if budget is not None and index_cache is None:  # the narrower roots' views reuse the index
        index_cache = IndexCache()
    if profile in roots.SYMBOL_PROFILES:  # a path root is checked by Workspace.relative
        check_nameable(root, "symbol")
    ws = Workspace(workspace, index_cache=index_cache)

    def produce() -> CompactProjection:
        normalized, value = PRODUCERS[profile](ws, root)
        if budget is not None:
            from views.fit import fit

            value = fit(profile, ws, normalized, value, budget, _produce)
        return CompactProjection.from_value(profile, normalized, ws.revision(), value)

    if index_cache is not None and profile in WARM_VIEWS:
        return index_cache.view(ws, (profile, root, budget), produce)
    return produce()


#: Profiles whose views are a function of the files they read and the .py file
#: list (and the budget they are fitted to), kept whole by a server's warm cache
#: (the others reuse its warm index).
WARM_VIEWS = frozenset({"graph", "symbols"})


def replay_projection(p: CompactProjection, workspace: str | os.PathLike[str] = ".", *,
                      index_cache: IndexCache | None = None) -> CompactProjection:
    """What the workspace's sources give now for ``p``'s profile and root, fitted
    to the budget its document names when it is partial (docs/wire-format.md §2.1):
    replay of a fitted view makes the same bytes when the sources are the same."""
    import json

    from views.budget import budget_of  # not views.fit: a whole view is replayed without the tokenizers

    try:
        value = json.loads(p.selected)
    except ValueError:
        value = None
    return make_projection(p.profile, p.root, workspace, index_cache=index_cache, budget=budget_of(value))


def encode(p: CompactProjection, encoding: str) -> bytes:
    return codec.ENCODERS[encoding](p)


#: Called between the stages of a request ("view", "encode", "count") by a server
#: that reports progress or honours cancellation; it raises to stop the request.
Checkpoint = Callable[[str], None]


def _no_checkpoint(stage: str) -> None:
    return None


def answer(request: Request, workspace: str | os.PathLike[str] | None, *,
           index_cache: IndexCache | None = None, count: bool = False,
           checkpoint: Checkpoint = _no_checkpoint) -> Answer:
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
    check_root(folder, request.profile, request.root)
    checkpoint("view")
    budget = None
    if request.max_tokens is not None:  # auto fits full JSON; the form it picks is cheaper still
        from views.budget import Budget

        budget = Budget(request.max_tokens, "json" if auto else encoding)
    try:
        p = make_projection(request.profile, request.root, folder, index_cache=index_cache, budget=budget)
    except WorkspaceError as exc:
        raise workspace_error(scrub(str(exc), folder), _matches(folder, request, index_cache)) from None
    except CompactError as exc:
        raise diagnostic(exc) from None
    except OSError as exc:  # the file system refused (ENAMETOOLONG, EACCES, ELOOP...): said without paths
        raise workspace_error(f"cannot read root {request.root!r}: {_os_reason(exc)}") from None
    checkpoint("encode")
    try:
        if auto:
            wires = {form: encode(p, form) for form in AUTO_FORMS}
            checkpoint("count")
            counts = {form: count_both(wire.decode("utf-8")) for form, wire in wires.items()}
            encoding = choose_auto(counts)
            version = VERSIONS[encoding]
            by_tokenizer = {t: {form: counts[form][t] for form in AUTO_FORMS} for t in TOKENIZERS}
            result = Answer(p, version, encoding, wires[encoding], counts[encoding][BUDGET_TOKENIZER],
                            by_tokenizer, counts[encoding])
        else:
            result = Answer(p, version, encoding, encode(p, encoding))
            if count or request.max_tokens is not None:
                both = count_both(result.text)
                result = Answer(p, version, encoding, result.wire, both[BUDGET_TOKENIZER], counts=both)
    except CompactError as exc:
        raise diagnostic(exc) from None
    if request.max_tokens is not None and result.counts is not None \
            and max(result.counts.values()) > request.max_tokens:
        raise _over_budget(result, request, folder, index_cache)
    return result


def choose_auto(counts: dict[str, dict[str, int]]) -> str:
    """Full JSON, unless another form costs at least AUTO_SAVING less than it in
    every tokenizer; then, of those, the one with the fewest o200k_base tokens
    (then cl100k_base, then AUTO_FORMS order)."""
    base = counts["json"]
    saving = [f for f in AUTO_FORMS[1:]
              if all(counts[f][t] <= base[t] * (1 - AUTO_SAVING) for t in TOKENIZERS)]
    if not saving:
        return "json"
    return min(saving, key=lambda f: (counts[f][BUDGET_TOKENIZER], counts[f]["cl100k_base"], AUTO_FORMS.index(f)))


def _matches(folder: Path, request: Request, cache: IndexCache | None) -> list[str]:
    try:
        return roots.close_matches(Workspace(folder, index_cache=cache), request.profile, request.root)
    except (WorkspaceError, CompactError, OSError):
        return []


def _over_budget(result: Answer, request: Request, folder: Path, cache: IndexCache | None) -> RouteError:
    p = result.projection
    smaller = marked_narrower(p)
    if not smaller:
        try:
            smaller = roots.narrower(Workspace(folder, index_cache=cache), request.profile, p.root)
        except (WorkspaceError, OSError):
            smaller = []
    forms = ""
    if result.auto_counts:
        forms = " (" + ", ".join(f"{f} {n:,}" for f, n in result.auto_counts[BUDGET_TOKENIZER].items()) + ")"
    hint = ("; ask for a narrower root: " + ", ".join(sized(r) for r in smaller)) if smaller else "; this view has no narrower root of the same profile" + (
            ": try its symbols view, or a task-context of one of its definitions" if p.profile == "graph" else "")
    message = (f"even fitted with everything shed, the {p.profile} view of {p.root!r} is {result.tokens:,} "
               f"{BUDGET_TOKENIZER} tokens{forms} and {len(result.wire):,} bytes as {result.encoding}, "
               f"over max_tokens {request.max_tokens:,}{hint}")
    return RouteError(BUDGET_EXCEEDED, {
        "code": BUDGET_CODE, "message": message, "tokens": result.tokens, "bytes": len(result.wire),
        "encoding": result.encoding, "max_tokens": request.max_tokens, "narrower": smaller,
    })


def marked_narrower(p: CompactProjection) -> list[dict[str, Any]]:
    """The narrower roots a fitted view names, with their views' token counts."""
    import json

    try:
        marker = json.loads(p.selected).get("partial", {})
        table = marker.get("narrower", {})
        return [dict(zip(table["columns"], row, strict=True)) for row in table["rows"]]
    except (ValueError, AttributeError, KeyError, TypeError):
        return []


def sized(r: dict[str, Any]) -> str:
    if "o200k_base" in r:
        return f"{r['profile']} {r['root']} ({r['cl100k_base']:,} cl100k / {r['o200k_base']:,} o200k tokens)"
    if "bytes" in r:
        return f"{r['root']} ({r['bytes']:,} source bytes)"
    return f"{r['root']} ({r['lines']:,} lines)"


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
