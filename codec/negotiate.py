"""Version/encoding/profile negotiation for the compact-projection route
(README, "Servers for agents and editors"; compact.negotiation is in
docs/wire-format.md §10).

Offers match only as exact triples, so a client that asks for v2 text or v1
model-text gets nothing rather than a form it did not ask for. A format_version
is a JSON integer, never a boolean, a float or a string: Python equates ``1``,
``1.0`` and ``True``, so the types are checked before any comparison, and the
offers are examined as a list, never a set, so their order cannot change the
answer."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import errors as E
from .errors import CompactError
from .names import PROFILES
from .wire import FORMAT_VERSIONS

#: The one version of each encoding.
VERSIONS: dict[str, int] = FORMAT_VERSIONS
#: What negotiation may choose, most preferred first; full JSON is never chosen.
PREFERENCE: tuple[str, ...] = ("binary", "text", "model-text")
#: The members of an offer.
OFFER_KEYS: tuple[str, ...] = ("format_version", "encoding", "profile")


def is_integer(value: Any) -> bool:
    """A JSON integer as Python decodes it: an int that is not a bool."""
    return type(value) is int


def _type_name(value: Any) -> str:
    return {bool: "a boolean", float: "a number with a fraction or exponent", str: "a string",
            type(None): "null", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def check_offer(offer: Any, index: int) -> tuple[int, str, str]:
    """One offer as an exact ``(format_version, encoding, profile)`` triple, or
    compact.negotiation naming the offer and what is wrong with it."""
    where = f"offer {index} in accept"
    if not isinstance(offer, Mapping):
        raise CompactError(E.NEGOTIATION, f"{where} must be an object with {', '.join(OFFER_KEYS)}, not "
                                          f"{_type_name(offer)}")
    missing = [k for k in OFFER_KEYS if k not in offer]
    if missing:
        raise CompactError(E.NEGOTIATION, f"{where} lacks {', '.join(missing)}")
    version, encoding, profile = (offer[k] for k in OFFER_KEYS)
    if not is_integer(version):
        raise CompactError(E.NEGOTIATION, f"{where}: format_version must be an integer, not "
                                          f"{_type_name(version)} ({version!r})")
    for name, value in (("encoding", encoding), ("profile", profile)):
        if not isinstance(value, str):
            raise CompactError(E.NEGOTIATION, f"{where}: {name} must be a string, not {_type_name(value)}")
    return version, encoding, profile


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
        raise CompactError(E.NEGOTIATION, f"encoding must be a string, not {_type_name(encoding)}")
    if format_version is not None and not is_integer(format_version):
        raise CompactError(E.NEGOTIATION, f"format_version must be an integer, not {_type_name(format_version)} "
                                          f"({format_version!r})")
    if accept is not None and not isinstance(accept, (list, tuple)):
        raise CompactError(E.NEGOTIATION, f"accept must be a list of offers, not {_type_name(accept)}")
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
    # Every offer is checked (in list order, so the first malformed one is named);
    # the choice itself depends only on which triples were offered.
    offered = [check_offer(offer, n) for n, offer in enumerate(accept)]
    for choice in PREFERENCE:
        if (VERSIONS[choice], choice, profile) in offered:
            return VERSIONS[choice], choice
    raise CompactError(
        E.NEGOTIATION,
        f"no common version/encoding for profile {profile!r}; supported: "
        + ", ".join(f"({VERSIONS[c]}, {c})" for c in PREFERENCE),
    )
