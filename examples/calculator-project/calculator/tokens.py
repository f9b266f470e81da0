"""Tokenizer: turns expression text into a list of tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class CalculatorError(Exception):
    """Base class for every error the calculator reports to the user."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


class TokenizeError(CalculatorError):
    """Raised for characters that cannot start a token."""


class TokenKind(Enum):
    NUMBER = "number"
    NAME = "name"
    OPERATOR = "operator"
    LPAREN = "("
    RPAREN = ")"
    COMMA = ","
    EQUALS = "="
    END = "end"


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str
    position: int

    def is_operator(self, *symbols: str) -> bool:
        return self.kind is TokenKind.OPERATOR and self.text in symbols


_TOKEN_RE = re.compile(r"""
    (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<operator>\*\*|[-+*/%^])
  | (?P<punct>[(),=])
  | (?P<space>\s+)
""", re.VERBOSE)

_PUNCTUATION = {"(": TokenKind.LPAREN, ")": TokenKind.RPAREN,
                ",": TokenKind.COMMA, "=": TokenKind.EQUALS}


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, ending with a single END token."""
    tokens: list[Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN_RE.match(text, position)
        if match is None:
            raise TokenizeError(f"unexpected character {text[position]!r}", position)
        group, lexeme = match.lastgroup, match.group()
        if group == "punct":
            tokens.append(Token(_PUNCTUATION[lexeme], lexeme, position))
        elif group != "space":  # number, name and operator share their kind's value
            normalized = "^" if lexeme == "**" else lexeme
            tokens.append(Token(TokenKind(group), normalized, position))
        position = match.end()
    tokens.append(Token(TokenKind.END, "", len(text)))
    return tokens
