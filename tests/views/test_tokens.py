"""views.tokens: real cl100k_base / o200k_base counts with no network, verified
vocabularies, loud failures, one load per process."""

from __future__ import annotations

import ast
import dataclasses
import gzip
import hashlib
import inspect
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

import pytest
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public

from views import tokens
from views.tokens import ENCODING_NAMES, TokenizerInfo, VocabularyError, count_tokens

# The hashes tiktoken 0.14 expects (tiktoken_ext/openai_public.py). Pinned here as well
# so that a tiktoken upgrade that changes a vocabulary is noticed, not absorbed.
PINNED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def tiktoken_expected_hashes() -> dict[str, str]:
    """Read the ``expected_hash=`` arguments out of tiktoken's own source, without running it."""
    tree = ast.parse(inspect.getsource(tiktoken_ext.openai_public))
    found: dict[str, str] = {}
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name in ENCODING_NAMES:
            for node in ast.walk(fn):
                if isinstance(node, ast.keyword) and node.arg == "expected_hash":
                    assert isinstance(node.value, ast.Constant)
                    found[fn.name] = node.value.value
    return found


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> dict:
    """An empty encoding cache for one test; the module's loaded one comes back after."""
    empty: dict = {}
    monkeypatch.setattr(tokens, "_CACHE", empty)
    return empty


# --- counts -------------------------------------------------------------------------

# Computed with the real encodings and pinned.
KNOWN_COUNTS = [
    ("hello world", 2, 2),
    ("", 0, 0),
    ("The quick brown fox jumps over the lazy dog.", 10, 10),
    ("def f(x):\n    return x + 1\n", 11, 11),
    ("Grüße, 世界! 🎉", 12, 8),
]


@pytest.mark.parametrize("text,cl100k,o200k", KNOWN_COUNTS)
def test_known_counts(text: str, cl100k: int, o200k: int) -> None:
    expected = {"cl100k_base": cl100k, "o200k_base": o200k}
    assert count_tokens(text.encode("utf-8")) == expected
    assert count_tokens(text) == expected


def test_known_token_ids() -> None:
    assert tokens.get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert tokens.get_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]


def test_result_lists_every_encoding_in_order() -> None:
    assert list(count_tokens(b"x")) == list(ENCODING_NAMES) == ["cl100k_base", "o200k_base"]


def test_special_token_text_is_ordinary_text() -> None:
    doc = b"before <|endoftext|> after <|endofprompt|> <|fim_prefix|>"
    counts = count_tokens(doc)
    for name in ENCODING_NAMES:
        enc = tokens.get_encoding(name)
        ids = enc.encode_ordinary(doc.decode())
        assert counts[name] == len(ids) == len(enc.encode(doc.decode(), disallowed_special=()))
        special_ids = {enc.encode_single_token(t) for t in enc.special_tokens_set}
        assert enc.eot_token in special_ids and not special_ids & set(ids)
        # tiktoken's default refuses such text; counting must not.
        with pytest.raises(ValueError):
            enc.encode(doc.decode())
    assert count_tokens(b"<|endoftext|>") == {"cl100k_base": 7, "o200k_base": 7}


def test_invalid_utf8_is_replaced_deterministically() -> None:
    raw = b"\xff\xfe abc \xc3"
    assert count_tokens(raw) == count_tokens("\ufffd\ufffd abc \ufffd")
    assert count_tokens(raw) == {"cl100k_base": 3, "o200k_base": 3}
    assert count_tokens(bytearray(raw)) == count_tokens(memoryview(raw)) == count_tokens(raw)


# --- the encodings are tiktoken's -----------------------------------------------------


def test_encodings_are_tiktokens_own() -> None:
    cl100k = tokens.get_encoding("cl100k_base")
    o200k = tokens.get_encoding("o200k_base")
    assert isinstance(cl100k, tiktoken.Encoding) and cl100k.name == "cl100k_base"
    assert isinstance(o200k, tiktoken.Encoding) and o200k.name == "o200k_base"
    assert cl100k.n_vocab == 100277 and o200k.n_vocab == 200019
    assert cl100k.eot_token == 100257 and o200k.eot_token == 199999
    assert cl100k.encode("<|endoftext|>", allowed_special="all") == [100257]
    assert o200k.encode("<|endofprompt|>", allowed_special="all") == [200018]
    assert tokens.get_encoding("cl100k_base") is cl100k  # cached


