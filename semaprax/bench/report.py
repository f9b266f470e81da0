"""Measure what each wire form of a compact projection costs a model, and prove
that every form still carries exactly the selected document.

Why this script exists: model-text v2 is only worth choosing where it actually
costs fewer tokens than full JSON, and a table of savings is only worth reading if
every wire it counts decodes back to the very bytes it claims to carry. So for each
selected view this script

* produces the view once with the ordinary route (``servers.route.make_projection``);
* encodes it in all four wire forms (full JSON, v1 text, v1 binary, v2 model-text);
* decodes every wire again with ``codec.decode_wire`` (binary included, although
  binary is never shown to a model) and requires the selected bytes and metadata
  to come back exactly;
* runs the ordinary producer command (``semaprax project ROOT --profile P``) in a
  separate process and requires its output to equal the selected bytes, so the
  numbers describe what the project really produces, not a benchmark-only path;
* counts the complete wire (envelope and dictionary included) in bytes and in
  tokens of the real ``cl100k_base`` and ``o200k_base`` vocabularies, loaded
  offline by ``views.tokens``;
* adds two *reference* renderings of the same document, which are not wire forms
  (no metadata, no digest, no decoder here): pretty-printed JSON and TOON (the
  ``toon-format`` package), so a reader can see how the wire forms compare with
  what people commonly paste into prompts;
* measures the view in today's long shapes (``views.expand``, the
  exact inverse of the compact shapes, checked byte for byte against the long
  producer) and the minimal plain-text listing of the same facts
  (``semaprax/bench/listing.py``, checked to parse back to the view): the before and the
  floor of the shape change.

Any decode mismatch or producer mismatch stops the run with exit status 1 and a
message naming the case, the form and the first differing byte; no report is
written for a failed run. The report (``measurements.md`` and ``measurements.json``
in ``--output-dir``, by default ``docs/``) is a pure function of its inputs: no
timestamps, no absolute paths, sorted keys. Timings go to standard error only.

    semaprax report            # all cases, writes docs/
    semaprax report --quick    # three cases, prints the table

``--quick`` runs three small machine-independent cases (the two example project
graphs and the banking-ledger graph); it writes files only when ``--output-dir`` is
given, so a quick run never replaces the committed full report. The TOON column
needs ``toon-format`` (installed with the test extras); without it the column is
left out and the report says so.

These are local measurements of this machine's inputs: they claim no universal
savings, no exact token budget of any model or provider, and no billing authority.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

import codec
from analysis.sources import Workspace
from codec import limits
from semaprax.bench import listing
from servers.route import make_projection
from views import LONG_PRODUCERS, tokens
from views.expand import expand

#: Identifies the layout of ``measurements.json``; bump it when the layout changes.
SCHEMA = "semaprax/benchmark-compact-projection/2"

#: The four wire forms, in the order the codec lists them.
WIRE_FORMS: tuple[str, ...] = tuple(codec.ENCODERS)
#: The wire forms a model reads, and so the ones counted in tokens. Binary is
#: stored and replayed but never shown to a model, so it is measured in bytes only.
MODEL_FORMS: tuple[str, ...] = ("json", "text", "model-text")
#: The installed third-party package whose project graph is measured.
THIRD_PARTY_PACKAGE = "rich"
#: Size below which model-text's dictionary is empty by rule (docs/wire-format.md §5.1).
DICTIONARY_THRESHOLD = limits.DICTIONARY_THRESHOLD

LOCAL_NOTE = (
    "Local measurements of these inputs on one machine. They are not universal savings, "
    "not exact token budgets of any model or provider, and not a billing authority."
)

EXAMPLES = ROOT / "examples"


class BenchmarkError(Exception):
    """A measurement that cannot be trusted: a wire that does not decode to the
    selected bytes, a producer command that disagrees, a case that cannot run.
    The run stops and no report is written."""


@dataclass(frozen=True)
class Case:
    """One selected view to measure.

    ``source`` says where the workspace comes from: ``"examples"`` (``workspace`` is
    a folder relative to the repository), ``"stdlib"`` (the running Python's
    standard library folder) or ``"third-party"`` (a temporary folder holding a
    copy of the installed package ``workspace`` and a minimal manifest).
    ``machine_dependent`` cases change with the Python or package version, so the
    test leaves them out when it compares with the committed report.
    """

    id: str
    label: str
    profile: str
    root: str
    source: str
    workspace: str
    quick: bool = False

    @property
    def machine_dependent(self) -> bool:
        return self.source != "examples"


def stdlib_folder() -> Path:
    """The running Python's standard library folder (where ``typing.py`` lives)."""
    return Path(os.path.dirname(typing.__file__))


def python_version() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def all_cases() -> list[Case]:
    """Every case of the full run, in report order."""
    py = platform.python_version()
    third = THIRD_PARTY_PACKAGE
    third_version = distribution_version(third) or "not installed"
    return [
        Case("banking_ledger.graph", "Graph: examples/banking_ledger.py", "graph",
             "banking_ledger.py", "examples", "examples", quick=True),
        Case("banking_ledger.task-context", "Task context: banking_ledger.Ledger.apply", "task-context",
             "banking_ledger.Ledger.apply", "examples", "examples"),
        Case("http_app_routing.graph", "Graph: examples/http_app_routing.py", "graph",
             "http_app_routing.py", "examples", "examples"),
        Case("http_app_routing.task-context", "Task context: http_app_routing.App.handle", "task-context",
             "http_app_routing.App.handle", "examples", "examples"),
        Case("calculator.project-graph", "Project graph: examples/calculator-project/semaprax.toml",
             "project-graph", "semaprax.toml", "examples", "examples/calculator-project", quick=True),
        Case("frame-payload.project-graph", "Project graph: examples/frame-payload-project/semaprax.toml",
             "project-graph", "semaprax.toml", "examples", "examples/frame-payload-project", quick=True),
        Case("stdlib.typing.graph", f"Graph: stdlib typing.py (Python {py})", "graph",
             "typing.py", "stdlib", "stdlib"),
        Case("stdlib.http-server.graph", f"Graph: stdlib http/server.py (Python {py})", "graph",
             "http/server.py", "stdlib", "stdlib"),
        Case(f"{third}.project-graph", f"Project graph: {third} {third_version} (installed package)",
             "project-graph", "semaprax.toml", "third-party", third),
    ]


