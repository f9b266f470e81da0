"""The Calls view of a tap session: ``semaprax-inspect SESSION`` opens on one row
per tool call, with figures checked here against an independent count (the
session's JSON lines read again by this test, the texts tokenized with
tiktoken's encodings directly), and Enter opens a result that is a wire in the
usual panes, verified."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
from pathlib import Path
from typing import Any

from pilotkit import press, until
from textual.widgets import DataTable, Static

from inspector.app import InspectorApp
from inspector.session_screen import SessionScreen
from views.tokens import ENCODING_NAMES, get_encoding

ROOT = Path(__file__).resolve().parents[2]
DEMO_SESSION = ROOT / "examples" / "sessions" / "demo.jsonl"
SIZE = (160, 48)


def independent_figures(path: Path) -> list[dict[str, Any]]:
    """Each tools/call's tool, error flag, bytes and per-convention counts,
    computed from the raw lines without servers.session."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    requests = {json.dumps(r["message"]["id"]): r for r in records
                if r["dir"] == "c2s" and r.get("message", {}).get("method") == "tools/call"}
    out = []
    for r in records:
        m = r.get("message", {})
        if r["dir"] != "s2c" or json.dumps(m.get("id")) not in requests:
            continue
        result = m["result"]
        text = "\n".join(b["text"] for b in result["content"] if b["type"] == "text")
        sc = result.get("structuredContent")
        structured = json.dumps(sc, ensure_ascii=False, separators=(",", ":")) if sc is not None else text
        count = {n: len(get_encoding(n).encode_ordinary(s)) for n in ENCODING_NAMES for s in [structured]}
        count_text = {n: len(get_encoding(n).encode_ordinary(text)) for n in ENCODING_NAMES}
        req = requests[json.dumps(m["id"])]
        out.append({"tool": req["message"]["params"]["name"], "bytes": r["bytes"],
                    "latency": r["t"] - req["t"], "error": bool(result.get("isError")),
                    "structured": count, "text": count_text, "reads": text})
    return out


def test_a_session_opens_on_its_calls_with_figures_true_of_the_lines() -> None:
    expected = independent_figures(DEMO_SESSION)
    assert len(expected) == 6

    async def scenario() -> None:
        app = InspectorApp(None, session=str(DEMO_SESSION))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None)
            screen = app.screen
            assert isinstance(screen, SessionScreen) and screen.session is not None
            table = screen.query_one("#session-calls", DataTable)
            assert table.row_count == len(expected)
            for row, (call, want) in enumerate(zip(screen.session.calls, expected, strict=True)):
                assert call.tool == want["tool"] and call.response_bytes == want["bytes"]
                assert call.is_error == want["error"]
                assert abs((call.latency or 0) - want["latency"]) < 1e-9
                assert call.readings["structured"].tokens == want["structured"]
                assert call.readings["text"].tokens == want["text"]
                cells = table.get_row_at(row)
                assert cells[6] == " / ".join(f"{want['structured'][n]:,}" for n in ENCODING_NAMES)
                assert cells[7] == " / ".join(f"{want['text'][n]:,}" for n in ENCODING_NAMES)
                assert cells[5] == f"{want['bytes']:,}"
            totals = str(screen.query_one("#session-totals", Static).render())
            all_text = sum(w["text"]["cl100k_base"] for w in expected)
            assert f"text: {all_text:,} cl100k ({all_text / 200_000:.1%})" in totals
            # the second call is a model-text wire: Enter opens it verified in the usual panes
            table.move_cursor(row=1)
            await press(pilot, "enter")
            await until(pilot, lambda: app.loaded is not None and not isinstance(app.screen, SessionScreen))
            assert app.loaded is not None and app.loaded.error is None
            assert app.loaded.wire == expected[1]["reads"].encode()
            assert app.loaded.form == "model-text"
            # A brings the calls back; the binary call's base64 opens as the binary wire it carries
            await press(pilot, "A")
            await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None)
            app.screen.query_one("#session-calls", DataTable).move_cursor(row=3)
            await press(pilot, "enter")
            await until(pilot, lambda: not isinstance(app.screen, SessionScreen) and app.loaded is not None
                        and app.loaded.form == "binary")
            assert app.loaded.wire == base64.b64decode(expected[3]["reads"]) and app.loaded.error is None

    asyncio.run(scenario())


