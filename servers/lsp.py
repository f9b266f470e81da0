"""``semaprax serve``: the ``workspace/compact-projection`` route (README, "Servers for
agents and editors") as a language server on stdio, built on pygls.

pygls does the protocol (initialize, shutdown, exit, ``$/cancelRequest``); the
route (servers/route.py) does the request. What this module adds:

* the workspace: ``--workspace``, else the client's ``rootUri`` / first
  ``workspaceFolders`` entry from initialize, else the folder the server was started
  in, unless that is the filesystem root;
* requests run on a thread pool, so a quick request is not held behind a slow one,
  and a queued request can be cancelled;
* a bounded reader: a message whose Content-Length is over ``--max-message-bytes``
  is read past without being held and answered with ``semaprax.limit``; a body that
  is not JSON, nests too deep, is not a JSON-RPC object or has non-object params is
  answered with its error (servers/framing.py, codes from servers/failures.py); the
  server goes on. Only a header that cannot be read (no or a non-numeric
  Content-Length, a header line over MAX_HEADER_BYTES) loses the framing: it is
  answered with an error and the server stops (exit 1);
* errors name paths relative to the workspace only;
* a request with a ``workDoneToken`` gets ``$/progress`` begin/report/end, and
  ``$/cancelRequest`` stops a running request at its next stage;
* no ``textDocumentSync``: a view reads the saved files, not an editor's buffers,
  so the server asks for none;
* ``capabilities.experimental.compactProjection`` lists the supported triples;
  ``serverInfo`` names semaprax and its version.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import (
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)
from pygls.protocol.language_server import lsp_method

import codec
from analysis.warm import IndexCache
from codec.negotiate import PREFERENCE, VERSIONS
from servers import framing, route
from servers.failures import DEFAULT_MAX_MESSAGE_BYTES, jsonrpc_code
from servers.route import METHOD, RouteError

PARSE_ERROR = jsonrpc_code("jsonrpc.parse")
INVALID_REQUEST = jsonrpc_code("jsonrpc.request")
#: The largest message accepted unless --max-message-bytes says otherwise.
MAX_MESSAGE_BYTES = DEFAULT_MAX_MESSAGE_BYTES
#: The longest header line accepted.
MAX_HEADER_BYTES = 8 * 1024
#: Requests answered at once; the rest wait in order (and can be cancelled).
DEFAULT_WORKERS = 4


def package_version() -> str:
    try:
        return version("semaprax")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def supported_triples() -> list[dict[str, Any]]:
    """Every negotiable triple, in the server's order of preference."""
    return [{"format_version": VERSIONS[e], "encoding": e, "profile": p}
            for p in codec.PROFILES for e in PREFERENCE]


def folder_of_uri(uri: str | None) -> Path | None:
    if not uri:
        return None
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def raw_json_converter() -> Any:
    """pygls's converter, except that the params of a request without an LSP type
    (this route's) and the result of a response stay the JSON that was sent: pygls
    would make them namedtuples, which rename keys that are not identifiers."""
    converter = default_converter()

    def keep(obj: dict[str, Any], cls: type) -> Any:
        return cls(**obj)

    converter.register_structure_hook(JsonRPCRequestMessage, keep)
    converter.register_structure_hook(JsonRPCResponseMessage, keep)
    return converter