def select_cases(quick: bool = False) -> list[Case]:
    """The full list, or the quick subset (small, machine-independent cases)."""
    cases = all_cases()
    return [c for c in cases if c.quick] if quick else cases


# --- workspaces -------------------------------------------------------------------------


def third_party_manifest(package: str) -> str:
    """A minimal ``semaprax.toml`` for an installed package: its name, its folder as
    the only source, and its unconditional requirements as dependencies."""
    requirements = [
        r for r in (importlib.metadata.requires(package) or []) if ";" not in r
    ]
    lines = ["[project]", f"name = {json.dumps(package)}", f"sources = [{json.dumps(package)}]"]
    if requirements:
        lines.append("dependencies = [" + ", ".join(json.dumps(r) for r in sorted(requirements)) + "]")
    return "\n".join(lines) + "\n"


def _keep_python_sources(folder: str, names: list[str]) -> set[str]:
    """``shutil.copytree`` ignore function: copy folders and ``.py`` files only."""
    return {n for n in names if n == "__pycache__" or
            (not n.endswith(".py") and not os.path.isdir(os.path.join(folder, n)))}


@contextlib.contextmanager
def prepared_workspace(case: Case) -> Iterator[Path]:
    """The workspace folder of ``case``; a temporary copy for a third-party package.

    A package's files cannot be a root of a workspace they are not inside, and the
    site-packages folder is skipped by the workspace walker, so the package's
    ``.py`` files are copied into a fresh folder next to a minimal manifest. The
    folder's name never reaches the view (paths in views are workspace-relative).
    """
    if case.source == "examples":
        yield ROOT / case.workspace
    elif case.source == "stdlib":
        yield stdlib_folder()
    elif case.source == "third-party":
        try:
            module = importlib.import_module(case.workspace)
        except ImportError as exc:
            raise BenchmarkError(
                f"{case.id}: the third-party package {case.workspace!r} is not installed ({exc}); "
                f"install it or run with --quick"
            ) from None
        assert module.__file__ is not None
        package_folder = Path(os.path.dirname(module.__file__))
        with tempfile.TemporaryDirectory(prefix="semaprax-bench-") as tmp:
            folder = Path(tmp)
            shutil.copytree(package_folder, folder / case.workspace, ignore=_keep_python_sources)
            (folder / case.root).write_text(third_party_manifest(case.workspace), encoding="utf-8")
            yield folder
    else:  # pragma: no cover - a programming error in all_cases()
        raise BenchmarkError(f"{case.id}: unknown workspace source {case.source!r}")


# --- checks ---------------------------------------------------------------------------------


def _difference(expected: bytes, found: bytes) -> str:
    at = codec.first_difference(expected, found)
    return (f"{len(found):,} bytes instead of {len(expected):,}; first difference at byte {at:,}: "
            f"expected {codec.excerpt(expected, at)}, found {codec.excerpt(found, at)}")


def replay_wires(case: Case, p: codec.CompactProjection, wires: dict[str, bytes]) -> None:
    """Decode every wire (binary included) with ``codec.decode_wire`` and require
    the form it claims, the exact selected bytes and, where the form carries them,
    the same four metadata values. Raises :class:`BenchmarkError` otherwise."""
    for form, wire in wires.items():
        try:
            found = codec.decode_wire(wire)
        except codec.CompactError as exc:
            raise BenchmarkError(f"{case.id}: the {form} wire does not decode: {exc}") from None
        if found.form != form:
            raise BenchmarkError(f"{case.id}: the {form} wire was recognised as {found.form}")
        if found.selected != p.selected:
            raise BenchmarkError(
                f"{case.id}: the {form} wire decodes to different selected bytes: "
                + _difference(p.selected, found.selected)
            )
        if form != "json":
            q = found.projection
            if q is None or (q.profile, q.root, q.source_revision, q.source_digest) != (
                    p.profile, p.root, p.source_revision, p.source_digest):
                raise BenchmarkError(
                    f"{case.id}: the {form} wire decodes to different metadata: "
                    f"expected {(p.profile, p.root, p.source_revision, p.source_digest)}, "
                    f"found {None if q is None else (q.profile, q.root, q.source_revision, q.source_digest)}"
                )


def producer_command(case: Case, workspace: Path) -> list[str]:
    """The ordinary producer command (the ``semaprax`` console script's entry point,
    ``semaprax.cli:main``), run with this interpreter and this checkout."""
    return [sys.executable, "-m", "semaprax", "project", case.root,
            "--profile", case.profile, "--workspace", str(workspace)]