def test_unknown_encoding_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown encoding"):
        tokens.get_encoding("p50k_base")


def test_tiktoken_module_is_left_untouched() -> None:
    tokens.tokenizer_info()
    assert tiktoken_ext.openai_public.load_tiktoken_bpe is tiktoken.load.load_tiktoken_bpe


# --- fingerprints ---------------------------------------------------------------------


def test_fingerprints_equal_tiktokens_expected_hashes() -> None:
    expected = tiktoken_expected_hashes()
    info = tokens.tokenizer_info()
    assert [i.name for i in info] == list(ENCODING_NAMES)
    assert {i.name: i.vocabulary_sha256 for i in info} == expected == PINNED_SHA256
    assert all(i.tiktoken_version == tiktoken.__version__ for i in info)


def test_fingerprint_is_the_sha256_of_the_shipped_file() -> None:
    for info in tokens.tokenizer_info():
        path = tokens._vocabulary_path(info.name, info.vocabulary_sha256)
        with open(path, "rb") as f:
            assert hashlib.sha256(gzip.decompress(f.read())).hexdigest() == info.vocabulary_sha256


def test_tokenizer_info_is_frozen() -> None:
    info = tokens.tokenizer_info()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.name = "other"  # type: ignore[misc]
    assert info == TokenizerInfo(info.name, info.tiktoken_version, info.vocabulary_sha256)


# --- failures are loud ---------------------------------------------------------------


def test_altered_vocabulary_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, fresh_cache: dict) -> None:
    real = tokens._read_vocabulary_bytes

    def altered(name: str, expected: str) -> tuple[str, bytes]:
        path, data = real(name, expected)
        return path, data[:-2] + b"7\n"  # the last rank changed

    monkeypatch.setattr(tokens, "_read_vocabulary_bytes", altered)
    path, data = altered("cl100k_base", PINNED_SHA256["cl100k_base"])
    found = hashlib.sha256(data).hexdigest()
    with pytest.raises(VocabularyError) as err:
        tokens.get_encoding("cl100k_base")
    message = str(err.value)
    assert path in message and "cl100k_base.tiktoken.gz" in message
    assert PINNED_SHA256["cl100k_base"] in message and found in message
    assert err.value.expected_sha256 == PINNED_SHA256["cl100k_base"]
    assert err.value.found_sha256 == found and err.value.path == path
    # No estimate instead: counting fails too, and nothing was cached.
    with pytest.raises(VocabularyError):
        count_tokens(b"hello world")
    assert fresh_cache == {}


def test_missing_vocabulary_file_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: dict, tmp_path
) -> None:
    missing = str(tmp_path / "o200k_base.tiktoken.gz")
    monkeypatch.setattr(tokens, "_vocabulary_path", lambda name, expected: missing)
    with pytest.raises(VocabularyError) as err:
        tokens.get_encoding("o200k_base")
    assert missing in str(err.value) and PINNED_SHA256["o200k_base"] in str(err.value)
    assert err.value.found_sha256 is None


def test_corrupt_gzip_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, fresh_cache: dict, tmp_path) -> None:
    bad = tmp_path / "cl100k_base.tiktoken.gz"
    bad.write_bytes(b"not a gzip file")
    monkeypatch.setattr(tokens, "_vocabulary_path", lambda name, expected: str(bad))
    with pytest.raises(VocabularyError, match="not a valid gzip") as err:
        tokens.get_encoding("cl100k_base")
    assert str(bad) in str(err.value) and PINNED_SHA256["cl100k_base"] in str(err.value)


def test_missing_vocabulary_package_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: dict
) -> None:
    monkeypatch.setattr(tokens, "_VOCABULARY_PACKAGE", "semaprax_no_such_vocabulary_package")
    with pytest.raises(VocabularyError, match="not installed") as err:
        tokens.tokenizer_info()
    assert "cl100k_base.tiktoken.gz" in str(err.value) and PINNED_SHA256["cl100k_base"] in str(err.value)


