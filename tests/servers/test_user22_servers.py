"""The servers as a user's editor and agent meet them over a real project (issue
22's user pass), each a case that failed before its fix."""

from __future__ import annotations

import pytest
from serverkit import LspSession


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "__init__.py").write_text("")
    (tmp_path / "p" / "core.py").write_text("def a():\n    return 1\n")
    return tmp_path


def test_serve_asks_for_no_document_text_since_views_read_the_saved_files(project):
    # pygls offered incremental sync: an editor sent its unsaved buffer, which no view read
    lsp = LspSession("--workspace", str(project))
    try:
        assert lsp.initialized.capabilities.text_document_sync is None
        view = lsp.request({"profile": "graph", "root": "p/core.py", "encoding": "json"})
        assert '"a()"' in view["wire"]
        (project / "p" / "core.py").write_text("def b():\n    return 2\n")  # saved: the next view has it
        view = lsp.request({"profile": "graph", "root": "p/core.py", "encoding": "json"})
        assert '"b()"' in view["wire"] and '"a()"' not in view["wire"]
    finally:
        assert lsp.close() == 0


def test_find_roots_counts_one_line_and_one_file_in_the_singular(project):
    from serverkit import McpSession

    (project / "p" / "one.py").write_text("def one(): return 1\n")
    (project / "q").mkdir()
    (project / "q" / "__init__.py").write_text("X = 1\n")
    mcp = McpSession("--workspace", str(project))
    try:
        text = mcp.call("find_roots", {"profile": "task-context", "query": "one"}).content[0].text
        assert "p.one.one\tsymbol, 1 line" in text.split("\n")
        folders = mcp.call("find_roots", {"profile": "symbols", "query": "q"}).content[0].text.split("\n")
        assert "q\tfolder, 6 bytes, 1 file" in folders and "q/__init__.py\tfile, 6 bytes" in folders
    finally:
        mcp.close()