def run_producer_cli(case: Case, workspace: Path) -> bytes:
    """Run ``semaprax project ROOT --profile P`` in a subprocess; its standard output
    (full JSON, the default encoding) is the selected bytes. Fails loudly on a
    non-zero exit or anything on standard error."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        done = subprocess.run(producer_command(case, workspace), cwd=ROOT, env=env,
                              capture_output=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BenchmarkError(f"{case.id}: could not run the producer command: {exc}") from None
    if done.returncode != 0 or done.stderr:
        raise BenchmarkError(
            f"{case.id}: `semaprax project {case.root} --profile {case.profile}` exited "
            f"{done.returncode}: {done.stderr.decode('utf-8', 'replace').strip() or '(no message)'}"
        )
    return done.stdout


def check_producer(case: Case, p: codec.CompactProjection, workspace: Path) -> str:
    """Require the ordinary producer's output to equal the benchmark's selected bytes.
    Returns the command as a reader would type it, for the report."""
    out = run_producer_cli(case, workspace)
    if out != p.selected:
        raise BenchmarkError(
            f"{case.id}: `semaprax project {case.root} --profile {case.profile}` differs from the "
            f"measured selected bytes: " + _difference(p.selected, out)
        )
    shown_ws = {"examples": case.workspace, "stdlib": "<stdlib>",
                "third-party": f"<copy of {case.workspace}>"}[case.source]
    return f"semaprax project {case.root} --profile {case.profile} --workspace {shown_ws}"


# --- measurement -----------------------------------------------------------------------------


class Toon(NamedTuple):
    """The official TOON encoder (``toon-format`` on PyPI), or its absence.

    ``encode``/``decode`` are None when the package is not importable; ``note``
    then says why, and the report prints it instead of a TOON column."""

    encode: Callable[[Any], str] | None
    decode: Callable[[str], Any] | None
    version: str | None
    note: str


def load_toon() -> Toon:
    """Import ``toon_format`` if it is installed; never fake the column without it."""
    try:
        import toon_format
    except ImportError as exc:
        return Toon(None, None, None, f"toon-format is not installed ({exc}); the TOON column is left out")
    version = distribution_version("toon-format") or getattr(toon_format, "__version__", "unknown")
    spec = getattr(toon_format, "__toon_spec__", None)
    note = f"toon-format {version}" + (f" (TOON specification {spec})" if spec else "")
    return Toon(toon_format.encode, toon_format.decode, version, note)


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def measure_bytes(data: bytes, *, count: bool = True) -> dict[str, Any]:
    """Bytes, SHA-256 and (for what a model reads) token counts of one rendering."""
    entry: dict[str, Any] = {"bytes": len(data), "sha256": sha256(data)}
    entry["tokens"] = tokens.count_tokens(data) if count else None
    return entry


def measure_case(case: Case, toon: Toon) -> dict[str, Any]:
    """Produce, encode, replay, cross-check and count one case."""
    with prepared_workspace(case) as workspace:
        try:
            p = make_projection(case.profile, case.root, workspace)
        except codec.CompactError as exc:
            raise BenchmarkError(f"{case.id}: the producer failed: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - WorkspaceError and friends: name the case
            raise BenchmarkError(f"{case.id}: the producer failed: {type(exc).__name__}: {exc}") from None
        try:
            wires = {form: codec.ENCODERS[form](p) for form in WIRE_FORMS}
        except codec.CompactError as exc:
            raise BenchmarkError(f"{case.id}: encoding failed: {exc}") from None
        replay_wires(case, p, wires)
        command = check_producer(case, p, workspace)
        shapes = measure_shapes(case, p, workspace)

    layouts = {form: codec.layout_wire(wires[form]) for form in ("text", "model-text")}
    for form, found in layouts.items():
        if not found.valid or found.body is None:  # replay passed, so this cannot happen
            raise BenchmarkError(f"{case.id}: the {form} layout disagrees with its decoder: {found.error}")
    layout = layouts["model-text"]
    forms = {form: measure_bytes(wire, count=form in MODEL_FORMS) for form, wire in wires.items()}
    for form in WIRE_FORMS:
        forms[form]["format_version"] = 2 if form == "model-text" else 1
    # Where the tokens of an enveloped wire go: the part before the body (header,
    # metadata and, for model-text, the dictionary) and the body, counted apart.
    for form, found in layouts.items():
        assert found.body is not None
        wire, body_start = wires[form], found.body.start
        forms[form]["head"] = {"bytes": body_start, "tokens": tokens.count_tokens(wire[:body_start])}
        forms[form]["body"] = {"bytes": len(wire) - body_start,
                               "tokens": tokens.count_tokens(wire[body_start:])}
    hash_lines = [f for f in layout.fields if f.name in ("source_revision", "source_digest")]
    hash_tokens = [tokens.count_tokens(wires["model-text"][f.line.start:f.line.end]) for f in hash_lines]

    value = p.value()
    pretty = json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")
    references: dict[str, Any] = {"pretty_json": measure_bytes(pretty)}
    if toon.encode is not None and toon.decode is not None:
        toon_text = toon.encode(value)
        references["toon"] = measure_bytes(toon_text.encode("utf-8"))
        references["toon"]["decodes_to_same_value"] = bool(toon.decode(toon_text) == value)

    return {
        "id": case.id,
        "label": case.label,
        "profile": case.profile,
        "root": p.root,
        "workspace": case.workspace if case.source == "examples" else case.source,
        "machine_dependent": case.machine_dependent,
        "quick": case.quick,
        "source_revision": p.source_revision,
        "source_digest": p.source_digest,
        "selected_bytes": len(p.selected),
        "model_text": {
            "dictionary_entries": len(layout.entries),
            "references": len(layout.ref_index),
            "dictionary_bytes": sum(len(e) + 1 for e in layout.entries),
            "hash_lines_tokens": {n: sum(t[n] for t in hash_tokens) for n in tokens.ENCODING_NAMES},
        },
        "wires": forms,
        "references": references,
        "shapes": shapes,
        "checks": {
            "replayed_forms": list(WIRE_FORMS),
            "selected_bytes_reproduced": True,
            "producer_command": command,
            "producer_output_equal": True,
        },
    }


def measure_shapes(case: Case, p: codec.CompactProjection, workspace: Path) -> dict[str, Any]:
    """The view in today's long shape and as the minimal listing, both checked:
    the expanded view must equal the long producer's output byte for byte, and the
    listing must parse back to the view."""
    value = p.value()
    long = codec.canonical_json(expand(case.profile, value))
    _, produced = LONG_PRODUCERS[case.profile](Workspace(workspace), case.root)
    if long != codec.canonical_json(produced):
        raise BenchmarkError(f"{case.id}: the expanded view differs from the long producer's output: "
                             + _difference(codec.canonical_json(produced), long))
    long_projection = codec.CompactProjection.from_value(p.profile, p.root, p.source_revision, json.loads(long))
    out: dict[str, Any] = {"long_json": measure_bytes(long),
                           "long_model_text": measure_bytes(codec.ENCODERS["model-text"](long_projection)),
                           "listing": None}
    if case.profile in listing.RENDER:
        text = listing.listing(case.profile, value)
        if codec.canonical_json(listing.parse(case.profile, text)) != p.selected:
            raise BenchmarkError(f"{case.id}: the listing does not parse back to the view")
        out["listing"] = measure_bytes(text.encode("utf-8"))
    return out


def environment(toon_version: str | None, toon_note: str, cases: Sequence[Case]) -> dict[str, Any]:
    """What the numbers were computed with: enough to reproduce them."""
    env: dict[str, Any] = {
        "python": python_version(),
        "tiktoken": importlib.metadata.version("tiktoken"),
        "tokenizers": [
            {"name": info.name, "tiktoken_version": info.tiktoken_version,
             "vocabulary_sha256": "sha256:" + info.vocabulary_sha256}
            for info in tokens.tokenizer_info()
        ],
        "cbor2": distribution_version("cbor2"),
        "toon_format": toon_version,
        "toon_note": toon_note,
    }
    third = [c for c in cases if c.source == "third-party"]
    if third:
        env["third_party"] = {
            "package": third[0].workspace,
            "version": distribution_version(third[0].workspace),
            "manifest": third_party_manifest(third[0].workspace),
        }
    return env


# --- summaries (computed, never hand-written) ---------------------------------------------


def _change(before: int, after: int) -> float:
    return round(100.0 * (after - before) / before, 1) if before else 0.0


def _span(values: Sequence[int]) -> list[int] | None:
    return [min(values), max(values)] if values else None


def summarize(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Where model-text wins or loses, what v1 text does, and where a reference
    rendering beats model-text: every figure taken from the measured cases."""
    names = list(tokens.ENCODING_NAMES)
    per_case = []
    for c in cases:
        w, r = c["wires"], c["references"]
        full, text, mt = w["json"]["tokens"], w["text"]["tokens"], w["model-text"]["tokens"]
        row: dict[str, Any] = {
            "id": c["id"],
            "selected_bytes": c["selected_bytes"],
            "dictionary_entries": c["model_text"]["dictionary_entries"],
            "model_text_bytes_change_percent": _change(w["json"]["bytes"], w["model-text"]["bytes"]),
            "model_text_tokens_change": {n: mt[n] - full[n] for n in names},
            "model_text_tokens_change_percent": {n: _change(full[n], mt[n]) for n in names},
            "text_bytes_change_percent": _change(w["json"]["bytes"], w["text"]["bytes"]),
            "text_tokens_change_percent": {n: _change(full[n], text[n]) for n in names},
            "text_body_tokens_change": {n: w["text"]["body"]["tokens"][n] - full[n] for n in names},
            "text_tokens_minus_model_text": {n: text[n] - mt[n] for n in names},
        }
        wins = [n for n in names if mt[n] < full[n]]
        loses = [n for n in names if mt[n] > full[n]]
        row["model_text_result"] = ("wins" if len(wins) == len(names) else
                                    "loses" if len(loses) == len(names) else "mixed")
        row["text_costs_more_tokens_than_json"] = [n for n in names if text[n] > full[n]]
        row["text_costs_fewer_tokens_than_model_text"] = [n for n in names if text[n] < mt[n]]
        refs = [ref for ref in ("pretty_json", "toon") if ref in r]
        row["references_beating_model_text"] = {
            ref: [n for n in names if r[ref]["tokens"][n] < mt[n]] for ref in refs}
        row["references_beating_json"] = {
            ref: [n for n in names if r[ref]["tokens"][n] < full[n]] for ref in refs}
        sh = c["shapes"]
        long, long_mt = sh["long_json"]["tokens"], sh["long_model_text"]["tokens"]
        row["json_tokens_change_from_long_percent"] = {n: _change(long[n], full[n]) for n in names}
        row["model_text_tokens_change_from_long_percent"] = {n: _change(long_mt[n], mt[n]) for n in names}
        row["long_model_text_tokens_change_percent"] = {n: _change(long[n], long_mt[n]) for n in names}
        if sh["listing"] is not None:
            floor = sh["listing"]["tokens"]
            row["model_text_over_listing"] = {n: round(mt[n] / floor[n], 2) for n in names}
            row["json_over_listing"] = {n: round(full[n] / floor[n], 2) for n in names}
        per_case.append(row)
    empty_dict = [c for c in cases if c["model_text"]["dictionary_entries"] == 0]
    return {
        "cases": per_case,
        "model_text_wins": [r["id"] for r in per_case if r["model_text_result"] == "wins"],
        "model_text_loses": [r["id"] for r in per_case if r["model_text_result"] == "loses"],
        "model_text_mixed": [r["id"] for r in per_case if r["model_text_result"] == "mixed"],
        "empty_dictionary_overhead": {
            "bytes": _span([c["wires"]["model-text"]["bytes"] - c["wires"]["json"]["bytes"]
                            for c in empty_dict]),
            **{n: _span([c["wires"]["model-text"]["tokens"][n] - c["wires"]["json"]["tokens"][n]
                         for c in empty_dict]) for n in names},
            "hash_lines_tokens": {n: _span([c["model_text"]["hash_lines_tokens"][n] for c in empty_dict])
                                  for n in names},
        },
        "dictionary_threshold_bytes": DICTIONARY_THRESHOLD,
    }


