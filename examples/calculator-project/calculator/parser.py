"""Recursive-descent parser producing ``nodes`` trees.

Grammar (lowest precedence first)::

    statement := NAME "=" expression | expression
    expression := term (("+" | "-") term)*
    term       := unary (("*" | "/" | "%") unary)*
    unary      := ("-" | "+") unary | power
    power      := primary ("^" unary)?
    primary    := NUMBER | NAME | NAME "(" arguments? ")" | "(" expression ")"
"""

from __future__ import annotations

from . import nodes
from .tokens import CalculatorError, Token, TokenKind, tokenize


class ParseError(CalculatorError):
    """Raised when the token stream does not match the grammar."""


class Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.index = 0

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.current
        if token.kind is not TokenKind.END:
            self.index += 1
        return token

    def expect(self, kind: TokenKind) -> Token:
        token = self.current
        if token.kind is not kind:
            found = token.text or "end of input"
            raise ParseError(f"expected {kind.value}, found {found!r}", token.position)
        return self.advance()

    def parse_statement(self) -> nodes.Node:
        """Parse one complete statement; trailing tokens are an error."""
        first, following = self.current, self.tokens[min(self.index + 1, len(self.tokens) - 1)]
        if first.kind is TokenKind.NAME and following.kind is TokenKind.EQUALS:
            self.advance()
            self.advance()
            tree: nodes.Node = nodes.Assign(first.position, first.text, self.parse_expression())
        else:
            tree = self.parse_expression()
        self.expect(TokenKind.END)
        return tree

    def parse_expression(self) -> nodes.Node:
        left = self.parse_term()
        while self.current.is_operator("+", "-"):
            operator = self.advance()
            left = nodes.BinaryOp(operator.position, operator.text, left, self.parse_term())
        return left

    def parse_term(self) -> nodes.Node:
        left = self.parse_unary()
        while self.current.is_operator("*", "/", "%"):
            operator = self.advance()
            left = nodes.BinaryOp(operator.position, operator.text, left, self.parse_unary())
        return left

    def parse_unary(self) -> nodes.Node:
        if self.current.is_operator("-", "+"):
            operator = self.advance()
            return nodes.UnaryOp(operator.position, operator.text, self.parse_unary())
        return self.parse_power()

    def parse_power(self) -> nodes.Node:
        base = self.parse_primary()
        if self.current.is_operator("^"):
            operator = self.advance()
            return nodes.BinaryOp(operator.position, "^", base, self.parse_unary())
        return base

    def parse_primary(self) -> nodes.Node:
        token = self.current
        if token.kind is TokenKind.NUMBER:
            self.advance()
            return nodes.Number(token.position, float(token.text))
        if token.kind is TokenKind.NAME:
            self.advance()
            if self.current.kind is TokenKind.LPAREN:
                return nodes.Call(token.position, token.text, self.parse_arguments())
            return nodes.Name(token.position, token.text)
        if token.kind is TokenKind.LPAREN:
            self.advance()
            inner = self.parse_expression()
            self.expect(TokenKind.RPAREN)
            return inner
        raise ParseError(f"unexpected {token.text or 'end of input'!r}", token.position)

    def parse_arguments(self) -> tuple[nodes.Node, ...]:
        self.expect(TokenKind.LPAREN)
        arguments: list[nodes.Node] = []
        if self.current.kind is not TokenKind.RPAREN:
            arguments.append(self.parse_expression())
            while self.current.kind is TokenKind.COMMA:
                self.advance()
                arguments.append(self.parse_expression())
        self.expect(TokenKind.RPAREN)
        return tuple(arguments)


def parse(text: str) -> nodes.Node:
    """Parse one statement of calculator source text."""
    return Parser(tokenize(text)).parse_statement()
