"""Version/encoding/profile negotiation for the compact-projection route (spec 10).

Offers match only as exact triples, so a client that asks for v2 text or v1
model-text gets nothing rather than a form it did not ask for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import errors as E
from .errors import CompactError
from .projection import PROFILES
from .wire import FORMAT_VERSIONS

#: The one version of each encoding.
VERSIONS: dict[str, int] = FORMAT_VERSIONS
#: What negotiation may choose, most preferred first; full JSON is never chosen.
PREFERENCE: tuple[str, ...] = ("binary", "text", "model-text")


def negotiate(
    profile: str,
    *,
    encoding: str | None = None,
    format_version: int | None = None,
    accept: Iterable[Mapping[str, Any]] | None = None,
) -> tuple[int, str]:
    """Return ``(format_version, encoding)`` for a request, or raise
    compact.negotiation saying why there is no common choice."""
    if encoding is not None and not isinstance(encoding, str):
        raise CompactError(E.NEGOTIATION, f"encoding must be a string, not {type(encoding).__name__}")
    if format_version is not None and (type(format_version) is not int):
        raise CompactError(E.NEGOTIATION, f"format_version must be an integer, not {format_version!r}")
    if accept is not None and not isinstance(accept, (list, tuple)):
        raise CompactError(E.NEGOTIATION, "accept must be a list of offers")
    if encoding is not None and accept is not None:
        raise CompactError(E.NEGOTIATION, "give either an encoding or a list of offers in accept, not both")
    if not isinstance(profile, str) or profile not in PROFILES:
        raise CompactError(E.NEGOTIATION, f"unknown profile {profile!r}; expected one of {', '.join(PROFILES)}")
    if encoding is not None:
        if encoding not in VERSIONS:
            raise CompactError(
                E.NEGOTIATION, f"unknown encoding {encoding!r}; expected one of {', '.join(VERSIONS)}"
            )
        version = VERSIONS[encoding]
        if format_version is not None and format_version != version:
            raise CompactError(
                E.NEGOTIATION, f"encoding {encoding!r} exists only as format_version {version}, not {format_version}"
            )
        return version, encoding
    if format_version is not None:
        raise CompactError(E.NEGOTIATION, "format_version needs an encoding")
    if accept is None:
        raise CompactError(E.NEGOTIATION, "name an encoding or list offers in accept")
    offered = set()
    for offer in accept:
        try:
            triple = (offer["format_version"], offer["encoding"], offer["profile"])
            hash(triple)
            offered.add(triple)
        except (KeyError, TypeError):
            raise CompactError(
                E.NEGOTIATION, f"each offer needs format_version, encoding and profile: {offer!r}"
            ) from None
    for choice in PREFERENCE:
        triple = (VERSIONS[choice], choice, profile)
        if any(o == triple and type(o[0]) is int for o in offered):
            return VERSIONS[choice], choice
    raise CompactError(
        E.NEGOTIATION,
        f"no common version/encoding for profile {profile!r}; supported: "
        + ", ".join(f"({VERSIONS[c]}, {c})" for c in PREFERENCE),
    )
