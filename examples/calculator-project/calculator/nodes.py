"""Syntax tree node classes produced by the parser."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Node:
    """Base class of every syntax tree node."""

    position: int


@dataclass(frozen=True)
class Number(Node):
    value: float


@dataclass(frozen=True)
class Name(Node):
    identifier: str


@dataclass(frozen=True)
class UnaryOp(Node):
    operator: str
    operand: Node


@dataclass(frozen=True)
class BinaryOp(Node):
    operator: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Call(Node):
    function: str
    arguments: tuple[Node, ...]


@dataclass(frozen=True)
class Assign(Node):
    target: str
    value: Node


PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2, "^": 4}


def to_source(node: Node) -> str:
    """Render ``node`` back to text, adding only the parentheses it needs."""
    match node:
        case Number(value=value):
            return str(int(value)) if value.is_integer() else repr(value)
        case Name(identifier=identifier):
            return identifier
        case UnaryOp(operator=operator, operand=operand):
            inner = to_source(operand)
            return f"{operator}({inner})" if isinstance(operand, BinaryOp) else operator + inner
        case BinaryOp(operator=operator, left=left, right=right):
            return f"{_wrap(left, operator, False)} {operator} {_wrap(right, operator, True)}"
        case Call(function=function, arguments=arguments):
            return f"{function}({', '.join(to_source(a) for a in arguments)})"
        case Assign(target=target, value=value):
            return f"{target} = {to_source(value)}"
    raise TypeError(f"unknown node {node!r}")


def _wrap(child: Node, parent_operator: str, is_right: bool) -> str:
    text = to_source(child)
    if not isinstance(child, BinaryOp):
        return text
    mine, theirs = PRECEDENCE[child.operator], PRECEDENCE[parent_operator]
    right_assoc = parent_operator == "^"
    needs = mine < theirs or (mine == theirs and is_right != right_assoc)
    return f"({text})" if needs else text