def test_the_calls_follow_a_session_that_is_still_being_written(tmp_path: Path) -> None:
    lines = DEMO_SESSION.read_bytes().splitlines(keepends=True)
    live = tmp_path / "live.jsonl"
    cut = next(i for i, line in enumerate(lines) if b'"tools/call"' in line and b'"nope.py"' in line)
    live.write_bytes(b"".join(lines[:cut]))

    async def scenario() -> None:
        app = InspectorApp(None, session=str(live))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None)
            screen = app.screen
            assert isinstance(screen, SessionScreen) and screen.session is not None
            assert len(screen.session.calls) == 5
            with live.open("ab") as f:  # the tap appends the sixth call and its answer
                f.write(b"".join(lines[cut:]))
            # the screen looks at the file once a second, then reads it in a worker: on a loaded machine
            # that takes seconds, so the wait is pilotkit's (its condition, up to TIMEOUT), not a shorter cap
            await until(pilot, lambda: screen.session is not None and len(screen.session.calls) == 6,
                        what="the sixth call, appended to the file, on the screen")
            assert screen.session.calls[-1].is_error

    asyncio.run(scenario())


def test_an_unreadable_session_says_so(tmp_path: Path) -> None:
    gone = tmp_path / "s.jsonl"
    shutil.copy(DEMO_SESSION, gone)

    async def scenario() -> None:
        app = InspectorApp(None, session=str(gone))
        gone.unlink()
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SessionScreen)
                        and "could not read" in str(app.screen.query_one("#session-heading", Static).render()))

    asyncio.run(scenario())


def test_r_replays_the_sessions_views_and_marks_the_stale_ones(tmp_path: Path) -> None:
    from sessionkit import session_lines

    import codec
    from servers.route import make_projection

    ws = tmp_path / "ws"
    shutil.copytree(ROOT / "tests" / "fixtures" / "demo", ws)
    app_wire = codec.ENCODERS["model-text"](make_projection("graph", "app.py", ws)).decode()
    pkg_wire = codec.ENCODERS["text"](make_projection("symbols", "pkg", ws)).decode()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(session_lines([
        ({"profile": "graph", "root": "app.py"}, {"content": [{"type": "text", "text": app_wire}]}),
        ({"profile": "symbols", "root": "pkg"}, {"content": [{"type": "text", "text": pkg_wire}]}),
        ({"profile": "graph", "root": "x.py"}, {"content": [{"type": "text", "text": "no"}], "isError": True}),
    ])) + b"\n")
    (ws / "app.py").write_text((ws / "app.py").read_text() + "\nlate = 1\n")  # the sources moved on

    async def scenario() -> None:
        app = InspectorApp(None, session=str(path), workspace=str(ws))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None)
            screen = app.screen
            assert isinstance(screen, SessionScreen)
            await pilot.press("r")
            await until(pilot, lambda: len(screen.replayed) == 3)
            assert [screen.replayed[n].status for n in (1, 2, 3)] == ["stale", "same", "not a view"]
            table = screen.query_one("#session-calls", DataTable)
            assert [str(table.get_row_at(i)[-1]) for i in range(3)] == ["stale", "same", "not a view"]

    asyncio.run(scenario())


def test_at_80_columns_every_figure_is_on_the_screen() -> None:
    async def scenario() -> None:
        app = InspectorApp(None, session=str(DEMO_SESSION))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None)
            table = app.screen.query_one("#session-calls", DataTable)
            assert [str(c.label) for c in table.columns.values()] == [
                "#", "tool", "ms", "bytes", "structured", "text", "error", "replay"]
            assert table.virtual_size.width <= 80

    asyncio.run(scenario())
