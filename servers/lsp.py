"""``semaprax serve``: the ``workspace/compact-projection`` route (README, "Servers for
agents and editors") as a language server on stdio, built on pygls.

pygls does the protocol (initialize, shutdown, exit, ``$/cancelRequest``); the
route (servers/route.py) does the request. What this module adds:

* the workspace: ``--workspace``, else the client's ``rootUri`` / first
  ``workspaceFolders`` entry from initialize, else the folder the server was started
  in, unless that is the filesystem root;
* requests run on a thread pool, so a quick request is not held behind a slow one,
  and a queued request can be cancelled;
* a bounded reader: a frame whose Content-Length is missing, not a number or over
  MAX_MESSAGE_BYTES, or a header line over MAX_HEADER_BYTES, loses the framing: it
  is answered with an error and the server stops (exit 1). A body that is not JSON
  is answered with a parse error, and the server goes on.
* ``capabilities.experimental.compactProjection`` lists the supported triples;
  ``serverInfo`` names semaprax and its version.
"""

from __future__ import annotations

import asyncio
import json
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
from servers import route
from servers.route import METHOD, RouteError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
#: The largest message accepted: a 16 MiB wire, base64, with room for the rest.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
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
        result.capabilities.experimental = {
            "compactProjection": {"method": METHOD, "triples": supported_triples(),
                                  "encodings": list(codec.FORMS), "maxTokens": True},
        }
        return result


class CompactProjectionServer(LanguageServer):
    """A language server with one request, ``workspace/compact-projection``."""

    def __init__(self, workspace: str | os.PathLike[str] | None, *, workers: int = DEFAULT_WORKERS,
                 cwd: Path | None = None) -> None:
        super().__init__("semaprax", package_version(), protocol_cls=_Protocol,
                         converter_factory=raw_json_converter, max_workers=workers)
        self.explicit_workspace = None if workspace is None else Path(workspace)
        self.cwd = cwd or Path.cwd()
        self.index_cache = IndexCache()
        self.exit_code = 0

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

    def answer(self, params: Any) -> dict[str, Any]:
        try:
            return route.handle(params, self.workspace_folder(), index_cache=self.index_cache)
        except RouteError as exc:
            raise JsonRpcException(exc.message, exc.code, exc.data) from None
        except Exception as exc:  # noqa: BLE001 - one bad request must not end the server
            raise JsonRpcException(f"internal error: {type(exc).__name__}: {exc}", route.INTERNAL_ERROR) from None

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

        def run(fn: Callable[..., bytes], *args: Any) -> Any:
            return loop.run_in_executor(reading, fn, *args)

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
            if not 0 <= length <= MAX_MESSAGE_BYTES:
                return self._fatal(f"Content-Length {length} is outside 0..{MAX_MESSAGE_BYTES}")
            body = await run(stdin.read, length)
            if len(body) < length:
                print(f"semaprax serve: the input ended {length - len(body)} bytes short of a message; stopping",
                      file=sys.stderr)
                self.exit_code = 1
                return
            if self._dispatch(body):
                return

    def _dispatch(self, body: bytes) -> bool:
        """Hand one message to pygls; True when the server is to stop."""
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            self._refuse(PARSE_ERROR, f"message is not JSON: {exc}")
            return False
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            ident = data.get("id") if isinstance(data, dict) else None
            self._refuse(INVALID_REQUEST, "not a JSON-RPC 2.0 message", ident if _is_id(ident) else None)
            return False
        ident = data.get("id")
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


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def build_server(workspace: str | os.PathLike[str] | None = None, *, workers: int = DEFAULT_WORKERS,
                 cwd: Path | None = None) -> CompactProjectionServer:
    server = CompactProjectionServer(workspace, workers=workers, cwd=cwd)

    @server.feature(METHOD)
    @server.thread()
    def compact_projection(ls: CompactProjectionServer, params: Any) -> dict[str, Any]:
        return ls.answer(params)

    return server


def serve(workspace: str | os.PathLike[str] | None = None, stdin: BinaryIO | None = None,
          stdout: BinaryIO | None = None, *, workers: int = DEFAULT_WORKERS) -> int:
    """Answer framed JSON-RPC requests on standard input until ``exit`` or the
    end of the input; the exit status follows the LSP (1 when exit came before
    shutdown or the framing was lost)."""
    # pygls logs every refused request with a traceback; the client has the error.
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
    server = build_server(workspace, workers=workers)
    return server.serve_stdio(stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)
