"""Untrusted text made visible: the one rule the CLI and the inspector share.

Metadata values, dictionary literals and bodies are opaque UTF-8 from whoever
wrote the wire. Printed or drawn as they are, a control character can move the
cursor or forge a line, a bidi control (U+202A-U+202E, U+2066-U+2069) can make
``evil\u202egnp.py`` read as ``evil…yp.png``, and a zero-width character hides
a difference between two values that look alike. So every character that is not
printable in Python's sense (categories Cc, Cf, Cs, Co, Cn, Zl, Zp and the
spaces other than U+0020: every C0 and C1 control, DEL, the bidi controls,
U+200B-U+200F, U+2060, U+FEFF) is shown as its escape (``\\x1b``, ``\\u202e``),
and bytes that are not UTF-8 as ``\\xNN``.
"""

from __future__ import annotations

__all__ = ["visible", "visible_bytes"]


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape").decode("ascii")


def visible(text: str, *, newline: str | None = None) -> str:
    """``text`` with every non-printable character escaped; with ``newline``,
    LF is drawn as that string instead (the inspector's ``⏎``)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ch == "\n" and newline is not None:
            out.append(newline)
        else:
            out.append(_escape(ch))
    return "".join(out)


def visible_bytes(data: bytes, *, newline: str | None = None) -> str:
    """Bytes as visible text: UTF-8 decoded, each byte that is not part of valid
    UTF-8 shown as ``\\xNN``, then :func:`visible`."""
    return visible(data.decode("utf-8", errors="backslashreplace"), newline=newline)
