"""Start-up (issue 22): each command imports only what it uses. The CLI runs in a
real subprocess, as a user starts it, and the modules it loaded (``sys.modules``
at exit) are compared with what the command needs: a graph view of one file
loads that view, the resolver and the form it writes, not the other views, the
workspace index, the manifest reader (tomllib), the tokenizers or the
distribution metadata (``importlib.metadata`` and with it ``email``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from workspacekit import write_files

import codec
import views

ROOT = Path(__file__).resolve().parents[1]

FILES: dict[str, str | bytes] = {
    "pkg/__init__.py": '"""A package."""\n',
    "pkg/a.py": "import os\n\nfrom pkg.b import helper\n\n\ndef run() -> str:\n    return helper() + os.sep\n",
    "pkg/b.py": "def helper() -> str:\n    return 'b'\n",
}

#: Loaded by no graph or symbols view, nor by replaying one.
NEVER_FOR_ONE_FILE = (
    "views.diagnostics", "views.project_graph", "views.references", "views.task_context",
    "views.fit", "views.tokens", "tiktoken", "importlib.metadata", "email",
    "analysis.index", "analysis.pool", "analysis.filecache", "analysis.manifest", "tomllib",
    "codec.binary_v1", "codec.model_text", "codec.layout", "cbor2",
)


def loaded(argv: list[str], tmp_path: Path, code: str | None = None) -> set[str]:
    """The modules ``semaprax ARGV`` (or ``code``) had loaded when it exited."""
    out = tmp_path / "modules.json"
    run = code or f"from semaprax.cli import main; status = main({argv!r})"
    wrapper = (f"import json, sys\n{run}\n"
               f"open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
               "sys.exit(status)\n")
    done = subprocess.run([sys.executable, "-c", wrapper], cwd=ROOT, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return set(json.loads(out.read_text()))


def test_a_graph_request_loads_its_view_and_nothing_else(tmp_path: Path) -> None:
    ws = write_files(tmp_path / "ws", FILES)
    found = loaded(["project", "pkg/a.py", "--profile", "graph", "--workspace", str(ws),
                    "-o", str(tmp_path / "g.json")], tmp_path)
    assert {"views.graph", "analysis.resolver", "codec.projection"} <= found  # the wrapper saw the request
    assert sorted(found & set(NEVER_FOR_ONE_FILE)) == []
    assert "codec.text_v1" not in found  # full JSON was asked for


def test_a_project_graph_request_reads_outlines_and_loads_no_other_view(tmp_path: Path) -> None:
    ws = write_files(tmp_path / "ws", {**FILES, "semaprax.toml": "[project]\nname = 'pkg'\n"})
    found = loaded(["project", "semaprax.toml", "--profile", "project-graph", "--workspace", str(ws), "--no-cache",
                    "-o", str(tmp_path / "p.json")], tmp_path)
    assert {"views.project_graph", "analysis.outlines", "analysis.manifest"} <= found
    others = {"views.diagnostics", "views.references", "views.task_context", "views.graph", "views.fit",
              "views.tokens", "tiktoken", "importlib.metadata", "email", "codec.text_v1", "cbor2"}
    assert sorted(found & others) == []


def test_replaying_a_whole_graph_wire_loads_no_tokenizer(tmp_path: Path) -> None:
    ws = write_files(tmp_path / "ws", FILES)
    wire = tmp_path / "g.wire"
    made = subprocess.run([sys.executable, "-m", "semaprax", "project", "pkg/a.py", "--profile", "graph",
                           "--encoding", "text", "--workspace", str(ws), "-o", str(wire)],
                          cwd=ROOT, capture_output=True, check=False)
    assert made.returncode == 0, made.stderr
    found = loaded(["replay", str(wire), "--workspace", str(ws)], tmp_path)
    assert sorted(found & set(NEVER_FOR_ONE_FILE)) == []
    assert {"views.graph", "codec.text_v1"} <= found


@pytest.mark.parametrize("argv", [["--help"], ["decode", "--help"]])
def test_the_command_line_alone_loads_no_analysis_and_no_view(tmp_path: Path, argv: list[str]) -> None:
    run = ("from semaprax.cli import main\ntry:\n    main(" + repr(argv) + ")\n"
           "except SystemExit as done:\n    status = done.code")
    found = loaded(argv, tmp_path, run)
    assert "semaprax.cli" in found
    ours = sorted(m for m in found if m.split(".")[0] in ("analysis", "views", "inspector"))
    assert ours == []
    codecs = {"codec.projection", "codec.scan", "codec.wire", "codec.binary_v1", "codec.model_text", "codec.text_v1",
              "codec.layout", "cbor2"}  # the parser names the profiles and forms from codec.names alone
    assert sorted(found & codecs) == []


def test_graph_and_symbols_never_build_the_workspace_index(tmp_path: Path) -> None:
    """The CLI applies --jobs, --no-cache and progress to the index only for
    views.INDEXED: every other profile must really never load it."""
    ws = write_files(tmp_path / "ws", FILES)
    one_file = sorted(set(views.PROFILE_NAMES) - views.INDEXED)
    assert one_file == ["graph", "symbols"]
    run = ("from analysis.sources import Workspace\nfrom views import PRODUCERS\n"
           "from servers.route import make_projection\nfrom views.budget import Budget\n"
           f"ws = Workspace({str(ws)!r})\n"
           "PRODUCERS['graph'](ws, 'pkg/a.py')\nPRODUCERS['symbols'](ws, 'pkg')\n"
           "for profile, root in (('graph', 'pkg/a.py'), ('symbols', 'pkg')):  # fitted: the narrower roots too\n"
           f"    make_projection(profile, root, {str(ws)!r}, budget=Budget(30))\n"
           "status = 0")
    found = loaded([], tmp_path, run)
    assert {"views.graph", "views.symbols", "views.fit"} <= found
    assert sorted(found & {"analysis.index", "analysis.filecache", "analysis.pool"}) == []


def test_the_registries_know_every_profile_without_importing_them() -> None:
    assert set(views.PROFILE_NAMES) == set(codec.PROFILES) == set(views.PRODUCERS) == set(views.LONG_PRODUCERS)
    assert "graph" in views.PRODUCERS and "nothing" not in views.PRODUCERS
    with pytest.raises(KeyError):
        views.PRODUCERS["nothing"]
    assert list(codec.ENCODERS) == list(codec.FORMS) and "nothing" not in codec.ENCODERS


def test_the_lazy_codec_names_are_the_forms_own() -> None:
    from codec import binary_v1, layout, model_text, names, projection, text_v1, wire

    assert codec.ENCODERS["binary"] is binary_v1.encode_binary
    assert codec.ENCODERS["model-text"] is model_text.encode_model_text
    assert codec.ENCODERS["text"] is text_v1.encode_text
    assert codec.layout_wire is layout.layout_wire and codec.decode_text is text_v1.decode_text
    assert wire.FORMAT_VERSIONS == {"json": 1, "text": text_v1.FORMAT_VERSION, "binary": binary_v1.FORMAT_VERSION,
                                    "model-text": model_text.FORMAT_VERSION}
    assert binary_v1.MAGIC.startswith(names.BINARY_HEAD) and projection.PROFILES == names.PROFILES
    with pytest.raises(AttributeError):
        codec.no_such_name  # type: ignore[attr-defined]  # noqa: B018
