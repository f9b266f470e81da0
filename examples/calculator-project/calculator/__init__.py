"""A small calculator: tokenizer, recursive-descent parser and evaluator."""

from . import nodes
from .evaluator import EvaluationError, Evaluator, evaluate
from .parser import ParseError, Parser, parse
from .tokens import CalculatorError, Token, TokenizeError, TokenKind, tokenize

__all__ = [
    "CalculatorError", "EvaluationError", "Evaluator", "ParseError", "Parser", "Token",
    "TokenKind", "TokenizeError", "evaluate", "nodes", "parse", "tokenize",
]
