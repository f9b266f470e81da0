"""The synthetic oracle's table (semaprax/bench/oracle.py): well-formed cases,
each naming a definition its modules hold (the comparison itself needs jedi:
`semaprax bench oracle`)."""

from __future__ import annotations

from semaprax.bench.oracle import CASES, _files, _marked


def test_the_table_has_the_cases_the_docs_count_each_once() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) >= 120


def test_each_case_defines_its_target_in_a_module_of_its_package() -> None:
    for case in CASES:
        files = _files(case)
        assert all(path.startswith("pkg/") for path in files), case.name
        # every folder is a package
        for path in files:
            folder = path.rpartition("/")[0]
            assert f"{folder}/__init__.py" in files, (case.name, path)
        parts = case.target.split(".")
        modules = [k for k in range(1, len(parts)) if f"pkg/{'/'.join(parts[:k])}.py" in files]
        assert modules, case.name  # the target is inside one of the case's modules
        text = files[f"pkg/{'/'.join(parts[:modules[-1]])}.py"]
        assert f"def {parts[-1]}(" in text or f"class {parts[-1]}" in text, case.name


def test_marks_are_read_from_line_ends() -> None:
    files = {"pkg/a.py": "x = 1\ny = 2  # over\nz = 3  # under\n"}
    assert _marked(files, "over") == {("pkg/a.py", 2)}
    assert _marked(files, "under") == {("pkg/a.py", 3)}
