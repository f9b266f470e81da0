"""A tap session read back: one row per ``tools/call`` with what the model reads.

A session file (``semaprax tap``, servers/tap.py) holds every JSON-RPC message
that passed between an agent's client and an MCP server. This module pairs each
``tools/call`` request with its response and says, for each result, what a
model is handed under the two conventions clients follow:

- ``structured``: the structured content when the result has one, as
  ``JSON.stringify`` writes it (compact, non-ASCII kept), else the text blocks.
  Claude Code, OpenAI Codex, VS Code's chat, GitHub Copilot CLI and opencode do
  this.
- ``text``: the text blocks always, joined by a line feed (a client that reads
  ``content`` and ignores ``structuredContent``).

A JSON-RPC error (no result at all) reads as its message under both. Each
reading is counted with both tokenizers (views/tokens.py, offline). The parse
is tolerant: a line that is not a record, a response with no request and a
request still waiting for its answer are kept as they are, never an error.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from codec.wire import detect_form

__all__ = ["CONTEXT_TOKENS", "CONVENTIONS", "Call", "Reading", "Session", "ToolTotal", "is_session",
           "model_reads", "parse_session", "read_session"]

#: The context window totals are shown against.
CONTEXT_TOKENS = 200_000
CONVENTIONS = ("structured", "text")
#: How much of a call's arguments its short form shows.
SHORT_ARGUMENTS = 80


def is_session(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a tap session (its first line
    is the session header)."""
    first = head.split(b"\n", 1)[0]
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and "semaprax_session" in record


