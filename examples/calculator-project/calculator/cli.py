"""Command-line front end: evaluate arguments, or read statements line by line.

Besides statements it understands ``:vars`` (list variables), ``:ast EXPR``
(show how EXPR parses) and ``:quit``. Example: ``python -m calculator.cli "x = 2" "x^10"``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

from . import nodes
from .evaluator import Evaluator
from .parser import parse
from .tokens import CalculatorError


def format_number(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.12g}"


def describe_error(error: CalculatorError, line: str) -> str:
    if error.position is None:
        return f"error: {error}"
    return f"error: {error}\n  {line}\n  {' ' * error.position}^"


def handle_line(evaluator: Evaluator, line: str) -> str | None:
    """Process one input line and return the text to print (None to quit)."""
    line = line.strip()
    if line in (":quit", ":q"):
        return None
    if line in ("", "#") or line.startswith("#"):
        return ""
    if line == ":vars":
        return "\n".join(f"{name} = {format_number(value)}"
                         for name, value in sorted(evaluator.variables.items()))
    try:
        if line.startswith(":ast "):
            tree = parse(line[5:])
            return f"{nodes.to_source(tree)}    ({type(tree).__name__})"
        return format_number(evaluator.run(line))
    except CalculatorError as error:
        return describe_error(error, line.removeprefix(":ast "))


def repl(lines: Iterable[str], out: TextIO, prompt: str = "") -> int:
    """Evaluate each line; return the number of lines that failed."""
    evaluator = Evaluator()
    failures = 0
    out.write(prompt)
    out.flush()
    for line in lines:
        reply = handle_line(evaluator, line)
        if reply is None:
            break
        failures += reply.startswith("error:")
        out.write(f"{reply}\n{prompt}" if reply else prompt)
        out.flush()
    return failures


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args:
        failures = repl(args, sys.stdout)
    else:
        failures = repl(sys.stdin, sys.stdout, "calc> " if sys.stdin.isatty() else "")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
