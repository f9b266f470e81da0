"""Evaluates syntax trees with variables and built-in functions."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import calculator.nodes as n
from .parser import parse
from .tokens import CalculatorError


class EvaluationError(CalculatorError):
    """Raised for runtime problems: unknown names, bad arguments, division by zero."""


BUILTINS: dict[str, Callable[..., float]] = {
    "sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan,
    "log": math.log, "exp": math.exp, "abs": abs, "round": round,
    "min": min, "max": max, "hypot": math.hypot,
}
CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
OPERATORS: dict[str, Callable[[float, float], float]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "%": operator.mod, "^": math.pow,
}


class Evaluator:
    """Holds the variable environment; ``ans`` is the most recent result."""

    def __init__(self) -> None:
        self.variables: dict[str, float] = dict(CONSTANTS)
        self.functions: dict[str, Callable[..., float]] = dict(BUILTINS)

    def run(self, source: str) -> float:
        """Parse and evaluate ``source``, remembering the result as ``ans``."""
        result = self.evaluate(parse(source))
        self.variables["ans"] = result
        return result

    def evaluate(self, node: n.Node) -> float:
        """Dispatch to ``eval_<node class>``."""
        method = getattr(self, f"eval_{type(node).__name__.lower()}", None)
        if method is None:
            raise EvaluationError(f"cannot evaluate {type(node).__name__}", node.position)
        return method(node)

    def eval_number(self, node: n.Number) -> float:
        return node.value

    def eval_name(self, node: n.Name) -> float:
        try:
            return self.variables[node.identifier]
        except KeyError:
            raise EvaluationError(f"unknown variable {node.identifier!r}",
                                  node.position) from None

    def eval_unaryop(self, node: n.UnaryOp) -> float:
        value = self.evaluate(node.operand)
        return -value if node.operator == "-" else value

    def eval_binaryop(self, node: n.BinaryOp) -> float:
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        try:
            return OPERATORS[node.operator](left, right)
        except ZeroDivisionError:
            raise EvaluationError("division by zero", node.position) from None
        except (ValueError, OverflowError) as exc:
            raise EvaluationError(f"{node.operator!r}: {exc}", node.position) from None

    def eval_call(self, node: n.Call) -> float:
        function = self.functions.get(node.function)
        if function is None:
            raise EvaluationError(f"unknown function {node.function!r}", node.position)
        arguments = [self.evaluate(argument) for argument in node.arguments]
        try:
            return float(function(*arguments))
        except (TypeError, ValueError) as exc:
            raise EvaluationError(f"{node.function}: {exc}", node.position) from None

    def eval_assign(self, node: n.Assign) -> float:
        if node.target in CONSTANTS:
            raise EvaluationError(f"cannot assign to constant {node.target!r}", node.position)
        value = self.evaluate(node.value)
        self.variables[node.target] = value
        return value


def evaluate(source: str, variables: dict[str, float] | None = None) -> float:
    """Evaluate one statement in a fresh environment."""
    evaluator = Evaluator()
    evaluator.variables.update(variables or {})
    return evaluator.run(source)