def _json_stringify(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def model_reads(message: dict[str, Any]) -> dict[str, str]:
    """What the model is handed for one ``tools/call`` response, per convention."""
    if "result" not in message:
        error = message.get("error")
        text = error.get("message", "") if isinstance(error, dict) else _json_stringify(error)
        return {"structured": str(text), "text": str(text)}
    result = message["result"] if isinstance(message["result"], dict) else {}
    content = result.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    texts = "\n".join(b["text"] for b in blocks
                      if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
    structured = result.get("structuredContent")
    return {"structured": _json_stringify(structured) if structured is not None else texts, "text": texts}


@dataclass(frozen=True)
class Reading:
    """One convention's reading of a result and its cost."""

    text: str
    tokens: dict[str, int]


@dataclass
class Call:
    """One ``tools/call``: the request, and its response once it came."""

    number: int
    request_id: Any
    t: float
    tool: str
    arguments: Any
    request_bytes: int
    response: dict[str, Any] | None = None
    response_t: float | None = None
    response_bytes: int | None = None
    readings: dict[str, Reading] = field(default_factory=dict)

    @property
    def latency(self) -> float | None:
        return None if self.response_t is None else self.response_t - self.t

    @property
    def is_error(self) -> bool:
        if self.response is None:
            return False
        if "error" in self.response:
            return True
        result = self.response.get("result")
        return isinstance(result, dict) and result.get("isError") is True

    @property
    def short_arguments(self) -> str:
        text = _json_stringify(self.arguments) if self.arguments is not None else ""
        return text if len(text) <= SHORT_ARGUMENTS else text[: SHORT_ARGUMENTS - 1] + "…"

    def wire(self) -> bytes | None:
        """The semaprax wire the result's text carries, if it is one: a wire's
        magic at the start of the text, or base64 that decodes to a binary wire.
        Full JSON is not claimed (any JSON text would be)."""
        if self.response is None or self.is_error:
            return None
        text = model_reads(self.response)["text"]
        data = text.encode("utf-8")
        if data.startswith(b"SEMAPRAX"):
            return data
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return None
        try:
            return raw if raw and detect_form(raw) == "binary" else None
        except Exception:  # noqa: BLE001 - an unknown header is simply not a wire
            return None


@dataclass(frozen=True)
class ToolTotal:
    tool: str
    calls: int
    errors: int
    result_bytes: int
    tokens: dict[str, dict[str, int]]  # convention -> encoding -> tokens


@dataclass
class Session:
    header: dict[str, Any]
    calls: list[Call]
    messages: int
    unreadable_lines: int

    def totals(self) -> list[ToolTotal]:
        """Per tool, in order of first call."""
        by_tool: dict[str, list[Call]] = {}
        for call in self.calls:
            by_tool.setdefault(call.tool, []).append(call)
        return [_total(tool, calls) for tool, calls in by_tool.items()]

    def total(self) -> ToolTotal:
        return _total("(all)", self.calls)


def _total(tool: str, calls: list[Call]) -> ToolTotal:
    tokens: dict[str, dict[str, int]] = {c: {} for c in CONVENTIONS}
    for call in calls:
        for convention, reading in call.readings.items():
            for name, n in reading.tokens.items():
                tokens[convention][name] = tokens[convention].get(name, 0) + n
    return ToolTotal(tool, len(calls), sum(c.is_error for c in calls),
                     sum(c.response_bytes or 0 for c in calls), tokens)


def _key(request_id: Any) -> str:
    return _json_stringify(request_id)


def parse_session(lines: Iterable[bytes | str], *, count: bool = True) -> Session:
    """The calls of a session's lines; with ``count``, each reading's tokens."""
    header: dict[str, Any] = {}
    calls: list[Call] = []
    waiting: dict[str, Call | None] = {}  # requests not yet answered; None: not a tools/call
    # The tap records each direction after forwarding it (servers/tap.py), so a
    # fast response can reach the file just before its request: it waits here
    # for the request that follows it.
    early: dict[str, tuple[dict[str, Any], float, int]] = {}
    messages = unreadable = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            unreadable += 1
            continue
        if not isinstance(record, dict):
            unreadable += 1
            continue
        if "semaprax_session" in record:
            header = header or record
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            messages += "raw" in record
            continue
        messages += 1
        direction, t, size = record.get("dir"), float(record.get("t", 0.0)), int(record.get("bytes", 0))
        if direction == "c2s" and "method" in message and "id" in message:
            call = None
            if message.get("method") == "tools/call":
                raw_params = message.get("params")
                params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
                call = Call(len(calls) + 1, message["id"], t, str(params.get("name", "?")), params.get("arguments"),
                            size)
                calls.append(call)
            answer = early.pop(_key(message["id"]), None)
            if answer is None:
                waiting[_key(message["id"])] = call
            elif call is not None:
                _answer(call, *answer, count=count)
        elif direction == "s2c" and "id" in message and ("result" in message or "error" in message):
            key = _key(message["id"])
            if key not in waiting:
                early[key] = (message, t, size)
            elif (pending := waiting.pop(key)) is not None:
                _answer(pending, message, t, size, count=count)
    return Session(header, calls, messages, unreadable)


def _answer(call: Call, response: dict[str, Any], t: float, size: int, *, count: bool) -> None:
    call.response, call.response_t, call.response_bytes = response, t, size
    if count:
        _count(call)


def _count(call: Call) -> None:
    from views.tokens import count_tokens

    assert call.response is not None
    reads = model_reads(call.response)
    counted: dict[str, dict[str, int]] = {}
    for convention in CONVENTIONS:
        text = reads[convention]
        counted.setdefault(text, count_tokens(text))
        call.readings[convention] = Reading(text, counted[text])


def read_session(path: str, *, count: bool = True) -> Session:
    with open(path, "rb") as f:
        return parse_session(f, count=count)


@dataclass(frozen=True)
class Replayed:
    """One call's result produced again from the current sources.

    ``status``: ``same`` (the selected document is byte-identical), ``stale``
    (the sources now give another document; ``detail`` names the first
    difference), ``failed`` (the view cannot be produced now: ``detail`` says
    why) or ``not a view`` (the result is not a semaprax projection)."""

    number: int
    status: str
    detail: str = ""


def _projection_of(call: Call) -> tuple[str, str, bytes] | None:
    """The profile, root and selected document a call's result carries: a wire's
    own metadata, or for full JSON the metadata the result gives beside it
    (``_meta`` under ``semaprax/projection``, else its structured content)."""
    import codec

    wire = call.wire()
    if wire is not None:
        try:
            p = codec.decode_wire(wire).projection
        except codec.CompactError:
            return None
        return None if p is None else (p.profile, p.root, p.selected)
    if call.response is None or call.is_error:
        return None
    result = call.response.get("result")
    if not isinstance(result, dict):
        return None
    meta = result.get("_meta")
    described = meta.get("semaprax/projection") if isinstance(meta, dict) else None
    if not isinstance(described, dict):
        described = result.get("structuredContent")
    if not isinstance(described, dict):
        return None
    profile, root = described.get("profile"), described.get("root")
    if not isinstance(profile, str) or not isinstance(root, str):
        return None
    return profile, root, model_reads(call.response)["text"].encode("utf-8")


def replay_session(session: Session, workspace: str) -> list[Replayed]:
    """Every semaprax result of ``session`` produced again in ``workspace``
    (the existing replay: the same producer, compared on the selected bytes)."""
    from analysis.sources import WorkspaceError
    from codec import CompactError
    from codec.errors import excerpt
    from codec.projection import first_difference
    from servers.route import make_projection
    from views.budget import budget_of

    out = []
    for call in session.calls:
        found = _projection_of(call)
        if found is None:
            out.append(Replayed(call.number, "not a view"))
            continue
        profile, root, selected = found
        try:
            document = json.loads(selected)
        except ValueError:
            document = None
        try:  # a fitted view is fitted again to the budget its document names (docs/wire-format.md §2.1)
            again = make_projection(profile, root, workspace, budget=budget_of(document))
        except (CompactError, WorkspaceError, OSError) as exc:
            out.append(Replayed(call.number, "failed", str(exc)))
            continue
        if again.selected == selected:
            out.append(Replayed(call.number, "same"))
            continue
        at = first_difference(selected, again.selected)
        out.append(Replayed(call.number, "stale", f"differs at byte {at}: the result has "
                                                  f"{excerpt(selected, at)}, the sources now give "
                                                  f"{excerpt(again.selected, at)}"))
    return out