class _Protocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        # A view reads the files on disk, never an editor's buffer: asking for the
        # documents' text (pygls offers incremental sync by default) would have
        # editors send every keystroke of an unsaved buffer that no view reads.
        result.capabilities.text_document_sync = None
        result.capabilities.experimental = {
            "compactProjection": {"method": METHOD, "triples": supported_triples(),
                                  "encodings": list(codec.FORMS), "maxTokens": True},
        }
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Any:
        """pygls's shutdown, except that it cancels pending requests from a snapshot
        of them: a worker thread finishing meanwhile changed the dict it iterated
        ("dictionary changed size during iteration" answered the shutdown)."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):  # one atomic copy under the GIL
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None


class CompactProjectionServer(LanguageServer):
    """A language server with one request, ``workspace/compact-projection``."""

    def __init__(self, workspace: str | os.PathLike[str] | None, *, workers: int = DEFAULT_WORKERS,
                 cwd: Path | None = None, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        super().__init__("semaprax", package_version(), protocol_cls=_Protocol,
                         converter_factory=raw_json_converter, max_workers=workers)
        self.explicit_workspace = None if workspace is None else Path(workspace)
        self.cwd = cwd or Path.cwd()
        self.index_cache = IndexCache()
        self.exit_code = 0
        self.max_message_bytes = max_message_bytes
        #: The stop flag of each running request, by id ($/cancelRequest sets it).
        self.running: dict[Any, threading.Event] = {}

    def workspace_folder(self) -> Path | None:
        """--workspace, else what the client sent in initialize, else the
        starting folder (route.check_workspace refuses the filesystem root)."""
        if self.explicit_workspace is not None:
            return self.explicit_workspace
        try:
            lsp_ws = self.workspace
        except RuntimeError:  # not initialized
            lsp_ws = None
        if lsp_ws is not None:
            for folder in lsp_ws.folders.values():
                found = folder_of_uri(folder.uri)
                if found is not None:
                    return found
            if lsp_ws.root_path:
                return Path(lsp_ws.root_path)
        return self.cwd

    def answer(self, params: Any, ident: Any = None) -> dict[str, Any]:
        folder = self.workspace_folder()
        stop = self.running.setdefault(ident, threading.Event()) if ident is not None else threading.Event()
        token = params.get("workDoneToken") if isinstance(params, dict) else None
        if isinstance(params, dict) and "workDoneToken" in params:
            params = {k: v for k, v in params.items() if k != "workDoneToken"}
        progress = _Progress(self, token)

        def checkpoint(stage: str) -> None:
            if stop.is_set():
                raise _Cancelled
            progress.report(stage)

        try:
            progress.begin()
            return route.answer(route.parse_request(params), folder, index_cache=self.index_cache,
                                checkpoint=checkpoint).response()
        except RouteError as exc:
            message = route.scrub(exc.message, folder) if folder is not None else exc.message
            data = {**exc.data, "message": message}
            raise JsonRpcException(message, exc.code, data) from None
        except _Cancelled:
            raise JsonRpcException("cancelled by the client", jsonrpc_code("semaprax.cancelled"),
                                   {"code": "semaprax.cancelled", "message": "cancelled by the client"}) from None
        except Exception as exc:  # noqa: BLE001 - one bad request must not end the server
            message = f"internal error ({type(exc).__name__}); the server goes on"
            raise JsonRpcException(message, route.INTERNAL_ERROR,
                                   {"code": "semaprax.internal", "message": message}) from None
        finally:
            progress.end()
            if ident is not None:
                self.running.pop(ident, None)

    # --- the bounded reader ---------------------------------------------------------------------

    def serve_stdio(self, stdin: BinaryIO, stdout: BinaryIO) -> int:
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout))
        reading = ThreadPoolExecutor(max_workers=1, thread_name_prefix="semaprax-reader")
        try:
            asyncio.run(self._read_loop(stdin, reading))
        except BrokenPipeError:
            self.exit_code = 1
        finally:
            reading.shutdown(wait=False, cancel_futures=True)
            self.shutdown()
        return self.exit_code

    def _refuse(self, code: int, message: str, ident: Any = None) -> None:
        self.protocol._send_data({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})

    def _fatal(self, message: str) -> None:
        self._refuse(PARSE_ERROR, message)
        print(f"semaprax serve: {message}; the framing is lost, stopping", file=sys.stderr)
        self.exit_code = 1

    async def _read_loop(self, stdin: BinaryIO, reading: ThreadPoolExecutor) -> None:
        loop = asyncio.get_running_loop()

        def run(fn: Callable[..., Any], *args: Any) -> Any:
            return loop.run_in_executor(reading, fn, *args)

        assert self._stop_event is not None  # serve_stdio set it
        while not self._stop_event.is_set():
            length: int | None = None
            while True:
                line = await run(stdin.readline, MAX_HEADER_BYTES + 1)
                if not line:
                    return
                if len(line) > MAX_HEADER_BYTES:
                    return self._fatal(f"a header line is longer than {MAX_HEADER_BYTES} bytes")
                if not line.strip():
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    try:
                        length = int(value.strip())
                    except ValueError:
                        return self._fatal(f"Content-Length is not a number: {value.strip()[:40]!r}")
            if length is None:
                return self._fatal("message without Content-Length")
            if length < 0:
                return self._fatal(f"Content-Length {length} is negative")
            if length > self.max_message_bytes:
                head, got = await run(framing.skip, stdin, length)
                self.protocol._send_data(framing.too_large((head, length), self.max_message_bytes))
                if got < length:
                    return self._short(length - got)
                continue
            body = await run(stdin.read, length)
            if len(body) < length:
                return self._short(length - len(body))
            if self._dispatch(body):
                return

    def _short(self, missing: int) -> None:
        print(f"semaprax serve: the input ended {missing} bytes short of a message; stopping", file=sys.stderr)
        self.exit_code = 1

    def _dispatch(self, body: bytes) -> bool:
        """Hand one message to pygls; True when the server is to stop."""
        data, refusal = framing.parse(body)
        if refusal is not None:
            self.protocol._send_data(refusal)
            return False
        if data is None:
            return False
        ident = data.get("id")
        if data.get("method") == types.CANCEL_REQUEST and isinstance(data.get("params"), dict):
            flag = self.running.get(data["params"].get("id"))
            if flag is not None:
                flag.set()  # a running request stops at its next stage; pygls cancels a queued one
        if data.get("method") == METHOD and _is_id(ident) and isinstance(data.get("params"), dict):
            # the handler learns its request's id (for $/cancelRequest) from its params
            data["params"][_ID_KEY] = ident
            self.running[ident] = threading.Event()
        try:
            message = self.protocol.structure_message(data)
        except JsonRpcException as exc:
            if "method" in data and _is_id(ident):
                self._refuse(exc.code, f"invalid params for {data.get('method')!r}", ident)
            return False
        try:
            self.protocol.handle_message(message)
        except SystemExit as stop:  # pygls ends the process this way on `exit`
            self.exit_code = stop.code if isinstance(stop.code, int) else 0
            return True
        return False


#: Where _dispatch hands a compact-projection request its own id (removed before the route sees it).
_ID_KEY = "semaprax/id"


class _Cancelled(Exception):
    """$/cancelRequest arrived for a running request."""


class _Progress:
    """``$/progress`` for a request that gave a ``workDoneToken`` (LSP work-done
    progress: begin, a report per stage, end); nothing without one."""

    STAGES = ("view", "encode", "count")

    def __init__(self, server: CompactProjectionServer, token: Any) -> None:
        self.server = server
        self.token = token if _is_id(token) else None
        self.begun = False

    def _send(self, value: dict[str, Any]) -> None:
        if self.token is None:
            return
        message = {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": self.token, "value": value}}
        # from the worker thread, as pygls sends the request's own response: so "end" precedes it
        self.server.protocol._send_data(message)

    def begin(self) -> None:
        self.begun = True
        self._send({"kind": "begin", "title": "semaprax: compact projection", "cancellable": True,
                    "percentage": 0})

    def report(self, stage: str) -> None:
        done = self.STAGES.index(stage) if stage in self.STAGES else 0
        self._send({"kind": "report", "message": stage, "percentage": done * 100 // len(self.STAGES)})

    def end(self) -> None:
        if self.begun:
            self._send({"kind": "end"})


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def build_server(workspace: str | os.PathLike[str] | None = None, *, workers: int = DEFAULT_WORKERS,
                 cwd: Path | None = None, max_message_bytes: int = MAX_MESSAGE_BYTES) -> CompactProjectionServer:
    server = CompactProjectionServer(workspace, workers=workers, cwd=cwd, max_message_bytes=max_message_bytes)

    @server.feature(METHOD)
    @server.thread()
    def compact_projection(ls: CompactProjectionServer, params: Any) -> dict[str, Any]:
        ident = params.pop(_ID_KEY, None) if isinstance(params, dict) else None
        return ls.answer(params, ident)

    return server


def serve(workspace: str | os.PathLike[str] | None = None, stdin: BinaryIO | None = None,
          stdout: BinaryIO | None = None, *, workers: int = DEFAULT_WORKERS,
          max_message_bytes: int = MAX_MESSAGE_BYTES) -> int:
    """Answer framed JSON-RPC requests on standard input until ``exit`` or the
    end of the input; the exit status follows the LSP (1 when exit came before
    shutdown or the framing was lost)."""
    # pygls logs every refused request with a traceback; the client has the error.
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
    server = build_server(workspace, workers=workers, max_message_bytes=max_message_bytes)
    return server.serve_stdio(stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)