def run_benchmark(cases: Sequence[Case], progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure ``cases`` and return the whole report as one JSON-ready value.

    Raises :class:`BenchmarkError` on the first untrustworthy measurement."""
    say = progress or (lambda line: None)
    toon = load_toon()
    if toon.encode is None:
        say(f"note: {toon.note}")
    try:
        env = environment(toon.version, toon.note, cases)
    except tokens.VocabularyError as exc:
        raise BenchmarkError(f"cannot load the tokenizers: {exc}") from None
    results = []
    for i, case in enumerate(cases, 1):
        start = time.perf_counter()
        say(f"[{i}/{len(cases)}] {case.label}: producing, encoding, replaying, counting ...")
        result = measure_case(case, toon)
        w = result["wires"]
        say(f"[{i}/{len(cases)}] {case.label}: ok, {result['selected_bytes']:,} selected bytes, "
            f"{len(WIRE_FORMS)} wires replayed, producer command matched, model-text "
            f"{w['model-text']['bytes']:,} bytes ({time.perf_counter() - start:.1f} s)")
        results.append(result)
    return {
        "schema": SCHEMA,
        "note": LOCAL_NOTE,
        "quick": all(c.quick for c in cases),
        "environment": env,
        "cases": results,
        "summary": summarize(results),
    }


# --- the report -----------------------------------------------------------------------------


def _n(value: int) -> str:
    return f"{value:,}"


def _pct(value: float) -> str:
    return f"{value:+.1f}%"


def _arrow(before: int, after: int) -> str:
    return f"{_n(before)} → {_n(after)} ({_pct(_change(before, after))})"


def _names(ids: Sequence[str], labels: dict[str, str]) -> str:
    return "; ".join(labels[i] for i in ids) if ids else "none"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def _change_span(span: list[int] | None) -> str:
    return "n/a" if span is None else f"{span[0]:+,} to {span[1]:+,}"


def render_markdown(report: dict[str, Any]) -> str:
    """The human report, computed entirely from ``report`` (the JSON value)."""
    env, cases = report["environment"], report["cases"]
    names = [t["name"] for t in env["tokenizers"]]
    c1, c2 = names
    has_toon = all("toon" in c["references"] for c in cases)
    lines: list[str] = [
        "# Compact projection measurements",
        "",
        ("Written by `semaprax report --quick` (the quick subset only)."
         if report["quick"] else
         "Written by `semaprax report` from the same data as "
         "`measurements.json` beside it; do not edit by hand.")
        + " Every figure and sentence below is computed from the measured data.",
        "",
        (f"**{report['note']}** Token counts are those of the named tiktoken vocabularies on the "
        "complete wire, envelope and dictionary included; a model or provider may count differently."),
        "",
        "## Setup",
        "",
        (f"- Python: {env['python']} (its standard library supplies the `typing.py` and "
        "`http/server.py` cases, so those rows change with the Python version)."),
        f"- tiktoken {env['tiktoken']}, vocabularies loaded offline and verified by `views.tokens`:",
    ]
    for t in env["tokenizers"]:
        lines.append(f"  - `{t['name']}`: vocabulary `{t['vocabulary_sha256']}`")
    if "third_party" in env:
        tp = env["third_party"]
        lines.append(
            f"- Third-party package: **{tp['package']} {tp['version']}**, the installed copy's `.py` files "
            "copied into a temporary workspace next to this `semaprax.toml`:"
        )
        lines += ["", "  ```toml"] + ["  " + m for m in tp["manifest"].splitlines()] + ["  ```", ""]
    lines += [
        f"- cbor2 {env['cbor2']} (v1 binary).",
        f"- TOON reference: {env['toon_note']}.",
        ("- Counting: `tiktoken.Encoding.encode_ordinary` on the UTF-8 text of each complete wire. "
        "v1 binary is never shown to a model, so it is measured in bytes only."),
        "",
        "## Verification",
        "",
        ("Every wire form of every case (full JSON, v1 text, v1 binary and v2 model-text) was decoded "
        "again with `codec.decode_wire` and reproduced the selected bytes exactly, with the same "
        "profile, root, source_revision and source_digest. Every case's selected bytes also equal the "
        "output of the ordinary producer command, run in a separate process "
        "(`semaprax project ROOT --profile P --workspace W`, full JSON). A mismatch stops the script "
        "with exit status 1 before any report is written, so this report exists only because every "
        "check passed."),
        "",
        "## Model-text v2 against full JSON",
        "",
    ]
    rows = []
    for c in cases:
        w = c["wires"]
        rows.append([
            c["label"], _n(w["json"]["bytes"]), _n(w["model-text"]["bytes"]),
            _arrow(w["json"]["tokens"][c1], w["model-text"]["tokens"][c1]),
            _arrow(w["json"]["tokens"][c2], w["model-text"]["tokens"][c2]),
            _n(c["model_text"]["dictionary_entries"]),
        ])
    lines += _table(["Selected view", "Full bytes", "Model-text bytes", f"{c1} full → model-text",
                     f"{c2} full → model-text", "Dictionary entries"], rows)
    lines += ["", "## v1 text and v1 binary against full JSON", ""]
    rows = []
    for c in cases:
        w = c["wires"]
        rows.append([
            c["label"], _n(w["json"]["bytes"]), _n(w["text"]["bytes"]),
            _arrow(w["json"]["tokens"][c1], w["text"]["tokens"][c1]),
            _arrow(w["json"]["tokens"][c2], w["text"]["tokens"][c2]),
            _n(w["binary"]["bytes"]),
        ])
    lines += _table(["Selected view", "Full bytes", "v1 text bytes", f"{c1} full → v1 text",
                     f"{c2} full → v1 text", "v1 binary bytes"], rows)
    lines += [
        "",
        "## Where the tokens go",
        "",
        ("Each enveloped wire split into its head (header and metadata lines, and for model-text the "
        "`dict` line and dictionary entries) and its body, counted apart, as "
        f"`{c1}` / `{c2}` tokens. The parts are counted separately, so head plus body can differ by a "
        "token or two from the complete wire's count above, which is the one that counts."),
        "",
    ]
    rows = []
    for c in cases:
        w = c["wires"]

        def pair(part: dict[str, Any]) -> str:
            return f"{_n(part['tokens'][c1])} / {_n(part['tokens'][c2])}"

        rows.append([c["label"], pair(w["json"]), pair(w["text"]["head"]), pair(w["text"]["body"]),
                     pair(w["model-text"]["head"]), pair(w["model-text"]["body"]),
                     pair({"tokens": c["model_text"]["hash_lines_tokens"]})])
    lines += _table(["Selected view", "Full JSON", "v1 text head", "v1 text body", "Model-text head",
                     "Model-text body", "The two SHA-256 lines"], rows)
    lines += [
        "",
        "## Reference columns (not wire forms)",
        "",
        ("Two renderings of the same selected document, for comparison only. They are **not** wire "
        "forms: they carry no profile, root, revision or digest, and no semaprax decoder reads them. "
        "Pretty JSON is `json.dumps(value, indent=2, ensure_ascii=False)`; TOON is "
        "`toon_format.encode(value)` with its default options."),
        "",
    ]
    header = ["Selected view", f"Full JSON {c1} / {c2}", f"Model-text {c1} / {c2}", "Pretty JSON bytes",
              f"Pretty JSON {c1} / {c2}"]
    if has_toon:
        header += ["TOON bytes", f"TOON {c1} / {c2}"]
    rows = []
    for c in cases:
        full, mt = c["wires"]["json"]["tokens"], c["wires"]["model-text"]["tokens"]
        pj = c["references"]["pretty_json"]
        row = [c["label"], f"{_n(full[c1])} / {_n(full[c2])}", f"{_n(mt[c1])} / {_n(mt[c2])}",
               _n(pj["bytes"]),
               f"{_n(pj['tokens'][c1])} / {_n(pj['tokens'][c2])}"]
        if has_toon:
            tn = c["references"]["toon"]
            row += [_n(tn["bytes"]), f"{_n(tn['tokens'][c1])} / {_n(tn['tokens'][c2])}"]
        rows.append(row)
    lines += _table(header, rows)
    if not has_toon:
        lines += ["", f"No TOON column: {env['toon_note']}."]
    lines += [
        "",
        "## Today's shapes, the compact shapes and the listing floor",
        "",
        ("The views changed shape (docs/profiles.md): names relative to their module, graph edges in the "
         "definition rows, references and diagnostics grouped by file and kind. *Today's* columns are the same facts "
         "in the shapes the producers wrote before, made with `views.expand` (checked byte for "
         "byte against the long producer, `views.LONG_PRODUCERS`); *listing* is the minimal "
         "plain-text listing of the same facts (`semaprax bench listing`, checked to parse back to the view), "
         "the floor a JSON shape is measured against. It is not a wire form. Task-context has one shape "
         f"and no listing. Tokens are `{c1}` / `{c2}`."),
        "",
    ]
    rows = []
    summary_rows = {r["id"]: r for r in report["summary"]["cases"]}
    for c in cases:
        sh, w, r = c["shapes"], c["wires"], summary_rows[c["id"]]

        def both(t: dict[str, int]) -> str:
            return f"{_n(t[c1])} / {_n(t[c2])}"

        floor = "n/a" if sh["listing"] is None else both(sh["listing"]["tokens"])
        ratio = ("n/a" if sh["listing"] is None else
                 f"{r['model_text_over_listing'][c1]:.2f}x / {r['model_text_over_listing'][c2]:.2f}x")
        rows.append([c["label"], both(sh["long_json"]["tokens"]), both(w["json"]["tokens"]),
                     (f"{_pct(r['json_tokens_change_from_long_percent'][c1])} / "
                     f"{_pct(r['json_tokens_change_from_long_percent'][c2])}"),
                     both(sh["long_model_text"]["tokens"]), both(w["model-text"]["tokens"]), floor, ratio])
    lines += _table(["Selected view", "Today's full JSON", "Full JSON", "Full JSON change",
                     "Today's model-text", "Model-text", "Listing (floor)", "Model-text / listing"], rows)
    lines += ["", "## What the numbers say", ""]
    lines += findings(report)
    lines += ["", "## Wire hashes", "",
              "SHA-256 of every complete wire and reference rendering, in bytes.", ""]
    rows = []
    forms = list(WIRE_FORMS)
    for c in cases:
        for form in forms:
            w = c["wires"][form]
            rows.append([c["id"], form, _n(w["bytes"]), f"`{w['sha256']}`"])
        for ref, r in sorted(c["references"].items()):
            rows.append([c["id"], f"{ref} (reference)", _n(r["bytes"]), f"`{r['sha256']}`"])
        for shape, r in sorted(c["shapes"].items()):
            if r is not None:
                rows.append([c["id"], f"{shape} (today's shape)" if shape.startswith("long") else
                             f"{shape} (floor)", _n(r["bytes"]), f"`{r['sha256']}`"])
    lines += _table(["Case", "Form", "Bytes", "SHA-256"], rows)
    return "\n".join(lines) + "\n"


def shape_findings(report: dict[str, Any]) -> list[str]:
    """What the shape change did, per case: full JSON against today's shapes, and
    model-text's saving before and after (it shrinks: its dictionary was mostly
    compressing the module prefixes that the compact shapes no longer repeat)."""
    labels = {c["id"]: c["label"] for c in report["cases"]}
    c1 = report["environment"]["tokenizers"][0]["name"]
    changed = [r for r in report["summary"]["cases"] if r["json_tokens_change_from_long_percent"][c1] != 0]
    if not changed:
        return ["- The compact shapes change no case of this run."]
    out = ["- **The compact shapes cost fewer tokens than today's shapes** in full JSON: " + "; ".join(
        f"{labels[r['id']]} ({_pct(r['json_tokens_change_from_long_percent'][c1])} {c1})" for r in changed)
        + ". Task-context views keep their one shape."]
    with_dict = [r for r in changed if r["dictionary_entries"] > 0]
    if with_dict:
        out.append(
            "- **Model-text's own saving against full JSON shrinks** with the compact shapes, because its "
            "dictionary was mostly compressing the module prefixes they no longer repeat: " + "; ".join(
                f"{labels[r['id']]}: {_pct(r['long_model_text_tokens_change_percent'][c1])} against today's "
                f"JSON, {_pct(r['model_text_tokens_change_percent'][c1])} against the compact JSON" for r in with_dict)
            + f" ({c1}). What a reader pays still falls: model-text of the compact view against today's "
            "model-text: " + "; ".join(
                f"{labels[r['id']]} {_pct(r['model_text_tokens_change_from_long_percent'][c1])}" for r in with_dict)
            + ".")
    floors = [r for r in report["summary"]["cases"] if "model_text_over_listing" in r]
    if floors:
        out.append("- Against the minimal listing (the floor), model-text costs " + "; ".join(
            f"{r['model_text_over_listing'][c1]:.2f}x on {labels[r['id']]}" for r in floors)
            + f" ({c1}); full JSON " + "; ".join(
            f"{r['json_over_listing'][c1]:.2f}x" for r in floors) + " in the same order.")
    return out


def findings(report: dict[str, Any]) -> list[str]:
    """Plain sentences drawn from the data: wins, losses, v1 text, references."""
    cases, summary = report["cases"], report["summary"]
    by_id = {c["id"]: c for c in cases}
    labels = {c["id"]: c["label"] for c in cases}
    names = [t["name"] for t in report["environment"]["tokenizers"]]
    rows = {r["id"]: r for r in summary["cases"]}
    total = len(cases)
    out: list[str] = shape_findings(report)

    def pcts(row: dict[str, Any], key: str) -> str:
        return ", ".join(f"{_pct(row[key][n])} {n}" for n in names)

    def arrows(i: str, before: str, after: str) -> str:
        w = by_id[i]["wires"]
        return ", ".join(f"{_arrow(w[before]['tokens'][n], w[after]['tokens'][n])} {n}" for n in names)

    def span(pair: list[int] | None) -> str:
        if pair is None:
            return "n/a"
        return _n(pair[0]) if pair[0] == pair[1] else f"{_n(pair[0])}–{_n(pair[1])}"

    wins = summary["model_text_wins"]
    if wins:
        out.append(f"- **Model-text costs fewer tokens than full JSON** on {len(wins)} of {total} cases: "
                   + "; ".join(f"{labels[i]} ({pcts(rows[i], 'model_text_tokens_change_percent')})"
                               for i in wins) + ".")
    else:
        out.append("- **Model-text costs fewer tokens than full JSON on no case** of this run.")
    no_dict_wins = [i for i in wins if by_id[i]["model_text"]["dictionary_entries"] == 0]
    if no_dict_wins:
        out.append("  Unexpectedly, some of these have no dictionary: " + _names(no_dict_wins, labels) + ".")
    loses = summary["model_text_loses"]
    if loses:
        out.append(f"- **Model-text costs more tokens than full JSON** on {len(loses)} of {total} cases: "
                   + "; ".join(f"{labels[i]} ({arrows(i, 'json', 'model-text')})" for i in loses) + ".")
        small = [i for i in loses if by_id[i]["model_text"]["dictionary_entries"] == 0]
        big = [i for i in loses if by_id[i]["model_text"]["dictionary_entries"] > 0]
        ov = summary["empty_dictionary_overhead"]
        if small:
            out.append(
                f"  {'All' if len(small) == len(loses) else len(small)} of these are under "
                f"{_n(summary['dictionary_threshold_bytes'])} selected bytes, where the dictionary is "
                "empty by rule and the model-text wire is the full JSON plus the envelope. The envelope's "
                f"measured fixed cost on such views is {span(ov['bytes'])} bytes, "
                + ", ".join(f"{span(ov[n])} {n} tokens" for n in names)
                + "; of it, the two SHA-256 lines (`source_revision`, `source_digest`) alone cost "
                + ", ".join(f"{span(ov['hash_lines_tokens'][n])} {n} tokens" for n in names)
                + ". **Use full JSON for these small views when token cost is the priority**; model-text "
                "then adds only the metadata and digest that full JSON leaves out.")
        if big:
            out.append("  Model-text also loses on views large enough to have a dictionary: "
                       + _names(big, labels) + "; there the dictionary does not pay for itself.")
    mixed = summary["model_text_mixed"]
    if mixed:
        out.append("- Model-text wins in one vocabulary and loses or ties in the other on: " + "; ".join(
            f"{labels[i]} ({pcts(rows[i], 'model_text_tokens_change_percent')})" for i in mixed) + ".")
    bytes_not_tokens = [i for i in loses
                        if by_id[i]["wires"]["model-text"]["bytes"] < by_id[i]["wires"]["json"]["bytes"]]
    if bytes_not_tokens:
        out.append("- Model-text is smaller in bytes but costs more tokens on: "
                   + _names(bytes_not_tokens, labels) + ".")

    text_worse = [r for r in summary["cases"] if r["text_costs_more_tokens_than_json"]]
    if text_worse:
        out.append(
            f"- **v1 text costs more tokens than full JSON** on {len(text_worse)} of {total} cases: "
            + "; ".join(f"{labels[r['id']]} ({arrows(r['id'], 'json', 'text')}; bytes "
                        f"{_pct(r['text_bytes_change_percent'])})" for r in text_worse) + ".")
        body = {n: _span([r["text_body_tokens_change"][n] for r in text_worse]) for n in names}
        head = {n: _span([by_id[r["id"]]["wires"]["text"]["head"]["tokens"][n] for r in text_worse])
                for n in names}
        out.append(
            "  On these views v1 text's envelope costs "
            + ", ".join(f"{span(head[n])} {n} tokens" for n in names)
            + ", while its body's `~k` back-references change the count by "
            + ", ".join(f"{_change_span(body[n])} {n} tokens" for n in names)
            + " against full JSON: fewer bytes do not mean fewer tokens.")
    else:
        out.append("- v1 text costs no more tokens than full JSON on any case of this run.")
    text_better = [r for r in summary["cases"] if not r["text_costs_more_tokens_than_json"]]
    if text_better:
        out.append(f"- v1 text costs fewer tokens than full JSON on {len(text_better)} of {total} cases: "
                   + "; ".join(f"{labels[r['id']]} ({pcts(r, 'text_tokens_change_percent')})"
                               for r in text_better) + ".")
    text_beats_mt = [r for r in summary["cases"]
                     if len(r["text_costs_fewer_tokens_than_model_text"]) == len(names)]
    if text_beats_mt:
        with_dict = [r for r in text_beats_mt if r["dictionary_entries"] > 0]
        out.append(
            f"- **v1 text costs fewer tokens than model-text on {len(text_beats_mt)} of {total} cases** ("
            + "; ".join(f"{labels[r['id']]}: " + ", ".join(
                f"{r['text_tokens_minus_model_text'][n]:+,} {n}" for n in names) for r in text_beats_mt)
            + ").")
        if with_dict:
            out.append(
                "  On the views with a dictionary, the model-text head (envelope and dictionary) costs far "
                "more than v1 text's head, and its body saves less than that: "
                + "; ".join(f"{labels[r['id']]}: head " + ", ".join(
                    f"{_n(by_id[r['id']]['wires']['model-text']['head']['tokens'][n])} vs "
                    f"{_n(by_id[r['id']]['wires']['text']['head']['tokens'][n])} {n}" for n in names)
                    + "; body " + ", ".join(
                    f"{_n(by_id[r['id']]['wires']['model-text']['body']['tokens'][n])} vs "
                    f"{_n(by_id[r['id']]['wires']['text']['body']['tokens'][n])} {n}" for n in names)
                    for r in with_dict)
                + " (model-text vs v1 text). v1 text writes each string's first occurrence inline and "
                "refers back to every later one that `~k` shortens, short ones included; model-text "
                "spells each entry once more in its dictionary and only takes strings of 16 bytes or more "
                "(docs/wire-format.md 5.1 and 6).")

    for ref, title, name in (("pretty_json", "Pretty-printed JSON", "pretty-printed JSON"),
                             ("toon", "TOON", "TOON")):
        if not all(ref in c["references"] for c in cases):
            continue
        beat = [r for r in summary["cases"] if r["references_beating_model_text"].get(ref)]
        if beat:
            out.append(
                f"- **{title} (a reference, not a wire form) costs fewer tokens than model-text** on "
                f"{len(beat)} of {total} cases: " + "; ".join(
                    f"{labels[r['id']]} ("
                    + ", ".join(f"{_n(by_id[r['id']]['references'][ref]['tokens'][n])} vs "
                                f"{_n(by_id[r['id']]['wires']['model-text']['tokens'][n])} {n}"
                                for n in r["references_beating_model_text"][ref])
                    + ")" for r in beat) + ".")
            json_cheaper = [r["id"] for r in beat
                            if all(by_id[r["id"]]["wires"]["json"]["tokens"][n]
                                   <= by_id[r["id"]]["references"][ref]["tokens"][n] for n in names)]
            if len(json_cheaper) == len(beat):
                out.append(f"  On each of these, compact full JSON costs no more tokens than {name} in "
                           "either vocabulary: what model-text loses there is its envelope.")
            elif json_cheaper:
                out.append(f"  Compact full JSON costs no more tokens than {name} on: "
                           + _names(json_cheaper, labels) + ".")
        else:
            out.append(f"- {title} (a reference, not a wire form) costs more tokens than model-text on "
                       "every case, in both vocabularies.")
        json_beat = [r["id"] for r in summary["cases"] if r["references_beating_json"].get(ref)]
        if json_beat:
            out.append(f"  {title} costs fewer tokens than compact full JSON on: " + "; ".join(
                f"{labels[i]} (" + ", ".join(
                    f"{_n(by_id[i]['references'][ref]['tokens'][n])} vs "
                    f"{_n(by_id[i]['wires']['json']['tokens'][n])} {n}"
                    for n in rows[i]["references_beating_json"][ref]) + ")" for i in json_beat) + ".")
        else:
            out.append(f"  {title} costs more tokens than compact full JSON on every case.")
    if all("toon" in c["references"] for c in cases):
        lossy = [c["id"] for c in cases if not c["references"]["toon"]["decodes_to_same_value"]]
        if lossy:
            out.append("- TOON did not decode back to the same value on: " + _names(lossy, labels) + ".")
        else:
            out.append("- Every TOON rendering decoded back (with `toon_format.decode`) to the same value.")
    out.append(
        "- The reference renderings carry no metadata or digest; a comparison with them leaves out what "
        "the wire forms add: the envelope that names the view and lets a decoder check it."
    )
    return out


def write_report(report: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    """Write ``measurements.json`` (sorted keys, trailing LF) and ``measurements.md``."""
    folder.mkdir(parents=True, exist_ok=True)
    json_path, md_path = folder / "measurements.json", folder / "measurements.md"
    json_path.write_text(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                         encoding="utf-8")
    md_path.write_text(render_markdown(report), encoding="utf-8")
    return json_path, md_path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Measure full JSON, v1 text, v1 binary and v2 model-text wires of example, "
        "standard-library and third-party views in bytes and cl100k_base/o200k_base tokens, "
        "replaying every wire and checking every view against the producer command. Writes "
        "measurements.md and measurements.json. Exit status 1 on any mismatch.",
        epilog="Results are local measurements: no universal savings, no exact token budgets, "
        "no billing authority.",
    )
    parser.add_argument("--quick", action="store_true",
                        help="run only the small machine-independent cases (the two example project "
                        "graphs and the banking-ledger graph); files are written only with an explicit "
                        "--output-dir, so a quick run never replaces the committed full report")
    parser.add_argument("--output-dir", type=Path, default=None, metavar="DIR",
                        help="where to write measurements.md and measurements.json (default: docs/ of this "
                        "repository)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    output_dir: Path | None = args.output_dir
    if output_dir is None and not args.quick:
        output_dir = ROOT / "docs"

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    start = time.perf_counter()
    try:
        report = run_benchmark(select_cases(args.quick), progress)
    except BenchmarkError as exc:
        print(f"benchmark_compact_projection: FAILED: {exc}", file=sys.stderr)
        print("benchmark_compact_projection: no report was written", file=sys.stderr)
        return 1
    if output_dir is None:
        sys.stdout.write(render_markdown(report))
    else:
        json_path, md_path = write_report(report, output_dir)
        progress(f"wrote {json_path} and {md_path}")
    progress(f"done: {len(report['cases'])} cases in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
