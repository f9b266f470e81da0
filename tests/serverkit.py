"""Real clients for the servers under test: pygls's LanguageClient driving
``semaprax serve`` and the MCP SDK's ClientSession driving ``semaprax mcp``, each
over the stdio of a real subprocess. The LSP session runs its event loop on a
thread of its own so that one server process can serve many synchronous tests."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from servers.lsp import raw_json_converter
from servers.route import METHOD

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tests" / "fixtures" / "demo"
CLI = [sys.executable, "-m", "semaprax"]


class LspSession:
    """``semaprax serve`` under pygls's client, with synchronous calls."""

    def __init__(self, *args: str, cwd: Path = ROOT, root_uri: str | None = None,
                 folders: list[str] | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client = LanguageClient("semaprax-tests", "1", converter_factory=raw_json_converter)
        self.run(self.client.start_io(*CLI, "serve", *args, cwd=str(cwd)))
        params = types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=root_uri,
            workspace_folders=[types.WorkspaceFolder(uri=f, name=Path(f).name) for f in folders or []] or None)
        self.initialized = self.run(self.client.initialize_async(params))
        self.client.initialized(types.InitializedParams())

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 120) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def send(self, params: Any, msg_id: Any = None) -> asyncio.Future:
        """Start a request; the future is the event loop's."""

        async def start() -> asyncio.Future:
            return self.client.protocol.send_request_async(METHOD, params, msg_id=msg_id)

        return self.run(start())

    def wait(self, future: asyncio.Future) -> Any:
        async def result() -> Any:
            return await future

        return self.run(result())

    def request(self, params: Any) -> dict[str, Any]:
        return self.wait(self.send(params))

    def error(self, params: Any) -> JsonRpcException:
        try:
            self.request(params)
        except JsonRpcException as exc:
            return exc
        raise AssertionError(f"no error for {params!r}")

    def cancel(self, msg_id: Any) -> None:
        async def notify() -> None:
            self.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))

        self.run(notify())

    def close(self) -> int:
        self.run(self.client.shutdown_async(None))
        self.client.exit(None)
        self.run(self.client.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        return self.client._server.returncode


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def unframe(out: bytes) -> list[dict]:
    """Every message of a server's output (its headers may include Content-Type)."""
    messages = []
    while out:
        header, _, rest = out.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in header.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        messages.append(json.loads(rest[:length]))
        out = rest[length:]
    return messages


def run_cli(*args: str, input: bytes | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], input=input, capture_output=True, timeout=120, cwd=cwd, check=False)


def generate_workspace(folder: Path, modules: int) -> Path:
    """A package of ``modules`` modules whose calls cross modules: its index
    takes noticeably long to build (a slow request for the concurrency tests)."""
    pkg = folder / "big"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    for i in range(modules):
        lines = [f"from big import m{(i + 1) % modules} as nxt", ""]
        for c in range(6):
            lines += [f"class C{c}:", f"    def m{c}(self, x: int) -> int:", f"        return nxt.f{c}(x) + {c}", ""]
        for f in range(6):
            lines += [f"def f{f}(x):", f"    return C{f}().m{f}(x)", ""]
        (pkg / f"m{i}.py").write_text("\n".join(lines))
    return folder


class McpSession:
    """``semaprax mcp`` under the MCP SDK's ClientSession over stdio, with
    synchronous calls; ``roots`` are the client's (answered to roots/list)."""

    def __init__(self, *args: str, cwd: Path = ROOT, roots: list[Path] | None = None,
                 env: dict[str, str] | None = None, list_roots: Any = None) -> None:
        import os

        from mcp import ClientSession, StdioServerParameters, stdio_client
        from mcp import types as mt

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        params = StdioServerParameters(command=sys.executable, args=["-m", "semaprax", "mcp", *args],
                                       cwd=str(cwd), env={**os.environ, **(env or {})})

        async def from_roots(context: Any) -> mt.ListRootsResult:
            return mt.ListRootsResult(roots=[mt.Root(uri=r.as_uri(), name=r.name) for r in roots or []])

        answer_roots = list_roots if list_roots is not None else from_roots if roots is not None else None

        ready: asyncio.Future = self.loop.create_future()
        self._stop = asyncio.Event()

        async def hold() -> None:
            try:
                async with stdio_client(params) as (read, write), ClientSession(
                        read, write, list_roots_callback=answer_roots) as session:
                    ready.set_result((session, await session.initialize()))
                    await self._stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                raise

        self._task = asyncio.run_coroutine_threadsafe(hold(), self.loop)
        self.session, self.initialized = self.run(_await(ready))

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 120) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, tool: str, arguments: dict[str, Any], progress: Any = None) -> Any:
        return self.run(self.session.call_tool(tool, arguments, progress_callback=progress))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self._stop.set)
        self._task.result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


async def _await(future: asyncio.Future) -> Any:
    return await future