# --- one load, shared by threads, nothing fetched or written --------------------------


def test_threads_share_one_load_without_network_or_writes(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: dict, tmp_path
) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setattr(tiktoken.load, "read_file_cached", no_network)
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))

    reads: list[str] = []
    real = tokens._read_vocabulary_bytes

    def counting(name: str, expected: str) -> tuple[str, bytes]:
        reads.append(name)
        return real(name, expected)

    monkeypatch.setattr(tokens, "_read_vocabulary_bytes", counting)

    n = 8
    barrier = threading.Barrier(n)
    results: list[object] = [None] * n
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait()
            results[i] = tokens.get_encoding("cl100k_base")
        except BaseException as e:  # noqa: BLE001  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert reads == ["cl100k_base"]
    assert all(r is results[0] for r in results)
    assert results[0].encode_ordinary("hello world") == [15339, 1917]  # type: ignore[union-attr]
    assert list(home.iterdir()) == [] and list(tmp.iterdir()) == []


FRESH_PROCESS = r"""
import json, os, sys

events = []
def audit(event, args):
    if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto",
                 "socket.sendmsg", "socket.gethostbyaddr"):
        events.append([event, repr(args)[:200]])
    elif event in ("open", "os.open") and args[0] is not None:
        mode, flags = args[1], args[2]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        if writing:
            events.append([event, repr(args)[:200]])
    elif event in ("os.mkdir", "os.rename", "os.remove", "shutil.copyfile"):
        events.append([event, repr(args)[:200]])
sys.addaudithook(audit)

from views import tokens
counts = tokens.count_tokens(b"hello world <|endoftext|>")
info = [i.vocabulary_sha256 for i in tokens.tokenizer_info()]
print(json.dumps({"counts": counts, "info": info, "events": events}))
"""


def test_fresh_process_loads_offline_without_writing(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    env.update(HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(check=False, args=
        [sys.executable, "-c", FRESH_PROCESS],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["events"] == []  # no connection or name lookup, no file written or directory made
    assert out["counts"] == {"cl100k_base": 8, "o200k_base": 9}
    assert out["info"] == [PINNED_SHA256[n] for n in ENCODING_NAMES]
    assert list((tmp_path / "home").iterdir()) == [] and list((tmp_path / "tmp").iterdir()) == []


# --- memory: no Python copy of the ranks, one vocabulary at a time ---------------------


def test_encodings_keep_no_python_copy_of_their_ranks_and_pickle_by_name() -> None:
    """The Python merge-ranks dict (24 MB for o200k_base) is let go once tiktoken's
    core is built; the encoding still encodes as tiktoken's own and pickles by name."""
    import pickle

    for name in ENCODING_NAMES:
        enc = tokens.get_encoding(name)
        assert not hasattr(enc, "_mergeable_ranks")
        assert pickle.loads(pickle.dumps(enc)) is enc
        text = "def f(x):\n    return x + 1  # Grüße 世界\n"
        assert enc.decode(enc.encode_ordinary(text)) == text


def test_token_lengths_are_each_ranks_bytes() -> None:
    for name in ENCODING_NAMES:
        enc, lengths = tokens.get_encoding(name), tokens.token_lengths(name)
        assert len(lengths) == enc.n_vocab
        ids = enc.encode_ordinary("naïve café → 東京 {\"name\": 12345}")
        assert [lengths[i] for i in ids] == [len(enc.decode_single_token_bytes(i)) for i in ids]
        assert lengths[enc.eot_token] == len(b"<|endoftext|>")


def test_release_lets_an_encoding_go_and_the_next_use_builds_it_again(fresh_cache: dict) -> None:
    import gc
    import weakref

    first = tokens.get_encoding("cl100k_base")
    counts = count_tokens(b"hello world, again")
    gone = weakref.ref(first)
    del first
    tokens.release("cl100k_base")
    gc.collect()
    assert gone() is None and "cl100k_base" not in fresh_cache
    assert count_tokens(b"hello world, again") == counts
    with pytest.raises(ValueError, match="unknown encoding"):
        tokens.release("p50k_base")
